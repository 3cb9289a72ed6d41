"""A catalog read from its cache entry keys what is derived from all of its signatures (the templates' index)
on that entry's key (Catalog.base_key), not on a key of their texts: the same index, and no such key for a
changed copy, a subset or a catalog not read from the cache."""

from __future__ import annotations

import dataclasses

from cudnn_doctor.kb import templates
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.kb.load import Catalog
from cudnn_doctor.match import Matcher


def test_the_index_keyed_on_the_catalog_entry_is_the_one_keyed_on_its_texts() -> None:
    catalog = load_catalog()
    sigs = catalog.signatures
    base = catalog.base_key(sigs)
    assert base is not None
    assert list(map(tuple, Matcher(catalog).tolerant().rec.tpls)) == list(dict.fromkeys(map(tuple, templates.index(sigs)["templates"])))
    assert templates.index(sigs, base) == templates.index(sigs)


def test_a_changed_copy_a_subset_or_a_catalog_not_from_the_cache_has_no_base_key() -> None:
    catalog = load_catalog()
    sigs = catalog.signatures
    assert catalog.base_key(sigs[1:]) is None
    assert catalog.base_key([*sigs[1:], sigs[0]]) is None
    assert catalog.base_key([dataclasses.replace(sigs[0]), *sigs[1:]]) is None
    copy = dataclasses.replace(catalog, signatures=sigs[1:])
    assert copy.base_key(copy.signatures) is None
    assert Catalog(signatures=list(sigs)).base_key(sigs) is None

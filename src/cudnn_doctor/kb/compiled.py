"""The compiled catalog: the knowledge base with every regex a diagnosis needs already compiled, cached.

A plain ``diagnose`` must start fast, so the parsed and validated set, with its compiled patterns, is kept
in a signed cache (cache.py) keyed on every input that shapes it (_fingerprint): YAML parsing, JSON Schema
validation and regex compilation, the slow parts, only run when one of them changed.

This module sits above catalog.py (the data loader), match/ and environment.py: warming compiles their
patterns, and none of them imports it (no import circle).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

from ..model import LazyRecord
from ..version import __version__
from .load import SCHEMA_FILE, Catalog, catalog_roots, evidence_file, read_catalog, root_files

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

_CACHE_FORMAT = 9

# the modules whose code shapes the cached catalog and its compiled patterns (an edited checkout: a new key)
_SHAPING_MODULES = (
    "kb/load", "kb/build", "kb/checks", "kb/compiled", "model", "kb/patterns", "env/detect", "rank/tracebacks",
    "kb/conditions", "kb/cache", "version", "rank/differential",
    *(f"match/{m}" for m in ("__init__", "regexinfo", "prefilter", "lines", "context", "ruleout", "probes", "results", "matcher", "templates", "tolerant", "chains")),
)


def load_catalog(
    extra_dirs: Sequence[str | os.PathLike[str]] = (),
    *,
    builtin: bool = True,
    use_env: bool = True,
    use_cache: bool = True,
) -> Catalog:
    """Load the built-in knowledge base plus user signature directories.

    User directories come from ``extra_dirs`` and the ``CUDNN_DOCTOR_SIGNATURES`` environment variable
    (os.pathsep-separated). A user signature with a built-in id replaces it. Raises SignatureError listing
    every problem in every file. With ``use_cache`` the catalog comes lean (no examples: see _lean) from the
    cache, or is read, compiled and stored there.
    """
    roots = catalog_roots(extra_dirs, builtin=builtin, use_env=use_env)
    files = root_files(roots)
    if not use_cache:
        return read_catalog(roots, _as_paths(files))
    from . import cache
    from .patterns import restore

    key = _fingerprint([f for group in files for f in group], [*(evidence_file(r) for r, _ in roots), SCHEMA_FILE])
    cached = cache.load(key)
    if cached is not None:
        catalog, patterns = cached
        restore(patterns)
        return catalog
    # the same lean catalog whether from the files or the cache
    catalog = _lean(read_catalog(roots, _as_paths(files)))
    cache.store(key, (catalog, _warm_patterns(catalog)))
    return catalog


def _as_paths(files: list[list[str]]) -> list[list[Path]]:
    from pathlib import Path  # here: a cached start-up does not import pathlib

    return [[Path(p) for p in group] for group in files]


def _fingerprint(files: Sequence[str | Path], extra: Sequence[str | Path]) -> str:
    """Every input that shapes the cached catalog: each signature file's path, size and mtime, the schema
    and evidence files, cudnn-doctor's own modules (an edited checkout), its version, the Python and
    `regex` C extension (the cache holds compiled `regex` programs) and the cache format."""
    from .patterns import regex_engine_file

    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the package
    parts = [f"{__version__}:{_CACHE_FORMAT}:{sys.implementation.cache_tag}:{sys.version}:{regex_engine_file()}"]
    code = [os.path.join(here, f"{name}.py") for name in _SHAPING_MODULES]
    for p in [*files, *extra, *code]:
        try:
            st = os.stat(p)
        except OSError:
            continue
        parts.append(f"{p}\0{st.st_size}\0{st.st_mtime_ns}")
    return "\n".join(parts)


def _lean(catalog: Catalog) -> Catalog:
    """The catalog without examples, for the cache: a diagnosis never needs them and they are a third of the
    pickle. ``validate`` reads the files itself; ``show`` re-reads the signature's file."""
    import dataclasses

    def strip(sig: Any) -> Any:
        raw = LazyRecord({k: v for k, v in sig.raw.items() if k not in ("examples", "counter_examples")})
        return dataclasses.replace(sig, examples=(), counter_examples=(), raw=raw)

    return Catalog(signatures=[strip(s) for s in catalog.signatures], evidence=catalog.evidence, warnings=catalog.warnings)


def _warm_patterns(catalog: Catalog) -> dict[Any, Any]:
    """Compile everything a diagnose with this catalog needs, for the cache (see patterns.py)."""
    from .. import match
    from ..env.detect import DETECTORS, EnvironmentCollector
    from ..match import Matcher
    from ..rank import tracebacks
    from ..rank.differential import search_patterns
    from .patterns import compile_pattern, snapshot, warm_module

    Matcher(catalog, probes=EnvironmentCollector().probes()).warm()
    for detector in DETECTORS:
        _ = detector.regex
    warm_module(tracebacks)
    warm_module(match)
    for part in search_patterns(catalog.signatures, catalog.evidence):
        with contextlib.suppress(Exception):  # a bad pattern is the differential's to skip (its _search)
            compile_pattern(part, ("IGNORECASE",))
    return snapshot()

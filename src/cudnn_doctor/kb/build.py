"""A schema-valid signature record -> the typed model (model.py), derived from the model's dataclasses.

Every dataclass field is read from the record key of the same name and converted by its type annotation
(``_converter``), so a plain new field (a string, a rate, a list of strings, a version mapping, ...) on
``Signature``, ``DeadEnd``, ``Workaround``, ``Cause``, ``DifferentialEntry``, ``Context`` or ``Example``
needs only the schema and the model. Localised text follows one rule: ``<field>_<lang>`` beside
``<field>`` (``action_zh``, ``text_zh``...), English when absent. What is not one-to-one is said once
below: defaults the model cannot hold (``DEFAULTS``), renamed or folded keys (``KEY_OF``, ``FOLDED``),
keys read from ``Signature.raw`` where used (``READ_FROM_RAW``) and the deadends.dev fields ignored
(``DEADENDS_COMPAT_FIELDS``). Any other key is an error, not passed through.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import model
from ..errors import SignatureError
from ..model import Case, DeadEnd, Example, GraphEdge, Reference, Signature, Workaround
from .templates import derive as derive_templates
from .templates import lookalikes

if TYPE_CHECKING:
    from pathlib import Path

# Fields of deadends.dev's ErrorCanon record (docs/examples/seed-record.json), kept in the schema so such a
# record loads unchanged, and ignored here: cudnn-doctor has its own field for each meaning it uses
# (`framework` for `domain`, `applies`/`fixed_in` for `versions`, `verification_tier` and per-item rates
# for `confidence`/`fix_success_rate`, `labels` for `category`). `show` prints them as written, `search`
# also looks at `tags` and `error_code`. docs/signature-format.md, "deadends.dev compatibility fields".
DEADENDS_COMPAT_FIELDS = (
    "domain", "category", "subcategory", "root_cause_type", "versions", "os_specific", "error_code",
    "confidence", "fix_success_rate", "resolvable", "first_seen", "last_confirmed", "last_updated",
    "evidence_count", "tags", "locale", "aliases",
)
EDITOR_FIELDS = ("$schema",)  # the YAML language server's schema hint
# keys read from Signature.raw where they are used: Signature.text() for the translations, validate and
# show for the wordings
READ_FROM_RAW = ("title_zh", "signature_zh", "root_cause_zh", "wordings")
# Signature fields read from a key of another name
KEY_OF = {
    "flags": "regex_flags",
    "window_before": "window",
    "window_after": "window",
    "leads_to": "transition_graph",
    "preceded_by": "transition_graph",
    "confused_with": "transition_graph",
}
FOLDED = ("explain_zh", "workarounds_zh", "official_doc_url", "official_doc_section")  # into explain, workarounds, references
NOT_IN_RECORD = ("path", "builtin", "raw", "lookalikes")  # lookalikes: derived (kb/templates.lookalikes)
_IGNORED = frozenset({*DEADENDS_COMPAT_FIELDS, *EDITOR_FIELDS})
DEFAULTS: dict[str, Any] = {"scope": "cudnn", "severity": "error", "priority": 50}


@functools.cache
def record_keys() -> frozenset[str]:
    """Every top-level key the loader reads (the schema's properties are these plus the ignored ones)."""
    fields = {KEY_OF.get(f.name, f.name) for f in dataclasses.fields(Signature) if f.name not in NOT_IN_RECORD}
    return frozenset(fields | {*FOLDED, *READ_FROM_RAW})


def build_signature(record: dict[str, Any], path: str | Path, builtin: bool, templated: Any = None) -> Signature:
    """A Signature from a schema-valid record. Its message templates and lookalikes (kb/templates.py) are
    ``templated`` (``[templates, lookalikes]`` as plain lists: the catalog cache's, kept from a full record),
    or derived here from the record (its examples and counter-examples). A signature built from the cache's
    ``templated`` builds its DEFERRED fields when first read (LazySignature)."""
    unknown = sorted(set(record) - record_keys() - _IGNORED)
    if unknown:  # the schema and the model disagree: a field added to one only
        raise SignatureError([f"{path}: $.{key}: the schema allows it but the model has no field for it" for key in unknown])
    if templated is not None:
        sig = object.__new__(LazySignature)
        sig.__dict__.update(_signature_fields(record, path, builtin, lazy=True))
        sig.__dict__["_templated"] = templated
        return sig
    sig = Signature(**_signature_fields(record, path, builtin))
    tpls = derive_templates(sig)
    return dataclasses.replace(sig, templates=tpls, lookalikes=lookalikes(sig, tpls))


def _signature_fields(record: dict[str, Any], path: str | Path, builtin: bool, lazy: bool = False) -> dict[str, Any]:
    """The Signature's fields from the record; ``lazy``: all but the DEFERRED ones and the templates (a
    LazySignature builds those when first read)."""
    before, after = _window(record)
    given = {
        "title": record.get("title") or record["signature"][:120],
        "framework": record.get("framework") or _guess_framework(record),
        "flags": tuple(record.get("regex_flags") or ()),
        "window_before": before,
        "window_after": after,
        "path": str(path),
        "builtin": builtin,
        "raw": record,
        "templates": (),  # not the record's ``templates:`` (format strings): derived from them after
        "lookalikes": (),
    }
    if not lazy:
        given.update(
            explain=_explain(record),
            derived=tuple((name, _cases(cases, "value")) for name, cases in (record.get("derived") or {}).items()),
            checks=_cases(record.get("checks"), "message"),
            references=_refs(record.get("references")) + _official_doc(record),
            **_lists(record),
        )
    skip = (*DEFERRED, *_TEMPLATED) if lazy else ()
    return _kwargs(Signature, {**DEFAULTS, **{k: v for k, v in record.items() if v is not None}}, given, skip)


# The fields a diagnosis reads only for the signatures it reports (what to say, the links, the graph): a
# cached start leaves them to be built from the record when first read; building all of them was most of a
# cached start of the 10x knowledge base (bench/biglog.py: 3,020 signatures, ~0.4 s of CPU a run).
DEFERRED = (
    "explain", "derived", "checks", "references", "dead_ends", "workarounds", "leads_to", "preceded_by", "confused_with",
    "examples", "counter_examples", "differential",
)


class LazySignature(Signature):
    """A Signature built from the catalog cache: its DEFERRED fields are built from ``raw`` when one is first
    read, all together, by the same code as an eager build, and its templates and lookalikes from the cache's
    lists (the matcher's index of templates is kept in the cache too) (equivalence: tests/test_build.py)."""


class _Deferred:
    """A DEFERRED field of a LazySignature: built (with the others) when first read, then an instance value."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, sig: Any, owner: Any = None) -> Any:
        if sig is None:
            return self
        if self.name in _TEMPLATED:
            return sig.__dict__.setdefault(self.name, _tuples(sig.__dict__["_templated"][_TEMPLATED.index(self.name)]))
        full = Signature(**_signature_fields(sig.raw, sig.path, sig.builtin))
        for name in DEFERRED:
            sig.__dict__.setdefault(name, getattr(full, name))
        return sig.__dict__[self.name]


_TEMPLATED = ("templates", "lookalikes")
for _name in (*DEFERRED, *_TEMPLATED):
    setattr(LazySignature, _name, _Deferred(_name))


def _tuples(items: Any) -> tuple[tuple[str, ...], ...]:
    return tuple(map(tuple, items))


def _lists(record: dict[str, Any]) -> dict[str, Any]:
    """The fields made from a record's lists: dead ends, workarounds, the transition graph, examples."""
    graph = record.get("transition_graph") or {}
    return {
        "dead_ends": tuple(_dead_end(d, record) for d in record.get("dead_ends") or ()),
        "workarounds": tuple(_workaround(w, i, record) for i, w in enumerate(record.get("workarounds") or ())),
        "leads_to": _edges(graph.get("leads_to")),
        "preceded_by": _edges(graph.get("preceded_by")),
        "confused_with": _edges(graph.get("frequently_confused_with")),
        "examples": tuple(_example(e, f"example {i + 1}") for i, e in enumerate(record.get("examples") or ())),
        "counter_examples": tuple(_example(e, f"counter-example {i + 1}") for i, e in enumerate(record.get("counter_examples") or ())),
    }


def from_record(cls: Any, data: dict[str, Any], **given: Any) -> Any:
    """``cls`` (a model dataclass) from the record ``data``: each field from the key of its name, converted by
    its annotation; ``given`` fields as passed; a missing key leaves the field's default ('' for a string)."""
    return cls(**_kwargs(cls, data, given))


def _kwargs(cls: Any, data: dict[str, Any], given: dict[str, Any], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """from_record's arguments of ``cls`` (those named in ``skip`` left out)."""
    kwargs = {k: v for k, v in given.items() if k not in skip}
    for name, annotation, required in _fields(cls):
        if name in given or name in skip:
            continue
        value = data.get(name)
        if value is not None:
            kwargs[name] = _converter(annotation)(value)
        elif required:
            kwargs[name] = _absent(annotation, name, data)
    return kwargs


@functools.cache
def _fields(cls: Any) -> tuple[tuple[str, str, bool], ...]:
    """(name, annotation, no default) of each field: every cached start builds the catalog from its records."""
    missing = dataclasses.MISSING
    return tuple((f.name, f.type, f.default is missing and f.default_factory is missing) for f in dataclasses.fields(cls))


def _absent(annotation: str, name: str, data: dict[str, Any]) -> Any:
    """A field without a default whose key is absent: empty, or a KeyError (the schema requires the key)."""
    if annotation == "str":
        return ""
    if annotation.endswith(" | None"):
        return None
    if annotation.startswith("tuple["):
        return ()
    cls = getattr(model, annotation, None)
    if cls is not None and dataclasses.is_dataclass(cls):
        return from_record(cls, {})
    return data[name]


@functools.cache
def _converter(annotation: str) -> Callable[[Any], Any]:
    """How a record value becomes the model field annotated ``annotation`` (_CONVERTERS, else a nested model
    dataclass, one or a tuple of them)."""
    convert = _CONVERTERS.get(annotation)
    if convert is not None:
        return convert
    inner = annotation.removeprefix("tuple[").removesuffix(", ...]").removesuffix(" | None")
    cls = getattr(model, inner, None)
    if cls is None or not dataclasses.is_dataclass(cls):
        raise TypeError(f"build.py cannot read a model field annotated {annotation!r}: add it to _CONVERTERS")
    if annotation.startswith("tuple["):
        return lambda value: tuple(from_record(cls, item) for item in value)
    return lambda value: from_record(cls, value) if isinstance(value, dict) else None


# --------------------------------------------------------------------------- what is not one-to-one


def _dead_end(d: dict[str, Any], record: dict[str, Any]) -> DeadEnd:
    return from_record(DeadEnd, d, verification_tier=d.get("verification_tier") or record.get("verification_tier"))


def _workaround(w: dict[str, Any], index: int, record: dict[str, Any]) -> Workaround:
    return from_record(
        Workaround,
        w,
        verification_tier=w.get("verification_tier") or record.get("verification_tier"),
        action_zh=w.get("action_zh", "") or _zh_list(record, index),
    )


def _example(e: dict[str, Any], name: str) -> Example:
    return from_record(Example, e, name=e.get("name", name))


def _refs(items: Any) -> tuple[Reference, ...]:
    out = []
    for item in items or ():
        if isinstance(item, str):
            out.append(Reference(url=item))
        elif isinstance(item, dict):
            out.append(Reference(url=item.get("url", ""), title=item.get("title", "")))
    return tuple(out)


def _official_doc(record: dict[str, Any]) -> tuple[Reference, ...]:
    url = record.get("official_doc_url")
    return (Reference(url=url, title=record.get("official_doc_section") or "Official documentation"),) if url else ()


def _edges(items: Any) -> tuple[GraphEdge, ...]:
    out = []
    for item in items or ():
        if isinstance(item, str):
            out.append(GraphEdge(id=item))
        elif isinstance(item, dict):
            out.append(GraphEdge(id=item["id"], how_to_tell=item.get("how_to_tell", "") or item.get("note", "")))
    return tuple(out)


def _cases(value: Any, key: str = "text") -> tuple[Case, ...]:
    """Cases ``{when, <key>, <key>_zh}`` (or one string): explain, checks, a derived value."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (Case(text=value),)
    return tuple(Case(text=c[key], when=c.get("when"), text_zh=c.get(f"{key}_zh", "")) for c in value)


def default_window(pattern: str) -> tuple[int, int]:
    """Lines around a prefilter hit a pattern may span: more when it can cross lines."""
    spans_lines = "\\n" in pattern or "[\\s\\S]" in pattern or "\\s" in pattern or "\n" in pattern
    return (30, 30) if spans_lines else (2, 2)


def _window(record: dict[str, Any]) -> tuple[int, int]:
    d_before, d_after = default_window(record["regex"])
    if "DOTALL" in (record.get("regex_flags") or ()):
        d_before, d_after = max(d_before, 30), max(d_after, 30)
    win = record.get("window") or {}
    return int(win.get("before", d_before)), int(win.get("after", d_after))


def _explain(record: dict[str, Any]) -> tuple[Case, ...]:
    """``explain`` cases; a top-level ``explain_zh`` is the Chinese of a one-string ``explain``, or of the
    cases without a condition (the fallback) that carry no ``text_zh`` of their own."""
    cases = _cases(record.get("explain"))
    zh = record.get("explain_zh")
    if not zh:
        return cases
    return tuple(dataclasses.replace(c, text_zh=zh) if not c.when and not c.text_zh else c for c in cases)


def _zh_list(record: dict[str, Any], index: int) -> str:
    items = record.get("workarounds_zh") or []
    return items[index] if index < len(items) and isinstance(items[index], str) else ""


def _guess_framework(record: dict[str, Any]) -> str:
    text = " ".join(str(record.get(k, "")) for k in ("signature", "domain", "id")).lower()
    for needle, name in (("torch", "pytorch"), ("tensorflow", "tensorflow"), ("keras", "keras"), ("jax", "jax")):
        if needle in text:
            return name
    return "any"


def _same(value: Any) -> Any:
    return value


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "str": _same,
    "str | None": _same,
    "float | None": _same,
    "bool | None": _same,
    "int": int,
    "tuple[str, ...]": tuple,
    "tuple[tuple[str, str], ...]": lambda v: tuple(sorted(v.items())),  # a version mapping: sorted, so equal ones compare equal
    "tuple[tuple[str, str | None], ...]": lambda v: tuple(v.items()),  # an example's captures, in the order written
    "tuple[Reference, ...]": _refs,
    "tuple[GraphEdge, ...]": _edges,
    "tuple[Case, ...]": _cases,
}

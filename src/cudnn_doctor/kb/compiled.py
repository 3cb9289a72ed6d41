"""The catalog a diagnosis uses, cached as plain data: the validated records, not the objects built from them.

Reading the knowledge base (YAML parsing, JSON Schema validation, the checks of checks.py) is the slow part of
loading it, so its result is kept in the cache (cache.py) as a JSON value: each signature's record as written (without
its examples, which a diagnosis never reads), the evidence sets, the loader's warnings and the templates
(``derived``). A cached start reads that value and builds the model from the records
(build.py); regexes are compiled when first used (patterns.py). The key (``_fingerprint``) holds every input
that shapes the entry: each signature file's path, size and mtime, the schema and evidence files,
cudnn-doctor's version and code, the Python and `regex` versions.

Each signature's message templates and lookalikes (kb/templates.py) are derived from its full record when it
is built (build.py: they need its examples and counter-examples) and kept in the entry (``derived.templates``), so
a cached start builds them from plain lists, deriving nothing.

Beside the entry, two more (bytes, each value decoded when first asked for: patterns.Kept): the compiled
patterns' code (``kept_code``) and the values the matcher derives from the patterns (``kept_derived``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..version import __version__
from .load import SCHEMA_FILE, Catalog, catalog_roots, evidence_file, read_catalog, root_files
from .patterns import kept_code, kept_derived, restore_code, restore_derived

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

_CACHE_FORMAT = 13
CODE_KIND = "patterns"  # the cache entry beside a catalog's that keeps its compiled patterns (patterns.kept_code)
DERIVED_KIND = "derived"  # and the one that keeps the values derived from them (patterns.kept_derived)
# the code that shapes an entry: the records' model, and the values derived from them (kb/: message templates,
# lookalikes, the words' weights, what a regex says; match/: the values the matcher derives from the patterns).
# Every module of these folders, listed when the key is made: a hand-kept list went stale when modules moved.
_SHAPING_DIRS = ("kb", "match")
_SHAPING_FILES = ("model.py", "read/normalize.py", "data/logwords.json", "env/detect.py")
_LEAN_OUT = ("examples", "counter_examples")


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
    every problem in every file. With ``use_cache`` the catalog comes lean (no examples) from the cache, or
    is read and stored there; loaded again in the same process while its files and cache entry are unchanged,
    it is the same object (shared: do not change it; ``dataclasses.replace`` makes a changed copy).
    """
    roots = catalog_roots(extra_dirs, builtin=builtin, use_env=use_env)
    files = root_files(roots)
    if not use_cache:
        return read_catalog(roots, _as_paths(files))
    from . import cache

    key = _fingerprint([f for group in files for f in group], [*(evidence_file(r) for r, _ in roots), SCHEMA_FILE])
    loaded = _LOADED.get(key)
    if loaded is not None and loaded[0] is not None and loaded[0] == cache.stamp(key):
        return loaded[1]  # this process loaded it from that very entry: a library caller's next diagnose()
    entry = cache.load(key)
    catalog = _from_entry(entry) if entry is not None else None
    if catalog is None:  # a miss, or an entry that does not read back (rebuilt and written again)
        cache.say_building()
        catalog = _lean(read_catalog(roots, _as_paths(files)))
        catalog.keyed(cache.digest(key.encode("utf-8", "surrogatepass")))  # before _warm: what it derives is kept so
        _warm(catalog)
        cache.store(key, _entry(catalog))
        cache.store_bytes(key, kept_code(), CODE_KIND)  # every pattern, compiled by _warm
        cache.store_bytes(key, kept_derived(), DERIVED_KIND)
    else:
        catalog.keyed(cache.digest(key.encode("utf-8", "surrogatepass")))
        restore_code(lambda: cache.load_bytes(key, CODE_KIND))
        restore_derived(lambda: cache.load_bytes(key, DERIVED_KIND))
    _remember(key, catalog)
    return catalog


def _remember(key: str, catalog: Catalog) -> None:
    """Keep the catalog loaded for ``key`` (the last MAX_LOADED keys), so a process that diagnoses again and
    again (the library, the excepthook, IPython, pytest) neither rebuilds it each time nor keeps every copy."""
    from . import cache

    _LOADED.pop(key, None)
    while len(_LOADED) >= MAX_LOADED:
        _LOADED.pop(next(iter(_LOADED)))
    _LOADED[key] = (cache.stamp(key), catalog)


def _as_paths(files: list[list[str]]) -> list[list[Path]]:
    from pathlib import Path  # here: a cached start-up does not import pathlib

    return [[Path(p) for p in group] for group in files]


def _fingerprint(files: Sequence[str | Path], extra: Sequence[str | Path]) -> str:
    """Every input that shapes the cached catalog: each signature file's path, size and mtime, the schema
    and evidence files, cudnn-doctor's own modules (an edited checkout), its version, Python's and `regex`'s
    versions, and the cache format."""
    from .patterns import regex_engine_file

    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the package
    parts = [f"{__version__}:{_CACHE_FORMAT}:{sys.implementation.cache_tag}:{sys.version}:{regex_engine_file()}"]
    code = [os.path.join(here, name) for name in _SHAPING_FILES]
    for folder in _SHAPING_DIRS:
        path = os.path.join(here, folder)
        code += sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith(".py"))
    for p in [*files, *extra, *code]:
        try:
            st = os.stat(p)
        except OSError:
            continue
        parts.append(f"{p}\0{st.st_size}\0{st.st_mtime_ns}")
    return "\n".join(parts)


def _lean(catalog: Catalog) -> Catalog:
    """The catalog without examples, for the cache: a diagnosis never needs them and they are a third of
    the records. ``validate`` reads the files itself; ``show`` re-reads the signature's file."""
    import dataclasses

    def strip(sig: Any) -> Any:
        raw = {k: v for k, v in sig.raw.items() if k not in _LEAN_OUT}
        return dataclasses.replace(sig, examples=(), counter_examples=(), raw=raw)

    return Catalog(signatures=[strip(s) for s in catalog.signatures], evidence=catalog.evidence, warnings=catalog.warnings)


def _entry(catalog: Catalog) -> dict[str, Any]:
    return {
        "signatures": [[s.raw, s.path, s.builtin] for s in catalog.signatures],
        "evidence": {k: list(v) for k, v in catalog.evidence.items()},
        "warnings": list(catalog.warnings),
        # each signature's message templates and lookalikes, derived from its full record (build.py)
        "derived": {"templates": {s.id: [s.templates, s.lookalikes] for s in catalog.signatures}},
    }


def _from_entry(entry: Any) -> Catalog | None:
    """The catalog built from a cache entry's records; None when the entry is not what ``_entry`` writes."""
    from .build import build_signature

    try:
        templated = entry["derived"]["templates"]
        sigs = [build_signature(r, path, builtin, templated[r["id"]]) for r, path, builtin in entry["signatures"]]
        evidence = {str(k): tuple(v) for k, v in entry["evidence"].items()}
        catalog = Catalog(signatures=sigs, evidence=evidence, warnings=[str(w) for w in entry["warnings"]])
    except Exception:  # damaged, or written by another version of build.py: read again
        return None
    return catalog


def _warm(catalog: Catalog) -> None:
    """Compile every pattern the matcher may use and derive what it derives from them by parsing them (~0.7 s of
    CPU per process for the built-in base): computed for every signature, evidence set and probe, and kept beside
    the entry (``kept_code``, ``kept_derived``)."""
    from ..env.detect import EnvironmentCollector
    from ..match import Matcher

    Matcher(catalog, probes=EnvironmentCollector().probes()).warm()


# the catalogs load_catalog gave, by cache key, with the stamp of the cache entry they were read from
_LOADED: dict[str, tuple[tuple[int, int, int] | None, Catalog]] = {}
MAX_LOADED = 4

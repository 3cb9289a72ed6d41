"""Compiled regexes, shared and persisted with the catalog cache.

The `regex` module compiles in Python (slow: ~1 ms per signature pattern), but a compiled pattern pickles
as its finished opcode list, and unpickling rebuilds it in C without parsing. So the catalog cache stores
every compiled pattern the knowledge base needs, and a plain diagnose compiles nothing. It does not even
import the `regex` package (its parser, ~10 ms of a pasted traceback's start-up): the patterns are unpickled
with the package's C extension alone (_regex_engine), and the package is imported on the first compile.
"""

from __future__ import annotations

import _thread  # threading's own primitives, without importing threading (start-up)
import io
import os
import pickle
import re
import sys
from collections.abc import Callable
from functools import lru_cache

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

_FLAG_NAMES = ("IGNORECASE", "DOTALL", "VERBOSE")
_ENGINE = "regex._regex"  # the `regex` package's C extension: what a compiled pattern pickles as


def regex_module() -> Any:
    """The `regex` package, imported on first need (a compile on a cold cache, validation, a parse)."""
    import regex

    return regex


def regex_error() -> type[BaseException]:
    """`regex.error`, for an ``except`` clause (evaluated only once an exception is on its way): when the
    `regex` package was never imported no pattern was compiled, and a running one that raises its error
    imports the package first, so a class nothing raises stands in."""
    core = sys.modules.get("regex._regex_core")
    return core.error if core is not None else _NeverRaised  # type: ignore[no-any-return]


class _NeverRaised(Exception):
    pass


def regex_engine_file() -> str:
    """The path, size and mtime of the `regex` C extension (a cache key: compiled programs are its own), found
    without importing the package; the package's version where the file cannot be found."""
    spec = _engine_spec()
    origin = getattr(spec, "origin", None) if spec is not None else None
    if origin:
        try:
            st = os.stat(origin)
            return f"{origin}\0{st.st_size}\0{st.st_mtime_ns}"
        except OSError:
            pass
    return f"regex {regex_module().__version__}"


@lru_cache(maxsize=1)
def _engine_spec() -> Any:
    """The `regex` C extension's import spec, found without importing the package (the cache key and the
    loader both ask)."""
    import importlib.machinery
    import importlib.util

    try:
        package = importlib.util.find_spec("regex")
        where = package.submodule_search_locations if package is not None else None
        spec = importlib.machinery.PathFinder.find_spec(_ENGINE, list(where)) if where else None
    except (ImportError, ValueError):
        return None
    return spec if spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader) else None


_engine: Any = None
_engine_lock = _thread.allocate_lock()  # the threads of a Dask worker unpickle patterns at once


def _regex_engine() -> Any:
    """The `regex` package's C extension, loaded on its own when the package is not imported yet (and kept in
    sys.modules under its name, so the package finds it there when it is imported later); the package's own
    where it cannot be loaded so."""
    global _engine
    if _engine is None:
        with _engine_lock:
            if _engine is None:
                _engine = sys.modules.get(_ENGINE) or _load_engine() or regex_module()._regex
    return _engine


def _load_engine() -> Any:
    import importlib.util

    spec = _engine_spec()
    if spec is None:
        return None
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception:  # another interpreter's idea of an extension module: import the package instead
        return None
    sys.modules[_ENGINE] = module
    return module


class _Unpickler(pickle.Unpickler):
    """Unpickles a compiled pattern with the C extension alone (see _regex_engine)."""

    def find_class(self, module: str, name: str) -> Any:
        if module == _ENGINE and name == "compile":
            return _regex_engine().compile
        return super().find_class(module, name)


def _unpickle_pattern(blob: bytes) -> Any:
    return _Unpickler(io.BytesIO(blob)).load()


_CACHE: dict[tuple[str, tuple[str, ...]], Any] = {}
# compiled patterns restored from the cache, still pickled: one is unpickled when first used (a pasted traceback
# needs a few dozen of the ~700; unpickling them all cost ~16 ms of every start)
_PICKLED: dict[tuple[str, tuple[str, ...]], bytes] = {}


class _Pickled(bytes):
    """A compiled pattern's pickle inside the snapshot (told apart from a derived value that is bytes)."""


def compile_pattern(pattern: str, flags: tuple[str, ...] = ()) -> Any:
    """Compile with the `regex` module, MULTILINE plus the named flags (raises regex.error)."""
    key = (pattern, tuple(flags))
    got = _CACHE.get(key)
    if got is None:
        blob = _PICKLED.pop(key, None)
        if blob is not None:
            got = _CACHE[key] = _unpickle_pattern(blob)  # our own signed cache (cache.py)
            return got
        regex = regex_module()
        bits = regex.MULTILINE
        for name in flags:
            if name not in _FLAG_NAMES:
                raise KeyError(name)
            bits |= getattr(regex, name)
        got = _CACHE[key] = regex.compile(pattern, bits)
    return got


def derived(kind: str, args: tuple[Any, ...], compute: Any) -> Any:
    """``compute(*args)``, remembered with the compiled patterns and persisted with them: what the matcher
    learns by parsing a pattern (match.confirm_words, match.line_local) costs a parse per signature otherwise,
    ~0.2 s per process for the built-in base."""
    key = (kind, args)
    if key in _CACHE:
        return _CACHE[key]  # type: ignore[index]
    got = _CACHE[key] = compute(*args)  # type: ignore[index]
    return got


def snapshot() -> dict[tuple[str, tuple[str, ...]], Any]:
    """What the catalog cache keeps: derived values as they are, compiled patterns each pickled apart."""
    out: dict[tuple[str, tuple[str, ...]], Any] = {k: _Pickled(v) for k, v in _PICKLED.items()}
    pattern_type = type(regex_module().compile(""))
    for key, value in _CACHE.items():
        out[key] = _Pickled(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)) if isinstance(value, pattern_type) else value
    return out


def restore(saved: dict[tuple[str, tuple[str, ...]], Any]) -> None:
    for key, value in saved.items():
        if isinstance(value, _Pickled):
            if key not in _CACHE:
                _PICKLED[key] = value
        else:
            _CACHE.setdefault(key, value)


class _Deferred:
    """A compiled pattern's matching methods, handed on to the pattern ``_get`` makes on first use."""

    __slots__ = ()

    def _get(self) -> Any:
        raise NotImplementedError

    def search(self, *args: Any, **kwargs: Any) -> Any:
        return self._get().search(*args, **kwargs)

    def match(self, *args: Any, **kwargs: Any) -> Any:
        return self._get().match(*args, **kwargs)

    def fullmatch(self, *args: Any, **kwargs: Any) -> Any:
        return self._get().fullmatch(*args, **kwargs)

    def finditer(self, *args: Any, **kwargs: Any) -> Any:
        return self._get().finditer(*args, **kwargs)

    def findall(self, *args: Any, **kwargs: Any) -> Any:
        return self._get().findall(*args, **kwargs)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        return self._get().sub(*args, **kwargs)

    def split(self, *args: Any, **kwargs: Any) -> Any:
        return self._get().split(*args, **kwargs)


class Lazy(_Deferred):
    """A module-level pattern compiled on first use through the shared cache (so a warm cache compiles nothing)."""

    __slots__ = ("flags", "source")

    def __init__(self, source: str, flags: tuple[str, ...] = ()) -> None:
        self.source = source
        self.flags = flags

    def _get(self) -> Any:
        return compile_pattern(self.source, self.flags)

    @property
    def compiled(self) -> Any:
        return self._get()


def warm_module(module: Any) -> None:
    """Compile every Lazy pattern a module holds (for the catalog cache)."""
    for value in vars(module).values():
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if isinstance(item, Lazy):
                _ = item.compiled


class LazyRe(_Deferred):
    """A standard-library `re` pattern compiled on its first use: ``source`` is the pattern, or a function that
    builds it (the prefilter's trie is only needed for a big input; present.py's undoing patterns only for a
    presentation that was detected). Equal sources share one compiled pattern."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str | bytes | Callable[[], str | bytes], flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: Any = None

    @property
    def is_compiled(self) -> bool:
        return self._compiled is not None

    def _get(self) -> Any:
        if self._compiled is None:
            source = self._source() if callable(self._source) else self._source
            self._compiled = _compile_re(source, self._flags)
        return self._compiled

    @property
    def pattern(self) -> str | bytes:
        return self._get().pattern  # type: ignore[no-any-return]


@lru_cache(maxsize=32)
def _compile_re(source: str | bytes, flags: int) -> Any:
    return re.compile(source, flags)

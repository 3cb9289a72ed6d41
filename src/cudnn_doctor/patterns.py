"""Compiled regexes, shared and persisted with the catalog cache.

The `regex` module compiles in Python (slow: ~1 ms per signature pattern), but a compiled pattern pickles
as its finished opcode list, and unpickling rebuilds it in C without parsing. So the catalog cache stores
every compiled pattern the knowledge base needs, and a plain diagnose compiles nothing.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import regex

_PATTERN = type(regex.compile(""))
_FLAG_BITS = {"IGNORECASE": regex.IGNORECASE, "DOTALL": regex.DOTALL, "VERBOSE": regex.VERBOSE}
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
            got = _CACHE[key] = pickle.loads(blob)  # our own signed cache (cache.py)
            return got
        bits = regex.MULTILINE
        for name in flags:
            bits |= _FLAG_BITS[name]
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
    for key, value in _CACHE.items():
        out[key] = _Pickled(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)) if isinstance(value, _PATTERN) else value
    return out


def restore(saved: dict[tuple[str, tuple[str, ...]], Any]) -> None:
    for key, value in saved.items():
        if isinstance(value, _Pickled):
            if key not in _CACHE:
                _PICKLED[key] = value
        else:
            _CACHE.setdefault(key, value)


class Lazy:
    """A module-level pattern compiled on first use through the shared cache (so a warm cache compiles nothing)."""

    __slots__ = ("flags", "source")

    def __init__(self, source: str, flags: tuple[str, ...] = ()) -> None:
        self.source = source
        self.flags = flags

    @property
    def compiled(self) -> Any:
        return compile_pattern(self.source, self.flags)

    def search(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled.search(*args, **kwargs)

    def match(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled.match(*args, **kwargs)

    def fullmatch(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled.fullmatch(*args, **kwargs)

    def finditer(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled.finditer(*args, **kwargs)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled.sub(*args, **kwargs)


def warm_module(module: Any) -> None:
    """Compile every Lazy pattern a module holds (for the catalog cache)."""
    for value in vars(module).values():
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if isinstance(item, Lazy):
                _ = item.compiled


class LazyRe:
    """A standard-library `re` pattern compiled on its first use: ``source`` is the pattern, or a function that
    builds it (the prefilter's trie is only needed for a big input; present.py's undoing patterns only for a
    presentation that was detected). Equal sources share one compiled pattern."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str | bytes | Callable[[], str | bytes], flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: Any = None

    @property
    def compiled(self) -> bool:
        """Whether it has been compiled yet."""
        return self._compiled is not None

    def _get(self) -> Any:
        if self._compiled is None:
            source = self._source() if callable(self._source) else self._source
            self._compiled = _compile_re(source, self._flags)
        return self._compiled

    @property
    def pattern(self) -> str | bytes:
        return self._get().pattern  # type: ignore[no-any-return]

    def search(self, *args: Any) -> Any:
        return self._get().search(*args)

    def match(self, *args: Any) -> Any:
        return self._get().match(*args)

    def fullmatch(self, *args: Any) -> Any:
        return self._get().fullmatch(*args)

    def finditer(self, *args: Any) -> Any:
        return self._get().finditer(*args)

    def findall(self, *args: Any) -> Any:
        return self._get().findall(*args)

    def sub(self, *args: Any) -> Any:
        return self._get().sub(*args)

    def split(self, *args: Any) -> Any:
        return self._get().split(*args)


@lru_cache(maxsize=32)
def _compile_re(source: str | bytes, flags: int) -> Any:
    return re.compile(source, flags)

"""Compiled regexes, shared and persisted with the catalog cache.

The `regex` module compiles in Python (slow: ~1 ms per signature pattern), but a compiled pattern pickles
as its finished opcode list, and unpickling rebuilds it in C without parsing. So the catalog cache stores
every compiled pattern the knowledge base needs, and a plain diagnose compiles nothing.
"""

from __future__ import annotations

from typing import Any

import regex

_FLAG_BITS = {"IGNORECASE": regex.IGNORECASE, "DOTALL": regex.DOTALL, "VERBOSE": regex.VERBOSE}
_CACHE: dict[tuple[str, tuple[str, ...]], Any] = {}


def compile_pattern(pattern: str, flags: tuple[str, ...] = ()) -> Any:
    """Compile with the `regex` module, MULTILINE plus the named flags (raises regex.error)."""
    key = (pattern, tuple(flags))
    got = _CACHE.get(key)
    if got is None:
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
    return dict(_CACHE)


def restore(saved: dict[tuple[str, tuple[str, ...]], Any]) -> None:
    _CACHE.update(saved)


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

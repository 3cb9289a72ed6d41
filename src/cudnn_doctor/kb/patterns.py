"""Regexes compiled on first use and shared: the `regex` module's for signatures and evidence (``compile_pattern``,
``Lazy``), the standard library's for the package's own fixed patterns (``LazyRe``), and values derived from a
pattern by parsing it (``derived``), each computed once per process. What is kept in the cache is plain data
(cache.py): the derived values, and the arguments that rebuild a compiled pattern without parsing it again
(``kept_code``); a diagnosis compiles (or rebuilds) the few patterns its input makes it need.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_FLAG_NAMES = ("IGNORECASE", "DOTALL", "VERBOSE")


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
    """The path, size and mtime of the `regex` C extension (a cache key: the values derived by parsing patterns
    are the package's), found without importing the package; the package's version where it cannot be."""
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
    """The `regex` C extension's import spec, found without importing the package."""
    import importlib.machinery
    import importlib.util

    try:
        package = importlib.util.find_spec("regex")
        where = package.submodule_search_locations if package is not None else None
        return importlib.machinery.PathFinder.find_spec("regex._regex", list(where)) if where else None
    except (ImportError, ValueError):
        return None


_CACHE: dict[tuple[str, tuple[str, ...]], Any] = {}


def compile_pattern(pattern: str, flags: tuple[str, ...] = ()) -> Any:
    """Compile with the `regex` module, MULTILINE plus the named flags (raises regex.error); rebuilt from
    the code the catalog's cache keeps where it has it (``restore_code``)."""
    key = (pattern, tuple(flags))
    got = _CACHE.get(key)
    if got is None:
        got = _CACHE[key] = _restored(key) or _compiled(pattern, key[1])
    return got


def _compiled(pattern: str, flags: tuple[str, ...]) -> Any:
    regex = regex_module()
    bits = regex.MULTILINE
    for name in flags:
        if name not in _FLAG_NAMES:
            raise KeyError(name)
        bits |= getattr(regex, name)
    return regex.compile(pattern, bits)


# ------------------------------------------------------------------ compiled patterns kept in the cache
#
# Compiling a `regex` pattern is mostly its Python parser's work (~1.4 ms a pattern; a pasted traceback
# compiles ~20, a tenth of its run). The package pickles a compiled pattern as its C compile function and the
# arguments the parser made for it (the engine's code, the groups), which rebuild it in ~0.03 ms. The
# catalog's cache keeps them for every pattern the matcher may compile (kb/compiled.py: one entry beside the
# catalog's, written with it), as plain data (``marshal``: strings, numbers, bytes, tuples, lists, dicts),
# read when the first pattern is asked for; each is rebuilt by that one function when asked for.


class Kept:
    """Values kept in a cache entry (``kept``: one ``marshal`` dict holding each value's own ``marshal`` bytes
    by its key), read when the first one is asked for, each value decoded when it is asked for: a pasted
    traceback asks for a few hundred of ~2,000, and decoding them all cost it ~10 ms."""

    __slots__ = ("items", "sources")

    def __init__(self) -> None:
        self.items: dict[str, Any] = {}  # each value's bytes by its key, until asked for
        self.sources: list[Callable[[], bytes | None]] = []  # where to read more of them, once

    def pop(self, key: str) -> Any:
        """The value kept under ``key`` (forgotten here), or NOT_KEPT (none, or damaged)."""
        import marshal

        while self.sources:
            data = self.sources.pop()()
            try:
                got = marshal.loads(data) if data else None
            except (ValueError, EOFError, TypeError):
                got = None
            if isinstance(got, dict):
                for k, v in got.items():
                    self.items.setdefault(k, v)
        raw = self.items.pop(key, None)
        try:
            return marshal.loads(raw) if type(raw) is bytes else NOT_KEPT
        except (ValueError, EOFError, TypeError):
            return NOT_KEPT


NOT_KEPT = object()


def kept(values: dict[str, Any]) -> bytes:
    """``values`` (plain data by key) as a ``Kept`` entry reads them."""
    import marshal

    return marshal.dumps({k: marshal.dumps(v) for k, v in values.items()})


_CODE = Kept()  # the kept arguments, by repr((pattern, flags))


def restore_code(source: Callable[[], bytes | None]) -> None:
    """Read the kept patterns (what ``kept_code`` gave) from ``source()`` when the first one is asked for."""
    _CODE.sources.append(source)


def kept_code() -> bytes:
    """Every pattern compiled in this process as the arguments that rebuild it, as plain data."""
    import copyreg

    out: dict[str, Any] = {}
    for key, compiled in _CACHE.items():
        _, args = copyreg.dispatch_table[type(compiled)](compiled)
        out[repr(key)] = args
    return kept(out)


def _restored(key: tuple[str, tuple[str, ...]]) -> Any:
    """The pattern rebuilt from its kept arguments, or None (none kept, or not this pattern's)."""
    args = _CODE.pop(repr(key))
    if type(args) is not tuple or not args or args[0] != key[0]:
        return None
    try:
        return _rebuild()(*args)
    except Exception:  # damaged, or another engine's: compiled again
        return None


@lru_cache(maxsize=1)
def _rebuild() -> Callable[..., Any]:
    """The `regex` package's own function that rebuilds a pickled pattern (its reduction of a compiled one)."""
    import copyreg

    regex = regex_module()
    function, _ = copyreg.dispatch_table[regex.Pattern](regex.compile(""))
    return function  # type: ignore[no-any-return]


def derived(kind: str, args: tuple[Any, ...], compute: Any) -> Any:
    """``compute(*args)``, remembered for the process and kept in the catalog's cache (``kept_derived``, one entry
    beside the catalog's): what the matcher learns by parsing a pattern (regexinfo's literals, line_local)
    costs ~0.7 s of CPU per process for the built-in base otherwise. A restored value is decoded when first
    asked for (a pasted traceback asks for a few hundred of ~2,000)."""
    key = (kind, args)
    if key in _DERIVED:
        return _DERIVED[key]
    try:
        stored = _RESTORED.pop(_stored_key(kind, args))
    except TypeError:
        stored = NOT_KEPT
    got = _DERIVED[key] = compute(*args) if stored is NOT_KEPT else _decode(stored)
    return got


_KEY_TYPES = (str, int, bool, type(None))


def _stored_key(kind: str, args: tuple[Any, ...]) -> str:
    """The text a derived value is kept under: the repr of (kind, args), for arguments that are strings,
    numbers or tuples of them (a repr every process writes alike); TypeError for others (not kept). A paste
    looks up ~600 values: a repr is ~8x cheaper than the JSON text it replaced."""
    for arg in args:
        if not (isinstance(arg, _KEY_TYPES) or (isinstance(arg, tuple) and all(isinstance(x, _KEY_TYPES) for x in arg))):
            raise TypeError(f"a derived value's argument is {type(arg).__name__}, not plain")
    return repr((kind, args))


_RESTORED = Kept()  # restored from the cache and not asked for yet: encoded values by their encoded key
_DERIVED: dict[tuple[str, tuple[Any, ...]], Any] = {}
class JSONData(dict):  # type: ignore[type-arg]
    """A derived value that is JSON data as it is (string keys, lists, numbers, strings): kept and restored
    untagged, so that a big one (the matcher's index of message templates) decodes at the json module's speed."""


_TAGS: tuple[tuple[type, str, Callable[[Any], Any]], ...] = (
    (JSONData, "j", dict),
    (bytes, "b", lambda v: v.decode("latin-1")),
    (tuple, "t", lambda v: [_encode(x) for x in v]),
    (frozenset, "f", lambda v: [_encode(x) for x in v]),
    (dict, "d", lambda v: [[_encode(k), _encode(x)] for k, x in v.items()]),
)
_UNTAG: dict[str, Callable[[Any], Any]] = {
    "j": lambda v: v,
    "b": lambda v: v.encode("latin-1"),
    "t": lambda v: tuple(_decode(x) for x in v),
    "f": lambda v: frozenset(_decode(x) for x in v),
    "d": lambda v: {_decode(k): _decode(x) for k, x in v},
}


def _encode(v: Any) -> Any:
    """A derived value as JSON data: tuples, frozensets, bytes and dicts tagged (raises TypeError for anything
    else: such a value is not kept)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, list):
        return [_encode(x) for x in v]
    for cls, tag, encode in _TAGS:
        if isinstance(v, cls):
            return {tag: encode(v)}
    raise TypeError(type(v).__name__)


def _decode(v: Any) -> Any:
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if not isinstance(v, dict):
        return v
    ((tag, body),) = v.items()
    return _UNTAG[tag](body)


def _encoded(item: tuple[tuple[str, tuple[Any, ...]], Any]) -> tuple[str, Any] | None:
    (kind, args), value = item
    try:
        return _stored_key(kind, args), _encode(value)
    except TypeError:
        return None


def kept_derived() -> bytes:
    """Every derived value of this process as plain data (those that cannot be are left out), as ``restore_derived``
    reads them: each the JSON value its encoding is (what JSON text would give back: lists, string keys)."""
    import json

    return kept(json.loads(json.dumps(dict(got for got in map(_encoded, _DERIVED.items()) if got is not None))))


def restore_derived(source: Callable[[], bytes | None]) -> None:
    """Read the values ``kept_derived`` gave from ``source()`` when the first one is asked for."""
    _RESTORED.sources.append(source)


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
    """A module-level `regex` pattern compiled on first use, shared with every other use of the same source."""

    __slots__ = ("flags", "source")

    def __init__(self, source: str, flags: tuple[str, ...] = ()) -> None:
        self.source = source
        self.flags = flags

    def _get(self) -> Any:
        return compile_pattern(self.source, self.flags)

    @property
    def compiled(self) -> Any:
        return self._get()


class LazyRe(_Deferred):
    """A standard-library `re` pattern compiled on its first use: ``source`` is the pattern, or a function that
    builds it (read/textsafe.py's byte patterns of the escapes; present.py's undoing patterns are only needed for
    a presentation that was detected). Equal sources share one compiled pattern."""

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

    @property
    def compiled(self) -> Any:
        """The compiled pattern itself: its bound methods, for a loop over many lines (``map``)."""
        return self._get()


@lru_cache(maxsize=32)
def _compile_re(source: str | bytes, flags: int) -> Any:
    return re.compile(source, flags)

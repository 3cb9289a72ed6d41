"""Context evidence around a match: ``require_any`` / ``exclude_any`` / ``support_any`` of a signature.

Each item is a regex or an ``@set`` from the catalog's evidence file. Where every item has a literal on the
line of its match, the lines to search are found in the raw bytes first (_Evidence.lines_with), so the 50
lines around each of 10,000 repeated warnings are not all normalized.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..patterns import Lazy, compile_pattern
from ..textsafe import NORMALIZE_DELETES_BYTES
from .lines import _Lines, _window_data, line_indexes
from .regexinfo import alternative_literals, derive_literal, line_local

if TYPE_CHECKING:  # only a type here: match/ needs no catalog module at run time
    from ..catalog import Catalog

MATCH_TIMEOUT_S = 1.0
NON_RNN = "@non_rnn"
# An RNN API or op named inside the matched text: direct evidence that outweighs conv/batch-norm words nearby.
DIRECT_RNN = Lazy(r"\bcudnnRNN\w*|\bcudnn(?:Set|Get)RNN\w*|\bCudnnRNN\w*|\b_cudnn_rnn\w*|\b(?:Then|Do)Rnn(?:Forward|Backward)\b|\brnn-inl\.h\b|\bcurnn\.jl\b")
# bytes that normalize.py deletes from inside a line (ANSI escapes, control characters other than CR)
_JOINABLE_BYTES = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
_JOINABLE = re.compile(b"[" + re.escape(_JOINABLE_BYTES) + b"]|\xc2\x9b")  # \x9b: C1 CSI in UTF-8


def _clean_region(lines: _Lines, lo: int, hi: int) -> bytes:
    """Lines lo..hi as lower-cased raw bytes, without what normalize_line deletes from inside a line (ANSI
    colours, control characters), so a literal of the normalized text is in them (kept per window)."""
    key = ("region", lo, hi)
    got = lines.memo.get(key)
    if got is None:
        got = lines.memo[key] = _delete_joinable(lines.region(lo, hi)).lower()
    return got  # type: ignore[no-any-return]


def _window_clean(lines: _Lines) -> bytes:
    """The whole window lower-cased, without what normalize_line deletes from inside a line (made once per
    window; newlines are kept, so its line indexes are the raw ones)."""
    got = lines.memo.get("clean")
    if got is None:
        data = _window_data(True, lines)  # lower-cased
        got = lines.memo["clean"] = _delete_joinable(data) if _joinable(lines) else data
    return got  # type: ignore[no-any-return]


def _clean_span(lines: _Lines, lo: int, hi: int) -> tuple[bytes, int, int]:
    """The clean window (_window_clean) and the byte range of its lines lo..hi (line lengths summed once per
    window: a match's context then costs no walk from line to line)."""
    clean = _window_clean(lines)
    acc = lines.memo.get("clean-acc")
    if acc is None:  # acc[i]: the bytes of lines 0..i-1 but their newlines
        acc = lines.memo["clean-acc"] = [0, *itertools.accumulate(map(len, clean.split(b"\n")))]
    return clean, acc[lo] + lo, acc[hi + 1] + hi


def _joinable(lines: _Lines) -> bool:
    got = lines.memo.get("joinable")
    if got is None:
        got = lines.memo["joinable"] = _has_joinable(lines.data)
    return got  # type: ignore[no-any-return]


def _has_joinable(data: bytes) -> bool:
    # an escape (colours: the usual case) is found by memchr before a copy of the whole data is made
    return b"\x1b" in data or b"\xc2\x9b" in data or len(data.translate(None, _JOINABLE_BYTES)) != len(data)


def _delete_joinable(data: bytes) -> bytes:
    """``data`` without what normalize_line deletes from inside a line: colours first (one literal byte to look
    for), then anything else."""
    if _has_joinable(data):
        data = _CSI.sub(b"", data)
        if _has_joinable(data):
            data = NORMALIZE_DELETES_BYTES.sub(b"", data)
    return data


_UNSET: Any = object()
_CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")


@lru_cache(maxsize=4096)
def _absence_literals(parts: tuple[str, ...]) -> tuple[bytes, ...] | None:
    """Lower-cased literals such that every match of any of ``parts`` (IGNORECASE) holds one; None when some
    part has none (it may match without a literal, or the parser cannot read it)."""
    out: list[bytes] = []
    for part in parts:
        lits = alternative_literals(part, ("IGNORECASE",))
        if not lits:
            return None
        out += (x.encode() for x in lits)
    return tuple(dict.fromkeys(out))


_CLASS = re.compile(r"\[\^?\]?(?:\\.|[^\]\\])*\]")


@lru_cache(maxsize=4096)
def _evidence_literals(parts: tuple[str, ...]) -> tuple[bytes, ...] | None:
    """See _Evidence.literals (cached per set of patterns, not per Matcher)."""
    out: list[bytes] = []
    for part in parts:
        bare = _CLASS.sub("", part)  # '^' negating a class ([^\n)]) is no anchor
        if any(a in bare for a in ("^", "$", "\\A", "\\Z", "(?<")) or not line_local(part, ("IGNORECASE",)):
            return None
        lit = derive_literal(part)
        lits = (lit,) if lit is not None and lit.isascii() else alternative_literals(part, ("IGNORECASE",))
        if not lits:  # an alternation: one literal per alternative ('DataParallel|data_parallel\.py')
            return None
        out += (x.lower().encode() for x in lits)
    return tuple(dict.fromkeys(out))


class _Evidence:
    """Finds a signature's context evidence. ``words_in(data)`` is the prefilter's answer to which of its
    words are in ``data`` (None: not known); over a big window it says which literals are there at all once
    colour codes are deleted, and the lines holding each literal are then found once per window instead of
    once per match (an error repeated 10,000 times, each with its own 100 lines of context)."""

    def __init__(self, catalog: Catalog, words_in: Callable[[bytes], set[tuple[bytes, bool]] | None] | None = None) -> None:
        self._words_in = words_in
        self._sets = catalog.evidence
        self._cache: dict[str, Any] = {}
        self._lits: dict[tuple[str, ...], tuple[bytes, ...] | None] = {}
        self._absence: dict[tuple[str, ...], tuple[bytes, ...] | None] = {}

    def pattern(self, item: str) -> Any:
        got = self._cache.get(item)
        if got is None:
            if item.startswith("@"):
                parts = self._sets.get(item[1:], ())
                source = "|".join(f"(?:{p})" for p in parts) or r"(?!x)x"
            else:
                source = item
            got = self._cache[item] = compile_pattern(source, ("IGNORECASE",))
        return got

    def literals(self, items: tuple[str, ...]) -> tuple[bytes, ...] | None:
        """Lower-cased ASCII literals such that every match of any of ``items`` lies on one line holding one of
        them; None when that cannot be said (an item may span lines, is anchored, or has no clear literal)."""
        got = self._lits.get(items)
        if got is None and items not in self._lits:
            parts = tuple(part for item in items for part in (self._sets.get(item[1:], ()) if item.startswith("@") else (item,)))
            got = self._lits[items] = _evidence_literals(parts)
        return got

    def lines_with(self, items: tuple[str, ...], lines: _Lines, lo: int, hi: int) -> list[int] | None:
        """The lines among lo..hi where an item may match, found in the raw bytes, or None (use them all).

        Searching only those lines gives the same first match as searching all of them (each match lies on
        a line holding a literal of its item, and line order is kept), and saves normalizing the 50 lines
        around each of 10,000 repeated warnings. A line holding something normalization deletes from inside
        a line (escape sequences, control characters) is kept too: that could join two halves of a literal."""
        lits = self.literals(items)
        if lits is None:
            return None
        lo, hi = max(0, lo), min(lines.count - 1, hi)
        if hi < lo:
            return []
        key = (lits, lo, hi)  # signatures with the same context around the same line: looked up once
        got = lines.memo.get(key)
        if got is None:
            if lines.memo.get("scanned") is not None:  # a big window: its clean copy, only the literals there
                data, start, end = _clean_span(lines, lo, hi)
                positions: list[int] = []
                for lit in self._present(lits, lines):
                    pos = data.find(lit, start, end)
                    while pos >= 0:  # one occurrence per line is enough
                        positions.append(pos)
                        nl = data.find(b"\n", pos, end)
                        pos = -1 if nl < 0 else data.find(lit, nl, end)
                got = line_indexes(data, positions, lo, start)
            else:
                got = self._lines_with(lits, lines, lo, hi)
            lines.memo[key] = got
        return got

    def _present(self, lits: tuple[bytes, ...], lines: _Lines) -> tuple[bytes, ...]:
        """Those of ``lits`` that may be in the window once colour codes are deleted (the prefilter's passes
        say which are not; most of a context's literals are in no window of a log)."""
        key = ("present-lits", lits)
        got: tuple[bytes, ...] | None = lines.memo.get(key)
        if got is None:
            got = lines.memo[key] = tuple(lit for lit in lits if self._in_clean(lit, lines) is not False)
        return got

    def _in_clean(self, lit: bytes, lines: _Lines) -> bool | None:
        """Whether ``lit`` is in the window once colour codes are deleted, from the prefilter's passes (None:
        not known, it is not one of its words)."""
        scanned, present = lines.memo.get("scanned"), lines.memo.get("present")
        word = (lit, True)
        if scanned is None or present is None or word not in scanned:
            return None
        if word in present:
            return True
        if not _joinable(lines):
            return False
        clean = lines.memo.get("present-clean")
        if clean is None:
            # the literals are lower-cased and looked for without case: the lower-cased clean window will do
            clean = lines.memo["present-clean"] = (self._words_in(_window_clean(lines)) if self._words_in else None) or set()
        return word in clean

    def _lines_with(self, lits: tuple[bytes, ...], lines: _Lines, lo: int, hi: int) -> list[int]:
        low = lines.region(lo, hi).lower()
        positions: list[int] = []
        for lit in lits:
            pos = low.find(lit)
            while pos >= 0:
                positions.append(pos)
                pos = low.find(lit, pos + len(lit))
        deletable = len(low) - len(low.translate(None, _JOINABLE_BYTES))
        if deletable:
            if deletable > low.count(b"\x1b"):  # other control bytes (rare): a regex pass
                positions += (m.start() for m in _JOINABLE.finditer(low))
            else:  # ANSI colours: one ESC per line is enough (memchr, line to line)
                pos = low.find(b"\x1b")
                while pos >= 0:
                    positions.append(pos)
                    nl = low.find(b"\n", pos)
                    pos = -1 if nl < 0 else low.find(b"\x1b", nl)
        if b"\xc2\x9b" in low:
            positions += (m.start() for m in _JOINABLE.finditer(low))
        return line_indexes(low, positions, lo)

    def absence_literals(self, items: tuple[str, ...]) -> tuple[bytes, ...] | None:
        """Lower-cased literals such that every match of any of ``items`` holds one (None: cannot be said)."""
        got = self._absence.get(items, _UNSET)
        if got is _UNSET:
            parts = tuple(part for item in items for part in (self._sets.get(item[1:], ()) if item.startswith("@") else (item,)))
            got = self._absence[items] = _absence_literals(parts)
        return got  # type: ignore[no-any-return]

    def absent(self, items: tuple[str, ...], lines: _Lines, lo: int, hi: int) -> bool:
        """True when no item can match in lines lo..hi: each item needs one of its literals (one per alternative)
        and none is in those lines' raw bytes once what normalization deletes (ANSI colours) is deleted.
        A necessary condition only, so it holds for items that span lines too: an error repeated 10,000 times
        then costs no normalization of the 100 lines around each occurrence when its evidence is not there."""
        lits = self.absence_literals(items)
        if lits is None:
            return False
        lo, hi = max(0, lo), min(lines.count - 1, hi)
        if hi < lo:
            return True
        if lines.memo.get("scanned") is not None:  # a big window: its clean copy, only the literals there
            present = self._present(lits, lines)
            if not present:
                return True
            data, start, end = _clean_span(lines, lo, hi)
            return not any(data.find(lit, start, end) >= 0 for lit in present)
        key = ("absent", lits, lo, hi)
        got = lines.memo.get(key)
        if got is None:
            low = _clean_region(lines, lo, hi)
            got = lines.memo[key] = not any(lit in low for lit in lits)
        return got

    def find(self, items: Sequence[str], text: str, memo: dict[Any, Any] | None = None) -> str | None:
        """The first evidence text found, or None (remembered in ``memo`` for the same items and text)."""
        if memo is not None:
            key = ("find", tuple(items), text)
            if key in memo:
                return memo[key]  # type: ignore[no-any-return]
            got = memo[key] = self.find(items, text)
            return got
        for item in items:
            m = self.pattern(item).search(text, timeout=MATCH_TIMEOUT_S)
            if m:
                return m.group(0)[:120]
        return None

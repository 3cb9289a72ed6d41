"""Context evidence around a match: ``require_any`` / ``exclude_any`` / ``support_any`` of a signature.

Each item is a regex or an ``@set`` from the catalog's evidence file. Where every item has a literal on the
line of its match, the lines to search are found in the raw bytes first (_Evidence.lines_with), so the 50
lines around each of 10,000 repeated warnings are not all normalized.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..patterns import Lazy, compile_pattern
from .lines import _Lines
from .regexinfo import derive_literal, line_local

if TYPE_CHECKING:  # only a type here: match/ needs no catalog module at run time
    from ..catalog import Catalog

MATCH_TIMEOUT_S = 1.0
NON_RNN = "@non_rnn"
# An RNN API or op named inside the matched text: direct evidence that outweighs conv/batch-norm words nearby.
DIRECT_RNN = Lazy(r"\bcudnnRNN\w*|\bcudnn(?:Set|Get)RNN\w*|\bCudnnRNN\w*|\b_cudnn_rnn\w*|\b(?:Then|Do)Rnn(?:Forward|Backward)\b|\brnn-inl\.h\b|\bcurnn\.jl\b")
# bytes that normalize.py deletes from inside a line (ANSI escapes, control characters other than CR)
_JOINABLE_BYTES = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
_JOINABLE = re.compile(b"[" + re.escape(_JOINABLE_BYTES) + b"]|\xc2\x9b")  # \x9b: C1 CSI in UTF-8


@lru_cache(maxsize=4096)
def _evidence_literals(parts: tuple[str, ...]) -> tuple[bytes, ...] | None:
    """See _Evidence.literals (cached per set of patterns, not per Matcher)."""
    out: list[bytes] = []
    for part in parts:
        lit = derive_literal(part)
        if (
            lit is None
            or not lit.isascii()
            or any(a in part for a in ("^", "$", "\\A", "\\Z", "(?<"))
            or not line_local(part, ("IGNORECASE",))
        ):
            return None
        out.append(lit.lower().encode())
    return tuple(out)


class _Evidence:
    def __init__(self, catalog: Catalog) -> None:
        self._sets = catalog.evidence
        self._cache: dict[str, Any] = {}
        self._lits: dict[tuple[str, ...], tuple[bytes, ...] | None] = {}

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
            got = lines.memo[key] = self._lines_with(lits, lines, lo, hi)
        return got

    def _lines_with(self, lits: tuple[bytes, ...], lines: _Lines, lo: int, hi: int) -> list[int]:
        start = lines.start(lo)
        end = lines.data.find(b"\n", lines.start(hi))
        low = lines.data[start : len(lines.data) if end < 0 else end].lower()
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
        found: list[int] = []
        li, prev = lo, 0
        for pos in sorted(positions):
            li += low.count(b"\n", prev, pos)
            prev = pos
            if not found or found[-1] != li:
                found.append(li)
        return found

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

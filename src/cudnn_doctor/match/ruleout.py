"""Where a context item may match at all: one hyperscan database of every context item's literals.

A speed mechanism (bench/: the flatten_parameters warning 10,000 times, each with 100 lines of context): the
raw lines around a match are scanned once for the literals of every item of the base (caseless; each item's
every match holds one of its literals), and only the lines holding one are normalized and searched with
`regex`, for the items seen there. Without hyperscan the same lines are found with ``bytes.find``.
Its equivalence tests: tests/test_match_budgets.py (test_ruling_context_lines_out_changes_no_verdict, with and
without hyperscan; test_a_linewise_item_with_lookarounds_finds_in_its_literal_lines_what_it_finds_in_all).
"""

from __future__ import annotations

import _thread
import bisect
import os
import sys
from typing import Any

from ..read.textsafe import delete_escapes
from .lines import Lines
from .prefilter import SMALL_TEXT, hs_literal

PIECE = 64  # lines


class RuleOut:
    """Which context items may match in a region of lines, and on which lines."""

    def __init__(self, literals: dict[str, tuple[bytes, ...]]) -> None:
        self.literals = literals  # item -> its literals (lower-case), for the items that have some
        self.all = tuple(sorted({lit for lits in literals.values() for lit in lits}))
        self._dbs: dict[int, Any] = {}

    def database(self) -> Any:
        """The hyperscan database of every literal (each reported once per scan), one per thread (a
        database's scratch serves one scan at a time); None where hyperscan cannot be used."""
        thread = _thread.get_ident()
        if thread not in self._dbs:
            use = self.all and not os.environ.get("CUDNN_DOCTOR_NO_HYPERSCAN")
            self._dbs[thread] = _compile(self.all) if use else None
        return self._dbs[thread]

    def region(self, lines: Lines, lo: int, hi: int) -> Region:
        """Lines lo..hi of a window, looked at in pieces of PIECE lines, each scanned once (the checks around
        a repeated warning ask for overlapping regions)."""
        pieces = []
        big = len(lines.data) > SMALL_TEXT  # a paste: no hyperscan to load
        for k in range(lo // PIECE, hi // PIECE + 1):
            piece = lines.memo.get(("piece", k))
            if piece is None:
                region = lines.region(k * PIECE, k * PIECE + PIECE - 1)
                piece = lines.memo[("piece", k)] = self.scan(region, k * PIECE, big)
            pieces.append(piece)
        return Region(self, pieces, lo, hi)

    def scan(self, region: bytes, first: int, big: bool = True) -> Presence:
        """What ``region`` (raw bytes of consecutive lines, the first of index ``first``) holds: one pass of
        the database says which literals are there at all (in a ``big`` window)."""
        low = delete_escapes(region).lower()  # as normalization reads it
        db = self.database() if big else None
        present: set[bytes] | None = None
        if db is not None:
            lits, present = self.all, set()

            def on_match(lit_id: int, _frm: int, _to: int, _flags: int, _ctx: object) -> None:
                present.add(lits[lit_id])  # type: ignore[union-attr]

            db.scan(low, match_event_handler=on_match)
        return Presence(self, low, first, present)


class Region:
    """The pieces of lines lo..hi, and the literals in them (None: not known)."""

    def __init__(self, ruleout: RuleOut, pieces: list[Presence], lo: int, hi: int) -> None:
        self.literals = ruleout.literals
        self.pieces = pieces
        self.lo, self.hi = lo, hi
        self.present = None if any(p.present is None for p in pieces) else set().union(*(p.present or () for p in pieces))

    def lines(self, item: str) -> list[int]:
        """The sorted indexes of the lines lo..hi holding one of ``item``'s literals."""
        lits = self.literals[item]
        if self.present is not None and self.present.isdisjoint(lits):
            return []
        got: list[int] = []
        for piece in self.pieces:
            got += piece.lines(lits, self.lo, self.hi)
        return got


class Presence:
    """The literals of one region and the lines holding each, located on first use."""

    def __init__(self, ruleout: RuleOut, low: bytes, first: int, present: set[bytes] | None) -> None:
        self.ruleout = ruleout
        self.low = low
        self.first = first
        self.present = present  # None: not known (no hyperscan), each literal is looked for
        self._at: dict[bytes, list[int]] = {}

    def lines(self, lits: tuple[bytes, ...], lo: int, hi: int) -> list[int]:
        """The sorted indexes of the lines lo..hi holding one of ``lits``."""
        got: set[int] = set()
        for lit in lits:
            if self.present is not None and lit not in self.present:
                continue
            at = self._at.get(lit)
            if at is None:
                at = self._at[lit] = _lines_of(self.low, lit, self.first)
            got.update(at[bisect.bisect_left(at, lo) : bisect.bisect_right(at, hi)])
        return sorted(got)


def _lines_of(data: bytes, lit: bytes, first: int) -> list[int]:
    """The sorted indexes of the lines of ``data`` holding ``lit`` (one ``find`` per such line, in C)."""
    found: list[int] = []
    li, prev = first, 0
    pos = data.find(lit)
    while pos >= 0:
        li += data.count(b"\n", prev, pos)
        prev = pos
        found.append(li)
        nl = data.find(b"\n", pos)
        pos = -1 if nl < 0 else data.find(lit, nl)
    return found


def _compile(literals: tuple[bytes, ...]) -> Any:
    try:
        import hyperscan

        from ..kb import cache

        def make() -> tuple[list[bytes], list[int], list[int]]:
            flags = [hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_SINGLEMATCH] * len(literals)
            return [hs_literal(lit) for lit in literals], list(range(len(literals))), flags

        digest = cache.digest(repr(literals).encode())
        key = f"hyperscan {getattr(hyperscan, '__version__', '?')} {sys.platform} ruleout {digest}"
        return cache.hyperscan_database(hyperscan, key, make, kind="hscontext", keep=4)
    except Exception:
        return None

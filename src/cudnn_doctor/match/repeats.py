"""A repeated match ruled out as the ones before it, without reading its context.

A warning printed at every step (PyTorch's flatten_parameters warning, bench/kinds.py ``warnings``: 18,680 in
64 MiB) matches its message's signature and the signatures of its causes (five of them). Each cause requires
evidence (``require_any``: ``DataParallel``, ``torch.jit``, a weight-drop wrapper...) that an ordinary log never
shows, so each of its occurrences is ruled out by its context, and once the signature's first
MAX_NEAR_MISSES_PER_SIG near misses are reported (matcher.Window.near_miss) a ruled-out occurrence yields
nothing. Reading its context all the same (the rule-out's marks, the verdict's key, the quoted-source check) was
two thirds of that log's cost (profiled: Matcher._matches 61% of the samples, rank/ and the aggregation 6%).

``Repeats.ruled_out`` says, before any of that, that an occurrence's context is ruled out: its signature's
required items all have literals (prefilter.RuleOut: each of an item's matches holds one of them) and no line
of the occurrence's context span holds one of them. Then the text each required item is searched in is empty
(Matcher._context_text), ``Evidence.find`` finds none, and the verdict is a near-miss reason (an exclusion's or
the missing requirement's), whatever the quoted-source check says: the matcher counts the near miss as it does
for the others (reported only while the signature has some left) and goes on. It never decides a match that
passes, nor one whose signature still reports near misses. Equivalence test: tests/test_repeats.py (the reports
with and without it, with evidence near some of the occurrences, and the times it engaged).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from .context import context_span
from .lines import Lines
from .prefilter import PIECE, RuleOut

ENABLED = True  # (tests/test_repeats.py: the slow path to compare with)


class Repeats:
    """Which signatures' contexts can be ruled out by their required items' literals alone, and the check."""

    def __init__(self, sigs: Sequence[Any], context_of: Sequence[int], ruleout: RuleOut) -> None:
        self.sigs = sigs
        self.context_of = context_of
        self.ruleout = ruleout
        self.engaged = 0  # occurrences ruled out here (tests)
        # per context number: {literal: the required items it is one of}, for the contexts whose required
        # items all have literals (None: a context this cannot rule out)
        self.required: dict[int, dict[bytes, frozenset[str]] | None] = {}

    def _items(self, idx: int, ctx: int) -> dict[bytes, frozenset[str]] | None:
        if ctx in self.required:
            return self.required[ctx]
        need = self.sigs[idx].context.require_any
        got: dict[bytes, frozenset[str]] | None = None
        if need and all(item in self.ruleout.literals for item in need):
            got = {}
            for item in need:
                for lit in self.ruleout.literals[item]:
                    got[lit] = got.get(lit, frozenset()) | {item}
        self.required[ctx] = got
        return got

    def ruled_out(self, idx: int, ctx: int, lines: Lines, li_s: int, li_e: int) -> bool:
        """Whether signature ``idx``'s match on window lines ``li_s``..``li_e`` is ruled out by its context
        (``ctx``: its number, Matcher.context_of): no line of its context span holds a literal of a required
        item."""
        items = self._items(idx, ctx) if ENABLED else None
        if items is None:
            return False
        lo, hi = context_span(self.sigs[idx], li_s, li_e, lines.size)
        key = ("required", ctx)
        pieces = lines.memo.get(key)
        if pieces is None:
            pieces = lines.memo[key] = {}
        for k in range(lo // PIECE, hi // PIECE + 1):
            at = pieces.get(k)
            if at is None:  # the piece's lines holding a required literal (each piece read once per window)
                at = pieces[k] = [li for li, _ in self.ruleout.marked(lines, k * PIECE, k * PIECE + PIECE - 1, key, items)]
            if at and bisect_left(at, lo) < bisect_right(at, hi):
                return False
        self.engaged += 1
        return True

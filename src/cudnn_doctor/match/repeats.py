"""A repeated match ruled out as the ones before it, without reading its context.

A warning printed at every step (PyTorch's flatten_parameters warning, bench/kinds.py ``warnings``: 18,680 in
64 MiB) matches its message's signature and the signatures of its causes (five of them). Each cause requires
evidence (``require_any``: ``DataParallel``, ``torch.jit``, a weight-drop wrapper...) that an ordinary log never
shows, so each of its occurrences is ruled out by its context, and once the signature's first
MAX_NEAR_MISSES_PER_SIG near misses are reported (matcher.Window.near_miss) a ruled-out occurrence yields
nothing. Reading its context all the same (the rule-out's marks, the verdict's key, the quoted-source check) was
two thirds of that log's cost (profiled: Matcher._matches 61% of the samples, rank/ and the aggregation 6-8%).

``Repeats.ruled_out`` says, before any of that, that an occurrence's context is ruled out, where the slow path's
own contracts decide it without reading the context:

* an excluded item that is found line by line (context.Evidence.linewise: searching a subset of the lines finds
  what searching all of them finds), ``@non_rnn`` aside, matches the match's first line, which holds one of its
  literals as the rule-out reads it (raw bytes: a backspace or a carriage return can make normalization's text
  hold words the raw line does not): the libtorch cause excludes the Python warning's own words. The slow path's
  text for that item holds the line, so it finds it there or earlier; decided once per distinct raw line;
* its signature's required items all have literals (prefilter.RuleOut: each of an item's matches holds one of
  them) and no line of the occurrence's context span holds one of them: the text each required item is searched
  in is empty (Matcher._context_text) and ``Evidence.find`` finds none;
* where a line-local signature has MANY candidate lines in a window, no line of the whole window holding a
  required item's literal rules all of them out at once (``window_ruled_out``, Matcher._scan_signature: its
  regex is not even run; its matches would be on the window's own lines, which no other window reads, so no
  de-duplication key is missed; its near misses past the cap are not counted, which nothing reads).

Either way the verdict is a near-miss reason (an exclusion's or the missing requirement's), whatever the
quoted-source check says: the matcher counts the near miss as it does for the others (reported only while the
signature has some left) and goes on. It never decides a match that passes, nor one whose signature still
reports near misses. Equivalence test: tests/test_repeats.py (the reports with and without it, with evidence
near some of the occurrences, and the times it engaged).

The equivalence holds modulo the per-pattern CPU budgets (context.Budget, Matcher.budget): a slow-path search
that would hit its budget (one warning, the pattern skipped for the rest of the run) is one the fast path skips,
so on such a log the warnings and the matches after the budget ran out can differ from the slow path's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..kb.regexinfo import line_local
from ..read.textsafe import delete_escapes
from .context import NON_RNN, Evidence, context_span
from .lines import Lines, line_end
from .prefilter import RuleOut

Plan = tuple[tuple[str, bool, bool], ...]  # a context's (item, found line by line, has literals): Matcher._plan

ENABLED = True  # (tests/test_repeats.py: the slow path to compare with)
MANY = 32  # candidate lines of one signature in a window from which it is ruled out for the whole window at once


class Repeats:
    """Which signatures' contexts can be ruled out without reading them, and the checks. ``plan``: a context's
    items as Matcher._plan has them, (item, found line by line, has literals)."""

    def __init__(self, sigs: Sequence[Any], ruleout: RuleOut, evidence: Evidence) -> None:
        self.sigs = sigs
        self.ruleout = ruleout
        self.evidence = evidence
        self.engaged = 0  # occurrences ruled out here (tests)
        self.checks: dict[int, tuple[bool, tuple[str, ...]]] = {}  # (_checks)

    def ruled_out(self, idx: int, plan: Plan, lines: Lines, li_s: int, li_e: int) -> bool:
        """Whether signature ``idx``'s match on window lines ``li_s``..``li_e`` is ruled out by its context: no
        line of its context span holding a literal of a required item, or an excluded item on its first line."""
        if not ENABLED:
            return False
        sig = self.sigs[idx]
        required, excluded = self._checks(idx, plan)
        if (required and self.ruleout.absent(lines, *context_span(sig, li_s, li_e, lines.size), sig.context.require_any)) or (
                excluded and self._excluded(excluded, lines, li_s)):
            self.engaged += 1
            return True
        return False

    def window_ruled_out(self, idx: int, plan: Plan, lines: Lines, candidates: int) -> bool:
        """Whether every match of signature ``idx`` (a line-local regex: its matches are on the window's own
        candidate lines, which no other window has) in a window with ``candidates`` candidate lines is ruled out:
        no line of the window holds a literal of a required item. Asked only where the signature repeats (at
        least MANY candidate lines: their checks would read most of the window)."""
        sig = self.sigs[idx]
        if not ENABLED or candidates < MANY or not self._checks(idx, plan)[0] or not line_local(sig.regex, sig.flags):
            return False
        if not self.ruleout.absent(lines, 0, lines.size - 1, sig.context.require_any):
            return False
        self.engaged += candidates
        return True

    def _checks(self, idx: int, plan: Plan) -> tuple[bool, tuple[str, ...]]:
        """Whether signature ``idx``'s context requires items, each with literals (prefilter.RuleOut: each of its
        matches holds one); its excluded items found line by line with literals, ``@non_rnn`` aside."""
        got = self.checks.get(idx)
        if got is None:
            context, how = self.sigs[idx].context, {item: (linewise, ruled) for item, linewise, ruled in plan}
            required = bool(context.require_any) and all(how[item][1] for item in context.require_any)
            got = self.checks[idx] = (required, tuple(i for i in context.exclude_any if i != NON_RNN and how[i] == (True, True)))
        return got

    def _excluded(self, items: tuple[str, ...], lines: Lines, li: int) -> bool:
        """Whether an excluded item found line by line (context.Evidence.linewise: searching a subset of the lines
        finds what searching them all finds) matches the match's first line, and that line holds one of its
        literals as the rule-out reads it (raw, prefilter.RuleOut): the slow path's text for that item holds the
        line, so it finds it there or earlier. Decided once per distinct raw line in a window."""
        start = lines.start(li)
        raw = lines.data[start : line_end(lines.data, start)]
        key = ("excluded", items, raw)
        got = lines.memo.get(key)
        if got is None:
            low, text = delete_escapes(raw).lower(), lines.norm(li)[0]
            got = lines.memo[key] = any(
                any(lit in low for lit in self.ruleout.literals[item]) and self.evidence.search(item, text) is not None for item in items)
        return got  # type: ignore[no-any-return]

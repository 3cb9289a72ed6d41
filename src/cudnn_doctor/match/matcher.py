"""The Matcher: runs a catalog's signatures over blocks of a log, exactly (each signature's regex).

For each block (scanned with the tail of the previous block and the head of the next one, lines.py):

1. the prefilter (prefilter.py) finds every line holding one of the signatures' or probes' literals; probe
   lines go to the environment probes on the way (probes.py);
2. for each signature, its candidate lines are grouped by stream (``[rank0]:``) into runs; the regex runs on
   each candidate line (a line-local regex) or over the run's window of lines, normalized (read/normalize.py),
   under the signature's CPU budget;
3. each match's context (``exclude_any`` / ``require_any`` / ``support_any``, context.py) is checked on the
   lines around it where an item may match (prefilter.RuleOut), and it is yielded as a RawMatch, or a Miss.

Signatures with one regex and window (a message and the causes behind it) search a run once (``Lines.memo``); a
line-local regex searches each distinct line text of a window once, and a context whose items' literals stand only
on the match's own lines is decided once per distinct text of them (a warning repeated 10,000 times:
tests/test_match_budgets.py).
A signature whose near misses are all reported and whose required items' literals stand on no line around a match
(prefilter.RuleOut) has that match ruled out unread, and, for a line-local regex with MANY candidate lines, the whole
window: its regex is not run (``Matcher._ruled_out``; tests/test_repeats.py). The same matches and misses as
reading each context, modulo the CPU budgets (context.Budget): a search that would have spent its budget is not made.
A near miss (a literal, not the regex) is read again by the tolerant reading (tolerant.py: ``recased``): the
message in another casing or broken over lines.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property
from itertools import accumulate
from typing import TYPE_CHECKING, Any, NamedTuple

from ..kb.patterns import compile_pattern, regex_error
from ..kb.regexinfo import alternative_literals, cannot_match, identifiers, line_local, required_runs
from ..model import Probe, Signature
from ..read.frames import AROUND_RAISE, quoted_source
from ..read.sources import Block
from .confirm import folded
from .context import (
    MATCH_TIMEOUT_S,
    Evidence,
    context_items,
    context_span,
    direct_rnn,
    literal_map,
)
from .lines import Lines, Piece, head_region, line_end, tail_region, tail_views, trimmed
from .prefilter import Prefilter, RuleOut, as_block, indexed
from .probes import Probes
from .results import MAX_MATCH_TEXT, TRACEBACK_LINES, Miss, RawMatch
from .tolerant import Tolerant

if TYPE_CHECKING:
    from ..kb.load import Catalog

MAX_NEAR_MISSES_PER_SIG = 3
SHORT_BEFORE = 8  # > rank.CLUSTER_GAP
MANY = 32  # candidate lines of a line-local signature in a window from which its whole window may be ruled out at once
QUOTED_IN_CODE = "the message stands in a raise statement's string literal with no traceback frame above it: source code quoted, not the error raised"
RULED_OUT = "matched, but no literal of its required evidence within the lines around it"  # (_ruled_out: never reported)

Yielded = Iterator[tuple[RawMatch | None, Miss | None]]
# (match, first line, last line, column) of one regex match; line indexes are window-relative
Found = tuple["Any", int, int, int]


class Plan(NamedTuple):
    """How a context is read, worked out once per context (``Matcher._plan``)."""

    how: dict[str, tuple[bool, bool]]  # {item: (found line by line, has literals)}
    items: dict[bytes, frozenset[str]]  # {literal: the items it is one of}
    linewise: bool  # every item is found line by line in the lines holding its literals
    required: dict[bytes, frozenset[str]]  # the required items' literals, where each has some (else none)


class Window:
    """One window being scanned: its lines, where it starts, and the whole scan's de-duplication and
    near-miss counts. Its parts (the previous block's tail, the block, the next block's head) are joined when
    its lines are first asked for: a block whose prefilter finds no line never is (with lines of 30 KiB the
    tail and head are ~10 MiB a block)."""

    def __init__(self, parts: list[bytes | memoryview], count: int, first_line: int, source: str, scan: dict[str, Any]) -> None:
        self._parts = parts
        self._count = count
        self.first_line = first_line  # absolute line number of the window's first line
        self.source = source
        self.seen: dict[tuple[int, int], set[int]] = scan["seen"]  # (line, column) -> signatures that had it
        self.missed: dict[int, int] = scan["missed"]
        self.framed: set[int] = scan["framed"]  # signatures whose first match got its traceback lines

    @cached_property
    def lines(self) -> Lines:
        lines, self._parts = Lines(b"\n".join(self._parts), self._count), []  # (the parts freed)
        return lines

    def near_miss(self, idx: int) -> bool:
        """Whether signature ``idx`` may still report a near miss (at most MAX_NEAR_MISSES_PER_SIG); counts it."""
        n = self.missed[idx] = self.missed.get(idx, 0) + 1
        return n <= MAX_NEAR_MISSES_PER_SIG


class Matcher:
    """Runs a catalog's signatures over text blocks."""

    def __init__(self, catalog: Catalog, probes: Sequence[Probe] = (), timeout: float = MATCH_TIMEOUT_S) -> None:
        self.catalog = catalog
        self.sigs = list(catalog.signatures)
        self.warnings: list[str] = []  # what went wrong in this run: signatures and evidence items skipped
        self.evidence = Evidence(catalog.evidence, timeout, self.warnings)
        self.budget = self.evidence.budget  # (its keys: the signatures' indexes and ids, the items' texts)
        # each signature's literals: those it lists, else those its regex derives (none: every line is a candidate)
        literals = [list(sig.prefilter) or list(alternative_literals(sig.regex, sig.flags) or ()) for sig in self.sigs]
        self.by_literal = indexed(literals)
        self.full_scan = [idx for idx, lits in enumerate(literals) if not lits]
        self.probes = probes  # (the setter: the probes, and the prefilter of their literals and the signatures')
        self.before = max((s.window_before + s.context.lines_before for s in self.sigs), default=0)
        self.after = max((s.window_after + s.context.lines_after for s in self.sigs), default=0)
        # the lines before its candidate line a signature may read: its window and context, or the lines kept before
        # its first match or read for a raise's frame header (from where the window lets a match start), at most
        # ``before`` (where every read stops at the window's start)
        self.reach = [min(self.before, s.window_before + max(s.context.lines_before, TRACEBACK_LINES, AROUND_RAISE)) for s in self.sigs]
        self.ruleout = RuleOut(literal_map(self.evidence, (item for sig in self.sigs for item in context_items(sig))))
        # each signature's context as a number (-1: none), one for contexts that read alike (model.Context
        # compares by identity): their verdicts on the same lines are one (a message and its causes; the ten
        # variants of a message of a 10x base)
        contexts: dict[tuple[Any, ...], int] = {}
        self.context_of = [-1] * len(self.sigs)
        for idx, c in enumerate(s.context for s in self.sigs):
            if context_items(self.sigs[idx]):
                self.context_of[idx] = contexts.setdefault((c.exclude_any, c.require_any, c.support_any, c.lines_before, c.lines_after), len(contexts))
        self.plans: dict[int, Plan] = {}  # (_plan)

    @property
    def probes(self) -> list[Probe]:
        return self._probes.probes

    @probes.setter
    def probes(self, probes: Sequence[Probe]) -> None:
        """New probes (reading.py maps their line numbers back): the memos start over."""
        self._probes = Probes(probes)
        self._prefilter()

    def _prefilter(self) -> None:
        """The prefilter of the signatures' and the probes' literals: again when a retired probe's literals go
        (the same one where none does: Prefilter.shared)."""
        self.prefilter = Prefilter.shared([*self.by_literal, *self._probes.by_literal])

    def warm(self) -> None:
        """Compile every pattern this matcher may need (so that the catalog cache can keep them)."""
        self.tolerant()  # the templates' index
        for sig in self.sigs:
            compile_pattern(sig.regex, sig.flags)
            compile_pattern(sig.regex, folded(sig.flags))  # the tolerant confirmation's
            required_runs(sig.regex, sig.flags)  # the literal gate's, kept in the cache: a paste asks for ~20
            line_local(sig.regex, sig.flags)
            for item in context_items(sig):
                self.evidence.pattern(item)
                self.evidence.linewise(item)

    # ------------------------------------------------------------------ public

    def scan_text(self, text: str | bytes, source: str = "<text>") -> tuple[list[RawMatch], list[Miss]]:
        """Scan a whole text held in memory."""
        found = list(self.scan_blocks([text], source))  # (None, None) marks a block end
        return [m for m, _ in found if m is not None], [miss for _, miss in found if miss is not None]

    def scan_blocks(self, blocks: Iterable[Block | bytes | str], source: str) -> Yielded:
        """Scan consecutive blocks of whole lines (UTF-8 bytes or text, '\\n'-joined, no trailing newline);
        (None, None) after each block."""
        scan: dict[str, Any] = {"seen": {}, "missed": {}, "framed": set()}
        prev_tail: tuple[tuple[Piece, ...], int] = ((), 0)  # the previous block's last lines (pieces) and their number
        base = 1  # absolute line number of the first line of the current block
        it = (as_block(b) for b in blocks)
        cur = next(it, None)
        while cur is not None:
            nxt = next(it, None)
            head, n_head = head_region(nxt.data, self.after) if nxt is not None else (b"", 0)
            hits = self._hits(cur.data)
            pieces, n_tail = trimmed(*prev_tail, self._reach(hits))  # (the lines before the block its candidates read)
            tail = tail_views(pieces)
            # (the window is no local here: its lines, their texts and its rule-out marks are freed before the block's
            # end is yielded, when the tolerant reading of the block holds its own)
            win = Window([*tail, cur.data, *([head] if n_head else [])], n_tail + cur.lines + n_head, base - n_tail, source, scan)
            yield from self._scan_window(win, hits, sum(map(len, tail)) + len(tail), range(n_tail, n_tail + cur.lines))
            del win
            yield None, None
            base += cur.lines
            prev_tail = tail_region(cur.data, cur.lines, self.before, prev_tail)
            if len(scan["seen"]) > 10000:  # forget the de-duplication keys no later window can produce again
                for key in [k for k in scan["seen"] if k[0] < base - self.before - 1]:
                    del scan["seen"][key]
            cur = nxt

    def vocabulary(self) -> tuple[str, ...]:
        """The dictionary present.py tells a word cut by a hard wrap from two words by: the prefilter's
        literals (lower case), and the mixed-case identifiers the signatures' messages require ('CudnnRNN',
        'OpKernel', 'RuntimeError'), whose cut between a lower-case and an upper-case letter present.py
        declines."""
        words = dict.fromkeys(self.prefilter.literals)
        for sig in self.sigs:
            for word in identifiers(sig.regex, sig.flags):
                words.setdefault(word.lower())
        return tuple(words)

    def tolerant(self) -> Tolerant:
        """The tolerant reader of this matcher's signatures (tolerant.py), its verdicts under this matcher's
        evidence budget."""
        return Tolerant(self.sigs, self.evidence, self.catalog.base_key(self.sigs))

    # ------------------------------------------------------------------ one window

    def _hits(self, core_data: bytes) -> dict[int, list[str]]:
        """The prefilter's hits in a block: {offset: literals}."""
        hits = self.prefilter.scan(core_data)
        for at, more in self.prefilter.behind_escapes(core_data).items():  # colour codes
            have = hits.setdefault(at, [])
            have += (lit for lit in more if lit not in have)
        return hits

    def _reach(self, hits: dict[int, list[str]]) -> int:
        """How many lines before a block its window needs: the most any of its candidate signatures reads before
        a match of its first line (``reach``), not the most of all the signatures (with lines of 60 KB, a tail of
        214 lines is 13 MB)."""
        sigs = [idx for lit in set().union(*hits.values()) for idx in self.by_literal.get(lit, ())]
        return max((self.reach[idx] for idx in (*sigs, *self.full_scan)), default=0)

    def _scan_window(self, win: Window, hits: dict[int, list[str]], core_start: int, core: range) -> Yielded:
        """Each signature's candidate lines in the window's core (a signature without literals: every line there),
        searched signature by signature (in catalog order: the order rank de-duplicates in)."""
        cand = self._candidates(win, hits, core_start)
        for idx in self.full_scan:
            cand[idx] = list(core)
        for idx in sorted(cand):
            if self.sigs[idx].id not in self.budget.skipped:
                yield from self._scan_signature(idx, sorted(set(cand[idx])), win)

    def _candidates(self, win: Window, hits: dict[int, list[str]], core_start: int) -> dict[int, list[int]]:
        """{signature: candidate lines} from the prefilter's hits in the window's core (``hits``: offsets in the
        block, at ``core_start`` in the window); probe lines go to the probes. The window's line index is looked
        up only from its first hit on (a block with no hits never needs it)."""
        cand: dict[int, list[int]] = {}
        by_literal = self.by_literal
        for at, lits in sorted(hits.items()):
            off = core_start + at
            li = -1
            pidxs: tuple[int, ...] = ()
            for lit in lits:
                idxs = by_literal.get(lit)
                if idxs:
                    if li < 0:
                        li = win.lines.line_at(off)
                    for idx in idxs:
                        cand.setdefault(idx, []).append(li)
                pidxs += self._probes.by_literal.get(lit, ())
            if pidxs:
                self._probe(win, off, li, pidxs)
        return cand

    def _probe(self, win: Window, off: int, li: int, pidxs: tuple[int, ...]) -> None:
        data = win.lines.data
        line = data[off : line_end(data, off)]

        def text() -> tuple[str, int]:
            at = li if li >= 0 else win.lines.line_at(off)
            return win.lines.norm(at)[0], win.first_line + at

        if self._probes.give(line, pidxs, text):  # a probe retired
            self._prefilter()

    def _scan_signature(self, idx: int, cand: list[int], win: Window) -> Yielded:
        """The signature's regex over each run of its candidate lines, each stream's on its own."""
        sig = self.sigs[idx]
        if len(cand) >= MANY and line_local(sig.regex, sig.flags) and self._ruled_out(idx, 0, win.lines.size - 1, win):
            # (its matches are on the window's own candidate lines, which no other window reads: no de-duplication
            # key is missed; its near misses past the cap are not counted, which nothing reads)
            return
        for stream, run in self._runs(cand, sig.window_before + sig.window_after + 1, win):
            found = self._search(idx, run, stream, win)
            if found is None:
                return
            if not found and win.near_miss(idx):  # (the tolerant reading reads it in another casing or spacing)
                yield None, self._miss(idx, win, run[0])
            yield from self._matches(idx, found, stream, win)

    def _runs(self, cand: list[int], gap: int, win: Window) -> list[tuple[str, list[int]]]:
        """Candidate lines in runs whose lines are at most ``gap`` apart, each stream's on its own: worked out
        once per window for the signatures with the same candidates and gap (the variants of a message)."""

        def make() -> list[tuple[str, list[int]]]:
            by_stream: dict[str, list[list[int]]] = {}  # each stream's runs (``cand`` is sorted)
            for li in cand:
                got = by_stream.setdefault(win.lines.norm(li)[1], [])
                if got and li - got[-1][-1] <= gap:
                    got[-1].append(li)
                else:
                    got.append([li])
            return [(stream, run) for stream, got in by_stream.items() for run in got]

        return win.lines.once(("runs", gap, *cand), make)  # type: ignore[no-any-return]

    def _search(self, idx: int, run: list[int], stream: str, win: Window) -> list[Found] | None:
        """Signature ``idx``'s regex over a run: its matches, or None when it timed out or erred (then it is
        disabled, with a warning). Signatures with the same regex and window search a run once."""
        sig = self.sigs[idx]
        try:
            if line_local(sig.regex, sig.flags):  # (derived: worked out once per pattern)
                return [(m, li, li, m.start()) for li in run for m in self._in_line(idx, win.lines.norm(li)[0], win)]
            key = ("run", sig.regex, sig.flags, sig.window_before, sig.window_after, *run)
            return win.lines.once(key, lambda: self._search_region(idx, run, stream, win))  # type: ignore[no-any-return]
        except (TimeoutError, regex_error()) as exc:
            hint = f" ({sig.path}; catastrophic backtracking? `cudnn-doctor validate` checks for it)"
            self.budget.skip(sig.id, f"signature {sig.id}", exc, hint)
            return None

    def _in_line(self, idx: int, text: str, win: Window) -> list[Any]:
        """A line-local regex's matches in one line's text, searched once per distinct text in a window (a warning
        repeated 10,000 times, and the signatures with the same regex)."""
        sig = self.sigs[idx]
        return win.lines.once(("line", sig.regex, sig.flags, text), lambda: self._finditer(idx, text))  # type: ignore[no-any-return]

    def _finditer(self, idx: int, text: str) -> list[Any]:
        """Signature ``idx``'s regex's matches in ``text``, under its CPU budget; not compiled for a text that holds
        none of an alternative's literals whole (a paste compiles few patterns; kb/regexinfo.py)."""
        sig = self.sigs[idx]
        if cannot_match(sig.regex, sig.flags, text):
            return []
        pattern = compile_pattern(sig.regex, sig.flags)
        return self.budget.search(idx, lambda timeout: list(pattern.finditer(text, timeout=timeout)))  # type: ignore[no-any-return]

    def _search_region(self, idx: int, run: list[int], stream: str, win: Window) -> list[Found]:
        """The signature's regex where it may span lines: over the run plus the signature's window, normalized
        and joined."""
        sig = self.sigs[idx]
        lo, hi = max(0, run[0] - sig.window_before), min(win.lines.size - 1, run[-1] + sig.window_after)
        keep = [li for li in range(lo, hi + 1) if not stream or win.lines.norm(li)[1] == stream]
        texts = [win.lines.norm(li)[0] for li in keep]
        offsets = list(accumulate((len(t) + 1 for t in texts), initial=0))
        found: list[Found] = []
        for m in self._finditer(idx, "\n".join(texts)):
            first, last = bisect_right(offsets, m.start()) - 1, bisect_right(offsets, max(m.start(), m.end() - 1)) - 1
            found.append((m, keep[first], keep[last], m.start() - offsets[first]))
        return found

    def _miss(self, idx: int, win: Window, li: int) -> Miss:
        """A near miss on line ``li``, naming the signature's literals that line holds (its first two where the
        line holds none whole: a literal derived from the regex, or found across lines)."""
        prefilter, low = self.sigs[idx].prefilter, win.lines.norm(li)[0].lower()
        lits = ", ".join(([x for x in prefilter if x.lower() in low] or list(prefilter))[:2]) or "derived"
        return Miss(self.sigs[idx], win.source, win.first_line + li, f"a line holds its literal ({lits}) but the full pattern did not match")

    # ------------------------------------------------------------------ matches and their context

    def _matches(self, idx: int, found: list[Found], stream: str, win: Window) -> Yielded:
        """A RawMatch for each new match whose context passes and that is no quoted source code, else a near miss
        (that reason first; its context decided first: a ruled-out repeat is not looked at further)."""
        sig = self.sigs[idx]
        # (a line-local regex's match is on a candidate line of this window's core, found in one run: no other
        # window or run finds it again, and it is not de-duplicated)
        dedup = not line_local(sig.regex, sig.flags)
        for m, li_s, li_e, col in found:
            abs_line = win.first_line + li_s
            if dedup:
                had = win.seen.setdefault((abs_line, col), set())
                if idx in had:
                    continue
                had.add(idx)
            checked = self._context(idx, m.group(0), (li_s, li_e), stream, win)
            if isinstance(checked, str) or quoted_source(win.lines, li_s, col):
                if win.near_miss(idx):  # (not quoted: ruled out by its context)
                    yield None, Miss(sig, win.source, abs_line, QUOTED_IN_CODE if quoted_source(win.lines, li_s, col) else str(checked))
                continue
            text = m.group(0) if len(m.group(0)) <= MAX_MATCH_TEXT else m.group(0)[:MAX_MATCH_TEXT] + "..."
            # the first match per signature and source gets TRACEBACK_LINES before it (its traceback's user
            # frame); later ones (an error repeated 10,000 times) only the few rank.cluster looks at
            lo = max(0, li_s - (SHORT_BEFORE if idx in win.framed else TRACEBACK_LINES))
            win.framed.add(idx)
            before = win.lines.before(lo, li_e, stream)
            yield RawMatch(sig, win.source, abs_line, win.first_line + li_e, text, dict(m.groupdict()),
                           win.lines.norm(li_s)[1], list(checked[0]), checked[1], before), None

    def _context(self, idx: int, matched: str, span: tuple[int, int], stream: str, win: Window) -> tuple[list[str], bool] | str:
        """(evidence, supported), or the near-miss reason, of signature ``idx``'s match on lines ``span``: decided on
        the text each item of its context may match in around it (built only for the items the verdict searches).
        Signatures with the same context share the verdict on the same lines. For a warning repeated 10,000 times:
        where each item is found line by line in the lines holding its literals, and those lines are the match's
        own, their texts (and the items whose literals each holds) are the key: the same warning again costs no
        text, search or verdict; and with no near miss left to report, a context with no required literal around
        it is ruled out unread (``_ruled_out``)."""
        sig, ctx = self.sigs[idx], self.context_of[idx]
        if ctx < 0:
            return [], False
        lo, hi = context_span(sig, *span, win.lines.size)
        if self._ruled_out(idx, lo, hi, win):
            return RULED_OUT
        direct = direct_rnn(sig, matched)
        plan = self._plan(sig, ctx)
        marks = self.ruleout.marked(win.lines, lo, hi, ctx, plan.items)
        key: tuple[Any, ...] = ("verdict", ctx, direct, *span, stream)
        if plan.linewise and (not marks or (span[0] <= marks[0][0] and marks[-1][0] <= span[1])):  # (marks: sorted by line)
            # (the texts are the window's own normalized lines: the key holds no copy)
            key = ("marked", ctx, direct, stream, *[(win.lines.norm(li), its) for li, its in marks])
        return win.lines.once(key, lambda: self.evidence.verdict(sig, direct, self._context_text(plan.how, marks, lo, hi, stream, win)))  # type: ignore[no-any-return]

    def _ruled_out(self, idx: int, lo: int, hi: int, win: Window) -> bool:
        """Whether a match of signature ``idx`` with context lines lo..hi is ruled out unread: the signature has no
        near miss left to report, and requires items that each have literals, none of them on a line lo..hi: the
        text each is searched in is empty (``_context_text``), so the verdict is a near miss, whatever it says."""
        if win.missed.get(idx, 0) < MAX_NEAR_MISSES_PER_SIG:
            return False
        sig = self.sigs[idx]
        required = self._plan(sig, self.context_of[idx]).required
        return bool(required) and not self.ruleout.marked(win.lines, lo, hi, ("absent", sig.context.require_any), required)

    def _plan(self, sig: Signature, ctx: int) -> Plan:
        """A context's ``Plan``, worked out once (its required literals: ``_ruled_out``)."""
        got = self.plans.get(ctx)
        if got is None:
            how = {i: (self.evidence.linewise(i), i in self.ruleout.literals) for i in context_items(sig)}
            items: dict[bytes, frozenset[str]] = {}
            for item, (_, ruled) in how.items():
                for lit in self.ruleout.literals[item] if ruled else ():
                    items[lit] = items.get(lit, frozenset()) | {item}
            req = sig.context.require_any
            required = {lit: frozenset(req) for i in req for lit in self.ruleout.literals[i]} if req and all(how[i][1] for i in req) else {}
            got = self.plans[ctx] = Plan(how, items, all(linewise and ruled for linewise, ruled in how.values()), required)
        return got

    @staticmethod
    def _context_text(how: dict[str, tuple[bool, bool]], marks: list[tuple[int, frozenset[str]]], lo: int, hi: int,
                      stream: str, win: Window) -> Callable[[str], str]:
        """The text an item of the context is searched in: the normalized lines lo..hi of ``stream``; for an item
        with literals, none where no line there holds one (``marks``: prefilter.RuleOut), and for one found line
        by line only the lines that do."""

        def text(item: str) -> str:
            linewise, ruled = how.get(item, (False, False))
            lines: Sequence[int] = range(lo, hi + 1)
            if ruled:  # each of its matches holds one of its literals
                at = [li for li, its in marks if item in its]
                if not at:
                    return ""
                if linewise:
                    lines = at
            got = win.lines.texts(lines, stream)
            # an item found within one line finds the same first text in each distinct line once: a line
            # repeated hundreds of times is searched once
            return "\n".join(dict.fromkeys(got) if linewise else got)

        return text

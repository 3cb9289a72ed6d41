"""The Matcher: runs a catalog's signatures over blocks of a log, in one pass plus small windows.

1. The prefilter (prefilter.py) finds every line holding one of the signatures' literals; lines holding a
   probe's literal go to the environment probes (model.Probe) on the way (_collect).
2. Over a big window, candidates whose message words (regexinfo.Confirm) are not around them are dropped
   first (_confirm), as near misses.
3. For each signature, its candidate lines are grouped into runs; each run's window of lines is normalized
   (normalize.py) and demultiplexed by stream (``[rankN]:``), then the signature's full regex runs there,
   with a timeout so that a pathological pattern skips that signature instead of hanging the run (_scan_run).
4. Context evidence (``require_any`` / ``exclude_any`` / ``support_any``, evidence.py) is looked for around
   each match (_context), and the match is built (_matches).

Each block is scanned with the tail of the previous block and the head of the next one (lines.py); matches
are de-duplicated by their absolute line. The hot loops keep local aliases of attributes on purpose.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..fieldmethods import FieldEq
from ..kb.patterns import LazyRe, compile_pattern, regex_error
from ..model import RETIRE, Probe, Signature
from ..read.normalize import normalize_line
from ..read.sources import Block
from .evidence import DIRECT_RNN, MATCH_TIMEOUT_S, NON_RNN, _Evidence
from .lines import (
    LazyLines,
    _branches_present,
    _head_region,
    _Lines,
    _runs,
    _tail_region,
    _window_data,
    _word_lines,
)
from .prefilter import Prefilter, _as_block
from .regexinfo import Confirm, confirm_words, derive_literal, line_local
from .results import Miss, RawMatch

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:  # only a type here: match/ needs no catalog module at run time
    from typing import Any

    from ..kb.load import Catalog

# the CPU time one signature's regex may spend over a whole run (all its searches; CPU, not wall time, so
# that a busy machine does not drop signatures): past
# it the signature is dropped with a warning naming its file, so a pattern just under the per-search timeout
# cannot cost that on every candidate line (200 lines x 0.3 s was a minute)
SIGNATURE_BUDGET_S = 5.0
MAX_MATCH_TEXT = 4000
MAX_NEAR_MISSES_PER_SIG = 3
TRACEBACK_LINES = 60
SHORT_BEFORE = 8  # > rank.CLUSTER_GAP
PROBED_MEMO = 16384  # line shapes already given to the environment probes
# a line-local regex's matches, by (pattern, normalized line), across windows: a warning repeated 10,000 times
# is searched once per pattern (lines longer than MEMO_TEXT are searched each time)
SEARCHED_MEMO = 4096
MEMO_TEXT = 1024  # characters: each memo holds 4 MiB of text at most
# context decisions, by the context and the normalized lines around the match where one of its items matches
# (_decide_once; lines of MEMO_TEXT characters at most in all), and whether an item matches a line (_relevant)
DECIDED_MEMO = 4096
# digits -> '0': lines that differ only in their numbers (timestamps, step counters, versions) share a shape
_SHAPE = bytes.maketrans(b"123456789", b"000000000")
# normalize.py's GitHub Actions timestamp, in ASCII bytes (anything it does not match is kept in the key)
_RAW_TIMESTAMP = re.compile(rb"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ")
# a window this big is a CI log, not a paste: its candidate lines are confirmed (Matcher._confirm) first
CONFIRM_FROM = 256 << 10
# up to this many candidate lines of a signature in a window, its words are looked for around each of them
# (Matcher._confirmed) rather than located in the whole window first
FEW_CANDIDATES = 32
# a word whose first occurrence in the first big window ends within this many bytes of its start (about one
# every 16 KiB or more) is left out of hyperscan's word pass (Matcher._drop_common)
COMMON_WITHIN = 16 << 10
# after this many windows lacked a dropped word, every word is looked for again (Matcher._restore_missed)
MAX_RESTORES = 2
# signatures equal in their regex, flags, window and literals are found as one class (Matcher.__init__);
# tests turn it off to check that a class gives what its signatures give one by one
CLASSES = True
_UNSET: Any = object()

Yielded = Iterator[tuple[RawMatch | None, Miss | None]]
# (match, first line, last line, column) of one regex match; line indexes are window-relative
Found = tuple["Any", int, int, int]
# a lower-case letter before an upper-case one: a mixed-case identifier (vocabulary)
_MIXED_CASE = LazyRe(r"[a-z][A-Z]")

# what each signature of a scanned window gives, by signature index, until the window yields it
Outs = dict[int, list[tuple[RawMatch | None, Miss | None]]]


@dataclass(slots=True, repr=False, eq=False)
class _Window(FieldEq):
    """One window being scanned, and the de-duplication and near-miss counts of the whole scan."""

    lines: _Lines
    norm: Callable[[int], tuple[str, str]]  # normalized (text, stream) of a line, computed once
    first_line: int  # absolute line number of the window's first line
    source: str
    seen: dict[tuple[int, int], set[int]]  # (absolute line, column) of a match -> the signatures that had it
    missed: dict[int, int]
    spent: set[int]  # the signatures that reported all their near misses

    def near_miss(self, idx: int) -> bool:
        """Whether signature ``idx`` may still report a near miss (at most MAX_NEAR_MISSES_PER_SIG); counts it."""
        n = self.missed.get(idx, 0)
        if n < MAX_NEAR_MISSES_PER_SIG:
            self.missed[idx] = n + 1
            if n + 1 == MAX_NEAR_MISSES_PER_SIG:
                self.spent.add(idx)
            return True
        return False


def _ruled_out(sigs: list[tuple[int, Signature]], ids: frozenset[int] | None, reason: str, line: int, win: _Window, outs: Outs) -> None:
    """The near miss of each of ``sigs`` (``ids``: their indexes, where known) whose match ``reason`` rules out,
    while it may still report one: none, at once, once all have (the causes behind a warning repeated 10,000
    times, ten copies each in a knowledge base ten times bigger)."""
    if ids is not None and ids <= win.spent:
        return
    for idx, sig in sigs:
        if win.near_miss(idx):
            outs.setdefault(idx, []).append((None, Miss(sig, win.source, line, reason)))


def _new_members(had: set[int], members: list[tuple[int, Signature]], ids: frozenset[int]) -> list[tuple[int, Signature]]:
    """Those of ``members`` (``ids``: their indexes) not in ``had`` (the signatures that had a match), added to it:
    all of them, in C, where none is (the usual case: the first context group at a match)."""
    if had.isdisjoint(ids):
        had.update(ids)
        return members
    new = [member for member in members if member[0] not in had]
    had.update(idx for idx, _ in new)
    return new


def _remember(memo: dict[Any, Any], key: Any, value: Any, most: int) -> None:
    """memo[key] = value, emptying the memo first when it holds ``most`` entries (a bound, not an LRU)."""
    if len(memo) >= most:
        memo.clear()
    memo[key] = value


def _around(win: _Window, stream: str, keep: Sequence[int], texts: Sequence[str]) -> Callable[[int, int], list[str]]:
    """The normalized lines lo..hi of ``stream`` (all streams: ''), from ``texts`` (those of the lines ``keep``,
    normalized for a search over a region) where they cover lo..hi."""
    index, norm = win.lines, win.norm

    def around(lo: int, hi: int) -> list[str]:
        lo, hi = max(0, lo), min(index.count - 1, hi)
        if keep and keep[0] <= lo and hi <= keep[-1]:
            return texts[bisect.bisect_left(keep, lo) : bisect.bisect_right(keep, hi)]  # type: ignore[return-value]
        return [norm(li)[0] for li in range(lo, hi + 1) if not stream or norm(li)[1] == stream]

    return around


def _normalizer(lines: _Lines) -> Callable[[int], tuple[str, str]]:
    normalized: dict[int, tuple[str, str]] = {}

    def norm(li: int) -> tuple[str, str]:
        got = normalized.get(li)
        if got is None:
            got = normalized[li] = normalize_line(lines.line(li))
        return got

    return norm


class Matcher:
    """Runs a catalog's signatures over text blocks."""

    def warm(self) -> None:
        """Compile every pattern this matcher may need (so that the catalog cache can keep them)."""
        for sig in self.sigs:
            compile_pattern(sig.regex, sig.flags)
            line_local(sig.regex, sig.flags)
            confirm_words(sig.regex, sig.flags, sig.prefilter)
            items = (*sig.context.exclude_any, *sig.context.require_any, *sig.context.support_any)
            for item in items:
                self.evidence.pattern(item)
            if items and self.evidence.literals(items) is not None:  # what _relevant searches with
                self.evidence.any_pattern(items)
                self.evidence.conditions(items)  # and what lines_with looks for (kept in the cache too)
                self.evidence.word_starts(items)
            for group in (sig.context.exclude_any, sig.context.require_any, sig.context.support_any):
                if group:  # what a big log's first window would parse (_confirm_all): kept in the cache too
                    self.evidence.absence_literals(group)
                    self.evidence.literals(group)
            if items:
                self.evidence.condition_words(items)

    def __init__(self, catalog: Catalog, probes: Sequence[Probe] = (), timeout: float = MATCH_TIMEOUT_S) -> None:
        self.catalog = catalog
        self.timeout = timeout
        self.evidence = _Evidence(catalog, self._words_in)
        self.by_literal: dict[str, list[int]] = {}
        self.full_scan: list[int] = []
        self.sigs = list(catalog.signatures)
        self.confirms: dict[int, Confirm | None] = {}  # made for the signatures a big input gives candidates
        self._words: tuple[tuple[bytes, bool], ...] | None = None  # every Confirm's words, from the first big window
        self.disabled: dict[str, str] = {}
        self.warnings: list[str] = []
        self.budget = max(timeout, SIGNATURE_BUDGET_S)
        self.spent: dict[int, float] = {}  # regex CPU seconds per signature over this run
        # signatures equal in all that finds their candidate lines (regex, flags, window, literals) form a
        # class: its first signature stands for it until the lines are searched (_collect, _confirm), and
        # the class's signatures are scanned as one group (a message and the causes behind it; a knowledge
        # base with variants of one message)
        self.members: dict[int, list[int]] = {}  # a class's first signature -> all of its signatures
        self._rep: list[int] = []  # each signature's class's first signature
        classes: dict[tuple[Any, ...], int] = {}
        for idx, sig in enumerate(self.sigs):
            key = (sig.regex, sig.flags, sig.window_before, sig.window_after, sig.prefilter)
            rep = classes.setdefault(key, idx) if CLASSES else idx
            self._rep.append(rep)
            self.members.setdefault(rep, []).append(idx)
            if rep != idx:
                continue
            lits = list(sig.prefilter)
            if not lits:
                derived = derive_literal(sig.regex, sig.flags)
                if derived:
                    lits = [derived]
            if not lits:
                self.full_scan.append(idx)
            for lit in lits:
                self.by_literal.setdefault(lit.lower(), []).append(idx)
        self._classes = any(len(m) > 1 for m in self.members.values())
        self.probes = list(probes)
        self._local: dict[int, bool] = {}
        self._framed: dict[str, set[int]] = {}  # source -> the signatures whose first match got its traceback
        self._context_keys: dict[int, int | None] = {}
        self._context_ids: dict[tuple[Any, ...], int] = {}
        self._plans: dict[tuple[int, ...], list[tuple[int | None, list[tuple[int, Signature]]]]] = {}
        self._searched: dict[tuple[Any, str], list[Any]] = {}  # _search_lines, across windows
        self._decided: dict[tuple[Any, ...], tuple[list[str], bool] | str] = {}  # _decide_once, across windows
        self._relevant_memo: dict[tuple[tuple[str, ...], str], bool] = {}  # _relevant, across windows
        self._requiring: dict[tuple[int, ...], Any] = {}  # _nothing_to_give's, by group
        self._vocabulary: tuple[str, ...] | None = None
        self._probed: dict[tuple[bytes, tuple[int, ...]], None] = {}
        self._shapes: dict[tuple[bytes, tuple[int, ...]], tuple[int, ...]] = {}
        self._retired: set[int] = set()
        self._next_prefilter: Prefilter | None = None
        self._piece_prefilter: Prefilter | None = None  # every word (_words_in)
        self._all_words: tuple[tuple[bytes, bool], ...] = ()  # _confirm_all's words, once _drop_common ran
        self._dropped: set[tuple[bytes, bool]] = set()  # those left out of the windows' pass (_drop_common)
        self._restores = 0  # how many times dropped words were put back (_restore_missed)
        probe_by_literal: dict[str, list[int]] = {}
        for pidx, probe in enumerate(self.probes):
            for lit in probe.literals:
                probe_by_literal.setdefault(lit.lower(), []).append(pidx)
        self.probe_by_literal = {lit: tuple(p) for lit, p in probe_by_literal.items()}
        self.prefilter = Prefilter.shared([*self.by_literal, *self.probe_by_literal])
        self.before = max((s.window_before + s.context.lines_before for s in self.sigs), default=0)
        self.after = max((s.window_after + s.context.lines_after for s in self.sigs), default=0)

    # ------------------------------------------------------------------ public

    def scan_text(self, text: str | bytes, source: str = "<text>") -> tuple[list[RawMatch], list[Miss]]:
        """Scan a whole text held in memory."""
        matches: list[RawMatch] = []
        misses: list[Miss] = []
        for m, miss in self.scan_blocks([text], source):  # (None, None) marks a block end
            if m is not None:
                matches.append(m)
            if miss is not None:
                misses.append(miss)
        return matches, misses

    def scan_blocks(self, blocks: Iterable[Block | bytes | str], source: str) -> Yielded:
        """Scan consecutive blocks of whole lines (UTF-8 bytes or text, '\\n'-joined, no trailing newline)."""
        seen: dict[tuple[int, int], set[int]] = {}
        missed: dict[int, int] = {}
        spent: set[int] = set()
        prev_tail: tuple[bytes, int] = (b"", 0)  # the previous block's last lines (a slice) and their number
        base = 1  # absolute line number of the first line of the current block
        it = (_as_block(b) for b in blocks)
        cur_block = next(it, None)
        while cur_block is not None:
            nxt = next(it, None)
            cur, cur_lines, marks = cur_block
            head, n_head = _head_region(nxt.data, self.after) if nxt is not None else (b"", 0)
            tail, n_tail = prev_tail
            parts = [tail, cur] if n_tail else [cur]
            if n_head:
                parts.append(head)
            window = b"\n".join(parts) if len(parts) > 1 else cur
            core_start = len(tail) + 1 if n_tail else 0
            if marks is not None and n_tail:  # the block's line starts, where they are in the window
                marks = ([o + core_start for o in marks[0]], [li + n_tail for li in marks[1]])
            lines = _Lines(window, n_tail + cur_lines + n_head, marks)
            win = _Window(lines, _normalizer(lines), base - n_tail, source, seen, missed, spent)
            yield from self._scan_window(win, core_start, core_start + len(cur), range(n_tail, n_tail + cur_lines))
            yield None, None  # end of a block: callers may settle what they collected
            base += cur_lines
            prev_tail = _tail_region(cur, cur_lines, self.before, prev_tail)
            # forget de-duplication keys that no later window can produce again
            horizon = base - self.before - 1
            if len(seen) > 10000:
                for key in [k for k in seen if k[0] < horizon]:
                    del seen[key]
            cur_block = nxt

    # ------------------------------------------------------------------ one window

    def _scan_window(self, win: _Window, core_start: int, core_end: int, core: range) -> Yielded:
        """Candidates from the prefilter (probes served on the way), confirmed, then each signature's runs."""
        hits = self._prefilter_hits(win.lines, core_start, core_end)
        if not hits and not self.full_scan:
            return
        first_hit: dict[int, tuple[int, int]] = {}
        steps: dict[int, int] = {}
        cand = self._collect(hits, win, first_hit, steps)
        if first_hit:
            line_at = win.lines.line_at
            yield from self._unconfirmed_misses({rep: (line_at(off), step) for rep, (off, step) in first_hit.items()}, win)
        if cand:
            yield from self._confirm(cand, win, steps)
        if self._dropped and win.lines.memo.get("missed"):
            self._restore_missed(win.lines.memo["missed"])
        for idx in self.full_scan:
            cand[idx] = list(core)
        outs: Outs = {}
        for key, idxs in self._groups(cand).items():
            if idxs:
                self._scan_group(idxs, key[1:], win, outs)
        for idx in sorted(outs):
            yield from outs[idx]

    def _groups(self, cand: dict[int, list[int]]) -> dict[tuple[Any, ...], list[int]]:
        """The classes' signatures (not disabled) by regex, window and candidate lines.

        Signatures with one regex and window (a message and the causes behind it: six share the
        flatten_parameters warning's) and the same candidate lines are split, searched and built as one group;
        what each gives is kept apart and yielded in signature order, as if each had been scanned on its own."""
        groups: dict[tuple[Any, ...], list[int]] = {}
        members, sigs, disabled = self.members, self.sigs, self.disabled
        for rep in sorted(cand):
            lines = sorted(set(cand[rep]))
            group = groups.setdefault((self._group_key(rep), *lines), [])
            group += [idx for idx in members[rep] if sigs[idx].id not in disabled] if disabled else members[rep]
        if self._classes:  # a group of several classes: its signatures in index order, as each class's are
            for group in groups.values():
                group.sort()
        return groups

    def _in_order(self, by_class: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
        """(signature, value) for each signature of each class in ``by_class`` ({first signature: (value, step)}),
        in the order the signatures would have come one by one: by the step (the hit and literal) that first gave
        their class, then by index (a literal's signatures come in index order)."""
        if not self._classes:
            return [(idx, value) for idx, (value, _step) in by_class.items()]
        members = self.members
        got = sorted((step, idx, value) for rep, (value, step) in by_class.items() for idx in members[rep])
        return [(idx, value) for _step, idx, value in got]

    def _group_key(self, idx: int) -> tuple[Any, ...]:
        """What signatures scanned as one group share besides their candidate lines: everything the runs of
        lines and the regex's matches depend on."""
        sig = self.sigs[idx]
        return (sig.regex, sig.flags, sig.window_before, sig.window_after)

    def _scan_group(self, idxs: list[int], cand: Sequence[int], win: _Window, outs: Outs) -> None:
        """The runs of a group of signatures' candidate lines (sorted), each stream's (``[rank0]:``, ``[rank1]:``,
        ...) on its own."""
        sig = self.sigs[idxs[0]]
        by_stream: dict[str, list[int]] = {}
        norm = win.norm
        for li in cand:
            by_stream.setdefault(norm(li)[1], []).append(li)
        for slines in by_stream.values():
            for run in _runs(slines, sig.window_before + sig.window_after + 1):
                self._scan_run(idxs, run, win, outs)

    def _prefilter_hits(self, lines: _Lines, core_start: int, core_end: int) -> dict[int, list[str]]:
        """The prefilter's hits in the window's core ({line start offset: literals}); the Confirm words present
        in the window go to ``lines.memo['present']`` (None: not known)."""
        if len(lines.data) >= CONFIRM_FROM and self._words is None:
            self._confirm_all()
        if self._next_prefilter is not None:
            self.prefilter, self._next_prefilter = self._next_prefilter, None
        firsts: dict[tuple[bytes, bool], int] | None = None
        if not self._all_words and self.prefilter.words and len(lines.data) >= CONFIRM_FROM:
            firsts = {}
        hits, present = self.prefilter.scan_words(lines.data, core_start, core_end, firsts)
        for ls, lits in self.prefilter.behind_escapes(lines.data, core_start, core_end).items():
            have = hits.setdefault(ls, [])
            have += (lit for lit in lits if lit not in have)
        if not self.prefilter.words:  # a prefilter made before the first big window: it knows no words
            present = None
        lines.memo["present"] = present
        lines.memo["scanned"] = self.prefilter.word_set if present is not None else None
        if firsts is not None and present is not None:
            self._drop_common(firsts, lines.data, core_start)
        return hits

    def _drop_common(self, firsts: dict[tuple[bytes, bool], int], data: bytes, core_start: int) -> None:
        """After the first big window scanned with every word: leave out of the next windows' pass the words
        found both in its first and in its last COMMON_WITHIN bytes ('cudnn', 'device', 'Warning' on a dense
        log; not a start-up banner's). hyperscan checks every occurrence of a word even when it asks for the
        first only, so such a word costs the pass more than knowing it saves: whether a common word is in a
        window is one ``find`` that stops near its start (lines._has_word), and clean pieces are still
        scanned for every word (_words_in). A dropped word a window lacks goes back (_restore_missed).
        Which words are dropped changes the speed only, never a result."""
        self._all_words = self._words or ()
        tail = data[-COMMON_WITHIN:]
        low_tail = tail.lower()
        common = {
            (word, icase)
            for (word, icase), end in firsts.items()
            if end <= core_start + COMMON_WITHIN and (low_tail if icase else tail).find(word) >= 0
        }
        if common and self._words is not None:
            self._piece_prefilter = self.prefilter
            self._dropped = common
            self._use_words()

    def _restore_missed(self, missed: set[tuple[bytes, bool]]) -> None:
        """Words _drop_common left out that a window then lacked (each cost a ``find`` through all of it): back
        into the pass; after MAX_RESTORES such changes, every word (a log whose start is not like the rest)."""
        back = self._dropped & missed
        if back:
            self._restores += 1
            self._dropped = set() if self._restores >= MAX_RESTORES else self._dropped - back
            self._use_words()

    def _use_words(self) -> None:
        """The next windows' pass looks for every word but the dropped ones."""
        self._words = tuple(word for word in self._all_words if word not in self._dropped)
        literals = (self._next_prefilter or self.prefilter).literals
        self._next_prefilter = Prefilter.shared(literals, self._words)

    def _collect(
        self, hits: dict[int, list[str]], win: _Window, first_hit: dict[int, tuple[int, int]], steps: dict[int, int]
    ) -> dict[int, list[int]]:
        """{class (its first signature): candidate lines} from the prefilter's hits; probe lines go to the
        probes (_probe). ``steps``: the (hit, literal) step that gave each class first (_in_order).

        A big window: a literal's signatures whose message cannot be in it (no alternative of their Confirm
        has all its words in the window) are dropped on the literal's first hit, so thousands of CudnnRNNV3 op
        traces cost no line lookup at all; each owes one near miss, at its first hit (``first_hit``: offset,
        step)."""
        lines = win.lines
        line_at = lines.line_at
        by_literal, probe_by_literal = self.by_literal, self.probe_by_literal
        narrow = lines.memo["present"] is not None and len(lines.data) >= CONFIRM_FROM
        cand: dict[int, list[int]] = {}
        window_literals: dict[str, list[int]] = {}
        possible: dict[int, bool] = {}
        step = 0
        for off, lits in hits.items():
            li = -1
            pidxs: tuple[int, ...] = ()
            for lit in lits:
                idxs = by_literal.get(lit)
                step += 1
                if idxs and narrow:
                    got = window_literals.get(lit)
                    if got is None:
                        got = window_literals[lit] = self._possible(idxs, lines, possible, first_hit, (off, step))
                    idxs = got
                if idxs:
                    if li < 0:
                        li = line_at(off)
                    for idx in idxs:
                        had = cand.get(idx)
                        if had is None:
                            cand[idx] = [li]
                            steps[idx] = step
                        else:
                            had.append(li)
                pidxs += probe_by_literal.get(lit, ())
            if pidxs:
                self._probe(off, li, pidxs, win)
        return cand

    def _probe(self, off: int, li: int, pidxs: tuple[int, ...], win: _Window) -> None:
        """Give the line at ``off`` to the probes ``pidxs`` (the first line in the log wins among equally good ones).

        A line with the same bytes as one probed before (but for the GitHub timestamp, which normalization
        drops) cannot tell anything new, and is not even decoded. A line of the same *shape* (the same bytes but
        for digits) goes only to the probes that wanted that shape: a shape-free probe whose regex did not match
        it cannot match a line of that shape, and one that gave nothing better says so (first wins among
        equals); a probe that is not shape-free sees every new line. Such lines are skipped before even their
        line number is counted."""
        data = win.lines.data
        end = data.find(b"\n", off)
        end = len(data) if end < 0 else end
        todo: tuple[int, ...] | None = None  # the probes to ask, when the shape memo knows them
        shape = None
        if end - off <= 600:  # the memos are keyed by the line's hits as found (same bytes, same hits)
            probed, shapes = self._probed, self._shapes
            line = data[off:end]
            # the shape of the line as it is: a timestamp's digits are zeros too, so lines of one shape here
            # have one shape once the timestamp goes (and the regex below runs only past this test)
            shape = (line.translate(_SHAPE), pidxs)
            got = shapes.get(shape)
            if got is not None and not got:  # a shape every probe declined: the commonest case, first
                return
            ts = _RAW_TIMESTAMP.match(line)
            raw = line[ts.end() :] if ts else line
            if (raw, pidxs) in probed:
                return
            if len(probed) >= PROBED_MEMO:
                probed.clear()
            probed[(raw, pidxs)] = None
            if got is not None:
                todo = got
            elif len(shapes) >= PROBED_MEMO:
                shapes.clear()
        if todo is None:
            todo = tuple(sorted(set(pidxs))) if len(pidxs) > 1 else pidxs
        if li < 0:
            li = win.lines.line_at(off)
        wanted = self._handle(todo, win.norm(li)[0], win.first_line + li)
        if shape is not None:
            self._shapes[shape] = wanted

    def _handle(self, todo: tuple[int, ...], text: str, line: int) -> tuple[int, ...]:
        """Give a new probe line to the probes ``todo``; those that want more lines of its shape."""
        wanted: list[int] = []
        probes, retired = self.probes, self._retired
        for pidx in todo:
            if pidx in retired:  # retired earlier in this window
                continue
            said = probes[pidx].handle(text, line)
            if said == RETIRE:
                self._retire(pidx)
            elif said is not False or not probes[pidx].shape_free:
                wanted.append(pidx)
        return tuple(wanted)

    def _retire(self, pidx: int) -> None:
        """Stop giving lines to probe ``pidx``: its literals no longer make a line a probe line."""
        self._retired.add(pidx)
        self.probe_by_literal = {
            lit: kept for lit, ps in self.probe_by_literal.items() if (kept := tuple(p for p in ps if p != pidx))
        }
        self._probed.clear()
        self._shapes.clear()
        literals = {*self.by_literal, *self.probe_by_literal}
        if len(literals) < len(self.prefilter.literals):  # a literal only it needed: scan for the others
            self._next_prefilter = Prefilter.shared(literals, self._words or ())

    # ------------------------------------------------------------------ confirmation (big windows)

    def _confirm(self, cand: dict[int, list[int]], win: _Window, steps: dict[int, int]) -> Yielded:
        """Drop the candidate lines of a class (``cand``: by first signature) that lack, around them, the words
        of every alternative of its regex (Confirm): a literal on every other line of a dense log (``CudnnRNNV3``
        in op traces) then costs one ``bytes.find`` per word and window instead of normalizing and searching the
        lines around each hit. A dropped line is a near miss, as a line whose full pattern did not match is (the
        cut reader uses them)."""
        lines = win.lines
        if len(lines.data) < CONFIRM_FROM:
            return
        dropped: dict[int, tuple[int, int]] = {}
        for idx in list(cand):
            sig = self.sigs[idx]
            conf = self._confirm_of(idx)
            if conf is None:
                continue
            before, after = (0, 0) if self._is_local(idx) else (sig.window_before, sig.window_after)
            branches = _branches_present(conf, lines)
            few = len(cand[idx]) <= FEW_CANDIDATES
            memo = lines.memo.setdefault(("confirmed", id(conf), before, after, few), {})  # shared by equal regexes
            kept = []
            for li in cand[idx] if branches else ():
                ok = memo.get(li)
                if ok is None:
                    ok = memo[li] = self._confirmed(branches, conf.icase, li - before, li + after, lines, few)
                if ok:
                    kept.append(li)
            if len(kept) == len(cand[idx]):
                continue
            if not kept:
                dropped[idx] = (min(cand.pop(idx)), steps[idx])
                continue
            cand[idx] = kept
        yield from self._unconfirmed_misses(dropped, win)

    def _unconfirmed_misses(self, by_class: dict[int, tuple[int, int]], win: _Window) -> Yielded:
        """The near miss of each signature of the classes ``by_class`` ({first signature: (the window line it was
        dropped at, step)}) that may still report one, in the order the signatures came one by one."""
        for idx, li in self._in_order(by_class):
            if self.sigs[idx].id not in self.disabled and win.near_miss(idx):
                yield None, self._unconfirmed(idx, win.first_line + li, win.source)

    def _confirm_of(self, idx: int) -> Confirm | None:
        """The Confirm of signature ``idx``'s class (kept by its first signature)."""
        idx = self._rep[idx]
        conf = self.confirms.get(idx, _UNSET)
        if conf is _UNSET:
            sig = self.sigs[idx]
            conf = self.confirms[idx] = confirm_words(sig.regex, sig.flags, sig.prefilter)
        return conf  # type: ignore[no-any-return]

    def _is_local(self, idx: int) -> bool:
        local = self._local.get(idx)
        if local is None:
            sig = self.sigs[idx]
            local = self._local[idx] = line_local(sig.regex, sig.flags)
        return local

    def _unconfirmed(self, idx: int, line: int, source: str) -> Miss:
        conf = self.confirms.get(self._rep[idx])
        words = " / ".join(b"+".join(b).decode() for b in conf.branches) if conf else ""
        return Miss(self.sigs[idx], source, line, f"a line holds its literal but not the words of its message ({words})")

    def _possible(
        self, idxs: list[int], lines: _Lines, possible: dict[int, bool], first_hit: dict[int, tuple[int, int]], at: tuple[int, int]
    ) -> list[int]:
        """Those of a literal's signatures (``idxs``) whose message may be in this window (see _collect)."""
        keep: list[int] = []
        for idx in idxs:
            ok = possible.get(idx)
            if ok is None:
                conf = self.confirms.get(idx)
                ok = possible[idx] = conf is None or bool(_branches_present(conf, lines))
                if not ok:
                    first_hit.setdefault(idx, at)
            if ok:
                keep.append(idx)
        return keep

    def signature_hits(self, data: bytes) -> list[int]:
        """Offsets of the lines of ``data`` holding a literal of a signature whose message may be in ``data``
        (parallel.py cuts a file where there are none: op traces naming CudnnRNNV3 on every 20th line do not
        make a log loud for the signature that needs 'Detected unsupported operations' with it)."""
        if self._words is None:
            self._confirm_all()
        prefilter = Prefilter.shared(self.prefilter.literals, self._words or ())
        hits, present = prefilter.scan_words(data)
        lines = _Lines(data, data.count(b"\n") + 1)
        lines.memo["present"] = present
        lines.memo["scanned"] = prefilter.word_set if present is not None else None
        out: list[int] = []
        for off, lits in hits.items():
            li = -1
            for lit in lits:
                for idx in self.by_literal.get(lit, ()):
                    conf = self.confirms.get(idx)
                    if conf is None:
                        break
                    branches = _branches_present(conf, lines)
                    if branches:
                        if li < 0:
                            li = lines.line_at(off)
                        sig = self.sigs[idx]
                        local = line_local(sig.regex, sig.flags)
                        before, after = (0, 0) if local else (sig.window_before, sig.window_after)
                        if self._confirmed(branches, conf.icase, li - before, li + after, lines):
                            break
                else:
                    continue
                out.append(off)
                break
        return out

    def _group_absent(self, group: tuple[str, ...], lines: _Lines, lo: int, hi: int) -> bool:
        """Whether no item of a context group can match in lines lo..hi (_Evidence.absent: over a big window,
        from the literals the prefilter's pass found in it, looked for in the clean pieces of the window made around the checks)."""
        return self.evidence.absent(group, lines, lo, hi)

    def _words_in(self, data: bytes) -> tuple[dict[bytes, int], frozenset[bytes]] | None:
        """The caseless words in a clean piece (evidence.py), each with where it first starts there, and those
        looked for, by a pass of every word alone: those _drop_common leaves out of the windows' pass are looked
        for in pieces still."""
        prefilter = self._piece_prefilter or self.prefilter
        if not prefilter.words:
            return None
        only = prefilter.words_only()
        found = only.caseless_in(data)
        return None if found is None else (found, only.caseless)

    def _confirm_all(self) -> None:
        """The first big window: every signature's Confirm, and a prefilter that also reports its words."""
        words: set[tuple[bytes, bool]] = set()
        contexts: set[tuple[tuple[str, ...], ...]] = set()
        for idx, sig in enumerate(self.sigs):
            if self._rep[idx] == idx:
                conf = self._confirm_of(idx)
                if conf is not None:
                    words.update((w, conf.icase) for branch in conf.branches for w in branch)
            ctx = sig.context
            key = (ctx.exclude_any, ctx.require_any, ctx.support_any)
            if key in contexts:
                continue
            contexts.add(key)
            for group in (ctx.exclude_any, ctx.require_any, ctx.support_any):
                if group:  # the literals of the evidence: whether each is in a window at all, in the same pass
                    words.update((lit, True) for lit in self.evidence.absence_literals(group) or ())
                    words.update((lit, True) for lit in self.evidence.literals(group) or ())
            # and where a literal of the whole context (lines_with's) cannot count: its conditions' runs
            words.update((word, True) for word in self.evidence.condition_words((*ctx.exclude_any, *ctx.require_any, *ctx.support_any)))
        self._words = tuple(sorted(words))
        self._next_prefilter = Prefilter.shared(self.prefilter.literals, self._words)

    @staticmethod
    def _confirmed(branches: list[tuple[bytes, ...]], icase: bool, lo: int, hi: int, lines: _Lines, few: bool = False) -> bool:
        """Whether lines lo..hi hold every word of one of ``branches`` (rarest word first). With many
        candidates the rarest word's lines are found once per window and the others looked for in lines lo..hi
        only (a word on every other line, such as 'Warning', is never located line by line); with ``few``
        candidates every word is looked for in lines lo..hi (a rare word would cost a pass over the window)."""
        lo, hi = max(0, lo), min(lines.count - 1, hi)
        span: tuple[bytes, int, int] | None = None
        for words in branches:
            if not few:
                at = _word_lines(words[0], icase, lines)
                i = bisect.bisect_left(at, lo)
                if i == len(at) or at[i] > hi:
                    continue
            if span is None:
                data = _window_data(icase, lines)
                end = data.find(b"\n", lines.start(hi))
                span = (data, lines.start(lo), len(data) if end < 0 else end)
            data, start, end = span
            if all(data.find(word, start, end) >= 0 for word in (words if few else words[1:])):
                return True
        return False

    # ------------------------------------------------------------------ one run of candidate lines

    def _scan_run(self, idxs: list[int], run: list[int], win: _Window, outs: Outs) -> None:
        """The group's full regex over one run of its candidate lines, then context and the matches. The search
        is charged to the group's first signature; one that times out (its budget spent) or errs is dropped
        and the next searches with its own budget, as each did when it was searched on its own."""
        if self._nothing_to_give(idxs, run, win):
            return
        stream = win.norm(run[0])[1]
        got = None
        while idxs and got is None:
            got = self._search_run(idxs[0], run, stream, win)
            if got is None:
                idxs = idxs[1:]
        if got is None:
            return
        found, keep, texts = got
        if not found:
            for i in idxs:
                if win.near_miss(i):
                    sig = self.sigs[i]
                    lits = ", ".join(sig.prefilter[:2]) or "derived"
                    reason = f"a line holds its literal ({lits}) but the full pattern did not match"
                    outs.setdefault(i, []).append((None, Miss(sig, win.source, win.first_line + run[0], reason)))
            return
        self._matches(idxs, found, (_around(win, stream, keep, texts), self._is_local(idxs[0]), stream), win, outs)

    def vocabulary(self) -> tuple[str, ...]:
        """The dictionary present.py tells a word cut by a hard wrap from two words by (present._makes_literal):
        the prefilter's literals (lower case), and the mixed-case identifiers the signatures' messages require
        (their Confirm words: 'CudnnRNN', 'OpKernel', 'RuntimeError'), whose cut between a lower-case and an
        upper-case letter present._identifier_cut declines; so a literal made more specific (a signature's
        'CudnnRNN' became the literals of its messages) takes no word out of it. Made on first use."""
        if self._vocabulary is None:
            words = dict.fromkeys(self.prefilter.literals)
            for idx in sorted(set(self._rep)):
                conf = self._confirm_of(idx)
                for branch in conf.branches if conf is not None and not conf.icase else ():
                    for word in branch:
                        text = word.decode("utf-8", "replace")
                        if _MIXED_CASE.search(text):
                            words.setdefault(text.lower())
            self._vocabulary = tuple(words)
        return self._vocabulary

    def _nothing_to_give(self, idxs: list[int], run: list[int], win: _Window) -> bool:
        """Whether no signature of a line-local group can give anything at a run: each has reported all its near
        misses and a check of its context would rule any match there out. Each context needs evidence nearby
        (``require_any``): ruled out where no item of it (excluded, required or supporting) matches in the lines
        its check could reach (those with a literal of an item, lines_with; of those, the lines where an item
        matches at all, _relevant: the lines _decide_once decides on, or more); or, for a one-line run and a
        reach that is each signature's own, where an item it excludes matches on one of those lines of the
        run's stream. The causes behind a warning repeated 10,000 times, each without its evidence (or
        excluded by the warning's own line), then cost no search, match or context check each. A skipped
        search charges no CPU time to the signatures' budgets: a regex that would time out at such a run is
        not disabled (nor warned about) for it."""
        req = self._requiring.get(tuple(idxs), _UNSET)
        if req is _UNSET:
            req = self._requiring[tuple(idxs)] = self._requirements(idxs)
        if req is None or win.lines.memo.get("scanned") is None:
            return False
        ids, contexts = req  # type: ignore[misc]
        if not ids <= win.spent:
            return False
        lines_with, pattern = self.evidence.lines_with, self.evidence.pattern
        stream = win.norm(run[0])[1]
        for items, exclude, before, after, exact in contexts:
            only = lines_with(items, win.lines, run[0] - before, run[-1] + after)
            if only is None:
                return False
            try:
                there = self._evidence_lines(items, only, stream, win)
                if not there:
                    continue  # no evidence it requires
                if exact and len(run) == 1 and any(pattern(item).search(text, timeout=MATCH_TIMEOUT_S) for item in exclude for text in there):
                    continue  # excluded
            except TimeoutError:
                return False
            return False
        return True

    def _requirements(self, idxs: list[int]) -> tuple[frozenset[int], tuple[tuple[tuple[str, ...], tuple[str, ...], int, int, bool], ...]] | None:
        """What _nothing_to_give needs of a group of line-local signatures: their indexes, and for each of their
        contexts its items (excluded, required and supporting: their literals' lines hold any line a check could
        look at), the items it excludes whatever the match (NON_RNN depends on the match's text), how far
        before and after a run its checks may reach, and whether that reach is each signature's own (exact);
        None where the group's matches may span lines, a signature needs no evidence, or its items have no
        literals to look for."""
        if not self._is_local(idxs[0]):
            # a match that may span lines may be found again from the next window, which sees lines this one
            # does not: the ruled-out match this window records (Matcher._matches: ``seen``) keeps it from
            # being reported there, so such a group is always searched
            return None
        contexts: dict[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], tuple[str, ...], int, int, bool]] = {}
        for idx in idxs:
            ctx = self.sigs[idx].context
            items = (*ctx.exclude_any, *ctx.require_any, *ctx.support_any)
            if not ctx.require_any or self.evidence.literals(items) is None:
                return None
            reach = (ctx.lines_before, ctx.lines_after)
            exact = True
            # by each item's role: the same items excluded by one signature may be required by another
            key = (ctx.exclude_any, ctx.require_any, ctx.support_any)
            had = contexts.get(key)
            if had is not None:  # another signature with this context: exact only where both reach as far
                exact = had[4] and reach == had[2:4]
                reach = (max(reach[0], had[2]), max(reach[1], had[3]))
            contexts[key] = (items, tuple(e for e in ctx.exclude_any if e != NON_RNN), *reach, exact)
        return frozenset(idxs), tuple(contexts.values())

    def _search_run(self, idx: int, run: list[int], stream: str, win: _Window) -> tuple[list[Found], Sequence[int], Sequence[str]] | None:
        """Signature ``idx``'s regex over a run: (matches, lines kept, their texts), or None when it timed out or
        erred (then it is disabled, with a warning)."""
        sig = self.sigs[idx]
        local = self._is_local(idx)
        # groups with one regex and window but other candidate lines search a shared run once too
        key = ("run", sig.regex, sig.flags, 0 if local else sig.window_before, 0 if local else sig.window_after, *run)
        memo = win.lines.memo
        try:
            got = memo.get(key)  # data only: a closure over the window kept in its own memo would be a cycle
            if got is None:
                pattern = compile_pattern(sig.regex, sig.flags)
                if local:
                    got = memo[key] = self._search_lines(pattern, idx, run, stream, win)
                else:
                    got = memo[key] = self._search_window(pattern, sig, idx, run, stream, win)
            return got  # type: ignore[no-any-return]
        except TimeoutError:
            self.disabled[sig.id] = "regex timed out"
            self.warnings.append(
                f"signature {sig.id} skipped for the rest of this run: its regex took longer than its {self.budget:g}s "
                f"budget ({sig.path}; catastrophic backtracking? `cudnn-doctor validate` checks for it)"
            )
        except regex_error() as exc:
            self.disabled[sig.id] = "regex error"
            self.warnings.append(f"signature {sig.id} skipped: {exc}")
        return None

    def _timeout(self, idx: int) -> Callable[[], float]:
        spent = self.spent

        def timeout() -> float:  # one search: the per-search timeout, never past the signature's budget
            left = self.budget - spent.get(idx, 0.0)
            if left <= 0:
                raise TimeoutError
            return min(self.timeout, left)

        return timeout

    def _search_lines(
        self, pattern: Any, idx: int, run: list[int], stream: str, win: _Window
    ) -> tuple[list[Found], Sequence[int], Sequence[str]]:
        """A line-local regex: no match can leave its line, so only the candidate lines need the full regex, and
        the lines around are normalized only for the context of an actual match (an error repeated 10,000 times
        costs 10,000 short searches, not 10,000 windows)."""
        found: list[Found] = []
        spent, timeout, norm = self.spent, self._timeout(idx), win.norm
        index = win.lines
        memo = index.memo
        searched = self._searched
        for li in run:
            got = memo.get((pattern, li))  # signatures sharing a pattern search a line once
            if got is None:
                text = norm(li)[0]
                key = (pattern, text)
                got = searched.get(key)  # the same line seen in an earlier window (a repeated warning)
                if got is None:
                    started = time.thread_time()
                    try:
                        got = list(pattern.finditer(text, timeout=timeout()))
                    finally:  # only the regex's own time is charged to the signature's budget
                        spent[idx] = spent.get(idx, 0.0) + time.thread_time() - started
                    if len(text) <= MEMO_TEXT:
                        _remember(searched, key, got, SEARCHED_MEMO)
                memo[(pattern, li)] = got
            found += ((m, li, li, m.start()) for m in got)
        return found, (), ()

    def _search_window(
        self, pattern: Any, sig: Signature, idx: int, run: list[int], stream: str, win: _Window
    ) -> tuple[list[Found], Sequence[int], Sequence[str]]:
        """A regex that may span lines: the region it may span (the run plus the signature's window) is
        normalized and joined; the context lines around it only for an actual match (a literal on every other
        line of a dense log would otherwise normalize each line lines_before + lines_after times over)."""
        found: list[Found] = []
        norm, index = win.norm, win.lines
        lo = max(0, run[0] - sig.window_before)
        hi = min(index.count - 1, run[-1] + sig.window_after)
        keep = [li for li in range(lo, hi + 1) if not stream or norm(li)[1] == stream]
        texts = [norm(li)[0] for li in keep]
        # the region the regex may span: the run plus the signature's window
        r_lo = bisect.bisect_left(keep, run[0] - sig.window_before)
        r_hi = bisect.bisect_right(keep, run[-1] + sig.window_after)
        offsets = [0]
        for t in texts:
            offsets.append(offsets[-1] + len(t) + 1)
        joined = "\n".join(texts)
        timeout = self._timeout(idx)
        started = time.thread_time()
        try:
            for m in pattern.finditer(joined, offsets[r_lo], max(offsets[r_lo], offsets[r_hi] - 1), timeout=timeout()):
                s_i = bisect.bisect_right(offsets, m.start()) - 1
                e_i = bisect.bisect_right(offsets, max(m.start(), m.end() - 1)) - 1
                found.append((m, keep[s_i], keep[e_i], m.start() - offsets[s_i]))
        finally:
            self.spent[idx] = self.spent.get(idx, 0.0) + time.thread_time() - started
        return found, keep, texts

    def _matches(
        self, idxs: list[int], found: list[Found], how: tuple[Callable[[int, int], list[str]], bool, str], win: _Window, outs: Outs
    ) -> None:
        """The RawMatch of each new match that passes its context check, for each signature of the group; a near
        miss for those that do not. What a match gives every signature (its text, captures, the lines before
        it, a context's decision) is made once, and the signatures that share a context are taken together:
        those a context rules out cost a set lookup each (a base of variants of one message has dozens)."""
        around, _local, stream = how
        seen, first_line, source, norm, index = win.seen, win.first_line, win.source, win.norm, win.lines
        framed = self._framed.setdefault(source, set())
        plan = self._plan(idxs)
        for hit in found:
            m, li_s, li_e, col = hit
            abs_line = first_line + li_s
            had = seen.get((abs_line, col))
            if had is None:
                had = seen[(abs_line, col)] = set()
            befores: dict[int, Sequence[str]] = {}
            text: str | None = None
            captures: dict[str, Any] = {}
            line_stream = ""
            for ctx_key, members, ids in plan:
                new = _new_members(had, members, ids)
                if not new:
                    continue
                evidence: Sequence[str] = ()
                supported = False
                if ctx_key is not None:
                    checked = self._context(new[0][1], hit, around, stream, win)
                    if isinstance(checked, str):
                        if checked:
                            _ruled_out(new, ids if new is members else None, checked, abs_line, win, outs)
                        continue
                    evidence, supported = checked
                if text is None:
                    text = m.group(0)
                    if len(text) > MAX_MATCH_TEXT:
                        text = text[:MAX_MATCH_TEXT] + "..."
                    captures = m.groupdict()
                    line_stream = norm(li_s)[1]
                for idx, sig in new:
                    # the lines up to the match: the first match per signature and source gets TRACEBACK_LINES of
                    # them (its traceback's user frame); later ones (an error repeated 10,000 times) only the few
                    # that rank.cluster looks at for a new traceback
                    lo = li_s - (SHORT_BEFORE if idx in framed else TRACEBACK_LINES)
                    framed.add(idx)
                    before = befores.get(lo)
                    if before is None:
                        before = befores[lo] = self._before(lo, li_e, how, index)
                    # positional: sig, source, line, end_line, text, captures, stream, evidence, supported, before
                    match = RawMatch(sig, source, abs_line, first_line + li_e, text, dict(captures), line_stream, list(evidence), supported, before)
                    outs.setdefault(idx, []).append((match, None))

    @staticmethod
    def _before(lo: int, li_e: int, how: tuple[Callable[[int, int], list[str]], bool, str], index: _Lines) -> Sequence[str]:
        """The lines lo..li_e of the match's stream, for RawMatch.before."""
        around, local, stream = how
        if not local:
            return around(lo, li_e)
        # shared by the signatures that match the same line (one LazyLines, normalized once)
        key = ("before", lo, li_e, stream)
        got = index.memo.get(key)
        if got is None:
            got = index.memo[key] = LazyLines(index.raw_lines(lo, li_e), stream)
        return got  # type: ignore[no-any-return]

    def _plan(self, idxs: list[int]) -> list[tuple[int | None, list[tuple[int, Signature]], frozenset[int]]]:
        """The signatures of a group by context (its key, the signatures in index order, their indexes), the
        contexts in the order of their first signature, made once per group. Each signature's matches and misses
        are its own, so the order the signatures are taken in changes nothing but which one a shared check is
        charged to (its first)."""
        key = tuple(idxs)
        got = self._plans.get(key)
        if got is None:
            by_context: dict[int | None, list[tuple[int, Signature]]] = {}
            for idx in idxs:
                by_context.setdefault(self._context_key(idx), []).append((idx, self.sigs[idx]))
            got = [(ctx_key, members, frozenset(idx for idx, _ in members)) for ctx_key, members in by_context.items()]
            _remember(self._plans, key, got, DECIDED_MEMO)
        return got

    def _context_key(self, idx: int) -> int | None:
        """What signature ``idx``'s context decision depends on besides the match, as a number equal for equal
        contexts (None: it has no context)."""
        got = self._context_keys.get(idx, _UNSET)
        if got is _UNSET:
            ctx = self.sigs[idx].context
            got = None
            if ctx.exclude_any or ctx.require_any or ctx.support_any:
                key = (ctx.exclude_any, ctx.require_any, ctx.support_any, ctx.lines_before, ctx.lines_after)
                got = self._context_ids.setdefault(key, len(self._context_ids))
            self._context_keys[idx] = got
        return got  # type: ignore[no-any-return]

    def _context(
        self, sig: Signature, hit: Found, around: Callable[[int, int], list[str]], stream: str, win: _Window
    ) -> tuple[list[str], bool] | str:
        """(evidence, supported) of a match whose context passes ``exclude_any`` / ``require_any``; else the
        near-miss reason ('' when there is none to report: the check timed out, with a warning). The evidence
        list is the memo's, shared: a RawMatch gets a copy."""
        m, li_s, li_e, _col = hit
        ctx = sig.context
        index = win.lines
        exclude = ctx.exclude_any
        if NON_RNN in exclude and DIRECT_RNN.search(m.group(0)):
            # the matched text itself names a cuDNN RNN call or op: a convolution nearby
            # (a CRNN) does not make it a convolution error
            exclude = tuple(e for e in exclude if e != NON_RNN)
        # the decision depends on the context and the lines only: signatures that share a context (the same
        # @rnn / @non_rnn sets, or variants of one message) decide once per match span
        key = ("decision", exclude, ctx.require_any, ctx.support_any, ctx.lines_before, ctx.lines_after, li_s, li_e, stream)
        got = index.memo.get(key)
        if got is None:
            got = self._decide_once(sig, exclude, (li_s, li_e), stream, win)
            if got is None:
                got = self._decide(sig, exclude, (li_s, li_e), around, stream, win)
            index.memo[key] = got
        return got

    def _decide_once(
        self, sig: Signature, exclude: tuple[str, ...], span: tuple[int, int], stream: str, win: _Window
    ) -> tuple[list[str], bool] | str | None:
        """_decide, remembered across windows by what it depends on. Where every item of the context has a
        literal on the line of each of its matches (_Evidence.literals), an item's first match in the context
        is its first match in the lines that hold one of those literals (lines_with: found in the raw bytes),
        and among those, in the lines where an item matches at all (_relevant). So the context's items and
        those normalized lines decide it: a warning repeated 10,000 times, each with its own 100 lines of noise
        around it, is decided once per context instead of once per occurrence. None: not so (the items), or a
        search timed out; _decide then looks at the lines itself."""
        if win.lines.memo.get("scanned") is None:  # no clean pieces (a paste, or no hyperscan): _decide's path
            return None
        ctx = sig.context
        items = (*exclude, *ctx.require_any, *ctx.support_any)
        if not items or self.evidence.literals(items) is None:
            return None
        li_s, li_e = span
        only = self.evidence.lines_with(items, win.lines, li_s - ctx.lines_before, li_e + ctx.lines_after)
        try:
            parts = self._evidence_lines(items, only or (), stream, win)
        except TimeoutError:
            return None
        key = (exclude, ctx.require_any, ctx.support_any, parts)
        got = self._decided.get(key)
        if got is None:
            text = "\n".join(parts)
            got = self._verdict(sig, exclude, text, win.lines.memo)
            # '': the check timed out (a warning said so); not remembered, nor a key too big to keep
            if got != "" and len(text) <= MEMO_TEXT:
                _remember(self._decided, key, got, DECIDED_MEMO)
        return got

    def _evidence_lines(self, items: tuple[str, ...], only: Sequence[int], stream: str, win: _Window) -> tuple[str, ...]:
        """The normalized texts of the lines ``only`` (lines_with's) of the match's stream where an item of
        ``items`` matches at all: what a context's check decides on (raises TimeoutError)."""
        norm, relevant = win.norm, self._relevant
        return tuple(text for text, line_stream in map(norm, only) if (not stream or line_stream == stream) and relevant(items, text))

    def _relevant(self, items: tuple[str, ...], text: str) -> bool:
        """Whether an item of ``items`` matches in ``text`` (one line), remembered by text across windows: the
        same noise line around each occurrence of a repeated warning is searched once."""
        key = (items, text)
        got = self._relevant_memo.get(key)
        if got is None:
            combined = self.evidence.any_pattern(items)
            if combined is not None:
                got = combined.search(text, timeout=MATCH_TIMEOUT_S) is not None
            else:
                got = any(self.evidence.pattern(item).search(text, timeout=MATCH_TIMEOUT_S) for item in items)
            if len(text) <= MEMO_TEXT:
                _remember(self._relevant_memo, key, got, DECIDED_MEMO)
        return got

    def _decide(
        self, sig: Signature, exclude: tuple[str, ...], span: tuple[int, int], around: Callable[[int, int], list[str]], stream: str, win: _Window
    ) -> tuple[list[str], bool] | str:
        """_context's decision for one match span."""
        li_s, li_e = span
        ctx = sig.context
        index = win.lines
        c_lo, c_hi = li_s - ctx.lines_before, li_e + ctx.lines_after
        # which groups can match at all there (their literals in the raw lines): one that cannot needs no
        # normalized context (an error repeated 10,000 times without its cause's evidence nearby)
        absent = self._group_absent
        no_exclude = not exclude or absent(exclude, index, c_lo, c_hi)
        no_require = bool(ctx.require_any) and absent(ctx.require_any, index, c_lo, c_hi)
        no_support = not ctx.support_any or absent(ctx.support_any, index, c_lo, c_hi)
        if no_exclude and (no_require or (not ctx.require_any and no_support)):
            only: list[int] | None = []
        else:
            only = None if stream else self.evidence.lines_with((*exclude, *ctx.require_any, *ctx.support_any), index, c_lo, c_hi)
        if only is None:
            context_text = "\n".join(around(c_lo, c_hi))
        elif not only:
            context_text = ""
        else:
            text_key = ("context", *only)
            got = index.memo.get(text_key)
            if got is None:
                got = index.memo[text_key] = "\n".join(win.norm(li)[0] for li in only)
            context_text = got
        return self._verdict(sig, exclude, context_text, index.memo)

    def _verdict(self, sig: Signature, exclude: tuple[str, ...], context_text: str, memo: dict[Any, Any]) -> tuple[list[str], bool] | str:
        """(evidence, supported), or the near-miss reason, from the context's items' first matches in
        ``context_text``."""
        ctx = sig.context
        evidence: list[str] = []
        find = self.evidence.find
        try:
            if exclude:
                bad = find(exclude, context_text, memo)
                if bad is not None:
                    return f"matched, but excluded by context {bad!r} nearby"
            if ctx.require_any:
                good = find(ctx.require_any, context_text, memo)
                if good is None:
                    return f"matched, but no required evidence ({', '.join(ctx.require_any)}) within the lines around it"
                evidence.append(good)
            extra = find(ctx.support_any, context_text, memo) if ctx.support_any else None
        except TimeoutError:
            self.warnings.append(f"signature {sig.id}: context check timed out; skipped")
            return ""
        if extra is not None:
            evidence.append(extra)
        return evidence, extra is not None

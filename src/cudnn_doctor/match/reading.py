"""Reading one source: presentations undone before matching, the tolerant reading after it, line numbers
mapped back to the original input. Sits between the reader's blocks and the matcher (match/), so that every
path (one process, the parallel scan of a big file, the library) reads a log the same way.

* Each block goes through ``present.present``: a block without a presentation is passed on as it is (the cost
  is the detection: a few literal searches); a rewritten block carries an origin map, and the matcher's line
  numbers (matches, near misses, the environment probes' ``file:line``) are mapped back through it
  (read/linemap.py).
* After each block, where no regex matched, the text is read tolerantly (tolerant.py: message templates and
  raising frames): all of a pasted-size input; in a big log, the lines around its near misses and its last
  lines. A paste's block where nothing at all was found is then read for the errors its prose describes
  (prose.py, the weakest tier).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from ..read.linemap import LineMap, merged, rechunk
from ..read.present import present
from ..read.skim import Skim
from ..read.sources import Block
from .lines import Lines
from .matcher import Matcher, Yielded
from .results import Miss, RawMatch

SKIM_MARGIN = 64  # lines a reading may look at beyond the matcher's context (scan.MARGIN_LINES: rechunk's 20, slack)
SMALL_INPUT = 256 << 10  # a paste: all of it is read tolerantly
AROUND = 3  # lines around a big log's near miss read tolerantly
TAIL_LINES = 30  # a big log's last lines read tolerantly,
TAIL_BYTES = 32 << 10  # those in its last 32 KiB: a longer line is read from its end (where a killed job's message is cut)


@dataclass
class _Seen:
    """A block presented to the matcher, kept until its end comes (its tolerant reading reads its lines)."""

    block: Block
    first: int  # presented absolute line of its first line
    small: bool

    @cached_property
    def lines(self) -> Lines:
        return Lines(self.block.data, self.block.lines)


class Reader:
    """Scans one source's blocks with a matcher: presentations undone, the tolerant reading where no regex
    matched, lines mapped back."""

    def __init__(self, matcher: Matcher, tail: bool = True) -> None:
        self.matcher = matcher
        self.tail = tail  # read the source's last lines tolerantly (False: a parallel worker whose range ends before the file's end)
        self.tolerant = matcher.tolerant()

    def scan(self, blocks: Iterable[Block], source: str) -> Yielded:
        lmap = LineMap()
        pending: list[_Seen] = []  # the blocks presented whose end has not come yet, oldest first
        state = {"done": False, "bytes": 0, "first": 1}  # (``first``: the next block's first line as presented)
        literals, skim = _Vocabulary(self.matcher), Skim(self.matcher, TAIL_LINES, SKIM_MARGIN)

        def presented() -> Iterator[Block]:
            for b in rechunk(blocks):
                state["bytes"] += len(b.data)
                small = state["bytes"] <= SMALL_INPUT  # a paste: all of it is read tolerantly, never skimmed
                got = present(b.data, literals, paste=small, lines=b.lines, skim=None if small else skim)
                lmap.add(b.lines if got is None else got.lines, b.lines, None if got is None else got.origin)
                out = b if got is None else Block(got.data, got.lines)
                lmap.undone.update(got.undone if got is not None else ())
                pending.append(_Seen(out, state["first"], small))
                state["first"] += out.lines
                yield out
            state["done"] = True

        probes = self.matcher.probes
        # each probe given original line numbers; what it answers (False, RETIRE) goes back to the matcher, which skips
        # lines of a shape a probe declined and stops calling a retired one
        self.matcher.probes = [replace(p, handle=lambda text, line, handle=p.handle: handle(text, lmap.line(line))) for p in probes]
        try:
            yield from self._scan(self.matcher.scan_blocks(presented(), source), pending, state, lmap, source)
        finally:
            self.matcher.probes = probes

    def _scan(self, found: Yielded, pending: list[_Seen], state: dict[str, Any], lmap: LineMap, source: str) -> Yielded:
        """The matcher's matches and near misses, mapped back; after each block, its tolerant reading."""
        exact: list[tuple[int, int, str]] = []  # the block's matches: their lines as presented, signature
        missed: list[tuple[int, str]] = []  # the block's near misses: their lines as presented, signature
        for m, miss in found:
            if m is not None:
                exact.append((m.line, m.end_line, m.sig.id))
            elif miss is not None:
                missed.append((miss.line, miss.sig.id))
            else:  # a block ended: read it tolerantly where no regex matched, then pass the end on
                # (the matcher reads one block ahead: the block that ended is the oldest whose end had not come)
                block = pending.pop(0)
                last = self.tail and state["done"] and not pending
                for got in self._tolerant(block, exact, missed, last):
                    yield _placed(got, source, lmap, block.first)
                # a match the block's window found on the next block's lines (its head: a message a regex reached
                # from a line of this block) is that block's too: its tolerant reading must not find it again
                exact, missed = [e for e in exact if e[1] >= block.first + block.block.lines], []
                yield None, None
                continue
            yield _placed(m or miss, source, lmap)

    def _tolerant(self, block: _Seen, exact: list[tuple[int, int, str]], missed: list[tuple[int, str]], last: bool) -> Iterator[RawMatch | Miss]:
        """The tolerant reading of a block (all of a paste; a big log's lines around its near misses and its
        last lines), where no regex matched (Tolerant.read_region); in a paste's block where nothing at all was
        found (no regex, ``exact``, no tolerant reading), the errors its prose describes too."""
        missed = [(li - block.first, sig_id) for li, sig_id in missed]  # (their lines in the block from here on)
        regions, cut = _regions(block, missed, last)
        if not regions:
            return  # most blocks of a big log: not split into lines at all
        lines = block.lines
        if cut is not None and (cut[0], len(lines) - 1) in regions:  # (merged with a near miss's lines: read whole)
            lines.read_as(*cut)  # (the source's last block: nothing reads its lines after this)
        taken: dict[int, set[str]] = {}  # the lines a regex matched: the signatures it matched there
        near: dict[str, list[int]] = {}  # each signature's exact matches, by their first line
        for start, end, sig_id in exact:
            near.setdefault(sig_id, []).append(start - block.first)
            for li in range(start - block.first, end - block.first + 1):
                taken.setdefault(li, set()).add(sig_id)
        for lo, hi in regions:  # (a paste's block is one region)
            yield from self.tolerant.read_region(lines, lo, hi, taken, near, missed, describe=block.small and not exact)


def _regions(block: _Seen, missed: list[tuple[int, str]], last: bool) -> tuple[list[tuple[int, int]], tuple[int, str] | None]:
    """The line ranges of a block read tolerantly: all of a paste; around a big log's near misses (``missed``:
    their lines in the block, signature), and where it is the source's ``last`` block its last lines
    (``_tail``); with the tail's first line and its text where the tail's bound cuts it (else None)."""
    n = block.block.lines
    if block.small:
        return ([(0, n - 1)] if n else []), None
    spans = [(max(0, li - AROUND), min(n - 1, li + AROUND)) for li, _id in missed if 0 <= li < n]
    tail, cut = _tail(block) if last else (None, None)
    if tail is not None:
        spans.append((tail, n - 1))
    return merged(spans), None if cut is None else (tail, cut)


def _tail(block: _Seen) -> tuple[int, str | None]:
    """The first line of a big log's tail read tolerantly (of its last TAIL_LINES lines, those that end in its
    last TAIL_BYTES), and that line's text where the bound cuts it: its end, from a space on (else None)."""
    lines = block.lines
    n, end = len(lines), len(lines.data)
    for li in range(n - 1, max(0, n - TAIL_LINES) - 1, -1):
        if end - lines.start(li) > TAIL_BYTES:
            after = end - lines.start(li + 1) + 1 if li + 1 < n else 0  # the bytes of the lines after it
            text = lines[li]
            keep = text[max(0, len(text) - TAIL_BYTES + after) :]
            return li, keep[keep.find(" ") + 1 :] if " " in keep else keep
    return max(0, n - TAIL_LINES), None


def _placed(got: RawMatch | Miss, source: str, lmap: LineMap, first: int = 0) -> tuple[RawMatch | None, Miss | None]:
    """A finding placed in the source, its lines mapped back: the matcher's (its lines as presented), or the
    tolerant reading's (relative to its block's ``first`` line)."""
    got.source = source
    if isinstance(got, Miss):
        got.line = lmap.line(first + got.line)
        return None, got
    got.line, got.end_line = lmap.span(first + got.line, first + got.end_line)
    return got, None


class _Vocabulary(Collection[str]):
    """Matcher.vocabulary, made when present.py first reads it: only a block with one wrapped line does."""

    def __init__(self, matcher: Matcher) -> None:
        self._matcher = matcher

    @cached_property
    def words(self) -> tuple[str, ...]:
        return self._matcher.vocabulary()

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.words


"""Reading one source: presentations undone before matching, the tolerant reading after it, line numbers
mapped back to the original input. Sits between the reader's blocks and the matcher (match/), so that every
path (one process, the parallel scan of a big file, the library) reads a log the same way.

* Each block goes through ``present.present``: a block without a presentation is passed on as it is (the cost
  is the detection: a few literal searches); a rewritten block carries an origin map, and the matcher's line
  numbers (matches, near misses, the environment probes' ``file:line``) are mapped back through it.
* After each block, where no regex matched, the text is read tolerantly (tolerant.py: message templates and
  raising frames): all of a pasted-size input; in a big log, the lines around its near misses and its last
  lines. A reading becomes a match marked ``cut`` (lower confidence); one that several messages could be
  becomes near misses that name them.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..fieldmethods import FieldEq
from ..model import Signature
from ..read.normalize import normalize_line
from ..read.present import present
from ..read.sources import Block, Marks
from .context import Evidence
from .matcher import Matcher
from .results import Miss, RawMatch
from .tolerant import Reading, Tolerant, root

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SMALL_INPUT = 256 << 10  # a paste: all of it is read tolerantly


@dataclass(slots=True, repr=False, eq=False)
class _Segment(FieldEq):
    """One block's lines as the matcher saw them (presentation undone) against the original's lines."""

    new_first: int  # absolute line (1-based) of the block's first line as the matcher sees it
    orig_first: int  # the same in the original input
    count: int  # lines as the matcher sees them
    orig_count: int
    origin: tuple[int, ...] | None  # per presented line, its original line offset in the block; None: same


@dataclass(slots=True, repr=False, eq=False)
class LineMap(FieldEq):
    """Presented line numbers -> original ones, for the blocks of one source."""

    segments: list[_Segment] = field(default_factory=list)
    undone: set[str] = field(default_factory=set)
    _spans: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)  # span()'s, until a block is added

    def add(self, count: int, orig_count: int, origin: tuple[int, ...] | None) -> None:
        self._spans.clear()
        last = self.segments[-1] if self.segments else None
        new_first = last.new_first + last.count if last else 1
        orig_first = last.orig_first + last.orig_count if last else 1
        if last is not None and last.origin is None and origin is None:
            last.count += count
            last.orig_count += orig_count
            return
        self.segments.append(_Segment(new_first, orig_first, count, orig_count, origin))
        if len(self.segments) > 64:  # matches only look back a few blocks
            del self.segments[:16]

    def _find(self, line: int) -> _Segment | None:
        segs = self.segments
        if segs and segs[-1].new_first <= line:  # nearly always: probes and matches are in the newest block
            return segs[-1]
        firsts = [s.new_first for s in segs]
        i = bisect.bisect_right(firsts, line) - 1
        return self.segments[i] if i >= 0 else None

    def line(self, line: int) -> int:
        seg = self._find(line)
        if seg is None or seg.origin is None:
            return line if seg is None else seg.orig_first + (line - seg.new_first)
        off = min(max(0, line - seg.new_first), len(seg.origin) - 1)
        return seg.orig_first + seg.origin[off]

    def span(self, line: int, end_line: int) -> tuple[int, int]:
        """(line(line), end_line(end_line)), each span mapped once per block: every signature that matched a
        line has a match there (a base of variants of one message: dozens)."""
        got = self._spans.get((line, end_line))
        if got is None:
            got = self._spans[(line, end_line)] = (self.line(line), self.end_line(end_line))
        return got

    def end_line(self, line: int) -> int:
        """The last original line of a presented line (a joined line ends where its last piece does)."""
        seg = self._find(line)
        if seg is None or seg.origin is None:
            return self.line(line)
        off = min(max(0, line - seg.new_first), len(seg.origin) - 1)
        nxt = seg.origin[off + 1] - 1 if off + 1 < len(seg.origin) else seg.orig_count - 1
        return seg.orig_first + max(seg.origin[off], nxt)


@dataclass(slots=True, repr=False, eq=False)
class _Seen(FieldEq):
    """A block already read, kept for the matches that need the lines around them."""

    block: Block
    first: int  # presented absolute line of its first line
    small: bool
    index: int  # the how-manieth block of the source
    texts: _Texts | None = None

    def lines(self) -> _Texts:
        if self.texts is None:
            self.texts = _Texts(self.block.data.split(b"\n"))
        return self.texts


class _Texts(Sequence[str]):
    """A block's lines, each decoded and normalized when first read (a near miss in a 1 MiB block of a big
    log looks at 50 lines, not 20,000)."""

    def __init__(self, raw: list[bytes]) -> None:
        self._raw = raw
        self._done: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._raw)

    def _one(self, i: int) -> str:
        got = self._done.get(i)
        if got is None:
            got = self._done[i] = normalize_line(self._raw[i].decode("utf-8", "replace"))[0]
        return got

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._one(k) for k in range(*i.indices(len(self._raw)))]
        return self._one(i if i >= 0 else len(self._raw) + i)


class Reader:
    """Scans one source's blocks with a matcher: presentations undone, the tolerant reading where no regex
    matched, lines mapped back."""

    def __init__(self, matcher: Matcher) -> None:
        self.matcher = matcher
        self.tolerant = tolerant_reader(tuple(matcher.sigs), matcher.evidence)

    def scan(self, blocks: Iterable[Block], source: str) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        lmap = LineMap()
        seen: list[_Seen] = []
        state = {"done": False, "bytes": 0, "n": 0}

        def presented() -> Iterator[Block]:
            for b in _rechunk(blocks):
                state["bytes"] += len(b.data)
                got = present(b.data, literals)
                first = seen[-1].first + seen[-1].block.lines if seen else 1
                if got is None:
                    lmap.add(b.lines, b.lines, None)
                    out = b
                else:
                    lmap.add(got.lines, b.lines, got.origin)
                    lmap.undone.update(got.undone)
                    out = Block(got.data, got.lines)
                seen.append(_Seen(out, first, state["bytes"] <= SMALL_INPUT, state["n"]))
                state["n"] += 1
                if len(seen) > 3:
                    del seen[0]
                yield out
            state["done"] = True

        matcher = self.matcher
        literals = _Vocabulary(matcher)
        probes = matcher.probes
        matcher.probes = [dataclasses.replace(p, handle=_mapped(p.handle, lmap)) for p in probes]
        found: list[tuple[int, int, str]] = []  # the block's matches' lines, as presented, and signatures
        missed: list[int] = []
        index = 0
        try:
            for m, miss in matcher.scan_blocks(presented(), source):
                if m is not None:
                    found.append((m.line, m.end_line, m.sig.id))
                    m.line, m.end_line = lmap.span(m.line, m.end_line)
                    yield m, None
                elif miss is not None:
                    missed.append(miss.line)
                    miss.line = lmap.line(miss.line)
                    yield None, miss
                else:  # a block ended: read it tolerantly where no regex matched, then pass the end on
                    block = next((s for s in seen if s.index == index), None)
                    if block is not None:
                        last = state["done"] and block is seen[-1]
                        for got in self._tolerant(block, source, found, missed, last):
                            _map_back(got, lmap)
                            yield got
                    index += 1
                    found, missed = [], []
                    yield None, None
        finally:
            matcher.probes = probes

    def _tolerant(self, block: _Seen, source: str, found: list[tuple[int, int, str]], missed: list[int], last: bool) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        """The tolerant reading of a block (all of a paste; a big log's lines around its near misses and its
        last lines), where no regex matched."""
        lines = block.lines()
        exact = {li - block.first for start, end, _ in found for li in range(start, end + 1)}
        near: dict[str, list[int]] = {}  # each signature's exact matches, by their first line
        for start, _end, sig_id in found:
            near.setdefault(sig_id, []).append(start - block.first)
        for lo, hi in _regions(block, len(lines), missed, last):
            part = lines[lo : hi + 1]
            text = "\n".join(part)
            read_lines: set[int] = set()
            for r in self.tolerant.read(text):
                li_s, li_e = lo + text.count("\n", 0, r.start), lo + text.count("\n", 0, r.end)
                if all(li in exact for li in range(li_s, li_e + 1)) or _matched_near(r, near, li_s, li_e):
                    continue  # a regex matched there, or the message itself follows (a source line shown)
                read_lines.update(range(li_s, li_e + 1))
                yield from _yield(r, block, li_s, li_e, source)
            yield from self._frames(block, lo, part, exact | read_lines, source)

    def _frames(self, block: _Seen, lo: int, part: list[str], taken: set[int], source: str) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        """Tracebacks whose innermost frame is where a signature raises and whose message is not there."""
        for li, sigs, frame in self.tolerant.raised(part):
            at = lo + li
            if any(li2 in taken for li2 in range(at, at + MAX_FRAME_AFTER)):
                continue
            r = Reading(sigs, 0, len(frame), frame, None)
            if len({root(s) for s in sigs}) > 1:
                r.others = [s.id for s in sigs]
            yield from _yield(r, block, at, at, source)


MAX_FRAME_AFTER = 8  # lines after a raising frame where its message would be
AROUND = 3  # lines around a big log's near miss read tolerantly
TAIL_LINES = 30  # a big log's last lines read tolerantly


def _matched_near(r: Reading, near: dict[str, list[int]], li_s: int, li_e: int) -> bool:
    """Whether one of the reading's signatures matched exactly within a traceback's reach of it (the source
    line a traceback shows, with the message's format string, before the message itself)."""
    return any(li_s - MAX_FRAME_AFTER <= li <= li_e + MAX_FRAME_AFTER for sig in r.sigs for li in near.get(sig.id, ()))


def _regions(block: _Seen, n: int, missed: list[int], last: bool) -> list[tuple[int, int]]:
    """The line ranges of a block read tolerantly: all of a paste; around a big log's near misses, and its
    last lines."""
    if block.small:
        return [(0, n - 1)] if n else []
    spans = [(max(0, li - block.first - AROUND), min(n - 1, li - block.first + AROUND)) for li in missed if 0 <= li - block.first < n]
    if last:
        spans.append((max(0, n - TAIL_LINES), n - 1))
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def _yield(r: Reading, block: _Seen, li_s: int, li_e: int, source: str) -> Iterator[tuple[RawMatch | None, Miss | None]]:
    """A reading's matches (one message), or its near misses (several)."""
    line = block.first + li_s
    if r.others:
        reason = f"read {r.read[-60:]!r}: it could be any of {', '.join(r.others[:5])}; paste the full message"
        for sig in r.sigs[:4]:
            yield None, Miss(sig, source, line, reason)
        return
    lines = block.lines()
    before = list(lines[max(0, li_s - 60) : li_e + 1])
    stream = normalize_line(block.block.data.split(b"\n", li_s + 1)[li_s].decode("utf-8", "replace"))[1] if li_s < 2000 else ""
    for sig in r.sigs:
        yield RawMatch(sig=sig, source=source, line=line, end_line=block.first + li_e, text=r.read[:4000],
                       captures=dict(r.captures), stream=stream, evidence=list(r.evidence), supported=r.supported,
                       before=before, cut=r.record()), None


def _map_back(got: tuple[RawMatch | None, Miss | None], lmap: LineMap) -> None:
    m, miss = got
    if m is not None:
        m.line, m.end_line = lmap.line(m.line), lmap.end_line(m.end_line)
    if miss is not None:
        miss.line = lmap.line(miss.line)


class _Vocabulary(Collection[str]):
    """Matcher.vocabulary, made when present.py first reads it: only a block with one wrapped line does."""

    __slots__ = ("_matcher", "_words")

    def __init__(self, matcher: Matcher) -> None:
        self._matcher = matcher
        self._words: tuple[str, ...] | None = None

    def _get(self) -> tuple[str, ...]:
        if self._words is None:
            self._words = self._matcher.vocabulary()
        return self._words

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __contains__(self, word: object) -> bool:
        return word in self._get()


@lru_cache(maxsize=4)
def tolerant_reader(sigs: tuple[Signature, ...], evidence: Evidence) -> Tolerant:
    """One reader per set of signatures (its index of template words costs a few ms to build)."""
    return Tolerant(sigs, evidence)


def _rechunk(blocks: Iterable[Block], keep: int = 20, limit: int = 1 << 20) -> Iterator[Block]:
    """The same lines in blocks that do not cut a wrapped line from its continuation: the input's blocks
    (its last line comes alone) are merged while they stay under ``limit``, and otherwise each block's last
    ``keep`` lines go on with the next one.

    The lines held are kept as pieces, joined by newlines, and joined once, when their block is given: a
    block is copied once (slicing it, then prepending the lines it passes on to the next, was two copies of
    every MiB read). The pieces' line marks (input.Marks) go with them."""
    parts: list[bytes] = []  # the held lines: pieces to join with b"\n"
    held: list[tuple[int, Marks | None]] = []  # each piece's lines and marks
    size = lines = 0
    for b in blocks:
        if not parts:
            parts, held, size, lines = [b.data], [(b.lines, b.marks)], len(b.data), b.lines
            continue
        if size + len(b.data) < limit:
            parts.append(b.data)
            held.append((b.lines, b.marks))
            size, lines = size + 1 + len(b.data), lines + b.lines
            continue
        k, off = _last_lines(parts, keep)
        if k < 0:
            yield Block(b"\n".join(parts), lines, _joined_marks(parts, held, len(parts), 0))
            parts, held, size, lines = [b.data], [(b.lines, b.marks)], len(b.data), b.lines
            continue
        rest = [parts[k][off + 1 :], *parts[k + 1 :]] if off < len(parts[k]) else parts[k + 1 :]
        rest_held = [(rest[0].count(b"\n") + 1, None), *held[k + 1 :]] if off < len(parts[k]) else held[k + 1 :]
        yield Block(b"\n".join([*parts[:k], memoryview(parts[k])[:off]]), lines - keep, _joined_marks(parts, held, k, off))
        parts, held = [*rest, b.data], [*rest_held, (b.lines, b.marks)]
        size, lines = sum(map(len, parts)) + len(parts) - 1, keep + b.lines
    if parts:
        yield Block(b"\n".join(parts), lines, _joined_marks(parts, held, len(parts), 0))


def _joined_marks(parts: list[bytes], held: list[tuple[int, Marks | None]], k: int, off: int) -> Marks | None:
    """The marks of ``parts[:k]`` and of ``parts[k][:off]`` joined by newlines (None: none known)."""
    offs: list[int] = []
    lis: list[int] = []
    base = line = 0
    for i, part in enumerate(parts[: k + 1]):
        n, marks = held[i]
        if marks is not None:
            if i < k:
                offs += (o + base for o in marks[0])
                lis += (li + line for li in marks[1])
            else:  # the piece cut at ``off``: its marks before the cut
                for o, li in zip(*marks, strict=True):
                    if o >= off:
                        break
                    offs.append(o + base)
                    lis.append(li + line)
        base += len(part) + 1
        line += n
    return (offs, lis) if offs else None


def _last_lines(parts: list[bytes], keep: int) -> tuple[int, int]:
    """Where the held pieces (joined by newlines) are cut so that ``keep`` whole lines follow: (piece, offset
    of the newline in it; the piece's length for the newline that joins it to the next), or (-1, 0) when
    fewer lines follow the first byte."""
    n = 0
    for k in range(len(parts) - 1, -1, -1):
        part = parts[k]
        pos = len(part)
        if k < len(parts) - 1:  # the newline joining this piece to the next
            n += 1
            if n == keep:
                return (k, pos) if k or pos else (-1, 0)
        while True:
            p = part.rfind(b"\n", 0, pos)
            if p < 0:
                break
            n, pos = n + 1, p
            if n == keep:
                return (k, p) if k or p else (-1, 0)
    return -1, 0


def _mapped(handle: Any, lmap: LineMap) -> Any:
    """``handle`` given original line numbers; what it answers (False, RETIRE) goes back to the matcher, which
    skips lines of a shape a probe declined and stops calling a retired one."""

    def handle_mapped(text: str, line: int) -> Any:
        return handle(text, lmap.line(line))

    return handle_mapped

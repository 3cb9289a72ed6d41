"""Line numbers of a source as the matcher saw it (presentations undone) mapped back to the original input,
and the input's blocks re-cut so that no block separates a wrapped line from its continuation.

``LineMap`` is filled block by block (each block's presented line count, its original count, and, for a
rewritten block, the original line of each presented line); ``rechunk`` merges small blocks and carries each
block's last lines over to the next one. ``nth``, ``nth_back`` and ``line_end`` are the one walk over a block's
newlines (match/ and the notebook skim use it).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from . import sources
from .sources import Block, Marks


@dataclass(slots=True)
class Segment:
    """One block's lines as the matcher saw them (presentation undone) against the original's lines."""

    new_first: int  # absolute line (1-based) of the block's first line as the matcher sees it
    orig_first: int  # the same in the original input
    count: int  # lines as the matcher sees them
    orig_count: int
    origin: tuple[int, ...] | None  # per presented line, its original line offset in the block; None: same


@dataclass(slots=True)
class LineMap:
    """Presented line numbers -> original ones, for the blocks of one source."""

    segments: list[Segment] = field(default_factory=list)
    undone: set[str] = field(default_factory=set)
    _spans: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict, repr=False, compare=False)  # span()'s, until a block is added

    def add(self, count: int, orig_count: int, origin: tuple[int, ...] | None) -> None:
        self._spans.clear()
        last = self.segments[-1] if self.segments else None
        new_first = last.new_first + last.count if last else 1
        orig_first = last.orig_first + last.orig_count if last else 1
        if last is not None and last.origin is None and origin is None:
            last.count += count
            last.orig_count += orig_count
            return
        self.segments.append(Segment(new_first, orig_first, count, orig_count, origin))
        if len(self.segments) > 64:  # matches only look back a few blocks
            del self.segments[:16]

    def _find(self, line: int) -> Segment | None:
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


def rechunk(blocks: Iterable[Block], keep: int = 20, limit: int | None = None) -> Iterator[Block]:
    """The same lines in blocks that do not cut a wrapped line from its continuation: the input's blocks
    (its last line comes alone) are merged while they stay under ``limit`` (the size of a read,
    ``sources.BLOCK_BYTES``, as it is when called: a block is never more than a read and the lines carried
    into it), and otherwise each block's last ``keep`` lines go on with the next one.

    The lines held are kept as pieces, joined by newlines, and joined once, when their block is given: a
    block is copied once (slicing it, then prepending the lines it passes on to the next, was two copies of
    every MiB read). The pieces' line marks (input.Marks) go with them."""
    limit = sources.BLOCK_BYTES if limit is None else limit
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


def merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inclusive spans (of lines, or of offsets) merged where they overlap or meet."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return out


def nth(data: bytes, n: int, at: int) -> int:
    """The offset of the n-th newline after offset ``at`` (-1: from the text's start), len(data) where there are fewer."""
    for _ in range(n):
        at = data.find(b"\n", at + 1)
        if at < 0:
            return len(data)
    return at


def nth_back(data: bytes, n: int, at: int) -> int:
    """The offset of the n-th newline before offset ``at`` (-1 where there are fewer)."""
    for _ in range(n):
        at = data.rfind(b"\n", 0, at)
        if at < 0:
            return -1
    return at


def line_end(data: bytes, at: int) -> int:
    """The offset of the newline ending the line ``at`` is on (len(data) where it is the last)."""
    end = data.find(b"\n", max(at, 0))
    return len(data) if end < 0 else end

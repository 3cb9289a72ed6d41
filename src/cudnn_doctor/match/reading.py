"""Reading one source: presentations undone before matching, cut lines read after it, line numbers mapped
back to the original input. Sits between input.py's blocks and the matcher (match/), so that every path
(one process, the parallel scan of a big file, the library) reads a log the same way.

* Each block goes through ``present.present``: a block without a presentation is passed on as it is (the cost
  is the detection: a few literal searches); a rewritten block carries an origin map, and the matcher's line
  numbers (matches, near misses, the environment probes' ``file:line``) are mapped back through it.
* After each block, the lines that may end inside a message are read with ``cut.CutReader``: the last line of
  the input, lines where a signature's literal appeared but its full pattern did not match (a near miss),
  and, in a pasted-size input, every line that ends with the beginning of a literal or with an ellipsis. A
  reading becomes a match marked ``cut`` (lower confidence); an ambiguous one becomes near misses that list the
  candidates.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..fieldmethods import FieldEq
from ..kb.patterns import compile_pattern, regex_error
from ..model import Signature
from ..read.normalize import normalize_line
from ..read.present import present
from ..read.present import unbalanced as _unbalanced
from ..read.sources import Block, Marks
from . import Matcher, Miss, RawMatch
from .cut import ELLIPSES, MIN_LITERAL, CutRead, CutReader, CutResult, context_check, cut_record

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SMALL_INPUT = 256 << 10  # a paste: every line's end is looked at for a cut message
MAX_CUT_LINE = 4000
CUT_WINDOW = 30  # lines before a cut line given to patterns that span lines
_ELLIPSES = ELLIPSES


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
    """Scans one source's blocks with a matcher: presentations undone, cuts read, lines mapped back."""

    def __init__(self, matcher: Matcher) -> None:
        self.matcher = matcher
        self.cut = cut_reader(tuple(matcher.sigs))

    def scan(self, blocks: Iterable[Block], source: str) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        lmap = LineMap()
        seen: list[_Seen] = []
        state = {"done": False, "bytes": 0, "n": 0}

        def presented() -> Iterator[Block]:
            for b in _rechunk(blocks):
                state["bytes"] += len(b.data)
                got = present(b.data, literals, paste=state["bytes"] <= SMALL_INPUT)
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
        full: list[tuple[int, int, str]] = []
        missed: list[int] = []
        index = 0
        try:
            for m, miss in matcher.scan_blocks(presented(), source):
                if m is not None:
                    full.append((m.line, m.end_line, m.text))
                    m.line, m.end_line = lmap.span(m.line, m.end_line)
                    yield m, None
                elif miss is not None:
                    missed.append(miss.line)
                    miss.line = lmap.line(miss.line)
                    yield None, miss
                else:  # a block ended: read its cut lines, then pass the end on
                    block = next((s for s in seen if s.index == index), None)
                    if block is not None:
                        last = state["done"] and block is seen[-1]
                        for got in self._cuts(block, seen, source, full, missed, last):
                            if got[0] is not None:
                                got[0].line, got[0].end_line = lmap.line(got[0].line), lmap.end_line(got[0].end_line)
                            if got[1] is not None:
                                got[1].line = lmap.line(got[1].line)
                            yield got
                    index += 1
                    full, missed = [], []
                    yield None, None
        finally:
            matcher.probes = probes

    def _cuts(
        self, block: _Seen, seen: list[_Seen], source: str, full: list[tuple[int, int, str]], missed: list[int], last: bool
    ) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        data = block.block.data
        first, count = block.first, block.block.lines
        cands: set[int] = {li - first for li in missed if first <= li < first + count}
        if last:
            end = len(data.rstrip())
            cands.add(data.count(b"\n", 0, end) if end else 0)
        if block.small:
            cands.update(self._line_ends(block))
        if not cands:
            return
        lines = block.lines() if last else []
        covered = {i for s, e, _ in full for i in range(s - first, e - first + 1)}
        for li in sorted(cands):
            on_line = [text for s, e, text in full if s - first <= li <= e - first]
            # a line matched whole is read as cut only when it looks cut: the last line of the input that
            # stops with a bracket open, an ellipsis ('... (code 3' of a Julia trace) or inside a literal
            if on_line and not (last and li == len(lines) - 1 and self._ends_cut(lines[li])):
                continue
            yield from self._read_line(block, seen, li, source, last and li == len(block.lines()) - 1, covered)

    def _joined(self, sig: Signature, before: list[str], line: str, nxt: str) -> Any:
        """A full match of ``sig`` on ``line`` glued to ``nxt`` (as cut mid-word, then at a space) that goes on
        past the glue, or None."""
        if not nxt.strip() or len(nxt) > MAX_CUT_LINE:
            return None
        pattern = compile_pattern(sig.regex, sig.flags)
        head = "\n".join(before[-10:])
        base = len(head) + 1 if before else 0
        for glue in ("", " "):
            text = (head + "\n" if before else "") + line + (glue + nxt.lstrip(" ") if glue else nxt)
            try:
                for m in pattern.finditer(text, base, timeout=1.0):
                    if m.end() > base + len(line) and m.start() < base + len(line):
                        return m
            except (TimeoutError, regex_error()):
                return None
        return None

    def _match(  # noqa: PLR0913 - split in the match/ package step
        self, sig: Signature, m: Any, source: str, line: int, end_line: int, stream: str, context: str,
        before: list[str], lines: list[str],
    ) -> RawMatch:
        evidence: list[str] = []
        supported = False
        ctx = sig.context
        try:
            if ctx.require_any and (got := self.matcher.evidence.find(ctx.require_any, context)):
                evidence.append(got)
            if ctx.support_any and (got := self.matcher.evidence.find(ctx.support_any, context)):
                evidence.append(got)
                supported = True
        except TimeoutError:
            pass
        return RawMatch(sig=sig, source=source, line=line, end_line=end_line, text=m.group(0)[:4000],
                        captures=dict(m.groupdict()), stream=stream, evidence=evidence, supported=supported,
                        before=[*before, *lines])

    def _ends_cut(self, line: str) -> bool:
        """Whether a line stops with an ellipsis, a bracket open, or inside a literal of the base."""
        if _looks_cut(line, []):
            return True
        low = line.rstrip()[-self.cut._longest :].lower()
        return any(self.cut.begins_literal(low[-k:]) for k in range(MIN_LITERAL, len(low) + 1))

    def _line_ends(self, block: _Seen) -> list[int]:
        """Lines of a paste whose end may be a cut message: it ends with the beginning of a literal or an ellipsis."""
        out: list[int] = []
        begins = self.cut.begins_literal
        longest = self.cut._longest
        for i, t in enumerate(block.lines()):
            s = t.rstrip()
            if len(s) < MIN_LITERAL or len(s) > MAX_CUT_LINE:
                continue
            if s.endswith(_ELLIPSES):
                out.append(i)
                continue
            low = s[-longest:].lower()
            if any(begins(low[-k:]) for k in range(MIN_LITERAL, min(longest, len(low)) + 1)):
                out.append(i)
        return out

    def _read_line(  # noqa: C901, PLR0911, PLR0912, PLR0915 - split in the match/ package step
        self, block: _Seen, seen: list[_Seen], li: int, source: str, at_end: bool, covered: set[int]
    ) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        lines = block.lines()
        if li >= len(lines):
            return
        prev: list[str] = []
        if li < CUT_WINDOW:
            i = seen.index(block)
            if i > 0:
                prev = list(seen[i - 1].lines()[-(CUT_WINDOW - li) :])
        before = prev + lines[max(0, li - CUT_WINDOW) : li]
        line = lines[li]
        for marker in _ELLIPSES:
            if line.rstrip().endswith(marker):
                line = line.rstrip()[: -len(marker)]
                break
        text = "\n".join([*before, line])
        line_start = len(text) - len(line)
        context = "\n".join(prev + lines[max(0, li - 40) : li + 11])
        keep = context_check(self.matcher.evidence, context)
        abs_line = block.first + li
        stream = normalize_line(block.block.data.split(b"\n", li + 1)[li].decode("utf-8", "replace"))[1] if li < 2000 else ""
        # a message that breaks off at a line's end and goes on in the next line exactly: a wrap the layout
        # did not show (one long line, no width to measure); the signature's own pattern is the judge
        for idx, (rest, _at, _k) in self.cut.triggers(line.lower(), 0).items():
            if rest:
                continue
            sig = self.cut.sigs[idx]
            got = None
            if li in covered:  # matched whole already: no wrap to undo here
                break
            if li + 1 < len(lines) and li + 1 not in covered:
                got = self._joined(sig, before, line, lines[li + 1]), abs_line, lines[li : li + 2]
            if (got is None or got[0] is None) and before and li - 1 not in covered:
                got = self._joined(sig, before[:-1], before[-1], line), abs_line - 1, [before[-1], line]
            if got is not None and got[0] is not None and keep(CutRead(sig, 0, got[0].group(0), {})):
                yield self._match(sig, got[0], source, got[1], got[1] + 1, stream, context, before, got[2]), None
                return
        try:
            res = self.cut.read(text, line_start, keep=keep)
        except TimeoutError:
            return
        if res is None:
            return
        best = res.best
        if not at_end and li + 1 < len(lines) and li not in covered and li + 1 not in covered:
            m = self._joined(best.sig, before, line, lines[li + 1])
            if m is not None and keep(CutRead(best.sig, 0, m.group(0), {})):
                yield self._match(best.sig, m, source, abs_line, abs_line + 1, stream, context, before, lines[li : li + 2]), None
                return
            nxt = lines[li + 1]
            if best.rest and nxt[:1].islower() and not nxt.lower().startswith(best.rest[: len(nxt)]):
                # the line goes on in the next one, and not as this message would ('... not currently
                # support' + 'ed on the MPS backend'): a wrapped line of another message, not a cut one
                return
        if at_end and not self.cut.stops_inside(best, text, line_start):
            return
        if not at_end and not best.rest and not _looks_cut(lines[li], []):
            # inside the input, a line that holds a literal whole and stops is as likely complete
            # ('... opened dynamic library libcudnn.so.7'): only a literal begun and not finished, an
            # ellipsis or an open bracket says it was cut
            return
        if res.ambiguous:
            yield from _ambiguous(res, source, abs_line, line)
            return
        evidence: list[str] = []
        supported = False
        ctx = best.sig.context
        try:
            if ctx.require_any:
                got = self.matcher.evidence.find(ctx.require_any, context)
                if got:
                    evidence.append(got)
            if ctx.support_any:
                got = self.matcher.evidence.find(ctx.support_any, context)
                if got:
                    evidence.append(got)
                    supported = True
        except TimeoutError:
            pass
        yield (
            RawMatch(
                sig=best.sig,
                source=source,
                line=abs_line,
                end_line=abs_line,
                text=best.text[-4000:],
                captures=dict(best.captures),
                stream=stream,
                evidence=evidence,
                supported=supported,
                before=[*prev, *lines[max(0, li - 60) : li + 1]],
                cut=cut_record(best),
            ),
            None,
        )


def _looks_cut(line: str, matched: list[str]) -> bool:
    end = line.rstrip()
    return end.endswith(_ELLIPSES) or _unbalanced(end)


def _ambiguous(res: CutResult, source: str, line: int, text: str) -> Iterator[tuple[None, Miss]]:
    ids = list(dict.fromkeys(r.sig.id for r in res.reads))
    tail = text.rstrip()[-60:]
    for r in res.reads[:4]:
        others = [i for i in ids if i != r.sig.id]
        reason = (
            f"the line is cut after {tail!r}: too short to tell it from {', '.join(others[:5])}; "
            "paste the full line"
        )
        yield None, Miss(r.sig, source, line, reason)


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
def cut_reader(sigs: tuple[Signature, ...]) -> CutReader:
    """One reader per set of signatures (its literal index costs a few ms to build)."""
    return CutReader(sigs)


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

"""Line access into a scanned window of UTF-8 bytes, without splitting or decoding all of it.

Input arrives as blocks of whole lines (input.py), so memory stays flat whatever the log size: each block is
scanned with the tail of the previous block and the head of the next one (_tail_region, _head_region), so that
matches and context that straddle a block boundary are still seen. ``_Lines`` locates a line by counting
newlines in C; ``LazyLines`` keeps the lines before a repeated match as bytes until they are read; the
``_word_lines`` / ``_has_word`` / ``_branches_present`` helpers answer Confirm's questions on a window.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence

from ..read.normalize import normalize_line

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from ..read.sources import Marks
    from .regexinfo import Confirm


def _window_data(icase: bool, lines: _Lines) -> bytes:
    if not icase:
        return lines.data
    data = lines.memo.get("lower")
    if data is None:
        data = lines.memo["lower"] = lines.data.lower()  # ASCII only: same offsets
    return data


def _has_word(word: bytes, icase: bool, lines: _Lines) -> bool:
    """Whether ``word`` is anywhere in the window (the prefilter's hyperscan pass says so where it looked for
    it, else one find: a word on most lines is left out of that pass, Matcher._drop_common)."""
    key = ("has", word, icase)
    got = lines.memo.get(key)
    if got is None:
        present, scanned = lines.memo.get("present"), lines.memo.get("scanned")
        if present is not None and scanned is not None and (word, icase) in scanned:
            got = (word, icase) in present
        else:
            got = _window_data(icase, lines).find(word) >= 0
            if not got and present is not None:  # a word left out of the pass as common, and not here
                lines.memo.setdefault("missed", set()).add((word, icase))
        lines.memo[key] = got
    return got


def _branches_present(conf: Confirm, lines: _Lines) -> list[tuple[bytes, ...]]:
    """The alternatives of ``conf`` whose every word is somewhere in the window (a word on every line of a
    dense log, such as 'device', is located line by line only when the other words of its alternative are
    there too); once per window for the signatures that share a regex (and so its Confirm)."""
    key = ("branches", conf)
    got = lines.memo.get(key)
    if got is None:
        got = lines.memo[key] = [
            tuple(sorted(words, key=lambda w: _word_count(w, conf.icase, lines)))  # rarest first: checked first
            for words in conf.branches
            if all(_has_word(w, conf.icase, lines) for w in words)
        ]
    return got  # type: ignore[no-any-return]


def _word_count(word: bytes, icase: bool, lines: _Lines) -> int:
    key = ("count", word, icase)
    got = lines.memo.get(key)
    if got is None:
        got = lines.memo[key] = _window_data(icase, lines).count(word, 0, 1 << 14)  # a sample: how common
    return got  # type: ignore[no-any-return]


def _word_lines(word: bytes, icase: bool, lines: _Lines) -> list[int]:
    """The sorted indexes of the window's lines holding ``word`` (found once per window, in C)."""
    key = ("word", word, icase)
    got = lines.memo.get(key)
    if got is not None:
        return got
    data = _window_data(icase, lines)
    positions: list[int] = []
    first_per_line(data, word, positions)
    found = lines.memo[key] = line_indexes(data, positions, 0)
    return found


# a walk back this many lines or more to a line start jumps there by counting newlines (_jump_back)
JUMP_LINES = 24
# bytes of an ASCII word character (\\w): what a word start cannot follow
_WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")


def meets(line: bytes, conds: tuple[tuple[bytes, ...], ...]) -> bool:
    """Whether ``line`` holds every run of one of the conjunctions ``conds``."""
    return any(all(run in line for run in conj) for conj in conds)


def first_per_line(
    data: bytes,
    word: bytes,
    positions: list[int],
    start: int = 0,
    end: int | None = None,
    word_start: bool = False,
    conds: tuple[tuple[bytes, ...], ...] | None = None,
) -> None:
    """Append to ``positions`` the offset of ``word``'s first occurrence in each line of data[start:end] that
    holds it (in C: one ``find`` per such line, none per line without it). ``word_start``: only occurrences
    that do not follow an ASCII word character count (a byte of a non-ASCII character may be a non-word one).
    ``conds``: only lines that also meet them count (``meets``)."""
    end = len(data) if end is None else end
    pos = data.find(word, start, end)
    while pos >= 0:
        if word_start and pos > 0 and data[pos - 1] in _WORD_BYTES:
            pos = data.find(word, pos + 1, end)
            continue
        nl = data.find(b"\n", pos, end)
        if conds is None or meets(data[data.rfind(b"\n", 0, pos) + 1 : end if nl < 0 else nl], conds):
            positions.append(pos)
        pos = -1 if nl < 0 else data.find(word, nl, end)


def line_indexes(data: bytes, positions: list[int], first: int, start: int = 0) -> list[int]:
    """The distinct, sorted indexes of the lines holding byte offsets ``positions`` (>= ``start``) of ``data``,
    where the line at offset ``start`` has index ``first`` (newlines counted in C between consecutive offsets)."""
    found: list[int] = []
    li, prev = first, start
    for pos in sorted(positions):
        li += data.count(b"\n", prev, pos)
        prev = pos
        if not found or found[-1] != li:
            found.append(li)
    return found


def _jump_back(data: bytes, pos: int, n: int, step: int) -> tuple[int, int]:
    """From the line of ``data`` starting at ``pos``, towards the line ``n`` lines before it, by counting newlines
    over the bytes such lines take (``step``: their average length): (a line start, the lines still to walk back
    from it). The context's 100 lines before each of 10,000 repeated warnings, and a block's last 200 lines,
    were a ``rfind`` each (~10 us)."""
    while n >= JUMP_LINES:
        s = max(0, pos - n * step)
        chunk = data[s:pos]  # its newlines counted by deleting them (memchr and memcpy): bytes.count
        c = len(chunk) - len(chunk.replace(b"\n", b""))  # compares byte by byte, 4x slower
        # the line holding s is c lines before pos's
        if c >= n:  # at or past the line sought: forward from s's line to it
            pos = data.rfind(b"\n", 0, s) + 1
            for _ in range(c - n):
                pos = data.find(b"\n", pos) + 1
            return pos, 0
        if s == 0:  # fewer lines than that before pos
            return 0, n - c
        pos, n = data.rfind(b"\n", 0, s) + 1, n - c
    return pos, n


class _Lines:
    """Line access into a window of UTF-8 bytes by line index, without indexing every line.

    The lines the prefilter points at are located by counting newlines from the previous one (in C); the
    lines around them (context, tracebacks) by walking from the nearest line already located. A line is
    decoded (invalid UTF-8 -> U+FFFD) only when asked for.
    """

    def __init__(self, data: bytes, count: int, marks: Marks | None = None) -> None:
        self.data = data
        self.count = count
        self._known: list[int] = [0]  # sorted line indexes whose start is known (from the reader's marks too)
        self._offs: list[int] = [0]  # their starts (sorted too)
        if marks is not None:
            self._offs += marks[0]
            self._known += marks[1]
        self._starts: dict[int, int] = dict(zip(self._known, self._offs, strict=True))
        self._last = (0, 0)  # (offset, line index) of the last line located by line_at
        self.memo: dict[Any, Any] = {}  # results computed on this window (_Evidence.lines_with)

    def line_at(self, start: int) -> int:
        """The index of the line that starts at byte offset ``start`` (cheapest in increasing order)."""
        off, li = self._last
        offs = self._offs
        i = bisect.bisect_right(offs, start) - 1
        if start < off or offs[i] > off:  # count from the nearest line located before it (not from line 0)
            off, li = offs[i], self._known[i]
        li += self.data.count(b"\n", off, start)
        self._last = (start, li)
        if li not in self._starts:
            self._add(li, start)
        return li

    def _add(self, li: int, pos: int) -> None:
        self._starts[li] = pos
        i = bisect.bisect_left(self._known, li)
        self._known.insert(i, li)
        self._offs.insert(i, pos)

    def start(self, li: int) -> int:
        got = self._starts.get(li)
        if got is not None:
            return got
        known = self._known
        i = bisect.bisect_right(known, li) - 1
        lo = known[i]
        data = self.data
        if i + 1 < len(known) and known[i + 1] - li < li - lo:
            hi = known[i + 1]
            pos = self._starts[hi]
            n = hi - li
            if n >= JUMP_LINES:
                pos, n = _jump_back(data, pos, n, len(data) // self.count + 1)
            for _ in range(n):
                pos = data.rfind(b"\n", 0, pos - 1) + 1
        else:
            pos = self._starts[lo]
            for _ in range(li - lo):
                pos = data.find(b"\n", pos) + 1
        self._add(li, pos)
        return pos

    def region(self, lo: int, hi: int) -> bytes:
        """Lines lo..hi (indexes within the window) as one slice of raw bytes, without the last newline."""
        end = self.data.find(b"\n", self.start(hi))
        return self.data[self.start(lo) : len(self.data) if end < 0 else end]

    def raw_lines(self, lo: int, hi: int) -> list[bytes]:
        """Lines lo..hi (clamped to the window) as raw bytes, with one slice."""
        lo, hi = max(0, lo), min(self.count - 1, hi)
        if hi < lo:
            return []
        return self.region(lo, hi).split(b"\n")

    def line(self, li: int) -> str:
        start = self.start(li)
        end = self.data.find(b"\n", start)
        return self.data[start : len(self.data) if end < 0 else end].decode("utf-8", "replace")


class LazyLines(Sequence[str]):
    """Lines kept as raw bytes and normalized (and filtered to one stream) on first use: each of 10,000
    repeated warnings carries the lines before it, which are rarely looked at."""

    __slots__ = ("_lines", "_raw", "_stream")

    def __init__(self, raw: list[bytes], stream: str) -> None:
        self._raw: list[bytes] | None = raw
        self._stream = stream
        self._lines: list[str] | None = None

    def _get(self) -> list[str]:
        if self._lines is None:
            out: list[str] = []
            for line in self._raw or ():
                text, stream = normalize_line(line.decode("utf-8", "replace"))
                if not self._stream or stream == self._stream:
                    out.append(text)
            self._lines, self._raw = out, None
        return self._lines

    def __len__(self) -> int:
        return len(self._get())

    def __getitem__(self, i: Any) -> Any:
        return self._get()[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    __hash__ = None  # type: ignore[assignment]


def _runs(lines: list[int], gap: int) -> Iterator[list[int]]:
    run: list[int] = []
    for li in lines:
        if run and li - run[-1] > gap:
            yield run
            run = []
        run.append(li)
    if run:
        yield run


def _head_region(data: bytes, n: int) -> tuple[bytes, int]:
    """The first ``n`` lines of a block (fewer if it has fewer) as one slice, and how many they are."""
    if n <= 0:
        return b"", 0
    pos = -1
    for k in range(n):
        pos = data.find(b"\n", pos + 1)
        if pos < 0:
            return data, k + 1
    return data[:pos], n


def _tail_region(data: bytes, lines: int, n: int, prev: tuple[bytes, int]) -> tuple[bytes, int]:
    """The last ``n`` lines of a block of ``lines`` lines as one slice, and how many they are: topped up from the
    previous tail (``prev``: its slice and lines) when the block is shorter."""
    if n <= 0:
        return b"", 0
    pos = data.rfind(b"\n") + 1  # the last line
    left = n - 1
    if left >= JUMP_LINES:
        pos, left = _jump_back(data, pos, left, len(data) // max(lines, 1) + 1)
    while left and pos:
        pos = data.rfind(b"\n", 0, pos - 1) + 1
        left -= 1
    if not left:
        return data[pos:], n
    # the block has n - left lines: the previous tail's last ones before them
    before, k = _tail_region(prev[0], prev[1], left, (b"", 0)) if prev[1] else (b"", 0)
    return (before + b"\n" + data, k + n - left) if k else (data, n - left)

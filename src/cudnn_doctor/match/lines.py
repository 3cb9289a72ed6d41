"""Line access into a scanned window of UTF-8 bytes, without splitting or decoding all of it.

Input arrives as blocks of whole lines (read/sources.py), so memory stays flat whatever the log size: each
block is scanned with the tail of the previous block and the head of the next one (``tail_region``,
``head_region``), so that matches and context that straddle a block boundary are still seen. ``Lines``
locates a line by counting newlines in C from the nearest line already located.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..read.linemap import line_end, nth, nth_back
from ..read.normalize import normalize_line


class Lines(Sequence[str]):
    """Line access into a window of UTF-8 bytes by line index; a line is decoded (invalid UTF-8 -> U+FFFD)
    and normalized only when asked for (``lines[i]``: its normalized text; a near miss in a 1 MiB block of a big
    log looks at 50 lines, not 20,000)."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data = data
        self.size = size
        self._known: list[int] = [0]  # sorted line indexes whose start is known
        self._offs: list[int] = [0]  # their starts
        self._norm: dict[int, tuple[str, str]] = {}
        self.memo: dict[Any, Any] = {}  # what the scan of this window worked out once (the context rule-out's marks)

    def once(self, key: Any, make: Callable[[], Any]) -> Any:
        """``make()``, worked out once for this window: kept in ``memo`` under ``key``."""
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = make()
        return got

    def line_at(self, start: int) -> int:
        """The index of the line that starts at byte offset ``start`` (counted from the nearest line located before it)."""
        i = bisect.bisect_right(self._offs, start) - 1
        li = self._known[i] + self.data.count(b"\n", self._offs[i], start)
        self._add(li, start)
        return li

    def _add(self, li: int, pos: int) -> None:
        i = bisect.bisect_left(self._known, li)
        if i == len(self._known) or self._known[i] != li:
            self._known.insert(i, li)
            self._offs.insert(i, pos)

    def start(self, li: int) -> int:
        """The byte offset where line ``li`` starts (walked to from the nearest line located)."""
        known = self._known
        i = bisect.bisect_right(known, li) - 1
        if known[i] == li:
            return self._offs[i]
        if i + 1 < len(known) and known[i + 1] - li < li - known[i]:
            pos = nth_back(self.data, known[i + 1] - li + 1, self._offs[i + 1]) + 1
        else:
            pos = nth(self.data, li - known[i], self._offs[i] - 1) + 1
        self._add(li, pos)
        return pos

    def norm(self, li: int) -> tuple[str, str]:
        """The normalized (text, stream) of line ``li``, worked out once."""
        got = self._norm.get(li)
        if got is None:
            start = self.start(li)
            raw = self.data[start : line_end(self.data, start)]
            got = self._norm[li] = normalize_line(raw.decode("utf-8", "replace"))
        return got

    def read_as(self, li: int, text: str) -> None:
        """Line ``li`` read as ``text`` from now on (a big log's last line cut where its tail ends, reading.py)."""
        self._norm[li] = (text, self.norm(li)[1])

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self.norm(k)[0] for k in range(*i.indices(self.size))]
        if not -self.size <= i < self.size:
            raise IndexError(i)
        return self.norm(i % self.size)[0]

    def texts(self, lines: Sequence[int], stream: str) -> list[str]:
        """The normalized texts of ``lines`` that are of ``stream`` (all of them for '')."""
        norm = self.norm
        return [text for text, st in map(norm, lines) if not stream or st == stream]

    def before(self, lo: int, hi: int, stream: str) -> Before:
        """``texts(range(lo, hi + 1), stream)`` normalized when first read (a match's lines before it: rank reads
        those of few of a warning's 10,000 occurrences); line ``lo`` found from line ``hi``, not kept among the known."""
        at = self.start(hi)
        return Before(self.data[nth_back(self.data, hi - lo + 1, at) + 1 : line_end(self.data, at)], [self._norm.get(li) for li in range(lo, hi + 1)], stream)


class Before(Sequence[str]):
    """The normalized texts of some lines of a stream ('': all), from their raw bytes and the texts of those
    already normalized (``known``: None for the others), normalized when first read."""

    __slots__ = ("_known", "_raw", "_stream", "_texts")

    def __init__(self, raw: bytes, known: list[tuple[str, str] | None], stream: str) -> None:
        self._raw, self._known, self._stream = raw, known, stream
        self._texts: list[str] | None = None

    def _read(self) -> list[str]:
        if self._texts is None:
            got = (k or normalize_line(r.decode("utf-8", "replace")) for k, r in zip(self._known, self._raw.split(b"\n"), strict=True))
            self._texts = [text for text, st in got if not self._stream or st == self._stream]
            self._raw, self._known = b"", []
        return self._texts

    def __len__(self) -> int:
        return len(self._read())

    def __getitem__(self, i: Any) -> Any:
        return self._read()[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __eq__(self, other: object) -> bool:
        # equal to what it stands in for, a list of texts (or another one): not to a tuple or a string
        if isinstance(other, Before):
            return self._read() == other._read()
        return self._read() == other if isinstance(other, list) else NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._read())


def head_region(data: bytes, n: int) -> tuple[bytes, int]:
    """The first ``n`` lines of a block (fewer if it has fewer) as one slice, and how many they are."""
    if n <= 0:
        return b"", 0
    end = nth(data, n, -1)
    return data[:end], n if end < len(data) else data.count(b"\n") + 1


Piece = tuple[bytes, int, int]  # a block, an offset in it, and how many lines block[offset:] holds


def tail_region(data: bytes, lines: int, n: int, prev: tuple[tuple[Piece, ...], int]) -> tuple[tuple[Piece, ...], int]:
    """The last ``n`` lines of a block of ``lines`` lines, as pieces of it and of the blocks before it (nothing
    copied: the tail is joined only for a window whose lines are read, match/matcher.py), and how many they are:
    topped up from the previous tail (``prev``: its pieces and lines) when the block is shorter, by dropping that
    tail's first lines (with lines of 30 KiB the tail spans ~7 blocks: it was copied for every block)."""
    if n <= 0:
        return (), 0
    if lines >= n:
        return ((data, nth_back(data, n, len(data)) + 1, n),), n
    pieces, k = prev
    return trimmed((*pieces, (data, 0, lines)), k + lines, n)


def trimmed(pieces: tuple[Piece, ...], k: int, n: int) -> tuple[tuple[Piece, ...], int]:
    """The last ``n`` of the ``k`` lines of ``pieces`` (all of them where they are fewer), as pieces."""
    out = list(pieces)
    drop = k - n  # the first lines that fall out: whole pieces first, then the first lines of the next one
    while drop > 0 and out[0][2] <= drop:
        drop -= out.pop(0)[2]
    if drop > 0:
        block, at, m = out[0]
        out[0] = (block, nth(block, drop, at - 1) + 1, m - drop)
    return tuple(out), min(n, k)


def tail_views(pieces: tuple[Piece, ...]) -> list[memoryview]:
    """A tail's pieces as views of their lines (joined by newlines, the tail's bytes)."""
    return [memoryview(block)[at:] for block, at, _ in pieces]


def line_start(text: str, at: int) -> int:
    """The offset where the line ``at`` is on starts."""
    return text.rfind("\n", 0, at) + 1


class Where:
    """A reading's place: the lines, the reading's first and last line, its column and text."""

    __slots__ = ("col", "li_e", "li_s", "lines", "read")

    def __init__(self, lines: Sequence[str], lo: int, text: str, start: int, end: int) -> None:
        self.lines = lines  # ``text``: lines[lo:] joined
        self.li_s = lo + text.count("\n", 0, start)
        self.li_e = self.li_s + text.count("\n", start, end)
        self.col = start - line_start(text, start)
        self.read = text[start:end]

    @classmethod
    def line(cls, lines: Sequence[str], li: int) -> Where:
        """Line ``li`` read whole, but the spaces around it."""
        line = lines[li]
        return cls(lines, li, line, len(line) - len(line.lstrip()), len(line.rstrip()))

"""A big block of a notebook's JSON string lines decoded only where the scan reads it: a speed mechanism for
read/present.py (bench/kinds.py's notebook kind; issue 29: no kind may cost 3x another per byte).

Decoding such a block (read/jsonlines.py, ~3.5 ms a MiB) costs more than the matcher's whole scan of a plain
log, and in most blocks of a big notebook that scan then finds nothing. ``Skim`` scans the raw JSON first: the
prefilter's literals, and FLAGS, what can make a line's decoded text hold a literal its raw bytes do not show:
an escape that can write a literal's character or one normalization deletes (``\\u001b``, a colour code's ESC,
among them), a newline escape inside a string, a raw control. The lines it finds are decoded and scanned as the
matcher scans a block (behind colour codes too). Where none holds a literal, no line of the block holds one, so
the matcher reads its lines only from the windows of the blocks around it: the block is given decoded where
those, the tolerant reading of a log's last lines and present.py's look for the next presentations read it
(its first ``after`` lines and first HEAD_CHARS characters; its last ``before`` and TAIL lines), and its other
lines are left empty. Anything else returns None, and the block is decoded whole: a literal found, lines not
all one JSON string at one indentation ending in ``\\n``, a line that does not decode, no hyperscan.

Why a line FLAGS does not find cannot hide a literal: its escapes are ``\\r``, its last ``\\n`` and ``\\uXXXX``
above U+00FF, each decoded to one character no literal holds (they are ASCII, without CR: ``usable``) and that
normalization keeps, so a literal on its decoded text lies between two escapes, in its raw bytes as it is.
Equivalence test: tests/test_skim.py.
"""

from __future__ import annotations

import _thread
from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING

from ..read.jsonlines import decoded_lines
from ..read.present import HEAD_CHARS
from .prefilter import Prefilter, holding

if TYPE_CHECKING:
    from .matcher import Matcher

# what makes a line's decoded text read otherwise than its raw bytes, but \u001X (ESC: a colour code on one
# line in six of a CI log), whose lines are found by ``bytes.find`` (hyperscan would call back for each)
FLAGS = (
    *(b"\\" + e for e in (b'"', b"/", b"\\", b"b", b"f", b"t", b"u000")),  # a literal's character, a control
    *(b"\\u00" + bytes([c]) for c in b"23456789abcdef"),  # ASCII, C1 controls, Latin-1
    *(b"\\ud" + bytes([c]) for c in b"89abcdef"),  # surrogates (the head's look reads a lone one otherwise)
    *(b"\\n" + bytes([c]) for c in range(256) if c != ord('"') and not 65 <= c <= 90),  # a newline inside a string
    *(bytes([c]) for c in (*range(10), *range(11, 32), 127)),  # raw controls (a raw ESC among them): not JSON
    *(b"\xc2" + bytes([c]) for c in range(0x80, 0xA0)),  # C1 controls (the one-byte CSI)
    b'"traceback"', b'"text"',  # a one-line output or list: present.py reads it as several lines
)
ESCAPED_ESC = b"\\u001"


@lru_cache(maxsize=8)
def _flags(_thread_id: int) -> Prefilter:
    return Prefilter.of_bytes(FLAGS)  # one per thread: a hyperscan scratch serves one scan at a time


MAX_HITS = 64  # lines holding a literal in a block's middle, each decoded with the lines around it; more: all of it


class Skim:
    """The skim of one reading (match/reading.py gives it to present.py): the matcher's literals as they are
    when a block is presented (probes only retire: its scan looks for no more)."""

    def __init__(self, matcher: Matcher, tail_lines: int, margin: int) -> None:
        self.matcher = matcher
        self.first = matcher.after
        self.last = max(matcher.before, tail_lines)
        self.reach = matcher.before + matcher.after + margin  # the lines a reading of a line may look at, each way
        self.usable = not matcher.full_scan  # a signature without literals reads every line

    def __call__(self, data: bytes, lines: int) -> bytes | None:
        """The block's lines (``lines`` of them) as decoded_lines decodes them, those no reading reaches empty."""
        pf = self.matcher.prefilter
        if not self.usable or lines < 4 * (self.first + self.last) or pf.engine != "hyperscan" or not _literals_fit(pf):
            return None
        end = _nth_from_end(data, self.last, len(data))
        start, head = _head(data, _nth(data, self.first, -1), end)
        if head is None:
            return None
        found = {*pf.scan(data), *_flags(_thread.get_ident()).scan(data), *holding(data, ESCAPED_ESC)}
        hits = _hits(pf, data, sorted(found)) if found else []
        if hits is None or len(hits) > MAX_HITS:
            return None
        spans = _merged([(0, start), *_around(data, hits, self.reach), (end + 1, len(data))])
        parts = [head if (lo, hi) == (0, start) else decoded_lines(data[lo:hi]) for lo, hi in spans]
        if None in parts:
            return None
        out = [parts[0]]
        for (_, before), (lo, _), got in zip(spans, spans[1:], parts[1:], strict=False):
            out += [b"\n" * data.count(b"\n", before, lo), got]  # each line between empty
        return b"".join(out)  # type: ignore[arg-type]


def _head(data: bytes, first: int, end: int) -> tuple[int, bytes | None]:
    """Where the block's head ends, and its lines decoded: from its first line to the one ending at ``first`` at
    least, and as many as hold HEAD_CHARS characters decoded (present.py looks for the next presentations in
    them); None where they do not decode or reach ``end``."""
    size = HEAD_CHARS * 3 // 2  # ~0.8 characters a byte in a CI log's JSON
    while True:
        start = _line_end(data, max(size, first))
        head = decoded_lines(data[:start]) if start < end else None
        if head is None or len(head.decode("utf-8", "replace")) >= HEAD_CHARS:
            return start, head
        size *= 2


def _hits(pf: Prefilter, data: bytes, starts: list[int]) -> list[int] | None:
    """The lines starting at ``starts`` that hold a literal decoded (None: one does not decode)."""
    flagged = decoded_lines(b"\n".join([data[at : _line_end(data, at)] for at in starts]))
    if flagged is None:
        return None
    where = {**pf.scan(flagged), **pf.behind_escapes(flagged, 0, len(flagged))}
    if not where:
        return []
    at = list(accumulate(map((1).__add__, map(len, flagged.split(b"\n"))), initial=0))  # where each line starts
    return [starts[bisect_left(at, off)] for off in sorted(where)]


def _around(data: bytes, hits: list[int], reach: int) -> list[tuple[int, int]]:
    """The spans of the lines within ``reach`` lines of the lines starting at ``hits`` (sorted), merged."""
    out: list[tuple[int, int]] = []
    for prev, at in zip([-1, *hits], hits, strict=False):
        if out and at <= out[-1][1]:  # reach lines after this one: as many more after the span as lines since the last
            out[-1] = (out[-1][0], _nth(data, data.count(b"\n", prev, at), out[-1][1]))
        else:
            out.append((_nth_from_end(data, reach + 1, at) + 1, _nth(data, reach + 1, at)))
    return out


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of whole lines (start, end of the last line's newline) merged where they overlap or meet."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return out


@lru_cache(maxsize=16)
def _fits(literals: tuple[str, ...]) -> bool:
    return all(lit.isascii() and "\r" not in lit for lit in literals)


def _literals_fit(pf: Prefilter) -> bool:
    """Whether no literal holds a character an unflagged escape writes (non-ASCII, CR)."""
    return _fits(tuple(pf.literals))


def _nth(data: bytes, n: int, at: int) -> int:
    """The offset of the n-th newline after offset ``at`` (-1: the text's first line), len(data) where there are fewer."""
    for _ in range(n):
        at = data.find(b"\n", at + 1)
        if at < 0:
            return len(data)
    return at


def _nth_from_end(data: bytes, n: int, at: int) -> int:
    """The offset of the n-th newline before offset ``at`` (-1 where there are fewer)."""
    for _ in range(n):
        at = data.rfind(b"\n", 0, at)
        if at < 0:
            return -1
    return at


def _line_end(data: bytes, at: int) -> int:
    """The offset of the newline ending the line ``at`` is on (len(data) where it is the last)."""
    end = data.find(b"\n", max(at, 0))
    return len(data) if end < 0 else end

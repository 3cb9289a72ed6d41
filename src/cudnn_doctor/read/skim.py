"""A big block of a notebook's JSON string lines decoded only where a reading reaches it: a speed mechanism for
read/present.py (bench/kinds.py's notebook kind; issue 29: no kind may cost 3x another per byte).

Decoding such a block (read/jsonlines.py, ~3.5 ms a MiB) costs more than the matcher's whole scan of a plain
log, and in most blocks of a big notebook that scan then finds nothing. ``Skim`` looks at the raw JSON first:
one hyperscan pass of the prefilter's literals and one of FLAGS (what can make a line's decoded text hold a
literal its raw bytes do not show: an escape that can write a literal's character or one normalization deletes,
a colour code's ``\\u001b`` among them, a newline escape inside a string, a raw control, a one-line output).
Those lines are decoded and scanned as the matcher scans a block (behind colour codes too). The block is then given decoded where a
reading reaches it: its first lines (the window of the block before reads ``after`` of them, present.py looks
for the next presentations in its first HEAD_CHARS characters), its last ones (the next block's window reads
``before``, the tolerant reading of a log's end TAIL_LINES) and the lines within ``reach`` of a line holding a
literal (parallel.py's margin: the matcher's context and 64 lines); the other lines are left empty. None (the
block is decoded whole): a line the skim decodes does not decode as one string, more than MAX_HITS literals,
no hyperscan, a signature without literals (it reads every line).

Why a line it does not decode cannot hide a literal: its escapes are ``\\r``, its last ``\\n`` and ``\\uXXXX``
above U+00FF but a surrogate, each decoded to one character no literal holds (they are ASCII, without CR:
``_fits``) and normalization keeps, so a literal on its decoded text lies between two escapes, in its raw bytes
as it is; and present.py reads it as one line whatever it holds (a line that is not JSON as it is). Equivalence
test: tests/test_skim.py.

It is read/'s (it decodes a notebook) and is given the matcher (match/reading.py): read/ imports nothing of
match/. Measured without it (2026-12-07, 64 MiB notebook, ``bench/alternate.py --jobs 1,2 --rounds 5``): min CPU
+11% (jobs 1: 796 -> 881 ms; jobs 2: 831 -> 920), the kind's wall 3.5x -> 4.2-4.4x grep -E (``bench/kinds.py``):
kept.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol

from .jsonlines import decoded_lines
from .linemap import line_end, merged, nth, nth_back
from .present import HEAD_CHARS

# what makes a line's decoded text read otherwise than its raw bytes
FLAGS = (
    *(b"\\" + e for e in (b'"', b"/", b"\\", b"b", b"f", b"t", b"u00")),  # a literal's character, a control, ESC
    *(b"\\ud" + bytes([c]) for c in b"89abcdef"),  # surrogates (present.py's head reads a lone one otherwise)
    *(b"\\n" + bytes([c]) for c in range(256) if c != ord('"') and not 65 <= c <= 90),  # a newline inside a string
    *(bytes([c]) for c in (*range(10), *range(11, 32), 127)),  # raw controls (a raw ESC among them): not JSON
    *(b"\xc2" + bytes([c]) for c in range(0x80, 0xA0)),  # C1 controls (the one-byte CSI)
    b'"traceback"', b'"text"',  # a one-line output or list: present.py reads it as several lines
)
MAX_HITS = 64  # lines holding a literal, each decoded with the lines around it; more: the block decoded whole


class Scanner(Protocol):
    """The matcher as the skim reads it (match/matcher.py; given in: read/ imports nothing of match/)."""

    after: int
    before: int
    full_scan: bool
    prefilter: Any  # match/prefilter.py's Prefilter: literals, engine, scan, behind_escapes, of_bytes


class Skim:
    """The skim of one reading (match/reading.py gives it to present.py): the matcher's literals as they are
    when a block is presented (probes only retire: its scan looks for no more)."""

    def __init__(self, matcher: Scanner, tail_lines: int, margin: int) -> None:
        self.matcher = matcher
        self.first = matcher.after
        self.last = max(matcher.before, tail_lines)
        self.reach = matcher.before + matcher.after + margin  # the lines a reading of a line may look at, each way
        self.usable = not matcher.full_scan
        # FLAGS' prefilter, of the matcher's prefilter's class, made by the first skim (as CUDNN_DOCTOR_NO_HYPERSCAN
        # then says): one per reading, so one per thread (a hyperscan scratch serves one scan at a time)
        self.flags: Any = None

    def __call__(self, data: bytes, lines: int) -> bytes | None:
        """The block's lines (``lines`` of them) as decoded_lines decodes them, those no reading reaches empty."""
        pf = self.matcher.prefilter
        if not self.usable or lines < 4 * (self.first + self.last) or not _fits(tuple(pf.literals)):
            return None
        if self.flags is None:
            self.flags = type(pf).of_bytes(FLAGS)
        if "find" in (pf.engine, self.flags.engine):
            return None
        end = nth_back(data, self.last, len(data))  # the tail: the lines after it
        start, head = _head(data, nth(data, self.first, -1), end)
        hits = _hits(pf, data, sorted({*pf.scan(data), *self.flags.scan(data)})) if head else None
        if head is None or hits is None:
            return None
        spans = merged([(0, start), *_around(data, hits, self.reach), (end + 1, len(data))])  # (most blocks: no hit)
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
        start = line_end(data, max(size, first))
        head = decoded_lines(data[:start]) if start < end else None
        if head is None or len(head.decode("utf-8", "replace")) >= HEAD_CHARS:
            return start, head
        size *= 2


def _hits(pf: Any, data: bytes, starts: list[int]) -> list[int] | None:
    """The lines starting at ``starts`` that hold a literal decoded, as the matcher scans a block (behind colour
    codes too: ``Prefilter.behind_escapes``); None where one does not decode, or more than MAX_HITS do."""
    if not starts:
        return []
    ends = [line_end(data, at) for at in starts]
    got = decoded_lines(b"\n".join(map(data.__getitem__, map(slice, starts, ends))))
    if got is None:
        return None
    found = {*pf.scan(got), *pf.behind_escapes(got)}  # line starts in ``got``: one a line
    return sorted(starts[got.count(b"\n", 0, at)] for at in found) if len(found) <= MAX_HITS else None


def _around(data: bytes, hits: list[int], reach: int) -> list[tuple[int, int]]:
    """The spans of the lines within ``reach`` lines of the lines starting at ``hits`` (sorted), merged."""
    out: list[tuple[int, int]] = []
    for prev, at in zip([-1, *hits], hits, strict=False):
        if out and at <= out[-1][1]:  # reach lines after this one: as many more after the span as lines since the last
            out[-1] = (out[-1][0], nth(data, data.count(b"\n", prev, at), out[-1][1]))
        else:
            out.append((nth_back(data, reach + 1, at) + 1, nth(data, reach + 1, at)))
    return out


@lru_cache(maxsize=16)
def _fits(literals: tuple[str, ...]) -> bool:
    """Whether no literal holds a character an escape the skim does not decode writes (non-ASCII, CR)."""
    return all(lit.isascii() and "\r" not in lit for lit in literals)

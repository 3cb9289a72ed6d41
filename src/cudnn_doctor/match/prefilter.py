"""Literal scans: the prefilter over a window, and the context rule-out around a match.

- ``Prefilter`` finds every line holding one of the signatures' or probes' literals (one combined scan with
  hyperscan where installed; one ``bytes.find`` per literal for a pasted traceback, and where hyperscan is not
  installed). A speed mechanism (bench/: every kind of 1 GiB log); its equivalence tests:
  tests/test_streaming.py (the two engines), tests/test_behind_escapes.py (a colour code inside a literal, and
  ``_coloured``: a region coloured throughout cleaned only where a literal may hide; bench/kinds.py colour).
- ``RuleOut`` says on which lines around a match a context item may match at all: one hyperscan database of
  every context item's literals (bench/: the flatten_parameters warning 10,000 times, each with 100 lines of
  context); only those lines are normalized and searched with `regex`, and each comes with the items whose
  literals it holds (``RuleOut.marked``): a context whose items are all found line by line, and whose
  literals stand only on the match's own lines, is decided once per distinct text of them (Matcher._context). Its equivalence tests:
  tests/test_match_budgets.py (with and without hyperscan).
"""

from __future__ import annotations

import _thread  # threading's get_ident, without importing threading (start-up)
import os
import sys
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import accumulate, pairwise
from typing import Any

from ..read.sources import Block
from ..read.textsafe import delete_escapes, delete_other_escapes
from .lines import Lines, line_end

SMALL_TEXT = 256 << 10


def as_bytes(text: str | bytes) -> bytes:
    return text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text


def as_block(block: Block | bytes | str) -> Block:
    if isinstance(block, Block):
        return block
    data = as_bytes(block)
    return Block(data, data.count(b"\n") + 1)


class Prefilter:
    """One pass over a window for all literals (ASCII case-insensitive); reports the lines that hold one.

    Works on the UTF-8 bytes as read, so nothing is decoded until a line is known to matter. With hyperscan (a
    dependency where PyPI has a wheel for it) the pass over a big input is a compiled multi-literal automaton
    that also says which literal matched; inputs up to SMALL_TEXT, and every input without hyperscan, use one
    ``bytes.find`` per literal over the lower-cased bytes. Set ``CUDNN_DOCTOR_NO_HYPERSCAN=1`` to force the
    pure-Python path (the benchmark compares both).
    """

    def __init__(self, literals: Iterable[str]) -> None:
        self.literals = sorted({lit.lower() for lit in literals if lit}, key=lambda s: (-len(s), s))
        self._bytes = [lit.encode("utf-8") for lit in self.literals]
        self._hs: Any = None
        self._hs_tried = False
        self._lossy: Prefilter | None = None  # its literals without a colour code's bytes (``_coloured``)

    @staticmethod
    def shared(literals: Iterable[str]) -> Prefilter:
        """One Prefilter per set of literals in a process (it keeps no state of a scan): the Matchers of
        many small logs (triage) share its compiled hyperscan database."""
        key = tuple(sorted({lit.lower() for lit in literals if lit}))
        return _shared_prefilter(key, _thread.get_ident(), hyperscan_off())

    @classmethod
    def of_bytes(cls, patterns: Iterable[bytes]) -> Prefilter:
        """A prefilter of byte strings that need not be text (a raw byte, a cut UTF-8 sequence), each as it is
        (give ASCII letters in lower case); its hits are the patterns read as Latin-1."""
        got = cls(())
        got._bytes = list(dict.fromkeys(patterns))
        got.literals = [p.decode("latin-1") for p in got._bytes]
        return got

    def _load_hyperscan(self) -> Any:
        """The compiled hyperscan database, made on the first big scan: importing hyperscan and compiling
        (~20-50 ms) would cost a pasted traceback more than scanning it with ``bytes.find``."""
        if not self._hs_tried:
            self._hs_tried = True
            self._hs = hyperscan_db(tuple(self._bytes))
        return self._hs

    @property
    def engine(self) -> str:
        """What a big scan runs on: hyperscan (where installed), else one ``bytes.find`` per literal."""
        return "hyperscan" if self._load_hyperscan() is not None else "find"

    def scan(self, data: bytes | str) -> dict[int, list[str]]:
        """{line start offset: literals on that line} for the lines of ``data`` holding a literal.

        Offsets are byte offsets (a ``str`` is scanned as its UTF-8 encoding). A big input goes through
        hyperscan, whose (end offset, literal id) hits are grouped by line; a pasted traceback (importing
        hyperscan and loading its database, ~50 ms, would cost it more than the scan), and every input where
        hyperscan is not installed, through one ``bytes.find`` per literal over the lower-cased bytes."""
        chunk = as_bytes(data)
        if not self.literals or not chunk:
            return {}
        if (len(chunk) > SMALL_TEXT or self._hs is not None) and self._load_hyperscan() is not None:
            found: list[tuple[int, int]] = []
            self._hs.scan(chunk, match_event_handler=lambda lit_id, _frm, to, *_: found.append((to, lit_id)))
            hits = _by_line(chunk, sorted(found))
        else:
            low = chunk.lower()
            hits = ((ls, k) for k, lit in enumerate(self._bytes) for ls in holding(low, lit))
        out: dict[int, list[str]] = {}
        for ls, k in hits:
            lits = out.setdefault(ls, [])
            if self.literals[k] not in lits:
                lits.append(self.literals[k])
        return out

    def behind_escapes(self, region: bytes) -> dict[int, list[str]]:
        """{line start offset: literals} for the lines of ``region`` as normalization reads them: a colour
        code inside a literal ('RuntimeError\\x1b[39m: CUDNN_...') hides it from the raw scan, so a region
        holding an escape has its lines that hold a byte normalization deletes (a control, or the one-byte CSI)
        cleaned and scanned once more (the others read the same: the raw scan has them). Those lines are found
        with ``find`` on a copy where each such byte is ESC (the region itself where it holds none but ESC): splitting and cleaning the whole region cost a
        sparse CI log, where one line in six is coloured, a quarter of its time. Where every escape is a colour
        code, only the lines ``_coloured`` says may hide a literal are cleaned."""
        if b"\x1b" not in region:
            return {}
        marked = region
        if b"\x9b" in region and b"\xc2\x9b" in region:  # the one-byte CSI (the one-byte test first: memchr)
            marked = region.replace(b"\xc2\x9b", b"\x1b\x1b")  # same length, same lines
        if any(map(marked.__contains__, _CONTROLS)):  # 29 memchr passes cost less than translating every byte
            marked = marked.translate(_MARK_DELETED)
        # (a few escapes: cleaning their lines costs less than _coloured's three passes over the region)
        maybe = self._coloured(region) if marked is region and region.count(b"\x1b") * COLOURED > len(region) else None
        starts = list(holding(marked, b"\x1b")) if maybe is None else maybe
        clean = delete_escapes(b"\n".join(region[ls : line_end(region, ls)] for ls in starts))  # never a newline: the n-th line is the n-th line
        found = self.scan(clean)
        if not found:
            return {}
        moved_at = list(accumulate(map((1).__add__, map(len, clean.split(b"\n"))), initial=0))  # where each starts, in C
        return {starts[bisect_left(moved_at, at)]: lits for at, lits in found.items()}

    def _coloured(self, region: bytes) -> list[int] | None:
        """In a region without a control or a one-byte CSI, the starts of its lines that may hide a literal
        behind an escape: those where the region with every other escape deleted (a cursor move, a line's
        erase: as normalization deletes them) and then every byte a colour code (SGR) is made of (ESC, '[',
        digits, ';', the letter m in either case) holds a literal with those bytes deleted too. A necessary
        condition: deleting the same bytes from a line as normalization reads it and from a literal keeps the one
        inside the other. None where a literal is made of those bytes alone. A log coloured on every line (a
        logging library's format) holds a dozen escapes a line: deleting each one with a regex cost 19 CPU s/GiB
        (bench/kinds.py colour). Equivalence: tests/test_behind_escapes.py."""
        if self._lossy is None:
            self._lossy = Prefilter.of_bytes(lit.translate(None, _COLOUR_BYTES) for lit in self._bytes)
        if b"" in self._lossy._bytes:
            return None  # a literal made of nothing else: every line may hide it
        if self._hs is not None and not self._lossy._hs_tried:
            self._lossy._load_hyperscan()  # as this one scans (a skimmed notebook's small regions: 800 finds each, 2x its CPU)
        lossy = delete_other_escapes(region).translate(None, _COLOUR_BYTES)
        hits = self._lossy.scan(lossy)
        if not hits:
            return []
        starts = list(accumulate(map((1).__add__, map(len, region.split(b"\n"))), initial=0))
        lossy_starts = list(accumulate(map((1).__add__, map(len, lossy.split(b"\n"))), initial=0))
        lines = sorted({bisect_left(lossy_starts, at) for at in hits})
        return [starts[k] for k in lines if region.find(b"\x1b", starts[k], line_end(region, starts[k])) >= 0]


COLOURED = 128  # an escape in every COLOURED bytes at least: a region coloured throughout (``_coloured``)
# the bytes of a colour code (ESC [ digits and ';' m), with the letter m in upper case: what _coloured deletes
_COLOUR_BYTES = b"\x1b[0123456789;mM"
# each byte delete_escapes deletes (ESC, which starts every sequence it deletes, among them) as ESC, the others
# kept (ESC itself not asked: that would compile the escapes' pattern at every start)
_MARK_DELETED = bytes(b if b == 0x1B or delete_escapes(bytes([b])) else 0x1B for b in range(256))
# those bytes but ESC: a region holding none of them (most) is marked as it is
_CONTROLS = tuple(bytes([b]) for b in range(256) if _MARK_DELETED[b] == 0x1B and b != 0x1B)


def indexed(literals: Iterable[Iterable[str]]) -> dict[str, tuple[int, ...]]:
    """{literal, in lower case: the indexes of the literal lists holding it} (the signatures' or the probes')."""
    got: dict[str, list[int]] = {}
    for idx, lits in enumerate(literals):
        for lit in lits:
            got.setdefault(lit.lower(), []).append(idx)
    return {lit: tuple(idxs) for lit, idxs in got.items()}


def holding(low: bytes, lit: bytes) -> Iterator[int]:
    """The start offsets of the lines of ``low`` holding ``lit`` (one ``find`` per such line, in C)."""
    pos = low.find(lit)
    while pos >= 0:
        yield low.rfind(b"\n", 0, pos) + 1
        le = low.find(b"\n", pos)
        pos = -1 if le < 0 else low.find(lit, le)


def _by_line(chunk: bytes, found: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """(line start, literal id) of hyperscan's sorted (end offset, literal id) hits: each line found once."""
    end = ls = -1
    for to, k in found:
        if to > end:  # a new line (the hit ends past the current line's end)
            end, ls = line_end(chunk, to - 1), chunk.rfind(b"\n", 0, to - 1) + 1
        yield ls, k


class RuleOut:
    """Which context items may match in a window, and on which lines (``literals``: item -> its literals,
    lower-case, for the items that have some; each of an item's matches holds one). The window is read once,
    as normalization reads it: one pass of a database of every context item's literals says which stand in it
    at all (a big window, with hyperscan), each literal asked for is located once, and each context's marked
    lines are worked out once; a match's region is then a lookup (a warning repeated 10,000 times asks for
    10,000 overlapping regions)."""

    def __init__(self, literals: dict[str, tuple[bytes, ...]]) -> None:
        self.literals = literals
        self.all = tuple(sorted({lit for lits in literals.values() for lit in lits}))
        self._dbs: dict[int, Any] = {}  # per thread: a database's scratch serves one scan at a time

    def marked(self, lines: Lines, lo: int, hi: int, key: Any, items: dict[bytes, frozenset[str]]) -> list[tuple[int, frozenset[str]]]:
        """The lines lo..hi of a window holding one of the literals of ``items`` ({literal: the items it is one
        of}, a context's, ``key``), each with the items whose literals it holds."""

        def make() -> list[tuple[int, frozenset[str]]]:
            at: dict[int, frozenset[str]] = {}
            one: dict[frozenset[str], frozenset[str]] = {}  # each set of items once (not one per line)
            where = lines.once(RuleOut, lambda: self._locator(lines))  # (each literal located once per window)
            for lit in items:
                for li in where(lit):
                    have = at.get(li)
                    at[li] = items[lit] if have is None else one.setdefault(have | items[lit], have | items[lit])
            return sorted(at.items())

        marks = lines.once(("marks", key), make)
        return marks[bisect_left(marks, (lo,)) : bisect_left(marks, (hi + 1,))]  # type: ignore[no-any-return]

    def _locator(self, lines: Lines) -> Any:
        """A function giving the indexes of the window's lines holding a literal, as normalization reads them (each
        literal located once; with hyperscan, a literal not in the window at all is not looked for)."""
        low, at = delete_escapes(lines.data).lower(), {}  # (never a newline: the n-th line is the n-th line)
        thread = _thread.get_ident()
        if len(lines.data) > SMALL_TEXT and thread not in self._dbs:
            self._dbs[thread] = hyperscan_db(self.all, single=True)
        db = self._dbs.get(thread) if len(lines.data) > SMALL_TEXT else None
        present: set[bytes] | None = None if db is None else set()
        if db is not None:
            db.scan(low, match_event_handler=lambda lit_id, *_: present.add(self.all[lit_id]))  # type: ignore[union-attr]

        def where(lit: bytes) -> list[int]:
            if lit not in at:  # (the lines from one holding it to the next counted in C)
                starts = [0, *holding(low, lit)] if present is None or lit in present else []
                at[lit] = list(accumulate(low.count(b"\n", a, b) for a, b in pairwise(starts)))
            return at[lit]

        return where


@lru_cache(maxsize=64)
def _shared_prefilter(literals: tuple[str, ...], _thread_id: int, _off: bool) -> Prefilter:
    # one per thread too: a hyperscan database's scratch space serves one scan at a time (Dask threads); and one
    # per setting of CUDNN_DOCTOR_NO_HYPERSCAN, which a prefilter reads once: a process that turns it off for a
    # while (a test, an embedding program) must not keep the pure-Python prefilter after it turns it on again
    return Prefilter(literals)


def hyperscan_off() -> bool:
    """Whether ``CUDNN_DOCTOR_NO_HYPERSCAN`` turns hyperscan off now (a key of every cached prefilter)."""
    return bool(os.environ.get("CUDNN_DOCTOR_NO_HYPERSCAN"))


def hyperscan_db(literals: tuple[bytes, ...], single: bool = False) -> Any:
    """The hyperscan database of ``literals`` (caseless; each reported at every match, or once per scan where
    ``single``), through the cache (cache.hyperscan_database): compiling a thousand literals costs 20-30 ms per
    process. None where hyperscan is not installed, cannot be used, or ``CUDNN_DOCTOR_NO_HYPERSCAN`` is set."""
    if not literals or hyperscan_off():
        return None
    try:
        import hyperscan  # type: ignore[import-not-found]

        from ..kb import cache

        # cache.digest: hashlib here would load OpenSSL, ~3 ms of every pasted traceback's start-up
        digest = cache.digest(repr(literals).encode())
        kind = "hscontext" if single else "hyperscan"  # kept apart: neither kind evicts the other
        key = f"hyperscan {getattr(hyperscan, '__version__', '?')} {sys.platform} {_HS_SPELLING} {kind} {digest}"
        flags = hyperscan.HS_FLAG_CASELESS | (hyperscan.HS_FLAG_SINGLEMATCH if single else 0)

        def make() -> tuple[list[bytes], list[int], list[int]]:
            return [hs_literal(lit) for lit in literals], list(range(len(literals))), [flags] * len(literals)

        return cache.hyperscan_database(hyperscan, key, make, kind=kind, keep=4 if single else cache.HYPERSCAN_ENTRIES)
    except Exception:
        return None


_HS_SPELLING = 2  # bump when hs_literal or the flags above change: the cached databases are then not used


@lru_cache(maxsize=1 << 15)  # every prefilter (one more per retired probe) spells the same literals
def hs_literal(lit: bytes) -> bytes:
    """A hyperscan expression matching exactly ``lit`` (every byte that is not alphanumeric escaped)."""
    return b"".join(bytes([b]) if chr(b).isalnum() and b < 128 else b"\\x%02x" % b for b in lit)

"""The prefilter: one pass over a window for every signature's and probe's literals.

A prefilter finds every line holding one of the signatures' literals (one combined scan with hyperscan where
installed; one ``bytes.find`` per literal for a pasted traceback, and where hyperscan is not installed). A speed
mechanism (bench/: every kind of 1 GiB log); its equivalence tests: tests/test_streaming.py (the two engines),
tests/test_behind_escapes.py.
"""

from __future__ import annotations

import _thread  # threading's get_ident, without importing threading (start-up)
import os
import sys
from bisect import bisect_left
from collections.abc import Iterable
from functools import lru_cache
from itertools import accumulate, compress
from operator import ne
from typing import Any

from ..read.sources import Block
from ..read.textsafe import delete_escapes

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

    @staticmethod
    def shared(literals: Iterable[str]) -> Prefilter:
        """One Prefilter per set of literals in a process (it keeps no state of a scan): the Matchers of
        many small logs (triage) share its compiled hyperscan database."""
        return _shared_prefilter(tuple(sorted({lit.lower() for lit in literals if lit})), _thread.get_ident())

    def _load_hyperscan(self) -> Any:
        """The compiled hyperscan database, made on the first big scan: importing hyperscan and compiling
        (~20-50 ms) would cost a pasted traceback more than scanning it with ``bytes.find``."""
        if not self._hs_tried:
            self._hs_tried = True
            if self.literals and not os.environ.get("CUDNN_DOCTOR_NO_HYPERSCAN"):
                try:
                    import hyperscan  # type: ignore[import-not-found]

                    self._hs = _hyperscan_db(hyperscan, tuple(self._bytes))
                except Exception:
                    self._hs = None
        return self._hs

    @property
    def engine(self) -> str:
        """What a big scan runs on: hyperscan (where installed), else one ``bytes.find`` per literal."""
        return "hyperscan" if self._load_hyperscan() is not None else "find"

    def scan(self, data: bytes | str, start: int = 0, end: int | None = None) -> dict[int, list[str]]:
        """{line start offset: literals on that line} for the lines of data[start:end] holding a literal.

        Offsets are byte offsets (a ``str`` is scanned as its UTF-8 encoding)."""
        data = as_bytes(data)
        end = len(data) if end is None else end
        if not self.literals or start >= end:
            return {}
        chunk = data[start:end] if start or end != len(data) else data
        if (end - start > SMALL_TEXT or self._hs is not None) and self._load_hyperscan() is not None:
            found: list[tuple[int, int]] = []

            def on_match(lit_id: int, _frm: int, to: int, _flags: int, _ctx: object) -> None:
                found.append((to, lit_id))

            self._hs.scan(chunk, match_event_handler=on_match)
            return self._lines_of(chunk, start, found)
        return self._scan_find(chunk.lower(), start)

    def _lines_of(self, chunk: bytes, start: int, found: list[tuple[int, int]]) -> dict[int, list[str]]:
        """Group hyperscan's (end offset, literal id) hits by line."""
        out: dict[int, list[str]] = {}
        if found:
            found.sort()
            line_end = -1
            lits: list[str] = []
            literals = self.literals
            for to, lit_id in found:
                if to > line_end:  # a new line (the hit ends past the current line's end)
                    ls = chunk.rfind(b"\n", 0, to - 1) + 1
                    le = chunk.find(b"\n", to - 1)
                    line_end = len(chunk) if le < 0 else le
                    lits = out[start + ls] = []
                lit = literals[lit_id]
                if lit not in lits:
                    lits.append(lit)
        return out

    def _scan_find(self, low: bytes, start: int) -> dict[int, list[str]]:
        """One ``bytes.find`` per literal over the lower-cased bytes: a pasted traceback (importing hyperscan
        and loading its database, ~50 ms, would cost it more than the scan), and every input where hyperscan
        is not installed (~2.5x the CPU of a trie-shaped `re` alternation, which this replaced: no budget runs
        without hyperscan)."""
        out: dict[int, list[str]] = {}
        find = low.find
        for raw, lit in zip(self._bytes, self.literals, strict=True):
            pos = find(raw)
            while pos >= 0:
                ls = low.rfind(b"\n", 0, pos) + 1
                lits = out.setdefault(start + ls, [])
                if lit not in lits:
                    lits.append(lit)
                le = find(b"\n", pos)
                pos = -1 if le < 0 else find(raw, le)
        return {k: out[k] for k in sorted(out)}

    def behind_escapes(self, data: bytes, start: int, end: int) -> dict[int, list[str]]:
        """{line start offset: literals} for the lines of data[start:end] as normalization reads them: a colour
        code inside a literal ('RuntimeError\\x1b[39m: CUDNN_...') hides it from the raw scan, so a region
        holding an escape has the lines that deleting what normalization deletes changes scanned once more,
        cleaned (the others read the same: the raw scan has them; scanning the whole cleaned region found a dense
        log's ~110,000 literal lines per 64 MiB a second time, each grouped in Python)."""
        if data.find(b"\x1b", start, end) < 0:
            return {}
        raw = data[start:end].split(b"\n")
        clean = delete_escapes(data[start:end]).split(b"\n")  # never a newline: the n-th line is the n-th line
        changed = list(map(ne, raw, clean))  # in C: no Python step per line
        moved = list(compress(clean, changed))
        found = self.scan(b"\n".join(moved))
        if not found:
            return {}
        raw_at, moved_at = list(compress(_line_starts(raw), changed)), _line_starts(moved)
        return {start + raw_at[bisect_left(moved_at, at)]: lits for at, lits in found.items()}


def _line_starts(lines: list[bytes]) -> list[int]:
    """Where each of ``lines`` starts once they are joined by newlines, and one past the end (in C)."""
    return list(accumulate(map((1).__add__, map(len, lines)), initial=0))


@lru_cache(maxsize=64)
def _shared_prefilter(literals: tuple[str, ...], _thread_id: int) -> Prefilter:
    # one per thread too: a hyperscan database's scratch space serves one scan at a time (Dask threads)
    return Prefilter(literals)


def _hyperscan_db(hyperscan: Any, literals: tuple[bytes, ...]) -> Any:
    """The hyperscan database for ``literals`` (every match, caseless), through the cache
    (cache.hyperscan_database): compiling a thousand literals costs 20-30 ms per process."""
    from ..kb import cache

    # cache.digest: hashlib here would load OpenSSL, ~3 ms of every pasted traceback's start-up
    digest = cache.digest(repr(literals).encode())
    key = f"hyperscan {getattr(hyperscan, '__version__', '?')} {sys.platform} {_HS_SPELLING} {digest}"

    def make() -> tuple[list[bytes], list[int], list[int]]:
        expressions = [hs_literal(lit) for lit in literals]
        return expressions, list(range(len(expressions))), [hyperscan.HS_FLAG_CASELESS] * len(literals)

    return cache.hyperscan_database(hyperscan, key, make)


_HS_SPELLING = 1  # bump when _hs_literal or the flags above change: the cached databases are then not used


@lru_cache(maxsize=1 << 15)  # every prefilter (one more per retired probe) spells the same literals
def hs_literal(lit: bytes) -> bytes:
    """A hyperscan expression matching exactly ``lit`` (every byte that is not alphanumeric escaped)."""
    return b"".join(bytes([b]) if chr(b).isalnum() and b < 128 else b"\\x%02x" % b for b in lit)

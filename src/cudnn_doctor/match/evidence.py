"""Context evidence around a match: ``require_any`` / ``exclude_any`` / ``support_any`` of a signature.

Each item is a regex or an ``@set`` from the catalog's evidence file. Where every item has a literal on the
line of its match, the lines to search are found in the raw bytes first (_Evidence.lines_with), so the 50
lines around each of 10,000 repeated warnings are not all normalized.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from ..patterns import Lazy, LazyRe, compile_pattern, regex_error
from ..textsafe import NORMALIZE_DELETES_BYTES
from .lines import _Lines, first_per_line, line_indexes, meets
from .regexinfo import alternative_heads, alternative_literals, alternative_runs, derive_literal, line_local

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:  # only a type here: match/ needs no catalog module at run time
    from typing import Any

    from ..catalog import Catalog

MATCH_TIMEOUT_S = 1.0
NON_RNN = "@non_rnn"
# An RNN API or op named inside the matched text: direct evidence that outweighs conv/batch-norm words nearby.
DIRECT_RNN = Lazy(r"\bcudnnRNN\w*|\bcudnn(?:Set|Get)RNN\w*|\bCudnnRNN\w*|\b_cudnn_rnn\w*|\b(?:Then|Do)Rnn(?:Forward|Backward)\b|\brnn-inl\.h\b|\bcurnn\.jl\b")
# bytes that normalize.py deletes from inside a line (ANSI escapes, control characters other than CR)
_JOINABLE_BYTES = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
_JOINABLE = LazyRe(b"[" + re.escape(_JOINABLE_BYTES) + b"]|\xc2\x9b")  # \x9b: C1 CSI in UTF-8


def _clean_region(lines: _Lines, lo: int, hi: int) -> bytes:
    """Lines lo..hi as lower-cased raw bytes, without what normalize_line deletes from inside a line (ANSI
    colours, control characters), so a literal of the normalized text is in them (kept per window)."""
    key = ("region", lo, hi)
    got = lines.memo.get(key)
    if got is None:
        got = lines.memo[key] = _delete_joinable(lines.region(lo, hi)).lower()
    return got  # type: ignore[no-any-return]


# A clean piece starts this big and doubles while context checks walk forward through a dense log (up to the
# most); a check away from the pieces made starts small again (one error repeated 10,000 times in a long log).
PIECE_BYTES = 4096
PIECE_BYTES_MAX = 1 << 20


class _Piece:
    """Lines ``first``..``last`` of a window as clean bytes (_clean_region's form), with the clean length of the
    lines before each (``acc``) and, once asked, the prefilter's words in them (``words``)."""

    __slots__ = ("_ends", "acc", "at", "clean", "first", "last", "look", "words")

    def __init__(self, first: int, clean: bytes) -> None:
        self.first = first
        self.clean = clean
        self.look: dict[tuple[bytes, ...], tuple[bytes, ...]] = {}  # a set of literals -> those in the piece
        # acc[i]: the bytes of the piece's lines 0..i-1 but their newlines
        self.acc = [0, *itertools.accumulate(map(len, clean.split(b"\n")))]
        self.last = first + len(self.acc) - 2
        self.words: _Words | None = None
        self.at: dict[tuple[bytes, Any], list[int]] = {}  # (a literal, its conditions) -> lines (lines_of)
        self._ends: list[int] | None = None

    def lines_of(self, lit: bytes, conds: tuple[tuple[bytes, ...], ...] | None = None, word_start: bool = False) -> list[int]:
        """The sorted (window) indexes of the piece's lines holding ``lit`` (at a word start, where
        ``word_start``: _evidence_word_starts) and all the runs of one of ``conds`` where given
        (_evidence_conditions), found once per piece: the checks of every signature around one match ask for
        the same literals over overlapping ranges."""
        key = (lit, conds, word_start)
        got = self.at.get(key)
        if got is None:
            got = self.at[key] = []
            positions: list[int] = []
            first_per_line(self.clean, lit, positions, word_start=word_start, conds=conds)
            if positions:
                ends = self.ends()
                got += (self.first + bisect.bisect_left(ends, pos) for pos in positions)  # one per line
        return got

    def ends(self) -> list[int]:
        """The offset in ``clean`` of each line's newline (the last line's: the length), made on first use."""
        if self._ends is None:
            acc = self.acc
            self._ends = [acc[i + 1] + i for i in range(len(acc) - 1)]
        return self._ends

    def span(self, lo: int, hi: int) -> tuple[int, int]:
        """The byte range of lines lo..hi (within the piece) in ``clean``, without the last newline."""
        i, j = lo - self.first, hi - self.first
        return self.acc[i] + i, self.acc[j + 1] + j


class _Cover:
    """The clean pieces of a big window made so far: sorted, never overlapping, made only where a context check
    looks (the 100 lines around each of 10,000 repeated warnings, not the whole window; all of it, in a few
    growing pieces, when the checks walk every line of a dense log)."""

    __slots__ = ("firsts", "grow", "pieces")

    def __init__(self) -> None:
        self.firsts: list[int] = []
        self.pieces: list[_Piece] = []
        self.grow = PIECE_BYTES

    def segments(self, lines: _Lines, lo: int, hi: int) -> list[tuple[_Piece, int, int, int]]:
        """(piece, first line, start, end) for the parts of lines lo..hi, in order, making missing pieces."""
        out: list[tuple[_Piece, int, int, int]] = []
        li = lo
        while li <= hi:
            i = bisect.bisect_right(self.firsts, li) - 1
            if i >= 0 and self.pieces[i].last >= li:
                piece = self.pieces[i]
            else:
                piece = self._make(lines, li, hi, i)
                self.firsts.insert(i + 1, li)
                self.pieces.insert(i + 1, piece)
            top = min(hi, piece.last)
            start, end = piece.span(li, top)
            out.append((piece, li, start, end))
            li = top + 1
        return out

    def _make(self, lines: _Lines, first: int, hi: int, i: int) -> _Piece:
        """A piece from line ``first`` (not in a piece), through ``hi`` at least, short of the next piece."""
        adjacent = i >= 0 and self.pieces[i].last == first - 1
        self.grow = min(PIECE_BYTES_MAX, self.grow * 2) if adjacent else PIECE_BYTES
        data = lines.data
        start = lines.start(first)
        nxt = i + 1
        if nxt < len(self.firsts):
            limit = lines.start(self.firsts[nxt]) - 1
            hi = min(hi, self.firsts[nxt] - 1)
        else:
            limit = len(data)
        # through line hi (located from the nearest line known, such as the match's), or further: the grown
        # size, ended at a line's end
        nl = data.find(b"\n", max(lines.start(hi), start + self.grow), limit)
        end = limit if nl < 0 else nl
        return _Piece(first, _delete_joinable(data[start:end].lower()))


def _cover(lines: _Lines) -> _Cover:
    got = lines.memo.get("cover")
    if got is None:
        got = lines.memo["cover"] = _Cover()
    return got  # type: ignore[no-any-return]


def _joinable(lines: _Lines) -> bool:
    got = lines.memo.get("joinable")
    if got is None:
        got = lines.memo["joinable"] = _has_joinable(lines.data)
    return got  # type: ignore[no-any-return]


def _has_joinable(data: bytes) -> bool:
    # an escape (colours: the usual case) is found by memchr before a copy of the whole data is made
    # (one byte is looked for with memchr; two, such as the C1 CSI's, cost a slower search of every byte)
    return (
        b"\x1b" in data
        or (b"\x9b" in data and b"\xc2\x9b" in data)
        or len(data.translate(None, _JOINABLE_BYTES)) != len(data)
    )


def _delete_joinable(data: bytes) -> bytes:
    """``data`` without what normalize_line deletes from inside a line: colours first (one literal byte to look
    for), then anything else."""
    if _has_joinable(data):
        data = _CSI.sub(b"", data)
        if _has_joinable(data):
            data = NORMALIZE_DELETES_BYTES.sub(b"", data)
    return data


_UNSET: Any = object()
# a piece's caseless words (what context literals are): (those found, those looked for)
_Words = tuple[set[bytes], frozenset[bytes]]
_UNKNOWN: _Words = (set(), frozenset())  # a piece's words when the prefilter cannot say (by identity)
_CSI = LazyRe(rb"\x1b\[[0-?]*[ -/]*[@-~]")


@lru_cache(maxsize=4096)
def _spans_lines(lits: tuple[bytes, ...]) -> bool:
    """Whether a literal of the set holds a newline (then it is not looked for piece by piece)."""
    return any(b"\n" in lit for lit in lits)


@lru_cache(maxsize=4096)
def _absence_literals(parts: tuple[str, ...]) -> tuple[bytes, ...] | None:
    """Lower-cased literals such that every match of any of ``parts`` (IGNORECASE) holds one; None when some
    part has none (it may match without a literal, or the parser cannot read it)."""
    out: list[bytes] = []
    for part in parts:
        lits = alternative_literals(part, ("IGNORECASE",))
        if not lits:
            return None
        out += (x.encode() for x in lits)
    return tuple(dict.fromkeys(out))


_CLASS = re.compile(r"\[\^?\]?(?:\\.|[^\]\\])*\]")
# what an item cannot be combined into one alternation with: back-references and conditionals (their group
# numbers shift), inline flags for the whole pattern (``(?x)``, not the scoped ``(?x:...)``)
_UNCOMBINABLE = LazyRe(r"\\[1-9]|\\g<|\(\?P=|\(\?\(|\(\?[aiLmsux-]*[aiLmsux]\)")


@lru_cache(maxsize=4096)
def _evidence_literals(parts: tuple[str, ...]) -> tuple[bytes, ...] | None:
    """See _Evidence.literals (cached per set of patterns, not per Matcher)."""
    out: list[bytes] = []
    for part in parts:
        bare = _CLASS.sub("", part)  # '^' negating a class ([^\n)]) is no anchor
        if any(a in bare for a in ("^", "$", "\\A", "\\Z", "(?<")) or not line_local(part, ("IGNORECASE",)):
            return None
        lit = derive_literal(part)
        lits = (lit,) if lit is not None and lit.isascii() else alternative_literals(part, ("IGNORECASE",))
        if not lits:  # an alternation: one literal per alternative ('DataParallel|data_parallel\.py')
            return None
        out += (x.lower().encode() for x in lits)
    return tuple(dict.fromkeys(out))


# for each literal of a context, the conjunctions of runs (one per alternative it stands for) a line holding it
# must satisfy one of for an item to match there; None: every line holding it may
Conditions = dict[bytes, tuple[tuple[bytes, ...], ...] | None]


@lru_cache(maxsize=4096)
def _evidence_conditions(parts: tuple[str, ...], lits: tuple[bytes, ...]) -> Conditions | None:
    """What a line holding one of ``lits`` (_evidence_literals of ``parts``) must also hold for an item to match
    there: every literal run of one of the items' alternatives (``torch[/\\]func[/\\]`` needs 'func' besides
    'torch', so the 'torch' of a launcher command or a DeprecationWarning does not make its line evidence).
    Each alternative is filed under each literal that lies in one of its runs; None when an item cannot be read
    this way (then a line holding a literal is enough)."""
    conds: dict[bytes, list[tuple[bytes, ...]]] = {lit: [] for lit in lits}
    for part in parts:
        alternatives = alternative_runs(part, ("IGNORECASE",))
        if not alternatives:
            return None
        for runs in alternatives:
            conj = tuple(r.encode() for r in runs)
            homes = [lit for lit in lits if any(lit in r for r in conj)]
            if not homes:  # no literal of the set lies in it: it cannot be filed (not expected)
                return None
            for lit in homes:
                conds[lit].append(conj)
    # a literal with an alternative it alone satisfies needs no check
    return {lit: None if meets(lit, tuple(cs)) else tuple(dict.fromkeys(cs)) for lit, cs in conds.items()}


@lru_cache(maxsize=4096)
def _evidence_word_starts(parts: tuple[str, ...], lits: tuple[bytes, ...]) -> frozenset[bytes]:
    """Those of ``lits`` (_evidence_literals of ``parts``) that each alternative holding them in one of its runs
    starts with, after ``\\b``: a line holds an item's match there only where such a literal is at a word
    start (``\\btch(?:-rs)?\\b``: not the 'tch' of every 'batches/s' line). Empty when an item cannot be read
    this way."""
    texts = {lit: lit.decode("utf-8", "replace") for lit in lits}
    homed: set[bytes] = set()
    not_started: set[bytes] = set()
    for part in parts:
        runs, heads = alternative_runs(part, ("IGNORECASE",)), alternative_heads(part, ("IGNORECASE",))
        if runs is None or heads is None or len(runs) != len(heads):
            return frozenset()
        for alt_runs, head in zip(runs, heads, strict=True):
            homes = [lit for lit, text in texts.items() if any(text in r for r in alt_runs)]
            if not homes:  # no literal of the set lies in its runs: cannot be said
                return frozenset()
            homed.update(homes)
            not_started.update(lit for lit in homes if head is None or not head.startswith(texts[lit]))
    return frozenset(homed - not_started)


class _Evidence:
    """Finds a signature's context evidence. ``words_in(data)`` is the prefilter's answer to which of its
    words are in ``data`` (None: not known). Over a big window the prefilter's pass says which literals are
    in the window at all; the lines a check looks at are cleaned (colour codes deleted, lower-cased) in pieces
    made once (_Cover), and ``words_in`` over a piece says which literals are in it, so most checks of an
    error repeated 10,000 times, each with its own 100 lines of context, look for no literal at all."""

    def __init__(self, catalog: Catalog, words_in: Callable[[bytes], _Words | None] | None = None) -> None:
        self._words_in = words_in
        self._sets = catalog.evidence
        self._cache: dict[str, Any] = {}
        self._lits: dict[tuple[str, ...], tuple[bytes, ...] | None] = {}
        self._conds: dict[tuple[str, ...], Conditions | None] = {}
        self._starts: dict[tuple[str, ...], frozenset[bytes]] = {}
        self._absence: dict[tuple[str, ...], tuple[bytes, ...] | None] = {}
        self._any: dict[tuple[str, ...], Any] = {}

    def pattern(self, item: str) -> Any:
        got = self._cache.get(item)
        if got is None:
            got = self._cache[item] = compile_pattern(self._source(item), ("IGNORECASE",))
        return got

    def _parts(self, items: tuple[str, ...]) -> tuple[str, ...]:
        """The patterns of ``items``, an ``@set`` read as its entries."""
        return tuple(part for item in items for part in (self._sets.get(item[1:], ()) if item.startswith("@") else (item,)))

    def _source(self, item: str) -> str:
        if item.startswith("@"):
            parts = self._sets.get(item[1:], ())
            return "|".join(f"(?:{p})" for p in parts) or r"(?!x)x"
        return item

    def any_pattern(self, items: tuple[str, ...]) -> Any:
        """One pattern that matches where any of ``items`` does: whether a line holds any evidence at all is
        one search. None where they do not combine (then each is searched on its own): a back-reference or a
        conditional (group numbers shift in an alternation), an inline flag for the whole pattern (``(?x)``
        would make every other item verbose), or an error."""
        got = self._any.get(items, _UNSET)
        if got is _UNSET:
            sources = [self._source(item) for item in items]
            got = None
            if not any(_UNCOMBINABLE.search(source) for source in sources):
                try:
                    got = compile_pattern("|".join(f"(?:{source})" for source in sources), ("IGNORECASE",))
                except regex_error():
                    got = None
            self._any[items] = got
        return got

    def literals(self, items: tuple[str, ...]) -> tuple[bytes, ...] | None:
        """Lower-cased ASCII literals such that every match of any of ``items`` lies on one line holding one of
        them; None when that cannot be said (an item may span lines, is anchored, or has no clear literal)."""
        got = self._lits.get(items)
        if got is None and items not in self._lits:
            got = self._lits[items] = _evidence_literals(self._parts(items))
        return got

    def conditions(self, items: tuple[str, ...]) -> Conditions | None:
        """_evidence_conditions of ``items`` (whose literals() are not None)."""
        got = self._conds.get(items, _UNSET)
        if got is _UNSET:
            lits = self.literals(items)
            got = self._conds[items] = _evidence_conditions(self._parts(items), lits) if lits else None
        return got  # type: ignore[no-any-return]

    def word_starts(self, items: tuple[str, ...]) -> frozenset[bytes]:
        """_evidence_word_starts of ``items`` (whose literals() are not None)."""
        got = self._starts.get(items)
        if got is None:
            lits = self.literals(items)
            got = self._starts[items] = _evidence_word_starts(self._parts(items), lits) if lits else frozenset()
        return got

    def lines_with(self, items: tuple[str, ...], lines: _Lines, lo: int, hi: int) -> list[int] | None:
        """The lines among lo..hi where an item may match, found in the raw bytes, or None (use them all).

        Searching only those lines gives the same first match as searching all of them (each match lies on
        a line holding a literal of its item, and line order is kept), and saves normalizing the 50 lines
        around each of 10,000 repeated warnings. A line holding something normalization deletes from inside
        a line (escape sequences, control characters) is kept too: that could join two halves of a literal."""
        lits = self.literals(items)
        if lits is None:
            return None
        lo, hi = max(0, lo), min(lines.count - 1, hi)
        if hi < lo:
            return []
        key = (lits, lo, hi)  # signatures with the same context around the same line: looked up once
        got = lines.memo.get(key)
        if got is None:
            if lines.memo.get("scanned") is not None and not _spans_lines(lits):
                # a big window: the clean pieces around lo..hi, only the literals there
                got = []
                conds, starts = self.conditions(items) or {}, self.word_starts(items)
                for piece, first, _start, _end in _cover(lines).segments(lines, lo, hi):
                    top = min(hi, piece.last)
                    for lit in self._in_piece(lits, lines, piece):
                        at = piece.lines_of(lit, conds.get(lit), lit in starts)
                        got += at[bisect.bisect_left(at, first) : bisect.bisect_right(at, top)]
                if got:
                    got = sorted(set(got))
            else:
                got = self._lines_with(lits, lines, lo, hi, self.conditions(items), self.word_starts(items))
            lines.memo[key] = got
        return got

    def _present(self, lits: tuple[bytes, ...], lines: _Lines, piece: _Piece | None = None) -> tuple[bytes, ...]:
        """Those of ``lits`` that may be in the window (or in ``piece`` of it) once colour codes are deleted.
        The prefilter's pass over the raw window says which are not there, and one over a clean piece which
        of them are in the piece (most of a context's literals are in no window of a log, and the few that
        are, such as 'higher', are rarely in the 100 lines around a match). A literal a pass did not look for
        may be there."""
        key = ("present-lits", lits)
        maybe: tuple[bytes, ...] | None = lines.memo.get(key)
        if maybe is None:
            joinable = _joinable(lines)  # not in the raw bytes: a colour code may split it there
            maybe = lines.memo[key] = tuple(lit for lit in lits if joinable or self._in_raw(lit, lines) is not False)
        if not maybe or piece is None or lines.memo.get("scanned") is None:  # no hyperscan pass: no piece pass
            return maybe
        if piece.words is None:
            got = self._words_in(piece.clean) if self._words_in else None
            piece.words = _UNKNOWN if got is None else got
        if piece.words is _UNKNOWN:  # the prefilter cannot say (no hyperscan): all may be there
            return maybe
        found, scanned = piece.words
        return tuple(lit for lit in maybe if lit in found or lit not in scanned)

    def _in_piece(self, lits: tuple[bytes, ...], lines: _Lines, piece: _Piece) -> tuple[bytes, ...]:
        """_present for ``piece``, kept on it: the checks of every signature around a repeated error ask the
        same piece for the same literals."""
        got = piece.look.get(lits)
        if got is None:
            got = piece.look[lits] = self._present(lits, lines, piece)
        return got

    @staticmethod
    def _in_raw(lit: bytes, lines: _Lines) -> bool | None:
        """Whether the prefilter's pass found ``lit`` in the window's raw bytes (None: not known, it is not one
        of its words; False still allows it once colour codes are deleted)."""
        scanned, present = lines.memo.get("scanned"), lines.memo.get("present")
        word = (lit, True)
        if scanned is None or present is None or word not in scanned:
            return None
        return word in present

    def _lines_with(
        self, lits: tuple[bytes, ...], lines: _Lines, lo: int, hi: int, conds: Conditions | None = None, starts: frozenset[bytes] = frozenset()
    ) -> list[int]:
        """lines_with over the raw lines (a paste, or no hyperscan): the lines holding a literal (at a word start
        where it is one of ``starts``; with the runs of one of its alternatives: ``conds``), and every line
        holding what normalization deletes (a colour code may split a literal or a run there)."""
        low = lines.region(lo, hi).lower()
        positions: list[int] = []
        for lit in lits:
            first_per_line(low, lit, positions, word_start=lit in starts, conds=conds.get(lit) if conds else None)
        deletable = len(low) - len(low.translate(None, _JOINABLE_BYTES))
        if deletable:
            if deletable > low.count(b"\x1b"):  # other control bytes (rare): a regex pass
                positions += (m.start() for m in _JOINABLE.finditer(low))
            else:  # ANSI colours: one ESC per line is enough (memchr, line to line)
                first_per_line(low, b"\x1b", positions)
        if b"\xc2\x9b" in low:
            positions += (m.start() for m in _JOINABLE.finditer(low))
        return line_indexes(low, positions, lo)

    def absence_literals(self, items: tuple[str, ...]) -> tuple[bytes, ...] | None:
        """Lower-cased literals such that every match of any of ``items`` holds one (None: cannot be said)."""
        got = self._absence.get(items, _UNSET)
        if got is _UNSET:
            got = self._absence[items] = _absence_literals(self._parts(items))
        return got  # type: ignore[no-any-return]

    def absent(self, items: tuple[str, ...], lines: _Lines, lo: int, hi: int) -> bool:
        """True when no item can match in lines lo..hi: each item needs one of its literals (one per alternative)
        and none is in those lines' raw bytes once what normalization deletes (ANSI colours) is deleted.
        A necessary condition only, so it holds for items that span lines too: an error repeated 10,000 times
        then costs no normalization of the 100 lines around each occurrence when its evidence is not there."""
        lits = self.absence_literals(items)
        if lits is None:
            return False
        lo, hi = max(0, lo), min(lines.count - 1, hi)
        if hi < lo:
            return True
        if lines.memo.get("scanned") is not None and not _spans_lines(lits):
            # a big window: the clean pieces around lo..hi, only the literals there
            if not self._present(lits, lines):
                return True
            for piece, _first, start, end in _cover(lines).segments(lines, lo, hi):
                data = piece.clean
                for lit in self._in_piece(lits, lines, piece):
                    if data.find(lit, start, end) >= 0:
                        return False
            return True
        key = ("absent", lits, lo, hi)
        got = lines.memo.get(key)
        if got is None:
            low = _clean_region(lines, lo, hi)
            got = lines.memo[key] = not any(lit in low for lit in lits)
        return got

    def find(self, items: Sequence[str], text: str, memo: dict[Any, Any] | None = None) -> str | None:
        """The first evidence text found, or None (remembered in ``memo`` for the same items and text)."""
        if memo is not None:
            key = ("find", tuple(items), text)
            if key in memo:
                return memo[key]  # type: ignore[no-any-return]
            got = memo[key] = self.find(items, text)
            return got
        for item in items:
            m = self.pattern(item).search(text, timeout=MATCH_TIMEOUT_S)
            if m:
                return m.group(0)[:120]
        return None

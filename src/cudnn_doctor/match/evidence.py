"""Context evidence around a match: ``require_any`` / ``exclude_any`` / ``support_any`` of a signature.

Each item is a regex or an ``@set`` from the catalog's evidence file. Where every item has a literal on the
line of its match, the lines to search are found in the raw bytes first (_Evidence.lines_with), so the 50
lines around each of 10,000 repeated warnings are not all normalized.
"""

from __future__ import annotations

import _thread  # threading's get_ident, without importing threading (start-up)
import bisect
import itertools
import re
import sys
from collections.abc import Callable, Sequence
from functools import lru_cache

from ..kb.patterns import Lazy, LazyRe, compile_pattern, derived, regex_error
from ..read.textsafe import NORMALIZE_DELETES_BYTES
from .lines import _Lines, first_per_line, line_indexes, meets
from .prefilter import _hs_literal
from .regexinfo import alternative_heads, alternative_literals, alternative_runs, derive_literal, line_local

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:  # only a type here: match/ needs no catalog module at run time
    from typing import Any

    from ..kb.load import Catalog

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
# up to this many lines of a piece holding a literal are placed by counting the newlines up to them; more, by a
# bisection of the piece's line ends (made once per piece)
FEW_POSITIONS = 16
# ... in a piece of up to this many bytes (a piece grown over a dense log is placed by its line ends)
COUNT_PIECE_BYTES = 64 << 10
# a condition's run this long or longer is a word of the prefilter's passes (_condition_words)
MIN_RUN_WORD = 4


class _Piece:
    """Lines ``first``..``last`` of a window as ``text``: their raw bytes without what normalization deletes from
    inside a line (colour codes), case kept; ``clean`` is it lower-cased (made on first use), with the clean
    length of the lines before each (``acc``), and, once asked, the prefilter's words in it (``words``) and the
    lines holding each context's literals (``hits``, _Evidence._spec_lines)."""

    __slots__ = ("_acc", "_clean", "_ends", "at", "first", "hits", "last", "look", "scan", "text", "words")

    def __init__(self, first: int, text: bytes, last: int) -> None:
        self.first = first
        self.text = text
        self._clean: bytes | None = None
        self.look: dict[int, tuple[bytes, ...]] = {}  # a spec's number (_Evidence._spec) -> its literals there
        self.hits: dict[int, list[int]] = {}  # a spec's number -> the lines holding its literals
        self.scan: Any = None  # the union database's pass over it (_Evidence._scan_piece)
        self.last = last
        self.words: _Words | None = None
        self.at: dict[tuple[bytes, Any], list[int]] = {}  # (a literal, its conditions) -> lines (lines_of)
        self._acc: list[int] | None = None
        self._ends: list[int] | None = None

    @property
    def clean(self) -> bytes:
        """``text`` lower-cased (the form literals are located in by ``find``)."""
        if self._clean is None:
            self._clean = self.text.lower()
        return self._clean

    @property
    def acc(self) -> list[int]:
        """acc[i]: the bytes of the piece's lines 0..i-1 but their newlines (made on first use: a check around
        a repeated warning mostly finds a literal on a line or two, which a count of newlines places)."""
        if self._acc is None:
            self._acc = [0, *itertools.accumulate(map(len, self.text.split(b"\n")))]
        return self._acc

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
            # from its first occurrence, where the piece's word pass saw it (_Evidence._present made that pass
            # before any literal is located here): most of a piece is before the match a check is around
            start = self.words[0].get(lit, 0) if self.words is not None else 0
            first_per_line(self.clean, lit, positions, start, word_start=word_start, conds=conds)
            got += self.place(positions)
        return got

    def place(self, positions: list[int]) -> list[int]:
        """The (window) indexes of the lines holding offsets ``positions`` (sorted, one per line at most)."""
        if not positions:
            return []
        text = self.text
        if len(positions) <= FEW_POSITIONS and self._ends is None and len(text) <= COUNT_PIECE_BYTES:
            if positions[0] < len(text) // 2:
                return line_indexes(text, positions, self.first)
            # from the piece's end (a literal on the match's line, after the context before it)
            li, prev, back = self.last, len(text), []
            for pos in reversed(positions):  # the newlines between them, each counted once
                li -= text.count(b"\n", pos, prev)
                prev = pos
                back.append(li)
            back.reverse()
            return back
        ends = self.ends()
        return [self.first + bisect.bisect_left(ends, pos) for pos in positions]

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

    def segments(self, lines: _Lines, lo: int, hi: int) -> list[tuple[_Piece, int, int]]:
        """(piece, first line, last line) for the parts of lines lo..hi, in order, making missing pieces."""
        out: list[tuple[_Piece, int, int]] = []
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
            out.append((piece, li, top))
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
        start_hi = lines.start(hi)
        nl = data.find(b"\n", max(start_hi, start + self.grow), limit)
        end = limit if nl < 0 else nl
        text = data[start:end]
        if _joinable(lines):  # the window holds none: no piece of it does
            text = _delete_joinable(text)  # as normalization deletes them: before any lower-casing
        # its last line: hi, or further where it grew (normalization deletes no newline)
        return _Piece(first, text, hi + data.count(b"\n", start_hi, end))


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
    if b"\x1b" in data or (b"\x9b" in data and b"\xc2\x9b" in data):
        return True
    if len(data) >= JOINABLE_PASS_FROM and "hyperscan" in sys.modules:  # ~5x a copy's speed (1 MiB: 0.4 ms);
        found = _joinable_in(data)  # only where a big window loaded it (not a paste's start-up)
        if found is not None:
            return found
    return len(data.translate(None, _JOINABLE_BYTES)) != len(data)


# data this big or bigger (a clean piece, a window) is searched for the other joinable bytes by hyperscan
JOINABLE_PASS_FROM = 4096
# the joinable bytes but ESC, as one class (one expression compiles in 0.3 ms; each byte a literal of its own
# with SINGLEMATCH took 140 ms)
_JOINABLE_CLASS = rb"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]"


def _joinable_in(data: bytes) -> bool | None:
    """Whether ``data`` holds a joinable byte other than ESC, by hyperscan (None: it cannot say)."""
    db = _joinable_db(_thread.get_ident())
    if db is None:
        return None
    found: list[int] = []

    def on_match(*_args: object) -> bool:
        found.append(1)
        return True  # the first one says it: stop

    try:
        db.scan(data, match_event_handler=on_match)
    except Exception:  # the scan stopped by on_match (a binding may raise for it)
        if not found:
            return None
    return bool(found)


@lru_cache(maxsize=64)
def _joinable_db(_thread_id: int) -> Any:
    """_JOINABLE_CLASS compiled, one per thread (a database's scratch serves one scan at a time); None where
    hyperscan cannot be used."""
    try:
        import hyperscan

        db = hyperscan.Database()
        db.compile(expressions=[_JOINABLE_CLASS], ids=[0], flags=[hyperscan.HS_FLAG_SINGLEMATCH])
    except Exception:
        return None
    return db


class _Union:
    """What _union_db gives: the database, and how its ids read back."""

    __slots__ = ("conditioned", "db", "heads", "owners", "words")

    def __init__(
        self,
        db: Any,
        owners: dict[int, tuple[int, ...]],
        words: tuple[bytes, ...],
        heads: dict[bytes, tuple[tuple[bytes, int], ...]],
        conditioned: tuple[tuple[bytes, Any, bool, tuple[int, ...]], ...],
    ) -> None:
        self.db = db
        self.owners = owners  # each literal reported at every occurrence -> the specs holding it (their places)
        self.words = words  # the presence words, by id - _WORD_IDS
        self.heads = heads  # the word-start literals, with their ids, by first byte
        self.conditioned = conditioned  # (literal, conditions, word start, the specs holding it)


@lru_cache(maxsize=16)
def _union_db(specs: tuple[Spec, ...], _thread_id: int) -> _Union | None:
    """One hyperscan database for the literals of every spec of ``specs`` (_Evidence._scan_piece), caseless.
    A literal without conditions is reported at every occurrence; one counted only at a word start, after a
    byte that is no ASCII word byte (not the 'tch' of every 'batches'). A literal with conditions and every
    run of them are presence words (the first occurrence only, ids from _WORD_IDS): the literal is located
    line by line only where it and all the runs of one of its conditions are ('func' for ``torch[/\\]func``,
    so not the 'torch' of every DeprecationWarning line). Kept in the cache (cache.py) like the prefilter's;
    one per thread (a database's scratch serves one scan at a time); None where hyperscan cannot be used."""
    expressions: list[bytes] = []
    ids: list[int] = []
    single: list[bool] = []
    plain: dict[tuple[bytes, bool], int] = {}
    owners: dict[int, list[int]] = {}
    words: dict[bytes, int] = {}
    heads: dict[bytes, list[tuple[bytes, int]]] = {}
    conditioned: dict[tuple[bytes, Any, bool], list[int]] = {}
    for at, (lits, conds, starts) in enumerate(specs):
        for lit, cs, word_start in zip(lits, conds, starts, strict=True):
            if cs is not None:
                conditioned.setdefault((lit, cs, word_start), []).append(at)
                for word in (lit, *(run for conj in cs for run in conj)):
                    if word not in words:
                        ids.append(_WORD_IDS + len(words))
                        words[word] = len(words)
                        expressions.append(_hs_literal(word))
                        single.append(True)
                continue
            pid = plain.get((lit, word_start))
            if pid is None:
                pid = plain[(lit, word_start)] = len(plain)
                expressions.append((_WORD_START + _hs_literal(lit)) if word_start else _hs_literal(lit))
                ids.append(pid)
                single.append(False)
                if word_start:
                    heads.setdefault(lit[:1], []).append((lit, pid))
            if at not in owners.setdefault(pid, []):
                owners[pid].append(at)
    db = _compiled(expressions, ids, single)
    if db is None:
        return None
    return _Union(
        db,
        {pid: tuple(ats) for pid, ats in owners.items()},
        tuple(words),
        {k: tuple(v) for k, v in heads.items()},
        tuple((lit, cs, word_start, tuple(ats)) for (lit, cs, word_start), ats in conditioned.items()),
    )


def _union_lines(union: _Union, piece: _Piece, found: list[tuple[int, int]]) -> dict[int, list[int]]:
    """The lines of ``piece`` of each spec of ``union`` (by its place there) from the pass's ``found`` ((id,
    end)): a literal's where it was found, one with conditions where it and the runs of one of them are (then
    located line by line); unsorted, a line may come twice."""
    owners, words = union.owners, union.words
    by_id: dict[int, list[int]] = {}
    present: set[bytes] = set()
    for word_id, to in found:
        if word_id >= _WORD_IDS:
            present.add(words[word_id - _WORD_IDS])
        else:
            by_id.setdefault(word_id, []).append(to - 1)
    acc: dict[int, list[int]] = {}
    for pid, ends in by_id.items():
        at_lines = piece.place(sorted(ends))
        for at in owners[pid]:
            acc.setdefault(at, []).extend(at_lines)
    if present:
        for lit, cs, word_start, ats in union.conditioned:
            if lit in present and any(all(run in present for run in conj) for conj in cs):
                at_lines = piece.lines_of(lit, cs, word_start)
                for at in ats:
                    acc.setdefault(at, []).extend(at_lines)
    return acc


def _compiled(expressions: list[bytes], ids: list[int], single: list[bool]) -> Any:
    """``expressions`` compiled caseless (SINGLEMATCH where ``single``), through the cache as the prefilter's
    databases are (cache.hyperscan_database); None where hyperscan cannot be used."""
    try:
        import hyperscan

        from ..kb import cache

        digest = cache.digest(repr((expressions, ids, single)).encode())
        key = f"hyperscan {getattr(hyperscan, '__version__', '?')} {sys.platform} context {digest}"
        caseless, one = hyperscan.HS_FLAG_CASELESS, hyperscan.HS_FLAG_SINGLEMATCH
        flags = [caseless | (one if x else 0) for x in single]
        return cache.hyperscan_database(hyperscan, key, lambda: (expressions, ids, flags), kind=CACHE_KIND, keep=CACHE_ENTRIES)
    except Exception:
        return None


# the union databases' entries in the cache (apart from the prefilter's: neither evicts the other)
CACHE_KIND = "hscontext"
CACHE_ENTRIES = 16


# the ids of _union_db's presence words start here (those of the literals reported at every occurrence, at 0)
_WORD_IDS = 1 << 20
# a word start, for hyperscan: a byte that is no ASCII word byte (lines.first_per_line; the piece's start is
# checked apart: ``^`` made a database's compilation 2-5x slower)
_WORD_START = rb"[^0-9A-Za-z_]"
# the most specs one union database holds; the others' literals are found by the pass of every word
MAX_UNION_SPECS = 64


def _delete_joinable(data: bytes) -> bytes:
    """``data`` without what normalize_line deletes from inside a line: colours first (one literal byte to look
    for), then anything else."""
    if _has_joinable(data):
        data = _CSI.sub(b"", data)
        if _has_joinable(data):
            data = NORMALIZE_DELETES_BYTES.sub(b"", data)
    return data


_UNSET: Any = object()
# what lines_with looks for (_Evidence._spec): the literals, each one's conditions, whether each starts a word
Spec = tuple[tuple[bytes, ...], tuple["tuple[tuple[bytes, ...], ...] | None", ...], tuple[bool, ...]]
# a piece's caseless words (what context literals are): (those found, each with where it first starts in the
# piece; those looked for)
_Words = tuple[dict[bytes, int], frozenset[bytes]]
_UNKNOWN: _Words = ({}, frozenset())  # a piece's words when the prefilter cannot say (by identity)
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


# (literal, its conditions or None) of each literal of a Spec
Checks = tuple[tuple[bytes, "tuple[tuple[bytes, ...], ...] | None"], ...]


@lru_cache(maxsize=4096)
def _checks(spec: Spec) -> Checks:
    """(literal, its conditions or None) of each literal of ``spec``."""
    lits, conds, _starts = spec
    return tuple(zip(lits, conds, strict=True))


def _counting(checks: Checks, found: set[bytes] | dict[bytes, int], looked: set[bytes] | frozenset[bytes]) -> tuple[bytes, ...]:
    """The literals of ``checks`` (_checks) a line may hold as their context needs them, by the words a pass
    found (``found``) among those it looked for (``looked``; a word it did not look for may be there): the
    literal, and every run of one of its conditions that the pass looked for."""
    out: list[bytes] = []
    for lit, conds in checks:
        if lit not in found and lit in looked:
            continue
        if conds is not None and not any(all(run in found or run not in looked for run in conj) for conj in conds):
            continue
        out.append(lit)
    return tuple(out)


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


def _condition_words(parts: tuple[str, ...]) -> tuple[bytes, ...]:
    """The words of the prefilter's passes that say where a literal of the items ``parts`` cannot count
    (_Evidence._present): for each conjunction of a literal's conditions, its longest run besides the literal
    (a line holding the literal counts only where all the runs are, so the rarest one says it; the longest
    stands for the rarest) where it is long enough to be worth a word (one of a byte or two, such as ')',
    would cost the passes a match on every line). Word-start literals are not spelled with hyperscan's ``\\b``:
    51 such words made each database's compilation 4x slower (10 -> 45 ms), which a fresh CI runner pays
    for every database, to save a ``find`` per piece."""
    lits = _evidence_literals(parts)
    if not lits:
        return ()
    words: set[bytes] = set()
    for lit, cs in (_evidence_conditions(parts, lits) or {}).items():
        for conj in cs or ():
            others = sorted((run for run in conj if run != lit), key=lambda run: (-len(run), run))
            if others and len(others[0]) >= MIN_RUN_WORD and others[0] not in lits:
                words.add(others[0])
    return tuple(sorted(words))


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
        self._spec_ids: dict[tuple[str, ...], int] = {}  # items -> the number of their spec (_spec)
        self._spec_numbers: dict[Spec, int] = {}
        self._absence_ids: dict[tuple[str, ...], int] = {}  # items -> the spec number of their absence literals
        self._looked: tuple[Any, frozenset[bytes]] = (None, frozenset())  # a pass's word set, its caseless words
        self._specs: list[Spec] = []
        self._any: dict[tuple[str, ...], Any] = {}
        self._how: dict[tuple[str, ...], tuple[Any, int | None, bool]] = {}  # items -> (literals, spec, spans lines)
        # the union database of the specs asked so far (_spec_lines), each spec's place in it, those to add
        self._union: _Union | None = None
        self._union_specs: list[int] = []
        self._union_at: dict[int, int] = {}
        self._pending: set[int] = set()
        self._union_ok = True
        self._union_thread = -1  # the thread the union database was made for (its scratch serves that one)

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
            got = self._lits[items] = derived("evidence_literals", (self._parts(items),), _evidence_literals)
        return got

    def conditions(self, items: tuple[str, ...]) -> Conditions | None:
        """_evidence_conditions of ``items`` (whose literals() are not None)."""
        got = self._conds.get(items, _UNSET)
        if got is _UNSET:
            lits = self.literals(items)
            got = self._conds[items] = derived("evidence_conditions", (self._parts(items), lits), _evidence_conditions) if lits else None
        return got  # type: ignore[no-any-return]

    def word_starts(self, items: tuple[str, ...]) -> frozenset[bytes]:
        """_evidence_word_starts of ``items`` (whose literals() are not None)."""
        got = self._starts.get(items)
        if got is None:
            lits = self.literals(items)
            got = self._starts[items] = derived("evidence_word_starts", (self._parts(items), lits), _evidence_word_starts) if lits else frozenset()
        return got

    def lines_with(self, items: tuple[str, ...], lines: _Lines, lo: int, hi: int) -> list[int] | None:
        """The lines among lo..hi where an item may match, found in the raw bytes, or None (use them all).

        Searching only those lines gives the same first match as searching all of them (each match lies on
        a line holding a literal of its item, and line order is kept), and saves normalizing the 50 lines
        around each of 10,000 repeated warnings. A line holding something normalization deletes from inside
        a line (escape sequences, control characters) is kept too: that could join two halves of a literal."""
        how = self._how.get(items)
        if how is None:
            lits = self.literals(items)
            how = self._how[items] = (lits, None if lits is None else self._spec(items), lits is not None and _spans_lines(lits))
        lits, spec, spans = how
        if lits is None:
            return None
        if lo < 0:
            lo = 0
        if hi >= lines.count:
            hi = lines.count - 1
        if hi < lo:
            return []
        memo = lines.memo
        key = (spec, lo, hi)  # signatures with the same context around the same line: looked up once
        got = memo.get(key)
        if got is None:
            if not spans and memo.get("scanned") is not None:
                # a big window: the clean pieces around lo..hi, each searched once for all of the context's
                # literals (_spec_lines), where the window's pass did not rule them all out
                got = []
                if self._present(spec, lines):  # type: ignore[arg-type]
                    # sorted and distinct: the pieces come in order, and each one's lines lie within it
                    for piece, first, top in _cover(lines).segments(lines, lo, hi):
                        at = piece.hits.get(spec)  # type: ignore[arg-type]
                        if at is None:
                            at = self._spec_lines(spec, lines, piece)  # type: ignore[arg-type]
                        if at:
                            got += at[bisect.bisect_left(at, first) : bisect.bisect_right(at, top)]
            else:
                got = self._lines_with(lits, lines, lo, hi, self.conditions(items), self.word_starts(items))
            memo[key] = got
        return got

    def condition_words(self, items: tuple[str, ...]) -> tuple[bytes, ...]:
        """_condition_words of ``items`` (kept in the catalog cache: the first big window asks for every
        signature's, and working them out costs ~50 ms)."""
        parts = self._parts(items)
        return derived("condition_words", (parts,), _condition_words)  # type: ignore[no-any-return]

    def _spec(self, items: tuple[str, ...]) -> int:
        """A number for what lines_with looks for with ``items`` (whose literals() are not None): their
        literals, each one's conditions and word start; equal for contexts that look for the same."""
        got = self._spec_ids.get(items)
        if got is None:
            lits = self.literals(items) or ()
            conds, starts = self.conditions(items) or {}, self.word_starts(items)
            got = self._spec_ids[items] = self._number((lits, tuple(conds.get(lit) for lit in lits), tuple(lit in starts for lit in lits)))
        return got

    def _number(self, spec: Spec) -> int:
        got = self._spec_numbers.get(spec)
        if got is None:
            got = self._spec_numbers[spec] = len(self._specs)
            self._specs.append(spec)
        return got

    def _present(self, sid: int, lines: _Lines, piece: _Piece | None = None) -> tuple[bytes, ...]:
        """Those of spec ``sid``'s literals that may be in the window (or in ``piece`` of it) once colour codes
        are deleted. The prefilter's pass over the raw window says which are not there, and one over a clean
        piece which of them are in the piece (most of a context's literals are in no window of a log, and the
        few that are, such as 'higher', are rarely in the 100 lines around a match). A literal with conditions
        is there only where every run of one of them is ('torch' needs 'func' for ``torch[/\\]func``: not the
        'torch' of every DeprecationWarning line: _counting). A word a pass did not look for may be there."""
        key = ("present-lits", sid)
        got = lines.memo.get(key)
        if got is None:
            checks = _checks(self._specs[sid])
            window = None if _joinable(lines) else self._window_words(lines)  # colour codes: may split a word
            maybe = _counting(checks, *window) if window is not None else tuple(check[0] for check in checks)
            got = lines.memo[key] = (maybe, tuple(check for check in checks if check[0] in maybe))
        maybe, checks = got
        if not maybe or piece is None or lines.memo.get("scanned") is None:  # no hyperscan pass: no piece pass
            return maybe  # type: ignore[no-any-return]
        if piece.words is None:
            words = self._words_in(piece.clean) if self._words_in else None
            piece.words = _UNKNOWN if words is None else words
        if piece.words is _UNKNOWN:  # the prefilter cannot say (no hyperscan): all may be there
            return maybe  # type: ignore[no-any-return]
        return _counting(checks, *piece.words)

    def _window_words(self, lines: _Lines) -> tuple[set[bytes], frozenset[bytes]] | None:
        """The caseless words the prefilter's pass found in the window's raw bytes and those it looked for
        (None: it did not run)."""
        got = lines.memo.get("window-words")
        if got is None:
            scanned, present = lines.memo.get("scanned"), lines.memo.get("present")
            if scanned is None or present is None:
                return None
            if self._looked[0] is not scanned:  # the same word set for window after window: made once
                self._looked = (scanned, frozenset(word for word, icase in scanned if icase))
            got = lines.memo["window-words"] = ({word for word, icase in present if icase}, self._looked[1])
        return got  # type: ignore[no-any-return]

    def _absence_spec(self, items: tuple[str, ...], lits: tuple[bytes, ...]) -> int:
        """The spec number of ``items``' absence_literals ``lits``, with no conditions nor word starts (absent)."""
        got = self._absence_ids.get(items)
        if got is None:
            got = self._absence_ids[items] = self._number((lits, (None,) * len(lits), (False,) * len(lits)))
        return got

    def _spec_lines(self, spec: int, lines: _Lines, piece: _Piece) -> list[int]:
        """The sorted lines of ``piece`` holding a literal of spec ``spec`` as its context counts it (at a word
        start, with the runs of one of its conditions), found once per piece and spec. One hyperscan pass over
        the piece finds the literals of every spec asked so far (_union_db; a new spec joins before the next
        piece is scanned), where the pass of every word and a ``find`` per literal and line cost ~2x more
        around each of 10,000 repeated warnings; the others, and all without hyperscan, that way (_in_piece,
        _Piece.lines_of)."""
        got = piece.hits.get(spec)
        if got is None:
            if self._pending and piece.scan is None and not piece.hits:  # a piece nothing was asked of yet
                self._grow()
            at = self._union_at.get(spec)
            scan = None if at is None else self._scan_piece(piece)
            if scan is None:
                if at is None and self._union_ok and len(self._union_at) + len(self._pending) < MAX_UNION_SPECS:
                    self._pending.add(spec)
                lits, conds, starts = self._specs[spec]
                found: list[int] = []
                for lit in self._in_piece(spec, lines, piece):
                    i = lits.index(lit)
                    found += piece.lines_of(lit, conds[i], starts[i])
            else:
                found = scan[1].get(at, [])  # type: ignore[assignment]
            got = piece.hits[spec] = sorted(set(found)) if found else []
        return got

    def _grow(self) -> None:
        """The union database of the specs asked so far, with those asked since it was made (_spec_lines)."""
        specs = [*self._union_specs, *sorted(self._pending)]
        self._pending = set()
        self._build(specs)

    def _build(self, specs: list[int]) -> _Union | None:
        """The union database of ``specs`` for this thread (a database's scratch serves one), made current;
        None, and the word pass's way from then on, where it cannot be made."""
        union = _union_db(tuple(self._specs[sid] for sid in specs), _thread.get_ident())
        if union is None:
            self._give_up()
            return None
        self._union, self._union_thread = union, _thread.get_ident()
        self._union_specs = specs
        self._union_at = {sid: i for i, sid in enumerate(specs)}
        return union

    def _give_up(self) -> None:
        """No union database from now on: every spec by the word pass."""
        self._union_ok = False
        self._union = None
        self._union_at = {}

    def _scan_piece(self, piece: _Piece) -> tuple[_Union, dict[int, list[int]]] | None:
        """The union database's pass over the piece's text (case kept: the pass ignores ASCII case, as
        lower-casing does), kept on the piece: (the union, the lines of each of its specs' literals found, by
        the spec's place in the union: unsorted, a line may come twice); None where it cannot be made."""
        union = self._union
        if union is not None and self._union_thread != _thread.get_ident():  # a matcher handed to another thread
            union = self._build(self._union_specs)
        if union is None:
            return None
        got = piece.scan
        if got is not None and got[0] is union:
            return got  # type: ignore[no-any-return]
        found: list[tuple[int, int]] = []
        append = found.append

        def on_match(word_id: int, _frm: int, to: int, _flags: int, _ctx: object) -> None:
            append((word_id, to))

        text = piece.text
        try:
            union.db.scan(text, match_event_handler=on_match)
        except Exception:  # a binding's error: the word pass's way
            self._give_up()
            return None
        starting = union.heads.get(text[:1].lower()) if union.heads else None
        if starting:  # a word-start literal at the piece's start (the pass looks for one after a byte)
            found += ((pid, len(lit)) for lit, pid in starting if text[: len(lit)].lower() == lit)
        got = piece.scan = (union, _union_lines(union, piece, found))
        return got

    def _in_piece(self, spec: int, lines: _Lines, piece: _Piece) -> tuple[bytes, ...]:
        """_present for ``piece``, kept on it: the checks of every signature around a repeated error ask the
        same piece for the same literals."""
        got = piece.look.get(spec)
        if got is None:
            got = piece.look[spec] = self._present(spec, lines, piece)
        return got

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
            got = self._absence[items] = derived("absence_literals", (self._parts(items),), _absence_literals)
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
            spec = self._absence_spec(items, lits)
            if not self._present(spec, lines):
                return True
            for piece, first, top in _cover(lines).segments(lines, lo, hi):
                there = self._in_piece(spec, lines, piece)
                if there:  # the piece's line offsets only then (_Piece.acc)
                    start, end = piece.span(first, top)
                    if any(piece.clean.find(lit, start, end) >= 0 for lit in there):
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

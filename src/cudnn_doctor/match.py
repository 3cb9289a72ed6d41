"""Find signature matches in a log, in one pass over the text plus small windows around candidates.

1. A prefilter finds every line holding one of the signatures' literals (one combined scan; hyperscan when
   installed, else one alternation regex).
2. For each signature, its candidate lines are grouped into runs; each run's window of lines is normalized
   (normalize.py) and demultiplexed by stream (``[rankN]:``), then the signature's full regex runs there,
   with a timeout so that a pathological pattern skips that signature instead of hanging the run.
3. Context evidence (``require_any`` / ``exclude_any`` / ``support_any``) is looked for around each match.

Input arrives as blocks of whole lines (input.py), so memory stays flat whatever the log size: each block is
scanned with the tail of the previous block and the head of the next one, so that matches and context that
straddle a block boundary are still seen; matches are de-duplicated by their absolute line.
"""

from __future__ import annotations

import bisect
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import regex

from .catalog import Catalog
from .input import Block
from .model import Signature
from .normalize import normalize_line
from .patterns import Lazy, compile_pattern, derived
from .textsafe import NORMALIZE_DELETES_BYTES

MATCH_TIMEOUT_S = 1.0
# the CPU time one signature's regex may spend over a whole run (all its searches; CPU, not wall time, so
# that a busy machine does not drop signatures): past
# it the signature is dropped with a warning naming its file, so a pattern just under the per-search timeout
# cannot cost that on every candidate line (200 lines x 0.3 s was a minute)
SIGNATURE_BUDGET_S = 5.0
MAX_MATCH_TEXT = 4000
MAX_NEAR_MISSES_PER_SIG = 3
TRACEBACK_LINES = 60
NON_RNN = "@non_rnn"
# An RNN API or op named inside the matched text: direct evidence that outweighs conv/batch-norm words nearby.
DIRECT_RNN = Lazy(r"\bcudnnRNN\w*|\bcudnn(?:Set|Get)RNN\w*|\bCudnnRNN\w*|\b_cudnn_rnn\w*|\b(?:Then|Do)Rnn(?:Forward|Backward)\b|\brnn-inl\.h\b|\bcurnn\.jl\b")
SHORT_BEFORE = 8  # > rank.CLUSTER_GAP
# bytes that normalize.py deletes from inside a line (ANSI escapes, control characters other than CR)
_JOINABLE_BYTES = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
_JOINABLE = re.compile(b"[" + re.escape(_JOINABLE_BYTES) + b"]|\xc2\x9b")  # \x9b: C1 CSI in UTF-8
PROBED_MEMO = 16384  # line shapes already given to the environment probes
# digits -> '0': lines that differ only in their numbers (timestamps, step counters, versions) share a shape
_SHAPE = bytes.maketrans(b"123456789", b"000000000")
# normalize.py's GitHub Actions timestamp, in ASCII bytes (anything it does not match is kept in the key)
_RAW_TIMESTAMP = re.compile(rb"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ")


def derive_literal(pattern: str, flags: Sequence[str] = ()) -> str | None:
    return _derive_literal(pattern, tuple(flags))


@lru_cache(maxsize=8192)
def _derive_literal(pattern: str, flags: tuple[str, ...]) -> str | None:  # noqa: C901 - split in the match/ package step
    """The longest literal every match of ``pattern`` must contain, when that is easy to see.

    Used for signatures without a ``prefilter`` (e.g. a deadends.dev record). Conservative: gives up on
    top-level alternation, VERBOSE patterns and anything it does not understand; None means 'scan all'.
    """
    if "VERBOSE" in flags or pattern.startswith("(?x"):
        return None
    runs: list[str] = []
    cur: list[str] = []
    depth, i, n = 0, 0, len(pattern)

    def flush() -> None:
        if cur:
            runs.append("".join(cur))
            cur.clear()

    while i < n:
        c = pattern[i]
        nxt = pattern[i + 1] if i + 1 < n else ""
        if c == "\\":
            esc = pattern[i + 1 : i + 2]
            if esc and not esc.isalnum():
                if depth == 0 and pattern[i + 2 : i + 3] not in ("?", "*", "{"):
                    cur.append(esc)
                else:
                    flush()
                i += 2
                continue
            flush()
            i += 2
            continue
        if c == "(":
            flush()
            depth += 1
        elif c == ")":
            depth -= 1
            flush()
        elif c == "|" and depth == 0:
            return None
        elif c == "[":
            flush()
            j = pattern.find("]", i + 2)
            i = n if j < 0 else j
        elif c in ".^$+*?{}|":
            if c in "*?{" and cur:
                cur.pop()
            flush()
        elif depth == 0:
            if nxt in ("?", "*", "{"):
                flush()
            else:
                cur.append(c)
        i += 1
    flush()
    best = max((r.strip() for r in runs), key=len, default="")
    return best if len(best) >= 4 else None


_NL_CATEGORIES = {"CATEGORY_SPACE", "CATEGORY_NOT_DIGIT", "CATEGORY_NOT_WORD", "CATEGORY_LINEBREAK",
                  "CATEGORY_UNI_SPACE", "CATEGORY_UNI_NOT_DIGIT", "CATEGORY_UNI_NOT_WORD", "CATEGORY_UNI_LINEBREAK"}


def line_local(pattern: str, flags: Sequence[str] = ()) -> bool:
    # per pattern, not per Matcher (triage builds one Matcher per log), and kept in the catalog cache
    return derived("line_local", (pattern, tuple(flags)), _line_local)  # type: ignore[no-any-return]


def _line_local(pattern: str, flags: tuple[str, ...]) -> bool:
    """True when no match of ``pattern`` can contain a newline (then it needs only its own line).

    Parsed with the standard library's parser; anything it cannot parse or does not know counts as
    'may span lines'. ``\\s``, ``\\W``, ``\\D``, ``.`` under DOTALL and negated classes without ``\\n`` may span.
    """
    from .compat import sre_parse

    bits = 0
    for name in flags:
        bits |= {"IGNORECASE": re.IGNORECASE, "DOTALL": re.DOTALL, "VERBOSE": re.VERBOSE}.get(name, 0)
    try:
        tree = sre_parse.parse(pattern, bits)
    except Exception:
        return False
    return not _may_match_newline(list(tree), bool(tree.state.flags & re.DOTALL))


def _may_match_newline(items: list[Any], dotall: bool) -> bool:  # noqa: C901, PLR0911, PLR0912 - split in the match/ package step
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            if av == 10:
                return True
        elif name == "NOT_LITERAL":
            if av != 10:
                return True
        elif name == "ANY":
            if dotall:
                return True
        elif name == "IN":
            if _class_has_newline(av):
                return True
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            if _may_match_newline(list(av[2]), dotall):
                return True
        elif name == "SUBPATTERN":
            add = av[1] or 0
            if _may_match_newline(list(av[3]), dotall or bool(add & re.DOTALL)):
                return True
        elif name == "BRANCH":
            if any(_may_match_newline(list(b), dotall) for b in av[1]):
                return True
        elif name == "ATOMIC_GROUP":
            if _may_match_newline(list(av), dotall):
                return True
        elif name in ("ASSERT", "ASSERT_NOT"):
            if _may_match_newline(list(av[1]), dotall):
                return True
        elif name in ("AT",):
            continue
        else:  # GROUPREF, GROUPREF_EXISTS, anything new: be safe
            return True
    return False


def _class_has_newline(items: list[Any]) -> bool:
    negate = False
    has = False
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            has = has or av == 10
        elif name == "RANGE":
            has = has or av[0] <= 10 <= av[1]
        elif name == "CATEGORY":
            has = has or str(av) in _NL_CATEGORIES
        else:
            return True
    return has != negate


@dataclass(frozen=True)  # no slots: pickled with the catalog cache, which 3.10 cannot do for frozen slots
class Confirm:
    r"""Words every match of a signature holds, checked in the raw bytes before a candidate line costs anything.

    ``branches``: one tuple of words per top-level alternative of the regex; a candidate is kept when, for some
    alternative, each of its words is on a line within the signature's window around the candidate (its own
    line for a line-local regex). Words are ASCII ``\w`` runs of at least MIN_CONFIRM_WORD characters taken
    from the regex's required literal runs, so colour codes (which sit between words) do not hide them."""

    branches: tuple[tuple[bytes, ...], ...]
    icase: bool


MIN_CONFIRM_WORD = 5
# a window this big is a CI log, not a paste: its candidate lines are confirmed (Matcher._confirm) first
CONFIRM_FROM = 256 << 10
_UNSET: Any = object()
_WORD = re.compile(rf"[A-Za-z0-9_]{{{MIN_CONFIRM_WORD},}}")


def confirm_words(pattern: str, flags: Sequence[str] = (), prefilter: Sequence[str] = ()) -> Confirm | None:
    return derived("confirm", (pattern, tuple(flags), tuple(prefilter)), _confirm_words)  # type: ignore[no-any-return]


def _confirm_words(pattern: str, flags: tuple[str, ...], prefilter: tuple[str, ...]) -> Confirm | None:
    """The Confirm of a regex, or None when some alternative has no word beyond what every prefilter literal
    already holds (then the check could not drop a candidate), or when the standard parser cannot read it."""
    parsed = _alternatives(pattern, flags)
    if parsed is None:
        return None
    alternatives, icase_all = parsed
    lits = [p.lower() for p in prefilter]
    icase = icase_all
    branches: list[tuple[bytes, ...]] = []
    for alt in alternatives:
        runs, alt_icase = _required_runs(alt, icase_all)
        icase = icase or alt_icase
        words = {w for run in runs for w in _WORD.findall(run)}
        useful = sorted(
            {w for w in words if not (lits and all(w.lower() in lit for lit in lits))}, key=lambda w: (-len(w), w)
        )[:2]
        if not useful:
            return None
        branches.append(tuple(w.encode("ascii") for w in useful))
    if icase:
        branches = [tuple(w.lower() for w in b) for b in branches]
    return Confirm(tuple(branches), icase)


def alternative_literals(pattern: str, flags: Sequence[str] = ()) -> tuple[str, ...] | None:
    """One literal per top-level alternative of ``pattern`` (its longest required literal run, ASCII, at least
    3 characters, lower-cased): every match holds one of them. None when an alternative has none."""
    return derived("alternative_literals", (pattern, tuple(flags)), _alternative_literals)  # type: ignore[no-any-return]


def _alternative_literals(pattern: str, flags: tuple[str, ...]) -> tuple[str, ...] | None:
    parsed = _alternatives(pattern, flags)
    if parsed is None:
        return None
    out: list[str] = []
    for alt in parsed[0]:
        # a run found in the lower-cased bytes: ASCII, or characters without case (CJK), 3 bytes at least
        runs = [
            r for r in _required_runs(alt, parsed[1])[0]
            if all(c.isascii() or c.lower() == c.upper() for c in r) and len(r.strip().encode()) >= 3
        ]
        if not runs:
            return None
        out.append(max(runs, key=lambda r: (len(r), r)).lower())
    return tuple(dict.fromkeys(out))


def _alternatives(pattern: str, flags: tuple[str, ...]) -> tuple[list[list[Any]], bool] | None:
    """The top-level alternatives of a regex as the standard parser reads it (``(?:A|B)`` and ``A|B`` alike), and
    whether it ignores case throughout; None when the parser cannot read it."""
    from .compat import sre_parse

    bits = 0
    for name in flags:
        bits |= {"IGNORECASE": re.IGNORECASE, "DOTALL": re.DOTALL, "VERBOSE": re.VERBOSE}.get(name, 0)
    try:
        tree = sre_parse.parse(pattern, bits)
    except Exception:
        return None
    icase = bool(tree.state.flags & re.IGNORECASE)
    items = list(tree)
    while len(items) == 1 and str(items[0][0]) == "SUBPATTERN" and not items[0][1][1]:
        items = list(items[0][1][3])  # (?:A|B|C): the alternatives are the top level
    # the parser hoists what every alternative starts with (``\bA|\bB`` -> \b, (A|B)): one branch among
    # plain items is still one alternative per branch, each with the hoisted items around it
    at = [i for i, (op, _) in enumerate(items) if str(op) in ("BRANCH", "SUBPATTERN", "MAX_REPEAT", "MIN_REPEAT")]
    if len(at) == 1 and str(items[at[0]][0]) == "BRANCH":
        k = at[0]
        return [[*items[:k], *b, *items[k + 1 :]] for b in items[k][1][1]], icase
    return [items], icase


def _required_runs(items: list[Any], icase: bool) -> tuple[set[str], bool]:
    """Literal runs every match of the sequence ``items`` holds, and whether any is matched ignoring case."""
    runs: set[str] = set()
    run: list[str] = []
    any_icase = False

    def flush() -> None:
        if run:
            runs.add("".join(run))
            run.clear()

    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            run.append(chr(av))
            any_icase = any_icase or icase
            continue
        flush()
        got: set[str] = set()
        got_icase = False
        if name == "SUBPATTERN":
            add, remove = av[1] or 0, av[2] or 0
            sub_icase = (icase or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE
            got, got_icase = _required_runs(list(av[3]), sub_icase)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and av[0] >= 1:
            got, got_icase = _required_runs(list(av[2]), icase)
        elif name == "BRANCH":  # inside a sequence: only the runs every alternative holds
            alts = [_required_runs(list(b), icase) for b in av[1]]
            got = set.intersection(*(w for w, _ in alts)) if alts else set()
            got_icase = bool(got) and any(i for _, i in alts)
        elif name == "ATOMIC_GROUP":
            got, got_icase = _required_runs(list(av), icase)
        runs |= got
        any_icase = any_icase or got_icase
    flush()
    return runs, any_icase


@dataclass(slots=True)
class RawMatch:
    sig: Signature
    source: str
    line: int
    end_line: int
    text: str
    captures: dict[str, str | None]
    stream: str = ""
    evidence: list[str] = field(default_factory=list)
    supported: bool = False
    before: Sequence[str] = field(default_factory=list)
    cut: dict[str, Any] | None = None  # the message was cut off: what was read and what was not (cut.py)


@dataclass(slots=True)
class Miss:
    sig: Signature
    source: str
    line: int
    reason: str


@dataclass(frozen=True, slots=True)
class Probe:
    """Extra literals to watch for (e.g. version lines); ``handle`` gets (normalized line, line number).

    ``handle`` may return RETIRE: nothing it could give is still wanted (e.g. every version it can read is
    already known from better evidence); the matcher then stops calling it. ``shape_free``: whether ``handle``
    gives the same answer (does it want this kind of line?) for every line of the same *shape* (digits
    replaced by 0), e.g. a regex with ``\\d`` but no literal digit. Then a False from ``handle`` (its regex did
    not match) makes the matcher skip it on every later line of that shape, so a log with a cuDNN version line
    per step costs one regex search per kind of line, not one per line."""

    literals: tuple[str, ...]
    handle: Callable[[str, int], bool | int | None]
    shape_free: bool = False


RETIRE = -1  # what a Probe's handle returns when it wants no more lines at all


def _clean_region(lines: _Lines, lo: int, hi: int) -> bytes:
    """Lines lo..hi as lower-cased raw bytes, without what normalize_line deletes from inside a line (ANSI
    colours, control characters), so a literal of the normalized text is in them (kept per window)."""
    key = ("region", lo, hi)
    got = lines.memo.get(key)
    if got is None:
        start = lines.start(lo)
        end = lines.data.find(b"\n", lines.start(hi))
        region = lines.data[start : len(lines.data) if end < 0 else end]
        got = lines.memo[key] = _delete_joinable(region).lower()
    return got  # type: ignore[no-any-return]


def _has_joinable(data: bytes) -> bool:
    return len(data.translate(None, _JOINABLE_BYTES)) != len(data) or b"\xc2\x9b" in data


def _delete_joinable(data: bytes) -> bytes:
    """``data`` without what normalize_line deletes from inside a line: colours first (one literal byte to look
    for), then anything else."""
    if _has_joinable(data):
        data = _CSI.sub(b"", data)
        if _has_joinable(data):
            data = NORMALIZE_DELETES_BYTES.sub(b"", data)
    return data


_CSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")


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


class _Evidence:
    def __init__(self, catalog: Catalog) -> None:
        self._sets = catalog.evidence
        self._cache: dict[str, Any] = {}
        self._lits: dict[tuple[str, ...], tuple[bytes, ...] | None] = {}

    def pattern(self, item: str) -> Any:
        got = self._cache.get(item)
        if got is None:
            if item.startswith("@"):
                parts = self._sets.get(item[1:], ())
                source = "|".join(f"(?:{p})" for p in parts) or r"(?!x)x"
            else:
                source = item
            got = self._cache[item] = compile_pattern(source, ("IGNORECASE",))
        return got

    def literals(self, items: tuple[str, ...]) -> tuple[bytes, ...] | None:
        """Lower-cased ASCII literals such that every match of any of ``items`` lies on one line holding one of
        them; None when that cannot be said (an item may span lines, is anchored, or has no clear literal)."""
        got = self._lits.get(items)
        if got is None and items not in self._lits:
            parts = tuple(part for item in items for part in (self._sets.get(item[1:], ()) if item.startswith("@") else (item,)))
            got = self._lits[items] = _evidence_literals(parts)
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
            got = lines.memo[key] = self._lines_with(lits, lines, lo, hi)
        return got

    def _lines_with(self, lits: tuple[bytes, ...], lines: _Lines, lo: int, hi: int) -> list[int]:
        start = lines.start(lo)
        end = lines.data.find(b"\n", lines.start(hi))
        low = lines.data[start : len(lines.data) if end < 0 else end].lower()
        positions: list[int] = []
        for lit in lits:
            pos = low.find(lit)
            while pos >= 0:
                positions.append(pos)
                pos = low.find(lit, pos + len(lit))
        deletable = len(low) - len(low.translate(None, _JOINABLE_BYTES))
        if deletable:
            if deletable > low.count(b"\x1b"):  # other control bytes (rare): a regex pass
                positions += (m.start() for m in _JOINABLE.finditer(low))
            else:  # ANSI colours: one ESC per line is enough (memchr, line to line)
                pos = low.find(b"\x1b")
                while pos >= 0:
                    positions.append(pos)
                    nl = low.find(b"\n", pos)
                    pos = -1 if nl < 0 else low.find(b"\x1b", nl)
        if b"\xc2\x9b" in low:
            positions += (m.start() for m in _JOINABLE.finditer(low))
        found: list[int] = []
        li, prev = lo, 0
        for pos in sorted(positions):
            li += low.count(b"\n", prev, pos)
            prev = pos
            if not found or found[-1] != li:
                found.append(li)
        return found

    def absence_literals(self, items: tuple[str, ...]) -> tuple[bytes, ...] | None:
        """Lower-cased literals such that every match of any of ``items`` holds one (None: cannot be said)."""
        parts = tuple(part for item in items for part in (self._sets.get(item[1:], ()) if item.startswith("@") else (item,)))
        return _absence_literals(parts)

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


SMALL_TEXT = 256 << 10


class _LazyPattern:
    """A stdlib `re` pattern compiled on first use (the prefilter's trie is not needed for small inputs)."""

    def __init__(self, source: Callable[[], str]) -> None:
        self._source = source
        self._compiled: Any = None

    @property
    def compiled(self) -> bool:
        return self._compiled is not None

    def _get(self) -> Any:
        if self._compiled is None:
            self._compiled = _compile_re(self._source())
        return self._compiled

    @property
    def pattern(self) -> str:
        return self._get().pattern

    def search(self, *args: Any) -> Any:
        return self._get().search(*args)

    def finditer(self, *args: Any) -> Any:
        return self._get().finditer(*args)

    def match(self, *args: Any) -> Any:
        return self._get().match(*args)


@lru_cache(maxsize=8)
def _compile_re(source: bytes) -> Any:
    return re.compile(source)


@lru_cache(maxsize=8)
def _trie_pattern(words: tuple[bytes, ...]) -> bytes:
    """One regex alternation of ``words`` factored as a trie (``cud(?:a|nn)``): the `re` engine then tries
    a handful of branches per position instead of every word, 10x faster than a flat alternation."""
    trie: dict[int, Any] = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[-1] = {}

    def build(node: dict[int, Any]) -> bytes:
        if -1 in node:  # a shorter word ends here: it is enough for a hit
            return b""
        alts = [re.escape(bytes([ch])) + build(child) for ch, child in sorted(node.items())]
        return alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"

    return build(trie) if trie else rb"(?!x)x"


def _as_bytes(text: str | bytes) -> bytes:
    return text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text


def _as_block(block: Block | bytes | str) -> Block:
    if isinstance(block, Block):
        return block
    data = _as_bytes(block)
    return Block(data, data.count(b"\n") + 1)


class Prefilter:
    """One pass over a window for all literals (ASCII case-insensitive); reports the lines that hold one.

    Works on the UTF-8 bytes as read, so nothing is decoded until a line is known to matter. With hyperscan (a
    dependency where PyPI has a wheel for it) the pass over a big input is a compiled multi-literal automaton
    that also says which literal matched; inputs up to SMALL_TEXT use one ``bytes.find`` per literal. Without it, a trie-shaped `re` alternation runs over the lower-cased bytes, and the
    literals of each hit line are found by trying those that start where the trie matched. Set
    ``CUDNN_DOCTOR_NO_HYPERSCAN=1`` to force the pure-Python path (the benchmark compares both).
    """

    def __init__(self, literals: Iterable[str], words: Iterable[tuple[bytes, bool]] = ()) -> None:
        self.literals = sorted({lit.lower() for lit in literals if lit}, key=lambda s: (-len(s), s))
        # confirmation words (match.Confirm), (word, ignore case): hyperscan reports whether each is in the
        # scanned range at all (its first occurrence only), in the same pass as the literals
        self.words = tuple(sorted(set(words)))
        self._bytes = [lit.encode("utf-8") for lit in self.literals]
        self._hs: Any = None
        self._re: Any = None
        self._starts: Any = re.compile(rb"(?!x)x")
        self._by_head: dict[bytes, list[tuple[bytes, str]]] = {}
        self._short = False
        self._hs_tried = False
        if not self.literals:
            return
        words = tuple(self._bytes)
        self._re = _LazyPattern(lambda: _trie_pattern(words))
        self._starts = _LazyPattern(lambda: b"(?=(?:" + _trie_pattern(words) + b"))")  # every position where a literal starts
        for lit, raw in zip(self.literals, self._bytes, strict=True):
            self._by_head.setdefault(raw[:2], []).append((raw, lit))
        self._short = any(len(raw) < 2 for raw in self._bytes)

    @staticmethod
    def shared(literals: Iterable[str], words: Iterable[tuple[bytes, bool]] = ()) -> Prefilter:
        """One Prefilter per set of literals in a process (it keeps no state of a scan): the Matchers of
        many small logs (triage) share its compiled hyperscan database and trie."""
        return _shared_prefilter(
            tuple(sorted({lit.lower() for lit in literals if lit})), tuple(sorted(set(words))), threading.get_ident()
        )

    def _load_hyperscan(self) -> Any:
        """The compiled hyperscan database, made on the first big scan: importing hyperscan and compiling
        (~20-50 ms) would cost a pasted traceback more than scanning it with ``bytes.find``."""
        if not self._hs_tried:
            self._hs_tried = True
            if self.literals and not os.environ.get("CUDNN_DOCTOR_NO_HYPERSCAN"):
                try:
                    import hyperscan  # type: ignore[import-not-found]

                    db = hyperscan.Database()
                    single, caseless = hyperscan.HS_FLAG_SINGLEMATCH, hyperscan.HS_FLAG_CASELESS
                    db.compile(
                        expressions=[_hs_literal(lit) for lit in self._bytes] + [_hs_literal(w) for w, _ in self.words],
                        ids=list(range(len(self.literals) + len(self.words))),
                        flags=[caseless] * len(self.literals) + [single | (caseless if i else 0) for _, i in self.words],
                    )
                    self._hs = db
                except Exception:
                    self._hs = None
        return self._hs

    @property
    def engine(self) -> str:
        """What a big scan runs on: hyperscan (where installed) or the trie-shaped `re` alternation."""
        return "hyperscan" if self._load_hyperscan() is not None else "re"

    def scan(self, data: bytes | str, start: int = 0, end: int | None = None) -> dict[int, list[str]]:
        """{line start offset: literals on that line} for the lines of data[start:end] holding a literal.

        Offsets are byte offsets (a ``str`` is scanned as its UTF-8 encoding)."""
        return self.scan_words(data, start, end)[0]

    def scan_words(
        self, data: bytes | str, start: int = 0, end: int | None = None
    ) -> tuple[dict[int, list[str]], set[tuple[bytes, bool]] | None]:
        """``scan``, and the confirmation words found in data[start:end] (None: not known, the scan did not
        run on hyperscan; look them up)."""
        data = _as_bytes(data)
        end = len(data) if end is None else end
        if (self._re is None and not self.words) or start >= end:
            return {}, None

        def chunk() -> bytes:
            return data[start:end] if start or end != len(data) else data

        if end - start <= SMALL_TEXT and self._hs is None and (self._re is None or not self._re.compiled):
            return (self._scan_small(chunk().lower(), start) if self._re is not None else {}), None
        if self._load_hyperscan() is not None:
            found: list[tuple[int, int]] = []
            present: set[tuple[bytes, bool]] = set()
            n_lit, words = len(self.literals), self.words

            def on_match(lit_id: int, _frm: int, to: int, _flags: int, _ctx: object) -> None:
                if lit_id < n_lit:
                    if start < to <= end:  # data[start - 1] is a newline: no literal starts before start
                        found.append((to, lit_id))
                else:
                    present.add(words[lit_id - n_lit])

            # the whole of data (the lines carried over from the blocks around too): the words are looked for
            # wherever a match's window may reach; the literals only count in data[start:end]
            self._hs.scan(data, match_event_handler=on_match)
            return self._lines_of(data, 0, found), present
        if self._re is None:
            return {}, None
        return self._scan_re(chunk(), start), None

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

    def _scan_re(self, chunk: bytes, start: int) -> dict[int, list[str]]:
        """The pure-Python path: the trie-shaped alternation over the lower-cased bytes."""
        out: dict[int, list[str]] = {}
        low = chunk.lower()  # ASCII only: same length, same offsets
        search = self._re.search
        pos, n = 0, len(low)
        while True:
            m = search(low, pos)
            if m is None:
                return out
            ls = low.rfind(b"\n", 0, m.start()) + 1
            le = low.find(b"\n", m.end())
            le = n if le < 0 else le
            out[start + ls] = self.literals_in(low[ls:le])
            pos = le + 1

    def _scan_small(self, low: bytes, start: int) -> dict[int, list[str]]:
        """A pasted traceback: one ``bytes.find`` per literal beats compiling the trie (~35 ms) for a few KB."""
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

    def literals_in(self, line_lower: bytes) -> list[str]:
        """The literals a (lower-cased) line holds: only those starting where the trie matches are tried."""
        out: list[str] = []
        by_head = self._by_head
        for m in self._starts.finditer(line_lower):
            p = m.start()
            for cands in (by_head.get(line_lower[p : p + 2], ()), by_head.get(line_lower[p : p + 1], ()) if self._short else ()):
                for raw, lit in cands:
                    if lit not in out and line_lower.startswith(raw, p):
                        out.append(lit)
        return out


@lru_cache(maxsize=64)
def _shared_prefilter(literals: tuple[str, ...], words: tuple[tuple[bytes, bool], ...], _thread: int) -> Prefilter:
    # one per thread too: a hyperscan database's scratch space serves one scan at a time (Dask threads)
    return Prefilter(literals, words)


def _hs_literal(lit: bytes) -> bytes:
    """A hyperscan expression matching exactly ``lit`` (every byte that is not alphanumeric escaped)."""
    return b"".join(bytes([b]) if chr(b).isalnum() and b < 128 else b"\\x%02x" % b for b in lit)


class Matcher:
    """Runs a catalog's signatures over text blocks."""

    def warm(self) -> None:
        """Compile every pattern this matcher may need (so that the catalog cache can keep them)."""
        for sig in self.sigs:
            compile_pattern(sig.regex, sig.flags)
            line_local(sig.regex, sig.flags)
            confirm_words(sig.regex, sig.flags, sig.prefilter)
            for item in (*sig.context.require_any, *sig.context.exclude_any, *sig.context.support_any):
                self.evidence.pattern(item)

    def __init__(self, catalog: Catalog, probes: Sequence[Probe] = (), timeout: float = MATCH_TIMEOUT_S) -> None:
        self.catalog = catalog
        self.timeout = timeout
        self.evidence = _Evidence(catalog)
        self.by_literal: dict[str, list[int]] = {}
        self.full_scan: list[int] = []
        self.sigs = list(catalog.signatures)
        self.confirms: dict[int, Confirm | None] = {}  # made for the signatures a big input gives candidates
        self._words: tuple[tuple[bytes, bool], ...] | None = None  # every Confirm's words, from the first big window
        self.disabled: dict[str, str] = {}
        self.warnings: list[str] = []
        self.budget = max(timeout, SIGNATURE_BUDGET_S)
        self.spent: dict[int, float] = {}  # regex CPU seconds per signature over this run
        for idx, sig in enumerate(self.sigs):
            lits = list(sig.prefilter)
            if not lits:
                derived = derive_literal(sig.regex, sig.flags)
                if derived:
                    lits = [derived]
            if not lits:
                self.full_scan.append(idx)
            for lit in lits:
                self.by_literal.setdefault(lit.lower(), []).append(idx)
        self.probes = list(probes)
        self._local: dict[int, bool] = {}
        self._framed: set[tuple[str, int]] = set()
        self._probed: dict[tuple[bytes, tuple[int, ...]], None] = {}
        self._shapes: dict[tuple[bytes, tuple[int, ...]], tuple[int, ...]] = {}
        self._retired: set[int] = set()
        self._next_prefilter: Prefilter | None = None
        probe_by_literal: dict[str, list[int]] = {}
        for pidx, probe in enumerate(self.probes):
            for lit in probe.literals:
                probe_by_literal.setdefault(lit.lower(), []).append(pidx)
        self.probe_by_literal = {lit: tuple(p) for lit, p in probe_by_literal.items()}
        self.prefilter = Prefilter.shared([*self.by_literal, *self.probe_by_literal])
        self.before = max((s.window_before + s.context.lines_before for s in self.sigs), default=0)
        self.after = max((s.window_after + s.context.lines_after for s in self.sigs), default=0)

    # ------------------------------------------------------------------ public

    def scan_text(self, text: str | bytes, source: str = "<text>") -> tuple[list[RawMatch], list[Miss]]:
        """Scan a whole text held in memory."""
        matches: list[RawMatch] = []
        misses: list[Miss] = []
        for m, miss in self.scan_blocks([text], source):  # (None, None) marks a block end
            if m is not None:
                matches.append(m)
            if miss is not None:
                misses.append(miss)
        return matches, misses

    def scan_blocks(self, blocks: Iterable[Block | bytes | str], source: str) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        """Scan consecutive blocks of whole lines (UTF-8 bytes or text, '\\n'-joined, no trailing newline)."""
        seen: dict[tuple[int, int, int], int] = {}
        missed: dict[int, int] = {}
        prev_tail: list[bytes] = []
        base = 1  # absolute line number of the first line of the current block
        it = (_as_block(b) for b in blocks)
        cur_block = next(it, None)
        while cur_block is not None:
            nxt = next(it, None)
            cur, cur_lines = cur_block
            head = _head_lines(nxt.data, self.after) if nxt is not None else []
            window = b"\n".join([*prev_tail, cur, *head]) if prev_tail or head else cur
            core_start = sum(len(t) + 1 for t in prev_tail)
            lines = _Lines(window, len(prev_tail) + cur_lines + len(head))
            first_line = base - len(prev_tail)
            yield from self._scan_window(
                lines, core_start, core_start + len(cur), len(prev_tail), cur_lines, first_line, source, seen, missed
            )
            yield None, None  # end of a block: callers may settle what they collected
            base += cur_lines
            prev_tail = _tail_lines(cur, self.before, prev_tail)
            # forget de-duplication keys that no later window can produce again
            horizon = base - self.before - 1
            if len(seen) > 10000:
                for key in [k for k, v in seen.items() if v < horizon]:
                    del seen[key]
            cur_block = nxt

    # ------------------------------------------------------------------ internals

    def _scan_window(  # noqa: C901, PLR0912, PLR0913, PLR0915 - split in the match/ package step
        self,
        lines: _Lines,
        core_start: int,
        core_end: int,
        core_first: int,
        core_count: int,
        first_line: int,
        source: str,
        seen: dict[tuple[int, int, int], int],
        missed: dict[int, int],
    ) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        if len(lines.data) >= CONFIRM_FROM and self._words is None:
            self._confirm_all()
        if self._next_prefilter is not None:
            self.prefilter, self._next_prefilter = self._next_prefilter, None
        hits, present = self.prefilter.scan_words(lines.data, core_start, core_end)
        if not self.prefilter.words:  # a prefilter made before the first big window: it knows no words
            present = None
        lines.memo["present"] = present
        if not hits and not self.full_scan:
            return
        cand: dict[int, list[int]] = {}
        normalized: dict[int, tuple[str, str]] = {}

        def norm(li: int) -> tuple[str, str]:
            got = normalized.get(li)
            if got is None:
                got = normalized[li] = normalize_line(lines.line(li))
            return got

        # probes line by line (the first line in the log wins among equally good ones). A line with the same
        # bytes as one probed before (but for the GitHub timestamp, which normalization drops) cannot tell
        # anything new, and is not even decoded. A line of the same *shape* (the same bytes but for digits)
        # goes only to the probes that wanted that shape: a shape-free probe whose regex did not match it
        # cannot match a line of that shape, and one that gave nothing better says so (first wins among
        # equals); a probe that is not shape-free sees every new line. Such lines are skipped before even
        # their line number is counted.
        probed, shapes, retired = self._probed, self._shapes, self._retired
        probes = self.probes
        data = lines.data
        line_at = lines.line_at
        by_literal, probe_by_literal = self.by_literal, self.probe_by_literal
        # a big window: a literal's signatures whose message cannot be in it (no alternative of their Confirm
        # has all its words in the window) are dropped on the literal's first hit, so thousands of CudnnRNNV3 op
        # traces cost no line lookup at all; each owes one near miss, at its first hit
        narrow = present is not None and len(data) >= CONFIRM_FROM
        window_literals: dict[str, list[int]] = {}
        possible: dict[int, bool] = {}
        first_hit: dict[int, int] = {}
        for off, lits in hits.items():
            li = -1
            pidxs: tuple[int, ...] = ()
            for lit in lits:
                idxs = by_literal.get(lit)
                if idxs and narrow:
                    got = window_literals.get(lit)
                    if got is None:
                        got = window_literals[lit] = self._possible(idxs, lines, possible, first_hit, off)
                    idxs = got
                if idxs:
                    if li < 0:
                        li = line_at(off)
                    for idx in idxs:
                        cand.setdefault(idx, []).append(li)
                pidxs += probe_by_literal.get(lit, ())
            if not pidxs:
                continue
            end = data.find(b"\n", off)
            end = len(data) if end < 0 else end
            todo = tuple(sorted(set(pidxs))) if len(pidxs) > 1 else pidxs
            shape = None
            if end - off <= 600:
                ts = _RAW_TIMESTAMP.match(data, off, end)
                raw = data[ts.end() if ts else off : end]
                if (raw, todo) in probed:
                    continue
                if len(probed) >= PROBED_MEMO:
                    probed.clear()
                probed[(raw, todo)] = None
                shape = (raw.translate(_SHAPE), todo)
                got = shapes.get(shape)
                if got is not None:
                    if not got:
                        continue
                    todo = got
                elif len(shapes) >= PROBED_MEMO:
                    shapes.clear()
            if li < 0:
                li = line_at(off)
            text = norm(li)[0]
            wanted: list[int] = []
            for pidx in todo:
                if pidx in retired:  # retired earlier in this window
                    continue
                said = probes[pidx].handle(text, first_line + li)
                if said == RETIRE:
                    self._retire(pidx)
                elif said is not False or not probes[pidx].shape_free:
                    wanted.append(pidx)
            if shape is not None:
                shapes[shape] = tuple(wanted)
        for idx, off in first_hit.items():
            if missed.get(idx, 0) < MAX_NEAR_MISSES_PER_SIG and self.sigs[idx].id not in self.disabled:
                missed[idx] = missed.get(idx, 0) + 1
                yield None, self._unconfirmed(idx, first_line + line_at(off), source)
        if cand:
            yield from self._confirm(cand, lines, first_line, source, missed)
        for idx in self.full_scan:
            cand[idx] = list(range(core_first, core_first + core_count))
        for idx in sorted(cand):
            sig = self.sigs[idx]
            if sig.id in self.disabled:
                continue
            # demultiplex: the lines of each stream ([rank0]:, [rank1]:, ...) are matched on their own
            by_stream: dict[str, list[int]] = {}
            for li in sorted(set(cand[idx])):
                by_stream.setdefault(norm(li)[1], []).append(li)
            for slines in by_stream.values():
                for run in _runs(slines, sig.window_before + sig.window_after + 1):
                    yield from self._scan_run(sig, idx, run, lines, norm, first_line, source, seen, missed)

    def _confirm(
        self, cand: dict[int, list[int]], lines: _Lines, first_line: int, source: str, missed: dict[int, int]
    ) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        """Drop the candidate lines of a signature that lack, around them, the words of every alternative of its
        regex (Confirm): a literal on every other line of a dense log (``CudnnRNNV3`` in op traces) then costs
        one ``bytes.find`` per word and window instead of normalizing and searching the lines around each hit.
        A dropped line is a near miss, as a line whose full pattern did not match is (the cut reader uses them)."""
        if len(lines.data) < CONFIRM_FROM:
            return
        confirms = self.confirms
        for idx in list(cand):
            sig = self.sigs[idx]
            conf = confirms.get(idx, _UNSET)
            if conf is _UNSET:
                conf = confirms[idx] = confirm_words(sig.regex, sig.flags, sig.prefilter)
            if conf is None:
                continue
            local = self._local.get(idx)
            if local is None:
                local = self._local[idx] = line_local(sig.regex, sig.flags)
            before, after = (0, 0) if local else (sig.window_before, sig.window_after)
            branches = _branches_present(conf, lines)
            kept = [li for li in cand[idx] if self._confirmed(branches, conf.icase, li - before, li + after, lines)] if branches else []
            if len(kept) == len(cand[idx]):
                continue
            if not kept:
                first = min(cand.pop(idx))
                if missed.get(idx, 0) < MAX_NEAR_MISSES_PER_SIG and sig.id not in self.disabled:
                    missed[idx] = missed.get(idx, 0) + 1
                    yield None, self._unconfirmed(idx, first_line + first, source)
                continue
            cand[idx] = kept

    def _unconfirmed(self, idx: int, line: int, source: str) -> Miss:
        conf = self.confirms.get(idx)
        words = " / ".join(b"+".join(b).decode() for b in conf.branches) if conf else ""
        return Miss(self.sigs[idx], source, line, f"a line holds its literal but not the words of its message ({words})")

    def _possible(
        self, idxs: list[int], lines: _Lines, possible: dict[int, bool], first_hit: dict[int, int], off: int
    ) -> list[int]:
        """Those of a literal's signatures (``idxs``) whose message may be in this window (see _scan_window)."""
        keep: list[int] = []
        for idx in idxs:
            ok = possible.get(idx)
            if ok is None:
                conf = self.confirms.get(idx)
                ok = possible[idx] = conf is None or bool(_branches_present(conf, lines))
                if not ok:
                    first_hit.setdefault(idx, off)
            if ok:
                keep.append(idx)
        return keep

    def signature_hits(self, data: bytes) -> list[int]:
        """Offsets of the lines of ``data`` holding a literal of a signature whose message may be in ``data``
        (parallel.py cuts a file where there are none: op traces naming CudnnRNNV3 on every 20th line do not
        make a log loud for the signature that needs 'Detected unsupported operations' with it)."""
        if self._words is None:
            self._confirm_all()
        prefilter = Prefilter.shared(self.prefilter.literals, self._words or ())
        hits, present = prefilter.scan_words(data)
        lines = _Lines(data, data.count(b"\n") + 1)
        lines.memo["present"] = present
        out: list[int] = []
        for off, lits in hits.items():
            li = -1
            for lit in lits:
                for idx in self.by_literal.get(lit, ()):
                    conf = self.confirms.get(idx)
                    if conf is None:
                        break
                    branches = _branches_present(conf, lines)
                    if branches:
                        if li < 0:
                            li = lines.line_at(off)
                        sig = self.sigs[idx]
                        local = line_local(sig.regex, sig.flags)
                        before, after = (0, 0) if local else (sig.window_before, sig.window_after)
                        if self._confirmed(branches, conf.icase, li - before, li + after, lines):
                            break
                else:
                    continue
                out.append(off)
                break
        return out

    def _group_absent(self, group: tuple[str, ...], lines: _Lines, lo: int, hi: int) -> bool:
        """Whether no item of a context group can match in lines lo..hi. First for the whole window, from the
        prefilter's pass (the evidence literals are among its single-match words; a window with colour codes is
        looked at again with them deleted, once), then for the lines themselves (_Evidence.absent)."""
        present = lines.memo.get("present")
        lits = self.evidence.absence_literals(group)
        if present is not None and lits is not None and not any((lit, True) in present for lit in lits):
            joinable = lines.memo.get("joinable")
            if joinable is None:
                joinable = lines.memo["joinable"] = _has_joinable(lines.data)
            if not joinable:
                return True
            clean = lines.memo.get("present-clean")
            if clean is None:
                clean = lines.memo["present-clean"] = self.prefilter.scan_words(_delete_joinable(lines.data))[1] or set()
            if not any((lit, True) in clean for lit in lits):
                return True
        return self.evidence.absent(group, lines, lo, hi)

    def _confirm_all(self) -> None:
        """The first big window: every signature's Confirm, and a prefilter that also reports its words."""
        words: set[tuple[bytes, bool]] = set()
        for idx, sig in enumerate(self.sigs):
            conf = self.confirms.get(idx, _UNSET)
            if conf is _UNSET:
                conf = self.confirms[idx] = confirm_words(sig.regex, sig.flags, sig.prefilter)
            if conf is not None:
                words.update((w, conf.icase) for branch in conf.branches for w in branch)
            for group in (sig.context.exclude_any, sig.context.require_any, sig.context.support_any):
                lits = self.evidence.absence_literals(group) if group else None
                words.update((lit, True) for lit in lits or ())
        self._words = tuple(sorted(words))
        self._next_prefilter = Prefilter.shared(self.prefilter.literals, self._words)

    @staticmethod
    def _confirmed(branches: list[tuple[bytes, ...]], icase: bool, lo: int, hi: int, lines: _Lines) -> bool:
        for words in branches:
            for word in words:
                at = _word_lines(word, icase, lines)
                i = bisect.bisect_left(at, lo)
                if i == len(at) or at[i] > hi:
                    break
            else:
                return True
        return False

    def _retire(self, pidx: int) -> None:
        """Stop giving lines to probe ``pidx``: its literals no longer make a line a probe line."""
        self._retired.add(pidx)
        self.probe_by_literal = {
            lit: kept for lit, ps in self.probe_by_literal.items() if (kept := tuple(p for p in ps if p != pidx))
        }
        self._probed.clear()
        self._shapes.clear()
        literals = {*self.by_literal, *self.probe_by_literal}
        if len(literals) < len(self.prefilter.literals):  # a literal only it needed: scan for the others
            self._next_prefilter = Prefilter.shared(literals, self._words or ())

    def _scan_run(  # noqa: C901, PLR0912, PLR0913, PLR0915 - split in the match/ package step
        self,
        sig: Signature,
        idx: int,
        run: list[int],
        index: _Lines,
        norm: Callable[[int], tuple[str, str]],
        first_line: int,
        source: str,
        seen: dict[tuple[int, int, int], int],
        missed: dict[int, int],
    ) -> Iterator[tuple[RawMatch | None, Miss | None]]:
        ctx = sig.context
        stream = norm(run[0])[1]
        local = self._local.get(idx)
        if local is None:
            local = self._local[idx] = line_local(sig.regex, sig.flags)
        # (match, first line, last line, column) for each match; line indexes are window-relative
        found: list[tuple[Any, int, int, int]] = []
        spent = self.spent

        def timeout() -> float:  # one search: the per-search timeout, never past the signature's budget
            left = self.budget - spent.get(idx, 0.0)
            if left <= 0:
                raise TimeoutError
            return min(self.timeout, left)

        try:
            pattern = compile_pattern(sig.regex, sig.flags)
            if local:
                # no match can leave its line: only the candidate lines need the full regex, and the lines
                # around are normalized only for the context of an actual match (an error repeated 10,000
                # times costs 10,000 short searches, not 10,000 windows)
                memo = index.memo
                for li in run:
                    got = memo.get((pattern, li))  # signatures sharing a pattern search a line once
                    if got is None:
                        text = norm(li)[0]
                        started = time.thread_time()
                        try:
                            got = memo[(pattern, li)] = list(pattern.finditer(text, timeout=timeout()))
                        finally:  # only the regex's own time is charged to the signature's budget
                            spent[idx] = spent.get(idx, 0.0) + time.thread_time() - started
                    found += ((m, li, li, m.start()) for m in got)

                def around(lo: int, hi: int) -> list[str]:
                    lo, hi = max(0, lo), min(index.count - 1, hi)
                    return [norm(li)[0] for li in range(lo, hi + 1) if not stream or norm(li)[1] == stream]

            else:
                # the region the regex may span (the run plus the signature's window) is normalized and joined;
                # the context lines around it only for an actual match (a literal on every other line of a
                # dense log would otherwise normalize each line lines_before + lines_after times over)
                lo = max(0, run[0] - sig.window_before)
                hi = min(index.count - 1, run[-1] + sig.window_after)
                keep = [li for li in range(lo, hi + 1) if not stream or norm(li)[1] == stream]
                texts = [norm(li)[0] for li in keep]
                # the region the regex may span: the run plus the signature's window
                r_lo = bisect.bisect_left(keep, run[0] - sig.window_before)
                r_hi = bisect.bisect_right(keep, run[-1] + sig.window_after)
                offsets = [0]
                for t in texts:
                    offsets.append(offsets[-1] + len(t) + 1)
                joined = "\n".join(texts)
                started = time.thread_time()
                try:
                    for m in pattern.finditer(joined, offsets[r_lo], max(offsets[r_lo], offsets[r_hi] - 1), timeout=timeout()):
                        s_i = bisect.bisect_right(offsets, m.start()) - 1
                        e_i = bisect.bisect_right(offsets, max(m.start(), m.end() - 1)) - 1
                        found.append((m, keep[s_i], keep[e_i], m.start() - offsets[s_i]))
                finally:
                    spent[idx] = spent.get(idx, 0.0) + time.thread_time() - started

                def around(lo: int, hi: int) -> list[str]:
                    lo, hi = max(0, lo), min(index.count - 1, hi)
                    if keep and keep[0] <= lo and hi <= keep[-1]:
                        return texts[bisect.bisect_left(keep, lo) : bisect.bisect_right(keep, hi)]
                    return [norm(li)[0] for li in range(lo, hi + 1) if not stream or norm(li)[1] == stream]

        except TimeoutError:
            self.disabled[sig.id] = "regex timed out"
            self.warnings.append(
                f"signature {sig.id} skipped for the rest of this run: its regex took longer than its {self.budget:g}s "
                f"budget ({sig.path}; catastrophic backtracking? `cudnn-doctor validate` checks for it)"
            )
            return
        except regex.error as exc:
            self.disabled[sig.id] = "regex error"
            self.warnings.append(f"signature {sig.id} skipped: {exc}")
            return
        if not found:
            if missed.get(idx, 0) < MAX_NEAR_MISSES_PER_SIG:
                missed[idx] = missed.get(idx, 0) + 1
                yield None, Miss(sig, source, first_line + run[0], f"a line holds its literal ({', '.join(sig.prefilter[:2]) or 'derived'}) but the full pattern did not match")
            return
        for m, li_s, li_e, col in found:
            abs_line = first_line + li_s
            key = (idx, abs_line, col)
            if key in seen:
                continue
            seen[key] = abs_line
            evidence: list[str] = []
            supported = False
            if ctx.exclude_any or ctx.require_any or ctx.support_any:
                exclude = ctx.exclude_any
                if NON_RNN in exclude and DIRECT_RNN.search(m.group(0)):
                    # the matched text itself names a cuDNN RNN call or op: a convolution nearby
                    # (a CRNN) does not make it a convolution error
                    exclude = tuple(e for e in exclude if e != NON_RNN)
                c_lo, c_hi = li_s - ctx.lines_before, li_e + ctx.lines_after
                # which groups can match at all there (their literals in the raw lines): one that cannot needs no
                # normalized context (an error repeated 10,000 times without its cause's evidence nearby)
                absent = self._group_absent
                no_exclude = not exclude or absent(exclude, index, c_lo, c_hi)
                no_require = bool(ctx.require_any) and absent(ctx.require_any, index, c_lo, c_hi)
                no_support = not ctx.support_any or absent(ctx.support_any, index, c_lo, c_hi)
                if no_exclude and (no_require or (not ctx.require_any and no_support)):
                    only: list[int] | None = []
                else:
                    only = None if stream else self.evidence.lines_with((*exclude, *ctx.require_any, *ctx.support_any), index, c_lo, c_hi)
                if only is None:
                    context_text = "\n".join(around(c_lo, c_hi))
                elif not only:
                    context_text = ""
                else:
                    text_key = ("context", *only)
                    got = index.memo.get(text_key)
                    if got is None:
                        got = index.memo[text_key] = "\n".join(norm(li)[0] for li in only)
                    context_text = got
                try:
                    if exclude:
                        bad = self.evidence.find(exclude, context_text, index.memo)
                        if bad is not None:
                            if missed.get(idx, 0) < MAX_NEAR_MISSES_PER_SIG:
                                missed[idx] = missed.get(idx, 0) + 1
                                yield None, Miss(sig, source, abs_line, f"matched, but excluded by context {bad!r} nearby")
                            continue
                    if ctx.require_any:
                        good = self.evidence.find(ctx.require_any, context_text, index.memo)
                        if good is None:
                            if missed.get(idx, 0) < MAX_NEAR_MISSES_PER_SIG:
                                missed[idx] = missed.get(idx, 0) + 1
                                need = ", ".join(ctx.require_any)
                                yield None, Miss(sig, source, abs_line, f"matched, but no required evidence ({need}) within the lines around it")
                            continue
                        evidence.append(good)
                    if ctx.support_any:
                        extra = self.evidence.find(ctx.support_any, context_text, index.memo)
                        if extra is not None:
                            evidence.append(extra)
                            supported = True
                except TimeoutError:
                    self.warnings.append(f"signature {sig.id}: context check timed out; skipped")
                    continue
            text = m.group(0)
            if len(text) > MAX_MATCH_TEXT:
                text = text[:MAX_MATCH_TEXT] + "..."
            # the lines up to the match: the first match per signature and source gets TRACEBACK_LINES of them
            # (its traceback's user frame); later ones (an error repeated 10,000 times) only the few that
            # rank.cluster looks at for a new traceback
            lo = li_s - (SHORT_BEFORE if (source, idx) in self._framed else TRACEBACK_LINES)
            self._framed.add((source, idx))
            if local:  # shared by the signatures that match the same line (one LazyLines, normalized once)
                before_key = ("before", lo, li_e, stream)
                before = index.memo.get(before_key)
                if before is None:
                    before = index.memo[before_key] = LazyLines(index.raw_lines(lo, li_e), stream)
            else:
                before = around(lo, li_e)
            yield (
                RawMatch(
                    sig=sig,
                    source=source,
                    line=abs_line,
                    end_line=first_line + li_e,
                    text=text,
                    captures=dict(m.groupdict()),
                    stream=norm(li_s)[1],
                    evidence=evidence,
                    supported=supported,
                    before=before,
                ),
                None,
            )


def _window_data(icase: bool, lines: _Lines) -> bytes:
    if not icase:
        return lines.data
    data = lines.memo.get("lower")
    if data is None:
        data = lines.memo["lower"] = lines.data.lower()  # ASCII only: same offsets
    return data


def _has_word(word: bytes, icase: bool, lines: _Lines) -> bool:
    """Whether ``word`` is anywhere in the window (the prefilter's hyperscan pass says so, or one find)."""
    key = ("has", word, icase)
    got = lines.memo.get(key)
    if got is None:
        present = lines.memo.get("present")
        got = (word, icase) in present if present is not None else _window_data(icase, lines).find(word) >= 0
        lines.memo[key] = got
    return got


def _branches_present(conf: Confirm, lines: _Lines) -> list[tuple[bytes, ...]]:
    """The alternatives of ``conf`` whose every word is somewhere in the window (a word on every line of a
    dense log, such as 'device', is located line by line only when the other words of its alternative are
    there too)."""
    return [
        tuple(sorted(words, key=lambda w: _word_count(w, conf.icase, lines)))  # rarest first: checked first
        for words in conf.branches
        if all(_has_word(w, conf.icase, lines) for w in words)
    ]


def _word_count(word: bytes, icase: bool, lines: _Lines) -> int:
    key = ("count", word, icase)
    got = lines.memo.get(key)
    if got is None:
        got = lines.memo[key] = _window_data(icase, lines).count(word, 0, 1 << 16)  # a sample: how common
    return got  # type: ignore[no-any-return]


def _word_lines(word: bytes, icase: bool, lines: _Lines) -> list[int]:
    """The sorted indexes of the window's lines holding ``word`` (found once per window, in C)."""
    key = ("word", word, icase)
    got = lines.memo.get(key)
    if got is not None:
        return got
    data = _window_data(icase, lines)
    found: list[int] = []
    li, prev = 0, 0
    pos = data.find(word)
    while pos >= 0:
        li += data.count(b"\n", prev, pos)
        prev = pos
        if not found or found[-1] != li:
            found.append(li)
        nl = data.find(b"\n", pos)
        pos = -1 if nl < 0 else data.find(word, nl)
    lines.memo[key] = found
    return found


class _Lines:
    """Line access into a window of UTF-8 bytes by line index, without indexing every line.

    The lines the prefilter points at are located by counting newlines from the previous one (in C); the
    lines around them (context, tracebacks) by walking from the nearest line already located. A line is
    decoded (invalid UTF-8 -> U+FFFD) only when asked for.
    """

    def __init__(self, data: bytes, count: int) -> None:
        self.data = data
        self.count = count
        self._starts: dict[int, int] = {0: 0}
        self._known: list[int] = [0]  # sorted line indexes whose start is known
        self._last = (0, 0)  # (offset, line index) of the last line located by line_at
        self.memo: dict[Any, Any] = {}  # results computed on this window (_Evidence.lines_with)

    def line_at(self, start: int) -> int:
        """The index of the line that starts at byte offset ``start`` (cheapest in increasing order)."""
        off, li = self._last
        if start < off:
            off, li = 0, 0
        li += self.data.count(b"\n", off, start)
        self._last = (start, li)
        if li not in self._starts:
            self._starts[li] = start
            bisect.insort(self._known, li)
        return li

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
            for _ in range(hi - li):
                pos = data.rfind(b"\n", 0, pos - 1) + 1
        else:
            pos = self._starts[lo]
            for _ in range(li - lo):
                pos = data.find(b"\n", pos) + 1
        self._starts[li] = pos
        bisect.insort(known, li)
        return pos

    def raw_lines(self, lo: int, hi: int) -> list[bytes]:
        """Lines lo..hi (clamped to the window) as raw bytes, with one slice."""
        lo, hi = max(0, lo), min(self.count - 1, hi)
        if hi < lo:
            return []
        end = self.data.find(b"\n", self.start(hi))
        return self.data[self.start(lo) : len(self.data) if end < 0 else end].split(b"\n")

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


def _head_lines(data: bytes, n: int) -> list[bytes]:
    """The first ``n`` lines of a block (fewer if it has fewer), without splitting all of it."""
    out: list[bytes] = []
    pos = 0
    while len(out) < n:
        end = data.find(b"\n", pos)
        if end < 0:
            out.append(data[pos:])
            break
        out.append(data[pos:end])
        pos = end + 1
    return out


def _tail_lines(data: bytes, n: int, prev: list[bytes]) -> list[bytes]:
    """The last ``n`` lines of a block, topped up from the previous tail when the block is shorter."""
    if n <= 0:
        return []
    out: list[bytes] = []
    end = len(data)
    while len(out) < n:
        start = data.rfind(b"\n", 0, end) + 1
        out.append(data[start:end])
        if start == 0:
            return (prev + out[::-1])[-n:]
        end = start - 1
    return out[::-1]

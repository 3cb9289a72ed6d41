"""A message cut off still matches: read the end of a line (or of the input) that stops inside a signature's
message, after its distinctive part.

A line's end is *read as cut* by signature S when S's regex, run with the `regex` module's partial matching,
reaches the end of the text (``m.partial``) and what it read holds one of S's prefilter literals whole or ends
with at least ``MIN_LITERAL`` characters of one (``... CUDNN_STATUS_EXECUTION_FAI``): a few generic characters
that happen to begin some pattern are not a reading. The candidates then pass S's context rules (required /
excluded evidence nearby) as a full match would.

Several candidates are one reading when they agree on how the message goes on: the best of them by the ranking
of full matches (priority, scope) stays a match, a partial or full one, on the text completed with each other
candidate's literal (``CUDNN_STATUS_EXECUTION_FAI`` + ``LED``). Otherwise the cut is *ambiguous*: a near miss
that lists the candidates, not a guess (``CUDNN_STA`` could be any status).

``shortest_prefixes`` computes, for every signature and example, the shortest prefix of the example's message
from which on every longer cut is read as that signature alone; ``cudnn-doctor validate`` reports it.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..fieldmethods import FieldEq, FieldValue
from ..kb.patterns import Lazy, compile_pattern, regex_error
from ..model import Signature
from ..read.normalize import normalize_line
from ..read.present import unbalanced

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

MIN_LITERAL = 10  # "cuDNN st" of a log cut in "cuDNN stream" is no reading of "cuDNN status ="
ELLIPSES = ("...", "\u2026", "[truncated]", "(truncated)", "[...]")
CUT_TIMEOUT_S = 1.0
SCOPE_RANK = {"rnn": 2, "cudnn": 1, "cuda": 0}
# as match.DIRECT_RNN: an RNN API named in the text read outweighs conv words nearby
# what makes a begun literal specific: a code-like word (a digit, an underscore, an inner capital: cuDNN,
# ThenRnnForward, CUDNN_STATUS_..) or a word of the RNN/cuDNN vocabulary. Ordinary words ('failed to set',
# 'could not create') begin messages of many programs: a line ending in them is no reading.
SPECIFIC = Lazy(r"\w*(?:\d|_|[a-z][A-Z])\w*|(?i:\w*(?:cudnn|rnn|lstm|gru|miopen|cuda|dnn|cublas|cufft)\w*)")
DIRECT_RNN = Lazy(r"\bcudnnRNN\w*|\bcudnn(?:Set|Get)RNN\w*|\bCudnnRNN\w*|\b_cudnn_rnn\w*|\b(?:Then|Do)Rnn(?:Forward|Backward)\b|\brnn-inl\.h\b|\bcurnn\.jl\b")


@dataclass(slots=True, repr=False, eq=False)
class CutRead(FieldEq):
    """One signature's reading of a cut text."""

    sig: Signature
    start: int  # where the partial match starts in the text
    text: str  # what it read
    captures: dict[str, str | None]
    unread: list[str] = field(default_factory=list)  # named values the cut left out (those the report uses first)
    rest: str = ""  # the literal's remainder this reading expects next ('' when it read a literal whole)
    at: int = 0  # where that literal starts in the text
    size: int = 0  # how much of it the text holds


@dataclass(slots=True, repr=False, eq=False)
class CutResult(FieldEq):
    """``reads[0]`` is the reading (one candidate or several agreeing); ``ambiguous`` lists several that disagree."""

    reads: list[CutRead]
    ambiguous: bool

    @property
    def best(self) -> CutRead:
        return self.reads[0]


def cut_record(read: CutRead, others: Sequence[str] = ()) -> dict[str, Any]:
    """What a report says about a cut match: what was read, what could not be, whether the full line matters."""
    ask = bool(read.unread) or bool(others)
    return {
        "read": read.text[-200:],
        "unread": list(read.unread),
        "expected_next": read.rest or None,
        "could_also_be": list(others),
        "ask_full_line": ask,
    }


class CutReader:
    """Reads cut texts against a set of signatures (literals indexed once)."""

    def __init__(self, sigs: Sequence[Signature]) -> None:
        self.sigs = list(sigs)
        # every distinct literal, sorted (a cut line's end is looked up by bisection among those it begins),
        # with the (order of appearance, signature index) of each of its uses, and the first MIN_LITERAL
        # characters of each: most line ends begin none (no index of every prefix to build, ~9 ms of each
        # start for the built-in base). A literal many signatures share (a knowledge base of variants of one
        # message) is looked for once.
        self._index = {sig.id: idx for idx, sig in enumerate(self.sigs)}
        self._leads: dict[int, frozenset[str]] = {}
        self._used: dict[str, frozenset[str]] = {}
        whole: dict[str, list[tuple[int, int]]] = {}
        order = 0
        for idx, sig in enumerate(self.sigs):
            for lit in sig.prefilter:
                whole.setdefault(lit.lower(), []).append((order, idx))
                order += 1
        self._whole = [(lit, tuple(uses)) for lit, uses in whole.items()]
        self._sorted = sorted((lit, uses) for lit, uses in self._whole if len(lit) > MIN_LITERAL)
        self._heads = {lit[:MIN_LITERAL] for lit, _ in self._sorted}
        self._longest = max((len(lit) - 1 for lit, _ in self._sorted), default=0)

    def triggers(self, low: str, line_start: int) -> dict[int, tuple[str, int, int]]:
        """Signatures with a literal whole in the cut line or begun at its very end:
        {index: (the literal's remainder, where the literal starts, how much of it is there)}."""
        out: dict[int, tuple[str, int, int]] = {}
        n = len(low)
        for k in range(min(self._longest, n - line_start), MIN_LITERAL - 1, -1):
            for idx, rest in self._begun(low[n - k :]):
                if idx not in out:
                    out[idx] = (rest, n - k, k)
        found: list[tuple[int, int, int, int]] = []
        for lit, uses in self._whole:
            pos = low.find(lit, line_start)
            if pos >= 0:
                found += ((order, idx, pos, len(lit)) for order, idx in uses)
        found.sort()  # in the order the literals appear in the signatures
        for _order, idx, pos, size in found:
            if idx not in out or out[idx][0]:
                out[idx] = ("", pos, size)
        return out

    def begins_literal(self, text: str) -> bool:
        """Whether ``text`` (lower-case, at least MIN_LITERAL characters) is how a literal of the base begins."""
        if text[:MIN_LITERAL] not in self._heads:
            return False
        lits = self._sorted
        i = bisect.bisect_left(lits, (text,))
        while i < len(lits) and lits[i][0].startswith(text):
            if len(lits[i][0]) > len(text):
                return True
            i += 1
        return False

    def _begun(self, begun: str) -> list[tuple[int, str]]:
        """(signature index, rest) for each literal longer than ``begun`` that starts with it, in the order
        the literals appear in the signatures."""
        if begun[:MIN_LITERAL] not in self._heads:
            return []
        lits = self._sorted
        i = bisect.bisect_left(lits, (begun,))
        found: list[tuple[int, int, str]] = []
        while i < len(lits) and lits[i][0].startswith(begun):
            lit, uses = lits[i]
            if len(lit) > len(begun):
                found += ((order, idx, lit[len(begun) :]) for order, idx in uses)
            i += 1
        return [(idx, rest) for _, idx, rest in sorted(found)]

    def read(
        self, text: str, line_start: int, allowed: Iterable[int] | None = None, keep: Callable[[CutRead], bool] | None = None
    ) -> CutResult | None:
        """Read the end of ``text`` (the cut line is text[line_start:]; lines before it are context for
        patterns that span lines). ``allowed``: only these signature indexes; ``keep``: the context check a
        reading must pass (as a full match would)."""
        tail = text[line_start:].rstrip()
        if len(tail) < MIN_LITERAL:
            return None
        text = text[: line_start + len(tail)]
        reads = self._reads(text, line_start, allowed)
        if keep is not None:
            reads = [r for r in reads if keep(r)]
        if not reads:
            return None
        # the reading that explains most of the line (begins first) and those that began before the end of its
        # literal compete as full matches of one error do: priority, then scope; a reading that begins later
        # (``... Expected`` at the end of an input_size message) is another message
        primary = min(reads, key=lambda r: (r.start, -r.sig.priority))
        group = [r for r in reads if r.start <= primary.at + primary.size]
        group.sort(key=lambda r: (-r.sig.priority, -SCOPE_RANK.get(r.sig.scope, 0), r.start, r.sig.id))
        best = group[0]
        reads = group + [r for r in reads if r not in group]
        ambiguous = False
        for r in group[1:]:
            overlap = r.at < best.at + best.size and best.at < r.at + r.size
            if overlap and r.rest != best.rest and not self._reads(text + r.rest, line_start, (self._index[best.sig.id],)):
                ambiguous = True
                break
        return CutResult(reads, ambiguous)

    def _reads(self, text: str, line_start: int, allowed: Iterable[int] | None = None) -> list[CutRead]:
        trig = self.triggers(text.lower(), line_start)
        if allowed is not None:
            keep = set(allowed)
            trig = {i: t for i, t in trig.items() if i in keep}
        out: list[CutRead] = []
        for idx, (rest, at, k) in trig.items():
            got = self._partial(self.sigs[idx], text, line_start, at)
            # the reading must rest on the literal: with it blanked out, the pattern must no longer read the
            # text (``[^\n]*?`` reads anything)
            if got is not None and rest and SPECIFIC.search(got.text) is None:
                continue  # it read only ordinary words, up to a literal begun at the end
            if got is not None and self._partial(self.sigs[idx], text[:at] + "\x01" * k + text[at + k :], line_start, at, True) is None:
                got.rest, got.at, got.size = rest, at, k
                out.append(got)
        return out

    def _partial(self, sig: Signature, text: str, line_start: int, at: int, probe: bool = False) -> CutRead | None:
        try:
            pattern = compile_pattern(sig.regex, sig.flags)
            last = None
            for m in pattern.finditer(text, max(0, line_start - 4000), partial=True, timeout=CUT_TIMEOUT_S):
                if m.end() > m.start():  # not the empty partial match every text ends with
                    last = m
            if last is not None and last.end() != len(text):
                # an optional tail the cut left half-read: the match stopped before it, the reading goes on
                last = pattern.fullmatch(text, last.start(), partial=True, timeout=CUT_TIMEOUT_S) or last
        except (TimeoutError, regex_error()):
            return None
        # a full match that ends where the text does reads it too (``got 5`` of ``got 50``); what was read
        # must hold the literal that made the signature a candidate, and begin before it when the signature's
        # messages never begin with it (else ``[\w.]+\.cu`` reads ``CUDNN_STATUS_EXEC`` as a file name)
        if last is None or last.end() != len(text) or last.start() > at or last.end() <= line_start:
            return None
        if probe:
            return CutRead(sig, last.start(), "", {})
        if last.start() == at and not self._may_lead(sig, text[at:].lower()):
            return None
        caps = dict(last.groupdict())
        used = self._used_names(sig)
        unread = [name for name in pattern.groupindex if caps.get(name) is None and name in used]
        # a value read up to the cut may itself be cut ('got [1, 4'): the full line could say more
        for name in pattern.groupindex:
            if caps.get(name) is not None and last.span(name)[1] == len(text) and name in used and name not in unread:
                unread.append(name)
        return CutRead(sig, last.start(), last.group(0), caps, unread)

    def stops_inside(self, read: CutRead, text: str, line_start: int) -> bool:
        """At the end of an input, whether the text stops inside the message ``read`` reads, rather than being
        a complete line that holds its literal: a literal begun and not finished, an ellipsis or an open
        bracket; the pattern's own words read up to the end; or the message beginning where messages begin
        and stopping right after its literal ('CUDA error: CUDA driver version is insufficient'). Not: the
        literal mid-sentence ('... opened dynamic library libcudnn.so.8') or a wildcard reading the rest."""
        if read.rest:
            return True
        line = text[line_start:].rstrip()
        if line.endswith(ELLIPSES) or unbalanced(line) or self.specific_tail(read, text, line_start):
            return True
        return len(text) - read.at - read.size < MIN_LITERAL and message_start(text, read.start, line_start)

    def specific_tail(self, read: CutRead, text: str, line_start: int) -> bool:
        """Whether the reading went on past its literal and its last ``MIN_LITERAL`` characters were read by
        the pattern's own text (blanked out, they no longer read), not by a wildcard."""
        tail_from = read.at + read.size
        if len(text) - tail_from < MIN_LITERAL:
            return False
        # the last few characters read, blanked: a wildcard ('[^\n]*?') still reads them, the pattern's words not
        blanked = text[: len(text) - MIN_LITERAL] + "\x01" * MIN_LITERAL
        return self._partial(read.sig, blanked, line_start, read.at, probe=True) is None

    def _may_lead(self, sig: Signature, read: str) -> bool:
        """Whether one of ``sig``'s literals begins a message of its examples, and ``read`` is such a literal
        (or its start). A signature without examples is given the benefit of the doubt."""
        idx = self._index[sig.id]
        leads = self._leads.get(idx)
        if leads is None:
            found: set[str] = set()
            seen = False
            for ex in sig.examples:
                got = example_message(sig, ex.text)
                if got is None:
                    continue
                seen = True
                msg = got[0][got[1] : got[2]].lower()
                found.update(lit.lower() for lit in sig.prefilter if msg.startswith(lit.lower()))
            leads = self._leads[idx] = frozenset(found) if seen else frozenset(lit.lower() for lit in sig.prefilter)
        return any(read.startswith(lit) or lit.startswith(read) for lit in leads)

    def _used_names(self, sig: Signature) -> frozenset[str]:
        got = self._used.get(sig.id)
        if got is None:
            texts = [c.text + " " + (c.when or "") for c in (*sig.explain, *sig.checks)]
            texts += [c.text + " " + (c.when or "") for _, cases in sig.derived for c in cases]
            blob = " ".join(texts)
            got = self._used[sig.id] = frozenset(n for n in compile_pattern(sig.regex, sig.flags).groupindex if n in blob)
        return got


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Prefix(FieldValue):
    """The shortest unambiguous prefix of one example's message, or why there is none."""

    sig_id: str
    example: str
    message: str
    length: int | None  # None: only the whole message is unambiguous

    @property
    def text(self) -> str:
        return self.message[: self.length] if self.length is not None else self.message


def example_message(sig: Signature, text: str) -> tuple[str, int, int] | None:
    """(clean text, start, end) of the first match of ``sig`` in an example's clean text."""
    from ..read.normalize import clean_text

    clean = clean_text(text)
    try:
        m = compile_pattern(sig.regex, sig.flags).search(clean, timeout=CUT_TIMEOUT_S)
    except (TimeoutError, regex_error()):
        return None
    return (clean, m.start(), m.end()) if m else None


_MESSAGE_START = Lazy(r"(?:^|[:\]>|'\"(]|\w(?:Error|Exception|Warning|Failure))\s*$")


def message_start(text: str, start: int, line_start: int) -> bool:
    """Whether a reading begins where messages begin: the line's start, or after ': ', '] ', a quote, an
    exception name."""
    if start < line_start:
        return True
    return _MESSAGE_START.search(normalize_line(text[line_start:start])[0]) is not None


def context_check(evidence: Any, context: str) -> Callable[[CutRead], bool]:
    """A reading passes when its signature's excluded evidence is absent from ``context`` and its required
    evidence present (``evidence``: the matcher's evidence sets)."""

    def keep(read: CutRead) -> bool:
        ctx = read.sig.context
        try:
            if read.sig.scope == "rnn" and DIRECT_RNN.search(read.text) is None and evidence.find(("@non_rnn",), read.text):
                return False  # what it read names another op ('... (at .../conv_cudnn_op.cu'): not this RNN message
            if ctx.exclude_any and evidence.find(ctx.exclude_any, context) is not None:
                return "@non_rnn" in ctx.exclude_any and DIRECT_RNN.search(read.text) is not None and evidence.find(
                    tuple(e for e in ctx.exclude_any if e != "@non_rnn"), context) is None
            return not ctx.require_any or evidence.find(ctx.require_any, context) is not None
        except TimeoutError:
            return False

    return keep


def shortest_prefix(
    reader: CutReader, sig: Signature, text: str, name: str = "", evidence: Any = None
) -> Prefix | None:
    """The shortest cut of the example's message from which on every longer cut (within the message's first
    line) is read as ``sig`` alone. None when the example does not match."""
    got = example_message(sig, text)
    if got is None:
        return None
    clean, start, end = got
    nl = clean.find("\n", start)
    stop = end if nl < 0 else min(end, nl)  # a message that spans lines is cut within its first line
    line_start = clean.rfind("\n", 0, start) + 1
    message = clean[start:stop]
    length: int | None = None
    for k in range(stop - start - 1, 0, -1):
        # context as a cut input has it: only what comes before the cut
        keep = context_check(evidence, clean[: start + k]) if evidence is not None else None
        res = reader.read(clean[: start + k], line_start, keep=keep)
        if res is None or res.ambiguous or res.best.sig.id != sig.id or not reader.stops_inside(res.best, clean[: start + k], line_start):
            break
        length = k
    return Prefix(sig.id, name, message, length)


def shortest_prefixes(sigs: Sequence[Signature], evidence: Any = None) -> list[Prefix]:
    """The shortest unambiguous prefix of every example's message (``evidence``: judge context as the
    matcher does, e.g. ``Matcher(catalog).evidence``)."""
    reader = CutReader(sigs)
    out: list[Prefix] = []
    for sig in sigs:
        for i, ex in enumerate(sig.examples):
            p = shortest_prefix(reader, sig, ex.text, ex.name or f"example {i + 1}", evidence)
            if p is not None:
                out.append(p)
    return out

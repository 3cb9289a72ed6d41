"""The tolerant reading: a signature's message found from whatever is left of it, where no regex matched.

One mechanism for every shape people carry a message in (templates.py finds it): an issue title or a
sentence that holds it, other casing or spacing, its prefix or suffix dropped, its second half on the next
line, a message cut at a line's end or at the input's end, and a traceback whose message line is empty but
whose innermost frame says where it was raised (``raised_at``). A reading counts only when what was read
holds enough to tell the signature from every other:

- its words carry at least MIN_BITS of information (a generic prefix such as 'Check failed:', a status name
  alone, a line ending in a common word carry too little);
- the signatures whose templates hold the same words, once their context rules (``exclude_any`` /
  ``require_any``) have been applied as to an exact match, are one message: a signature and the causes
  behind it. Several messages: a near miss that names them (the full line would tell).

A reading becomes a match with a ``cut`` record (rank.py lowers its confidence): what was read, the named
values it could not read, what the message would say next.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..fieldmethods import FieldEq, FieldValue
from ..kb.patterns import compile_pattern, regex_error
from ..model import Signature
from .context import Evidence, context_items, direct_rnn
from .templates import START_BITS, Chain, Recognizer, word_ends, words

MIN_BITS = 22.0  # information a reading holds at least (a few rare words, or several common ones)
MAX_READINGS = 8  # per text: the strongest, apart
MAX_FRAME_GAP = 6  # lines between a raising frame and the end of its traceback
FOLLOWING = 3  # lines after a reading its signature's regex is also run over


@dataclass(slots=True, repr=False, eq=False)
class Reading(FieldEq):
    """One reading of a text: the signatures it may be (one message), where, what was read, what was not."""

    sigs: list[Signature]
    start: int  # character span in the text
    end: int
    read: str
    expected_next: str | None
    others: list[str] = field(default_factory=list)  # several messages: the full line would tell
    captures: dict[str, str | None] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    supported: bool = False

    def record(self) -> dict[str, object]:
        """The report's ``cut`` record."""
        sig = self.sigs[0]
        shown = " ".join(c.text for c in (*sig.explain, *sig.checks))  # the values a report would show
        names = compile_pattern(sig.regex, sig.flags).groupindex
        unread = [name for name in names if self.captures.get(name) is None and "{" + name in shown]
        return {"read": self.read[-200:], "unread": unread, "expected_next": self.expected_next,
                "could_also_be": list(self.others), "ask_full_line": True}


class Tolerant:
    """Reads texts against a base's templates and raising frames."""

    def __init__(self, sigs: Sequence[Signature], evidence: Evidence) -> None:
        self.sigs = list(sigs)
        self.evidence = evidence
        self.rec = Recognizer([s.templates for s in self.sigs])
        self._holding: dict[tuple[str, ...], frozenset[int]] = {}
        frames: dict[tuple[str, str], list[int]] = {}
        for idx, sig in enumerate(self.sigs):
            for where in sig.raised_at:
                path, _, function = where.partition(" ")
                frames.setdefault((path.replace("\\", "/"), function), []).append(idx)
        self.frames = frames

    # ------------------------------------------------------------------ messages

    def read(self, text: str, context: str | None = None) -> list[Reading]:
        """The readings of ``text`` (normalized lines), strongest first, apart from each other; ``context``: the
        text the context rules look at (``text`` itself by default)."""
        tw = words(text)
        if not tw:
            return []
        ends = word_ends(text, tw)
        chains = [self._back(c, tw) for c in self.rec.chains(tw, ends)]
        chains = [c for c in chains if c.bits >= MIN_BITS and not self._contradicted(c, tw, text, ends)]
        chains.sort(key=lambda c: (-c.bits, c.start))
        taken: list[tuple[int, int]] = []
        out: list[Reading] = []
        for c in chains:
            if any(c.start <= e and s <= c.end for s, e in taken):
                continue
            taken.append((c.start, c.end))
            got = self._reading(c, text, tw, text if context is None else context)
            if got is not None:
                out.append(got)
            if len(out) >= MAX_READINGS:
                break
        return out

    def _reading(self, c: Chain, text: str, tw: Sequence[tuple[str, int, int]], context: str) -> Reading | None:
        start, end = tw[c.start][1], tw[c.end][2]
        read = text[start:end]
        held = self.holding(self._words_of(c))
        passing, evidence = [], {}
        for idx in sorted(held):
            sig = self.sigs[idx]
            verdict = self.evidence.verdict(sig, direct_rnn(sig, read), context) if context_items(sig) else ([], False)
            if not isinstance(verdict, str):
                passing.append(sig)
                evidence[sig.id] = verdict
        lines = _lines_around(text, start, end)
        tail = _lines_around(text[start:], 0, end - start)  # from the reading on: a title's '# ' left out
        reads = {sig.id: _regex_reads(sig, lines) or _regex_reads(sig, tail) for sig in passing}
        passing = [sig for sig in passing if reads[sig.id] is not None]
        if not passing:
            return None
        tpl = self.rec.tpls[c.tid]
        nxt = " ".join(w for w in tpl[c.last + 1 : c.last + 4] if w) if c.last + 1 < len(tpl) else ""
        if c.part:
            nxt = tpl[c.last][len(c.part) :] + (" " + nxt if nxt else "")
        roots = {root(s) for s in passing}
        reading = Reading(passing, start, end, read, nxt or None)
        if len(roots) > 1:
            reading.others = [s.id for s in passing]
            return reading
        reading.captures = reads[passing[0].id] or {}
        reading.evidence, reading.supported = evidence[passing[0].id]
        return reading

    def _back(self, c: Chain, tw: Sequence[tuple[str, int, int]]) -> Chain:
        """The chain grown backwards over the template's words before it that the text has right before it
        (a chain starts only at an informative word: 'cudnn rnn' before 'backward')."""
        tpl = self.rec.tpls[c.tid]
        while c.start > 0 and c.first > 0 and tpl[c.first - 1] and tw[c.start - 1][0] == tpl[c.first - 1]:
            c.first, c.start = c.first - 1, c.start - 1
            c.bits += self.rec.weight.get(tpl[c.first], 0.0)
        return c

    def _contradicted(self, c: Chain, tw: Sequence[tuple[str, int, int]], text: str, ends: frozenset[int]) -> bool:
        """Whether the text has, on the same line, another word where the template's next word should be, or
        where its word before should be: another message that shares words with this one ('... while
        checking arguments for addmm', 'FlashRNN backward can only be called'), not a cut one (a cut stops at
        a line's end, the input's end or an ellipsis; a message's prefix dropped leaves a line's start)."""
        tpl = self.rec.tpls[c.tid]
        if not c.part and c.last + 1 < len(tpl) and tpl[c.last + 1] and c.end not in ends:
            return True
        if c.first > 0 and tpl[c.first - 1] and c.start > 0:
            between = text[tw[c.start - 1][2] : tw[c.start][1]]
            return "\n" not in between and not _OPENING.search(between)
        return False

    def _words_of(self, c: Chain) -> tuple[str, ...]:
        """The words a chain read, in order (its cut last word as read)."""
        tpl = self.rec.tpls[c.tid]
        got = [w for w in tpl[c.first : c.last + 1] if w]
        if c.part:
            got[-1] = c.part
        return tuple(got)

    def holding(self, seq: tuple[str, ...]) -> frozenset[int]:
        """The signatures one of whose templates holds the words ``seq`` in order (its last word may be cut)."""
        got = self._holding.get(seq)
        if got is None:
            text = " ".join(seq)
            tw = words(text)
            first = next((i for i, (w, _, _) in enumerate(tw) if self.rec.weight.get(w, 0.0) >= START_BITS), 0)
            chains = self.rec.chains(tw, frozenset({len(tw) - 1}))
            got = frozenset(self.rec.owner[c.tid] for c in chains if c.start <= first and c.end == len(tw) - 1)
            self._holding[seq] = got
        return got

    # ------------------------------------------------------------------ raising frames

    def raised(self, lines: Sequence[str]) -> list[tuple[int, list[Signature], str]]:
        """(line, signatures, frame text) for each traceback of ``lines`` whose innermost frame is where
        signatures raise their error and whose message does not follow (it is empty, cut, or missing)."""
        if not self.frames:
            return []
        out = []
        for li, line in enumerate(lines):
            frame = _FRAME.search(line)
            if frame is None:
                continue
            path = (frame.group("path") or frame.group("path2")).replace("\\", "/")
            function = frame.group("func") or ""
            idxs = [i for (p, f), ids in self.frames.items() if path.endswith(p) and (not f or function.endswith(f)) for i in ids]
            if idxs and _innermost(lines, li):
                out.append((li, [self.sigs[i] for i in sorted(set(idxs))], line.strip()))
        return out


# a traceback frame: Python's (File "...", line N, in f), IPython's (File path:N, in f), a notebook's link
_FRAME = re.compile(
    r"""File\s+"?(?P<path>[^",\n]+?\.py)"?(?:,\s*line\s+\d+|:\d+)?,?\s+in\s+(?:\w+\.)?(?P<func>\w+)"""
    r"""|\[\d+\]\((?:file|vscode[\w-]*):/*(?P<path2>[^)\s?]+\.py)\?line=\d+\)"""
)
# what may stand between a message and the words before it in prose or a title: a colon, a quote, a dash
_OPENING = re.compile(r"[:\"'`#>\-\u2014]")
_EXCEPTION = re.compile(r"^\s*\w+(?:Error|Exception|Exit)\b:?\s*(?P<msg>.*)$")


def _innermost(lines: Sequence[str], li: int) -> bool:
    """Whether the frame at ``li`` is the last of its traceback and no message line with text follows it."""
    for line in lines[li + 1 : li + 1 + MAX_FRAME_GAP]:
        if _FRAME.search(line):
            return False
        m = _EXCEPTION.match(line)
        if m:
            return len(m.group("msg").strip()) < 3
    return True


def root(sig: Signature) -> str:
    """The message a signature reads: its own, or for a cause, the generic one it refines."""
    return sig.cause.of[0] if sig.cause is not None and sig.cause.of else sig.id


def _lines_around(text: str, start: int, end: int, after: int = FOLLOWING) -> tuple[str, bool]:
    """The lines a reading spans and the few after it (where the regex may look on), as one line, and
    whether they reach the text's end (where a message may be cut)."""
    lo = text.rfind("\n", 0, start) + 1
    hi = end
    for _ in range(after + 1):
        hi = text.find("\n", hi + 1) if hi >= 0 else -1
    return " ".join(text[lo : len(text) if hi < 0 else hi].split()), hi < 0 or not text[hi:].strip()



def _regex_reads(sig: Signature, around: tuple[str, bool]) -> dict[str, str | None] | None:
    """The signature's own regex, tolerant of case and spacing, over the reading's lines: its captures where
    it matches (or reads up to the end: a cut message), None where it does not (the message differs where
    the regex looks: a value, an op name, a word the template took for a value)."""
    line, at_end = around
    try:
        pattern = compile_pattern(sig.regex, (*sig.flags, "IGNORECASE"))
        m = pattern.search(line, partial=at_end, timeout=0.5)
    except (TimeoutError, regex_error()):
        return None
    if m is None or m.end() == m.start() or (m.partial and m.end() != len(line)):
        return None
    return dict(m.groupdict())


# --------------------------------------------------------------------------- shortest distinctive prefixes


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Prefix(FieldValue):
    """The shortest distinctive prefix of one example's message (cut at a word's end), or why there is none."""

    sig_id: str
    example: str
    message: str
    length: int | None  # None: only the whole message tells it apart

    @property
    def text(self) -> str:
        return self.message[: self.length] if self.length is not None else self.message


def shortest_prefix(reader: Tolerant, sig: Signature, text: str, name: str = "") -> Prefix | None:
    """The shortest cut of the example's message (at a word's end) from which on every longer cut is read as
    ``sig`` (or the one message it belongs to). None when the regex does not match the example."""
    from ..read.normalize import clean_text

    clean = clean_text(text)
    try:
        m = compile_pattern(sig.regex, sig.flags).search(clean, timeout=1.0)
    except (TimeoutError, regex_error()):
        return None
    if m is None:
        return None
    start, end = m.start(), m.end()
    line_start = clean.rfind("\n", 0, start) + 1
    message = clean[start:end]
    length: int | None = None
    for _w, _a, b in reversed(words(message)[:-1]):
        got = reader.read(clean[line_start : start + b])
        if not any(sig in r.sigs and not r.others for r in got):
            break
        length = b
    return Prefix(sig.id, name, message, length)


def shortest_prefixes(sigs: Sequence[Signature], evidence: Evidence) -> list[Prefix]:
    """The shortest distinctive prefix of every example's message."""
    reader = Tolerant(sigs, evidence)
    out: list[Prefix] = []
    for sig in sigs:
        for i, ex in enumerate(sig.examples):
            p = shortest_prefix(reader, sig, ex.text, ex.name or f"example {i + 1}")
            if p is not None:
                out.append(p)
    return out

"""Message templates: a signature's message as the words the framework prints, found however it is carried.

A template is the message's words (lower case) with placeholders ("") where the framework prints a value:
written in a signature (``templates:``, the source's format strings), or derived from the signature's regex
run on its canonical message, its ``wordings`` and its examples (a word the regex still matches when it is
replaced is a value). ``Recognizer.read`` finds templates in text as chains of their words in order, whatever
the case, spacing, line breaks, quoting or punctuation between them, a placeholder absorbing a value of a few
words, inside prose or a title; a chain may stop early (a cut message) or start late (its prefix dropped),
and its last word may be cut. A chain weighs the information of its words (rare words weigh more: weights
over the whole base and a body of ordinary log text, data/logwords.json).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..fieldmethods import FieldEq
from ..kb.patterns import compile_pattern, regex_error

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from ..model import Signature

PH = ""  # a placeholder: the framework prints a value there
MAX_VALUE = 12  # words a placeholder absorbs at most
MAX_SPAN = 600  # characters of a regex match a template is derived from
MAX_TEMPLATES = 8
START_BITS = 3.0  # a chain starts only at a word this informative (not at 'the', 'in', 'cudnn')
MIN_PART = 3  # characters of a cut last word that count
_WORD = re.compile(r"[A-Za-z0-9]+")
# printf conversions, Python format fields, and the {} of a C++ stream/StrCat value
_FORMAT = re.compile(
    r"%(?:[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L|q|I64)?[diouxXeEfgGcsSpn])|\{[A-Za-z0-9_.\[\]]*(?:![rsa])?(?::[^{}]*)?\}"
)

Template = tuple[str, ...]


def words(text: str) -> list[tuple[str, int, int]]:
    """The words of ``text`` (runs of ASCII letters and digits), lower-cased, with their spans."""
    return [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def _squeeze(items: Iterable[str]) -> Template:
    """Consecutive placeholders as one; none at either end."""
    out: list[str] = []
    for item in items:
        if item or (out and out[-1]):
            out.append(item)
    while out and not out[-1]:
        out.pop()
    return tuple(out)


def from_format(fmt: str) -> Template:
    """A template from a format string (``Expected hidden size {}, got {}``, ``%s: %d``)."""
    return _squeeze(PH if part == "\0" else w for part in _FORMAT.sub(" \0 ", fmt).split(" ") for w in ([part] if part == "\0" else [x for x, _, _ in words(part)]))


def from_text(pattern: Any, text: str) -> Template | None:
    """A template from a text the regex matches: its words in the match, each a placeholder where the regex
    still matches with it replaced (a value), else a word."""
    from ..read.normalize import clean_text

    clean = clean_text(text)
    try:
        m = pattern.search(clean, timeout=1.0)
    except (TimeoutError, regex_error()):
        return None
    if m is None:
        return None
    start, end = m.start(), min(m.end(), m.start() + MAX_SPAN)
    out = [PH if _still_matches(pattern, clean, start, a + start, b + start) else word for word, a, b in words(clean[start:end])]
    return _squeeze(out)


def _still_matches(pattern: Any, clean: str, start: int, a: int, b: int) -> bool:
    word = clean[a:b]
    other = "".join(str((int(c) + 1) % 10) if c.isdigit() else ("q" if c.lower() != "q" else "z") for c in word)
    try:
        m = pattern.match(clean[:a] + other + clean[b:], start, timeout=0.2)
    except (TimeoutError, regex_error()):
        return False
    return m is not None and m.end() >= b


def derive(sig: Signature) -> tuple[Template, ...]:
    """The signature's templates: those written (``templates:``), then those derived from its canonical
    message, its wordings and its examples, distinct, at most MAX_TEMPLATES."""
    got: dict[Template, None] = {}
    for fmt in sig.raw.get("templates") or ():
        got.setdefault(from_format(fmt))
    try:
        pattern = compile_pattern(sig.regex, sig.flags)
    except regex_error():
        pattern = None
    texts = [sig.signature, *(w.get("text", "") for w in sig.raw.get("wordings") or ()), *(e.text for e in sig.examples)]
    for text in texts if pattern is not None else ():
        tpl = from_text(pattern, text)
        if tpl and any(tpl):
            got.setdefault(tpl)
    return tuple(t for t in got if t)[:MAX_TEMPLATES]


# --------------------------------------------------------------------------- weights


@lru_cache(maxsize=1)
def log_words() -> tuple[int, dict[str, int]]:
    """(lines, {word: lines holding it}) of a body of ordinary log text (bench/logwords.py made it)."""
    try:
        data = json.loads(resources.files("cudnn_doctor").joinpath("data/logwords.json").read_text(encoding="utf-8"))
        return int(data["lines"]), dict(data["df"])
    except (OSError, ValueError, KeyError):
        return 0, {}


def weights(templates: Sequence[Sequence[Template]]) -> dict[str, float]:
    """The information of each word of the templates (``templates``: each signature's): -log2 of how often
    it is met, over the signatures and the lines of ordinary log text. A number is one bit."""
    lines, in_logs = log_words()
    df: dict[str, int] = {}
    for tpls in templates:
        for word in {w for t in tpls for w in t if w}:
            df[word] = df.get(word, 0) + 1
    total = len(templates) + lines + 1
    return {w: 1.0 if w.isdigit() else math.log2(total / (n + in_logs.get(w, 0) + 1)) for w, n in df.items()}


# --------------------------------------------------------------------------- recognition


@dataclass(slots=True, repr=False, eq=False)
class Chain(FieldEq):
    """Template ``tid``'s words ``first``..``last`` (positions) found as text words ``start``..``end``."""

    tid: int
    first: int
    last: int
    start: int
    end: int
    bits: float
    part: str = ""  # the cut word that ends it, read as the start of the template's next word


class Recognizer:
    """Every template of a base, indexed by word."""

    def __init__(self, templates: Sequence[Sequence[Template]], weight: dict[str, float] | None = None) -> None:
        self.owner: list[int] = []  # template -> the signature (its index) it belongs to
        self.tpls: list[Template] = []
        for sidx, tpls in enumerate(templates):
            for tpl in tpls:
                self.owner.append(sidx)
                self.tpls.append(tpl)
        self.weight = weight if weight is not None else weights(templates)
        self.starts: dict[str, list[tuple[int, int]]] = {}
        for tid, tpl in enumerate(self.tpls):
            for pos, word in enumerate(tpl):
                if word and self.weight.get(word, 0.0) >= START_BITS:
                    self.starts.setdefault(word, []).append((tid, pos))

    def bits(self, tid: int) -> float:
        return sum(self.weight.get(w, 0.0) for w in self.tpls[tid] if w)

    def next_word(self, tid: int, pos: int) -> tuple[int, bool] | None:
        """The position of the template's next word after ``pos`` and whether a value comes between."""
        tpl = self.tpls[tid]
        if pos + 1 < len(tpl) and tpl[pos + 1]:
            return pos + 1, False
        if pos + 2 < len(tpl):
            return pos + 2, True
        return None

    def chains(self, text_words: Sequence[tuple[str, int, int]], ends: frozenset[int] = frozenset()) -> list[Chain]:
        """The longest chain of each template start found in ``text_words``; ``ends``: the indexes of the
        words that end a line or the text (where a cut last word may be read)."""
        done: list[Chain] = []
        waiting: dict[str, list[Chain]] = {}
        weight = self.weight
        for i, (word, _a, _b) in enumerate(text_words):
            grown = []
            for c in waiting.pop(word, ()):
                if self._reaches(c, i):
                    c.last, c.end, c.bits = self._next(c), i, c.bits + weight.get(word, 0.0)
                    grown.append(c)
                else:
                    done.append(c)
            grown += [Chain(tid, pos, pos, i, i, weight[word]) for tid, pos in self.starts.get(word, ())]
            for c in grown:
                self._wait(c, waiting, done)
            if i in ends:
                self._cut_words(word, i, waiting, done)
            if i % 256 == 255:
                _expire(waiting, i, done)
        _expire(waiting, len(text_words) + MAX_VALUE + 2, done)
        return done

    def _next(self, c: Chain) -> int:
        nxt = self.next_word(c.tid, c.last)
        assert nxt is not None
        return nxt[0]

    def _reaches(self, c: Chain, i: int) -> bool:
        nxt = self.next_word(c.tid, c.last)
        return nxt is not None and (i - c.end == 1 or (nxt[1] and 1 <= i - c.end <= MAX_VALUE + 1))

    def _wait(self, c: Chain, waiting: dict[str, list[Chain]], done: list[Chain]) -> None:
        nxt = self.next_word(c.tid, c.last)
        if nxt is None:
            done.append(c)
        else:
            waiting.setdefault(self.tpls[c.tid][nxt[0]], []).append(c)

    def _cut_words(self, word: str, i: int, waiting: dict[str, list[Chain]], done: list[Chain]) -> None:
        """Chains waiting for a word that ``word`` (ending a line) begins: read as cut there."""
        if len(word) < MIN_PART:
            return
        for expected, chains in list(waiting.items()):
            if len(expected) > len(word) and expected.startswith(word):
                for c in chains:
                    if self._reaches(c, i):
                        part = Chain(c.tid, c.first, self._next(c), c.start, i, c.bits + self.weight.get(expected, 0.0) * len(word) / len(expected), word)
                        done.append(part)


def _expire(waiting: dict[str, list[Chain]], i: int, done: list[Chain]) -> None:
    """Chains that can no longer grow (their next word is too far behind): done."""
    for key in list(waiting):
        keep = [c for c in waiting[key] if i - c.end <= MAX_VALUE + 1]
        done += [c for c in waiting[key] if i - c.end > MAX_VALUE + 1]
        if keep:
            waiting[key] = keep
        else:
            del waiting[key]


_CUT_MARK = re.compile(r"\n|\.\.\.|\u2026|\[truncated\]|\(truncated\)")


def word_ends(text: str, text_words: Sequence[tuple[str, int, int]]) -> frozenset[int]:
    """The indexes of the words after which a line or the text ends, or an ellipsis follows."""
    out = set()
    for i, (_w, _a, b) in enumerate(text_words):
        after = text[b : text_words[i + 1][1]] if i + 1 < len(text_words) else "\n"
        if _CUT_MARK.search(after):
            out.add(i)
    return frozenset(out)

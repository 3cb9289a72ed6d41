"""Templates found in text as chains of their words (kb/templates.py derives the templates and their index, and
holds the word model this module reads by).

A text's words are runs of ASCII letters and digits, lower-cased and stemmed (kb/templates.py ``words``); a template is
``(head, word, ..., PH, word, ...)``: its fixed prefix, then its words' stems, PH where a value goes.

A chain is a run of a template's words met in order in the text's words, whatever the case, spacing, line
breaks, quoting or punctuation between them; a placeholder absorbs a value of up to MAX_VALUE words. A chain
starts at an informative word (``starts``) and may stop early (a cut message) or start late (its prefix
dropped); its last word may be cut where a line or the text ends. It weighs the information of its words.
A message typed from memory drops an article its template has ('not at same device' for 'not at the same
device') or a status name's STATUS ('CUDNN_BAD_PARAM'): a chain reads past such a word (DROPPED) where the text
goes on with the word after it, and says which it skipped (``Chain.skipped``: the tolerant reading puts them back
before its regex confirms it). It misspells the one word of the domain with no English letter pattern, cudnn
('CUDDN_STATUS', 'cudn'): ``words`` reads such a word as cudnn, which no regex then confirms as
printed (the tolerant reading respells it, and says it read the message typed in other words).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..kb.templates import PH
from .beside import CUT_MARK

FLOOR = 10.0  # information that tells a message's words apart at all (a reading, the start of a longer message)
_INFLECTIONS = ("ing", "ed", "es")  # what a cut word may hold of an inflection after its stem

MAX_VALUE = 12  # words a placeholder absorbs at most
MIN_PART = 3  # characters of a cut last word that count (a shorter one: only the input's last word)
# the same SAME_WORDS words start chains at most SAME_STARTS times per text: the tolerant reading reads 8
# chains and tries 64 in vain at most (tolerant.MAX_READINGS, MAX_TRIES); a line printed 500 times made 225,000
# chains, a sentence repeated 80 times in each of 30 long lines 1,200,000 (a speed bound; its equivalence
# test: tests/test_chains_bound.py)
SAME_WORDS, SAME_STARTS = 32, 80
# the stems of the articles a message typed from memory drops ('the', 'a', 'an': about one bit each)
ARTICLES = frozenset({"th", "a", "an"})
DROPPED = ARTICLES | {"status"}  # and a cuDNN status name's STATUS, dropped from memory ('CUDNN_BAD_PARAM')

Words = Sequence[tuple[str, int, int]]


@dataclass(slots=True)
class Chain:
    """Template ``tid``'s words ``first``..``last`` (positions) found as text words ``start``..``end``."""

    tid: int
    first: int
    last: int
    start: int
    end: int
    bits: float
    part: str = ""  # the cut word that ends it, read as the start of the template's next word
    skipped: tuple[int, ...] = ()  # the positions of the template's articles it read past, the text lacking them


class Recognizer:
    """Finds chains of a base's templates (``index``: templates.index) in a text's words."""

    def __init__(self, index: dict[str, Any]) -> None:
        # identical templates (a message and its causes; the ten copies of a 10x base) are one, with all their
        # owners (the first is the one a reading's spelling and clauses come from): a text's chains are found once
        self.weight: dict[str, float] = index["weight"]
        folded: dict[tuple[str, ...], list[int]] = {}  # each distinct template: its owners
        for tpl, owner in zip(index["templates"], index["owner"], strict=True):
            folded.setdefault(tuple(tpl), []).append(owner)
        self.tpls: list[Sequence[str]] = list(folded)
        self.owners = list(folded.values())
        self.owner = [own[0] for own in self.owners]
        tid = {tpl: t for t, tpl in enumerate(folded)}  # (a copy's starts are its first's)
        to = [tid[tuple(tpl)] for tpl in index["templates"]]
        self.starts = {w: list(dict.fromkeys((to[t], p) for t, p in pairs)) for w, pairs in index["starts"].items()}
        self.held: dict[tuple[str, ...], tuple[int, ...]] = {}  # Weigher.holding's answers (weigh.py), one memo per base
        self.of: dict[int, list[int]] = {}  # each signature's templates
        self.firsts: dict[str, list[int]] = {}  # the templates that begin with each word
        for tid, owners in enumerate(self.owners):
            for owner in owners:
                self.of.setdefault(owner, []).append(tid)
            if len(self.tpls[tid]) > 1 and self.tpls[tid][1]:
                self.firsts.setdefault(self.tpls[tid][1], []).append(tid)

    def bits(self, words: Sequence[str]) -> float:
        return sum(self.weight.get(w, 0.0) for w in words if w)

    def total(self, tid: int) -> float:
        """The information of a template's words."""
        return self.bits(self.tpls[tid][1:])

    def next_word(self, tid: int, pos: int) -> tuple[int, bool] | None:
        """The position of the template's next word after ``pos`` and whether a value comes between."""
        tpl = self.tpls[tid]
        if pos + 1 < len(tpl) and tpl[pos + 1]:
            return pos + 1, False
        if pos + 2 < len(tpl):
            return pos + 2, True
        return None

    def ended(self, c: Chain) -> bool:
        """Whether the chain read its template to its end, its last word whole (a whole message, or its end)."""
        return not c.part and self.next_word(c.tid, c.last) is None

    def chains(self, text_words: Words, ends: frozenset[int] = frozenset()) -> list[Chain]:
        """The longest chain of each template start found in ``text_words``, grown back (``_grow_back``: the one
        reading of a text); ``ends``: the indexes
        of the words that end a line or the text (where a cut last word may be read)."""
        done: list[Chain] = []
        waiting: dict[str, list[Chain]] = {}
        plain = [w for w, _a, _b in text_words]
        starts: dict[tuple[str, ...], int] = {}  # how often each run of SAME_WORDS words started chains
        for i, word in enumerate(plain):
            grown: list[Chain] = []  # the chains waiting for the word grown over it; those it comes too late for are done
            for c in waiting.pop(word, ()):
                if (nxt := self._reaches(c, i)) is None:
                    done.append(c)
                else:
                    c.last, c.end, c.bits = nxt[0], i, c.bits + self.weight.get(word, 0.0)
                    grown.append(c)
            if word in self.starts and _fresh(plain, i, starts):
                grown += [Chain(tid, pos, pos, i, i, self.weight[word]) for tid, pos in self.starts[word]]
            for c in grown:
                self._wait(c, waiting, done)
            if i in ends:
                self._cut_words(word, i, waiting, done, i == len(text_words) - 1)
            if i % 256 == 255:
                _expire(waiting, i, done)
        _expire(waiting, len(text_words) + MAX_VALUE + 2, done)
        return [self._grow_back(c, text_words) for c in done]

    def _reaches(self, c: Chain, i: int) -> tuple[int, bool] | None:
        """The template's next word after the chain (``next_word``), where text word ``i`` may be it: the word
        right after the chain's last, or within a value's words where a value comes between; else None."""
        nxt = self.next_word(c.tid, c.last)
        return nxt if nxt is not None and (i - c.end == 1 or (nxt[1] and 1 <= i - c.end <= MAX_VALUE + 1)) else None

    def _wait(self, c: Chain, waiting: dict[str, list[Chain]], done: list[Chain]) -> None:
        """The chain waiting for its template's next word (and, where that is an article between two words, a
        copy of it that read past it waiting for the word after it); done where its template ends."""
        nxt = self.next_word(c.tid, c.last)
        if nxt is None:
            done.append(c)
            return
        word = self.tpls[c.tid][nxt[0]]
        waiting.setdefault(word, []).append(c)
        if word in DROPPED and not nxt[1] and self._droppable(c.tid, nxt[0]):  # (DROPPED first: every chain's every word passes here)
            skip = Chain(c.tid, c.first, nxt[0], c.start, c.end, c.bits, "", (*c.skipped, nxt[0]))
            waiting.setdefault(self.tpls[c.tid][nxt[0] + 1], []).append(skip)

    def _cut_words(self, word: str, i: int, waiting: dict[str, list[Chain]], done: list[Chain], last: bool) -> None:
        """Chains waiting for a word that ``word`` (ending a line) begins: read as cut there. A word shorter
        than MIN_PART only as the ``last`` word of the text, right after the chain's word before it ('... not
        at the same d'): at a line's end, or after a value, it is too often a word of its own."""
        if len(word) < (1 if last else MIN_PART):
            return
        for expected, chains in waiting.items():
            if expected != word and begins(expected, word):
                for c in chains:
                    nxt = self._reaches(c, i)
                    if nxt is not None and (len(word) >= MIN_PART or (i - c.end == 1 and not nxt[1])):
                        bits = c.bits + self.weight.get(expected, 0.0) * min(1.0, len(word) / len(expected))
                        done.append(Chain(c.tid, c.first, nxt[0], c.start, i, bits, word))

    def _grow_back(self, c: Chain, text_words: Words) -> Chain:
        """The chain grown backwards over the template's words before it that the text has right before it
        (a chain starts only at an informative word: 'cudnn rnn' before 'backward')."""
        tpl = self.tpls[c.tid]
        while c.start > 0 and c.first > 1 and tpl[c.first - 1]:
            before = text_words[c.start - 1][0]
            if before != tpl[c.first - 1] and self._droppable(c.tid, c.first - 1) and tpl[c.first - 2] == before:
                c.skipped = (c.first - 1, *c.skipped)  # a word the text dropped: 'at same device'
                c.first -= 1
            elif before != tpl[c.first - 1]:
                break
            c.first, c.start = c.first - 1, c.start - 1
            c.bits += self.weight.get(tpl[c.first], 0.0)
        return c

    def _droppable(self, tid: int, k: int) -> bool:
        """Whether the template's word ``k`` is one a message typed from memory drops (DROPPED), between two of
        its words (no value, no prefix on either side): what a chain reads past, forwards (``_wait``) and back
        (``_grow_back``)."""
        tpl = self.tpls[tid]
        return tpl[k] in DROPPED and k >= 2 and k + 1 < len(tpl) and bool(tpl[k - 1]) and bool(tpl[k + 1])

    def aligned(self, c: Chain, text_words: Words) -> list[tuple[int, int]]:
        """(template position, text word) of each word the chain read, in order, its text words counted from its
        first (``text_words``: the reading's; -1: an article it read past, the text lacking it); a value's words
        apart. A value's next word is the first such text word, as the chain grew over it."""
        tpl, out, i, n = self.tpls[c.tid], [], 0, c.end - c.start
        for k in range(c.first, c.last + 1):
            if not tpl[k] or k in c.skipped:
                out += [(k, -1)] if tpl[k] else []
                continue
            if k > c.first and not tpl[k - 1]:  # after a value: its first text word from i on
                i = next((j for j in range(i, n) if text_words[j][0] == tpl[k]), n)
            out.append((k, i))
            i += 1
        return out

    def goes_on(self, c: Chain, after: Sequence[str], to_end: bool) -> bool:
        """Whether the text words ``after`` a whole message's chain go on with another signature's template that
        begins with the chain's words (all of them, or those after its last value: a log line's message after its
        location; FLOOR at least: 'Invalid parameters' (14.5 bits), not 'expected' or 'CUDNN_STATUS' (6-7)): they
        read that template to its end, or, where they run to the input's end (``to_end``), its start, their last
        word perhaps cut ('Invalid parameters' + ' for RNN Mo' is 'Invalid parameters for RNN Model'). Then the
        chain is the start of the longer message, not a message with prose after it."""
        read = self.words_of(c)
        shared = read[max((j + 1 for j, w in enumerate(read) if w == PH), default=0) :]  # after its last value
        if not shared or self.bits(shared) < FLOOR:
            return False  # what they share: the whole chain, or its words after its last value, not a word or two
        for tid in self.firsts.get(shared[0], ()):
            tpl = self.tpls[tid]
            if set(self.owners[tid]) == {self.owner[c.tid]} or len(tpl) <= len(shared) + 1 or tuple(tpl[1 : len(shared) + 1]) != shared:
                continue
            k, i = walk(tpl, after, len(shared) + 1)
            if k > len(shared) + 1 and (held(tpl, k) or (to_end and i == len(after))):
                return True
        return False

    def words_of(self, c: Chain) -> tuple[str, ...]:
        """The template's words (and placeholders) a chain read, in order (its cut last word as read)."""
        got = list(self.tpls[c.tid][c.first : c.last + 1])
        if c.part:
            got[-1] = c.part
        return tuple(got)


def _expire(waiting: dict[str, list[Chain]], i: int, done: list[Chain]) -> None:
    """Chains that can no longer grow (their next word is too far behind): done."""
    for key in list(waiting):
        done += [c for c in waiting[key] if i - c.end > MAX_VALUE + 1]
        waiting[key] = [c for c in waiting[key] if i - c.end <= MAX_VALUE + 1]
        if not waiting[key]:
            del waiting[key]


def word_ends(text: str, text_words: Words) -> frozenset[int]:
    """The indexes of the words after which a line or the text ends, or an ellipsis follows: a cut mark
    between a word and the next (the marks are found in one pass and placed by bisection)."""
    starts = [a for _w, a, _b in text_words]
    out = {len(text_words) - 1} if text_words else set()
    for m in CUT_MARK.finditer(text):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and text_words[i][2] <= m.start() and (i + 1 == len(starts) or m.end() <= starts[i + 1]):
            out.add(i)
    return frozenset(out)


def holds(pattern: Sequence[str], text_words: Sequence[str], before: str | None = None) -> bool:
    """Whether ``text_words`` hold the template words ``pattern`` in order (``walk``), anywhere (where the word
    ``before`` is given, only right after it or at their start): a counter-example that says what a reading says."""
    return bool(pattern) and any(
        w == pattern[0] and held(pattern, walk(pattern, text_words, 1, i + 1)[0]) and (i == 0 or before is None or text_words[i - 1] == before)
        for i, w in enumerate(text_words)
    )


def runs(seq: Sequence[str], run: Sequence[str]) -> list[int]:
    """Where in ``seq`` (a template's words, a text's) the words ``run`` stand one after another."""
    return [k for k in range(len(seq) - len(run) + 1) if tuple(seq[k : k + len(run)]) == tuple(run)]


def held(pattern: Sequence[str], k: int) -> bool:
    """Whether a walk that stopped at pattern position ``k`` read the pattern whole (its trailing value apart)."""
    return k >= len(pattern) or (k == len(pattern) - 1 and not pattern[k])


def walk(pattern: Sequence[str], text_words: Sequence[str], k: int = 0, i: int = 0) -> tuple[int, int]:
    """The one walk of a template's words in a text's: pattern words from position ``k`` met in order as text
    words from ``i`` on, each the next text word, a placeholder absorbing up to MAX_VALUE words before the
    word after it; a word cut short at either's end reads as the word it begins. Returns where the pattern and
    the text stopped (a pattern position at a placeholder: the text ran out, or went on, in a value)."""
    while k < len(pattern) and i < len(text_words):
        if pattern[k]:
            if not _same(pattern, k, text_words, i):
                break
            k, i = k + 1, i + 1
            continue
        hit = next((j for j in range(i, min(len(text_words), i + MAX_VALUE + 1)) if k + 1 < len(pattern) and _same(pattern, k + 1, text_words, j)), None)
        if hit is None:
            break
        k, i = k + 2, hit + 1
    return k, i


def _same(pattern: Sequence[str], k: int, text_words: Sequence[str], i: int) -> bool:
    """Whether text word ``i`` is pattern word ``k``, or where either is the last of its side, its start."""
    a, b = pattern[k], text_words[i]
    return a == b or (i == len(text_words) - 1 and begins(a, b)) or (k == len(pattern) - 1 and b.startswith(a))


def begins(stemmed: str, cut: str) -> bool:
    """Whether the word ``cut`` short (at a line's or the text's end) begins a word whose stem is ``stemmed``:
    a start of the stem, or the stem (MIN_PART letters at least: 'usin' is not read as 'using', stem 'us') and the
    start of an inflection ('loadin' of 'loading', stem 'load')."""
    if stemmed.startswith(cut):
        return True
    extra = len(cut) - len(stemmed)  # (a long word of a log's long line is not sliced)
    return 0 < extra < 3 and len(stemmed) >= MIN_PART and cut.startswith(stemmed) and stemmed.isalpha() and any(s.startswith(cut[-extra:]) for s in _INFLECTIONS)


def _fresh(plain: list[str], i: int, starts: dict[tuple[str, ...], int]) -> bool:
    """Whether the words from ``i`` on have started chains fewer than SAME_STARTS times (then counted)."""
    key = tuple(plain[i : i + SAME_WORDS])
    n = starts[key] = starts.get(key, 0) + 1
    return n <= SAME_STARTS

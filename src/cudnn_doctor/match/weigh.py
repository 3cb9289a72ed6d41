"""Weighing a chain: whether the words a chain of a template read are enough to be read, how it stops, and
what holds a reading back (tolerant.py reads the chains ``Weigher.strong`` gives, and confirms them by regex).

* enough (``_enough``): MIN_BITS, or SHARE of its template's information where only one message of the base
  holds its words (``holding``), in MIN_WORDS words at least;
* how it stops (``_stop``): cut (a word cut short, the input's end), delimited (an ellipsis, its quotes
  closing, a sentence's or its message's first clause's end), a head cut read to its end, or not at all;
* held back (``held_back``): a sentence of common words (``plain``: COMMON_BITS) without what makes them a
  framework's error, or a cut reading of ordinary words (``_thin``), is a near miss at most;
* what a reading no regex reads must hold besides: ``specific`` (a head put back), ``whole`` (a delimited one),
  no ``lookalike`` of its signature saying the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import pairwise

from ..kb.patterns import LazyRe
from ..kb.templates import FORMAT, PH, START_BITS, WORD, messages, stem, words
from ..model import Signature
from ..read import frames
from .beside import ENDS_IN_HEAD, PROSE_AFTER, STATUS_BEFORE, delimited_after, prose_before
from .chains import FLOOR, MAX_VALUE, MIN_PART, Chain, Recognizer, Words, holds
from .lines import Where
from .results import Miss, RawMatch

# A reading counts when it holds enough to tell its message from every other and from ordinary log text (one
# rule for whole, short and cut messages): MIN_BITS (a few rare words, or several common ones), or, where only one
# message of the base holds its words, SHARE of the information its template holds (of what it read, where the
# input's end cuts it and it names something _SPECIFIC), FLOOR at least (chains.py), in MIN_WORDS words:
# 'rnn: hx is not contiguous', 'input must have 3 dimensions, got', 'cudnn RNN backward c'; not 'ImportError:
# cannot import name', nor "'NoneType' object has"
MIN_BITS, SHARE, MIN_WORDS = 22.0, 0.75, 3
# an RNN or cuDNN word (a hidden state too), or a name in code (snake_case, a.b, a call or an index: 'input.size(-1)', 'hidden[0]')
_CODE_NAME = r"\b[hc]x\b|[A-Za-z0-9][_.][A-Za-z]|[A-Za-z][(\[]"
_SPECIFIC = LazyRe(r"(?i:rnn|lstm|gru|cudnn|miopen|dnn|hidden)|" + _CODE_NAME)
# A template made only of common words (each met in more than one line of 2**COMMON_BITS over the base's templates
# and ordinary log text, no value, less than MIN_BITS in all: 'Dnn is not supported', 'DNN library is not found',
# 'CUDA error: out of memory') is any sentence's ('The DNN is not supported by the SMF.'): a reading of it counts
# only with what makes it a framework's error on its line or a line next to it (``_in_context``), or where the text
# spells one of its words as a name in code (CUDNN_STATUS_NOT_SUPPORTED, 'rnn: hx'); else it is a near miss at most
COMMON_BITS = 7.0
_NAMED_IN_CODE = LazyRe(_CODE_NAME)
# an RNN's generic names, which any prose about RNNs holds as it holds 'model' or 'layer' (not DPLSTM, CudnnRNN)
_GENERIC_NAME = LazyRe(r"(?i:rnns?|lstms?|grus?|cudnn|miopen|dnn)")
# the op or node the error was raised for, on its line or a line next to it: '[Op:CudnnRNNV3]', '{{node x/CudnnRNN}}',
# TF1's '[[Node: x/CudnnRNN = ...', TF 2.0-2.4's '[[node x/conv1d (defined at ...) ]]' (in any case: an upper-cased paste)
_OP_MARK = LazyRe(r"(?i:\[Op:\w|\{\{(?:function_)?node\ |\[\[node:?\ )")
_THIN_WHY = "read {!r}: ordinary words, nothing specific to this message; paste the full message"
_PLAIN_WHY = "read {!r}: words any text may hold, without the exception, status, op or log line that makes them this error"
# the end of a clause in a message's text
_CLAUSE_END = LazyRe(r"[ \t]*(?:[,;]|\.(?=\s))\s+")


class Weigher:
    """The chains of a base's templates (``rec``), weighed for its signatures (``sigs``)."""

    def __init__(self, sigs: Sequence[Signature], rec: Recognizer) -> None:
        self.sigs, self.rec = sigs, rec

    def strong(self, text: str, tw: Words, ends: frozenset[int], last: int) -> list[tuple[Chain, str]]:
        """The chains enough to be read, grown back, strongest first, with how each stops; ``last``: the input's
        last word (-1: the input goes on after the text)."""
        grown = self.rec.chains(tw, ends)
        out = [(c, self._stop(c, text, tw, last) if e else "near") for c in grown if c.bits >= FLOOR and (e := self._enough(c, tw, text, c.end == last)) is not None]
        out.sort(key=lambda cs: (-cs[0].bits, cs[0].start))
        return [cs for cs in out if cs[1] != "near"] + [cs for cs in out if cs[1] == "near"][:1]  # the strongest near one

    def _enough(self, c: Chain, tw: Words, text: str, cut: bool) -> bool | None:
        """Whether the chain, FLOOR at least (``strong`` reads no other), holds enough to be read (the rule above
        MIN_BITS; ``cut``: the input's end cuts it): None where it does not, False where it holds enough but several
        messages hold its words (a cut word ending it gives near misses naming them: a status name cut,
        'CUDNN_STATUS_EXECUTION_F')."""
        if c.bits >= MIN_BITS:
            return True
        # SHARE of its template's information, or of what it read (all of it) where the input's end cuts it and it names something specific
        if c.bits < SHARE * self.rec.total(c.tid) and not (cut and _SPECIFIC.search(text, tw[c.start][1], tw[c.end][2])):
            return None
        read = self.rec.words_of(c)  # (an indexed name is two words: 'hidden[0]' tells 'hidden[1]' apart)
        if sum(1 + ("[" in w) for w in read if w) < MIN_WORDS or not (held := self.holding(read)):
            return None
        return True if one_message(self.sigs[i] for i in held) else False if c.part else None

    def _stop(self, c: Chain, text: str, tw: Words, last: int) -> str:
        """How the chain stops: "cut" where the message was cut (a word cut short at a line's end, a title
        cut with a body after it; at the input's end, in the value its template expects next at most);
        "delimited" where something ends it: an ellipsis ('failed to call ThenRNNForward... since 2.4': prose
        may follow), its quotes closing ('... says "hx is not contiguous" while ...': in prose, the string
        literal of the source line that raises it), a sentence's end, or the end of its message's first clause,
        other words after it ('... at the same device after upgrading'); "head" where it lacks its template's
        first words and reads it to its end (a head cut: an excerpt, a wrapped line whose first part was lost; a
        fragment cut at both ends reads only where the input's end cuts it); "" elsewhere (a line's end, a
        value, another word where its template's next should be: its regex, which wants that word, does not
        confirm it)."""
        nxt = self.rec.next_word(c.tid, c.last)
        end = tw[c.end][2]
        if c.part:
            return "cut"
        if delimited_after(text, tw[c.start][1], end):
            return "delimited"
        # its message's first clause or clauses, read whole, with prose after it in the text: from its first word
        # to a word its message's text ends a clause after (a comma, a semicolon, a full stop before a space; not
        # a colon, which introduces what tells a message apart: 'Status Message: ...') where the same next word
        # follows ('Input and hidden tensors are not at the same device, found ...'); not a fixed prefix's end
        # (its template's next word, no value between, is not what follows)
        if nxt is not None and not nxt[1] and c.end != last and c.first == 1 and PROSE_AFTER.match(text, end) and c.last in _clause_ends(self.sigs[self.rec.owner[c.tid]], tuple(self.rec.tpls[c.tid])):
            return "delimited"
        return "cut" if _input_cuts(c, nxt, text, end, last) else "head" if c.first > 1 and nxt is None else ""

    def holding(self, seq: tuple[str, ...]) -> tuple[int, ...]:
        """The signatures one of whose templates holds the words ``seq`` in order (its last word may be cut)."""
        if (got := self.rec.held.get(seq)) is None:
            tw = words(" ".join(w if w else "0" for w in seq))
            first = next((i for i, (w, _, _) in enumerate(tw) if self.rec.weight.get(w, 0.0) >= START_BITS), 0)
            chains = self.rec.chains(tw, frozenset({len(tw) - 1}))
            part = self.rec.weight.get(seq[-1], 0.0) * 0.5 if len(seq[-1]) >= MIN_PART else 0.0  # a short cut word: its start
            need = self.rec.bits(seq[:-1]) + part - 1e-6  # every word read as one
            got = tuple(sorted({o for c in chains if c.start <= first and c.end == len(tw) - 1 and c.bits >= need for o in self.rec.owners[c.tid]}))
            self.rec.held[seq] = got
        return got

    def plain(self, tid: int) -> bool:
        """Whether a template is made only of common words (COMMON_BITS each, MIN_BITS in all, no value)."""
        tpl = self.rec.tpls[tid][1:]
        return PH not in tpl and self.rec.bits(tpl) < MIN_BITS and all(self.rec.weight.get(w, 0.0) < COMMON_BITS for w in tpl)

    def held_back(self, c: Chain, where: Where, got: list[RawMatch | Miss]) -> list[RawMatch | Miss]:
        """What a reading gives, its findings near misses where it is a sentence of common words without what
        makes them a framework's error (COMMON_BITS), and its cut findings (no regex confirmed them) where what
        it read is ordinary words holding nothing specific to its message (``_thin``) and nothing makes them a
        framework's error (an exception or status before them: 'RuntimeError: cudnn RNN backward c' is read)."""
        if not got or _in_context(where) or not ((plain := self.plain(c.tid)) or self._thin(c, where)):
            return got
        why = (_PLAIN_WHY if plain else _THIN_WHY).format(where.read[-60:])
        return [Miss(f.sig, "", where.li_s, why) if isinstance(f, RawMatch) and (plain or f.cut is not None) else f for f in got]

    def _thin(self, c: Chain, where: Where) -> bool:
        """Whether a reading of less than SHARE of its template read only ordinary words (lower-case or
        capitalized) and an RNN's generic names, no name in code, identifier, status or value ('a model that
        contains LSTM layers' is any sentence's; 'replaced with DPLSTM', 'rnn: hx', 'CUDNN_STATUS_' are not), and
        holds less than MIN_BITS with each word counted as a common word at most (COMMON_BITS): the log text the words are weighed over holds little prose, where a word the logs and
        templates rarely spell ('contain', 'recommend') is as common as any. 'a model that contains LSTM
        layers' holds nothing of Opacus's 'Model contains LSTM layers. It is recommended that they are
        replaced with DPLSTM' that any sentence about RNNs does not."""
        if c.bits >= SHARE * self.rec.total(c.tid) or _NAMED_IN_CODE.search(where.read) or not all(w.isalpha() and (w.islower() or w.istitle() or _GENERIC_NAME.fullmatch(w)) for w in re.findall(r"\w+", where.read)):
            return False
        return c.bits - sum(max(0.0, self.rec.weight.get(w, 0.0) - COMMON_BITS) for w in self.rec.words_of(c) if w) < MIN_BITS

    def specific(self, c: Chain, where: Where) -> bool:
        """Whether a reading holds what is specific (an RNN word, a name in code) and most of its message's
        information (what a head cut must hold)."""
        return _SPECIFIC.search(where.read) is not None and 2 * c.bits >= self.rec.total(c.tid)

    def whole(self, c: Chain, where: Where) -> bool:
        """Whether a delimited reading the regex does not read is a whole message all the same: it holds its
        template to the end, and either each value is a format field (the string literal of the source line
        that raises it: '... Expected {}, got {}') or it has no value and only its first words are dropped
        (the regex wants 'rnn: ' before 'hx is not contiguous'). Where the regex saw the whole message (its
        first word on) and values, its refusal stands (a value it checks, a comment it excludes)."""
        if not self.rec.ended(c):
            return False
        if values := sum(1 for w in self.rec.words_of(c) if not w):
            return len(FORMAT.findall(where.read)) >= values and not frames.listed_around(where.lines, where.li_s)
        dropped = self.rec.tpls[c.tid][1 : c.first]  # little information (the reading holds SHARE of it): not a value
        return c.first > 1 and all(dropped) and c.bits >= SHARE * self.rec.total(c.tid)

    def lookalike(self, sig: Signature, c: Chain, where: Where) -> bool:
        """Whether one of the signature's counter-examples says what the chain read (the reading does not tell
        the signature from that other message), where the text does not say another word right before the
        reading on its line than the lookalike does (a source line's 'if "Failed to call ...' is not the
        message of an 'InternalError: Failed to call ...'); prose that introduces the reading ('... and got: ')
        says no other word: it stands where the lookalike's exception does, but not where an exception's name
        stands between them ('My LSTM fails: UnknownError: ...': that name is the word before)."""
        read, line = self.rec.words_of(c), where.lines[where.li_s][: where.col]
        prose = prose_before(line) and not ENDS_IN_HEAD.search(line)
        before = stem(WORD.findall(line)[-1].lower()) if WORD.search(line) and not prose else None
        return any(holds(read, look, before) for look in sig.lookalikes)


def _in_context(where: Where) -> bool:
    """Whether a reading has what makes its words a framework's error: a name in code among them, an exception,
    status or C++ source location right before it on its line, or the op it was raised for on its lines or the
    line with text next to them, a blank line between at most (COMMON_BITS)."""
    if _NAMED_IN_CODE.search(where.read) or STATUS_BEFORE.search(where.lines[where.li_s], 0, where.col):
        return True
    lines = where.lines
    lo = next((li for li in range(where.li_s - 1, max(-1, where.li_s - 3), -1) if lines[li].strip()), where.li_s)
    hi = next((li for li in range(where.li_e + 1, min(len(lines), where.li_e + 3)) if lines[li].strip()), where.li_e)
    return any(_OP_MARK.search(lines[li]) for li in range(lo, hi + 1))


@lru_cache(maxsize=4096)
def _clause_ends(sig: Signature, tpl: tuple[str, ...]) -> frozenset[int]:
    """The positions of the template's words its signature's messages end a clause after, where the same next
    word follows (``Weigher._stop``)."""
    pairs = set()
    for msg in messages(sig):
        tw = words(msg)
        pairs |= {(w, w2) for (w, _a, b), (w2, a2, _b) in pairwise(tw) if _CLAUSE_END.fullmatch(msg, b, a2) and not ENDS_IN_HEAD.search(msg, 0, a2)}
    return frozenset(p for p in range(1, len(tpl) - 1) if (tpl[p], tpl[p + 1]) in pairs)


def _input_cuts(c: Chain, nxt: tuple[int, bool] | None, text: str, end: int, last: int) -> bool:
    """Whether the input's end (``last``: its last word; -1: it goes on) cuts the chain: in the value after
    its template's last word (a whole one the regex confirms), at its next word, or in the value it expects
    next (a value cut inside its brackets, after ``end`` in ``text``, on their line, is a list of any length:
    'with these attrs: [seed=0, dropout=0, T=DT_FLOAT, input_mode="lin')."""
    if last < 0:
        return False
    if nxt is None:
        return 0 <= last - c.end <= MAX_VALUE
    return c.end == last or (nxt[1] and (last - c.end <= MAX_VALUE or ("\n" not in (rest := text[end:].rstrip()) and any(rest.count(a) > rest.count(b) for a, b in ("[]", "()", "{}")))))


def one_message(sigs: Iterable[Signature]) -> bool:
    """Whether the signatures read one message: a signature's own, or for a cause, one of the generic ones it
    refines, that all of them read."""
    owns = [set(sig.cause.of) if sig.cause is not None and sig.cause.of else {sig.id} for sig in sigs]
    return not owns or bool(set.intersection(*owns))

"""Confirmation by regex: a reading the tolerant reader found (tolerant.py) is a match only where its
signature's own regex reads it.

One runner (``Confirmer._run``) tries a list of attempts in order, each (pattern, text variant, how far the
reading's start moved in it), under one search budget per text (``start``: SEARCH_BUDGET_S from then; each
search SEARCH_TIMEOUT_S at most). The attempts (``_attempts``) are each of the signature's patterns
(``_patterns``: its regex ignoring case, then with its message's line breaks read as spaces) over each text
variant (``_variants``: as it is, a hard wrap's words joined back, line breaks read as spaces, a fixed prefix
put back, the prose before it on its line taken out), over the region the reading stands in (``region``: its
words spelt as the signature spells them, spelling.py). The entry points:

* ``confirm``: the first match that covers the reading (a chain's, or ``recased``'s without a chain);
* ``retyped``: the second spelling of a reading, a message typed from memory (``_typed_read``);
* ``reads_to_end``: a partial read up to the input's end, where the input cut the message;
* ``headed``: a cause's regex with its template's prefix put back where only a log prefix stands before it
  (refine.py names the causes).
"""

from __future__ import annotations

import time
from collections.abc import Container, Iterable, Iterator, Sequence
from typing import Any

from ..kb.patterns import LazyRe, compile_pattern, regex_error
from ..kb.regexinfo import loose_regex
from ..kb.templates import words
from ..model import Signature
from ..read import frames
from .beside import ELLIPSIS, PROSE_TAIL, head_cut_before, log_prefix_only, prose_to_cut
from .chains import ARTICLES, Chain, Recognizer, runs
from .lines import Where, line_start
from .spelling import layouts, placed, py3_values, respelt, spelling_of, spelt_as

# the next line with text after a blank one, where it is code (a script's comment over it, not a title's body)
CODE_NEXT = LazyRe(r"\s*(?:(?:import|from)\s+\w|#|//|[\w.\[\]]+(?:\s*[-+*/]?=(?!=)|\())")
SEARCH_TIMEOUT_S = 0.5  # one regex search of a confirmation (CPU: the regex module times a search by clock())
# all the confirmations of one text, in CPU seconds of the thread reading it, never wall time: a busy machine (a CI
# runner) gives the report an idle one gives (tests/test_match_budgets.py). Past it, none confirms
SEARCH_BUDGET_S = 2.0
# the words after a whole message read for a longer message it may be the start of (Recognizer.goes_on): on its
# line and the lines after it
AFTER_WORDS, AFTER_LINES = 48, 2


class Confirmer:
    """The confirmations by regex of a base's signatures (``sigs``, their templates in ``rec``), under one
    search budget per text."""

    def __init__(self, sigs: Sequence[Signature], rec: Recognizer) -> None:
        self.sigs, self.rec = sigs, rec
        self._deadline = float("inf")  # of the text being read, on the thread's CPU clock (``start`` sets it)

    def start(self) -> None:
        """A text's own search budget, SEARCH_BUDGET_S from now (not the last text read's, spent by now)."""
        self._deadline = time.thread_time() + SEARCH_BUDGET_S

    def spent(self) -> bool:
        """Whether the text's search budget is spent."""
        return self._deadline <= time.thread_time()

    def confirm(self, idx: int, c: Chain | None, where: Where, mode: str = "", read: str | None = None) -> tuple[Any, int, int] | None:
        """The signature's regex, ignoring case, over the reading's lines and its window around them: the first
        match of ``_attempts`` in ``mode`` that covers the reading (spelt as ``region`` spells it, or
        ``read``: as ``retyped`` spells it). Returns (match, first line, last line)."""
        lo, text, start, end = self.region(idx, where, max(self.sigs[idx].window_after, 1), c, read)
        for m, variant, shift in self._run(self._attempts(idx, c, where, mode, (text, start, end)), end):
            # its lines counted in the text where the variant keeps its offsets (its line breaks read as spaces,
            # or a word a hard wrap split joined back): a message broken over lines is on those lines
            at = text if shift == 0 and len(variant) == len(text) else variant
            first, last = at.count("\n", 0, m.start()), at.count("\n", 0, max(m.start(), m.end() - 1))
            if m.end() > start + shift and m.end() > m.start() and (mode != "recased" or variant is text or first < last):
                return m, lo + first, lo + last
        return None

    def _run(self, attempts: Iterable[tuple[Any, str, int]], before: int, partial: bool | None = None) -> Iterator[tuple[Any, str, int]]:
        """The one runner of the confirmations by regex: for each attempt (pattern, text variant, how far the
        reading's start moved in it), in order, its matches that start before ``before`` (moved as the reading's
        start): all of them (``partial`` None), else its first, ``partial`` asking for one the text's end cuts
        (none where the search timed out or the regex cannot run it: the next attempt). It stops where the text's
        search budget is spent."""
        for pattern, variant, shift in attempts:
            if (timeout := min(SEARCH_TIMEOUT_S, self._deadline - time.thread_time())) <= 0:
                return  # (a search's timeout: SEARCH_TIMEOUT_S, or what is left of the text's budget)
            try:
                for m in pattern.finditer(variant, timeout=timeout) if partial is None else (pattern.search(variant, partial=partial, timeout=timeout),):
                    if m is None or m.start() >= before + shift:
                        break
                    yield m, variant, shift
            except (TimeoutError, regex_error()):
                pass

    def _attempts(self, idx: int, c: Chain | None, where: Where, mode: str, region: tuple[str, int, int], dropped: bool = False) -> Iterable[tuple[Any, str, int]]:
        """(pattern, text variant, how far the reading's start moved in it) to try over the region's text, where
        the reading is at [start, end). ``mode`` "exact" (on lines a regex matched): the text alone; "recased" (a
        reading without a chain): the text, then its line breaks read as spaces, then a word a hard wrap split
        joined back; the signature's regex ignoring case only. Else (a chain's) each of ``_patterns`` over each
        of ``_variants``; where a whole message ends that prose follows on its line ('... int64 tensor after
        upgrading, any idea?'), also with its line ended there (it carries load: without it
        tests/test_forms._run(6) loses the cut readings of tensorflow/then-rnn-backward-failed [census
        tensorflow[17]], 8 of 1,406 cut forms); "to_end" (``reads_to_end``'s): the start its text lost put back
        where ``dropped`` asks (a specific reading: ``_heads``)."""
        text, start, end = region
        if mode in ("exact", "recased"):  # the regex ignoring case (not its line breaks read as spaces)
            pattern = next(self._patterns(idx), None)
            texts = layouts(text, self.rec.weight) if mode == "recased" else [text]
            return [] if pattern is None else [(pattern, v, 0) for v in texts]
        # (not the start of a longer message)
        whole = not mode and self.rec.ended(c) and PROSE_TAIL.match(text, end) is not None and not self.rec.goes_on(c, *_after(where))
        bases = [text, text[:end] + "\n" + text[end:]] if whole else [text]
        return ((p, v, shift) for p in self._patterns(idx) for base in bases for v, shift in _variants(base, start, self._heads(idx, c, base, start, dropped), self.rec.weight))

    def reads_to_end(self, idx: int, c: Chain, where: Where, cut: str = "cut", dropped: bool = False) -> bool:
        """Whether the signature's regex, ignoring case, reads the text from before the reading up to the
        input's end, where the cut stops it: a cut one at the first ellipsis after it, where its text was cut too
        ('... is_trainin…', '... got [1, 4...'). A delimited reading ends at its delimiter (one the regex cannot
        read may be a whole message all the same: weigh.py's ``Weigher.whole``). A head cut reading that ``dropped``
        says is specific (weigh.py's ``Weigher.specific``), the start its text lost put back (``_heads``), is read
        whole (a partial read may be a lookahead's that ran into the text's end)."""
        _lo, text, start, end = self.region(idx, where, 0, c)
        mark = ELLIPSIS.search(text, end) if cut == "cut" else None
        stop = end if cut not in ("cut", "head") else mark.start() if mark else len(text)
        for m, _variant, shift in self._run(self._attempts(idx, c, where, "to_end", (text[:stop], start, end), dropped), start + 1, partial=True):
            whole = cut == "head" or (c.first > 1 and shift > 0)  # a head put back: no partial read through a lookahead
            if not m.partial if whole else m.partial or cut != "cut":
                return True  # (a delimited message may be whole where its delimiter cuts the text)
        return False

    def region(self, idx: int, where: Where, after: int, c: Chain | None, read: str | None = None) -> tuple[int, str, int, int]:
        """The text the signature's regex reads a reading in: the reading's lines, the signature's window
        before them (one line at least) and ``after`` lines after them, the reading's words spelt as the
        signature spells them (``respelt``: 'Failed to find' where it says 'Fail to find'; a cut last word, the
        chain's ``part``, as it is: it begins the template's word there, not another word of the same stem; as
        they are where no chain ``c`` read them; ``read``: as ``_typed_read`` spells them), its values and what
        follows it as Python 3 prints them (``py3_values``). Returns (its first line, the text, the reading's
        start and end in it)."""
        lo = max(0, where.li_s - max(self.sigs[idx].window_before, 1))
        text = "\n".join(where.lines[lo : min(len(where.lines) - 1, where.li_e + after) + 1])
        start = sum(len(t) + 1 for t in where.lines[lo : where.li_s]) + where.col
        read = read if read is not None else where.read if c is None else respelt(where.read, spelling_of(self.sigs[idx]), bool(c.part))
        read, rest = py3_values(read), py3_values(text[start + len(where.read) :])
        return lo, text[:start] + read + rest, start, start + len(read)

    def retyped(self, idx: int, c: Chain, where: Where) -> str | None:
        """The second spelling of a reading, as a message typed from memory (``_typed_read``), tried where no
        signature confirmed the first (``region``'s): None where it is the same, or where no template of the
        signature has the chain's words at its places."""
        span = slice(c.first, c.last + 1)
        tid = next((t for t in self.rec.of.get(idx, ()) if self.rec.tpls[t][span] == self.rec.tpls[c.tid][span]), None)
        read = None if tid is None else self._typed_read(idx, tid, c, where)
        return None if read == respelt(where.read, spelling_of(self.sigs[idx]), bool(c.part)) else read

    def _typed_read(self, idx: int, tid: int, c: Chain, where: Where) -> str | None:
        """The reading with its words spelt as the signature spells each at its place in its template ``tid``
        ('hidden tensors are' where the text says 'hidden tensor are', 'found input tensor at' as it is; a cut
        last word as it is) and the articles the chain read past put back ('not at the same device'; a message's
        first, which the text lacks, else the chain grew back over it: '(The) NVIDIA driver'). None where the text's words are
        not the chain's (a word a hard wrap split)."""
        tpl, tw = self.rec.tpls[tid], words(where.read)
        if len(tw) != c.end - c.start + 1:
            return None
        pairs = self.rec.aligned(c, tw)
        if c.first == 2 and tpl[1] in ARTICLES:  # (the text's own article: the chain grew back over it; another one stays and the template's is put back too)
            pairs.insert(0, (1, -1))
        cut = len(tw) - 1 if c.part else -1
        if any(j >= 0 and j != cut and tw[j][0] != tpl[k] for k, j in pairs):
            return None
        places, spelling, out, at, put = placed(self.sigs[idx], tuple(tpl)), spelling_of(self.sigs[idx]), [], 0, ""
        for k, j in pairs:
            if j < 0:
                # joined to the next with the underscore of a name the text spells so ('CUDNN_' + 'STATUS_' + 'BAD_PARAM'), else a space
                put += (places[k] or spelling.get(tpl[k], ["the"])[0]) + ("_" if where.read[at : at + 1] == "_" and at > 0 else " ")
                continue
            _w, a, b = tw[j]
            raw = where.read[a:b]
            out += [where.read[at:a], put, raw if j == cut else spelt_as(raw, spelling, places[k])]
            at, put = b, ""
        return "".join(out) + where.read[at:]

    def _patterns(self, idx: int, flags: Sequence[str] | None = None) -> Iterator[Any]:
        """The signature's regex ignoring case (``flags``: with those), then loosened (``loose_regex``: its message's
        line breaks read as spaces too, its quote marks optional; compiled only when the first did not read the text)."""
        sig = self.sigs[idx]
        flags = folded(sig.flags) if flags is None else flags
        try:
            yield compile_pattern(sig.regex, flags)
            loose = loose_regex(sig.regex, "VERBOSE" in sig.flags)
            if loose != sig.regex:
                yield compile_pattern(loose, flags)
        except regex_error():
            return

    def _heads(self, idx: int, c: Chain, text: str, start: int, dropped: bool = False) -> list[str]:
        """What the text lost before the reading, put back: the fixed prefixes (``RuntimeError: ``) of the
        signature's templates, where the reading starts at a message's first word and the text has no prefix of
        its own there; where it starts later (its head cut) and ``dropped`` asks for it, the start of the
        signature's own messages up to the reading's first two words (a regex reads a head cut only so), where
        no other word stands right before it on its line (beside.py's ``head_cut_before``: 'CudnnBatchNormBackward, is at version 1'
        is another message's end, as a word after a reading where its template's next should be)."""
        if c.first == 1:
            return list(dict.fromkeys(h for t in self.rec.of.get(idx, ()) if (h := self.rec.tpls[t][0])))
        lead = line_start(text, start)
        # (a title: the block's first line, where ``region`` reads from its line 0; a region starts a line before
        # any other, so a blank line before a heading there is no title's)
        if not dropped or not head_cut_before(text[lead:start], lead == 0):
            return []
        read, sig = [w for w in self.rec.words_of(c) if w][:2], self.sigs[idx]
        return list(dict.fromkeys(m[line_start(m, a) : a] for m in (sig.signature, *(w.get("text", "") for w in sig.raw.get("wordings") or ())) for a in _at(m, read)))

    def headed(self, idx: int, text: str, start: int) -> tuple[Any, int, int] | None:
        """A cause's regex (as written: case and all, no other spelling) over ``text`` (its window) with the fixed
        prefix of one of its templates put back on the line that starts at ``start``, where ``_points`` puts it (refine.py names the causes),
        the first place first (the cause-head attempts, one search each): (match, start, end of what it read in
        ``text``, the prefix left out), or None; None too where prose follows what it read on that line
        (beside.py's ``PROSE_TAIL``: 'CUDNN_STATUS_EXECUTION_FAILED when NStepBiLSTM is using CuPy', an issue's title, mentions
        the status; it is no message printed without its prefix)."""
        end = text.find("\n", start) % (len(text) + 1)
        points = _points(text[start:end], [self.rec.tpls[t] for t in self.rec.of.get(idx, ())])
        pattern = next(self._patterns(idx, self.sigs[idx].flags), None)  # (as written: case and all)
        attempts = [] if pattern is None else [(pattern, text[: start + a] + head + text[start + a :], a) for a, head in points]
        for m, variant, a in self._run(attempts, start + 1, partial=False):
            if m.end() > start + a + (n := len(variant) - len(text)):  # it read the prefix and the line after it
                b = m.end() - n
                return None if b < end and PROSE_TAIL.match(text, b, end) else (m, m.start(), b)
        return None


def folded(flags: Sequence[str]) -> tuple[str, ...]:
    """A signature's regex flags, IGNORECASE added (the tolerant reading's confirmation)."""
    return tuple(flags) if "IGNORECASE" in flags else (*flags, "IGNORECASE")


def _variants(text: str, start: int, heads: Sequence[str], known: Container[str] = ()) -> Iterator[tuple[str, int]]:
    """The text in each of its layouts (``layouts``: as it is, the words a hard wrap split joined back, its line
    breaks as spaces; ``known``: template words), with each fixed prefix put back at ``start`` (the reading moves by the prefix's
    length: a match inside the prefix alone reads nothing of the text), and with the prose before ``start`` on
    its line taken out (a title's or a sentence's 'Training crashes on Colab: ', where a regex wants the message
    at a line's start; not a code comment's, nor inside a quote that prose opened); each with how far ``start``
    moved in it. The spaced variant carries load: without it the forms sample (tests/test_forms.py, one in 15)
    fails (39 split misses, 11 allowed) and so does
    tests/test_present.py::test_a_line_break_between_two_words_of_a_message_is_not_a_word_a_wrap_split; the
    prose-head variant too: without it '# LSTM training: Failed to find the dnn implementation. [Op:CudnnRNN]'
    gives no finding (tests/test_tolerant_kept.py)."""
    for layout in layouts(text, known):
        yield layout, 0
    for head in heads:
        yield text[:start] + head + text[start:], len(head)  # a match must read past it, into the text
    at = line_start(text, start)
    # (a title: the text's first line, where ``region`` reads from its line 0, over a blank line and no code)
    if prose_to_cut(text[at:start], at == 0 and _title_over_prose(text[start:])):
        yield text[:at] + text[start:], at - start


def _title_over_prose(rest: str) -> bool:
    """Whether the lines after a text's first line (``rest``: from the reading on) are a title's: a blank line or
    nothing next, and no code where the text goes on (a code comment stands over the code it comments, a blank
    line between them or not: 'import', 'from', another comment, 'name =', 'name(')."""
    _line, _, after = rest.partition("\n")
    nxt, _, more = after.partition("\n")
    return not nxt.strip() and CODE_NEXT.match(more) is None


def _points(line: str, tpls: Iterable[Sequence[str]]) -> dict[tuple[int, str], None]:
    """(column, prefix): where in ``line`` each template with a prefix may have lost it, before its first word
    where only the line's own prefix (beside.py's ``log_prefix_only``: a log prefix, indentation, a bracket) stands
    before it, no word of a sentence ('and then it gives CUDNN_STATUS_...'); each once, in the templates' order."""
    tw = words(line)
    firsts = ((next((a for w, a, _b in tw if w == tpl[1] and log_prefix_only(line[:a])), -1), tpl[0]) for tpl in tpls if tpl[0] and len(tpl) > 1)
    return dict.fromkeys(point for point in firsts if point[0] >= 0)


def _at(text: str, read: Sequence[str]) -> list[int]:
    """Where in ``text`` its words ``read`` (stems) begin."""
    tw = words(text)
    return [tw[j][1] for j in runs([w for w, _a, _b in tw], read)]


def _after(where: Where) -> tuple[list[str], bool]:
    """The words after a reading: the rest of its last line and the AFTER_LINES lines after it (AFTER_WORDS
    at most), and whether they run to the input's end."""
    li = where.li_e
    col = where.col + len(where.read) if (nl := where.read.rfind("\n")) < 0 else len(where.read) - nl - 1
    got = [w for w, _a, _b in words(where.lines[li][col:])]
    while len(got) < AFTER_WORDS and li + 1 < len(where.lines) and li < where.li_e + AFTER_LINES:
        li += 1
        got += [w for w, _a, _b in words(where.lines[li])]
    return got[:AFTER_WORDS], len(got) <= AFTER_WORDS and frames.ends_input(where.lines, li)

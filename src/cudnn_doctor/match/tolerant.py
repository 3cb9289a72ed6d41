"""The tolerant reading: a signature's message found from whatever is left of it, where no regex matched.

One mechanism for every shape people carry a message in: an issue title or a sentence that holds it, other
casing, spacing or inflection ('Failed to find' for 'Fail to find'), its fixed prefix or suffix dropped, its
lines joined or broken elsewhere, prose after it, a message cut at the input's end or by an ellipsis, a
traceback whose message line is empty but whose innermost frame says where it was raised (``raised_at``). Its
steps:

1. the templates (kb/templates.py: words are stems) are found as chains of their words (chains.py); a chain counts
   when it holds enough to tell its message apart (weigh.py: the rule at MIN_BITS) and no other word stands where its
   next word should be on the same line;
2. each signature one of whose templates holds the chain's words is **confirmed** by its own regex (confirm.py), ignoring
   case, over the lines around the chain (its window), the chain's words spelt as the signature spells them;
   then with the line breaks read as spaces (in the text, then in the regex), its fixed prefix restored where
   the text dropped it, the prose before or after a whole message on its line taken off: confirmed
   signatures are matches as good as exact ones, with their captures (the ranking then chooses among them as
   among exact matches). On lines a regex matched, only another signature that its case kept off is read. Where
   none confirms it, a message typed from memory (its articles dropped, a plural made singular: 'hidden tensor
   are not at same device'; a status name's STATUS dropped or its cudnn misspelt: 'CUDNN_BAD_PARAM',
   'CUDDN_STATUS_') is tried once more, its words spelt as the signature spells each at its place in the template
   and the words its chain read past put back (``Confirmer.retyped``, confirm.py): confirmed so, a match with its captures, marked
   cut (lower confidence: read, not as printed);
3. where none is confirmed, a chain cut by the input's end or an ellipsis, or one that read its template to
   the end, its head perhaps cut (the start its text lost put back from the signature's own message, where
   nothing else stands before it on its line and it names something specific), is a finding marked ``cut``
   (lower confidence; what it could not read) when what it read tells one message (a signature and the causes behind it) apart from every other: the signatures holding the same
   words, and the signature's counter-examples (``lookalikes``) that say as much after the same word.
   Otherwise, a near miss naming them.

Where the exact scan found a signature's literal on a line but not its regex (a near miss), its regex is also
tried there ignoring case (``recased``). The matcher is exact only. A paste's prose lines are read last, for the
errors they describe (``described``, prose.py).

This module reads a region and sends out what it finds (``read_region``); each job it composes is a module of
its own: weigh.py (which chains are read, how they stop, what holds a reading back), confirm.py (the
confirmations by regex, under one search budget per text) with spelling.py (how a reading is spelt for a
regex), sites.py (where a line says an error was raised), refine.py (the causes whose prefix a line lost) and
prose.py (what a sentence describes).
"""

from __future__ import annotations

from collections.abc import Collection, Container, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import islice

from ..kb.patterns import compile_pattern
from ..kb.templates import WORD, index, misspelt, words
from ..model import Signature
from ..read import frames
from .chains import Chain, Recognizer, word_ends
from .confirm import Confirmer
from .context import Evidence, context_items, context_span, direct_rnn
from .lines import Where
from .prose import MAX_LINES, Prose
from .refine import Refiner, around
from .results import MAX_MATCH_TEXT, TRACEBACK_LINES, Miss, RawMatch
from .sites import Sites
from .spelling import printed, rejoined, spelling_of
from .weigh import MIN_BITS, Weigher, one_message

MAX_READINGS = 8  # per text: the strongest, apart
# chains read in vain per text, at most (one more per TRY_CHARS of the lines around each): each costs a few regex
# searches over its lines' window (~5 ms; ~90 ms among 500-character lines), and a line repeated hundreds of
# times gives as many chains (48 s for 8 KB of a repeated warning, issue 30's fuzz run); over the base's
# examples and the corpus a reading came after 29 vain ones at most
MAX_TRIES, TRY_CHARS = 64, 16384
ASK_MESSAGE = "; paste the traceback's last line, its message"  # what tells apart the signatures raised where a traceback stops

Found = RawMatch | Miss
Verdict = tuple[list[str], bool]  # a reading's context: its evidence, and whether it supports it
NEAR = frames.MAX_FRAME_GAP + 2  # lines between a traceback's source line and its message


class Tolerant:
    """Reads lines against a base's templates and raise sites: each source of ``read_region`` in turn, with the
    parts it composes (one module each)."""

    def __init__(self, sigs: Sequence[Signature], evidence: Evidence, base: str | None = None) -> None:
        self.sigs = list(sigs)
        self.evidence = evidence
        self.rec = recognizer(tuple(self.sigs), base)  # ``base``: the catalog's cache key, where they are all of it
        self.index = {sig.id: idx for idx, sig in enumerate(self.sigs)}
        # the signatures whose regex is told by its case (CuPy's 'cuDNN Error')
        self.cased = {sig.id for sig in self.sigs if "IGNORECASE" not in sig.flags and "(?i" not in sig.regex}
        self.weigher = Weigher(self.sigs, self.rec)  # weigh.py: which chains are read, how they stop, what holds them back
        self.confirmer = Confirmer(self.sigs, self.rec)  # confirm.py: the regex searches, under their budget
        self.refiner = Refiner(self.sigs)  # refine.py: the causes of a matched generic, the framework gate
        self.sites = Sites(self.sigs, self.rec)  # sites.py: where a line says an error was raised
        self.prose = Prose(self.sigs, self.rec, MIN_BITS)  # prose.py: what a sentence describes

    # ------------------------------------------------------------------ sources (read_region's order)

    def read_region(self, lines: Sequence[str], lo: int, hi: int, taken: dict[int, set[str]], near: Mapping[str, Sequence[int]],
                    missed: Iterable[tuple[int, str]] = (), describe: bool = False) -> Iterator[Found]:
        """The findings read in ``lines[lo:hi+1]``, where no regex matched (``taken``: the lines a regex matched,
        with the signatures it matched there; ``near``: each signature's exact matches, by their first line), from
        each source in turn, each under its own search budget: the exact scan's near misses (``missed``: (line,
        signature)) read again ignoring case (``recased``); the causes of a generic matched there whose prefix the
        line lost (``refined``); the chains of the templates' words (``read``); the lines that say where an error
        was raised (``raised``). Then, where ``describe`` asks (a paste's block where no regex matched) and none
        of them found a match, the errors its prose describes (``described``). Each source's findings go out
        through ``_emit``: the matches of the first two take their lines as an exact match does."""
        for source, args, close, takes in (
            (self.recased, (lines, [(li, i) for li, i in missed if lo <= li <= hi]), near, taken),
            (self.refined, (lines, lo, hi), near, taken),
            (self.read, (lines, lo, hi), near, None),
            (self.raised, (lines, lo, hi), None, None),  # (a traceback's source line stands NEAR lines above its message)
        ):
            got = self._emit(lines, source(*args, taken), close, takes)
            describe = describe and not any(isinstance(f, RawMatch) for f in got)
            yield from got
        if describe:
            yield from self.described(lines)

    def recased(self, lines: Sequence[str], missed: Iterable[tuple[int, str]], taken: Mapping[int, Collection[str]]) -> Iterator[RawMatch]:
        """The signatures whose literal a line holds where their regex did not match it (``missed``: the exact
        scan's near misses, (line, signature)), read there: each one's regex ignoring case over the line and its window,
        then with their line breaks read as spaces, then with a word a hard wrap split joined back (``unwrapped``: 'Fail' |
        'ed to allocate ...' where no width tells read/present.py the wrap) (the message in another casing, or broken over lines, where
        a chain of its template may be too short to be read: a status name, 'cudnn_status_bad_param'; a message
        made mostly of values, 'miopen error: <path>:<line>: <detail>'), where no case-sensitive regex matched
        (``taken``: a wording told by its case, CuPy's 'cuDNN Error')."""
        self.confirmer.start()  # its own budget, not the last text read's (spent by now)
        for li, sig_id in missed:  # the lines of its run: those a match read from there may end on (the exact scan's)
            idx = self.index[sig_id]
            hi = min(len(lines) - 1, li + self.sigs[idx].window_before + self.sigs[idx].window_after + 1)
            text = "\n".join(lines[li : hi + 1])
            where = Where(lines, li, text, 0, len(text))
            got = None if _commented(lines[li]) else self.confirmer.confirm(idx, None, where, "recased")
            if got is None or any(j in self.cased for k in range(got[1], got[2] + 1) for j in taken.get(k, ())):
                continue  # the context after its regex: over a big log's long lines, the costlier
            if (verdict := self._context(self.sigs[idx], where)) is not None:
                yield self._match(self.sigs[idx], where, got[1], got[2], printed(lines, got[1], got[2], got[0].group(0)), dict(got[0].groupdict()), None, verdict)

    def refined(self, lines: Sequence[str], lo: int, hi: int, taken: Mapping[int, Collection[str]]) -> Iterator[RawMatch]:
        """The causes of the signatures a regex matched on ``lines[lo:hi+1]`` (``taken``), read there with the
        prefix their regex spells put back where the line lost it (refine.py): matches marked cut (the prefix
        was not read)."""
        self.confirmer.start()
        tried: set[tuple[str, int]] = set()  # (a line's text, a cause): a status repeated is read once
        for li in range(lo, hi + 1):
            for idx in self.refiner.of(taken.get(li, ())):
                if (lines[li], idx) in tried or self.confirmer.spent():
                    continue  # the budget spent: no region, framework gate or point is read any more
                tried.add((lines[li], idx))
                sig, where = self.sigs[idx], Where.line(lines, li)
                first, text, start, _end = self.confirmer.region(idx, where, max(sig.window_after, 1), None)
                if not self.refiner.seen(sig, around(lines, li, first)) or (got := self.confirmer.headed(idx, text, start - where.col)) is None:
                    continue
                m, a, b = got
                if (verdict := self._context(sig, where)) is not None:
                    yield self._match(sig, where, first + text.count("\n", 0, a), first + text.count("\n", 0, max(a, b - 1)), text[a:b], dict(m.groupdict()), _cut_record(where.read), verdict)

    def read(self, lines: Sequence[str], lo: int = 0, hi: int | None = None, taken: Mapping[int, Collection[str]] | None = None) -> Iterator[Found]:
        """The matches (confirmed, or cut) and near misses read in ``lines[lo:hi+1]`` (normalized lines; the
        lines around them are the regexes' window), strongest first; ``taken``: lines a regex matched, with the
        signatures it matched there."""
        hi = len(lines) - 1 if hi is None else hi
        self.confirmer.start()  # a text whose searches all run to their timeout
        text = "\n".join(lines[lo : hi + 1])
        tw = rejoined(text, words(text), self.rec.weight)
        last = len(tw) - 1 if hi == len(lines) - 1 else -1  # the input's last word (a cut stops there)
        spans: list[tuple[int, int]] = []
        tries, vain = 0, set()  # the spans read in vain, with the words read there (the same words read again
        # give the same signatures; another template's words over the same span may not)
        for c, stop in self.weigher.strong(text, tw, word_ends(text, tw), last):
            if len(spans) >= MAX_READINGS or tries >= MAX_TRIES:
                break
            key = (c.start, c.end, self.rec.words_of(c))
            if _overlaps(c, spans) or key in vain:
                continue
            where = Where(lines, lo, text, tw[c.start][1], tw[c.end][2])
            matched = self._matched(c, where, taken or {})
            if matched is False:
                continue  # on lines a regex matched, held by no other signature
            got = self.weigher.held_back(c, where, list(self._near(c, where) if stop == "near" else self._reading(c, where, stop, matched)))
            yield from got
            if not got:  # a vain reading costs one try, more where its lines' window is long (its regex searches)
                vain.add(key)
                tries += 1 + sum(len(x) for x in lines[max(0, where.li_s - 40) : where.li_e + 41]) // TRY_CHARS
            elif stop != "near":  # (near misses keep no span)
                spans.append((c.start, c.end))

    def raised(self, lines: Sequence[str], lo: int, hi: int, taken: Container[int]) -> Iterator[Found]:
        """A finding for each line of ``lines[lo:hi+1]``, clear of a regex's match, that says where an error was
        raised without its message (``Sites.at``, sites.py: a traceback's frame, a C++ error's log line); near misses naming
        the signatures raised there where they tell no one message apart."""
        for li in range(lo, hi + 1):
            got = None if any(k in taken for k in range(li, li + NEAR)) else self.sites.at(lines, li)
            if got and (held := self._passing(got[0], where := Where.line(lines, li))):  # (those not ruled out there)
                why, telling = got[1:]  # a frame where other errors are raised too names them, it does not tell one
                yield from self._told(held, where, (why if telling else f"{why}, where other errors are raised too", ASK_MESSAGE), alone=telling)

    def described(self, lines: Sequence[str]) -> Iterator[Found]:
        """The findings (or near misses) the prose lines of a paste describe (prose.py); one line's at most per
        signature (a description repeated is not the error seen twice)."""
        seen: set[str] = set()
        for li in islice((li for li, line in enumerate(lines) if frames.prose_line(line)), MAX_LINES):
            where = Where.line(lines, li)
            for got in self._told(self._passing(self.prose.candidates(lines[li]), where), where, (f"read from a description, {where.read[-60:]!r}", "; paste the full message"), described=True):
                if got.sig.id not in seen:
                    seen.add(got.sig.id)
                    yield got

    # ------------------------------------------------------------------ a chain's reading

    def _matched(self, c: Chain, where: Where, taken: Mapping[int, Collection[str]]) -> set[str] | bool | None:
        """The signatures a regex matched on every line of a reading (None where one of its lines has none),
        or False where the reading is not re-cased (lower, upper or capitalized), no other signature holds its
        words, or it starts on a C++ comment's line (``_commented``)."""
        lines = range(where.li_s, where.li_e + 1)
        if _commented(where.lines[where.li_s]):
            return False
        if not all(li in taken for li in lines):
            return None
        if where.read not in (where.read.lower(), where.read.upper(), WORD.sub(lambda m: m.group(0).capitalize(), where.read)):
            return False  # as it was printed, not re-cased: its case is the framework's ('cuDNN Error' is CuPy's)
        matched = {i for li in lines for i in taken[li]}
        return matched if any(self.sigs[i].id not in matched for i in self.weigher.holding(self.rec.words_of(c))) else False

    def _reading(self, c: Chain, where: Where, cut: str, matched: Collection[str] | None = None) -> Iterator[Found]:
        """The signatures holding the chain confirmed by their regex (ignoring case); where none is, a chain
        that ``cut`` stops tells those whose regex reads it to its end and no lookalike says it (a finding
        marked cut where they read one message, else near misses). On lines a regex matched (the signatures
        ``matched``): only another signature's regex as it reads them, in another case (a wrapper's message
        lower-cased, its generic's regex ignoring case)."""
        exact = matched is not None
        held = self._passing((i for i in self.weigher.holding(self.rec.words_of(c)) if self.sigs[i].id not in (matched or ())), where)
        confirmed = self._confirmed(held, c, where, exact)
        yield from confirmed
        if cut and not confirmed and not exact:
            # a signature's regex reads it to the input's end where ``cut`` stops it (a head cut one, the start its text
            # lost put back, only where it is ``Weigher.specific``), or it is a delimited reading that is a whole
            # message all the same (``Weigher.whole``: never one that ends at a clause, which has words after it)
            specific, whole = self.weigher.specific(c, where), cut == "delimited" and self.weigher.whole(c, where)
            told = [(i, v) for i, v in held if (self.confirmer.reads_to_end(i, c, where, cut, specific) or whole) and not self.weigher.lookalike(self.sigs[i], c, where)]
            yield from self._told(told, where, (f"read {where.read[-60:]!r}", "; paste the full message"), self._expected_next(c, where.read))

    def _near(self, c: Chain, where: Where) -> Iterator[Found]:
        """Near misses naming the signatures holding a cut chain that several messages hold, never one of them."""
        return self._told(self._passing(self.weigher.holding(self.rec.words_of(c)), where), where, (f"read {where.read[-60:]!r}", "; paste the full message"), alone=False)

    def _confirmed(self, held: Sequence[tuple[int, Verdict]], c: Chain, where: Where, exact: bool) -> list[RawMatch]:
        """The matches of the signatures of ``held`` whose regex confirms the chain (``exact``: on lines a regex
        matched, the text as it is); where none does, of those whose regex confirms it as a message typed from
        memory (``Confirmer.retyped``, confirm.py): read, its values too, not as printed: matches marked retyped (a tolerant finding's
        lower confidence)."""
        got = [self._match(self.sigs[i], where, m[1], m[2], printed(where.lines, m[1], m[2], m[0].group(0)), dict(m[0].groupdict()), None, v) for i, v in held if (m := self.confirmer.confirm(i, c, where, "exact" if exact else ""))]
        if got or exact:
            return got
        return [
            self._match(self.sigs[i], where, m[1], m[2], "\n".join(where.lines[m[1] : m[2] + 1]).strip(), dict(m[0].groupdict()), _cut_record(where.read, mark="retyped"), v)
            for i, v in held
            if (read := self.confirmer.retyped(i, c, where)) is not None and (m := self.confirmer.confirm(i, c, where, "", read))
        ]

    def _expected_next(self, c: Chain, read: str) -> str:
        """The template's words after where the chain was cut (the rest of its cut word first), as its
        signature spells them (the template holds their stems)."""
        spelt, tpl = spelling_of(self.sigs[self.rec.owner[c.tid]]), self.rec.tpls[c.tid]
        nxt = " ".join(spelt.get(w, [w])[0] for w in tpl[c.last + 1 : c.last + 4] if w)
        if c.part:
            cut = WORD.findall(read.lower())[-1:] or [c.part]
            whole = spelt.get(tpl[c.last], [tpl[c.last]])[0]
            nxt = ((whole[len(cut[0]) :] if whole.startswith(cut[0]) else whole) + " " + nxt).strip()
        return nxt

    # ------------------------------------------------------------------ what a reading gives

    def _told(self, held: list[tuple[int, Verdict]], where: Where, why: tuple[str, str], nxt: str | None = None, alone: bool = True, described: bool = False) -> Iterator[Found]:
        """What a reading no regex confirms gives (a cut message, a traceback without its message, a description):
        a match marked cut for each signature (``held``: with its context's verdict) where they read one message
        (and the reading tells it ``alone``), else near misses naming them."""
        sigs = [self.sigs[i] for i, _v in held]
        if not alone or not one_message(sigs):
            reason = f"{why[0]}: it could be any of {', '.join(s.id for s in sigs[:5])}{why[1]}"
            yield from (Miss(sig, "", where.li_s, reason) for sig in sigs[:4])
            return
        for sig, (_i, verdict) in zip(sigs, held, strict=True):
            shown = " ".join(x.text for x in (*sig.explain, *sig.checks))  # the named values it could not read
            unread = [] if described else [n for n in compile_pattern(sig.regex, sig.flags).groupindex if "{" + n in shown]
            cut = _cut_record(where.read, unread, nxt, "described" if described else "retyped" if misspelt(where.read) else "")
            yield self._match(sig, where, where.li_s, where.li_e, where.read, {}, cut, verdict)

    def _match(self, sig: Signature, where: Where, li_s: int, li_e: int, text: str, captures: dict[str, str | None], cut: dict[str, object] | None, verdict: Verdict) -> RawMatch:
        before = list(where.lines[max(0, li_s - TRACEBACK_LINES) : li_e + 1])  # (the lines a traceback may hold)
        return RawMatch(sig, "", li_s, li_e, text[:MAX_MATCH_TEXT], captures, "", list(verdict[0]), verdict[1], before, cut)

    def _context(self, sig: Signature, where: Where) -> Verdict | None:
        """The context's verdict on a reading of the signature: (evidence, supported), None where it rules it out."""
        lo, hi = context_span(sig, where.li_s, where.li_e, len(where.lines))  # (no item: no text, ([], False))
        got = self.evidence.verdict(sig, direct_rnn(sig, where.read), "\n".join(where.lines[lo : hi + 1]) if context_items(sig) else "")
        return None if isinstance(got, str) else got

    def _passing(self, idxs: Iterable[int], where: Where) -> list[tuple[int, Verdict]]:
        """The signatures of ``idxs`` whose context does not rule a reading out, each with its verdict."""
        return [(i, v) for i in idxs if (v := self._context(self.sigs[i], where)) is not None]

    def _emit(self, lines: Sequence[str], found: Iterable[Found], near: Mapping[str, Sequence[int]] | None, taken: dict[int, set[str]] | None) -> list[Found]:
        """A source's findings, where ``near`` is given (not a raise site's) but a match whose text stands in a
        raise statement's string literal with no traceback frame above it (source code quoted, which the matcher
        rules out too: read/frames.quoted_source) and but one within NEAR lines of an exact match of its signature
        (``near``); each match's lines marked in ``taken`` where it is given (those near an exact match too),
        before the next source reads."""
        got = [f for f in found if near is None or not _quoted_match(lines, f)]
        for m in got if taken is not None else ():
            for li in range(m.line, m.end_line + 1):
                taken.setdefault(li, set()).add(m.sig.id)
        return [f for f in got if near is None or not any(abs(f.line - li) <= NEAR for li in near.get(f.sig.id, ()))]


def _quoted_match(lines: Sequence[str], found: Found) -> bool:
    """Whether ``found`` is a match whose text stands in a raise statement's string literal with no traceback frame
    above it (read/frames.quoted_source), where it starts: its text's first line found on its line."""
    if not isinstance(found, RawMatch) or not (first := found.text.split("\n", 1)[0].strip()):
        return False
    col = lines[found.line].find(first)
    return col >= 0 and frames.quoted_source(lines, found.line, col)


def _overlaps(c: Chain, spans: Sequence[tuple[int, int]]) -> bool:
    return any(c.start <= e and s <= c.end for s, e in spans)


def _commented(line: str) -> bool:
    """Whether a line is a C++ comment's ('//': a pasted source's, a traceback's source line): it says what the
    code does, not what a framework printed (not '#': a title's '# crash: ...' is a heading)."""
    return line.lstrip().startswith("//")


@lru_cache(maxsize=4)
def recognizer(sigs: tuple[Signature, ...], base: str | None = None) -> Recognizer:
    """One recognizer per base (its index: kb/templates.index, kept in the catalog cache)."""
    return Recognizer(index(sigs, base))


def _cut_record(read: str, unread: Sequence[str] = (), nxt: str | None = None, mark: str = "") -> dict[str, object]:
    """The cut record of a finding no regex confirmed as printed (records.CutRecord): what was read, the named
    values left unread, what was expected next; ``mark``: "described" or "retyped" where it was read so."""
    return {"read": read[-200:], "unread": list(unread), "expected_next": nxt or None, "could_also_be": [], "ask_full_line": True} | ({mark: True} if mark else {})



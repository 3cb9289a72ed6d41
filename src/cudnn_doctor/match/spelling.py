"""How a reading is spelt for its signature's regex: its words as the signature spells them (``respelt``:
another inflection, 'Failed' for 'Fail'; ``placed``: each word as its template has it at its place, for a
message typed from memory), Python 2's values as Python 3 prints them (``py3_values``, ``printed``), and its
layout undone (``rejoined``/``unwrapped``: a word a hard wrap split; ``spaced``: line breaks read as spaces;
``layouts``: the text with each).
"""

from __future__ import annotations

import re
from collections.abc import Container, Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from string import ascii_letters, digits

from ..kb.patterns import LazyRe
from ..kb.templates import WORD, messages, stem, words
from ..model import Signature
from .beside import COMMENT
from .chains import MIN_PART
from .lines import line_start

PLACED = 0.75  # of a template's words a text of its signature holds in order, to say how it spells them at their places
WRAP_MIN = 40  # characters of a line a hard wrap leaves at least
_GLUED = LazyRe(r"(?<=[)\]}])(?=[A-Za-z])")
_LAST_WORD = LazyRe(r"[A-Za-z0-9]+[^A-Za-z0-9]*\Z")
_PY2_LONG = LazyRe(r"\b(\d+)L\b(?=\s*[,)\]])")  # a long in a tuple or list as Python 2 writes it: '(1L, 4L)'
# its L and what follows it, searched first (``py3_values``): a pattern that begins with a letter is searched for
# that letter, one that begins with a word boundary is tried at every position (50 ms in a 1 MB window)
_LONG_END = LazyRe(r"L(?=\s*[,)\]])")
# the characters a word (templates.words: ASCII letters and digits, an index's ']') ends in and begins with: a line
# break between the two is the only place ``rejoined`` may join two words (``_split_words``)
_ENDS, _BEGINS = frozenset(ascii_letters + digits + "]"), frozenset(ascii_letters + digits)


def spaced(text: str) -> str:
    """The text's line breaks read as spaces (a message broken over two lines, read whole), but before a code
    comment's line, which starts a line of its own: glued to the line before, its text would read as the
    message that line goes on into ('x = 1' + '# else it reports ERROR: Fail to find the dnn implementation.')."""
    return "".join(("\n" if COMMENT.match(t) else " ") + t if i else t for i, t in enumerate(text.split("\n")))


def rejoined(text: str, tw: Sequence[tuple[str, int, int]], known: Container[str]) -> list[tuple[str, int, int]]:
    """The text's words with each word a hard wrap split read as one: two words with only a line break between
    them, on a line of WRAP_MIN characters at least, whose halves make a template word ('found input t' / 'ensor
    at') and are not words of their own ('only available' / 'for cuDNN': MXNet has a message that says
    'availablefor'): both template words of MIN_PART characters at least (a hard wrap leaves 'go' / 't' of 'got'
    and 'b' / 'e' of 'be', which are template words too)."""
    out: list[tuple[str, int, int]] = []
    for w2, a2, b2 in tw:
        w, a, b = out[-1] if out else ("", 0, -2)
        wrapped = a2 == b + 1 and text[b] == "\n" and b - line_start(text, b) >= WRAP_MIN
        if wrapped and (joined := stem((text[a:b] + text[b + 1 : b2]).lower())) in known and not (min(len(w), len(w2)) >= MIN_PART and w in known and w2 in known):
            out[-1] = (joined, a, b2)
        else:
            out.append((w2, a2, b2))
    return out


def unwrapped(text: str, known: Container[str]) -> str:
    """The text with each word a hard wrap split joined back (``rejoined``), the line break moved to the end of
    the line it joins (the lines keep their numbers)."""
    for _w, a, b in reversed(rejoined(text, _split_words(text), known)):
        if (nl := text.find("\n", a, b)) >= 0:
            end = text.find("\n", nl + 1) % (len(text) + 1)  # (the text's end where no line break follows)
            text = text[:nl] + text[nl + 1 : end] + "\n" + text[end:]
    return text


def _split_words(text: str) -> list[tuple[str, int, int]]:
    """The words (``words``) of the lines a line break between two words ends or begins (``_ENDS``, ``_BEGINS``),
    with their spans in ``text``: all that ``rejoined`` may join (a word never holds a line break, so a line's
    words are those of its text alone). Not the text's every word: a confirmation's window of long lines (a
    metrics dump, ~1 MB) holds hundreds of thousands, listed for nothing (bench/kinds.py long and wide, 64 MiB:
    +0.4 s CPU, +25-45 MiB peak RSS); tests/test_spelling_speed.py."""
    lines = text.split("\n")
    cut = [lines[i][-1:] in _ENDS and lines[i + 1][:1] in _BEGINS for i in range(len(lines) - 1)] + [False]
    got: list[tuple[str, int, int]] = []
    start = 0
    for i, line in enumerate(lines):
        if cut[i] or (i and cut[i - 1]):
            got += [(w, a + start, b + start) for w, a, b in words(line)]
        start += len(line) + 1
    return got


def layouts(text: str, known: Container[str]) -> list[str]:
    """The text's layouts a regex is tried over: the text, then with each word a hard wrap split joined back
    (``unwrapped``; ``known``: template words), then with its line breaks read as spaces (``spaced``), each once.
    Joined before spaced: read as spaces first, a regex's value would hold the wrap's two halves and run on into
    the lines after the message."""
    return list(dict.fromkeys((text, *((unwrapped(text, known), spaced(text)) if "\n" in text else ()))))


def spelt_as(raw: str, spelling: dict[str, list[str]], place: str | None = None) -> str:
    """The word ``raw`` as the signature spells it (``place``: at its place in its template; else its stem's
    first spelling, where the signature does not spell it as it is), in the case of ``raw``."""
    low = raw.lower()
    known = spelling.get(stem(low)) or [low]
    spelt = place or (low if low in known else known[0])
    return raw if low == spelt else spelt.upper() if raw.isupper() and len(raw) > 1 else spelt.capitalize() if raw[0].isupper() else spelt


@lru_cache(maxsize=4096)
def spelling_of(sig: Signature) -> dict[str, list[str]]:
    """The words of the signature's message, regex, templates and wordings (kb/templates.spellings), by
    their stems."""
    from ..kb.templates import spellings  # here: kb/templates.py imports chains.py, of this package

    got: dict[str, list[str]] = {}
    for raw in WORD.findall(" ".join(spellings(sig)).lower()):
        got.setdefault(stem(raw), []).append(raw)
    return got


@lru_cache(maxsize=4096)
def placed(sig: Signature, tpl: tuple[str, ...]) -> list[str | None]:
    """The signature's spelling of each word of its template ``tpl`` at its place (lower case; None: unknown):
    the word its message, templates or wordings have there, matched to the template's words in order ('tensors'
    in 'hidden tensors are', 'tensor' in 'found input tensor at'), from a text that holds PLACED of them (fewer:
    another message's; a signature's message and its templates may be other messages)."""
    got: list[str | None] = [None] * len(tpl)
    for msg in messages(sig):
        tw = words(msg)
        here: list[str | None] = [None] * len(tpl)
        for a, b, n in SequenceMatcher(None, list(tpl), [w for w, _a, _b in tw], autojunk=False).get_matching_blocks():
            here[a : a + n] = [msg[tw[b + d][1] : tw[b + d][2]].lower() if tpl[a + d] else None for d in range(n)]
        if sum(1 for g in here if g) >= PLACED * sum(1 for w in tpl if w):
            got = [x or y for x, y in zip(got, here, strict=True)]
    return got


def respelt(read: str, spelling: dict[str, list[str]], cut: bool = False) -> str:
    """``read`` with each word another inflection of one the signature spells ('Failed' for 'Fail'), spelt
    as the signature spells it, in the text's case, and a word glued to the bracket that closes a value
    before it spaced ('{{node x}}with these attrs'). It carries load that reports and the forms sample do not
    measure: without it 'UnknownError: Failed to find the dnn implementation' is read cut (tests/test_tolerant_kept.py).
    Where the reading is ``cut`` in its last word, that word stays as read: it begins the template's word there
    (a cut 'ar' of 'arguments' is not 'are', whose stem it is)."""
    last = _LAST_WORD.search(read) if cut else None
    tail = last.start() if last else len(read)
    return _GLUED.sub(" ", WORD.sub(lambda m: spelt_as(m.group(0), spelling), read[:tail]) + read[tail:])


def py3_values(text: str) -> str:
    """The text with Python 2's long integers in a tuple or list written as Python 3 writes them: a shape that
    Python 2 formatted into a message ('Expecting (1, 16L, 64), got (1L, 4L, 64L)', 'torch.Size([64L, 3L])')
    read by a regex that wants digits."""
    return _PY2_LONG.sub(r"\1", text) if _LONG_END.search(text) else text


def printed(lines: Sequence[str], first: int, last: int, matched: str) -> str:
    """What a regex matched as the log printed it, where its lines hold Python 2's longs (the regex read them as
    Python 3 prints them, ``py3_values``): the match found again in them with its longs' ``L`` (not the prose or
    timestamp before it on its line); its lines where it is not found so; else the match."""
    text = "\n".join(lines[first : last + 1])
    if "L" not in text or not _PY2_LONG.search(text):
        return matched
    # each part of the match as a pattern where its numbers before ',', ')' or ']' may carry their ``L``
    longs = (re.sub(r"(\d+)(?=,|\\[)\]])", r"\1L?", re.escape(part)) for part in matched.split())
    got = re.search(r"\s+".join(longs), text)
    return got.group(0) if got else text.strip()

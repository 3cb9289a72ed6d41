"""Message templates derived from a signature (kb/build.py), and the index of a base's (match/tolerant.py); the
word model both read by (``words``, ``stem``, ``HEAD``, ``FORMAT``), and a base's code names (match/prose.py).

A template is ``(head, word, word, ...)`` (``Template``): the message's words (stems, ``words``) with
placeholders ("") where the framework prints a value, and ``head``, the fixed prefix the message is printed
with (``RuntimeError: ``, ``CuDNNError: ``, ``Check failed: ``; "" for none), kept apart because people drop
it. Templates are written in a signature (``templates:``, the source's format strings) or derived from the
signature's regex run on its canonical message, its ``wordings`` and its examples: the words of the *message*
the regex matched (not the traceback frames a cause's regex also spans), a word being a value where the regex
still matches with it replaced.

Words weigh the information they carry: -log2 of how often they are met over the templates of the whole base
and a body of ordinary log text (data/logwords.json; CPython's own messages for a call that does not fit,
RUNTIME_MESSAGES), so that 'error', 'cudnn' or 'positional argument' tells little and 'ThenRnnForward' much.
``index`` is all of it as plain JSON-able data, made once per base (``derived``: kept in the catalog cache).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..model import raise_site
from .patterns import JSONData, LazyRe, compile_pattern, derived, regex_error

if TYPE_CHECKING:
    from ..model import Signature


# --------------------------------------------------------------------------- the word model (match/chains.py reads by it)
# A text's words are runs of ASCII letters and digits, lower-cased and stemmed (``words``); a template is
# ``(head, word, ..., PH, word, ...)``: its fixed prefix, then its words' stems, PH where a value goes.
PH = ""  # a placeholder: the framework prints a value there
START_BITS = 3.0  # a chain starts only at a word this informative (not at 'the', 'in', 'cudnn')
WORD = re.compile(r"[A-Za-z0-9]+")
# a word with the index a message prints it with ('hidden[0]', 'hx[1]': one word, what tells PyTorch's state
# checks apart), its closing bracket cut where a line ends ('Expected hidden[0')
_INDEXED = re.compile(r"([A-Za-z0-9]+)(\[\d{1,3}(?:\]|(?=[ \t]*(?:\n|\Z))))?")
_SUFFIXES = ("es", "s", "ing", "ed", "e")
_KEPT = ("ss", "us", "is")  # not a plural's -s: 'process', 'status', 'axis'
# printf conversions, Python format fields, and the {} of a C++ stream/StrCat value
FORMAT = re.compile(
    r"%(?:[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L|q|I64)?[diouxXeEfgGcsSpn])|\{[A-Za-z0-9_.\[\]]*(?:![rsa])?(?::[^{}]*)?\}"
)
# the fixed prefix a message is printed with: exception names, a status tag, a CHECK
HEAD = re.compile(
    r"(?:(?:[A-Za-z_][\w.]*(?:Error|Exception|Warning)|UNKNOWN|INTERNAL|INVALID_ARGUMENT|Check failed|cuDNN error"
    r"|CUDNN_STATUS_[A-Z_]+)\s*:\s*)+"
)
Template = tuple[str, ...]  # (head, *words)
# a misspelt 'cudnn': its letters only, c first, then u or d, a d and an n (cuddn, cudn, cdnn, cudnnn)
_CUDNN_TYPO = re.compile(r"c[ud][cudn]{2,4}")


def words(text: str) -> list[tuple[str, int, int]]:
    """The words of ``text`` (runs of ASCII letters and digits, with the index that follows one: 'hidden[0]'),
    lower-cased and stemmed, with their spans."""
    return [(_cudnn(stem(m.group(1).lower())) + (m.group(2) or ""), m.start(), m.end()) for m in _INDEXED.finditer(text)]


def misspelt(text: str) -> bool:
    """Whether ``text`` holds a word ``words`` reads as another (a misspelt cudnn)."""
    return any(_cudnn(w) != w for w in map(str.lower, WORD.findall(text)))


def _cudnn(word: str) -> str:
    """``word``, or cudnn where it is a misspelling of it (``_CUDNN_TYPO``)."""
    return "cudnn" if word[:1] == "c" and _CUDNN_TYPO.fullmatch(word) and "d" in word and "n" in word else word


def stem(word: str) -> str:
    """A lower-case word with its inflection taken off, so that a message's other verb forms and numbers read
    as the same word ('Failed to find' for 'Fail to find', 'tensors' for 'tensor', 'required' for 'require'):
    a plural or third person's -s/-es, then -ing, -ed or a final -e, until none is left (the same stem from
    any of them, and from a stem). A number or a short word is its own stem: kept out of the memo, where a
    log's numbers (a long line of floats: 200,000 a read) would push out every word."""
    return _stemmed(word) if len(word) > 2 and word.isalpha() else word


@lru_cache(maxsize=1 << 16)
def _stemmed(word: str) -> str:
    while len(word) > 2 and not word.endswith(_KEPT):
        suffix = next((s for s in _SUFFIXES if word.endswith(s) and len(word) - len(s) >= 2), "")
        if not suffix:
            break
        word = word[: -len(suffix)]
    return word


# --------------------------------------------------------------------------- templates of a signature

MAX_SPAN = 600  # characters of a message a template is derived from
# CPython's messages for a call that lacks an argument or has too many (Python/ceval.c missing_arguments,
# too_many_positional): any library's error in a Python log may be raised in them, so their words tell no signature
# apart ('__init__() missing 1 required positional argument: ' with its argument's name cut is any class's); they
# count as met on one line of RUNTIME_EVERY of ordinary log text (not 'got an unexpected keyword argument': 'got' is
# every 'Expected {}, got {}' message's word, weighed by the templates themselves)
RUNTIME_MESSAGES = (
    "__init__() missing 1 required positional argument: 'x'",
    "__init__() missing 1 required keyword-only argument: 'x'",
    "__init__() takes 2 positional arguments but 3 were given",
)
RUNTIME_EVERY = 8
MAX_TEMPLATES = 40
# a traceback's own lines: frames, the source lines they show, its header (a cause's regex spans them)
_FRAME = re.compile(
    r"^\s*(?:File\s+\S|Traceback \(most recent call last\)|at [\w.$<>]+\(|frame #\d+:|\[bt\] \(\d+\)|\d+: \w|\[\d+\] \w)",
    re.M,
)


def _squeeze(items: Iterable[str]) -> tuple[str, ...]:
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
    head = HEAD.match(fmt)
    body = fmt[head.end() :] if head else fmt
    parts = FORMAT.sub(" \0 ", body).split(" ")
    return (head.group(0) if head else "", *_squeeze(PH if p == "\0" else w for p in parts for w in ([p] if p == "\0" else [x for x, _, _ in words(p)])))


def message_span(pattern: Any, clean: str, literals: Sequence[str] = ()) -> tuple[int, int] | None:
    """Where the message is in ``clean`` (normalized text): the part of the regex's first match on the lines
    that carry the message (those holding one of ``literals``, and the lines next to them that are not a
    traceback's frames), or None when the regex does not match."""
    try:
        m = pattern.search(clean, timeout=1.0)
    except (TimeoutError, regex_error()):
        return None
    if m is None or m.end() <= m.start():
        return None
    start, end = m.start(), m.end()
    lines = _lines_of(clean, start, end)
    lo, hi = _message_lines(clean, lines, literals)
    return max(start, lines[lo][0]), min(end, lines[hi][1])


def _message_lines(clean: str, lines: list[tuple[int, int]], literals: Sequence[str]) -> tuple[int, int]:
    """The first and last index of ``lines`` that carry the message: the first line holding a literal (else
    the first that is not a frame), grown over its neighbours up to a traceback's frames."""
    frames = _frame_lines(clean, lines)
    lows = [lit.lower() for lit in literals]
    key = [i for i, (a, b) in enumerate(lines) if i not in frames and any(lit in clean[a:b].lower() for lit in lows)]
    if not key:
        key = [i for i in range(len(lines)) if i not in frames] or [0]
    lo = hi = key[0]
    while lo > 0 and lo - 1 not in frames:
        lo -= 1
    while hi + 1 < len(lines) and hi + 1 not in frames:
        hi += 1
    return lo, hi


def _lines_of(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The (start, end) of each line of ``text`` that [start, end) touches."""
    out = []
    pos = text.rfind("\n", 0, start) + 1
    while pos <= end:
        nl = text.find("\n", pos)
        stop = len(text) if nl < 0 else nl
        out.append((pos, stop))
        if nl < 0 or nl >= end:
            break
        pos = nl + 1
    return out


def _frame_lines(text: str, lines: list[tuple[int, int]]) -> set[int]:
    """The indexes of ``lines`` that are a traceback's: frames, and the source line right after a frame."""
    out: set[int] = set()
    for i, (a, b) in enumerate(lines):
        if _FRAME.match(text, a, b) or (i - 1 in out and text[a:b].startswith((" ", "\t")) and _FRAME.match(text, *lines[i - 1])):
            out.add(i)
    return out


def from_text(pattern: Any, text: str, literals: Sequence[str] = ()) -> Template | None:
    """A template from a text the regex matches: the words of its message, each a placeholder where the regex
    still matches with it replaced (a value), else a word; its fixed prefix apart."""
    from ..read.normalize import clean_text

    clean = clean_text(text)
    span = message_span(pattern, clean, literals)
    if span is None:
        return None
    start, end = span[0], min(span[1], span[0] + MAX_SPAN)
    head = HEAD.match(clean, start, end)
    body = head.end() if head else start
    out = [PH if _still_matches(pattern, clean, a + body, b + body) else word for word, a, b in words(clean[body:end])]
    return (head.group(0) if head else "", *_squeeze(out))


def _still_matches(pattern: Any, clean: str, a: int, b: int) -> bool:
    """Whether the regex still matches ``clean`` where the word at [a, b) is replaced (another value)."""
    word = clean[a:b]
    other = "".join(str((int(c) + 1) % 10) if c.isdigit() else ("q" if c.lower() != "q" else "z") for c in word)
    try:
        m = pattern.search(clean[:a] + other + clean[b:], timeout=0.2)
    except (TimeoutError, regex_error()):
        return False
    return m is not None and m.start() <= a and m.end() >= b


def derive(sig: Signature) -> tuple[Template, ...]:
    """The signature's templates: those written (``templates:``), then those derived from its canonical
    message, its wordings and its examples, distinct, at most MAX_TEMPLATES."""
    got: dict[Template, None] = {}
    for fmt in sig.raw.get("templates") or ():
        got.setdefault(from_format(fmt))
    try:
        pattern = compile_pattern(sig.regex, sig.flags)
    except regex_error():
        return tuple(got)
    literals = sig.prefilter or (sig.signature,)
    texts = [sig.signature, *(w.get("text", "") for w in sig.raw.get("wordings") or ()), *(e.text for e in sig.examples)]
    for text in texts:
        tpl = from_text(pattern, text, literals)
        if tpl and any(tpl[1:]):
            got.setdefault(tpl)
    return tuple(t for t in got if len(t) > 1)[:MAX_TEMPLATES]


def lookalikes(sig: Signature, templates: Sequence[Template]) -> tuple[tuple[str, ...], ...]:
    """The words of the signature's counter-examples where they say what its templates say (a line holding
    three of a template's words, with the two lines after it: a message over three lines, Torch-TensorRT's
    'Method requested cannot be compiled ...' / 'Unsupported operators listed below:' / '- aten::lstm'): another
    message a reading must tell it from."""
    from ..read.normalize import clean_text

    own = [{w for w in t[1:] if w} for t in templates]
    try:
        pattern = compile_pattern(sig.regex, sig.flags)
    except regex_error():
        pattern = None
    out: dict[tuple[str, ...], None] = {}
    for ex in sig.counter_examples:
        lines = clean_text(ex.text).split("\n")
        for i, line in enumerate(lines):
            got = {w for w, _, _ in words(line)}
            if pattern is not None and _says(pattern, line):
                continue  # its own message, ruled out by its context (a convolution's frame), not by its words
            if any(len(got & o) >= min(3, len(o)) for o in own):
                out.setdefault(tuple(w for w, _, _ in words(" ".join(lines[i : i + 3]))))
    return tuple(out)


def _says(pattern: Any, line: str) -> bool:
    try:
        return pattern.search(line, timeout=0.2) is not None
    except (TimeoutError, regex_error()):
        return False


# --------------------------------------------------------------------------- the index of a base


def log_words() -> tuple[int, dict[str, int]]:
    """(lines, {word: lines holding it}) of a body of ordinary log text (bench/logwords.py made it)."""
    import json

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "logwords.json")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return int(data["lines"]), dict(data["df"])
    except (OSError, ValueError, KeyError):
        return 0, {}


def weights(templates: Sequence[Sequence[Template]], spelt: Mapping[str, int] | None = None) -> dict[str, float]:
    """The information of each word of the templates (``templates``: each signature's): -log2 of how often
    it is met, over the signatures and the lines of ordinary log text (there, as most signatures spell it,
    ``spelt``: how many spell each word so: 'training', not the 'train' of train.py). A number is one bit, and
    so is the index of an indexed name ('hidden[0]': the information of 'hidden', and one bit)."""
    lines, in_logs = log_words()
    if spelt is not None:
        usual: dict[str, str] = {}
        for word, n in sorted(spelt.items()):
            if n > spelt.get(usual.get(stem(word), ""), 0):
                usual[stem(word)] = word
        in_logs = {w: n for w, n in in_logs.items() if usual.get(stem(w)) == w}
    df: dict[str, int] = {}
    for tpls in templates:
        for word in {w for t in tpls for w in t[1:] if w}:
            df[word] = df.get(word, 0) + 1
    total = len(templates) + lines + 1
    logs = _in_logs(in_logs, lines)
    return {w: _information(w, n, df, logs, total) for w, n in df.items()}


def _in_logs(in_logs: Mapping[str, int], lines: int) -> dict[str, int]:
    """How many lines of ordinary log text hold each word, stemmed as the templates' (``in_logs``: as spelt, of
    ``lines`` lines), CPython's RUNTIME_MESSAGES' words on one line of RUNTIME_EVERY."""
    logs: dict[str, int] = {}
    for word, n in in_logs.items():
        logs[stem(word)] = logs.get(stem(word), 0) + n
    for word in {w for m in RUNTIME_MESSAGES for w, _a, _b in words(m) if w != "x" and not w.isdigit()}:
        logs[word] = logs.get(word, 0) + lines // RUNTIME_EVERY
    return logs


def _information(word: str, n: int, df: Mapping[str, int], logs: Mapping[str, int], total: int) -> float:
    """A word's bits: a number one, an indexed name ('hidden[0]') its name's and one, its index's."""
    if word.isdigit():
        return 1.0
    name, bracket, _ = word.partition("[")
    if bracket:
        return math.log2(total / (n + df.get(name, 0) + logs.get(name, 0) + 1)) + 1.0
    return math.log2(total / (n + logs.get(word, 0) + 1))


def index(sigs: Sequence[Signature], base: str | None = None) -> dict[str, Any]:
    """Every template of a base with its owner, the words' weights and the words a chain may start at: plain
    data, made once per base and kept in the catalog cache (``derived``). ``base``: the key of the catalog
    cache entry ``sigs`` are all of (Catalog.base_key), which keys the index as well."""
    from . import cache

    if base is not None:  # the texts' key below cost the 10x base ~0.1 s a process
        key = f"base:{base}"
    else:  # keyed on the texts the words are counted from: counting them cost a pasted traceback ~15 ms, the key ~3
        texts = ([list(s.templates) for s in sigs], [spellings(s) for s in sigs])
        key = cache.digest(repr(texts).encode("utf-8", "surrogatepass"))
    # the templates read only where the index is made (a cached start reads none: build.LazySignature)
    return derived("match.templates.index", (key,), lambda _key: _index([list(s.templates) for s in sigs], _spelt(sigs)))  # type: ignore[no-any-return]


def _spelt(sigs: Sequence[Signature]) -> dict[str, int]:
    """How many signatures spell each word so (lower-cased, not stemmed)."""
    spelt: dict[str, int] = {}
    for sig in sigs:
        for word in {w.lower() for text in spellings(sig) for w in WORD.findall(text)}:
            spelt[word] = spelt.get(word, 0) + 1
    return spelt


def spellings(sig: Signature) -> list[str]:
    """The texts that spell a signature's message: its canonical message, regex, templates and wordings (the
    words' weights count them; the tolerant reading spells a reading's words as they do)."""
    return [sig.signature, sig.regex, *(sig.raw.get("templates") or ()), *(w.get("text", "") for w in sig.raw.get("wordings") or ())]


def _index(templates: list[list[Template]], spelt: Mapping[str, int] | None = None) -> dict[str, Any]:
    weight = weights(templates, spelt)
    owner: list[int] = []
    tpls: list[Template] = []
    for sidx, own in enumerate(templates):
        for tpl in own:
            owner.append(sidx)
            tpls.append(tuple(tpl))
    starts: dict[str, list[tuple[int, int]]] = {}
    for tid, tpl in enumerate(tpls):
        for pos in range(1, len(tpl)):
            if tpl[pos] and weight.get(tpl[pos], 0.0) >= START_BITS:
                starts.setdefault(tpl[pos], []).append((tid, pos))
    # JSON data as it is (lists for tuples): the catalog cache restores it without decoding each item
    return JSONData(weight=weight, owner=owner, templates=[list(t) for t in tpls], starts={w: [list(p) for p in v] for w, v in starts.items()})

# --------------------------------------------------------------------------- a base's code names (match/prose.py)


CODE_BITS = 8.0  # what a code name tells at least (its words' information; a word the base lacks: UNKNOWN_BITS)
UNKNOWN_BITS = 12.0
# a name in code's shape: snake_case, camelCase, or CamelCase with a capital inside (CudnnRNN)
CODE_SHAPE = LazyRe(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|[A-Z]{2}[a-z]")
_IDENT_ONLY = LazyRe(r"[A-Za-z0-9_]{4,}")  # a name, whole (of a message: those of CODE_SHAPE are code names)
_QUOTED = LazyRe(r"""['`"]([A-Za-z_][A-Za-z0-9_]{3,})['`"]""")
_DUNDER = LazyRe(r"__\w+__")
# a named group of a regex whose value is one of a closed set of names ('(?P<op>(?:CudnnRNN|BlockLSTM|...)\w*)'): each
# is a code name of its signature as much as one its message spells; not an exception class's ('(?:Jax|Xla)?RuntimeError')
_VALUES = LazyRe(r"\(\?P<\w+>(?:\(\?:)?((?:[A-Za-z_]\w*\|)+[A-Za-z_]\w*)\)")
_EXCEPTION = LazyRe(r"\w*(?:Error|Exception|Warning)")
QUOTED_ONLY = frozenset({"quoted", "value"})  # kinds of code name a line names only where it quotes them


Names = dict[str, list[tuple[int, str]]]  # a code name: the signatures (their index) with its kind there


@lru_cache(maxsize=4)
def code_names(sigs: tuple[Signature, ...], rec: Any) -> Names:
    """The code names of a base's signatures (lower-cased, leading underscores off) with their signatures (and
    its kind, ``spelt_names``); made once per base (``rec``: its recognizer, match/chains.py's: its words'
    information, ``rec.weight``)."""
    owners: dict[str, dict[tuple[int, str], None]] = {}  # (an ordered set)
    for idx, sig in enumerate(sigs):
        for name, kind in spelt_names(sig):
            key = name.lower().lstrip("_")  # (a name that tells something, or one quoted)
            if not _DUNDER.fullmatch(name) and len(key) >= 4 and (kind in QUOTED_ONLY or sum(rec.weight.get(w, UNKNOWN_BITS) for w, _a, _b in words(key)) >= CODE_BITS):
                owners.setdefault(key, {})[idx, kind] = None
    return {key: list(got) for key, got in owners.items()}


def spelt_names(sig: Signature) -> Iterator[tuple[str, str]]:
    """A signature's code names as it spells them, each with its kind: "raised", a function it is raised in;
    "named", a name in code of its messages (snake_case or camelCase); "quoted", a word they quote (a name
    only where the line quotes it too); "value", one of the closed set of names a group of its regex takes (the
    op of 'Op type not registered 'CudnnRNN'', which its messages spell as another op: only where the line
    quotes it too, and with any of its templates). Not 'Compute', nor a status name ('CUDNN_STATUS_...')."""
    raised = [re.split(r"\.|::", raise_site(where)[1])[-1] for where in sig.raised_at]  # ('PythonArgParser::raw_parse')
    yield from ((name, "raised") for name in raised if CODE_SHAPE.search(name) and not name.isupper())
    text = "\n".join(messages(sig))
    yield from ((name, "named") for name in set(_IDENT_ONLY.findall(text)) if CODE_SHAPE.search(name) and not name.isupper())
    yield from ((name, "quoted") for name in _QUOTED.findall(text))
    values = sorted({name for m in _VALUES.finditer(sig.regex) for name in m.group(1).split("|")})
    yield from ((name, "value") for name in values if CODE_SHAPE.search(name) and not name.isupper() and not _EXCEPTION.fullmatch(name))


def messages(sig: Signature) -> list[str]:
    """A signature's messages as it spells them: its canonical one, its templates, its other wordings."""
    raw = sig.raw or {}
    return [sig.signature, *(raw.get("templates") or ()), *(w.get("text", "") for w in raw.get("wordings") or ())]

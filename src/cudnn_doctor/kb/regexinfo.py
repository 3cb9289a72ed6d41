"""What a signature's regex says before it runs, for the matcher (match/), derived when the catalog is built: the literal runs each alternative
holds (one literal per alternative: a signature's prefilter where it names none), whether a match may span
lines.

Parsed once per pattern (``derived``: kept in the catalog cache), never per line. Conservative throughout:
whatever the analysis does not understand counts as 'no literal' / 'may span lines'.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .patterns import LazyRe, compile_pattern, derived

_FLAG_BITS = {"IGNORECASE": re.IGNORECASE, "DOTALL": re.DOTALL, "VERBOSE": re.VERBOSE}


def _parse(pattern: str, flags: Sequence[str]) -> Any:
    """The standard library's parse tree of ``pattern``, or None where it cannot read it."""
    from ..compat import sre_parse

    bits = 0
    for name in flags:
        bits |= _FLAG_BITS.get(name, 0)
    try:
        return sre_parse.parse(pattern, bits)
    except Exception:
        return None


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
    tree = _parse(pattern, flags)
    if tree is None:
        return False
    return not _may_match_newline(list(tree), bool(tree.state.flags & re.DOTALL))


def _may_match_newline(items: list[Any], dotall: bool) -> bool:
    # an op this table does not know (GROUPREF, GROUPREF_EXISTS, anything new): be safe
    return any(_NEWLINE_BY_OP.get(str(op), _unknown)(av, dotall) for op, av in items)


def _unknown(_av: Any, _dotall: bool) -> bool:
    return True


def _subpattern_newline(av: Any, dotall: bool) -> bool:
    return _may_match_newline(list(av[3]), dotall or bool((av[1] or 0) & re.DOTALL))


# per parse-tree op: whether that item may match a newline
_NEWLINE_BY_OP: dict[str, Any] = {
    "LITERAL": lambda av, _d: av == 10,
    "NOT_LITERAL": lambda av, _d: av != 10,
    "ANY": lambda _av, dotall: dotall,
    "IN": lambda av, _d: _class_has_newline(av),
    "MAX_REPEAT": lambda av, dotall: _may_match_newline(list(av[2]), dotall),
    "MIN_REPEAT": lambda av, dotall: _may_match_newline(list(av[2]), dotall),
    "POSSESSIVE_REPEAT": lambda av, dotall: _may_match_newline(list(av[2]), dotall),
    "SUBPATTERN": _subpattern_newline,
    "BRANCH": lambda av, dotall: any(_may_match_newline(list(b), dotall) for b in av[1]),
    "ATOMIC_GROUP": lambda av, dotall: _may_match_newline(list(av), dotall),
    "ASSERT": lambda av, dotall: _may_match_newline(list(av[1]), dotall),
    "ASSERT_NOT": lambda av, dotall: _may_match_newline(list(av[1]), dotall),
    "AT": lambda _av, _d: False,
}


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


def alternative_literals(pattern: str, flags: Sequence[str] = ()) -> tuple[str, ...] | None:
    """One literal per top-level alternative of ``pattern`` (the longest piece of one line of its required
    literal runs, ASCII, stripped, at least 3 characters, lower-cased): every match holds one of them, on one
    line. None when an alternative has none."""
    return derived("alternative_literals", (pattern, tuple(flags)), _alternative_literals)  # type: ignore[no-any-return]


def _alternative_literals(pattern: str, flags: tuple[str, ...]) -> tuple[str, ...] | None:
    runs = _runs_per_alternative(pattern, flags)
    if runs is None:
        return None
    out: list[str] = []
    for alt in runs:
        found = [p.strip() for r in alt for p in r.split("\n") if len(p.strip().encode()) >= 3]  # a literal to look for
        if not found:
            return None
        out.append(max(found, key=lambda r: (len(r), r)).lower())
    return tuple(dict.fromkeys(out))


def required_runs(pattern: str, flags: Sequence[str] = ()) -> tuple[tuple[str, ...], ...] | None:
    """Per top-level alternative of ``pattern``, the literal runs (ASCII, lower-cased) that every match of it
    holds, all of them; None when the parser cannot read it."""
    return derived("required_runs", (pattern, tuple(flags)), _required_runs_lower)  # type: ignore[no-any-return]


def _required_runs_lower(pattern: str, flags: tuple[str, ...]) -> tuple[tuple[str, ...], ...] | None:
    runs = _runs_per_alternative(pattern, flags)
    if runs is None:
        return None
    return tuple(tuple(sorted({r.lower() for r in alt if r})) for alt in runs)


def cannot_match(pattern: str, flags: Sequence[str], text: str) -> bool:
    """True when no match of ``pattern`` can be in ``text``: no alternative has all
    its required runs there. A multi-line regex over a run's window of 8-60 KiB lines costs ~0.4 us a
    character (bench/kinds.py, long lines); this look a few ns. The runs are looked for in the lower-cased
    text: a run a case-sensitive regex holds is there lower-cased whatever the text; where the regex ignores
    case, only in an ASCII text (the `regex` module folds a few other characters to ASCII letters: the Kelvin
    sign, the long s). Equivalence: tests/test_literal_gate.py."""
    alts = required_runs(pattern, flags)
    if alts is None:
        return False
    if ("IGNORECASE" in flags or _INLINE_I.search(pattern)) and not text.isascii():
        return False
    low = text.lower()
    return not any(all(run in low for run in alt) for alt in alts)


_INLINE_I = re.compile(r"\(\?[a-zA-Z-]*i")  # a group that ignores case: (?i), (?si:...)


def identifiers(pattern: str, flags: Sequence[str] = ()) -> tuple[str, ...]:
    """The mixed-case identifiers (a lower-case letter before an upper-case one, 5 characters at least) that
    the required literal runs of a case-sensitive regex hold: 'CudnnRNN', 'OpKernel', 'RuntimeError'."""
    return derived("identifiers", (pattern, tuple(flags)), _identifiers)  # type: ignore[no-any-return]


def _identifiers(pattern: str, flags: tuple[str, ...]) -> tuple[str, ...]:
    parsed = _alternatives(pattern, flags)
    if parsed is None or parsed[1]:
        return ()
    words: dict[str, None] = {}
    for alt in parsed[0]:
        runs, icase = _required_runs(alt, False)
        for run in () if icase else runs:
            words.update(dict.fromkeys(w for w in re.findall(r"[A-Za-z0-9_]{5,}", run) if re.search(r"[a-z][A-Z]", w)))
    return tuple(words)


def _runs_per_alternative(pattern: str, flags: tuple[str, ...]) -> list[list[str]] | None:
    """The required runs of each top-level alternative that are found in lower-cased bytes as they are: ASCII,
    or characters without case (CJK)."""
    parsed = _alternatives(pattern, flags)
    if parsed is None:
        return None
    return [
        [r for r in _required_runs(alt, parsed[1])[0] if all(c.isascii() or c.lower() == c.upper() for c in r)]
        for alt in parsed[0]
    ]


def _alternatives(pattern: str, flags: tuple[str, ...]) -> tuple[list[list[Any]], bool] | None:
    """The top-level alternatives of a regex as the standard parser reads it (``(?:A|B)`` and ``A|B`` alike), and
    whether it ignores case throughout; None when the parser cannot read it."""
    tree = _parse(pattern, flags)
    if tree is None:
        return None
    icase = bool(tree.state.flags & re.IGNORECASE)
    items = list(tree)
    while len(items) == 1 and str(items[0][0]) == "SUBPATTERN" and not items[0][1][1]:
        items = list(items[0][1][3])  # (?:A|B|C): the alternatives are the top level
    # the parser hoists what every alternative starts with (``\bA|\bB`` -> \b, (A|B)), and a group holds a
    # choice (``(?:bi)?(?:lstm|gru)s?``): the first branch, bare or a group's only item, is one alternative per
    # branch, each with the items around it
    for k, (op, av) in enumerate(items):
        if str(op) == "SUBPATTERN" and not av[1] and not av[2] and len(av[3]) == 1:
            op, av = av[3][0]  # a group without flags holding one item (a branch?)
        if str(op) == "BRANCH":
            return [[*items[:k], *b, *items[k + 1 :]] for b in av[1]], icase
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
        got, got_icase = _item_runs(name, av, icase)
        runs |= got
        any_icase = any_icase or got_icase
    flush()
    return runs, any_icase


def _item_runs(name: str, av: Any, icase: bool) -> tuple[set[str], bool]:
    """_required_runs of one item of a sequence other than a literal (a group, a repeat, a branch)."""
    if name == "SUBPATTERN":
        add, remove = av[1] or 0, av[2] or 0
        return _required_runs(list(av[3]), (icase or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and av[0] >= 1:
        return _required_runs(list(av[2]), icase)
    if name == "BRANCH":  # inside a sequence: only the runs every alternative holds
        alts = [_required_runs(list(b), icase) for b in av[1]]
        got = _common([w for w, _ in alts])
        return got, bool(got) and any(i for _, i in alts)
    if name == "ATOMIC_GROUP":
        return _required_runs(list(av), icase)
    return set(), False


MIN_COMMON = 4  # characters of a run shared by every alternative of a branch that count


def _common(alts: list[set[str]]) -> set[str]:
    """The runs every alternative holds: whole (``A|A``), or the longest part of a run of the first that a
    run of each other alternative holds ('is deprecated|was declared deprecated' -> 'deprecated')."""
    if not alts:
        return set()
    got = set.intersection(*alts)
    if got or not all(alts):
        return got
    alts = sorted(alts, key=lambda runs: sum(map(len, runs)))  # the parts of the shortest are tried
    longest = min(max(map(len, runs)) for runs in alts)
    for run in alts[0]:
        for size in range(min(len(run), longest), MIN_COMMON - 1, -1):
            parts = {run[i : i + size] for i in range(len(run) - size + 1)}
            shared = {p for p in parts if all(any(p in r for r in other) for other in alts[1:])}
            if shared:
                got |= shared
                break
    return got


@lru_cache(maxsize=1024)
def loose_regex(source: str, verbose: bool) -> str:
    """A regex as the tolerant reading's last try (match/confirm.py) reads a message people carried:
    * each line break of its message (``\\n`` outside a character class) read as a space or a line break: the
      message given on one line, or broken elsewhere. A break that ends a repeated group ('any lines',
      ``(?:[^\\n]*\\n){0,8}``) or that a lookaround reads stays: those read the lines around the message (and,
      read as spaces, would backtrack without end: a lookahead's ``(?:\\n[^\\n]*){1,16}?`` timed out on a line of
      200 characters);
    * each quote mark of its message (``'``, ``"``, a backtick, or a class of them alone) outside a lookaround
      optional where a word begins or ends and the text goes on, or a space stands beside it: a title or a
      message typed from memory drops them ('LSTM object has no attribute _flat_weights_names'), but a value the input's end cuts
      ("attribute '_flat_weights_na") is no whole message. The words stay as they are: the chain that read them
      weighed them (weigh.py);
    * a space before a colon of its message and the space after it optional ('InternalError : Failed to call
      ThenRnnForward', 'RuntimeError:cuDNN error:CUDNN_STATUS_EXECUTION_FAILED': a title, French typography)."""
    out: list[str] = []
    groups: list[str] = []  # the open groups: "<" a lookbehind, "=" a lookahead, "" another
    i, in_class = 0, False
    while i < len(source):
        token, i, in_class = _loose_token(source, i, verbose, in_class, groups)
        out.append(token)
    return _LINES.sub(r"\1\\n\2", "".join(out))


def _loose_token(source: str, i: int, verbose: bool, in_class: bool, groups: list[str]) -> tuple[str, int, bool]:
    """The token of the regex at ``i`` (an escape, a comment, a class of quote marks, a character) as
    ``loose_regex`` writes it, where it ends, and whether a character class is open after it."""
    ch, bare = source[i], not in_class and not any(groups)
    if ch == "\\":
        pair = source[i : i + 2]
        return ("[ \\n]" if bare and pair == "\\n" else _loose_mark(pair, source, i, i + 2, bare)), i + 2, in_class
    if verbose and ch == "#" and not in_class:  # a comment, to its line's end
        stop = (source.find("\n", i) + 1 or len(source) + 1) - 1
        return source[i:stop], stop, in_class
    if bare and (m := _QUOTE_CLASS.match(source, i)):
        return _loose_mark(m.group(), source, i, m.end(), True), m.end(), in_class
    if not in_class:
        _group(source, i, groups)
    return _loose_char(source, i, verbose, bare), i + 1, (ch == "[") if not in_class else ch != "]"


def _loose_char(source: str, i: int, verbose: bool, bare: bool) -> str:
    """The character at ``i`` as ``loose_regex`` writes it: a colon of the message with an optional space before
    it; a verbose pattern's space (no text of the message) as it is; else as ``_loose_mark`` writes it."""
    ch = source[i]
    if bare and _colon(source, i):
        return "[^\\S\\n]?:"
    return ch if verbose and ch == " " else _loose_mark(ch, source, i, i + 1, bare)


def _loose_mark(token: str, source: str, i: int, after: int, bare: bool) -> str:
    """The token at ``i`` (ending at ``after``) as ``loose_regex`` writes it where no quantifier follows it: a
    space after a colon of the message optional; a quote mark (or a class of them) optional where a word begins
    or ends before more text or a space stands beside it. Any other token, a quantified one (``': *'``: written
    optional again it would be a double repeat, and the whole loose pattern would fail to compile), or one in a
    character class or a lookaround, as it is."""
    if not bare or source[after : after + 1] in ("?", "*", "+", "{"):
        return token
    if token in (" ", "\\ ") and _colon(source, i - 1):
        return "[^\\S\\n]?"
    if token.lstrip("\\") in _QUOTES or _QUOTE_CLASS.fullmatch(token):
        return f"(?:{token}|\\b(?!\\Z)|(?<=\\s)|(?=\\s))"
    return token


def _colon(source: str, i: int) -> bool:
    """Whether ``source[i]`` is a colon of the message (not a group's ``(?:``, ``(?i:``)."""
    return i >= 0 and source[i] == ":" and not source[:i].rstrip(_FLAG_LETTERS).endswith("(?")


def _group(source: str, i: int, groups: list[str]) -> None:
    """A group opened (a lookbehind "<", a lookahead "=", another "") or closed at ``source[i]``."""
    if source[i] == "(":
        groups.append("<" if source.startswith(("(?<=", "(?<!"), i) else "=" if source.startswith(("(?=", "(?!"), i) else "")
    elif source[i] == ")" and groups:
        groups.pop()


_QUOTES = ("'", '"', "`")
_FLAG_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-"
_QUOTE_CLASS = LazyRe(r"""\[(?:\\?['"`])+\]""")  # a character class of quote marks alone: ['"]
_LINES = LazyRe(r"(\((?:\?:)?[^()]*)\[ \\n\](\)[{*+?])")  # a repeated group that ends a line


_SPAN = re.compile(r"(?:\s*…\s*)+")  # what several open stretches in a row make: one
_GAP = "\x01"  # an optional space ('\\s*')
_GAP_KEPT = re.compile("(?<=[\\w\x00…,:])\x01+(?=[\\w\x00…])")
_LONGEST = 400  # characters of an example at most (a note shows 160): nested repeats ('(?:(?:x{3}){3}){3}') grow it
# threefold a level, to gigabytes in a pattern of 113 characters
_MAXREPEAT = 4294967295  # (the parser's: an unbounded repeat)
_CHECK_S = 0.2  # seconds of the check that an example is matched, as the evidence search has them (a user's
# signature may hold a pattern that backtracks without end)
WILD = "\x00"  # an example's stand-in for a character a pattern leaves open ('\w', '.', '[^)]'): '…' shown, 'x' tried
_CATEGORY_SAMPLE = {"CATEGORY_DIGIT": "1", "CATEGORY_SPACE": " ", "CATEGORY_NOT_WORD": " ", "CATEGORY_LINEBREAK": " "}


def examples(pattern: str, flags: Sequence[str] = ()) -> tuple[str, ...]:
    """A short text each top-level alternative of ``pattern`` matches, as a report shows a piece of evidence to
    look for ('cuda:1' for ``cuda:[1-9]\\b``, 'fastai/text/models/awd_lstm.py' for a path pattern): each repeat
    its fewest times, each group's alternative that leaves the fewest characters open, a class's first member, what a pattern leaves open as
    ``WILD`` and a stretch that may span lines as ' … '. Only examples the pattern matches (WILD read as 'x'), by the
    `regex` module within ``_CHECK_S``; () where it cannot say (a construct it does not know, an example the pattern
    refuses: a lookaround, one over ``_LONGEST`` characters), never an exception."""
    tree = _parse(pattern, flags)
    if tree is None:
        return ()
    items = list(tree)
    alts = items[0][1][1] if len(items) == 1 and str(items[0][0]) == "BRANCH" else [items]
    try:
        tried = [(t.strip(), t) for alt in alts if (t := _tidy(_sample(list(alt))))]  # (its ends' spaces where it needs none)
    except (ValueError, RecursionError):  # (RecursionError: groups nested some hundred deep)
        return ()
    if len(tried) < len(alts):
        return ()
    try:  # matched as the evidence is searched: by the `regex` module, whose syntax this parser may read otherwise
        matcher = compile_pattern(pattern, tuple(f for f in flags if f in _FLAG_BITS))  # ('[[:digit:]]+' read '[]')
    except Exception:  # (regex.error, RecursionError, the module's own: '[^\w\W]' raises AttributeError on 3.10)
        return ()
    got = tuple(next((t for t in pair if _matched(matcher, t)), "") for pair in tried)
    return got if all(got) else ()


def _matched(matcher: Any, example: str) -> bool:
    """Whether ``matcher`` finds a match in ``example`` (WILD read as 'x') within ``_CHECK_S``."""
    try:
        return matcher.search(example.replace(WILD, "x"), timeout=_CHECK_S) is not None
    except TimeoutError:
        return False


def _tidy(sample: str) -> str:
    """An example as shown: an optional space kept between two words only ('with 1', 'device=1'), several open
    stretches in a row as one."""
    sample = _GAP_KEPT.sub(" ", sample).replace(_GAP, "")
    return _SPAN.sub(" … ", sample)


def _sample(items: list[Any]) -> str:
    """The shortest text ``items`` (a parse tree's) match, by ``examples``' rules; ValueError where it does not know an op."""
    out = []
    for op, av in items:
        if (sampler := _SAMPLERS.get(str(op))) is None:
            raise ValueError(str(op))
        out.append(sampler(av))
    return "".join(out)


def _repeat_sample(av: Any) -> str:
    """A repeat at its fewest (ValueError over three, over ``_LONGEST`` characters, or up to a count over it); an
    optional space as a gap, an open stretch of more than 20 as ' … '."""
    lo, hi, sub = av
    one = _sample(list(sub))
    one = WILD if hi > 1 and one.isalpha() and len(sub) == 1 and str(sub[0][0]) == "IN" else one  # ('[a-z]+')
    if lo > 3 or len(one) * lo > _LONGEST or _LONGEST < hi < _MAXREPEAT:  # (an example it would not match, one grown
        raise ValueError("no example")  # without bound, a repeat by the thousand: 'a{1000000}' compiles for seconds)
    if one == WILD and not lo and hi > 20:  # an open stretch: attached to its word where it holds no space ('CudnnRNN…')
        return WILD if _wordlike(sub) else " … "
    return one * min(lo, 3) if lo else _GAP if one == " " else ""


def _wordlike(sub: Any) -> bool:
    """Whether a repeated item is a class of word characters or non-spaces only ('\\w', '\\S', '[\\w.-]')."""
    items = list(sub)
    return len(items) == 1 and str(items[0][0]) == "IN" and str(items[0][1][0][0]) != "NEGATE" and all(
        str(o) in ("LITERAL", "RANGE") or str(a) in ("CATEGORY_WORD", "CATEGORY_NOT_SPACE", "CATEGORY_DIGIT") for o, a in items[0][1])


def _branch_sample(av: Any) -> str:
    """The alternative that leaves the fewest characters open, of those that have an example ('6553[6-9]' of
    '6553[6-9]|[1-9]\\d{5,8}'); ValueError where none has."""
    got = []
    for alt in av[1]:
        with contextlib.suppress(ValueError):
            got.append(_sample(list(alt)))
    if not got:
        raise ValueError("no alternative")
    return min(got, key=lambda t: t.count(WILD))


def _class_sample(items: list[Any]) -> str:
    """A member of a character class (``IN``'s items): its first literal, range or category; WILD for a negated
    class but one of spaces only ('[^\\S\\n]')."""
    op, av = items[0]
    kinds = {str(a) for o, a in items if str(o) == "CATEGORY"}
    if any(k in kinds and k.replace("NOT_", "") in kinds for k in kinds if "NOT_" in k):
        return WILD  # ('[\\s\\S]': any character)
    if str(op) == "NEGATE":
        return " " if any(str(o) == "CATEGORY" and str(a) == "CATEGORY_NOT_SPACE" for o, a in items[1:]) else WILD
    if str(op) == "LITERAL":
        return chr(av)
    if str(op) == "RANGE":
        return chr(av[0])
    return _CATEGORY_SAMPLE.get(str(av), WILD)


_SAMPLERS: dict[str, Any] = {
    "LITERAL": chr, "NOT_LITERAL": lambda _av: WILD, "ANY": lambda _av: WILD, "IN": _class_sample,
    "MAX_REPEAT": _repeat_sample, "MIN_REPEAT": _repeat_sample, "POSSESSIVE_REPEAT": _repeat_sample,
    "SUBPATTERN": lambda av: _sample(list(av[-1])), "ATOMIC_GROUP": lambda av: _sample(list(av)), "BRANCH": _branch_sample,
    "AT": lambda _av: "", "ASSERT": lambda _av: "", "ASSERT_NOT": lambda _av: "",
}

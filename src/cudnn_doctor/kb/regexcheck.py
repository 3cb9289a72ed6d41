"""``validate``'s check for patterns that backtrack catastrophically (nested quantifiers such as ``(\\w+\\s?)+$``).

Two steps, so that the many harmless nestings (``(?:[^()]|\\([^()]*\\))*``) are not flagged:

1. static: the pattern (parsed by the standard library's parser, group names dropped because `regex`
   allows a name twice) has an unbounded repeat of a body that can match in several ways (another
   repeat, an alternation: ``(a+)+``, ``(a|aa)+``);
2. dynamic: each example's match is pumped: at sampled positions, the character there is repeated
   PUMP times and the text cut after it, so the match must fail after a long repeated run, the input that
   makes nested quantifiers try every split. A search that does not finish within LIMIT_S is reported.

And one check for patterns that are quadratic in a line's length (``long_line_problem``): one that begins with
an unbounded run (``[^\n]*?Could not ...``, ``(?P<gpu>[^\n]*?) with CUDA``) rescans the rest of the line from
every position where a search may start, which costs minutes on a log's 1 MB line.
"""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any

from ..compat import sre_parse

PUMP = 1000
LONG_LINE = "ab " * 20_000  # 60 KB of one line: a linear search takes milliseconds, a quadratic one seconds
LIMIT_S = 0.25  # CPU seconds
WALL_S = 2.0
POSITIONS = 24
_NAMED = re.compile(r"\(\?P<\w+>")
_FLAGS = {"IGNORECASE": re.IGNORECASE, "DOTALL": re.DOTALL, "VERBOSE": re.VERBOSE}


def nested_quantifier(pattern: str, flags: tuple[str, ...] = ()) -> bool:
    """Whether an unbounded repeat holds another unbounded repeat (True when the pattern cannot be parsed
    here: then the dynamic check decides)."""
    bits = 0
    for name in flags:
        bits |= _FLAGS.get(name, 0)
    try:
        tree = sre_parse.parse(_NAMED.sub("(?:", pattern), bits)
    except Exception:
        return True
    return _nested(list(tree), False)


def _nested(items: list[Any], inside: bool) -> bool:
    """Whether an unbounded repeat holds a variable-width part, or sits inside another one."""
    return any(_nested_item(str(op), av, inside) for op, av in items)


def _nested_item(name: str, av: Any, inside: bool) -> bool:
    if name in ("MAX_REPEAT", "MIN_REPEAT"):
        unbounded = av[1] == sre_parse.MAXREPEAT or av[1] > 100
        return (unbounded and (inside or _variable(list(av[2])))) or _nested(list(av[2]), inside or unbounded)
    if name == "SUBPATTERN":
        return _nested(list(av[3]), inside)
    if name == "BRANCH":
        return any(_nested(list(b), inside) for b in av[1])
    return name in ("ASSERT", "ASSERT_NOT") and _nested(list(av[1]), inside)


def _slow(compiled: Any, text: str) -> bool:
    """Whether one search costs over LIMIT_S of this process's CPU time (wall time would flag a busy machine)."""
    started = time.process_time()
    with contextlib.suppress(TimeoutError):
        compiled.search(text, timeout=WALL_S)
    return time.process_time() - started > LIMIT_S


def _variable(items: list[Any]) -> bool:
    """Whether a repeated body can match in several ways (a repeat or an alternation inside): '(a|aa)+'."""
    for op, av in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT") and av[1] != av[0]:
            return True
        if name == "BRANCH":
            return True
        if name == "SUBPATTERN" and _variable(list(av[3])):
            return True
    return False


def backtracking_problem(compiled: Any, pattern: str, flags: tuple[str, ...], texts: list[str]) -> str | None:
    """A message when a pumped example makes ``compiled`` (a `regex` pattern) search for over LIMIT_S."""
    if not nested_quantifier(pattern, flags):
        return None
    for text in texts:
        m = compiled.search(text)
        if m is None:
            continue
        match = m.group(0)
        step = max(1, len(match) // POSITIONS)
        for k in range(0, len(match), step):
            ch = match[k]
            if _slow(compiled, text[: m.start() + k] + ch * PUMP + "\x00" + text[m.start() + k :]):
                return (f"nested quantifiers backtrack: after {match[:k][-40:]!r} a run of {PUMP} {ch!r} made one "
                        f"search take over {LIMIT_S:g}s; make the inner repeat possessive or atomic, or bound it")
    for ch in "a1 .-_/:":  # no example to pump (a user signature): runs of common characters alone
        if _slow(compiled, ch * PUMP + "\x00") or _slow(compiled, ch * 30 + "\x00"):
            return f"nested quantifiers backtrack: a run of {PUMP} {ch!r} made one search take over {LIMIT_S:g}s"
    return None


def long_line_problem(compiled: Any, literals: tuple[str, ...]) -> str | None:
    """A message when one search over a 60 KB line (alone, or with the signature's first literal at either
    end, so that the part after the run is met) costs over LIMIT_S: the pattern rescans the line from every
    position, quadratic in its length."""
    literal = literals[0] if literals else ""
    for line in (LONG_LINE, literal + LONG_LINE, LONG_LINE + literal):
        if _slow(compiled, line + "\n"):
            return (f"a search over one {len(line) // 1000} KB line took over {LIMIT_S:g}s: the pattern rescans the "
                    "line from every position (it begins with an unbounded run such as [^\\n]*?); anchor that "
                    "run at the line's start (^) or begin the pattern at a literal")
    return None

"""The small condition language of signature ``when`` fields, and template filling.

Conditions compare captured values and literals: ``exp_layers != got_layers and batch_size == 0``,
``dtype == 'double'``, ``has(proj)``, ``not has(index) or index == 0``. Values that look like integers
compare as integers. A comparison that names a capture which did not participate is false. The language
has no calls other than ``has`` and no attribute access, so a hostile signature file cannot run code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

Values = Mapping[str, "str | None"]
Predicate = Callable[[Values], bool]

try:  # what string.Formatter().parse calls, without importing `string` (its Template compiles a regex at import)
    from _string import formatter_parser
except ImportError:  # pragma: no cover - another interpreter
    import string

    def formatter_parser(template: str) -> Iterator[tuple[str, str | None, str | None, str | None]]:
        return string.Formatter().parse(template)

_TOKEN = re.compile(
    r"\s*(?:(?P<num>-?\d+(?:\.\d+)?)|(?P<str>'[^']*'|\"[^\"]*\")|(?P<op>==|!=|<=|>=|<|>|\(|\)|,|//|[-+*/%])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*))"
)
_MISSING = object()


class ConditionError(ValueError):
    """A condition does not parse."""


@dataclass(frozen=True)
class _Tok:
    """A token of a condition expression: its kind (the _TOKEN group that matched) and text."""

    kind: str
    text: str


def _tokenize(source: str) -> list[_Tok]:
    pos, out = 0, []
    source = source.rstrip()
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if not m or m.end() == pos:
            raise ConditionError(f"unexpected text at {source[pos:pos + 12]!r}")
        kind = m.lastgroup or ""
        out.append(_Tok(kind, m.group(kind)))
        pos = m.end()
    return out


def _coerce(value: object) -> object:
    if isinstance(value, str):
        s = value.strip()
        if re.fullmatch(r"-?\d+", s):
            return int(s)
        if re.fullmatch(r"-?\d+\.\d*", s):
            return float(s)
        return s
    return value


_OPS: dict[str, Callable[[object, object], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,  # type: ignore[operator]
    "<=": lambda a, b: a <= b,  # type: ignore[operator]
    ">": lambda a, b: a > b,  # type: ignore[operator]
    ">=": lambda a, b: a >= b,  # type: ignore[operator]
}


class _Parser:
    def __init__(self, tokens: list[_Tok]) -> None:
        self.toks, self.i = tokens, 0

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, text: str | None = None) -> _Tok:
        tok = self.peek()
        if tok is None or (text is not None and tok.text != text):
            raise ConditionError(f"expected {text or 'more'}, got {tok.text if tok else 'end'!r}")
        self.i += 1
        return tok

    def parse(self) -> Predicate:
        pred = self.or_expr()
        if self.peek() is not None:
            raise ConditionError(f"unexpected {self.peek().text!r}")  # type: ignore[union-attr]
        return pred

    def or_expr(self) -> Predicate:
        left = self.and_expr()
        while (t := self.peek()) and t.kind == "name" and t.text == "or":
            self.take()
            right, prev = self.and_expr(), left
            left = lambda v, a=prev, b=right: a(v) or b(v)  # noqa: E731
        return left

    def and_expr(self) -> Predicate:
        left = self.not_expr()
        while (t := self.peek()) and t.kind == "name" and t.text == "and":
            self.take()
            right, prev = self.not_expr(), left
            left = lambda v, a=prev, b=right: a(v) and b(v)  # noqa: E731
        return left

    def not_expr(self) -> Predicate:
        t = self.peek()
        if t and t.kind == "name" and t.text == "not":
            self.take()
            inner = self.not_expr()
            return lambda v: not inner(v)
        return self.atom()

    def atom(self) -> Predicate:
        t = self.peek()
        if t is None:
            raise ConditionError("condition ends too early")
        if t.text == "(":
            self.take("(")
            inner = self.or_expr()
            self.take(")")
            return inner
        if t.kind == "name" and t.text == "has":
            self.take()
            self.take("(")
            name = self.take().text
            self.take(")")
            return lambda v: v.get(name) not in (None, "")
        left = self.operand()
        op = self.peek()
        if op is None or op.text not in _OPS:
            # a bare operand: true when present and not zero/empty
            return lambda v: bool(_coerce(left(v))) if left(v) is not _MISSING else False
        self.take()
        right = self.operand()
        fn = _OPS[op.text]

        def compare(v: Values) -> bool:
            a, b = left(v), right(v)
            if a is _MISSING or b is _MISSING:
                return False
            a, b = _coerce(a), _coerce(b)
            try:
                return fn(a, b)
            except TypeError:
                return fn(str(a), str(b))

        return compare

    def operand(self) -> Callable[[Values], object]:
        """Arithmetic over integers: + - * / // % (missing values propagate)."""
        left = self.term()
        while (t := self.peek()) and t.text in ("+", "-"):
            self.take()
            left = _arith(t.text, left, self.term())
        return left

    def term(self) -> Callable[[Values], object]:
        left = self.primary()
        while (t := self.peek()) and t.text in ("*", "/", "//", "%"):
            self.take()
            left = _arith(t.text, left, self.primary())
        return left

    def primary(self) -> Callable[[Values], object]:
        t = self.take()
        if t.kind == "num":
            value: object = _coerce(t.text)
            return lambda v: value
        if t.kind == "str":
            text = t.text[1:-1]
            return lambda v: text
        if t.kind == "name":
            name = t.text
            return lambda v: _MISSING if v.get(name) in (None, "") else v.get(name)
        raise ConditionError(f"unexpected {t.text!r}")


_ARITH: dict[str, Callable[[Any, Any], object]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}


def _arith(op: str, left: Callable[[Values], object], right: Callable[[Values], object]) -> Callable[[Values], object]:
    fn = _ARITH[op]

    def run(v: Values) -> object:
        a, b = left(v), right(v)
        if a is _MISSING or b is _MISSING:
            return _MISSING
        a, b = _coerce(a), _coerce(b)
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return _MISSING
        try:
            return fn(a, b)
        except (ZeroDivisionError, OverflowError):
            return _MISSING

    return run


def compile_condition(source: str) -> Predicate:
    """Compile a ``when`` condition; raises ConditionError with a short reason."""
    return _Parser(_tokenize(source)).parse()


def template_fields(template: str) -> list[str]:
    """Names of the ``{placeholders}`` in a template (raises ValueError on bad braces)."""
    return [name for _, name, _, _ in formatter_parser(template) if name]


def fill(template: str, values: Values) -> str | None:
    """Fill ``{name}`` placeholders; None when one has no value (so the caller tries another case)."""
    out = []
    for literal, name, _spec, _conv in formatter_parser(template):
        out.append(literal)
        if name:
            value = values.get(name)
            if value in (None, ""):
                return None
            out.append(str(value))
    return " ".join("".join(out).split()) if "\n" in template else "".join(out)

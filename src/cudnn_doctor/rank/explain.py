"""Fill a signature's ``explain`` template and ``checks`` from the values captured in the user's log."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from ..kb.conditions import Predicate, compile_condition, fill, formatter_parser
from ..model import Case, Signature, localized


@lru_cache(maxsize=2048)
def _condition(source: str) -> Predicate:
    return compile_condition(source)


def _holds(case: Case, values: Mapping[str, str | None]) -> bool:
    if not case.when:
        return True
    try:
        return _condition(case.when)(values)
    except Exception:
        return False


def values_for(sig: Signature, captures: Mapping[str, str | None]) -> dict[str, str | None]:
    values: dict[str, str | None] = {k: (v.strip() if isinstance(v, str) else v) for k, v in captures.items()}
    for name, cases in sig.derived:
        for case in cases:
            if _holds(case, values):
                got = fill(case.text, values)
                if got is not None:
                    values[name] = got
                    break
    return values


def fill_known(template: str, sig: Signature, captures: Mapping[str, str | None]) -> str:
    """A template text field that is always shown (``root_cause``): each placeholder gets its captured or
    derived value, or ``<name>`` when this log did not give one (never a literal ``{name}``)."""
    if "{" not in template:
        return template
    values = values_for(sig, captures)
    try:
        parts = formatter_parser(template)
        return "".join(lit + ((str(values.get(name) or f"<{name}>")) if name else "") for lit, name, _, _ in parts)
    except ValueError:
        return template


def explanation(sig: Signature, captures: Mapping[str, str | None], lang: str = "en") -> str:
    """The first explain case whose condition holds and whose placeholders all have values."""
    values = values_for(sig, captures)
    for case in sig.explain:
        if not _holds(case, values):
            continue
        template = localized(case, "text", lang)
        got = fill(template, values)
        if got is None and template is not case.text:
            got = fill(case.text, values)
        if got is not None:
            return got
    return ""


def check_messages(sig: Signature, captures: Mapping[str, str | None], lang: str = "en") -> list[str]:
    values = values_for(sig, captures)
    out = []
    for case in sig.checks:
        if _holds(case, values):
            template = localized(case, "text", lang)
            got = fill(template, values) or fill(case.text, values)
            if got:
                out.append(got)
    return out

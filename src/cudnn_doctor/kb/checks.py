"""The checks a signature needs that the JSON Schema cannot make: its regexes compile, its conditions parse,
its templates name only captures and derived values, and no other text holds a placeholder that would be
printed literally. Run on every load (catalog.py) and by ``validate``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..model import Case, Signature

_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)\}(?!\})")
TEMPLATE_FIELDS = ("explain", "explain_zh", "checks", "derived", "root_cause", "root_cause_zh")
# fields that quote logs or framework source verbatim (braces there are the framework's, not ours)
_QUOTED_FIELDS = ("regex", "examples", "counter_examples", "id", "context", "prefilter", "signature", "wordings", "templates", "framework_marks")


def semantic_problems(sig: Signature, evidence: dict[str, tuple[str, ...]]) -> list[str]:
    """Problems the schema cannot see: regexes that do not compile, bad conditions and templates."""
    from .patterns import compile_pattern

    problems: list[str] = []
    try:
        compiled = compile_pattern(sig.regex, sig.flags)
    except Exception as exc:  # regex.error
        problems.append(f"{sig.path}: $.regex: does not compile: {exc}")
        compiled = None
    problems += _context_problems(sig, evidence)
    names = (set(compiled.groupindex) if compiled is not None else set()) | {name for name, _ in sig.derived}
    blocks: list[tuple[str, tuple[Case, ...]]] = [("explain", sig.explain), ("checks", sig.checks)]
    blocks += [(f"derived.{name}", cases) for name, cases in sig.derived]
    for key, cases in blocks:
        for i, case in enumerate(cases):
            problems += _case_problems(f"{sig.path}: $.{key}[{i}]", case, names, compiled is not None)
    if compiled is not None:
        problems += _unknown_placeholders(sig, names) + _literal_placeholders(sig, names)
    return problems


def _context_problems(sig: Signature, evidence: dict[str, tuple[str, ...]]) -> list[str]:
    """Each ``context`` item is a known ``@set`` or a regex that compiles; so is each framework mark, and only
    a framework's own status signature (one that captures the status) has marks."""
    from .patterns import compile_pattern

    problems = []
    ctx = sig.context
    lists = (("context.require_any", ctx.require_any), ("context.exclude_any", ctx.exclude_any),
             ("context.support_any", ctx.support_any), ("framework_marks", sig.framework_marks))
    for key, items in lists:
        for i, item in enumerate(items):
            where = f"{sig.path}: $.{key}[{i}]"
            if item.startswith("@"):
                if item[1:] not in evidence:
                    problems.append(f"{where}: unknown evidence set {item!r} (known: {', '.join(sorted(evidence)) or 'none'})")
                continue
            try:
                compile_pattern(item, ("IGNORECASE",))
            except Exception as exc:
                problems.append(f"{where}: does not compile: {exc}")
    if sig.framework_marks and (sig.framework == "any" or "?P<status>" not in sig.regex):
        problems.append(f"{sig.path}: $.framework_marks: only a framework's own status signature (its regex captures"
                        " the status) takes a cross-framework status's finding")
    return problems


def _case_problems(where: str, case: Case, names: set[str], regex_compiled: bool) -> list[str]:
    """A case's condition parses; its templates (English and Chinese) name only known values."""
    from .conditions import ConditionError, compile_condition, template_fields

    problems = []
    if case.when:
        try:
            compile_condition(case.when)
        except ConditionError as exc:
            problems.append(f"{where}.when: {exc}")
    for suffix, text in (("", case.text), ("_zh", case.text_zh)):
        try:
            unknown = [f for f in template_fields(text) if f not in names]
        except ValueError as exc:
            problems.append(f"{where}{suffix}: bad template: {exc}")
            continue
        if unknown and regex_compiled:
            problems.append(f"{where}{suffix}: placeholder(s) {', '.join(unknown)} are not named groups of the regex")
    return problems


def _unknown_placeholders(sig: Signature, names: set[str]) -> list[str]:
    """Template fields (root_cause here; explain, checks and derived above) may name only captures and
    derived values."""
    problems = []
    for key in ("root_cause", "root_cause_zh", "explain_zh"):
        text = sig.raw.get(key)
        if isinstance(text, str):
            unknown = sorted({m.group(1) for m in _PLACEHOLDER.finditer(text)} - names)
            if unknown:
                problems.append(f"{sig.path}: $.{key}: placeholder(s) {', '.join(unknown)} are neither named groups of the regex nor derived values")
    return problems


def _literal_placeholders(sig: Signature, names: set[str]) -> list[str]:
    """Any other text field is printed as written, so a capture's name in braces there would reach the user
    as a literal '{lib}'."""
    problems = []
    for key, value in sig.raw.items():
        if key in TEMPLATE_FIELDS or key in _QUOTED_FIELDS:
            continue
        for path, text in _strings(value, f"$.{key}"):
            used = sorted({m.group(1) for m in _PLACEHOLDER.finditer(text)} & names)
            if used:
                problems.append(f"{sig.path}: {path}: {{{'}, {'.join(used)}}} would be printed literally: only "
                                f"{', '.join(TEMPLATE_FIELDS)} are filled from the log")
    return problems


def _strings(node: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string in a record value, with its JSON path, depth first in document order."""
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _strings(v, f"{path}[{i}]")

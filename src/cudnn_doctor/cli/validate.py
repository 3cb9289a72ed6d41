"""``cudnn-doctor validate``: schema, regexes, examples and counter-examples, unique ids, KB quality rules."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SignatureError
from ..kb.checks import semantic_problems
from ..kb.load import (
    NO_FILES,
    Catalog,
    builtin_dir,
    duplicate_problem,
    iter_signatures,
    load_evidence,
    signature_files,
)
from ..kb.patterns import compile_pattern
from ..kb.regexcheck import backtracking_problem, long_line_problem
from ..kb.templates import message_span, words
from ..match import Matcher
from ..match.context import Evidence
from ..match.results import RawMatch
from ..match.tolerant import Tolerant
from ..match.weigh import one_message
from ..model import Signature
from ..scan import diagnose

STRICT_FIELDS = ("title", "framework", "scope", "prefilter", "references", "verification_tier", "root_cause")


def example_problems(sig: Signature, evidence: dict[str, tuple[str, ...]]) -> list[str]:
    """Every example must match and yield its captures in the finding a diagnosis reports (the occurrence
    ``diagnose`` shows, not any match in the example); no counter-example may match."""
    problems: list[str] = []
    catalog = Catalog(signatures=[sig], evidence=evidence)
    matcher = Matcher(catalog)
    for i, ex in enumerate(sig.examples):
        where = f"{sig.path}: $.examples[{i}] ({ex.name})"
        matches, misses = matcher.scan_text(ex.text, "example")
        if matcher.warnings:
            problems.append(f"{where}: {matcher.warnings[-1]}")
            matcher.warnings.clear()
            continue
        if not matches:
            reason = misses[0].reason if misses else "no line holds a prefilter literal" if sig.prefilter else "the pattern did not match"
            problems.append(f"{where}: does not match: {reason}")
            continue
        if ex.captures:
            problems += _capture_problems(sig, ex.text, ex.captures, catalog, where)
    for i, ex in enumerate(sig.counter_examples):
        matches, _ = matcher.scan_text(ex.text, "counter-example")
        if matches:
            problems.append(
                f"{sig.path}: $.counter_examples[{i}] ({ex.name}): matches but must not: {matches[0].text[:120]!r}"
            )
    return problems


def _capture_problems(
    sig: Signature, text: str, captures: Sequence[tuple[str, Any]], catalog: Catalog, where: str
) -> list[str]:
    """The example's captures against those of the finding ``diagnose`` reports for ``sig`` (its first
    occurrence, the cluster winner): another match in the example yielding them does not count."""
    report = diagnose(text, catalog=catalog)
    found = next((f for f in [*report.findings, *report.below_threshold] if f.signature.id == sig.id), None)
    if found is None:
        return [f"{where}: matches, but a diagnosis reports no finding of {sig.id}"]
    got = found.captures
    problems: list[str] = []
    for key, want in captures:
        if key not in got:
            why = "the regex has no group named" if key not in compile_pattern(sig.regex, sig.flags).groupindex else "the reported finding has no capture"
            problems.append(f"{where}: $.captures.{key}: {why} {key!r}")
        elif _norm(got[key]) != _norm(want):
            problems.append(
                f"{where}: $.captures.{key}: expected {want!r}, the reported finding (line {found.first.line}) "
                f"has {got[key]!r}"
            )
    return problems


def wording_problems(sig: Signature) -> list[str]:
    """Every release's wording (``wordings[].text``) must match the signature's regex."""
    wordings = sig.raw.get("wordings") or []
    if not wordings:
        return []
    pattern = compile_pattern(sig.regex, sig.flags)
    return [
        f"{sig.path}: $.wordings[{i}] ({w.get('releases', '?')}): the regex does not match {w.get('text', '')[:120]!r}"
        for i, w in enumerate(wordings)
        if not pattern.search(w.get("text", ""))
    ]


def _norm(value: object) -> object:
    return value.strip() if isinstance(value, str) else value


def quality_problems(sig: Signature, root: Path | None) -> list[str]:
    """Rules for the built-in knowledge base (docs/signature-format.md)."""
    out = _missing_parts(sig) + _prefilter_coverage(sig)
    place = _place_problem(sig, root) if root is not None else ""
    if place:
        out.append(place)
    if sig.scope == "rnn" and sig.context.require_any == () and sig.priority < 40:
        out.append(f"{sig.path}: $.context.require_any: a low-priority rnn-scope signature needs RNN evidence ('@rnn')")
    return out


def _missing_parts(sig: Signature) -> list[str]:
    """The fields, examples, dead ends, workarounds and rate sources every built-in signature has."""
    out = [f"{sig.path}: $.{field}: required for the knowledge base (--strict)" for field in STRICT_FIELDS if not sig.raw.get(field)]
    if len(sig.examples) < 2:
        out.append(f"{sig.path}: $.examples: at least 2 examples needed, found {len(sig.examples)}")
    if len(sig.counter_examples) < 1:
        out.append(f"{sig.path}: $.counter_examples: at least 1 counter-example needed")
    if not sig.dead_ends:
        out.append(f"{sig.path}: $.dead_ends: at least 1 dead end needed")
    if not sig.workarounds:
        out.append(f"{sig.path}: $.workarounds: at least 1 workaround needed")
    for key, items in (("dead_ends", sig.dead_ends), ("workarounds", sig.workarounds)):
        out += [f"{sig.path}: $.{key}[{i}].verification_tier: say where the rate comes from"
                for i, item in enumerate(items) if not item.verification_tier]
    return out


def _prefilter_coverage(sig: Signature) -> list[str]:
    """Every example and every release wording holds one of the prefilter literals."""
    if not sig.prefilter:
        return []
    literals = [lit.lower() for lit in sig.prefilter]
    texts = [(f"examples[{i}]", ex.text) for i, ex in enumerate(sig.examples)]
    texts += [(f"wordings[{i}]", w.get("text", "")) for i, w in enumerate(sig.raw.get("wordings") or [])]
    return [
        f"{sig.path}: $.{where}: contains none of the prefilter literals {list(sig.prefilter)}"
        for where, text in texts
        if not any(lit in text.lower() for lit in literals)
    ]


def _place_problem(sig: Signature, root: Path) -> str:
    """A built-in signature's id is its place: signatures/<domain>/<slug>.yaml ('' when it is)."""
    try:
        rel = Path(sig.path).resolve().relative_to(root.resolve())
    except ValueError:
        return ""
    expected = rel.with_suffix("").as_posix()
    if expected == sig.id:
        return ""
    return f"{sig.path}: $.id: {sig.id!r} must match the file's place {expected!r} (signatures/<domain>/<slug>.yaml)"


def _refines(cause: Signature, generic: Signature, evidence: dict[str, tuple[str, ...]]) -> str:
    """Why ``cause`` is not told apart from ``generic`` by real evidence ("" when it is)."""
    ranges = {*cause.applies, *cause.fixed_in} - {*generic.applies, *generic.fixed_in}
    if ranges:
        return ""
    extra = set(cause.context.require_any) - set(generic.context.require_any)
    if not extra and cause.regex == generic.regex:
        return (
            "its evidence is not real: no context.require_any, applies/fixed_in range or regex of its own "
            f"beyond {generic.id}'s"
        )
    if generic.examples:
        matcher = Matcher(Catalog(signatures=[cause], evidence=evidence))
        if all(matcher.scan_text(ex.text, "example")[0] for ex in generic.examples):
            return (
                f"its evidence tells nothing apart: it matches every example of {generic.id} "
                "(a cause must need something the generic status line alone does not show)"
            )
    return ""


def differential_problems(
    checked: list[Signature], known: dict[str, Signature], evidence: dict[str, tuple[str, ...]]
) -> list[str]:
    """Rules for causes and differentials (issue 10), across signatures: ``checked`` are the signatures
    being validated, ``known`` every signature they may name (the built-in base included)."""
    out: list[str] = []
    for sig in checked:
        out += _cause_problems(sig, known, evidence)
    for sig in checked:
        out += [f"{sig.path}: $.differential[{i}].signature: no signature {e.signature!r}"
                for i, e in enumerate(sig.differential) if e.signature and e.signature not in known]
    return out + _candidate_count_problems(checked, known) + _generic_status_problems(checked, known)


def _cause_problems(sig: Signature, known: dict[str, Signature], evidence: dict[str, tuple[str, ...]]) -> list[str]:
    """A cause cites its threads in references, says its evidence, and refines real generic statuses."""
    from ..rank.differential import is_generic_status

    c = sig.cause
    if c is None:
        return []
    refs = {r.url.rstrip("/") for r in sig.references}
    out = [f"{sig.path}: $.cause.threads[{i}]: {url} must also be in references"
           for i, url in enumerate(c.threads) if url.rstrip("/") not in refs]
    if not c.evidence.strip():
        out.append(f"{sig.path}: $.cause.evidence: say what in a log tells this cause apart")
    for i, gid in enumerate(c.of):
        generic = known.get(gid)
        if generic is None:
            out.append(f"{sig.path}: $.cause.of[{i}]: no signature {gid!r}")
        elif not is_generic_status(generic):
            what = "is itself a cause" if generic.cause is not None else "is not a generic status signature"
            out.append(f"{sig.path}: $.cause.of[{i}]: {gid} {what} (see differential.GENERIC_STATUS)")
        else:
            why = _refines(sig, generic, evidence)
            if why:
                out.append(f"{sig.path}: $.cause: {why}")
    return out


def _candidate_count_problems(checked: list[Signature], known: dict[str, Signature]) -> list[str]:
    """Every generic RNN status has at least MIN_RNN_CAUSES candidate causes."""
    from ..rank.differential import MIN_RNN_CAUSES, candidates, causes_of, is_generic_rnn_status

    out = []
    causes = causes_of(known.values())
    for sig in checked:
        if is_generic_rnn_status(sig):
            n = len(candidates(sig, known, causes))
            if n < MIN_RNN_CAUSES:
                out.append(
                    f"{sig.path}: $.differential: a generic RNN status signature needs at least {MIN_RNN_CAUSES} "
                    f"candidate causes (differential entries + cause signatures naming it), found {n}"
                )
    return out


def _generic_status_problems(checked: list[Signature], known: dict[str, Signature]) -> list[str]:
    """With the built-in base: differential.GENERIC_STATUS names existing signatures, none of them a cause."""
    from ..rank.differential import GENERIC_STATUS

    if not any(s.builtin or Path(s.path).resolve().is_relative_to(builtin_dir().resolve()) for s in checked):
        return []
    out = [f"differential.GENERIC_STATUS: {gid!r} names no signature" for gid in sorted(GENERIC_STATUS - set(known))]
    checked_ids = {s.id for s in checked}
    out += [f"{known[gid].path}: $.cause: {gid} is listed as a generic status and cannot be a cause"
            for gid in sorted(GENERIC_STATUS & checked_ids) if known[gid].cause is not None]
    return out


def validate_paths(
    paths: list[str], strict: bool = False, prefixes: list[str] | None = None, progress: Any = None
) -> tuple[list[str], list[str], int]:
    """Validate files/directories (default: the built-in base). Returns (problems, warnings, count).
    ``prefixes``: filled with each valid signature's shortest unambiguous prefix (``prefix_report``);
    ``progress``: a cli.progress.Progress, told the count and advanced per signature."""
    roots = [Path(p) for p in paths] if paths else [builtin_dir()]
    problems: list[str] = []
    warnings: list[str] = []
    sigs, evidence = _read_roots(roots, problems)
    seen: dict[str, str] = {}
    if progress is not None:
        progress.set_total(len(sigs))
    for sig, base in sigs:
        if progress is not None:
            progress.advance()
        duplicate = duplicate_problem(sig, seen)
        if duplicate:
            problems.append(duplicate)
        found, quality = _signature_problems(sig, base, evidence)
        problems += found
        if strict:
            problems += quality
        elif len(quality) <= 3:
            warnings += quality
        else:
            warnings += [*quality[:2], f"{sig.path}: ... {len(quality) - 2} more quality notes (--strict shows all)"]
    if strict:
        problems += differential_problems([s for s, _ in sigs], _known(sigs, roots), evidence)
    if prefixes is not None and not problems:
        prefixes += prefix_report([sig for sig, _ in sigs], evidence)
    return problems, warnings, len(sigs)


def _read_roots(roots: list[Path], problems: list[str]) -> tuple[list[tuple[Signature, Path | None]], dict[str, tuple[str, ...]]]:
    """Every signature under ``roots`` (through the loader's loop) with the directory its id is relative to,
    and the evidence sets (the built-in ones, then each root's)."""
    evidence: dict[str, tuple[str, ...]] = {}
    with contextlib.suppress(SignatureError):
        evidence.update(load_evidence(builtin_dir(), problems))
    sigs: list[tuple[Signature, Path | None]] = []
    for root in roots:
        try:
            files = signature_files(root)
        except SignatureError as exc:
            problems += exc.problems
            continue
        if not files:
            problems.append(f"{root}: {NO_FILES}")
        if root.is_dir():
            evidence.update(load_evidence(root, problems))
        base = root if root.is_dir() else None
        if base is not None and base.resolve() != builtin_dir().resolve() and (base.parent / "_evidence.yaml").exists():
            base = base.parent  # validating signatures/<domain>: ids are relative to signatures/
        sigs += [(sig, base) for sig in iter_signatures(files, False, problems)]
    return sigs, evidence


def _signature_problems(sig: Signature, base: Path | None, evidence: dict[str, tuple[str, ...]]) -> tuple[list[str], list[str]]:
    """(problems, quality notes) of one signature: the loader's semantic checks, then, when they pass, its
    examples, regex run time and wordings; the quality rules are problems only with --strict."""
    sem = semantic_problems(sig, evidence)
    if sem:
        return sem, []
    problems = example_problems(sig, evidence)
    compiled = compile_pattern(sig.regex, sig.flags)
    slow = backtracking_problem(compiled, sig.regex, sig.flags, [ex.text for ex in sig.examples])
    slow = slow or long_line_problem(compiled, tuple(sig.prefilter or ()))
    if slow:
        problems.append(f"{sig.path}: $.regex: {slow}")
    return problems + wording_problems(sig), quality_problems(sig, base)


def _known(sigs: list[tuple[Signature, Path | None]], roots: list[Path]) -> dict[str, Signature]:
    """The signatures a cause may name: the built-in base (unless it is what is validated) plus ``sigs``."""
    known: dict[str, Signature] = {}
    builtin = builtin_dir().resolve()
    if not any(r.resolve() == builtin for r in roots):
        known.update((sig.id, sig) for sig in iter_signatures(signature_files(builtin), True, []))
    known.update({s.id: s for s, _ in sigs})
    return known


def prefix_report(sigs: list[Signature], evidence: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """For every signature, the shortest prefix of its message (over its examples) from which a cut message is
    read as this signature alone (the tolerant reading, match/tolerant.py); a cut shorter than that is a near miss listing the
    candidates."""
    matcher = Matcher(Catalog(signatures=list(sigs), evidence=dict(evidence or {})))
    best: dict[str, tuple[int, str, int]] = {}
    seen: dict[str, int] = {}
    for p in shortest_prefixes(sigs, matcher.evidence):
        seen[p.sig_id] = seen.get(p.sig_id, 0) + 1
        if p.length is not None and (p.sig_id not in best or p.length < best[p.sig_id][0]):
            best[p.sig_id] = (p.length, p.text, len(p.message))
    out: list[str] = []
    for sig in sigs:
        if sig.id in best:
            n, text, total = best[sig.id]
            out.append(f"{sig.id}: shortest unambiguous prefix {text!r} ({n} of {total} characters)")
        elif seen.get(sig.id):
            out.append(f"{sig.id}: no unambiguous prefix: only the whole message tells it apart")
    return out


@dataclass(frozen=True, slots=True)
class Prefix:
    """The shortest distinctive prefix of one example's message (cut at a word's end), or why there is none."""

    sig_id: str
    example: str
    message: str
    length: int | None  # None: only the whole message tells it apart

    @property
    def text(self) -> str:
        return self.message[: self.length] if self.length is not None else self.message


def shortest_prefix(reader: Tolerant, sig: Signature, text: str, name: str = "") -> Prefix | None:
    """The shortest cut of the example's message (at a word's end) from which on every longer cut, ending
    the input, is read as ``sig`` (with the causes of its message at most). None when the regex does not
    match the example."""
    from ..read.normalize import clean_text

    clean = clean_text(text)
    span = message_span(compile_pattern(sig.regex, sig.flags), clean, sig.prefilter or (sig.signature,))
    if span is None:
        return None
    start, end = span
    message = clean[start:end]
    length: int | None = None
    for _w, _a, b in reversed(words(message)[:-1]):
        lines = clean[: start + b].split("\n")
        got = [f for f in reader.read(lines, len(lines) - 1) if isinstance(f, RawMatch)]
        if not any(f.sig.id == sig.id for f in got) or not one_message(f.sig for f in got):
            break
        length = b
    return Prefix(sig.id, name, message, length)


def shortest_prefixes(sigs: Sequence[Signature], evidence: Evidence) -> list[Prefix]:
    """The shortest distinctive prefix of every example's message."""
    reader = Tolerant(sigs, evidence)
    out: list[Prefix] = []
    for sig in sigs:
        for i, ex in enumerate(sig.examples):
            p = shortest_prefix(reader, sig, ex.text, ex.name or f"example {i + 1}")
            if p is not None:
                out.append(p)
    return out

"""Turn raw matches into findings: most specific signature per error, repeats counted, cascades folded.

* Matches of different signatures on the same error (overlapping lines, a few lines apart) form a cluster;
  the winner is the highest priority (then RNN scope over general, then confidence); the others are listed
  as ``related``. Warnings never cluster with errors.
* All winning occurrences of one signature in one source become one finding with a count, first and last line.
* A finding whose signature is reached from an earlier finding through ``transition_graph.leads_to`` (or
  names it in ``preceded_by``) is folded under that one as a consequence: the first is the root cause. A
  cluster holding such a cause line and, on later lines, its symptom is split first (``_split_linked``): on
  adjacent lines they are still two errors, and the cause must not end up as the symptom's ``related``.
  The reverse holds for a specific cause (``cause:``) that read the earlier line as its required evidence:
  that line is its upstream link, listed in its ``related`` (``_absorbed``).
* Findings are ordered errors first, then by scope (RNN-specific first), priority, confidence, position; an
  error only restated before the log (a title, a heading, a sentence: ``restatement``) goes after a confident,
  more specific finding the log shows later that explains it (``restated``).
* Confidence comes from the evidence: the full pattern matched, required/supporting context found, versions
  agree. Versions outside a signature's ``applies`` or past its ``fixed_in`` demote it, with the reason.
* What a report shows is decided here too, so the renderers only lay it out: the order of dead ends and
  workarounds, which workarounds are hidden for the detected versions (``plan_workarounds``), and how much of
  each list every view shows (``View``: the causes of a differential, near misses, references...).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..kb.patterns import LazyRe
from ..model import EFFORT_ORDER, DeadEnd, Finding, Occurrence, Signature, Workaround, specificity
from ..read.frames import prose_line
from .teardown import exception_before

if TYPE_CHECKING:  # annotations only: the report and the renderers import rank without the matcher
    from typing import TypeVar

    from ..match import RawMatch
    from ..records import CandidateRecord, DeadEndRecord, FindingRecord, WorkaroundRecord

    T = TypeVar("T")

CLUSTER_GAP = 4
CONFIDENCE_THRESHOLD = 0.5
CUT_PENALTY = 0.15
DESCRIBED_PENALTY = 0.05  # more for a message read from a user's description of it (match/prose.py): the least sure


def confidence_of(match: RawMatch) -> float:
    sig = match.sig
    got = _BASES.get(id(sig))
    if got is None or got[0] is not sig:
        got = _base(sig)
    score = got[1]
    if match.supported:
        score += 0.1
    if match.captures and None not in match.captures.values():  # every group took part (values: str or None)
        score += 0.04
    if match.cut is not None:  # a message cut off: read up to its distinctive part, not whole
        score -= CUT_PENALTY + (DESCRIBED_PENALTY if match.cut.get("described") else 0.0)
    return round(min(score, 0.99), 2)


# what a signature's confidence starts from (its context and priority), by id(signature) with the signature
# itself (an id is only reused once the object is gone): a base of variants of one message has thousands of
# matches per block to rank, each scored
_BASES: dict[int, tuple[Signature, float]] = {}


def _base(sig: Signature) -> tuple[Signature, float]:
    score = 0.7
    if sig.context.require_any:
        score += 0.15
    elif sig.priority >= 50:  # the two are exclusive: the same sum in either order
        score += 0.1
    if len(_BASES) >= 1 << 16:
        _BASES.clear()
    got = _BASES[id(sig)] = (sig, score)
    return got


def _key(m: RawMatch) -> tuple[tuple[int, int], float, int]:
    """A cluster's winner: the most specific signature (model.specificity), then confidence, then the first.
    A cut message competes with what its evidence says before the penalty for being cut: the reading of the
    cut line (cut.py) already chose it over the matches of the same line."""
    return (specificity(m.sig), confidence_of(m) + (CUT_PENALTY if m.cut else 0.0), -m.line)


def _position(m: RawMatch) -> tuple[int, int]:
    return (m.line, m.end_line)


def cluster(matches: list[RawMatch]) -> list[tuple[RawMatch, list[str]]]:
    """Group matches of one block that concern the same error; return (winner, related ids)."""
    out: list[tuple[RawMatch, list[str]]] = []
    # errors and warnings apart, and each process's stream ([rank0]:, [rank1]:) apart: two ranks failing
    # on interleaved lines are two errors
    apart: dict[tuple[str, str], list[RawMatch]] = {}
    for m in matches:
        key = (m.sig.severity, m.stream)
        same = apart.get(key)
        if same is None:
            apart[key] = [m]
        else:
            same.append(m)
    for key in sorted(apart, key=lambda k: (k[0] != "error", k[1])):
        group = sorted(apart[key], key=_position)
        current: list[RawMatch] = []
        texts: set[tuple[str, str, str]] = set()
        end = -1
        for m in group:
            # the same message again after the previous one ended (a warning printed at every step, one
            # line after the other) is an occurrence of its own
            again = m.line > end and (m.sig.id, m.stream, m.text) in texts
            if current and (m.line > end + CLUSTER_GAP or again or _new_traceback_between(end, m)
                            or _after_exception_of(current, m)):
                out += [_winner(part) for part in _split_linked(current)]
                current = []
                texts = set()
            current.append(m)
            texts.add((m.sig.id, m.stream, m.text))
            end = max(end, m.end_line) if len(current) > 1 else m.end_line
        if current:
            out += [_winner(part) for part in _split_linked(current)]
    return out


def _new_traceback_between(end: int, m: RawMatch) -> bool:
    """Whether a fresh Python traceback starts after line ``end`` and before ``m``: then they are two errors."""
    if m.line <= end or not m.before:
        return False
    first = m.end_line - len(m.before) + 1
    for offset, text in enumerate(m.before):
        lineno = first + offset
        if end < lineno < m.line and text.lstrip().startswith("Traceback (most recent call last)"):
            return True
    return False


def _after_exception_of(current: list[RawMatch], m: RawMatch) -> bool:
    """Whether ``m`` is a C++ abort printed after the exception line that ends the traceback of a match in
    ``current`` (rank/teardown.py): the shutdown after that error, not the same error."""
    if m.sig.severity != "error" or m.line <= current[0].line:
        return False
    got = exception_before(m.before, m.line, m.end_line)
    return got is not None and current[0].line <= got[1] < m.line


def causes(a: Signature, b: Signature) -> bool:
    """Whether ``a`` is a known cause of ``b``: a transition-graph edge (a leads_to b, b preceded_by a) or the
    cause knowledge of issue 10 (b is a generic status whose differential names a, or a's cause.of names b)."""
    if any(e.id == b.id for e in a.leads_to) or any(e.id == a.id for e in b.preceded_by):
        return True
    if a.cause is not None and b.id in a.cause.of:
        return True
    if a.cause is None and a.differential:  # a status with candidates of its own (a framework's wrapper of b's
        return False  # status): the same error in other words, not a cause before it
    return any(e.signature == a.id for e in b.differential)


def _split_linked(group: list[RawMatch]) -> list[list[RawMatch]]:
    """A cluster holding a cause line and, on later lines, the symptom it leads to (a version mismatch, an
    earlier CUDA error, then the status it makes an RNN call return) is two errors, even on adjacent lines:
    split it before the symptom so the cause is a finding of its own (cascade folding then puts it first)."""
    if len(group) < 2 or max(m.line for m in group) <= min(m.end_line for m in group):
        return [group]  # no match starts after another ends (the signatures of one line): no pair to look at
    for a in group:
        for b in group:
            if b.line > a.end_line and b.sig.id != a.sig.id and causes(a.sig, b.sig):
                head = [m for m in group if m.line <= a.end_line]
                tail = [m for m in group if m.line > a.end_line]
                return _split_linked(head) + _split_linked(tail)
    return [group]


def _winner(group: list[RawMatch]) -> tuple[RawMatch, list[str]]:
    if len(group) == 1:  # (a warning repeated 10,000 times, each a cluster of its own: nothing to score)
        return group[0], []
    best = max(group, key=_key)
    related = sorted({m.sig.id for m in group if m.sig.id != best.sig.id})
    return best, related


class Aggregator:
    """Accumulates cluster winners into one finding per (source, signature); memory is per signature."""

    def __init__(self) -> None:
        self.findings: dict[tuple[str, str], Finding] = {}

    def add(self, winner: RawMatch, related: Iterable[str]) -> None:
        occ = Occurrence(
            source=winner.source,
            line=winner.line,
            end_line=winner.end_line,
            text=winner.text,
            captures=tuple(winner.captures.items()),
            stream=winner.stream,
        )
        key = (winner.source, winner.sig.id)
        new = Finding(signature=winner.sig, first=occ, last=occ, count=1, confidence=confidence_of(winner),
                      evidence=list(winner.evidence), related=list(dict.fromkeys(related)), cut=winner.cut)
        found = self.findings.get(key)
        if found is None:
            self.findings[key] = new
        else:
            merge_into(found, new)


def merge_into(found: Finding, other: Finding, across_sources: bool = False) -> None:
    """Fold ``other`` into ``found``: later occurrences of the same signature in the same source, or
    (``across_sources``) in a later file of the same directory: one finding counted over N files, the
    first file's first occurrence and the last file's last (memory stays flat)."""
    found.count += other.count
    if across_sources:
        found.files += other.files
        found.last = other.last
    else:
        if other.first.line < found.first.line:
            found.first = other.first
        if other.last.line >= found.last.line:
            found.last = other.last
    found.confidence = max(found.confidence, other.confidence)
    if other.cut is None and found.cut is not None:  # the message is also there whole
        found.cut = None
        found.first = other.first if other.first.line <= found.last.line else found.first
    for e in other.evidence:
        if e not in found.evidence and len(found.evidence) < 5:
            found.evidence.append(e)
    for rid in other.related:
        if rid not in found.related and len(found.related) < 20:
            found.related.append(rid)


def apply_versions(finding: Finding, versions: dict[str, str]) -> None:
    """Demote a finding whose signature does not apply to the detected versions, saying why."""
    sig = finding.signature
    for component, spec in sig.applies:
        have = versions.get(component)
        if have is None:
            continue
        ok = version_in(have, spec)
        if ok is False:
            finding.demoted.append(f"applies to {component} {spec}; the log shows {component} {have}")
            finding.confidence = round(max(0.0, finding.confidence - 0.35), 2)
    for component, fixed in sig.fixed_in:
        have = versions.get(component)
        if have is None:
            continue
        if version_in(have, f">={fixed}") is True:
            finding.demoted.append(f"fixed in {component} {fixed}; the log shows {component} {have}")
            finding.confidence = round(max(0.0, finding.confidence - 0.35), 2)


_RELEASE_CLAUSE = LazyRe(r"\s*(>=|<=|==|!=|<|>)\s*(\d+(?:\.\d+)*)\s*")
_RELEASE = LazyRe(r"\d+(?:\.\d+)*")
_COMPARE = {">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt}


def _release_in(version: str, spec: str) -> bool | None:
    """``version_in`` for a plain release (``2.15.1``) against comma-joined clauses of plain releases
    (``>=2.0,<2.16``), the only kind the knowledge base writes: PEP 440 compares those as zero-padded integer
    tuples. None for anything else (pre-, post-, dev- and local versions, ``~=``, wildcards): packaging
    decides those. Importing packaging.specifiers costs ~35 ms of a run that found a version line."""
    if not _RELEASE.fullmatch(version):
        return None
    clauses = [_RELEASE_CLAUSE.fullmatch(clause) for clause in spec.split(",")]
    if not all(clauses):  # every clause read first: one of another kind leaves the whole spec to packaging
        return None
    have = tuple(int(x) for x in version.split("."))
    for m in clauses:
        assert m is not None
        want = tuple(int(x) for x in m.group(2).split("."))
        width = max(len(have), len(want))
        if not _COMPARE[m.group(1)](have + (0,) * (width - len(have)), want + (0,) * (width - len(want))):
            return False
    return True


def version_in(version: str, spec: str) -> bool | None:
    """Whether ``version`` satisfies the PEP 440 ``spec``; None when either does not parse."""
    quick = _release_in(version.split("+")[0].strip(), spec)
    if quick is not None:
        return quick
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        v = Version(version.split("+")[0])
        return SpecifierSet(spec).contains(v, prereleases=True)
    except (InvalidVersion, InvalidSpecifier):
        return None


def workaround_hidden_reason(applies: Iterable[tuple[str, str]], versions: dict[str, str]) -> str | None:
    for component, spec in applies:
        have = versions.get(component)
        if have is not None and version_in(have, spec) is False:
            return f"needs {component} {spec}; the log shows {component} {have}"
    return None


def fold_cascades(
    findings: list[Finding], lookup: Callable[[str], Signature | None] | None = None,
    frames: Mapping[tuple[str, str], Sequence[str]] | None = None,
) -> list[Finding]:
    """Fold consequences under their root cause (same source, the cause seen first).

    An edge counts from any signature that matched the cause's error (the winner or one of its ``related``,
    looked up with ``lookup``) to any that matched the effect's: a general winner such as
    cudnn/handle-creation-failed still carries the leads_to of the framework-specific signature it beat.
    A C++ abort printed after a Python exception (``frames``: the lines before each finding, rank/teardown.py)
    is folded under the finding of that exception, whatever their signatures.
    """
    top: list[Finding] = []
    by_source: dict[str, list[Finding]] = {}
    for f in findings:
        by_source.setdefault(f.first.source, []).append(f)
    folded: set[int] = set()
    for group in by_source.values():
        group.sort(key=lambda f: f.first.line)
        folded |= _absorbed(group, lookup)
        if frames:
            _fold_teardown(group, frames, folded)
        for i, cause in enumerate(group):
            if id(cause) in folded:
                continue
            cause_ids = {cause.signature.id, *cause.related}
            leads = _leads_of(cause, lookup)
            for effect in group[i + 1 :]:
                if id(effect) not in folded and effect is not cause and _folds(cause, cause_ids, leads, effect):
                    cause.consequences.append(effect)
                    folded.add(id(effect))
    for f in findings:
        if id(f) not in folded:
            top.append(f)
    return top


def _fold_teardown(group: list[Finding], frames: Mapping[tuple[str, str], Sequence[str]], folded: set[int]) -> None:
    """Fold each abort printed after a Python exception under the finding of that exception's traceback."""
    for f in group:
        got = teardown_of(f, frames) if id(f) not in folded else None
        cause = _exception_finding(f, group, got, folded) if got is not None else None
        if cause is not None:
            cause.consequences.append(f)
            folded.add(id(f))


def teardown_of(f: Finding, frames: Mapping[tuple[str, str], Sequence[str]]) -> tuple[int, int] | None:
    """(traceback head, exception line) when error finding ``f`` is a C++ abort printed after a Python exception
    (rank/teardown.py; ``frames``: the lines before each finding's first match)."""
    before = lines_up_to(f, frames)
    if not before or f.signature.severity != "error":
        return None
    return exception_before(before, f.first.line, f.first.end_line)


def lines_up_to(f: Finding, frames: Mapping[tuple[str, str], Sequence[str]]) -> Sequence[str]:
    """The lines kept before finding ``f``'s first match, up to its last line (empty: none kept, or those of
    another occurrence)."""
    # a finding that took another's place (rank/wrappers.py, a stand-in) has the lines of the one it replaced
    before = next((b for b in (frames.get((f.first.source, i)) for i in (f.id, *f.related)) if b), ())
    last = f.first.text.splitlines()[-1:]
    if before and last and last[0] not in before[-1]:
        return ()  # the lines kept are another occurrence's
    return before


def _exception_finding(f: Finding, group: Sequence[Finding], got: tuple[int, int], folded: set[int]) -> Finding | None:
    """The error finding of the traceback ``got`` (head, exception line) that abort ``f`` follows: the last one
    found between the traceback's head and its exception line."""
    head, exc = got
    found = [c for c in group if c is not f and id(c) not in folded and c.signature.severity == "error"
             and (head <= c.first.line <= exc or head <= c.last.line <= exc)]
    return max(found, key=lambda c: min(c.last.line, exc)) if found else None


def demote_teardown(findings: list[Finding], frames: Mapping[tuple[str, str], Sequence[str]], threshold: float) -> None:
    """An abort printed after a Python exception that no signature knows goes below ``threshold``, saying why:
    the exception is the error the user hit, and the abort only the process shutting down after it."""
    for f in findings:
        got = teardown_of(f, frames)
        if got is None:
            continue
        same = [c for c in findings if c.first.source == f.first.source]
        if _exception_finding(f, same, got, set()) is None:
            f.demoted.append(f"printed after the Python exception on line {got[1]}, while the process shut down: that "
                             "exception is the error, and no signature knows it")
            f.confidence = min(f.confidence, round(threshold - 0.01, 2))


def _absorbed(group: list[Finding], lookup: Callable[[str], Signature | None] | None) -> set[int]:
    """Earlier findings a specific cause took as its evidence: a single error line, within the lines the cause
    reads before its symptom, that its required context matches and whose signature leads to a symptom the
    cause explains (a version mismatch before the RNN op's 'Fail to find the dnn implementation', under the
    cause of a too-old runtime library) is that cause's upstream link, listed in its ``related`` rather than a
    second error. A rival cause, or a line the cause did not read as its evidence, stays a finding."""
    gone: set[int] = set()
    if lookup is None:
        return gone
    for f in group:
        if f.signature.cause is None or id(f) in gone:
            continue
        symptoms = [s for s in map(lookup, f.signature.cause.of) if s is not None]
        reach = f.first.line - f.signature.context.lines_before
        for e in group:
            upstream = e.count == 1 and reach <= e.first.line < f.first.line and e.signature.cause is None
            if upstream and id(e) not in gone and _read_as_evidence(f, e.first.text) and any(
                causes(e.signature, s) for s in symptoms
            ):
                f.related = sorted({*f.related, e.signature.id, *e.related} - {f.signature.id})
                gone.add(id(e))
    return gone


def _read_as_evidence(f: Finding, text: str) -> bool:
    """Whether the text its context check found for one of the signature's own ``require_any`` patterns (not a
    shared ``@set``: the matcher keeps it first in ``evidence``) and ``text`` (another match's) are one stretch of
    a line: either holds the other."""
    required = f.signature.context.require_any
    if not required or any(item.startswith("@") for item in required) or not f.evidence:
        return False
    return f.evidence[0] in text or text in f.evidence[0]


def _leads_of(cause: Finding, lookup: Callable[[str], Signature | None] | None) -> set[str]:
    """What the cause's error leads to: its winner's edges and those of the signatures it beat."""
    leads = {e.id for e in cause.signature.leads_to}
    if lookup is not None:
        for rid in cause.related:
            rsig = lookup(rid)
            if rsig is not None:
                leads |= {e.id for e in rsig.leads_to}
    return leads


def _folds(cause: Finding, cause_ids: set[str], leads: set[str], effect: Finding) -> bool:
    """Whether ``effect`` is folded under ``cause`` as its consequence."""
    if cause.signature.severity == "warning" and effect.signature.severity == "error":
        return False  # a warning is never shown as the root cause of an error
    back = {e.id for e in effect.signature.preceded_by}
    # a specific cause already explains the chain it took as evidence: only its own edges fold it
    via_related = effect.signature.cause is None and bool(leads & set(effect.related))
    return effect.signature.id in leads or via_related or bool(back & cause_ids)


def order(
    findings: list[Finding], threshold: float = CONFIDENCE_THRESHOLD,
    frames: Mapping[tuple[str, str], Sequence[str]] | None = None,
) -> list[Finding]:
    """Errors first, confident before unsure (at ``threshold``), a restatement after its cause (``restated``;
    ``frames``: the lines before each finding), RNN scope before general ones, then the ranking key
    (model.specificity), confidence, place."""
    later = restated(findings, threshold, frames or {})

    def key(f: Finding) -> tuple[object, ...]:
        priority, scope = specificity(f.signature)
        return (f.signature.severity != "error", f.confidence < threshold, id(f) in later, -scope, -priority, -scope,
                -f.confidence, f.first.source, f.first.line)

    return sorted(findings, key=key)


def restated(
    findings: Sequence[Finding], threshold: float, frames: Mapping[tuple[str, str], Sequence[str]],
) -> set[int]:
    """The error findings whose first match restates an error before the log (``restatement``: an issue's
    title or heading, a sentence of prose) that a confident error finding of the same source, shown later in
    that log, explains and outranks by the ranking key (model.specificity): it won a cluster over their signature
    (their id in its ``related``: its evidence is the same status) or is a known cause of it (``causes``).
    Cascade folding puts a consequence printed after its cause under it; restated before it, it stays a finding
    of its own, and goes after its cause. An error the log prints (a traceback's exception line) keeps its place
    before a later error, whatever explains what: the first error printed is the one the run hit."""
    out: set[int] = set()
    errors = [f for f in findings if f.signature.severity == "error"]
    causes_ = [g for g in errors if g.confidence >= threshold]
    for f in errors:
        rank = specificity(f.signature)
        if any(g is not f and g.first.source == f.first.source and g.first.line > f.first.line
               and specificity(g.signature) > rank and (f.id in g.related or causes(g.signature, f.signature))
               for g in causes_) and restatement(f, frames):  # (its lines read only then)
            out.add(id(f))
    return out


# where a log begins: a traceback's head, a frame's header
_LOG_BEGUN = LazyRe(r"^\s*(?:Traceback \(most recent call last\)|File [\"'])")
_HEADING = LazyRe(r"^\s*#{1,6}[ \t]+\S")


def restatement(f: Finding, frames: Mapping[tuple[str, str], Sequence[str]]) -> bool:
    """Whether finding ``f``'s first match is an error restated before the log (``frames``: the lines before each
    finding): no traceback before it, and its line a Markdown heading, the text's first line (an issue's title) or
    a sentence of prose (read/frames.py's ``prose_line``) -- not a traceback's exception line."""
    lines = lines_up_to(f, frames)
    own = f.first.end_line - f.first.line + 1
    if not lines or own > len(lines):
        return False
    before, line = lines[: len(lines) - own], lines[len(lines) - own]
    if any(_LOG_BEGUN.search(t) for t in before):
        return False
    title = len(before) == f.first.line - 1 and not any(t.strip() for t in before)
    return title or bool(_HEADING.search(line)) or prose_line(line)


def sort_workarounds(sig: Signature) -> list[Workaround]:
    """Most successful first, then least effort."""
    return sorted(
        sig.workarounds,
        key=lambda w: (-(w.success_rate if w.success_rate is not None else -1), EFFORT_ORDER.get(w.effort, 1)),
    )


def sort_dead_ends(sig: Signature) -> list[DeadEnd]:
    """The attempts that fail most often first."""
    return sorted(sig.dead_ends, key=lambda d: -(d.fail_rate if d.fail_rate is not None else -1))


def plan_workarounds(
    sig: Signature, versions: dict[str, str]
) -> tuple[list[Workaround], list[tuple[Workaround, str]]]:
    """(the workarounds to show, ranked; those hidden because the detected versions are outside their
    ``applies``, each with the reason)."""
    shown: list[Workaround] = []
    hidden: list[tuple[Workaround, str]] = []
    for w in sort_workarounds(sig):
        reason = workaround_hidden_reason(w.applies, versions)
        if reason:
            hidden.append((w, reason))
        else:
            shown.append(w)
    return shown, hidden


# ------------------------------------------------------------------ how much each view of a report shows

MAX_NEAR_MISSES = 10  # in the record (JSON) when no signature matched
MAX_DIFFERENTIAL = 8  # causes listed by the full views; JSON lists all


@dataclass(frozen=True)
class View:
    """How much of a report one view shows (None: all of it). A view that is cut says how much it left out."""

    causes: int | None = MAX_DIFFERENTIAL  # possible causes, and ruled-out ones, of a differential
    near_misses: int | None = None
    confused_with: int | None = None
    references: int | None = None
    findings: int | None = None  # findings shown in full; the rest are named
    also_found: int | None = None  # the other findings named by id


TERMINAL = View(near_misses=5, confused_with=3, references=3)
DOCUMENT = View(causes=None)  # Markdown: everything (its size limit is a layout matter)
TEST_REPORT = View()  # JUnit
ANNOTATION = View(causes=5)  # one CI annotation (GitHub, SARIF)
ONE_LINE = View(causes=3)  # one line per finding (GitLab Code Quality)
SUMMARY = View(causes=2, also_found=5)  # the record's one-paragraph summary
BRIEF = View(findings=3)  # under a traceback (pytest, IPython, the excepthook)


def head(items: Sequence[T], limit: int | None) -> tuple[list[T], int]:
    """(the first ``limit`` items, how many are left out)."""
    if limit is None or len(items) <= limit:
        return list(items), 0
    return list(items[:limit]), len(items) - limit


def split_differential(f: FindingRecord) -> tuple[list[CandidateRecord], list[CandidateRecord]]:
    """(possible, ruled out) causes of a finding, each most-confirmed first."""
    cands = f.get("differential") or []
    return [c for c in cands if not c.get("ruled_out")], [c for c in cands if c.get("ruled_out")]


def warn_first(f: FindingRecord) -> DeadEndRecord | None:
    """The dead end a short report warns about: the most often failing one that names an attempt."""
    return next((d for d in f["dead_ends"] if d.get("action")), None)


def try_first(f: FindingRecord) -> WorkaroundRecord | None:
    """The workaround a short report shows: the best ranked of those that apply."""
    return f["workarounds"][0] if f["workarounds"] else None

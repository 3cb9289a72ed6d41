"""Typed model: signatures as loaded, and the findings of a diagnosis. No I/O here.

Signature parts are frozen dataclasses, built from the validated records (kb/build.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

SCOPES = ("rnn", "cudnn", "cuda")
SCOPE_RANK = {"rnn": 2, "cudnn": 1, "cuda": 0}


def specificity(sig: Signature) -> tuple[int, int]:
    """THE ranking key of signatures: how specifically one explains an error, by its priority, then its scope
    (RNN-specific over cuDNN over CUDA). Every choice between signatures goes through it: a cluster's winner
    (rank/findings.py, then confidence), the stand-in for a ruled-out cause (rank/differential.py), the order
    of a report's findings (after errors first, confident first and RNN scope first: the README's promise), and
    the reading of a cut line (match/cut.py)."""
    return (sig.priority, SCOPE_RANK.get(sig.scope, 0))
SEVERITIES = ("error", "warning")
EFFORT_ORDER = {"low": 0, "medium": 1, "high": 2, None: 1}

TIER_TEXT = {
    "gpu_reproduced": "reproduced on a GPU",
    "framework_reproduced": "reproduced with the framework",
    "framework_source": "from the framework's source",
    "framework_docs": "from official documentation",
    "community_thread": "from community threads",
    "estimated": "estimate",
    "ai_generated": "estimate (AI-generated record)",
}


def raise_site(where: str) -> tuple[str, str, str | None]:
    """(file, function, exception) of a ``raised_at`` entry: 'FILE FUNCTION' or 'FILE FUNCTION EXCEPTION', the
    exception it is raised as there where the entry names it ('torch/nn/modules/rnn.py check_input ValueError';
    None: not named), "" for a function a native log line's file alone names."""
    path, _, rest = where.partition(" ")
    function, _, exception = rest.partition(" ")
    return path, function, exception or None


def localized(obj: object, name: str, lang: str = "en") -> str:
    """The one localisation rule: field ``<name>_<lang>`` when it holds text, else the English ``<name>``.

    ``obj`` is a record as written (a mapping: ``Signature.raw``) or a model object (``DeadEnd``,
    ``Workaround``, ``Case``, ``Cause``, ``DifferentialEntry``: their ``action_zh``, ``text_zh``... fields).
    Each field falls back on its own, so a half-translated signature shows what it has."""
    get = obj.get if isinstance(obj, Mapping) else lambda key: getattr(obj, key, None)
    if lang != "en":
        value = get(f"{name}_{lang}")
        if isinstance(value, str) and value.strip():
            return value
    value = get(name)
    return value if isinstance(value, str) else ""


@dataclass(frozen=True, eq=False)
class Reference:
    """A link the knowledge cites (an issue thread, a doc page) and its title."""

    url: str
    title: str = ""


@dataclass(frozen=True, eq=False)
class DeadEnd:
    """A fix known NOT to work, why it fails, how often (with its verification_tier) and its sources."""

    action: str
    why_fails: str
    fail_rate: float | None = None
    verification_tier: str | None = None
    condition: str = ""
    action_zh: str = ""
    why_fails_zh: str = ""
    sources: tuple[Reference, ...] = ()


@dataclass(frozen=True, eq=False)
class Workaround:
    """A fix that works: how, its success rate (with its verification_tier), effort, where it applies."""

    action: str
    how: str = ""
    success_rate: float | None = None
    verification_tier: str | None = None
    effort: str | None = None
    condition: str = ""
    applies: tuple[tuple[str, str], ...] = ()
    action_zh: str = ""
    how_zh: str = ""
    sources: tuple[Reference, ...] = ()


@dataclass(frozen=True, eq=False)
class Case:
    """One ``explain`` case, ``derived`` value case or ``checks`` entry: a condition and a template."""

    text: str
    when: str | None = None
    text_zh: str = ""


@dataclass(frozen=True, eq=False)
class Example:
    """A realistic log the signature must match (or, as a counter-example, must not) and its captures."""

    text: str
    name: str = ""
    captures: tuple[tuple[str, str | None], ...] = ()
    why: str = ""


@dataclass(frozen=True, eq=False)
class GraphEdge:
    """A link to another signature (leads_to, preceded_by, confused_with) and how to tell them apart."""

    id: str
    how_to_tell: str = ""


@dataclass(frozen=True, eq=False)
class Cause:
    """``cause``: this signature names WHY a generic status (the ids in ``of``) happened."""

    of: tuple[str, ...]
    threads: tuple[str, ...]
    evidence: str
    check: str
    family: str = ""
    check_zh: str = ""


@dataclass(frozen=True, eq=False)
class DifferentialEntry:
    """One ``differential`` entry of a generic status signature: a candidate cause without (or with) a
    signature of its own, the check that tells it apart and what in a log rules it out."""

    cause: str
    check: str
    signature: str = ""
    rnn: bool | None = None
    threads: tuple[str, ...] = ()
    applies: tuple[tuple[str, str], ...] = ()
    ruled_out_by: tuple[str, ...] = ()
    cause_zh: str = ""
    check_zh: str = ""


@dataclass(frozen=True, eq=False)
class Context:
    """Lines around a match that must (require_any), must not (exclude_any) or may (support_any) appear."""

    require_any: tuple[str, ...] = ()
    exclude_any: tuple[str, ...] = ()
    support_any: tuple[str, ...] = ()
    lines_before: int = 40
    lines_after: int = 10


@dataclass(frozen=True, eq=False)
class Signature:
    """A loaded, validated signature. ``raw`` keeps the record as written (for ``show``)."""

    id: str
    title: str
    framework: str
    scope: str
    severity: str
    priority: int
    labels: tuple[str, ...]
    signature: str
    regex: str
    flags: tuple[str, ...]
    prefilter: tuple[str, ...]
    window_before: int
    window_after: int
    context: Context
    explain: tuple[Case, ...]
    derived: tuple[tuple[str, tuple[Case, ...]], ...]
    checks: tuple[Case, ...]
    root_cause: str
    dead_ends: tuple[DeadEnd, ...]
    workarounds: tuple[Workaround, ...]
    applies: tuple[tuple[str, str], ...]
    fixed_in: tuple[tuple[str, str], ...]
    leads_to: tuple[GraphEdge, ...]
    preceded_by: tuple[GraphEdge, ...]
    confused_with: tuple[GraphEdge, ...]
    references: tuple[Reference, ...]
    verification_tier: str | None
    examples: tuple[Example, ...]
    counter_examples: tuple[Example, ...]
    path: str
    builtin: bool
    raw: Mapping[str, Any] = field(compare=False, repr=False)
    cause: Cause | None = None
    differential: tuple[DifferentialEntry, ...] = ()
    # the message's templates (kb/templates.py): words, "" where a value goes; derived by kb/build.py from
    # ``templates:`` (format strings), the regex and the signature's messages
    templates: tuple[tuple[str, ...], ...] = ()
    raised_at: tuple[str, ...] = ()  # 'FILE FUNCTION [EXCEPTION]' where the framework raises it (raise_site)
    framework_marks: tuple[str, ...] = ()  # a wrapper's framework seen on a cross-framework status's lines (rank/wrappers.py)
    # the words of counter-example lines that say what the templates say (kb/templates.py): what a tolerant
    # reading must say more than to be this signature
    lookalikes: tuple[tuple[str, ...], ...] = ()

    def text(self, key: str, lang: str = "en") -> str:
        """A text field in ``lang`` ('zh' falls back to English per field; see ``localized``)."""
        return localized(self.raw, key, lang)


@dataclass(frozen=True, eq=False)
class Occurrence:
    """Where a match is in the input."""

    source: str
    line: int
    end_line: int
    text: str
    captures: tuple[tuple[str, str | None], ...]
    stream: str = ""


@dataclass
class Candidate:
    """One cause in a finding's differential, as assessed against this log.

    ``ruled_out`` says why the log excludes it ("" = still possible); ``note`` says what the log could not
    tell (e.g. its evidence would be in a traceback this log does not hold)."""

    cause: str
    check: str
    id: str = ""  # the signature that diagnoses it, if any
    family: str = ""
    rnn: bool | None = None
    threads: tuple[str, ...] = ()
    ruled_out: str = ""
    note: str = ""
    # what the assessment tests (not shown): version ranges, lines that rule it out, the evidence it needs
    applies: tuple[tuple[str, str], ...] = ()
    fixed_in: tuple[tuple[str, str], ...] = ()
    ruled_out_by: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()  # the cuDNN calls a cause's regex names (its failing call is one of them)
    framework: str = ""  # the framework of the signature that diagnoses it ("" or "any": every framework)


@dataclass
class Finding:
    """One diagnosed error (all occurrences of the same signature in one source)."""

    signature: Signature
    first: Occurrence
    last: Occurrence
    count: int = 1
    confidence: float = 0.0
    evidence: list[str] = field(default_factory=list)
    explanation: str = ""
    checks: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    consequences: list[Finding] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    user_frame: dict[str, Any] | None = None
    files: int = 1  # inputs it was found in (the files of a directory aggregate into one finding)
    cut: dict[str, Any] | None = None  # the message was cut off (cut.cut_record); None: read whole
    differential: list[Candidate] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.signature.id

    @property
    def captures(self) -> dict[str, str | None]:
        return dict(self.first.captures)


@dataclass
class NearMiss:
    """A signature whose literal appeared but which did not match, and why."""

    id: str
    title: str
    source: str
    line: int
    reason: str


# ------------------------------------------------------------------ the environment-probe contract
# (environment.py makes the probes; match/ gives them their lines)


@dataclass(frozen=True, slots=True)
class Probe:
    """Extra literals to watch for (e.g. version lines); ``handle`` gets (normalized line, line number).

    ``handle`` may return RETIRE: nothing it could give is still wanted (e.g. every version it can read is
    already known from better evidence); the matcher then stops calling it. ``shape_free``: whether ``handle``
    gives the same answer (does it want this kind of line?) for every line of the same *shape* (digits
    replaced by 0), e.g. a regex with ``\\d`` but no literal digit. Then a False from ``handle`` (its regex did
    not match) makes the matcher skip it on every later line of that shape, so a log with a cuDNN version line
    per step costs one regex search per kind of line, not one per line."""

    literals: tuple[str, ...]
    handle: Callable[[str, int], bool | int | None]
    shape_free: bool = False


RETIRE = -1  # what a Probe's handle returns when it wants no more lines at all

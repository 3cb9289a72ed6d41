"""Typed model: signatures as loaded, and the findings of a diagnosis. No I/O here.

Signature parts are frozen dataclasses without __slots__ on purpose: the cached catalog is a pickle, and
unpickling slotted dataclasses goes through a slow __setstate__ (it doubled the start-up cost of the cache).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .fieldmethods import FieldEq, FieldRepr, FieldValue

TYPE_CHECKING = False  # typing is not imported at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

SCOPES = ("rnn", "cudnn", "cuda")
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


class _RecordBlob(bytes):
    """A record's pickle, which the catalog cache keeps outside its signed core and checks when it is read
    (cache.py: any bytes whose type says ``cache_blob``)."""

    cache_blob = True


class LazyRecord(Mapping[str, "Any"]):  # a string: typing is not imported at run time
    """A signature's record as written (``Signature.raw``), kept as pickled bytes in the catalog cache and
    unpickled on its first read: the records are most of the cache (1.3 of 1.5 MB for the built-in base), and a
    diagnosis reads those of a few signatures. Use ``dict(raw)`` where a real dict is needed (JSON, YAML)."""

    __slots__ = ("_blob", "_data")

    def __init__(self, data: Mapping[str, Any] | None = None, blob: Any = None) -> None:  # bytes or a cache.BlobRef
        self._data = dict(data) if data is not None else None
        self._blob = blob

    def _get(self) -> dict[str, Any]:
        if self._data is None:
            import pickle

            blob = self._blob
            if blob is not None and not isinstance(blob, bytes):  # a cache.BlobRef: checked as it is read
                blob = blob.bytes()
            self._data = pickle.loads(blob or pickle.dumps({}))  # written by __reduce__ below, our own cache
            self._blob = None
        return self._data

    def __reduce__(self) -> tuple[Any, ...]:
        import pickle

        blob = self._blob if self._data is None else pickle.dumps(self._data, protocol=pickle.HIGHEST_PROTOCOL)
        return (LazyRecord, (None, _RecordBlob(blob) if type(blob) is bytes else blob))

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Any:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __repr__(self) -> str:
        return f"LazyRecord({self._get()!r})"


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


@dataclass(frozen=True, repr=False, eq=False)
class Reference(FieldRepr):
    """A link the knowledge cites (an issue thread, a doc page) and its title."""

    url: str
    title: str = ""


@dataclass(frozen=True, repr=False, eq=False)
class DeadEnd(FieldRepr):
    """A fix known NOT to work, why it fails, how often (with its verification_tier) and its sources."""

    action: str
    why_fails: str
    fail_rate: float | None = None
    verification_tier: str | None = None
    condition: str = ""
    action_zh: str = ""
    why_fails_zh: str = ""
    sources: tuple[Reference, ...] = ()


@dataclass(frozen=True, repr=False, eq=False)
class Workaround(FieldRepr):
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


@dataclass(frozen=True, repr=False, eq=False)
class Case(FieldRepr):
    """One ``explain`` case, ``derived`` value case or ``checks`` entry: a condition and a template."""

    text: str
    when: str | None = None
    text_zh: str = ""


@dataclass(frozen=True, repr=False, eq=False)
class Example(FieldRepr):
    """A realistic log the signature must match (or, as a counter-example, must not) and its captures."""

    text: str
    name: str = ""
    captures: tuple[tuple[str, str | None], ...] = ()
    why: str = ""


@dataclass(frozen=True, repr=False, eq=False)
class GraphEdge(FieldRepr):
    """A link to another signature (leads_to, preceded_by, confused_with) and how to tell them apart."""

    id: str
    how_to_tell: str = ""


@dataclass(frozen=True, repr=False, eq=False)
class Cause(FieldRepr):
    """``cause``: this signature names WHY a generic status (the ids in ``of``) happened."""

    of: tuple[str, ...]
    threads: tuple[str, ...]
    evidence: str
    check: str
    family: str = ""
    check_zh: str = ""


@dataclass(frozen=True, repr=False, eq=False)
class DifferentialEntry(FieldRepr):
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


@dataclass(frozen=True, repr=False, eq=False)
class Context(FieldRepr):
    """Lines around a match that must (require_any), must not (exclude_any) or may (support_any) appear."""

    require_any: tuple[str, ...] = ()
    exclude_any: tuple[str, ...] = ()
    support_any: tuple[str, ...] = ()
    lines_before: int = 40
    lines_after: int = 10


@dataclass(frozen=True, repr=False, eq=False)
class Signature(FieldRepr):
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
    # the message's templates (match/templates.py): words, "" where a value goes; derived by kb/build.py from
    # ``templates:`` (format strings), the regex and the signature's messages
    templates: tuple[tuple[str, ...], ...] = ()
    raised_at: tuple[str, ...] = ()  # 'FILE FUNCTION' where the framework raises it
    # the words of counter-example lines that say what the templates say (match/templates.py): what a tolerant
    # reading must say more than to be this signature
    lookalikes: tuple[tuple[str, ...], ...] = ()

    def text(self, key: str, lang: str = "en") -> str:
        """A text field in ``lang`` ('zh' falls back to English per field; see ``localized``)."""
        return localized(self.raw, key, lang)

    # Pickled (the catalog cache, a worker's findings) with the fields only a report reads in one blob,
    # unpickled on the first read of one of them: a diagnosis reports the few signatures that matched, and
    # unpickling every signature's dead ends, workarounds and references was most of loading the cache.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if "_report" not in state:  # a LazyRecord pickles as one blob, unpickled on its first read
            state["_report"] = LazyRecord({name: state.pop(name) for name in _REPORT_FIELDS if name in state})
        return state

    def __getattr__(self, name: str) -> Any:  # only for a name not (yet) in the instance
        report = self.__dict__.get("_report") if name in _REPORT_FIELDS else None
        if report is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.__dict__.update(report)
        del self.__dict__["_report"]
        return self.__dict__[name]


# what only a report reads (everything the matcher, the cut reader and ranking read for every signature stays
# out: ``cause`` and ``differential`` too, which the differential reads for all): see Signature.__getstate__.
# Never a field with a default: the class attribute would answer before __getattr__ is asked.
_REPORT_FIELDS = frozenset({
    "explain", "derived", "checks", "root_cause", "dead_ends", "workarounds", "leads_to", "preceded_by",
    "confused_with", "references", "verification_tier",
})


@dataclass(frozen=True, repr=False, eq=False)
class Occurrence(FieldRepr):
    """Where a match is in the input."""

    source: str
    line: int
    end_line: int
    text: str
    captures: tuple[tuple[str, str | None], ...]
    stream: str = ""


@dataclass(repr=False, eq=False)
class Candidate(FieldEq):
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


@dataclass(repr=False, eq=False)
class Finding(FieldEq):
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


@dataclass(repr=False, eq=False)
class NearMiss(FieldEq):
    """A signature whose literal appeared but which did not match, and why."""

    id: str
    title: str
    source: str
    line: int
    reason: str


# ------------------------------------------------------------------ the environment-probe contract
# (environment.py makes the probes; match/ gives them their lines)


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Probe(FieldValue):
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

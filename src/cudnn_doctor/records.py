"""The report's typed records: what every renderer receives, mirroring src/cudnn_doctor/data/output.schema.json.

They are ``TypedDict``s, not dataclasses, on purpose: the report *is* the JSON document that ``--format json``
prints, ``Diagnosis.to_dict()`` returns and the MCP server, the hooks and CI consumers read. A TypedDict
types that document (a type checker sees every key and its type) without a second shape to convert from and
keep in step: nothing can drift between what a renderer reads and what the JSON says, and the key order is
the JSON's. They are built in exactly one place, ``report.build_report``; renderers only read them.

This module imports nothing from the package: the model, rank and every renderer may import it.
"""

from __future__ import annotations

from typing import TypedDict


class ReferenceRecord(TypedDict):
    title: str
    url: str


class DeadEndRecord(TypedDict):
    action: str
    why_fails: str
    fail_rate: float | None
    verification_tier: str | None
    rate_basis: str  # 'fails 90% (from community threads)': the rate with where it comes from
    condition: str


class WorkaroundRecord(TypedDict):
    rank: int  # 1 = try first (rank.py orders them)
    action: str
    how: str
    success_rate: float | None
    verification_tier: str | None
    rate_basis: str
    effort: str | None
    condition: str
    applies: dict[str, str]


class HiddenWorkaroundRecord(TypedDict):
    """A workaround not shown because the detected versions are outside its ``applies``."""

    action: str
    reason: str


class CandidateRecord(TypedDict):
    """One cause in a generic status's differential (most-confirmed first)."""

    id: str | None
    cause: str
    family: str | None
    rnn: bool | None
    check: str
    threads: list[str]
    thread_count: int
    ruled_out: bool
    ruled_out_reason: str
    note: str


class ConsequenceRecord(TypedDict):
    id: str
    title: str
    scope: str
    line: int
    count: int
    match: str


class EdgeRecord(TypedDict):
    id: str
    how_to_tell: str


class FrameRecord(TypedDict):
    """The user's own frame in the traceback (tracebacks.Frame.to_record)."""

    file: str
    line: int
    function: str
    code: str
    node: str | None


class _CutFields(TypedDict):
    read: str
    unread: list[str]
    expected_next: str | None
    could_also_be: list[str]
    ask_full_line: bool


class CutRecord(_CutFields, total=False):
    """The matched message was cut off (cut.cut_record), read from a description of it (``described``) or as
    retyped from memory (``retyped``; each key only there). Its optional key by ``total=False``: typing.NotRequired is Python 3.11's."""

    described: bool  # read from a user's description of the error, not its message (match/prose.py)
    retyped: bool  # read as a message typed from memory, in other words than printed (match/tolerant.py _confirmed, match/confirm.py Confirmer.retyped)


class VersionRecord(TypedDict):
    version: str
    source: str


Environment = dict[str, VersionRecord]


class SignatureRecord(TypedDict):
    """The parts of a signature a report shows (the first keys of a finding)."""

    id: str
    title: str
    framework: str
    scope: str
    severity: str
    priority: int
    labels: list[str]
    signature: str
    root_cause: str
    verification_tier: str | None
    references: list[ReferenceRecord]


class FindingRecord(SignatureRecord):
    source: str
    line: int
    end_line: int
    last_line: int
    count: int
    files: int
    last_source: str
    stream: str | None
    match: str
    captures: dict[str, str | None]
    explanation: str
    checks: list[str]
    confidence: float
    evidence: list[str]
    demoted: list[str]
    dead_ends: list[DeadEndRecord]  # ordered by rank.sort_dead_ends
    workarounds: list[WorkaroundRecord]  # those that apply, ranked by rank.plan_workarounds
    hidden_workarounds: list[HiddenWorkaroundRecord]
    related: list[str]
    differential: list[CandidateRecord]
    consequences: list[ConsequenceRecord]
    confused_with: list[EdgeRecord]
    user_frame: FrameRecord | None
    cut: CutRecord | None
    environment: Environment
    summary: str  # one paragraph (render/summary.py), last key


class BelowThresholdRecord(TypedDict):
    id: str
    title: str
    source: str
    line: int
    confidence: float
    demoted: list[str]


class NearMissRecord(TypedDict):
    id: str
    title: str
    source: str
    line: int
    reason: str


class ErrorLineRecord(TypedDict):
    source: str
    line: int
    text: str


class ToolRecord(TypedDict):
    name: str
    version: str


class Report(TypedDict):
    """The whole report: ``--format json`` prints it as is (documented in docs/output-format.md)."""

    schema_version: int
    tool: ToolRecord
    summary: str
    sources: list[str]
    lines_read: int
    bytes_read: int
    confidence_threshold: float
    findings: list[FindingRecord]
    abstained: bool
    below_threshold: list[BelowThresholdRecord]
    near_misses: list[NearMissRecord]  # only when abstaining, at most rank.MAX_NEAR_MISSES
    error_lines: list[ErrorLineRecord]  # only when abstaining
    environment: Environment
    warnings: list[str]
    input_errors: list[str]

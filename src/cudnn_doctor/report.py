"""The one place a report is built: a ``Diagnosis`` (rank's output) becomes the typed ``Report`` every renderer
receives and ``--format json`` prints as is (records.py; docs/output-format.md; output.schema.json).

Everything a report shows is chosen before it gets here (rank.py: order, hidden workarounds, how much of a
list is kept); this module only puts it into records, in the reader's language (``model.localized``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .model import DeadEnd, Finding, NearMiss, Signature, Workaround, localized
from .rank.differential import candidate_record
from .rank.explain import fill_known
from .rank.findings import MAX_NEAR_MISSES, plan_workarounds, sort_dead_ends
from .render.phrases import rate_text
from .render.summary import finding_summary, record_summary
from .version import __version__

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from typing import Any

    from .records import (
        BelowThresholdRecord,
        ConsequenceRecord,
        DeadEndRecord,
        Environment,
        FindingRecord,
        NearMissRecord,
        Report,
        SignatureRecord,
        WorkaroundRecord,
    )

SCHEMA_VERSION = 1


@dataclass
class Diagnosis:
    """What ``diagnose`` returns (pipeline.py builds it, rank.py ordered it): the findings and what was read.
    It lives here, beside the report built from it, so the data model never imports upward."""

    findings: list[Finding] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    lines_read: int = 0
    bytes_read: int = 0
    error_lines: list[tuple[str, int, str]] = field(default_factory=list)
    near_misses: list[NearMiss] = field(default_factory=list)
    below_threshold: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    input_errors: list[str] = field(default_factory=list)
    threshold: float = 0.5  # the confidence a finding needed (--threshold)

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        """The report as plain data: exactly what ``--format json`` prints (documented in
        docs/output-format.md, described by ``cudnn-doctor schema output``); ``lang`` 'en' or 'zh'."""
        return dict(build_report(self, lang))

    def to_json(self, lang: str = "en", indent: int | None = 2) -> str:
        """``to_dict()`` as JSON text (UTF-8 characters kept)."""
        import json

        return json.dumps(self.to_dict(lang), indent=indent, ensure_ascii=False)


def _dead_end(d: DeadEnd, lang: str) -> DeadEndRecord:
    return {
        "action": localized(d, "action", lang),
        "why_fails": localized(d, "why_fails", lang),
        "fail_rate": d.fail_rate,
        "verification_tier": d.verification_tier,
        "rate_basis": rate_text(d.fail_rate, d.verification_tier),
        "condition": d.condition,
    }


def _workaround(w: Workaround, rank: int, lang: str) -> WorkaroundRecord:
    return {
        "rank": rank,
        "action": localized(w, "action", lang),
        "how": localized(w, "how", lang),
        "success_rate": w.success_rate,
        "verification_tier": w.verification_tier,
        "rate_basis": rate_text(w.success_rate, w.verification_tier),
        "effort": w.effort,
        "condition": w.condition,
        "applies": dict(w.applies),
    }


def signature_record(sig: Signature, lang: str = "en") -> SignatureRecord:
    """The parts of a signature a report shows."""
    return {
        "id": sig.id,
        "title": sig.text("title", lang) or sig.title,
        "framework": sig.framework,
        "scope": sig.scope,
        "severity": sig.severity,
        "priority": sig.priority,
        "labels": list(sig.labels),
        "signature": sig.text("signature", lang) or sig.signature,
        "root_cause": sig.text("root_cause", lang) or sig.root_cause,
        "verification_tier": sig.verification_tier,
        "references": [{"title": r.title, "url": r.url} for r in sig.references],
    }


def _consequence(c: Finding) -> ConsequenceRecord:
    return {"id": c.id, "title": c.signature.title, "scope": c.signature.scope, "line": c.first.line,
            "count": c.count, "match": c.first.text}


def finding_record(f: Finding, versions: dict[str, str], environment: Environment, lang: str = "en") -> FindingRecord:
    """One finding, its signature's knowledge in ``lang`` and the workarounds rank keeps for ``versions``."""
    sig = f.signature
    base = signature_record(sig, lang)
    shown, hidden = plan_workarounds(sig, versions)
    record: FindingRecord = {
        **base,
        "root_cause": fill_known(base["root_cause"], sig, f.captures),  # a template, like explain
        "source": f.first.source,
        "line": f.first.line,
        "end_line": f.first.end_line,
        "last_line": f.last.line,
        "count": f.count,
        "files": f.files,
        "last_source": f.last.source,
        "stream": f.first.stream or None,
        "match": f.first.text,
        "captures": dict(f.first.captures),
        "explanation": f.explanation,
        "checks": list(f.checks),
        "confidence": f.confidence,
        "evidence": list(f.evidence),
        "demoted": list(f.demoted),
        "dead_ends": [_dead_end(d, lang) for d in sort_dead_ends(sig)],
        "workarounds": [_workaround(w, rank, lang) for rank, w in enumerate(shown, 1)],
        "hidden_workarounds": [{"action": w.action, "reason": reason} for w, reason in hidden],
        "related": list(f.related),
        "differential": [candidate_record(c) for c in f.differential],  # type: ignore[misc]
        "consequences": [_consequence(c) for c in f.consequences],
        "confused_with": [{"id": e.id, "how_to_tell": e.how_to_tell} for e in sig.confused_with],
        "user_frame": f.user_frame,  # type: ignore[typeddict-item]
        "cut": dict(f.cut) if f.cut else None,  # type: ignore[typeddict-item]
        "environment": environment,
        "summary": "",
    }
    record["summary"] = finding_summary(record)
    return record


def _below(f: Finding) -> BelowThresholdRecord:
    return {"id": f.id, "title": f.signature.title, "source": f.first.source, "line": f.first.line,
            "confidence": f.confidence, "demoted": list(f.demoted)}


def build_report(diagnosis: Diagnosis, lang: str = "en") -> Report:
    """The report of ``diagnosis`` in ``lang`` ('en', 'zh'): what every renderer and ``to_dict`` get."""
    env: Environment = diagnosis.environment
    versions = {k: v["version"] for k, v in env.items()}
    findings = [finding_record(f, versions, env, lang) for f in diagnosis.findings]
    abstained = not findings
    near: list[NearMissRecord] = [
        {"id": n.id, "title": n.title, "source": n.source, "line": n.line, "reason": n.reason}
        for n in diagnosis.near_misses[:MAX_NEAR_MISSES]
    ]
    report: Report = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "cudnn-doctor", "version": __version__},
        "summary": "",
        "sources": list(diagnosis.sources),
        "lines_read": diagnosis.lines_read,
        "bytes_read": diagnosis.bytes_read,
        "confidence_threshold": diagnosis.threshold,
        "findings": findings,
        "abstained": abstained,
        "below_threshold": [_below(f) for f in diagnosis.below_threshold],
        "near_misses": near if abstained else [],  # what came close only matters when nothing matched
        "error_lines": [{"source": s, "line": n, "text": t} for s, n, t in diagnosis.error_lines] if abstained else [],
        "environment": env,
        "warnings": list(diagnosis.warnings),
        "input_errors": list(diagnosis.input_errors),
    }
    report["summary"] = record_summary(report)
    return report


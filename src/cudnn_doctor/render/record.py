"""The one intermediate representation every renderer consumes; ``--format json`` prints it as is.

Documented in docs/output-format.md and described by src/cudnn_doctor/data/output.schema.json.
"""

from __future__ import annotations

from typing import Any

from .._version import __version__
from ..differential import candidate_record
from ..model import TIER_TEXT, DeadEnd, Diagnosis, Finding, Signature, Workaround
from ..rank import sort_dead_ends, sort_workarounds, workaround_hidden_reason
from .summary import finding_summary, record_summary

SCHEMA_VERSION = 1


def rate_text(rate: float | None, tier: str | None) -> str:
    """'95% (from official documentation)'; an estimate is labelled as such."""
    if rate is None:
        return "rate unknown"
    pct = f"{round(rate * 100)}%"
    basis = TIER_TEXT.get(tier or "", "source not stated")
    if tier in ("estimated", "ai_generated"):
        return f"~{pct} ({basis})"
    return f"{pct} ({basis})"


def _dead_end(d: DeadEnd, lang: str) -> dict[str, Any]:
    return {
        "action": (d.action_zh if lang == "zh" and d.action_zh else d.action),
        "why_fails": (d.why_fails_zh if lang == "zh" and d.why_fails_zh else d.why_fails),
        "fail_rate": d.fail_rate,
        "verification_tier": d.verification_tier,
        "rate_basis": rate_text(d.fail_rate, d.verification_tier),
        "condition": d.condition,
    }


def _workaround(w: Workaround, rank: int, lang: str) -> dict[str, Any]:
    return {
        "rank": rank,
        "action": (w.action_zh if lang == "zh" and w.action_zh else w.action),
        "how": (w.how_zh if lang == "zh" and w.how_zh else w.how),
        "success_rate": w.success_rate,
        "verification_tier": w.verification_tier,
        "rate_basis": rate_text(w.success_rate, w.verification_tier),
        "effort": w.effort,
        "condition": w.condition,
        "applies": dict(w.applies),
    }


def cut_note(cut: dict[str, Any] | None) -> str:
    """One sentence for a finding read from a cut message: what was read, what could not be, and whether the
    full line would change the answer (every format shows it)."""
    if not cut:
        return ""
    read = str(cut.get("read") or "")
    read = ("..." + read[-80:]) if len(read) > 80 else read
    note = f"The message was cut off after {read!r}"
    unread = [str(u) for u in cut.get("unread") or []]
    if unread:
        note += f"; not read: {', '.join(unread[:8])}"
    also = [str(a) for a in cut.get("could_also_be") or []]
    if also:
        note += f"; the rest could also make it {', '.join(also[:4])}"
    if cut.get("ask_full_line"):
        note += ". Paste the full line for a more precise answer."
    else:
        note += ". The rest of the line would not change this answer."
    return note


def signature_record(sig: Signature, lang: str = "en") -> dict[str, Any]:
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


def finding_record(f: Finding, versions: dict[str, str], environment: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    sig = f.signature
    base = signature_record(sig, lang)
    shown: list[dict[str, Any]] = []
    hidden: list[dict[str, Any]] = []
    for w in sort_workarounds(sig):
        reason = workaround_hidden_reason(w.applies, versions)
        if reason:
            hidden.append({"action": w.action, "reason": reason})
        else:
            shown.append(_workaround(w, len(shown) + 1, lang))
    from ..explain import fill_known

    base["root_cause"] = fill_known(base["root_cause"], sig, f.captures)  # a template, like explain
    return {
        **base,
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
        "workarounds": shown,
        "hidden_workarounds": hidden,
        "related": list(f.related),
        "differential": [candidate_record(c) for c in f.differential],
        "consequences": [
            {"id": c.id, "title": c.signature.title, "scope": c.signature.scope, "line": c.first.line, "count": c.count, "match": c.first.text}
            for c in f.consequences
        ],
        "confused_with": [{"id": e.id, "how_to_tell": e.how_to_tell} for e in sig.confused_with],
        "user_frame": f.user_frame,
        "cut": dict(f.cut) if f.cut else None,
        "environment": environment,
    }


def to_record(diagnosis: Diagnosis, lang: str = "en") -> dict[str, Any]:
    env = diagnosis.environment
    versions = {k: v["version"] for k, v in env.items()}
    findings = [finding_record(f, versions, env, lang) for f in diagnosis.findings]
    for f in findings:
        f["summary"] = finding_summary(f)
    return _with_summary({
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "cudnn-doctor", "version": __version__},
        "sources": list(diagnosis.sources),
        "lines_read": diagnosis.lines_read,
        "bytes_read": diagnosis.bytes_read,
        "confidence_threshold": diagnosis.threshold,
        "findings": findings,
        "abstained": not findings,
        "below_threshold": [
            {"id": f.id, "title": f.signature.title, "source": f.first.source, "line": f.first.line, "confidence": f.confidence, "demoted": list(f.demoted)}
            for f in diagnosis.below_threshold
        ],
        "near_misses": [
            {"id": n.id, "title": n.title, "source": n.source, "line": n.line, "reason": n.reason} for n in diagnosis.near_misses[:10]
        ]
        if not findings
        else [],
        "error_lines": [{"source": s, "line": n, "text": t} for s, n, t in diagnosis.error_lines] if not findings else [],
        "environment": env,
        "warnings": list(diagnosis.warnings),
        "input_errors": list(diagnosis.input_errors),
    })


def _with_summary(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its one-paragraph ``summary`` right after ``tool``, where a reader looks first."""
    head = {k: record.pop(k) for k in ("schema_version", "tool")}
    return {**head, "summary": record_summary(record), **record}

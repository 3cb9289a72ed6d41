"""``--format gitlab``: a GitLab Code Quality report (``artifacts: reports: codequality``).

A JSON array with one issue per finding: description, check_name (the signature id), a fingerprint
unique within the report (sha256 of id, log source, line and matched text), severity, and a location at
the user's own source line when the traceback showed one, else at the log line.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from ..rank.findings import ONE_LINE, try_first
from ..read.textsafe import clean, cut, deep_clean
from . import causes

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import FindingRecord, Report

SEVERITY = {"error": "critical", "warning": "minor"}  # Code Quality: blocker, critical, major, minor, info
MAX_DESCRIPTION = 2000


def _one_line(value: object, limit: int) -> str:
    return cut(" ".join(clean(value).split()), limit)


def fingerprint(f: FindingRecord) -> str:
    data = "\0".join([str(f["id"]), str(f["source"]), str(f["line"]), str(f.get("match") or "")])
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def _issue(f: FindingRecord) -> dict[str, Any]:
    frame = f.get("user_frame")
    if frame and frame.get("file") and frame.get("line"):
        path, line = str(frame["file"]), int(frame["line"])
    else:
        path, line = str(f["source"]), int(f["line"])
    description = f"{f['title']}: {f.get('explanation') or f.get('root_cause') or ''}"
    if f.get("differential"):
        description += " " + causes.one_line(f, ONE_LINE.causes)
    w = try_first(f)
    if w:
        description += f" Fix: {w['action']}"
    description += f" (log {f['source']}:{f['line']})"
    return {
        "type": "issue",
        "description": _one_line(description, MAX_DESCRIPTION),
        "check_name": f["id"],
        "fingerprint": fingerprint(f),
        "severity": SEVERITY.get(f.get("severity", "error"), "major"),
        "categories": ["Bug Risk"],
        "location": {"path": _one_line(path, 1000), "lines": {"begin": max(1, line)}},
    }


def render_gitlab(record: Report) -> str:
    issues = []
    seen: set[str] = set()
    for f in record["findings"]:
        issue = _issue(f)
        base, k = issue["fingerprint"], 1
        while issue["fingerprint"] in seen:  # the same id/source/line/match twice: keep fingerprints unique
            k += 1
            issue["fingerprint"] = hashlib.sha256(f"{base}\0{k}".encode()).hexdigest()
        seen.add(issue["fingerprint"])
        issues.append(issue)
    return json.dumps(deep_clean(issues), indent=2, ensure_ascii=False) + "\n"

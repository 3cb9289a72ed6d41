"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

``tool.driver.rules`` holds the signatures that matched; each finding is one result located at the user's
own source line when the traceback showed one (the log line is then a related location), else at the log
line. Validated against the OASIS schema in tests (tests/test_render_ci.py).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..rank.findings import ANNOTATION, try_first
from ..read.textsafe import clean, cut, deep_clean
from . import causes
from .phrases import cut_note

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import FindingRecord, Report

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/cudnn-doctor/"
MAX_TEXT = 8000
_WINDOWS_ABS = re.compile(r"^[A-Za-z]:[\\/]")
_URI_SAFE = "/:@!$&'()*+,;=-._~"


def artifact_uri(path: str) -> str:
    """A URI reference for a file path: relative paths stay relative, absolute ones become file:// URIs."""
    p = clean(path).replace("\n", "").replace("\r", "")
    if p.startswith("file://"):
        return quote(p, safe=_URI_SAFE + "%")
    if _WINDOWS_ABS.match(p):
        return "file:///" + quote(p.replace("\\", "/"), safe=_URI_SAFE)
    if "\\" in p and "/" not in p:  # a relative Windows path
        p = p.replace("\\", "/")
    if p.startswith("/"):
        return "file://" + quote(p, safe=_URI_SAFE)
    return quote(p, safe=_URI_SAFE)


def _text(value: object) -> str:
    return cut(clean(value).replace("\r\n", "\n").replace("\r", "\n"), MAX_TEXT)


def _rule_name(sig_id: str) -> str:
    """'pytorch/rnn-backward-in-eval-mode' -> 'RnnBackwardInEvalMode' (SARIF names are identifiers)."""
    slug = sig_id.rsplit("/", 1)[-1]
    return (
        "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", slug) if part) or "Finding"
    )


def _level(f: FindingRecord) -> str:
    return "warning" if f.get("severity") == "warning" else "error"


def _rule(f: FindingRecord) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": f["id"],
        "name": _rule_name(f["id"]),
        "shortDescription": {"text": _text(f["title"])},
        "fullDescription": {"text": _text(f.get("root_cause") or f["title"])},
        "defaultConfiguration": {"level": _level(f)},
        "properties": {
            "scope": f.get("scope"),
            "framework": f.get("framework"),
            "tags": list(dict.fromkeys(t for t in ("cudnn", f.get("framework"), f.get("scope")) if t)),  # unique (schema)
        },
    }
    urls = [r["url"] for r in f.get("references") or [] if re.match(r"https?://\S+$", str(r.get("url", "")))]
    if urls:
        rule["helpUri"] = urls[0]
    help_lines = [f"{w['rank']}. {w['action']}" for w in f.get("workarounds") or []]
    if help_lines:
        rule["help"] = {"text": _text("Workarounds:\n" + "\n".join(help_lines))}
    return rule


def _location(uri: str, start: int, end: int | None, message: str | None = None) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(1, int(start))}
    if end:
        region["endLine"] = max(region["startLine"], int(end))
    loc: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": {"uri": artifact_uri(uri)}, "region": region}
    }
    if message:
        loc["message"] = {"text": _text(message)}
    return loc


def fingerprint(f: FindingRecord) -> str:
    """Stable across runs and line shifts: the signature id and the matched text."""
    data = "\0".join([f["id"], " ".join(str(f.get("match") or "").split())])
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def _message(f: FindingRecord) -> str:
    parts = [str(f.get("explanation") or f.get("root_cause") or f["title"])]
    if f.get("cut"):
        parts.append(cut_note(f["cut"]))
    if f.get("differential"):
        parts.append(causes.text(f, ANNOTATION.causes))
    w = try_first(f)
    if w:
        parts.append(f"Fix: {w['action']}" + (f"\n{str(w['how']).rstrip()}" if w.get("how") else ""))
    parts.append(f"Log: {f['source']}:{f['line']}: {str(f.get('match') or '')[:300]}")
    return _text("\n\n".join(parts))


def _result(f: FindingRecord, index: int) -> dict[str, Any]:
    log = _location(f["source"], f["line"], f.get("end_line"), "log line")
    frame = f.get("user_frame")
    locations = [log]
    related: list[dict[str, Any]] = []
    if frame and frame.get("file") and frame.get("line"):
        locations = [_location(str(frame["file"]), frame["line"], frame["line"], "your code")]
        related = [{"id": 1, **log}]
    result: dict[str, Any] = {
        "ruleId": f["id"],
        "ruleIndex": index,
        "level": _level(f),
        "message": {"text": _message(f)},
        "locations": locations,
        "partialFingerprints": {"cudnnDoctorFingerprint/v1": fingerprint(f)},
        "properties": {
            "confidence": f["confidence"],
            "count": f.get("count", 1),
            "logSource": _text(f["source"]),
            "logLine": f["line"],
        },
    }
    if f.get("differential"):
        result["properties"]["differential"] = [
            {k: c[k] for k in ("id", "cause", "rnn", "check", "thread_count", "ruled_out", "ruled_out_reason")}
            for c in f["differential"]
        ]
    if related:
        result["relatedLocations"] = related
    return result


def sarif_log(record: Report) -> dict[str, Any]:
    """The SARIF log as a dict."""
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results = []
    for f in record["findings"]:
        if f["id"] not in index:
            index[f["id"]] = len(rules)
            rules.append(_rule(f))
        results.append(_result(f, index[f["id"]]))
    tool = record.get("tool") or {}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "cudnn-doctor",
                "version": str(tool.get("version", "")),
                "semanticVersion": str(tool.get("version", "")),
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "invocations": [
            {
                "executionSuccessful": not record.get("input_errors"),
                "toolExecutionNotifications": [
                    {"level": "warning", "message": {"text": _text(w)}} for w in record.get("warnings") or []
                ]
                + [
                    {"level": "error", "message": {"text": _text(e)}}
                    for e in record.get("input_errors") or []
                ],
            }
        ],
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render_sarif(record: Report) -> str:
    return json.dumps(deep_clean(sarif_log(record)), indent=2, ensure_ascii=False) + "\n"

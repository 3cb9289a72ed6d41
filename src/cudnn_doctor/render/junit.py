"""``--format junit``: JUnit XML for CI systems that show test reports (Jenkins, GitLab, Azure, CircleCI).

One ``<testcase>`` per finding (classname ``<framework>.<scope>``, name = signature id) with a
``<failure>`` holding the report text; with no finding, one passing testcase so the report is never
empty. Built with ElementTree (which escapes) after removing characters XML 1.0 does not allow.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from ..rank.findings import TEST_REPORT
from ..read.textsafe import xml_text as _xml_text
from . import causes
from .phrases import cut_note

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import FindingRecord, Report

MAX_TEXT = 64 << 10
SUITE = "cudnn-doctor"


def xml_text(value: object, limit: int = MAX_TEXT) -> str:
    """Text that is legal in XML 1.0, without terminal escapes, at most ``limit`` characters."""
    return _xml_text(value, limit)


def report_text(f: FindingRecord) -> str:
    """The plain-text body of a failure: where, what, why, what not to do, what to do."""
    lines = [
        f"{f['title']}",
        f"Signature: {f['id']} ({f.get('framework')}, {f.get('scope')}), confidence {f['confidence']:.2f}",
        *_where(f),
    ]
    if f.get("explanation"):
        lines += ["", f"What the log says: {f['explanation']}"]
    if f.get("cut"):
        lines += ["", cut_note(f["cut"])]
    if f.get("root_cause"):
        lines += ["", f"Root cause: {f['root_cause']}"]
    if f.get("differential"):
        lines += ["", *causes.lines(f, TEST_REPORT.causes)]
    lines += _fixes(f)
    if f.get("references"):
        lines += ["", "References:"] + [f"  {r['url']}" for r in f["references"]]
    return "\n".join(lines) + "\n"


def _where(f: FindingRecord) -> list[str]:
    """Where the error is in the log, and the user's own frame of its traceback."""
    where = f"Where: {f['source']}:{f['line']}"
    if f.get("count", 1) > 1:
        where += f" (x{f['count']}, last at line {f['last_line']})"
    lines = [where, f"    {f.get('match') or ''}"]
    frame = f.get("user_frame")
    if frame:
        func = f" in {frame['function']}" if frame.get("function") else ""
        lines.append(f"Your code: {frame['file']}:{frame['line']}{func}")
        if frame.get("code"):
            lines.append(f"    {frame['code']}")
    return lines


def _fixes(f: FindingRecord) -> list[str]:
    """The dead ends, then the ranked workarounds."""
    lines: list[str] = []
    if f.get("dead_ends"):
        lines += ["", "Dead ends (known not to work):"]
        lines += [f"  x {d['action']} - fails {d['rate_basis']}: {d['why_fails']}" for d in f["dead_ends"]]
    if f.get("workarounds"):
        lines += ["", "Workarounds (ranked):"]
        for w in f["workarounds"]:
            lines.append(f"  {w['rank']}. {w['action']} - works {w['rate_basis']}")
            lines += [f"      {line}" for line in str(w.get("how") or "").rstrip().splitlines()]
    return lines


def render_junit(record: Report) -> str:
    findings = record["findings"]
    n = len(findings)
    counts = {"tests": str(max(n, 1)), "failures": str(n), "errors": "0", "skipped": "0", "time": "0"}
    root = ET.Element(
        "testsuites", {"name": SUITE, **{k: counts[k] for k in ("tests", "failures", "errors")}}
    )
    suite = ET.SubElement(root, "testsuite", {"name": SUITE, **counts})
    for f in findings:
        frame = f.get("user_frame")
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": xml_text(
                    f"{f.get('framework') or 'unknown'}.{f.get('scope') or 'unknown'}", 200
                ),
                "name": xml_text(f["id"], 200),
                "file": xml_text((frame and frame.get("file")) or f["source"], 1000),
                "line": str((frame and frame.get("line")) or f["line"]),
                "time": "0",
            },
        )
        failure = ET.SubElement(
            case,
            "failure",
            {
                "message": xml_text(f"{f['title']} ({f['source']}:{f['line']})", 1000),
                "type": xml_text(f["severity"], 100),
            },
        )
        failure.text = xml_text(report_text(f))
    if not findings:
        sources = ", ".join(map(str, record.get("sources") or [])) or "input"
        ET.SubElement(
            suite,
            "testcase",
            {
                "classname": SUITE,
                "name": xml_text(f"no known cuDNN RNN error in {sources}", 1000),
                "time": "0",
            },
        )
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

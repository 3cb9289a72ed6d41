"""The short report shown under a traceback (pytest, IPython/Jupyter, the excepthook): per finding its title,
what the log says, the root cause, the dead end to avoid, the workaround to try first and the command for
the rest. Text for terminals and logs, HTML for notebooks; log text is escaped in both.
"""

from __future__ import annotations

import html
import os
from typing import TYPE_CHECKING, Any

from ..rank.findings import BRIEF, head, try_first, warn_first
from ..read.textsafe import terminal_safe as safe
from .summary import first_sentence
from .terminal import Out

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import FindingRecord, Report

MAX_FINDINGS = BRIEF.findings


def _parts(f: FindingRecord) -> dict[str, Any]:
    """What a brief report says about one finding (shared by the text and the HTML forms)."""
    dead = warn_first(f)
    top = try_first(f)
    frame = f.get("user_frame")
    where = f"{f['source']}:{f['line']}"
    if frame:
        where = f"{_relative(frame['file'])}:{frame['line']}" + (f" in {frame['function']}" if frame.get("function") else "")
    return {
        "head": ("warning: " if f["severity"] == "warning" else "") + f["title"],
        "meta": f"{f['id']} · {f['framework']} · confidence {f['confidence']:.2f} · {where}",
        "explanation": f.get("explanation") or "",
        "root_cause": first_sentence(f["root_cause"], 400),
        "dead": (f"{dead['action']} - fails {dead['rate_basis']}", first_sentence(dead["why_fails"], 200)) if dead else None,
        "top": (f"{top['action']} - works {top['rate_basis']}", (top.get("how") or "").rstrip()) if top else None,
        "more": f"cudnn-doctor show {f['id']}",
    }


def _relative(path: str) -> str:
    """A path under the current directory as the user would type it (tests/test_model.py)."""
    here = os.getcwd() + os.sep
    return path[len(here):] if path.startswith(here) else path


def render_brief(record: Report, *, width: int = 100, max_findings: int | None = MAX_FINDINGS) -> str:
    """Plain text (no colour, control characters removed); '' when there is no finding."""
    findings, _ = head(record["findings"], max_findings)
    if not findings:
        return ""
    out = Out(width)
    for i, f in enumerate(findings):
        if i:
            out.print()
        p = _parts(f)
        out.line(f"cudnn-doctor: {p['head']}")
        out.line(p["meta"], indent=2)
        if p["explanation"]:
            out.line("What the log says: " + p["explanation"], indent=2)
        out.line("Root cause: " + p["root_cause"], indent=2)
        if p["dead"]:
            out.line(f"Dead end: {p['dead'][0]}: {p['dead'][1]}", indent=2)
        if p["top"]:
            out.line("Try first: " + p["top"][0], indent=2)
            for code in p["top"][1].splitlines():  # not folded: code stays copyable
                out.lines.append([("    " + safe(code), "")])
        out.lines.append([("  Every workaround and source: " + safe(p["more"]), "")])  # one line: copyable
    rest = record["findings"][len(findings):]
    if rest:
        out.line(f"cudnn-doctor: also {', '.join(f['id'] for f in rest)}")
    return out.render(False)


def _e(text: str) -> str:
    return html.escape(safe(text), quote=True)


def render_brief_html(record: Report, *, max_findings: int | None = MAX_FINDINGS) -> str:
    """A self-contained HTML fragment for a notebook output ('' when there is no finding)."""
    findings, _ = head(record["findings"], max_findings)
    if not findings:
        return ""
    rows: list[str] = []
    for f in findings:
        p = _parts(f)
        items = []
        if p["explanation"]:
            items.append(f"<li><b>What the log says:</b> {_e(p['explanation'])}</li>")
        items.append(f"<li><b>Root cause:</b> {_e(p['root_cause'])}</li>")
        if p["dead"]:
            items.append(f"<li><b style='color:#b00'>Dead end:</b> {_e(p['dead'][0])}: {_e(p['dead'][1])}</li>")
        if p["top"]:
            how = f"<pre style='margin:2px 0'>{_e(p['top'][1])}</pre>" if p["top"][1] else ""
            items.append(f"<li><b style='color:#080'>Try first:</b> {_e(p['top'][0])}{how}</li>")
        items.append(f"<li>More: <code>{_e(p['more'])}</code></li>")
        rows.append(
            f"<div class='cudnn-doctor-finding' data-id='{_e(f['id'])}'>"
            f"<b>cudnn-doctor: {_e(p['head'])}</b><br><small>{_e(p['meta'])}</small>"
            f"<ul style='margin:4px 0'>{''.join(items)}</ul></div>"
        )
    rest = record["findings"][len(findings):]
    if rest:
        rows.append(f"<div>cudnn-doctor: also {_e(', '.join(f['id'] for f in rest))}</div>")
    return (
        "<div class='cudnn-doctor' style='border-left:4px solid #c60;padding:4px 8px;margin:4px 0'>"
        + "".join(rows)
        + "</div>"
    )

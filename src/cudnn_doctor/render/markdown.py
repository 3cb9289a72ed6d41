"""``--format markdown``: a GitHub-flavoured Markdown report for $GITHUB_STEP_SUMMARY and PR comments.

Text from a log (or a user signature) is never trusted as Markdown: multi-line text goes into fenced
blocks with a fence longer than any backtick run inside; prose is escaped (HTML ``<``/``>``/``&``,
emphasis, link brackets, table pipes, leading ``#``) and ``@mentions`` / ``#123`` references are broken
with a word joiner so a comment notifies nobody. Links are only made for http(s) URLs. The whole report
stays under 1 MiB (GitHub's step-summary limit); findings past that are cut with a note.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import quote

from ..rank.findings import DOCUMENT, head
from ..read.textsafe import MAX_BLOCK, WJ, clean
from ..read.textsafe import md_block as block
from ..read.textsafe import md_code as code
from ..read.textsafe import md_text as text
from . import causes
from .phrases import cut_note, scope_text

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import FindingRecord, Report

MAX_BYTES = 1 << 20
_RESERVE = 4 << 10  # room for the truncation note

__all__ = ["MAX_BLOCK", "WJ", "block", "code", "link", "render_markdown", "text"]


def link(title: object, url: object) -> str:
    u = clean(url).strip()
    if not re.match(r"https?://[^\s]+$", u):
        return f"{text(title)} ({code(u)})" if u else text(title)
    return f"[{text(title)}](<{quote(u, safe=':/?#[]@!$&*+,;=%~-._')}>)"


def _where(f: FindingRecord) -> str:
    s = f"{code(f['source'])} line {f['line']}"
    if f.get("count", 1) > 1:
        s += f" (x{f['count']}, last at line {f['last_line']})"
    return s


def _finding(i: int, f: FindingRecord) -> str:
    out = [f"### {i}. {text(f['title'])}\n\n"]
    scope = scope_text(f.get("scope", ""))
    out.append(
        f"{code(f['id'])} · {text(f.get('framework', ''))} · {text(scope)} · **{text(f['severity'])}** · "
        f"confidence {f['confidence']:.2f}\n\n"
    )
    out.append(f"**Where:** {_where(f)}\n\n")
    out += _evidence(f)
    out += _knowledge(f)
    out += _links(f)
    return "".join(out)


def _evidence(f: FindingRecord) -> list[str]:
    """What the log shows: the matched lines, the user's frame, the explanation and checks, the cause."""
    out: list[str] = []
    if f.get("match"):
        out.append(block(f["match"]) + "\n")
    if f.get("cut"):
        out.append(f"**Cut:** {text(cut_note(f['cut']))}\n\n")
    frame = f.get("user_frame")
    if frame:
        fn = f" in {code(frame['function'])}" if frame.get("function") else ""
        out.append(f"**Your code:** {code(str(frame['file']) + ':' + str(frame['line']))}{fn}\n\n")
        if frame.get("code"):
            out.append(block(frame["code"], "python") + "\n")
    if f.get("explanation"):
        out.append(f"**What the log says:** {text(f['explanation'])}\n\n")
    out += [f"- {text(c)}\n" for c in f.get("checks") or []]
    if f.get("checks"):
        out.append("\n")
    if f.get("root_cause"):
        out.append(f"**Root cause:** {text(f['root_cause'])}\n\n")
    if f.get("differential"):
        out.append(_differential(f))
    return out


def _knowledge(f: FindingRecord) -> list[str]:
    """What not to do and what to do."""
    out: list[str] = []
    if f.get("dead_ends"):
        out.append("**Dead ends** (known not to work):\n\n")
        for d in f["dead_ends"]:
            out.append(f"- ~~{text(d['action'])}~~ (fails {text(d['rate_basis'])}): {text(d['why_fails'])}\n")
        out.append("\n")
    if f.get("workarounds"):
        out.append("**Workarounds** (ranked):\n\n")
        for w in f["workarounds"]:
            out.append(
                f"{w['rank']}. **{text(w['action'])}** (works {text(w['rate_basis'])}, "
                f"effort {text(w.get('effort') or '?')})\n"
            )
            if w.get("condition"):
                out.append(f"   When: {text(w['condition'])}\n")
            if w.get("how"):
                out.append("\n" + _indent(block(w["how"]), 3) + "\n")
        out.append("\n")
    if f.get("hidden_workarounds"):
        hidden = "; ".join(f"{text(h['action'])} ({text(h['reason'])})" for h in f["hidden_workarounds"])
        out.append(f"Not shown for your versions: {hidden}\n\n")
    return out


def _links(f: FindingRecord) -> list[str]:
    """Confusable signatures, consequences and references."""
    out: list[str] = []
    for c in f.get("confused_with") or []:
        out.append(f"Not to confuse with {code(c['id'])}: {text(c['how_to_tell'])}\n\n")
    if f.get("consequences"):
        out.append(
            "Also in the log, caused by this: "
            + ", ".join(f"{code(c['id'])} (line {c['line']})" for c in f["consequences"])
            + "\n\n"
        )
    if f.get("references"):
        out.append(
            "**References:**\n\n"
            + "".join(f"- {link(r.get('title') or r['url'], r['url'])}\n" for r in f["references"])
            + "\n"
        )
    return out


def _differential(f: FindingRecord) -> str:
    """The causes a generic status could be, each with its check; those the log rules out struck through."""
    possible, ruled_out = causes.split(f)
    possible, _ = head(possible, DOCUMENT.causes)
    ruled_out, _ = head(ruled_out, DOCUMENT.causes)
    both = causes.mixed(f)
    out = [f"**{causes.HEADING}:**\n\n"]
    for i, c in enumerate(possible, 1):
        ident = f" {code(c['id'])}" if c.get("id") else ""
        out.append(f"{i}. {text(causes.label({**c, 'id': None}, both))}{ident}: check: {text(c.get('check') or '')}\n")
        if c.get("note"):
            out.append(f"   _{text(c['note'])}_\n")
    for c in ruled_out:
        out.append(f"- ~~{text(c.get('cause') or '')}~~ ruled out: {text(c.get('ruled_out_reason') or '')}\n")
    return "".join(out) + "\n"


def _indent(s: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + line if line.strip() else line for line in s.splitlines(keepends=True))


def _table(findings: list[FindingRecord]) -> str:
    rows = ["| # | Severity | Finding | Where | Confidence |\n", "|---|---|---|---|---|\n"]
    for i, f in enumerate(findings, 1):
        frame = f.get("user_frame")
        where = f"{code(f['source'], table=True)}:{f['line']}"
        if frame:
            where = f"{code(str(frame['file']) + ':' + str(frame['line']), table=True)} (log {where})"
        rows.append(
            f"| {i} | {text(f['severity'])} | {text(f['title'])}<br>{code(f['id'], table=True)} | {where} "
            f"| {f['confidence']:.2f} |\n"
        )
    return "".join(rows) + "\n"


def _abstain(record: Report, sources: str) -> str:
    out = [f"## cudnn-doctor: no known cuDNN RNN error in {sources}\n\n"]
    out.append(f"Read {record['lines_read']} lines. No signature matched with enough confidence.\n\n")
    if record.get("below_threshold"):
        out.append("**Below the confidence threshold:**\n\n")
        out += [
            f"- {code(b['id'])} {text(b['title'])} ({code(b['source'])}:{b['line']}, "
            f"confidence {b['confidence']:.2f})\n"
            for b in record["below_threshold"]
        ]
        out.append("\n")
    if record.get("near_misses"):
        out.append("**Near misses:**\n\n")
        out += [
            f"- {code(n['id'])} {text(n['title'])} ({code(n['source'])}:{n['line']}): {text(n['reason'])}\n"
            for n in record["near_misses"]
        ]
        out.append("\n")
    if record.get("error_lines"):
        out.append("**Error-looking lines:**\n\n")
        out.append(
            block("\n".join(f"{e['source']}:{e['line']}: {e['text']}" for e in record["error_lines"])) + "\n"
        )
    return "".join(out)


def _footer(record: Report) -> str:
    out = [f"> Warning: {text(w)}\n" for w in record.get("warnings") or []]
    out += [f"> Input error: {text(e)}\n" for e in record.get("input_errors") or []]
    tool = record.get("tool") or {}
    out.append(f"\n<sub>{text(tool.get('name', 'cudnn-doctor'))} {text(tool.get('version', ''))}</sub>\n\n")
    return "".join(out)


def render_markdown(record: Report) -> str:
    findings = record["findings"]
    sources = ", ".join(code(s) for s in record["sources"]) or "the input"
    if not findings:
        return _fit([_abstain(record, sources)], _footer(record), 0)
    n = len(findings)
    head = f"## cudnn-doctor: {n} finding{'s' if n != 1 else ''} in {sources}\n\n" + _table(findings)
    sections = [head] + [_finding(i, f) for i, f in enumerate(findings, 1)]
    return _fit(sections, _footer(record), n)


def _fit(sections: list[str], footer: str, n: int) -> str:
    """Join sections while the UTF-8 size stays under MAX_BYTES; note what was left out."""
    budget = MAX_BYTES - _RESERVE - len(footer.encode("utf-8"))
    out: list[str] = []
    used = 0
    for k, s in enumerate(sections):
        size = len(s.encode("utf-8"))
        if used + size > budget:
            if k == 0:  # even the summary table is too big: cut it at a line boundary
                cut = s.encode("utf-8")[:budget].decode("utf-8", "ignore")
                out.append(cut[: cut.rfind("\n") + 1])
            left = len(sections) - max(k, 1)
            out.append(
                f"\n> **Report truncated** to stay under 1 MiB: {left} of {n} finding(s) not shown in full. "
                "Run `cudnn-doctor diagnose --format json` for all of them.\n\n"
            )
            break
        out.append(s)
        used += size
    return "".join(out) + footer

"""``--format github``: GitHub Actions workflow commands (``::error file=...,line=...::message``).

One annotation per finding, pointing at the user's own source line when the traceback showed one (so it
lands on the diff of a pull request), else at the log line. Escaping is exactly @actions/core's
(``escapeData`` / ``escapeProperty``), and every output line starts with ``::error``, ``::warning`` or
``::notice``: log text can never start a line of its own, so it cannot issue ``::set-output``,
``::add-mask::`` or ``::stop-commands::``. GitHub shows at most 10 error and 10 warning annotations per
step; findings past that are counted in one ``::notice``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rank.findings import ANNOTATION, try_first
from ..read.textsafe import clean, cut, deep_clean, escape_data, escape_property
from . import causes
from .phrases import cut_note

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from ..records import FindingRecord, Report

MAX_PER_LEVEL = 10  # GitHub shows at most 10 error and 10 warning annotations per step
MAX_MESSAGE = 4000  # characters, before escaping
MAX_TITLE = 120
MAX_PROPERTY = 1000

__all__ = ["clean", "command", "deep_clean", "escape_data", "escape_property", "location", "message", "render_github"]


def command(name: str, properties: dict[str, object], message: str) -> str:
    """One workflow command line (no trailing newline), as @actions/core ``issueCommand`` writes it."""
    props = ",".join(
        f"{k}={escape_property(cut(str(v), MAX_PROPERTY))}"
        for k, v in properties.items()
        if v not in (None, "")
    )
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def _pseudo(source: str) -> bool:
    return not source or (source.startswith("<") and source.endswith(">"))


def location(f: FindingRecord) -> dict[str, object]:
    """file/line/endLine of the user's frame when known, else of the log line (none for stdin/pasted text)."""
    frame = f.get("user_frame")
    if frame and frame.get("file") and frame.get("line"):
        return {"file": frame["file"], "line": frame["line"], "endLine": frame["line"]}
    if _pseudo(str(f.get("source") or "")):
        return {}
    return {"file": f["source"], "line": f["line"], "endLine": f.get("end_line") or f["line"]}


def message(f: FindingRecord) -> str:
    """Explanation (or root cause) + the top workaround + where in the log, at most MAX_MESSAGE characters."""
    parts = [str(f.get("explanation") or f.get("root_cause") or f.get("title") or "")]
    if f.get("differential"):
        parts.append(causes.text(f, ANNOTATION.causes))
    w = try_first(f)
    if w:
        fix = f"Fix: {w['action']}"
        if w.get("how"):
            fix += "\n" + str(w["how"]).rstrip()
        parts.append(fix)
    where = f"Log: {f['source']}:{f['line']}"
    if f.get("count", 1) > 1:
        where += f" (x{f['count']})"
    parts.append(f"{where}: {cut(str(f.get('match') or ''), 300)}")
    if f.get("cut"):
        parts.append(cut_note(f["cut"]))
    parts.append(
        f"Signature {f['id']} (confidence {f['confidence']:.2f}); details: cudnn-doctor show {f['id']}"
    )
    return cut("\n\n".join(p for p in parts if p), MAX_MESSAGE)


def render_github(record: Report) -> str:
    lines: list[str] = []
    shown = {"error": 0, "warning": 0}
    skipped = 0
    for f in record["findings"]:
        level = "warning" if f.get("severity") == "warning" else "error"
        if shown[level] >= MAX_PER_LEVEL:
            skipped += 1
            continue
        shown[level] += 1
        props = {**location(f), "title": cut(f"cudnn-doctor: {f['title']}", MAX_TITLE)}
        lines.append(command(level, props, message(f)))
    if skipped:
        lines.append(
            command(
                "notice",
                {"title": "cudnn-doctor: more findings"},
                f"{skipped} more finding(s) not annotated (GitHub shows {MAX_PER_LEVEL} per level); "
                "see the step summary or run cudnn-doctor diagnose for all of them.",
            )
        )
    if not record["findings"]:
        sources = ", ".join(map(str, record.get("sources") or [])) or "the input"
        lines.append(
            command(
                "notice",
                {"title": "cudnn-doctor"},
                f"No known cuDNN RNN error found in {cut(sources, 300)}.",
            )
        )
    return "".join(line + "\n" for line in lines)

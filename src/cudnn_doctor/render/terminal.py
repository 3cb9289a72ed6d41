"""The default report, for people: rich styling on a terminal, the same text plain when piped or NO_COLOR.

Everything that comes from a log (or a user signature) is shown literally: it goes into rich ``Text``
objects (never parsed as markup) after control characters are removed, so escape sequences in a log line
cannot reach the terminal. Lines are wrapped here with hanging indents, so the layout is the same with and
without colour; rich is only imported when there is colour to render.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..rank.findings import TERMINAL, head
from ..read.textsafe import terminal_safe as safe
from .phrases import cut_note, plural, scope_text, sources_text

if TYPE_CHECKING:  # the records are types only: nothing to import at run time
    from typing import Any

    from ..records import FindingRecord, Report

__all__ = ["plural", "render_terminal", "safe", "sources_text"]


class Out:
    """Collects styled lines; renders them with rich (colour) or as plain text."""

    def __init__(self, width: int, fold: bool = True) -> None:
        self.width = max(40, width)
        self.fold = fold  # fold verbatim lines at the width (a terminal); piped, code is never cut
        self.lines: list[list[tuple[str, str]]] = []

    def print(self) -> None:
        self.lines.append([])

    def line(self, *parts: Any, indent: int = 0, hang: int = 2) -> None:
        """Wrap styled parts (str or (text, style)) to the width; continuation lines hang ``hang`` deeper."""
        words: list[tuple[str, str]] = []
        for part in parts:
            text, style = (part[0], part[1]) if isinstance(part, tuple) else (part, "")
            words += [(chunk, style) for chunk in re.split(r"(\s+)", safe(text)) if chunk]
        row: list[tuple[str, str]] = [(" " * indent, "")]
        used = indent
        first = True
        for word, style in words:
            if word.isspace():
                if used > indent + (0 if first else hang):
                    row.append((" ", style))
                    used += 1
                continue
            if used + len(word) > self.width and used > indent + (0 if first else hang):
                while row and row[-1][0] == " ":
                    row.pop()
                self.lines.append(row)
                first = False
                row = [(" " * (indent + hang), "")]
                used = indent + hang
            row.append((word, style))
            used += len(word)
        self.lines.append(row)

    def block(self, body: str, indent: int, style: str = "") -> None:
        """Verbatim lines (code, log text): not re-wrapped, only folded when longer than the width."""
        room = max(20, self.width - indent) if self.fold else 1 << 62
        for raw in safe(body).splitlines() or [""]:
            for i in range(0, max(len(raw), 1), room):
                self.lines.append([(" " * indent + raw[i : i + room], style)])

    def render(self, color: bool) -> str:
        if not color:
            return "".join("".join(s for s, _ in row).rstrip() + "\n" for row in self.lines)
        import io

        from rich.console import Console
        from rich.text import Text

        buf = io.StringIO()
        console = Console(file=buf, force_terminal=True, color_system="standard", width=self.width + 20,
                          highlight=False, emoji=False, markup=False)
        for row in self.lines:
            text = Text()
            merged: list[tuple[str, str]] = []
            for s, style in row:
                if merged and merged[-1][1] == style:
                    merged[-1] = (merged[-1][0] + s, style)
                else:
                    merged.append((s, style))
            for s, style in merged:
                text.append(s, style=style or None)
            console.print(text, soft_wrap=True)
        return buf.getvalue()


def _width() -> int:
    import os

    env = os.environ.get("COLUMNS", "")
    if env.isdigit():
        columns = int(env)
    else:
        try:
            columns = os.get_terminal_size(1).columns
        except OSError:
            columns = 100
    return min(max(columns, 60), 120)


def _line(console: Out, *parts: Any, indent: int = 0) -> None:
    console.line(*parts, indent=indent)


def _block(console: Out, body: str, indent: int, style: str = "") -> None:
    console.block(body, indent, style)


def _stdout_is_terminal() -> bool:
    import sys

    return bool(getattr(sys.stdout, "isatty", None) and sys.stdout.isatty())


def render_terminal(record: Report, *, color: bool | None = None, width: int | None = None,
                    fold: bool | None = None) -> str:
    """The report; ``fold`` (default: when stdout is a terminal) folds code and log lines at the width."""
    console = Out(width or _width(), _stdout_is_terminal() if fold is None else fold)
    findings = record["findings"]
    sources = sources_text(record["sources"])
    if not findings:
        _abstain(console, record, sources)
        return console.render(bool(color))
    n = len(findings)
    _line(console, ("cudnn-doctor", "bold"), f": {plural(n, 'finding')} in {sources} ({plural(record['lines_read'], 'line')})")
    for i, f in enumerate(findings, 1):
        console.print()
        _finding(console, i, f)
    _footer(console, record)
    return console.render(bool(color))


def _finding(console: Out, i: int, f: FindingRecord) -> None:
    sev_style = "bold red" if f["severity"] == "error" else "bold yellow"
    scope = scope_text(f["scope"])
    _line(console, (f"{i}. ", "bold"), (f"[{f['severity']}] ", sev_style), (f["title"], "bold"))
    _line(console, (f"{f['id']} · {f['framework']} · {scope} · confidence {f['confidence']:.2f}", "dim"), indent=3)
    where = f"{f['source']}:{f['line']}"
    if f["count"] > 1:
        last = f"{f['last_source']}:{f['last_line']}" if f.get("files", 1) > 1 else f"line {f['last_line']}"
        in_files = f" in {f['files']} files" if f.get("files", 1) > 1 else ""
        where += f" (x{f['count']}{in_files}, last at {last})"
    _line(console, ("Where: ", "bold"), where, indent=3)
    _evidence(console, f)
    _knowledge(console, f)
    _links(console, f)


def _evidence(console: Out, f: FindingRecord) -> None:
    """What the log shows: the matched lines, the user's frame, the explanation and checks, the cause."""
    _block(console, _shorten(f["match"]), 5, "cyan")
    if f.get("cut"):
        _line(console, ("Cut: ", "bold yellow"), cut_note(f["cut"]), indent=3)
    frame = f.get("user_frame")
    if frame:
        where = f"{frame['file']}:{frame['line']}" + (f" in {frame['function']}" if frame.get("function") else "")
        if frame.get("node"):
            where += f" (TF op {frame['node']})"
        _line(console, ("Your code: ", "bold"), where, indent=3)
        if frame.get("code"):
            _block(console, frame["code"], 5, "cyan")
    if f["explanation"]:
        _line(console, ("What the log says: ", "bold"), f["explanation"], indent=3)
    for check in f["checks"]:
        _line(console, ("! ", "bold yellow"), check, indent=3)
    for reason in f["demoted"]:
        _line(console, ("Demoted: ", "bold yellow"), reason, indent=3)
    _line(console, ("Root cause: ", "bold"), f["root_cause"], indent=3)
    if f.get("differential"):
        _differential(console, f)


def _knowledge(console: Out, f: FindingRecord) -> None:
    """What not to do and what to do."""
    if f["dead_ends"]:
        _line(console, ("Dead ends (known not to work):", "bold red"), indent=3)
        for d in f["dead_ends"]:
            action = d["action"] or "(unnamed attempt)"
            _line(console, ("x ", "red"), (action, "bold"), f" - fails {d['rate_basis']}", indent=5)
            _line(console, d["why_fails"], indent=7)
    if f["workarounds"]:
        _line(console, ("Workarounds (ranked):", "bold green"), indent=3)
        for w in f["workarounds"]:
            _line(console, (f"{w['rank']}. ", "bold green"), (w["action"], "bold"), f" - works {w['rate_basis']}", indent=5)
            if w["condition"]:
                _line(console, ("when: ", "dim"), w["condition"], indent=8)
            if w["how"]:
                _block(console, w["how"].rstrip(), 8, "green")
    for h in f["hidden_workarounds"]:
        _line(console, ("hidden: ", "dim"), f"{h['action']} ({h['reason']})", indent=5)


def _links(console: Out, f: FindingRecord) -> None:
    """Consequences, other matches, confusable signatures and references (as many as rank.TERMINAL says)."""
    for c in f["consequences"]:
        _line(console, ("Leads to: ", "bold"), f"{c['title']} ({c['id']}) at line {c['line']}" + (f" x{c['count']}" if c["count"] > 1 else ""), indent=3)
    if f["related"]:
        _line(console, ("Also matched: ", "dim"), ", ".join(f["related"]), indent=3)
    for e in head(f["confused_with"], TERMINAL.confused_with)[0]:
        if e["how_to_tell"]:
            _line(console, ("Not to confuse with ", "dim"), f"{e['id']}: {e['how_to_tell']}", indent=3)
    refs = head([r["url"] for r in f["references"] if r["url"]], TERMINAL.references)[0]
    if refs:
        _line(console, ("References: ", "dim"), "  ".join(refs), indent=3)


def _differential(console: Out, f: FindingRecord) -> None:
    from .causes import HEADING, label, mixed, split

    possible, ruled_out = split(f)
    both = mixed(f)
    _line(console, (f"{HEADING}:", "bold"), indent=3)
    shown, more = head(possible, TERMINAL.causes)
    for i, c in enumerate(shown, 1):
        _line(console, (f"{i}. ", "bold"), (label(c, both), "bold"), indent=5)
        _line(console, ("check: ", "dim"), c.get("check") or "", indent=8)
        if c.get("note"):
            _line(console, ("note: ", "dim"), c["note"], indent=8)
    if more:
        _line(console, (f"... {more} more (--format json lists all)", "dim"), indent=5)
    shown, more = head(ruled_out, TERMINAL.causes)
    for c in shown:
        _line(console, ("ruled out: ", "dim"), (label(c, both), "dim"), f" - {c.get('ruled_out_reason') or ''}", indent=5)
    if more:
        _line(console, (f"... {more} more ruled out", "dim"), indent=5)


def _shorten(text: str, max_lines: int = 6) -> str:
    lines = text.splitlines()
    if len(lines) > max_lines:
        lines = [*lines[:2], f"... ({len(lines) - max_lines + 2} lines) ...", *lines[-(max_lines - 3) :]]
    return "\n".join(line if len(line) <= 300 or not _stdout_is_terminal() else line[:297] + "..." for line in lines)


def _abstain(console: Out, record: Report, sources: str) -> None:
    n = record["lines_read"]
    read = "the input was empty" if not record["bytes_read"] else f"{plural(n, 'line')} read"
    _line(console, ("cudnn-doctor", "bold"), f": no known signature matched in {sources} ({read}).")
    if record["error_lines"]:
        console.print()
        _line(console, ("Lines that look like errors:", "bold"))
        for e in record["error_lines"]:
            _line(console, f"{e['source']}:{e['line']}: ", (e["text"], "cyan"), indent=2)
    if record["below_threshold"]:
        console.print()
        _line(console, ("Matched, but with too little confidence to diagnose:", "bold"))
        for b in record["below_threshold"]:
            why = "; ".join(b["demoted"]) or "weak evidence"
            _line(console, f"{b['id']} (confidence {b['confidence']:.2f}): {why}", indent=2)
    if record["near_misses"]:
        console.print()
        _line(console, ("Nearest signatures, and why they did not match:", "bold"))
        for miss in head(record["near_misses"], TERMINAL.near_misses)[0]:
            _line(console, (miss["id"], "bold"), f" ({miss['source']}:{miss['line']}): {miss['reason']}", indent=2)
    _footer(console, record)


def _footer(console: Out, record: Report) -> None:
    env = record["environment"]
    if env:
        console.print()
        _line(console, ("Detected: ", "dim"), ", ".join(f"{k} {v['version']}" for k, v in env.items()))
    for w in record["warnings"]:
        _line(console, ("warning: ", "yellow"), w)

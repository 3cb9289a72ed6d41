"""Terminal views of signatures: ``show ID`` and the ``list`` / ``search`` table."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..model import Candidate, Signature
from ..rank.findings import sort_dead_ends, sort_workarounds
from ..read.textsafe import terminal_safe as safe
from .phrases import rate_text


def _console(buf: io.StringIO, color: bool) -> Console:
    return Console(file=buf, force_terminal=color, no_color=not color, color_system="standard" if color else None,
                   width=110, highlight=False, emoji=False, markup=False)


def render_list(sigs: Sequence[Signature], color: bool = False, terminal: bool = False) -> str:
    """The table of ``list`` / ``search``. Ids are never cut or folded; piped (``terminal`` False), every
    row is one line, whole, so ``| grep ID`` and ``| cut`` work."""
    columns = ("id", "framework", "scope", "severity", "title")
    if not terminal and not color:
        rows: list[tuple[str, ...]] = [columns, *((s.id, s.framework, s.scope, s.severity, s.title) for s in sigs)]
        rows = [tuple(safe(v) for v in row) for row in rows]
        widths = [max(len(row[i]) for row in rows) for i in range(len(columns) - 1)]
        out = ["  ".join([*(v.ljust(w) for v, w in zip(row[:-1], widths, strict=True)), row[-1]]).rstrip() + "\n" for row in rows]
        return "".join(out) + f"{len(sigs)} signature(s)\n"
    buf = io.StringIO()
    table = Table(show_edge=False, box=None, pad_edge=False, header_style="bold")
    for col in columns:
        table.add_column(col, overflow="fold", no_wrap=col == "id")
    for s in sigs:
        table.add_row(*(Text(safe(v)) for v in (s.id, s.framework, s.scope, s.severity, s.title)))
    _console(buf, color).print(table)
    buf.write(f"{len(sigs)} signature(s)\n")
    return buf.getvalue()


class _Page:
    """Labelled lines on a rich console; values are shown literally, control characters removed."""

    def __init__(self, buf: io.StringIO, color: bool) -> None:
        self.c = _console(buf, color)

    def line(self, label: str, value: str, style: str = "bold") -> None:
        t = Text()
        t.append(label, style=style)
        t.append(safe(value))
        self.c.print(t)

    def heading(self, text: str, style: str) -> None:
        self.c.print(Text(text, style=style))

    def verbatim(self, text: str) -> None:
        self.c.print(Text(safe(text)))


def render_signature(sig: Signature, color: bool = False, differential: Sequence[Candidate] = ()) -> str:
    buf = io.StringIO()
    page = _Page(buf, color)
    _identity(page, sig)
    _knowledge(page, sig)
    _graph(page, sig, differential)
    _sources(page, sig)
    return buf.getvalue()


def _identity(page: _Page, sig: Signature) -> None:
    line = page.line
    line("", sig.title)
    line("id: ", sig.id, "dim")
    line("framework / scope / severity / priority: ", f"{sig.framework} / {sig.scope} / {sig.severity} / {sig.priority}", "dim")
    if sig.labels:
        line("labels: ", ", ".join(sig.labels), "dim")
    line("file: ", sig.path, "dim")
    line("message: ", sig.signature)
    line("regex: ", sig.regex)
    if sig.prefilter:
        line("prefilter: ", ", ".join(sig.prefilter))
    line("root cause: ", sig.root_cause)


def _knowledge(page: _Page, sig: Signature) -> None:
    """Dead ends and workarounds, in rank's order, and where they apply."""
    if sig.dead_ends:
        page.heading("dead ends:", "bold red")
        for d in sort_dead_ends(sig):
            page.line("  x ", f"{d.action or '(unnamed)'} - fails {rate_text(d.fail_rate, d.verification_tier)}: {d.why_fails}", "red")
    if sig.workarounds:
        page.heading("workarounds:", "bold green")
        for i, w in enumerate(sort_workarounds(sig), 1):
            page.line(f"  {i}. ", f"{w.action} - works {rate_text(w.success_rate, w.verification_tier)}", "green")
            for h in w.how.rstrip().splitlines():
                page.verbatim("       " + h)
    if sig.applies:
        page.line("applies: ", ", ".join(f"{k} {v}" for k, v in sig.applies))
    if sig.fixed_in:
        page.line("fixed in: ", ", ".join(f"{k} {v}" for k, v in sig.fixed_in))


def _graph(page: _Page, sig: Signature, differential: Sequence[Candidate]) -> None:
    """Edges to other signatures, what this one is a cause of, and the causes it could have."""
    line = page.line
    for name, edges in (("leads to", sig.leads_to), ("preceded by", sig.preceded_by), ("confused with", sig.confused_with)):
        for e in edges:
            line(f"{name}: ", e.id + (f" - {e.how_to_tell}" if e.how_to_tell else ""))
    if sig.cause is not None:
        line("cause of: ", ", ".join(sig.cause.of) + (f" ({sig.cause.family})" if sig.cause.family else ""))
        line("evidence: ", sig.cause.evidence)
        line("check: ", sig.cause.check)
        for t in sig.cause.threads:
            line("thread: ", t, "dim")
    if differential:
        page.heading("differential (candidate causes, most-confirmed first):", "bold")
        for i, cand in enumerate(differential, 1):
            kind = "" if cand.rnn is None else (" [RNN]" if cand.rnn else " [non-RNN]")
            ident = f" ({cand.id})" if cand.id else ""
            line(f"  {i}. ", f"{cand.cause}{ident}{kind} - {len(cand.threads)} thread(s)")
            page.verbatim("       check: " + cand.check)


def _sources(page: _Page, sig: Signature) -> None:
    line = page.line
    for r in sig.references:
        line("reference: ", f"{r.title} {r.url}".strip(), "dim")
    wordings = sig.raw.get("wordings") or []
    if wordings:
        line("releases covered: ", f"{len(wordings)} wording(s), each read by the regex")
        for w in wordings:
            line("  - ", f"{w.get('releases', '')}: {w.get('text', '')}".replace("\n", " / ")[:200], "dim")
    line("verification: ", sig.verification_tier or "not stated", "dim")
    line("examples: ", f"{len(sig.examples)}, counter-examples: {len(sig.counter_examples)}", "dim")

"""``cudnn-doctor triage``: many logs, a JSON line per log and a summary per signature.

Where each output goes: the summary to stdout (``-o FILE`` elsewhere, ``-o -`` stdout); ``--jsonl`` alone
(or ``--jsonl -``) puts the JSON lines on stdout, and then the summary goes to stderr unless ``-o`` says
otherwise; ``--jsonl=FILE`` writes them to a file; ``--json-output FILE`` / ``--markdown-output FILE``
write the summary in that format as well (several outputs from one scan, as CI wants them).
"""

from __future__ import annotations

import json
import sys
from argparse import Namespace
from typing import Any

from ..errors import UsageError
from .commands import EXIT_ERROR, EXIT_FOUND, EXIT_OK, CommandExit, err, load_catalog_or_report, write
from .options import to_count, to_path
from .progress import progress_for

SUMMARY_FORMATS = ("terminal", "markdown", "json")


def cmd_triage(ns: Namespace) -> int:
    from ..integrations.triage import Summary, run_dask, run_local
    from .config import settings

    values = settings(ns)
    fmt = values["format"] or "terminal"
    if fmt not in SUMMARY_FORMATS:
        raise UsageError(f"--format must be terminal, markdown or json, not {fmt!r}")
    jobs, workers = to_count(values["jobs"], "--jobs", 0), to_count(values["dask_workers"], "--dask-workers", 1)
    if values["jsonl"] == "-" and values["output"] == "-":
        raise UsageError("the JSON lines (--jsonl) and the summary (-o -) cannot both go to stdout: give one a FILE")
    spec = _spec(values)
    logs = _logs(values["paths"])
    records = run_dask(logs, spec, values["dask"], workers) if values["dask"] else run_local(logs, spec, jobs)
    summary = Summary()
    with progress_for("triage", len(logs), "logs") as progress:
        _collect(records, summary, values["jsonl"], progress)
    _write_summaries(summary, fmt, values)
    return EXIT_FOUND if summary.rows and not values["exit_zero"] else EXIT_OK


def _logs(paths: list[str]) -> list[str]:
    """The logs the paths name; the skipped files and the problems said on stderr (none: exit 2)."""
    from ..integrations.triage import expand

    skipped: list[str] = []
    logs, problems = expand(paths, skipped)
    for line in skipped:
        sys.stderr.write(f"warning: {line}\n")
    for problem in problems:
        err(problem)
    if not logs:
        if not problems:
            err("no log to read")
        raise CommandExit(EXIT_ERROR)
    return logs


def _write_summaries(summary: Any, fmt: str, values: dict[str, Any]) -> None:
    """The summary where -o says (stderr when the JSON lines hold stdout), and the extra formats' files."""
    from ..integrations.triage import render_summary

    report = render_summary(summary, fmt)
    if values["jsonl"] == "-" and values["output"] is None:
        sys.stderr.write(report)  # stdout holds the JSON lines
    else:
        write(report, to_path(values["output"]))
    for extra in ("json", "markdown"):
        if values[f"{extra}_output"]:
            write(render_summary(summary, extra), to_path(values[f"{extra}_output"]))


def _spec(values: dict[str, Any]) -> Any:
    """The knowledge base the workers load; a bad --signatures fails here, once, not in every worker."""
    from pathlib import Path

    from ..integrations.triage import CatalogSpec

    signatures, ignore = values["signatures"] or [], values["ignore"] or []
    load_catalog_or_report(signatures, values["no_builtin"], ignore)
    return CatalogSpec(tuple(str(Path(p).resolve()) for p in signatures), not values["no_builtin"], tuple(ignore))


def _collect(records: Any, summary: Any, jsonl: str | None, progress: Any) -> None:
    """Fold the records into the summary, writing each as a JSON line where ``jsonl`` says."""
    sink = None
    try:
        if jsonl == "-":
            sink = sys.stdout
        elif jsonl:
            sink = open(jsonl, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        for record in records:
            summary.add(record)
            progress.advance()
            if sink is not None:
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        raise UsageError(f"--jsonl {jsonl}: {exc.strerror or exc}") from None
    finally:
        if sink is not None and sink is not sys.stdout:
            sink.close()

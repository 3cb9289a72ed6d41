"""The bodies of ``diagnose`` and ``run`` and what every command shares (exit codes, writing, errors).

Free of typer: the console script (entry.py) calls these directly for the common commands, and the typer
commands in cli.py call the same functions. Neither entry.py nor cli.py is imported here.

Exit codes: 0 no finding, 1 at least one finding, 2 usage / input / signature error, 3 internal error,
128+N killed by signal N (130 interrupted). ``--exit-zero`` turns 1 into 0.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ..errors import DoctorError, SignatureError, UsageError
from ..render import Format
from .options import DiagnoseArgs, RunArgs

if TYPE_CHECKING:  # the pipeline is imported only when a command runs (start-up)
    from pathlib import Path
    from typing import Any, NoReturn

    from ..kb.load import Catalog
    from ..read.sources import Source
    from ..report import Diagnosis

EXIT_OK, EXIT_FOUND, EXIT_ERROR, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

COMMANDS = ("diagnose", "show", "list", "validate", "search", "env", "run", "schema", "mcp", "triage")

PASTE_PROMPT = (
    "Paste the log or traceback, then press Ctrl-D (Ctrl-Z then Enter on Windows), or enter two empty lines in a row."
)


class Reported(DoctorError):
    """An error whose messages were already printed (exit code 2)."""


class CommandExit(Exception):
    """Leave a command with an exit code (typer-free twin of typer.Exit)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def err(message: str) -> None:
    """One line on stderr: 'cudnn-doctor: error: ...', control characters made visible."""
    from ..read.textsafe import terminal_safe as safe

    sys.stderr.write(f"cudnn-doctor: error: {safe(message)}\n")


def note(message: str) -> None:
    from ..read.textsafe import terminal_safe as safe

    sys.stderr.write(f"cudnn-doctor: note: {safe(message)}\n")


def fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    err(message)
    raise CommandExit(code)


def load_catalog_or_report(signatures: list[Path] | None, no_builtin: bool) -> Any:
    """The catalog in force; every signature problem is printed (at most 200 lines) and Reported raised."""
    from ..kb.compiled import load_catalog

    try:
        return load_catalog([str(p) for p in signatures or []], builtin=not no_builtin)
    except SignatureError as exc:
        for problem in exc.problems[:200]:
            err(problem)
        if len(exc.problems) > 200:
            err(f"... and {len(exc.problems) - 200} more")
        raise Reported() from None


def write(text: str, output: Path | None) -> None:
    """The report to stdout, or to ``output`` (a UsageError if it cannot be written)."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{output}: cannot write: {exc.strerror or exc}") from exc


def color_for(stream: Any) -> bool:
    """Colour on ``stream``: NO_COLOR wins, then FORCE_COLOR, then whether it is a terminal."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def color() -> bool:
    return color_for(sys.stdout)


def emit_report(
    diagnosis: Any, lang: str, fmt: Format, output: Path | None, step_summary: bool, *, lead: str = "",
    human_to_stderr: bool = False,
) -> Any:
    """Build the report once, render it in ``fmt`` and write it (``output``, else stdout; the terminal report
    to stderr with ``human_to_stderr``), then the step summary; returns the report. ``lead`` goes before it."""
    from ..render import render
    from ..report import build_report

    record = build_report(diagnosis, lang)
    if output is not None:
        write(render(fmt, record, color=False), output)
    elif human_to_stderr and fmt is Format.terminal:
        sys.stderr.write(lead + render(fmt, record, color=color_for(sys.stderr)))
    else:
        write(lead + render(fmt, record, color=color() if fmt is Format.terminal else False), None)
    if step_summary:
        append_step_summary(record)
    return record


def append_step_summary(record: Any) -> None:
    from ..render import render

    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        err("--step-summary: GITHUB_STEP_SUMMARY is not set; skipped")
        return
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(render(Format.markdown, record))
    except OSError as exc:
        err(f"--step-summary: cannot append to {path}: {exc.strerror or exc}")


def _read_paste() -> bytes:
    sys.stderr.write(PASTE_PROMPT + "\n")
    sys.stderr.flush()
    lines: list[str] = []
    blank = 0
    for line in sys.stdin:
        if not line.strip():
            blank += 1
            if blank >= 2:
                break
        else:
            blank = 0
        lines.append(line)
    return "".join(lines).encode("utf-8", "surrogateescape")


def run_diagnose(args: DiagnoseArgs) -> int:
    """The diagnose command, for both the typer command and the console script's start-up path."""
    sources, problems = _sources(list(args.files))
    if problems and not sources:
        return EXIT_ERROR
    catalog = load_catalog_or_report(args.signatures, args.no_builtin)
    result = _diagnose(sources, catalog, args)
    if args.fmt == "terminal" and result.input_errors and not result.sources:
        for problem in result.input_errors:  # nothing was read: the error alone, not an empty report as well
            err(problem)
        return EXIT_ERROR
    record = emit_report(result, args.lang, Format(args.fmt), args.output, args.step_summary)
    for problem in result.input_errors:
        err(problem)
    if problems or result.input_errors:
        return EXIT_ERROR
    return EXIT_FOUND if record["findings"] and not args.exit_zero else EXIT_OK


def _sources(files: list[str]) -> tuple[list[Source], list[str]]:
    """The inputs: the files given, else stdin (piped), else what is pasted at the terminal; the problems
    with the files are reported here and returned."""
    from ..read.sources import sources_from_args, text_source

    if not files:
        if sys.stdin is None:
            raise UsageError("no input: give a log file or pipe one in")
        if sys.stdin.isatty():
            return [text_source(_read_paste(), "<paste>")], []
        files = ["-"]
    sources, problems = sources_from_args(files, getattr(sys.stdin, "buffer", None))
    for p in problems:
        err(p)
    return sources, problems


def _diagnose(sources: list[Source], catalog: Catalog, args: DiagnoseArgs) -> Diagnosis:
    """Diagnose the sources with a progress bar on stderr for big inputs."""
    from ..scan import Options, diagnose_sources

    progress = _progress(sources)
    try:
        return diagnose_sources(
            sources,
            catalog=catalog,
            options=Options(lang=args.lang, env=args.env, threshold=args.threshold, max_gzip_ratio=args.max_gzip_ratio),
            on_bytes=progress.advance if progress else None,
            strict_input=False,
        )
    finally:
        if progress:
            progress.stop()


def run_command(args: RunArgs) -> int:
    """The run command: run ``args.command``, pass its output through, diagnose it if it fails."""
    from ..scan import Options
    from .run import LaunchError, run

    if not args.command:
        raise UsageError("run: no command given (usage: cudnn-doctor run [OPTIONS] -- COMMAND [ARGS]...)")
    catalog = load_catalog_or_report(args.signatures, args.no_builtin)  # a bad --signatures fails now, not after hours
    try:
        result = run(args.command, catalog=catalog, options=Options(lang=args.lang, env=args.env, threshold=args.threshold))
    except LaunchError as exc:
        fail(str(exc), exc.code)
    if result.diagnosis is not None:
        fmt = Format(args.fmt or Format.terminal)
        # stdout is the command's: the human report goes to stderr, after the command's last line
        newline = result.stderr_newline if fmt is Format.terminal else result.stdout_newline
        emit_report(result.diagnosis, args.lang, fmt, args.output, args.step_summary,
                    lead="" if newline else "\n", human_to_stderr=True)
    return result.code


class _Progress:
    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

        self.p = Progress(
            "[progress.description]{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn(),
            console=Console(stderr=True), transient=True,
        )
        self.task = self.p.add_task("scanning", total=total)
        self.p.start()

    def advance(self, n: int) -> None:
        self.p.advance(self.task, n)

    def stop(self) -> None:
        self.p.stop()


def _progress(sources: list[Any]) -> _Progress | None:
    total = sum(s.size or 0 for s in sources)
    if total < (64 << 20) or not sys.stderr.isatty():
        return None
    return _Progress(total)

"""The bodies of ``diagnose`` and ``run`` and what every command shares (exit codes, writing, errors).

entry.py parses the command line (options.py) and calls ``cmd_diagnose`` / ``cmd_run`` with the namespace;
the configuration file's settings (config.py) fill in what the command line left out.

Exit codes: 0 no finding, 1 at least one finding, 2 usage / input / signature error, 3 internal error,
128+N killed by signal N (130 interrupted). ``--exit-zero`` turns 1 into 0.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import DoctorError, SignatureError, UsageError
from ..render import Format
from . import options as opts

if TYPE_CHECKING:  # the pipeline is imported only when a command runs (start-up)
    from argparse import Namespace
    from collections.abc import Iterator, Mapping, Sequence
    from pathlib import Path
    from typing import Any, NoReturn

    from ..kb.load import Catalog
    from ..read.sources import Source
    from ..report import Diagnosis

EXIT_OK, EXIT_FOUND, EXIT_ERROR, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
# a directory big enough to take more than a few seconds: said on stderr where no progress bar shows
BIG_DIRECTORY_FILES, BIG_DIRECTORY_BYTES = 1000, 256 << 20

COMMANDS = opts.COMMANDS

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


def load_catalog_or_report(signatures: Sequence[Path | str] | None, no_builtin: bool, ignore: Sequence[str] = ()) -> Any:
    """The catalog in force, less the ``ignore``d signatures; every signature problem is printed (at most 200
    lines) and Reported raised."""
    from ..kb.compiled import load_catalog

    try:
        with warnings_said():
            catalog = load_catalog([str(p) for p in signatures or []], builtin=not no_builtin)
    except SignatureError as exc:
        for problem in exc.problems[:200]:
            err(problem)
        if len(exc.problems) > 200:
            err(f"... and {len(exc.problems) - 200} more")
        raise Reported() from None
    return without(catalog, ignore) if ignore else catalog


@contextlib.contextmanager
def warnings_said() -> Iterator[None]:
    """Python warnings raised inside (kb.load.SkippedFileWarning: a file of a signature directory skipped) as
    one line each on stderr, each once."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for message in dict.fromkeys(str(w.message) for w in caught):
        sys.stderr.write(f"cudnn-doctor: warning: {safe_text(message)}\n")


def safe_text(message: str) -> str:
    from ..read.textsafe import terminal_safe

    return terminal_safe(message)


def without(catalog: Catalog, ignore: Sequence[str]) -> Catalog:
    """The catalog less the signatures named in ``ignore`` (--ignore, the configuration's ``ignore``); an id
    that names none is said once (a typo would otherwise ignore nothing without a word)."""
    import dataclasses

    known = {s.id for s in catalog.signatures}
    for sig_id in dict.fromkeys(ignore):
        if sig_id not in known:
            note(f"--ignore {sig_id}: no such signature{opts.suggest(sig_id, sorted(known))}")
    drop = set(ignore)
    return dataclasses.replace(catalog, signatures=[s for s in catalog.signatures if s.id not in drop])


def write(text: str, output: Path | None) -> None:
    """The report to stdout (``output`` None, or the path '-'), or to ``output`` (a UsageError if it cannot
    be written)."""
    if output is None or str(output) == "-":
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


@dataclass
class ReportArgs:
    """What ``diagnose`` or ``run`` was asked to do, checked and converted (from the command line and the
    configuration file alike)."""

    files: list[str] = field(default_factory=list)  # diagnose
    command: list[str] = field(default_factory=list)  # run
    fmt: Format | None = None  # None: terminal (run: on stderr)
    output: Path | None = None  # None: stdout
    outputs: list[tuple[Format, Path | None]] = field(default_factory=list)  # --<format>-output FILE
    signatures: list[Path] = field(default_factory=list)
    no_builtin: bool = False
    ignore: list[str] = field(default_factory=list)
    lang: str = "en"
    env: dict[str, str] = field(default_factory=dict)
    threshold: float = opts.DEFAULT_THRESHOLD
    step_summary: bool = False
    exit_zero: bool = False
    max_gzip_ratio: float = opts.DEFAULT_GZIP_RATIO

    @classmethod
    def from_values(cls, values: Mapping[str, Any], *, run: bool = False) -> ReportArgs:
        """Check and convert raw values (text, lists of text, True / None); ``run``: the terminal report goes
        to stderr."""
        args = cls(
            files=list(values.get("files") or []),
            command=list(values.get("command") or []),
            fmt=opts.to_format(values.get("format"), None),
            output=opts.to_path(values.get("output")),
            outputs=[(Format(f), opts.to_path(values[f"{f}_output"])) for f in opts.EXTRA_OUTPUTS if values.get(f"{f}_output")],
            signatures=opts.to_paths(values.get("signatures")),
            no_builtin=bool(values.get("no_builtin")),
            ignore=list(values.get("ignore") or []),
            lang=opts.to_lang(values.get("lang")),
            env=opts.to_env(values.get("env")),
            threshold=opts.to_threshold(values.get("threshold")),
            step_summary=bool(values.get("step_summary")),
            exit_zero=bool(values.get("exit_zero")),
            max_gzip_ratio=opts.to_ratio(values.get("max_gzip_ratio")),
        )
        to_stdout = [f.value for f, path in args.outputs if path is None]
        main_on_stdout = args.output is None and not (run and args.format is Format.terminal)
        if to_stdout and main_on_stdout:
            raise UsageError(f"the {args.format.value} report and the {to_stdout[0]} report cannot both go to stdout: "
                             "give one of them a FILE")
        if len(to_stdout) > 1:
            raise UsageError(f"the {to_stdout[0]} and {to_stdout[1]} reports cannot both go to stdout: give one a FILE")
        return args

    @property
    def format(self) -> Format:
        return self.fmt or Format.terminal


def emit_report(diagnosis: Any, args: ReportArgs, *, lead: str = "", human_to_stderr: bool = False) -> Any:
    """Build the report once, render it in each format asked for and write it (``output``, else stdout; the
    terminal report to stderr with ``human_to_stderr``), then the step summary; returns the report. ``lead``
    goes before the report on a stream."""
    from ..render import render
    from ..report import build_report

    record = build_report(diagnosis, args.lang)
    fmt = args.format
    if args.output is not None:
        write(render(fmt, record, color=False), args.output)
    elif human_to_stderr and fmt is Format.terminal:
        sys.stderr.write(lead + render(fmt, record, color=color_for(sys.stderr)))
    else:
        write(lead + render(fmt, record, color=color() if fmt is Format.terminal else False), None)
    for extra, path in args.outputs:
        write(render(extra, record, color=False), path)
    if args.step_summary:
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


def cmd_diagnose(ns: Namespace) -> int:
    """``cudnn-doctor diagnose``: the command line's values, completed by the configuration file."""
    from .config import settings

    return run_diagnose(ReportArgs.from_values(settings(ns)))


def cmd_run(ns: Namespace) -> int:
    """``cudnn-doctor run``."""
    from .config import settings

    return run_command(ReportArgs.from_values(settings(ns), run=True))


def run_diagnose(args: ReportArgs) -> int:
    """The diagnose command."""
    sources, problems = _sources(list(args.files))
    if problems and not sources:
        return EXIT_ERROR
    catalog = load_catalog_or_report(args.signatures, args.no_builtin, args.ignore)
    result = _diagnose(sources, catalog, args)
    if not result.sources and not result.input_errors and sources:  # every file of a directory (a zip) skipped
        result.input_errors.append(f"{', '.join(args.files)}: no text log read (every file was skipped)")
    if args.format is Format.terminal and result.input_errors and not result.sources:
        return _nothing_read(result)
    record = emit_report(result, args)
    for problem in result.input_errors:
        err(problem)
    if problems or result.input_errors:
        return EXIT_ERROR
    return EXIT_FOUND if record["findings"] and not args.exit_zero else EXIT_OK


def _nothing_read(result: Diagnosis) -> int:
    """Nothing was read: the skipped files, each named once, and the error alone (not an empty report)."""
    for warning in result.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    for problem in result.input_errors:
        err(problem)
    return EXIT_ERROR


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


def _diagnose(sources: list[Source], catalog: Catalog, args: ReportArgs) -> Diagnosis:
    """Diagnose the sources, with a progress bar on a terminal when it takes over 2 s (progress.py)."""
    from ..scan import Options, diagnose_sources
    from .progress import progress_for

    total = sum(s.size or 0 for s in sources)
    with progress_for("scanning", total or None, "bytes", args.format.value) as progress:
        if not progress.enabled:
            _say_what_is_read(sources)
        return diagnose_sources(
            sources,
            catalog=catalog,
            options=Options(lang=args.lang, env=args.env, threshold=args.threshold, max_gzip_ratio=args.max_gzip_ratio),
            on_bytes=progress.advance if progress.enabled else None,
            strict_input=False,
        )


def _say_what_is_read(sources: list[Source]) -> None:
    """A big directory read where no progress bar shows (stderr not a terminal, a CI format): one line on stderr
    first, so that a CI log or a pipe does not look stuck for the minutes it may take."""
    files = [s for s in sources if s.from_directory]
    size = sum(s.size or 0 for s in files)
    if len(files) >= BIG_DIRECTORY_FILES or size >= BIG_DIRECTORY_BYTES:
        note(f"reading {len(files):,} files ({size / (1 << 20):,.0f} MiB); the report follows")


def run_command(args: ReportArgs) -> int:
    """The run command: run ``args.command``, pass its output through, diagnose it if it fails."""
    from ..scan import Options
    from .run import LaunchError, run

    if not args.command:
        raise UsageError("run: no command given (usage: cudnn-doctor run [OPTIONS] -- COMMAND [ARGS]...)")
    catalog = load_catalog_or_report(args.signatures, args.no_builtin, args.ignore)  # a bad --signatures fails now, not after hours
    try:
        result = run(args.command, catalog=catalog, options=Options(lang=args.lang, env=args.env, threshold=args.threshold))
    except LaunchError as exc:
        fail(str(exc), exc.code)
    diagnosis = result.diagnosis
    for problem in diagnosis.input_errors if diagnosis is not None else ():
        err(f"the command's output was not diagnosed: {problem}")  # e.g. binary output, refused
    if diagnosis is not None and (diagnosis.sources or not diagnosis.input_errors):
        # stdout is the command's: the human report goes to stderr, after the command's last line
        newline = result.stderr_newline if args.format is Format.terminal else result.stdout_newline
        emit_report(result.diagnosis, args, lead="" if newline else "\n", human_to_stderr=True)
    return result.code

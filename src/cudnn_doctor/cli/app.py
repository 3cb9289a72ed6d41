"""Command-line interface: a thin typer layer over the library and commands.py.

``diagnose`` and ``run`` are built from the option tables in cliopts.py (the console script parses those two
without typer: entry.py); every other command is declared here. Add a command with ``@command()``: its
DoctorError becomes one line and exit code 2. This module never imports entry.py.

Exit codes: 0 no finding, 1 at least one finding, 2 usage / input / signature error, 3 internal error,
128+N killed by signal N (130 interrupted). ``--exit-zero`` turns 1 into 0.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Optional

import typer

from ..errors import DoctorError, SignatureError, UsageError
from . import options as cliopts
from .commands import (
    COMMANDS,
    EXIT_ERROR,
    EXIT_FOUND,
    EXIT_INTERRUPTED,
    EXIT_OK,
    CommandExit,
    Reported,
    err,
    run_command,
    run_diagnose,
    write,
)
from .commands import color as _color
from .commands import load_catalog_or_report as _catalog

__all__ = ["COMMANDS", "app", "run_app"]

_err, _write = err, write  # short names the command bodies below use


app = typer.Typer(
    name="cudnn-doctor",
    help="Diagnose cuDNN RNN (LSTM/GRU) errors: root cause, dead ends, ranked workarounds.",
    add_completion=False,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# typer >= 0.2x carries its own copy of click (typer._click); older ones use click. Both are reached
# through typer's public names, so this works with every typer the pyproject range admits.
_CLICK_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
_EXITS: tuple[type[BaseException], ...] = tuple({typer.Exit, *(c for c in typer.Exit.__mro__ if c.__name__ == "Exit")})


def run_app(args: Sequence[str]) -> int:
    """Run the typer app on ``args``; typer's own usage errors become one line and exit code 2."""
    try:
        rc = app(args=list(args), prog_name="cudnn-doctor", standalone_mode=False)
    except _EXITS as exc:
        return int(getattr(exc, "exit_code", EXIT_OK) or 0)
    except typer.Abort:
        err("interrupted")
        return EXIT_INTERRUPTED
    except _CLICK_ERROR as exc:
        ctx = getattr(exc, "ctx", None)
        where = getattr(ctx, "command_path", "") or "cudnn-doctor"
        message = exc.format_message().rstrip(".")  # type: ignore[attr-defined]
        err(f"{message}; see {where} --help" if getattr(exc, "ctx", None) is not None else message)
        return EXIT_ERROR
    return rc if isinstance(rc, int) else EXIT_OK


def command(*names: str, **kwargs: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a command whose DoctorError becomes a one-line message and exit code 2 (runner and main alike)."""

    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(fn)
        def run(*args: Any, **kw: Any) -> None:
            try:
                fn(*args, **kw)
            except CommandExit as exc:
                raise typer.Exit(exc.code) from None
            except Reported:
                raise typer.Exit(EXIT_ERROR) from None
            except DoctorError as exc:
                err(str(exc))
                raise typer.Exit(EXIT_ERROR) from None

        return app.command(*names, **kwargs)(run)

    return wrap


def from_table(table: Sequence[cliopts.Opt], *leading: inspect.Parameter) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a ``**values`` command body the typer parameters of an option table (cliopts.py): every value
    arrives as text and is checked by the same converters the start-up parser uses."""
    params = list(leading)
    for opt in table:
        if opt.kind == "flag":
            default, annotation = typer.Option(False, *opt.flags, help=opt.help), bool
        elif opt.kind == "multi":
            default = typer.Option(None, *opt.flags, help=opt.help, metavar=opt.metavar, show_default=False)
            annotation = Optional[list[str]]
        else:
            default = typer.Option(None, *opt.flags, help=opt.help, metavar=opt.metavar, show_default=False)
            annotation = Optional[str]
        params.append(inspect.Parameter(opt.dest, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))

    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        fn.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        fn.__annotations__ = {p.name: p.annotation for p in params}
        return fn

    return wrap


_FILES = inspect.Parameter(
    "files", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Optional[list[str]],
    default=typer.Argument(None, metavar="[FILES]...", help="Log files, directories or '-' for stdin (default: stdin or paste)."),
)


@command()
@from_table(cliopts.DIAGNOSE_OPTIONS, _FILES)
def diagnose(**values: Any) -> None:
    """Diagnose a log or traceback (files, stdin, or pasted interactively)."""
    raise typer.Exit(run_diagnose(cliopts.DiagnoseArgs.from_values(values)))


_CTX = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)


@command(
    "run",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "allow_interspersed_args": False},
    options_metavar="[OPTIONS] [--] COMMAND [ARGS]...",
)
@from_table(cliopts.RUN_OPTIONS, _CTX)
def run_cmd(ctx: typer.Context, **values: Any) -> None:
    """Run a command (cudnn-doctor run -- python train.py); if it fails, diagnose its output. Exits with its code."""
    raise typer.Exit(run_command(cliopts.RunArgs.from_values({**values, "command": ctx.args})))


SignaturesOpt = typer.Option(
    None, "--signatures", "-s", help="Extra signature directory or file (repeatable; also $CUDNN_DOCTOR_SIGNATURES)."
)
NoBuiltinOpt = typer.Option(False, "--no-builtin", help="Use only the signatures given with --signatures.")


@command()
def show(
    sig_id: str = typer.Argument(..., metavar="ID", help="Signature id, e.g. pytorch/rnn-hidden-size-mismatch."),
    fmt: str = typer.Option("terminal", "--format", "-f", help="terminal, json or yaml."),
    signatures: Optional[list[Path]] = SignaturesOpt,
    no_builtin: bool = NoBuiltinOpt,
) -> None:
    """Show one signature's full record."""
    catalog = _catalog(signatures, no_builtin)
    sig = catalog.get(sig_id)
    if sig is None:
        close = [s.id for s in catalog.signatures if sig_id.split("/")[-1] in s.id][:5]
        hint = f" (did you mean: {', '.join(close)}?)" if close else " (see `cudnn-doctor list`)"
        raise UsageError(f"no signature with id {sig_id!r}{hint}")
    from ..kb.build import build_signature
    from ..kb.load import read_record

    record = read_record(Path(sig.path))  # the file as written (the cached catalog has no examples)
    if isinstance(record, dict):
        sig = build_signature(record, Path(sig.path), sig.builtin)
    if fmt == "json":
        import json

        _write(json.dumps(dict(sig.raw), indent=2, ensure_ascii=False) + "\n", None)
    elif fmt == "yaml":
        import yaml

        _write(yaml.safe_dump(dict(sig.raw), sort_keys=False, allow_unicode=True, width=110), None)
    elif fmt == "terminal":
        from ..rank.differential import candidates, causes_of
        from ..render.show import render_signature

        differential = candidates(sig, catalog.by_id, causes_of(catalog.signatures))
        _write(render_signature(sig, color=_color(), differential=differential), None)
    else:
        raise UsageError(f"--format must be terminal, json or yaml, not {fmt!r}")


@command("list")
def list_(
    framework: Optional[str] = typer.Option(None, "--framework", help="Only this framework (e.g. pytorch)."),
    scope: Optional[str] = typer.Option(None, "--scope", help="Only this scope: rnn, cudnn or cuda."),
    severity: Optional[str] = typer.Option(None, "--severity", help="Only error or warning."),
    fmt: str = typer.Option("terminal", "--format", "-f", help="terminal or json."),
    signatures: Optional[list[Path]] = SignaturesOpt,
    no_builtin: bool = NoBuiltinOpt,
) -> None:
    """List signatures (id, framework, scope, title)."""
    if fmt not in ("terminal", "json"):
        raise UsageError(f"list: --format must be terminal or json, not {fmt!r}")
    catalog = _catalog(signatures, no_builtin)
    for name, value, known in (
        ("--framework", framework, {s.framework for s in catalog.signatures}),
        ("--scope", scope, {"rnn", "cudnn", "cuda"}),
        ("--severity", severity, {"error", "warning"}),
    ):
        if value is not None and value not in known:
            raise UsageError(f"list: unknown {name} {value!r}{cliopts.suggest(value, sorted(known))} (known: {', '.join(sorted(known))})")
    rows = [
        s
        for s in catalog.signatures
        if (framework is None or s.framework == framework)
        and (scope is None or s.scope == scope)
        and (severity is None or s.severity == severity)
    ]
    if fmt == "json":
        import json

        data = [{"id": s.id, "framework": s.framework, "scope": s.scope, "severity": s.severity, "title": s.title} for s in rows]
        _write(json.dumps(data, indent=2, ensure_ascii=False) + "\n", None)
        return
    from ..render.show import render_list

    _write(render_list(rows, color=_color(), terminal=sys.stdout.isatty()), None)


@command()
def search(
    words: list[str] = typer.Argument(..., help="Words to look for in ids, titles, messages and root causes."),
    signatures: Optional[list[Path]] = SignaturesOpt,
    no_builtin: bool = NoBuiltinOpt,
) -> None:
    """Find signatures by text (all words must occur)."""
    from ..kb.compiled import load_catalog
    from ..kb.search import search_signatures
    from ..render.show import render_list

    try:  # uncached: the search also looks at the signatures' examples
        catalog = load_catalog([str(p) for p in signatures or []], builtin=not no_builtin, use_cache=False)
    except SignatureError:
        catalog = _catalog(signatures, no_builtin)
    hits = search_signatures(catalog, words)
    if not hits:
        _err(f"no signature mentions {' '.join(words)!r}")
        raise typer.Exit(EXIT_FOUND)
    _write(render_list(hits, color=_color(), terminal=sys.stdout.isatty()), None)


@command()
def validate(
    paths: Optional[list[Path]] = typer.Argument(None, help="Signature files or directories (default: the built-in base)."),
    strict: bool = typer.Option(False, "--strict", help="Also enforce the knowledge-base quality rules."),
) -> None:
    """Check signature files: schema, regexes, examples, counter-examples, unique ids."""
    from .validate import validate_paths

    prefixes: list[str] = []
    problems, warnings, count = validate_paths([str(p) for p in paths or []], strict=strict, prefixes=prefixes)
    for line in prefixes:  # how short a cut message may be and still be read as the signature
        sys.stdout.write(f"prefix: {line}\n")
    for w in warnings:
        sys.stderr.write(f"warning: {w}\n")
    for p in problems:
        _err(p)
    if problems:
        sys.stderr.write(f"{len(problems)} problem(s) in {count} signature(s)\n")
        raise typer.Exit(EXIT_ERROR)
    sys.stdout.write(f"ok: {count} signature(s) valid\n")


@command("env")
def env_cmd(fmt: str = typer.Option("terminal", "--format", "-f", help="terminal or json.")) -> None:
    """Print the frameworks, cuDNN and CUDA found on this machine (no framework needs to be installed)."""
    from ..env.local import describe_local

    _write(describe_local(fmt), None)


@command("schema")
def schema_cmd(
    which: str = typer.Argument("signature", metavar="[signature|output]", help="Which schema: signature files (default) or the JSON report."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write it to a file instead of stdout."),
) -> None:
    """Print a JSON Schema: the signature file format (for an editor's YAML support) or the JSON report."""
    from importlib.resources import files

    if which not in ("signature", "output"):
        raise UsageError(f"schema: which schema, signature or output, not {which!r}")
    write(files("cudnn_doctor").joinpath("data", f"{which}.schema.json").read_text("utf-8"), output)


@command("mcp")
def mcp_cmd() -> None:
    """Serve the Model Context Protocol on stdin/stdout for coding agents (needs the optional extra mcp)."""
    from ..integrations.mcp import serve

    if sys.stdin is not None and sys.stdin.isatty():
        sys.stderr.write("cudnn-doctor mcp: serving the Model Context Protocol on stdin/stdout, for an MCP client "
                         "to start (see README.md); Ctrl-C to stop\n")
    serve()


@command()
def triage(
    paths: list[str] = typer.Argument(..., help="Logs: files, directories, globs ('ci/**/*.log'), .gz, or fsspec URLs (s3://...)."),
    jsonl: Optional[str] = typer.Option(None, "--jsonl", help="Write one JSON line per log to this file ('-' = stdout)."),
    fmt: str = typer.Option("terminal", "--format", "-f", help="Summary per signature: terminal, markdown or json."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the summary to a file instead of stdout."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Local worker processes (default: one per CPU)."),
    dask: Optional[str] = typer.Option(None, "--dask", help="Run on a Dask cluster: a scheduler address or 'local'."),
    dask_workers: int = typer.Option(2, "--dask-workers", min=1, help="Workers of a --dask local cluster."),
    signatures: Optional[list[Path]] = SignaturesOpt,
    no_builtin: bool = NoBuiltinOpt,
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when something is found."),
) -> None:
    """Diagnose many logs (a week of failed CI jobs): a JSON line per log and a summary per signature."""
    from ..integrations.triage import CatalogSpec, Summary, expand, render_summary, run_dask, run_local

    if fmt not in ("terminal", "markdown", "json"):
        raise UsageError(f"--format must be terminal, markdown or json, not {fmt!r}")
    _catalog(signatures, no_builtin)  # a bad --signatures fails here, once, not in every worker
    spec = CatalogSpec(tuple(str(p.resolve()) for p in signatures or []), not no_builtin)
    logs, problems = expand(paths)
    for problem in problems:
        _err(problem)
    if not logs:
        raise CommandExit(EXIT_ERROR)
    records = run_dask(logs, spec, dask, dask_workers) if dask else run_local(logs, spec, jobs)
    summary = Summary()
    sink = None
    try:
        if jsonl == "-":
            sink = sys.stdout
        elif jsonl:
            sink = open(jsonl, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        import json

        for record in records:
            summary.add(record)
            if sink is not None:
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise UsageError(f"--jsonl {jsonl}: {exc.strerror or exc}") from None
    finally:
        if sink is not None and sink is not sys.stdout:
            sink.close()
    report = render_summary(summary, fmt)
    if jsonl == "-" and output is None:
        sys.stderr.write(report)
    else:
        _write(report, output)
    raise typer.Exit(EXIT_FOUND if summary.rows and not exit_zero else 0)

"""The command line's one parser: every command's options, declared once with argparse.

``parser_for(command)`` builds the parser of one command (what a run needs: the common case, a pasted
traceback, does not build the other nine); ``full_parser()`` builds them all under one program, for
``--help`` and for shell completion (completion.py). Values stay text here and are checked by the converters
below, the same for the command line and the configuration file (config.py), so a mistake gives the same one
line and exit code 2 from either.

argparse over typer: typer's import alone cost ~120 ms of CPU per run here, more than a diagnosis of a pasted
traceback (bench/startup.py); argparse is in the standard library and ``shtab`` turns the same parser into
bash and zsh completion.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..render import Format

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

LANGS = ("en", "zh")
DEFAULT_THRESHOLD = 0.5  # rank.CONFIDENCE_THRESHOLD (not imported: rank is not needed to parse a command line)
DEFAULT_GZIP_RATIO = 50.0  # read.sources.GZIP_MAX_RATIO
FORMATS = tuple(f.value for f in Format)
# --<format>-output FILE: the same report in another format, beside the one on stdout (Semgrep's convention)
EXTRA_OUTPUTS = ("json", "sarif", "junit", "gitlab", "markdown")
COMMANDS = ("diagnose", "show", "list", "validate", "search", "env", "run", "schema", "mcp", "triage", "completion")
SHELLS = ("bash", "zsh", "fish")

DESCRIPTIONS = {
    "diagnose": "Diagnose a log or traceback (files, directories, '-' for stdin, or pasted interactively).",
    "run": "Run a command (cudnn-doctor run -- python train.py); if it fails, diagnose its output. Exits with its code.",
    "show": "Show one signature's full record.",
    "list": "List signatures (id, framework, scope, title).",
    "search": "Find signatures by text (all words must occur).",
    "validate": "Check signature files: schema, regexes, examples, counter-examples, unique ids.",
    "env": "Print the frameworks, cuDNN and CUDA found on this machine (no framework needs to be installed).",
    "schema": "Print a JSON Schema: the signature file format (for an editor's YAML support) or the JSON report.",
    "mcp": "Serve the Model Context Protocol on stdin/stdout for coding agents (needs the optional extra mcp).",
    "triage": "Diagnose many logs (a week of failed CI jobs): a JSON line per log and a summary per signature.",
    "completion": "Print (or --install) the shell completion script for bash, zsh or fish.",
}


class Parser(argparse.ArgumentParser):
    """argparse, with every mistake raised as one UsageError line naming the command's --help."""

    def error(self, message: str) -> Any:  # argparse's hook: it would print the usage and exit
        raise UsageError(f"{_plain(message, self)}; see {self.prog} --help")


def _plain(message: str, parser: argparse.ArgumentParser) -> str:
    """argparse's wording, said the way the rest of cudnn-doctor says it."""
    head, _, rest = message.partition(": ")
    if message.startswith("unrecognized arguments: "):
        word = rest.split()[0]
        return f"no such option: {word}{_close_option(word, parser)}" if word.startswith("-") else f"unexpected argument {word!r}"
    if head.startswith("argument ") and rest == "expected one argument":
        return f"option {head[9:].split('/')[-1]} needs a value"
    if head.startswith("argument ") and rest.startswith("ignored explicit argument"):
        return f"option {head[9:].split('/')[-1]} takes no value"
    if message.startswith("the following arguments are required: "):
        return f"missing {rest}"
    return message


def _close_option(word: str, parser: argparse.ArgumentParser) -> str:
    flags = [f for action in parser._actions for f in action.option_strings if f.startswith("--")]
    return suggest(word.partition("=")[0], flags)


def suggest(word: str, choices: Sequence[str]) -> str:
    """' (did you mean X?)' for a near miss among ``choices``, else ''."""
    import difflib  # only for a mistake: not on every start-up

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


# --------------------------------------------------------------------------- the options, once


def _catalog_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-s", "--signatures", action="append", metavar="PATH",
                   help="extra signature directory or file (repeatable; also $CUDNN_DOCTOR_SIGNATURES)")
    p.add_argument("--no-builtin", action="store_true", default=None, help="use only the signatures given with --signatures")
    p.add_argument("--ignore", action="append", metavar="ID", help="never report this signature (repeatable)")


def _config_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="read settings from this file instead of the nearest "
                   "cudnn-doctor.toml or pyproject.toml [tool.cudnn-doctor]")
    p.add_argument("--no-config", action="store_true", help="read no configuration file")


def _report_options(p: argparse.ArgumentParser, *, stream: str) -> None:
    p.add_argument("-f", "--format", metavar="FORMAT", help=f"report format: {', '.join(FORMATS)} (default terminal, {stream})")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead ('-': stdout)")
    for fmt in EXTRA_OUTPUTS:
        p.add_argument(f"--{fmt}-output", metavar="FILE", help=f"also write the {fmt} report to FILE")
    p.add_argument("--lang", metavar="LANG", help="language of the report: en or zh (falls back to en per field)")
    p.add_argument("--env", action="append", metavar="COMPONENT=VERSION",
                   help="override a detected version, e.g. --env torch=2.2.0 (repeatable)")
    p.add_argument("--threshold", metavar="FLOAT", help=f"minimum confidence of a finding, 0 to 1 (default {DEFAULT_THRESHOLD})")
    p.add_argument("--step-summary", action="store_true", default=None, help="also append a markdown report to $GITHUB_STEP_SUMMARY")
    _catalog_options(p)
    _config_options(p)


def _diagnose(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="*", metavar="FILE", help="log files, directories, '-' for stdin (default: stdin or paste)")
    _report_options(p, stream="stdout")
    p.add_argument("--exit-zero", action="store_true", default=None, help="exit 0 even when something is found")
    p.add_argument("--max-gzip-ratio", metavar="N", help="a compressed log may expand to N times its size "
                   f"(default {DEFAULT_GZIP_RATIO:g}; 0: no limit)")


def _run(p: argparse.ArgumentParser) -> None:
    _report_options(p, stream="stderr")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="COMMAND [ARGS]...", help="the command to run (after --)")


def _show(p: argparse.ArgumentParser) -> None:
    p.add_argument("sig_id", metavar="ID", help="signature id, e.g. pytorch/rnn-hidden-size-mismatch")
    p.add_argument("-f", "--format", default="terminal", metavar="FORMAT", help="terminal, json or yaml")
    _catalog_options(p)


def _list(p: argparse.ArgumentParser) -> None:
    p.add_argument("--framework", metavar="NAME", help="only this framework (e.g. pytorch)")
    p.add_argument("--scope", metavar="SCOPE", help="only this scope: rnn, cudnn or cuda")
    p.add_argument("--severity", metavar="SEVERITY", help="only error or warning")
    p.add_argument("-f", "--format", default="terminal", metavar="FORMAT", help="terminal or json")
    _catalog_options(p)


def _search(p: argparse.ArgumentParser) -> None:
    p.add_argument("words", nargs="+", metavar="WORD", help="words to look for in ids, titles, messages and root causes")
    _catalog_options(p)


def _validate(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="signature files or directories (default: the built-in base)")
    p.add_argument("--strict", action="store_true", help="also enforce the knowledge-base quality rules")


def _env(p: argparse.ArgumentParser) -> None:
    p.add_argument("-f", "--format", default="terminal", metavar="FORMAT", help="terminal or json")


def _schema(p: argparse.ArgumentParser) -> None:
    p.add_argument("which", nargs="?", default="signature", metavar="{signature,output}",
                   help="which schema: signature files (default) or the JSON report")
    p.add_argument("-o", "--output", metavar="FILE", help="write it to FILE instead of stdout")


def _triage(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="logs: files, directories, globs ('ci/**/*.log'), compressed logs, or fsspec URLs (s3://...)")
    p.add_argument("--jsonl", nargs="?", const="-", metavar="FILE",
                   help="one JSON line per log, on stdout (then the summary goes to stderr), or to --jsonl=FILE")
    p.add_argument("-f", "--format", default=None, metavar="FORMAT", help="summary per signature: terminal, markdown or json")
    p.add_argument("-o", "--output", metavar="FILE", help="write the summary to FILE instead ('-': stdout)")
    for fmt in ("json", "markdown"):
        p.add_argument(f"--{fmt}-output", metavar="FILE", help=f"also write the {fmt} summary to FILE")
    p.add_argument("-j", "--jobs", default="0", metavar="N", help="local worker processes (default: one per CPU)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster: a scheduler address or 'local'")
    p.add_argument("--dask-workers", default="2", metavar="N", help="workers of a --dask local cluster")
    p.add_argument("--exit-zero", action="store_true", default=None, help="exit 0 even when something is found")
    _catalog_options(p)
    _config_options(p)


def _completion(p: argparse.ArgumentParser) -> None:
    p.add_argument("shell", nargs="?", metavar="{bash,zsh,fish}", help="the shell (default: the one in $SHELL)")
    p.add_argument("--install", action="store_true", help="write it where the shell looks for completions, and say where")


_BUILDERS = {
    "diagnose": _diagnose, "run": _run, "show": _show, "list": _list, "search": _search, "validate": _validate,
    "env": _env, "schema": _schema, "mcp": lambda p: None, "triage": _triage, "completion": _completion,
}


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, the terminal's width found without importing shutil: argparse makes a formatter
    for every option it adds, and shutil (with the compression modules it imports) cost each start ~4 ms."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)


def _columns() -> int:
    """What shutil.get_terminal_size().columns says: $COLUMNS, else the terminal's width, else 80."""
    import os
    import sys

    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _new(prog: str, description: str, **kwargs: Any) -> Parser:
    kwargs.setdefault("formatter_class", _Formatter)
    return Parser(prog=prog, description=description, allow_abbrev=False, **kwargs)


def parser_for(command: str) -> Parser:
    """The parser of one command."""
    p = _new(f"cudnn-doctor {command}", DESCRIPTIONS[command])
    _BUILDERS[command](p)
    return p


def full_parser() -> Parser:
    """Every command under one program: top-level --help and shell completion."""
    top = _new("cudnn-doctor", "Diagnose cuDNN RNN (LSTM/GRU) errors: root cause, dead ends, ranked workarounds. "
               "A first word that is no command is a log for diagnose (cudnn-doctor train.log).")
    top.add_argument("--version", action="store_true", help="print the version")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        _BUILDERS[name](sub.add_parser(name, help=DESCRIPTIONS[name].split(":")[0].rstrip("."),
                                       description=DESCRIPTIONS[name], allow_abbrev=False))
    return top


def parse(command: str, argv: Sequence[str]) -> argparse.Namespace:
    """The namespace of raw values (text, lists of text, True or None for what was not given)."""
    parser = parser_for(command)
    if command == "run":
        args = parser.parse_args(argv)
        if args.command[:1] == ["--"]:
            args.command = args.command[1:]
        return args
    rest = LISTS.get(command)
    if rest is None:
        return parser.parse_args(argv)
    if command == "triage":
        argv = jsonl_value(argv)
    # options and positionals in any order; '--' ends the options (parse_intermixed_args mishandles it)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_intermixed_args(argv[:cut])
    setattr(args, rest, [*getattr(args, rest), *argv[cut + 1 :]])
    return args


LISTS = {"diagnose": "files", "triage": "paths", "search": "words", "validate": "paths"}  # repeated positionals


def jsonl_value(argv: Sequence[str]) -> list[str]:
    """``--jsonl WORD`` does what it looks like: WORD is the output file only when it is named like one
    (``.jsonl``/``.ndjson``, not a directory) or is '-'; else --jsonl alone (stdout) and WORD is a log."""
    import os

    out = list(argv)
    for i, arg in enumerate(out[:-1]):
        if arg == "--":
            break
        word = out[i + 1]
        if arg == "--jsonl" and not (word == "-" or (word.endswith((".jsonl", ".ndjson")) and not os.path.isdir(word))):
            out[i] = "--jsonl=-"
    return out


# --------------------------------------------------------------------------- converters (command line and config)


def to_format(value: str | Format | None, default: Format | None = Format.terminal, option: str = "--format") -> Format | None:
    if value is None:
        return default
    try:
        return Format(value)
    except ValueError:
        raise UsageError(f"{option} must be one of {', '.join(FORMATS)}, not {value!r}") from None


def to_lang(value: str | None) -> str:
    if value is None:
        return "en"
    if value not in LANGS:
        raise UsageError(f"--lang must be en or zh, not {value!r}")
    return value


def to_threshold(value: str | float | None) -> float:
    if value is None:
        return DEFAULT_THRESHOLD
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"--threshold must be a number from 0 to 1, not {value!r}") from None
    if not 0.0 <= number <= 1.0:
        raise UsageError(f"--threshold must be from 0 to 1, not {value}")
    return number


def to_env(pairs: Sequence[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        key, sep, value = str(pair).partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UsageError(f"--env expects COMPONENT=VERSION (e.g. torch=2.2.0), got {pair!r}")
        out[key.strip().lower()] = value.strip()
    return out


def to_ratio(value: str | float | None) -> float:
    if value is None:
        return DEFAULT_GZIP_RATIO
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = -1.0
    if number < 0 or number != number:
        raise UsageError(f"--max-gzip-ratio must be a number >= 0 (0: no limit), not {value!r}")
    return number


def to_count(value: str | int, option: str, least: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = least - 1
    if number < least:
        raise UsageError(f"{option} must be a whole number >= {least}, not {value!r}")
    return number


def to_path(value: str | None) -> Path | None:
    """A path option; None for none given and for '-' (stdout)."""
    if value is None or value in ("", "-"):
        return None
    from pathlib import Path  # here: a paste with no path option does not import pathlib (start-up)

    return Path(value)


def to_paths(values: Sequence[str] | None) -> list[Path]:
    if not values:
        return []
    from pathlib import Path

    return [Path(p) for p in values]

"""The options of ``diagnose`` and ``run``, defined once, and the start-up parser that reads them.

One table (``DIAGNOSE_OPTIONS``, ``RUN_OPTIONS``) feeds both the typer commands (cli.py builds their
parameters from it, for ``--help`` and typer's test runner) and ``parse``, the typer-free parser the console
script uses for these two commands (building typer's command tree costs more than a diagnosis). Values are
checked by the same converters on both paths (``DiagnoseArgs.from_values``), so a mistake gives the same one
line and exit code 2 whichever parser read it. Adding an option = one ``Opt`` row and one dataclass field.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..render import Format

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

LANGS = ("en", "zh")
DEFAULT_THRESHOLD = 0.5  # rank.CONFIDENCE_THRESHOLD (not imported: rank is not needed to parse a command line)
DEFAULT_GZIP_RATIO = 50.0  # input.GZIP_MAX_RATIO


if TYPE_CHECKING:
    from typing import NamedTuple

    class Opt(NamedTuple):
        """One command-line option: ``kind`` is 'flag' (no value), 'value' (the last one given wins) or 'multi'
        (repeatable, a list). ``dest`` is the DiagnoseArgs/RunArgs field; the converter runs in from_values.
        (A NamedTuple, not a dataclass: built at every start-up, and cheaper to define.)"""

        dest: str
        flags: tuple[str, ...]
        kind: str
        help: str
        metavar: str = "TEXT"

else:  # typing.NamedTuple's class, without importing typing (start-up)
    Opt = namedtuple("Opt", ("dest", "flags", "kind", "help", "metavar"), defaults=("TEXT",))


def _opt(dest: str, *flags: str, kind: str = "value", help: str, metavar: str = "TEXT") -> Opt:
    return Opt(dest, flags, kind, help, metavar)


_FORMATS = ", ".join(f.value for f in Format)
_SIGNATURES = _opt("signatures", "--signatures", "-s", kind="multi", metavar="PATH",
                   help="Extra signature directory or file (repeatable; also $CUDNN_DOCTOR_SIGNATURES).")
_NO_BUILTIN = _opt("no_builtin", "--no-builtin", kind="flag", help="Use only the signatures given with --signatures.")
_LANG = _opt("lang", "--lang", help="Language of the report: en or zh (falls back to en per field).")
_ENV = _opt("env", "--env", kind="multi", metavar="COMPONENT=VERSION",
            help="Override a detected version, e.g. --env torch=2.2.0 (repeatable).")
_THRESHOLD = _opt("threshold", "--threshold", metavar="FLOAT",
                  help=f"Minimum confidence for a finding, 0 to 1 (default {DEFAULT_THRESHOLD}).")
_STEP_SUMMARY = _opt("step_summary", "--step-summary", kind="flag",
                     help="Also append a markdown report to $GITHUB_STEP_SUMMARY.")

DIAGNOSE_OPTIONS: tuple[Opt, ...] = (
    _opt("fmt", "--format", "-f", help=f"Output format: {_FORMATS} (default terminal)."),
    _SIGNATURES,
    _NO_BUILTIN,
    _LANG,
    _ENV,
    _opt("exit_zero", "--exit-zero", kind="flag", help="Exit 0 even when something is found."),
    _opt("output", "--output", "-o", metavar="PATH", help="Write the report to a file instead of stdout."),
    _STEP_SUMMARY,
    _THRESHOLD,
    _opt("max_gzip_ratio", "--max-gzip-ratio", metavar="N",
         help=f"A .gz log may expand to N times its compressed size (default {DEFAULT_GZIP_RATIO:g}; 0: no limit)."),
)

RUN_OPTIONS: tuple[Opt, ...] = (
    _opt("fmt", "--format", "-f", help=f"Report format: {_FORMATS} (default: terminal, on stderr)."),
    _opt("output", "--output", "-o", metavar="PATH", help="Write the report to a file."),
    _SIGNATURES,
    _NO_BUILTIN,
    _LANG,
    _ENV,
    _THRESHOLD,
    _STEP_SUMMARY,
)


# --------------------------------------------------------------------------- converters (both parsers)


def to_format(value: str | Format | None, default: Format | None = Format.terminal) -> Format | None:
    if value is None:
        return default
    try:
        return Format(value)
    except ValueError:
        raise UsageError(f"--format must be one of {_FORMATS}, not {value!r}") from None


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
    except ValueError:
        raise UsageError(f"--threshold must be a number from 0 to 1, not {value!r}") from None
    if not 0.0 <= number <= 1.0:
        raise UsageError(f"--threshold must be from 0 to 1, not {value}")
    return number


def to_env(pairs: Sequence[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UsageError(f"--env expects COMPONENT=VERSION (e.g. torch=2.2.0), got {pair!r}")
        out[key.strip().lower()] = value.strip()
    return out


def to_ratio(value: str | float | None) -> float:
    if value is None:
        return DEFAULT_GZIP_RATIO
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if number < 0 or number != number:
        raise UsageError(f"--max-gzip-ratio must be a number >= 0 (0: no limit), not {value!r}")
    return number


def _path(value: str | Path | None) -> Path | None:
    if value is None or value == "":
        return None
    from pathlib import Path  # here: a paste with no path option does not import pathlib (start-up)

    return Path(value)


def _paths(values: Sequence[str | Path] | None) -> list[Path]:
    if not values:
        return []
    from pathlib import Path

    return [Path(p) for p in values]


@dataclass
class DiagnoseArgs:
    """What ``diagnose`` was asked to do, whichever parser read the command line."""

    files: list[str] = field(default_factory=list)
    fmt: Format = Format.terminal
    signatures: list[Path] = field(default_factory=list)
    no_builtin: bool = False
    lang: str = "en"
    env: dict[str, str] = field(default_factory=dict)
    exit_zero: bool = False
    output: Path | None = None
    step_summary: bool = False
    threshold: float = DEFAULT_THRESHOLD
    max_gzip_ratio: float = DEFAULT_GZIP_RATIO

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> DiagnoseArgs:
        """Check and convert raw option values (strings, lists of strings, booleans) from either parser."""
        return cls(
            files=list(values.get("files") or []),
            fmt=to_format(values.get("fmt")) or Format.terminal,
            signatures=_paths(values.get("signatures")),
            no_builtin=bool(values.get("no_builtin")),
            lang=to_lang(values.get("lang")),
            env=to_env(values.get("env")),
            exit_zero=bool(values.get("exit_zero")),
            output=_path(values.get("output")),
            step_summary=bool(values.get("step_summary")),
            threshold=to_threshold(values.get("threshold")),
            max_gzip_ratio=to_ratio(values.get("max_gzip_ratio")),
        )


@dataclass
class RunArgs:
    """What ``run`` was asked to do: the command and how to report on it."""

    command: list[str] = field(default_factory=list)
    fmt: Format | None = None
    output: Path | None = None
    signatures: list[Path] = field(default_factory=list)
    no_builtin: bool = False
    lang: str = "en"
    env: dict[str, str] = field(default_factory=dict)
    threshold: float = DEFAULT_THRESHOLD
    step_summary: bool = False

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> RunArgs:
        return cls(
            command=list(values.get("command") or []),
            fmt=to_format(values.get("fmt"), None),
            output=_path(values.get("output")),
            signatures=_paths(values.get("signatures")),
            no_builtin=bool(values.get("no_builtin")),
            lang=to_lang(values.get("lang")),
            env=to_env(values.get("env")),
            threshold=to_threshold(values.get("threshold")),
            step_summary=bool(values.get("step_summary")),
        )


# --------------------------------------------------------------------------- the start-up parser

HELP = ("-h", "--help")


def parse(table: Sequence[Opt], argv: Sequence[str], *, command: str, rest: str,
          interspersed: bool = True) -> dict[str, Any] | None:
    """Parse ``argv`` against ``table``: a dict of raw values (positionals under ``rest``), or None when help
    was asked for (typer prints it). A mistake raises UsageError naming the option and the command's help.

    ``interspersed=False`` (``run``): the first positional ends the options; it and everything after it
    belong to the command being run.
    """
    by_flag = {flag: opt for opt in table for flag in opt.flags}
    values: dict[str, Any] = {opt.dest: [] if opt.kind == "multi" else None for opt in table}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            positional += argv[i:]
            break
        if arg in HELP:
            return None
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            if not interspersed:
                positional += argv[i:]
                break
            continue
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg[:2], "", arg[2:])
        has_inline = bool(eq) or bool(inline)
        opt = by_flag.get(name)
        if opt is None:
            raise UsageError(_unknown(name, by_flag, command))
        if opt.kind == "flag":
            if has_inline:
                raise UsageError(f"option {name} takes no value (see cudnn-doctor {command} --help)")
            values[opt.dest] = True
            continue
        if has_inline:
            value = inline
        elif i < len(argv):
            value, i = argv[i], i + 1
        else:
            raise UsageError(f"option {name} needs a value ({opt.metavar}; see cudnn-doctor {command} --help)")
        if opt.kind == "multi":
            values[opt.dest].append(value)
        else:
            values[opt.dest] = value
    values[rest] = positional
    return values


def _unknown(name: str, by_flag: Mapping[str, Opt], command: str) -> str:
    import difflib  # only for a mistake: not on every start-up

    close = difflib.get_close_matches(name, [f for f in by_flag if f.startswith("--")], n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"no such option: {name}{hint}; see cudnn-doctor {command} --help"


def suggest(word: str, choices: Sequence[str]) -> str:
    """' (did you mean X?)' for a near miss among ``choices``, else ''."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


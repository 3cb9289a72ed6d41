"""Entry point of the console script: which command, which parser, and every error as one line + exit code.

Kept free of typer on purpose: ``diagnose`` (the common case: a pasted traceback or a piped log) and
``run`` are parsed by cliopts.parse from the same option table the typer commands are built from, and run
without building typer's command tree, which costs more than the diagnosis itself. Everything else (and
``--help``) goes to cli.py, imported only then. cli.py never imports this module.

Which word is the command: the first argument, when it is a command's name (``cudnn-doctor list``).
Anything else is an input of ``diagnose`` (``cudnn-doctor train.log`` = ``cudnn-doctor diagnose train.log``).
A log file that happens to be named like a command is given as a path (``./list``) or after
``diagnose`` (``cudnn-doctor diagnose list``).

Exit codes: 0 no finding, 1 at least one finding, 2 usage / input / signature error, 3 internal error,
128+N killed by signal N (130 interrupted). ``--exit-zero`` turns 1 into 0.
"""

from __future__ import annotations

import contextlib
import os
import sys

from ..errors import DoctorError
from .commands import (
    COMMANDS,
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    CommandExit,
    Reported,
    err,
    note,
)


def _fast(args: list[str]) -> int | None:
    """``diagnose`` and ``run`` without typer; None for what typer must do (help, other commands)."""
    from . import commands
    from . import options as cliopts

    if args[0] == "diagnose":
        values = cliopts.parse(cliopts.DIAGNOSE_OPTIONS, args[1:], command="diagnose", rest="files")
        return None if values is None else commands.run_diagnose(cliopts.DiagnoseArgs.from_values(values))
    if args[0] == "run":
        values = cliopts.parse(cliopts.RUN_OPTIONS, args[1:], command="run", rest="command", interspersed=False)
        return None if values is None else commands.run_command(cliopts.RunArgs.from_values(values))
    return None


def _mistyped_command(word: str) -> bool:
    """A first word that is no file but close to a command's name ('lsit'): say so (True) instead of
    reporting a missing log."""
    from .options import suggest

    if word.startswith("-") or os.path.exists(word) or os.sep in word:
        return False
    hint = suggest(word, COMMANDS)
    if hint:
        err(f"{word!r} is neither a command nor a file{hint}")
    return bool(hint)


def main(argv: list[str] | None = None) -> int:
    """Entry point. ``cudnn-doctor train.log`` is short for ``cudnn-doctor diagnose train.log``."""
    args = _command_line(list(sys.argv[1:] if argv is None else argv))
    if args is None:
        return EXIT_ERROR
    if args == ["--version"]:
        from ..version import __version__

        sys.stdout.write(f"cudnn-doctor {__version__}\n")
        return EXIT_OK
    try:
        fast = _fast(args)
        if fast is None:
            from .app import run_app

            fast = run_app(args)
        return fast
    except (CommandExit, DoctorError, KeyboardInterrupt, BrokenPipeError) as exc:
        return _exit_code(exc)
    except Exception as exc:
        from ..version import __version__

        err(f"internal error ({type(exc).__name__}: {exc}); please report it with cudnn-doctor {__version__} and the command you ran")
        if os.environ.get("CUDNN_DOCTOR_DEBUG"):
            raise
        return EXIT_INTERNAL


def _command_line(args: list[str]) -> list[str] | None:
    """The arguments with the command first (``diagnose`` when the first word names none); None when the
    first word looks like a mistyped command (said on stderr)."""
    if args and args[0] in COMMANDS and args[0] not in ("diagnose", "run") and os.path.isfile(args[0]) and len(args) == 1:
        note(f"{args[0]!r} is the {args[0]} command; to diagnose the file of that name write ./{args[0]}")
    if not args or (args[0] not in COMMANDS and args[0] not in ("-h", "--help", "--version")):
        if args and _mistyped_command(args[0]):
            return None
        args = ["diagnose", *args]
    return args


def _exit_code(exc: BaseException) -> int:
    """The exit code of an expected way out, its message said on stderr (one line)."""
    if isinstance(exc, CommandExit):
        return exc.code
    if isinstance(exc, KeyboardInterrupt):
        err("interrupted")
        return EXIT_INTERRUPTED
    if isinstance(exc, BrokenPipeError):  # the reader left (`| head`): nothing more to say
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return EXIT_OK
    if not isinstance(exc, Reported):  # Reported: its messages were printed already
        err(str(exc))
    return EXIT_ERROR

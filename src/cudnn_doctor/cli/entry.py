"""Entry point of the console script: which command, its parser (options.py), and every error as one line +
exit code.

Which word is the command: the first argument, when it is a command's name (``cudnn-doctor list``).
Anything else is an input of ``diagnose`` (``cudnn-doctor train.log`` = ``cudnn-doctor diagnose train.log``).
A log file that happens to be named like a command is given as a path (``./list``) or after
``diagnose`` (``cudnn-doctor diagnose list``). Only the command's own parser is built, and only its module
imported: a pasted traceback does not pay for the other ten.

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

# command -> (module of cudnn_doctor.cli, function taking the parsed namespace and returning the exit code)
HANDLERS = {
    "diagnose": ("commands", "cmd_diagnose"),
    "run": ("commands", "cmd_run"),
    "show": ("knowledge", "cmd_show"),
    "list": ("knowledge", "cmd_list"),
    "search": ("knowledge", "cmd_search"),
    "validate": ("knowledge", "cmd_validate"),
    "schema": ("knowledge", "cmd_schema"),
    "env": ("tools", "cmd_env"),
    "mcp": ("tools", "cmd_mcp"),
    "completion": ("completion", "cmd_completion"),
    "triage": ("triage", "cmd_triage"),
}
TOP_LEVEL = ("-h", "--help", "--version", "--show-completion", "--install-completion")


def main(argv: list[str] | None = None) -> int:
    """Entry point. ``cudnn-doctor train.log`` is short for ``cudnn-doctor diagnose train.log``."""
    args = _command_line(list(sys.argv[1:] if argv is None else argv))
    if args is None:
        return EXIT_ERROR
    try:
        return _dispatch(args)
    except SystemExit as exc:  # argparse's --help
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except (CommandExit, DoctorError, KeyboardInterrupt, BrokenPipeError) as exc:
        return _exit_code(exc)
    except Exception as exc:
        from ..version import __version__

        err(f"internal error ({type(exc).__name__}: {exc}); please report it with cudnn-doctor {__version__} and the command you ran")
        if os.environ.get("CUDNN_DOCTOR_DEBUG"):
            raise
        return EXIT_INTERNAL


def _dispatch(args: list[str]) -> int:
    from importlib import import_module

    from . import options

    word = args[0]
    if word == "--version":
        from ..version import __version__

        sys.stdout.write(f"cudnn-doctor {__version__}\n")
        return EXIT_OK
    if word in ("-h", "--help"):
        options.full_parser().print_help()
        return EXIT_OK
    if word in ("--show-completion", "--install-completion"):  # typer's names, which users try first
        args = ["completion", *(["--install"] if word == "--install-completion" else []), *args[1:]]
        word = "completion"
    namespace = options.parse(word, args[1:])
    module, function = HANDLERS[word]
    return int(getattr(import_module(f".{module}", __package__), function)(namespace))


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


def _command_line(args: list[str]) -> list[str] | None:
    """The arguments with the command first (``diagnose`` when the first word names none); None when the
    first word looks like a mistyped command (said on stderr)."""
    if args and args[0] in COMMANDS and args[0] not in ("diagnose", "run") and os.path.isfile(args[0]) and len(args) == 1:
        note(f"{args[0]!r} is the {args[0]} command; to diagnose the file of that name write ./{args[0]}")
    if not args or (args[0] not in COMMANDS and args[0] not in TOP_LEVEL):
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
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - closed at exit
        return EXIT_OK
    if not isinstance(exc, Reported):  # Reported: its messages were printed already
        err(str(exc))
    return EXIT_ERROR

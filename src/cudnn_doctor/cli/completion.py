"""``cudnn-doctor completion [bash|zsh|fish] [--install]``: shell completion generated from the one parser
(options.full_parser) by shtab, so it cannot drift from the options. Printed, or with ``--install`` written
where the shell looks for completions (bash-completion's and fish's user directories, ``~/.zfunc`` for zsh).
``--show-completion`` / ``--install-completion`` (typer's spellings, which users try first) are the same.
"""

from __future__ import annotations

import os
import sys
from argparse import Namespace

from ..errors import MissingExtraError, UsageError
from . import options as opts
from .commands import EXIT_OK, note

PATH_OPTIONS = ("signatures", "output", "config", "files", "paths", *(f"{f}_output" for f in opts.EXTRA_OUTPUTS))
CHOICES = {"lang": opts.LANGS, "which": ("signature", "output"), "shell": opts.SHELLS,
           "scope": ("rnn", "cudnn", "cuda"), "severity": ("error", "warning")}
FORMATS = {"diagnose": opts.FORMATS, "run": opts.FORMATS, "show": ("terminal", "json", "yaml"), "list": ("terminal", "json"),
           "env": ("terminal", "json"), "triage": ("terminal", "markdown", "json")}


def script(shell: str) -> str:
    """The completion script of ``shell`` for every command and option."""
    try:
        import shtab
    except ImportError:  # pragma: no cover - a dependency
        raise MissingExtraError("shell completion needs shtab: pip install shtab") from None
    parser = opts.full_parser()
    for name, sub in _subparsers(parser).items():
        for action in sub._actions:
            # for the shell only: the values are checked by options.py's converters, with their own messages
            if action.dest in PATH_OPTIONS:
                action.complete = shtab.FILE  # type: ignore[attr-defined]
            elif action.dest == "format":
                action.choices = FORMATS[name]
            elif action.dest in CHOICES:
                action.choices = CHOICES[action.dest]
    return str(shtab.complete(parser, shell=shell))


def _subparsers(parser: opts.Parser) -> dict[str, opts.Parser]:
    for action in parser._actions:
        if isinstance(getattr(action, "choices", None), dict):
            return dict(action.choices)
    return {}


def target(shell: str) -> tuple[str, str]:
    """(the file the shell reads completions from, what else to do once) for ``--install``."""
    home = os.path.expanduser("~")
    if shell == "bash":
        data = os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
        return os.path.join(data, "bash-completion", "completions", "cudnn-doctor"), "open a new shell (needs the bash-completion package)"
    if shell == "zsh":
        return (os.path.join(home, ".zfunc", "_cudnn-doctor"),
                "add `fpath+=~/.zfunc; autoload -Uz compinit && compinit` to ~/.zshrc once, then open a new shell")
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return os.path.join(config, "fish", "completions", "cudnn-doctor.fish"), "open a new shell"


def cmd_completion(ns: Namespace) -> int:
    shell = ns.shell or os.path.basename(os.environ.get("SHELL", "")) or "bash"
    if shell not in opts.SHELLS:
        raise UsageError(f"completion: shell must be one of {', '.join(opts.SHELLS)}, not {shell!r}")
    text = script(shell)
    if not ns.install:
        sys.stdout.write(text)
        return EXIT_OK
    path, then = target(shell)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(f"completion: cannot write {path}: {exc.strerror or exc}") from None
    note(f"{shell} completion written to {path}: {then}")
    return EXIT_OK

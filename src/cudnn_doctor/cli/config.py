"""Settings from a configuration file: ``cudnn-doctor.toml``, or ``[tool.cudnn-doctor]`` in ``pyproject.toml``.

The nearest one wins, looking from the current directory up (in one directory ``cudnn-doctor.toml`` before
``pyproject.toml``; a ``pyproject.toml`` without the table is passed over), as ruff and pytest find theirs;
``--config FILE`` names one, ``--no-config`` reads none. A key is a long option's name (``threshold``,
``signatures``, ``ignore``, ``format``, ``sarif-output``...): the command line wins over the file for a value;
lists (``signatures``, ``ignore``, ``env``) are the file's and the command line's together. Paths in the file
are relative to it. A key the command has no option for is not used by it (``format`` is diagnose's and
run's, not triage's); a key no command knows is an error naming the file.

TOML is read with the standard library's tomllib (Python 3.11+), else its backport tomli (a dependency only
there).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from ..errors import UsageError
from . import options as opts

if TYPE_CHECKING:
    from argparse import Namespace
    from typing import Any

FILE = "cudnn-doctor.toml"
PYPROJECT = "pyproject.toml"
TABLE = "cudnn-doctor"
LISTS = ("signatures", "ignore", "env")
FLAGS = ("no-builtin", "exit-zero", "step-summary")
VALUES = ("threshold", "format", "lang", "max-gzip-ratio", *(f"{f}-output" for f in opts.EXTRA_OUTPUTS))
PATHS = ("signatures", *(f"{f}-output" for f in opts.EXTRA_OUTPUTS))
KEYS = (*LISTS, *FLAGS, *VALUES)


def settings(ns: Namespace) -> dict[str, Any]:
    """The namespace's values, completed by the configuration file's (see the module docstring)."""
    values = dict(vars(ns))
    if values.pop("no_config", False):
        values.pop("config", None)
        return values
    path = values.pop("config", None) or find()
    if path is None:
        return values
    for key, value in read(path).items():
        dest = key.replace("-", "_")
        if dest not in values:
            continue  # a setting of another command
        if key in LISTS:
            values[dest] = [*value, *(values[dest] or [])]
        elif values[dest] is None:
            values[dest] = value
    return values


def find(start: str | None = None) -> str | None:
    """The nearest configuration file from ``start`` (the current directory) up, or None."""
    here = os.path.abspath(start or os.getcwd())
    while True:
        candidate = os.path.join(here, FILE)
        if os.path.isfile(candidate):
            return candidate
        candidate = os.path.join(here, PYPROJECT)
        if os.path.isfile(candidate) and _has_table(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _has_table(path: str) -> bool:
    """Whether a pyproject.toml may hold [tool.cudnn-doctor] (a look at its text: most do not, and are not
    parsed)."""
    try:
        with open(path, "rb") as fh:
            text = fh.read(1 << 20)
    except OSError:
        return False
    return b"tool.cudnn-doctor" in text or b'tool."cudnn-doctor"' in text


def read(path: str) -> dict[str, Any]:
    """The checked settings of a configuration file (keys as written, values as the command line gives them:
    text, lists of text, True/None); a UsageError naming the file for anything wrong."""
    table = _table(path)
    name = f"{path}: [tool.{TABLE}]" if os.path.basename(path) == PYPROJECT else path
    out: dict[str, Any] = {}
    base = os.path.dirname(os.path.abspath(path))
    for key, value in table.items():
        if key not in KEYS:
            raise UsageError(f"{name}: unknown setting {key!r}{opts.suggest(key, KEYS)} (known: {', '.join(KEYS)})")
        out[key] = _value(name, key, value, base)
    return out


def _table(path: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the configuration: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    if os.path.basename(path) == PYPROJECT:
        data = data.get("tool", {}).get(TABLE, {}) if isinstance(data.get("tool"), dict) else {}
    if not isinstance(data, dict):
        raise UsageError(f"{path}: [tool.{TABLE}] must be a table")
    return data


def _value(name: str, key: str, value: Any, base: str) -> Any:
    if key in FLAGS:
        if not isinstance(value, bool):
            raise UsageError(f"{name}: {key} must be true or false, not {value!r}")
        return True if value else None
    if key in LISTS:
        return _list(name, key, value, base)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise UsageError(f"{name}: {key} must be a string or a number, not {value!r}")
    text = str(value)
    check = CHECKS.get(key)
    try:
        if check is not None:
            check(text)
    except UsageError as exc:  # the converter's message, naming the file and the key instead of the option
        raise UsageError(f"{name}: {str(exc).removeprefix('--')}") from None
    return os.path.join(base, text) if key in PATHS and text != "-" else text


CHECKS = {"threshold": opts.to_threshold, "format": opts.to_format, "lang": opts.to_lang, "max-gzip-ratio": opts.to_ratio}


def _list(name: str, key: str, value: Any, base: str) -> list[str]:
    if key == "env" and isinstance(value, dict):  # env = {torch = "2.2.0"}
        value = [f"{k}={v}" for k, v in value.items()]
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise UsageError(f"{name}: {key} must be a string or a list of strings, not {value!r}")
    return [os.path.join(base, v) for v in items] if key in PATHS else items

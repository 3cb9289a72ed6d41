"""Diagnose an error where it happens: the uncaught-exception hooks of the Python process, and the helpers the
pytest plugin and the IPython extension share (exception -> text -> record -> short report).

``install()`` only swaps two hooks: the catalog and the pipeline are imported when an exception arrives, so a
process that never fails pays nothing. An exception nothing in the knowledge base matches prints nothing more.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..records import Report

AUTO_ENV = "CUDNN_DOCTOR_AUTO"

_catalog: Any = None
_installed: dict[str, Any] = {}


MAX_ATTACHED = 1 << 20  # the tail of a failed subprocess's output that is read with its exception


def exception_text(exc: BaseException) -> str:
    """The exception as Python prints it (chained causes included): what the signatures are written for, then
    the output a failed subprocess left on it (``subprocess.run(..., capture_output=True, check=True)`` keeps
    the training script's log in the CalledProcessError, not in any captured stream)."""
    import traceback

    parts = ["".join(traceback.format_exception(type(exc), exc, exc.__traceback__))]
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        for name in ("stdout", "stderr"):  # CalledProcessError and TimeoutExpired (``output`` is ``stdout``)
            value = getattr(current, name, None) if hasattr(current, "cmd") else None
            if isinstance(value, bytes):
                value = value[-MAX_ATTACHED:].decode("utf-8", "replace")
            if isinstance(value, str) and value.strip():
                parts.append(value[-MAX_ATTACHED:])
        current = current.__cause__ or current.__context__
    return "\n".join(parts)


# the C0 control characters a binary file is recognised by (read.sources.looks_binary), all but tab, newline,
# carriage return and ESC (colour codes): an exception's text is text, whatever bytes its message holds
_CONTROLS = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 27), *range(28, 32)], "\ufffd")


def printable(text: str) -> str:
    """``text`` with NUL and other control characters replaced by U+FFFD, so that an exception whose message
    holds some (``ValueError("bad\\x00data")``) is read as text, not refused as a binary file."""
    return text.translate(_CONTROLS)


def diagnose_record(text: str, source: str = "<exception>", *, reuse_catalog: bool = True) -> Report:
    """The JSON record (docs/output-format.md) of a text; the catalog is loaded once per process. Control
    characters are made printable first (``printable``): the hooks, the IPython extension and the pytest
    plugin never meet the InputError that ``diagnose`` raises for binary-looking data."""
    global _catalog
    from ..kb.compiled import load_catalog
    from ..report import build_report
    from ..scan import diagnose

    catalog = _catalog if reuse_catalog and _catalog is not None else load_catalog()
    if reuse_catalog:
        _catalog = catalog
    return build_report(diagnose(printable(text), catalog=catalog, source=source))


def brief_report(text: str, source: str = "<exception>", width: int = 100) -> str:
    """The short report of a text ('' when nothing is diagnosed); never raises (a hook must not fail)."""
    try:
        from ..render.brief import render_brief

        return render_brief(diagnose_record(text, source), width=width)
    except Exception as exc:  # a broken signature directory, a full disk for the cache...
        return f"cudnn-doctor: could not diagnose this error ({type(exc).__name__}: {exc})\n"


def _write_report(exc: BaseException | None) -> None:
    if exc is None or isinstance(exc, KeyboardInterrupt):
        return
    try:
        width = min(max(os.get_terminal_size(sys.stderr.fileno()).columns, 60), 120)
    except (AttributeError, OSError, ValueError):  # not a terminal, or no stderr
        width = 100
    report = brief_report(exception_text(exc), width=width)
    if report and sys.stderr is not None:
        try:
            sys.stderr.write("\n" + report)
            sys.stderr.flush()
        except (OSError, ValueError):  # stderr closed at shutdown
            pass


def _excepthook(etype: type[BaseException], value: BaseException | None, tb: TracebackType | None) -> None:
    _installed.get("sys", sys.__excepthook__)(etype, value, tb)  # the usual traceback first
    if value is not None and value.__traceback__ is None:
        value = value.with_traceback(tb)
    _write_report(value)


def _threading_excepthook(args: Any) -> None:
    import threading

    _installed.get("threading", threading.__excepthook__)(args)
    if args.exc_type is not SystemExit:  # the default hook ignores SystemExit in a thread: so do we
        _write_report(args.exc_value)


def install() -> None:
    """Chain ``sys.excepthook`` and ``threading.excepthook``: an uncaught exception is printed as usual, then
    diagnosed on stderr. Calling it again does nothing; ``uninstall()`` restores the previous hooks."""
    import threading

    if "sys" in _installed:
        return
    _installed["sys"] = sys.excepthook
    _installed["threading"] = threading.excepthook
    sys.excepthook = _excepthook
    threading.excepthook = _threading_excepthook


def uninstall() -> None:
    """Put back the hooks ``install()`` replaced (only where nobody replaced ours since)."""
    import threading

    if "sys" not in _installed:
        return
    if sys.excepthook is _excepthook:
        sys.excepthook = _installed["sys"]
    if threading.excepthook is _threading_excepthook:
        threading.excepthook = _installed["threading"]
    _installed.clear()


def auto() -> bool:
    """``install()`` if ``CUDNN_DOCTOR_AUTO`` is 1/true/yes/on (for a sitecustomize.py); True if installed."""
    if os.environ.get(AUTO_ENV, "").strip().lower() in ("1", "true", "yes", "on"):
        install()
        return True
    return False

"""Progress of long work on the terminal: a rich progress bar on stderr, with the time remaining, shown once
the work has run for DELAY seconds, and only where a person watches it: stderr a terminal, not in CI (``CI``
set), not with a CI format, not with ``TERM=dumb``. A short run, a pipe or a CI log never sees it.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

DELAY = 2.0  # seconds of work before the bar appears ($CUDNN_DOCTOR_PROGRESS_DELAY: the tests' 0)
CI_FORMATS = ("github", "sarif", "junit", "gitlab")


def watched(fmt: str | None = None) -> bool:
    """Whether a person is likely to watch stderr: a terminal, outside CI, for a format a person reads."""
    if fmt in CI_FORMATS or os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


def _delay() -> float:
    try:
        return float(os.environ.get("CUDNN_DOCTOR_PROGRESS_DELAY", DELAY))
    except ValueError:
        return DELAY


class Progress:
    """Count work done (``advance``) towards ``total``; the bar appears after DELAY seconds where
    ``watched``. ``unit`` 'bytes' shows sizes and speed, anything else 'done/total unit'."""

    def __init__(self, description: str, total: int | None = None, unit: str = "files", *, enabled: bool = True) -> None:
        self.description, self.total, self.unit = description, total, unit
        self.enabled = enabled
        self.started = time.monotonic()
        self.done = 0
        self.bar: Any = None
        self.task: Any = None

    def set_total(self, total: int | None) -> None:
        self.total = total
        if self.bar is not None:
            self.bar.update(self.task, total=total)

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self.bar is None:
            if not self.enabled or time.monotonic() - self.started < _delay():
                return
            self.enabled = False  # decided once: shown from now on, or never
            self._show()
        self.bar.update(self.task, completed=self.done)

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        counts = (DownloadColumn(), TransferSpeedColumn()) if self.unit == "bytes" else (MofNCompleteColumn(), TextColumn(self.unit))
        from rich.progress import Progress as Bar

        self.bar = Bar(TextColumn("{task.description}"), BarColumn(), *counts, TimeRemainingColumn(),
                       console=Console(stderr=True), transient=True)
        self.task = self.bar.add_task(self.description, total=self.total, completed=self.done)
        self.bar.start()

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


def progress_for(description: str, total: int | None, unit: str = "files", fmt: str | None = None) -> Progress:
    """A Progress that shows only where ``watched(fmt)``."""
    return Progress(description, total, unit, enabled=watched(fmt))

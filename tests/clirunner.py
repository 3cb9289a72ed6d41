"""The command line in this process, as the console script runs it (cli.entry.main), with its standard
streams captured: the tests' "runner" (a real subprocess with a pipe is the other way every CLI test runs)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from cudnn_doctor.cli.entry import main


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        """stdout then stderr (what a person at the terminal reads)."""
        return self.stdout + self.stderr


class _Stream(io.TextIOWrapper):
    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def _environ(env: Mapping[str, str | None] | None) -> Iterator[None]:
    saved = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def invoke(args: Sequence[str], input: str | bytes | None = None, env: Mapping[str, str | None] | None = None) -> Result:
    """Run ``cudnn-doctor ARGS`` in this process; stdin is ``input`` (empty when None)."""
    data = input.encode("utf-8") if isinstance(input, str) else (input or b"")
    out, err = io.BytesIO(), io.BytesIO()
    streams = (sys.stdin, sys.stdout, sys.stderr)
    ours = (_Stream(io.BytesIO(data), encoding="utf-8"), _Stream(out, encoding="utf-8", write_through=True),
            _Stream(err, encoding="utf-8", write_through=True))
    sys.stdin, sys.stdout, sys.stderr = ours
    try:
        with _environ(env):
            code = main(list(args))
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        for stream in ours:  # flushed and let go of, without closing the bytes read below
            with contextlib.suppress(ValueError):
                stream.flush()
                stream.detach()
    return Result(code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace"))


def read_pty(fd: int, timeout: float = 60.0) -> bytes:
    """Everything a child writes to its pseudo-terminal until it closes it (or ``timeout`` seconds pass)."""
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # Linux: EIO once the child side is closed
            break
        if not chunk:
            break
        out += chunk
    return out

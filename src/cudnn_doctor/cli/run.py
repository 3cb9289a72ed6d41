"""``cudnn-doctor run -- CMD ARGS...``: run a command, pass its output through, diagnose it if it fails.

The command's stdout and stderr go to ours unchanged (bytes, as they come). A copy is kept in bounded
space: the first HEAD_BYTES in memory (versions and device lines printed at start-up) and the last
TAIL_BYTES in two rotating temporary files (the traceback is at the end), whole lines only, so that the
interleaving of the two streams never splits a line. Only when the command fails is the copy diagnosed;
its exit status is returned unchanged (a signal N becomes 128+N, as in a shell; a missing command 127).

Signals (POSIX): the command runs in its own process group, which gets the terminal while it runs (as a
shell's job control does), so Ctrl-C reaches it once. Every terminating signal sent to cudnn-doctor itself
(SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM) is passed to that whole group, and cudnn-doctor
then exits 128+N. When the command exits, whatever it left behind in its group (a background grandchild
holding the output pipes) gets GRACE_SECONDS, then SIGTERM, then SIGKILL: nothing is orphaned, and the exit
is not held up. Line numbers in the report are those of the whole output, also when its middle was dropped.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any, BinaryIO

from ..kb.load import Catalog
from ..read.sources import Source
from ..scan import Options, diagnose_sources

HEAD_BYTES = 1 << 20
TAIL_BYTES = 64 << 20
MAX_PENDING = 64 << 10  # a "line" longer than this is stored in pieces
CHUNK = 64 << 10
DRAIN_SECONDS = 10.0  # after the command exits, how long to wait for children still holding its pipes
GRACE_SECONDS = 0.5  # ... before those left in its process group are sent SIGTERM (then SIGKILL after as long)
FORWARDED = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM")
    if hasattr(signal, name)
)
MARKER_LINES = 2  # the dropped-output marker adds a line and ends the head's last one
EXIT_NOT_FOUND, EXIT_NOT_EXECUTABLE = 127, 126


class LaunchError(Exception):
    """The command could not be started; ``code`` is what a shell would exit with (127 or 126)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class Capture:
    """Bounded copy of a command's output: head in memory, tail in two rotating temporary files."""

    def __init__(self, head_bytes: int = HEAD_BYTES, tail_bytes: int = TAIL_BYTES) -> None:
        self.head_limit = head_bytes
        self.segment = max(1, tail_bytes // 2)
        self.head = bytearray()
        self.prev: IO[bytes] | None = None
        self.cur: IO[bytes] | None = None
        self.cur_size = 0
        self.total = 0
        self.dropped = 0
        self.dropped_lines = 0
        self.head_lines = 0  # newlines in the head
        self.lock = threading.Lock()
        self.frozen = False

    def freeze(self) -> None:
        """Ignore later writes (a background child of the command may still hold its pipes)."""
        with self.lock:
            self.frozen = True

    def write(self, data: bytes) -> None:
        with self.lock:
            if self.frozen:
                return
            self.total += len(data)
            room = self.head_limit - len(self.head)
            if room > 0:
                self.head += data[:room]
                self.head_lines += data.count(b"\n", 0, room)
                data = data[room:]
            if not data:
                return
            if self.cur is None or self.cur_size >= self.segment:
                self._rotate()
            assert self.cur is not None
            self.cur.write(data)
            self.cur_size += len(data)

    def _rotate(self) -> None:
        if self.prev is not None:
            self.prev.seek(0)
            for block in iter(lambda: self.prev.read(CHUNK), b""):  # type: ignore[union-attr]
                self.dropped += len(block)
                self.dropped_lines += block.count(b"\n")
            self.prev.close()
        self.prev = self.cur
        self.cur = tempfile.TemporaryFile(prefix="cudnn-doctor-run-")  # noqa: SIM115 - closed in close()
        self.cur_size = 0

    def parts(self) -> list[bytes | IO[bytes]]:
        """What is kept, in order: the head, a marker for the part dropped, the tail files."""
        out: list[bytes | IO[bytes]] = [bytes(self.head)]
        if self.dropped:
            out.append(
                f"\n[... cudnn-doctor run: {self.dropped} bytes ({self.dropped_lines} lines) of output "
                "not kept; the report's line numbers are those of the whole output ...]\n".encode()
            )
        for f in (self.prev, self.cur):
            if f is not None:
                f.flush()
                f.seek(0)
                out.append(f)
        return out

    def source(self, name: str) -> Source:
        """A pipeline Source reading what was kept."""
        return Source(name, lambda: io.BufferedReader(_Chain(self.parts())), None)

    def close(self) -> None:
        for f in (self.prev, self.cur):
            if f is not None:
                f.close()
        self.prev = self.cur = None

    def __enter__(self) -> Capture:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Chain(io.RawIOBase):
    """Read several byte strings / binary files one after the other."""

    def __init__(self, parts: list[bytes | IO[bytes]]) -> None:
        self.parts = [io.BytesIO(p) if isinstance(p, bytes) else p for p in parts]

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        while self.parts:
            n = self.parts[0].readinto(buf)  # type: ignore[attr-defined]
            if n:
                return int(n)
            self.parts.pop(0)
        return 0

    def close(self) -> None:  # the temporary files belong to the Capture
        self.parts = []
        super().close()


class _Lines:
    """Per-stream buffer that hands whole lines to the capture, so two streams interleave by line."""

    def __init__(self, capture: Capture) -> None:
        self.capture = capture
        self.pending = bytearray()

    def feed(self, data: bytes) -> None:
        self.pending += data
        cut = self.pending.rfind(b"\n")
        if cut >= 0:
            self.capture.write(bytes(self.pending[: cut + 1]))
            del self.pending[: cut + 1]
        if len(self.pending) > MAX_PENDING:
            self.flush()

    def flush(self, end: bytes = b"") -> None:
        if self.pending:
            self.capture.write(bytes(self.pending) + end)
            self.pending.clear()


def binary_stream(stream: Any) -> BinaryIO:
    """The binary layer under a text stream (sys.stdout), or an adapter that decodes for one without."""
    if isinstance(stream, (io.RawIOBase, io.BufferedIOBase)):
        return stream  # type: ignore[return-value]
    with contextlib.suppress(Exception):
        stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return buffer  # type: ignore[no-any-return]
    return _TextSink(stream)  # type: ignore[return-value]


class _TextSink:
    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, data: bytes) -> int:
        self.stream.write(data.decode("utf-8", "replace"))
        return len(data)

    def flush(self) -> None:
        self.stream.flush()


def _pump(fd: int, sink: BinaryIO, lines: _Lines, state: dict[str, bool]) -> None:
    """Copy ``fd`` to ``sink`` as it comes and into the capture, until EOF, or until ``state['stop']`` and
    nothing is left to read (a grandchild in a session of its own may hold the pipe open for ever)."""
    try:
        while True:
            if not _readable(fd, state):
                if state["stop"]:
                    break
                continue
            data = os.read(fd, CHUNK)
            if not data:
                break
            if state["ok"]:
                try:
                    sink.write(data)
                    sink.flush()
                except Exception:  # our stdout went away (| head): keep draining and capturing
                    state["ok"] = False
            state["newline"] = data.endswith(b"\n")
            lines.feed(data)
    except OSError:
        pass
    finally:
        lines.flush(b"\n")
        os.close(fd)


def _readable(fd: int, state: dict[str, bool]) -> bool:
    """Whether ``fd`` has data (or EOF) within POLL_SECONDS; always True where select cannot wait on pipes."""
    if os.name != "posix":
        return True
    import select

    try:
        return bool(select.select([fd], [], [], POLL_SECONDS)[0])
    except (OSError, ValueError):
        return True


POLL_SECONDS = 0.1


def _terminal() -> int | None:
    """Our controlling terminal's descriptor when we are its foreground job (then the command gets it)."""
    if os.name != "posix":
        return None
    for stream in (sys.stdin, sys.stderr):
        try:
            fd = stream.fileno()
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return fd
        except (AttributeError, OSError, ValueError):  # noqa: PERF203
            continue
    return None


def _give_terminal(fd: int | None, pgid: int) -> None:
    if fd is None:
        return
    old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # a background group may not take it otherwise
    try:
        os.tcsetpgrp(fd, pgid)
    except OSError:
        pass
    finally:
        signal.signal(signal.SIGTTOU, old)


def _death_signal() -> Any:
    """Linux: a function that asks the kernel to SIGKILL the calling process when its parent dies
    (prctl PR_SET_PDEATHSIG), so that a SIGKILL to cudnn-doctor (a CI job's timeout, ``timeout -s KILL``, the
    OOM killer) does not leave the command running and holding the GPU; None elsewhere. libc is loaded here,
    in the parent: the child only calls it between fork and exec."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, ImportError):
        return None
    parent = os.getpid()

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request: nobody is left to send it
            os.kill(os.getpid(), signal.SIGKILL)

    return arm


PR_SET_PDEATHSIG = 1


def _own_group(tty: int | None) -> Any:
    """The child's set-up (between fork and exec): the death signal, its own process group, the terminal if
    we had it."""
    arm = _death_signal()

    def setup() -> None:
        if arm is not None:
            arm()
        os.setpgid(0, 0)
        if tty is not None:
            signal.signal(signal.SIGTTOU, signal.SIG_IGN)
            with contextlib.suppress(OSError):
                os.tcsetpgrp(tty, os.getpgrp())
            signal.signal(signal.SIGTTOU, signal.SIG_DFL)

    return setup


def _spawn(argv: Sequence[str], env: dict[str, str], tty: int | None = None) -> subprocess.Popen[bytes]:
    name = argv[0]
    extra: dict[str, Any] = {}
    if os.name == "posix":
        extra["preexec_fn"] = _own_group(tty)  # setpgid/tcsetpgrp only, before any thread starts
    try:
        return subprocess.Popen(
            list(argv), stdin=None, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, bufsize=0, **extra
        )
    except FileNotFoundError as exc:
        raise LaunchError(f"{name}: command not found", EXIT_NOT_FOUND) from exc
    except PermissionError as exc:
        raise LaunchError(f"{name}: permission denied", EXIT_NOT_EXECUTABLE) from exc
    except OSError as exc:
        raise LaunchError(f"{name}: cannot run: {exc.strerror or exc}", EXIT_NOT_EXECUTABLE) from exc


@dataclass(slots=True)
class RunResult:
    """What ``run`` returns: the exit code to pass on, the Diagnosis (None when the command succeeded),
    and whether the command's last stdout / stderr output ended a line (so a report starts on its own)."""

    code: int
    diagnosis: Any = None
    stdout_newline: bool = True
    stderr_newline: bool = True
    signal: int = 0  # a signal cudnn-doctor received and passed on (then code is 128 + it)


def execute(argv: Sequence[str], capture: Capture, stdout: Any = None, stderr: Any = None) -> RunResult:
    """Run ``argv`` and tee its output into ``capture``; return its exit code (signal N -> 128+N).

    Raises LaunchError when it cannot start. See the module docstring for signals.
    """
    if not argv:
        raise LaunchError("no command given", EXIT_NOT_FOUND)
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")  # show a Python command's output as it comes, not in 8 KiB blocks
    tty = _terminal()
    proc = _spawn(argv, env, tty)
    _give_terminal(tty, proc.pid)
    assert proc.stdout is not None and proc.stderr is not None
    out_state = {"ok": True, "newline": True, "stop": False}
    err_state = {"ok": True, "newline": True, "stop": False}
    threads = [
        threading.Thread(
            target=_pump,
            args=(os.dup(pipe.fileno()), binary_stream(sink or default), _Lines(capture), state),
            daemon=True,
        )
        for pipe, sink, default, state in (
            (proc.stdout, stdout, sys.stdout, out_state),
            (proc.stderr, stderr, sys.stderr, err_state),
        )
    ]
    proc.stdout.close()
    proc.stderr.close()
    for t in threads:
        t.start()
    received: list[int] = []
    restore = _forward_signals(proc, received)
    try:
        rc = _wait(proc)
    finally:
        _give_terminal(tty, os.getpgrp())
        _reap_group(proc, threads)
        restore()
    # the command is gone and its group had its grace: what still holds the pipes (a grandchild that started
    # its own session) is not waited for; what is already in them is read
    out_state["stop"] = err_state["stop"] = True
    for t in threads:
        t.join(DRAIN_SECONDS)
    capture.freeze()
    code = 128 + received[0] if received else (128 - rc if rc < 0 else rc)
    return RunResult(code, None, out_state["newline"], err_state["newline"], received[0] if received else 0)


def _wait(proc: subprocess.Popen[bytes]) -> int:
    while True:
        try:
            return proc.wait()
        except KeyboardInterrupt:  # noqa: PERF203 - not ours to handle: the signal went to the command
            continue


def _signal_group(proc: subprocess.Popen[bytes], signum: int) -> None:
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _forward_signals(proc: subprocess.Popen[bytes], received: list[int]) -> Any:
    """Pass every terminating signal we get to the command's process group; remember the first."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def forward(signum: int, _frame: Any) -> None:
        if not received:
            received.append(signum)
        _signal_group(proc, signum)

    old: dict[int, Any] = {}
    for signum in FORWARDED:
        with contextlib.suppress(ValueError, OSError):
            old[signum] = signal.signal(signum, forward)

    def restore() -> None:
        for signum, handler in old.items():
            with contextlib.suppress(ValueError, OSError):
                signal.signal(signum, handler)

    return restore


def _reap_group(proc: subprocess.Popen[bytes], threads: list[threading.Thread]) -> None:
    """The command has exited: what it left in its process group and still holds the pipes gets a short
    grace, then SIGTERM, then SIGKILL (no orphan, no wait of DRAIN_SECONDS)."""
    if os.name != "posix":
        return
    for signum in (None, signal.SIGTERM, signal.SIGKILL):
        if signum is not None:
            _signal_group(proc, signum)
        deadline = time.monotonic() + GRACE_SECONDS
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        if not any(t.is_alive() for t in threads):
            return


def source_name(argv: Sequence[str]) -> str:
    """'<output of python train.py --lr 1e-3>', cut to a readable length."""
    cmd = " ".join(shlex.join([os.path.basename(argv[0]), *argv[1:]]).split())
    return f"<output of {cmd if len(cmd) <= 60 else cmd[:59] + '…'}>"


def run(
    argv: Sequence[str],
    *,
    catalog: Catalog | None = None,
    options: Options | None = None,
    stdout: Any = None,
    stderr: Any = None,
    head_bytes: int = HEAD_BYTES,
    tail_bytes: int = TAIL_BYTES,
) -> RunResult:
    """Run ``argv``; when it exits non-zero, diagnose its output. Raises LaunchError if it cannot start."""
    with Capture(head_bytes, tail_bytes) as capture:
        result = execute(argv, capture, stdout, stderr)
        if result.code == 0:
            return result
        result.diagnosis = diagnosis = diagnose_sources(
            [capture.source(source_name(argv))], catalog=catalog, options=options, strict_input=False
        )
        if capture.dropped:  # the kept tail's lines: numbered as in the whole output
            shift_lines(diagnosis, capture.head_lines + MARKER_LINES, capture.dropped_lines - MARKER_LINES)
            diagnosis.warnings.append(
                f"the command wrote {capture.total} bytes; only the first {capture.head_limit} and the last "
                f"{capture.total - capture.head_limit - capture.dropped} were kept and diagnosed"
            )
        return result


def shift_lines(diagnosis: Any, after: int, delta: int) -> None:
    """Add ``delta`` to every line number past ``after`` in a Diagnosis (findings, their consequences,
    near misses, error lines, where versions were read)."""
    import dataclasses

    def moved(line: int) -> int:
        return line + delta if line > after else line

    def occurrence(o: Any) -> Any:
        return dataclasses.replace(o, line=moved(o.line), end_line=moved(o.end_line))

    def finding(f: Any) -> None:
        f.first, f.last = occurrence(f.first), occurrence(f.last)
        for c in f.consequences:
            finding(c)

    for f in (*diagnosis.findings, *diagnosis.below_threshold):
        finding(f)
    for n in diagnosis.near_misses:
        n.line = moved(n.line)
    diagnosis.error_lines = [(s, moved(n), t) for s, n, t in diagnosis.error_lines]
    for where in diagnosis.environment.values():
        name, _, line = str(where.get("source", "")).rpartition(":")
        if line.isdigit():
            where["source"] = f"{name}:{moved(int(line))}"

"""Scan one big plain-text log on several cores.

A file of at least ``MIN_BYTES`` is cut into byte ranges at *quiet* lines: no signature literal within
``QUIET_LINES`` lines on either side, so that no match, its context, the traceback before it or a cluster of
matches can straddle a cut. Each range is scanned by a forked process exactly as the whole file would be
(ranges are read in pieces aligned to the same block edges, see ``input.read_range``); the parent shifts
the line numbers and merges findings, near misses and environment (pipeline._merge_parts). Where no quiet
line is found near a cut, the file is scanned in one process.

Only on Linux, where ``fork`` hands the compiled catalog and prefilter to the workers without pickling them.
``CUDNN_DOCTOR_JOBS=1`` turns it off; ``CUDNN_DOCTOR_JOBS=N`` sets the number of processes (default: the CPUs
this process may run on, at most ``MAX_JOBS``, and one per ``MIN_BYTES_PER_JOB``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from .match import TRACEBACK_LINES, Matcher
from .read.sources import Source, plain_text_file

if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

MIN_BYTES = 64 << 20
MIN_BYTES_PER_JOB = 32 << 20
MAX_JOBS = 8
QUIET_LINES = 128  # > Matcher.before/after (100), TRACEBACK_LINES (60), rank.CLUSTER_GAP
SEARCH_BYTES = 1 << 20  # read at a time around a cut while looking for a quiet line (more if none is found)
MAX_SEARCH = 64 << 20


def jobs_for(src: Source, jobs: int = 0) -> int:
    """How many processes should scan ``src`` (1 = this one)."""
    if not jobs:
        env = os.environ.get("CUDNN_DOCTOR_JOBS", "").strip()
        jobs = int(env) if env.isdigit() and int(env) > 0 else _cpus()
    if jobs < 2 or sys.platform != "linux" or src.path is None or (src.size or 0) < MIN_BYTES:
        return 1
    jobs = min(jobs, MAX_JOBS, max(1, (src.size or 0) // MIN_BYTES_PER_JOB))
    return jobs if jobs >= 2 and plain_text_file(src) else 1


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def plan(path: str, matcher: Matcher, jobs: int) -> list[tuple[int, int]] | None:
    """Byte ranges (start, end) covering the file, cut at quiet line starts; None if no cut was found."""
    if matcher.full_scan:  # a signature without literals is a candidate on every line: nowhere is quiet
        return None
    quiet = max(QUIET_LINES, matcher.before + 8, matcher.after + 8, TRACEBACK_LINES + 8)
    size = os.path.getsize(path)
    cuts: list[int] = []
    with open(path, "rb") as fh:
        for k in range(1, jobs):
            lo = max(cuts[-1] if cuts else 0, k * size // jobs)
            cut = _quiet_cut(fh, lo, size, matcher, quiet)
            if cut is not None and (not cuts or cut > cuts[-1]) and cut < size:
                cuts.append(cut)
    if not cuts:
        return None
    edges = [0, *cuts, size]
    return list(itertools.pairwise(edges))


def _quiet_cut(fh: Any, lo: int, size: int, matcher: Matcher, quiet: int) -> int | None:
    """The start of a line at or after ``lo`` with ``quiet`` lines free of signature literals on each side."""
    pos = lo
    while pos < min(size, lo + MAX_SEARCH):
        fh.seek(pos)
        data = fh.read(SEARCH_BYTES)
        first = data.find(b"\n") + 1  # from the first whole line
        last = data.rfind(b"\n")
        if first <= 0 or last < first:
            pos += len(data) or SEARCH_BYTES
            continue
        window = data[first:last]
        hits = matcher.signature_hits(window)
        # line indexes of the hits, then the first gap of 2 * quiet lines between them (or the edges)
        marks = [-1]
        prev, li = 0, 0
        for off in hits:
            li += window.count(b"\n", prev, off)
            prev = off
            marks.append(li)
        total = window.count(b"\n") + 1
        marks.append(total)
        for a, b in itertools.pairwise(marks):
            if b - a > 2 * quiet + 2:
                target = a + quiet + 1  # lines a+1 .. target+quiet are free of literals
                off = 0
                for _ in range(target):
                    off = window.find(b"\n", off) + 1
                return pos + first + off
        # go on from the last hit line, so that a quiet stretch across the two reads is still seen
        pos += first + (hits[-1] if hits else len(window))
    return None


def run(ranges: list[tuple[int, int]], work: Callable[[int, int, Callable[[int], None]], T], on_bytes: Callable[[int], None] | None) -> list[T] | None:
    """Run ``work(start, end, progress)`` for each range in a forked process; results in range order, or
    None when a worker failed (the caller then scans in this process)."""
    import multiprocessing as mp
    import pickle

    ctx = mp.get_context("fork")
    done = ctx.Array("q", len(ranges), lock=False)  # bytes read per worker, for the progress bar
    procs: list[Any] = []
    conns: dict[Any, int] = {}

    def child(i: int, start: int, end: int, conn: Any) -> None:
        def progress(n: int) -> None:
            done[i] += n

        try:
            payload = pickle.dumps(("ok", work(start, end, progress)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # reported to the parent, which then scans in one process
            import traceback

            payload = pickle.dumps(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"))
        conn.send_bytes(payload)
        conn.close()
        # leave at once: no flushing of stdio buffers inherited from the parent (a progress bar's thread
        # may have held their locks at fork time), no atexit handlers of the parent's
        os._exit(0)

    for stream in (sys.stdout, sys.stderr):  # a child flushes them when it ends: nothing of ours twice
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        for i, (start, end) in enumerate(ranges):
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=child, args=(i, start, end, send), daemon=True)
            proc.start()
            send.close()
            procs.append(proc)
            conns[recv] = i
        results = _collect(conns, done, on_bytes)
        return None if results is None else [results[i] for i in range(len(ranges))]
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
            with contextlib.suppress(Exception):
                proc.join(timeout=5)


def _collect(conns: dict[Any, int], done: Any, on_bytes: Callable[[int], None] | None) -> dict[int, Any] | None:
    """Each worker's result by its range's index as it comes (None at the first that failed); the bytes they
    read passed on to ``on_bytes`` meanwhile."""
    import pickle
    from multiprocessing.connection import wait

    results: dict[int, Any] = {}
    seen = 0
    while conns:
        for conn in wait(list(conns), timeout=0.2):
            i = conns.pop(conn)
            try:
                status, value = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                status, value = "error", "worker exited without a result"
            conn.close()
            if status != "ok":
                return None
            results[i] = value
        if on_bytes is not None:
            total = sum(done)
            if total > seen:
                on_bytes(total - seen)
                seen = total
    return results

"""Scan one big plain-text log on several cores.

A file of at least ``MIN_BYTES`` is cut into one byte range per process at edges of the blocks a single
reader reads (read/sources.py: each ends at the last newline of a ``BLOCK_BYTES`` piece), wherever the
content. Each forked worker reads its range widened on both sides by ``margin`` lines (and at least
``MARGIN_BLOCKS`` blocks), so that every window, tail, head and de-duplication the matcher keeps around its
own blocks is the one a single process has there; it keeps only the clusters of matches whose winner is on
one of its own lines (both workers that read a block cluster it alike: a cluster never leaves its block) and the near misses on its own lines. The parent shifts the line
numbers and merges findings, near misses and environment (scan._merge_parts). Equivalence test:
tests/test_parallel.py (the parallel report equals the one-process report).

Only on Linux, where ``fork`` hands the compiled catalog and prefilter to the workers without pickling them.
``CUDNN_DOCTOR_JOBS=1`` turns it off; ``CUDNN_DOCTOR_JOBS=N`` sets the number of processes (default: the CPUs
this process may run on, at most ``MAX_JOBS``, and one per ``MIN_BYTES_PER_JOB``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from .read import sources
from .read.sources import Block, ReadStats, Source, plain_text_file

if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

MIN_BYTES = 64 << 20
MIN_BYTES_PER_JOB = 32 << 20
MAX_JOBS = 8
MARGIN_BLOCKS = 2  # the first block a worker reads is presented without the lines rechunk carries into it


class Range(NamedTuple):
    """A worker's own bytes (``start``..``end``, block edges) and what it reads around them."""

    start: int
    end: int
    read_from: int
    read_to: int


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


def plan(path: str, margin: int, jobs: int) -> list[Range] | None:
    """One Range per job, cut at block edges and widened by ``margin`` lines; None if no cut was found
    (a file of a few huge lines)."""
    size = os.path.getsize(path)
    block = sources.BLOCK_BYTES
    cuts: list[int] = []
    with open(path, "rb") as fh:
        for k in range(1, jobs):
            cut = _edge(fh, k * size // jobs // block, block)
            if cut is not None and 0 < cut < size and (not cuts or cut > cuts[-1]):
                cuts.append(cut)
        if not cuts:
            return None
        edges = [0, *cuts, size]
        return [
            Range(a, b, _widened(fh, a, -1, margin, size) if a else 0, _widened(fh, b, 1, margin, size) if b < size else size)
            for a, b in itertools.pairwise(edges)
        ]


def _edge(fh: Any, j: int, block: int) -> int | None:
    """Where a single reader's block ends in piece ``j`` of the file (after its last newline), if it has one."""
    fh.seek(j * block)
    data = fh.read(block)
    last = data.rfind(b"\n")
    return None if last < 0 else j * block + last + 1


def _widened(fh: Any, edge: int, step: int, margin: int, size: int) -> int:
    """The block edge ``MARGIN_BLOCKS`` or more blocks from ``edge`` (back: step -1, on: +1) with at least
    ``margin`` lines between them; the file's start or end if none."""
    block = sources.BLOCK_BYTES
    j = (edge - 1) // block  # the piece whose last newline ``edge`` follows
    for k in itertools.count(MARGIN_BLOCKS):
        i = j + step * k
        if i < 0 or i * block >= size:
            return 0 if step < 0 else size
        other = _edge(fh, i, block)
        if other is None:
            continue
        lo, hi = sorted((edge, other))
        if newlines(fh, lo, hi) >= margin:
            return other
    raise AssertionError("unreachable")


def newlines(fh: Any, start: int, end: int) -> int:
    """Newlines in bytes start..end of an open file."""
    fh.seek(start)
    count = 0
    while start < end:
        data = fh.read(min(end - start, 1 << 20))
        if not data:
            break
        count += data.count(b"\n")
        start += len(data)
    return count


def lines(fh: Any, start: int, end: int) -> int:
    """Lines in bytes start..end of an open file: its newlines, and the file's last line where it has none (a
    log cut short: the range that ends the file owns it)."""
    count = newlines(fh, start, end)
    if end > start:
        fh.seek(end - 1)
        count += fh.read(1) != b"\n"
    return count


def own_blocks(blocks: Iterator[Block], stats: ReadStats, own: range, kept: ReadStats) -> Iterator[Block]:
    """The blocks a worker reads, passed on; ``kept`` counts the long lines cut in those starting on its own
    lines (``own``: line numbers counted from the first line read)."""
    line, seen = 1, 0
    for b in blocks:
        if line in own:
            kept.cut_lines += stats.cut_lines - seen
        seen = stats.cut_lines
        line += b.lines
        yield b


def run(ranges: list[Range], work: Callable[[Range, Callable[[int], None]], T], on_bytes: Callable[[int], None] | None) -> list[T] | None:
    """Run ``work(range, progress)`` for each range in a forked process; results in range order, or
    None when a worker failed (the caller then scans in this process)."""
    import multiprocessing as mp
    import pickle

    ctx = mp.get_context("fork")
    done = ctx.Array("q", len(ranges), lock=False)  # bytes read per worker, for the progress bar
    procs: list[Any] = []
    conns: dict[Any, int] = {}

    def child(i: int, r: Range, conn: Any) -> None:
        def progress(n: int) -> None:
            done[i] += n

        try:
            payload = pickle.dumps(("ok", work(r, progress)), protocol=pickle.HIGHEST_PROTOCOL)
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
        for i, r in enumerate(ranges):
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=child, args=(i, r, send), daemon=True)
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

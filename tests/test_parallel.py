"""Parallel scanning of one big file: same diagnosis as one process wherever the cuts fall, safe fallback.

The size thresholds are lowered so that a log of a few MiB is cut into ranges.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from cudnn_doctor import parallel
from cudnn_doctor.read import sources as input_mod
from cudnn_doctor.read.sources import ReadStats, sources_from_args
from cudnn_doctor.report import build_report
from cudnn_doctor.scan import Options, diagnose_sources

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="parallel scanning forks (Linux only)")

EVAL_TB = [
    "Traceback (most recent call last):",
    '  File "train.py", line 9, in <module>',
    "    loss.backward()",
    "RuntimeError: cudnn RNN backward can only be called in training mode",
]
HIDDEN_TB = [
    "Traceback (most recent call last):",
    '  File "ntm/controller.py", line 57, in forward',
    "    outp, self.state = self.lstm(x.unsqueeze(0), prev_state)",
    "RuntimeError: Expected hidden[0] size (1, 1, 100), got (1, 1, 29)",
]
FLATTEN = (
    "/pytorch/aten/src/ATen/native/cudnn/RNN.cpp:1266: UserWarning: RNN module weights are not part of single "
    "contiguous chunk of memory. This means they need to be compacted at every call, possibly greatly increasing "
    "memory usage. To compact weights again call flatten_parameters()."
)


CASES = [(Path(__file__).parent / "fixtures" / "corpus" / f"{n}.log").read_text() for n in ("001", "038", "015", "079")]


def _log(path: Path, steps: int = 70_000) -> Path:
    """~5 MiB of a training log: a warning every 700 steps, two tracebacks, and a real error (a corpus case)
    across every MiB edge (where the file is cut for the workers)."""
    lines: list[str] = ["Loaded cuDNN version 8906", "torch==2.1.0"]
    size = sum(len(x) + 1 for x in lines)
    for i in range(steps):
        ts = f"2026-11-21T10:{i // 3600 % 60:02d}:{i // 60 % 60:02d}.{i:07d}Z "
        step = [ts + f"\x1b[32mEpoch {i // 100} step {i} loss={i % 7 / 3:.4f}\x1b[0m"]
        if i % 700 == 350:
            step.append(ts + FLATTEN)
        if i % 20 == 7:
            step.append(ts + "DeprecationWarning: `np.bool` is a deprecated alias for the builtin `bool`.")
        if i == 2000:
            step += EVAL_TB
        if i == 60000:
            step += HIDDEN_TB
        case = CASES[size >> 20 & 3]
        if size % (1 << 20) > (1 << 20) - len(case) // 2:  # a real error across each MiB edge
            step += case.splitlines()
        lines += step
        size += sum(len(x.encode()) + 1 for x in step)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_BYTES", 1 << 20)
    monkeypatch.setattr(parallel, "MIN_BYTES_PER_JOB", 1 << 20)


def _diagnose(path: Path, catalog, jobs: int) -> dict:  # type: ignore[no-untyped-def]
    sources, _ = sources_from_args([str(path)], None)
    return build_report(diagnose_sources(sources, catalog=catalog, options=Options(jobs=jobs)))


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _log(tmp_path_factory.mktemp("parallel") / "job.log")


def test_parallel_scan_gives_the_one_process_diagnosis(big_log: Path, catalog, small_thresholds, monkeypatch) -> None:
    planned: list[list[parallel.Range]] = []
    real_plan = parallel.plan

    def spy(path: str, margin: int, jobs: int) -> list[parallel.Range] | None:
        got = real_plan(path, margin, jobs)
        planned.append(got or [])
        return got

    monkeypatch.setattr(parallel, "plan", spy)
    one = _diagnose(big_log, catalog, 1)
    assert not planned
    three = _diagnose(big_log, catalog, 3)
    assert len(planned[0]) == 3, planned  # really cut
    assert three == one
    found = {f["id"]: (f["line"], f["count"]) for f in one["findings"]}
    assert found["pytorch/rnn-weights-not-contiguous"][1] == 100
    # 2 header lines, steps 0..2000, 3 warnings and 100 deprecation lines before it, the 4th line of the traceback
    assert found["pytorch/rnn-backward-in-eval-mode"][0] == 2 + 2001 + 3 + 100 + 4
    assert one["environment"]["cudnn"]["version"] == "8.9.6"


def test_a_log_cut_short_is_read_to_its_last_line_in_parallel(tmp_path: Path, catalog, small_thresholds) -> None:
    # a log cut short ends without a newline, in the middle of its message: its last line belongs to the range
    # that ends the file (counted by its newlines, it was dropped), and the file's last lines are read
    # tolerantly: a worker whose range ends before the file's end skips that reading, the last one must not
    path = _log(tmp_path / "cut.log", steps=40_000)
    before = {f["id"]: f["count"] for f in _diagnose(path, catalog, 1)["findings"]}
    with path.open("a") as fh:
        fh.write("\n".join(EVAL_TB[:3]) + "\nRuntimeError: cudnn RNN backward can only be called in tr")
    one = _diagnose(path, catalog, 1)
    three = _diagnose(path, catalog, 3)
    assert three == one
    after = {f["id"]: f["count"] for f in one["findings"]}
    assert after["pytorch/rnn-backward-in-eval-mode"] == before["pytorch/rnn-backward-in-eval-mode"] + 1


def test_ranges_cover_the_file_at_block_edges(big_log: Path, catalog) -> None:
    ranges = parallel.plan(str(big_log), 400, 4)
    data = big_log.read_bytes()
    assert ranges is not None and len(ranges) == 4 and ranges[0].start == 0 and ranges[-1].end == len(data)
    for r, nxt in itertools.pairwise(ranges):
        assert r.end == nxt.start and data[r.end - 1 : r.end] == b"\n"
        assert data.rfind(b"\n", 0, (r.end - 1) // input_mod.BLOCK_BYTES * input_mod.BLOCK_BYTES + input_mod.BLOCK_BYTES) == r.end - 1
        assert r.read_to > r.end and data.count(b"\n", r.end, r.read_to) >= 400
        assert nxt.read_from < nxt.start and data.count(b"\n", nxt.read_from, nxt.start) >= 400


def test_a_file_of_few_huge_lines_is_not_cut(tmp_path: Path) -> None:
    log = tmp_path / "huge.log"
    log.write_bytes(b"x" * (5 << 20) + b"\n")
    assert parallel.plan(str(log), 400, 2) is None


def test_ranges_read_with_the_same_block_edges(big_log: Path) -> None:
    log = big_log
    size = log.stat().st_size
    whole = [b.data for b in input_mod.read_range(str(log), 0, size, ReadStats())]
    data = log.read_bytes()
    cut = data.find(b"\n", size // 2) + 1
    parts = [b.data for b in input_mod.read_range(str(log), 0, cut, ReadStats())]
    parts += [b.data for b in input_mod.read_range(str(log), cut, size, ReadStats())]
    # the same blocks, except that the one holding the cut is split in two there
    assert b"\n".join(parts) == b"\n".join(whole) == data[:-1]
    edges = {len(b"\n".join(whole[: i + 1])) for i in range(len(whole))}
    part_edges = {len(b"\n".join(parts[: i + 1])) for i in range(len(parts))}
    assert part_edges - edges == {cut - 1}


def test_run_keeps_range_order_and_reports_progress() -> None:
    seen: list[int] = []
    ranges = [parallel.Range(0, 10, 0, 30), parallel.Range(10, 30, 0, 31), parallel.Range(30, 31, 10, 31)]
    got = parallel.run(ranges, lambda r, p: (p(r.end - r.start), (r.start, r.end))[1], seen.append)
    assert got == [(0, 10), (10, 30), (30, 31)]
    assert sum(seen) <= 31


def test_a_failing_worker_makes_the_caller_scan_itself(tmp_path: Path, catalog, small_thresholds, monkeypatch) -> None:
    def boom(r, p) -> None:  # type: ignore[no-untyped-def]
        raise RuntimeError("worker failed")

    assert parallel.run([parallel.Range(0, 1, 0, 2), parallel.Range(1, 2, 0, 2)], boom, None) is None
    log = _log(tmp_path / "job.log", 20_000)
    monkeypatch.setattr(parallel, "run", lambda ranges, work, on_bytes: None)
    assert _diagnose(log, catalog, 2) == _diagnose(log, catalog, 1)


def test_jobs_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.log"
    with open(big, "wb") as fh:
        fh.truncate(parallel.MIN_BYTES)  # sparse: all NUL bytes, which is binary
    src = sources_from_args([str(big)], None)[0][0]
    assert parallel.jobs_for(src, 4) == 1  # binary data is never split
    text = tmp_path / "text.log"
    text.write_bytes(b"line\n" * (parallel.MIN_BYTES // 5 + 1))
    src = sources_from_args([str(text)], None)[0][0]
    assert parallel.jobs_for(src, 4) == 2  # one job per MIN_BYTES_PER_JOB
    monkeypatch.setenv("CUDNN_DOCTOR_JOBS", "1")
    assert parallel.jobs_for(src) == 1
    stdin = sources_from_args(["-"], sys.stdin.buffer if sys.stdin else None)[0]
    assert all(parallel.jobs_for(s, 4) == 1 for s in stdin)

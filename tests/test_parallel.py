"""Parallel scanning of one big file: same diagnosis as one process, cuts only at quiet lines, safe fallback.

The size thresholds are lowered so that a log of a few hundred KB is cut into ranges.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from cudnn_doctor import parallel
from cudnn_doctor.match import Matcher
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


def _log(path: Path) -> Path:
    lines: list[str] = ["Loaded cuDNN version 8906", "torch==2.1.0"]
    for i in range(12000):
        ts = f"2026-11-21T10:{i // 3600 % 60:02d}:{i // 60 % 60:02d}.{i:07d}Z "
        lines.append(ts + f"\x1b[32mEpoch {i // 100} step {i} loss={i % 7 / 3:.4f}\x1b[0m")
        if i % 700 == 350:
            lines.append(ts + FLATTEN)
        if i == 2000:
            lines += EVAL_TB
        if i == 9000:
            lines += HIDDEN_TB
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(input_mod, "BLOCK_BYTES", 16 << 10)
    monkeypatch.setattr(parallel, "MIN_BYTES", 64 << 10)
    monkeypatch.setattr(parallel, "MIN_BYTES_PER_JOB", 32 << 10)
    monkeypatch.setattr(parallel, "SEARCH_BYTES", 64 << 10)


def _diagnose(path: Path, catalog, jobs: int) -> dict:  # type: ignore[no-untyped-def]
    sources, _ = sources_from_args([str(path)], None)
    return build_report(diagnose_sources(sources, catalog=catalog, options=Options(jobs=jobs)))


def test_parallel_scan_gives_the_one_process_diagnosis(tmp_path: Path, catalog, small_thresholds, monkeypatch) -> None:
    log = _log(tmp_path / "job.log")
    planned: list[list[tuple[int, int]]] = []
    real_plan = parallel.plan

    def spy(path: str, matcher: Matcher, jobs: int) -> list[tuple[int, int]] | None:
        got = real_plan(path, matcher, jobs)
        planned.append(got or [])
        return got

    monkeypatch.setattr(parallel, "plan", spy)
    one = _diagnose(log, catalog, 1)
    assert not planned
    three = _diagnose(log, catalog, 3)
    assert len(planned[0]) == 3, planned  # really cut
    assert three == one
    found = {f["id"]: (f["line"], f["count"]) for f in one["findings"]}
    assert found["pytorch/rnn-weights-not-contiguous"][1] == 17
    # 2 header lines, steps 0..2000, 3 warnings before it, the 4th line of the traceback
    assert found["pytorch/rnn-backward-in-eval-mode"][0] == 2 + 2001 + 3 + 4
    assert one["environment"]["cudnn"]["version"] == "8.9.6"


def test_cuts_fall_on_line_starts_with_no_literal_nearby(tmp_path: Path, catalog, small_thresholds) -> None:
    log = _log(tmp_path / "job.log")
    matcher = Matcher(catalog)
    ranges = parallel.plan(str(log), matcher, 4)
    assert ranges is not None and ranges[0][0] == 0 and ranges[-1][1] == log.stat().st_size
    data = log.read_bytes()
    lines = data.split(b"\n")
    for (_, end), (start, _) in itertools.pairwise(ranges):
        assert end == start and data[start - 1 : start] == b"\n"
        li = data.count(b"\n", 0, start)
        near = b"\n".join(lines[li - parallel.QUIET_LINES : li + parallel.QUIET_LINES]).lower()
        assert not any(lit.encode() in near for lit in matcher.by_literal)


def test_no_quiet_line_means_one_process(tmp_path: Path, catalog, small_thresholds) -> None:
    log = tmp_path / "noisy.log"
    log.write_text((FLATTEN + "\n") * 2000)
    assert parallel.plan(str(log), Matcher(catalog), 2) is None
    record = _diagnose(log, catalog, 2)
    assert record["findings"][0]["count"] == 2000


def test_ranges_read_with_the_same_block_edges(tmp_path: Path, small_thresholds) -> None:
    log = _log(tmp_path / "job.log")
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
    got = parallel.run([(0, 10), (10, 30), (30, 31)], lambda s, e, p: (p(e - s), (s, e))[1], seen.append)
    assert got == [(0, 10), (10, 30), (30, 31)]
    assert sum(seen) <= 31


def test_a_failing_worker_makes_the_caller_scan_itself(tmp_path: Path, catalog, small_thresholds, monkeypatch) -> None:
    def boom(s: int, e: int, p) -> None:  # type: ignore[no-untyped-def]
        raise RuntimeError("worker failed")

    assert parallel.run([(0, 1), (1, 2)], boom, None) is None
    log = _log(tmp_path / "job.log")
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

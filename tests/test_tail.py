"""A big log's last lines are read tolerantly (match/reading.py TAIL_LINES), at most TAIL_BYTES of them: a
longer line is read from its end, where a killed job's message is cut."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cudnn_doctor.match import reading
from cudnn_doctor.read.sources import sources_from_args
from cudnn_doctor.report import build_report
from cudnn_doctor.scan import Options, diagnose_sources

CUT = "RuntimeError: cudnn RNN backward can only be called in tr"  # the message, cut by the job's end


def _findings(path: Path, catalog) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    sources, _ = sources_from_args([str(path)], None)
    report = build_report(diagnose_sources(sources, catalog=catalog, options=Options(jobs=1)))
    return [(f["id"], f["line"]) for f in report["findings"]]


@pytest.mark.parametrize("newline", [False, True])
def test_a_message_cut_at_the_end_of_a_huge_last_line_is_read(tmp_path: Path, catalog, newline: bool) -> None:
    rng = random.Random(29)
    steps = [f"INFO:trainer:step {i} loss={i % 7 / 3:.4f}" for i in range(20_000)]  # a big log: not a paste
    metrics = '{"event": "metrics", "lstm_hidden": [' + ", ".join(f"{rng.random():.6f}" for _ in range(30_000)) + "]} "
    assert len(metrics) > 4 * reading.TAIL_BYTES
    path = tmp_path / "killed.log"
    path.write_text("\n".join([*steps, metrics + CUT]) + ("\n" if newline else ""))
    assert path.stat().st_size > reading.SMALL_INPUT
    assert _findings(path, catalog) == [("pytorch/rnn-backward-in-eval-mode", len(steps) + 1)]


"""Streaming: results do not depend on where block edges fall; repeats, ranks, CI markers, CRLF; cascades.

Blocks are made a few hundred bytes long (input.BLOCK_BYTES) so that every log here spans many of them.
"""

from __future__ import annotations

import gzip

import pytest

from cudnn_doctor.kb.regexinfo import line_local
from cudnn_doctor.match import Matcher, Prefilter
from cudnn_doctor.read import sources as input_mod
from cudnn_doctor.read.sources import Source, text_source
from cudnn_doctor.scan import Options, diagnose_sources

EVAL_TB = """\
Traceback (most recent call last):
  File "grad-cam.py", line 222, in __call__
    one_hot.backward()
  File "/usr/lib/python3.10/site-packages/torch/autograd/__init__.py", line 90, in backward
    allow_unreachable=True)  # allow_unreachable flag
RuntimeError: cudnn RNN backward can only be called in training mode"""
HIDDEN_TB = """\
Traceback (most recent call last):
  File "ntm/controller.py", line 57, in forward
    outp, self.state = self.lstm(x.unsqueeze(0), prev_state)
  File "/usr/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 179, in check_forward_args
    'Expected hidden[0] size {}, got {}')
RuntimeError: Expected hidden[0] size (1, 1, 100), got (1, 1, 29)"""
FLATTEN = (
    "/pytorch/aten/src/ATen/native/cudnn/RNN.cpp:1266: UserWarning: RNN module weights are not part of single "
    "contiguous chunk of memory. This means they need to be compacted at every call, possibly greatly increasing "
    "memory usage. To compact weights again call flatten_parameters()."
)
EVAL_ID = "pytorch/rnn-backward-in-eval-mode"
HIDDEN_ID = "pytorch/rnn-hidden-size-mismatch"
FLATTEN_ID = "pytorch/rnn-weights-not-contiguous"


def noise(n: int, start: int = 0) -> list[str]:
    return [f"Epoch 1 step {i} loss={i % 7 / 3:.4f} acc=0.{i % 97:02d}" for i in range(start, start + n)]


def run(text: str | bytes, catalog, block: int | None = None, monkeypatch=None):  # type: ignore[no-untyped-def]
    if block is not None:
        monkeypatch.setattr(input_mod, "BLOCK_BYTES", block)
    return diagnose_sources([text_source(text, "log")], catalog=catalog, options=Options())


def summary(d) -> dict[str, tuple[int, int, int]]:  # type: ignore[no-untyped-def]
    out = {}
    for f in d.findings + d.below_threshold:
        for g in (f, *f.consequences):
            out[g.id] = (g.first.line, g.last.line, g.count)
    return out


# ------------------------------------------------------------------------------------------ block edges

@pytest.mark.parametrize("shift", [0, 37, 101, 163, 250, 311])
def test_a_traceback_split_by_a_block_edge_is_found_once(catalog, monkeypatch, shift: int) -> None:
    head = noise(40)
    head[-1] += "x" * shift  # moves the traceback across the edges of 256-byte blocks
    lines = [*head, *EVAL_TB.split("\n"), *noise(40, 100)]
    whole = summary(run("\n".join(lines), catalog))
    assert whole[EVAL_ID] == (46, 46, 1)
    small = summary(run("\n".join(lines), catalog, 256, monkeypatch))
    assert small == whole


def test_block_edges_do_not_change_any_result(catalog, monkeypatch) -> None:
    parts = [*noise(30), *EVAL_TB.split("\n"), *noise(30, 50), FLATTEN, *noise(12, 90), *HIDDEN_TB.split("\n"), FLATTEN]
    text = "\n".join(parts)
    want = summary(run(text, catalog))
    assert set(want) >= {EVAL_ID, HIDDEN_ID, FLATTEN_ID}
    for block in (200, 333, 512, 4096):
        assert summary(run(text, catalog, block, monkeypatch)) == want, block


def test_a_line_longer_than_a_block(catalog, monkeypatch) -> None:
    text = "\n".join([*noise(5), "y" * 3000, *EVAL_TB.split("\n")])
    assert summary(run(text, catalog, 256, monkeypatch))[EVAL_ID] == (12, 12, 1)


# ------------------------------------------------------------------------------------------ repetition

def test_an_error_repeated_10000_times_is_one_finding(catalog, monkeypatch) -> None:
    lines: list[str] = []
    at: list[int] = []
    for i in range(10_000):
        lines += noise(2, i)
        lines.append(FLATTEN)
        at.append(len(lines))
    d = run("\n".join(lines), catalog, 64 << 10, monkeypatch)
    [f] = [f for f in d.findings if f.id == FLATTEN_ID]
    assert (f.count, f.first.line, f.last.line) == (10_000, at[0], at[-1])
    assert len(d.findings) == 1


def test_a_warning_on_consecutive_lines_counts_each_print(catalog) -> None:
    d = run("\n".join([*noise(3), *[FLATTEN] * 25, *noise(3)]), catalog)
    [f] = d.findings
    assert (f.id, f.count, f.first.line, f.last.line) == (FLATTEN_ID, 25, 4, 28)


# ------------------------------------------------------------------------------------------ streams

def interleave(a: str, b: str) -> list[str]:
    la, lb = a.split("\n"), b.split("\n")
    out = []
    for i in range(max(len(la), len(lb))):
        if i < len(la):
            out.append("[rank0]: " + la[i])
        if i < len(lb):
            out.append("[rank1]: " + lb[i])
    return out


def test_interleaved_rank_tracebacks_are_demultiplexed(catalog, monkeypatch) -> None:
    lines = [*noise(10), *interleave(EVAL_TB, HIDDEN_TB), *noise(10, 50)]
    for block in (None, 300):
        d = run("\n".join(lines), catalog, block, monkeypatch)
        got = {f.id: f for f in d.findings}
        assert got[EVAL_ID].first.stream == "rank0" and got[EVAL_ID].first.line == 10 + 11
        assert got[HIDDEN_ID].first.stream == "rank1" and got[HIDDEN_ID].first.line == 10 + 12
        assert "rank" not in got[EVAL_ID].first.text


def test_the_same_error_in_two_ranks_is_one_finding_seen_twice(catalog) -> None:
    d = run("\n".join([*noise(5), *interleave(EVAL_TB, EVAL_TB), *noise(5)]), catalog)
    [f] = [f for f in d.findings if f.id == EVAL_ID]
    assert f.count == 2
    assert {f.first.stream, f.last.stream} == {"rank0", "rank1"}


# ------------------------------------------------------------------------------------------ CI logs

def github(lines: list[str]) -> list[str]:
    return [f"2024-05-14T09:12:{i % 60:02d}.{i:07d}Z {line}" for i, line in enumerate(lines)]


def test_ci_markers_timestamps_colours_and_tqdm(catalog, monkeypatch) -> None:
    bar = "\r".join(f"Epoch 3: {p:3d}%|{'█' * (p // 10)}| {p}/100 [00:0{p % 9}<00:10]" for p in range(0, 100, 7))
    lines = github(
        [
            "##[group]Run python train.py",
            "\x1b[36;1mpython train.py\x1b[0m",
            bar,
            "##[endgroup]",
            "section_start:1715677921:train[collapsed=true]\r\x1b[0KTraining",
            "[Pipeline] sh",
            *("\x1b[31m" + line + "\x1b[0m" for line in EVAL_TB.split("\n")),
            "section_end:1715677999:train\r\x1b[0K",
            "##[error]Process completed with exit code 1.",
        ]
    )
    for block in (None, 200):
        d = run("\n".join(lines), catalog, block, monkeypatch)
        [f] = d.findings
        assert (f.id, f.first.line) == (EVAL_ID, 12)
        assert f.first.text.startswith("cudnn RNN backward can only")  # no colour codes, no timestamp


def test_crlf_logs_keep_their_line_numbers(catalog, monkeypatch) -> None:
    lines = [*noise(20), *EVAL_TB.split("\n"), *noise(20, 40), FLATTEN]
    lf = summary(run("\n".join(lines), catalog))
    for block in (None, 128, 257):
        assert summary(run("\r\n".join(lines) + "\r\n", catalog, block, monkeypatch)) == lf


def test_gzip_input_across_blocks(catalog, monkeypatch) -> None:
    lines = [*noise(50), *EVAL_TB.split("\n")]
    data = gzip.compress("\n".join(lines).encode())
    monkeypatch.setattr(input_mod, "BLOCK_BYTES", 300)
    d = diagnose_sources([Source("log.gz", lambda: __import__("io").BytesIO(data))], catalog=catalog)
    assert summary(d)[EVAL_ID] == (56, 56, 1)


def test_a_huge_tqdm_line_is_cut_to_what_the_terminal_showed(catalog, monkeypatch) -> None:
    monkeypatch.setattr(input_mod, "MAX_LINE", 2000)
    monkeypatch.setattr(input_mod, "_HEAD_KEEP", 500)
    monkeypatch.setattr(input_mod, "_TAIL_KEEP", 1500)
    bar = "\r".join(f"{p}%|###| {p}/100" for p in range(2000)) + "\r" + EVAL_TB.split("\n")[-1]
    d = run("\n".join([*noise(3), bar, *noise(3)]), catalog, 1024, monkeypatch)
    assert summary(d)[EVAL_ID][:2] == (4, 4)
    assert any("cut to their head and tail" in w for w in d.warnings)


# ------------------------------------------------------------------------------------------ cascades

def test_a_cascade_shows_the_root_cause_first_and_folds_the_consequence(catalog) -> None:
    log = "\n".join(
        [
            "2019-03-01 10:00:01.000001: E tensorflow/stream_executor/cuda/cuda_dnn.cc:334] Could not create cudnn "
            "handle: CUDNN_STATUS_INTERNAL_ERROR",
            "2019-03-01 10:00:01.000002: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1512] Adding visible gpu "
            "devices: 0",
            *noise(3),
            "Traceback (most recent call last):",
            '  File "train.py", line 40, in <module>',
            "    model.fit(x, y)",
            "tensorflow.python.framework.errors_impl.UnknownError: Fail to find the dnn implementation.",
            "\t [[{{node CudnnRNN}}]]",
        ]
    )
    d = run(log, catalog)
    [root] = d.findings  # the consequence is not a top-level finding
    assert root.first.line == 1
    assert "tensorflow/could-not-create-cudnn-handle" in {root.id, *root.related}
    assert [c.id for c in root.consequences] == ["tensorflow/fail-to-find-dnn-implementation"]
    assert root.consequences[0].first.line == 9


def test_a_cascade_needs_the_cause_first(catalog) -> None:
    log = "\n".join(
        [
            "tensorflow.python.framework.errors_impl.UnknownError: Fail to find the dnn implementation.",
            "\t [[{{node CudnnRNN}}]]",
            *noise(10),
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:334] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
        ]
    )
    d = run(log, catalog)
    assert all(not f.consequences for f in d.findings)
    assert "tensorflow/fail-to-find-dnn-implementation" in {f.id for f in d.findings}


# ------------------------------------------------------------------------------------------ prefilter

LITS = ["cudnn", "cudnn_status_", "not part of single contiguous chunk", "rnn", "==", "os: "]


def test_prefilter_reports_each_line_with_all_its_literals() -> None:
    text = "a\nCUDNN_STATUS_BAD_PARAM in RNN\nnothing\ntorch==2.1 os: linux\n\nx cuDNN"
    got = Prefilter(LITS).scan(text)
    lines = {text.count("\n", 0, off): sorted(lits) for off, lits in got.items()}
    assert lines == {1: ["cudnn", "cudnn_status_", "rnn"], 3: ["==", "os: "], 5: ["cudnn"]}


def test_prefilter_engines_agree(monkeypatch, hyperscan) -> None:  # type: ignore[no-untyped-def]
    text = "\n".join([*noise(50), "x █ CUDNN_status_ rnn", "ü torch==1 os: x", *noise(5), "cudnn"])
    fast = Prefilter(LITS)
    assert fast.engine == "hyperscan"
    monkeypatch.setenv("CUDNN_DOCTOR_NO_HYPERSCAN", "1")
    slow = Prefilter(LITS)
    assert slow.engine == "find"
    a = {k: sorted(v) for k, v in fast.scan(text).items()}
    b = {k: sorted(v) for k, v in slow.scan(text).items()}
    assert a == b and len(a) == 3


def test_line_local_patterns() -> None:
    assert line_local(r"RNN\ module\ weights[^\n]*?\((?P<x>[^\n)]*)\)", ("VERBOSE",))
    assert line_local(r"Expected hidden\[0\] size \(\d+, \d+\)")
    assert not line_local(r"Could\s+not\s+run")  # \s may be a newline
    assert not line_local(r"Traceback[\s\S]*?Error")
    assert not line_local(r"(?s)a.b")
    assert not line_local(r"a[^x]b")
    assert not line_local(r"(a)\1")


def test_matcher_scan_text_equals_blocks(catalog) -> None:
    text = "\n".join([*noise(20), *EVAL_TB.split("\n"), *noise(20, 40), *HIDDEN_TB.split("\n")])
    m = Matcher(catalog)
    whole, _ = m.scan_text(text)
    lines = text.split("\n")
    blocks = ["\n".join(lines[i : i + 7]) for i in range(0, len(lines), 7)]
    parts = [x for x, _ in Matcher(catalog).scan_blocks(blocks, "<text>") if x is not None]
    assert [(x.sig.id, x.line, x.end_line) for x in whole] == [(x.sig.id, x.line, x.end_line) for x in parts]

"""The ROCm cause signatures read MIOpen's status name without the exception class in front of it (issue 27): a
title, a sentence or a notebook cell carries ``miopenStatusBadParm`` bare, as the generic cudnn/miopen-rnn-status
already reads it. Their regexes required ``RuntimeError:``, so only the generic was found. The cause's own
evidence (an empty tensor, a large batch with MIOpen's length check, MIOpen's failed kernel build) is still required,
and a warning line is still no error."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()


def _top(text: str) -> str | None:
    d = diagnose(text, catalog=CATALOG)
    return d.findings[0].id if d.findings else None


@pytest.mark.parametrize(("text", "cause"), [
    ("Training nn.LSTM with batch_size=2048 on an MI210: MIOpen prints 'Lengths must be > 0' and every forward raises "
     "miopenStatusBadParm",
     "pytorch/cause-rocm-miopen-rnn-int32-size-overflow"),
    ("x comes in as torch.Size([0, 12, 32]) on the last step and the GRU then dies with miopenStatusBadParm",
     "pytorch/cause-rocm-miopen-rnn-empty-tensor"),
    ("MIOpen Error: /src/MIOpen/src/hipoc/hipoc_program.cpp:299: Code object build failed. Source: MIOpenDropoutHIP.cpp\n"
     '  File "/venv/lib/python3.11/site-packages/torch/nn/modules/rnn.py", line 1124, in forward\n'
     "    result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,\nmiopenStatusUnknownError\n",
     "pytorch/cause-rocm-miopen-rnn-kernel-jit-failed"),
    ("# nn.LSTM on gfx1030 (ROCm 6.0): Code object build failed -> miopenStatusUnknownError at the first call",
     "pytorch/cause-rocm-miopen-rnn-kernel-jit-failed"),
])
def test_a_bare_miopen_status_with_the_causes_evidence_is_that_cause(text: str, cause: str) -> None:
    assert _top(text) == cause


@pytest.mark.parametrize("text", [
    "batch_size=2048\n[W RNN_miopen.cpp:812] Warning: miopenStatusBadParm for this LSTM, using the native kernel",
    "torch.Size([0, 12, 32])\nUserWarning: GRU: miopenStatusBadParm, falling back",
    "W0101 12:00:00.1 42 rocm_dnn.cc:2011] nn.LSTM: miopenStatusUnknownError from the solver, retrying",
])
def test_a_status_on_a_warning_line_is_no_cause(text: str) -> None:
    assert not (_top(text) or "").startswith("pytorch/cause-rocm")


def test_without_the_causes_evidence_the_generic_status_stands() -> None:
    assert _top("LSTM on ROCm raises miopenStatusBadParm") == "cudnn/miopen-rnn-status"

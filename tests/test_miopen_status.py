"""MIOpen's status names (ROCm's miopenStatus_t, include/miopen/miopen.h) raised from an RNN are read as a finding
(issue 27): PyTorch on ROCm raises the name alone (``RuntimeError: miopenStatusBadParm``), which gave only near
misses. The name on a warning line (a fallback notice: ``UserWarning``, glog ``W0101``, c10 ``[W ...]``,
``warnings.warn``) is no error; from a convolution it is no RNN error; a cause that tells the status apart and
MIOpen's own error line stay on top."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()
FRAMES = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 40, in forward\n'
    "    y, _ = self.lstm(x)\n"
    '  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 879, in forward\n'
    "    result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,\n"
)
# every error status of miopenStatus_t but miopenStatusUnknownError after an RNN frame, whose PyTorch form a cause
# reads without further evidence (pytorch/cause-rocm-miopen-rnn-kernel-jit-failed); GpuOperationsSkipped is no error
NAMES = ("NotInitialized", "InvalidValue", "BadParm", "AllocFailed", "InternalError", "NotImplemented",
         "UnsupportedOp", "VersionMismatch")


def _top(text: str) -> tuple[str | None, dict[str, str | None]]:
    d = diagnose(text, catalog=CATALOG)
    return (d.findings[0].id, dict(d.findings[0].first.captures)) if d.findings else (None, {})


def _ids(text: str) -> set[str]:
    d = diagnose(text, catalog=CATALOG)
    return {f.id for f in d.findings} | {r for f in d.findings for r in f.related}


@pytest.mark.parametrize("name", NAMES)
def test_a_miopen_status_raised_from_an_rnn_is_a_finding(name: str) -> None:
    assert _top(FRAMES + f"RuntimeError: miopenStatus{name}\n") == ("cudnn/miopen-rnn-status", {"status": name})


def test_the_status_in_prose_or_another_case_is_read() -> None:
    for text in ("# LSTM forward fails with RuntimeError: miopenStatusBadParm on MI250",
                 FRAMES + "runtimeerror: miopenstatusnotimplemented\n",
                 "my GRU on ROCm 6.1: NotImplementedError: miopenStatusNotImplemented. This error may appear if you "
                 "passed in a non-contiguous input."):
        assert _top(text)[0] == "cudnn/miopen-rnn-status", text


@pytest.mark.parametrize("line", [
    "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/rnn.py:879: UserWarning: LSTM: miopenStatusBadParm, "
    "using the native kernel",
    "W0101 12:00:00.123456 4242 rocm_dnn.cc:2011] miopenStatusNotImplemented from the RNN solver; using the generic LSTM",
    "[W RNN_miopen.cpp:812] Warning: miopenStatusUnsupportedOp for this LSTM configuration (function miopen_rnn)",
    "    warnings.warn(f'LSTM: MIOpen returned miopenStatusInternalError, retrying without MIOpen')",
])
def test_a_status_on_a_warning_line_is_no_error(line: str) -> None:
    assert "cudnn/miopen-rnn-status" not in _ids(FRAMES.replace("Traceback (most recent call last):\n", "") + line + "\n")


def test_a_convolution_status_is_no_rnn_finding() -> None:
    text = FRAMES.replace("self.lstm", "self.conv1").replace("nn/modules/rnn.py", "nn/modules/conv.py").replace(
        "_VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,", "F.conv2d(input, weight, bias)")
    assert _top(text + "RuntimeError: miopenStatusBadParm\n")[0] is None


def test_what_tells_the_status_apart_stays_on_top() -> None:
    detail = ("MIOpen Error: /MIOpen/src/ocl/rnnocl.cpp:1453: Input batch is ZERO!\n" + FRAMES
              + "RuntimeError: miopenStatusBadParm\n")
    assert _top(detail)[0] == "cudnn/miopen-rnn-error"
    empty = "x: torch.Size([0, 35, 64])\n" + FRAMES + "RuntimeError: miopenStatusBadParm\n"
    assert _top(empty)[0] == "pytorch/cause-rocm-miopen-rnn-empty-tensor"

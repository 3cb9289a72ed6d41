"""A cuDNN status given as its number (cudnnStatus_t: 7/8 numbering 1-14, cuDNN 9's categorised 1001-5004) in a
cuDNN status context is read as that status by the status families' own regexes: Paddle's ``CUDNN error(8)``
when the status name after it is cut off (a title), ``cudnn status 9`` or ``cuDNN error 8`` typed from memory,
DL4J's ``cuDNN status = 7``. A bare number, a version and a number a status name follows are not read so."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()


def _top(text: str) -> tuple[str | None, dict[str, str | None]]:
    d = diagnose(text, catalog=CATALOG)
    return (d.findings[0].id, dict(d.findings[0].first.captures)) if d.findings else (None, {})


def test_a_status_number_in_a_cudnn_status_context_is_read_as_its_status() -> None:
    for text, sig_id, code in (
        ("Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    out, (h, c) = self.lstm(x)\n"
         "OSError: (External) CUDNN error(8)\n  [operator < rnn > error]", "paddle/rnn-cudnn-execution-failed", "8"),
        ("out, h = self.gru(x, h0)\nRuntimeError: cudnn status 9", "cudnn/rnn-status-not-supported", "9"),
        ("my LSTM stops after an hour with cuDNN error 8 on a V100", "cudnn/rnn-status-execution-failed", "8"),
        ("CUDNN error(3) from cudnnSetRNNDescriptor while building the LSTM", "cudnn/rnn-status-bad-param", "3"),
        ("java.lang.RuntimeException: cuDNN status = 7 on the second epoch", "cudnn/status-mapping-error", "7"),
        ("cudnn status 5003 after upgrading to cuDNN 9", "cudnn/status-execution-failed", "5003"),
        ("CUDNN error(1001) at startup", "cudnn/status-not-initialized", "1001"),
        # PyTorch 0.1-0.3's ctypes binding's CuDNNError, its status name cut off (a title): PyTorch's own signature
        ("GRU forward in torch 0.3 raises CuDNNError: 8 on the second batch", "pytorch/cudnn-rnn-execution-failed", "8"),
        ("nn.LSTM raises CuDNNError: 3 on a batch of one", "pytorch/cudnn-rnn-bad-param", "3"),
    ):
        got, captures = _top(text)
        assert got == sig_id and captures.get("code") == code, (text, got, captures)


def test_a_number_outside_a_status_context_is_not_a_status() -> None:
    for text in (
        "cuDNN 8 is installed with CUDA 11.2",
        "cudnn version 8.0.5, torch 1.8 (the LSTM runs fine)",
        "cudnn status 8.0 build",
        "error 8 in my LSTM",
        "cudnn error 99 in my LSTM",
        "cudnn status 0 for the LSTM call",
        "CuDNNError: 8.0.5 installed next to the LSTM",
    ):
        assert _top(text)[0] is None, text
    # the status name after the number is what is read (not the number alone)
    assert _top("CUDNN error(8), CUDNN_STATUS_EXECUTION_FAILED.")[1].get("status") == "CUDNN_STATUS_EXECUTION_FAILED"
    assert _top("lstm forward\ntorch.backends.cudnn.CuDNNError: 8: b'CUDNN_STATUS_EXECUTION_FAILED'")[1].get("status") == "CUDNN_STATUS_EXECUTION_FAILED"



OTHER_WAYS = {  # text: (the status family the number names, the number)
    "RuntimeError: cudnn error code 8 in the LSTM backward": ("execution-failed", "8"),
    "cuDNN returned 3 while setting up the GRU": ("bad-param", "3"),
    "cudnnRNNForwardTraining failed with status 8": ("execution-failed", "8"),
    "cudnnSetRNNDescriptor_v8 failed with status 2000": ("bad-param", "2000"),
    "CUDNN_STATUS 4 from the LSTM layer": ("internal-error", "4"),
    "cudnn status: 9 in my LSTM": ("not-supported", "9"),
}


def test_the_other_ways_a_status_number_is_given_are_read_as_its_status() -> None:
    """'cudnn error code N', 'cuDNN returned N', '<cudnn call> failed with status N', 'CUDNN_STATUS N': the number
    in the status families' own number contexts, 7/8 numbering and cuDNN 9's (the ranges do not overlap)."""
    got = {text: _top(text) for text in OTHER_WAYS}
    wrong = {t: g for t, g in got.items() if not (g[0] or "").startswith("cudnn/") or not (g[0] or "").endswith("status-" + OTHER_WAYS[t][0]) or g[1].get("code") != OTHER_WAYS[t][1]}
    assert not wrong, wrong


def test_a_number_in_those_contexts_that_is_no_status_is_not_read() -> None:
    texts = (
        "cudnn error code 99 in my LSTM",  # no status has that number
        "cuDNN returned 8.9 as its version",
        "cudnnRNNForwardTraining failed with status 0",  # success
        "CUDNN_STATUS_EXECUTION_FAILED 8 times",  # a name, not the number alone
        "the call returned 8 and failed with status 8",  # no cuDNN
    )
    read = [t for t in texts if _top(t)[1].get("code") is not None]
    assert not read, read

"""TensorFlow's cuDNN RNN kernels CHECK ``stream->parent()->GetRnnAlgorithms(&algorithms)`` when they autotune
(cudnn_rnn_ops.cc); it fails only when the executor has no DNN support (stream_executor_pimpl.cc), i.e. after cuDNN
could not be initialised. With the handle failure in the log, that failure is the finding and the CHECK is its
consequence; alone, the CHECK is the RNN kernel's internal-check finding. Our own lines."""

from __future__ import annotations

from cudnn_doctor import diagnose

HANDLE = "2022-11-03 09:14:52.310087: E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Could not create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED\n"
CHECK = "2022-11-03 09:14:52.310420: F tensorflow/core/kernels/cudnn_rnn_ops.cc:1498] Check failed: stream->parent()->GetRnnAlgorithms(&algorithms)\n"


def test_the_handle_failure_comes_first_and_the_check_is_its_consequence() -> None:
    d = diagnose(HANDLE + CHECK + "Aborted (core dumped)\n")
    assert d.findings[0].id == "tensorflow/could-not-create-cudnn-handle", [f.id for f in d.findings]
    assert [c.id for c in d.findings[0].consequences] == ["tensorflow/cudnn-rnn-internal-check-failed"]


def test_the_check_alone_is_the_rnn_kernel_s_internal_check() -> None:
    d = diagnose(CHECK + "Aborted (core dumped)\n")
    assert d.findings[0].id == "tensorflow/cudnn-rnn-internal-check-failed"
    assert "no DNN support" in d.findings[0].explanation

"""A cross-framework cuDNN RNN status that one framework's marks claim becomes that framework's own signature for
that status (rank/wrappers.py, issue 27): the signature of the framework that carries every label of the generic
status (Paddle's, JAX's, TensorFlow's EXECUTION_FAILED) rather than the framework's wrapper of any status. A
framework with no signature for a status leaves it generic, and a status with no RNN evidence is no RNN finding."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.model import specificity
from cudnn_doctor.rank.differential import is_cross_framework_rnn_status
from cudnn_doctor.rank.wrappers import specialises

CATALOG = catalogs.builtin()
BY_ID = {s.id: s for s in CATALOG.signatures}
THEN_RNN = ("2021-03-02 10:00:01.000001: W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at "
            "cudnn_rnn_ops.cc:1563 : Internal: Failed to call ThenRnnForward with model config: [rnn_mode, "
            "rnn_input_mode, rnn_direction_mode]: 2, 0, 0 , [num_layers, input_size, num_units, dir_count, "
            "max_seq_length, batch_size, cell_num_units]: [1, 128, 128, 1, 40, 256, 128]\n")


def _top(text: str) -> str | None:
    d = diagnose(text, catalog=CATALOG)
    return d.findings[0].id if d.findings else None


@pytest.mark.parametrize(("text", "own"), [
    ("paddle.nn.GRU on a V100 with paddle 2.4 stops with OSError: (External) CUDNN error(8), "
     "CUDNN_STATUS_EXECUTION_FAILED. after a few batches", "paddle/rnn-cudnn-execution-failed"),
    ("LSTM via jax.experimental.rnn: XlaRuntimeError: INTERNAL: CUDNN_STATUS_EXECUTION_FAILED on the second step",
     "jax/rnn-cudnn-execution-failed"),
    ("2021-03-02 10:00:00.999999: E tensorflow/stream_executor/dnn.cc:616] CUDNN_STATUS_EXECUTION_FAILED\n" + THEN_RNN,
     "tensorflow/cudnn-rnn-call-execution-failed"),
    ("2021-03-02 10:00:00.999999: E tensorflow/stream_executor/dnn.cc:616] CUDNN_STATUS_INTERNAL_ERROR\n" + THEN_RNN,
     "tensorflow/cudnn-rnn-call-internal-error"),
    ('  File "/usr/local/lib/python3.8/dist-packages/tensorflow/python/eager/execute.py", line 59, in quick_execute\n'
     "    inputs, attrs, num_outputs)\ntensorflow.python.framework.errors_impl.InternalError: "
     "CUDNN_STATUS_EXECUTION_FAILED [Op:CudnnRNN]\n", "tensorflow/cudnn-rnn-call-execution-failed"),
    ("my torch.nn.LSTM (batch 512) crashes with CUDNN_STATUS_EXECUTION_FAILED on the backward pass",
     "pytorch/cudnn-rnn-execution-failed"),
    ("torch.nn.GRU forward: CUDNN_STATUS_BAD_PARAM when hx is (2, 64, 128) and batch_first=True",
     "pytorch/cudnn-rnn-bad-param"),
])
def test_a_claimed_status_becomes_the_frameworks_signature_for_it(text: str, own: str) -> None:
    assert _top(text) == own


def test_a_status_the_framework_has_no_signature_for_stays_generic() -> None:
    # TensorFlow has signatures of its own for EXECUTION_FAILED and INTERNAL_ERROR only; Paddle has a wrapper of any status
    text = "2021-03-02 10:00:00.999999: E tensorflow/stream_executor/dnn.cc:616] CUDNN_STATUS_BAD_PARAM\n" + THEN_RNN
    assert _top(text) == "cudnn/rnn-status-bad-param"
    assert _top("torch.nn.LSTM on an A100 gives CUDNN_STATUS_INTERNAL_ERROR in the first epoch") == (
        "cudnn/rnn-status-internal-error")
    assert _top("paddle.nn.LSTM in paddle 2.3: OSError: (External) CUDNN error(3), CUDNN_STATUS_BAD_PARAM. "
                "[operator < rnn > error]") == "paddle/rnn-cudnn-status"


def test_without_rnn_evidence_a_wrappers_status_number_is_no_rnn_finding() -> None:
    d = diagnose("OSError: (External) CUDNN error(8)", catalog=CATALOG)
    assert [f.signature.scope for f in d.findings] == ["cudnn"]


def test_two_frameworks_marks_leave_the_generic() -> None:
    text = ("the tensorflow/ and jax LSTM share one GPU; jax.experimental.rnn then fails: "
            "XlaRuntimeError: INTERNAL: CUDNN_STATUS_EXECUTION_FAILED")
    assert _top(text) == "cudnn/rnn-status-execution-failed"


def test_a_shared_label_is_what_makes_a_specialist() -> None:
    generic = BY_ID["cudnn/rnn-status-execution-failed"]
    assert specialises(BY_ID["paddle/rnn-cudnn-execution-failed"], generic)
    assert not specialises(BY_ID["paddle/rnn-cudnn-status"], generic)
    assert not specialises(BY_ID["tensorflow/then-rnn-forward-failed"], BY_ID["cudnn/rnn-status-internal-error"])
    assert not any(specialises(s, generic) for s in CATALOG.signatures if s.cause is not None)


def test_every_specialist_outranks_the_status_it_specialises() -> None:
    """Where both match one line, the framework's own signature wins the cluster (model.specificity), as it
    takes the generic's finding where only the generic matched."""
    generics = [g for g in CATALOG.signatures if is_cross_framework_rnn_status(g)]
    pairs = [(s, g) for g in generics for s in CATALOG.signatures if specialises(s, g)]
    assert len(pairs) >= 6
    assert [(s.id, g.id) for s, g in pairs if specificity(s) <= specificity(g)] == []


def test_lua_torchs_install_path_is_no_pytorch_mark() -> None:
    text = ("/home/u/torch/install/bin/luajit: /home/u/torch/install/share/lua/5.1/cudnn/init.lua:166: Error in CuDNN: "
            "CUDNN_STATUS_BAD_PARAM (cudnnRNNForwardTraining)\nstack traceback:\n\t[C]: in function 'error'\n"
            "\t/home/u/torch/install/share/lua/5.1/cudnn/RNN.lua:562: in function 'updateOutput'\n")
    assert not (_top(text) or "").startswith("pytorch/")

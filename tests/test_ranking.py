"""The one ranking key (model.specificity) decides a cluster's winner (moved from test_confirm.py, which went with
the Confirm machinery the rebuilt matcher deleted)."""

from __future__ import annotations

import dataclasses

import pytest

from cudnn_doctor import model
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.match import RawMatch
from cudnn_doctor.rank import findings as rank

CATALOG = load_catalog()


def test_one_ranking_key_decides_a_cluster_s_winner(monkeypatch: pytest.MonkeyPatch) -> None:
    """The most specific signature (model.specificity: priority, then scope) wins its cluster, then confidence;
    and a change to the key reaches every cluster (there is no second, faster copy of it to forget)."""
    base = CATALOG.signatures[:3]
    sigs = [dataclasses.replace(base[0], priority=78, scope="cudnn"), dataclasses.replace(base[1], priority=60, scope="rnn"),
            dataclasses.replace(base[2], priority=60, scope="cuda")]
    group = [RawMatch(sig, "s", 3, 3, "t", {}, "", [], False, []) for sig in sigs]
    ((best, related),) = rank.cluster(group)
    assert best.sig is sigs[0] and related == sorted({sigs[1].id, sigs[2].id} - {sigs[0].id})
    monkeypatch.setattr(rank, "specificity", lambda sig: (sig.scope == "rnn", sig.priority))
    ((best, _),) = rank.cluster(group)
    assert best.sig is sigs[1]
    assert rank.order([]) == [] and model.specificity(sigs[1]) == (60, 2)


# ---------------------------------------------------------------- a framework's own wrapper of a status

CROSS = [s for s in CATALOG.signatures if s.id.startswith("cudnn/rnn-status-")]
WRAPPERS = [s for s in CATALOG.signatures if s.framework_marks]


def test_a_framework_s_own_status_signature_outranks_the_cross_framework_one() -> None:
    """Where a wrapper (it captures the status, and names its framework) and a cudnn/rnn-status-* read the same
    error, the wrapper wins: it carries that framework's dead ends and workarounds."""
    assert CROSS and WRAPPERS
    top = max(model.specificity(s) for s in CROSS)
    assert all(model.specificity(w) > top for w in WRAPPERS), [w.id for w in WRAPPERS if model.specificity(w) <= top]


def _top(text: str) -> str | None:
    from cudnn_doctor import diagnose

    got = diagnose(text).findings
    return got[0].id if got else None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # titles: the status on a line that names the framework, not in the wrapper's own message
        ("Fix CUDNN_STATUS_EXECUTION_FAILED when NStepBiLSTM is using CuPy", "cupy/cudnn-rnn-status"),
        ("CUDNNError: CUDNN_STATUS_BAD_PARAM (code 3) while training lstm neural network", "flux/cudnn-rnn-status-error"),
        ("mxnet gluon LSTM fails with CUDNN_STATUS_EXECUTION_FAILED", "mxnet/rnn-cudnn-status"),
        # two frameworks named: neither is decisive
        ("CUDNN_STATUS_EXECUTION_FAILED in my LSTM after moving from mxnet to CuPy", "cudnn/rnn-status-execution-failed"),
        # a framework named only in an environment listing before the error, not in its traceback
        ("cupy-cuda11x 12.2.0\nmxnet 1.9.1\ntorch 2.1.0\nlstm step failed: CUDNN_STATUS_EXECUTION_FAILED\n",
         "cudnn/rnn-status-execution-failed"),
    ],
)
def test_a_cross_framework_status_is_read_as_the_framework_its_line_or_traceback_names(text: str, want: str) -> None:
    assert _top(text) == want


def test_an_attributed_finding_says_so_and_keeps_the_status() -> None:
    from cudnn_doctor import diagnose

    (f,) = diagnose("Fix CUDNN_STATUS_EXECUTION_FAILED when NStepBiLSTM is using CuPy").findings
    assert f.captures.get("status") == "CUDNN_STATUS_EXECUTION_FAILED"
    assert f.confidence < 0.85 and "cudnn/rnn-status-execution-failed" in f.related
    assert any("not in the log" in d for d in f.demoted) and f.evidence[0] in ("CuPy", "NStepBiLSTM")


def test_a_put_back_prefix_alone_reads_nothing() -> None:
    """Chainer's trainer line with its message on the next lines: CuPy's own prefix put back before it must not
    make a CuPy status out of nothing (the reading once matched inside the prefix alone)."""
    text = "Exception in main training loop: \nInvalid operation is performed in: NStepBiLSTM (Forward)\n"
    assert _top(text) != "cupy/cudnn-rnn-status"
    assert _top("Exception in main training loop: \nfoo bar n_step_rnn.py\n") is None


def test_a_wrapper_s_differential_keeps_its_framework_s_causes_of_the_status_it_outranked() -> None:
    """The causes written against the cross-framework status (cause.of: cudnn/rnn-status-bad-param) stay in the
    differential when the framework's own status signature wins: its framework's ones, not other frameworks'."""
    from catalogs import builtin
    from cudnn_doctor import diagnose

    sig = next(s for s in builtin().signatures if s.id == "pytorch/cudnn-rnn-bad-param")
    ex = next(e for e in sig.examples if e.name == "rnn-to-cuda-torch-2-7")
    (f, *_) = diagnose(ex.text).findings
    assert f.id == sig.id and "cudnn/rnn-status-bad-param" in f.related
    ids = {c.id for c in f.differential if c.id}
    written_against_generic = {s.id for s in CATALOG.signatures if s.cause and "cudnn/rnn-status-bad-param" in s.cause.of}
    assert ids & {i for i in written_against_generic if i.startswith("pytorch/")}
    assert not ids & {i for i in written_against_generic if i.split("/")[0] in ("chainer", "flux", "mxnet", "paddle")}


_KERAS_FRAMES = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 40, in <module>\n'
    "    model.fit(x, y, epochs=5)\n"
    '  File "/usr/lib/python3/dist-packages/tensorflow/python/eager/execute.py", line 60, in quick_execute\n'
    "    inputs, attrs, num_outputs)\n"
)


# ---------------------------------------------------------------- a C++ abort at shutdown after a Python exception

_TF_FORWARD = (
    _KERAS_FRAMES + "tensorflow.python.framework.errors_impl.InternalError: Failed to call ThenRnnForward with model config: "
    "[rnn_mode, rnn_input_mode, rnn_direction_mode]: 2, 0, 0 , [num_layers, input_size, num_units, dir_count, "
    "max_seq_length, batch_size, cell_num_units]: [1, 32, 32, 1, 5, 64, 32] [Op:CudnnRNN]\n"
)
_TF_CHECK = (
    "2020-05-13 14:58:40.123456: F tensorflow/stream_executor/cuda/cuda_dnn.cc:1045] Check failed: "
    "cudnnCreateRNNDescriptor(&result) == CUDNN_STATUS_SUCCESS (4 vs. 0)\nAborted (core dumped)\n"
)
_PT_HIDDEN = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 88, in <module>\n'
    "    out, h = model.rnn(x, h0)\n"
    '  File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/rnn.py", line 576, in forward\n'
    "    self.check_forward_args(input, hx, batch_sizes)\n"
    "RuntimeError: Expected hidden size (2, 16, 256), got [2, 32, 256]\n"
)
_PT_TERMINATE = (
    "terminate called after throwing an instance of 'c10::Error'\n"
    "  what():  cuDNN error: CUDNN_STATUS_MAPPING_ERROR\n"
    "Exception raised from operator() at ../aten/src/ATen/native/cudnn/RNN.cpp:1203 (most recent call first):\n"
    "Aborted (core dumped)\n"
)


@pytest.mark.parametrize(
    ("text", "want", "abort"),
    [
        (_TF_FORWARD + _TF_CHECK, "tensorflow/then-rnn-forward-failed", "tensorflow/cudnn-rnn-internal-check-failed"),
        (_PT_HIDDEN + _PT_TERMINATE, "pytorch/rnn-hidden-size-mismatch", "cudnn/rnn-status-mapping-error"),
    ],
)
def test_a_cpp_abort_after_a_python_exception_is_that_exception_s_consequence(text: str, want: str, abort: str) -> None:
    """The traceback's exception is the error the user hit; the check that aborts the process on its way out comes
    after it, however specific its signature: it is listed under the exception's finding, not above it."""
    from cudnn_doctor import diagnose

    got = diagnose(text).findings
    assert [f.id for f in got] == [want], [(f.id, [c.id for c in f.consequences]) for f in got]
    assert abort in [c.id for c in got[0].consequences] and abort not in got[0].related


@pytest.mark.parametrize(
    "text",
    [
        "Epoch 1/5\n" + _TF_CHECK,  # the abort alone: the error itself
        _TF_CHECK + _TF_FORWARD,  # the abort first, a traceback after it: not a shutdown
    ],
)
def test_an_abort_that_follows_no_python_exception_keeps_its_rank(text: str) -> None:
    from cudnn_doctor import diagnose

    got = diagnose(text).findings
    assert got[0].id == "tensorflow/cudnn-rnn-internal-check-failed", [f.id for f in got]


_MX_VALUE_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "train_lstm.py", line 120, in <module>\n'
    "    mod.fit(train_iter, num_epoch=10)\n"
    '  File "/usr/local/lib/python3.6/dist-packages/mxnet/io/io.py", line 230, in next\n'
    "    raise ValueError('bucket key not found')\n"
    "ValueError: bucket key not found\n"
)
_MX_CHECK = (
    "[09:12:44] /work/mxnet/3rdparty/dmlc-core/include/dmlc/logging.h:308: [09:12:44] "
    "/work/mxnet/src/operator/./cudnn_rnn-inl.h:512: Check failed: e == CUDNN_STATUS_SUCCESS (8 vs. 0) "
    "cuDNN: CUDNN_STATUS_EXECUTION_FAILED\n"
)


@pytest.mark.parametrize(
    ("error", "check", "abort"),
    [
        (_KERAS_FRAMES + "tensorflow.python.framework.errors_impl.InvalidArgumentError: Input to reshape is a tensor "
         "with 100 values, but the requested shape has 64 [Op:Reshape]\n", _TF_CHECK, "tensorflow/cudnn-rnn-internal-check-failed"),
        (_MX_VALUE_ERROR, _MX_CHECK, "mxnet/rnn-cudnn-status"),
        # a cross-framework status, read as MXNet's from the traceback's package (rank/wrappers.py)
        (_MX_VALUE_ERROR, _MX_CHECK.replace("src/operator/./cudnn_rnn-inl.h:512", "3rdparty/mshadow/mshadow/./stream_gpu-inl.h:130"),
         "mxnet/rnn-cudnn-status"),
    ],
)
def test_an_abort_after_an_exception_no_signature_knows_is_not_the_diagnosis(error: str, check: str, abort: str) -> None:
    """The abort on the way out still says nothing about the exception before it: it goes below the threshold,
    saying why, rather than being reported as the error."""
    from cudnn_doctor import diagnose

    d = diagnose(error + check)
    assert not d.findings, [f.id for f in d.findings]
    (f,) = [f for f in d.below_threshold if f.id == abort]
    assert any("shut down" in reason for reason in f.demoted)
    assert diagnose("Epoch 1/5\n" + check).findings  # alone, it is the error


# ---------------------------------------------------------------- a status restated before the cause the log shows

_HEADING_THEN_LOG = """\
## LSTM decoder fails with CUDNN_STATUS_MAPPING_ERROR

Training runs fine for a whole epoch. The evaluation loop then gathers the beam scores
and the process dies; I tried smaller batches and a fresh container, same result.
Environment: two GPUs, driver from the distribution, the conda build of the framework.

validating on 512 sentences
/pytorch/aten/src/THC/THCTensorScatterGather.cu:97: void THCudaTensor_gatherKernel(TensorInfo<Real, IndexType>, \
TensorInfo<Real, IndexType>, TensorInfo<long, IndexType>, int, IndexType) [with IndexType = unsigned int, Real = float, \
Dims = 3]: block: [5,0,0], thread: [64,0,0] Assertion `indexValue >= 0 && indexValue < src.sizes[dim]` failed.
Traceback (most recent call last):
  File "evaluate.py", line 57, in beam_step
    out, state = self.decoder(emb, state)
RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR
"""


def test_a_status_restated_in_a_heading_goes_after_the_cause_the_log_shows() -> None:
    """The status named in an issue's heading is a consequence of the device assertion the log prints below it:
    the cause ranks first although the status' scope is narrower than the cause's (CUDA), and the heading's status
    stays a finding of its own."""
    from cudnn_doctor import diagnose

    got = [f.id for f in diagnose(_HEADING_THEN_LOG).findings]
    # (the heading's status is an RNN one: without the rule its scope alone would put it first)
    assert got == ["cuda/async-error-before-cudnn", "cudnn/rnn-status-mapping-error"], got


_RNN_THEN_CUDA = """\
Traceback (most recent call last):
  File "decode.py", line 33, in <module>
    hyp = model.generate(src)
  File "/srv/venv/lib/python3.11/site-packages/torch/nn/modules/rnn.py", line 1136, in forward
    result = _VF.gru(input, hx, self._flat_weights, self.bias, self.num_layers,
RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "decode.py", line 41, in <module>
    torch.cuda.synchronize()
RuntimeError: CUDA error: an illegal memory access was encountered

A second run in the same notebook stops at once, with
RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR
"""


def test_an_error_the_log_prints_first_keeps_its_place_before_a_later_cuda_error() -> None:
    """An RNN call's status raised first (a traceback's exception line) is the error the run hit; the CUDA error
    its failure left behind, raised while handling it (read with the next run's status as the asynchronous-error
    cause, a known cause of the RNN status), goes after it: a traceback's exception line restates nothing."""
    from cudnn_doctor import diagnose

    got = [f.id for f in diagnose(_RNN_THEN_CUDA).findings]
    assert got[0] == "pytorch/cudnn-rnn-execution-failed", got
    general = _RNN_THEN_CUDA.replace("hyp = model.generate(src)", "y = self.conv(x)").replace(
        "torch/nn/modules/rnn.py\", line 1136", "torch/nn/modules/conv.py\", line 375").replace(
        "result = _VF.gru(input, hx, self._flat_weights, self.bias, self.num_layers,", "return F.conv1d(input, weight, bias)")
    got = [f.id for f in diagnose(general).findings]
    assert got[0] == "cudnn/status-execution-failed", got


def _finding(sig_id: str, line: int, confidence: float, text: str = "t") -> model.Finding:
    occ = model.Occurrence(source="a", line=line, end_line=line, text=text, captures=())
    return model.Finding(signature=CATALOG.by_id[sig_id], first=occ, last=occ, count=1, confidence=confidence)


_TITLE = "# GRU decoder: CUDNN_STATUS_EXECUTION_FAILED after two epochs"


def test_restated_needs_a_title_a_later_confident_cause_of_the_same_source() -> None:
    """``restated``: a status restated before the log (a title) goes after a confident, more specific finding
    later in the same source that explains it; not an explaining finding under the threshold, nor one of
    another source, nor a status that a traceback raised (its lines before it hold the traceback)."""
    rnn = "pytorch/cudnn-rnn-execution-failed"
    status = _finding(rnn, 1, 0.95, "CUDNN_STATUS_EXECUTION_FAILED")
    frames = {("a", rnn): [_TITLE]}
    unsure = _finding("cuda/async-error-before-cudnn", 9, 0.40)
    other = _finding("cuda/no-kernel-image", 5, 0.70)
    # an unsure cause moves nothing: the status stays before the confident finding that does not explain it
    assert [f.id for f in rank.order([unsure, other, status], frames=frames)] == [rnn, other.id, unsure.id]
    sure = dataclasses.replace(unsure, confidence=0.8)
    assert rank.restated([status, sure], 0.5, frames) == {id(status)}
    assert [f.id for f in rank.order([status, sure], frames=frames)] == [sure.id, rnn]
    elsewhere = dataclasses.replace(sure, first=dataclasses.replace(sure.first, source="b"))
    assert rank.restated([status, elsewhere], 0.5, frames) == set()
    raised = {("a", rnn): ["Traceback (most recent call last):", '  File "x.py", line 3, in <module>',
                           "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"]}
    status3 = _finding(rnn, 3, 0.95, "CUDNN_STATUS_EXECUTION_FAILED")
    assert rank.restated([status3, sure], 0.5, raised) == set()
    assert [f.id for f in rank.order([sure, status3], frames=raised)] == [rnn, sure.id]


def test_a_restatement_is_a_heading_a_title_or_prose_before_the_log() -> None:
    rnn = "pytorch/cudnn-rnn-execution-failed"
    text = "CUDNN_STATUS_EXECUTION_FAILED"
    prose = "The decoder fails in the validation pass with CUDNN_STATUS_EXECUTION_FAILED on every run."
    assert rank.restatement(_finding(rnn, 1, 0.9, text), {("a", rnn): [_TITLE]})
    assert rank.restatement(_finding(rnn, 3, 0.9, text), {("a", rnn): ["Training log", "", prose]})
    assert rank.restatement(_finding(rnn, 1, 0.9, text), {("a", rnn): [f"RuntimeError: {text}"]})  # the title
    assert not rank.restatement(_finding(rnn, 4, 0.9, text), {("a", rnn): ["step 10", "step 20", "", f"RuntimeError: {text}"]})
    assert not rank.restatement(_finding(rnn, 1, 0.9, text), {})

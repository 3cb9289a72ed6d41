"""A cause read on the line where its generic matched, the prefix its regex spells put back (match/refine.py):
a status carried without its framework's prefix (``RuntimeError: cuDNN error:`` dropped) under a traceback that
says which framework raised it. The prefix is put back only where the framework is seen there."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()
# PyTorch's autograd engine raising a cuDNN status (torch/autograd/__init__.py backward), a GRU in the model
BACKWARD = (
    "model: Encoder(rnn=GRU(64, 30, batch_first=True))\n"
    "Traceback (most recent call last):\n"
    '  File "fit.py", line 12, in <module>\n'
    "    loss.backward()\n"
    '  File "/opt/conda/lib/python3.9/site-packages/torch/_tensor.py", line 487, in backward\n'
    "    torch.autograd.backward(\n"
    '  File "/opt/conda/lib/python3.9/site-packages/torch/autograd/__init__.py", line 197, in backward\n'
    "    Variable._execution_engine.run_backward(\n"
)
CAUSE = "pytorch/cause-gru-backward-hidden-not-multiple-of-4"


def _found(text: str) -> list[str]:
    return [f.id for f in diagnose(text, catalog=CATALOG).findings]


def test_a_status_without_its_prefix_reads_as_its_cause() -> None:
    assert _found(BACKWARD + "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n")[0] == CAUSE
    d = diagnose(BACKWARD + "CUDNN_STATUS_EXECUTION_FAILED\n", catalog=CATALOG)
    assert d.findings[0].id == CAUSE
    assert d.findings[0].cut is not None  # the prefix was not read: lower confidence, and it says so
    assert "RuntimeError" not in d.findings[0].first.text  # what was read, as printed


def test_another_framework_s_own_prefix_is_not_replaced() -> None:
    # CuPy prints the status with its own exception: no PyTorch prefix goes in front of it
    assert CAUSE not in _found(BACKWARD + "cupy.cuda.cudnn.CuDNNError: CUDNN_STATUS_EXECUTION_FAILED\n")


# the same status under a Chainer traceback, a GRU, an A30 and FP16 in the log
CHAINER = (
    "GPU 0: NVIDIA A30, model in float16, encoder GRU(64, 30)\n"
    "Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.6/dist-packages/chainer/functions/rnn/n_step_rnn.py", line 443, in backward\n'
    "    dx_list, dhx, dcx = self._backward_cudnn(x_list, hx, cx, w, gy_list, dhy, dcy)\n"
    "CUDNN_STATUS_EXECUTION_FAILED\n"
)
# a Keras 3 traceback (keras/src/ paths: no framework's marks), the bare status, then a sentence under it that names
# PyTorch's layer: a framework is looked for above the status, down to it, not below it
KERAS = "".join((
    "device: NVIDIA A30 (MIG 1g.6gb), policy mixed_float16\n",
    "Traceback (most recent call last):\n",
    '  File "run_seq.py", line 8, in <module>\n',
    "    net.fit(ds, epochs=3)\n",
    '  File "/opt/venv/lib/python3.11/site-packages/keras/src/utils/traceback_utils.py", line 122, in error_handler\n',
    "    raise e.with_traceback(filtered_tb) from None\n",
    '  File "/opt/venv/lib/python3.11/site-packages/keras/src/layers/rnn/gru.py", line 540, in call\n',
    "    return super().call(sequences, initial_state=initial_state, mask=mask, training=training)\n",
    "CUDNN_STATUS_EXECUTION_FAILED\n",
    "Porting the network to torch.nn.GRU avoids it on the same card.\n",
))


@pytest.mark.parametrize("text", [CHAINER, KERAS], ids=["chainer", "keras3-torch-named-below"])
def test_no_prefix_is_put_back_where_the_framework_is_not_seen(text: str) -> None:
    assert not any(f.startswith("pytorch/") for f in _found(text))


def test_a_status_a_sentence_mentions_is_not_given_a_prefix() -> None:
    # prose after the status on its line: an issue title or a sentence that names it, not a message printed without
    # its prefix (the wrapper reading gives it to CuPy; no cause is read from the title's words)
    title = "chainer.functions.NStepLSTM: CUDNN_STATUS_EXECUTION_FAILED after a few hundred iterations on the GPU\n"
    assert not any(f.startswith("chainer/cause-") for f in _found(title))
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.6/dist-packages/chainer/functions/rnn/n_step_rnn.py", line 443, in backward\n'
        "    dx_list, dhx, dcx = self._backward_cudnn(x_list, hx, cx, w, gy_list, dhy, dcy)\n"
    )
    # the bare status under a Chainer frame is read as CuPy's (its prefix put back); with no in_size evidence the
    # generic CuPy status answers, not the in_size cause (kb26: that cause needs the mismatching sizes)
    assert _found(trace + "CUDNN_STATUS_EXECUTION_FAILED\n")[0] == "cupy/cudnn-rnn-status"


def test_a_frame_of_another_framework_above_the_status_refuses_the_prefix() -> None:
    # a torch mark above, but the innermost frames are TensorFlow's: no PyTorch prefix is put back
    mixed = BACKWARD + (
        '  File "/opt/conda/lib/python3.9/site-packages/tensorflow/python/eager/execute.py", line 54, in quick_execute\n'
        "    tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,\n"
        "CUDNN_STATUS_EXECUTION_FAILED\n"
    )
    assert CAUSE not in _found(mixed)


def test_a_sentence_that_ends_in_the_status_is_not_given_a_prefix() -> None:
    # words of a sentence before the status on its line: no log prefix stands there, no prefix is put back
    found = diagnose(BACKWARD + "after a few hundred steps the run dies with CUDNN_STATUS_EXECUTION_FAILED\n", catalog=CATALOG).findings
    assert not any(f.id == CAUSE and f.cut is not None for f in found)
    # a log prefix (a time and level, pytest's E) before it still is one
    assert _found(BACKWARD + "2024-05-01 10:00:00,123 ERROR CUDNN_STATUS_EXECUTION_FAILED\n")[0] == CAUSE
    assert _found(BACKWARD + "E       CUDNN_STATUS_EXECUTION_FAILED\n")[0] == CAUSE


def test_a_long_timestamp_before_a_word_does_not_backtrack() -> None:
    # review: LOG_PREFIX's run of digits could split in every way (2^n) before failing on a word after it; a
    # 24-digit timestamp took seconds, a 40-digit one would never end
    import time

    from cudnn_doctor.match.beside import LOG_PREFIX

    start = time.monotonic()
    for before in ("1" * 40 + "x ", "2024-01-01T12:00:00.123456789012345 worker says ", "12:" * 30 + "then "):
        assert LOG_PREFIX.fullmatch(before) is None
    assert time.monotonic() - start < 5

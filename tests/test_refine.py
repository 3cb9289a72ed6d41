"""A cause read on the line where its generic matched, the prefix its regex spells put back (match/refine.py):
a status carried without its framework's prefix (``RuntimeError: cuDNN error:`` dropped) under a traceback that
says which framework raised it. The prefix is put back only where the framework is seen there."""

from __future__ import annotations

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


def test_no_prefix_is_put_back_where_the_framework_is_not_seen() -> None:
    # the same status under a Chainer traceback, a GRU, an A30 and FP16 in the log: no PyTorch cause
    chainer = (
        "GPU 0: NVIDIA A30, model in float16, encoder GRU(64, 30)\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.6/dist-packages/chainer/functions/rnn/n_step_rnn.py", line 443, in backward\n'
        "    dx_list, dhx, dcx = self._backward_cudnn(x_list, hx, cx, w, gy_list, dhy, dcy)\n"
        "CUDNN_STATUS_EXECUTION_FAILED\n"
    )
    assert not any(f.startswith("pytorch/") for f in _found(chainer))


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
    assert _found(trace + "CUDNN_STATUS_EXECUTION_FAILED\n")[0] == "chainer/cause-nstep-in-size-mismatch-cudnn"

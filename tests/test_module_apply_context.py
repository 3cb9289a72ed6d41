"""A cuDNN status raised under ``torch.nn.Module._apply`` frames is RNN context (heldout11 class D, first half).

``Module._apply`` (torch/nn/modules/module.py) only recurses into the children and applies ``fn`` (a copy or a
cast) to parameters and buffers, neither of which calls cuDNN; the one override in torch that does is
``RNNBase._apply`` (rnn.py), which calls ``flatten_parameters()`` -> ``torch._cudnn_rnn_flatten_weight`` once
the parameters are on the GPU (torch 0.3 to 2.x). So a traceback cut inside the ``_apply`` recursion under a
``.cuda()`` / ``.to()`` call, ending in a cuDNN status, is an RNN's flatten: ``signatures/_evidence.yaml``'s
``@rnn_under_apply``, which the status signatures flatten's cuDNN calls can raise require beside ``@rnn`` (a set of
its own: its pattern reads across lines, and ``@rnn`` stays searched line by line). The forms are our own, from
PyTorch's module.py source lines.
"""

from __future__ import annotations

import pytest

from cudnn_doctor import diagnose

_SITE = "/srv/venv/lib/python3.10/site-packages/torch/nn/modules"

# a traceback through model.to() down the _apply recursion, cut before the module that failed
APPLY_FRAMES = f"""\
Traceback (most recent call last):
  File "serve_tagger.py", line 31, in <module>
    tagger = restore(args.checkpoint).to("cuda:0")
  File "{_SITE}/module.py", line 1145, in to
    return self._apply(convert)
  File "{_SITE}/module.py", line 797, in _apply
    module._apply(fn)
  File "{_SITE}/module.py", line 797, in _apply
    module._apply(fn)
  [Previous line repeated 1 more time]
  ...
"""

# an issue as posted: the status in the title, the traceback under .cuda() cut inside the _apply frames
TITLED_CUT = f"""\
## CUDNN_STATUS_NOT_INITIALIZED when the tagger is moved to the GPU

Moving the model to the GPU fails before the first batch.

```
Traceback (most recent call last):
  File "/srv/tagger/train_tagger.py", line 174, in main
    tagger = build_tagger(vocab, cfg).cuda()
  File "{_SITE}/module.py", line 637, in cuda
    return self._apply(lambda t: t.cuda(device))
  File "{_SITE}/module.py", line 530, in _apply
    module._apply(fn)
  File "{_SITE}/module.py", line 530, in _apply
    module._apply(fn)
  File "{_SITE}/module.py", line 530, in _apply
    module._apply(fn)
  [Previous line repeated 2 more times]
  File "/srv/venv/lib/python3.10/site-packa
"""

CONV_FORWARD = f"""\
Traceback (most recent call last):
  File "/srv/seg/train_seg.py", line 97, in <module>
    logits = net(images)
  File "{_SITE}/module.py", line 1501, in _call_impl
    return forward_call(*args, **kwargs)
  File "{_SITE}/conv.py", line 463, in forward
    return self._conv_forward(input, self.weight, self.bias)
  File "{_SITE}/conv.py", line 459, in _conv_forward
    return F.conv2d(input, weight, bias, self.stride,
RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED
"""


def _top(text: str) -> tuple[str, str]:
    result = diagnose(text)
    assert result.findings, "no finding"
    return result.findings[0].id, result.findings[0].signature.scope


def test_a_titled_status_over_a_trace_cut_inside_apply_is_the_rnn_family() -> None:
    assert _top(TITLED_CUT) == ("cudnn/rnn-status-not-initialized", "rnn")


@pytest.mark.parametrize(
    ("status", "want"),
    [
        ("CUDNN_STATUS_NOT_INITIALIZED", "cudnn/rnn-status-not-initialized"),
        ("CUDNN_STATUS_INTERNAL_ERROR", "cudnn/rnn-status-internal-error"),
        ("CUDNN_STATUS_ALLOC_FAILED", "cudnn/rnn-status-alloc-failed"),
        ("CUDNN_STATUS_EXECUTION_FAILED", "pytorch/cudnn-rnn-execution-failed"),
    ],
)
def test_a_status_raised_under_apply_frames_is_an_rnn_one(status: str, want: str) -> None:
    assert _top(APPLY_FRAMES + f"RuntimeError: cuDNN error: {status}\n") == (want, "rnn")


def test_the_same_status_from_a_convolution_stays_general() -> None:
    assert _top(CONV_FORWARD) == ("cudnn/status-not-initialized", "cudnn")


def test_a_cuda_error_under_apply_frames_is_no_rnn_finding() -> None:
    """Module._apply's own copies fail with CUDA errors (out of memory moving the parameters), not cuDNN ones."""
    text = APPLY_FRAMES.replace("  ...\n", f'  File "{_SITE}/module.py", line 820, in _apply\n    param_applied = fn(param)\n')
    result = diagnose(text + "RuntimeError: CUDA error: out of memory\n")
    assert all(f.signature.scope != "rnn" for f in result.findings), [f.id for f in result.findings]


def test_apply_frames_of_another_traceback_are_no_evidence() -> None:
    """The status must end the traceback the _apply frames are in: an exception line between them parts two errors."""
    text = APPLY_FRAMES + "RuntimeError: CUDA error: out of memory\n" + "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n"
    result = diagnose(text)
    assert all(f.signature.scope != "rnn" for f in result.findings), [f.id for f in result.findings]


def test_an_apply_frame_of_a_users_module_is_no_evidence() -> None:
    """Only torch's module.py frames say Module._apply: a user's own ``_apply`` may do anything."""
    text = APPLY_FRAMES.replace(f"{_SITE}/module.py\", line 797", "/srv/tagger/layers.py\", line 88")
    result = diagnose(text + "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n")
    assert all(f.signature.scope != "rnn" for f in result.findings), [f.id for f in result.findings]


def test_a_packages_apply_override_below_torch_s_frames_is_no_evidence() -> None:
    """torch's _apply frames, then a third-party module's own ``_apply`` override that picks a cuDNN algorithm
    itself: the status comes from that package's code, not from RNNBase._apply (base: the general id)."""
    text = APPLY_FRAMES.replace(
        "  ...\n",
        '  File "/srv/venv/lib/python3.10/site-packages/sparsekit/layers.py", line 212, in _apply\n'
        "    self._select_kernel()\n"
        '  File "/srv/venv/lib/python3.10/site-packages/sparsekit/layers.py", line 240, in _select_kernel\n'
        "    self.algo = _backend.find_algorithm(self.shape)\n",
    )
    result = diagnose(text + "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n")
    assert all(f.signature.scope != "rnn" for f in result.findings), [f.id for f in result.findings]
    assert any(f.id == "cudnn/status-not-initialized" for f in result.findings), [f.id for f in result.findings]


def test_rnn_stays_searched_line_by_line() -> None:
    """The cross-line pattern is a set of its own: @rnn, read around every RNN warning of a big log, keeps its
    line-by-line search (match/context.py: only the lines holding its literals, each distinct line once)."""
    from cudnn_doctor.kb.compiled import load_catalog
    from cudnn_doctor.match.context import Evidence

    evidence = Evidence(load_catalog().evidence)
    assert evidence.linewise("@rnn")
    assert not evidence.linewise("@rnn_under_apply")

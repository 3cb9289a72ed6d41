"""A release named in an issue's title heading, and a release named as the one that works (heldout11 class D,
second half). The forms are our own: PyTorch's module.py / rnn.py frames and AT_CUDNN_CHECK's message line.

* env/detect.py reads no version fact from a release named as the one that works ("works with PyTorch 1.7.1",
  "worked fine on", "fine with", "fixed in"), nor from a line naming two releases of one component;
* pytorch/cause-torch-1-8-0-cudnn-not-initialized takes 'PyTorch 1.8' named in a title heading as its release
  (a bare release names its first version, as rank.version_in reads it), and the bare status as a traceback's
  message line (an issue title's status that pastes.titled puts under a traceback cut before its message).
"""

from __future__ import annotations

from cudnn_doctor import diagnose

_SITE = "/home/dev/asr/venv/lib/python3.8/site-packages/torch/nn/modules"

# a traceback under .cuda() cut after RNNBase._apply's flatten_parameters() call, before its message line
CUT_AFTER_RNN = f"""\
Traceback (most recent call last):
  File "asr/train.py", line 140, in <module>
    encoder = SpeechEncoder(cfg).cuda()
  File "{_SITE}/module.py", line 491, in cuda
    return self._apply(lambda t: t.cuda(device))
  File "{_SITE}/module.py", line 387, in _apply
    module._apply(fn)
  File "{_SITE}/rnn.py", line 186, in _apply
    self.flatten_parameters()
"""

MESSAGE = "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n"
CAUSE = "pytorch/cause-torch-1-8-0-cudnn-not-initialized"


def _ids(text: str) -> list[str]:
    return [f.id for f in diagnose(text).findings]


def test_a_title_naming_the_release_over_a_cut_rnn_trace_is_the_cause() -> None:
    assert _ids("# PyTorch 1.8 CUDNN_STATUS_NOT_INITIALIZED\n\n" + CUT_AFTER_RNN)[0] == CAUSE


def test_a_title_naming_the_release_over_a_whole_rnn_trace_is_the_cause() -> None:
    assert _ids("## LSTM encoder fails to move to the GPU with PyTorch 1.8\n\n" + CUT_AFTER_RNN + MESSAGE)[0] == CAUSE


def test_the_fixed_release_in_the_title_is_not_the_cause() -> None:
    ids = _ids("# PyTorch 1.8.1 CUDNN_STATUS_NOT_INITIALIZED\n\n" + CUT_AFTER_RNN + MESSAGE)
    assert ids[0] == "cudnn/rnn-status-not-initialized" and CAUSE not in ids, ids


def test_a_title_naming_the_release_as_the_one_that_works_is_not_the_cause() -> None:
    ids = _ids("# Works with PyTorch 1.8, fails after the upgrade\n\n" + CUT_AFTER_RNN + MESSAGE)
    assert ids[0] == "cudnn/rnn-status-not-initialized" and CAUSE not in ids, ids


def test_a_title_naming_two_releases_is_not_the_cause() -> None:
    ids = _ids("# PyTorch 1.8 vs PyTorch 1.9: CUDNN_STATUS_NOT_INITIALIZED\n\n" + CUT_AFTER_RNN + MESSAGE)
    assert CAUSE not in ids, ids


def test_the_release_that_works_is_no_version_fact() -> None:
    """'works with PyTorch 1.7.1' first, the failing release after it: the failing one is the log's torch."""
    text = "It works with PyTorch 1.7.1.\nWith torch 1.8.0 it fails:\n\n" + CUT_AFTER_RNN + MESSAGE
    result = diagnose(text)
    assert result.environment.get("torch", {}).get("version") == "1.8.0"
    assert result.findings[0].id == CAUSE and not result.findings[0].demoted


def test_works_with_alone_gives_no_version_fact() -> None:
    result = diagnose("Works with PyTorch 1.7.1.\n\n" + CUT_AFTER_RNN + MESSAGE)
    assert "torch" not in result.environment
    assert result.findings[0].id == "cudnn/rnn-status-not-initialized"


def test_the_release_in_a_title_over_a_convolution_stays_general() -> None:
    conv = f"""\
Traceback (most recent call last):
  File "seg/train.py", line 97, in <module>
    logits = net(images)
  File "{_SITE}/conv.py", line 399, in forward
    return self._conv_forward(input, self.weight, self.bias)
"""
    ids = _ids("# PyTorch 1.8 CUDNN_STATUS_NOT_INITIALIZED\n\n" + conv + MESSAGE)
    assert ids[0] == "cudnn/status-not-initialized", ids


def test_a_bare_status_title_alone_stays_general() -> None:
    assert _ids("# PyTorch 1.8 CUDNN_STATUS_NOT_INITIALIZED\n") == ["cudnn/status-not-initialized"]

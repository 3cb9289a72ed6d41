"""A cause whose evidence is a pattern spanning lines (a frame's file, then a value: ``A[\\s\\S]*?B``) is ruled
out by a whole forward traceback that lacks the file, as a cause that needs the file alone is; a log that holds
the file but not the value leaves it open (the value may be in code the traceback does not show).

pytorch/cause-legacy-rnn-unchecked-device-dtype needs PyTorch 0.x's Python RNN frames and a CPU or double tensor.
Under a 2.x traceback (torch/nn/modules/rnn.py calling _VF.lstm) it cannot be the cause; under a 0.4 traceback
without the tensor it stays a candidate of the generic status's differential.
"""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
import cudnn_doctor
from cudnn_doctor.rank.differential import _spanned

LEGACY = "pytorch/cause-legacy-rnn-unchecked-device-dtype"
MODERN = """\
Traceback (most recent call last):
  File "/home/user/seq/train.py", line 142, in <module>
    out, (h, c) = model.encoder(x, (h0, c0))
  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl
    return forward_call(*args, **kwargs)
  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 812, in forward
    result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,
RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED
"""
LEGACY_FRAMES = """\
Traceback (most recent call last):
  File "train.py", line 88, in <module>
    out = model(batch_x)
  File "/usr/local/lib/python3.6/dist-packages/torch/nn/modules/module.py", line 491, in __call__
    result = self.forward(*input, **kwargs)
  File "/usr/local/lib/python3.6/dist-packages/torch/nn/modules/rnn.py", line 192, in forward
    output, hidden = func(input, self.all_weights, hx, batch_sizes)
  File "/usr/local/lib/python3.6/dist-packages/torch/nn/_functions/rnn.py", line 287, in forward
    dropout_ts)
RuntimeError: CUDNN_STATUS_EXECUTION_FAILED
"""


def _legacy_candidate(text: str):  # type: ignore[no-untyped-def]
    finding = cudnn_doctor.diagnose(text, catalog=catalogs.builtin()).findings[0]
    assert finding.id != LEGACY
    (candidate,) = [c for c in finding.differential if c.id == LEGACY]
    return candidate


def test_a_whole_modern_traceback_rules_the_legacy_cause_out() -> None:
    assert _legacy_candidate(MODERN).ruled_out.startswith("the whole traceback is in the log and shows none of its evidence")


def test_the_legacy_frames_without_the_tensor_leave_it_open() -> None:
    assert not _legacy_candidate(LEGACY_FRAMES).ruled_out


def test_the_parts_are_split_outside_groups_and_classes_only() -> None:
    assert _spanned(r"(?:a\.py|b\.py)[\s\S]*?(?:\.cpu\(\))") == [r"(?:a\.py|b\.py)", r"(?:\.cpu\(\))"]
    assert _spanned(r"(?:a[\s\S]*?b)") == []  # inside a group: one part of something else
    assert _spanned(r"[^\]([]x[\s\S]*?y") == [r"[^\]([]x", "y"]  # a class's brackets and parentheses are characters
    assert _spanned("plain") == []

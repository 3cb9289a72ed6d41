"""TensorFlow's DNN plugin prints its forward shape check's message with no values ("Invalid output_h shape"), and
the signature read it only at the end of a line or before [[node]] / [Op:]: an issue title or a sentence that goes
on after it missed (issue 27). What tells it from the kernel's own check is the colon and the two shapes that one
prints, not what follows."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()


def _top(text: str) -> str | None:
    d = diagnose(text, catalog=CATALOG)
    return d.findings[0].id if d.findings else None


@pytest.mark.parametrize("text", [
    "# CudnnRNNV3: Invalid output_c shape after moving to tf 2.5, how to fix?",
    "tf.keras LSTM on ROCm: rocm_dnn.cc keeps logging Invalid output shape, then the step fails",
])
def test_the_plugins_message_with_prose_after_it(text: str) -> None:
    assert _top(text) == "tensorflow/dnn-plugin-rnn-shape-check"


def test_the_kernels_check_with_its_shapes_is_not_the_plugins() -> None:
    assert _top("InvalidArgumentError: Invalid output_h shape: [1,16,64] [2,16,64] [Op:CudnnRNNBackprop]") == (
        "tensorflow/cudnnrnn-backward-input-shape")

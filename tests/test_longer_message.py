"""A message whose words begin another signature's longer message (TensorFlow 1.x's plugin logs 'Invalid
parameters' for a wrong params size, and 'Invalid parameters for RNN Model' after a failed shape check) was read
as the short message with prose after it where the longer one was cut or split over two lines (issue 27): the
words after a whole message that go on with a longer template beginning with its words are that message."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()
LOG = "E tensorflow/stream_executor/cuda/cuda_dnn.cc:1512] "


def _top(text: str) -> tuple[str, bool] | None:
    d = diagnose(text, catalog=CATALOG)
    return (d.findings[0].id, d.findings[0].cut is not None) if d.findings else None


@pytest.mark.parametrize(("text", "cut"), [
    (LOG + "Invalid parameters for RNN Mo", True),  # cut at the input's end, in its last word
    (LOG + "Invalid parameters for RNN", True),
    (LOG + "Invalid parameters for\nRNN Model\n", False),  # split over two lines
])
def test_the_start_of_a_longer_message_is_the_longer_message(text: str, cut: bool) -> None:
    assert _top(text) == ("tensorflow/dnn-plugin-rnn-shape-check", cut)


def test_prose_after_the_short_message_that_does_not_go_on_with_the_longer_one_is_prose() -> None:
    text = (
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:1520] Invalid parameters for the restored weights\n"
        "W tensorflow/core/framework/op_kernel.cc:1401] OP_REQUIRES failed at cudnn_rnn_ops.cc:1281 : Internal: x\n"
    )
    assert _top(text) == ("tensorflow/cudnnrnn-params-size-mismatch", False)

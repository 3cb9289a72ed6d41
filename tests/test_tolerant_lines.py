"""A message the tolerant reading confirms with its line breaks read as spaces (a message broken over two lines,
no word split) is placed on the lines it stands on: confirm.Confirmer.confirm counted that variant's lines in the
variant itself, which has no line break, and placed the finding on the first line of the regex's window, the line
before the message."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()


def test_a_message_broken_over_two_lines_is_placed_on_its_lines() -> None:
    text = (
        "step 1 ok\nstep 2 ok\nRuntimeError: Input and hidden tensors are not at the\n"
        "same device, found input tensor at cuda:0 and hidden tensor at cpu\nbye\n"
    )
    (f,) = diagnose(text, catalog=CATALOG).to_dict()["findings"]
    assert (f["id"], f["line"], f["end_line"]) == ("pytorch/rnn-input-hidden-device-mismatch", 3, 4)


def test_a_chain_tries_a_hard_wraps_word_joined_before_line_breaks_as_spaces() -> None:
    # (review24) Keras's check (keras/layers/recurrent.py: 'RNN cell {} does not support constants. Received:
    # constants={}'), typed with 'constant' (no literal on any line: no near miss, a chain's reading) and hard-wrapped
    # inside 'layers'. Both the wrap's word joined and the line breaks as spaces confirm it; read as spaces first
    # (merge24's spelling.layouts order), the captures held 'lay ers' and the prose line after the message
    text = (
        "Traceback (most recent call last):\n"
        '  File "model.py", line 12, in build\n'
        "    out = rnn(x, constants=[ctx])\n"
        "ValueError: RNN cell <tensorflow.python.keras.lay\n"
        "ers.recurrent_v2.LSTMCell object at 0x7f2b3c1d5e80> does not support constant. Received: constants=[<KerasTensor shape=(None, 32)>]\n"
        "I am on tf 2.4 and the model worked before\n"
    )
    (f,) = diagnose(text, catalog=CATALOG).to_dict()["findings"]
    assert (f["id"], f["line"], f["end_line"]) == ("keras/rnn-cell-constants-unsupported", 4, 5)
    assert f["captures"]["constants"] == "[<KerasTensor shape=(None, 32)>]"
    assert f["captures"]["cell"] == "<tensorflow.python.keras.layers.recurrent_v2.LSTMCell object at 0x7f2b3c1d5e80>"


def test_a_recased_reading_joins_a_hard_wraps_word_before_reading_line_breaks_as_spaces() -> None:
    # (review24) PyTorch's message ('cuDNN error: CUDNN_STATUS_NOT_SUPPORTED' when calling cudnnRNNBackwardData),
    # hard-wrapped inside 'calling' and followed by prose. The recased reading tried the line breaks as spaces first,
    # so the match read 'cal ling'; the wrap's word joined is tried first now, as in a chain's reading
    text = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n'
        "    loss.backward()\n"
        "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED when cal\n"
        "ling cudnnRNNBackwardData_v8 with training mode enabled and double backward\n"
    )
    findings = diagnose(text, catalog=CATALOG).to_dict()["findings"]
    assert findings, "no finding"
    assert "calling cudnnRNNBackwardData_v8" in findings[0]["match"]
    assert "cal ling" not in findings[0]["match"]

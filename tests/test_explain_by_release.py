"""An explanation says what holds for the release that prints the message (a message several releases print
alike gets the case of the one it names, not the newest's story)."""

from __future__ import annotations

from cudnn_doctor import diagnose

_TRACE = 'Traceback (most recent call last):\n  File "char_rnn.py", line 5, in <module>\n    {line}\n{error}\n'


def _explained(line: str, error: str, sig_id: str) -> str:
    found = [f for f in diagnose(_TRACE.format(line=line, error=error)).findings if f.signature.id == sig_id]
    assert found, f"{sig_id} not found"
    return found[0].explanation


def test_tensorflow_nn_missing_as_a_module_is_told_as_an_attribute() -> None:
    # tf.nn is an attribute there, not an importable module (the release that prints it is not told by the message);
    # saying "TF 2.0 removed tf.nn.rnn_cell" would be wrong
    text = _explained("from tensorflow.nn import rnn_cell", "ModuleNotFoundError: No module named 'tensorflow.nn'",
                      "tensorflow/tf1-rnn-api-moved-or-removed")
    assert "attribute" in text and "TF 1.2-1.15" in text
    assert "TF 2.0 removed" not in text


def test_tensorflow_nn_rnn_cell_missing_is_told_as_tf2() -> None:
    text = _explained("from tensorflow.nn.rnn_cell import GRUCell",
                      "ModuleNotFoundError: No module named 'tensorflow.nn.rnn_cell'",
                      "tensorflow/tf1-rnn-api-moved-or-removed")
    assert "TF 2.0 removed tf.nn.rnn_cell" in text

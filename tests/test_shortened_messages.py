"""Messages as people shorten them (issue 27): cut inside a word right before an ellipsis, and quoted without a
value the framework prints (the graph name of XLA's message), its second half on the next line. Each is read as
the signature whose words are left; what tells it from another message must still be there."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose


def _top(text: str) -> str | None:
    d = diagnose(text, catalog=catalogs.builtin())
    return d.findings[0].id if d.findings else None


@pytest.mark.parametrize(
    ("text", "sig"),
    [
        # a word cut right before an ellipsis is a cut word, as at the input's end: the regex reads up to the ellipsis
        ("ValueError: To use CudnnRNNV2 in gradients, is_trainin\u2026", "tensorflow/cudnnrnn-gradient-needs-is-training"),
        ("# To use CudnnRNNV3 in gradients, is_trainin... \nit stops at minimize()", "tensorflow/cudnnrnn-gradient-needs-is-training"),
        ("RuntimeError: cudnn RNN backward can only be called in trai\u2026", "pytorch/rnn-backward-in-eval-mode"),
        ("RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4...", "pytorch/rnn-hidden-size-mismatch"),
    ],
)
def test_a_word_cut_before_an_ellipsis_is_read_as_cut(text: str, sig: str) -> None:
    assert _top(text) == sig


def test_the_op_name_still_tells_the_cut_gradient_message_apart() -> None:
    assert _top("ValueError: To use PopnnLstmLayer in gradients, is_trainin\u2026") is None
    assert _top("ValueError: To use CudnnMHA in gradients, is_trainin\u2026") is None


XLA = "Detected unsupported operations when trying to compile graph on XLA_GPU_JIT: {op} (No registered '{op}' OpKernel for XLA_GPU_JIT devices compatible with node {{{{node sequential/lstm/{op}}}}})"


@pytest.mark.parametrize(
    "text",
    [
        "InvalidArgumentError: " + XLA.format(op="CudnnRNNV3"),
        XLA.format(op="CudnnRNNV3").replace(" (No registered", "\n(No registered"),  # its second half on the next line
        "# LSTM with jit_compile: " + XLA.format(op="CudnnRNN").lower(),
    ],
)
def test_the_xla_message_without_its_graph_name_is_read(text: str) -> None:
    assert _top(text) == "tensorflow/cudnnrnn-xla-jit-unsupported"


def test_the_xla_message_of_another_op_without_its_graph_name_is_not() -> None:
    assert _top(XLA.format(op="StringToNumber")) is None

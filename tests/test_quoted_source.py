"""A message quoted in pasted source code is not the error raised: a raise statement's string literal (C++'s throw
or check: TORCH_CHECK, AT_ERROR, OP_REQUIRES) in a listing of source (no traceback frame above it, no message line
after it, more code after it: read/frames.quoted_source)
gives a near miss, not a finding, whichever reading finds it
(the exact scan, the tolerant reading ignoring case). The source line a traceback shows under its frame still
counts, and the message line that follows it is the finding."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()

# tf-keras's base_rnn.py (2.10 on) as a user pastes it under a question, and PyTorch 1.x's RNNBase.check_input
PASTED_SOURCE = '''Reading keras/layers/rnn/base_rnn.py, the check is here:

    if constants:
      if not generic_utils.has_arg(self.cell.call, "constants"):
        raise ValueError(
            f"RNN cell {self.cell} does not support constants. "
            f"Received: constants={constants}"
        )

    def step(inputs, states):
      output, new_states = cell_call_fn(inputs, states, **kwargs)
      return output, new_states
'''

PASTED_MULTILINE = '''From torch/nn/modules/rnn.py (1.x):

        if self.input_size != input.size(-1):
            raise RuntimeError(
                'input.size(-1) must be equal to input_size. Expected {}, got {}'.format(
                    self.input_size, input.size(-1)))

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Optional[Tensor]) -> Tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
'''

# pytest's long format: the source listed with '>' at the raising line, the message as an 'E   ' line (here cut), the
# location below it
PYTEST_LONG = '''    def forward(self, x, ctx):
        if ctx is not None:
            if not has_arg(self.cell.call, "constants"):
>               raise ValueError(f"RNN cell {self.cell} does not support constants. Received: constants={ctx}")
E               ValueError: RNN cell <keras.src.layers.rnn.lstm.LSTMCell object at 0x7f

models/recurrent.py:88: ValueError
=========================== short test summary info ============================
FAILED tests/test_model.py::test_forward - ValueError: RNN cell <keras.src.layers.rnn.lstm.LSTMCell object at 0x7f
'''

TRACEBACK = '''Traceback (most recent call last):
  File "train.py", line 40, in <module>
    out = model(x, constants=[ctx])
  File "/usr/lib/python3/site-packages/keras/layers/recurrent.py", line 640, in call
    raise ValueError('RNN cell does not support constants')
ValueError: RNN cell does not support constants
'''


def test_a_raise_statement_pasted_as_source_gives_a_near_miss_not_a_finding() -> None:
    result = diagnose(PASTED_SOURCE, catalog=CATALOG)
    assert not result.findings
    assert any(n.id == "keras/rnn-cell-constants-unsupported" and "source code quoted" in n.reason for n in result.near_misses)


def test_a_format_string_in_a_raise_over_several_lines_is_source_too() -> None:
    assert not [f.id for f in diagnose(PASTED_MULTILINE, catalog=CATALOG).findings if f.signature.scope == "rnn"]


def test_pytest_s_long_format_shows_the_raise_with_its_message_after_it() -> None:
    assert [f.id for f in diagnose(PYTEST_LONG, catalog=CATALOG).findings][:1] == ["keras/rnn-cell-constants-unsupported"]


def test_the_source_line_a_traceback_shows_and_its_message_give_the_finding() -> None:
    (f,) = diagnose(TRACEBACK, catalog=CATALOG).findings
    assert f.id == "keras/rnn-cell-constants-unsupported" and f.cut is None


def test_a_traceback_cut_after_the_raising_source_line_is_still_read_there() -> None:
    cut = TRACEBACK.rsplit("ValueError:", 1)[0]
    assert [f.id for f in diagnose(cut, catalog=CATALOG).findings][:1] == ["keras/rnn-cell-constants-unsupported"]


def test_a_raise_statement_that_ends_the_input_or_precedes_a_message_line_is_a_cut_traceback_s() -> None:
    """Without its frame's header: the input cut after the raising statement, or the message line after it."""
    for text in (PASTED_SOURCE.split("\n\n    def step")[0], PASTED_SOURCE.split("\n\n    def step")[0] + "\nValueError:\n"):
        assert [f.id for f in diagnose(text, catalog=CATALOG).findings][:1] == ["keras/rnn-cell-constants-unsupported"], text


def test_a_raise_under_its_frame_in_a_log_re_cased_whole_is_still_a_traceback_s() -> None:
    """A traceback cut before its message line, log lines after it, the whole log lower- or upper-cased."""
    log = (
        "2024-01-01 10:00:00,123 ERROR worker crashed\n" + TRACEBACK.rsplit("ValueError:", 1)[0]
        + "2024-01-01 10:00:00,124 INFO retrying\n2024-01-01 10:00:00,125 INFO retrying\n2024-01-01 10:00:00,126 INFO saving\n"
    )
    for text in (log, log.lower(), log.upper()):
        assert [f.id for f in diagnose(text, catalog=CATALOG).findings][:1] == ["keras/rnn-cell-constants-unsupported"], text


# C++ source pasted the same way: PyTorch's checks (aten/src/ATen/native/cudnn/RNN.cpp's shape of them), a throw,
# TensorFlow's OP_REQUIRES with the status it builds on a line of its own (core/kernels/cudnn_rnn_ops.cc's shape)
CPP_AFTER = "  auto x = input.contiguous();\n  auto output = at::empty(output_size, input.options());\n  return output;\n}\n"
CPP_SOURCE = {
    "TORCH_CHECK": '  TORCH_CHECK(weight_arr.size() > 0, "_cudnn_rnn_flatten_weight: cannot flatten empty weight list");\n',
    "AT_ERROR": '  } else {\n    AT_ERROR("rnn: illegal defined cx for non-LSTM RNN");\n  }\n',
    "TORCH_INTERNAL_ASSERT": '  TORCH_INTERNAL_ASSERT(!cx.defined(), "rnn: illegal defined cx for non-LSTM RNN");\n',
    "throw": '  if (cx.defined()) {\n    throw std::runtime_error("rnn: illegal defined cx for non-LSTM RNN");\n  }\n',
    "OP_REQUIRES": (
        "    OP_REQUIRES(context, input_h_shape == hidden_state_shape,\n"
        '                errors::InvalidArgument("Invalid input_h shape: ", input_h_shape.DebugString(), " ",\n'
        "                                        hidden_state_shape.DebugString()));\n"
    ),
}


def test_a_cpp_check_or_throw_pasted_as_source_gives_a_near_miss_not_a_finding() -> None:
    for name, code in CPP_SOURCE.items():
        result = diagnose(code + CPP_AFTER, catalog=CATALOG)
        assert not result.findings, name
        assert any("source code quoted" in n.reason for n in result.near_misses), name
    emitted = "terminate called after throwing an instance of 'c10::Error'\n  what():  rnn: illegal defined cx for non-LSTM RNN\n"
    assert [f.id for f in diagnose(emitted + CPP_AFTER, catalog=CATALOG).findings] == ["pytorch/cudnn-rnn-private-op-misuse"]


def test_a_compiler_s_diagnostic_quoting_a_check_is_source_not_the_error() -> None:
    """GCC and clang show the line a diagnostic is about under a gutter of its line number ('  714 |   TORCH_CHECK(...'),
    a caret line below it: the check's message quoted from source, not raised."""
    build = (
        "/src/pytorch/aten/src/ATen/native/cudnn/RNN.cpp:714:3: error: 'weight_arr' was not declared in this scope\n"
        '  714 |   TORCH_CHECK(weight_arr.size() > 0, "_cudnn_rnn_flatten_weight: cannot flatten empty weight list");\n'
        "      |   ^~~~~~~~~~~\n"
        "compilation terminated due to -Wfatal-errors.\n"
        "ninja: build stopped: subcommand failed.\n"
    )
    assert not diagnose(build, catalog=CATALOG).findings

"""A message quoted in pasted source code is not the error raised: a raise statement's string literal in a listing
of source (no traceback frame above it, no message line after it, more code after it: read/frames.quoted_source)
gives a near miss, not a finding, whichever reading finds it
(the exact scan, the tolerant reading ignoring case). The source line a traceback shows under its frame still
counts, and the message line that follows it is the finding."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()

PASTED_SOURCE = '''Is it possible to pass constants to a ConvLSTM2D? Looking at recurrent.py I see:

        if constants:
            if not has_arg(self.cell.call, 'constants'):
                raise ValueError('RNN cell does not support constants')

            def step(inputs, states):
                return self.cell.call(inputs, states, constants=constants)
        last_output, outputs, states = K.rnn(step, inputs, initial_state)
'''

PASTED_MULTILINE = '''the check in rnn.py:

    def check_input(self, input, batch_sizes):
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                'input must have {} dimensions, got {}'.format(
                    expected_input_dim, input.dim()))

        self.check_hidden_size(hidden, expected_hidden_size)
        return hidden
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


def test_in_another_case_the_quoted_source_is_still_no_finding() -> None:
    assert not diagnose(PASTED_SOURCE.upper(), catalog=CATALOG).findings


def test_the_source_line_a_traceback_shows_and_its_message_give_the_finding() -> None:
    (f,) = diagnose(TRACEBACK, catalog=CATALOG).findings
    assert f.id == "keras/rnn-cell-constants-unsupported" and f.cut is None


def test_a_traceback_cut_after_the_raising_source_line_is_still_read_there() -> None:
    cut = TRACEBACK.rsplit("ValueError:", 1)[0]
    assert [f.id for f in diagnose(cut, catalog=CATALOG).findings][:1] == ["keras/rnn-cell-constants-unsupported"]


def test_a_raise_statement_that_ends_the_input_or_precedes_a_message_line_is_a_cut_traceback_s() -> None:
    """Without its frame's header: the input cut after the raising statement, or the message line after it."""
    for text in (PASTED_SOURCE.split("\n\n            def step")[0], PASTED_SOURCE.split("\n\n            def step")[0] + "\nValueError:\n"):
        assert [f.id for f in diagnose(text, catalog=CATALOG).findings][:1] == ["keras/rnn-cell-constants-unsupported"], text

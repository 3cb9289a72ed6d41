"""A name printed with its index ('hidden[0]', 'hx[1]') is one word of a message's template: the index is what
tells PyTorch's state checks apart (hidden[0] is h0, hidden[1] c0), so a message cut right after it is read as
the signature whose template holds it, and its weight is the name's information and one bit (the index), not
that of a word never met in ordinary logs."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.kb.templates import words
from cudnn_doctor.match.tolerant import recognizer

CATALOG = catalogs.builtin()
HIDDEN = "pytorch/rnn-hidden-size-mismatch"


def test_a_name_keeps_its_index_as_one_word() -> None:
    got = [w for w, _a, _b in words("Expected hidden[0] size (1, 1, 100), got [1, 1, 29]; hx[1] and hidden[1")]
    assert got[:3] == ["expect", "hidden[0]", "siz"] and "hx[1]" in got and got[-1] == "hidden[1"
    assert [w for w, _a, _b in words("x[0:5] and shape[1, 2]")] == ["x", "0", "5", "and", "shap", "1", "2"]


def test_a_message_cut_after_its_indexed_name_is_read_cut() -> None:
    for text in ("RuntimeError: Expected hidden[0]", "RuntimeError: Expected hidden[1]", "RuntimeError: Expected hidden[0"):
        d = diagnose(text, catalog=CATALOG)
        assert d.findings and d.findings[0].id == HIDDEN and d.findings[0].cut is not None, (text, [f.id for f in d.findings])


def test_an_indexed_name_weighs_its_name_and_one_bit() -> None:
    rec = recognizer(tuple(CATALOG.signatures))
    assert abs(rec.weight["hidden[0]"] - rec.weight["hidden[1]"]) < 1e-9
    assert rec.weight["hidden"] < rec.weight["hidden[0]"] <= rec.weight["hidden"] + 1.5


def test_an_indexed_name_alone_is_not_a_finding() -> None:
    for text in ("print(hidden[0])", "h = hidden[0]", "the shape of hidden[0] is wrong"):
        d = diagnose(text, catalog=CATALOG)
        assert not [f.id for f in d.findings if f.signature.scope == "rnn"], text


def test_a_format_string_ipython_lists_only_as_context_is_not_the_message_raised() -> None:
    """IPython lists the source around a frame's line: a format string passed on a context line (not the one
    the arrow marks, in a statement that raises nothing) is not the message; with 'hidden[0]' a word of the
    template it reads whole, so it must be refused as code."""
    text = (
        "/usr/lib/python3.7/site-packages/torch/nn/modules/rnn.py in check_forward_args(self, input, hidden, batch_sizes)\n"
        "--> 620         self.check_input(input, batch_sizes)\n"
        "    621         self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),\n"
        "    622                                'Expected hidden[0] size {}, got {}')\n\n"
        "/usr/lib/python3.7/site-packages/torch/nn/modules/rnn.py in check_input(self, input, batch_sizes)\n"
        "    205             raise RuntimeError(\n"
        "    206                 'input.size(-1) must be equal to input_size. Expected {}, got {}'.format(\n"
        "--> 207                     self.input_size, input.size(-1)))\n\n"
        "RuntimeError: input.size(-1) must be equal to input_size. Expected 37, got 38\n"
    )
    d = diagnose(text, catalog=CATALOG)
    assert [f.id for f in d.findings] == ["pytorch/rnn-input-size-mismatch"]

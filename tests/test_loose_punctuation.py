"""A message carried with other punctuation (issue 27): an issue title or a message typed from memory drops its
quote marks ('LSTM object has no attribute _flat_weights_names'), spaces its colons ('InternalError : Failed to
call ThenRnnForward') or glues them ('RuntimeError:cuDNN error:CUDNN_STATUS_BAD_PARAM'). The tolerant reading's last confirmation pattern
(kb/regexinfo.loose_regex) reads a quote mark as optional where a word begins or ends and the text goes on (or
a space stands beside it), so
a value the input's end cuts stays a cut reading; a colon of the message may have a space before it, and the
space after it is optional. The whole base in these forms: tests/test_forms.py ("unquoted", "colon spaced",
"colon glued")."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.kb.patterns import compile_pattern
from cudnn_doctor.kb.regexinfo import loose_regex
from cudnn_doctor.match.confirm import folded


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# LSTM object has no attribute _flat_weights_names\nI loaded my model saved with torch 1.4\n", "pytorch/rnn-module-pickled-by-other-release"),
        ("# lengths argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor\n", "pytorch/pack-padded-lengths-on-cuda"),
        ("_thnn_fused_lstm_cell_cuda not implemented for BFloat16 when I train with autocast\n", "pytorch/fused-rnn-cell-cuda-bfloat16"),
        ("# CuDNNLSTM object has no attribute unroll\nafter loading the SavedModel\n", "keras/cudnn-layer-savedmodel-no-unroll"),
    ],
)
def test_a_message_without_its_quote_marks_is_read_as_its_signature(text: str, expected: str) -> None:
    d = diagnose(text)
    assert [f.id for f in d.findings][:1] == [expected]


def test_the_same_message_with_its_quotes_reads_the_same() -> None:
    quoted = diagnose("# 'LSTM' object has no attribute '_flat_weights_names'\nI loaded my model saved with torch 1.4\n")
    unquoted = diagnose("# LSTM object has no attribute _flat_weights_names\nI loaded my model saved with torch 1.4\n")
    assert [(f.id, f.captures.get("attr")) for f in quoted.findings] == [(f.id, f.captures.get("attr")) for f in unquoted.findings]


def test_a_quoted_value_the_input_cuts_is_still_a_cut_reading() -> None:
    """Without its closing quote at the input's end, '_flat_weights' may be '_flat_weights_names' cut: no whole
    message, no capture of a value it may not be."""
    for text in ("AttributeError: 'LSTM' object has no attribute '_flat_weights_na", "AttributeError: 'LSTM' object has no attribute '_flat_weights"):
        (f,) = diagnose(text).findings
        assert f.cut is not None and not f.captures.get("attr")


def test_a_quote_mark_is_optional_only_in_the_message() -> None:
    """Outside lookarounds and character classes, not where a quantifier already makes it optional; a regex
    without quote marks only has its line breaks read as spaces."""
    assert loose_regex("'(?P<cls>LSTM)'", False) == r"(?:'|\b(?!\Z)|(?<=\s)|(?=\s))(?P<cls>LSTM)(?:'|\b(?!\Z)|(?<=\s)|(?=\s))"
    assert loose_regex(r"""For\ ['"](?P<k>LSTM)['"]?,(?=')(?<!")[^'\n]+""", True) == r"""For\ (?:['"]|\b(?!\Z)|(?<=\s)|(?=\s))(?P<k>LSTM)['"]?,(?=')(?<!")[^'\n]+"""
    assert loose_regex(r"a\nb(?:[^\n]*\n){0,8}", False) == r"a[ \n]b(?:[^\n]*\n){0,8}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# ValueError : State 0 is incompatible with layer lstm : expected shape=(1, 64), found shape=(32, 64)\nwhen I call model.predict", "keras/rnn-reset-states-mismatch"),
        ("ValueError:State 0 is incompatible with layer lstm:expected shape=(1, 64), found shape=(32, 64) when I call model.predict\n", "keras/rnn-reset-states-mismatch"),
    ],
)
def test_a_message_with_its_colons_spaced_or_glued_is_read_as_its_signature(text: str, expected: str) -> None:
    assert [f.id for f in diagnose(text).findings][:1] == [expected]


def test_a_colon_of_the_message_may_have_a_space_before_it_and_none_after_it() -> None:
    """Not a group's colon ('(?:', '(?i:'), nor one in a lookaround or a character class."""
    assert loose_regex(r"error:\ (?:a|b)(?i:c)(?=x:)[:]", True) == r"error[^\S\n]?:[^\S\n]?(?:a|b)(?i:c)(?=x:)[:]"
    assert loose_regex("error: x", False) == r"error[^\S\n]?:[^\S\n]?x"


def test_a_space_after_a_colon_that_a_quantifier_follows_stays_as_it_is() -> None:
    """':\\ *' is optional already: written '[^\\S\\n]?*' it is a double repeat, and the whole loose pattern of the
    signature (its quote marks and line breaks too) failed to compile and was dropped without a word (14 signatures)."""
    assert loose_regex(r"handle:\ *(?P<s>X)", True) == r"handle[^\S\n]?:\ *(?P<s>X)"
    assert loose_regex("Error: *x: +y", False) == r"Error[^\S\n]?: *x[^\S\n]?: +y"


def test_every_signature_s_loose_pattern_compiles() -> None:
    for sig in catalogs.builtin().signatures:
        compile_pattern(loose_regex(sig.regex, "VERBOSE" in sig.flags), folded(sig.flags))

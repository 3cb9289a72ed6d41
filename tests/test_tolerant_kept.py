"""Mechanisms of the tolerant reading that reports (bench/reports.py) and the forms sample do not measure, kept
because removing each loses a reading: an issue title's prose before the message (confirm._variants' prose-head
variant) and another inflection of a message's word (spelling.respelt: 'Failed to find' for 'Fail to find'); and
how a word cut at the input's end is read: as the start of its template's word (past its stem too), and, where
several messages hold what was read, as near misses naming them."""

from __future__ import annotations

import dataclasses

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose


def _found(text: str) -> list[tuple[str, bool]]:
    return [(f.id, f.cut is not None) for f in diagnose(text, catalog=catalogs.builtin()).findings][:1]


def test_a_title_s_prose_before_an_inflected_message_is_read() -> None:
    text = "# LSTM training: Failed to find the dnn implementation. [Op:CudnnRNN]\n"
    assert _found(text) == [("tensorflow/fail-to-find-dnn-implementation", False)]


def test_an_inflected_message_is_confirmed_whole_not_cut() -> None:
    text = "tensorflow UnknownError: Failed to find the dnn implementation. [Op:CudnnRNNV3]\n"
    assert _found(text) == [("tensorflow/fail-to-find-dnn-implementation", False)]


def test_a_cut_word_is_read_as_the_start_of_its_template_word_not_respelt_as_a_wording_s_word() -> None:
    """A wording's 'are' (stem 'ar') does not respell the cut 'ar' of 'arguments' (kb12's workaround undone)."""
    catalog = catalogs.builtin()
    sig = catalog.get("jax/flax-rnn-cell-api-changed")
    note = {"releases": "Flax 0.7.0-0.7.4", "text": "TypeError: The RNNCellBase API has changed, the error you are experiencing"}
    worded = dataclasses.replace(sig, raw=dict(sig.raw, wordings=[*sig.raw["wordings"], note]))
    others = dataclasses.replace(catalog, signatures=[worded if s.id == sig.id else s for s in catalog.signatures])
    text = "    carry = cell.initialize_carry(jax.random.PRNGKey(0), 16, 32)\nTypeError: GRUCell.initialize_carry() takes 3 positional ar"
    got = [(f.id, f.cut is not None) for f in diagnose(text, catalog=others).findings][:1]
    assert got == [("jax/flax-rnn-cell-api-changed", True)]


def test_a_message_cut_inside_its_last_word_past_the_word_s_stem_is_read() -> None:
    """'during loadin' (the stem 'load' and the start of '-ing') is a cut of 'during loading', as 'during l' is."""
    text = "ValueError: Layer 'gru_cell' expected 3 variables, but received 0 variables during loadin"
    assert _found(text) == [("keras/rnn-cell-weights-not-loaded", True)]


def test_a_cut_status_name_is_a_near_miss_of_the_signatures_it_could_be_never_a_finding() -> None:
    text = "Epoch 1/10\nRuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_F"
    d = diagnose(text, catalog=catalogs.builtin())
    assert d.findings == []
    assert "cudnn/status-execution-failed" in {n.id for n in d.near_misses}


def test_a_title_s_prose_before_an_eager_error_that_names_its_function_is_read() -> None:
    """The prose-head variant takes off the title's prose and the eager error's status with the function it names
    ('... UnknownError: {{function_node __wrapped__CudnnRNNV3_...}} '): the message after them is read."""
    text = (
        "# Colab LSTM broke: tensorflow.python.framework.errors_impl.UnknownError: {{function_node "
        "__wrapped__CudnnRNNV3_device_/job:localhost/replica:0/task:0/device:GPU:0}} Fail to find the dnn implementation. after the update\n"
    )
    assert _found(text) == [("tensorflow/fail-to-find-dnn-implementation", False)]


def test_a_status_name_in_another_case_is_read_where_its_literal_is() -> None:
    """A message whose template is too short a chain to be read alone (a status name) in another case: the exact
    scan's near miss is read again ignoring case (tolerant.recased)."""
    text = "[TRT] [E] 1: [convolutionRunner.cpp::executeConv::511] Error Code 1: Cudnn (cudnn_status_bad_param)\n"
    assert _found(text) == [("cudnn/status-bad-param", False)]


def test_a_cpp_comment_s_line_is_not_read_as_a_message() -> None:
    """A comment in pasted C++ says what the code does, not what a framework printed ('#' may be a title's heading)."""
    text = ("Here is the kernel source:\n    // failed to call thenrnnforward with model config when the input is empty\n"
            "    if (!stream->ThenRnnForward(*rnn_desc, *input_desc, input_data).ok()) {\n")
    assert _found(text) == []


def test_a_message_read_again_in_another_casing_takes_its_lines_from_the_reading_of_templates() -> None:
    """A near miss confirmed by its regex ignoring case (``recased``) is a match: the template reading does not read
    its line again, where a cut reading of another signature would skip that signature's own regex (its lookbehind
    leaves a status raised out of flatten_parameters to the GPU-arch cause)."""
    text = (
        '  file "/opt/conda/lib/python3.6/site-packages/torch/nn/modules/rnn.py", line 117, in _apply\n'
        "    self.flatten_parameters()\n"
        '  file "/opt/conda/lib/python3.6/site-packages/torch/nn/modules/rnn.py", line 113, in flatten_parameters\n'
        "    self.batch_first, bool(self.bidirectional))\n"
        "runtimeerror: cudnn error: cudnn_status_execution_failed\n"
    )
    (finding,) = diagnose(text, catalog=catalogs.builtin()).findings
    assert finding.id == "pytorch/cudnn-gpu-arch-build-mismatch"
    assert "pytorch/cudnn-rnn-execution-failed" not in finding.related


def test_a_lookalike_s_words_introduced_by_prose_are_no_reading() -> None:
    """A generic message that only its value makes the signature's (TVM's 'The following operators are not
    implemented: [...]', RNN only for 'aten::lstm'), cut before the value, is what a counter-example says: where prose
    introduces it ('... and got: '), that prose stands where the counter-example's exception does, not another word
    before it (the lookalike rule's word before, weigh.Weigher.lookalike)."""
    prose = "I tried converting my GRU model with onnx-tf and got: The following operators are not implemented\n"
    assert _found(prose) == []
    assert _found("Converting my LSTM fails: The following operators are not implemented: ['aten::lstm']\n") == [("tvm/frontend-no-rnn-converter", False)]

def test_an_exception_s_name_between_prose_and_a_reading_is_the_word_before_it() -> None:
    """Prose stands where a lookalike's exception does only where it introduces the reading itself: an exception's
    name between them ('UnknownError: ') is the word before the reading, which the lookalike rule compares (here
    TensorFlow's dropout-descriptor message, cut, against DL4J's 'ManageDescriptor: Failed to set dropout ...')."""
    text = "# My LSTM fails: UnknownError: Failed to set dropout descriptor with state memory size 1048576 b\n"
    assert [f.id for f in diagnose(text, catalog=catalogs.builtin()).findings] == ["cudnn/cause-dropout-descriptor-out-of-memory"]


def test_a_near_miss_read_again_ignoring_case_has_its_own_search_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """``recased`` searches under a budget of its own, not under the last text ``read`` read's (SEARCH_BUDGET_S
    from its start): in a big log, seconds of exact scanning lie between a block's tolerant reading and the next
    one's near misses, whose regexes ignoring case were then never searched (their findings lost by timing)."""
    from cudnn_doctor.match import confirm, tolerant
    from cudnn_doctor.match.matcher import Matcher

    catalog = catalogs.builtin()
    reader = tolerant.Tolerant(catalog.signatures, Matcher(catalog).evidence)
    line = ["[TRT] [E] 1: [convolutionRunner.cpp::executeConv::511] Error Code 1: Cudnn (cudnn_status_bad_param)"]
    monkeypatch.setattr(confirm, "SEARCH_BUDGET_S", -1.0)
    list(reader.read(["a text read before, its budget spent by now"]))
    monkeypatch.setattr(confirm, "SEARCH_BUDGET_S", 2.0)
    assert [m.sig.id for m in reader.recased(line, [(0, "cudnn/status-bad-param")], {})] == ["cudnn/status-bad-param"]


def test_a_spent_budget_stops_reading_the_causes_of_matched_generics(monkeypatch: pytest.MonkeyPatch) -> None:
    """``refined`` reads nothing once its budget is spent: not only its regex searches, but the region, the
    framework gate and the points too (review23: without the check, a paste of thousands of distinct status lines
    under matched generics ran all of those for every line, 3.5x the time, long after the budget)."""
    from cudnn_doctor.match import confirm, tolerant
    from cudnn_doctor.match.matcher import Matcher

    catalog = catalogs.builtin()
    reader = tolerant.Tolerant(catalog.signatures, Matcher(catalog).evidence)
    lines = [f"E  12:00:{n:05d}  CUDNN_STATUS_BAD_PARAM  {n}" for n in range(50)]
    taken = {li: ["cudnn/status-bad-param"] for li in range(len(lines))}
    gated: list[int] = []
    seen = reader.refiner.seen
    monkeypatch.setattr(reader.refiner, "seen", lambda *a: gated.append(1) or seen(*a))
    list(reader.refined(lines, 0, len(lines) - 1, taken))
    assert gated  # the gate is read while the budget lasts (the test can fail)
    gated.clear()
    monkeypatch.setattr(confirm, "SEARCH_BUDGET_S", -1.0)
    assert list(reader.refined(lines, 0, len(lines) - 1, taken)) == []
    assert gated == []

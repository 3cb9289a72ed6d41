"""A message made only of common words ('Dnn is not supported', 'DNN library is not found') is any sentence's: the
tolerant reading counts it only with what makes it a framework's error next to it (an exception or status before
it, the op or node it was raised for on its line or the next, a C++ log line's location), or where the text spells
its words as a name in code; otherwise it is a near miss at most (match/weigh.COMMON_BITS). The rule is the
reader's, for every such template: here a signature whose regex wants a status before the words or them alone on
a line, and their end, which the tolerant reading's variants give any sentence (its template's prefix put back, its
line ended after the words), so that only the rule stands between a sentence of prose and a finding."""

from __future__ import annotations

import dataclasses

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.match import Matcher
from cudnn_doctor.match.tolerant import Tolerant

# the wording's first regex (branch kb13, reverted: the tolerant reading read the 5G core's sentence with it)
LOOSE = r"(?:\b(?:InvalidArgument(?:Error)?|INVALID_ARGUMENT):[^\n]*?|^[\ \t]*)(?<![\w-])Dnn\ is\ not\ supported(?=[\ \t]*(?:\[|$))"


def _loose():
    catalog = catalogs.builtin()
    sig = catalog.get("tensorflow/fail-to-find-dnn-implementation")
    loose = dataclasses.replace(sig, regex=LOOSE, flags=("VERBOSE",), templates=(("InvalidArgumentError: ", "dnn", "is", "not", "support"),), lookalikes=())
    return dataclasses.replace(catalog, signatures=[loose if s.id == sig.id else s for s in catalog.signatures])


def _ids(text: str, catalog=None) -> tuple[list[str], list[str]]:
    d = diagnose(text, catalog=catalog or _loose())
    return [f.id for f in d.findings], [n.id for n in d.near_misses]


def test_a_sentence_of_common_words_alone_is_a_near_miss_at_most() -> None:
    for text in ("The DNN is not supported by the SMF.\nINFO smf: PDU session rejected\n", "# LSTM training: Dnn is not supported after upgrading\n"):
        findings, _near = _ids(text)
        assert "tensorflow/fail-to-find-dnn-implementation" not in findings, text


def test_the_same_words_with_what_makes_them_the_error_are_read() -> None:
    for text in (
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: dnn is not supported after upgrading\n",
        "dnn is not supported\n\t [[{{node sequential/lstm/CudnnRNNV3}}]]\n",
        "2025-01-31 09:14:52.1: E tensorflow/core/kernels/cudnn_rnn_ops.cc:1491] dnn is not supported\n",
        "# Colab: dnn is not supported [Op:CudnnRNNV3] since the update\n",
        "# Colab: Dnn is not supported\n  [[node lstm/CudnnRNNV3 (defined at train.py:20) ]]\n",  # TF 2.0-2.4's node line
        "# crash: INVALIDARGUMENTERROR: DNN IS NOT SUPPORTED\n",  # an upper-cased paste's status
    ):
        findings, _near = _ids(text)
        assert findings[:1] == ["tensorflow/fail-to-find-dnn-implementation"], text


def test_a_template_is_common_words_by_the_base_s_weights() -> None:
    catalog = catalogs.builtin()
    reader = Tolerant(catalog.signatures, Matcher(catalog).evidence)
    plain = {tuple(reader.rec.tpls[t][1:]) for t in range(len(reader.rec.tpls)) if reader.weigher.plain(t)}
    assert ("dnn", "library", "is", "not", "found") in plain  # every word common, no value, little in all
    assert ("cudnn", "status", "execution", "fail") in plain  # (the text spells it as a name: CUDNN_STATUS_...)
    assert not any("thenrnnforward" in t for t in plain)  # a rare word is information enough


def test_a_status_name_of_common_words_is_a_name_in_code() -> None:
    findings, _near = _ids("# Training crashes on Colab: CUDNN_STATUS_EXECUTION_FAILED after upgrading\n", catalogs.builtin())
    assert findings  # spelt as a name in code: the rule does not hold it back


def test_the_built_in_wordings_of_common_words_read_what_makes_them_the_error() -> None:
    builtin = catalogs.builtin()
    assert _ids("# Colab: Dnn is not supported [Op:CudnnRNNV3]\n", builtin)[0][:1] == ["tensorflow/fail-to-find-dnn-implementation"]
    assert _ids("# Colab: DNN library is not found. [Op:Conv2D]\n", builtin)[0][:1] == ["tensorflow/dnn-library-unavailable"]
    for prose in ("The DNN is not supported by the SMF.\n", "The DNN library is not found in the path you gave.\n", "DNN is not supported\nSubsampling is enabled\n"):
        assert _ids(prose, builtin)[0] == [], prose


def test_python_s_own_argument_message_cut_before_its_name_is_no_finding() -> None:
    """CPython's 'missing 1 required positional argument' (kb/templates.RUNTIME_MESSAGES) tells no signature apart:
    cut before the argument's name, a Flax cell's traceback gets no finding; the name read, it does."""
    head = 'Traceback (most recent call last):\n  File "model.py", line 8, in <module>\n    cell = nn.GRUCell(32)\n'
    cut = head + "TypeError: __init__() missing 1 required positional argument: '"
    assert not diagnose(cut, catalog=catalogs.builtin()).findings
    whole = diagnose(cut + "features'\n", catalog=catalogs.builtin())
    assert [f.id for f in whole.findings] == ["jax/flax-rnn-cell-api-changed"]


OPACUS = "pytorch/opacus-rnn-needs-dp-replacement"


def test_a_reading_of_ordinary_words_and_an_rnn_s_generic_names_is_a_near_miss_at_most() -> None:
    """A tolerant reading that holds only ordinary words and an RNN's generic names ('model', 'containing', 'LSTM',
    'layer') holds nothing specific to its message, however rarely the base's logs spell one of them ('contain'):
    Opacus's inspector message read from a feature request is a near miss asking for the full message, not a
    finding (match/weigh.Weigher._thin)."""
    for text in (
        "Quantization of a model containing LSTM layers is slow on the edge board\n",
        "The pruning tutorial says a model contains LSTM layer weights twice. Please clarify.\n",
        "# Exporting a model containing LSTM layer to TFLite crashes\n",
    ):
        d = diagnose(text, catalog=catalogs.builtin())
        assert OPACUS not in [f.id for f in d.findings], text
        assert not [f.id for f in d.findings if f.scope == "rnn"], text


def test_the_message_with_what_is_specific_to_it_is_read() -> None:
    """Opacus 0.9-0.15's inspector (torchdp DPModelInspector): 'Model contains LSTM layers. It is recommended that
    they are replaced with DPLSTM: [names]', whole, or cut after its DPLSTM; and a cut reading of ordinary words that
    holds enough of them in order is still read (PyTorch's device message cut in its first clause)."""
    whole = (
        "opacus.utils.module_inspection.IncompatibleModuleException: Model contains incompatible modules.\n"
        "Model contains LSTM layers. It is recommended that they are replaced with DPLSTM: ['encoder.rnn']\n"
    )
    for text in (whole, "privacy_engine.attach(optimizer) raised: Model contains LSTM layers. It is recommended that they are replaced with DPLSTM"):
        assert [f.id for f in diagnose(text, catalog=catalogs.builtin()).findings][:1] == [OPACUS], text
    cut = "RuntimeError: Input and parameter tensors are not at the same device, fou"
    assert [f.id for f in diagnose(cut, catalog=catalogs.builtin()).findings][:1] == ["pytorch/rnn-input-hidden-device-mismatch"]

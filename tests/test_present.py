"""Presentations undone before matching (present.py, reading.py), cut messages (cut.py), and the negatives:
lines that were genuinely separate stay separate, complete lines are not read as cut."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.match import Matcher
from cudnn_doctor.read.present import present, unwrap, wrap_width
from cudnn_doctor.report import build_report
from presenting import collapsed, hard_wrap, rendered  # tests/ is on sys.path (rootdir-based imports)

CATALOG = catalogs.builtin()
NOTEBOOK = Path(__file__).parent / "fixtures" / "notebooks" / "lstm-hidden.ipynb"
TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/home/u/train.py", line 74, in main\n'
    "    out, (h, c) = model.encoder(x, (h0, c0))\n"
    '  File "/usr/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 812, in forward\n'
    "    self.check_forward_args(input, hx, batch_sizes)\n"
    "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]"
)
HIDDEN = "pytorch/rnn-hidden-size-mismatch"


def _top(text: str) -> tuple[str | None, int | None]:
    d = diagnose(text, catalog=CATALOG)
    return (d.findings[0].id, d.findings[0].first.line) if d.findings else (None, None)


def test_clean_text_is_not_rewritten() -> None:
    assert present(TRACE.encode()) is None


def test_wrapped_at_any_width_joins_and_keeps_original_line_numbers() -> None:
    for width in (40, 57, 60, 80, 100, 120):
        wrapped = hard_wrap(TRACE, width)
        sig, line = _top(wrapped)
        assert sig == HIDDEN, width
        # the error line starts at this line of the wrapped input
        assert line == wrapped.split("\n").index(next(x for x in wrapped.split("\n") if x.startswith("RuntimeError"))) + 1


def test_wrapped_ci_lines_with_a_prefix_on_every_piece() -> None:
    pieces = hard_wrap(TRACE, 50).split("\n")
    text = "\n".join(f"2024-05-01T10:00:0{i % 10}.1234567Z [rank1]: {p}" for i, p in enumerate(pieces))
    assert _top(text)[0] == HIDDEN
    got = present(text.encode())
    assert got is not None and any(u.startswith("wrap") for u in got.undone)
    assert b"got [1, 4, 64]" in got.data


def test_equal_length_records_are_not_glued() -> None:
    lines = [f"Epoch {i}/10 - loss: 0.{i}345 - acc: 0.9{i}12 - val_loss: 0.{i}456 - val_acc: 0.8{i}99" for i in range(1, 10)]
    assert wrap_width(lines) is None
    assert present("\n".join(lines).encode()) is None


def test_separate_lines_stay_separate() -> None:
    text = (
        "2018-05-02 10:00:01.12: F tensorflow/stream_executor/cuda/cuda_dnn.cc:194] Check failed: status == X\n"
        "Aborted (core dumped)\n"
        "iter: 1420 / 70000, total loss: 1.14\n"
    )
    got = present(text.encode())
    assert got is None or got.data.count(b"\n") == text.rstrip("\n").count("\n")
    # one line at the longest length followed by a capitalised word or a sentence start: no wrap evidence
    assert wrap_width(["A sentence that ends right at the edge of the terminal window, stream.", "Aborted (core dumped)"]) is None
    assert wrap_width(["RuntimeError: CUDA error: an illegal memory access was encountered", "CUDA kernel errors"]) is None
    # indentation and traceback starts never continue a line
    lines = [("x" * 60, 0), ("  File \"a.py\", line 3, in f", 1), ("Traceback (most recent call last):", 2)]
    assert unwrap(lines, 60) == lines


def test_quoted_nested_fenced_bullets_html_gutter_smart_quotes() -> None:
    quoted = "\n".join("> > " + x for x in TRACE.split("\n"))
    assert _top(quoted) == (HIDDEN, 6)
    fenced = "Here is my error:\n\n```python\n" + TRACE + "\n```\nany idea?"
    assert _top(fenced) == (HIDDEN, 9)
    bullets = "- " + TRACE.split("\n")[-1]
    assert _top(bullets)[0] == HIDDEN
    html_text = TRACE.replace('"', "&quot;").replace("'", "&#39;").replace("\n", "<br>\n")
    assert _top(html_text) == (HIDDEN, 6)
    gutter = "\n".join(f"{i:>3} | {x}" for i, x in enumerate(TRACE.split("\n"), 1))
    assert _top(gutter) == (HIDDEN, 6)
    smart = "ValueError: Layer\u00a0lstm will not use cuDNN kernels since it doesn\u2019t meet the criteria. It will use a generic GPU kernel as fallback when running on GPU."
    assert _top(smart)[0] == "keras/cudnn-criteria-not-met"
    assert _top(TRACE.replace("\n", "^M\n"))[0] == HIDDEN


def test_indented_code_block_and_console_padding_before_a_wrap() -> None:
    """A Markdown indented code block and a console's padded rectangular copy hide the lines' own lengths: each
    is undone before a hard wrap is looked for, and only when every line shows it."""
    wrapped = hard_wrap(TRACE, 60)
    got = present("\n".join("    " + x for x in wrapped.split("\n")).encode())
    assert got is not None and got.undone == ("indent", "wrap 60") and got.data.decode() == TRACE
    got = present("\n".join(x.ljust(60) for x in wrapped.split("\n")).encode())
    assert got is not None and got.undone == ("padding", "wrap 60") and got.data.decode() == TRACE
    nested = present("\n".join(">> " + x for x in wrapped.split("\n")).encode())  # '>> ' starts a line of its own
    assert nested is not None and nested.data.decode() == TRACE
    # one indented line among others, lines ending in spaces at different lengths: nothing to undo
    assert present((TRACE + "\n    x = 1").encode()) is None
    assert present(("a" * 50 + "   \n" + "b" * 60 + "   \n" + "c" * 70 + "   ").encode()) is None


def test_task_labels_on_most_lines_are_the_launchers_streams() -> None:
    """srun -l's '0: ' / '1: ' before every line: read as the launcher prefix it is (its tasks apart), also
    where the log was wrapped; a gutter's consecutive numbers stay a gutter."""
    labelled = "\n".join(f"{i % 2}: {x}" for i, x in enumerate(TRACE.split("\n")))
    one = "\n".join(f"0: {x}" for x in hard_wrap(TRACE, 60).split("\n"))
    got = present(one.encode())
    assert got is not None and got.undone[:2] == ("labels", "wrap 60")
    assert _top(one)[0] == HIDDEN
    assert present(labelled.encode()) is not None and _top(labelled)[0] == HIDDEN
    gutter = "\n".join(f"{i}: {x}" for i, x in enumerate(TRACE.split("\n"), 1))
    assert present(gutter.encode()).undone == ("gutter",)  # type: ignore[union-attr]


def test_json_lines_logging_becomes_the_records_text() -> None:
    """Docker's json-file log (a line in each record's 'log'), a JSON formatter's record whose 'exc_info' holds
    the traceback in one escaped string: each record becomes its text fields' lines, at the record's line."""
    docker = "\n".join(json.dumps({"log": x + "\n", "stream": "stderr", "time": "2024-05-14T09:00:00Z"}) for x in TRACE.split("\n"))
    assert _top(docker) == (HIDDEN, 6)
    record = json.dumps({"levelname": "INFO", "message": "epoch 1"}) + "\n" + json.dumps({"levelname": "ERROR", "message": "failed", "exc_info": TRACE})
    got = present(record.encode())
    assert got is not None and got.undone == ("json-log",) and got.data.decode() == "epoch 1\nfailed\n" + TRACE
    assert _top(record) == (HIDDEN, 2)
    # a record without a text field, a line that is not JSON: as they are
    assert present(b'{"step": 1, "loss": 0.5}\nnot json {"a": 1}') is None


def test_json_log_records_decoded_together_read_as_each_alone() -> None:
    """The records of a block are decoded by one json.loads: a line that is not one JSON value (two records on
    a line, an invalid one) sends the block to the line-by-line decoding, which gives every record's text."""
    rec = [json.dumps({"log": x + "\n", "stream": "stderr"}) for x in TRACE.split("\n")]
    whole = present("\n".join(rec).encode())
    assert whole is not None and whole.data.decode() == TRACE
    two = present("\n".join([*rec[:2], rec[2] + ", " + rec[3], *rec[4:]]).encode())  # one line, two values
    bad = present("\n".join([*rec[:2], '{"log": "bad \\x escape"}', *rec[2:]]).encode())
    assert two is not None and two.data.decode().split("\n")[2] == rec[2] + ", " + rec[3]  # kept as it is
    assert bad is not None and bad.data.decode() == "\n".join([*TRACE.split("\n")[:2], '{"log": "bad \\x escape"}', *TRACE.split("\n")[2:]])


def test_a_code_comment_after_a_line_is_not_a_message_that_line_goes_on_into() -> None:
    """A line read with the one before it (a message broken over two lines) is never a code comment's: glued
    to 'x = 1', '# else it reports ERROR: <message>' read as a message (a Kaggle log's header, a JSON record's
    message line before a pasted script)."""
    comment = "# if don't add this, it will report ERROR: Fail to find the dnn implementation."
    for before in ("", "x = 1\n", "Time\t#\tLog Message\n"):
        assert _top(before + comment + "\ngpus = 1")[0] is None
    assert _top("Training crashes\nUnknownError: Fail to find the dnn\nimplementation. [Op:CudnnRNN]")[0] == "tensorflow/fail-to-find-dnn-implementation"


def test_a_lone_mark_glued_to_the_line_before_is_the_text() -> None:
    """A bullet or quote mark is a presentation in a list or quote context (another marked line next to it, the
    block's start, a blank line or a colon before it); alone after a line it continues, it is the text's own: a
    message's second half that begins '* hidden_size', '> 0.f', '- helperAllowFallback()' (issue 27's split
    form)."""
    for text in (
        "RuntimeError: weight_hh first dim must be 4\n* hidden_size = 1024, but got 768",
        "LSTMBase(const OpKernelInfo&) clip_\n> 0.f was false.",
        "Error during LSTM MKL/CuDNN helper forward pass\n- helperAllowFallback() is set to false\n\tat x.y(Z.java:1)",
    ):
        assert present(text.encode()) is None, text
    listed = {
        "I get:\n- RuntimeError: boom\nthen": b"I get:\nRuntimeError: boom",
        "notes\n\n* first\n* second": b"notes\n\nfirst\nsecond",
        "prose\n- item one\n  goes on\n- item two": b"prose\nitem one\n  goes on\nitem two",
        "text\n> quoted\n> block": b"text\nquoted\nblock",
        "Here is the log:\n> RuntimeError: boom": b"Here is the log:\nRuntimeError: boom",
    }
    for text, want in listed.items():
        got = present(text.encode())
        assert got is not None and got.data.startswith(want), text


def test_a_line_break_where_text_has_a_space_is_not_a_wrap() -> None:
    """A hard wrap keeps every character; a message broken between two words by its poster loses the space. One
    long line broken after a comma, an operator standing as a word, between a number and a word, or after a
    word in capitals is not read as one wrapped line (issue 27's split form); a cut inside an identifier is."""
    for first, second in (
        ("MXNetError: Check failed: in_shape->size() == num_inputs (3 vs. 4) : Input shape mismatch. Expected 4", "input parameters but got 3."),
        ("Batchwise recurrent operations (layout ==", "1) are not supported."),
        ("AssertionError: LSTMCell: Expected input to be", "1-D or 2-D but received 3-D tensor"),
        ("ValueError: Expected hidden size (1, 32,", "32), got (2, 32, 32)"),
        ("RuntimeError: 'lengths' argument should be a 1D CPU", "int64 tensor, but got 2D cpu Long tensor"),
    ):
        assert wrap_width([first, second]) is None, first
    assert wrap_width(["RuntimeError: cuDNN error: CUDNN_STATUS_EXEC", "UTION_FAILED"]) is not None
    assert wrap_width(["TypeError: nn.LSTM(input_size=64, hidden_size=128, bidirectional=", "true)"]) is not None


def test_a_piece_that_closes_a_bracket_continues_even_when_it_begins_like_the_line_before() -> None:
    """Records that begin alike ('Epoch 2/10 ...') are not pieces of one line; a piece that closes a bracket it did
    not open is one, whatever it begins with (corpus 080 wrapped at 60: a Julia type list's '32,1},' twice)."""
    a = "32,1}, ::Array{CuArrays.CUDNN.TensorDesc,1}, ::CuArray{Float"
    b = "32,1}, ::CuArrays.CUDNN.TensorDesc, ::CuArray{Float32,1}, ::"
    assert unwrap([(a, 0), (b, 1)], 60) == [(a + b, 0)]
    epoch = ["Epoch 2/10 - loss: 0.4123 - acc: 0.8812 - val_loss: 0.5123 - va", "Epoch 3/10 - loss: 0.3"]
    assert len(unwrap([(t, i) for i, t in enumerate(epoch)], 60)) == 2


def test_python_prompt_is_not_a_quote() -> None:
    got = present(b">>> import torch\n>>> torch.__version__\n'2.2.0'")
    assert got is None or b">>> import torch" in got.data


def test_notebook_file_every_error_output_with_cell_numbers(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "cudnn_doctor", "diagnose", "--format", "json", str(NOTEBOOK)],
        capture_output=True, text=True, check=False,
    )
    record = json.loads(out.stdout)
    f = record["findings"][0]
    assert f["id"] == HIDDEN
    assert f["source"].endswith("lstm-hidden.ipynb[cell 4]")
    assert f["user_frame"]["file"] == "In[3]" and f["user_frame"]["line"] == 3


def test_notebook_json_pasted_traceback_list_and_output() -> None:
    nb = json.loads(NOTEBOOK.read_text())
    err = nb["cells"][3]["outputs"][1]
    assert _top(NOTEBOOK.read_text())[0] == HIDDEN
    assert _top('"traceback": ' + json.dumps(err["traceback"]))[0] == HIDDEN
    assert _top(json.dumps(err))[0] == HIDDEN
    d = diagnose('"traceback": ' + json.dumps(err["traceback"]), catalog=CATALOG)
    assert d.findings[0].user_frame is not None and d.findings[0].user_frame["line"] == 3


def test_cut_message_matches_with_lower_confidence_and_says_what_it_could_not_read() -> None:
    whole = diagnose(TRACE, catalog=CATALOG).findings[0]
    cut = diagnose(TRACE[:-4], catalog=CATALOG).findings[0]
    assert cut.id == HIDDEN and cut.cut is not None
    assert cut.confidence < whole.confidence
    assert "got_hidden" in cut.cut["unread"] and cut.cut["ask_full_line"]
    record = build_report(diagnose(TRACE[:-4], catalog=CATALOG))
    assert record["findings"][0]["cut"]["ask_full_line"] is True
    assert whole.cut is None


def test_cut_title_followed_by_a_body() -> None:
    text = "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAI\n\nI get this when training my LSTM on a 3090, any idea?"
    d = diagnose(text, catalog=CATALOG)
    assert d.findings and "EXECUTION_FAILED" in d.findings[0].signature.signature and d.findings[0].cut


def test_a_cut_counts_from_what_tells_its_message_apart() -> None:
    """A message cut by the input's end counts from the words that only its message holds, even where they carry
    less than a whole reading needs (common words: 'can only be called'), and a cut last word of one or two
    letters is read as the start of the word expected there, not as another word."""
    for text, sig_id in (
        ("loss.backward()\nRuntimeError: cudnn RNN backward c", "pytorch/rnn-backward-in-eval-mode"),
        ("loss.backward()\nRuntimeError: backward_weight can only", "pytorch/rnn-backward-in-eval-mode"),
        ("out = lstm(x, h)\nRuntimeError: Input and hidden tensors are not at the same d", "pytorch/rnn-input-hidden-device-mismatch"),
        ("RuntimeError: input.size(-1) must be eq", "pytorch/rnn-input-size-mismatch"),
    ):
        d = diagnose(text, catalog=CATALOG)
        assert d.findings and d.findings[0].id == sig_id and d.findings[0].cut is not None, text
    for text in (
        "RuntimeError: derivative for _cud",  # _cudnn_rnn_backward or _cudnn_convolution_backward (a counter-example)
        "RuntimeError: 'lengths' argument",  # two words
        "RuntimeError: cudnn RNN backward c\nEpoch 3 done",  # a short word at a line's end, not the input's
        "RuntimeError: Input and hidden tens",  # hidden tensors on another device, or of another dtype
        "ImportError: cannot import name",  # nothing RNN, cuDNN or code-like: a generic prefix
        "AttributeError: 'NoneType' object has",
        "x = layer(y)\nValueError: The rank of",
        "onnxruntime.InferenceSession(path)\nFailed to create",
        # a one-letter cut word only right after the word before it, not after a value ('[C' of a Lua traceback)
        "Error in CuDNN: CUDNN_STATUS_NOT_SUPPORTED (cudnnConvolutionForward) stack traceback:\n\t[C",
    ):
        assert not [f.id for f in diagnose(text, catalog=CATALOG).findings if f.signature.scope == "rnn"], text


def test_a_quoted_message_is_read_whole_without_its_prefix_or_with_format_fields() -> None:
    """A message quoted in a sentence without the fixed words its regex wants first ('rnn: '), and the raising
    source line a cut traceback or a notebook shows, its values still format fields ('Expected {}, got {}'), are
    read as that message, marked cut (weigh.Weigher.whole; no example or corpus log holds these shapes)."""
    for text, sig in (
        ('After moving to GPU my GRU says "hx is not contiguous" and stops.', "pytorch/rnn-hx-not-contiguous"),
        ("I get 'hx is not contiguous' when calling the LSTM", "pytorch/rnn-hx-not-contiguous"),
        ("    raise RuntimeError(\n        'Expected hidden size {}, got {}'.format(expected_hidden_size, list(hx.size())))\n"
         "RuntimeError:", "pytorch/rnn-hidden-size-mismatch"),
        ("  if input.size(-1) != self.input_size:\n      raise RuntimeError(\n"
         "          'input.size(-1) must be equal to input_size. Expected {}, got {}'.format(\n", "pytorch/rnn-input-size-mismatch"),
    ):
        d = diagnose(text, catalog=CATALOG)
        assert d.findings and d.findings[0].id == sig and d.findings[0].cut, text


def test_a_message_s_first_clause_with_prose_after_it() -> None:
    """A message given from memory, its first clause whole and the rest left out ('... not at the same device
    after upgrading'), is read as that message, marked cut; not where what follows is more of a log (a name,
    a capitalised word) rather than prose, nor where the clause is read only in part."""
    for text in (
        "# LSTM crashes: RuntimeError: Input and hidden tensors are not at the same device after moving to GPU",
        "Input and hidden tensors are not at the same device, when I call model.cuda() first",
    ):
        d = diagnose(text, catalog=CATALOG)
        assert d.findings and d.findings[0].id == "pytorch/rnn-input-hidden-device-mismatch" and d.findings[0].cut, text
    for text in (
        "Input and hidden tensors are not at the same device: CUDA error",
        "Input and hidden tensors are not at the same device_id check",
        "Input and hidden tensors are not at the same place after moving to GPU",
    ):
        assert not [f.id for f in diagnose(text, catalog=CATALOG).findings if f.signature.scope == "rnn"], text


def test_too_short_a_cut_is_a_near_miss_listing_candidates() -> None:
    d = diagnose("model.fit(x)\nRuntimeError: cuDNN error: CUDNN_STATUS_", catalog=CATALOG)
    assert not d.findings
    d = diagnose("lstm forward\nCheck failed: status == CUDNN_STATUS_SUCC", catalog=CATALOG)
    assert all(f.cut is None or f.cut["read"] for f in d.findings)


def test_complete_last_lines_are_not_read_as_cut() -> None:
    for text in (
        "2020-04-01 10:00:00: I dso_loader.cc:44] Successfully opened dynamic library libcudnn.so.8",
        "Epoch 3: loss 0.12, using cuDNN 8.9.2 for the LSTM",
    ):
        assert not diagnose(text, catalog=CATALOG).findings, text


def test_rnn_evidence_in_longer_identifiers() -> None:
    ev = Matcher(CATALOG).evidence
    for text in ("model = myLSTMEncoder(32)", "tagger = BiLSTMTagger()", "x = encoder_lstm_out[0]", "h = self.gru_layer2(x)",
                 "y = tf.keras.layers.SimpleRNN(4)(x)", "fitting VAE_GRUDecoder_v2 on batch 3", "cell = enc_LstmCell(8)",
                 "cuDNN fails with RNNs and masked sequences", "stacking two LSTMs", "GRUs on the GPU",
                 "out, state = self.grucell_enc(x, state)", "from espnet.nets.pytorch_backend import rnnlm", "y = lstmnet2(x)"):
        assert ev.find(("@rnn",), text), text
    for text in ("denoise with RNNoise", "ungrudging", "GRUB_TIMEOUT=5", "Grupo de trabajo", "the scrnn loss", "HAS_RNNoise_FLAG", "MY_GRUB_Config", "the RNNsearch baseline",
                 "the lstmcellular automaton", "rnnoise_model.bin", "grubby"):
        assert ev.find(("@rnn",), text) is None, text
    log = "h = self.gru_layer2(x)\nRuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"
    assert diagnose(log, catalog=CATALOG).findings[0].signature.scope == "rnn"


def test_a_mark_is_found_from_its_first_byte_as_by_in() -> None:
    """present._has_at (a fence or a caret-M in a block's sample, looked for from their rare first byte) says
    what ``in`` says, marks overlapping, at either end, or cut short."""
    import itertools

    from cudnn_doctor.read.present import _has_at

    for n in range(7):
        for chars in itertools.product(b"`^Mx", repeat=n):
            data = bytes(chars)
            assert _has_at(data, b"```") == (b"```" in data) and _has_at(data, b"^M") == (b"^M" in data), data


def test_a_line_break_between_two_words_of_a_message_is_not_a_word_a_wrap_split() -> None:
    """Two words of a message on two lines ('only available' / 'for cuDNN') are not read as one word a hard
    wrap split, though the base knows the word they would make (MXNet prints 'availablefor' elsewhere)."""
    text = "[06:33:21] src/operator/rnn.cc:197: RNN on GPU is only available\nfor cuDNN at the moment."
    assert _top(text)[0] == "mxnet/rnn-gpu-requires-cudnn-build"


def test_a_cut_inside_a_mixed_case_identifier_a_message_requires_is_a_wrap() -> None:
    """One hard-wrapped line cut between a lower-case and an upper-case letter ('Cudnn|RNN'), which
    _identifier_cut declines ('encountered|CUDA' is two words): the matcher's vocabulary holds the mixed-case
    identifiers the signatures' messages require, so the cut is read as a wrap, and the error found, though
    no prefilter literal is 'CudnnRNN' alone any more; and the vocabulary keeps every prefilter literal."""
    m = Matcher(CATALOG)
    vocabulary = m.vocabulary()
    assert set(m.prefilter.literals) <= set(vocabulary)
    assert "cudnnrnn" in vocabulary and "cudnnrnn" not in m.prefilter.literals
    msg = (
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error: "
        "Input 'input_h' of 'CudnnRNN' Op has type float16 that does not match type float32 of argument 'input'."
    )
    cut = msg.index("CudnnRNN") + len("Cudnn")
    text = "\n".join(["Epoch 1/10", "model.fit(x, y, epochs=10)", msg[:cut], msg[cut:]]) + "\n"
    assert present(text.encode(), m.prefilter.literals) is None
    assert present(text.encode(), vocabulary) is not None
    # and the reader gives present() that vocabulary (made on first use)
    import cudnn_doctor.match.reading as reading_mod

    given: list[bool] = []
    real = reading_mod.present

    def spy(data: bytes, literals: object = (), paste: bool = True, lines: int | None = None, skim: object = None) -> object:
        given.append("cudnnrnn" in literals)  # type: ignore[operator]
        return real(data, literals, paste, lines, skim)  # type: ignore[arg-type]

    reading_mod.present = spy  # type: ignore[assignment]
    try:
        found = diagnose(text, catalog=CATALOG).findings
    finally:
        reading_mod.present = real
    assert given and all(given)
    assert any("CudnnRNN" in f.first.text for f in found)


def test_a_big_logs_records_of_equal_or_alternating_length_are_never_a_wrap() -> None:
    """Issue 29: pytest -v lines (all 80 columns) and logging lines between short ones were taken for a
    hard-wrapped paste in big logs: glued in pairs (wrong) and 50x slower. A wrap is a paste's presentation."""
    pytest_v = [f"tests/test_rnn.py::test_lstm_{i} PASSED".ljust(74) + f"[{i % 100:3d}%]" for i in range(4000)]
    alternating = [line for i in range(4000) for line in (f"2024-05-14 09:12:01,{i:03d} - trainer - INFO - step {i}: "
                                                          f"loss {i / 7:.5f}, tokens/s {i * 13}", "ok")]
    for rows in (pytest_v, alternating):
        data = "\n".join(rows).encode()
        assert len(data) > 256 << 10
        assert present(data, paste=False) is None
    # the same lines as a paste still read as one (the test that a paste's wrap is undone is above)
    assert present("\n".join(pytest_v[:3]).encode()) is None
    text = "\n".join([*pytest_v, "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]"]) + "\n"
    (f,) = diagnose(text, catalog=CATALOG).findings
    assert f.first.line == len(pytest_v) + 1


NOTEBOOK_VALUES = [
    "plain\n", "colour \x1b[33mWARN\x1b[0m here\n", 'a quote " a backslash \\ and \\n as text\n', "two\nlines\n",
    "no newline", "two newlines\n\n", "", "unicode \u00e9 \u2603 \U0001d11e \U0001f600\n", "\\\n", "tab\there\n",
]


def _notebook_block(values: list[str], extra: dict[int, tuple[str, str]]) -> tuple[bytes, bytes, tuple[int, ...]]:
    """A block of a notebook's JSON string lines (the lines in ``extra`` inserted at their index, each with
    the line it must become) and what presenting it must give: its text and each line's original line."""
    lines = [f"      {json.dumps(v)}," for v in values]
    lines[-1] = lines[-1].rstrip(",")
    for at, (line, _) in sorted(extra.items()):
        lines.insert(at, line)
    want: list[tuple[str, int]] = []
    it = iter(values)
    for i in range(len(lines)):
        if i in extra:
            want.append((extra[i][1], i))
            continue
        v = next(it)
        want += [(x, i) for x in (v[:-1] if v.endswith("\n") else v).split("\n")]
    want.append(("", len(lines)))
    return ("\n".join(lines) + "\n").encode(), "\n".join(t for t, _ in want).encode("utf-8", "surrogatepass"), tuple(o for _, o in want)


def test_a_notebooks_string_lines_decode_alike_in_bulk_and_line_by_line() -> None:
    """A block of lone JSON strings is decoded by one json.loads, any other block line by line: both give
    each string's lines (its last newline dropped) at the string's line, and keep a line that is not one valid
    string as it is (an unknown escape, two strings on a line)."""
    values = NOTEBOOK_VALUES * 3
    bad, two = '      "bad \\x escape",', '      "two", "strings",'
    for extra in ({}, {0: ('    "text": [', "")}, {5: (bad, bad)}, {7: (two, two)}, {3: ("      [],", "")}):
        data, text, origin = _notebook_block(values, extra)
        got = present(data, paste=False)
        assert got is not None and "notebook" in got.undone, extra
        assert (got.data, got.origin) == (text, origin), extra


def test_a_line_start_looked_for_in_the_whole_text_is_found_as_line_by_line() -> None:
    """present._AnyLine (a per-line pattern looked for in a block's whole text, on its first line and after
    each newline) finds and counts what matching each line finds."""
    import itertools
    import re

    from cudnn_doctor.read import present as p

    pieces = ["", " ", "\t", "   ", "> x", ">", "```", "```py ", "~~~", "- a", "* b", "1. c", "12) d", "-x", "  3 | code", "4: x", "7\tx", "9. x", "12  y", "text", "a > b"]
    cases = [(p._QUOTE_ANY, re.compile(r"^[ \t]{0,3}>")), (p._FENCE_ANY, p._FENCE.compiled), (p._BULLET_ANY, p._BULLET.compiled), (p._GUTTER_ANY, p._GUTTER)]
    for n in range(1, 4):
        for lines in itertools.product(pieces, repeat=n):
            text = "\n".join(lines)
            for anyline, each in cases:
                hits = sum(each.match(t) is not None for t in lines)
                assert anyline.found(text) == (hits > 0) and anyline.count(text) == hits, (lines, each.pattern)


def test_a_big_notebook_blocks_decoded_head_shows_what_else_is_undone() -> None:
    """In a big block (over 256 KiB: looked at by its head), a presentation is undone where its head shows
    it as the block is when its turn comes: HTML seen only once the notebook's strings are decoded is undone."""
    values = ["x = 1\n"] * 40_000
    values[10] = "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED &lt;here&gt;\n"
    data = ("\n".join(f"      {json.dumps(v)}," for v in values) + "\n").encode()
    assert len(data) > 256 << 10
    got = present(data, paste=False)
    assert got is not None and got.undone == ("notebook", "html")
    assert got.data.split(b"\n")[10] == b"RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED <here>"


def test_a_big_logs_east_asian_prose_is_left_as_it_is_a_pastes_is_spaced() -> None:
    """Full-width punctuation and East Asian prose glued to a message are what a person typed: undone in a
    paste, not in a big log's blocks (a training log in Chinese has them on every line: undoing them there cost
    140 CPU s/GiB), where a '^M' still is."""
    line = "2024-05-14 09:12:33 [信息] 第3轮：损失=0.1234，报错RuntimeError: cuDNN error^M\n"
    data = (line * 8000).encode()
    assert len(data) > 256 << 10
    big = present(data, paste=False)
    assert big is not None and big.undone == ("carets",)
    assert big.data.split(b"\n")[0] == line.rstrip("\n").removesuffix("^M").encode()
    paste = present(line.encode(), paste=True)
    assert paste is not None and paste.undone == ("carets", "characters")
    assert paste.data.decode().rstrip("\n") == "2024-05-14 09:12:33 [信息] 第 3 轮: 损失=0.1234, 报错\nRuntimeError: cuDNN error"


def test_a_big_logs_lines_that_look_like_a_persons_markup_are_a_programs() -> None:
    """Gradle's '> Task' lines, a YAML dump's '- ' items and a log viewer's line numbers in a big log are a
    program's lines, not a person's quotes, bullets or gutter (undone line by line there they cost 44-75 CPU
    s/GiB): a big block keeps them; the same lines in a paste are undone as before."""
    kinds = {
        "markdown": [f"> Task :module{i % 50}:compileJava UP-TO-DATE\n> Task :module{i % 50}:test\n  step {i}" for i in range(9000)],
        "bullets": [f"- epoch: {i}\n  - loss: 0.{i:04d}\n* saved ckpt_{i}.pt" for i in range(9000)],
        "gutter": [f"{i + 1:6d} | INFO step {i} loss 0.{i:04d}" for i in range(12000)],
    }
    for name, rows in kinds.items():
        data = "\n".join(rows).encode()
        assert len(data) > 256 << 10
        assert present(data, paste=False) is None, name
        pasted = present("\n".join(rows[:4]).encode())
        assert pasted is not None and name in pasted.undone, name


def test_typographic_characters_are_seen_as_the_pattern_sees_them() -> None:
    """The characters presentation is seen by its two-byte starts first (read/present.py): the same answer as its
    pattern over the whole sample, on progress bars ('█' is \\xe2\\x96\\x88), each character it undoes, '^M'."""
    import re

    from cudnn_doctor.read.present import PRESENTATIONS

    undos = [p.seen for p in PRESENTATIONS if p.name in ("characters", "carets")]
    assert len(undos) == 2

    def seen(sample: bytes, literals: tuple[str, ...]) -> bool:
        return any(s(sample, literals) for s in undos)

    pattern = re.compile(rb"\xc2\xa0|\xe2\x80[\x98\x99\x9c\x9d\xaf\x89\x8b]")
    bar = "Epoch 1:  13%|\u2588\u2588\u258c      | 136/1000 [00:02<01:16]\n".encode() * 50
    marks = ["\u00a0", "\u2018", "\u2019", "\u201c", "\u201d", "\u202f", "\u2009", "\u200b", "\u2013", "\u2026", "^M", "^"]
    samples = [bar, b"", b"plain text\n" * 10, b"\xe2\x80", b"\xc2", *(bar + f"x{m}y\n".encode() + bar for m in marks)]
    for sample in samples:
        assert seen(sample, ()) == (pattern.search(sample) is not None or b"^M" in sample), sample[-80:]
    assert sum(seen(s, ()) for s in samples) == 9


# a page copied off a web page (read/pages.py): the log with a module frame and a dunder frame
PAGE_TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/home/u/train.py", line 74, in <module>\n'
    "    out, (h, c) = model.encoder(x, (h0, c0))\n"
    '  File "/usr/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in __call__\n'
    "    return forward_call(*args, **kwargs)\n"
    '  File "/usr/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 812, in forward\n'
    "    self.check_forward_args(input, hx, batch_sizes)\n"
    "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]"
)


def test_a_rendered_issue_page_gets_its_traceback_back() -> None:
    """Indentation, '<module>' (dropped as a tag) and the dunders rendered bold come back; the finding is at
    the page's line of the message."""
    page = rendered(PAGE_TRACE)
    assert "in <module>" not in page and "in call\n" in page
    got = present(page.encode())
    assert got is not None and "rendered" in got.undone
    text = got.data.decode()
    assert PAGE_TRACE in text
    assert _top(page) == (HIDDEN, page.split("\n").index(PAGE_TRACE.split("\n")[-1]) + 1)


def test_a_rendered_dunder_is_restored_where_it_is_one() -> None:
    """A frame's 'init' and a path's 'init.py' are the dunders; a script's 'main' and Keras's layer method 'call'
    (in a Keras file, or 'LSTM.call()' in a message) stay, as does a frame already indented (a traceback as
    printed)."""
    page = (
        'File "/p/train.py", line 9, in main\nrun()\n'
        'File "/p/paddle/nn/layer/init.py", line 3, in init\nx = 1\n'
        'File "/p/keras/src/layers/rnn/lstm.py", line 9, in call\ny = 2\n'
        "ValueError: Exception encountered when calling LSTM.call(); MGUCell.init() missing 1 argument"
    )
    got = present(page.encode())
    assert got is not None
    assert got.data.decode().split("\n") == [
        '  File "/p/train.py", line 9, in main', "    run()",
        '  File "/p/paddle/nn/layer/__init__.py", line 3, in __init__', "    x = 1",
        '  File "/p/keras/src/layers/rnn/lstm.py", line 9, in call', "    y = 2",
        "ValueError: Exception encountered when calling LSTM.call(); MGUCell.__init__() missing 1 argument",
    ]
    assert present(PAGE_TRACE.encode()) is None


def test_a_collapsed_traceback_is_broken_into_its_lines() -> None:
    """A traceback on one line (its line breaks lost): its head, each frame, each source line, the exception
    line; every line reported at the one line it came from."""
    line = collapsed(PAGE_TRACE)
    got = present(line.encode())
    assert got is not None and got.undone == ("collapsed",)
    assert got.data.decode() == PAGE_TRACE and set(got.origin) == {0}
    assert _top("Here is my error:\n" + line) == (HIDDEN, 2)


def test_collapsed_log_records_and_other_stack_traces() -> None:
    """Log records (a timestamp, a glog prefix), a Java stack trace and TensorFlow's status location line each
    begin a line again."""
    tf = (
        "2020-09-02 08:11:05.402113: E tensorflow/stream_executor/dnn.cc:613] CUDNN_STATUS_EXECUTION_FAILED\n"
        "in tensorflow/stream_executor/cuda/cuda_dnn.cc(1986): 'cudnnRNNBackwardDataEx( cudnn.handle(), rnn_desc.handle())'\n"
        "2020-09-02 08:11:05.402411: W tensorflow/core/framework/op_kernel.cc:1767] OP_REQUIRES failed at cudnn_rnn_ops.cc:1920"
    )
    got = present(collapsed(tf).encode())
    assert got is not None and got.data.decode() == tf
    java = "java.lang.RuntimeException: CUDA error = 2: out of memory\n\tat a.B.c(B.java:42)\n\tat a.D.e(D.java:121)"
    got = present(collapsed(java).encode())
    assert got is not None and got.data.decode() == java
    ci = "[rank1]: " + collapsed(PAGE_TRACE.split("\n", 1)[1])  # a CI prefix before two frames, no head
    got = present(ci.encode())
    assert got is not None and got.data.decode() == "[rank1]: " + PAGE_TRACE.split("\n", 1)[1]


def test_a_line_that_names_one_frame_or_one_timestamp_stays() -> None:
    """One line start on a line is text (prose quoting a frame, a message with a date): not collapsed."""
    for text in (
        'The error is raised at File "/x/rnn.py", line 3, in forward and I do not know why, any idea what to do here?',
        "2024-05-01 10:00:00 INFO saved the checkpoint of the run started at 09:00 to /tmp/ckpt, all good so far today",
    ):
        assert present(text.encode()) is None


def _docker_records(lines: list[str]) -> bytes:
    return "".join(json.dumps({"log": x + "\n", "stream": "stderr", "time": "2024-05-14T09:00:00Z"}) + "\n" for x in lines).encode()


def test_a_big_json_file_logs_records_are_not_tried_as_a_notebooks_lines() -> None:
    """A big block of Docker's json-file records whose colour codes show the notebook's mark: its head's lines
    are all JSON records without a notebook output's keys, so the notebook's undo is not tried (it would try
    each line and leave each as it is: the same block); a block with a notebook's line among them, a record
    with an output's keys, or a paste (the json-log presentation decodes its records) is read as before."""
    from cudnn_doctor.read import present as p

    noise = [f"\x1b[32mINFO\x1b[0m step {i} loss=0.{i:04d}" for i in range(6000)]
    data = _docker_records(noise)
    assert len(data) > p.DETECT_WHOLE and p._NOTEBOOK_MARK.search(p._head(data))
    assert present(data, paste=False) is None
    lines = data.decode().split("\n")
    assert p._each_line(lines) is None  # what the undo tried gives: every line as it is
    notebook_line = b'      "\\u001b[31mRuntimeError\\u001b[0m: cuDNN error\\n",\n'
    for other in (notebook_line, b'{"output_type": "error", "traceback": ["x"]}\n'):
        got = present(other + data, paste=False)
        assert got is not None and got.undone == ("notebook",)
    pasted = present(_docker_records(TRACE.split("\n")))
    assert pasted is not None and pasted.undone[0] == "json-log"


def test_a_planted_error_in_a_big_json_file_log_is_found(tmp_path: Path) -> None:
    """bench/kinds.py's docker kind in small: the error's lines in records between ~1 MiB of coloured records."""
    noise = [f"\x1b[32mINFO\x1b[0m step {i} loss=0.{i:04d}" for i in range(12000)]
    log = tmp_path / "container-json.log"
    log.write_bytes(_docker_records(noise) + _docker_records(TRACE.split("\n")) + _docker_records(noise[:100]))
    d = diagnose(log.read_bytes().decode(), catalog=CATALOG)
    assert [f.id for f in d.findings][:1] == [HIDDEN]


# --- presentations of chat, editors, CI tools and East Asian prose (branch present20) ----------------------

RUNTIME_STATUS = "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"


def _undone(text: str) -> tuple[str, tuple[str, ...]]:
    got = present(text.encode())
    return (got.data.decode(), got.undone) if got is not None else (text, ())


def test_markdown_escapes_of_a_rich_text_editor_are_dropped() -> None:
    text, undone = _undone(TRACE.replace("_", "\\_").replace("<", "\\<").replace(">", "\\>").replace("[", "\\["))
    assert "escapes" in undone and text == TRACE
    # a Windows path's backslash before an underscore is the path's (no escape elsewhere: nothing undone)
    assert _undone('  File "C:\\_work\\train.py", line 3\n' + RUNTIME_STATUS)[1] == ()
    # nor in a line with a bare underscore: 'cudnn\\__init__.py' is a path's, not an escaped '__init__'
    path = '  File "C:\\torch\\backends\\cudnn\\__init__.py", line 3\nRuntimeError: cuDNN error: CUDNN\\_STATUS\\_BAD\\_PARAM'
    assert _undone(path)[0] == '  File "C:\\torch\\backends\\cudnn\\__init__.py", line 3\nRuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM'


def test_a_workflow_command_is_read_as_the_lines_it_encodes() -> None:
    encoded = TRACE.replace("%", "%25").replace("\n", "%0A")
    text = f"Run python train.py\n::error file=train.py,line=42::{encoded}\n"
    assert _top(text) == (HIDDEN, 2)
    assert _undone(text)[0] == f"Run python train.py\n{TRACE}\n"
    # '::' inside a line (a C++ name, a Python slice) is no command
    assert _undone("at::native::_cudnn_rnn failed\nx[::2]")[1] == ()


def test_an_exception_panel_is_joined_into_its_exception_line() -> None:
    frames = TRACE.split("\n")[1:-1]
    vscode = "\n".join(["Exception has occurred: RuntimeError", "Expected hidden[0] size (2, 4, 64), got [1, 4, 64]", *frames])
    assert _top(vscode)[0] == HIDDEN
    assert _undone(vscode)[0] == TRACE  # the frames under the panel behind a traceback's head, the message last
    # an exception raised without a message, followed by a frame or a traceback's line, stays as it is
    bare = "RuntimeError\n  File \"a.py\", line 1, in <module>\nRuntimeError\nDuring handling of the above exception"
    assert _undone(bare)[1] == ()


def test_east_asian_prose_and_full_width_forms() -> None:
    glued = "训练时报错RuntimeError：cuDNN error：CUDNN_STATUS_EXECUTION_FAILED，求解决"
    assert _undone(glued)[0] == "训练时报错\n" + RUNTIME_STATUS + ", 求解决"  # the prose a line apart from the message
    # a colon before a digit (a time, a line number) and a comma before a closing bracket take no space; a
    # colon before a word takes one
    assert _undone("rnn-inl.h：674：Check failed（3 vs．4）[11：02：14] shape（768，）")[0] == "rnn-inl.h:674: Check failed(3 vs.4)[11:02:14] shape(768,)"
    # a device's colon takes none ('cuda:0'), nor a C++ scope's
    assert _undone("found input tensor at cuda：0，hidden at aten：：lstm")[0] == "found input tensor at cuda:0, hidden at aten::lstm"
    # an ideographic space is two columns of indentation
    assert _undone("\u3000File \"a.py\", line 3, in <module>")[0] == '  File "a.py", line 3, in <module>'


def test_a_chat_code_span_on_every_line_and_a_glued_code_block_are_undone() -> None:
    spans = "this is what I get:\n" + "\n".join(f"`{x}`" for x in TRACE.split("\n"))
    assert _undone(spans) == ("this is what I get:\n" + TRACE, ("chat",))
    assert _top(spans)[0] == HIDDEN
    # a code block whose backticks are glued to its first and last lines, quoted by a reply: each piece keeps
    # the quote marks
    block = "> any idea?\n" + "\n".join("> " + x for x in ("```" + TRACE + "```").split("\n"))
    assert _undone(block)[0] == "any idea?\n\n" + TRACE + "\n"
    # the newlines lost too: the code block begins a line, the collapsed traceback is broken where its lines begin
    assert _top("anyone seen this? ```" + " ".join(TRACE.split()) + "```")[0] == HIDDEN
    # one span in a sentence, or a lone line in backticks, stays as it is
    assert _undone("set `torch.backends.cudnn.enabled = False` and\n`retry`")[1] == ()


def test_a_powershell_error_record_of_a_native_command_is_undone() -> None:
    head, rest = TRACE.split("\n", 1)
    record = [
        "python : " + head,
        "At line:1 char:1",
        "+ python train.py",
        "+ ~~~~~~~~~~~~~~~",
        "    + CategoryInfo          : NotSpecified: (Traceback (most recent call last)::String) [], RemoteException",
        "    + FullyQualifiedErrorId : NativeCommandError",
        " ",
    ]
    text = "\n".join([*record, rest])
    assert _undone(text) == (TRACE, ("powershell",))
    assert _top(text) == (HIDDEN, 12)  # the exception line, where it is in the input


# TensorFlow 2.x's op_kernel.cc: 'No OpKernel was registered to support Op ', the op, ' used by ', its node, ' with
# these attrs: [...]', then the devices and kernels on their own lines (a CPU-only package's CudnnRNN)
NO_KERNEL = (
    "Traceback (most recent call last):\n"
    '  File "/home/u/.local/lib/python3.8/site-packages/tensorflow/python/client/session.py", line 1375, in _do_call\n'
    "    return fn(*args)\n"
    "tensorflow.python.framework.errors_impl.InvalidArgumentError: No OpKernel was registered to support Op 'CudnnRNN' "
    'used by {{node encoder/lstm/CudnnRNN}} with these attrs: [seed=0, dropout=0, T=DT_FLOAT, input_mode="linear_input", '
    'direction="unidirectional", rnn_mode="lstm", is_training=true, seed2=0]\n'
    "Registered devices: [CPU, XLA_CPU]\n"
    "Registered kernels:\n"
    "  <no registered kernels>\n"
)


def _padded_wrap(text: str, width: int, pad: int) -> str:
    """Each line wrapped at ``width`` columns, each piece padded with ``pad`` spaces (to a wider window's width) and
    the pieces joined again on one line: a rectangular copy whose line breaks were lost."""
    return "\n".join((" " * pad).join(x[i : i + width] for i in range(0, len(x), width)) if x else x for x in text.split("\n"))


def test_a_terminal_s_wrap_re_joined_with_its_padding_is_undone() -> None:
    want = _top(NO_KERNEL)
    assert want[0] == "tensorflow/cause-cpu-only-tensorflow-package"
    for width, pad in ((80, 55), (100, 20), (64, 40)):
        wrapped = _padded_wrap(NO_KERNEL, width, pad)
        assert _top(wrapped) == want, (width, pad)
        assert _undone(wrapped) == (NO_KERNEL, ("padded-wrap",)), (width, pad)  # the spaces the wrap fell on kept


def test_the_padding_of_a_table_s_columns_stays() -> None:
    smi = (
        "+-----------------------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
        "|-----------------------------------------+------------------------+----------------------+\n"
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
        "|=========================================+========================+======================|\n"
        "|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                    0 |\n"
        "| N/A   31C    P0             61W /  400W |       4MiB /  81920MiB |      0%      Default |\n"
        "|   1  NVIDIA A100-SXM4-80GB          On  |   00000000:0F:00.0 Off |                    0 |\n"
        "| N/A   30C    P0             60W /  400W |       4MiB /  81920MiB |      0%      Default |\n"
        "+-----------------------------------------+------------------------+----------------------+\n"
        "| Processes:                                                                              |\n"
        "|  No running processes found                                                             |\n"
        "+-----------------------------------------------------------------------------------------+\n"
    )
    pip = (
        "Package                                  Version\n"
        "---------------------------------------- ------------\n"
        "nvidia-cudnn-cu12                        9.1.0.70\n"
        "nvidia-cuda-runtime-cu12                 12.4.127\n"
        "tensorflow                               2.16.1\n"
        "tensorflow-io-gcs-filesystem             0.37.0\n"
        "torch                                    2.4.0\n"
        "typing_extensions                        4.12.2\n"
    )
    for table in (smi, pip, smi + "\n" + NO_KERNEL, pip + "\n" + NO_KERNEL):
        assert "padded-wrap" not in _undone(table)[1], table
    assert _top(smi) == _top(pip) == (None, None)
    assert _top(pip + "\n" + NO_KERNEL)[0] == _top(NO_KERNEL)[0]


def test_an_error_tracker_event_has_its_frames_put_back_before_its_exception_line() -> None:
    lines = TRACE.split("\n")
    sentry = "\n".join([lines[-1], *lines[3:5], *lines[1:3]])  # the title, then the frames most recent first
    assert _undone(sentry) == (TRACE, ("event",))
    assert _top(sentry)[0] == HIDDEN
    # a message that begins a traceback of its own (MXNet's), or C++ frames that name no function: not an event
    mxnet = 'mxnet.base.MXNetError: Traceback (most recent call last):\n  File "../src/operator/rnn.cc", line 163, in f'
    assert _undone(mxnet)[1] == ()
    assert _undone('RuntimeError: x\n  File "../src/operator/rnn.cc", line 163')[1] == ()


def test_east_asian_prose_glued_to_a_traceback_is_a_line_apart() -> None:
    glued = TRACE.replace("Traceback", "运行报错：Traceback", 1)
    assert _undone(glued)[0] == "运行报错\n" + TRACE
    assert _top(glued)[0] == HIDDEN


def test_an_issue_title_message_ends_the_traceback_its_body_cut() -> None:
    frames = TRACE.rsplit("\n", 1)[0]
    message = TRACE.rsplit("\n", 1)[1]
    titled = "# " + message + "\n\nI get this when training:\n\n" + frames + "\n\n"
    assert _undone(titled) == ("\n".join(["# " + message, "", "I get this when training:", "", frames, message, "", ""]), ("titled",))
    assert _top(titled) == (HIDDEN, 1)  # at the title's line
    # a title line apart from its body by a blank line, the poster's words before the message: the message alone
    assert _undone("i got " + message + ", any idea?\n\n" + frames)[0].endswith(frames + "\n" + message + ", any idea?")
    # the status a flatten_parameters frame raised: the cause read from the pair
    flatten = (
        "# RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n\nTraceback (most recent call last):\n"
        '  File "train.py", line 12, in <module>\n    model.cuda()\n'
        '  File "/usr/lib/python3.8/site-packages/torch/nn/modules/rnn.py", line 167, in flatten_parameters\n'
        "    self.batch_first, bool(self.bidirectional))\n"
    )
    assert _top(flatten)[0] == "pytorch/cudnn-gpu-arch-build-mismatch"
    # a traceback with its message, a title without one or not apart from its body, text after the frames: as it is
    assert _undone("# " + message + "\n\n" + TRACE)[1] == ()
    assert _undone("# training crashes\n\n" + frames)[1] == ()
    assert _undone(message + "\n" + frames)[1] == ()
    assert _undone("# " + message + "\n\n" + frames + "\nany idea?")[1] == ()


_ATTRIBUTED = "On Tue, May 14, 2024 at 9:00 AM Alice <alice@example.org> wrote:\n"


def test_a_mail_clients_folds_below_its_attribution_line_are_read_as_one_line() -> None:
    """A reply quotes the log re-flowed at 72 columns: each long line folded at its last space that fits, a path
    longer than the width left whole (so a fold before it leaves a short line, and a piece may begin with a
    capital). The folds are joined with the space they took; a traceback's own lines stay apart."""
    quoted = (
        "> 2019-08-01 11:11:11.111111: E\n"
        "> tensorflow/stream_executor/cuda/cuda_dnn.cc:1440] failed to set stream\n"
        "> for cudnn handle: CUDNN_STATUS_MAPPING_ERROR\n"
        ">   File\n"
        '> "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line\n'
        "> 1103, in forward\n"
        ">     if hx is not None and hx.dim() != 3:"
    )
    got = present((_ATTRIBUTED + quoted).encode())
    assert got is not None
    lines = got.data.decode().split("\n")
    assert "2019-08-01 11:11:11.111111: E tensorflow/stream_executor/cuda/cuda_dnn.cc:1440] failed to set stream for cudnn handle: CUDNN_STATUS_MAPPING_ERROR" in lines
    assert '  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 1103, in forward' in lines
    assert "    if hx is not None and hx.dim() != 3:" in lines
    assert lines[0] == _ATTRIBUTED.strip()  # the attribution line is not a piece of the quote


def test_lines_below_an_attribution_line_that_were_not_folded_stay_apart() -> None:
    """Without the attribution line a short line is never a fold; with it, a line is one only where the next
    line's first word would not have fit: a reply's short lines, an exception's qualified name heading its line
    and an indented line are lines of their own."""
    body = (
        "> Epoch 3/10\n"
        "> 1875/1875 [==============================] - 5s 3ms/step - loss: 0.2134\n"
        ">     outputs = sess.run(None, feeds)\n"
        "> onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL\n"
        ">     more = call(x)"
    )
    for text in (body, _ATTRIBUTED + body):
        got = present(text.encode())
        assert got is not None
        assert [t for t in got.data.decode().split("\n") if t.strip()][-5:] == [x[2:] for x in body.split("\n")]
    # a reply that was never re-flowed: its longest line is not a fold of the line after it
    reply = "> I get this when I train my model:\n> RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n> only with the conv net, the LSTM one works fine."
    got = present((_ATTRIBUTED + reply).encode())
    assert got is not None and "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED" in got.data.decode().split("\n")

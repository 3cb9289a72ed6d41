"""A traceback or a C++ error's log line that says where its error was raised, its message cut at the input's
end (a paste whose last line was truncated): where what is left of the message begins the template of a
signature raised there, it is a finding of that signature marked cut (near misses where it begins several);
where it begins none, nothing. A glog/dmlc prefix (``[15:45:06] src/operator/rnn.cu:24:``) names the file a
C++ error was raised in: it serves as the raising frame of the signatures that declare it (``raised_at``),
from two words of the message on; an info or warning line raises nothing."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()
SITE = "/opt/conda/lib/python3.8/site-packages/torch/nn/modules"
CHECK_INPUT = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 40, in <module>\n'
    "    out, h = model(x, h0)\n"
    f'  File "{SITE}/rnn.py", line 205, in check_input\n'
    "    raise RuntimeError(\n"
    "RuntimeError: {msg}"
)
RANK = "pytorch/rnn-input-rank-mismatch"
GPU_BUILD = "mxnet/rnn-gpu-requires-cudnn-build"


def _found(text: str) -> tuple[list[tuple[str, bool]], set[str]]:
    d = diagnose(text, catalog=CATALOG)
    return [(f.id, f.cut is not None) for f in d.findings if f.signature.scope == "rnn"], {n.id for n in d.near_misses}


def test_a_traceback_whose_message_is_cut_is_read_from_its_raising_frame() -> None:
    for msg in ("input must have 3 dim", "input must have 3 dimensions, got"):
        found, _near = _found(CHECK_INPUT.format(msg=msg))
        assert found[:1] == [(RANK, True)], (msg, found)


def test_a_cut_message_that_begins_several_raised_there_gives_near_misses() -> None:
    found, near = _found(CHECK_INPUT.format(msg="input must"))
    assert not found and RANK in near


def test_a_message_that_begins_no_template_raised_there_is_not_read_from_the_frame() -> None:
    for text in (
        CHECK_INPUT.format(msg="CUDA out of memory. Tried to allocate"),
        CHECK_INPUT.format(msg="input must have 3 dim") + "\nAny idea?",  # not where the input ends
    ):
        assert not _found(text)[0], text


def test_a_cpp_log_line_cut_at_the_input_end_is_read_from_the_file_it_names() -> None:
    for text in (
        "mxnet.base.MXNetError: [15:45:06] src/operator/rnn.cu:24: RNN is",
        "mxnet.base.MXNetError: [15:45:06] D:/Program Files (x86)/Jenkins/workspace/mxnet/src/operator/rnn.cu:24: RNN is only avail",
        "Traceback (most recent call last):\n  File \"lm.py\", line 77, in <module>\n    output, hidden = model(data, hidden)\n"
        "mxnet.base.MXNetError: [09:41:07] src/operator/./rnn-inl.h:508: RNN on GPU is only",
    ):
        found, _near = _found(text)
        assert found[:1] == [(GPU_BUILD, True)], (text, found)


def test_what_a_cpp_log_line_does_not_raise_is_not_read_from_it() -> None:
    for text in (
        "[15:45:06] src/operator/rnn.cu:24: RNN",  # one word: the file raises more than its known messages
        "[15:45:06] src/operator/rnn.cu:24: Check failed: ",  # a generic prefix
        "[15:45:06] src/operator/rnn.cu:24: RNN is\nthen it stopped",  # not the input's end
        "[15:45:06] src/operator/rnn.cc:36: RNN on GPU is",  # rnn.cc raises another message
        "W0101 12:00:00.123 1234 src/operator/rnn.cu:24] RNN is only",  # a warning line
        "I looked at src/operator/rnn.cu:24: RNN is",  # prose naming a place
    ):
        assert (GPU_BUILD, True) not in _found(text)[0], text

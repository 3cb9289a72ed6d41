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
    # ('input must' tells the rank error: the dtype error's 'input must have the type' is check_input's ValueError)
    found, near = _found(CHECK_INPUT.format(msg="input"))
    assert not found and {RANK, "pytorch/rnn-input-size-mismatch"} <= near
    found, near = _found(CHECK_INPUT.format(msg="input must").replace("RuntimeError", "ValueError"))
    assert found[:1] == [("pytorch/rnn-input-weight-dtype-mismatch", True)] and not near & {RANK, "pytorch/rnn-input-size-mismatch"}


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


TF_CHECK = "tensorflow/cudnn-rnn-internal-check-failed"
TF_FATAL = "2022-05-10 08:00:01.000101: F {path}:1045] Check failed: {msg}"


def test_a_tensorflow_log_line_cut_at_the_input_end_is_read_from_the_stream_executor_file() -> None:
    # cuda_dnn.cc's CHECK_CUDNN_OK on an RNN descriptor, in each of the paths StreamExecutor has had
    for path in ("tensorflow/stream_executor/cuda/cuda_dnn.cc", "tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc",
                 "external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc"):
        text = TF_FATAL.format(path=path, msg="cudnnCreateRNNDescriptor(&result) == CUDNN_STAT")
        assert _found(text)[0][:1] == [(TF_CHECK, True)], text


def test_what_a_tensorflow_file_raises_besides_a_known_message_is_not_read_from_it() -> None:
    path = "tensorflow/stream_executor/cuda/cuda_dnn.cc"
    for text in (
        TF_FATAL.format(path=path, msg="cudnnSetConvolutionNdDescriptor(handle, 2, pad, stride) == CUDNN_STAT"),  # a convolution's
        TF_FATAL.format(path=path, msg=""),  # a generic prefix alone
        TF_FATAL.format(path=path, msg="cudnnCreateRNNDescriptor(&result) == CUDNN_STAT").replace(": F ", ": W "),  # a warning
        TF_FATAL.format(path=path, msg="cudnnCreateRNNDescriptor(&result) == CUDNN_STAT") + "\nthen it hung",  # not the end
    ):
        assert (TF_CHECK, True) not in _found(text)[0], text

"""The traceback as evidence, read from its frames (tolerant.Tolerant.raised): a traceback that stops at a frame
whose shown source line calls a function of the same file where errors are raised -- its message line empty,
or the input cut there, even inside the next frame's header -- is read as that function's frame. One such
function's signatures are the finding; several are a differential (near misses naming them, asking for the
message). Frames of generic code never tell a signature. The tracebacks are built from the source lines of
torch/nn/modules/rnn.py as PyTorch 1.x, 2.x and IPython show them."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()
HIDDEN = "pytorch/rnn-hidden-size-mismatch"
DTYPE = "pytorch/rnn-input-weight-dtype-mismatch"
CHECK_INPUT = {"pytorch/rnn-input-rank-mismatch", "pytorch/rnn-input-size-mismatch", DTYPE}
RAISED_AS_RUNTIME_ERROR = CHECK_INPUT - {DTYPE}  # check_input raises the dtype error as ValueError
CHECK_FORWARD_ARGS = {"pytorch/rnn-input-rank-mismatch", "pytorch/rnn-input-size-mismatch", HIDDEN}
SITE = "/usr/lib/python3/site-packages/torch/nn/modules"
WIN = "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python38\\lib\\site-packages\\torch\\nn\\modules"

# Python's shape: File "...", line N, in f
TOP = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 52, in <module>\n'
    "    output, hidden = model(inputs, hidden)\n"
    f'  File "{SITE}/module.py", line 1532, in _wrapped_call_impl\n'
    "    return self._call_impl(*args, **kwargs)\n"
    f'  File "{SITE}/module.py", line 1541, in _call_impl\n'
    "    return forward_call(*args, **kwargs)\n"
)
FORWARD = f'  File "{SITE}/rnn.py", line 1123, in forward\n    self.check_forward_args(input, hx, batch_sizes)\n'
ARGS = f'  File "{SITE}/rnn.py", line {{n}}, in check_forward_args\n    {{call}}\n'
# the calls check_forward_args shows, as torch 1.x (RNNBase, LSTM) and 2.x (black-formatted: a statement over lines) wrote them
HIDDEN_CALLS = (
    "self.check_hidden_size(hidden, expected_hidden_size)",
    "self.check_hidden_size(hx, expected_hidden_size)",
    "self.check_hidden_size(hidden[0], expected_hidden_size,",
    "self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),",
    "self.check_hidden_size(",
)
INPUT_CALL = "self.check_input(input, batch_sizes)"
# Python 3.13 shows a statement over several lines whole, with carets
STATEMENT = (
    "    ~~~~~~~~~~~~~~~~~~~~~~^\n"
    "        hidden[0],\n"
    "        ^^^^^^^^^^\n"
    "        self.get_expected_hidden_size(input, batch_sizes),\n"
    "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    "        \"Expected hidden[0] size {}, got {}\",\n"
    "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    "    )\n"
    "    ^\n"
)
# IPython's: numbered source lines, the frame's marked by an arrow (a notebook's number a link)
NOTEBOOK = (
    "---------------------------------------------------------------------------\n"
    "RuntimeError                              Traceback (most recent call last)\n"
    "Cell In[12], line 5\n"
    "      3 c0 = torch.zeros(1, 16, 128, device=device)\n"
    "----> 5 y, (hn, cn) = encoder.lstm(x, (h0, c0))\n\n"
    "File /opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py:1736, in Module._wrapped_call_impl(self, *args, **kwargs)\n"
    "   1734     return self._compiled_call_impl(*args, **kwargs)  # type: ignore[misc]\n"
    "   1735 else:\n"
    "-> 1736     return self._call_impl(*args, **kwargs)\n\n"
    "File /opt/conda/lib/python3.11/site-packages/torch/nn/modules/rnn.py:1120, in LSTM.forward(self, input, hx)\n"
    "   1117         hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))\n"
    "   1118     # Each batch of the hidden state should match the input sequence that\n"
    "   1119     # the user believes he/she is passing in.\n"
    "-> 1120     self.check_forward_args(input, hx, batch_sizes)\n"
    "   1121     hx = self.permute_hidden(hx, sorted_indices)\n\n"
    "File /opt/conda/lib/python3.11/site-packages/torch/nn/modules/rnn.py:1002, in LSTM.check_forward_args(self, input, hidden, batch_sizes)\n"
    "    996 def check_forward_args(self,  # type: ignore[override]\n"
    "    997                        input: Tensor,\n"
    "    998                        hidden: Tuple[Tensor, Tensor],\n"
    "    999                        batch_sizes: Optional[Tensor],\n"
    "   1000                        ):\n"
    "   1001     self.check_input(input, batch_sizes)\n"
    "-> 1002     {call}\n\n"
)
OLD_NOTEBOOK = (
    "<ipython-input-5-2f1c3a> in forward(self, x)\n"
    "---> 12         out, _ = self.lstm(x, self.hidden)\n\n"
    "~/anaconda3/lib/python3.7/site-packages/torch/nn/modules/rnn.py in check_forward_args(self, input, hidden, batch_sizes)\n"
    "    521     def check_forward_args(self, input, hidden, batch_sizes):\n"
    "    522         self.check_input(input, batch_sizes)\n"
    "    523         expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)\n"
    "--> 525         {call}\n\n"
)
LINKED = (
    f"File {WIN}\\rnn.py:241, in RNNBase.check_forward_args(self, input, hidden, batch_sizes)\n"
    "    [240](file:///c%3A/Users/me/site-packages/torch/nn/modules/rnn.py?line=239) expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)\n"
    "--> [241](file:///c%3A/Users/me/site-packages/torch/nn/modules/rnn.py?line=240)     {call}\n\n"
)
# the next frame's header, cut partway by the input's end
HEADER_CUTS = (
    '  File "/usr/lib/python3/site-packages/tor',
    f'  File "{SITE}/rnn.py", line 2',
    f'  File "{SITE}/rnn.py", line 291, in check_forw',
    f'  File "{WIN}\\rnn.py", line 291,',
    "File ~/miniconda3/lib/python3.10/site-packages/torch/nn/modules/rnn.py:23",
)


def _found(text: str) -> tuple[list[str], set[str], dict[str, str]]:
    d = diagnose(text, catalog=CATALOG)
    rnn = [f.id for f in d.findings if f.signature.scope == "rnn"]
    return rnn, {n.id for n in d.near_misses}, {n.id: n.reason for n in d.near_misses}


def _empty_message(frames: str) -> list[str]:
    """The traceback ending in each way a message line without text is printed."""
    return [frames + tail for tail in ("RuntimeError:", "RuntimeError: ", "RuntimeError:\n", "RuntimeError\n")]


def _hidden_tracebacks() -> list[str]:
    out = []
    for i, call in enumerate(HIDDEN_CALLS):
        out += _empty_message(TOP + FORWARD + ARGS.format(n=290 + i, call=call))
    out += _empty_message(TOP + FORWARD + ARGS.format(n=1102, call="self.check_hidden_size(") + STATEMENT)
    out += _empty_message(TOP + FORWARD + ARGS.format(n=1038, call="self.check_hidden_size(") + "    ^^^^^^^^^^^^^^^^^^^^^^^\n")
    for shape in (NOTEBOOK, OLD_NOTEBOOK, LINKED):
        out += [shape.format(call=call) + "RuntimeError: " for call in ("self.check_hidden_size(hidden, expected_hidden_size)", "self.check_hidden_size(hx, expected_hidden_size)")]
    return out


@pytest.mark.parametrize("text", _hidden_tracebacks())
def test_an_innermost_frame_that_shows_a_call_to_a_raising_check_is_read_as_that_check(text: str) -> None:
    found, _near, _why = _found(text)
    assert found == [HIDDEN], text
    d = diagnose(text, catalog=CATALOG)
    assert d.findings[0].cut is not None  # what it could not read: the message is asked for


def test_read_from_the_call_it_is_as_confident_as_from_the_check_s_own_frame() -> None:
    frames = TOP + FORWARD + ARGS.format(n=291, call="self.check_hidden_size(hx, expected_hidden_size)")
    own = frames + f'  File "{SITE}/rnn.py", line 276, in check_hidden_size\n    raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))\n'
    by_call, by_frame = (diagnose(t + "RuntimeError:\n", catalog=CATALOG).findings[0] for t in (frames, own))
    assert by_call.id == by_frame.id == HIDDEN and by_call.confidence == by_frame.confidence
    whole = diagnose(frames + "RuntimeError: Expected hidden size (1, 8, 64), got [2, 8, 64]\n", catalog=CATALOG).findings[0]
    assert whole.id == HIDDEN and by_call.confidence < whole.confidence


def test_a_call_to_a_check_several_messages_are_raised_in_is_a_differential() -> None:
    texts = [
        *_empty_message(TOP + FORWARD + ARGS.format(n=288, call=INPUT_CALL)),
        NOTEBOOK.format(call=INPUT_CALL) + "RuntimeError: ",
        OLD_NOTEBOOK.format(call=INPUT_CALL) + "RuntimeError: ",
        LINKED.format(call=INPUT_CALL) + "RuntimeError: ",
    ]
    for text in texts:
        found, near, why = _found(text)
        assert not found and near & CHECK_INPUT == RAISED_AS_RUNTIME_ERROR, text
        assert all("could be any of" in why[i] and "paste the traceback's last line" in why[i] for i in RAISED_AS_RUNTIME_ERROR), text


def test_the_exception_a_message_line_names_tells_the_check_s_messages_apart() -> None:
    # RNNBase.check_input raises the dtype error as ValueError, the rank and size errors as RuntimeError
    # (torch 0.4-2.13): an empty ValueError line under it is the dtype error, whatever else follows it
    for tail in ("ValueError:", "ValueError: \n", "ValueError:\n2024-03-11 10:12:02 INFO worker 0 exited with code 1\n"):
        for frames in (
            TOP + FORWARD + ARGS.format(n=288, call=INPUT_CALL),
            TOP + FORWARD + f'  File "{SITE}/rnn.py", line 319, in check_input\n    raise ValueError(\n',
        ):
            found, _near, _why = _found(frames + tail)
            assert found == [DTYPE], frames + tail
    own = TOP + FORWARD + f'  File "{SITE}/rnn.py", line 325, in check_input\n    raise RuntimeError(\n'
    found, near, _why = _found(own + "RuntimeError:\n")
    assert not found and near & CHECK_INPUT == RAISED_AS_RUNTIME_ERROR
    found, near, _why = _found(own + "TypeError:\n")  # raised there as neither
    assert not found and not near & CHECK_INPUT


def test_the_f_string_a_frame_shows_is_read_as_its_message() -> None:
    # torch 2.1-2.4's check_input raises the dtype error from one line; a traceback cut after it shows it all
    frames = TOP + FORWARD + (
        f'  File "{SITE}/rnn.py", line 233, in check_input\n'
        "    raise ValueError(f'input must have the type {self._flat_weights[0].dtype}, got type {input.dtype}')\n"
    )
    for text in (frames, frames + "ValueError:\n"):
        assert _found(text)[0] == [DTYPE], text


def test_a_message_cut_after_a_call_to_a_raising_check_is_read_from_its_templates() -> None:
    frames = TOP + FORWARD + ARGS.format(n=291, call="self.check_hidden_size(hx, expected_hidden_size)")
    assert _found(frames + "RuntimeError: Expected hidden size (2, 1")[0] == [HIDDEN]
    assert _found(frames + "RuntimeError: CUDA error: an illegal memory acc")[0] != [HIDDEN]


@pytest.mark.parametrize("cut", HEADER_CUTS)
def test_a_traceback_cut_in_the_next_frame_s_header_is_read_from_the_call_before_it(cut: str) -> None:
    found, near, why = _found(TOP + FORWARD + cut)
    assert not found and near >= CHECK_FORWARD_ARGS, cut
    assert all("could be any of" in why[i] for i in CHECK_FORWARD_ARGS)
    found, _near, _why = _found(TOP + FORWARD + ARGS.format(n=291, call="self.check_hidden_size(hx, expected_hidden_size)") + cut.replace("check_forw", "check_hidd"))
    assert found == [HIDDEN], cut


def test_a_header_of_another_function_is_not_a_cut_of_the_call() -> None:
    found, near, _why = _found(TOP + FORWARD + f'  File "{SITE}/rnn.py", line 291, in permute_hid')
    assert not found and not near & CHECK_FORWARD_ARGS
    found, near, _why = _found(TOP + FORWARD + f'  File "{SITE}/rnn.py", line 291, in permute_hidden\n    return apply_permutation(hx, permutation)\n')
    assert not found and not near & CHECK_FORWARD_ARGS


# a call into native code: torch 2.13's pack_padded_sequence, whose _VF call raises every packing check of
# aten/src/ATen/native/PackedSequence.cpp's _pack_padded_sequence (as the CPU build prints it)
PACK = (
    "Traceback (most recent call last):\n"
    '  File "/tmp/pk.py", line 6, in <module>\n'
    "    pack_padded_sequence(x, torch.tensor([2, 5, 3]))\n"
    '  File "/usr/lib/python3/site-packages/torch/nn/utils/rnn.py", line 323, in pack_padded_sequence\n'
    "    data, batch_sizes = _VF._pack_padded_sequence(input, lengths, batch_first)\n"
    "                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
)
PACKING = {"pytorch/pack-padded-lengths-on-cuda", "pytorch/pack-padded-lengths-unsorted", "pytorch/pack-padded-invalid-lengths"}


def test_a_call_into_native_code_is_read_as_the_native_function_it_raises_in() -> None:
    for text in _empty_message(PACK):
        found, near, _why = _found(text)
        assert not found and near >= PACKING, text
    for cut, sig in (
        ("RuntimeError: `lengths` array must be sorted in decr", "pytorch/pack-padded-lengths-unsorted"),
        ("RuntimeError: 'lengths' argument should be a 1D CP", "pytorch/pack-padded-lengths-on-cuda"),
        ("RuntimeError: Length of all samples has to be gr", "pytorch/pack-padded-invalid-lengths"),
    ):
        assert _found(PACK + cut)[0] == [sig], cut


NEGATIVES = (
    # generic code: module.py's __call__, TensorFlow's session.py, a native op
    *_empty_message(TOP),
    TOP + '  File "/usr/lib/python3/site-packages/tor',
    *_empty_message(
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/site-packages/tensorflow/python/client/session.py", line 1365, in _do_call\n'
        "    return fn(*args)\n"
    ),
    *_empty_message(TOP + f'  File "{SITE}/rnn.py", line 1124, in forward\n    result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,\n'),
    # the user's own function of the same name, in the user's file
    *_empty_message(TOP + '  File "/home/me/model.py", line 41, in forward\n    self.check_hidden_size(hx, expected_hidden_size)\n'),
    # a message follows that is not cut: another error entirely
    TOP + FORWARD + ARGS.format(n=291, call="self.check_hidden_size(hx, expected_hidden_size)") + "ValueError: too many values to unpack\nsome log line after it\n",
    # prose, not a header, after the call
    TOP + FORWARD + "  and then nothing else happened\n",
)


@pytest.mark.parametrize("text", NEGATIVES)
def test_frames_of_generic_code_or_another_file_tell_no_rnn_signature(text: str) -> None:
    found, near, _why = _found(text)
    assert not found, text
    assert not near & (CHECK_INPUT | CHECK_FORWARD_ARGS), text


# a C++ backtrace as c10 prints it (c10/util/Backtrace.cpp: innermost first, demangled), pasted without the
# message before it (what():, or the exception's line): its frames are raise sites as a Python frame's call into
# native code is, the signatures raised in the innermost native function that raises any a differential
LIBC10 = "/usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so"
LIBCUDA = "/usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so"
FLATTEN = "at::native::_cudnn_rnn_flatten_weight(c10::ArrayRef<at::Tensor>, long, long, long, long, long, long, bool, bool)"
BACKTRACE = (
    f"frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f3b8a2d4617 in {LIBC10})\n"
    f"frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7f3b8a28f98d in {LIBC10})\n"
    f"frame #2: {{fn}} + 0x1a2 (0x7f3b2c41a1b2 in {LIBCUDA})\n"
    f"frame #3: <unknown function> + 0x2d8c1e5 (0x7f3b2c9e11e5 in {LIBCUDA})\n"
    "frame #4: torch::nn::RNNImplBase<torch::nn::LSTMImpl>::flatten_parameters() + 0x3c1 (0x7f3b7c9a1d21 in /opt/libtorch/lib/libtorch_cpu.so)\n"
)
# PyTorch 1.x: 'c10::Error::Error(c10::SourceLocation, std::string const&)', std::function's frame, no arguments
BACKTRACE_1X = (
    f"frame #0: std::function<std::string ()>::operator()() const + 0x11 (0x7f1c2a4b1fe5 in {LIBC10})\n"
    f"frame #1: c10::Error::Error(c10::SourceLocation, std::string const&) + 0x2a (0x7f1c2a4b1c2a in {LIBC10})\n"
    f"frame #2: {{fn}} + 0x8d2 (0x7f1c08a3b912 in {LIBCUDA})\n"
)
FLATTENING = {"pytorch/cudnn-rnn-private-op-misuse", "pytorch/cudnn-rnn-internal-assert"}
NO_MESSAGE = (
    "",
    "LSTM on an RTX 4090, libtorch 2.1:\n",
    "terminate called after throwing an instance of 'c10::Error'\n  what():  \n",
)


@pytest.mark.parametrize("before", NO_MESSAGE)
@pytest.mark.parametrize("shape", [BACKTRACE, BACKTRACE_1X])
def test_a_cpp_backtrace_without_its_message_names_its_native_function_s_signatures(shape: str, before: str) -> None:
    found, near, why = _found(before + shape.format(fn=FLATTEN))
    assert not found and near >= FLATTENING
    assert all("_cudnn_rnn_flatten_weight()" in why[i] and "paste" in why[i] for i in FLATTENING)
    found, near, _why = _found(before + shape.format(fn="at::native::_cudnn_rnn_flatten_weight"))  # (no arguments)
    assert not found and near >= FLATTENING


def test_the_raised_from_line_of_a_cpp_backtrace_is_its_innermost_frame() -> None:
    raised = "Exception raised from _cudnn_rnn_flatten_weight at ../aten/src/ATen/native/cudnn/RNN.cpp:712 (most recent call first):\n"
    found, near, _why = _found(raised + BACKTRACE.format(fn="at::native::foo(at::Tensor const&)"))
    assert not found and near >= FLATTENING


@pytest.mark.parametrize(
    "text",
    [
        # another function's backtrace: a convolution's
        BACKTRACE.format(fn="at::native::cudnn_convolution(at::Tensor const&, at::Tensor const&, c10::ArrayRef<long>, long, bool, bool, bool)"),
        BACKTRACE_1X.format(fn="at::native::cudnn_convolution"),
        # the line that says where it was raised names another function (a helper flattening calls)
        "Exception raised from foo at ../aten/src/ATen/native/Foo.cpp:12 (most recent call first):\n" + BACKTRACE.format(fn=FLATTEN),
        # an error raised in a function flattening calls (its allocation's out of memory), not by flattening
        BACKTRACE.format(fn="at::native::empty_cuda(c10::ArrayRef<long>, c10::TensorOptions const&)").replace(
            "frame #3: <unknown function>", f"frame #3: {FLATTEN}"
        ),
        # the message comes with it (1.x's what(), 2.x's exception line a few lines above)
        "terminate called after throwing an instance of 'c10::Error'\n  what():  some other failure (f at x.cpp:3)\n" + BACKTRACE.format(fn=FLATTEN),
        "RuntimeError: something else failed\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\n"
        "Exception raised from f at ../c10/x.cpp:44 (most recent call first):\n" + BACKTRACE.format(fn=FLATTEN),
    ],
)
def test_a_cpp_backtrace_of_another_function_or_with_its_message_names_no_flattening_signature(text: str) -> None:
    found, near, _why = _found(text)
    assert not found and not near & FLATTENING, text


# an assert is its own message (AssertionError), not one of the errors raised in its function: a traceback that
# stops at one, even indented as a frame's shown line is, tells none of them (torch/nn/utils/rnn.py's pad_sequence
# raises the packing checks' messages)
PAD = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 9, in <module>\n'
    "    packed = pad_sequence(seqs, padding_side=side)\n"
    '  File "/usr/lib/python3/site-packages/torch/nn/utils/rnn.py", line 399, in pad_sequence\n'
)


def test_a_traceback_that_stops_at_an_assert_tells_no_signature_raised_in_its_function() -> None:
    for shown in ('    assert padding_side in ("left", "right"), f"got {padding_side}"\n', '    assert padding_side in ("left", "right")\n'):
        for text in (PAD + shown, PAD + shown + "AssertionError\n"):
            found, near, _why = _found(text)
            assert not found and "pytorch/pack-padded-invalid-lengths" not in near, text
    found, _near, _why = _found(PAD + '    raise RuntimeError("padding failed")\n')  # a raise there still tells them
    assert found == ["pytorch/pack-padded-invalid-lengths"]


def test_an_empty_attribute_error_under_a_line_reading_the_attribute_a_message_names_is_that_message() -> None:
    # an AttributeError is raised by the line that reads the attribute: where a signature raised in that function
    # says the attribute is missing ('has no attribute 'reserve_space''), the line reading it tells it
    jax = 'Traceback (most recent call last):\n  File "train.py", line 14, in <module>\n    y, h, c = rnn.lstm(x, h0, c0, weights)\n'
    jax += '  File "/opt/venv/lib/python3.11/site-packages/jax/experimental/rnn.py", line 452, in rnn_abstract_eval\n'
    chainer = '  File "/usr/lib/python3.6/site-packages/chainer/functions/connection/n_step_rnn.py", line 292, in backward\n'
    cases = {
        jax + "    gpu_rnn.compute_rnn_workspace_reserve_space_sizes(\n": "jax/rnn-no-gpu-lowering",
        jax + "    gpu_rnn.compute_rnn_workspace_reserve_space_sizes(\n    ^^^^^^^^^^^^^^^^\n": "jax/rnn-no-gpu-lowering",
        chainer + "    hx, cx, w, xs, ys, self.reserve_space,\n": "chainer/rnn-backward-in-test-mode",
    }
    for frames, sig_id in cases.items():
        for tail in ("AttributeError:\n", "AttributeError: \n2024-03-11 10:12:02 INFO worker 0 exited with code 1\n"):
            assert _found(frames + tail)[0] == [sig_id], frames + tail
        # another attribute read there, another exception, or the attribute read in a frame no signature is raised in
        for text in (
            frames.replace("reserve_space", "workspace_size") + "AttributeError:\n",
            frames + "RuntimeError:\n",
            frames.replace("jax/experimental/rnn.py", "myproject/rnn.py").replace("chainer/functions", "mylib/functions") + "AttributeError:\n",
        ):
            assert sig_id not in _found(text)[0], text


def test_an_empty_message_line_after_a_shown_call_is_read_whatever_follows_it() -> None:
    frames = TOP + FORWARD + ARGS.format(n=291, call="self.check_hidden_size(hx, expected_hidden_size)")
    for tail in ("RuntimeError:\n2024-03-11 10:12:02 INFO worker 0 exited with code 1\n", "RuntimeError:\n----\nFor simplicity, frames were removed.\n"):
        assert _found(frames + tail)[0] == [HIDDEN], tail
    # a message line with text that does not end the input is not a cut message read from the call
    assert _found(frames + "RuntimeError: CUDA error: an illegal memory acc\nmore\n")[0] != [HIDDEN]


# review of the emptied message line (inputs written by the reviewer, not held-out): a message line with text
# (``ValueError: 42``) is a message, one followed by prose is a message that starts with a newline, SystemExit,
# KeyError and the like are never a framework's message -- none of them names the raise site's signature
_REVIEW_TAILS = {
    "m1_multiline": (
        f'  File "{SITE}/rnn.py", line 311, in check_forward_args\n    self.check_hidden_size(hx, expected_hidden_size)\n'
        "RuntimeError: \nCaught an unexpected signal in worker process 2 (SIGBUS).\n"
    ),
    "m2_short": (
        f'  File "{SITE}/rnn.py", line 305, in check_forward_args\n    self.check_input(input, batch_sizes)\n'
        "ValueError: 42\nepoch 3 loss 0.41\n"
    ),
    "u26_flatten_multiline": (
        f'  File "{SITE}/rnn.py", line 215, in flatten_parameters\n    torch._cudnn_rnn_flatten_weight(\n'
        "RuntimeError: \nThe following operation failed in the TorchScript interpreter.\n"
        "Traceback of TorchScript (most recent call last):\nRuntimeError: NCCL communicator was aborted on rank 1.\n"
    ),
    "u32_keyerror_flatten": (
        f'  File "{SITE}/rnn.py", line 215, in flatten_parameters\n    torch._cudnn_rnn_flatten_weight(\nKeyError: 0\n'
        'Traceback (most recent call last):\n  File "loader.py", line 12, in __getitem__\n    return self.items[idx]\nKeyError: 0\n'
    ),
    "u35_pack_keyerror": (
        '  File "/usr/lib/python3.10/site-packages/torch/nn/utils/rnn.py", line 262, in pack_padded_sequence\n'
        "    _VF._pack_padded_sequence(input, lengths, batch_first)\nKeyError: 0\n"
        'Traceback (most recent call last):\n  File "collate.py", line 44, in main\n    batch = next(it)\nStopIteration\n'
    ),
    "u28_tf_exit": (
        '  File "/usr/lib/python3.10/site-packages/tensorflow/python/client/session.py", line 968, in run\n'
        "    result = self._run(None, fetches, feed_dict, options_ptr,\n"
        "SystemExit: 2\nLoss at step 400: 0.231\nSaving checkpoint to /ckpt/model-400\n"
    ),
}


@pytest.mark.parametrize("name", sorted(_REVIEW_TAILS))
def test_a_message_line_with_text_or_prose_after_it_or_a_non_framework_exception_names_no_raise_site(name: str) -> None:
    text = 'Traceback (most recent call last):\n  File "main.py", line 30, in <module>\n    out = model(x)\n' + _REVIEW_TAILS[name]
    found, near, _why = _found(text)
    assert found == [] and near == set(), (name, found, near)


def test_a_wrapper_exception_ending_with_the_raise_site_s_class_is_that_class() -> None:
    # torch._dynamo re-raises a RuntimeError as TorchRuntimeError: check_input's RuntimeError signatures, not its
    # ValueError one (the dtype error)
    text = TOP + FORWARD + f'  File "{SITE}/rnn.py", line 245, in check_input\n    raise RuntimeError(\n'
    _found_ids, near, _why = _found(text + "torch._dynamo.exc.TorchRuntimeError:\n")
    assert near >= RAISED_AS_RUNTIME_ERROR and DTYPE not in near, near

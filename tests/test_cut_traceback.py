"""A traceback whose message is missing says where it was raised: its innermost frame, or, where the input cuts
the traceback, the call its last complete frame shows (tolerant.Tolerant.raised), in Python's, IPython's and a
notebook's (numbered, linked source lines) shapes. A call into a function several messages are raised in gives
near misses naming them, never one of them as the finding."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()
HIDDEN = "pytorch/rnn-hidden-size-mismatch"
CHECK_INPUT = {"pytorch/rnn-input-rank-mismatch", "pytorch/rnn-input-size-mismatch", "pytorch/rnn-input-weight-dtype-mismatch"}
SITE = "/opt/conda/lib/python3.8/site-packages/torch/nn/modules"

PLAIN = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 40, in <module>\n'
    "    out, h = model(x, h0)\n"
    f'  File "{SITE}/module.py", line 1102, in _call_impl\n'
    "    return forward_call(*input, **kwargs)\n"
    f'  File "{SITE}/rnn.py", line 689, in forward\n'
    "    self.check_forward_args(input, hx, batch_sizes)\n"
    f'  File "{SITE}/rnn.py", line 632, in check_forward_args\n'
    "    {call}\n"
    f'  File "{SITE[:28]}'
)
HIDDEN_CALL = "self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),"
INPUT_CALL = "self.check_input(input, batch_sizes)"
IPYTHON = (
    "RuntimeError                              Traceback (most recent call last)\n"
    "Cell In[7], line 3\n"
    "----> 3 out, hn = gru(x, h0)\n\n"
    "File ~/miniconda3/lib/python3.10/site-packages/torch/nn/modules/module.py:1501, in Module._call_impl(self, *args, **kwargs)\n"
    "-> 1501     return forward_call(*args, **kwargs)\n\n"
    "File ~/miniconda3/lib/python3.10/site-packages/torch/nn/modules/rnn.py:1097, in GRU.forward(self, input, hx)\n"
    "   1095     hx = self.permute_hidden(hx, sorted_indices)\n"
    "-> 1097 self.check_forward_args(input, hx, batch_sizes)\n"
    "   1098 if batch_sizes is None:\n\n"
    "File ~/miniconda3/lib/python3.10/site-packages/torch/nn/modules/rnn.py:239, in RNNBase.check_forward_args(self, input, hidden, batch_sizes)\n"
    "    237 def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Optional[Tensor]):\n"
    "    238     self.check_input(input, batch_sizes)\n"
    "--> 239     self.check_hidden_size(hidden, expected_hidden_size)\n"
)
OLD_IPYTHON = (
    "<ipython-input-5-2f1c> in forward(self, x)\n"
    "---> 12         out, _ = self.lstm(x)\n\n"
    "~/anaconda3/lib/python3.7/site-packages/torch/nn/modules/rnn.py in check_forward_args(self, input, hidden, batch_sizes)\n"
    "    521     def check_forward_args(self, input, hidden, batch_sizes):\n"
    "--> 522         self.check_input(input, batch_sizes)\n"
)
LINKED = (
    "File c:\\Users\\me\\env\\lib\\site-packages\\torch\\nn\\modules\\rnn.py:231, in RNNBase.check_forward_args(self, input, hidden, batch_sizes)\n"
    "    [230](file:///c%3A/Users/me/env/lib/site-packages/torch/nn/modules/rnn.py?line=229) def check_forward_args(self, input, hidden, batch_sizes):\n"
    "--> [231](file:///c%3A/Users/me/env/lib/site-packages/torch/nn/modules/rnn.py?line=230)     self.check_input(input, batch_sizes)\n"
    "    [232](file:///c%3A/Users/me/env/lib/site-packages/torch/nn/modules/rnn.py?line=231)     expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)\n"
)


def _rnn(text: str) -> tuple[list[str], set[str]]:
    d = diagnose(text, catalog=CATALOG)
    return [f.id for f in d.findings if f.signature.scope == "rnn"], {n.id for n in d.near_misses}


def test_a_cut_traceback_is_read_from_the_call_its_last_frame_shows() -> None:
    for text in (PLAIN.format(call=HIDDEN_CALL), IPYTHON):
        d = diagnose(text, catalog=CATALOG)
        assert d.findings and d.findings[0].id == HIDDEN and d.findings[0].cut is not None, text
        assert d.findings[0].confidence < diagnose(text + "\nRuntimeError: Expected hidden size (1, 8, 64), got [2, 8, 64]", catalog=CATALOG).findings[0].confidence


def test_a_call_into_a_function_several_messages_are_raised_in_gives_near_misses() -> None:
    for text in (PLAIN.format(call=INPUT_CALL), OLD_IPYTHON, LINKED, LINKED + "```"):
        found, near = _rnn(text)
        assert not found and near >= CHECK_INPUT, text


def test_the_near_misses_of_a_cut_call_ask_for_the_message_that_tells_them_apart() -> None:
    near = [n for n in diagnose(PLAIN.format(call=INPUT_CALL), catalog=CATALOG).near_misses if n.id in CHECK_INPUT]
    assert near and all("could be any of" in n.reason and "paste the traceback's last line" in n.reason for n in near)


def test_an_ipython_innermost_frame_with_its_arguments_and_its_message_emptied() -> None:
    text = (
        "File ~/miniconda3/lib/python3.10/site-packages/torch/nn/modules/rnn.py:239, in RNNBase.check_forward_args(self, input, hidden, batch_sizes)\n"
        "--> 239     self.check_hidden_size(hidden, expected_hidden_size)\n\n"
        "File ~/miniconda3/lib/python3.10/site-packages/torch/nn/modules/rnn.py:223, in RNNBase.check_hidden_size(self, hx, expected_hidden_size, msg)\n"
        "    221 if hx.size() != expected_hidden_size:\n"
        "--> 223     raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))\n\n"
        "RuntimeError: \n"
    )
    found, _ = _rnn(text)
    assert found == [HIDDEN]


def test_a_call_into_a_function_that_raised_several_messages_over_releases_gives_near_misses() -> None:
    """torch 0.4-1.0 raised the input's rank and size and the hidden state's size in check_forward_args itself;
    later releases call check_input and check_hidden_size from it."""
    text = PLAIN.format(call=INPUT_CALL).replace(f'  File "{SITE}/rnn.py", line 632, in check_forward_args\n    {INPUT_CALL}\n', "")
    found, near = _rnn(text)
    assert not found and len({HIDDEN, "pytorch/rnn-input-rank-mismatch", "pytorch/rnn-input-size-mismatch"} & near) >= 2, text


def test_what_is_not_a_cut_call_into_a_raising_place_is_not_read_as_one() -> None:
    full = PLAIN.format(call=INPUT_CALL)
    for text in (
        full.replace(INPUT_CALL, "result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,"),  # no message raised there
        full + "\nAny idea what is wrong? It worked on the CPU.\nThanks",  # prose after it: not where the input cuts it
        full.rpartition("\n")[0] + "\n  File \"/x/native.py\", line 3, in run\n    return _C.run(x)",  # another frame after it
        f"I looked at {SITE}/rnn.py in check_forward_args(self) and it calls self.check_input(input, batch_sizes)",
    ):
        found, near = _rnn(text)
        assert not found and not CHECK_INPUT & near, text
    whole = full.rpartition("\n")[0] + f'\n  File "{SITE}/rnn.py", line 205, in check_input\n    input.size(-1), self.input_size))\nRuntimeError: input.size(-1) must be equal to input_size. Expected 32, got 4'
    assert _rnn(whole)[0][:1] == ["pytorch/rnn-input-size-mismatch"]


class _Counted(list):  # type: ignore[type-arg]
    """Lines that count how many are read (the tolerant reading's lines are normalized as they are read)."""

    reads = 0

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        got = super().__getitem__(key)
        _Counted.reads += len(got) if isinstance(key, slice) else 1
        return got


def test_a_long_traceback_is_read_once_not_once_per_frame() -> None:
    """Each frame asks whether the input cuts the traceback after it: the lines after a frame are read only
    when few enough are left to be a cut's tail (a paste of 3,000 frames read ~9 million lines before)."""
    from cudnn_doctor.match import Matcher

    frames = [f'  File "{SITE}/rnn.py", line {i}, in helper{i}\n    self.check_input(input, batch_sizes)' for i in range(2000)]
    lines = _Counted("\n".join(["Traceback (most recent call last):", *frames]).split("\n"))
    _Counted.reads = 0
    list(Matcher(CATALOG).tolerant().raised(lines, 0, len(lines) - 1, set()))
    assert _Counted.reads < 50 * len(lines)


def test_a_frame_every_kind_of_error_passes_through_gives_near_misses_not_a_finding() -> None:
    # torch's Module.__getattr__ raises every module's AttributeError, TensorFlow's session.py every graph error:
    # a traceback ending there without its message tells no RNN error apart, so it asks for the message
    getattr_tb = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n'
        "    w = model.encoder.fc.weight\n"
        f'  File "{SITE}/module.py", line 1614, in __getattr__\n'
        "    raise AttributeError(\"'{}' object has no attribute '{}'\".format(\n"
        "AttributeError:\n"
    )
    session_tb = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n'
        "    sess.run(train_op, feed_dict=fd)\n"
        '  File "/usr/lib/python3/site-packages/tensorflow/python/client/session.py", line 1100, in _run\n'
        "    raise TypeError(\n"
        "TypeError:\n"
    )
    for text, named in ((getattr_tb, "pytorch/rnn-module-pickled-by-other-release"), (session_tb, "keras/stateful-rnn-batch-changed-in-graph")):
        d = diagnose(text, catalog=CATALOG)
        assert not d.findings, [f.id for f in d.findings]
        miss = [n for n in d.near_misses if n.id == named]
        assert miss and "other errors are raised too" in miss[0].reason and "paste the traceback's last line" in miss[0].reason

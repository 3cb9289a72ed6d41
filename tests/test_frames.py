"""One reader of a traceback's frames (read/frames.py), two users reading the same presentations: the user's own
frame (rank/tracebacks.py: its file, line and the code it shows) and where an error was raised (the tolerant
reading: a traceback cut right after a frame of torch/nn/modules/rnn.py whose shown source line calls the check
that raises it). Each presentation is read by both, or the two would tell different stories of one traceback."""

from __future__ import annotations

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.rank.tracebacks import frames, user_frame

CATALOG = catalogs.builtin()
HIDDEN = "pytorch/rnn-hidden-size-mismatch"
TORCH = "/usr/lib/python3/site-packages/torch/nn/modules"
USER_CALL = "output, hidden = model(inputs, hidden)"
CHECK_CALL = "self.check_hidden_size(hx, expected_hidden_size)"

# each presentation: the user's frame (train.py, line 52, showing USER_CALL), then rnn.py's check_forward_args
# (line 291, showing CHECK_CALL); the input cut right after it
PRESENTATIONS = {
    "python": (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 52, in <module>\n'
        f"    {USER_CALL}\n"
        f'  File "{TORCH}/rnn.py", line 291, in check_forward_args\n'
        f"    {CHECK_CALL}\n"
    ),
    "retyped without its comma": (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 52 in <module>\n'
        f"    {USER_CALL}\n"
        f'  File "{TORCH}/rnn.py", line 291 in check_forward_args\n'
        f"    {CHECK_CALL}\n"
    ),
    "loguru": (
        "Traceback (most recent call last):\n"
        '> File "/home/me/train.py", line 52, in <module>\n'
        f"    {USER_CALL}\n"
        f'  File "{TORCH}/rnn.py", line 291, in check_forward_args\n'
        f"    {CHECK_CALL}\n"
    ),
    "ipython 8": (
        "RuntimeError                              Traceback (most recent call last)\n"
        "File /home/me/train.py:52, in main(args)\n"
        "     51 hidden = model.init_hidden(4)\n"
        f"---> 52 {USER_CALL}\n"
        "     53 loss = criterion(output, target)\n\n"
        f"File {TORCH}/rnn.py:291, in RNNBase.check_forward_args(self, input, hidden, batch_sizes)\n"
        "    290 expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)\n"
        f"--> 291 {CHECK_CALL}\n"
        "    292 \n"
    ),
    "ipython 8 skipping lines": (
        "File /home/me/train.py:52, in main(args)\n"
        "     40 def main(args):\n"
        "   (...)\n"
        f"---> 52     {USER_CALL}\n\n"
        f"File {TORCH}/rnn.py:291, in RNNBase.check_forward_args(self, input, hidden, batch_sizes)\n"
        "    280 def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Optional[Tensor]):\n"
        "   (...)\n"
        "    290     expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)\n"
        f"--> 291     {CHECK_CALL}\n"
    ),
    "a notebook's links": (
        "File [/home/me/train.py:52](file:///home/me/train.py:52), in main(args)\n"
        "     [51](file:///home/me/train.py?line=50) hidden = model.init_hidden(4)\n"
        f"---> [52](file:///home/me/train.py?line=51) {USER_CALL}\n\n"
        f"File [{TORCH}/rnn.py:291](file://{TORCH}/rnn.py:291), in RNNBase.check_forward_args(self, input, hidden, batch_sizes)\n"
        f"    [290](file://{TORCH}/rnn.py?line=289) expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)\n"
        f"--> [291](file://{TORCH}/rnn.py?line=290) {CHECK_CALL}\n"
    ),
    "ipython 7": (
        "/home/me/train.py in main(args)\n"
        "     51 hidden = model.init_hidden(4)\n"
        f"---> 52 {USER_CALL}\n\n"
        f"{TORCH}/rnn.py in check_forward_args(self, input, hidden, batch_sizes)\n"
        "    290         expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)\n"
        f"--> 291         {CHECK_CALL}\n"
    ),
    "pytest's short form": (
        "/home/me/train.py:52: in main\n"
        f"    {USER_CALL}\n"
        f"{TORCH}/rnn.py:291: in check_forward_args\n"
        f"    {CHECK_CALL}\n"
    ),
    "rich": (
        "╭──────────────────── Traceback (most recent call last) ────────────────────╮\n"
        "│ /home/me/train.py:52 in main                                               │\n"
        "│                                                                            │\n"
        "│   51 │   hidden = model.init_hidden(4)                                     │\n"
        f"│ ❱ 52 │   {USER_CALL}                            │\n"
        "│                                                                            │\n"
        f"│ {TORCH}/rnn.py:291 in check_forward_args │\n"
        "│                                                                            │\n"
        f"│ ❱ 291 │   {CHECK_CALL}                │\n"
    ),
}


@pytest.mark.parametrize("shape", sorted(PRESENTATIONS))
def test_both_readers_read_each_presentation_s_frames(shape: str) -> None:
    text = PRESENTATIONS[shape]
    user = user_frame(text.splitlines())
    assert user is not None and (user.file, user.line, user.code) == ("/home/me/train.py", 52, USER_CALL), shape
    innermost = frames(text.splitlines())[-1]
    assert (innermost.file, innermost.line, innermost.code) == (f"{TORCH}/rnn.py", 291, CHECK_CALL), shape
    d = diagnose(text, catalog=CATALOG)
    assert [f.id for f in d.findings if f.signature.scope == "rnn"] == [HIDDEN], shape


@pytest.mark.parametrize("after", ["", " (self, input, hidden, batch_sizes)"])
def test_a_frame_s_function_may_have_its_arguments_after_it_not_prose(after: str) -> None:
    """Where an error was raised is read from a frame that names its function, its argument list after it at
    most: with prose after its function ('... in check_forward_args after upgrading torch') a line is a sentence
    that names a frame (the user's frame shows its function as written: 'check_forward_args after ...')."""
    header = f'  File "{TORCH}/rnn.py", line 291, in check_forward_args'
    for tail, read in ((after, True), (" after upgrading torch", False)):
        text = f"Traceback (most recent call last):\n{header}{tail}\n    {CHECK_CALL}\n"
        assert frames(text.splitlines())[0].func == f"check_forward_args{tail}".strip()
        d = diagnose(text, catalog=CATALOG)
        assert [f.id for f in d.findings if f.signature.scope == "rnn"] == ([HIDDEN] if read else []), tail


def test_a_python_frame_s_source_line_that_begins_with_a_number_is_its_source_line() -> None:
    """Only IPython lists numbered lines under a frame: Python's next line is its source line, whatever it begins
    with ('2 * model(x)'); read as a listing without an arrow it would show no code."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 52, in <module>\n'
        "    2 * model(inputs)\n"
        "RuntimeError: boom\n"
    )
    frame = user_frame(log.splitlines())
    assert frame is not None and (frame.line, frame.code) == (52, "2 * model(inputs)")


def test_a_wrapped_line_in_an_ipython_listing_does_not_end_it() -> None:
    """A long listed line wrapped by the terminal leaves a line without a number inside the listing: the arrow
    after it still marks the frame's own line."""
    log = (
        "RuntimeError                              Traceback (most recent call last)\n"
        "File /home/me/train.py:52, in main(args)\n"
        "     50 loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.workers, pin_\n"
        "memory=True)\n"
        "     51 hidden = model.init_hidden(4)\n"
        f"---> 52 {USER_CALL}\n"
        "\n"
        "RuntimeError: boom\n"
    )
    frame = user_frame(log.splitlines())
    assert frame is not None and (frame.line, frame.code) == (52, USER_CALL)


def test_where_a_traceback_stops_is_read_from_its_frames_alone() -> None:
    """read/frames.py says where a traceback stops without any signature (match/tolerant.py then asks which are
    raised there): the innermost frame's message line (empty, or cut at the input's end), the call a frame shows
    where the input cuts the traceback after it, a C++ error's log line that ends the input."""
    from cudnn_doctor.read.frames import cut_call, ends_input, frame, innermost, logged

    head = f'  File "{TORCH}/rnn.py", line 232, in check_forward_args'
    assert frame(head) == (f"{TORCH}/rnn.py", "check_forward_args")
    assert frame("the error is raised in check_forward_args after upgrading") is None
    cut = [head, f"    {CHECK_CALL}", f'  File "{TORCH}/rnn.py", line 2']
    assert cut_call(cut, 0) == ("check_hidden_size", None)  # cut in the next frame's header
    assert cut_call([head, f"    {CHECK_CALL}", "RuntimeError:"], 0) == ("check_hidden_size", "")
    raising = [head, '    raise RuntimeError("Expected hidden size {}, got {}")']
    assert innermost([*raising, "RuntimeError:"], 0) == ""
    assert innermost([*raising, "RuntimeError: Expected hidden size (1, 2"], 0) == "Expected hidden size (1, 2"
    assert innermost([*raising, "RuntimeError: Expected hidden size (1, 2, 4), got (1, 3, 4)", "next"], 0) is None
    log = ["[15:45:06] src/operator/rnn.cu:24: RNN is", ""]
    assert logged(log, 0) == ("src/operator/rnn.cu", "RNN is") and ends_input(log, 0)
    assert logged(["W0101 12:00:00.1 99 rnn_op.cc:24] a warning"], 0) is None

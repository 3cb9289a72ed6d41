"""A message the tolerant reading confirms with its line breaks read as spaces (a message broken over two lines,
no word split) is placed on the lines it stands on: confirm.Confirmer.confirm counted that variant's lines in the
variant itself, which has no line break, and placed the finding on the first line of the regex's window, the line
before the message."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()


def test_a_message_broken_over_two_lines_is_placed_on_its_lines() -> None:
    text = (
        "step 1 ok\nstep 2 ok\nRuntimeError: Input and hidden tensors are not at the\n"
        "same device, found input tensor at cuda:0 and hidden tensor at cpu\nbye\n"
    )
    (f,) = diagnose(text, catalog=CATALOG).to_dict()["findings"]
    assert (f["id"], f["line"], f["end_line"]) == ("pytorch/rnn-input-hidden-device-mismatch", 3, 4)

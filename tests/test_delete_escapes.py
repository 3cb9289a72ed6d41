"""read/textsafe.py ``delete_escapes``, the one bytes form of what normalization deletes from inside a line (the
prefilter's second look and the context's rule-out read raw bytes through it): line by line it gives what the
text form gives (``ANSI``, then the C0 controls but TAB, LF and CR, and DEL), and never joins two lines."""

from __future__ import annotations

import random
import re

from cudnn_doctor.read.textsafe import ANSI, C0_BUT_TAB_LF_CR, DEL, delete_escapes

PIECES = ["CUDNN_STATUS_BAD_PARAM", "cuD", "NN", "\x1b[31m", "\x1b[0m", "\x1b[1;38;5;208m", "\x1b]8;;http://x\x07",
          "\x1b]0;title", "\x1b\\", "\x1b(", "\x1bM", "\x9b1m", "\x9b", "\x1b", "\x08", "\x00", "\x7f", "\x01", "\t",
          "\r", " ", "°C", "été", "\u2028", "[", "m", "]", ";"]


def _text_form(line: str) -> str:
    return re.sub(f"[{C0_BUT_TAB_LF_CR}{DEL}]", "", ANSI.sub("", line))


def test_each_line_reads_as_the_text_form_reads_it() -> None:
    rng = random.Random(11)
    for _ in range(2000):
        lines = ["".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 8))) for _ in range(rng.randrange(1, 6))]
        got = delete_escapes("\n".join(lines).encode()).split(b"\n")
        assert got == [_text_form(line).encode() for line in lines], lines


def test_nothing_to_delete_is_the_same_bytes() -> None:
    data = "plain text, été\n\tCUDNN_STATUS_BAD_PARAM\r\n".encode()
    assert delete_escapes(data) == data

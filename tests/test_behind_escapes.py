"""The prefilter's second look behind escape sequences (match/prefilter.py ``behind_escapes``): merged with the
raw scan, it finds what scanning each line as normalization reads it (escape sequences and controls deleted, the
text form) finds."""

from __future__ import annotations

import random
import re

from cudnn_doctor.match import Prefilter
from cudnn_doctor.read.textsafe import ANSI, C0_BUT_TAB_LF_CR, DEL

LITS = ["cudnn", "cudnn_status_", "rnn", "lstm", "os: "]
PIECES = [b"CUDNN_STATUS_BAD_PARAM", b"cuD", b"NN", b"rnn", b"LSTM", b"os: ", b"plain words", b"\xc2\xb0C", b"\xc3\xa9t\xc3\xa9",
          b"\x1b[31m", b"\x1b[0m", b"\x1b]8;;x\x07", b"\x1b(", b"\xc2\x9b1m", b"\x08", b"\x7f", b"\t", b"\r", b" "]


def _line_by_line(pf: Prefilter, data: bytes) -> dict[int, list[str]]:
    """The reference: each line of a region holding an escape, decoded and cleaned as text, scanned alone."""
    if b"\x1b" not in data:
        return {}
    out, at = {}, 0
    for line in data.split(b"\n"):
        text = re.sub(f"[{C0_BUT_TAB_LF_CR}{DEL}]", "", ANSI.sub("", line.decode()))
        for lits in pf.scan(text).values():
            out[at] = lits
        at += len(line) + 1
    return out


def _merged(raw: dict[int, list[str]], more: dict[int, list[str]]) -> dict[int, list[str]]:
    out = {k: list(v) for k, v in raw.items()}
    for off, lits in more.items():
        have = out.setdefault(off, [])
        have += (lit for lit in lits if lit not in have)
    return out


def test_escaped_lines_alone_find_what_the_whole_region_finds() -> None:
    rng = random.Random(7)
    pf = Prefilter(LITS)
    for _ in range(300):
        lines = [b"".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 7))) for _ in range(rng.randrange(1, 9))]
        data = b"\n".join(lines)
        raw = pf.scan(data)
        assert _merged(raw, pf.behind_escapes(data)) == _merged(raw, _line_by_line(pf, data)), data


def test_a_control_on_a_line_without_an_escape_is_deleted_too() -> None:
    # normalization deletes every C0 control but TAB, LF and CR, and DEL, not only escape sequences: a
    # backspace or a DEL inside a literal hides it as well, on a line of a region holding an escape elsewhere
    pf = Prefilter(LITS)
    data = b"\x1b[31mred\x1b[0m\nthe cuD\x08NN call\nan \x7fLS\x7fTM layer\n\x01os: linux\nplain"
    raw = pf.scan(data)
    assert _merged(raw, pf.behind_escapes(data)) == _merged(raw, _line_by_line(pf, data))
    assert _merged(raw, pf.behind_escapes(data))[len(b"\x1b[31mred\x1b[0m\n")] == ["cudnn"]


def test_each_deleted_control_alone_hides_a_literal() -> None:
    # a region whose only byte normalization deletes, besides ESC, is one control (each in turn) on a line
    # without an escape: the cheap test for such bytes must see every one of them
    pf = Prefilter(LITS)
    controls = [c for c in range(32) if chr(c) not in "\t\n\r\x1b"] + [0x7F]
    for c in controls:
        data = b"\x1b[31mred\x1b[0m\nthe cuD" + bytes([c]) + b"NN call\nplain"
        assert pf.behind_escapes(data) == {len(b"\x1b[31mred\x1b[0m\n"): ["cudnn"]}, c
    data = b"\x1b[31mred\x1b[0m\nthe cuDNN call\nplain"  # nothing deleted but the escapes: nothing hidden
    assert pf.behind_escapes(data) == {}


COLOUR_LITS = ["cudnn_status_mapping_error", "hidden[0]", "expected 2 got 3", "lstm", "os: "]
COLOUR_PIECES = [b"CUDNN_STATUS_MAPPING_ERROR", b"CUDNN_STATUS_", b"MAPP", b"ING_ERROR", b"hidden", b"[0]", b"[", b"0]", b"Expected 2",
                 b" got 3", b"LS", b"TM", b"m", b"M", b"os: ", b"plain words 42;", b"\xc3\xa9t\xc3\xa9",
                 b"\x1b[31m", b"\x1b[0m", b"\x1b[m", b"\x1b[1;36m", b"\x1b[38;5;196m", b" ", b"\x1b[31m", b"\x1b[0m", b"\x1b[m", b"\x1b[1;36m"]
OTHER_ESCAPES = [b"\x1b[2K", b"\r\x1b[2K", b"\x1b[1A", b"\x1b[?25l", b"\x1b]8;;x\x07", b"\x1b]0;title", b"\x1b[38:5:196m", b"\x1b[31", b"\x1b(B", b"\x1b"]


def test_a_coloured_region_finds_what_each_cleaned_line_finds() -> None:
    """In a region coloured throughout, only the lines that may hide a literal are cleaned (``_coloured``):
    the same lines and literals as cleaning every line, for literals holding the bytes a colour code is made of
    (digits, '[', ';', m), with other escapes among the colour codes or not (a cursor move, an OSC, a CSI cut
    short), small regions (``find``) and big ones (hyperscan, where installed)."""
    rng = random.Random(11)
    pf = Prefilter(COLOUR_LITS)
    for size in [*([1] * 400), 4000]:
        pieces = COLOUR_PIECES + (OTHER_ESCAPES if size % 2 == 0 or rng.random() < 0.3 else [])
        lines = [b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 9))) for _ in range(rng.randrange(1, 9) * size)]
        data = b"\n".join(lines)
        raw = pf.scan(data)
        assert _merged(raw, pf.behind_escapes(data)) == _merged(raw, _line_by_line(pf, data)), data[:300]
    assert pf._coloured(b"\x1b[31mred\x1b[0m\nthe LS\x1b[0mTM") == [len(b"\x1b[31mred\x1b[0m\n")]
    assert Prefilter(["mm", "lstm"])._coloured(b"\x1b[31mred\x1b[0m") is None  # a literal of colour-code bytes: every line
    live = b"\x1b[2K\x1b[31mred\x1b[0m \x1b[1mbold\x1b[0m \x1b[2mdim\x1b[0m \x1b[36mcyan\x1b[0m L\x1b[0mSTM\n"  # a live display's
    assert pf._coloured(live * 9) == [len(live) * i for i in range(9)]


def test_another_escape_than_a_colour_code_inside_a_literal_hides_it() -> None:
    pf = Prefilter(["cudnn"])
    for other in (b"\x1b[2K", b"\x1b]8;;x\x07", b"\x1b[?25l", b"\x1b(B"):
        data = b"\x1b[31mred\x1b[0m\nthe cuD" + other + b"NN call\nplain"
        assert pf.behind_escapes(data) == _line_by_line(pf, data), other
    assert pf.behind_escapes(b"\x1b[31mred\x1b[0m\nthe cuD\x1b[2KNN call") == {len(b"\x1b[31mred\x1b[0m\n"): ["cudnn"]}


def test_the_coloured_gate_scans_with_the_engine_its_prefilter_scans_with() -> None:
    """A skimmed notebook's regions are small: the gate's literals scanned by ``find`` there, one pass per
    literal, doubled the notebook kind's CPU; they go through hyperscan wherever the prefilter does."""
    pf = Prefilter(COLOUR_LITS)
    region = b"\x1b[31mred\x1b[0m \x1b[1mLS\x1b[0mTM\n" * 4
    pf.behind_escapes(region)
    assert pf._lossy is not None and not pf._lossy._hs_tried
    pf._load_hyperscan()
    pf.behind_escapes(region)
    assert (pf._lossy._hs is not None) == (pf._hs is not None)  # (not .engine: asking it loads hyperscan)

"""prefilter.RuleOut's marks: the lines of a window holding a context item's literal, as normalization reads them.

RuleOut reads a window once: lower-cased with what normalization deletes deleted (one translate where the window
holds no escape sequence), and each line's index counted once for every literal on it. The marks must be those of
the plain reading, line by line: ``delete_escapes(line).lower()`` holding the literal, with hyperscan and without.
"""

from __future__ import annotations

import random

import pytest

from cudnn_doctor.match.lines import Lines
from cudnn_doctor.match.prefilter import SMALL_TEXT, RuleOut
from cudnn_doctor.read.textsafe import delete_escapes

LITERALS = {"flat": (b"flatten_parameters", b"weight"), "drop": (b"weight_drop", b"dataparallel"), "none": (b"cudnn_status",)}
WORDS = [b"step 12 loss 0.3", b"UserWarning: RNN module Weights ... call flatten_parameters().", b"WEIGHT_DROP 0.5",
         b"nn.DataParallel(model)", b"weight", b"x" * 70]
# what normalization deletes: controls alone (a window without ESC), and escape sequences too
DIRTY = {"clean": [], "controls": [b"weig\x07ht", b"flatten_\x00parameters", b"del\x7fete"],
         "escapes": [b"flatten\x1b[31m_parameters", b"weig\x07ht", b"data\xc2\x9b1mparallel", b"\x1b[2Kweight_drop"]}


def _window(seed: int, dirty: str, size: int) -> bytes:
    rng = random.Random(seed)
    lines: list[bytes] = []
    while sum(map(len, lines)) < size:
        lines.append(b" ".join(rng.choice(WORDS + DIRTY[dirty]) for _ in range(rng.randint(0, 3))))
    return b"\n".join(lines)


def _plain(data: bytes, items: dict[bytes, frozenset[str]]) -> list[tuple[int, frozenset[str]]]:
    out = []
    for li, line in enumerate(data.split(b"\n")):
        low = delete_escapes(line).lower()
        its = frozenset().union(*(its for lit, its in items.items() if lit in low))
        if its:
            out.append((li, its))
    return out


@pytest.mark.parametrize("dirty", list(DIRTY))
@pytest.mark.parametrize("size", [4 << 10, SMALL_TEXT + (64 << 10)])  # (a big window: with hyperscan where installed)
@pytest.mark.parametrize("hyperscan", [True, False])
def test_the_marks_are_the_lines_that_hold_a_literal_as_normalization_reads_them(
    dirty: str, size: int, hyperscan: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not hyperscan:
        monkeypatch.setenv("CUDNN_DOCTOR_NO_HYPERSCAN", "1")
    ruleout = RuleOut(LITERALS)
    data = _window(size + len(dirty), dirty, size)
    n = data.count(b"\n") + 1
    lines = Lines(data, n)
    for key, item_names in enumerate([("flat",), ("drop", "flat"), ("none",), ("drop",)]):
        items: dict[bytes, frozenset[str]] = {}
        for name in item_names:
            for lit in LITERALS[name]:
                items[lit] = items.get(lit, frozenset()) | {name}
        want = _plain(data, items)
        assert ruleout.marked(lines, 0, n - 1, key, items) == want
        assert ruleout.marked(lines, n // 3, n // 2, key, items) == [(li, its) for li, its in want if n // 3 <= li <= n // 2]

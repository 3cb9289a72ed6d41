"""What match/spelling.py does less of for a confirmation's window of long lines (bench/kinds.py long and wide),
checked against the versions it replaced: ``unwrapped`` lists only the words of the lines a possible hard-wrap
split ends or begins (``_split_words``), not the whole text's, over random texts of words, values, indexes and
words split at a line's end; ``py3_values`` searches its pattern only where a long's L and what ends it are."""

from __future__ import annotations

import random
import re

import pytest

from cudnn_doctor.kb.templates import stem, words
from cudnn_doctor.match.spelling import py3_values, rejoined, unwrapped

VOCAB = ["tensor", "implementation", "descriptor", "allocate", "failed", "status", "hidden", "found", "input",
         "expected", "cudnn", "weights", "contiguous", "chunk", "memory", "the", "at", "is", "go", "t", "be", "only",
         "available", "for", "RNN", "CUDNN_STATUS_NOT_SUPPORTED", "0.123456", "42", "x1"]
KNOWN = frozenset(stem(w.lower()) for w in VOCAB) | {"availablefor", "goat"}
SEPARATORS = [" ", " ", " ", ", ", "", "[0]", "[1", "]", "(", ")", ": ", "\t", "}", "{", "/"]


def _unwrapped_reference(text: str, known: frozenset[str]) -> str:
    """spelling.unwrapped before it listed only the split lines' words: ``rejoined`` over all of them."""
    for _w, a, b in reversed(rejoined(text, words(text), known)):
        if (nl := text.find("\n", a, b)) >= 0:
            end = text.find("\n", nl + 1)
            end = len(text) if end < 0 else end
            text = text[:nl] + text[nl + 1 : end] + "\n" + text[end:]
    return text


def _text(rng: random.Random) -> str:
    lines: list[str] = []
    for _ in range(rng.randrange(1, 12)):
        line = "".join(rng.choice(VOCAB) + rng.choice(SEPARATORS) for _ in range(rng.randrange(0, 16)))
        if rng.random() < 0.5 and lines:  # a word a hard wrap split: its first part ends the line before
            word = rng.choice(VOCAB)
            cut = rng.randrange(1, len(word)) if len(word) > 1 else 1
            lines[-1] += word[:cut]
            line = word[cut:] + line
        lines.append(line)
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(8))
def test_unwrapped_as_over_every_word(seed: int) -> None:
    rng = random.Random(seed)
    joined = 0
    for _ in range(400):
        text = _text(rng)
        got = unwrapped(text, KNOWN)
        assert got == _unwrapped_reference(text, KNOWN), text
        joined += got != text
    assert joined > 20  # (the texts do hold splits it joins)


def test_long_lines_without_a_split_are_kept() -> None:
    values = ", ".join(f"{i / 7:.6f}" for i in range(6000))
    text = f'{{"gru_state": [{values}]}}\nRuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPP\nORTED\n{{"x": [{values}]}}'
    assert unwrapped(text, KNOWN) == _unwrapped_reference(text, KNOWN)


PY2_LONG = re.compile(r"\b(\d+)L\b(?=\s*[,)\]])")  # spelling._PY2_LONG, as py3_values applied it to any text with an L
VALUE_PIECES = ["1", "64", "0", "L", "L", "l", " ", ",", ")", "]", "(", "[", "x", "_", "\u0663", "\u00e9", "\n", "\t", "Size"]


@pytest.mark.parametrize("seed", range(4))
def test_py3_values_as_the_pattern_everywhere(seed: int) -> None:
    rng = random.Random(seed)
    changed = 0
    for _ in range(2000):
        text = "".join(rng.choice(VALUE_PIECES) for _ in range(rng.randrange(0, 30)))
        got = py3_values(text)
        assert got == PY2_LONG.sub(r"\1", text), text
        changed += got != text
    assert changed > 20  # (the texts do hold longs it writes as Python 3 does)
    assert py3_values("torch.Size([64L, 3L]) (1L, 4L, 64L)") == "torch.Size([64, 3]) (1, 4, 64)"

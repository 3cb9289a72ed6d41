"""A notebook's JSON string lines decoded as one string (read/jsonlines.py): the same bytes as reading each line
as a JSON string, dropping its final newline and joining the lines, or None (present.py then reads them so)."""

from __future__ import annotations

import json
import random

from cudnn_doctor.read.jsonlines import decoded_lines
from cudnn_doctor.read.present import present

# pieces of a string's JSON, valid and not: escapes of every kind, an escaped backslash (before an n too), a
# raw quote, a raw control, a newline inside a string, surrogates (a pair, a lone one), raw UTF-8
PIECES = ["plain words ", "cuDNN", "\\u001b[31m", "\\u001B[0m", "\\u2588", "\\\"", "\\/", "\\t", "\\r", "\\b", "\\f",
          "\\\\", "\\\\n", "C:\\\\new", "\\n", "\\u000a", "\\u005c", "\\u005cn", "\\ud83d\\ude00", "\\ud83d", "é█", '"', "\t",
          "\\x", "\\u12", "\\", " ", "\\u0000", "\x7f"]


def _reference(data: bytes) -> bytes | None:
    """Each line read as one JSON string (a comma after it but on the last line), its final newline dropped,
    the lines joined; None when a line is not so or a string holds another newline (present.py's own reading)."""
    lines = data.decode("utf-8", "surrogatepass").split("\n")
    ended = lines[-1] == ""
    body = lines[:-1] if ended else lines
    values = []
    for i, line in enumerate(body):
        s = line.strip(" ")
        if not s.startswith('"') or (i < len(body) - 1 and not s.endswith('",')):
            return None
        try:
            value = json.loads(s[:-1] if s.endswith(",") else s)
        except ValueError:
            return None
        values.append(value.removesuffix("\n"))
    text = "\n".join([*values, ""] if ended else values)
    if text.count("\n") != len(lines) - 1:
        return None
    return text.encode("utf-8", "surrogatepass")


def _line(rng: random.Random, indent: str, pieces: list[str]) -> str:
    return indent + '"' + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 5))) + '\\n",'


def _block(rng: random.Random, pieces: list[str], mutate: bool = True) -> bytes:
    indent = " " * 6
    lines = [_line(rng, indent, pieces) for _ in range(rng.randint(1, 8))]
    if mutate and rng.random() < 0.1:  # another indentation, a line without its comma or its \n, trailing spaces
        i = rng.randrange(len(lines))
        lines[i] = rng.choice([lines[i][1:], lines[i][:-1], lines[i].replace('\\n"', '"'), lines[i] + " "])
    if rng.random() < 0.5:  # the last string of a list
        lines[-1] = lines[-1].rstrip(",")
    return ("\n".join(lines) + ("\n" if rng.random() < 0.3 else "")).encode("utf-8", "surrogatepass")


def test_a_notebooks_string_lines_decode_as_each_line_does() -> None:
    rng = random.Random(29)
    taken = 0
    for _ in range(4000):
        data = _block(rng, PIECES)
        got = decoded_lines(data)
        assert got is None or got == _reference(data), data
        taken += got is not None
    assert taken > 400  # most blocks of valid strings take the one-string way


def test_plain_notebook_lines_always_take_the_one_string_way() -> None:
    rng = random.Random(3)
    valid = [p for p in PIECES if p not in ("\\\\", '"', "\t", "\\x", "\\u12", "\\", "\\n", "\\u000a", "\\u0000", "\\\\n", "C:\\\\new")]
    for _ in range(500):
        data = _block(rng, valid, mutate=False)
        want = _reference(data)
        if want is not None:
            assert decoded_lines(data) == want, data


def test_a_big_notebook_block_is_presented_as_its_lines_decoded() -> None:
    line = '      "2024-05-14T09:00:00Z \\u001b[31mRuntimeError\\u001b[0m: cuDNN error |\\u2588\\u2588| \\"x\\"\\n",'
    data = "\n".join([line] * 8000).encode()
    got = present(data, paste=False)
    assert got is not None and got.undone == ("notebook",)
    assert got.data == _reference(data)
    assert got.data.split(b"\n")[0] == '2024-05-14T09:00:00Z \x1b[31mRuntimeError\x1b[0m: cuDNN error |██| "x"'.encode()
    assert got.origin == tuple(range(8000))

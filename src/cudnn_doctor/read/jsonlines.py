"""A block of a notebook's JSON string lines decoded as one JSON string: a speed mechanism for present.py.

A big notebook's JSON is mostly long lists of strings (an output's ``text``, a ``traceback``), one string and
its comma per line, all at one indentation, each ending in ``\\n``::

          "Epoch 1: loss=0.5\\n",
          "\\u001b[31mRuntimeError\\u001b[0m: cuDNN error\\n",

The notebook presentation (present.py) reads such a block as each line's string decoded, its final newline
dropped, one line each. ``decoded_lines`` makes the same bytes with one ``bytes.replace`` (each line break,
with the ``",`` before it and the next line's indentation and quote, goes: the block becomes one JSON string
whose ``\\n`` escapes are the line ends) and one call of the json module's string scanner. Reading the lines
as a JSON list (a string object per line, each line end then dropped, the lines joined) cost a notebook twice
what a plain log costs per byte (bench/kinds.py: the notebook kind, issue 29's 5 s/GiB). Anything else (a
line that is not such a string, a newline inside a string, a line that ends in an escaped backslash and an
``n`` (``"C:\\\\n",``), anything not JSON) returns None, and present.py reads the lines as before. Equivalence test:
tests/test_jsonlines.py.
"""

from __future__ import annotations

from typing import Any


def _scanstring() -> Any:
    from json.decoder import scanstring  # here: only a notebook needs it

    return scanstring


def decoded_lines(data: bytes) -> bytes | None:
    """``data``'s lines, each one JSON string (and a comma but on the last), decoded and without their final
    ``\\n``, one line each (an empty last line stays empty); None when ``data`` is not such a block."""
    ended = data.endswith(b"\n")
    got = _one_string(data, ended)
    if got is None:
        return None
    value, last = got
    out = value.encode("utf-8", "surrogatepass")
    # an escaped backslash and an n before a line break ('"C:\\\\n",'): that line's string did not end in a newline
    if b"\\" in out and b'\\\\n",\n' in data:
        return None
    if last is ended:  # the last string's newline is the block's own
        return out
    return out[:-1] if last else out + b"\n"


def _one_string(data: bytes, ended: bool) -> tuple[str, bool] | None:
    """The block's strings read as one JSON string (each line break, with the ``\\n",`` before it and the next
    line's indentation and quote, one ``\\n``), and whether the last line's string ends in a newline."""
    quote = data.find(b'"')
    if quote < 0 or data[:quote].strip(b" "):
        return None
    sep = b'\\n",\n' + data[:quote] + b'"'
    joined = data.replace(sep, b"\\n")  # a newline ending data is not in a separator: it is kept
    if joined.find(b"\n", 0, len(joined) - ended) >= 0:  # a line break that is not between two such strings
        return None
    tail = ended + (2 if joined.endswith(b'",', 0, len(joined) - ended) else 1)  # the last quote and after it
    scan = _scanstring()
    try:
        literal = joined.decode()
        value, after = scan(literal, quote + 1)
        # whether the last line's string ends in a newline (the text's last newline may be the line before's)
        last = scan(data[data.rfind(b"\n", 0, len(data) - ended) + 1 :].decode(), quote + 1)[0].endswith("\n")
    except ValueError:  # not UTF-8 (UnicodeDecodeError is one), not a JSON string
        return None
    breaks = (len(data) - len(joined)) // (len(sep) - 2)
    if after != len(literal) - tail + 1 or value.count("\n") != breaks + last:  # a quote or a newline inside a line
        return None
    return value, last

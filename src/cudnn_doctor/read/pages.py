"""Two presentations of a log copied off a web page, undone as entries of present.py's table (paste only).

* A rendered page (a GitHub issue copied from the browser, the log pasted there without a code fence): the
  Markdown was rendered, so a traceback lost its indentation, the tag-like ``<module>`` was dropped (``in``
  ends the frame line) and a dunder became bold text (``__init__`` -> ``init``, in a frame's function, in a
  path's ``/__init__.py``, in ``MGUCell.__init__()``). Seen by its frames: a frame line at the start of a line
  followed by a source line at the start of a line, or a frame whose function is gone. Undone: the frames
  and their source lines indented again, ``<module>`` and the dunders restored.
* A collapsed page (the log's line breaks lost: a web form, a log viewer's one field): a traceback runs on in
  one line, ``File "...", line N, in f`` repeated in it. Seen by two frames, or a traceback's head and a frame,
  on one line. Undone: the line broken where a traceback's lines begin (its head, each frame and the source
  line after it, the exception line after the last frame, the chained-exception lines) and where a log
  record begins (a timestamp, a glog prefix).

Both only break lines or put back characters the rendering took; what they restore is what a traceback
prints, never a message's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..kb.patterns import LazyRe
from .normalize import line_prefix

# ---------------------------------------------------------------- a rendered page

# method names Python surrounds with double underscores that show up in tracebacks; 'call' only outside Keras
# (a Keras layer's forward method is a plain 'call', its base layer's '__call__'); never 'main' (a script's
# 'def main()': '__main__' is a module, in a path only)
_DUNDERS = "init|call|enter|exit|getattr|getattribute|getitem|setitem|setstate|new|iter|next|del|post_init|init_subclass|repr|str|len|bool"
_FRAME_LINE = LazyRe(r'^[ \t]*File "([^"\n]+)", line (\d+), in ?(\S*)[ \t]*$')
# a dunder called in a message or a source line ('MGUCell.__init__()'); not 'call' (Keras's 'LSTM.call()')
_BOLD_DUNDER_CALL = LazyRe(r"(?<=\w\.)(" + _DUNDERS.replace("call|", "") + r")(?=\()")
_MARKERS = LazyRe(r"^[\^~]+[\^~ ]*$")  # the carets under a source line (Python 3.11)
_BOLD_DUNDER_FILE = LazyRe(r"(?<=[/\\])(init|main)(?=\.py\b)")
_RENDERED_FRAME = re.compile(rb'(?:^|\n)File "[^"\n]+", line \d+, in ?\S*[ \t]*\n(?!File "|[ \t])\S|", line \d+, in[ \t]*(?:\n|$)')


def rendered_seen(sample: bytes) -> bool:
    """A frame at a line's start or a frame line that ends in 'in' (literals first: the pattern is ~4 ms per
    100 KiB of a traceback-heavy paste)."""
    starts = sample.startswith(b'File "') or b'\nFile "' in sample
    if not (starts or b", in\n" in sample or b", in \n" in sample or sample.endswith((b", in", b", in "))):
        return False
    return _RENDERED_FRAME.search(sample) is not None


def _restored_frame(m: re.Match[str]) -> str:
    path, line, name = m.group(1), m.group(2), m.group(3)
    path = _BOLD_DUNDER_FILE.sub(r"__\1__", path)
    if not name:
        name = "<module>"
    elif re.fullmatch(_DUNDERS, name) and not (name == "call" and "keras" in path):
        name = f"__{name}__"
    return f'  File "{path}", line {line}, in {name}'


def rendered(lines: list[tuple[str, int]]) -> list[tuple[str, int]] | None:
    """A traceback whose Markdown was rendered, restored (see the module's docstring); None: none seen."""
    frames = [_FRAME_LINE.match(t) for t, _ in lines]
    if not any(m is not None and not m.group(0).startswith(" ") for m in frames):
        return None
    out: list[tuple[str, int]] = []
    after = ""  # what the line before was: a frame, a source line
    for (t, o), m in zip(lines, frames, strict=True):
        if m is not None:
            out.append((_restored_frame(m), o))
            after = "frame"
            continue
        t, after = _after_frame(t, after)
        out.append((t, o))
    return None if out == lines else out


def _after_frame(t: str, after: str) -> tuple[str, str]:
    """A line that is not a frame, its dunders restored, indented where it is a frame's source line (or the
    carets under one), with what it is."""
    source = after == "frame" and t and not t.startswith((" ", "\t")) and not _EXCEPTION_START.match(t)
    if "(" in t:
        t = _BOLD_DUNDER_CALL.sub(r"__\1__", t)
    if source or (t and after == "source" and _MARKERS.match(t)):
        t = "    " + t
    return t, "source" if source else ""


# ---------------------------------------------------------------- a collapsed page

# what begins a line of its own: a traceback's head and frames, the chained-exception lines, a log record
# (timestamp, glog prefix), a Java frame, TensorFlow's status location line and node line
_STARTS = (
    r'Traceback \(most recent call last\):|File "[^"\n]+", line \d+, in |During handling of the above exception'
    r"|The above exception was the direct cause|Caused by: |\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d"
    r"|at [\w$.<>]+\([\w$. ]*(?::\d+)?\)|in [\w/.-]+\.cc\(\d+\): |\[\[(?:\{\{node |Node: )"
    r"|Stacktrace:|\[\d+\] \w|@ [\w.]+ \S+:\d+"  # Julia's stack trace: its frames, each with its location line
)
# a line holds a collapsed log: a traceback's head with text after it, or two line starts, the second inside it
# (after text and one space: a frame indented after a CI prefix is one line of a log; the line's CI or
# container prefix is not looked at, normalize.line_prefix)
_TWO_STARTS = "(?:" + _STARTS + ")[^\n]*?(?<=\\S) (?:" + _STARTS + ")"
_HEAD_RUNS_ON = "Traceback \\(most recent call last\\): \\S"
_COLLAPSED_LINE = LazyRe(_HEAD_RUNS_ON + "|(?:^|(?<=\\S) )" + _TWO_STARTS)
# a line start after a space (the literal the engine skips to): where a collapsed line is looked for, ~0.5 ms
# per 100 KiB where the whole pattern on every line costs 10 ms
_SPACED_START = " (?:" + _STARTS + ")"
_SPACED_START_BYTES = re.compile(_SPACED_START.encode())
_SPACED_START_TEXT = LazyRe(_SPACED_START)
_BREAK = LazyRe(" (?=" + _STARTS + r")|(?<=Traceback \(most recent call last\):) |(?<=another exception occurred:) |(?<=the following exception:) ")
_FRAME_HEAD = LazyRe(r'File "[^"]+", line \d+, in \S+')
_INDENTED = {"at ": "\t", "[[": "\t", "[": "  ", "@ ": "    "}  # before a Java frame, a TensorFlow node line, Julia's frames
# an exception line: a dotted name ending in Error/Exception/Warning, then a colon (or the line's end)
_EXCEPTION_START = LazyRe(r"(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt)(?::|$)")
# ... or a module's exception by its full name ('onnxruntime.capi.onnxruntime_pybind11_state.Fail: ')
_EXCEPTION_IN = LazyRe(r"(?:^| )(?=(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning)(?::| *$)|(?:[a-z_]\w*\.)+[A-Z]\w*: )")


def _candidates(text: str | bytes, starts: re.Pattern[str] | re.Pattern[bytes]) -> list[tuple[int, int]]:
    """(start, end) of each line that holds a line start after text and a space: the lines looked at."""
    out: list[tuple[int, int]] = []
    nl = "\n" if isinstance(text, str) else b"\n"
    for m in starts.finditer(text):  # type: ignore[arg-type]
        i = m.start()
        if (out and i < out[-1][1]) or i == 0 or text[i - 1 : i].isspace():
            continue
        begin = text.rfind(nl, 0, i) + 1  # type: ignore[arg-type]
        end = text.find(nl, i)  # type: ignore[arg-type]
        out.append((begin, len(text) if end < 0 else end))
    return out


def collapsed_seen(sample: bytes) -> bool:
    return any(_broken(sample[a:b].decode("utf-8", "replace")) is not None for a, b in _candidates(sample, _SPACED_START_BYTES))


def _frame_pieces(piece: str) -> list[str]:
    """A frame's piece (``File "...", line N, in f <source> <exception line>``) as its lines."""
    head = _FRAME_HEAD.match(piece)
    if head is None:
        return [piece]
    rest = piece[head.end() :].strip()
    out = ["  " + head.group(0)]
    if rest:
        m = _EXCEPTION_IN.search(rest)
        source, exc = (rest, "") if m is None else (rest[: m.start()].strip(), rest[m.start() :].strip())
        out += (["    " + source] if source else []) + ([exc] if exc else [])
    return out


def _piece_lines(piece: str) -> list[str]:
    if piece.startswith('File "'):
        return _frame_pieces(piece)
    indent = next((v for k, v in _INDENTED.items() if piece.startswith(k)), "")
    return [indent + piece]


def _broken(t: str) -> list[str] | None:
    """A line that holds two line starts, broken into its lines (None: not collapsed); its CI prefix stays
    on its first line."""
    if len(t) < 40:
        return None
    at = line_prefix(t)
    if _COLLAPSED_LINE.search(t[at:]) is None:  # (a slice: '^' is its start)
        return None
    pieces = [p for p in _BREAK.split(t[at:]) if p]
    if len(pieces) < 2:
        return None
    lines = [x for p in pieces for x in _piece_lines(p)]
    return [t[:at] + lines[0], *lines[1:]]


def collapsed(text: str, lines: Callable[[], list[tuple[str, int]]]) -> list[tuple[str, int]] | None:
    """Collapsed tracebacks broken into their lines again (see the module's docstring); None: none seen.
    ``lines``: the text's (line, original line) pairs, asked for only where a line is looked at."""
    at: dict[int, str] = {}
    line = pos = 0
    for a, b in _candidates(text, _SPACED_START_TEXT.compiled):
        line, pos = line + text.count("\n", pos, a), a  # the line's index, counted on from the last one's
        at[line] = text[a:b]
    got = {i: x for i, t in at.items() if (x := _broken(t)) is not None}
    if not got:
        return None
    return [pair for i, (t, o) in enumerate(lines()) for pair in ([(t, o)] if i not in got else [(x, o) for x in got[i]])]

"""Presentations of a log pasted from where it was first seen, each undone as an entry of present.py's table.

* A chat (Slack, Discord, Teams): each line wrapped in a code span (a backtick before and after it), or a code
  block whose triple backticks are glued to its first and last lines (before 'Traceback (most recent call
  last):', after '...FAILED'), or to the middle of a line whose newlines the chat lost. Undone: a span
  that wraps a whole line (next to another such line) loses its backticks; a line is broken where triple
  backticks are glued to text, as the chat's code block begins and ends a line there.
* A Windows PowerShell error record: ``python train.py 2>&1`` makes the first line Python wrote to stderr the
  text of a ``NativeCommandError`` record (``python : Traceback (most recent call last):``, then ``At line:1
  char:1``, ``+ python train.py``, ``+ ~~~``, ``    + CategoryInfo ...``, ``    + FullyQualifiedErrorId :
  NativeCommandError``). Undone: the command's name goes from the line, the record's lines go.
* A terminal's hard wrap re-joined with its padding: a line wrapped at a width the terminal's window was wider
  than, each piece padded with spaces to the window's width and the pieces then joined on one line (a copy of a
  rectangular selection pasted where its line breaks were lost): runs of PAD_MIN spaces or more inside a word or
  a path (``No OpKernel was re<55 spaces>gistered``), the first ending at the window's width, each next one that
  width further, all of one length (two more where the wrap fell on the line's own spaces), met twice at least,
  the wrap's width PAD_WIDTH at least. Undone: the padding goes. The padding between a table's columns
  (``nvidia-smi``, ``pip list``) is not such a run: it stands next to a border, or its lengths vary.
* An error tracker's event (Sentry's issue page): the exception line first as the event's title, then the
  frames most recent first. Seen where frames follow an exception line (Python prints them before it, never
  right after it). Undone: a traceback's head, the frames in the order Python prints them, the exception line.
* An issue posted as it is: its title (the first text line, a Markdown heading or a line a blank line parts from
  the body) holds the error line (``RuntimeError: CUDNN_STATUS_EXECUTION_FAILED``, after the poster's words),
  and the body's last traceback stops before its message line (its frames run to the end of the text: the
  poster cut it). Undone: the title's message, from the exception's name or cuDNN's words on, put after those
  frames as their message line, at the title's line; the title stays. A traceback with its message, or a
  title without one, is left as it is.

Each only drops what the presentation added, breaks a line where it joined two, or puts lines back in the
order Python printed them; a message's words stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..kb.patterns import LazyRe

Lines = list[tuple[str, int]]

# ---------------------------------------------------------------- a chat's code spans and glued code blocks

# a line that is one code span, behind a chat's or a mail's quote marks: '`  File "x.py", line 3, in f`'
_SPAN_LINE = LazyRe(r"^((?:[ \t]{0,3}>[ \t]?)*)`(?!`)(.*[^`])`[ \t]*$")
_FENCE_LINE = LazyRe(r"^[ \t>]*(?:`{3,}|~{3,})[\w+-]*[ \t]*$")  # a fence on a line of its own: Markdown's (present.py)


def chat(text: str, block_lines: Callable[[], Lines]) -> Lines | None:
    """A chat's code spans and glued code blocks undone (see the module's docstring); None: nothing to undo.
    ``block_lines``: the text's (line, original line) pairs, asked for only where a backtick is."""
    if "`" not in text:
        return None
    lines = block_lines()
    spans = [_SPAN_LINE.match(t) if t.endswith("`") or t.endswith("` ") else None for t, _ in lines]
    out: Lines = []
    for i, (t, o) in enumerate(lines):
        m = spans[i]
        if m is not None and _span_neighbour(spans, lines, i):
            out.append((m.group(1) + m.group(2), o))
        elif "```" in t and _FENCE_LINE.match(t) is None:  # each piece behind the line's quote marks
            quote = len(t) - len(t.lstrip(" \t>"))
            out += [(t[:quote] + p, o) for p in t[quote:].split("```")]
        else:
            out.append((t, o))
    return None if out == lines else out


def _span_neighbour(spans: list[object], lines: Lines, i: int) -> bool:
    """The nearest line before or after line ``i`` that is not blank is a span too: a chat's run of lines."""
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(lines) and not lines[j][0].strip(" \t>"):
            j += step
        if 0 <= j < len(lines) and spans[j] is not None:
            return True
    return False


# ---------------------------------------------------------------- a PowerShell error record

_RECORD_HEAD = LazyRe(r"^[\w.-]+ : (?=\S)")  # 'python : ', 'python.exe : '
_RECORD_AT = LazyRe(r"^At (?:line:\d+|.+:\d+) char:\d+\s*$")  # 'At line:1 char:1', 'At C:\run.ps1:12 char:5'
_RECORD_LINE = LazyRe(r"^[ \t]*\+ ")  # '+ python train.py', '+ ~~~~', '    + CategoryInfo : ...'


def powershell(lines: Lines) -> Lines | None:
    """PowerShell's error records of a native command undone (see the module's docstring); None: none seen."""
    out: Lines = []
    i = 0
    changed = False
    while i < len(lines):
        t, o = lines[i]
        head = _RECORD_HEAD.match(t) if i + 1 < len(lines) and _RECORD_AT.match(lines[i + 1][0]) else None
        if head is None:
            out.append((t, o))
            i += 1
            continue
        out.append((t[head.end() :], o))
        j = i + 2
        while j < len(lines) and _RECORD_LINE.match(lines[j][0]):
            j += 1
        if j < len(lines) and not lines[j][0].strip():  # the record's blank line after it
            j += 1
        i, changed = j, True
    return out if changed else None


# ---------------------------------------------------------------- a terminal's wrap re-joined with its padding

PAD_MIN = 20  # spaces a terminal's padding of a wrapped piece is at least
PAD_WIDTH = 40  # the width of a terminal's wrap at least (present.py's hard wraps: 40-200 columns)
# a run inside a word, a path or a name: neither side a space nor a table's border
_PAD_RUN = LazyRe(rf"(?<=[^\s|]) {{{PAD_MIN},}}(?=[^\s|])")
PAD_MARK = re.compile(rb"[^\s|] {%d,}[^\s|]" % PAD_MIN)


def padded_wrap(lines: Lines) -> Lines | None:
    """A terminal's wrap re-joined with its padding undone (see the module's docstring); None: none seen."""
    runs = [[(m.start(), m.end()) for m in _PAD_RUN.finditer(t)] if "  " in t else [] for t, _ in lines]
    fits = [_periods(got) for got in runs]
    support: dict[tuple[int, int], int] = {}  # (period, padding): the runs it fits
    for got, keys in zip(runs, fits, strict=True):
        for key in keys:
            support[key] = support.get(key, 0) + len(got)
    out: Lines = []
    for (t, o), fit in zip(lines, fits, strict=True):
        # the period most runs fit, the longest padding of those (a shorter one leaves a space of the padding)
        keys = sorted((support[k], k[1]) for k in fit if support[k] >= 2)
        out.append((_unpadded(t, keys[-1][1]), o) if keys else (t, o))
    return out if out != lines else None


def _periods(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (period, padding) a line's runs of padding fit: run k holds the padding from k periods and the wrap's
    width (PAD_WIDTH at least) to k + 1 periods, and two spaces of the line's own at most (where the wrap fell
    on a space, before or after the padding)."""
    if not runs:
        return []
    s0, e0 = runs[0]
    got = []
    for period in (e0, e0 - 1, e0 - 2):
        for pad in (e0 - s0, e0 - s0 - 1, e0 - s0 - 2):
            width = period - pad
            if pad >= PAD_MIN and width >= PAD_WIDTH and all(s <= k * period + width and e >= (k + 1) * period and e - s - pad <= 2 for k, (s, e) in enumerate(runs)):
                got.append((period, pad))
    return got


def _unpadded(text: str, pad: int) -> str:
    """A line with ``pad`` spaces of each run of padding taken out (the spaces the wrap fell on stay)."""
    return _PAD_RUN.sub(lambda m: " " * (len(m.group(0)) - pad), text).rstrip(" ")


# ---------------------------------------------------------------- an error tracker's event

# an event's title: an exception's name and its message (a bare name over frames is no event's: VS Code's panel)
_EXCEPTION_LINE = LazyRe(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt): ?\S")
_FRAME = LazyRe(r'^[ \t]+File "[^"\n]+", line \d+, in ')  # a Python frame (MXNet's C++ ones name no function)


_FRAME_AFTER = re.compile(rb'\n[ \t]+File "[^"\n]+", line \d+, in ')
_EXCEPTION_BYTES = re.compile(rb"(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt): ?\S")


_HEAD = "Traceback (most recent call last):"  # a message that begins a traceback (MXNet's): not an event's title


def event_seen(sample: bytes) -> bool:
    """A frame right after an exception line (the frames found first: memchr speed on their newline)."""
    for m in _FRAME_AFTER.finditer(sample):
        begin = sample.rfind(b"\n", 0, m.start()) + 1
        if _EXCEPTION_BYTES.match(sample, begin, m.start()) is not None:
            return True
    return False


def event(lines: Lines) -> Lines | None:
    """An event's frames after its exception line put back before it, most recent last, behind a traceback's
    head (see the module's docstring); None: none seen."""
    out: Lines = []
    i = 0
    changed = False
    while i < len(lines):
        t, o = lines[i]
        if i + 1 < len(lines) and _FRAME.match(lines[i + 1][0]) and _EXCEPTION_LINE.match(t) and not t.rstrip().endswith(_HEAD):
            groups, j = _frame_groups(lines, i + 1)
            out += [("Traceback (most recent call last):", o), *[x for g in reversed(groups) for x in g], (t, o)]
            i, changed = j, True
            continue
        out.append((t, o))
        i += 1
    return out if changed else None


def _frame_groups(lines: Lines, start: int) -> tuple[list[Lines], int]:
    """The frames from line ``start`` on, each with its source lines (indented, not a frame), and where they end."""
    groups: list[Lines] = []
    j = start
    while j < len(lines) and lines[j][0][:1].isspace() and lines[j][0].strip():
        if _FRAME.match(lines[j][0]) or not groups:
            groups.append([lines[j]])
        else:
            groups[-1].append(lines[j])
        j += 1
    return groups, j


# ---------------------------------------------------------------- an issue's title over a traceback cut short

# where an issue title's message begins: an exception's name, a cuDNN error's wrapper or status, after the
# poster's words ('i got RuntimeError: CUDNN_STATUS_INTERNAL_ERROR,')
_TITLE_MESSAGE = LazyRe(r"(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception)\b|(?i:cudnn error)\b|CUDNN_STATUS_[A-Z]")
_TITLE_BYTES = re.compile(rb"(?:Error|Exception)\b|(?i:cudnn error)|CUDNN_STATUS_[A-Z]")
_TITLE_TAIL = LazyRe(r"(?:[ \t,;:]+[^\x00-\x7f]+)*[ \t,;:]*$")  # the poster's East Asian words after it ('... FAILED 求解'), a comma
_TITLE_MAX = 500  # a title's length at most (a first line longer is a log's)
_HEADING = LazyRe(r"^#{1,6}[ \t]+(?=\S)")
_TRACEBACK_HEAD = LazyRe(r"^\s*Traceback \(most recent call last\):\s*$")
_ANY_FRAME = LazyRe(r"""^[ \t]+File ["']""")  # a frame's header ('File '...'': a page's retyped quotes too)
_FIRST_TEXT = re.compile(rb"\s*")


def titled_seen(sample: bytes) -> bool:
    """The first text line holds a message (a title's) and the paste a frame (looked at on the first line only)."""
    start = _FIRST_TEXT.match(sample).end()  # type: ignore[union-attr]
    end = sample.find(b"\n", start)
    first = sample[start : len(sample) if end < 0 else end]
    return _TITLE_BYTES.search(first) is not None and (b'File "' in sample or b"File '" in sample)


def titled(lines: Lines) -> Lines | None:
    """An issue's title (its first text line: a Markdown heading, or a line a blank line parts from the body)
    holding a message, over a body whose last traceback ends without its message line (its frames run to the
    end of the text): the title's message put after those frames, at the title's line. None: not such a paste."""
    texts = [t for t, _ in lines]
    first = next((i for i, t in enumerate(texts) if t.strip()), None)
    if first is None:
        return None
    message = _title_message(texts, first)
    end = _cut_traceback(texts, first) if message is not None else None
    if end is None:
        return None
    return [*lines[:end], (message, lines[first][1]), *lines[end:]]  # type: ignore[list-item]


def _title_message(texts: list[str], first: int) -> str | None:
    title = texts[first].strip()
    if len(title) > _TITLE_MAX:
        return None
    heading = _HEADING.match(title)
    if heading is None and (first + 2 >= len(texts) or texts[first + 1].strip()):
        return None
    m = _TITLE_MESSAGE.search(title.replace("`", ""))
    if m is None:
        return None
    return _TITLE_TAIL.sub("", m.string[m.start() :]) or None


def _cut_traceback(texts: list[str], first: int) -> int | None:
    """Where the last traceback's frames end (an index), when that traceback has no message line: only blank
    lines after its frames (indented lines, a frame among them). None otherwise."""
    head = next((i for i in range(len(texts) - 1, first, -1) if _TRACEBACK_HEAD.match(texts[i])), None)
    if head is None:
        return None
    end = head + 1
    while end < len(texts) and texts[end][:1] in (" ", "\t") and texts[end].strip():
        end += 1
    if any(t.strip() for t in texts[end:]) or not any(_ANY_FRAME.match(t) for t in texts[head + 1 : end]):
        return None
    return end

"""A traceback's frames, read one line at a time: a line read as a frame's header (its file, line and function;
``header``) and the source line the frame shows (``source``). The one reader of frames: rank/tracebacks.py finds
the user's own frame with it, match/tolerant.py where an error was raised. Where a traceback stops, read from its
frames alone (no signature involved; match/tolerant.py asks which signatures are raised there): ``frame`` (a line
that is a frame naming its function), ``innermost`` (a last frame that raises, and the message line after it),
``cut_call`` (a frame whose shown call the input's end cuts or whose message line follows), ``logged`` (a C++
error's log line that ends the input, where its prefix says it was raised), ``backtrace`` (a C++ backtrace's
frames, c10's ``frame #2: at::native::f(...) + 0x1a2 (...)``, pasted without its message), ``ends_input``,
``listed_around``; ``quoted_source``: a raise statement's string literal (C++'s throw, TORCH_CHECK,
OP_REQUIRES) that is pasted source, not a traceback's shown line; and ``prose_line``: a line that is none of a
traceback's, a log's or code's but a user's sentence or title saying an error happened (match/prose.py reads
such lines; rank/findings.py tells an error restated before a log by it).

Presentations:

* Python's ``File "x.py", line N, in f`` (loguru's ``> File ...`` too), its source line the next line; pytest's
  short form ``x.py:42: in f``, the same;
* IPython / Jupyter: ``Cell In[3], line 5``, ``Input In [3], in <cell line: 5>()``, ``File ~/x.py:260, in C.f(a)``
  (IPython 8; a notebook's link, ``File [~/x.py:260](file:///...), in f(a)``) and ``<ipython-input-3-...> in
  <module>`` / ``~/x.py in f(a)`` (IPython 7, whose line only its arrow says); the source line is the one the arrow
  marks among the numbered lines listed under it (``----> 26 code``; a notebook's number a link,
  ``[205](file:///...?line=204)``);
* rich's boxed frames (``│ /x.py:42 in main │``), the source line its ``❱ 42 │ code`` line;
* Julia's, old (``[2] f(x) at /path/file.jl:174``) and new (``[2] f(x)`` then ``@ Main ~/path/file.jl:174``);
* TensorFlow's op context: ``(defined at /x.py:25)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice

from ..kb.patterns import LazyRe

# what a frame is: Python's (it ends a Julia listing), Julia's (listed innermost first), any other
PYTHON, JULIA, OTHER = "python", "julia", "other"
# how a frame shows its source line: the next line (IPython's numbered listing, where it follows), the numbered
# listing under it only, rich's arrow in its box, none
NEXT, LISTING, BOX, NONE = "next", "listing", "box", ""

_PY_FRAME = LazyRe(r'^\s*(?:>\s*)?File\s+"(?P<file>[^"\n]+)",\s*line\s+(?P<line>\d+)(?:,?\s+in\s+(?P<func>.+?))?\s*$')
_IPY8_FRAME = LazyRe(  # a notebook's path a link: File [~/x.py:204](file:///...), in f(a)
    r"^\s*File\s+\[?(?P<file>[^\s\]][^\]\n]*?):(?P<line>\d+)(?:\]\([^)\n]*\))?(?:,\s*in\s+(?P<func>.+?))?\s*$")
_IPY_CELL = LazyRe(r"^\s*(?:Cell|Input) (?P<file>In\s?\[\d+\])(?:, line (?P<line>\d+))?(?:, in (?P<func>.+?))?\s*$")
_IPY7_FRAME = LazyRe(r"^\s*(?P<file><ipython-input-[^>]+>|\S+\.py)\s+in\s+(?P<func>\S.*?)\s*$")
_PYTEST_FRAME = LazyRe(r"^(?P<file>[^\s:]+\.py):(?P<line>\d+): in (?P<func>\S+)\s*$")
_RICH_FRAME = LazyRe(r"^\s*│\s+(?P<file>\S+\.py):(?P<line>\d+) in (?P<func>\S+)?\s*│?\s*$")
_RICH_ARROW = LazyRe(r"^\s*│\s*❱\s*(?P<line>\d+)\s*│\s?(?P<code>.*?)\s*│?\s*$")
_JULIA_OLD = LazyRe(r"^\s*\[\d+\] (?P<func>.+?) at (?P<file>[^\s:]+(?::[\\/][^:]+)?):(?P<line>\d+)\s*$")
_JULIA_HEAD = LazyRe(r"^\s*\[\d+\] (?P<func>\S.*?)\s*$")
_JULIA_AT = LazyRe(r"^\s*@ (?:(?P<module>[\w.]+) )?(?P<file>\S+?):(?P<line>\d+)(?: \[inlined\])?\s*$")
_TF_DEFINED_AT = LazyRe(r".*?\(defined at (?P<file>\S+?):(?P<line>\d+)\)")
_JULIA_LIBRARY_MODULES = frozenset({"Base", "Core", "Main.Base"})
# a function's name as a frame spells it: qualified, its argument list after it at most (not prose: 'in _call after')
_NAME = LazyRe(r"(?:\w+\.)*(?P<name>\w+)\s*(?:\(.*\))?")
# IPython's listed source lines: numbered (a notebook's number a link), the frame's own marked by an arrow; IPython
# 8's '(...)' where it skips lines
_NUMBERED = LazyRe(r"\s*(?:\(\.\.\.\)\s*$|(?P<arrow>-+>\s*)?(?:\[(?P<link>\d+)\]\([^)\n]*\)|(?P<number>\d+)(?=\s|$))[ \t]?)")
MAX_SHOWN = 40  # lines IPython lists around a frame's
MAX_BOX = 15  # lines of rich's box between a frame and its arrow


@dataclass(frozen=True, slots=True)
class Header:
    """A frame's header line, read: its file, its line (None: only its listing's arrow says), its function as
    spelt (its arguments too; '' where it names none), what it is (``PYTHON``, ``JULIA``, ``OTHER``), how it
    shows its source line and whether it is a library's (None: its path says)."""

    file: str
    line: int | None
    func: str
    kind: str = OTHER
    shows: str = NEXT
    library: bool | None = None

    @property
    def name(self) -> str:
        """The function's bare name ('' where the header names none, or prose follows it)."""
        m = _NAME.fullmatch(self.func)
        return m.group("name") if m else ""


# the source line a frame shows (None: none), its number where a listing's arrow says it, and the index of the
# line after it (after the whole listing)
Shown = tuple[str | None, int | None, int]


def _matched(rx: LazyRe, kind: str, shows: str, needs: str = "") -> Callable[[Sequence[str], int], Header | None]:
    """A format's reader of a header: ``rx`` matched at the line's start, on a line that holds ``needs`` (a literal
    the pattern requires, looked for first where the pattern scans the line: a 60 KB line took 1 ms)."""

    def read(lines: Sequence[str], i: int) -> Header | None:
        m = rx.match(lines[i]) if needs in lines[i] else None
        if m is None:
            return None
        got = m.groupdict()
        return Header(got["file"], int(got["line"]) if got.get("line") else None, (got.get("func") or "").strip(), kind, shows)

    return read


def _julia_at(lines: Sequence[str], i: int) -> Header | None:
    m = _JULIA_AT.match(lines[i])
    head = _JULIA_HEAD.match(lines[i - 1]) if m and i else None
    if head is None:
        return None
    lib = True if (m.group("module") or "") in _JULIA_LIBRARY_MODULES else None  # type: ignore[union-attr]
    return Header(m.group("file"), int(m.group("line")), head.group("func"), JULIA, NONE, lib)  # type: ignore[union-attr]


# in the order they are tried: a line is the first format's that recognises it
_FORMATS = (
    _matched(_TF_DEFINED_AT, OTHER, NONE, "(defined at "),
    _matched(_PY_FRAME, PYTHON, NEXT),
    _matched(_IPY_CELL, OTHER, LISTING),
    _matched(_IPY7_FRAME, OTHER, LISTING),
    _matched(_IPY8_FRAME, OTHER, LISTING),
    _matched(_RICH_FRAME, OTHER, BOX),
    _matched(_PYTEST_FRAME, OTHER, NEXT),
    _matched(_JULIA_OLD, JULIA, NONE),
    _julia_at,
)


def header(lines: Sequence[str], i: int) -> Header | None:
    """Line ``i`` of ``lines`` read as a frame's header, by the first presentation that recognises it; None
    where it is none (a Julia ``@`` line reads the line before it for its function)."""
    for read in _FORMATS:
        got = read(lines, i)
        if got is not None:
            return got
    return None


def source(lines: Sequence[str], i: int, frame: Header | None = None) -> Shown:
    """The source line that the frame whose header is line ``i`` (``frame``, read if not given) shows: of a
    numbered listing under it, the line its arrow marks, without its number (None where none is marked); rich's
    arrow line in its box; else the next line, as it stands (a frame shown under it, a message line, are the
    caller's to tell apart)."""
    k = i + 1
    frame = frame or header(lines, i)
    if frame is None or frame.shows == NONE or k >= len(lines):
        return (None, None, k)
    if frame.shows == BOX:
        return _boxed(lines, i)
    if frame.shows == LISTING and not lines[k].strip() and k + 1 < len(lines) and _NUMBERED.match(lines[k + 1]):
        k += 1  # a blank line before the listing
    m = _NUMBERED.match(lines[k])
    if m is None or (frame.shows == NEXT and not m.group("arrow") and not _numbered(lines, k + 1)):
        return (lines[k], None, k + 1)  # (a Python frame's source line that begins with a number: '    2 * x')
    return _listing(lines, k)


def _numbered(lines: Sequence[str], k: int) -> bool:
    return k < len(lines) and _NUMBERED.match(lines[k]) is not None


def _listing(lines: Sequence[str], k: int) -> Shown:
    """The line the arrow marks of the numbered lines listed from line ``k`` on; a line between two of them
    that is not numbered is a long listed line wrapped (a terminal's width), not the listing's end."""
    text, number, end = None, None, min(len(lines), k + MAX_SHOWN)
    while k < end:
        m = _NUMBERED.match(lines[k])
        if m is None:
            if not lines[k].strip() or not _numbered(lines, k + 1) or header(lines, k) is not None:
                break
        elif text is None and m.group("arrow"):
            text, number = lines[k][m.end() :], int(m.group("link") or m.group("number"))
        k += 1
    return (text, number, k)


def listed(line: str) -> bool | None:
    """Whether ``line`` is a source line IPython lists around a frame's: True, the frame's own (its arrow marks
    it); False, one listed around it; None, no listed line."""
    m = _NUMBERED.match(line)
    return None if m is None else m.group("arrow") is not None


def _boxed(lines: Sequence[str], i: int) -> Shown:
    for j in range(i + 1, min(len(lines), i + MAX_BOX)):
        a = _RICH_ARROW.match(lines[j])
        if a:
            return (a.group("code"), int(a.group("line")), j + 1)
        if _RICH_FRAME.match(lines[j]):
            break
    return (None, None, i + 1)


# ------------------------------------------------------------------ where a traceback stops
# (match/tolerant.py asks which signatures are raised where these say an error was raised without its message)

MAX_FRAME_GAP = 6  # lines between a raising frame and the end of its traceback
# a statement's (first) call: after an assignment, return or await, on an object, self or super(); its name
_CALL = LazyRe(
    r"""(?:[\w.,\s()\[\]*]*?(?<![=!<>])=(?!=)\s*)?(?:(?:return|await|yield)\s+)?"""
    r"""(?:super\([^)]*\)\.|(?:[A-Za-z_]\w*(?:\[[^\]\n]*\])?\.)*)(?P<name>[A-Za-z_]\w*)\s*\("""
)
# what may follow a cut traceback's last frame to the input's end: a fence, an ellipsis, the start of a frame
# the cut stopped in (File "/usr/lib/pyth; /usr/lib/pyth)
_CUT_TAIL = LazyRe(r"""\s*(?:`{3}.*|\.{3}|\u2026|(?:File\s+"?)?[\w.~:-]*[/\\]\S*)?\s*""")
# the start of a frame's header (to cut it partway, ``_cut_header``): 'File "/x/rnn.py", line 2', 'File ~/x/rnn.py:23'
_HEADER = LazyRe(r"""\s*File\s+(?:"[^"\n]*"?|\S+)(?:,[ \t\w,.()]*)?$""")
# what Python shows under a frame's source line: the carets under what raised (3.11), a statement's further lines
# (3.13; indented as source lines are, deeper than a frame's header)
_CARETS = LazyRe(r"[ \t]*[~^]+[ \t]*")
_STATEMENT = LazyRe(r"[ \t]{4,}\S")
# a C++ error's log line: where it was raised (a path to a C++ source and its line: glog's 'file.cc:24]',
# dmlc's 'file.cu:24:'), what comes before it (the exception a binding raises it as, a time stamp, glog's
# severity header, TensorFlow's time and severity)
NATIVE_EXTENSIONS = ("c", "cc", "cpp", "cxx", "cu", "cuh", "h", "hpp")  # a C/C++ or CUDA source's: native code
_LOCATION = LazyRe(rf"(?<=[\w-])\.(?P<ext>{'|'.join(NATIVE_EXTENSIONS)}):\d+(?:\]|:)(?=\s|$)")
_LOG_PREFIX = LazyRe(
    r"\s*(?:[\w.]*(?:Error|Exception):\s*)?(?:(?P<stamp>\[[\d:.\- ]{5,30}\])\s*"
    r"|(?P<level>[IWEF])\d{4}\s+[\d:.]+\s+\d+\s+|\d{4}-\d\d-\d\d[ T][\d:.]+:?\s+(?P<level2>[IWEF])\s+)?"
)
# exceptions never a framework's message (``not_raised``): a raise site's never
NOT_RAISED = ("SystemExit", "KeyError", "StopIteration", "KeyboardInterrupt")
# what ends a traceback after its message line (``_ended``): another's start (a rank's prefix before it perhaps),
# Python's note between chained exceptions, a dash separator (JAX's note)
_TRACEBACK_ENDS = LazyRe(
    r"\s*(?:\[[^\]\n]{1,20}\]:?\s*)?Traceback \(most recent call last\)|\s*During handling of the above exception"
    r"|\s*The above exception was the direct cause|\s*-{4,}\s*$"
)
# a log's line (``_ended``): a date and time first ('2024-03-11 10:12:02 INFO', '[2024-03-11 10:12:02]'), a
# level word first ('ERROR: ...'), glog's or TensorFlow's header (``_LOG_PREFIX``)
_LOGGED = LazyRe(r"\s*\[?\d{4}-\d\d-\d\d[ T]\d\d?:\d\d|\s*\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|CRITICAL|FATAL)\b")
_EXCEPTION = LazyRe(r"^\s*(?P<name>[\w.]*(?:Error|Exception|Exit))\b:?\s*(?P<msg>.*)$")
# an attribute a source line reads (``self.reserve_space``), its string literals apart
_ATTRIBUTE = LazyRe(r"\.[ \t]*(?P<name>[A-Za-z_]\w*)")
_STRING = LazyRe(r"'[^'\n]*'|\"[^\"\n]*\"")


def native(path: str) -> bool:
    """Whether ``path`` is a C/C++ or CUDA source's (``NATIVE_EXTENSIONS``), where a raise site is native code."""
    return path.rpartition(".")[2] in NATIVE_EXTENSIONS and "." in path


def frame(line: str) -> tuple[str, str] | None:
    """The file and function of a traceback frame that is the line (``header``; not one quoted in prose:
    '... in _call after upgrading'), where it names its function."""
    head = header((line,), 0)
    return (head.file.replace("\\", "/"), head.name) if head is not None and head.name else None


def innermost(lines: Sequence[str], li: int) -> str | None:
    """The message of the traceback whose last frame, raising there, is at ``li`` (the source line it shows,
    if any, raises, holds the message's text or ends a statement over several lines: not a one-line call into
    native code, nor an assert, which is its own message): "" where no message line with text follows it, the
    message where its line ends the input (cut there, perhaps). None where the frame is not the last, does not
    raise, or a message line that does not end the input follows it."""
    shown, _number, k = source(lines, li)
    for j, line in enumerate([*([shown] if shown is not None else []), *lines[k : k + MAX_FRAME_GAP - 1]]):
        if header((line,), 0) is not None:
            return None
        m = _EXCEPTION.match(line)
        if m:
            msg = m.group("msg").strip()
            return "" if len(msg) < 3 else msg if ends_input(lines, k + j - (shown is not None)) else None
        if j == 0 and shown is not None and line.strip() and not _raising(line) and not _closes(line):
            return None
    return ""


def ends_input(lines: Sequence[str], li: int) -> bool:
    """Whether line ``li`` is the input's last with text."""
    return not any(lines[j].strip() for j in range(li + 1, len(lines)))  # (stops at the first: a big log's lines are read lazily)


def logged(lines: Sequence[str], li: int) -> tuple[str, str] | None:
    """(the file, the message) of a C++ error's log line at ``li`` that ends the input, whose glog or dmlc
    prefix says where it was raised: ``[15:45:06] src/operator/rnn.cu:24: msg``, ``F0101 12:00:00.1 99
    rnn_op.cc:24] msg``, TF's ``2020-01-11 22:24:39.2: E tensorflow/.../cuda_dnn.cc:596] msg``, after the
    exception a binding raises it as; a path with spaces only after a time stamp (a Windows build's). Not an
    info or warning line: a warning does not raise."""
    line = lines[li]
    found = _LOCATION.search(line) if ".c" in line or ".h" in line else None
    if found is None:
        return None
    prefix = _LOG_PREFIX.match(line, 0, found.start())
    path = line[prefix.end() : found.start() + 1 + len(found.group("ext"))]  # type: ignore[union-attr]
    level = prefix.group("level") or prefix.group("level2")  # type: ignore[union-attr]
    if level in ("I", "W") or not path.strip() or (" " in path and not (level or prefix.group("stamp"))) or not ends_input(lines, li):  # type: ignore[union-attr]
        return None
    return path.replace("\\", "/").replace("/./", "/"), line[found.end() :].strip()


# a C++ backtrace's frame as c10 prints it (c10/util/Backtrace.cpp; PyTorch's C++ errors, innermost first): its
# function demangled, its argument list too from 1.x builds on ('frame #2: at::native::f(c10::ArrayRef<at::Tensor>,
# long) + 0x1a2 (0x7f... in /x/libtorch_cuda.so)'; 'frame #0: std::function<std::string ()>::operator()() const +
# 0x11 (0x7f... in libc10.so)'), the object it is in left off where a paste cut it
_C10_FRAME = LazyRe(r"\s*frame #\d+: (?P<func>\S.*?) \+ 0x[0-9a-fA-F]+(?: \(0x[0-9a-fA-F]+ in [^)\n]*\)?)?\s*")
# the line PyTorch 1.10+ prints between a C++ error's message and its backtrace, where it was raised
_RAISED_FROM = LazyRe(r"\s*Exception raised from (?P<func>\S+) at (?P<file>\S+?):\d+ \(most recent call first\):\s*")
_WHAT = LazyRe(r"\s*what\(\):\s*(?P<msg>.*)$")  # std::terminate's line for an uncaught C++ exception's message
_TEMPLATE_ARGS = LazyRe(r"<[^<>]*>")
_MACHINERY = ("c10::", "std::", "<unknown")  # the frames that build and throw a C++ error, not where it was raised


def backtrace(lines: Sequence[str], li: int) -> tuple[str | None, str] | None:
    """Where a C++ backtrace that starts at line ``li`` (its first ``frame #N:`` line) and has no message says
    an error was raised: (the file, the function) of the ``Exception raised from f at file:N`` line above it,
    else (None, the bare name of its innermost frame outside c10's and the standard library's own machinery,
    ``_MACHINERY``): a backtrace pasted without the message its what() or exception line gives (no such line with
    text in the AROUND_RAISE lines above it). Only that one function: an error raised in a function it calls
    (``empty_cuda``'s out of memory under ``_cudnn_rnn_flatten_weight``) is not one of the caller's. None where
    line ``li`` does not start a backtrace, a message comes with it, or none of its frames is named."""
    if not _C10_FRAME.fullmatch(lines[li]) or (li and _C10_FRAME.fullmatch(lines[li - 1])):
        return None
    top = li - 1 if li and _RAISED_FROM.fullmatch(lines[li - 1]) else li
    for line in lines[max(0, top - AROUND_RAISE) : top]:
        m = _WHAT.match(line) or _EXCEPTION.match(line)
        if m and len(m.group("msg").strip()) >= 3:
            return None
    raised = _RAISED_FROM.fullmatch(lines[top])
    if raised is not None:
        return raised.group("file").replace("\\", "/"), raised.group("func")
    for line in lines[li:]:
        m = _C10_FRAME.fullmatch(line)
        if m is None:
            break
        if not m.group("func").startswith(_MACHINERY):
            return None, native_name(m.group("func"))
    return None


def native_name(func: str) -> str:
    """The bare name of a C++ function as a backtrace spells it, qualified, with template and function arguments
    ('at::native::_cudnn_rnn_flatten_weight(c10::ArrayRef<at::Tensor>, long)': '_cudnn_rnn_flatten_weight')."""
    func = func.replace("(anonymous namespace)", "")
    for _ in range(8):  # nested template arguments, the innermost first
        if "<" not in func:
            break
        func = _TEMPLATE_ARGS.sub("", func)
    return func.partition("(")[0].rpartition("::")[2].strip()


def listed_around(lines: Sequence[str], li: int) -> bool:
    """Whether line ``li`` is a source line IPython lists around a frame's only as context (numbered, without
    the arrow that marks the frame's own), in a statement that raises nothing: a format string passed there
    ('Expected hidden[0] size {}, got {}' to check_hidden_size) is not the message raised."""
    if listed(lines[li]) is not False:
        return False
    return not any("raise" in lines[j] for j in range(max(0, li - 2), li + 1))


def cut_call(lines: Sequence[str], li: int) -> tuple[str, str | None] | None:
    """The function called by the source line that the frame at ``li`` shows, where its traceback stops
    there, and its message: None where the input cuts the traceback there (no frame, no message follows, only
    what a cut leaves, ``_CUT_TAIL``; the next frame's header cut partway, ``_cut_header``); the message (""
    where it has no text) where the message line follows it, ending the input (after the carets or the
    further lines of a statement over several lines that Python shows under it)."""
    shown, _number, k = source(lines, li)
    # (every frame of a long traceback is asked, its lines are read lazily: the message line right after it first)
    emptied = _emptied(lines, k) is not None  # then whatever follows it (a log's line, JAX's note)
    if shown is None or (not emptied and len(lines) - k > MAX_FRAME_GAP) or _EXCEPTION.match(shown) or frame(shown):
        return None
    m = _CALL.match(shown.strip())
    return None if m is None else (m.group("name"), "") if emptied else _stops(m.group("name"), lines[k:])


def _emptied(lines: Sequence[str], k: int) -> str | None:
    """The exception named by the message line with no text that the lines from ``k`` after a frame's shown
    source line start with (the carets under it, its statement's further lines before it), where the
    traceback ends there (``_ended``); None where they start otherwise, the line has text (``RuntimeError: 42``:
    a message), names an exception no framework raises its message as (``NOT_RAISED``), or prose follows it
    (a message that starts with a newline: its text goes on on the next lines)."""
    for j in range(k, min(len(lines), k + MAX_FRAME_GAP)):
        line = lines[j]
        if _CARETS.fullmatch(line) or _STATEMENT.match(line) or not line.strip():
            continue
        m = _EXCEPTION.match(line)
        if m is None or m.group("msg").strip() or not_raised(m.group("name")):
            return None
        return m.group("name").rpartition(".")[2] if _ended(lines, j + 1) else None
    return None


def not_raised(name: str) -> bool:
    """Whether the exception ``name`` (dotted perhaps) is never a framework's message: exiting, a dict's or an
    iterator's, an interrupt (``NOT_RAISED``)."""
    return name.rpartition(".")[2].startswith(NOT_RAISED)


def _ended(lines: Sequence[str], j: int) -> bool:
    """Whether the traceback whose message line is before ``j`` ends there: the next line with text is none
    (the input's end), another traceback's start, Python's note between chained exceptions, a dash separator
    (JAX's note) or a log's line (a time stamp or a level, ``_LOG_PREFIX``)."""
    line = next((x for x in islice(lines, j, None) if x.strip()), None)
    if line is None or _TRACEBACK_ENDS.match(line) or _LOGGED.match(line):
        return True
    m = _LOG_PREFIX.match(line)
    return m is not None and any(m.group(g) for g in ("stamp", "level", "level2"))


def raised_as(lines: Sequence[str], li: int) -> str | None:
    """The exception the message line of the traceback whose last frame is at ``li`` names ('ValueError'; a
    dotted name's last part), after the source line the frame shows and what Python shows under it; None
    where no message line follows it before another frame's header."""
    shown, _number, k = source(lines, li)
    for line in [*([shown] if shown is not None else []), *lines[k : k + MAX_FRAME_GAP - 1]]:
        if header((line,), 0) is not None:
            return None
        if (m := _EXCEPTION.match(line)) is not None:
            return m.group("name").rpartition(".")[2]
    return None


def attributes_read(lines: Sequence[str], li: int) -> list[str]:
    """The attributes read by the source line that the last frame of a traceback, at ``li``, shows (and its
    statement's further lines), where its message line follows with no text and names an AttributeError: the
    line itself raised it, reading one of them (``hx, cx, w, xs, ys, self.reserve_space,``: reserve_space);
    [] otherwise."""
    shown, _number, k = source(lines, li)
    after = lines[k : k + MAX_FRAME_GAP]
    if shown is None or _EXCEPTION.match(shown) or frame(shown) or _emptied(lines, k) != "AttributeError":
        return []
    code = [shown, *(x for x in after if _STATEMENT.match(x) and not _EXCEPTION.match(x))]
    return [m.group("name") for line in code for m in _ATTRIBUTE.finditer(_STRING.sub("", line))]


def _stops(called: str, after: Sequence[str]) -> tuple[str, str | None] | None:
    """(``called``, the message) where the lines after a frame's shown call stop its traceback there (see
    ``cut_call``)."""
    rest = list(after)
    while rest and _CARETS.fullmatch(rest[0]):
        rest.pop(0)
    texts = [j for j, x in enumerate(rest) if x.strip()]
    last = texts[-1] if texts else -1
    told = _EXCEPTION.match(rest[last]) if texts else None
    if told and all(_STATEMENT.match(rest[j]) for j in texts[:-1]):
        msg = told.group("msg").strip()
        return called, "" if len(msg) < 3 else msg
    if not all(_cut_header(x, called, j == last) if frame(x) or not _CUT_TAIL.fullmatch(x) else True for j, x in enumerate(rest)):
        return None
    return called, None


def _cut_header(line: str, called: str, last: bool) -> bool:
    """Whether ``line``, the input's last with text, is the header of the frame of ``called`` cut partway: in
    its path or line number (``File "/x/torch/nn/modules/rnn.py", line 2``; IPython's ``File ~/x/rnn.py:23``),
    or in the function's name (``..., in check_forw``: its start)."""
    if not last or not _HEADER.match(line):
        return False
    at = frame(line)
    return at is None or (at[1] != called and called.startswith(at[1]))


def _raising(line: str) -> bool:
    """Whether a frame's shown source line raises: a raise statement (``_RAISES``), or a line with a string
    literal, its message (``self.check_hidden_size(hx, expected, 'Expected hidden size {}')``), but an assert's."""
    return _RAISES.match(line) is not None or (("'" in line or '"' in line) and not _ASSERT.match(line))


def _closes(line: str) -> bool:
    """Whether a source line closes more brackets than it opens: the last line of a statement over several
    lines (``    input.size(1), self.input_size))``), the one line of a multi-line raise older Pythons show."""
    return line.count(")") + line.count("]") > line.count("(") + line.count("[")


# a statement that raises, as source code shows it (an IPython listing's number and arrow before it): Python's raise,
# C++'s throw and the checks that throw (PyTorch's TORCH_CHECK(cond, "msg", ...), TORCH_INTERNAL_ASSERT, AT_ERROR,
# AT_ASSERTM; TensorFlow's OP_REQUIRES(ctx, cond, errors::InvalidArgument("msg")), its status on a line of its own):
# a message in its string literal is the framework's code quoted, not the error raised, unless it is the source
# line a traceback shows (``quoted_source``)
# (as printed: a frame's header and a message line are read in their case too)
_RAISES = LazyRe(
    r"[ \t]*(?:-*>[ \t]*)?(?:\d+[ \t]+(?:\|[ \t]+)?)?(?:(?:raise|throw)\b"
    r"|(?:TORCH_CHECK|TORCH_INTERNAL_ASSERT|AT_ERROR|AT_ASSERTM?|OP_REQUIRES)\w*[ \t]*\(|(?:errors|absl)::\w+\()"
)
_ASSERT = LazyRe(r"[ \t]*assert\b")
AROUND_RAISE = 12  # lines above a raise read for a frame's header, and after it for its message line
_ANY_CASE_HEADER = LazyRe(r'(?i)[ \t]*file[ \t]+"[^"\n]+",[ \t]+line[ \t]+\d+')  # Python's, in a log re-cased whole
LISTED_AFTER = 2  # lines with text after a raise's literal that may be its own statement's ('.format(\n  a, b))')


def quoted_source(lines: Sequence[str], li: int, col: int) -> bool:
    """Whether text at column ``col`` of line ``li`` is inside the string literal of a raise statement (C++'s
    throw or check, ``_RAISES``) that starts on that line or the line before, in a listing of source code: no traceback frame's header in the
    AROUND_RAISE lines above it, no exception's message line in the AROUND_RAISE lines after it (pytest's long
    format shows it as an 'E   ' line, its header below it), and more lines after it than the statement's own
    (LISTED_AFTER): a paste of the framework's source ('raise ValueError("RNN cell does
    not support constants")' among the lines around it), not the source line a traceback shows (a frame above it,
    its message line after it, or the input cut there: a cut traceback's last frame); in C++ source, ``TORCH_CHECK(
    weight_arr.size() > 0, "...: cannot flatten empty weight list")`` among the lines of its function."""
    text = lines[li]
    head = text[:col]
    if head.count("'") % 2 == 0 and head.count('"') % 2 == 0:
        return False  # not inside a string literal
    if not _RAISES.match(text) and not (li > 0 and _RAISES.match(lines[li - 1])):
        return False
    after = [t for t in lines[li + 1 : li + 1 + AROUND_RAISE] if t.strip()]
    if len(after) <= LISTED_AFTER or any(_EXCEPTION.match(t) or t.startswith("E ") for t in after):
        return False
    above = lines[max(0, li - AROUND_RAISE) : li + 1]
    return not any(header(above, j) is not None or _ANY_CASE_HEADER.match(above[j]) for j in range(len(above) - 1))


LINE_MIN, LINE_MAX = 20, 300  # characters of a prose line
PLAIN_WORDS = 4  # lower-case words of prose a line holds at least
# what says an error happened: an error, a failure, a crash, a requirement or expectation, something unsupported or
# that cannot be done
_CUE = LazyRe(
    r"(?i)\b(?:errors?|fail(?:s|ed|ing|ure)?|crash(?:es|ed|ing)?|rais(?:es|ed|ing)|throws?|exceptions?|complains?"
    r"|requires?|required|expects?|expected|must|mismatch(?:ed|es)?|unsupported|not\s+supported|invalid|wrong"
    r"|cannot|can't|can\s+not|unable|(?:does\s*n[o']?t|do\s*n[o']?t)\s+support)\b"
)
# a question: its answer is asked for, not an error described ('how do I use pack_padded_sequence on GPU?')
_QUESTION = LazyRe(r"(?i)^(?:[#>*\-\s]*)(?:how|what|why|can|could|should|is|are|does|do|where|which|when|any|anyone)\b|\?\s*$")
# what is not prose: a traceback's frame or header, a message with its exception, a log line (a source location,
# a time stamp, glog's header, a level: 'INFO: [Torch-TensorRT] - ...', '... ERROR - converting ...'), code (an assignment, a prompt, a statement, an indented block), a code comment;
# not a package pinned to its release in a sentence ('on torch=2.0.1, ...': conda's spelling of a version, no code), which
# a '=' between a name and a release (X.Y.Z, or X.Y not 0.Y: 'lr=0.001', 'loss=0.6931' are values), then a space, a comma
# or the line's end, is
_NOT_PROSE = LazyRe(
    r"^\s*(?:File\s|Traceback\b|[\w.]*(?:Error|Exception|Warning)\b\s*:|>>>|\.\.\.\s|(?:import|from|def|class|return|raise"
    r"|assert|print|if|for|with|while)\b|#(?!#{0,5}\s+[A-Z\[])|//|\[?\d{4}-\d\d-\d\d|[IWEF]\d{4}\s| {4}|\t)"
    r"|\b(?:INFO|DEBUG|TRACE|NOTICE|WARN(?:ING)?|ERROR|FATAL|CRITICAL|SEVERE)\]?(?:\s*[:\]|]|\s+-\s)"
    r"|[^=!<>]=(?!=|(?<=\w=)(?:\d+(?:\.\d+){2,}|[1-9]\d*\.\d+)(?=[\s,;]|$))|\.(?:cc|cu|cpp|cxx|h|hpp|py)\b\s*[:\],\"]"
)
_PLAIN = LazyRe(r"(?<![\w.`'\"])[a-z]{2,}(?![\w.(\[`'\"])")


def prose_line(line: str) -> bool:
    """Whether a line is prose that says an error happened: a sentence or a title, not a question."""
    text = line.strip()
    if not LINE_MIN <= len(text) <= LINE_MAX or _NOT_PROSE.search(line) or _QUESTION.search(text):
        return False
    return _CUE.search(text) is not None and len(_PLAIN.findall(text)) >= PLAIN_WORDS

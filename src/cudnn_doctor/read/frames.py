"""A traceback's frames, read one line at a time: a line read as a frame's header (its file, line and function;
``header``) and the source line the frame shows (``source``). The one reader of frames: rank/tracebacks.py finds
the user's own frame with it, match/tolerant.py where an error was raised (a cut traceback's innermost frame, the
call its source line shows).

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


def _matched(rx: LazyRe, kind: str, shows: str) -> Callable[[Sequence[str], int], Header | None]:
    def read(lines: Sequence[str], i: int) -> Header | None:
        m = rx.match(lines[i])
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
    _matched(_TF_DEFINED_AT, OTHER, NONE),
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

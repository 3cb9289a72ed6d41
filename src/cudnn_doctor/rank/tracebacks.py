"""Find the user's own code line in the traceback above an error.

Understands:

* Python tracebacks, chained ones too: each "During handling of the above exception" / "The above exception
  was the direct cause" section (and each new ``Traceback (most recent call last):``) starts a traceback of
  its own, and only the last one counts: it is the one that killed the job;
* IPython / Jupyter frames: ``Cell In[3], line 5``, ``Input In [3], in <cell line: 5>()``,
  ``File ~/x.py:260, in f`` (IPython 8) and ``<ipython-input-3-...> in <module>`` / ``~/x.py in f(a)``
  (IPython 7), whose line and code come from the ``---> 26 code`` arrow line;
* loguru's frames (``> File "x.py", line 3, in f`` and its ``│ └`` variable annotations), rich's boxed
  tracebacks (``│ /x.py:42 in main``, ``❱ 42 │ code``) and pytest's short form (``x.py:42: in f``);
* TensorFlow's op context: ``Detected at node 'm/lstm/CudnnRNN' defined at (most recent call last):`` and
  ``Caused by op 'lstm/CudnnRNN', defined at:`` followed by ``File "x.py", line N, in f`` frames,
  ``Node: 'm/lstm/CudnnRNN'``, ``[[{{node m/lstm/CudnnRNNV3}}]]``, ``[[Node: lstm/CudnnRNN = CudnnRNN[...]]]``
  and ``[[node m/lstm/CudnnRNN (defined at /x.py:25) ]]``;
* Julia stack frames, old (``[2] f(x) at /path/file.jl:174``) and new (``[2] f(x)`` then
  ``@ Main ~/path/file.jl:174``); Julia lists the innermost frame first, so they are reversed.

The user's frame is the innermost frame whose file is not inside site-packages / dist-packages, the standard
library, a conda / venv / pyenv lib folder, a framework's own source tree (torch/, tensorflow/, keras/, jax/,
~/.julia/packages, Julia's Base) or a ``<frozen ...>`` module.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..kb.patterns import LazyRe

_PY_FRAME = LazyRe(r'^\s*(?:>\s*)?File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$', re.MULTILINE)
_IPY8_FRAME = LazyRe(r"^\s*File (?P<file>\S.*?):(?P<line>\d+)(?:, in (?P<func>.+?))?\s*$", re.MULTILINE)
_IPY_CELL = LazyRe(r"^\s*Cell (?P<file>In\s?\[\d+\]), line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$", re.MULTILINE)
_IPY_INPUT = LazyRe(r"^\s*Input (?P<file>In \[\d+\]), in (?P<func>.+?)\s*$", re.MULTILINE)
_IPY7_FRAME = LazyRe(r"^(?P<file><ipython-input-[^>]+>|\S+\.py) in (?P<func>\S.*?)\s*$", re.MULTILINE)
_IPY_ARROW = LazyRe(r"^\s*-*> ?(?P<line>\d+)\s(?P<code>.*)$", re.MULTILINE)
_PYTEST_FRAME = LazyRe(r"^(?P<file>[^\s:]+\.py):(?P<line>\d+): in (?P<func>\S+)\s*$", re.MULTILINE)
_RICH_FRAME = LazyRe(r"^\s*│\s+(?P<file>\S+\.py):(?P<line>\d+) in (?P<func>\S+)?\s*│?\s*$", re.MULTILINE)
_RICH_ARROW = LazyRe(r"^\s*│\s*❱\s*(?P<line>\d+)\s*│\s?(?P<code>.*?)\s*│?\s*$", re.MULTILINE)
_JULIA_OLD = LazyRe(r"^\s*\[\d+\] (?P<func>.+?) at (?P<file>[^\s:]+(?::[\\/][^:]+)?):(?P<line>\d+)\s*$", re.MULTILINE)
_JULIA_HEAD = LazyRe(r"^\s*\[\d+\] (?P<func>\S.*?)\s*$", re.MULTILINE)
_JULIA_AT = LazyRe(r"^\s*@ (?:(?P<module>[\w.]+) )?(?P<file>\S+?):(?P<line>\d+)(?: \[inlined\])?\s*$", re.MULTILINE)
_TF_DEFINED_AT = LazyRe(r"\(defined at (?P<file>\S+?):(?P<line>\d+)\)", re.MULTILINE)

_CHAIN = LazyRe(r"^(?:During handling of the above exception|The above exception was the direct cause)", re.MULTILINE)
_NEW_TRACEBACK = LazyRe(
    r"^(?:\w[\w.]*\s+)?Traceback \(most recent call last\)|^(?:ERROR: .*)?Stacktrace:$", re.MULTILINE)
_NOT_CODE = LazyRe(
    r"^(?:Traceback|\[\d+\]|@ |[│└┌├╰╭]|\w[\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b"
    r"|File |During handling"
    r"|The above exception|[~^\s]+$|Node:|Detected at node|Caused by op)", re.MULTILINE)
_NODE = (
    LazyRe(r"\{\{node (?P<node>[^}\s]+)\}\}", re.MULTILINE),
    LazyRe(r"\[\[node (?P<node>[^\s\]]+)", re.MULTILINE),
    LazyRe(r"\[\[Node: (?P<node>[^\s=\]]+)", re.MULTILINE),
    LazyRe(r"^\s*Node: '(?P<node>[^']+)'", re.MULTILINE),
    LazyRe(r"Detected at node '?(?P<node>[^'\s]+?)'? defined at", re.MULTILINE),
    LazyRe(r"Caused by op '(?P<node>[^']+)', defined at", re.MULTILINE),
)
_LIBRARY = LazyRe(
    r"(?:[\\/](?:site|dist)-packages[\\/]"
    r"|[\\/]lib(?:64)?[\\/]python\d(?:\.\d+)?[\\/]"  # stdlib (and everything under it)
    r"|[\\/]Python\d+[\\/]Lib[\\/]"  # Windows stdlib
    r"|^<frozen |^<string>$|^<decorator-gen|^<__array_function__"
    r"|[\\/](?:anaconda|miniconda|miniforge|mambaforge)\d*[\\/](?:envs[\\/][^\\/]+[\\/])?lib[\\/]"
    r"|[\\/]envs[\\/][^\\/]+[\\/]lib[\\/]|[\\/]\.?venv[\\/]lib[\\/]|[\\/]\.pyenv[\\/]versions[\\/]"
    r"|[\\/](?:torch|tensorflow|tensorflow_core|keras|tf_keras|jax|jaxlib)[\\/]"  # framework source trees
    r"|^/pytorch/|^external[\\/]|[\\/]\.julia[\\/]packages[\\/]|[\\/]share[\\/]julia[\\/]|^\./\w+\.jl$"
    r"|[\\/]julia[\\/](?:base|stdlib)[\\/])",
    re.MULTILINE | re.IGNORECASE,
)
_JULIA_LIBRARY_MODULES = frozenset({"Base", "Core", "Main.Base"})


@dataclass(frozen=True, slots=True)
class Frame:
    """A stack frame read from a traceback (Python, C++, Julia, Lua, a notebook cell)."""

    file: str
    line: int
    func: str
    code: str
    node: str = ""

    def to_record(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "function": self.func,
            "code": self.code,
            "node": self.node or None,
        }


@dataclass(slots=True)
class _Raw:
    """A frame as parsed, before library frames are told apart from the user's."""

    file: str
    line: int
    func: str
    code: str = ""
    library: bool | None = None  # None: decide from the path


def _code_after(lines: Sequence[str], i: int) -> str:
    if i + 1 >= len(lines):
        return ""
    nxt = lines[i + 1].strip()
    if not nxt or _NOT_CODE.match(nxt) or _PY_FRAME.match(lines[i + 1]):
        return ""
    return nxt[:300]


def _arrow_code(lines: Sequence[str], i: int) -> tuple[int | None, str]:
    """The ``---> 26 code`` line of an IPython frame listing starting after line ``i``."""
    for j in range(i + 1, min(len(lines), i + 40)):
        s = lines[j]
        m = _IPY_ARROW.match(s)
        if m:
            return int(m.group("line")), m.group("code").strip()[:300]
        if not s.strip() and j > i + 1:
            break
    return None, ""


def _sections(lines: Sequence[str]) -> tuple[list[_Raw], str]:
    """Frames of the last traceback section (outermost first) and the last TF node name seen."""
    out: list[_Raw] = []
    julia: list[_Raw] = []  # Julia prints the innermost frame first: reversed when its listing ends
    node = ""
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if _CHAIN.match(stripped) or _NEW_TRACEBACK.search(stripped):
            out, node = [], ""
            julia.clear()
            continue
        node = _node_name(line) or node
        parsed = _parse_frame(lines, i)
        if parsed is None:
            continue
        kind, raw = parsed
        if kind == _PYTHON:
            out.extend(reversed(julia))
            julia.clear()
        if raw is not None:
            (julia if kind == _JULIA else out).append(raw)
    out.extend(reversed(julia))
    return out, node


def _node_name(line: str) -> str:
    """The TensorFlow graph node a line names ('' if none)."""
    for rx in _NODE:
        nm = rx.search(line)
        if nm:
            return nm.group("node")
    return ""


# what a frame line is: a Python frame (ends a Julia listing), a Julia frame, any other frame
_PYTHON, _JULIA, _OTHER = "python", "julia", "other"
_Parsed = tuple[str, "_Raw | None"]  # (kind, the frame; None: a frame header that yields no frame)


def _parse_frame(lines: Sequence[str], i: int) -> _Parsed | None:
    """Line ``i`` read as a frame of the first format that recognises it, or None."""
    for parse in _FRAME_FORMATS:
        got = parse(lines, i)
        if got is not None:
            return got
    return None


def _tf_defined_at(lines: Sequence[str], i: int) -> _Parsed | None:
    d = _TF_DEFINED_AT.search(lines[i]) if "defined at" in lines[i] else None
    return (_OTHER, _Raw(d.group("file"), int(d.group("line")), "")) if d else None


def _python_frame(lines: Sequence[str], i: int) -> _Parsed | None:
    m = _PY_FRAME.match(lines[i])
    if not m:
        return None
    return _PYTHON, _Raw(m.group("file"), int(m.group("line")), (m.group("func") or "").strip(), _code_after(lines, i))


def _ipython_cell(lines: Sequence[str], i: int) -> _Parsed | None:
    m = _IPY_CELL.match(lines[i])
    if not m:
        return None
    _, code = _arrow_code(lines, i)
    return _OTHER, _Raw(m.group("file"), int(m.group("line")), (m.group("func") or "").strip(), code, library=False)


def _ipython_input(lines: Sequence[str], i: int) -> _Parsed | None:
    m = _IPY_INPUT.match(lines[i]) or _IPY7_FRAME.match(lines[i])
    if not m:
        return None
    num, code = _arrow_code(lines, i)
    return _OTHER, (_Raw(m.group("file"), num, m.group("func").strip(), code) if num is not None else None)


def _ipython8_frame(lines: Sequence[str], i: int) -> _Parsed | None:
    m = _IPY8_FRAME.match(lines[i])
    if not m:
        return None
    _, code = _arrow_code(lines, i)
    return _OTHER, _Raw(m.group("file"), int(m.group("line")), (m.group("func") or "").strip(), code)


def _rich_frame(lines: Sequence[str], i: int) -> _Parsed | None:
    m = _RICH_FRAME.match(lines[i])
    if not m:
        return None
    code = ""
    for j in range(i + 1, min(len(lines), i + 15)):
        a = _RICH_ARROW.match(lines[j])
        if a:
            code = a.group("code").strip()[:300]
            break
        if _RICH_FRAME.match(lines[j]):
            break
    return _OTHER, _Raw(m.group("file"), int(m.group("line")), m.group("func") or "", code)


def _pytest_frame(lines: Sequence[str], i: int) -> _Parsed | None:
    m = _PYTEST_FRAME.match(lines[i])
    return (_OTHER, _Raw(m.group("file"), int(m.group("line")), m.group("func"), _code_after(lines, i))) if m else None


def _julia_old(lines: Sequence[str], i: int) -> _Parsed | None:
    m = _JULIA_OLD.match(lines[i])
    return (_JULIA, _Raw(m.group("file"), int(m.group("line")), m.group("func").strip())) if m else None


def _julia_at(lines: Sequence[str], i: int) -> _Parsed | None:
    m = _JULIA_AT.match(lines[i])
    if not m or i == 0:
        return None
    head = _JULIA_HEAD.match(lines[i - 1])
    if not head:
        return _JULIA, None
    lib = True if (m.group("module") or "") in _JULIA_LIBRARY_MODULES else None
    return _JULIA, _Raw(m.group("file"), int(m.group("line")), head.group("func"), library=lib)


# in the order they are tried: a line is the first format's that recognises it
_FRAME_FORMATS = (
    _tf_defined_at, _python_frame, _ipython_cell, _ipython_input, _ipython8_frame, _rich_frame, _pytest_frame,
    _julia_old, _julia_at,
)


def frames(lines: Sequence[str]) -> list[Frame]:
    """Frames of the last traceback section in ``lines``, outermost first (older sections are dropped)."""
    raws, node = _sections(lines)
    return [Frame(r.file, r.line, r.func, r.code, node) for r in raws]


def tf_node(lines: Sequence[str]) -> str | None:
    """The TensorFlow op (graph node) named in the last traceback section, e.g. ``model/lstm/CudnnRNN``."""
    return _sections(lines)[1] or None


def is_library(path: str) -> bool:
    return bool(_LIBRARY.search(path.strip()))


def user_frame(lines: Sequence[str]) -> Frame | None:
    """The innermost frame that belongs to the user's code (with the TF node, if any), or None."""
    raws, node = _sections(lines)
    for r in reversed(raws):
        lib = r.library if r.library is not None else is_library(r.file)
        if not lib:
            return Frame(r.file, r.line, r.func, r.code, node)
    return None

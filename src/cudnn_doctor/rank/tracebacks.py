"""Find the user's own code line in the traceback above an error.

Reads every frame line with read/frames.py (its presentations: Python's, IPython's, loguru's, rich's, pytest's,
Julia's, TensorFlow's ``defined at``), of the last traceback section: chained tracebacks (each "During handling of
the above exception" / "The above exception was the direct cause" section, each new ``Traceback (most recent
call last):``) start one of their own, and only the last one counts: it is the one that killed the job. Julia
lists the innermost frame first, so its frames are reversed. The TensorFlow op a section names is read too:
``Detected at node 'm/lstm/CudnnRNN' defined at (most recent call last):``, ``Caused by op 'lstm/CudnnRNN', defined
at:``, ``Node: 'm/lstm/CudnnRNN'``, ``[[{{node m/lstm/CudnnRNNV3}}]]``, ``[[Node: lstm/CudnnRNN = CudnnRNN[...]]]``
and ``[[node m/lstm/CudnnRNN (defined at /x.py:25) ]]``.

The user's frame is the innermost frame whose file is not inside site-packages / dist-packages, the standard
library, a conda / venv / pyenv lib folder, a framework's own source tree (torch/, tensorflow/, keras/, jax/,
~/.julia/packages, Julia's Base) or a ``<frozen ...>`` module.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..kb.patterns import LazyRe
from ..read.frames import JULIA, NEXT, PYTHON, header, source

_CHAIN = LazyRe(r"^(?:During handling of the above exception|The above exception was the direct cause)", re.MULTILINE)
_NEW_TRACEBACK = LazyRe(
    r"^(?:\w[\w.]*\s+)?Traceback \(most recent call last\)|^(?:ERROR: .*)?Stacktrace:$", re.MULTILINE)
# what _NEW_TRACEBACK requires (one of them), looked for first: a pattern that begins with '^' is tried at every
# position of a line (of 60 KB: 0.7 ms)
_TRACEBACK_WORDS = ("Traceback (most recent call last)", "Stacktrace:")
_NOT_CODE = LazyRe(
    r"^(?:Traceback|\[\d+\]|@ |[│└┌├╰╭]|\w[\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b"
    r"|File |During handling"
    r"|The above exception|[~^\s]+$|Node:|Detected at node|Caused by op)", re.MULTILINE)
_NODE = (
    LazyRe(r"\{\{node (?P<node>[^}\s]+)\}\}", re.MULTILINE),
    LazyRe(r"\[\[node (?P<node>[^\s\]]+)", re.MULTILINE),
    LazyRe(r"\[\[Node: (?P<node>[^\s=\]]+)", re.MULTILINE),
    LazyRe(r"^\s*Node: '(?P<node>[^']+)'", re.MULTILINE),  # (searched where the line holds "Node: '": _node_name)
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


def _raw(lines: Sequence[str], i: int) -> tuple[str, Frame, bool] | None:
    """Line ``i`` read as a frame (read/frames.py): what it is, the frame (its code the source line it shows; its
    node not yet known) and whether it is a library's; None where it is no frame, or a header whose line only its
    listing's arrow says and none says."""
    head = header(lines, i)
    if head is None:
        return None
    text, number, _after = source(lines, i, head)
    line = head.line if head.line is not None else number
    if line is None:
        return None
    nxt = (text or "").strip()
    if number is None and (head.shows != NEXT or _NOT_CODE.match(nxt) or header((nxt,), 0) is not None):
        nxt = ""  # Python's next line only where it is one of code
    library = head.library if head.library is not None else is_library(head.file)
    return head.kind, Frame(head.file, line, head.func, nxt[:300]), library


def _sections(lines: Sequence[str]) -> tuple[list[tuple[Frame, bool]], str]:
    """Frames of the last traceback section (outermost first; each with whether it is a library's) and the last
    TF node name seen."""
    out: list[tuple[Frame, bool]] = []
    julia: list[tuple[Frame, bool]] = []  # Julia prints the innermost frame first: reversed when its listing ends
    node = ""
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if _CHAIN.match(stripped) or (any(w in stripped for w in _TRACEBACK_WORDS) and _NEW_TRACEBACK.search(stripped)):
            out, node = [], ""
            julia.clear()
            continue
        node = _node_name(line) or node
        parsed = _raw(lines, i)
        if parsed is None:
            continue
        kind, frame, library = parsed
        if kind == PYTHON:
            out.extend(reversed(julia))
            julia.clear()
        (julia if kind == JULIA else out).append((frame, library))
    out.extend(reversed(julia))
    return out, node


def _node_name(line: str) -> str:
    """The TensorFlow graph node a line names ('' if none)."""
    for rx in _NODE:
        # (a pattern that begins with '^' is tried at every position of the line, one that begins with a literal
        # is searched for it: the one of the first kind only where its literal is there)
        nm = rx.search(line) if rx is not _NODE[3] or "Node: '" in line else None
        if nm:
            return nm.group("node")
    return ""


def frames(lines: Sequence[str]) -> list[Frame]:
    """Frames of the last traceback section in ``lines``, outermost first (older sections are dropped)."""
    raws, node = _sections(lines)
    return [replace(f, node=node) for f, _lib in raws]


def tf_node(lines: Sequence[str]) -> str | None:
    """The TensorFlow op (graph node) named in the last traceback section, e.g. ``model/lstm/CudnnRNN``."""
    return _sections(lines)[1] or None


def is_library(path: str) -> bool:
    return bool(_LIBRARY.search(path.strip()))


def user_frame(lines: Sequence[str]) -> Frame | None:
    """The innermost frame that belongs to the user's code (with the TF node, if any), or None."""
    raws, node = _sections(lines)
    return next((replace(f, node=node) for f, lib in reversed(raws) if not lib), None)

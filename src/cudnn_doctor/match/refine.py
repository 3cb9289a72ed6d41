"""A cause read on the line where its generic matched, the fixed prefix its regex wants put back.

A status is often carried without the prefix its framework prints it with: ``CUDNN_STATUS_EXECUTION_FAILED``
alone under a PyTorch traceback (an issue body, a log whose exception line lost ``RuntimeError: cuDNN error:
``), ``CUDNN_STATUS_BAD_PARAM (code 3)`` over a Julia stack trace. The cross-framework status signatures read
it; a cause that refines that status (``cause.of``) says more about the same line from the traceback and
context around it, but its regex also spells the framework's prefix, so it missed and its generic answered.

Where a signature that causes refine matched a line, each such cause's regex (as written, case and all) is
tried over its window with the prefix of one of its templates put back before the template's first word on
that line, where nothing but a line's own prefix stands before that word (not a word, not another exception's
or status's prefix: ``CuDNNError: CUDNN_STATUS_...`` is CuPy's as printed). The prefix is a framework's: it is
put back only where that framework is seen around the line as rank/wrappers.py sees it (a mark of its wrapper,
none of another framework's), so a status under a Chainer traceback is never given PyTorch's ``RuntimeError:``.
The cause's own regex and context still decide; its generic found the line already, so no line that gave no
finding gives one. What was read is marked cut: the prefix was not.

This module names the causes and gates the framework; tolerant.py reads them (``Tolerant.refined``, whose
cause-head attempts, confirm.py's ``Confirmer.headed``, run through the one runner of its confirmations by regex).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from ..kb.patterns import compile_pattern, regex_error
from ..model import Signature

GENERIC = frozenset({"any", "cudnn"})  # a framework-agnostic signature's framework: no prefix of its own
TRACEBACK_HEAD = "Traceback (most recent call last)"
TRACEBACK_LINES = 40  # of a traceback before the line, where a framework's marks are looked for (rank/wrappers.py)
# a frame above the status, and where it runs: a Python frame's file, a Lua (Torch 7) frame, a Java (DL4J) frame
_FRAME = re.compile(r'^[ \t>]*File[ \t]+"(?P<py>[^"\n]+)"|^[ \t]*(?P<lua>\S+\.lua):\d+:|^[ \t]*at[ \t]+(?P<java>org\.(?:deeplearning4j|nd4j))\.', re.M)
# a frame's directory that names the frameworks running there (Keras 3's keras/src/ too, which marks none)
FRAME_DIRS = {
    "torch": {"pytorch"}, "keras": {"keras", "tensorflow"}, "tf_keras": {"keras", "tensorflow"},
    "tensorflow": {"tensorflow", "keras", "tensorflow-directml"}, "chainer": {"chainer"}, "cupy": {"cupy", "chainer"},
    "mxnet": {"mxnet"}, "paddle": {"paddlepaddle"}, "jax": {"jax"}, "flax": {"jax"}, "onnxruntime": {"onnxruntime"},
}


class Refiner:
    """The causes of each signature (by its id: their indexes in ``sigs``), and the frameworks' marks (their
    wrappers' ``framework_marks``), by framework."""

    def __init__(self, sigs: Sequence[Signature]) -> None:
        self.sigs = sigs
        self.by_id = {sig.id: sig for sig in sigs}
        self.marks: dict[str, list[str]] = {}
        self.causes: dict[str, list[int]] = {}
        for idx, sig in enumerate(sigs):
            if sig.framework_marks:
                self.marks.setdefault(sig.framework, []).extend(sig.framework_marks)
            for generic in sig.cause.of if sig.cause is not None else ():
                self.causes.setdefault(generic, []).append(idx)

    def of(self, matched: Collection[str]) -> list[int]:
        """The causes of the signatures ``matched`` on a line, but those matched there too."""
        return sorted({i for g in matched for i in self.causes.get(g, ()) if self.sigs[i].id not in matched})

    def seen(self, sig: Signature, text: str) -> bool:
        """Whether the framework whose prefix the cause spells is seen in ``text`` (the lines down to the status,
        ``around``): a mark of its framework (or of the frameworks of the signatures it refines), none of another's,
        and no frame there running in another framework (``frames``); a cause of no framework's (``GENERIC``)
        spells a prefix any framework prints."""
        own = {sig.framework, *(g.framework for i in (sig.cause.of if sig.cause else ()) if (g := self.by_id.get(i)))} - GENERIC
        if not own:
            return True
        seen = {fw for fw, marks in self.marks.items() if any(_found(m, text) for m in marks)}  # (the frameworks marked there)
        return bool(seen & own) and not seen - own and all(fws & own for fws in frames(text))


def around(lines: Sequence[str], li: int, lo: int) -> str:
    """The lines a framework is looked for above line ``li``, down to it: the traceback that ends there
    (TRACEBACK_LINES at most, from its head) and the cause's window from ``lo``. Not below it: a sentence under
    the status that names another framework's layer is no mark of the one that raised it."""
    first = max(0, li - TRACEBACK_LINES)
    head = next((k for k in range(li, first - 1, -1) if TRACEBACK_HEAD in lines[k]), lo)
    return "\n".join(lines[min(head, lo) : li + 1])


def frames(text: str) -> list[set[str]]:
    """The frameworks each frame of ``text`` runs in, as its path names them (``FRAME_DIRS``; a Lua frame Torch
    7's, a Java one DL4J's); a frame whose path names none is left out."""
    got = []
    for m in _FRAME.finditer(text):
        if m.group("lua") or m.group("java"):
            got.append({"luatorch" if m.group("lua") else "dl4j"})
        elif dirs := [FRAME_DIRS[d] for d in re.split(r"[/\\]", m.group("py")) if d in FRAME_DIRS]:
            got.append(dirs[-1])
    return got


def _found(mark: str, text: str) -> bool:
    try:
        return compile_pattern(mark, ("IGNORECASE",)).search(text, timeout=0.05) is not None
    except (TimeoutError, regex_error()):
        return False

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
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from typing import Any

from ..kb.patterns import compile_pattern, regex_error
from ..kb.templates import HEAD, Template, words
from ..model import Signature
from ..read.normalize import line_prefix

GENERIC = frozenset({"any", "cudnn"})  # a framework-agnostic signature's framework: no prefix of its own
TRACEBACK_HEAD = "Traceback (most recent call last)"
TRACEBACK_LINES = 40  # of a traceback before the line, where a framework's marks are looked for (rank/wrappers.py)
_ENDS_IN_HEAD = re.compile(HEAD.pattern + r"$")
# prose after what the regex read on its line: a word, not a call's name ('CUDNN_STATUS_EXECUTION_FAILED when NStepBiLSTM
# is using CuPy', an issue's title, mentions the status; it is no message printed without its prefix)
_PROSE_AFTER = re.compile(r"[ \t]+[a-z]{2,}\b(?![(.\[])")
# what may stand before the status word on its line, after its CI timestamp and launcher prefix (normalize.py's
# ``line_prefix``): indentation, a quote's '>', pytest's 'E   ', a time, a logger's level or bracketed tags, a
# C++ log line's glog/TF header (severity, time, thread, 'file.cc:24]'), a status code and the quote of a bytes
# repr (torch 0.x's "4: b'CUDNN_STATUS_...'"); not a word of a sentence nor an exception. A run of digits is one
# item, whole (the lookahead): split in every way it backtracked exponentially on a long timestamp before a word
LOG_PREFIX = re.compile(
    r"[ \t>]*(?:E[ \t]+)?(?:\d[\d:.,/T-]*(?![\d:.,/T-])[ \t:]*|[IWEF]\d{4}[ \t]+[\d:.]+[ \t]+\d+[ \t]+"
    r"|(?:ERROR|FATAL|CRITICAL|WARNING|INFO|DEBUG|[IWEF])\b[ \t:|-]*|\[[^\]\n]{0,40}\][ \t:|-]*"
    r"|[\w/.-]+\.(?:cc|cpp|cu|h):\d+\][ \t]*)*(?:b?['\"])?"
)
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
        self._last: tuple[str | None, frozenset[str]] = (None, frozenset())
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
        seen = self.frameworks(text)
        return bool(seen & own) and not seen - own and all(fws & own for fws in frames(text))

    def frameworks(self, text: str) -> frozenset[str]:
        """The frameworks whose marks ``text`` holds (the last text's kept: each cause of a line asks)."""
        if self._last[0] != text:
            self._last = (text, frozenset(fw for fw, marks in self.marks.items() if any(_found(m, text) for m in marks)))
        return self._last[1]


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


def points(line: str, tpls: Sequence[Template]) -> Iterator[tuple[int, str]]:
    """(column, prefix): where in ``line`` each template with a prefix may have lost it, before its first word
    where only the line's own prefix (``LOG_PREFIX``: a log prefix, indentation, a bracket) stands before it,
    no word of a sentence ('and then it gives CUDNN_STATUS_...')."""
    tw = words(line)
    for tpl in tpls:
        if not tpl[0] or len(tpl) < 2:
            continue
        for w, a, _b in tw:
            before = line[:a]
            if w == tpl[1] and LOG_PREFIX.fullmatch(before, line_prefix(before)) and not _ENDS_IN_HEAD.search(before):
                yield a, tpl[0]
                break


def headed(sig: Signature, tpls: Sequence[Template], text: str, start: int, timeout: float) -> tuple[Any, int, int] | None:
    """The cause's regex over ``text`` (its window) with a prefix of its templates put back on the line that
    starts at ``start`` (``points``): (match, start, end of what it read in ``text``, the prefix left out), or
    None; None too where prose follows what it read on that line (``_PROSE_AFTER``)."""
    end = text.find("\n", start) % (len(text) + 1)
    try:
        pattern = compile_pattern(sig.regex, sig.flags)
        for a, head in dict.fromkeys(points(text[start:end], tpls)):
            at = start + a
            m = pattern.search(text[:at] + head + text[at:], timeout=timeout)
            if m is not None and m.start() <= at and m.end() > at + len(head):  # it read the prefix and the line after it
                b = m.end() - len(head)
                return None if b < end and _PROSE_AFTER.match(text, b, end) else (m, m.start(), b)
    except (TimeoutError, regex_error()):
        pass
    return None


def _found(mark: str, text: str) -> bool:
    try:
        return compile_pattern(mark, ("IGNORECASE",)).search(text, timeout=0.05) is not None
    except (TimeoutError, regex_error()):
        return False

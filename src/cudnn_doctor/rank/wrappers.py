"""A cross-framework cuDNN status read as a framework's own, where that framework's message is not in the log.

``CUDNN_STATUS_EXECUTION_FAILED when NStepBiLSTM is using CuPy`` (an issue's title) or ``CUDNNError:
CUDNN_STATUS_BAD_PARAM (code 3) while training lstm`` hold a status that the cross-framework
``cudnn/rnn-status-*`` signatures read, and say which framework raised it, but not in the line that
framework's own wrapper signature (``cupy/cudnn-rnn-status``, ``flux/cudnn-rnn-status-error``) reads. A
wrapper's ``framework_marks`` name what only its framework prints or is called (a package, a class, a source
file, a message form). Where one is on the status's line or in the traceback that ends there (nothing else: a
pip list or an environment dump names every framework installed), the finding becomes the wrapper's, with the
status the generic captured, a little less confidence and the mark as its evidence. Marks of two frameworks
there, or none: the generic stands.

Which of that framework's signatures it becomes is read from the knowledge base: a signature of the framework
that carries every label of the generic (``paddle/rnn-cudnn-execution-failed`` and
``cudnn/rnn-status-execution-failed`` both answer ``cudnn_rnn_status_execution_failed``) specialises that status,
and takes it; else the framework's wrapper of any status (one whose labels are no cross-framework status's). A
framework whose signatures specialise only some statuses (TensorFlow's EXECUTION_FAILED) leaves the others generic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..kb.patterns import compile_pattern
from ..model import Finding, Signature, specificity
from .differential import TRACEBACK_HEAD, is_cross_framework_rnn_status

CONFIDENCE_DROP = 0.05
MAX_LINES = 40  # of a traceback before the status


def attribute(
    findings: list[Finding], signatures: Sequence[Signature], frames: Mapping[tuple[str, str], Sequence[str]]
) -> list[Finding]:
    """``findings`` with each cross-framework RNN status that one framework's marks claim given to that
    framework's wrapper (unless that wrapper is a finding of the same source already)."""
    wrappers = [s for s in signatures if s.framework_marks]
    have = {(f.first.source, f.id) for f in findings}
    out = []
    for f in findings:
        got = _claimed(f, wrappers, frames.get((f.first.source, f.id), ())) if is_cross_framework_rnn_status(f.signature) else None
        wrapper = _taker(f.signature, got[0], signatures) if got is not None else None
        if got is None or wrapper is None or (f.first.source, wrapper.id) in have:
            out.append(f)
            continue
        mark = got[1]
        have.add((f.first.source, wrapper.id))
        out.append(Finding(
            signature=wrapper, first=f.first, last=f.last, count=f.count, files=f.files,
            confidence=round(f.confidence - CONFIDENCE_DROP, 2), evidence=[mark, *f.evidence],
            related=[f.id, *(r for r in f.related if r != wrapper.id)], cut=f.cut, user_frame=f.user_frame,
            demoted=[f"read as {wrapper.id} from {mark!r} on the error's line or in its traceback; that signature's own message is not in the log"],
        ))
    return out


def specialises(sig: Signature, generic: Signature) -> bool:
    """Whether ``sig`` is a framework's own signature for the status ``generic`` reads: not a cause, an error of
    the same scope, and carrying every label of the generic (the knowledge base's word that it answers the same
    question for its framework)."""
    return (sig.framework != generic.framework and sig.cause is None and sig.severity == "error"
            and sig.scope == generic.scope and bool(generic.labels) and set(generic.labels) <= set(sig.labels))


def _taker(generic: Signature, claimer: Signature, signatures: Sequence[Signature]) -> Signature | None:
    """The signature of ``claimer``'s framework that takes a finding of ``generic``: the most specific one that
    specialises that status; else ``claimer`` where it wraps any status (none of its labels is a cross-framework
    status's); else none (the generic stands)."""
    own = [s for s in signatures if s.framework == claimer.framework and specialises(s, generic)]
    if own:
        return max(own, key=specificity)
    statuses = {label for s in signatures if is_cross_framework_rnn_status(s) for label in s.labels}
    return None if statuses & set(claimer.labels) else claimer


def _claimed(f: Finding, wrappers: Sequence[Signature], before: Sequence[str]) -> tuple[Signature, str] | None:
    """The one wrapper whose marks are on the finding's lines, and the text of its first mark there."""
    own = max(1, f.first.end_line - f.first.line + 1)  # ``before`` ends with the match's own lines
    lines = [*_traceback(before[:-own]), *(before[-own:] or f.first.text.splitlines())]
    found: dict[str, tuple[Signature, str]] = {}
    for w in wrappers:
        mark = _first_mark(w, lines)
        if mark is not None:
            found.setdefault(w.framework, (w, mark))
    return next(iter(found.values())) if len(found) == 1 else None


def _traceback(before: Sequence[str]) -> Sequence[str]:
    """The lines of the Python traceback that ends at the finding (none where it has none)."""
    tail = before[-MAX_LINES:]
    heads = [i for i, line in enumerate(tail) if TRACEBACK_HEAD in line]
    return tail[heads[-1] :] if heads else ()


def _first_mark(w: Signature, lines: Sequence[str]) -> str | None:
    for item in w.framework_marks:
        pattern = compile_pattern(item, ("IGNORECASE",))
        for line in lines:
            try:
                m = pattern.search(line[:4096], timeout=0.05)
            except TimeoutError:
                continue
            if m is not None:
                return m.group(0)
    return None

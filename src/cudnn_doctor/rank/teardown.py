"""A C++ abort printed after a Python exception ended its traceback: the process shutting down, not the error.

A Python traceback ends in its exception line (``tensorflow.python.framework.errors_impl.InternalError: ...``,
``RuntimeError: ...``, ``KeyError: 'lstm_l0_i2h_i_weight'``); the interpreter then exits, and a destructor or
another thread may abort with a C++ check on the way out: glog's fatal line (``F tensorflow/...cc:190] Check
failed: ...``, ``F0513 14:58:40.123 4242 cuda_dnn.cc:190] ...``), dmlc's ``[10:25:06] .../logging.h:300: [10:25:06]
.../stream_gpu-inl.h:125: Check failed: ...`` or ``terminate called after throwing an instance of ...`` and its
``what():`` line. The exception is the error the user hit; the abort is its consequence, however specific its
signature (rank/findings.py splits the two into separate clusters, and folds the abort under the exception's
finding).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kb.patterns import LazyRe

TRACEBACK_HEAD = "Traceback (most recent call last)"

# a process abort: glog's fatal severity (with or without its timestamp), dmlc's LOG(FATAL) line, C++ terminate
_ABORT = LazyRe(
    r"terminate called (?:after throwing|recursively|without an active exception)"
    r"|^\W{0,3}(?:[\d/:.\- T]+:?\s+)?F(?:\d{4}\s+[\d:.]+\s+\d+\s+|\s+)\S+\.(?:cc|cpp|cxx|h|hpp|cu|cuh):\d+\]"
    r"|logging\.h:\d+:\s*(?:\[[\d:]+\]\s*)?\S+:\d+:\s*Check failed"
)
# a Python exception line: a class name ending in Error/Exception/... at the start of an unindented line
_EXCEPTION = LazyRe(r"^(?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt)\b(?::|$)")


def exception_before(before: Sequence[str], line: int, end_line: int) -> tuple[int, int] | None:
    """(the traceback's first line, its exception line) when the match on ``line``..``end_line`` (``before``: the
    lines up to ``end_line``, the match's own last) is a C++ abort that follows the exception line of a Python traceback
    (its message, C++ frames and log lines may come between; another traceback or abort may not). None otherwise."""
    own = end_line - line + 1
    if not before or own > len(before):
        return None
    start = len(before) - own
    if _ABORT.search(before[start]):
        abort = start
    elif start > 0 and "terminate called" in before[start - 1]:  # the match is its ``what():`` line
        abort = start - 1
    else:
        return None
    base = end_line - len(before) + 1
    for i in range(abort - 1, -1, -1):
        text = before[i]
        if text.lstrip().startswith(TRACEBACK_HEAD) or _ABORT.search(text):
            return None  # the abort is inside a traceback, or follows another abort
        if _EXCEPTION.match(text):
            # its traceback's head where the lines before reach it (a repeated match carries only a few lines)
            head = next((j for j in range(i - 1, -1, -1) if before[j].lstrip().startswith(TRACEBACK_HEAD)), i)
            return base + head, base + i
    return None

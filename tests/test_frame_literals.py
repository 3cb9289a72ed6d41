"""rank/tracebacks and read/frames try a pattern that begins with '.*?' or '^' (tried at every position of a line:
1 ms over a 60 KB line of bench/kinds.py's wide kind) only on a line that holds the literal it requires. Checked
here against the patterns tried on every line: every line of the test fixtures' logs, and lines made to hold the
literals in and out of place."""

from __future__ import annotations

from pathlib import Path

from cudnn_doctor.rank import tracebacks
from cudnn_doctor.read import frames

FIXTURES = Path(__file__).parent / "fixtures"
MADE = [
    "  Node: 'lstm/CudnnRNN'", "x\n  Node: 'a'", "Node: 'b'", "see Node: 'c'", "[[Node: a/b = CudnnRNN[T=DT_FLOAT]]",
    "{{node cu_dnnlstm/CudnnRNN}}", "Traceback (most recent call last):", "ERROR: LoadError: x Stacktrace:",
    "Stacktrace:", "main Traceback (most recent call last)", "a Traceback (most recent call last)",
    "  File \"x.py\", line 3, in f (defined at /srv/a.py:12) ", "op (defined at x.py:3)", "(defined at x:y)",
    "Detected at node 'lstm' defined at", "Caused by op 'rnn', defined at", "",
]


def _lines() -> list[str]:
    out = list(MADE)
    for path in sorted(FIXTURES.rglob("*.log")):
        out += path.read_text(encoding="utf-8", errors="replace").split("\n")
    return out


def _node_name_everywhere(line: str) -> str:
    for rx in tracebacks._NODE:
        nm = rx.search(line)
        if nm:
            return nm.group("node")
    return ""


def test_the_same_lines_match() -> None:
    lines = _lines()
    assert len(lines) > 4_000
    tf_header = frames._FORMATS[0]
    for line in lines:
        assert tracebacks._node_name(line) == _node_name_everywhere(line), line
        assert (tf_header([line], 0) is not None) == (frames._TF_DEFINED_AT.match(line) is not None), line
        if tracebacks._NEW_TRACEBACK.search(line):
            assert any(w in line for w in tracebacks._TRACEBACK_WORDS), line

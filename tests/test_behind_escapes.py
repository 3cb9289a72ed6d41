"""The prefilter's second look behind escape sequences (match/prefilter.py ``behind_escapes``): rescanning only
the lines that hold what normalization deletes finds, merged with the raw scan, what rescanning the whole
region with it deleted finds."""

from __future__ import annotations

import random

from cudnn_doctor.match import Prefilter
from cudnn_doctor.read.textsafe import NORMALIZE_DELETES_BYTES

LITS = ["cudnn", "cudnn_status_", "rnn", "lstm", "os: "]
PIECES = [b"CUDNN_STATUS_BAD_PARAM", b"cuD", b"NN", b"rnn", b"LSTM", b"os: ", b"plain words", b"\xc2\xb0C", b"\xc3\xa9t\xc3\xa9",
          b"\x1b[31m", b"\x1b[0m", b"\x1b]8;;x\x07", b"\x1b(", b"\xc2\x9b1m", b"\x08", b"\x7f", b"\t", b"\r", b" "]


def _whole_region(pf: Prefilter, data: bytes) -> dict[int, list[str]]:
    """The reference: the region with everything normalization deletes deleted, scanned whole."""
    if b"\x1b" not in data:
        return {}
    clean = NORMALIZE_DELETES_BYTES.sub(b"", data)
    raw_starts = [0] + [i + 1 for i, c in enumerate(data) if c == 10]
    clean_starts = [0] + [i + 1 for i, c in enumerate(clean) if c == 10]
    return {raw_starts[clean_starts.index(at)]: lits for at, lits in pf.scan(clean).items()}


def _merged(raw: dict[int, list[str]], more: dict[int, list[str]]) -> dict[int, list[str]]:
    out = {k: list(v) for k, v in raw.items()}
    for off, lits in more.items():
        have = out.setdefault(off, [])
        have += (lit for lit in lits if lit not in have)
    return out


def test_escaped_lines_alone_find_what_the_whole_region_finds() -> None:
    rng = random.Random(7)
    pf = Prefilter(LITS)
    for _ in range(300):
        lines = [b"".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 7))) for _ in range(rng.randrange(1, 9))]
        data = b"\n".join(lines)
        raw = pf.scan(data)
        assert _merged(raw, pf.behind_escapes(data, 0, len(data))) == _merged(raw, _whole_region(pf, data)), data

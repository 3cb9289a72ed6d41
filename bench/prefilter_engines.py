"""Prefilter engines on the same bytes (issue 12): which lines hold one of the prefilter's literals.

    pip install google-re2 pyahocorasick      # the candidates (hyperscan comes with cudnn-doctor)
    python bench/prefilter_engines.py LOG MIB  # e.g. the first 64 MiB of a biglog.py log

hyperscan (the prefilter where it has a wheel), one ``bytes.find`` per literal (the pure-Python fallback; a
trie-shaped `re` alternation until 2026-12-02, 2.5x faster but no budget runs without hyperscan), google-re2
(one alternation) and pyahocorasick (an Aho-Corasick automaton over the
latin-1 decoded bytes). Each gives the set of line starts holding a literal, compared with hyperscan's; CPU
seconds, median of 3, over 1 MiB blocks as the matcher reads them.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
from collections.abc import Callable

from cudnn_doctor.env.detect import EnvironmentCollector
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.match import Matcher, Prefilter

Scan = Callable[[bytes], set[int]]


def hs_engine(lits: list[str]) -> Scan:
    os.environ.pop("CUDNN_DOCTOR_NO_HYPERSCAN", None)
    p = Prefilter(lits)
    assert p.engine == "hyperscan"
    return lambda b: set(p.scan(b))


def find_engine(lits: list[str]) -> Scan:
    os.environ["CUDNN_DOCTOR_NO_HYPERSCAN"] = "1"
    p = Prefilter(lits)
    assert p.engine == "find"
    os.environ.pop("CUDNN_DOCTOR_NO_HYPERSCAN")
    return lambda b: set(p.scan(b))


def re2_engine(lits: list[str]) -> Scan:
    import re2  # type: ignore[import-not-found]

    opts = re2.Options()
    opts.max_mem = 256 << 20
    rx = re2.compile(b"|".join(re.escape(lit.encode()) for lit in lits), opts)

    def scan(b: bytes) -> set[int]:
        low, out, pos = b.lower(), set(), 0
        while True:
            m = rx.search(low, pos)
            if m is None:
                return out
            ls = low.rfind(b"\n", 0, m.start()) + 1
            le = low.find(b"\n", m.end())
            out.add(ls)
            pos = (len(low) if le < 0 else le) + 1

    return scan


def aho_engine(lits: list[str]) -> Scan:
    import ahocorasick  # type: ignore[import-not-found]

    auto = ahocorasick.Automaton()
    for i, lit in enumerate(lits):
        auto.add_word(lit, i)
    auto.make_automaton()

    def scan(b: bytes) -> set[int]:
        low, out, line_end = b.lower().decode("latin-1"), set(), -1
        for end, _ in auto.iter(low):
            if end <= line_end:
                continue
            out.add(low.rfind("\n", 0, end) + 1)
            le = low.find("\n", end)
            line_end = len(low) if le < 0 else le
        return out

    return scan


def main() -> None:
    path, mib = sys.argv[1], int(sys.argv[2])
    lits = sorted(set(Matcher(load_catalog(), probes=EnvironmentCollector().probes()).prefilter.literals))
    with open(path, "rb") as fh:
        data = fh.read(mib << 20)
    blocks = [data[i : i + (1 << 20)] for i in range(0, len(data), 1 << 20)]
    ref = None
    engines = {"hyperscan": hs_engine, "bytes.find": find_engine, "google-re2": re2_engine, "pyahocorasick": aho_engine}
    for name, make in engines.items():
        try:
            scan = make(lits)
        except ImportError:
            print(f"{name:14} not installed")
            continue
        times = []
        for _ in range(3):
            t = time.process_time()
            got = [scan(b) for b in blocks]
            times.append(time.process_time() - t)
        ref = got if ref is None else ref
        cpu = statistics.median(times)
        print(f"{name:14} {cpu:6.2f} s CPU for {mib} MiB ({mib / cpu:6.0f} MiB/s), {sum(map(len, got))} hit lines, "
              f"same lines as hyperscan: {got == ref}")


if __name__ == "__main__":
    main()

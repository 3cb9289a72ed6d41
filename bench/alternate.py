"""Alternated runs of installed builds: the only comparison this project trusts on a machine whose speed drifts.

    python bench/alternate.py --build start=/venv-a/bin/cudnn-doctor --build final=/venv-b/bin/cudnn-doctor \\
        [--args 'NAME=MORE DIAGNOSE ARGS'] [--log LOG ...] [--jobs 1,2] [--paste] [--floor PYTHON] [--rounds 5]

Each round runs every build once per (log, CUDNN_DOCTOR_JOBS) pair, one after the other, so a slow minute of the
machine hits all builds alike; it prints, per pair and build, the minimum and the median wall and CPU (user+sys,
from wait4) over the rounds. ``--paste`` adds the start-up case: bench/startup.py's traceback on standard input,
each build and the floor (``PYTHON -c "import argparse, rich"``, with --floor or this interpreter) in every round,
and the ratios to the floor by minimum, first quartile and median. A first, untimed run of each build fills its
catalog cache. Used for the tables of bench/README.md (fifth and sixth rounds).
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import TRACEBACK


def _run(cmd: list[str], stdin: Path | None, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one run."""
    with open(stdin or os.devnull, "rb") as fh:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=fh, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        _, _, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    return wall * 1e3, (usage.ru_utime + usage.ru_stime) * 1e3


def _summary(values: list[float]) -> tuple[float, float, float]:
    q1 = statistics.quantiles(values, n=4)[0] if len(values) > 1 else values[0]
    return min(values), q1, statistics.median(values)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", action="append", required=True, metavar="NAME=EXE", help="a cudnn-doctor executable")
    ap.add_argument("--args", action="append", default=[], metavar="NAME=ARGS",
                    help="more diagnose arguments for build NAME, as shell words: one executable as two builds, "
                    "e.g. --build 1x=EXE --build 10x=EXE --args '10x=--no-builtin --signatures KB10'")
    ap.add_argument("--log", action="append", default=[], help="a log to diagnose (--format json)")
    ap.add_argument("--jobs", default="1,2", help="CUDNN_DOCTOR_JOBS values, comma-separated (default 1,2)")
    ap.add_argument("--paste", action="store_true", help="also time a pasted traceback and the floor")
    ap.add_argument("--floor", default=sys.executable, help="the Python of the floor (default: this one)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    builds = dict(b.split("=", 1) for b in args.build)
    extra = {name: shlex.split(words) for name, words in (a.split("=", 1) for a in args.args)}
    jobs = [j for j in args.jobs.split(",") if j]
    times: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        paste = Path(tmp) / "traceback.txt"
        paste.write_text(TRACEBACK)
        cases: list[tuple[str, str, list[str], Path | None, dict[str, str]]] = []
        for log in args.log:
            for j in jobs:
                env = {**os.environ, "CUDNN_DOCTOR_JOBS": j}
                cases += [(f"{Path(log).name} jobs={j}", name, [exe, "diagnose", *extra.get(name, []), "--format", "json", log], None, env)
                          for name, exe in builds.items()]
        if args.paste:
            cases += [("paste", name, [exe, "diagnose"], paste, dict(os.environ)) for name, exe in builds.items()]
            cases.append(("paste", "floor", [args.floor, "-c", "import argparse, rich"], None, dict(os.environ)))
        for _case, _name, cmd, stdin, env in cases:  # fills each build's cache, warms the page cache
            _run(cmd, stdin, env)
        for _ in range(args.rounds):
            for case, name, cmd, stdin, env in cases:
                times.setdefault((case, name, ""), []).append(_run(cmd, stdin, env))
    for (case, name, _), runs in times.items():
        wall, cpu = [r[0] for r in runs], [r[1] for r in runs]
        w, c = _summary(wall), _summary(cpu)
        print(f"{case:28s} {name:8s} wall ms min {w[0]:8.1f} p25 {w[1]:8.1f} med {w[2]:8.1f} | "
              f"cpu ms min {c[0]:8.1f} p25 {c[1]:8.1f} med {c[2]:8.1f}")
    if args.paste:
        floor = [r[1] for r in times[("paste", "floor", "")]]
        for name in builds:
            cpu = [r[1] for r in times[("paste", name, "")]]
            ratios = [a / b for a, b in zip(_summary(cpu), _summary(floor), strict=True)]
            print(f"paste / floor (CPU)          {name:8s} min {ratios[0]:.2f}x p25 {ratios[1]:.2f}x med {ratios[2]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The long fuzz run: tests/fuzzing.py's harness over many inputs, in several processes.

    python bench/fuzz.py --inputs 1000000 --jobs 2 --out fuzz.json      # niced: nice -n 10 python bench/fuzz.py ...
    python bench/fuzz.py --minutes 60 --jobs 2 --out fuzz.json           # as many inputs as an hour gives

Each process runs its own seeded stream (seed = --seed + process number) in chunks of --chunk inputs; the
figures (inputs, crashes, inputs over 3 s CPU, RNN findings on inputs built from negative logs, the slowest
input's CPU time, and up to 20 examples of each problem with the input that caused it) are summed and written
to --out as JSON after every chunk, so a run stopped early still reports what it did. Exit 1 when anything
was found. The short seeded run of the same harness is part of the test suite (tests/test_fuzz.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import fuzzing


def _chunk(args: tuple[int, int, int]) -> fuzzing.Tally:
    count, seed, start = args
    return fuzzing.run_inputs(count, seed, start=start)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", type=int, default=1_000_000)
    ap.add_argument("--minutes", type=float, default=0, help="stop starting chunks after this long (0: no limit)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--out", default="fuzz.json")
    args = ap.parse_args()
    total = fuzzing.Tally()
    started = time.monotonic()
    chunks = [(min(args.chunk, args.inputs - i), args.seed * 1_000_003 + i, i) for i in range(0, args.inputs, args.chunk)]
    with ProcessPoolExecutor(args.jobs) as pool:
        pending = set()
        while chunks or pending:
            out_of_time = args.minutes and time.monotonic() - started > args.minutes * 60
            while chunks and len(pending) < args.jobs and not out_of_time:
                pending.add(pool.submit(_chunk, chunks.pop(0)))
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                total.add(future.result())
            _write(args.out, total, started)
            print(f"{total.inputs} inputs, {total.crashes} crashes, {total.slow} slow, {total.rnn_on_negative} RNN on "
                  f"negative, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    _write(args.out, total, started)
    return 1 if total.crashes or total.slow or total.rnn_on_negative else 0


def _write(path: str, total: fuzzing.Tally, started: float) -> None:
    """The figures as JSON at ``path``; each example's whole input in ``path``.inputs/N.txt (to reproduce it:
    ``cudnn-doctor diagnose N.txt``, or ``cudnn_doctor.diagnose(open(N.txt).read())``)."""
    inputs = Path(path + ".inputs")
    examples = []
    for n, example in enumerate(total.examples):
        inputs.mkdir(exist_ok=True)
        (inputs / f"{n}.txt").write_text(example["input"], encoding="utf-8", errors="surrogatepass")
        examples.append({**example, "input": f"{inputs / f'{n}.txt'}"})
    record = {**total.__dict__, "examples": examples, "wall_s": round(time.monotonic() - started, 1),
              "python": sys.version.split()[0]}
    Path(path).write_text(json.dumps(record, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    raise SystemExit(main())

"""Write src/cudnn_doctor/data/logwords.json: how many lines of ordinary log text hold each word.

The tolerant recognition (kb/templates.py) weighs a template's words by how rarely they are met: over the
signatures' templates and over this body of ordinary text, so that a word every log prints ('error',
'cudnn', 'failed', 'status', 'check') tells little. The body: the lines of the development corpus's logs
(real threads) and of the signatures' examples and counter-examples, the benchmark's noise generators (bench/biglog.py: training logs, CI lines, dense
cuDNN/LSTM mentions), English function words as if on every other line, and the words of Python's own
exception messages as if on one line in 16. Run it again when either changes:

    python bench/logwords.py [--corpus ../shared/corpus]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "cudnn_doctor" / "data" / "logwords.json"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from cudnn_doctor.match.chains import words  # noqa: E402


def corpus_lines(corpus: Path) -> list[str]:
    """The lines of the corpus's logs (real threads: tracebacks, pip and CI output, prose around them; the
    messages themselves are a line or two of each), or of the fixtures' copies."""
    logs = sorted(corpus.glob("*.log")) or sorted((ROOT / "tests" / "fixtures" / "corpus").glob("*.log"))
    return [line for log in logs for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]


# English words every sentence has, counted as on every other line: a message's 'to find the' or 'has been'
# says nothing about which message it is
ENGLISH = ["a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being", "but", "by", "can", "cannot", "could", "did", "do", "does", "done", "for", "from", "had", "has", "have", "if", "in", "into", "is", "it", "its", "may", "more", "must", "no", "not", "now", "of", "on", "one", "only", "or", "other", "out", "should", "so", "such", "than", "that", "the", "their", "then", "there", "these", "this", "to", "too", "use", "used", "using", "was", "were", "what", "when", "where", "which", "while", "will", "with", "would", "you", "your"]


# Python's own exception messages (CPython's format strings: Objects/call.c, Python/getargs.c, Objects/object.c,
# Python/ceval.c, Python/import.c; 'x' and 'y' stand for the names they print): their words counted as if each were
# on one line in PYTHON_EVERY: every library's errors in a Python log are raised in these words, so they tell no
# signature apart ('__init__() missing 1 required positional argument: '
# with its argument's name cut is any class's error; the name is what tells)
PYTHON = [
    "TypeError: __init__() missing 1 required positional argument: 'x'",
    "TypeError: __init__() missing 1 required keyword-only argument: 'x'",
    "TypeError: __init__() takes 2 positional arguments but 3 were given",
    "TypeError: __init__() takes from 1 to 2 positional arguments but 3 were given",
    "TypeError: __init__() got an unexpected keyword argument 'x'",
    "TypeError: __init__() got multiple values for argument 'x'",
    "TypeError: __init__() got some positional-only arguments passed as keyword arguments: 'x'",
    "TypeError: 'NoneType' object is not callable",
    "TypeError: 'NoneType' object is not subscriptable",
    "TypeError: 'NoneType' object is not iterable",
    "TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'",
    "TypeError: can only concatenate str (not \"int\") to str",
    "TypeError: object of type 'NoneType' has no len()",
    "TypeError: unhashable type: 'list'",
    "TypeError: argument of type 'NoneType' is not iterable",
    "AttributeError: 'NoneType' object has no attribute 'x'",
    "AttributeError: module 'x' has no attribute 'y'",
    "ImportError: cannot import name 'x' from 'y' (/usr/lib/python3/site-packages/y/__init__.py)",
    "ModuleNotFoundError: No module named 'x'",
    "NameError: name 'x' is not defined",
    "UnboundLocalError: local variable 'x' referenced before assignment",
    "IndexError: list index out of range",
    "IndexError: tuple index out of range",
    "KeyError: 'x'",
    "ValueError: too many values to unpack (expected 2)",
    "ValueError: not enough values to unpack (expected 3, got 2)",
    "ValueError: invalid literal for int() with base 10: 'x'",
    "RecursionError: maximum recursion depth exceeded while calling a Python object",
    "ZeroDivisionError: division by zero",
]
PYTHON_EVERY = 16


def example_lines() -> list[str]:
    """The lines of the signatures' examples and counter-examples: real logs around the messages (a message
    shared by many signatures, such as a status name, is met often there, as in real logs)."""
    import yaml

    out: list[str] = []
    for path in sorted((ROOT / "signatures").rglob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for ex in (doc.get("examples") or []) + (doc.get("counter_examples") or []):
            out += str(ex.get("text") or "").splitlines()
    return out


def noise(lines: int = 6000) -> list[str]:
    """Lines of the benchmark's noise generators (sparse and dense)."""
    import biglog

    class Collect:
        def __init__(self) -> None:
            self.out: list[str] = []

        def line(self, text: str) -> None:
            self.out.append(text)

        def ts(self) -> str:
            return "2024-05-14T09:00:00.0000000Z"

    got = Collect()
    rng = random.Random(5)
    for step in range(lines // 2):
        biglog._noise(got, rng, step)  # type: ignore[arg-type]
        biglog._dense_noise(got, rng, step)  # type: ignore[arg-type]
    return got.out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    args = ap.parse_args()
    lines = corpus_lines(args.corpus) + example_lines() + noise()
    df: dict[str, int] = {word: len(lines) // 2 for word in ENGLISH}
    for line in lines:
        for word in {w for w, _, _ in words(line) if not w.isdigit() and len(w) < 40}:
            df[word] = df.get(word, 0) + 1
    for word in {w for line in PYTHON for w, _, _ in words(line) if not w.isdigit() and w not in ("x", "y")}:
        df[word] = df.get(word, 0) + len(lines) // PYTHON_EVERY
    kept = {w: n for w, n in sorted(df.items()) if n >= 2}
    OUT.write_text(json.dumps({"lines": len(lines), "df": kept}, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(lines)} lines, {len(kept)} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())

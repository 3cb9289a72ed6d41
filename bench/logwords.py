"""Write src/cudnn_doctor/data/logwords.json: how many lines of ordinary log text hold each word.

The tolerant recognition (kb/templates.py) weighs a template's words by how rarely they are met: over the
signatures' templates and over this body of ordinary text, so that a word every log prints ('error',
'cudnn', 'failed', 'status', 'check') tells little. The body: the lines of the development corpus's logs
(real threads) and of the signatures' examples and counter-examples, the benchmark's noise generators (bench/biglog.py: training logs, CI lines, dense
cuDNN/LSTM mentions), and English function words as if on every other line. Run it again when either changes:

    python bench/logwords.py [--corpus ../shared/corpus]

The words are counted as spelt, lower-cased (kb/templates.weights stems them itself, keeping only the spelling most
signatures use: 'training', not the 'train' of train.py). The shipped data was made from 11,526 lines; the base has
grown since (16,927 now), and a regeneration moves many words' weights: record the reports and the held-out sets
before and after it (bench/reports.py), as for any change of the matcher.
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

from cudnn_doctor.match.chains import WORD  # noqa: E402


def corpus_lines(corpus: Path) -> list[str]:
    """The lines of the corpus's logs (real threads: tracebacks, pip and CI output, prose around them; the
    messages themselves are a line or two of each), or of the fixtures' copies."""
    logs = sorted(corpus.glob("*.log")) or sorted((ROOT / "tests" / "fixtures" / "corpus").glob("*.log"))
    return [line for log in logs for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]


# English words every sentence has, counted as on every other line: a message's 'to find the' or 'has been'
# says nothing about which message it is
ENGLISH = ["a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being", "but", "by", "can", "cannot", "could", "did", "do", "does", "done", "for", "from", "had", "has", "have", "if", "in", "into", "is", "it", "its", "may", "more", "must", "no", "not", "now", "of", "on", "one", "only", "or", "other", "out", "should", "so", "such", "than", "that", "the", "their", "then", "there", "these", "this", "to", "too", "use", "used", "using", "was", "were", "what", "when", "where", "which", "while", "will", "with", "would", "you", "your"]


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


def _words(line: str) -> list[str]:
    """The words of a line as spelt, lower-cased (kb/templates.weights stems them, keeping the spellings most
    signatures use)."""
    return WORD.findall(line.lower())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    args = ap.parse_args()
    lines = corpus_lines(args.corpus) + example_lines() + noise()
    df: dict[str, int] = {word: len(lines) // 2 for word in ENGLISH}
    for line in lines:
        for word in {w for w in _words(line) if not w.isdigit() and len(w) < 40}:
            df[word] = df.get(word, 0) + 1
    kept = {w: n for w, n in sorted(df.items()) if n >= 2}
    OUT.write_text(json.dumps({"lines": len(lines), "df": kept}, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(lines)} lines, {len(kept)} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())

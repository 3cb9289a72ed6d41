"""Build the list of threads the held-out set must not use.

Every GitHub thread (``owner/repo#N`` or an issues/pull/discussions URL) and every other URL that appears
anywhere in ``signatures/**/*.yaml``, ``docs/census/`` or the ``source`` field of the development corpus
(``shared/corpus/cases.jsonl``) is excluded, and so is every ``source`` of the held-out sets
(``bench/heldout*/cases.jsonl``): a second set must not reuse the first one's threads. Run from the
repository root::

    python bench/heldout/exclusions.py [--corpus PATH] [--check URL ...] [--cases [SET_DIR]]

It prints the normalised keys (``github:owner/repo#N`` lower-cased, or ``url:host/path``), one a line;
``--check`` answers for each URL given whether it is excluded (exit 1 if any is; every held-out set's sources
count); ``--cases`` checks every source of a set's cases.jsonl (``bench/heldout`` unless a set directory is
given, e.g. ``--cases bench/heldout2``) against the knowledge base, the census, the corpus and the OTHER
held-out sets (run it again whenever signatures or the census cite new threads).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
DEFAULT_SET = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path("/work/shared/corpus/cases.jsonl")

_GH_URL = re.compile(
    r"github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(?:issues|pull|discussions)/(\d+)", re.I
)
_GH_SHORT = re.compile(r"(?<![\w/.-])([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)#(\d+)")
_URL = re.compile(r"https?://[^\s\"'<>)\]`]+")
# "pytorch#5878", "TF#12345": a thread named by its repository alone
_REPO_SHORT = re.compile(r"(?<![\w/.-])([A-Za-z][A-Za-z0-9_.-]*)#(\d{2,})")
# renamed or abbreviated repositories, so that one thread has one key
_ALIASES = {"tf": "tensorflow", "incubator-mxnet": "mxnet", "knet": "knet.jl", "fastai2": "fastai"}


def _repo(name: str) -> str:
    name = name.lower()
    return _ALIASES.get(name, name)


def normalise(text: str) -> set[str]:
    """All thread keys named in ``text``."""
    keys: set[str] = set()
    for rx in (_GH_URL, _GH_SHORT):
        for m in rx.finditer(text):
            keys.add(f"github:{m[1].lower()}/{_repo(m[2])}#{m[3]}")
            keys.add(f"repo:{_repo(m[2])}#{m[3]}")
    for m in _REPO_SHORT.finditer(text):
        keys.add(f"repo:{_repo(m[1])}#{m[2]}")
    for m in _URL.finditer(text):
        url = m[0].rstrip(".,;:")
        if _GH_URL.search(url):
            continue
        host_path = re.sub(r"^https?://(www\.)?", "", url).split("#")[0].split("?")[0].rstrip("/")
        keys.add("url:" + host_path.lower())
        # Q&A and forum threads are known by their numeric id whatever the slug
        so = re.match(r"(stackoverflow\.com|[a-z]+\.stackexchange\.com)/(?:questions|q)/(\d+)", host_path)
        if so:
            keys.add(f"qa:{so[1]}/{so[2]}")
        forum = re.match(
            r"(discuss\.[a-z.]+|forums\.developer\.nvidia\.com|discourse\.[a-z.]+)/t/(?:[^/]+/)?(\d+)",
            host_path,
        )
        if forum:
            keys.add(f"forum:{forum[1]}/{forum[2]}")
    return keys


def _sources(cases: Path) -> set[str]:
    """The thread keys of the ``source`` fields of a cases.jsonl."""
    keys: set[str] = set()
    for line in cases.read_text(encoding="utf-8").splitlines():
        if line.strip():
            keys |= normalise(json.loads(line).get("source") or "")
    return keys


def heldout_sets() -> list[Path]:
    """Every held-out set directory (``bench/heldout*`` holding a cases.jsonl)."""
    return sorted(p for p in BENCH.glob("heldout*") if (p / "cases.jsonl").is_file())


def build(corpus: Path = DEFAULT_CORPUS, skip_set: Path | None = None) -> set[str]:
    """The exclusion set from the knowledge base, the census, the development corpus and the held-out sets
    (all but ``skip_set``, the set being checked)."""
    keys: set[str] = set()
    for path in sorted((ROOT / "signatures").rglob("*.yaml")):
        keys |= normalise(path.read_text(encoding="utf-8"))
    for path in sorted((ROOT / "docs" / "census").rglob("*")):
        if path.is_file():
            keys |= normalise(path.read_text(encoding="utf-8", errors="replace"))
    if corpus.exists():
        keys |= _sources(corpus)
    for held in heldout_sets():
        if skip_set is None or held.resolve() != skip_set.resolve():
            keys |= _sources(held / "cases.jsonl")
    return keys


def is_excluded(url: str, keys: set[str]) -> bool:
    """Whether the thread at ``url`` is cited by the knowledge base, the census or the corpus.

    A thread is matched by ``owner/repo#N`` and also by ``repo#N`` alone (the knowledge base often names a
    thread as ``pytorch#5878``), which errs on the side of excluding."""
    return bool(normalise(url) & keys)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--check", nargs="*", default=None)
    ap.add_argument(
        "--cases",
        nargs="?",
        type=Path,
        const=DEFAULT_SET,
        default=None,
        metavar="SET_DIR",
        help="check the sources of SET_DIR/cases.jsonl (default bench/heldout) against all but that set",
    )
    args = ap.parse_args(argv)
    keys = build(args.corpus, skip_set=args.cases)
    if args.cases:
        records = [
            json.loads(line)
            for line in (args.cases / "cases.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        cited = [f"{r['case']} {r['source']}" for r in records if is_excluded(r["source"], keys)]
        print("\n".join(cited) if cited else f"none of the {len(records)} cases is cited")
        return int(bool(cited))
    if args.check is None:
        print("\n".join(sorted(keys)))
        return 0
    bad = 0
    for url in args.check:
        hit = is_excluded(url, keys)
        bad |= hit
        print(("EXCLUDED " if hit else "ok       ") + url)
    return int(bad)


if __name__ == "__main__":
    sys.exit(main())

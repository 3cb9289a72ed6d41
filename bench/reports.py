"""Record the JSON report of every example, counter-example, corpus log, held-out log and benchmark log, or compare two.

Before a refactor of the matcher or the core, record today's reports; after it, compare: every difference is
either a fix (listed and explained in the change) or a regression.

    python bench/reports.py record OUT_DIR [--corpus ../shared/corpus] [--biglog SIZE]
    python bench/reports.py compare OLD_DIR NEW_DIR

A report is the `--format json` record of `cudnn_doctor.diagnose` with the fields that vary from run to run
(timings, the tool's version) removed. One file per input: `<kind>/<name>.json`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
VOLATILE = {"tool", "elapsed_s", "timing", "stats"}


def _clean(record: object) -> object:
    if isinstance(record, dict):
        return {k: _clean(v) for k, v in record.items() if k not in VOLATILE}
    if isinstance(record, list):
        return [_clean(v) for v in record]
    return record


def _inputs(corpus: Path | None) -> dict[str, str]:
    """name -> text of every input: signature examples and counter-examples, corpus logs, the held-out sets' logs,
    test fixtures."""
    out: dict[str, str] = {}
    for path in sorted((ROOT / "signatures").rglob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        sid = doc.get("id")
        if not sid:
            continue
        for kind in ("examples", "counter_examples"):
            for i, ex in enumerate(doc.get(kind) or []):
                name = ex.get("name") or str(i)
                out[f"{kind}/{sid.replace('/', '__')}__{name}"] = ex["text"]
    if corpus and corpus.is_dir():
        for path in sorted(corpus.glob("*.log")):
            out[f"corpus/{path.stem}"] = path.read_text(encoding="utf-8", errors="replace")
    for path in sorted(ROOT.glob("bench/heldout*/*.log")):  # measured, never fitted: a refactor must not move them either
        out[f"{path.parent.name}/{path.stem}"] = path.read_text(encoding="utf-8", errors="replace")
    for path in sorted((ROOT / "tests" / "fixtures").rglob("*.log")):
        rel = path.relative_to(ROOT / "tests" / "fixtures").with_suffix("")
        out[f"fixtures/{rel.as_posix().replace('/', '__')}"] = path.read_text(encoding="utf-8", errors="replace")
    return out


def record(out: Path, corpus: Path | None, biglog: str | None) -> int:
    from cudnn_doctor import diagnose  # the installed build under test
    from cudnn_doctor.kb.compiled import load_catalog

    catalog = load_catalog()  # the built-in base, loaded once (not once per input)
    for name, text in _inputs(corpus).items():
        rep = _clean(diagnose(text, catalog=catalog, source=name.rsplit("/", 1)[-1]).to_dict())
        dest = out / f"{name}.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(json.dumps(rep, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    if biglog:
        sys.path.insert(0, str(ROOT / "bench"))
        import biglog as big

        log = Path(tempfile.gettempdir()) / "cudnn-doctor-reports-biglog.log"  # one path: the same reports
        for dense in (False, True):
            big.generate(log, big.parse_size(biglog), seed=5, dense=dense)
            _record_log(log, out / "bench" / f"biglog{'-dense' if dense else ''}.json")
        log.unlink()
    return 0


def _record_log(log: Path, dest: Path) -> None:
    """The CLI's JSON report on a big log file (the path users take for big logs)."""
    proc = subprocess.run([sys.executable, "-m", "cudnn_doctor", "diagnose", "--format", "json", str(log)],
                          capture_output=True, text=True, check=False)
    rep = _clean(json.loads(proc.stdout))
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(rep, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _summary(rep: dict) -> list[tuple[str, object]]:
    return [(f.get("id"), f.get("confidence")) for f in rep.get("findings", [])]


def compare(old: Path, new: Path) -> int:
    names = sorted({p.relative_to(old).as_posix() for p in old.rglob("*.json")}
                   | {p.relative_to(new).as_posix() for p in new.rglob("*.json")})
    changed = 0
    for name in names:
        a, b = old / name, new / name
        if not a.is_file() or not b.is_file():
            print(f"{name}: only in {'new' if b.is_file() else 'old'}")
            changed += 1
            continue
        ra, rb = json.loads(a.read_text()), json.loads(b.read_text())
        if ra == rb:
            continue
        changed += 1
        sa, sb = _summary(ra), _summary(rb)
        what = f"findings {sa} -> {sb}" if sa != sb else "same findings, other fields differ"
        print(f"{name}: {what}")
    print(f"{changed} of {len(names)} reports differ")
    return 1 if changed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("out", type=Path)
    rec.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    rec.add_argument("--biglog", help="also a generated benchmark log of this size (e.g. 64MiB)")
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("old", type=Path)
    cmp_.add_argument("new", type=Path)
    args = ap.parse_args()
    if args.cmd == "record":
        return record(args.out, args.corpus, args.biglog)
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())

"""Score cudnn-doctor on the held-out set of real logs (bench/heldout/).

Each case is one log as a user posted it in a public thread that neither the knowledge base, the census nor
the development corpus cites (bench/heldout/exclusions.py builds that list). ``cases.jsonl`` gives its label:
the signature id a correct diagnosis names (``expected``, with ``acceptable`` alternatives where the thread
left the cause open), ``none-known`` (an RNN error no signature covers) or ``negative`` (no cuDNN RNN error).

    python bench/heldout.py                  # tables per framework and presentation, then every miss
    python bench/heldout.py --json OUT.json  # also write the per-case results
    python bench/heldout.py --case 012 047   # only these cases (a quick look; not a score)
    python bench/heldout.py --repo /tmp/main # score another checkout's src/ and signatures/ (e.g. a
                                             # `git archive main | tar -x -C /tmp/main` snapshot)
    python bench/heldout.py --set bench/heldout2   # score another held-out set (same format)

Scores:
- positives with a known signature: top-1 **right** (the first finding is ``expected`` or one of
  ``acceptable``), **wrong** (another finding comes first), **none** (no finding at all). A wrong or missing
  answer is a **near miss** when the expected id is among the later findings or in the first finding's
  differential.
- ``none-known`` positives: reported apart (what we answered), they have no right answer yet.
- negatives: **false alarm** when any finding has RNN scope (``scope == "rnn"``); a general cuDNN/CUDA
  finding (convolution failure, OOM, version mismatch) is allowed.

This is a measurement set: fix what it shows by class of failure (a message family, a presentation, a
ranking rule), never by fitting these lines, and do not copy them into tests or signature examples.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent / "heldout"  # the default set; --set chooses another
ROOT = HERE.parents[1]
cudnn_doctor = None  # imported by _load(), from the checkout chosen with --repo


@dataclass
class Result:
    """What cudnn-doctor answered for one case, and how it scores."""

    case: str
    framework: str
    presentation: str
    polarity: str
    expected: str
    outcome: str  # right / wrong / none / false-alarm / clean / general / unknown-answered / unknown-silent
    top: str = ""
    top_scope: str = ""
    findings: list[str] = field(default_factory=list)
    near: str = ""  # where the expected id appears when it is not first: 'finding #k' or 'differential'
    line: str = ""  # the log line the top finding points at (or the first line of the log)


def _load(repo: Path) -> None:
    """Import cudnn_doctor from ``repo``/src (its knowledge base is ``repo``/signatures)."""
    global cudnn_doctor
    sys.path.insert(0, str(repo.resolve() / "src"))
    import cudnn_doctor as module

    if not Path(module.__file__).resolve().is_relative_to(repo.resolve()):
        raise SystemExit(f"cudnn_doctor was imported from {module.__file__}, not from {repo}")
    cudnn_doctor = module


def load_cases(only: set[str] | None = None, set_dir: Path = HERE) -> list[dict]:
    """The records of ``set_dir``/cases.jsonl, in case order (only those named, if any)."""
    cases = [
        json.loads(line)
        for line in (set_dir / "cases.jsonl").read_text(encoding="utf-8").splitlines()
        if line
    ]
    return [c for c in cases if not only or c["case"] in only]


def score(case: dict, set_dir: Path = HERE) -> Result:
    """Diagnose one case's log (``set_dir``/NNN.log) and score the answer against its label."""
    text = (set_dir / f"{case['case']}.log").read_text(encoding="utf-8")
    diagnosis = cudnn_doctor.diagnose(text, source=f"{case['case']}.log")
    findings = diagnosis.findings
    res = Result(
        case["case"], case["framework"], case["presentation"], case["polarity"], case["expected"], ""
    )
    res.findings = [f"{f.id} ({f.confidence:.2f})" for f in findings]
    lines = text.splitlines()
    if findings:
        top = findings[0]
        res.top, res.top_scope = top.id, top.signature.scope
        n = top.first.line
        res.line = (lines[n - 1] if 0 < n <= len(lines) else "").strip()[:160]
    else:
        res.line = next((ln.strip() for ln in lines if ln.strip()), "")[:160]

    if case["polarity"] == "negative":
        if any(f.signature.scope == "rnn" for f in findings):
            res.outcome = "false-alarm"
        else:
            res.outcome = "general" if findings else "clean"
        return res
    if case["expected"] == "none-known":
        res.outcome = "unknown-answered" if findings else "unknown-silent"
        return res

    accepted = {case["expected"], *case.get("acceptable", [])}
    if findings and findings[0].id in accepted:
        res.outcome = "right"
        return res
    res.outcome = "wrong" if findings else "none"
    for k, f in enumerate(findings[1:], start=2):
        if f.id in accepted:
            res.near = f"finding #{k}"
            break
    else:
        if findings and any(c.id in accepted for c in findings[0].differential):
            res.near = "differential"
    return res


def _table(results: list[Result], key: str) -> list[str]:
    """Rows of counts per value of ``key`` (framework or presentation)."""
    groups: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        groups[getattr(r, key)].append(r)
    head = (
        f"{key:<14} {'cases':>5} | {'known':>5} {'right':>5} {'wrong':>5} {'none':>5} | "
        f"{'unkn':>4} | {'neg':>4} {'alarm':>5}"
    )
    rows = [head, "-" * len(head)]
    for name in [*sorted(groups, key=lambda g: (-len(groups[g]), g)), "(all)"]:
        rs = results if name == "(all)" else groups[name]
        c = Counter(r.outcome for r in rs)
        known = c["right"] + c["wrong"] + c["none"]
        unknown = c["unknown-answered"] + c["unknown-silent"]
        neg = c["false-alarm"] + c["clean"] + c["general"]
        if name == "(all)":
            rows.append("-" * len(head))
        rows.append(
            f"{name:<14} {len(rs):>5} | {known:>5} {c['right']:>5} {c['wrong']:>5} {c['none']:>5} | "
            f"{unknown:>4} | {neg:>4} {c['false-alarm']:>5}"
        )
    return rows


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def report(results: list[Result]) -> str:
    """The tables, the totals and the list of misses."""
    out: list[str] = []
    c = Counter(r.outcome for r in results)
    known = c["right"] + c["wrong"] + c["none"]
    neg = c["false-alarm"] + c["clean"] + c["general"]
    out.append(
        f"held-out set: {len(results)} cases ({known} positive with a known signature, "
        f"{c['unknown-answered'] + c['unknown-silent']} none-known, {neg} negative)"
    )
    strict = sum(1 for r in results if r.outcome == "right" and r.top == r.expected)
    out.append(
        f"top-1 right {c['right']}/{known} ({_pct(c['right'], known)}; {strict} naming exactly the expected "
        f"id, {c['right'] - strict} an accepted alternative), wrong {c['wrong']}, no finding {c['none']}; "
        f"near misses {sum(1 for r in results if r.near)}"
    )
    out.append(
        f"negatives with an RNN-scope finding: {c['false-alarm']}/{neg}; "
        f"with only a general finding: {c['general']}; silent: {c['clean']}"
    )
    out.append(f"none-known: answered {c['unknown-answered']}, silent {c['unknown-silent']}")
    out.append("")
    out += _table(results, "framework")
    out.append("")
    out += _table(results, "presentation")
    misses = [r for r in results if r.outcome in ("wrong", "none", "false-alarm", "unknown-answered")]
    if misses:
        out.append("")
        out.append("misses (and what none-known cases got):")
        for r in misses:
            got = r.top or "no finding"
            near = f"  [near miss: {r.near}]" if r.near else ""
            out.append(
                f"  {r.case} {r.outcome:<16} {r.framework}/{r.presentation}: expected {r.expected}; "
                f"got {got}{near}"
            )
            out.append(f"      line: {r.line}")
            if len(r.findings) > 1:
                out.append(f"      all: {', '.join(r.findings)}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="write the per-case results here")
    ap.add_argument("--case", nargs="*", help="only these case numbers")
    ap.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose cudnn-doctor is scored")
    ap.add_argument(
        "--set",
        type=Path,
        default=HERE,
        dest="set_dir",
        help="the held-out set directory (default bench/heldout)",
    )
    args = ap.parse_args(argv)
    if not (args.set_dir / "cases.jsonl").is_file():
        raise SystemExit(f"{args.set_dir} has no cases.jsonl")
    _load(args.repo)
    only = set(args.case) if args.case else None
    results = [score(c, args.set_dir) for c in load_cases(only, args.set_dir)]
    print(report(results))
    if args.json:
        args.json.write_text(
            json.dumps([asdict(r) for r in results], indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

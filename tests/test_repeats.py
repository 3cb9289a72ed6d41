"""A repeated match's context decided once, or ruled out unread (Matcher._context, Matcher._ruled_out): the
memo and the rule-out against the plain way (every line of each context searched, nothing shared). A warning
repeated at every step matches its message's signature and its causes'; each cause requires evidence an ordinary
log never shows. Where its near misses are all reported and no line around a match (or, for a line-local
regex with MANY candidate lines, of the whole window) holds a required item's literal, the match is ruled out
without reading its context, and where its context's literals stand only on its own lines it is decided once per
distinct text of them. Equivalence: the report (findings, their counts, first and last lines, evidence, related;
near misses) and the matcher's matches and misses are those of the plain way, on logs where the shortcuts
engage, with evidence of the causes near some of the occurrences, in two streams, with and without hyperscan,
and at the edges of what the fast way reads (found by mutating it)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from clirunner import invoke
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.match import Matcher, matcher
from test_match_budgets import UnsharedLines  # (a window's memo that keeps no line search and no verdict)

WARNING = (
    "/home/u/proj/model.py:{n}: UserWarning: RNN module weights are not part of single contiguous chunk of memory. "
    "This means they need to be compacted at every call, possibly greatly increasing memory usage. To compact "
    "weights again call flatten_parameters()."
)


def _log(occurrences: int = 400, evidence: bool = True) -> str:
    """A training log past the paste size: the warning after every 12 step lines (its source line changing), and
    the evidence of three of its causes (DataParallel, a weight-drop wrapper, TorchScript) near a few of them,
    some lines in a second stream, three with a backspace."""
    lines: list[str] = []
    for k in range(occurrences):
        lines += [f"2024-03-01 10:{k % 60:02d}:{j:02d} INFO epoch {k // 50} step {k * 12 + j}: loss {(k * 7 + j) % 97 / 31:.4f}" for j in range(12)]
        lines += _evidence(k) if evidence else []
        warning = WARNING.format(n=88 + k % 3)
        if k in (340, 341, 380):  # a terminal's backspace: words normalization's text holds and the raw line does not
            warning = warning.replace("UserWarning", "UserWarninx\bg")
        lines.append(f"[rank1]: {warning}" if 150 <= k < 180 else warning)
        lines.append("  output, hidden = self.lstm(packed, hidden)")
    return "\n".join(lines) + "\n"


def _evidence(k: int) -> list[str]:
    """The causes' evidence before occurrence ``k``: DataParallel, a weight-drop wrapper, TorchScript."""
    if k in (40, 41, 200):
        return ["  model = nn.DataParallel(model)  # torch/nn/parallel/data_parallel.py"]
    if k in (120, 360):
        return ["Applying weight drop of 0.5 to weight_hh_l0"]
    return ["  scripted = torch.jit.script(model)"] if k == 390 else []


@contextmanager
def _plain(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Matchers made inside it rule no match out unread and share no verdict: each occurrence's context is read
    (where prefilter.RuleOut marks its items' literals, the mechanism both ways share)."""
    with monkeypatch.context() as m:
        m.setattr(Matcher, "_ruled_out", lambda *_: False)
        m.setattr(matcher, "Lines", UnsharedLines)
        yield


def _engaged(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often the matchers made from now on rule a match out unread ("match") or a whole window ("window"),
    and decide a context ("verdict")."""
    count = {"match": 0, "window": 0, "verdict": 0}
    ruled_out, verdict = Matcher._ruled_out, matcher.Evidence.verdict

    def counted(self: Matcher, idx: int, lo: int, hi: int, win: Any) -> bool:
        got = ruled_out(self, idx, lo, hi, win)
        count["window" if (lo, hi) == (0, win.lines.size - 1) else "match"] += got
        return got

    def decided(self: Any, *args: Any) -> Any:
        count["verdict"] += 1
        return verdict(self, *args)

    monkeypatch.setattr(Matcher, "_ruled_out", counted)
    monkeypatch.setattr(matcher.Evidence, "verdict", decided)
    return count


def _rows(text: str) -> list[tuple[object, ...]]:
    """The matcher's matches and misses over the text in blocks of 1,500 lines (a big log's windows: the near
    misses spent in the first, whole windows ruled out after it)."""
    lines = text.split("\n")
    found = list(Matcher(load_catalog()).scan_blocks(["\n".join(lines[i : i + 1500]) for i in range(0, len(lines), 1500)], "<text>"))
    matches = [m for m, _ in found if m is not None]
    misses = [miss for _, miss in found if miss is not None]
    return [(x.sig.id, x.line, x.end_line, x.text, sorted(x.captures.items(), key=str), x.stream, x.evidence, x.supported, x.before)
            for x in matches] + [(x.sig.id, x.line, x.reason) for x in misses]


def _fast_and_plain(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[object, ...]], dict[str, int]]:
    """The rows of ``text`` the fast way, which are the plain way's, and how often the fast way's shortcuts
    engaged ("plain": the verdicts the plain way decided)."""
    count = _engaged(monkeypatch)
    fast, engaged = _rows(text), dict(count)
    with _plain(monkeypatch):
        assert fast == _rows(text)
    return fast, {**engaged, "plain": count["verdict"] - engaged["verdict"]}


@pytest.mark.parametrize("no_hyperscan", ["", "1"])
@pytest.mark.parametrize("evidence", [True, False])
def test_a_ruled_out_repeat_gets_what_reading_its_context_gives(no_hyperscan: str, evidence: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the causes' evidence in the window, each occurrence is decided on its own; without it, the causes
    with a requirement are ruled out for the whole window at once."""
    if no_hyperscan:
        monkeypatch.setenv("CUDNN_DOCTOR_NO_HYPERSCAN", "1")
    fast, engaged = _fast_and_plain(_log(evidence=evidence), monkeypatch)
    # the occurrences ruled out one by one (five causes' of 400, less those near the evidence and those of the
    # windows ruled out whole), the windows, and the verdicts shared
    assert engaged["match"] > 500 and engaged["window"] >= 9 and engaged["verdict"] * 5 < engaged["plain"]
    found = {r[0] for r in fast if len(r) > 3}
    if evidence:
        assert found == {"pytorch/rnn-weights-not-contiguous", "pytorch/cause-dataparallel-replica-weights-not-flat",
                         "pytorch/cause-weight-drop-wrapper-unflattens-rnn", "pytorch/cause-torchscript-moved-after-scripting"}
    else:
        assert found == {"pytorch/rnn-weights-not-contiguous"}


@pytest.mark.parametrize("evidence", [True, False])
def test_the_report_is_the_plain_ways(evidence: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "train.log"
    log.write_text(_log(evidence=evidence), encoding="utf-8")
    env = {"CUDNN_DOCTOR_JOBS": "1"}
    fast = invoke(["diagnose", str(log), "--format", "json"], env=env)
    with _plain(monkeypatch):
        slow = invoke(["diagnose", str(log), "--format", "json"], env=env)
    assert fast.exit_code == slow.exit_code and fast.stdout == slow.stdout
    report = json.loads(fast.stdout)
    counted = {f["id"]: (f["count"], f["line"], f["last_line"]) for f in report["findings"]}
    if evidence:  # the occurrences near the causes' evidence: the causes' findings (the warning's folded into them)
        assert counted["pytorch/cause-dataparallel-replica-weights-not-flat"][0] > 10
        assert counted["pytorch/cause-weight-drop-wrapper-unflattens-rnn"][0] > 10
    else:  # every occurrence counted, the first and the last (the ruled-out repeats of its causes among them)
        assert counted == {"pytorch/rnn-weights-not-contiguous": (400, 13, 400 * 14 - 1)}


def test_an_exclusion_on_the_line_is_read_as_the_rule_out_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The libtorch cause without its requirement (only its exclusion of the Python warning's words decides it):
    where a backspace makes normalization's text hold those words and the raw line not, the plain way does not
    exclude it (the rule-out finds no literal on the line), nor does a verdict shared with the lines that hold them
    (the shared verdicts' key holds the items each line's literals mark, not only its text)."""
    base = load_catalog()
    sig = base.get("pytorch/cause-libtorch-binding-rnn-never-flattened")
    assert sig is not None and sig.context.exclude_any and sig.context.require_any
    alone = dataclasses.replace(sig, context=dataclasses.replace(sig.context, require_any=()))
    catalog = dataclasses.replace(base, signatures=[alone])
    noise = [f"2024-03-01 11:00:{j:02d} INFO eval step {j}: loss 0.{j:03d}" for j in range(60)]
    alone_lines = [*noise, WARNING.format(n=90).replace("UserWarning", "UserWarninx\bg"), *noise]
    text = _log(evidence=False) + "\n".join(alone_lines * 2) + "\n"
    backspaced = [n for n, line in enumerate(text.split("\n"), 1) if "\b" in line]

    def rows() -> list[tuple[object, ...]]:
        matches, misses = Matcher(catalog).scan_text(text)
        return [(x.sig.id, x.line, x.evidence) for x in matches] + [(x.sig.id, x.line, x.reason) for x in misses]

    count = _engaged(monkeypatch)
    fast = rows()
    with _plain(monkeypatch):
        assert fast == rows()
    assert len(backspaced) == 5 and count["match"] == count["window"] == 0  # (nothing required: nothing ruled out unread)
    assert [r[1] for r in fast if r[2] == []] == backspaced[3:]  # (those of the log among its warnings: excluded nearby)


DATAPARALLEL = "  model = nn.DataParallel(model)"
LIBTORCH = ("[W RNN.cpp:775] Warning: RNN module weights are not part of single contiguous chunk of memory. This means they "
            "need to be compacted at every call, possibly greatly increasing memory usage. To compact weights again call "
            "flatten_parameters(). (function _cudnn_rnn)")


def _spaced(evidence_at: int) -> list[str]:
    """The warning after every 13 step lines, 120 times, and DataParallel inserted before line ``evidence_at``."""
    lines: list[str] = []
    for k in range(120):
        lines += [f"2024-03-01 10:00:00 INFO k{k} step {j}: loss 0.{j:04d}" for j in range(13)]
        lines.append(WARNING.format(n=88 + k % 3))
    lines.insert(evidence_at, DATAPARALLEL)
    return lines


def _edge(case: str) -> list[str]:
    """Logs with evidence at the edges of what the fast way reads (found by mutating repeats.py, which it replaced)."""
    at = 13 + 14 * 60  # occurrence 60's line (0-based)
    if case == "span_first":  # the DataParallel line exactly on the first line of occurrence 60's context span
        return _spaced(at - 79)  # (inserting shifts the occurrence down: 80 lines above it)
    if case == "span_last":  # ... exactly on its last line (20 lines below it)
        return _spaced(at + 20)
    lines: list[str] = []
    for k in range(150):
        lines += [f"2024-03-01 10:00:00 INFO k{k} step {j}: loss 0.{j:04d}" for j in range(13)]
        if case == "two_contexts" and k >= 50 and k % 5 == 0:  # one cause's exclusion beside the other's requirement
            lines += [DATAPARALLEL, WARNING.format(n=88) + "  [WeightDrop]"]
        elif case == "carriage_return" and k >= 110:  # the raw line holds the libtorch exclusion, its text does not
            lines += [f"2024-03-01 11:00:00 INFO c{k} step {j}: loss 0.{j:04d}" for j in range(50)]
            lines.append(WARNING.format(n=88) + "\r" + LIBTORCH)
        else:
            lines.append(WARNING.format(n=88))
    return lines


@pytest.mark.parametrize("case", ["span_first", "span_last", "two_contexts", "carriage_return"])
def test_evidence_at_the_edges_of_what_the_fast_way_reads(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Evidence on the first or the last line of a context span, a line holding one context's exclusion and
    another's requirement (the exclusion's verdict is per context), a carriage return (the exclusion is searched in
    the text the plain way reads, not in the raw line): the plain way's matches and misses."""
    _, engaged = _fast_and_plain("\n".join(_edge(case)) + "\n", monkeypatch)
    assert engaged["match"] > 100 and engaged["verdict"] * 2 < engaged["plain"]

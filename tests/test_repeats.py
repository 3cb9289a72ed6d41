"""match/repeats.py: a repeated match whose signature has no near miss left to report, and whose required
items' literals stand on no line of its context span (or of its window), or whose own line holds an excluded
item, is ruled out without reading its context. Equivalence:
the report (findings, their counts, first and last lines, evidence, related; near misses) and the matcher's
matches and misses are those of the slow path (every context read), on logs where it engages, with evidence of
the causes near some of the occurrences, in two streams, with and without hyperscan."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from clirunner import invoke
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.match import Matcher, repeats

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


def _rows(text: str) -> tuple[list[tuple[object, ...]], int]:
    """The matcher's matches and misses over the text in blocks of 1,500 lines (a big log's windows: the near
    misses spent in the first, whole windows ruled out after it), and how often repeats.py engaged."""
    matcher = Matcher(load_catalog())
    lines = text.split("\n")
    found = list(matcher.scan_blocks(["\n".join(lines[i : i + 1500]) for i in range(0, len(lines), 1500)], "<text>"))
    matches = [m for m, _ in found if m is not None]
    misses = [miss for _, miss in found if miss is not None]
    got = [(x.sig.id, x.line, x.end_line, x.text, sorted(x.captures.items(), key=str), x.stream, x.evidence, x.supported, x.before)
           for x in matches] + [(x.sig.id, x.line, x.reason) for x in misses]
    return got, matcher.repeats.engaged


@pytest.mark.parametrize("no_hyperscan", ["", "1"])
@pytest.mark.parametrize("evidence", [True, False])
def test_a_ruled_out_repeat_gets_what_reading_its_context_gives(no_hyperscan: str, evidence: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the causes' evidence in the window, each occurrence is decided on its own (Repeats.ruled_out);
    without it, the four causes with a requirement are ruled out for the whole window at once
    (Repeats.window_ruled_out) and the libtorch one per occurrence."""
    if no_hyperscan:
        monkeypatch.setenv("CUDNN_DOCTOR_NO_HYPERSCAN", "1")
    text = _log(evidence=evidence)
    fast, engaged = _rows(text)
    monkeypatch.setattr(repeats, "ENABLED", False)
    slow, none = _rows(text)
    assert fast == slow
    assert none == 0 and engaged > 1600  # five causes' ruled-out occurrences of 400, less those near the evidence
    found = {r[0] for r in fast if len(r) > 3}
    if evidence:
        assert found == {"pytorch/rnn-weights-not-contiguous", "pytorch/cause-dataparallel-replica-weights-not-flat",
                         "pytorch/cause-weight-drop-wrapper-unflattens-rnn", "pytorch/cause-torchscript-moved-after-scripting"}
    else:
        assert found == {"pytorch/rnn-weights-not-contiguous"}


@pytest.mark.parametrize("evidence", [True, False])
def test_the_report_is_the_slow_paths(evidence: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "train.log"
    log.write_text(_log(evidence=evidence), encoding="utf-8")
    env = {"CUDNN_DOCTOR_JOBS": "1"}
    fast = invoke(["diagnose", str(log), "--format", "json"], env=env)
    monkeypatch.setattr(repeats, "ENABLED", False)
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
    where a backspace makes normalization's text hold those words and the raw line not, the slow path does not
    exclude it (the rule-out finds no literal on the line), nor does the fast one."""
    base = load_catalog()
    sig = base.get("pytorch/cause-libtorch-binding-rnn-never-flattened")
    assert sig is not None and sig.context.exclude_any and sig.context.require_any
    alone = dataclasses.replace(sig, context=dataclasses.replace(sig.context, require_any=()))
    catalog = dataclasses.replace(base, signatures=[alone])
    noise = [f"2024-03-01 11:00:{j:02d} INFO eval step {j}: loss 0.{j:03d}" for j in range(60)]
    alone_lines = [*noise, WARNING.format(n=90).replace("UserWarning", "UserWarninx\bg"), *noise]
    text = _log(evidence=False) + "\n".join(alone_lines * 2) + "\n"
    backspaced = [n for n, line in enumerate(text.split("\n"), 1) if "\b" in line]

    def rows() -> tuple[list[tuple[object, ...]], int]:
        matcher = Matcher(catalog)
        matches, misses = matcher.scan_text(text)
        return [(x.sig.id, x.line, x.evidence) for x in matches] + [(x.sig.id, x.line, x.reason) for x in misses], matcher.repeats.engaged

    fast, engaged = rows()
    monkeypatch.setattr(repeats, "ENABLED", False)
    assert fast == rows()[0]
    assert engaged > 300 and len(backspaced) == 5
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
    """Logs with evidence at the edges of what the fast path reads (found by mutating it: tests/test_repeats.py)."""
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
def test_evidence_at_the_edges_of_what_the_fast_path_reads(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Evidence on the first or the last line of a context span, a line holding one context's exclusion and
    another's requirement (the exclusion's verdict is per context), a carriage return (the exclusion is searched in
    the text the slow path reads, not in the raw line): the slow path's matches and misses."""
    text = "\n".join(_edge(case)) + "\n"
    fast, engaged = _rows(text)
    monkeypatch.setattr(repeats, "ENABLED", False)
    assert fast == _rows(text)[0]
    assert engaged > 100

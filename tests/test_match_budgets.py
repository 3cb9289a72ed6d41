"""The matcher's CPU budgets and its speed mechanisms' equivalence with the plain way (issue 27, issue 30).

- A user ``_evidence.yaml`` regex has the same per-signature CPU budget as a signature's regex: one that
  backtracks forever costs its budget once, with one warning, not a timeout and a warning at every match.
- prefilter.RuleOut (the context items' literals, one hyperscan pass per piece of lines) gives the context checks'
  results the plain search of every line gives, with and without hyperscan.
- Signatures with the same context share its verdict on the same lines (Matcher._context): each gets what it
  gets alone.
- A repeated occurrence is searched once per distinct line text (Matcher._in_line) and, where its context's
  literals stand only on its own lines, decided once per distinct text of them (Matcher._context, RuleOut.marked):
  each gets what it gets searched and decided anew.
- A match's lines before it (lines.Before) are normalized when first read: what normalizing them at once gives.
- A block's window holds only the lines its candidate signatures read before it (Matcher._reach): each match and
  miss is what a window with the whole tail gets.
"""

from __future__ import annotations

import dataclasses
import time

import pytest

from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.kb.load import Catalog
from cudnn_doctor.match import Matcher, context
from cudnn_doctor.model import Context


def _slow_evidence_catalog() -> Catalog:
    sig = load_catalog().get("pytorch/rnn-backward-in-eval-mode")
    assert sig is not None
    slow = dataclasses.replace(sig, context=Context(require_any=("@slow",), lines_before=5, lines_after=0))
    return Catalog(signatures=[slow], evidence={"slow": ("(a|aa)+$",)})


def test_a_catastrophic_evidence_regex_costs_its_budget_once_with_one_warning() -> None:
    catalog = _slow_evidence_catalog()
    block = "a" * 40 + "!\nRuntimeError: cudnn RNN backward can only be called in training mode\n"
    matcher = Matcher(catalog, timeout=0.2)
    started = time.thread_time()
    matcher.scan_text(block * 20)
    spent = time.thread_time() - started
    about = [w for w in matcher.warnings if "@slow" in w]
    assert len(about) == 1, matcher.warnings
    assert "_evidence.yaml" in about[0] and "skipped for the rest of this run" in about[0]
    assert spent < 5.0  # one search of about 1 s, not 20 (each of them a timeout before)


def test_the_evidence_budget_is_the_signatures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context, "SIGNATURE_BUDGET_S", 0.3)
    evidence = context.Evidence({"slow": ("(a|aa)+$",)}, timeout=0.2)
    assert evidence.budget.budget == 0.3
    for _ in range(5):
        assert evidence.search("@slow", "a" * 30 + "!") is None
    assert len(evidence.warnings) == 1 and evidence.budget.spent["@slow"] < 2.5


def _verdicts(text: str, no_hyperscan: bool, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, str]]:
    with monkeypatch.context() as m:
        if no_hyperscan:
            m.setenv("CUDNN_DOCTOR_NO_HYPERSCAN", "1")
        matches, misses = Matcher(load_catalog()).scan_text(text)
    return sorted([(x.sig.id, x.line, "|".join(x.evidence)) for x in matches] + [(x.sig.id, x.line, x.reason) for x in misses])


def _plain(text: str, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, str]]:
    """The same with every context item searched in every line around the match (no rule-out)."""
    with monkeypatch.context() as m:
        m.setattr(context, "_literals", lambda parts: None)  # no item has literals: nothing is ruled out
        m.setattr(context, "_linewise", lambda parts: False)
        return _verdicts(text, True, monkeypatch)


def _warnings_log() -> str:
    """A window past the paste size (hyperscan's pass where it is installed): a flatten_parameters warning
    repeated among noise, DataParallel and weight-drop lines (the evidence of its cause signatures)."""
    warning = (
        "/usr/lib/python3/dist-packages/torch/nn/modules/rnn.py:879: UserWarning: RNN module weights are not part of "
        "single contiguous chunk of memory. This means they need to be compacted at every call, possibly greatly "
        "increasing memory usage. To compact weights again call flatten_parameters()."
    )
    noise = [f"\x1b[32mEpoch {i}\x1b[0m step {i * 7} loss=0.{i:03d} torch cuda" for i in range(90)]
    lines = []
    for k in range(40):
        lines += noise[k % 7 : k % 7 + 12]
        lines.append(warning)
        if k % 5 == 0:
            lines.append("model = nn.DataParallel(model)  # parallel/data_parallel.py")
        if k % 9 == 0:
            lines.append("Applying weight drop of 0.5 to weight_hh_l0")
    return "\n".join(lines) * 30


def test_ruling_context_lines_out_changes_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _warnings_log()
    plain = _plain(text, monkeypatch)
    assert any(sid == "pytorch/cause-dataparallel-replica-weights-not-flat" for sid, _, _ in plain)
    assert _verdicts(text, False, monkeypatch) == plain
    assert _verdicts(text, True, monkeypatch) == plain


def test_a_linewise_item_with_lookarounds_finds_in_its_literal_lines_what_it_finds_in_all() -> None:
    """ruleout.py searches a linewise item only in the lines holding one of its literals; lookarounds count as
    linewise (a line-local pattern's cannot read a line break, so they see their line alone either way): the
    first match there is the first match in all the lines."""
    from pathlib import Path

    catalog = load_catalog()
    evidence = context.Evidence(catalog.evidence)
    items = sorted({i for s in catalog.signatures for i in context.context_items(s)})
    lits = context.literal_map(evidence, items)
    looking = [i for i in items if i in lits and evidence.linewise(i) and any(a in p for p in evidence.parts(i) for a in ("(?<", "(?=", "(?!"))]
    assert "@rnn" in looking
    corpus = Path(__file__).parent / "fixtures" / "corpus"
    texts = [p.read_text(encoding="utf-8", errors="replace")[:6000] for p in sorted(corpus.glob("*.log"))]
    texts.append("x\nlstm_1 = nn.LSTM(4, 4)\n_lstm\nmyLSTMEncoder\nbi_gru_2 out\nxLSTM\nRNN\ngru_\n")
    for text in texts:
        lines = text.split("\n")
        for item in looking:
            kept = "\n".join(line for line in lines if any(lit in line.lower().encode() for lit in lits[item]))
            full, part = evidence.search(item, text), evidence.search(item, kept)
            assert (full and full.group(0)) == (part and part.group(0)), (item, text[:80])


def test_signatures_that_share_a_verdict_get_what_each_gets_alone() -> None:
    """Matcher._context: signatures with the same context share the verdict on the same lines (a knowledge base
    replicated 10x read a warning repeated 10,000 times four times slower before), and those with the same
    candidate lines their runs, those matching the same lines the lines before (Matcher._runs, _matches). The
    six signatures the warning matches (the generic and its causes, with their own contexts), each with a copy
    beside it, get what each gets in a base of its own: the same matches, evidence, lines before and misses."""
    text = _warnings_log()
    text += "\n" + "\n".join(f"[rank{i % 3 // 2}]: {line}" for i, line in enumerate(text.split("\n")[:1200]))  # two streams
    base = load_catalog()
    warned = [s for s in base.signatures if "weights-not" in s.id or "-not-flat" in s.id or "flattened" in s.id or "after-scripting" in s.id or "unflattens" in s.id]
    copies = [dataclasses.replace(s, id=f"copy/{s.id}") for s in warned]

    def rows(sigs: list) -> list[tuple[str, int, str]]:  # type: ignore[type-arg]
        matches, misses = Matcher(dataclasses.replace(base, signatures=sigs)).scan_text(text)
        got = [(x.sig.id, x.line, "|".join([*x.evidence, x.stream, *x.before])) for x in matches] + [(x.sig.id, x.line, x.reason) for x in misses]
        return sorted((sid.removeprefix("copy/"), line, what) for sid, line, what in got)

    alone = sorted(r for s in warned for r in rows([s]))
    assert len({r[0] for r in alone}) == 6 and len({r[2] for r in alone}) > 2
    assert rows([*warned, *copies]) == sorted(alone + alone)


class _Unshared(dict):  # type: ignore[type-arg]
    """A window's memo that keeps no line search and no verdict: each occurrence searched and decided anew."""

    def __setitem__(self, key: object, value: object) -> None:
        if not (isinstance(key, tuple) and key[0] in ("line", "verdict", "marked")):
            super().__setitem__(key, value)


def test_a_repeated_occurrence_searched_and_decided_once_gets_what_it_gets_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    """Matcher._in_line searches a line-local regex once per distinct line text of a window, and Matcher._context
    decides a context whose literals stand only on the match's own lines once per distinct text of them (a warning
    repeated 10,000 times):
    each occurrence gets what it gets searched and decided on its own, in two streams, with and without hyperscan."""
    from cudnn_doctor.match import lines, matcher

    text = _warnings_log()
    text += "\n" + "\n".join(f"[rank{i % 3 // 2}]: {line}" for i, line in enumerate(text.split("\n")[:1200]))
    # the warning from other source lines among the same ones (a line-local regex's matches in one window with
    # other captures: a line search keyed without its text gives each the first one's)
    text = "\n".join(line.replace("rnn.py:879:", f"rnn.py:{879 + i % 3}:") for i, line in enumerate(text.split("\n")))

    def rows() -> list[tuple[object, ...]]:
        matches, misses = Matcher(load_catalog()).scan_text(text)
        return [(x.sig.id, x.line, x.end_line, x.text, sorted(x.captures.items(), key=str), x.stream, x.evidence, x.supported, x.before) for x in matches] + [
            (x.sig.id, x.line, x.reason) for x in misses]

    class Unshared(lines.Lines):
        def __init__(self, data: bytes, size: int) -> None:
            super().__init__(data, size)
            self.memo = _Unshared()

    for off in ("", "1"):
        monkeypatch.setenv("CUDNN_DOCTOR_NO_HYPERSCAN", off) if off else monkeypatch.delenv("CUDNN_DOCTOR_NO_HYPERSCAN", raising=False)
        shared = rows()
        with monkeypatch.context() as m:
            m.setattr(matcher, "Lines", Unshared)
            assert rows() == shared
        assert len({r[0] for r in shared}) >= 6 and len({str(r[4]) for r in shared if len(r) > 3}) > 2


@pytest.mark.parametrize("block_lines", [3, 17])
def test_a_window_holding_only_the_lines_its_candidates_read_finds_what_the_longest_finds(block_lines: int) -> None:
    """Matcher._reach: a block's window starts as far back as its candidate signatures read (their window and
    context, the lines kept before a first match, a raise's frame header), not as far as the furthest-reading
    signature of the base (a tail of 214 lines of 60 KB is 13 MB). Each match and miss over logs cut into small
    blocks is what a window with the whole tail gets."""
    from pathlib import Path

    corpus = Path(__file__).parent / "fixtures" / "corpus"
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(corpus.glob("*.log"))[:40])
    lines = text.split("\n")
    blocks = ["\n".join(lines[i : i + block_lines]) for i in range(0, len(lines), block_lines)]

    def rows(whole_tail: bool) -> list[tuple[object, ...]]:
        matcher = Matcher(load_catalog())
        if whole_tail:
            matcher.reach = [matcher.before] * len(matcher.sigs)
        found = [f for pair in matcher.scan_blocks(blocks, "log") for f in pair if f is not None]
        return [(f.sig.id, f.line, getattr(f, "before", None), getattr(f, "evidence", None), getattr(f, "reason", None)) for f in found]

    got = rows(False)
    assert len(got) > 40 and got == rows(True)


def test_lines_before_read_late_are_the_lines_read_at_once() -> None:
    """lines.Before (a match's lines before it, normalized when rank reads them) holds what Lines.texts gives over
    the same lines and stream, a line read as another text (reading.py's cut last line) among them; it compares,
    indexes, slices and pickles as that list."""
    import pickle

    from cudnn_doctor.match.lines import Lines

    raw = ["\x1b[31m[rank0]: Traceback (most recent call last)\x1b[0m", "[rank1]: x = 1\r", "plain caf\xc3\xa9", "",
           "2024-05-14 09:12:00,000 INFO step 0", "[rank0]:   File \"a.py\", line 3", "tail"]
    data = "\n".join(raw).encode("latin-1")  # (one line of invalid UTF-8 bytes)
    streams = {""}
    for cut in (False, True):
        lines = Lines(data, len(raw))
        if cut:
            lines.norm(2)
            lines.read_as(6, "ta")
        streams |= {lines.norm(li)[1] for li in range(len(raw))}
        for lo in range(len(raw)):
            for hi in range(lo, len(raw)):
                for stream in sorted(streams):
                    late, now = lines.before(lo, hi, stream), lines.texts(range(lo, hi + 1), stream)
                    assert late == now and list(late) == now and len(late) == len(now) and late[1:] == now[1:]
                    assert pickle.loads(pickle.dumps(late)) == now
    assert len(streams) >= 3

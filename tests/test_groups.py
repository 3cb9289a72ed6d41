"""Signatures sharing a regex and window are scanned as one group (Matcher._scan_group): their runs split, their
regex searched and each match's text, captures and lines before it made once. That changes nothing but the
time: each signature yields the same matches and near misses, in the same order, as when each is scanned on
its own. Checked against a Matcher whose groups all hold one signature, with the built-in base and with a
base where every signature has twins (same regex and window; some with the same context, some with another
context or other literals), on a log of repeated warnings read as one window and as many, and on the whole
base's examples.
"""

from __future__ import annotations

import dataclasses

import pytest

from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.kb.load import Catalog
from cudnn_doctor.match import Matcher
from cudnn_doctor.match import matcher as match_mod
from cudnn_doctor.match import prefilter as prefilter_mod
from cudnn_doctor.model import Context
from test_memo import repeated_log  # tests/ is on sys.path (rootdir-based imports)

CATALOG = load_catalog(use_cache=False, use_env=False)


def _twins(catalog: Catalog) -> Catalog:
    """Each signature, then a twin of it; a third with no context, a fourth with only its first literal."""
    sigs = []
    for sig in catalog.signatures:
        sigs.append(sig)
        sigs.append(dataclasses.replace(sig, id=sig.id + "-twin"))
        sigs.append(dataclasses.replace(sig, id=sig.id + "-bare", context=Context()))
        if len(sig.prefilter) > 1:
            sigs.append(dataclasses.replace(sig, id=sig.id + "-one", prefilter=sig.prefilter[:1]))
    # interleaved, so that a group's signatures are not neighbours in signature order
    sigs = sigs[0::2] + sigs[1::2]
    return dataclasses.replace(catalog, signatures=sigs)


TWINS = _twins(CATALOG)


def _yielded(matcher: Matcher, text: str, block: int | None) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    blocks = [text] if block is None else _blocks(text, block)
    for m, miss in matcher.scan_blocks(blocks, "log"):
        if m is not None:
            out.append(("match", m.sig.id, m.line, m.end_line, m.text, m.captures, m.stream, m.evidence, m.supported, list(m.before)))
        elif miss is not None:
            out.append(("miss", miss.sig.id, miss.line, miss.reason))
        else:
            out.append(("end",))
    return out


def _blocks(text: str, size: int) -> list[str]:
    lines = text.split("\n")
    out, cur, n = [], [], 0
    for line in lines:
        cur.append(line)
        n += len(line) + 1
        if n >= size:
            out.append("\n".join(cur))
            cur, n = [], 0
    if cur:
        out.append("\n".join(cur))
    return out


def _alone(m: pytest.MonkeyPatch) -> None:
    """Every signature a group of its own."""
    real = Matcher._group_key
    m.setattr(Matcher, "_group_key", lambda self, idx: (idx, *real(self, idx)))


@pytest.mark.parametrize("catalog", [CATALOG, TWINS], ids=["base", "twins"])
@pytest.mark.parametrize("big", [False, True], ids=["paste", "big-window"])
@pytest.mark.parametrize("block", [None, 64 << 10], ids=["one-window", "many-windows"])
def test_groups_change_nothing(catalog: Catalog, big: bool, block: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if big:
        monkeypatch.setattr(match_mod, "CONFIRM_FROM", 0)
        monkeypatch.setattr(prefilter_mod, "SMALL_TEXT", -1)
    log = repeated_log(120, 5)
    grouped = _yielded(Matcher(catalog), log, block)
    with pytest.MonkeyPatch.context() as m:
        _alone(m)
        alone = _yielded(Matcher(catalog), log, block)
    assert grouped == alone
    ids = {entry[1] for entry in grouped if entry[0] == "match"}
    if catalog is TWINS:  # the log tests something: twins matched, and near misses of the bare ones' twins
        assert any(i.endswith("-twin") for i in ids) and any(i.endswith("-bare") for i in ids)
        assert any(entry[0] == "miss" and str(entry[1]).endswith("-twin") for entry in grouped)


def test_groups_change_nothing_over_the_base() -> None:
    texts = [ex.text for s in CATALOG.signatures for ex in (*s.examples, *s.counter_examples)]
    grouped = [_yielded(Matcher(TWINS), t, None) for t in texts]
    with pytest.MonkeyPatch.context() as m:
        _alone(m)
        alone = [_yielded(Matcher(TWINS), t, None) for t in texts]
    assert grouped == alone


def test_a_group_searches_a_run_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twins share one search of their regex per run, and each gets its own RawMatch."""
    runs: list[tuple[int, ...]] = []
    real = Matcher._scan_run

    def spy(self: Matcher, idxs: list[int], run: list[int], win: object, outs: object) -> None:
        runs.append(tuple(idxs))
        real(self, idxs, run, win, outs)  # type: ignore[arg-type]

    monkeypatch.setattr(Matcher, "_scan_run", spy)
    flatten = repeated_log(3, 1)
    found, _ = Matcher(TWINS).scan_text(flatten)
    assert any(len(idxs) >= 2 for idxs in runs)
    by_id = {m.sig.id for m in found}
    assert any(i + "-twin" in by_id for i in by_id)


def test_a_spent_budget_drops_one_signature_not_its_group() -> None:
    """The group's search is charged to its first signature; when that one's budget is spent it is dropped,
    and the next searches with its own budget (as each did when scanned on its own)."""
    from test_memo import FLATTEN

    m = Matcher(TWINS)
    ids = {s.id: i for i, s in enumerate(m.sigs)}
    base = "pytorch/rnn-weights-not-contiguous"
    first, second = sorted((ids[base], ids[base + "-twin"]))
    m.spent[first] = m.budget
    found, _ = m.scan_text(FLATTEN)
    got = {x.sig.id for x in found}
    assert m.sigs[first].id in m.disabled and m.sigs[second].id not in m.disabled
    assert m.sigs[second].id in got and m.sigs[first].id not in got
    assert any(m.sigs[first].id in w for w in m.warnings)

"""The development corpus: real logs from public issue threads, one fixture file per case (all 153).

Each fixture's first line is ``# cudnn-doctor-expect: polarity=... label=... framework=... source=...``, optionally
ending in ``xfail=<reason>`` (the rest of the line): the log as posted does not carry the evidence that decides the
case's label, and the reason names what is missing. The rest of the file is the log as posted, byte for byte.
Positive: the top finding is a signature labelled with the case's label. Negative: no RNN-specific finding;
clean logs and unrelated errors (NCCL timeouts): no finding at all.

The exhaustive run takes every case in the forms a user pastes it in (lower, upper, an issue title made of its
last error line, the last line cut in half): no negative gets an RNN finding in any form, and the positives that
are not right in a form may only become fewer (MAX_MISSES).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cudnn_doctor import diagnose
from cudnn_doctor.kb.templates import words
from forms import lower, retyped, title, upper  # tests/ is on sys.path (rootdir-based imports)

CASES = sorted((Path(__file__).parent / "fixtures" / "corpus").glob("*.log"))
NOTHING_AT_ALL = {"neg_clean_training_log", "neg_nccl_timeout"}
# Positives not right per form, measured on the 153 cases (a ratchet: lower a number when a change fixes cases,
# never raise it). Before this branch (main dfb3f4d): lower 28, upper 28, title 55, cut 60 misses. On 019d11e title 43,
# cut 47; then (a cut counts from what tells its message apart, a one-letter cut word, a message's first clause
# with prose after it) title 42, cut 30. Branch quality10 (a name's index kept in its word, a cut message read from
# the frame or the C++ log line that raised it): cut 27 (008, 010, 140 now read). The twelfth session raised title
# to 43, on purpose: PyTorch 0.4's bare 'RuntimeError: CUDNN_STATUS_EXECUTION_FAILED' alone no longer names a build
# without kernels for the GPU (a guess from the message's shape: 0.4 raised every cuDNN failure so), so 031 (the
# line alone, now a strict xfail as posted) is missed in its title form too.
# Branch retype22 adds "retyped" (every article of the log dropped, its first plural made singular: a message typed
# from memory; a log with neither as written): 10 misses (28 on main 9b9b3b1), no negative read; 11 with 031 (above).
# Session 25 (kb25) raised lower, upper and retyped by 3 and cut by 2, on purpose: 066, 067 (the empty-replica cause
# with no multi-GPU line in the log) and 089 (the legacy device/dtype cause with no CPU or double tensor in the log)
# are strict xfails as posted now, the generic status being the honest answer, so they are missed in every form.
MAX_MISSES = {"lower": 12, "upper": 12, "title": 43, "cut": 29, "retyped": 14}


def _expect(path: Path) -> tuple[dict[str, str], str]:
    header, _, log = path.read_text(encoding="utf-8").partition("\n")
    assert header.startswith("# cudnn-doctor-expect:"), path
    fields_text, _, xfail = header.split(":", 1)[1].partition(" xfail=")
    fields = dict(item.split("=", 1) for item in fields_text.split())
    if xfail:
        fields["xfail"] = xfail.strip()
    return fields, log


def _param(path: Path):  # type: ignore[no-untyped-def]
    reason = _expect(path)[0].get("xfail")
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(path, id=path.stem, marks=marks)


def _right(expect: dict[str, str], result) -> bool:  # type: ignore[no-untyped-def]
    return bool(result.findings) and expect["label"] in result.findings[0].signature.labels


def _rnn_findings(result) -> list[str]:  # type: ignore[no-untyped-def]
    found = [f for f in result.findings if f.signature.scope == "rnn"]
    found += [c for f in result.findings for c in f.consequences if c.signature.scope == "rnn"]
    return [f.id for f in found]


@pytest.mark.parametrize("path", [_param(p) for p in CASES])
def test_corpus_case(path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    expect, log = _expect(path)
    result = diagnose(log, catalog=catalog, source=path.name)
    found = [(f.id, f.signature.scope, f.signature.labels) for f in result.findings]
    if expect["polarity"] == "positive":
        assert result.findings, f"no finding; near misses: {[(n.id, n.reason) for n in result.near_misses]}"
        top = result.findings[0]
        assert _right(expect, result), f"top finding {top.id} {top.signature.labels}; all: {found}"
        assert top.signature.root_cause
    else:
        assert not _rnn_findings(result), f"RNN-specific finding on a negative: {found}"
        if expect["label"] in NOTHING_AT_ALL:
            assert not result.findings, f"expected no finding at all: {found}"


def test_corpus_is_complete() -> None:
    assert len(CASES) == 153
    headers = [_expect(p)[0] for p in CASES]
    assert sum(h["polarity"] == "positive" for h in headers) == 100


def _key_line(log: str) -> str:
    """The line a user makes an issue title of: the last one that says error or failed."""
    lines = [line for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if re.search(r"Error|error|failed|Failed|FAILED", line)]
    return (errors or lines or [""])[-1].strip()


def _cut(log: str) -> str:
    """The log whose last line stops halfway (an excerpt or a paste cut short)."""
    text = log.rstrip()
    start = text.rfind("\n") + 1
    return text[: start + max(1, (len(text) - start) // 2)]


FORMS = {
    "lower": lambda log: lower(log, 0, len(log)),
    "upper": lambda log: upper(log, 0, len(log)),
    "title": lambda log: title(_key_line(log), 0, len(_key_line(log))),
    "cut": _cut,
    "retyped": lambda log: retyped(log, 0, len(log)) or log,
}


@pytest.mark.exhaustive
@pytest.mark.parametrize("form", sorted(FORMS))
def test_corpus_in_every_form(form: str, catalog) -> None:  # type: ignore[no-untyped-def]
    misses, alarms = [], []
    for path in CASES:
        expect, log = _expect(path)
        result = diagnose(FORMS[form](log), catalog=catalog, source=path.name)
        if expect["polarity"] == "negative" and _rnn_findings(result):
            alarms.append(f"{path.stem}: {_rnn_findings(result)}")
        elif expect["polarity"] == "positive" and not _right(expect, result):
            misses.append(f"{path.stem} {expect['label']}: {[f.id for f in result.findings][:2]}")
    assert not alarms, f"{form}: RNN findings on negatives: {alarms}"
    assert len(misses) <= MAX_MISSES[form], f"{form}: {len(misses)} positives not right (ratchet {MAX_MISSES[form]}): {misses}"
    print(f"{form}: {100 - len(misses)}/100 positives right; misses: {misses}")


@pytest.mark.exhaustive
def test_no_negative_gets_a_finding_from_its_last_error_line_cut_at_its_head(catalog) -> None:  # type: ignore[no-untyped-def]
    """Every negative with its last error line's head cut (its first k words gone, for every k: a wrapped
    terminal's lost first line, an excerpt starting mid-message), the rest of the log as it is: no RNN finding."""
    alarms = []
    for path in CASES:
        expect, log = _expect(path)
        key = _key_line(log)
        at = log.rfind(key)
        if expect["polarity"] != "negative" or not key or at < 0:
            continue
        for _w, a, _b in words(key)[1:]:
            result = diagnose(log[:at] + key[a:] + log[at + len(key) :], catalog=catalog, source=path.name)
            if _rnn_findings(result):
                alarms.append(f"{path.stem} {key[a:][:60]!r}: {_rnn_findings(result)}")
    assert not alarms

"""The record's one-paragraph ``summary``: cause, the dead end to avoid, the fix to try first."""

from __future__ import annotations

from pathlib import Path

from cudnn_doctor import diagnose
from cudnn_doctor.render.summary import first_sentence
from cudnn_doctor.report import build_report

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"


def test_every_finding_of_the_corpus_has_a_summary_built_from_its_own_fields(catalog) -> None:  # type: ignore[no-untyped-def]
    seen = 0
    for log in sorted(CORPUS.glob("*.log")):
        record = build_report(diagnose(log.read_text(errors="replace"), catalog=catalog, source=log.name))
        for f in record["findings"]:
            seen += 1
            s = f["summary"]
            assert "\n" not in s and len(s) < 2000, (log.name, s)
            assert s.startswith(f["title"]) and f["id"] in s and f"{log.name}:{f['line']}" in s
            dead = [d for d in f["dead_ends"] if d["action"]]
            if dead:
                assert f"Dead end: {dead[0]['action']} fails {dead[0]['rate_basis']}" in s
            if f["workarounds"]:
                w = f["workarounds"][0]
                assert f"Try first: {w['action']}" in s and w["rate_basis"] in s
        if record["findings"]:
            assert record["summary"].startswith(record["findings"][0]["summary"])
            for other in record["findings"][1:6]:
                assert other["id"] in record["summary"]
    assert seen >= 20


def test_summary_of_the_readme_example_names_cause_dead_end_and_first_fix(catalog) -> None:  # type: ignore[no-untyped-def]
    record = build_report(diagnose("RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n", catalog=catalog))
    s = record["summary"]
    assert s.startswith("Initial hidden/cell state has the wrong shape for this RNN (pytorch/rnn-hidden-size-mismatch")
    assert "expects 2" in s and "Cause: " in s
    assert "Dead end: Disable cuDNN" in s and "Try first: " in s
    assert list(record)[:3] == ["schema_version", "tool", "summary"]  # where a reader looks first


def test_abstaining_summary_says_no_diagnosis_and_shows_the_error_line(catalog) -> None:  # type: ignore[no-untyped-def]
    record = build_report(diagnose("step 1\nValueError: something unrelated broke\n", catalog=catalog))
    assert record["abstained"]
    assert record["summary"].startswith("No known cuDNN RNN error signature matched (2 lines read)")
    assert "something unrelated broke" in record["summary"]


def test_first_sentence_keeps_short_sentences_and_cuts_long_ones_at_a_word() -> None:
    assert first_sentence("It fails. Because of e.g. this case. And more text here.", 40) == "It fails. Because of e.g. this case."
    assert first_sentence("It fails. Because of e.g. this.", 100) == "It fails. Because of e.g. this."
    # a short scene-setting first sentence takes the next one with it, cut at the limit
    assert first_sentence("It fails. Because of e.g. this case. And more text here.", 24) == "It fails. Because of ..."
    assert first_sentence("The first sentence is long enough here. Second one.", 50) == "The first sentence is long enough here."
    long = "word " * 100
    cut = first_sentence(long, 50)
    assert cut.endswith(" ...") and len(cut) <= 54 and "wor ..." not in cut

"""The literal gate before a multi-line regex runs (match/regexinfo.py ``cannot_match``): wherever it says a
signature's regex cannot match, the regex (as written, and ignoring case: the folded retry) finds nothing, over
the base's examples and counter-examples, their first and last lines, each without its first or last line,
and its lines joined by spaces."""

from __future__ import annotations

from cudnn_doctor.kb.patterns import compile_pattern
from cudnn_doctor.match.regexinfo import cannot_match
from cudnn_doctor.match.tolerant import folded


def _texts(text: str) -> list[str]:
    lines = text.split("\n")
    return [text, lines[0], lines[-1], "\n".join(lines[1:]), "\n".join(lines[:-1]), text.replace("\n", " ")]


def test_the_gate_never_skips_a_match(catalog) -> None:  # type: ignore[no-untyped-def]
    skipped = 0
    for sig in catalog.signatures:
        exact, fold = compile_pattern(sig.regex, sig.flags), compile_pattern(sig.regex, folded(sig.flags))
        for ex in [*sig.examples, *sig.counter_examples]:
            for text in _texts(ex.text):
                if cannot_match(sig.regex, sig.flags, text):
                    skipped += 1
                    assert exact.search(text) is None, (sig.id, text)
                if cannot_match(sig.regex, sig.flags, text, folded=True):
                    assert fold.search(text) is None, (sig.id, text)
    assert skipped > 300  # it has something to say


def test_a_run_every_branch_holds_is_required() -> None:
    from cudnn_doctor.match.regexinfo import required_runs

    pattern = r"(?:warning|error): \w+ (?:is deprecated|was declared deprecated)"
    assert required_runs(pattern) == ((" ", " deprecated", "warning: "), (" ", " deprecated", "error: "))
    assert not cannot_match(pattern, (), "error: f was declared deprecated")
    assert cannot_match(pattern, (), "error: f is gone")

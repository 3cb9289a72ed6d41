"""The literal gate before a multi-line regex runs (kb/regexinfo.py ``cannot_match``): wherever it says a
signature's regex cannot match, the regex finds nothing, over the base's examples and counter-examples, their
first and last lines, each without its first or last line, and its lines joined by spaces."""

from __future__ import annotations

from cudnn_doctor.kb.patterns import compile_pattern
from cudnn_doctor.kb.regexinfo import cannot_match


def _texts(text: str) -> list[str]:
    lines = text.split("\n")
    return [text, lines[0], lines[-1], "\n".join(lines[1:]), "\n".join(lines[:-1]), text.replace("\n", " ")]


def test_the_gate_never_skips_a_match(catalog) -> None:  # type: ignore[no-untyped-def]
    skipped = 0
    for sig in catalog.signatures:
        exact = compile_pattern(sig.regex, sig.flags)
        for ex in [*sig.examples, *sig.counter_examples]:
            for text in _texts(ex.text):
                if cannot_match(sig.regex, sig.flags, text):
                    skipped += 1
                    assert exact.search(text) is None, (sig.id, text)
    assert skipped > 300  # it has something to say


def test_a_run_every_branch_holds_is_required() -> None:
    from cudnn_doctor.kb.regexinfo import required_runs

    pattern = r"(?:warning|error): \w+ (?:is deprecated|was declared deprecated)"
    assert required_runs(pattern) == ((" ", " deprecated", "warning: "), (" ", " deprecated", "error: "))
    assert not cannot_match(pattern, (), "error: f was declared deprecated")
    assert cannot_match(pattern, (), "error: f is gone")


def test_a_signature_without_a_prefilter_is_looked_for_by_each_alternative_s_literal(catalog) -> None:  # type: ignore[no-untyped-def]
    """A signature that names no prefilter (a user's, a deadends.dev record) is prefiltered by one literal per
    alternative of its regex (regexinfo.alternative_literals), each on one line: found wherever it matches."""
    import dataclasses

    from cudnn_doctor.kb.load import Catalog
    from cudnn_doctor.match import Matcher

    sig = catalog.get("pytorch/rnn-backward-in-eval-mode")
    regex = r"(?:cudnn RNN backward|cuDNN LSTM backward) can only be called\n?\s*in training mode"
    bare = dataclasses.replace(sig, prefilter=(), regex=regex)
    matcher = Matcher(Catalog(signatures=[bare], evidence=catalog.evidence))
    assert not matcher.full_scan
    assert set(matcher.by_literal) == {"cudnn rnn backward can only be called", "cudnn lstm backward can only be called"}
    for text in ("RuntimeError: cuDNN LSTM backward can only be called\nin training mode\n",
                 "x\nRuntimeError: cudnn RNN backward can only be called in training mode\n"):
        assert [m.sig.id for m in matcher.scan_text(text)[0]] == [sig.id], text

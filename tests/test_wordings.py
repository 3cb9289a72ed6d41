"""Every release's wording of every message family (the ``wordings`` field) is recognised as that family.

Each signature lists the message as each framework release printed it (found with ``git log -S`` over the
framework's history). Each wording must match the signature's regex, contain a prefilter literal (or the
matcher never looks at its line), and be diagnosed as that signature, first, with the whole base competing.
(or, for a framework's wrapper of a cuDNN status, listed as related under the generic cuDNN status family
that ranks first on the same line). A signature that needs context evidence (``context.require_any``) is diagnosed inside a minimal frame that holds it.
"""

from __future__ import annotations

import dataclasses

import pytest

from cudnn_doctor import diagnose
from cudnn_doctor.cli.validate import wording_problems
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.kb.patterns import compile_pattern

_CATALOG = load_catalog(use_cache=False, use_env=False)
_WORDED = [s for s in _CATALOG.signatures if s.raw.get("wordings")]
CASES = [(s, i, w) for s in _WORDED for i, w in enumerate(s.raw["wordings"])]
CASE_IDS = [f"{s.id}[{i}]" for s, i, _ in CASES]


# The smallest realistic RNN frame: a traceback whose calling line runs an LSTM.
RNN_FRAME = 'Traceback (most recent call last):\n  File "train.py", line 57, in <module>\n    output, (h_n, c_n) = model.lstm(inputs)\n'


def _framed(sig, text: str) -> str:  # type: ignore[no-untyped-def]
    """The wording with the context the signature requires: under an RNN call when it needs RNN evidence, else
    in place of the message inside the signature's first example that the regex matches (that example's frame
    holds the other evidence, e.g. a load_weights call or Paddle's '[operator < rnn > error]')."""
    if "@rnn" in sig.context.require_any:
        return RNN_FRAME + text
    pattern = compile_pattern(sig.regex, sig.flags)
    for ex in sig.examples:
        m = pattern.search(ex.text)
        if m:
            return ex.text[: m.start()] + text + ex.text[m.end():]
    raise AssertionError(f"{sig.id}: no example matches its own regex")


@pytest.mark.parametrize(("sig", "i", "wording"), CASES, ids=CASE_IDS)
def test_wording_matches_its_regex(sig, i, wording) -> None:  # type: ignore[no-untyped-def]
    assert compile_pattern(sig.regex, sig.flags).search(wording["text"]), wording["releases"]


@pytest.mark.parametrize(("sig", "i", "wording"), CASES, ids=CASE_IDS)
def test_wording_holds_a_prefilter_literal(sig, i, wording) -> None:  # type: ignore[no-untyped-def]
    low = wording["text"].lower()
    assert any(lit.lower() in low for lit in sig.prefilter), (wording["releases"], sig.prefilter)


@pytest.mark.exhaustive  # a diagnosis per wording (hundreds): `pytest -m exhaustive` (.ci/run)
@pytest.mark.parametrize(("sig", "i", "wording"), CASES, ids=CASE_IDS)
def test_wording_is_the_top_finding(sig, i, wording) -> None:  # type: ignore[no-untyped-def]
    text = _framed(sig, wording["text"]) if sig.context.require_any else wording["text"]
    result = diagnose(text, catalog=_CATALOG)
    got = [f.id for f in result.findings]
    assert got, f"{wording['releases']}: {wording['text'][:100]!r} -> no finding"
    top = result.findings[0]
    # A framework's wrapper of a cuDNN status (MXNet's 'cuDNN: CUDNN_STATUS_*', CuPy's CuDNNError) is read on
    # the same line as the generic RNN status family, which ranks first by design and lists it as related.
    shared_status_line = top.id.startswith("cudnn/") and sig.id in top.related
    # A cause signature refining this one (cause.of), or a more specific one that lists it as related, may outrank
    # it when the wording or its frame carries that signature's evidence (e.g. '<no registered kernels>').
    refined = sig.id in ((top.signature.raw.get("cause") or {}).get("of") or []) or sig.id in top.related
    refined = refined or any(f.id == sig.id and f.first.line == top.first.line for f in result.findings[1:])
    assert top.id == sig.id or shared_status_line or refined, f"{wording['releases']}: {wording['text'][:100]!r} -> {got}"


def test_validate_reports_a_wording_the_regex_misses() -> None:
    sig = dataclasses.replace(_WORDED[0], raw=dict(_WORDED[0].raw, wordings=[
        *_WORDED[0].raw["wordings"], {"releases": "x 0.0", "text": "nothing like the message"}]))
    problems = wording_problems(sig)
    assert len(problems) == 1 and "x 0.0" in problems[0]


def test_the_base_says_which_releases_it_covers() -> None:
    """Most message families carry their release history; each of the main frameworks contributes wordings."""
    assert len(_WORDED) >= 80, len(_WORDED)
    frameworks = {s.framework for s in _WORDED}
    for fw in ("pytorch", "tensorflow", "keras", "mxnet", "jax", "cupy", "paddlepaddle", "onnxruntime", "julia-flux"):
        assert fw in frameworks, fw


def test_show_lists_the_releases_covered() -> None:
    from cudnn_doctor.render.show import render_signature

    sig = next(s for s in _WORDED if s.id == "pytorch/cudnn-rnn-backward-shape-mismatch")
    out = render_signature(sig)
    assert "releases covered:" in out
    assert "torch 0.1.12-0.3.1" in out and "got torch.Size(" in out

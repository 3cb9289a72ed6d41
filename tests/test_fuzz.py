"""The fuzz harness's short seeded run (seconds; bench/fuzz.py runs the long one): hypothesis over the library's
entry points, and mutated real logs through every target of tests/fuzzing.py."""

from __future__ import annotations

import contextlib

import pytest

hypothesis = pytest.importorskip("hypothesis")  # in the test extra; the lowest-dependency run goes without
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import catalogs  # noqa: E402
import fuzzing  # noqa: E402
from cudnn_doctor.errors import InputError, SignatureError  # noqa: E402

SEEDED = settings(max_examples=20, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
LOGISH = st.lists(st.sampled_from([
    "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]",
    "CUDNN_STATUS_BAD_PARAM", "cudnnRNNForwardTraining", "Traceback (most recent call last):",
    '  File "train.py", line 3, in <module>', "\x1b[31m", "\r", "\x00", "> ", "```", "&lt;", "\u00a0",
    "Failed to call ThenRnnForward with model config", "[rank0]: ", "2024-05-14T09:12:01Z ", "lstm", "",
]) | st.text(max_size=40), max_size=30).map("\n".join)


@SEEDED
@given(st.one_of(st.text(max_size=300), LOGISH))
def test_diagnose_str_raises_only_what_it_documents(text: str) -> None:
    from cudnn_doctor import diagnose

    try:
        d = diagnose(text, catalog=catalogs.builtin())  # one catalog: not a cache load per example
    except InputError:
        return
    assert d.to_dict()["schema_version"] == 1


@SEEDED
@given(st.binary(max_size=500))
def test_diagnose_bytes_raises_only_what_it_documents(data: bytes) -> None:
    from cudnn_doctor import diagnose

    with contextlib.suppress(InputError):
        diagnose(data, catalog=catalogs.builtin())


@SEEDED
@given(LOGISH)
def test_every_renderer_on_any_report(text: str) -> None:
    import json

    from cudnn_doctor import diagnose
    from cudnn_doctor.render import Format, render
    from cudnn_doctor.report import build_report

    try:
        record = build_report(diagnose(text, catalog=catalogs.builtin()))
    except InputError:
        return
    for fmt in Format:
        out = render(fmt, record)
        if fmt in (Format.json, Format.sarif, Format.gitlab):
            json.loads(out)


@SEEDED
@given(st.text(max_size=400))
def test_the_signature_loader_raises_only_signature_errors(text: str) -> None:
    import tempfile
    from pathlib import Path

    from cudnn_doctor.kb.compiled import load_catalog

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "user"
        folder.mkdir()
        (folder / "x.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
        with contextlib.suppress(SignatureError):
            load_catalog([tmp], builtin=False, use_env=False, use_cache=False)


def test_mutated_real_logs_through_every_target() -> None:
    """A short seeded run of the long one's harness: no crash, no slow input, no RNN finding from negatives."""
    pool = [s for s in fuzzing.seeds() if len(s.text) < 20_000][:40]
    tally = fuzzing.run_inputs(40, seed=30, pool=pool)
    assert tally.inputs == 40 and set(tally.by_target) >= {"diagnose_str", "diagnose_bytes", "render", "cli"}
    assert (tally.crashes, tally.slow, tally.rnn_on_negative) == (0, 0, 0), tally.examples[:3]


def test_every_mutation_keeps_text() -> None:
    import random

    r = random.Random(1)
    for mutation in fuzzing.MUTATIONS:
        out = mutation(r, "Traceback (most recent call last):\nRuntimeError: x\n")
        assert isinstance(out, str), mutation.__name__

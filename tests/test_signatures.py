"""The knowledge base tests itself: every signature's examples and counter-examples, and its quality rules."""

from __future__ import annotations

from pathlib import Path

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.cli.validate import example_problems, quality_problems, validate_paths
from cudnn_doctor.kb.load import builtin_dir
from sampling import sample

_CATALOG = catalogs.builtin()
SIGS = _CATALOG.signatures
IDS = [s.id for s in SIGS]


# Each signature alone, for a failure that names it: a sample by default, since
# test_validate_strict_passes_on_the_whole_base runs both checks on every signature; all under -m exhaustive.
@pytest.mark.parametrize("sig", sample(SIGS, 25), ids=IDS)
def test_examples_and_counter_examples(sig) -> None:  # type: ignore[no-untyped-def]
    assert example_problems(sig, _CATALOG.evidence) == []


@pytest.mark.parametrize("sig", sample(SIGS, 25), ids=IDS)
def test_quality_rules(sig) -> None:  # type: ignore[no-untyped-def]
    assert quality_problems(sig, builtin_dir()) == []


@pytest.mark.exhaustive  # a diagnosis per example with the whole base: `pytest -m exhaustive` (.ci/run)
@pytest.mark.parametrize("sig", SIGS, ids=IDS)
def test_examples_are_diagnosed_with_the_full_base(sig) -> None:  # type: ignore[no-untyped-def]
    """With every signature competing, each example is still diagnosed as this signature (or folded under it)."""
    for ex in sig.examples:
        result = diagnose(ex.text, catalog=_CATALOG)
        ids = {f.id for f in result.findings} | {r for f in result.findings for r in f.related}
        ids |= {c.id for f in result.findings for c in f.consequences}
        ids |= {r for f in result.findings for c in f.consequences for r in c.related}  # a cause folded as consequence
        assert sig.id in ids, f"{ex.name}: got {[f.id for f in result.findings]}"


def test_validate_strict_passes_on_the_whole_base() -> None:
    problems, _warnings, count = validate_paths([], strict=True)
    assert problems == []
    assert count == len(SIGS)


def test_ids_match_files_and_are_unique() -> None:
    assert len(set(IDS)) == len(IDS)
    for sig in SIGS:
        rel = Path(sig.path).resolve().relative_to(builtin_dir().resolve()).with_suffix("").as_posix()
        assert rel == sig.id


def test_rnn_scope_signatures_with_generic_messages_require_rnn_evidence() -> None:
    generic = ("cuDNN error: CUDNN_STATUS", "CUDNN_STATUS_EXECUTION_FAILED", "CUDNN_STATUS_INTERNAL_ERROR")
    for sig in SIGS:
        if sig.scope == "rnn" and sig.signature.strip().startswith(generic) and "RNN" not in sig.regex.upper():
            assert sig.context.require_any, f"{sig.id} claims an RNN cause for a generic message without RNN evidence"


def test_coverage_targets() -> None:
    by_fw: dict[str, int] = {}
    for s in SIGS:
        by_fw[s.framework] = by_fw.get(s.framework, 0) + 1
    assert len(SIGS) >= 80
    assert by_fw.get("pytorch", 0) >= 25
    assert by_fw.get("tensorflow", 0) + by_fw.get("keras", 0) + by_fw.get("tensorflow-directml", 0) >= 20
    for fw in ("jax", "mxnet", "paddlepaddle", "onnxruntime", "julia-flux"):
        assert by_fw.get(fw, 0) >= 1, fw
    assert by_fw.get("cupy", 0) + by_fw.get("chainer", 0) >= 1

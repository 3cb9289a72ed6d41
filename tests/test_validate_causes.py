"""validate --strict: causes name their threads and real evidence; generic RNN statuses have a differential."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor.cli import validate
from cudnn_doctor.cli.validate import validate_paths

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "differential"
GOOD = (FIXTURES / "cause-frobnicate-old-release.yaml").read_text("utf-8")


@pytest.fixture(autouse=True)
def _builtin_base_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """validate reads the built-in base (the signatures a cause may name) from its files on every call, ~2 s of
    CPU: here it gets the test process's one reading of those files (tests/catalogs.py)."""
    real = validate.iter_signatures

    def signatures(files: Any, builtin: bool, problems: list[str]) -> Any:
        return iter(catalogs.builtin().signatures) if builtin else real(files, builtin, problems)

    monkeypatch.setattr(validate, "iter_signatures", signatures)


def _problems(tmp_path: Path, text: str, name: str = "cause-x.yaml") -> list[str]:
    (tmp_path / name).write_text(text, "utf-8")
    problems, _, _ = validate_paths([str(tmp_path)], strict=True)
    # quality notes of the minimal fixture (dead ends, workarounds...) are not what these tests are about
    return [p for p in problems if "$.cause" in p or "$.differential" in p]


def test_the_fixture_causes_pass(tmp_path: Path) -> None:
    for f in FIXTURES.glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    problems, _, _ = validate_paths([str(tmp_path)], strict=True)
    assert not [p for p in problems if "$.cause" in p or "$.differential" in p]


def test_a_thread_missing_from_references_fails(tmp_path: Path) -> None:
    bad = GOOD.replace("- https://github.com/example/frob/issues/3\n", "")
    got = _problems(tmp_path, bad)
    assert any("cause.threads[2]" in p and "must also be in references" in p for p in got)


@pytest.mark.parametrize(
    ("of", "why"),
    [
        ("no/such-signature", "no signature 'no/such-signature'"),
        ("pytorch/rnn-hidden-size-mismatch", "is not a generic status signature"),
    ],
)
def test_cause_of_must_name_a_generic_status(tmp_path: Path, of: str, why: str) -> None:
    bad = GOOD.replace("of: [cudnn/rnn-status-bad-param, pytorch/cudnn-rnn-bad-param, cudnn/status-bad-param]", f"of: [{of}]")
    got = _problems(tmp_path, bad)
    assert any(why in p for p in got), got


def test_cause_of_must_not_name_another_cause(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "cause-frobnicate-old-release.yaml", tmp_path / "cause-a.yaml")
    bad = GOOD.replace("id: testcause/frobnicate-old-release", "id: testcause/second").replace(
        "of: [cudnn/rnn-status-bad-param, pytorch/cudnn-rnn-bad-param, cudnn/status-bad-param]",
        "of: [testcause/frobnicate-old-release]",
    )
    got = _problems(tmp_path, bad, "cause-b.yaml")
    assert any("is itself a cause" in p for p in got), got


def test_evidence_must_be_real_not_the_generic_again(tmp_path: Path) -> None:
    # no context of its own, no version range: its regex alone matches every example of the generic
    bad = GOOD.replace("  require_any: ['frobnicate_rnn\\(']\n", "  require_any: ['@rnn']\n").replace(
        'applies: {torch: "<1.5"}\n', ""
    ).replace("of: [cudnn/rnn-status-bad-param, pytorch/cudnn-rnn-bad-param, cudnn/status-bad-param]", "of: [pytorch/cudnn-rnn-bad-param]")
    bad = bad.replace("regex: 'cuDNN error: (?P<status>CUDNN_STATUS_BAD_PARAM)\\b'", "regex: 'CUDNN_STATUS_BAD_PARAM'")
    got = _problems(tmp_path, bad)
    assert any("tells nothing apart" in p or "is not real" in p for p in got), got


def test_a_generic_rnn_status_needs_three_causes(tmp_path: Path) -> None:
    generic = """\
id: mine/rnn-status-custom
title: A custom generic RNN status
framework: pytorch
scope: rnn
severity: error
priority: 60
signature: "MYLIB RNN STATUS 7"
regex: 'MYLIB RNN STATUS (?P<code>\\d+)'
prefilter: [MYLIB RNN STATUS]
root_cause: Test fixture.
references: [https://example.com]
verification_tier: estimated
differential:
- cause: Only one candidate cause here
  check: look at the log
examples:
- text: "MYLIB RNN STATUS 7"
counter_examples:
- text: "MYLIB OK"
"""
    got = _problems(tmp_path, generic, "generic.yaml")
    assert any("needs at least 3 candidate causes" in p and "found 1" in p for p in got), got


# The built-in base passes these rules: tests/test_signatures.py validates it whole with --strict.

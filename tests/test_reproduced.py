"""Messages raised by the real frameworks (CPU builds), kept as fixtures by tests/reproduced/regenerate.py.

Every stored log is diagnosed on every run; where a framework is importable here, its scenarios are also run live,
so a new framework release that changes a message fails this suite instead of a user's diagnosis.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
import yaml

from cudnn_doctor import diagnose

_SPEC = importlib.util.spec_from_file_location(
    "regenerate", Path(__file__).resolve().parent / "reproduced" / "regenerate.py"
)
assert _SPEC and _SPEC.loader
regenerate = importlib.util.module_from_spec(_SPEC)
sys.modules["regenerate"] = regenerate  # dataclasses resolve the module by name
_SPEC.loader.exec_module(regenerate)

SCENARIOS = regenerate.scenarios()
MANIFEST = {r["fixture"]: r for r in json.loads(regenerate.MANIFEST.read_text(encoding="utf-8"))}
IDS = [f"{s.framework}/{s.name}" for s in SCENARIOS]


def _check(text: str, expect: str | None, catalog, source: str) -> None:  # type: ignore[no-untyped-def]
    result = diagnose(text, catalog=catalog, source=source)
    found = [f.id for f in result.findings]
    if expect is None:
        rnn = [f.id for f in result.findings if f.signature.scope == "rnn"]
        assert not rnn, f"RNN-specific finding on a log with no RNN error: {rnn}"
        return
    near = [(n.id, n.reason) for n in result.near_misses]
    assert found, f"no finding; near misses: {near}"
    top = result.findings[0]
    assert found[0] == expect or expect in _refines(found[0]) or expect in top.related, (
        f"top finding {found[0]}, expected {expect}; all: {found}; near misses: {near}"
    )


def _refines(sig_id: str) -> list[str]:
    """The generic ids a cause signature refines (its ``cause.of``); a cause outranking its generic is the aim."""
    path = Path(__file__).resolve().parents[1] / "signatures" / f"{sig_id}.yaml"
    if not path.is_file():
        return []
    cause = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("cause") or {}
    return list(cause.get("of") or [])


def test_every_scenario_has_a_fixture_and_a_manifest_entry() -> None:
    assert len(SCENARIOS) >= 30
    for sc in SCENARIOS:
        rel = sc.fixture.relative_to(regenerate.FIXTURES).as_posix()
        assert sc.fixture.is_file(), f"{rel} missing: run tests/reproduced/regenerate.py"
        entry = MANIFEST.get(rel)
        assert entry, f"{rel} is not in the manifest"
        assert entry["expect"] == sc.expect, f"{rel}: scenario expects {sc.expect}, manifest {entry['expect']}"
        assert entry["framework_version"] not in ("", "unknown")
    stale = set(MANIFEST) - {s.fixture.relative_to(regenerate.FIXTURES).as_posix() for s in SCENARIOS}
    assert not stale, f"manifest entries without a scenario: {sorted(stale)}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_stored_log_is_diagnosed(scenario, catalog) -> None:  # type: ignore[no-untyped-def]
    _check(scenario.fixture.read_text(encoding="utf-8"), scenario.expect, catalog, scenario.fixture.name)


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.expect], ids=[i for s, i in zip(SCENARIOS, IDS, strict=True) if s.expect])
def test_reproduced_log_is_an_example_of_its_signature(scenario) -> None:  # type: ignore[no-untyped-def]
    """The signature carries the reproduced text as an example labelled framework_reproduced, with its source."""
    path = regenerate.SIGNATURES / f"{scenario.expect}.yaml"
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    by_name = {e.get("name"): e for e in record["examples"]}
    example = by_name.get(regenerate.example_name(scenario))
    assert example, f"{path.name}: no example {regenerate.example_name(scenario)} (regenerate.py --update-examples)"
    assert example["verification_tier"] == "framework_reproduced"
    assert scenario.framework in example["source"] and scenario.path.name in example["source"]
    assert example["text"] == regenerate.example_text(scenario.fixture.read_text(encoding="utf-8"))


@pytest.mark.exhaustive
def test_framework_reproduced_rates_cite_a_reproduction() -> None:
    """A dead end or workaround rated framework_reproduced is backed by a scenario that raises its signature's error."""
    expected = {s.expect for s in SCENARIOS if s.expect}
    for path in sorted(regenerate.SIGNATURES.rglob("*.yaml")):
        if path.name.startswith("_"):
            continue
        record = yaml.safe_load(path.read_text(encoding="utf-8"))
        items = [*(record.get("dead_ends") or ()), *(record.get("workarounds") or ())]
        if any(i.get("verification_tier") == "framework_reproduced" for i in items):
            assert record["id"] in expected, f"{record['id']}: a framework_reproduced rate without a scenario"


def _importable(framework: str) -> bool:
    return importlib.util.find_spec(regenerate.FRAMEWORKS[framework][0]) is not None


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_live_scenario(scenario, catalog) -> None:  # type: ignore[no-untyped-def]
    """Run the scenario with the framework installed here (skipped where it is not) and diagnose its output."""
    if not _importable(scenario.framework):
        pytest.skip(f"{scenario.framework} is not installed")
    text, code = regenerate.run_scenario(scenario, sys.executable)
    recorded = MANIFEST[scenario.fixture.relative_to(regenerate.FIXTURES).as_posix()]["exit_code"]
    # a warning scenario (a harmless message users take for the failure) exits 0, as its recorded run did
    assert (code != 0) == (recorded != 0), f"the scenario exited {code}, recorded {recorded}:\n{text[-2000:]}"
    _check(text, scenario.expect, catalog, "live")

"""Shared fixtures: the built-in catalog is loaded once per session (without touching the user's cache)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ["CUDNN_DOCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    os.environ.pop("CUDNN_DOCTOR_SIGNATURES", None)
    os.environ["NO_COLOR"] = "1"
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
        # the command lines the tests start (a few hundred) would each compile the whole package again (~0.1 s
        # of CPU each): their bytecode goes to a temp dir, and the source tree stays clean as the variable meant
        os.environ["PYTHONPYCACHEPREFIX"] = str(tmp_path_factory.mktemp("pycache"))


@pytest.fixture(scope="session")
def catalog():  # type: ignore[no-untyped-def]
    import catalogs

    return catalogs.builtin()


@pytest.fixture(scope="session")
def builtin_cache_entry(tmp_path_factory: pytest.TempPathFactory, _isolated_cache: None) -> Path:
    """The catalog cache entry of the built-in base, written once per test process (and copied into the
    session's cache directory, which then starts warm): a test that wants a cache directory of its own with a
    valid entry in it copies this file (``warm_cache``) instead of building the entry again (~3 s of CPU, in
    each subprocess that finds an empty cache)."""
    import shutil

    from cudnn_doctor.kb.compiled import load_catalog

    where = tmp_path_factory.mktemp("builtin-cache")
    os.environ["CUDNN_DOCTOR_CACHE_DIR"], session_dir = str(where), os.environ["CUDNN_DOCTOR_CACHE_DIR"]
    try:
        load_catalog()
    finally:
        os.environ["CUDNN_DOCTOR_CACHE_DIR"] = session_dir
    (entry,) = where.glob("catalog-*.cache")
    for kept in where.glob("*.cache"):  # with the entry beside it that keeps the compiled patterns
        if not (Path(session_dir) / kept.name).exists():
            shutil.copy2(kept, Path(session_dir) / kept.name)
    return entry


@pytest.fixture(scope="session", autouse=True)
def _session_cache_warm(builtin_cache_entry: Path) -> None:
    """The session's cache holds the built-in base's entry from the start: one cold load per test process."""


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache directory of this test's own (not made yet), in force for it and its subprocesses."""
    monkeypatch.setenv("CUDNN_DOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def warm_cache(fresh_cache: Path, builtin_cache_entry: Path) -> Path:
    """``fresh_cache`` holding the built-in base's entry, as after one earlier run."""
    import shutil

    fresh_cache.mkdir(mode=0o700)
    for kept in builtin_cache_entry.parent.glob("*.cache"):  # the catalog's entry and its compiled patterns'
        shutil.copy2(kept, fresh_cache / kept.name)
    return fresh_cache


@pytest.fixture
def hyperscan():  # type: ignore[no-untyped-def]
    """The hyperscan module, for a test of what the prefilter does with it: skipped where it is not installed or
    turned off (``CUDNN_DOCTOR_NO_HYPERSCAN=1``, the path of platforms without a wheel, which .ci/run also runs)."""
    if os.environ.get("CUDNN_DOCTOR_NO_HYPERSCAN"):
        pytest.skip("hyperscan turned off (CUDNN_DOCTOR_NO_HYPERSCAN)")
    return pytest.importorskip("hyperscan")

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


@pytest.fixture(scope="session")
def catalog():  # type: ignore[no-untyped-def]
    import catalogs

    return catalogs.builtin()

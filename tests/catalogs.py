"""The built-in catalog, read once per test process: every module that needs the knowledge base as shipped
shares this one object (reading it from YAML and checking it costs ~2 s of CPU each time)."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def builtin() -> Any:
    """The built-in signatures read from their files (not the user's cache, not $CUDNN_DOCTOR_SIGNATURES).
    Shared: a test must not change it."""
    from cudnn_doctor.kb.compiled import load_catalog

    return load_catalog(use_cache=False, use_env=False)

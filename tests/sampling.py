"""A fast representative sample in the default run, the whole set under ``pytest -m exhaustive`` (.ci/run).

``sample(params, k)`` keeps ``k`` of the cases unmarked, picked by a fixed seed (the same cases every run, spread
over the whole list), and marks the others ``exhaustive``: the default suite still exercises every check on
several cases of each kind, and the exhaustive run checks every case.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest

SEED = 29


def sample(cases: Iterable[Any], k: int, seed: int = SEED) -> list[Any]:
    """``cases`` (plain values or ``pytest.param``s) with all but ``k`` of them marked ``exhaustive``."""
    cases = list(cases)
    keep = set(random.Random(seed).sample(range(len(cases)), min(k, len(cases))))
    return [case if i in keep else _exhaustive(case) for i, case in enumerate(cases)]


def exhaustive(cases: Iterable[Any]) -> list[Any]:
    """``cases`` each marked ``exhaustive``: run by ``pytest -m exhaustive`` only."""
    return [_exhaustive(case) for case in cases]


def _exhaustive(case: Any) -> Any:
    if isinstance(case, type(pytest.param(None))):
        return pytest.param(*case.values, marks=[*case.marks, pytest.mark.exhaustive], id=case.id)
    return pytest.param(case, marks=pytest.mark.exhaustive)

"""The tolerant reading's bound on repeated chain starts (match/chains.py SAME_STARTS): a text whose lines or
sentences repeat hundreds of times reads as it does without the bound, in a fraction of the time."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudnn_doctor import diagnose
from cudnn_doctor.match import chains
from cudnn_doctor.report import build_report

CORPUS = Path(__file__).parent / "fixtures" / "corpus"


def _repeated(name: str, times: int, per_line: int) -> str:
    """A corpus log with its last lines printed ``times`` times (some of them with a control byte, as the fuzz
    harness mutates them), each ``per_line`` times on one line."""
    lines = [x for x in (CORPUS / name).read_text(encoding="utf-8").splitlines() if x.strip()]
    tail = lines[-3:]
    body = [(" ".join([x] * per_line)) + ("\x05" if k % 7 == 3 else "") for k in range(times) for x in tail]
    return "\n".join([*lines[:-3], *body])


@pytest.mark.parametrize(("name", "times", "per_line"), [("001.log", 200, 1), ("015.log", 4, 60)])
def test_repeats_read_the_same_with_and_without_the_bound(catalog, monkeypatch, name: str, times: int, per_line: int) -> None:
    text = _repeated(name, times, per_line)
    skipped: list[int] = []
    fresh = chains._fresh

    def spy(plain: list[str], i: int, starts: dict[tuple[str, ...], int]) -> bool:
        got = fresh(plain, i, starts)
        if not got:
            skipped.append(i)
        return got

    monkeypatch.setattr(chains, "_fresh", spy)
    bounded = build_report(diagnose(text, catalog=catalog))
    assert skipped  # the bound was met
    monkeypatch.setattr(chains, "SAME_STARTS", 1 << 30)
    assert build_report(diagnose(text, catalog=catalog)) == bounded

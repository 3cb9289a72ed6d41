"""The census of RNN error messages (docs/census/*.yaml): every message a framework can print on its RNN path.

Each entry is rendered into a realistic log (placeholders filled with plausible values, ordinary lines around
it) and diagnosed: the top finding must be the entry's signature (or a cause that refines it). Every entry is
covered by a signature or says why no user can meet it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from cudnn_doctor import diagnose

ROOT = Path(__file__).resolve().parents[1]
CENSUS = ROOT / "docs" / "census"
SIGNATURES = ROOT / "signatures"

# printf conversions, Python format fields, and the {} that stands for a C++ stream/StrCat value
_PLACEHOLDER = re.compile(
    r"%(?:[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L|q|I64)?[diouxXeEfgGcsSpn]|%)"
    r"|\{[A-Za-z0-9_.\[\]]*(?:![rsa])?(?::[^{}]*)?\}"
)
_DEFAULTS = {"d": "2", "i": "2", "u": "2", "o": "2", "x": "2", "X": "2", "f": "0.5", "e": "0.5", "g": "0.5",
             "E": "0.5", "G": "0.5", "c": "x", "s": "lstm", "S": "lstm", "p": "0x7f3a2c000000"}
_NOISE_BEFORE = (
    "2024-03-11 10:12:01.552 INFO  train.py:88] epoch 3 step 1200 loss=0.4312 lr=3.0e-4\n"
    "2024-03-11 10:12:02.104 INFO  train.py:88] epoch 3 step 1210 loss=0.4298 lr=3.0e-4\n"
)
_NOISE_AFTER = "2024-03-11 10:12:02.981 INFO  launcher.py:41] worker 0 exited with code 1\n"


def _entries() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(CENSUS.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for i, entry in enumerate(doc.get("entries") or []):
            out.append((f"{path.stem}[{i}]", entry))
    return out


ENTRIES = _entries()
COVERED = [(name, e) for name, e in ENTRIES if e.get("signature")]


def render(entry: dict) -> str:
    """The entry's template with its placeholders filled, inside its ``log`` frame and ordinary lines."""
    values = iter(str(v) for v in entry.get("values") or [])

    def fill(m: re.Match[str]) -> str:
        token = m.group(0)
        if token == "%%":
            return "%"
        given = next(values, None)
        if given is not None:
            return given
        return _DEFAULTS.get(token[-1], "2") if token.startswith("%") else "2"

    message = _PLACEHOLDER.sub(fill, entry["message"])
    frame = entry.get("log") or "{message}"
    body = frame.replace("{message}", message)
    return _NOISE_BEFORE + body.rstrip("\n") + "\n" + _NOISE_AFTER


def _refines(sig_id: str) -> set[str]:
    path = SIGNATURES / f"{sig_id}.yaml"
    if not path.is_file():
        return set()
    cause = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("cause") or {}
    return set(cause.get("of") or [])


def test_every_entry_is_complete_and_covered() -> None:
    problems = []
    for name, e in ENTRIES:
        for key in ("message", "where", "releases"):
            if not e.get(key):
                problems.append(f"{name}: no {key}")
        if bool(e.get("signature")) == bool(e.get("not_user_facing")):
            problems.append(f"{name}: needs exactly one of signature / not_user_facing")
        sig = e.get("signature")
        if sig and not (SIGNATURES / f"{sig}.yaml").is_file():
            problems.append(f"{name}: unknown signature {sig}")
        rel = e.get("releases") or {}
        if not isinstance(rel, dict) or not rel.get("first") or not rel.get("last"):
            problems.append(f"{name}: releases needs first and last")
    assert not problems, "\n".join(problems)


@pytest.mark.exhaustive  # every framework scenario: `pytest -m exhaustive` (.ci/run)
@pytest.mark.parametrize(("name", "entry"), COVERED, ids=[n for n, _ in COVERED])
def test_entry_is_diagnosed_as_its_signature(name: str, entry: dict) -> None:
    text = render(entry)
    result = diagnose(text, source=name)
    found = [f.id for f in result.findings]
    expect = entry["signature"]
    assert found, f"no finding for:\n{text}\nnear misses: {[n.id for n in result.near_misses]}"
    # the entry's message is the top finding, a cause that refines it, or its consequence folded under the error
    # its log shows before it (a signature whose leads_to names it: 'Could not create cudnn handle' then 'Fail to
    # find the dnn implementation')
    folded = {c.id for c in result.findings[0].consequences}
    assert found[0] == expect or expect in _refines(found[0]) or expect in folded, f"top {found[0]}, expected {expect}:\n{text}"

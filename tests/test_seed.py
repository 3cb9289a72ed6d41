"""The deadends.dev seed record loads unchanged, validates, and matches its own message."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cudnn_doctor import diagnose
from cudnn_doctor.cli.validate import validate_paths
from cudnn_doctor.kb.compiled import load_catalog

SEED = Path(__file__).resolve().parents[1] / "docs" / "examples" / "seed-record.json"
SHARED_SEED = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "004_47fe47f437834818.txt"


def _user_dir(tmp_path: Path) -> Path:
    d = tmp_path / "sigs"
    d.mkdir()
    shutil.copy(SEED, d / "seed.json")
    return d


def test_bundled_copy_is_the_seed_unchanged() -> None:
    if SHARED_SEED.exists():
        assert SEED.read_bytes() == SHARED_SEED.read_bytes()
    json.loads(SEED.read_text(encoding="utf-8"))


def test_seed_validates_and_matches_its_own_signature(tmp_path: Path) -> None:
    d = _user_dir(tmp_path)
    problems, _warnings, count = validate_paths([str(d)])
    assert problems == [] and count == 1
    catalog = load_catalog([d], builtin=False, use_cache=False, use_env=False)
    record = json.loads(SEED.read_text(encoding="utf-8"))
    result = diagnose(record["signature"], catalog=catalog)
    assert [f.id for f in result.findings] == ["cuda/cudnn-rnn-double-backward"]
    f = result.findings[0]
    assert f.signature.root_cause == record["root_cause"]
    assert [w.action for w in f.signature.workarounds] == [w["action"] for w in record["workarounds"]]


def test_seed_as_user_signature_replaces_the_builtin(tmp_path: Path) -> None:
    d = _user_dir(tmp_path)
    catalog = load_catalog([d], use_cache=False, use_env=False)
    sig = catalog.get("cuda/cudnn-rnn-double-backward")
    assert sig is not None and not sig.builtin
    assert sum(1 for s in catalog.signatures if s.id == sig.id) == 1


def test_builtin_version_keeps_the_seed_id_and_matches_both_wordings(catalog) -> None:  # type: ignore[no-untyped-def]
    record = json.loads(SEED.read_text(encoding="utf-8"))
    builtin = catalog.get(record["id"])
    assert builtin is not None and builtin.builtin
    for text in (record["signature"], "RuntimeError: derivative for _cudnn_rnn_backward is not implemented"):
        ids = [f.id for f in diagnose(text, catalog=catalog).findings]
        assert ids and ids[0] == record["id"], (text, ids)

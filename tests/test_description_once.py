"""A description repeated in a paste is not the error seen twice (tolerant.Tolerant.described: one line's finding
at most per signature). Neither the recorded reports nor the forms held a paste that repeats a description: without
this, removing the rule changed nothing they measure (slim25t)."""

from __future__ import annotations

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose

CATALOG = catalogs.builtin()
LINE = "My training crashes: pack_padded_sequence wants the lengths on the cpu, the docs say so"


def test_a_description_repeated_gives_one_finding_seen_once() -> None:
    once = diagnose(LINE + "\n", catalog=CATALOG).findings
    twice = diagnose(f"{LINE}\n\nI tried again.\n{LINE}\n", catalog=CATALOG).findings
    assert [f.id for f in once] == [f.id for f in twice] == ["pytorch/pack-padded-lengths-on-cuda"]
    assert twice[0].count == 1 and twice[0].cut is not None and twice[0].cut.get("described")

"""The one ranking key (model.specificity) decides a cluster's winner (moved from test_confirm.py, which went with
the Confirm machinery the rebuilt matcher deleted)."""

from __future__ import annotations

import dataclasses

import pytest

from cudnn_doctor import model
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.match import RawMatch
from cudnn_doctor.rank import findings as rank

CATALOG = load_catalog()


def test_one_ranking_key_decides_a_cluster_s_winner(monkeypatch: pytest.MonkeyPatch) -> None:
    """The most specific signature (model.specificity: priority, then scope) wins its cluster, then confidence;
    and a change to the key reaches every cluster (there is no second, faster copy of it to forget)."""
    base = CATALOG.signatures[:3]
    sigs = [dataclasses.replace(base[0], priority=78, scope="cudnn"), dataclasses.replace(base[1], priority=60, scope="rnn"),
            dataclasses.replace(base[2], priority=60, scope="cuda")]
    group = [RawMatch(sig, "s", 3, 3, "t", {}, "", [], False, []) for sig in sigs]
    ((best, related),) = rank.cluster(group)
    assert best.sig is sigs[0] and related == sorted({sigs[1].id, sigs[2].id} - {sigs[0].id})
    monkeypatch.setattr(rank, "specificity", lambda sig: (sig.scope == "rnn", sig.priority))
    ((best, _),) = rank.cluster(group)
    assert best.sig is sigs[1]
    assert rank.order([]) == [] and model.specificity(sigs[1]) == (60, 2)

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


# ---------------------------------------------------------------- a framework's own wrapper of a status

CROSS = [s for s in CATALOG.signatures if s.id.startswith("cudnn/rnn-status-")]
WRAPPERS = [s for s in CATALOG.signatures if s.framework_marks]


def test_a_framework_s_own_status_signature_outranks_the_cross_framework_one() -> None:
    """Where a wrapper (it captures the status, and names its framework) and a cudnn/rnn-status-* read the same
    error, the wrapper wins: it carries that framework's dead ends and workarounds."""
    assert CROSS and WRAPPERS
    top = max(model.specificity(s) for s in CROSS)
    assert all(model.specificity(w) > top for w in WRAPPERS), [w.id for w in WRAPPERS if model.specificity(w) <= top]


def _top(text: str) -> str | None:
    from cudnn_doctor import diagnose

    got = diagnose(text).findings
    return got[0].id if got else None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # titles: the status on a line that names the framework, not in the wrapper's own message
        ("Fix CUDNN_STATUS_EXECUTION_FAILED when NStepBiLSTM is using CuPy", "cupy/cudnn-rnn-status"),
        ("CUDNNError: CUDNN_STATUS_BAD_PARAM (code 3) while training lstm neural network", "flux/cudnn-rnn-status-error"),
        ("mxnet gluon LSTM fails with CUDNN_STATUS_EXECUTION_FAILED", "mxnet/rnn-cudnn-status"),
        # two frameworks named: neither is decisive
        ("CUDNN_STATUS_EXECUTION_FAILED in my LSTM after moving from mxnet to CuPy", "cudnn/rnn-status-execution-failed"),
        # a framework named only in an environment listing before the error, not in its traceback
        ("cupy-cuda11x 12.2.0\nmxnet 1.9.1\ntorch 2.1.0\nlstm step failed: CUDNN_STATUS_EXECUTION_FAILED\n",
         "cudnn/rnn-status-execution-failed"),
    ],
)
def test_a_cross_framework_status_is_read_as_the_framework_its_line_or_traceback_names(text: str, want: str) -> None:
    assert _top(text) == want


def test_an_attributed_finding_says_so_and_keeps_the_status() -> None:
    from cudnn_doctor import diagnose

    (f,) = diagnose("Fix CUDNN_STATUS_EXECUTION_FAILED when NStepBiLSTM is using CuPy").findings
    assert f.captures.get("status") == "CUDNN_STATUS_EXECUTION_FAILED"
    assert f.confidence < 0.85 and "cudnn/rnn-status-execution-failed" in f.related
    assert any("not in the log" in d for d in f.demoted) and f.evidence[0] in ("CuPy", "NStepBiLSTM")


def test_a_put_back_prefix_alone_reads_nothing() -> None:
    """Chainer's trainer line with its message on the next lines: CuPy's own prefix put back before it must not
    make a CuPy status out of nothing (the reading once matched inside the prefix alone)."""
    text = "Exception in main training loop: \nInvalid operation is performed in: NStepBiLSTM (Forward)\n"
    assert _top(text) != "cupy/cudnn-rnn-status"
    assert _top("Exception in main training loop: \nfoo bar n_step_rnn.py\n") is None


def test_a_wrapper_s_differential_keeps_its_framework_s_causes_of_the_status_it_outranked() -> None:
    """The causes written against the cross-framework status (cause.of: cudnn/rnn-status-bad-param) stay in the
    differential when the framework's own status signature wins: its framework's ones, not other frameworks'."""
    from catalogs import builtin
    from cudnn_doctor import diagnose

    sig = next(s for s in builtin().signatures if s.id == "pytorch/cudnn-rnn-bad-param")
    ex = next(e for e in sig.examples if e.name == "rnn-to-cuda-torch-2-7")
    (f, *_) = diagnose(ex.text).findings
    assert f.id == sig.id and "cudnn/rnn-status-bad-param" in f.related
    ids = {c.id for c in f.differential if c.id}
    written_against_generic = {s.id for s in CATALOG.signatures if s.cause and "cudnn/rnn-status-bad-param" in s.cause.of}
    assert ids & {i for i in written_against_generic if i.startswith("pytorch/")}
    assert not ids & {i for i in written_against_generic if i.split("/")[0] in ("chainer", "flux", "mxnet", "paddle")}

"""The differential of a generic cuDNN status (issue 10) and causes in one cluster (issue 9).

Two test-only cause signatures live in tests/fixtures/differential: one told apart by a traceback frame and a
release range (torch < 1.5), one by a release range alone (torch 2.0, fixed in 2.1). They refine the built-in
generic BAD_PARAM signatures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
import cudnn_doctor
from clirunner import invoke
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.model import Cause, DifferentialEntry
from cudnn_doctor.rank.differential import (
    GENERIC_RNN_STATUS,
    GENERIC_STATUS,
    MIN_RNN_CAUSES,
    candidates,
    causes_of,
    is_generic_rnn_status,
)
from cudnn_doctor.render import Format, render
from cudnn_doctor.report import build_report

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "differential"
OUTPUT_SCHEMA = ROOT / "src" / "cudnn_doctor" / "data" / "output.schema.json"
SARIF_SCHEMA = Path(__file__).resolve().parent / "fixtures" / "sarif-schema-2.1.0.json"  # OASIS SARIF 2.1.0

LAST_LINE = "RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM\n"
RNN_TRACEBACK = """\
Epoch 3:  41%|████      | 412/1000 [01:12<01:43,  5.68it/s, loss=0.731]
Traceback (most recent call last):
  File "/home/user/seq/train.py", line 142, in <module>
    out, (h, c) = model.encoder(x, (h0, c0))
  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 911, in forward
    result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,
RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM
"""
FROB_TRACEBACK = RNN_TRACEBACK.replace("out, (h, c) = model.encoder(x, (h0, c0))", "frobnicate_rnn(x)")


@pytest.fixture(scope="module")
def catalog() -> Any:
    return load_catalog([FIXTURES], use_cache=False)


def _diagnose(text: str, catalog: Any, **env: str) -> Any:
    return cudnn_doctor.diagnose(text, catalog=catalog, env=env)


def _by_id(finding: Any) -> dict[str, Any]:
    return {c.id: c for c in finding.differential if c.id}


# --- the catalog ----------------------------------------------------------------------------------------


def test_catalog_reads_cause_and_differential_into_typed_fields(catalog: Any) -> None:
    frob = catalog.get("testcause/frobnicate-old-release")
    assert isinstance(frob.cause, Cause)
    assert frob.cause.of == ("cudnn/rnn-status-bad-param", "pytorch/cudnn-rnn-bad-param", "cudnn/status-bad-param")
    assert frob.cause.family == "release_bug" and len(frob.cause.threads) == 3
    generic = catalog.get("cudnn/rnn-status-execution-failed")
    assert generic.cause is None
    assert generic.differential and all(isinstance(e, DifferentialEntry) for e in generic.differential)
    launch = next(e for e in generic.differential if e.signature == "cuda/async-error-before-cudnn")
    assert launch.rnn is False and launch.threads and launch.ruled_out_by
    assert any(e.applies == (("torch", "<1.0"),) for e in generic.differential)


def test_every_generic_rnn_status_has_at_least_three_causes_without_the_cause_files() -> None:
    base = catalogs.builtin()
    lookup = base.by_id
    causes = causes_of(base.signatures)
    assert set(lookup) >= GENERIC_STATUS >= GENERIC_RNN_STATUS
    for gid in sorted(GENERIC_RNN_STATUS):
        assert is_generic_rnn_status(lookup[gid]), gid
        n = len(candidates(lookup[gid], lookup, causes))
        assert n >= MIN_RNN_CAUSES, f"{gid}: {n} candidate causes"


def test_candidates_are_ordered_by_thread_count_and_causes_join_the_differential(catalog: Any) -> None:
    lookup = catalog.by_id
    found = candidates(lookup["cudnn/rnn-status-bad-param"], lookup, causes_of(catalog.signatures))
    counts = [len(c.threads) for c in found]
    assert counts == sorted(counts, reverse=True)
    ids = [c.id for c in found]
    assert "testcause/frobnicate-old-release" in ids
    frob = ids.index("testcause/frobnicate-old-release")  # 3 threads: before every less-confirmed cause
    assert all(len(c.threads) >= 3 for c in found[:frob])


# --- the diagnosis --------------------------------------------------------------------------------------


def test_a_last_line_alone_gives_the_general_status_with_rnn_and_non_rnn_causes(catalog: Any) -> None:
    d = _diagnose(LAST_LINE, catalog)
    (f,) = d.findings
    assert f.id == "cudnn/status-bad-param"
    kinds = {c.rnn for c in f.differential}
    assert kinds == {True, False}
    assert any("RNN or not" in c for c in f.checks)  # the one check that tells them apart
    frob = _by_id(f)["testcause/frobnicate-old-release"]
    # a short log is no proof: the frame it needs may be in the traceback the user did not paste
    assert not frob.ruled_out and "would be in the full traceback" in frob.note


def test_versions_rule_causes_out(catalog: Any) -> None:
    f = _diagnose(LAST_LINE, catalog, torch="2.2.0").findings[0]
    by_id = _by_id(f)
    assert by_id["testcause/frobnicate-old-release"].ruled_out == "it needs torch <1.5; the log shows torch 2.2.0"
    assert by_id["testcause/fixed-in-2-1"].ruled_out == "fixed in torch 2.1; the log shows torch 2.2.0"
    assert not by_id["pytorch/rnn-autocast-weight-dtype-mismatch"].ruled_out
    # ruled-out causes go last
    flags = [bool(c.ruled_out) for c in f.differential]
    assert flags == sorted(flags)


def test_a_version_written_in_the_log_rules_out_too(catalog: Any) -> None:
    f = _diagnose("torch==1.13.1\n" + LAST_LINE, catalog).findings[0]
    assert "the log shows torch 1.13.1" in _by_id(f)["testcause/frobnicate-old-release"].ruled_out


def test_a_whole_traceback_without_the_evidence_rules_the_cause_out(catalog: Any) -> None:
    f = _diagnose(RNN_TRACEBACK, catalog).findings[0]
    assert f.id == "pytorch/cudnn-rnn-bad-param"
    frob = _by_id(f)["testcause/frobnicate-old-release"]
    assert frob.ruled_out.startswith("the whole traceback is in the log and shows none of its evidence")


def test_a_ruled_out_by_line_rules_the_cause_out(catalog: Any) -> None:
    log = (
        "$ CUDA_LAUNCH_BLOCKING=1 python train.py\n"
        "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/rnn.py\", line 911, in forward\n"
        "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n"
    )
    f = _diagnose(log, catalog).findings[0]
    assert f.differential, f.id
    launch = _by_id(f)["cuda/async-error-before-cudnn"]
    assert launch.ruled_out.startswith("the log shows 'CUDA_LAUNCH_BLOCKING=1'")
    same = _diagnose(log.replace("CUDA_LAUNCH_BLOCKING=1 ", ""), catalog).findings[0]
    assert not _by_id(same)["cuda/async-error-before-cudnn"].ruled_out


def test_a_matched_cause_outranks_the_generic_which_is_related_without_a_differential(catalog: Any) -> None:
    d = _diagnose(FROB_TRACEBACK, catalog, torch="1.4.0")
    top = d.findings[0]
    assert top.id == "testcause/frobnicate-old-release"
    assert "pytorch/cudnn-rnn-bad-param" in top.related and not top.differential
    assert all(f.id not in ("pytorch/cudnn-rnn-bad-param", "cudnn/rnn-status-bad-param") for f in d.findings)


def test_a_cause_outside_its_versions_gives_the_status_back_to_the_generic(catalog: Any) -> None:
    # fixed-in-2-1 matches (regex + RNN evidence) and wins the cluster; torch 2.2 rules it out
    d = _diagnose(RNN_TRACEBACK, catalog, torch="2.2.0")
    assert d.findings[0].id == "pytorch/cudnn-rnn-bad-param"
    assert "testcause/fixed-in-2-1" in [b.id for b in d.below_threshold]
    same_log_2_0 = _diagnose(RNN_TRACEBACK, catalog, torch="2.0.1")
    assert same_log_2_0.findings[0].id == "testcause/fixed-in-2-1"


def test_a_matched_signature_named_by_a_differential_outranks_the_generic() -> None:
    log = (
        "../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [0,0,0], thread: [0,0,0] "
        "Assertion `srcIndex < srcSelectDimSize` failed.\n" + RNN_TRACEBACK.replace("BAD_PARAM", "EXECUTION_FAILED")
    )
    d = cudnn_doctor.diagnose(log)
    top = d.findings[0]
    assert top.id in ("cuda/async-error-before-cudnn", "cuda/cause-embedding-index-assert-at-rnn")
    assert not any(f.differential for f in d.findings)
    assert not any(f.id.startswith(("cudnn/", "pytorch/cudnn-rnn")) for f in d.findings)


# --- causes in the same cluster (issue 9) ---------------------------------------------------------------

TF_VERSION_THEN_STATUS = (
    "2021-03-02 10:14:07.900000: E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] Loaded runtime CuDNN library: "
    "8.0.4 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major version and equal or "
    "higher minor version.\n"
    "2021-03-02 10:14:08.020240: W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at "
    "cudnn_rnn_ops.cc:1521 : Unknown: Fail to find the dnn implementation.\n"
)


def test_a_cause_on_the_line_just_before_its_symptom_ranks_first() -> None:
    d = cudnn_doctor.diagnose(TF_VERSION_THEN_STATUS)
    top = d.findings[0]
    # the specific cause (a runtime cuDNN older than the build, under the RNN op) took the version line as its
    # evidence: one error, the version mismatch and the symptom listed beside it
    assert top.id == "tensorflow/cause-runtime-cudnn-older-than-build-rnn"
    assert {"tensorflow/cudnn-version-mismatch", "tensorflow/fail-to-find-dnn-implementation"} <= set(top.related)
    assert len(d.findings) == 1


def test_a_symptom_before_an_unrelated_line_stays_one_error() -> None:
    # the same two lines without a link (the order reversed: a symptom is no cause of what follows) keep
    # clustering as before
    lines = TF_VERSION_THEN_STATUS.splitlines(keepends=True)
    d = cudnn_doctor.diagnose(lines[1] + lines[0])
    ids = [f.id for f in d.findings]
    assert len(ids) == 1 and (ids[0].endswith("version-mismatch") or ids[0].endswith("dnn-implementation")
                              or ids[0] == "tensorflow/cause-runtime-cudnn-older-than-build-rnn")


def test_the_split_is_by_knowledge_not_by_adjacency() -> None:
    from cudnn_doctor.rank.findings import causes

    base = catalogs.builtin()
    get = base.get
    assert causes(get("tensorflow/cudnn-version-mismatch"), get("tensorflow/fail-to-find-dnn-implementation"))
    assert causes(get("cuda/async-error-before-cudnn"), get("cudnn/rnn-status-execution-failed"))  # differential
    assert not causes(get("cudnn/rnn-status-bad-param"), get("pytorch/cudnn-rnn-bad-param"))


# --- rendering in every format --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def diff_record(catalog: Any) -> dict[str, Any]:
    return build_report(_diagnose(LAST_LINE, catalog, torch="2.2.0"))


def test_the_json_record_carries_the_differential_and_validates(diff_record: dict[str, Any]) -> None:
    import jsonschema

    schema = json.loads(OUTPUT_SCHEMA.read_text("utf-8"))
    jsonschema.validate(diff_record, schema)
    (f,) = diff_record["findings"]
    diff = f["differential"]
    assert diff and {"id", "cause", "rnn", "check", "thread_count", "ruled_out", "ruled_out_reason"} <= set(diff[0])
    out = [c for c in diff if c["ruled_out"]]
    assert {c["id"] for c in out} >= {"testcause/frobnicate-old-release", "testcause/fixed-in-2-1"}
    assert json.loads(render(Format.json, diff_record))["findings"][0]["differential"] == diff


def test_no_differential_on_a_specific_finding() -> None:
    record = build_report(cudnn_doctor.diagnose("RuntimeError: cudnn RNN backward can only be called in training mode\n"))
    assert record["findings"] and record["findings"][0]["differential"] == []


@pytest.mark.parametrize("fmt", [Format.terminal, Format.markdown, Format.github, Format.junit])
def test_every_text_format_shows_the_causes_and_what_is_ruled_out(fmt: Format, diff_record: dict[str, Any]) -> None:
    text = render(fmt, diff_record)
    first = next(c for c in diff_record["findings"][0]["differential"] if not c["ruled_out"])
    assert "Possible causes" in text
    if fmt is Format.github:  # workflow commands escape newlines and commas
        text = text.replace("%0A", "\n").replace("%2C", ",").replace("%25", "%")
    if fmt is Format.markdown:  # markdown escapes its own characters
        text = text.replace("\\", "")
    assert first["cause"][:60] in text  # the most-confirmed cause
    assert first["check"][:40] in text  # its check
    assert "fixed in torch 2.1" in text  # a ruled-out cause, with the reason


def test_gitlab_names_the_causes(diff_record: dict[str, Any]) -> None:
    (issue,) = json.loads(render(Format.gitlab, diff_record))
    assert "Possible causes:" in issue["description"] and "ruled out by the log" in issue["description"]


def test_sarif_carries_the_differential_and_validates(diff_record: dict[str, Any]) -> None:
    log = json.loads(render(Format.sarif, diff_record))
    result = log["runs"][0]["results"][0]
    assert "Possible causes" in result["message"]["text"]
    assert any(c["ruled_out"] for c in result["properties"]["differential"])
    import jsonschema

    schema = json.loads(SARIF_SCHEMA.read_text("utf-8"))
    errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(log))
    assert not errors, errors[0].message


def test_log_text_in_a_differential_cannot_inject(catalog: Any) -> None:
    hostile = "::set-output name=x::y\n\x1b[31m"
    log = f"$ CUDA_LAUNCH_BLOCKING=1 python t.py {hostile}\n  File \"rnn.py\", line 1, in forward\n" \
          "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n"
    record = build_report(_diagnose(log, catalog))
    for fmt in (Format.github, Format.terminal):
        text = render(fmt, record)
        assert "\x1b[31m" not in text
        assert all(line.startswith("::") or fmt is Format.terminal for line in text.splitlines())


def test_a_cause_told_apart_by_versions_alone_does_not_win_without_the_version(catalog: Any) -> None:
    d = _diagnose(RNN_TRACEBACK, catalog)
    assert d.findings[0].id == "pytorch/cudnn-rnn-bad-param"
    fixed = _by_id(d.findings[0])["testcause/fixed-in-2-1"]
    assert not fixed.ruled_out and "does not show" in fixed.note
    (below,) = [b for b in d.below_threshold if b.id == "testcause/fixed-in-2-1"]
    assert "which the log does not show" in below.demoted[0]


CONV_TRACEBACK = """\
Traceback (most recent call last):
  File "train.py", line 10, in <module>
    y = model(x)
  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/conv.py", line 463, in forward
    return F.conv2d(input, weight, bias, self.stride,
RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM
"""


def test_a_convolution_at_the_error_rules_the_rnn_causes_out() -> None:
    log = CONV_TRACEBACK
    (f,) = cudnn_doctor.diagnose(log).findings
    assert f.id == "cudnn/status-bad-param"
    assert all(c.ruled_out for c in f.differential if c.rnn)
    assert any(not c.ruled_out for c in f.differential if c.rnn is False)


def test_a_cause_far_away_in_a_long_log_does_not_explain_an_earlier_status(catalog: Any) -> None:
    noise = "".join(f"step {i} loss=0.5\n" for i in range(300))
    d = _diagnose(RNN_TRACEBACK + noise + FROB_TRACEBACK, catalog, torch="1.4.0")
    ids = [f.id for f in d.findings]
    assert "testcause/frobnicate-old-release" in ids and "pytorch/cudnn-rnn-bad-param" in ids
    generic = next(f for f in d.findings if f.id == "pytorch/cudnn-rnn-bad-param")
    assert generic.differential


# --- the CLI --------------------------------------------------------------------------------------------


def test_cli_runner_env_option_rules_a_cause_out() -> None:
    result = invoke(
        ["diagnose", "--format", "json", "--env", "torch=1.4.0", "--signatures", str(FIXTURES)], input=LAST_LINE
    )
    assert result.exit_code == 1, result.output
    (f,) = json.loads(result.stdout)["findings"]
    frob = next(c for c in f["differential"] if c["id"] == "testcause/frobnicate-old-release")
    fixed = next(c for c in f["differential"] if c["id"] == "testcause/fixed-in-2-1")
    assert not frob["ruled_out"] and fixed["ruled_out_reason"] == "it needs torch >=2.0; the log shows torch 1.4.0"


def test_subprocess_pipe_shows_the_differential() -> None:
    import os
    import subprocess
    import sys

    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run(
        [sys.executable, "-m", "cudnn_doctor", "diagnose"], input=LAST_LINE.encode(), capture_output=True, timeout=60, env=env
    )
    assert proc.returncode == 1 and proc.stderr == b""
    out = proc.stdout.decode()
    assert "Possible causes (most-confirmed first):" in out and "non-RNN" in out and "RNN or not" in out


def test_the_failing_call_the_log_names_rules_out_causes_in_other_calls(catalog: Any) -> None:
    log = (
        "2020-02-29 03:04:19.483701: W tensorflow/core/framework/op_kernel.cc:1655] OP_REQUIRES failed at "
        "cudnn_rnn_ops.cc:1517 : Unknown: CUDNN_STATUS_BAD_PARAM\n"
        "in tensorflow/stream_executor/cuda/cuda_dnn.cc(1802): 'cudnnRNNForwardTraining( cudnn.handle(), "
        "rnn_desc.handle(), model_dims.max_seq_length, input_desc.handles(), input_data.opaque())'\n"
        "\t [[{{node CudnnRNN}}]]\n"
    )
    f = _diagnose(log, catalog).findings[0]
    assert f.captures.get("api") == "cudnnRNNForwardTraining", f.id
    back = _by_id(f)["testcause/backward-data-call"]
    assert back.ruled_out.startswith("the log names cudnnRNNForwardTraining as the failing call")
    # the same status with no call named rules nothing out that way
    short = _by_id(_diagnose(LAST_LINE, catalog).findings[0])
    assert "testcause/backward-data-call" in short and not short["testcause/backward-data-call"].ruled_out


def test_only_traceback_evidence_is_decisive_when_absent() -> None:
    from cudnn_doctor.rank.differential import frame_like

    assert frame_like(r"frobnicate_rnn\(") and frame_like(r"n_step_lstm\.py") and frame_like("@rnn")
    # a version, a GPU, a code word: a whole traceback without them proves nothing
    assert not frame_like(r"\btorch[ =_-]{1,3}1\.8\.0\b") and not frame_like(r"\bA30\b")
    assert not frame_like(r"\bautocast\b")


def test_a_backward_traceback_is_not_decisive(catalog: Any) -> None:
    # autograd runs the RNN's backward in C++: the forward frames a cause needs are absent even when it is it
    log = RNN_TRACEBACK.replace("out, (h, c) = model.encoder(x, (h0, c0))", "loss.backward()")
    f = _diagnose(log, catalog).findings[0]
    frob = _by_id(f)["testcause/frobnicate-old-release"]
    assert not frob.ruled_out and "this backward traceback does not show" in frob.note


def test_the_summary_names_the_possible_causes(diff_record: dict[str, Any]) -> None:
    summary = diff_record["findings"][0]["summary"]
    assert "Possible causes: " in summary and "ruled out by the log" in summary
    assert diff_record["summary"].startswith(diff_record["findings"][0]["summary"][:40])


def test_a_cause_of_another_framework_is_ruled_out() -> None:
    from cudnn_doctor.rank.differential import same_run

    log = (
        "2020-01-16 10:26:44.374373: E tensorflow/stream_executor/dnn.cc:596] CUDNN_STATUS_BAD_PARAM\n"
        "in tensorflow/stream_executor/cuda/cuda_dnn.cc(1802): 'cudnnRNNForwardTraining( cudnn.handle(), "
        "rnn_desc.handle(), model_dims.max_seq_length, input_desc.handles(), input_data.opaque())'\n"
        "\t [[{{node CudnnRNN}}]]\n"
    )
    f = cudnn_doctor.diagnose(log).findings[0]
    chainer = [c for c in f.differential if c.framework == "chainer"]
    assert chainer and all(c.ruled_out.startswith("a chainer cause; the error comes from") for c in chainer)
    assert same_run("keras", "pytorch") and same_run("any", "chainer") and not same_run("chainer", "tensorflow")


# --- the RNN twin named by a general status ---------------------------------------------------------------

def test_a_general_status_lists_its_rnn_twin_itself_among_its_causes() -> None:
    """The general status' differential entry naming the RNN-scoped twin brings the twin's causes in and is a
    candidate itself: a status with no RNN word (a notebook traceback cut before the RNN's frames) still names the
    RNN signature to tell apart; a whole traceback ending in a convolution rules it out."""
    bare = cudnn_doctor.diagnose("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n").findings[0]
    assert bare.id == "cudnn/status-not-initialized"
    twin = _by_id(bare)["cudnn/rnn-status-not-initialized"]
    assert twin.rnn and not twin.ruled_out and "would be in the full traceback" in twin.note, twin
    assert "@" not in twin.note and "an RNN frame or call" in twin.note, twin.note  # the evidence said in words
    conv = cudnn_doctor.diagnose(CONV_TRACEBACK.replace("BAD_PARAM", "NOT_INITIALIZED")).findings[0]
    assert conv.id == "cudnn/status-not-initialized"
    assert _by_id(conv)["cudnn/rnn-status-not-initialized"].ruled_out


def test_every_named_evidence_set_is_said_in_words() -> None:
    """A note on a cause's evidence names a set of signatures/_evidence.yaml by what it is, never '@name'."""
    from cudnn_doctor.rank.differential import EVIDENCE_WORDS, evidence_words

    assert set(load_catalog().evidence) == set(EVIDENCE_WORDS)
    assert "@" not in evidence_words(("@rnn", "@rnn_under_apply")) and evidence_words(("@rnn", "x")).endswith(", 'x'")

"""cudnn-doctor triage: many logs, one record each, a summary per signature; local pool, Dask, fsspec URLs."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clirunner import invoke
from cudnn_doctor.integrations.triage import (
    CatalogSpec,
    aggregate,
    expand,
    render_summary,
    run_local,
    triage_log,
)

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
EVAL_ID = "pytorch/rnn-backward-in-eval-mode"


@pytest.fixture()
def logs(tmp_path: Path) -> Path:
    """A week of CI logs: 001 three times (plain, gzip, in a sub-directory, one with GitHub timestamps),
    008 once, a clean log, a hidden file and a binary file."""
    root = tmp_path / "ci"
    (root / "mon").mkdir(parents=True)
    (root / ".git").mkdir()
    text = (CORPUS / "001.log").read_text()
    (root / "a.log").write_text(text)
    os.utime(root / "a.log", (1_700_000_000, 1_700_000_000))  # 2023-11-14T22:13:20Z
    stamped = "".join(f"2024-05-{14 + (i > 3):02d}T09:12:0{i % 10}.1234567Z {line}\n" for i, line in enumerate(text.splitlines()))
    (root / "mon" / "b.log").write_text(stamped)
    (root / "c.log.gz").write_bytes(gzip.compress(text.encode()))
    (root / "d.log").write_text((CORPUS / "008.log").read_text())
    (root / "clean.log").write_text("Epoch 1 loss=0.3\nall good\n")
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "core.bin").write_bytes(b"\x00\x01\x02" * 100)
    return root


def test_expand_files_directories_globs(logs: Path) -> None:
    found, problems = expand([str(logs)])
    names = [Path(p).relative_to(logs).as_posix() for p in found]
    assert names == ["a.log", "c.log.gz", "clean.log", "core.bin", "d.log", "mon/b.log"]  # hidden skipped
    assert not problems
    found, _ = expand([str(logs / "**" / "*.log"), str(logs / "a.log")])
    assert [Path(p).name for p in found] == ["a.log", "clean.log", "d.log", "b.log"]  # no duplicate
    found, problems = expand([str(logs / "nothing*.log"), str(logs / "missing.log")])
    assert not found and len(problems) == 2


def test_triage_log_record(logs: Path) -> None:
    rec = triage_log(str(logs / "a.log"))
    assert rec["error"] is None and rec["lines"] > 5
    assert [f["id"] for f in rec["findings"]] == [EVAL_ID]
    assert rec["findings"][0]["line"] == 14 and rec["findings"][0]["count"] == 1
    assert rec["seen_from"] == "mtime" and rec["first_seen"] == rec["last_seen"] == "2023-11-14T22:13:20Z"
    stamped = triage_log(str(logs / "mon" / "b.log"))
    assert stamped["seen_from"] == "log"
    assert (stamped["first_seen"], stamped["last_seen"]) == ("2024-05-14T09:12:00Z", "2024-05-15T09:12:03Z")
    assert [f["id"] for f in stamped["findings"]] == [EVAL_ID]
    assert [f["id"] for f in triage_log(str(logs / "c.log.gz"))["findings"]] == [EVAL_ID]
    bad = triage_log(str(logs / "core.bin"))
    assert "binary" in bad["error"] and bad["findings"] == []
    assert "no such file" in triage_log(str(logs / "gone.log"))["error"] or triage_log(str(logs / "gone.log"))["error"]
    json.dumps(rec)  # JSON-able as is


def test_aggregate_counts_and_times(logs: Path) -> None:
    found, _ = expand([str(logs)])
    summary = aggregate(run_local(found, CatalogSpec(), jobs=1))
    assert summary.logs == 6 and summary.with_findings == 4 and len(summary.errors) == 1
    rows = {r.id: r for r in summary.ordered()}
    row = rows[EVAL_ID]
    assert row.logs == 3 and row.occurrences == 3
    assert row.first_seen == "2023-11-14T22:13:20Z"  # a.log's mtime
    assert row.last_seen is not None and row.last_seen > "2024-05-15"  # c.log.gz's mtime is today
    assert row.examples[0].endswith("a.log:14") and len(row.examples) == 3
    assert summary.ordered()[0].id == EVAL_ID  # most logs first
    md = render_summary(summary, "markdown")
    assert "| signature | logs |" in md and f"`{EVAL_ID}`" in md and "1 unreadable" in md
    data = json.loads(render_summary(summary, "json"))
    assert data["logs"] == 6 and data["signatures"][0]["id"] == EVAL_ID


def test_markdown_escapes_hostile_names(tmp_path: Path) -> None:
    bad = tmp_path / "x|[evil](https:e.example)`<b>.log"
    bad.write_text((CORPUS / "001.log").read_text())
    md = render_summary(aggregate([triage_log(str(bad))]), "markdown")
    row = next(line for line in md.splitlines() if EVAL_ID in line)
    assert row.count(" | ") == 4  # the | in the name does not add a cell
    cell = row.rsplit(" | ", 1)[1]
    assert cell.startswith("``") and cell.endswith("`` |")  # one code span (the name holds a backtick): literal


def test_pool_equals_one_process(logs: Path) -> None:
    found, _ = expand([str(logs)] * 3)
    one = list(run_local(found, CatalogSpec(), jobs=1))
    two = list(run_local(found, CatalogSpec(), jobs=2))
    assert one == two and [r["log"] for r in one] == found


def test_cli_triage_jsonl_and_markdown(logs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    res = invoke(["triage", str(logs), "--jsonl", str(out), "--format", "markdown", "-j", "1"])
    assert res.exit_code == 1, res.output
    assert "## cudnn-doctor triage" in res.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 6 and sum(bool(r["findings"]) for r in records) == 4
    res = invoke(["triage", str(logs / "clean.log"), "--exit-zero"])
    assert res.exit_code == 0 and "1 log(s), 0 with a finding" in res.output
    res = invoke(["triage", str(tmp_path / "none*.log")])
    assert res.exit_code == 2


def test_cli_triage_subprocess(logs: Path) -> None:
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "cudnn_doctor", "triage", str(logs / "a.log"), str(logs / "d.log"),
                           "--jsonl", "-", "-f", "json"], capture_output=True, timeout=120, env=env)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert [json.loads(line)["log"] for line in lines] == [str(logs / "a.log"), str(logs / "d.log")]
    assert json.loads(proc.stderr.decode())["logs"] == 2  # the summary goes to stderr when stdout has the JSONL


def test_fsspec_urls(logs: Path) -> None:
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    fs.pipe("/bucket/ci/1.log", (CORPUS / "001.log").read_bytes())
    fs.pipe("/bucket/ci/2.log.gz", gzip.compress((CORPUS / "008.log").read_bytes()))
    found, problems = expand(["memory://bucket/ci"])
    assert found == ["memory:///bucket/ci/1.log", "memory:///bucket/ci/2.log.gz"] and not problems
    assert expand(["memory://bucket/ci/*.log"])[0] == ["memory:///bucket/ci/1.log"]
    recs = [triage_log(u) for u in found]
    assert [f["id"] for f in recs[0]["findings"]] == [EVAL_ID]
    assert recs[1]["findings"] and recs[1]["error"] is None
    assert triage_log("memory://bucket/ci/nope.log")["error"]


def test_dask_local_cluster_equals_local(logs: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from cudnn_doctor.integrations.triage import run_dask

    found, _ = expand([str(logs)])
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        got = list(run_dask(found, CatalogSpec(), client, batch=4))
    assert got == list(run_local(found, CatalogSpec(), jobs=1))


def test_worker_catalog_loaded_once(tmp_path: Path) -> None:
    from cudnn_doctor.integrations import triage

    spec = CatalogSpec(builtin=True)
    assert triage.worker_catalog(spec) is triage.worker_catalog(spec)

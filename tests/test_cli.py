"""The CLI through the in-process runner (tests/clirunner.py) and as a real subprocess with a pipe."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clirunner import invoke
from cudnn_doctor.cli.entry import main

ROOT = Path(__file__).resolve().parents[1]

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "lstm-hidden-size.log"
HIDDEN = "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n"


def _run(*args: str, input: str | bytes | None = None):  # type: ignore[no-untyped-def]
    return invoke(list(args), input=input)


def test_diagnose_file_exit_1_and_report(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text("epoch 1 loss 0.3\n" + HIDDEN)
    result = _run("diagnose", str(log))
    assert result.exit_code == 1, result.output
    assert "pytorch/rnn-hidden-size-mismatch" in result.output
    assert "Dead ends" in result.output and "Workarounds (ranked)" in result.output
    assert f"{log}:2" in result.output


def test_json_format_is_stable(tmp_path: Path) -> None:
    result = _run("diagnose", "--format", "json", "-", input=HIDDEN)
    assert result.exit_code == 1
    record = json.loads(result.stdout)
    f = record["findings"][0]
    for key in ("id", "title", "scope", "severity", "framework", "source", "line", "match", "root_cause",
                "dead_ends", "workarounds", "confidence", "explanation", "user_frame", "environment"):
        assert key in f, key
    assert f["source"] == "<stdin>" and f["line"] == 1
    rates = [w["success_rate"] for w in f["workarounds"]]
    assert rates == sorted(rates, reverse=True)
    assert "h0 has 1 layer*direction" in f["explanation"]


def test_clean_log_exit_0() -> None:
    result = _run("diagnose", "-", input="Epoch 1/10\nloss: 0.25\nLayer lstm will use cuDNN kernels when running on GPU.\n")
    assert result.exit_code == 0, result.output
    assert "no known signature matched" in result.output


def test_exit_zero() -> None:
    assert _run("diagnose", "--exit-zero", "-", input=HIDDEN).exit_code == 0


def test_missing_file_exit_2() -> None:
    result = _run("diagnose", "/nonexistent/train.log")
    assert result.exit_code == 2
    assert "no such file" in result.output
    assert "Traceback" not in result.output


def test_show_list_search() -> None:
    shown = _run("show", "pytorch/rnn-hidden-size-mismatch")
    assert shown.exit_code == 0 and "root cause" in shown.output
    as_json = json.loads(_run("show", "pytorch/rnn-hidden-size-mismatch", "--format", "json").stdout)
    assert as_json["id"] == "pytorch/rnn-hidden-size-mismatch"
    assert _run("show", "no/such-id").exit_code == 2
    listed = _run("list", "--framework", "pytorch", "--scope", "rnn")
    assert listed.exit_code == 0 and "pytorch/rnn-hidden-size-mismatch" in listed.output
    assert "tensorflow/" not in listed.output
    found = _run("search", "hidden", "size")
    assert found.exit_code == 0 and "pytorch/rnn-hidden-size-mismatch" in found.output


def test_validate_good_and_bad_dir(tmp_path: Path) -> None:
    # (the whole built-in base: tests/test_signatures.py, and .ci/run's `cudnn-doctor validate --strict`)
    good = tmp_path / "good" / "pytorch"
    good.mkdir(parents=True)
    shutil.copy(ROOT / "signatures" / "pytorch" / "rnn-hidden-size-mismatch.yaml", good)
    assert _run("validate", str(good.parent)).exit_code == 0
    (tmp_path / "bad.yaml").write_text("id: x/y\nsignature: s\nregex: '('\nroot_cause: r\n")
    result = _run("validate", str(tmp_path))
    assert result.exit_code == 2
    assert "bad.yaml: $.regex: does not compile" in result.output


_TWO_OCCURRENCES = """\
id: demo/seq-too-long
signature: "SeqCheck: sequence length 9 exceeds 8"
regex: 'SeqCheck: sequence length (?P<got>\\d+) exceeds (?P<limit>\\d+)'
root_cause: r
examples:
  - name: two
    text: |
      step 1
      SeqCheck: sequence length 9 exceeds 8
      step 2
      SeqCheck: sequence length 12 exceeds 8
    captures: {got: "%s"}
"""


def test_validate_checks_the_captures_of_the_reported_finding(tmp_path: Path) -> None:
    # the report shows the first occurrence (got 9): an example claiming the later one's capture fails,
    # although a match in the example yields it
    sig = tmp_path / "demo" / "seq-too-long.yaml"
    sig.parent.mkdir()
    sig.write_text(_TWO_OCCURRENCES % "9")
    assert _run("validate", str(tmp_path)).exit_code == 0
    sig.write_text(_TWO_OCCURRENCES % "12")
    result = _run("validate", str(tmp_path))
    assert result.exit_code == 2
    assert "$.captures.got: expected '12', the reported finding (line 2) has '9'" in result.output


def test_bare_file_argument_means_diagnose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "x.log"
    log.write_text(HIDDEN)
    assert main([str(log)]) == 1
    assert "rnn-hidden-size-mismatch" in capsys.readouterr().out


def test_bundled_example_log_is_diagnosed() -> None:
    result = _run("diagnose", str(EXAMPLE))
    assert result.exit_code == 1
    assert "pytorch/rnn-hidden-size-mismatch" in result.output


def _subprocess(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "cudnn_doctor", *args], input=data, capture_output=True, timeout=60, env=env)


def test_subprocess_pipe_json() -> None:
    proc = _subprocess(["diagnose", "--format", "json"], (CORPUS / "001.log").read_bytes())
    assert proc.returncode == 1, proc.stderr
    record = json.loads(proc.stdout)
    assert record["findings"][0]["id"] == "pytorch/rnn-backward-in-eval-mode"
    assert proc.stderr == b""


def test_subprocess_pipe_terminal_without_color() -> None:
    proc = _subprocess(["diagnose"], HIDDEN.encode())
    assert proc.returncode == 1
    assert b"\x1b[" not in proc.stdout
    assert b"Root cause" in proc.stdout


def test_subprocess_empty_pipe() -> None:
    proc = _subprocess(["diagnose"], b"")
    assert proc.returncode == 0, proc.stderr
    assert b"no known signature matched" in proc.stdout


def test_console_script_version() -> None:
    proc = subprocess.run([sys.executable, "-m", "cudnn_doctor", "--version"], capture_output=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith(b"cudnn-doctor ")


def test_a_big_directory_is_said_on_stderr_where_no_progress_bar_shows(tmp_path: Path) -> None:
    """Issue 29: `diagnose DIR` over thousands of logs printed nothing for minutes when stderr is not a terminal
    (a CI log, a pipe): one line says what it reads; a small directory says nothing."""
    for i in range(1000):
        (tmp_path / f"job{i}.log").write_text(f"step {i} ok\n")
    result = invoke(["diagnose", "--format", "json", str(tmp_path)])
    assert result.exit_code == 0 and result.stderr == "cudnn-doctor: note: reading 1,000 files (0 MiB); the report follows\n"
    small = tmp_path / "small"
    small.mkdir()
    (small / "a.log").write_text("ok\n")
    assert invoke(["diagnose", "--format", "json", str(small)]).stderr == ""

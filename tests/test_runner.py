"""``cudnn-doctor run -- CMD``: pass-through, exit codes, diagnosis on failure, bounded capture."""

from __future__ import annotations

import io
import json
import os
import sys

import pytest

from cudnn_doctor.cli import entry as cli
from cudnn_doctor.cli.run import Capture, _Lines, run, source_name

PY = sys.executable
EVAL_MODE_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 42, in <module>\n'
    "    loss.backward()\n"
    '  File "/opt/conda/lib/python3.10/site-packages/torch/_tensor.py", line 93, in backward\n'
    "    torch.autograd.backward(self)\n"
    "RuntimeError: cudnn RNN backward can only be called in training mode\n"
)
FAILING = f"import sys; print('epoch 1 loss 0.3', flush=True); sys.stderr.write({EVAL_MODE_TRACEBACK!r}); sys.exit(3)"


def test_success_passes_output_through_and_diagnoses_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["run", "--", PY, "-c", "import sys; print('hello'); print('to stderr', file=sys.stderr)"])
    out, err = capfd.readouterr()
    assert rc == 0
    assert out == "hello\n"
    assert err == "to stderr\n"


def test_failure_keeps_exit_code_and_prints_diagnosis_on_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["run", "--", PY, "-c", FAILING])
    out, err = capfd.readouterr()
    assert rc == 3
    assert out == "epoch 1 loss 0.3\n"  # stdout is the command's alone
    assert err.startswith(EVAL_MODE_TRACEBACK)  # passed through unchanged, then the report
    assert "pytorch/rnn-backward-in-eval-mode" in err[len(EVAL_MODE_TRACEBACK) :]
    assert "train.py:42" in err


def test_failure_with_format_writes_the_report_to_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["run", "--format", "json", "--", PY, "-c", FAILING])
    out, _ = capfd.readouterr()
    assert rc == 3
    first, _, report = out.partition("\n")
    assert first == "epoch 1 loss 0.3"
    record = json.loads(report)
    assert [f["id"] for f in record["findings"]] == ["pytorch/rnn-backward-in-eval-mode"]
    assert record["findings"][0]["user_frame"]["file"] == "train.py"


def test_failure_with_output_file(tmp_path: os.PathLike[str], capfd: pytest.CaptureFixture[str]) -> None:
    target = os.path.join(tmp_path, "report.sarif")
    rc = cli.main(["run", "-f", "sarif", "-o", target, "--", PY, "-c", FAILING])
    out, _ = capfd.readouterr()
    assert rc == 3 and out == "epoch 1 loss 0.3\n"
    with open(target, encoding="utf-8") as fh:
        assert json.load(fh)["runs"][0]["results"][0]["ruleId"] == "pytorch/rnn-backward-in-eval-mode"


def test_failure_without_known_error_still_keeps_its_code(capfd: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["run", "--", PY, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(5)"])
    _, err = capfd.readouterr()
    assert rc == 5 and err.startswith("boom\n")


def test_options_after_the_command_belong_to_the_command(capfd: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["run", PY, "-c", "import sys; print(sys.argv[1:])", "--format", "json"])
    out, _ = capfd.readouterr()
    assert rc == 0 and out == "['--format', 'json']\n"


def test_missing_command_is_127(capfd: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["run", "--", "cudnn-doctor-no-such-command-xyz", "arg"])
    out, err = capfd.readouterr()
    assert rc == 127
    assert out == ""
    assert err == "cudnn-doctor: error: cudnn-doctor-no-such-command-xyz: command not found\n"


def test_no_command_is_a_usage_error(capfd: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run"]) == 2
    assert "no command given" in capfd.readouterr().err


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_signal_becomes_128_plus_n(capfd: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["run", "--", PY, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"])
    capfd.readouterr()
    assert rc == 128 + 15


def test_output_is_passed_through_byte_for_byte(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    data = b"\xff\xfe\x00 not utf-8 \x1b[31m\r\nno newline at end"
    rc = cli.main(["run", "--", PY, "-c", f"import sys; sys.stdout.buffer.write({data!r})"])
    out, _ = capfdbinary.readouterr()
    assert rc == 0 and out == data


def test_run_api_with_streams() -> None:
    out, err = io.BytesIO(), io.BytesIO()
    result = run([PY, "-c", FAILING], stdout=out, stderr=err)
    assert result.code == 3 and result.stderr_newline
    assert out.getvalue() == b"epoch 1 loss 0.3\n" and err.getvalue() == EVAL_MODE_TRACEBACK.encode()
    assert [f.id for f in result.diagnosis.findings] == ["pytorch/rnn-backward-in-eval-mode"]
    assert result.diagnosis.sources == [source_name([PY, "-c", FAILING])]


def test_capture_keeps_head_and_tail_in_bounded_space() -> None:
    with Capture(head_bytes=1000, tail_bytes=4000) as cap:
        for i in range(5000):
            cap.write(f"line {i:05d}\n".encode())
        kept = b"".join(p if isinstance(p, bytes) else p.read() for p in cap.parts())
        assert cap.total == 5000 * 11 and cap.dropped > 0
        assert len(kept) <= 1000 + 4000 + 11 + 200
        assert kept.startswith(b"line 00000\n") and kept.endswith(b"line 04999\n")
        assert b"of output not kept" in kept


def test_long_output_still_diagnosed_from_the_tail() -> None:
    script = f"import sys\nfor i in range(20000): print('step', i)\nsys.stderr.write({EVAL_MODE_TRACEBACK!r})\nsys.exit(1)"
    result = run(
        [PY, "-c", script], stdout=io.BytesIO(), stderr=io.BytesIO(), head_bytes=2000, tail_bytes=20000
    )
    assert result.code == 1
    assert [f.id for f in result.diagnosis.findings] == ["pytorch/rnn-backward-in-eval-mode"]
    assert any("were kept and diagnosed" in w for w in result.diagnosis.warnings)


def test_streams_interleave_by_whole_lines() -> None:
    with Capture() as cap:
        out, err = _Lines(cap), _Lines(cap)
        out.feed(b"partial stdout ")
        err.feed(b"Traceback (most recent call last):\n")
        out.feed(b"line\n")
        out.flush(b"\n")
        err.flush(b"\n")
        assert bytes(cap.head) == b"Traceback (most recent call last):\npartial stdout line\n"

"""Bad input gets a clear one-line message and the right exit code: never our traceback, never a hang."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

from clirunner import invoke
from cudnn_doctor import diagnose
from cudnn_doctor.kb.compiled import load_catalog

HIDDEN = b"RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n"
VALID = """\
id: user/demo
title: Demo
signature: "DEMO_ERROR happened"
regex: 'DEMO_ERROR (?P<what>\\w+)'
root_cause: demo
"""


def _diag(*args: str, input: bytes | None = None):  # type: ignore[no-untyped-def]
    result = invoke(["diagnose", *args], input=input)
    assert "Traceback (most recent call last)" not in result.output or "RuntimeError" in result.output
    return result


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("cudnn-doctor: error:")]


def test_binary_file(tmp_path: Path) -> None:
    f = tmp_path / "model.pt"
    f.write_bytes(b"PK\x03\x04\x00\x00\x08\x00" + bytes(range(256)) * 40)
    result = _diag(str(f))
    assert result.exit_code == 2
    assert _lines(result.output) == [f"cudnn-doctor: error: {f}: binary data, not a text log (NUL or control bytes near the start)"]


def test_binary_file_alone_prints_only_the_error(tmp_path: Path) -> None:
    f = tmp_path / "model.pt"
    f.write_bytes(b"PK\x03\x04\x00\x00\x08\x00" + bytes(range(256)) * 40)
    proc = subprocess.run([sys.executable, "-m", "cudnn_doctor", "diagnose", str(f)], capture_output=True, check=False)
    assert proc.returncode == 2
    assert proc.stdout == b""  # no empty "nothing matched" report beside the error
    assert proc.stderr.decode().strip() == f"cudnn-doctor: error: {f}: binary data, not a text log (NUL or control bytes near the start)"


def _keras_log() -> bytes:
    """Issue 30's reproduction: 200 Keras Progbar updates ('\\b' * len(previous) + '\\r' + bar), then the error."""
    parts, prev = [], ""
    for i in range(1, 201):
        bar = f"{i:3d}/200 [{'=' * (i * 29 // 200)}>{'.' * (29 - i * 29 // 200)}] - ETA: {(200 - i) // 10}s - loss: 0.6931"
        parts.append("\b" * len(prev) + "\r" + bar)
        prev = bar
    error = ("tensorflow.python.framework.errors_impl.InternalError: Failed to call ThenRnnForward with model config: "
             "[rnn_mode, rnn_input_mode, rnn_direction_mode]: 2, 0, 0 , [num_layers, input_size, num_units, dir_count, "
             "max_seq_length, batch_size, cell_num_units]: [1, 300, 128, 1, 100, 64, 128]")
    return ("Epoch 1/50\n" + "".join(parts) + "\n" + error + "\n").encode()


def test_keras_progress_bars_are_a_terminals_output_not_binary(tmp_path: Path) -> None:
    """Keras writes '\\b' * width before each update: over 10% control bytes, once refused as binary (exit 2, the
    RNN error at the end never read). Backspaces and carriage returns are applied as a terminal would."""
    f = tmp_path / "keras.log"
    f.write_bytes(_keras_log())
    proc = subprocess.run([sys.executable, "-m", "cudnn_doctor", "diagnose", "--format", "json", str(f)],
                          capture_output=True, check=False)
    assert proc.returncode == 1, proc.stderr
    ids = [f["id"] for f in json.loads(proc.stdout)["findings"]]
    assert ids and "ThenRnnForward" in proc.stdout.decode() and proc.stderr == b""
    assert [f.id for f in diagnose(_keras_log()).findings] == ids


def test_a_progress_bar_line_reads_as_its_last_state() -> None:
    from cudnn_doctor.read.normalize import normalize_line

    assert normalize_line(_keras_log().decode().split("\n")[1])[0].startswith("200/200 [")
    assert normalize_line("abc\b\bXY")[0] == "aXY"  # the cursor went back two columns, XY overwrote
    assert normalize_line("loss: 0.5\b\b\b")[0] == "loss: 0.5"  # moved back, nothing written over


def test_invalid_utf8_is_decoded_with_replacement(tmp_path: Path) -> None:
    f = tmp_path / "latin1.log"
    f.write_bytes(b"caf\xe9 \xff\xfe broken\n" + HIDDEN)
    result = _diag(str(f))
    assert result.exit_code == 1
    assert "rnn-hidden-size-mismatch" in result.output


def test_empty_input() -> None:
    result = _diag("-", input=b"")
    assert result.exit_code == 0
    assert "no known signature matched in <stdin> (the input was empty)" in result.output


def test_empty_file(tmp_path: Path) -> None:
    f = tmp_path / "empty.log"
    f.write_bytes(b"")
    assert _diag(str(f)).exit_code == 0


def test_crlf_and_ansi(tmp_path: Path) -> None:
    f = tmp_path / "win.log"
    f.write_bytes(b"\x1b[31mTraceback (most recent call last):\x1b[0m\r\n" + HIDDEN.replace(b"\n", b"\r\n"))
    result = _diag("--format", "json", str(f))
    assert result.exit_code == 1
    assert '"line": 2' in result.stdout


def test_gzip_log(tmp_path: Path) -> None:
    f = tmp_path / "job.log.gz"
    f.write_bytes(gzip.compress(b"noise\n" * 1000 + HIDDEN))
    result = _diag("--format", "json", str(f))
    assert result.exit_code == 1 and '"line": 1001' in result.stdout


def test_50mb_line_is_handled_quickly(tmp_path: Path) -> None:
    f = tmp_path / "long.log"
    with open(f, "wb") as fh:
        fh.write(b"x" * (50 << 20))
        fh.write(b"\n" + HIDDEN)
    start = time.monotonic()
    result = _diag("--format", "json", str(f))
    assert time.monotonic() - start < 30
    assert result.exit_code == 1
    assert '"line": 2' in result.stdout
    assert "cut to their head and tail" in result.stdout


def test_progress_bar_line_with_error_at_its_end(tmp_path: Path) -> None:
    f = tmp_path / "tqdm.log"
    bar = b"".join(b"\rEpoch 1: %3d%%|####| %d/100" % (i, i) for i in range(100)) * 2000
    f.write_bytes(bar + b"\r" + HIDDEN)
    result = _diag("--format", "json", str(f))
    assert result.exit_code == 1


def _sig_dir(tmp_path: Path, name: str, text: str) -> Path:
    d = tmp_path / "sigs"
    d.mkdir(exist_ok=True)
    (d / name).write_text(text)
    return d


def test_malformed_yaml_signature(tmp_path: Path) -> None:
    d = _sig_dir(tmp_path, "bad.yaml", "id: user/x\nregex: [unclosed\n")
    result = _diag("--signatures", str(d), "-", input=HIDDEN)
    assert result.exit_code == 2
    (line,) = _lines(result.output)
    assert f"{d / 'bad.yaml'}: line" in line and "syntax error" in line


def test_schema_violation_lists_every_problem(tmp_path: Path) -> None:
    d = _sig_dir(tmp_path, "bad.yaml", "id: User X\nsignature: 3\nregex: ok\nroot_cause: r\nscope: gpu\n")
    _sig_dir(tmp_path, "good.yaml", VALID)
    result = _diag("--signatures", str(d), "-", input=HIDDEN)
    assert result.exit_code == 2
    lines = _lines(result.output)
    assert any("$.id: 'User X' does not match" in line for line in lines)
    assert any("$.scope: 'gpu' is not one of" in line for line in lines)
    assert any("$.signature: 3 is not of type 'string'" in line for line in lines)


def test_bad_regex_names_the_file(tmp_path: Path) -> None:
    d = _sig_dir(tmp_path, "bad.yaml", VALID.replace("(?P<what>\\w+)", "(?P<what>"))
    result = _diag("--signatures", str(d), "-", input=HIDDEN)
    assert result.exit_code == 2
    assert any("bad.yaml: $.regex: does not compile" in line for line in _lines(result.output))


def test_catastrophic_backtracking_regex_is_skipped_with_a_warning(tmp_path: Path) -> None:
    slow = VALID.replace("'DEMO_ERROR (?P<what>\\w+)'", "'DEMO(?P<what>(?:a|aa)+)$'")
    d = _sig_dir(tmp_path, "slow.yaml", slow.replace('"DEMO_ERROR happened"', '"DEMOaaa"'))
    catalog = load_catalog([d], builtin=False, use_cache=False, use_env=False)
    start = time.monotonic()
    result = diagnose("DEMO" + "a" * 60 + "b\n", catalog=catalog)
    assert time.monotonic() - start < 10
    assert any("user/demo skipped" in w and "took longer" in w for w in result.warnings)


def test_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=False))
    d = _sig_dir(tmp_path, "bomb.yaml", bomb)
    result = _diag("--signatures", str(d), "-", input=HIDDEN)
    assert result.exit_code == 2
    assert any("too large or nested too deeply" in line for line in _lines(result.output))


def test_no_builtin_without_signatures_is_a_usage_error() -> None:
    result = _diag("--no-builtin", "-", input=HIDDEN)
    assert result.exit_code == 2


def test_markup_and_escapes_in_log_are_printed_literally(tmp_path: Path) -> None:
    d = _sig_dir(tmp_path, "demo.yaml", VALID.replace("(?P<what>\\w+)", "(?P<what>.*)") + "explain: 'said: {what}'\n")
    log = b"noise \x1b]0;pwned\x07 \x1b[2J\nDEMO_ERROR [bold red]boom[/] [link=http://x]y[/link] \x1b[31mred\n"
    result = _diag("--signatures", str(d), "--no-builtin", "-", input=log)
    assert result.exit_code == 1
    assert "\x1b" not in result.output
    assert "said: [bold red]boom[/] [link=http://x]y[/link] red" in result.output


def test_error_lines_are_printed_literally_when_nothing_matched() -> None:
    log = b"RuntimeError: [bold]not markup[/bold] \x1b[2J\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\\n"
    result = _diag("-", input=log)
    assert result.exit_code == 0
    assert "\x1b" not in result.output
    assert "RuntimeError: [bold]not markup[/bold]" in result.output


def test_directory_of_logs_skips_binary_files(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_bytes(HIDDEN)
    (tmp_path / "core.bin").write_bytes(b"\x00\x01\x02" * 100)
    result = _diag("--format", "json", str(tmp_path))
    assert result.exit_code == 1
    assert "skipped" in result.stdout and "core.bin" in result.stdout

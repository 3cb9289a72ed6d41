"""Issue 30: what a user meets first. Each test failed before its fix; CLI items run through the in-process
runner (clirunner.invoke) and as a real subprocess with pipes (cli)."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import json
import lzma
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from clirunner import invoke, read_pty

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n"
HIDDEN_ID = "pytorch/rnn-hidden-size-mismatch"
POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX only")


def cli(*args: str, input: str | bytes | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """cudnn-doctor as a real subprocess with pipes."""
    data = input.encode() if isinstance(input, str) else input
    proc = subprocess.run([sys.executable, "-m", "cudnn_doctor", *args], input=data if data is not None else b"",
                          capture_output=True, env={**os.environ, **(env or {})}, cwd=cwd, timeout=timeout, check=False)
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))


def both(*args: str, input: str | None = None, cwd: Path | None = None) -> list[tuple[int, str, str]]:
    """(exit code, stdout, stderr) through the runner (in ``cwd``) and as a subprocess."""
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        r = invoke(list(args), input=input)
    finally:
        os.chdir(here)
    p = cli(*args, input=input, cwd=cwd)
    return [(r.exit_code, r.stdout, r.stderr), (p.returncode, p.stdout, p.stderr)]


# --------------------------------------------------------------------------- logs real frameworks write


def test_run_says_why_the_output_was_not_diagnosed() -> None:
    """A refused capture (binary output) read 'the input was empty'."""
    script = "import sys; sys.stdout.buffer.write(bytes(range(32)) * 64); sys.exit(3)"
    for code, out, err in both("run", "--", sys.executable, "-c", script):
        assert code == 3
        assert "binary data" in err and "not diagnosed" in err, err
        assert "the input was empty" not in out + err


@pytest.mark.parametrize("message", ["bad\x00data", "ctl\x01\x02\x03\x04\x05\x06\x07\x08bytes" * 20])
def test_excepthook_is_silent_for_an_unrelated_exception_with_control_bytes(message: str) -> None:
    code = f"import cudnn_doctor; cudnn_doctor.install(); raise ValueError({message!r})"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert "ValueError" in proc.stderr
    assert "cudnn-doctor" not in proc.stderr, proc.stderr


def test_excepthook_still_diagnoses_a_cudnn_error_with_a_nul_in_its_message() -> None:
    code = "import cudnn_doctor; cudnn_doctor.install(); raise RuntimeError('Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\\x00')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert "Initial hidden/cell state" in proc.stderr, proc.stderr


def test_pytest_plugin_and_ipython_path_are_silent_for_control_bytes() -> None:
    """The plugin and the IPython extension share hook.diagnose_record / brief_report."""
    from cudnn_doctor.integrations.hook import brief_report, diagnose_record

    assert brief_report("ValueError: bad\x00data\n") == ""
    assert diagnose_record("x\x00y\x01z" * 100)["findings"] == []


def test_the_library_raises_what_it_documents() -> None:
    import cudnn_doctor
    from cudnn_doctor.errors import DoctorError, InputError

    with pytest.raises(InputError):
        cudnn_doctor.diagnose("bad\x00data")
    assert issubclass(InputError, DoctorError)
    assert "Raises ``errors.InputError``" in (cudnn_doctor.diagnose.__doc__ or "")
    assert "InputError" in (ROOT / "README.md").read_text()


# --------------------------------------------------------------------------- never slow without a word


def test_progress_only_where_a_person_watches(monkeypatch: pytest.MonkeyPatch) -> None:
    from cudnn_doctor.cli import progress

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys, "stderr", open(os.devnull, "w"))  # noqa: SIM115 - not a terminal
    assert not progress.watched()
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert progress.watched("terminal") and not progress.watched("github") and not progress.watched("sarif")
    monkeypatch.setenv("CI", "true")
    assert not progress.watched()


@POSIX
def test_progress_bar_on_a_terminal_after_the_delay(tmp_path: Path) -> None:
    """A long triage on a terminal shows rich's bar with the time remaining; a pipe never does."""
    import pty

    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(6):
        (logs / f"{i}.log").write_text("epoch\n" + HIDDEN)
    env = {**os.environ, "CUDNN_DOCTOR_PROGRESS_DELAY": "0", "TERM": "xterm", "COLUMNS": "120"}
    env.pop("CI", None)
    env.pop("NO_COLOR", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: stderr (and stdout) a terminal
        os.execve(sys.executable, [sys.executable, "-m", "cudnn_doctor", "triage", "-j", "1", str(logs)], env)
    seen = read_pty(fd)
    os.waitpid(pid, 0)
    assert b"triage" in seen and b"logs" in seen and (b"-:--:--" in seen or b"0:00:0" in seen), seen[-2000:]
    piped = cli("triage", "-j", "1", str(logs), env={"CUDNN_DOCTOR_PROGRESS_DELAY": "0"})
    assert "0:00" not in piped.stderr and "━" not in piped.stderr


# --------------------------------------------------------------------------- triage and outputs


@pytest.fixture()
def logs(tmp_path: Path) -> Path:
    d = tmp_path / "logs"
    d.mkdir()
    (d / "a.log").write_text("epoch 1\n" + HIDDEN)
    (d / "clean.log").write_text("all good\n")
    return d


def test_triage_jsonl_then_a_directory_writes_json_lines_to_stdout(logs: Path) -> None:
    for code, out, err in both("triage", "-j", "1", "--jsonl", str(logs)):
        assert code == 1, err
        rows = [json.loads(line) for line in out.splitlines()]
        assert {Path(r["log"]).name for r in rows} == {"a.log", "clean.log"}
        assert HIDDEN_ID in err and "signature" in err  # the summary, on stderr
        assert not (Path.cwd() / str(logs)).is_file()


def test_triage_jsonl_forms(logs: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "rows.jsonl"
    for args in (["--jsonl", "-"], ["--jsonl"]):
        r = invoke(["triage", "-j", "1", str(logs), *args])
        assert len(r.stdout.splitlines()) == 2 and HIDDEN_ID in r.stderr
    r = invoke(["triage", "-j", "1", "--jsonl", str(out_file), str(logs)])
    assert len(out_file.read_text().splitlines()) == 2 and HIDDEN_ID in r.stdout
    r = invoke(["triage", "-j", "1", "--jsonl", str(logs), "-o", str(tmp_path / "summary.txt")])
    assert len(r.stdout.splitlines()) == 2 and HIDDEN_ID in (tmp_path / "summary.txt").read_text()


def test_dash_o_dash_is_stdout_everywhere(logs: Path, tmp_path: Path) -> None:
    for code, out, _ in both("diagnose", "-o", "-", "--format", "json", str(logs / "a.log"), cwd=tmp_path):
        assert code == 1 and json.loads(out)["findings"]
    for code, out, _ in both("triage", "-j", "1", "-o", "-", str(logs), cwd=tmp_path):
        assert code == 1 and HIDDEN_ID in out
    for code, out, _ in both("schema", "output", "-o", "-", cwd=tmp_path):
        assert code == 0 and json.loads(out)
    assert not (tmp_path / "-").exists()


def test_several_outputs_in_one_run(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text(HIDDEN)
    args = ["diagnose", "--format", "github", "--sarif-output", str(tmp_path / "r.sarif"), "--junit-output",
            str(tmp_path / "r.xml"), "--json-output", str(tmp_path / "r.json"), str(log)]
    for way in (lambda: invoke(args), lambda: cli(*args)):
        result = way()
        assert getattr(result, "exit_code", getattr(result, "returncode", None)) == 1, result.stderr
        assert result.stdout.startswith("::error"), result.stdout
        sarif = json.loads((tmp_path / "r.sarif").read_text())
        assert sarif["runs"][0]["results"][0]["ruleId"] == HIDDEN_ID
        assert "<testsuite" in (tmp_path / "r.xml").read_text()
        assert json.loads((tmp_path / "r.json").read_text())["findings"][0]["id"] == HIDDEN_ID
        for f in ("r.sarif", "r.xml", "r.json"):
            (tmp_path / f).unlink()
    r = invoke(["diagnose", "--format", "json", "--sarif-output", "-", "-"], input=HIDDEN)
    assert r.exit_code == 2 and "stdout" in r.stderr


def test_a_directory_of_binary_files_is_an_input_error_like_one_binary_file(tmp_path: Path) -> None:
    d = tmp_path / "bins"
    d.mkdir()
    (d / "a.bin").write_bytes(bytes(range(256)) * 8)
    (d / "b.bin").write_bytes(b"\x00" * 100)
    for code, out, err in both("diagnose", str(d)):
        assert code == 2, (out, err)
        assert "the input was empty" not in out + err
        for name in ("a.bin", "b.bin"):
            assert err.count(name) == 1, err
    assert cli("diagnose", str(d / "a.bin")).returncode == 2
    (tmp_path / "empty").mkdir()
    assert cli("diagnose", str(tmp_path / "empty")).returncode == 2


@POSIX
def test_triage_skips_a_fifo_instead_of_blocking(logs: Path) -> None:
    os.mkfifo(logs / "pipe")
    for code, _, err in both("triage", "-j", "1", str(logs / "*")):
        assert code == 1
        assert "pipe: not a regular file" in err and err.count("pipe") == 1, err
    p = cli("triage", "-j", "1", str(logs / "pipe"), timeout=30)
    assert p.returncode == 2 and "not a regular file" in p.stderr


@POSIX
def test_the_mcp_path_refuses_a_fifo(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from cudnn_doctor.integrations import mcp

    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(Exception, match="not a regular file"):
        mcp.diagnose(path=str(tmp_path / "pipe"))


def _zst(data: bytes) -> bytes:
    try:
        from compression import zstd  # type: ignore[import-not-found]

        return zstd.compress(data)  # type: ignore[no-any-return]
    except ImportError:
        import zstandard

        return zstandard.ZstdCompressor().compress(data)  # type: ignore[no-any-return]


@pytest.mark.parametrize("kind", ["gz", "xz", "bz2", "zst", "zip"])
def test_compressed_logs_are_read(tmp_path: Path, kind: str) -> None:
    data = ("epoch 1\n" * 50 + HIDDEN).encode()
    path = tmp_path / f"job.log.{kind}"
    if kind == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("job/1_build.txt", data)
            z.writestr("job/2_test.txt", b"fine\n")
    else:
        path.write_bytes({"gz": gzip.compress, "xz": lzma.compress, "bz2": bz2.compress, "zst": _zst}[kind](data))
    for code, out, err in both("diagnose", "--format", "json", str(path)):
        assert code == 1, err
        (f,) = json.loads(out)["findings"]
        assert f["id"] == HIDDEN_ID and f["line"] == 51
    rows = [json.loads(line) for line in cli("triage", "-j", "1", "--jsonl", str(path)).stdout.splitlines()]
    assert rows[0]["findings"][0]["id"] == HIDDEN_ID


@pytest.mark.parametrize("kind", ["xz", "bz2", "zst", "zip"])
def test_compression_bombs_are_refused(tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"bomb.{kind}"
    if kind == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("big.log", b"a" * (300 << 20))
    else:  # 300 streams of 1 MiB each, one after the other (a valid file): compressed in a moment, not seconds
        path.write_bytes({"xz": lzma.compress, "bz2": bz2.compress, "zst": _zst}[kind](b"a" * (1 << 20)) * 300)
    p = cli("diagnose", str(path), timeout=120)
    assert p.returncode == 2 and "bomb" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("kind", ["xz", "bz2", "zst"])
def test_corrupt_compressed_logs_are_one_line(tmp_path: Path, kind: str) -> None:
    good = {"xz": lzma.compress, "bz2": bz2.compress, "zst": _zst}[kind](HIDDEN.encode() * 200)
    path = tmp_path / f"cut.{kind}"
    path.write_bytes(good[: len(good) // 2] + b"\x00garbage" * 10)
    p = cli("diagnose", str(path))
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and kind.replace("bz2", "bzip2").replace("zst", "zstd") in p.stderr, p.stderr


# --------------------------------------------------------------------------- configuration, completion


def test_pyproject_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.cudnn-doctor]\nformat = "json"\nthreshold = 0.8\nignore = ["pytorch/rnn-input-size-mismatch"]\n'
    )
    sub = tmp_path / "deep" / "er"
    sub.mkdir(parents=True)
    for code, out, err in both("diagnose", "-", input=HIDDEN, cwd=sub):
        assert code == 1, err
        record = json.loads(out)
        assert record["confidence_threshold"] == 0.8
    for _code, out, _ in both("diagnose", "--format", "terminal", "--threshold", "0.5", "-", input=HIDDEN, cwd=sub):
        assert out.startswith("cudnn-doctor: 1 finding")  # the command line wins
    for _code, out, _ in both("diagnose", "--no-config", "-", input=HIDDEN, cwd=sub):
        assert out.startswith("cudnn-doctor: 1 finding")


def test_cudnn_doctor_toml_ignore_and_signatures(tmp_path: Path) -> None:
    (tmp_path / "cudnn-doctor.toml").write_text(f'ignore = ["{HIDDEN_ID}"]\n')
    for code, out, err in both("diagnose", "-", input=HIDDEN, cwd=tmp_path):
        assert code == 0 and HIDDEN_ID not in out, (out, err)
    (tmp_path / "cudnn-doctor.toml").write_text("")
    for code, out, _ in both("diagnose", "--ignore", HIDDEN_ID, "-", input=HIDDEN, cwd=tmp_path):
        assert code == 0 and HIDDEN_ID not in out
    for code, _, err in both("diagnose", "--ignore", "pytorch/rnn-hiden-size-mismatch", "-", input=HIDDEN, cwd=tmp_path):
        assert code == 1 and f"did you mean {HIDDEN_ID}" in err
    sigs = tmp_path / "mine" / "user"
    sigs.mkdir(parents=True)
    text = (ROOT / "signatures" / "pytorch" / "rnn-hidden-size-mismatch.yaml").read_text()
    (sigs / "hidden.yaml").write_text(text.replace(f"id: {HIDDEN_ID}", "id: user/hidden"))
    (tmp_path / "cudnn-doctor.toml").write_text('signatures = ["mine"]\nno-builtin = true\n')
    for code, out, err in both("diagnose", "--format", "json", "-", input=HIDDEN, cwd=tmp_path):
        assert code == 1, err
        assert [f["id"] for f in json.loads(out)["findings"]] == ["user/hidden"]


@pytest.mark.parametrize(("text", "says"), [
    ("treshold = 0.9\n", "did you mean threshold"),
    ("threshold = 2\n", "threshold must be from 0 to 1"),
    ("format = 'xml'\n", "format must be one of"),
    ("ignore = 3\n", "ignore must be a string or a list"),
    ("threshold = \n", "not valid TOML"),
])
def test_a_bad_configuration_is_one_line_naming_the_file(tmp_path: Path, text: str, says: str) -> None:
    (tmp_path / "cudnn-doctor.toml").write_text(text)
    for code, out, err in both("diagnose", "-", input=HIDDEN, cwd=tmp_path):
        assert code == 2 and not out
        assert len(err.splitlines()) == 1 and "cudnn-doctor.toml" in err and says in err, err


def test_completion_scripts_for_three_shells() -> None:
    # fish names a long option `-l format` (shtab 1.9, the lower bound, writes only that; newer ones also list
    # `--format` among the options that take a value)
    option = {"bash": "--format", "zsh": "--format", "fish": "-l format"}
    for shell in ("bash", "zsh", "fish"):
        for code, out, _ in both("completion", shell):
            assert code == 0 and "diagnose" in out and option[shell] in out and "triage" in out, shell
    assert "diagnose --help" not in cli("--show-completion", "bash").stdout


@POSIX
def test_bash_completion_completes_commands_and_options(tmp_path: Path) -> None:
    script = tmp_path / "c.bash"
    script.write_text(cli("completion", "bash").stdout)
    probe = f"""
source {script}
complete_words() {{ COMP_WORDS=("$@"); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); COMP_LINE="$*"; COMP_POINT=${{#COMP_LINE}};
  _shtab_cudnn_doctor; echo "${{COMPREPLY[@]}}"; }}
complete_words cudnn-doctor diag
complete_words cudnn-doctor diagnose --for
complete_words cudnn-doctor diagnose --format s
"""
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30, check=False).stdout.splitlines()
    assert out[0].split() == ["diagnose"], out
    assert "--format" in out[1].split()
    assert out[2].split() == ["sarif"]


def test_install_completion_writes_where_the_shell_looks(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    p = cli("--install-completion", "bash", env=env)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "data" / "bash-completion" / "completions" / "cudnn-doctor").read_text().startswith("#")
    assert cli("completion", "fish", "--install", env=env).returncode == 0
    assert (tmp_path / "config" / "fish" / "completions" / "cudnn-doctor.fish").is_file()
    assert cli("completion", "zsh", "--install", env=env).returncode == 0
    assert (tmp_path / ".zfunc" / "_cudnn-doctor").read_text().startswith("#compdef cudnn-doctor")


def test_env_finds_packages_by_pattern() -> None:
    from cudnn_doctor.env.local import installed

    names = [("nvidia-cudnn-cu13", "9.13.0.50"), ("cupy-cuda13x", "13.6.0"), ("jax_cuda13_plugin", "0.7.2"),
             ("nvidia-cuda-runtime", "13.0.96"), ("Torch", "2.9.0"), ("requests", "2.32.0"), ("tf-nightly", "2.21.0.dev1")]
    got = {name: (family, version) for family, name, version in installed(names)}
    assert got == {"torch": ("torch", "2.9.0"), "tf-nightly": ("tensorflow", "2.21.0.dev1"),
                   "jax-cuda13-plugin": ("jax", "0.7.2"), "cupy-cuda13x": ("cupy", "13.6.0"),
                   "nvidia-cuda-runtime": ("nvidia", "13.0.96"), "nvidia-cudnn-cu13": ("nvidia", "9.13.0.50")}


def test_env_says_not_installed_only_for_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    from cudnn_doctor.env import local

    class Dist:
        def __init__(self, name: str, version: str) -> None:
            self.metadata, self.version = {"Name": name}, version

    monkeypatch.setattr(metadata, "distributions", lambda: [Dist("cupy-cuda13x", "13.6.0"), Dist("nvidia-cudnn-cu13", "9.13.0")])
    env = local.LocalEnv()
    local._packages(env)
    assert "cupy" not in env.missing and "torch" in env.missing
    assert [f.component for f in env.facts] == ["cupy-cuda13x", "nvidia-cudnn-cu13"]


def test_the_log_reader_knows_cuda13_wheels() -> None:
    from cudnn_doctor import diagnose

    d = diagnose("nvidia-cuda-runtime==13.0.96\nnvidia-cudnn-cu13==9.13.0.50\n" + HIDDEN)
    versions = {k: v["version"] for k, v in d.environment.items()}
    assert versions.get("cuda", "").startswith("13.0") and versions.get("cudnn", "").startswith("9.13"), versions


# --------------------------------------------------------------------------- run and user signatures


@POSIX
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_command_dies_with_a_killed_run_wrapper(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    wrapper = subprocess.Popen([sys.executable, "-m", "cudnn_doctor", "run", "--", sys.executable, "-c", script],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (pid_file.is_file() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pid_file.read_text())
    wrapper.send_signal(signal.SIGKILL)
    wrapper.wait(10)
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _alive(child)
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive, "the command outlived the killed wrapper"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1].split()[0] != "Z"
    except OSError:
        return False


@POSIX
def test_run_does_not_wait_for_a_grandchild_in_its_own_session(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 30' & echo started; exit 0"
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "cudnn_doctor", "run", "--", "sh", "-c", script],
                       capture_output=True, text=True, timeout=60, check=False)
    took = time.monotonic() - start
    if pid_file.is_file():
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert p.returncode == 0 and "started" in p.stdout
    assert took < 8, took


def test_a_symlink_loop_among_user_signatures_is_skipped_with_a_warning(tmp_path: Path) -> None:
    sigs = tmp_path / "sigs" / "user"
    sigs.mkdir(parents=True)
    text = (ROOT / "signatures" / "pytorch" / "rnn-hidden-size-mismatch.yaml").read_text()
    (sigs / "hidden.yaml").write_text(text.replace(f"id: {HIDDEN_ID}", "id: user/hidden"))
    (sigs / "loop.yaml").symlink_to("loop.yaml")
    for code, _out, err in both("diagnose", "--signatures", str(tmp_path / "sigs"), "-", input=HIDDEN):
        assert code == 1, err
        assert "loop.yaml" in err and "skipped" in err and err.count("loop.yaml") == 1, err
        assert "internal error" not in err
    p = cli("validate", str(tmp_path / "sigs"))
    assert "loop.yaml" in p.stderr and "internal error" not in p.stderr

"""Every command in README.md and docs/ runs as written (issue 30): the fenced ``bash``/``sh``/``console`` blocks
are extracted and each command run by bash in a scratch directory that holds the files they name (train.log,
ci-logs/, my-signatures/, a train.py that fails with a cuDNN RNN error), with this interpreter's cudnn-doctor
first on PATH. A command marked ``# needs: network`` (or ``# needs: <anything>``: a GPU, the frameworks) is
listed as skipped with the reason, as is one that installs from the package index (``pip install``, ``pipx``,
``pip wheel``, ``git clone``) and one of an optional extra that is not installed (``mcp``, ``--dask``). Exit
codes 0 and 1 (a finding) pass."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(bash|sh|shell|console)\n(.*?)^```", re.M | re.S)
NEEDS = re.compile(r"\bneeds:\s*([^;)]+)")  # in the command's trailing comment
INDEX = re.compile(r"\b(pip install|pipx install|pip wheel|git clone)\b")
# a command of an optional extra, skipped where the extra is not installed (.ci/run's lowest-dependency run
# installs the core dependencies only)
EXTRAS = ((re.compile(r"\bcudnn-doctor mcp\b"), "mcp"), (re.compile(r"--dask\b"), "distributed"))
HIDDEN = "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n"


def commands() -> list[tuple[str, str]]:
    """(where, command) for every command of every shell block."""
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line_no = text.count("\n", 0, m.start(2)) + 1
            console = m.group(1) == "console"
            pending = ""
            for i, line in enumerate(m.group(2).splitlines()):
                if console and not pending:
                    if not line.startswith("$ "):
                        continue  # output shown after a command
                    line = line[2:]
                if line.rstrip().endswith("\\"):
                    pending += line.rstrip()[:-1] + " "
                    continue
                command = (pending + line).strip()
                pending = ""
                if command and not command.startswith("#"):
                    out.append((f"{doc.relative_to(ROOT)}:{line_no + i}", command))
    return out


COMMANDS = commands()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("doc-commands")
    example = ROOT / "docs" / "examples" / "lstm-hidden-size.log"
    shutil.copy(example, d / "train.log")
    shutil.copy(example, d / "job.log")
    (d / "docs" / "examples").mkdir(parents=True)
    shutil.copy(example, d / "docs" / "examples" / "lstm-hidden-size.log")
    (d / "ci-logs" / "2024-05-14").mkdir(parents=True)
    shutil.copy(example, d / "ci-logs" / "2024-05-14" / "a.log")
    (d / "ci-logs" / "clean.log").write_text("all good\n")
    import gzip

    (d / "ci-logs" / "b.log.gz").write_bytes(gzip.compress(HIDDEN.encode()))
    sigs = d / "my-signatures" / "user"
    sigs.mkdir(parents=True)
    text = (ROOT / "signatures" / "pytorch" / "rnn-hidden-size-mismatch.yaml").read_text()
    (sigs / "hidden.yaml").write_text(text.replace("id: pytorch/rnn-hidden-size-mismatch", "id: user/hidden"))
    (d / "train.py").write_text(f"import sys\nsys.stderr.write({HIDDEN!r})\nsys.exit(1)\n")
    return d


@pytest.mark.parametrize(("where", "command"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_documented_command_runs(scratch: Path, where: str, command: str) -> None:
    needs = NEEDS.search(command.partition(" #")[2])
    if needs:
        pytest.skip(f"needs {needs.group(1).strip()}")
    if INDEX.search(command):
        pytest.skip("installs from the package index (needs a network)")
    for pattern, module in EXTRAS:
        if pattern.search(command.partition(" #")[0]) and importlib.util.find_spec(module) is None:
            pytest.skip(f"needs the optional package {module} (not installed)")
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(scratch),
           "XDG_DATA_HOME": str(scratch / ".local" / "share"), "NO_COLOR": "1"}
    env.pop("XDG_CONFIG_HOME", None)
    env["XDG_CONFIG_HOME"] = str(scratch / ".config")
    proc = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode in (0, 1), f"{where}: {command}\nexit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr[-2000:]


def test_the_commands_were_found() -> None:
    found = {w.split(":")[0] for w, _ in COMMANDS}
    assert {"README.md", "docs/triage.md", "docs/environment.md"} <= found
    assert len(COMMANDS) >= 20

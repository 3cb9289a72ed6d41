"""cudnn_doctor.install(): the uncaught exception printed as usual, then diagnosed on stderr (real subprocesses)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RAISE = '''
def forward(x, hx):  # stands in for torch/nn/modules/rnn.py
    raise RuntimeError("Expected hidden[0] size (2, 4, 64), got [1, 4, 64]")
'''


def _run(code: str, *, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "CUDNN_DOCTOR_AUTO"} | (env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=cwd, env=full)


def test_uncaught_exception_is_printed_as_usual_then_diagnosed() -> None:
    proc = _run("import cudnn_doctor\ncudnn_doctor.install()\n" + RAISE + "forward(None, None)\n")
    assert proc.returncode == 1 and proc.stdout == ""
    err = proc.stderr
    assert err.startswith("Traceback (most recent call last):")
    tb_end = err.index("RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]")
    report = err.index("cudnn-doctor: Initial hidden/cell state has the wrong shape for this RNN")
    assert tb_end < report  # the usual traceback first
    assert "pytorch/rnn-hidden-size-mismatch" in err and "Try first: " in err
    assert "  Every workaround and source: cudnn-doctor show pytorch/rnn-hidden-size-mismatch\n" in err


def test_thread_exceptions_are_diagnosed_and_the_previous_hooks_still_run() -> None:
    proc = _run(
        "import sys, threading\n"
        "sys.excepthook = lambda *a: print('custom hook ran', file=sys.stderr)\n"
        "import cudnn_doctor\n"
        "cudnn_doctor.install()\n"
        "cudnn_doctor.install()  # twice: still one report\n" + RAISE +
        "t = threading.Thread(target=forward, args=(None, None), name='trainer')\n"
        "t.start(); t.join()\n"
        "raise ValueError('Expected hidden[0] size (2, 4, 64), got [1, 4, 64]')\n"
    )
    err = proc.stderr
    assert "Exception in thread trainer" in err
    assert err.index("Exception in thread trainer") < err.index("cudnn-doctor: Initial hidden")
    assert "custom hook ran" in err  # the hook that was there before ours
    assert err.count("cudnn-doctor: Initial hidden") == 2  # the thread's, and the main one's after the custom hook


def test_unrelated_exceptions_print_only_their_traceback_and_uninstall_restores() -> None:
    proc = _run("import cudnn_doctor\ncudnn_doctor.install()\nraise KeyError('no such column')\n")
    assert proc.returncode == 1 and "KeyError: 'no such column'" in proc.stderr and "cudnn-doctor: " not in proc.stderr
    proc = _run("import sys, cudnn_doctor\nbefore = sys.excepthook\ncudnn_doctor.install()\ncudnn_doctor.uninstall()\n"
                "assert sys.excepthook is before\n" + RAISE + "forward(None, None)\n")
    assert "RuntimeError" in proc.stderr and "cudnn-doctor: " not in proc.stderr


def test_import_and_install_import_nothing_heavy() -> None:
    """python -X importtime: until an exception arrives, no catalog, matcher, regex, yaml, rich or typer."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import cudnn_doctor; cudnn_doctor.install()"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    loaded = {m.group(1) for m in re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", proc.stderr, re.M)}
    assert "cudnn_doctor.integrations.hook" in loaded
    heavy = {"cudnn_doctor.kb.load", "cudnn_doctor.kb.compiled", "cudnn_doctor.scan", "cudnn_doctor.match", "cudnn_doctor.render",
             "regex", "yaml", "rich", "typer", "jsonschema", "packaging", "pickle", "traceback"}
    assert not heavy & loaded, heavy & loaded


def _sitecustomize_snippet() -> str:
    """The snippet the README documents (tested as written)."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("# sitecustomize.py", 1)[1]
    return "# sitecustomize.py" + section.split("```", 1)[0]


def test_readme_sitecustomize_snippet_opts_in_with_cudnn_doctor_auto(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(_sitecustomize_snippet())
    script = tmp_path / "train.py"
    script.write_text(RAISE + "forward(None, None)\n")
    env = {"PYTHONPATH": str(tmp_path)}
    off = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                         env={**{k: v for k, v in os.environ.items() if k != "CUDNN_DOCTOR_AUTO"}, **env})
    assert "RuntimeError" in off.stderr and "cudnn-doctor: " not in off.stderr  # never on by default
    on = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                        env={**os.environ, **env, "CUDNN_DOCTOR_AUTO": "1"})
    assert on.returncode == 1
    assert on.stderr.index("RuntimeError: Expected") < on.stderr.index("cudnn-doctor: Initial hidden/cell state")

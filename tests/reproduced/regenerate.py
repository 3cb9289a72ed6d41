"""Regenerate the reproduced-message fixtures by running every scenario with the real framework.

Each scenario under ``tests/reproduced/scenarios/<framework>/<name>.py`` is a small script of the kind a user
writes, whose first line says what cudnn-doctor must answer (``# expect: <signature id>`` or ``# expect: none``
for a log that holds no cuDNN RNN error). This script runs it with a Python that has the framework installed
(a CPU build is enough: every scenario raises a message that a CPU build raises), stores what it printed as
``tests/fixtures/reproduced/<framework>/<name>.log`` and records the framework and Python versions in
``tests/fixtures/reproduced/manifest.json``. tests/test_reproduced.py diagnoses the stored logs on every run and,
where the framework is importable, runs the scenarios live too.

    python tests/reproduced/regenerate.py --python /path/to/venv/bin/python [--framework torch] [--check]

``--check`` compares instead of writing: it fails when a scenario no longer prints the stored message lines.
``--update-examples`` puts each reproduced log among its signature's ``examples`` (``verification_tier:
framework_reproduced``, with its ``source``), replacing the copy from an earlier regeneration.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE / "scenarios"
SIGNATURES = HERE.parent.parent / "signatures"
EXAMPLE_LINES = 40  # a reproduced example keeps at most this many lines: the last traceback and what precedes it
FIXTURES = HERE.parent / "fixtures" / "reproduced"
MANIFEST = FIXTURES / "manifest.json"
# The framework a scenario folder needs, as its import name and its distribution name.
FRAMEWORKS = {
    "torch": ("torch", "torch"),
    "tensorflow": ("tensorflow", "tensorflow-cpu"),
    "jax": ("jax", "jax"),
    "flax": ("flax", "flax"),  # Flax (linen) on a CPU jax
    "onnxruntime": ("onnxruntime", "onnxruntime"),
    "paddle": ("paddle", "paddlepaddle"),
    "mxnet": ("mxnet", "mxnet"),
    "opencv": ("cv2", "opencv-python-headless"),
    "chainer": ("chainer", "chainer"),
    "keras": ("keras", "keras"),  # Keras 3 on a non-TensorFlow backend (the scenario sets KERAS_BACKEND)
    "coremltools": ("coremltools", "coremltools"),  # with torch in the same environment (PyTorch conversion)
}
# Where a scenario runs, so that the paths in the traceback are the same on every regeneration.
RUN_ROOT = Path(tempfile.gettempdir()) / "cudnn-doctor-repro"
TIMEOUT_S = 600
_VERSION_SNIPPET = "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))"


@dataclass(frozen=True)
class Scenario:
    framework: str
    name: str
    path: Path
    expect: str | None

    @property
    def fixture(self) -> Path:
        return FIXTURES / self.framework / f"{self.name}.log"


@dataclass(frozen=True)
class Record:
    """One manifest entry: what was run, with which versions, and what cudnn-doctor must answer."""

    fixture: str
    scenario: str
    framework: str
    framework_version: str
    python: str
    expect: str | None
    exit_code: int


def read_expect(path: Path) -> str | None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("# expect:"):
        raise SystemExit(f"{path}: the first line must be '# expect: <signature id>' or '# expect: none'")
    value = first.split(":", 1)[1].strip()
    return None if value == "none" else value


def scenarios(framework: str | None = None) -> list[Scenario]:
    out = []
    for folder in sorted(p for p in SCENARIOS.iterdir() if p.is_dir()):
        if framework and folder.name != framework:
            continue
        for path in sorted(folder.glob("*.py")):
            out.append(Scenario(folder.name, path.stem, path, read_expect(path)))
    return out


def run_scenario(scenario: Scenario, python: str) -> tuple[str, int]:
    """Run one scenario as ``python train.py`` in a fixed folder and return what it printed and its exit code."""
    workdir = RUN_ROOT / scenario.framework / scenario.name
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    shutil.copyfile(scenario.path, workdir / "train.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDNN_DOCTOR")}
    env.update({"PYTHONUNBUFFERED": "1", "CUDA_VISIBLE_DEVICES": "", "PYTHONWARNINGS": "default"})
    proc = subprocess.run(
        [python, "train.py"], cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        timeout=TIMEOUT_S, check=False,
    )
    return proc.stdout.decode("utf-8", "replace"), proc.returncode


def versions(python: str, framework: str) -> tuple[str, str]:
    dist = FRAMEWORKS[framework][1]
    fw = subprocess.run([python, "-c", _VERSION_SNIPPET, dist], capture_output=True, text=True, check=False)
    if fw.returncode != 0:  # tensorflow (not -cpu) and friends
        fw = subprocess.run([python, "-c", _VERSION_SNIPPET, framework], capture_output=True, text=True, check=False)
    py = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                        capture_output=True, text=True, check=True)
    return fw.stdout.strip() or "unknown", py.stdout.strip()


def message_lines(text: str) -> list[str]:
    """The lines that carry the error itself: the exception line(s) and warnings, not timestamps or addresses."""
    keep = []
    for line in text.splitlines():
        s = line.strip()
        if ("Error" in s or "Warning" in s or "error" in s) and not s.startswith("File "):
            keep.append(s)
    return keep


def example_name(scenario: Scenario) -> str:
    return f"reproduced-{scenario.framework}-{scenario.name.replace('_', '-')}"


def example_text(log: str) -> str:
    """The part of a reproduced log kept as a signature example: from a few lines before its last traceback, at most
    EXAMPLE_LINES lines, ANSI colour codes removed."""
    lines = [line.rstrip() for line in log.replace("\x1b[", "\x00[").splitlines()]
    lines = [re.sub(r"\x00\[[0-9;]*m", "", line) for line in lines]
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
    start = max(0, starts[-1] - 4) if starts else max(0, len(lines) - EXAMPLE_LINES)
    return "\n".join(lines[start : start + EXAMPLE_LINES]).strip("\n") + "\n"


def add_examples(signature_id: str, found: list[tuple[Scenario, dict[str, object]]]) -> bool:
    """Put the reproduced logs first among a signature's examples, in scenario order, replacing older copies.

    Returns False when the file already held exactly these examples.
    """
    path = SIGNATURES / f"{signature_id}.yaml"
    original = path.read_text(encoding="utf-8")
    text = original
    items = []
    for scenario, record in sorted(found, key=lambda pair: example_name(pair[0])):
        text = _drop_example(text, example_name(scenario))
        items.append({
            "name": example_name(scenario),
            "verification_tier": "framework_reproduced",
            "source": f"{record['scenario']} ({record['framework']} {record['framework_version']}, "
            f"Python {record['python']}, CPU)",
            "text": example_text(scenario.fixture.read_text(encoding="utf-8")),
        })
    block = yaml.safe_dump(items, allow_unicode=True, sort_keys=False, width=10_000)
    block = "".join(f"  {line}\n" if line else "\n" for line in block.splitlines())
    head, sep, tail = text.partition("\nexamples:\n")
    if not sep:
        raise SystemExit(f"{path}: no top-level 'examples:' list to add to")
    updated = head + sep + block + tail
    if updated == original:
        return False
    path.write_text(updated, encoding="utf-8")
    return True


def _drop_example(text: str, name: str) -> str:
    """Remove the example item called ``name`` (written by add_example: a ``  - name:`` item) from a signature file."""
    lines = text.splitlines(keepends=True)
    out, skipping = [], False
    for line in lines:
        if line == f"  - name: {name}\n":
            skipping = True
            continue
        if skipping and (line.startswith("  - ") or (line.strip() and not line.startswith(" "))):
            skipping = False
        if not skipping:
            out.append(line)
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable, help="a Python that has the framework(s) installed")
    ap.add_argument("--framework", choices=sorted(FRAMEWORKS), help="only this framework's scenarios")
    ap.add_argument("--check", action="store_true", help="compare with the stored fixtures instead of writing")
    ap.add_argument("--update-examples", action="store_true",
                    help="add each reproduced log to its signature's examples (without running anything)")
    args = ap.parse_args(argv)

    manifest = {r["fixture"]: r for r in json.loads(MANIFEST.read_text())} if MANIFEST.exists() else {}
    if args.update_examples:
        by_signature: dict[str, list[tuple[Scenario, dict[str, object]]]] = {}
        for sc in scenarios():
            rel = sc.fixture.relative_to(FIXTURES).as_posix()
            if sc.expect and rel in manifest:
                by_signature.setdefault(sc.expect, []).append((sc, manifest[rel]))
        for signature_id, found in sorted(by_signature.items()):
            if add_examples(signature_id, found):
                print(f"{signature_id}: {len(found)} reproduced example(s) written")
        return 0
    failures = 0
    for sc in scenarios(args.framework):
        probe = subprocess.run([args.python, "-c", f"import {FRAMEWORKS[sc.framework][0]}"], capture_output=True,
                               check=False)
        if probe.returncode != 0:
            print(f"skip {sc.framework}/{sc.name}: {sc.framework} is not importable by {args.python}")
            continue
        text, code = run_scenario(sc, args.python)
        rel = sc.fixture.relative_to(FIXTURES).as_posix()
        if args.check:
            stored = sc.fixture.read_text(encoding="utf-8") if sc.fixture.exists() else ""
            missing = [m for m in message_lines(text) if m not in stored]
            status = "ok" if not missing else f"CHANGED: {missing[:2]}"
            failures += bool(missing)
            print(f"{rel}: {status}")
            continue
        fw_version, py_version = versions(args.python, sc.framework)
        sc.fixture.parent.mkdir(parents=True, exist_ok=True)
        sc.fixture.write_text(text, encoding="utf-8")
        manifest[rel] = asdict(Record(
            fixture=rel, scenario=sc.path.relative_to(HERE.parent.parent).as_posix(), framework=sc.framework,
            framework_version=fw_version, python=py_version, expect=sc.expect, exit_code=code,
        ))
        print(f"{rel}: exit {code}, {len(text.splitlines())} lines ({sc.framework} {fw_version})")
    if not args.check:
        # A removed or renamed scenario leaves no entry (nor fixture) behind.
        current = {sc.fixture.relative_to(FIXTURES).as_posix() for sc in scenarios()}
        for rel in sorted(set(manifest) - current):
            del manifest[rel]
            (FIXTURES / rel).unlink(missing_ok=True)
        MANIFEST.parent.mkdir(parents=True, exist_ok=True)
        MANIFEST.write_text(json.dumps(sorted(manifest.values(), key=lambda r: r["fixture"]), indent=1) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

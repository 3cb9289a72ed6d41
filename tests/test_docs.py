"""Documents that cannot drift: the signature catalogue, the output schema, the README's commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema

from cudnn_doctor import diagnose
from cudnn_doctor.report import build_report

ROOT = Path(__file__).resolve().parents[1]


def test_signature_catalogue_is_current() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "docs" / "generate_catalogue.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_json_output_validates_against_the_documented_schema(catalog) -> None:  # type: ignore[no-untyped-def]
    schema = json.loads((ROOT / "src" / "cudnn_doctor" / "data" / "output.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for log in [*sorted((ROOT / "tests" / "fixtures" / "corpus").glob("*.log"))[:12], ROOT / "docs" / "examples" / "lstm-hidden-size.log"]:
        record = build_report(diagnose(log.read_text(), catalog=catalog, source=log.name))
        jsonschema.validate(record, schema)


def test_readme_quick_start_has_two_commands_and_ci_runs_the_second() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [line for line in block.splitlines()[1:] if line.strip()]
    assert len(commands) == 2, commands
    assert "cudnn-doctor" in commands[0] and "pytest" in commands[1]
    assert commands[1].strip() in (ROOT / ".ci" / "run").read_text()


def test_every_command_is_documented_in_the_readme() -> None:
    from cudnn_doctor.cli.options import COMMANDS

    readme = (ROOT / "README.md").read_text()
    for name in COMMANDS:
        assert f"cudnn-doctor {name}" in readme, name


def test_every_format_has_a_renderer() -> None:
    from cudnn_doctor import diagnose as run
    from cudnn_doctor.render import Format, render

    record = build_report(run("RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n"))
    for fmt in Format:
        assert render(fmt, record).strip(), fmt

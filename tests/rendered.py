"""A finding's cut record as every format renders it (tests of the tolerant reading's marks: described, retyped)."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema

from cudnn_doctor.render import Format, render
from cudnn_doctor.report import Diagnosis, build_report


def says_in_every_format(d: Diagnosis, key: str, phrase: str) -> None:
    """The top finding's cut record has ``key`` true in the JSON report, which the output schema accepts, and
    every other format says ``phrase``."""
    report = build_report(d)
    record = json.loads(render(Format.json, report))
    assert record["findings"][0]["cut"][key] is True
    schema = json.loads(resources.files("cudnn_doctor").joinpath("data/output.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(record, schema)
    for fmt in (Format.terminal, Format.markdown, Format.github, Format.sarif, Format.junit):
        assert phrase in render(fmt, report, color=False, width=200), fmt

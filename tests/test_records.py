"""The typed report (records.py), its one builder (report.py), the view decisions in rank.py, the text-safety
classes (textsafe.py) and the localisation rule (model.localized)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, get_type_hints

import pytest

import cudnn_doctor
from cudnn_doctor.model import DeadEnd, localized
from cudnn_doctor.rank.findings import BRIEF, TERMINAL, View, head
from cudnn_doctor.read import textsafe
from cudnn_doctor.records import FindingRecord, Report
from cudnn_doctor.render import Format, render
from cudnn_doctor.report import build_report

DIFFERENTIAL_LOG = "torch 2.2.0\nRuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED\n"
SHAPE_LOG = "RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n"


def _schema() -> dict[str, Any]:
    text = resources.files("cudnn_doctor").joinpath("data/output.schema.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def test_records_mirror_the_output_schema() -> None:
    """A key added to the schema, the TypedDict or the builder and not to the others fails here."""
    schema = _schema()
    assert set(get_type_hints(Report)) == set(schema["properties"])
    finding = schema["properties"]["findings"]["items"]["properties"]
    assert set(get_type_hints(FindingRecord)) == set(finding)


@pytest.mark.parametrize("log", [SHAPE_LOG, DIFFERENTIAL_LOG, "nothing to see\n"])
def test_the_builder_fills_every_key_in_the_typed_order(log: str) -> None:
    report = build_report(cudnn_doctor.diagnose(log))
    assert list(report) == list(Report.__annotations__)
    for f in report["findings"]:
        assert list(f) == list(FindingRecord.__annotations__)
    assert cudnn_doctor.diagnose(log).to_dict() == report  # to_dict stays the public face of the same record


def test_json_is_the_record_as_is() -> None:
    report = build_report(cudnn_doctor.diagnose(SHAPE_LOG))
    assert json.loads(render(Format.json, report)) == json.loads(json.dumps(report))


def test_rank_decides_how_much_a_view_shows() -> None:
    assert head([1, 2, 3], None) == ([1, 2, 3], 0)
    assert head([1, 2, 3], 2) == ([1, 2], 1)
    assert TERMINAL.near_misses == 5 and BRIEF.findings == 3
    assert View().causes == 8  # the full views list eight causes; JSON lists all


def test_hidden_workarounds_are_decided_in_rank() -> None:
    from cudnn_doctor.rank.findings import plan_workarounds

    catalog = cudnn_doctor.load_catalog()
    sig = next(s for s in catalog.signatures if any(w.applies for w in s.workarounds))
    component, spec = next(w.applies for w in sig.workarounds if w.applies)[0]
    shown, hidden = plan_workarounds(sig, {})
    assert not hidden and len(shown) == len(sig.workarounds)
    # a version no spec admits hides the workarounds that name the component
    shown, hidden = plan_workarounds(sig, {component: "0.0.1" if ">" in spec else "999.0"})
    assert hidden and all(reason.startswith("needs ") for _, reason in hidden)
    assert len(shown) + len(hidden) == len(sig.workarounds)


def test_localized_falls_back_per_field() -> None:
    d = DeadEnd(action="Reinstall", why_fails="It is not the install.", action_zh="重新安装", why_fails_zh="  ")
    assert localized(d, "action", "zh") == "重新安装"
    assert localized(d, "why_fails", "zh") == "It is not the install."  # blank translation: English
    assert localized(d, "action", "en") == "Reinstall"
    assert localized(d, "action", "ja") == "Reinstall"  # no such language: English
    assert localized({"title": "T", "title_zh": "标题"}, "title", "zh") == "标题"
    assert localized({"title": "T"}, "missing", "zh") == ""


HOSTILE = "a\x1b[31mb\x9b2Jc\x07d\x0be\rf\u202eg\u200bh\u2028i\ufeffj\ud800k\x7fl\tm"


def test_each_consumer_strips_its_classes() -> None:
    assert textsafe.strip_ansi("x\x1b[31my\x1b]0;title\x07z") == "xyz"
    # normalize: C0 (TAB/LF kept) and DEL; escape sequences are normalize's own first step
    assert textsafe.normalize_controls("a\x00b\rc\td\x7fe\u202ef") == "abc\tde\u202ef"
    # terminal: also C1, zero-width and bidi; CR removed
    assert textsafe.terminal_safe(HOSTILE) == "a[31mb2Jcdef" + "gh\u2028i\ufeffj\ud800kl\tm"
    # CI: escape sequences stripped first, CR kept (escaped by the format), separators and surrogates gone
    assert textsafe.clean(HOSTILE) == "abcde\rfghi\ufeffjkl\tm"
    assert textsafe.json_escape_invisible("a\u202eb\ufeffc\u2028") == "a\\u202eb\\ufeffc\\u2028"
    assert textsafe.xml_text("a\x00b\ufffec", 10) == "abc"


def test_workflow_command_and_markdown_escaping() -> None:
    assert textsafe.escape_data("50%\r\n::set-output") == "50%25%0D%0A::set-output"
    assert textsafe.escape_property("a:b,c") == "a%3Ab%2Cc"
    assert textsafe.md_text("<b>@user #1 *x*") == f"&lt;b&gt;@{textsafe.WJ}user #{textsafe.WJ}1 \\*x\\*"
    assert textsafe.md_code("a`b") == "``a`b``"
    assert textsafe.md_block("x\n```\ny").startswith("````text\n")


def test_renderers_depend_only_on_the_records_rank_and_text_safety() -> None:
    """render/ lays out what report.py built and rank.py chose: it never reaches back into the pipeline or
    the builder (show.py, which renders a signature rather than a report, also reads the model)."""
    import ast
    from pathlib import Path

    import cudnn_doctor.render as render_pkg

    allowed = {"records", "rank", "read", "model"}  # read: only read.textsafe (checked below)
    for path in Path(render_pkg.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                assert (node.module or "").split(".")[0] in allowed, f"{path.name} imports ..{node.module}"
                if (node.module or "").startswith("read"):
                    assert node.module == "read.textsafe", f"{path.name} imports ..{node.module}"
                if node.module == "model":
                    assert path.name in ("show.py", "phrases.py"), f"{path.name} reads the model, not the records"

"""CI output formats: GitHub workflow commands, Markdown, SARIF, JUnit, GitLab Code Quality.

Records come from real diagnoses (``cudnn_doctor.diagnose`` + ``report.build_report``); hostile variants poison
every string of such a record, as a log line, a file name or a user signature could.
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import cudnn_doctor
from cudnn_doctor.render import Format, render
from cudnn_doctor.render.github import escape_data, escape_property, render_github
from cudnn_doctor.render.gitlab import render_gitlab
from cudnn_doctor.render.junit import render_junit
from cudnn_doctor.render.markdown import MAX_BYTES, WJ, block, render_markdown
from cudnn_doctor.render.sarif import artifact_uri, render_sarif
from cudnn_doctor.report import build_report

SARIF_SCHEMA = Path(__file__).resolve().parent / "fixtures" / "sarif-schema-2.1.0.json"  # OASIS SARIF 2.1.0, in the repository

EVAL_MODE_LOG = """\
Traceback (most recent call last):
  File "grad-cam.py", line 359, in <module>
    run()
  File "grad-cam.py", line 222, in __call__
    one_hot.backward()
  File "/opt/conda/lib/python3.10/site-packages/torch/_tensor.py", line 93, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph)
RuntimeError: cudnn RNN backward can only be called in training mode
"""
HIDDEN_SIZE_LOG = "RuntimeError: Expected hidden[0] size (1, 1, 100), got [1, 1, 29]\n"

# What a log line, a file name or a user signature may carry.
HOSTILE = (
    "::set-output name=x::y\n::add-mask::secret\r\n::stop-commands::tok %0A %25 a,b:c "
    "\x1b[31mred\x1b[0m \x1b]8;;http://evil.example\x07link\x1b]8;;\x07 \x9b2J \u202eevil\u202c \x00\x0b "
    "<script>alert(1)</script> <img src=x onerror=alert(1)> | table | breaks | ``` ```` ` "
    "@user [link](javascript:alert(1)) \n# heading\n> quote &amp; ]]> \ud800"
)
ALL_FORMATS = list(Format)


def diagnose(text: str, source: str = "train.log") -> dict[str, Any]:
    return build_report(cudnn_doctor.diagnose(text, source=source))


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """Two findings: one with the user's frame (eval mode), one without (hidden size, another log)."""
    r = diagnose(EVAL_MODE_LOG)
    r["findings"] += diagnose("epoch 3\n" + HIDDEN_SIZE_LOG, source="other.log")["findings"]
    assert [f["id"] for f in r["findings"]] == [
        "pytorch/rnn-backward-in-eval-mode",
        "pytorch/rnn-hidden-size-mismatch",
    ]
    assert r["findings"][0]["user_frame"] and not r["findings"][1]["user_frame"]
    return r


@pytest.fixture(scope="module")
def empty() -> dict[str, Any]:
    r = diagnose("all good\nepoch 1 loss 0.3\n")
    assert not r["findings"]
    return r


def poison(value: Any) -> Any:
    """Append HOSTILE to every string (keys kept), recursively."""
    if isinstance(value, str):
        return value + HOSTILE
    if isinstance(value, list):
        return [poison(v) for v in value]
    if isinstance(value, dict):
        return {k: poison(v) for k, v in value.items()}
    return value


@pytest.fixture(scope="module")
def hostile(record: dict[str, Any]) -> dict[str, Any]:
    r = copy.deepcopy(record)
    r["findings"] = [poison(f) for f in r["findings"]]
    for f, orig in zip(r["findings"], record["findings"], strict=True):
        f["severity"] = orig["severity"]
    r["sources"] = [poison(s) for s in r["sources"]]
    r["warnings"] = [HOSTILE]
    return r


@pytest.fixture(scope="module")
def hostile_log_record() -> dict[str, Any]:
    """A real diagnosis whose log, traceback frame and file name carry injection attempts."""
    log = (
        "::set-output name=x::y\n::add-mask::secret\nTraceback (most recent call last):\n"
        '  File "evil,dir:x/%0A::set-output name=a::b.py", line 7, in <module>\n'
        "    out.backward()  # ::add-mask::secret %0A \x1b[31mred <script>alert(1)</script> @user `x`\n"
        '  File "/usr/lib/python3.10/site-packages/torch/_tensor.py", line 93, in backward\n'
        "    torch.autograd.backward(self)\n"
        "RuntimeError: cudnn RNN backward can only be called in training mode\n"
    )
    r = diagnose(log, source="logs/a,b:c\r\n::warning::x.log")
    assert r["findings"][0]["user_frame"]["file"].startswith("evil,dir:x/")
    return r


@pytest.fixture(scope="module")
def hostile_command_record(hostile_log_record: dict[str, Any]) -> dict[str, Any]:
    """The same log delivered as a tool's workflow command (``::error ...::`` and the log on one line, its line
    breaks %0A), which read/present.py decodes into the lines it carries: the commands inside them stay text."""
    log = (
        "::set-output name=x::y%0A::add-mask::secret%0ATraceback (most recent call last):%0A"
        '  File "evil,dir:x/%250A::set-output name=a::b.py", line 7, in <module>%0A'
        "    out.backward()  # ::add-mask::secret %250A%0A"
        '  File "/usr/lib/python3.10/site-packages/torch/_tensor.py", line 93, in backward%0A'
        "    torch.autograd.backward(self)%0A"
        "RuntimeError: cudnn RNN backward can only be called in training mode"
    )
    r = diagnose("::error file=train.py,line=9::" + log + "\n")
    assert r["findings"][0]["id"] == hostile_log_record["findings"][0]["id"]
    assert r["findings"][0]["user_frame"]["file"].startswith("evil,dir:x/")
    return r


def many(record: dict[str, Any], n: int, warnings: int = 0, big: int = 0) -> dict[str, Any]:
    """``n`` distinct findings cloned from the first one (``warnings`` of them with severity warning)."""
    r = copy.deepcopy(record)
    base = record["findings"][0]
    r["findings"] = []
    for i in range(n):
        f = copy.deepcopy(base)
        f["id"] = f"{base['id']}-{i}"
        f["line"] = i + 1
        f["severity"] = "warning" if i < warnings else "error"
        if big:
            f["explanation"] = ("x" * 99 + "\n") * (big // 100)
            f["match"] = "y" * big
        r["findings"].append(f)
    return r


# --- every format ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ALL_FORMATS, ids=lambda f: f.value)
def test_every_format_renders(fmt: Format, record: dict[str, Any], empty: dict[str, Any]) -> None:
    assert render(fmt, record)
    assert isinstance(render(fmt, empty), str)


@pytest.mark.parametrize(
    "fmt",
    ALL_FORMATS,
    ids=lambda f: f.value,
)
def test_no_terminal_escape_or_invisible_control_reaches_any_format(
    fmt: Format, hostile: dict[str, Any], hostile_log_record: dict[str, Any]
) -> None:
    for r in (hostile, hostile_log_record):
        out = render(fmt, r, color=False)
        if fmt not in (Format.terminal, Format.json):  # the CLI writes those with errors="surrogateescape"
            out.encode("utf-8")  # no lone surrogate left
        for bad in ("\x1b", "\x9b", "\u202e", "\u202c", "\x00", "\x0b", "\x07"):
            assert bad not in out, (fmt, repr(bad))


# --- GitHub workflow commands ---------------------------------------------------------------------


def test_escaping_is_exactly_actions_core() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_data("a:b,c") == "a:b,c"
    assert escape_property("C:\\x,y%\n") == "C%3A\\x%2Cy%25%0A"
    assert escape_data("%0A") == "%250A"


def _unescape(s: str) -> str:
    """The runner's unescaping (ActionCommand.Unescape), for round-trip checks."""
    return (
        s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def _parse(line: str) -> tuple[str, dict[str, str], str]:
    """Parse one workflow command like the runner: ``::name props::data``; props split on ','."""
    assert line.startswith("::")
    head, sep, data = line[2:].partition("::")
    assert sep
    name, _, props = head.partition(" ")
    fields = dict(p.split("=", 1) for p in props.split(",")) if props else {}
    return name, {k: _unescape(v) for k, v in fields.items()}, _unescape(data)


def test_github_points_at_the_users_frame(record: dict[str, Any]) -> None:
    lines = render_github(record).splitlines()
    assert len(lines) == len(record["findings"])
    by_title = {_parse(line)[1]["title"]: _parse(line) for line in lines}
    eval_mode = next(v for k, v in by_title.items() if "eval mode" in k)
    name, props, data = eval_mode
    assert name == "error"
    assert (props["file"], props["line"], props["endLine"]) == ("grad-cam.py", "222", "222")
    assert "train() mode" in data and "Fix: " in data and "train.log:8" in data


def test_github_without_frame_points_at_the_log_line() -> None:
    r = diagnose("some output\n" + HIDDEN_SIZE_LOG, source="logs/train.log")
    _, props, _ = _parse(render_github(r).splitlines()[0])
    assert (props["file"], props["line"]) == ("logs/train.log", "2")


def test_github_stdin_has_no_file_property() -> None:
    r = diagnose(HIDDEN_SIZE_LOG, source="<stdin>")
    _, props, _ = _parse(render_github(r).splitlines()[0])
    assert "file" not in props and "line" not in props


@pytest.mark.parametrize("which", ["hostile", "hostile_log_record", "hostile_command_record"])
def test_github_log_text_cannot_inject_commands(which: str, request: pytest.FixtureRequest) -> None:
    r = request.getfixturevalue(which)
    out = render_github(r)
    assert out.endswith("\n") and "\r" not in out
    for line in out.splitlines():
        assert line.startswith(("::error ", "::warning ", "::notice ")), line[:80]
        _, props, _ = _parse(line)  # properties split cleanly: no raw ',' or ':' inside values
        assert set(props) <= {"file", "line", "endLine", "title"}
        assert "::" not in line[2:].partition("::")[0]  # the property part holds no '::'
    assert "::set-output" not in "".join(line[:14] for line in out.splitlines())


def test_github_file_names_with_commas_and_colons_round_trip(hostile_log_record: dict[str, Any]) -> None:
    _, props, data = _parse(render_github(hostile_log_record).splitlines()[0])
    assert props["file"] == "evil,dir:x/%0A::set-output name=a::b.py"  # '%0A' stays text, not a newline
    assert props["line"] == "7"
    assert "Log: logs/a,b:c" in data


def test_github_respects_annotation_limits(record: dict[str, Any]) -> None:
    out = render_github(many(record, 25, warnings=12, big=20000)).splitlines()
    names = [_parse(line)[0] for line in out]
    assert names.count("error") == 10 and names.count("warning") == 10 and names.count("notice") == 1
    assert "5 more finding(s)" in _parse(out[-1])[2]
    for line in out:
        _, props, data = _parse(line)
        assert len(data) <= 4000
        assert len(props.get("title", "")) <= 120


def test_github_no_findings_prints_at_most_a_notice(empty: dict[str, Any]) -> None:
    lines = render_github(empty).splitlines()
    assert len(lines) <= 1 and all(line.startswith("::notice ") for line in lines)


# --- Markdown ---------------------------------------------------------------------------------------


def test_markdown_report_sections(record: dict[str, Any]) -> None:
    out = render_markdown(record)
    assert out.startswith("## cudnn-doctor: 2 findings in `train.log`")
    assert "| # | Severity | Finding | Where | Confidence |" in out
    for part in (
        "**Where:**",
        "**Your code:** `grad-cam.py:222`",
        "**Root cause:**",
        "**Dead ends**",
        "**Workarounds**",
    ):
        assert part in out
    assert "](<https://github.com/pytorch/pytorch/" in out


@pytest.mark.parametrize("which", ["hostile", "hostile_log_record", "hostile_command_record"])
def test_markdown_log_text_cannot_inject_markup(which: str, request: pytest.FixtureRequest) -> None:
    out = render_markdown(request.getfixturevalue(which))
    prose = _outside_code(out)
    assert "<script" not in prose and "<img" not in prose
    assert not re.search(r"(?<!\\)\]\(javascript:", prose)
    assert not re.search(r"@[A-Za-z]", prose), "an @mention would notify someone"
    assert not re.search(r"(?<![\\`])\[link\]", prose)
    for line in prose.splitlines():
        if line.startswith("#"):
            assert line.startswith(("## cudnn-doctor", "### ")), line[:80]
        if line.startswith("|") and not line.startswith("|---"):
            assert len(re.findall(r"(?<!\\)\|", line)) == 6, line[:200]  # five cells, no pipe broke out


def _outside_code(md: str) -> str:
    """The Markdown with fenced blocks and code spans removed (what GitHub would parse as markup)."""
    out: list[str] = []
    fence = ""
    for line in md.splitlines():
        stripped = line.lstrip()
        m = re.match(r"(`{3,})", stripped)
        if fence:
            if m and m.group(1) == fence and not stripped[len(fence) :].strip():
                fence = ""
            continue
        if m:
            fence = m.group(1)
            continue
        out.append(re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", line))
    assert not fence, "unclosed code fence"
    return "\n".join(out)


def test_markdown_mentions_are_broken_with_a_word_joiner(hostile: dict[str, Any]) -> None:
    assert f"@{WJ}user" in render_markdown(hostile)


def test_markdown_fence_is_longer_than_any_backtick_run() -> None:
    out = block("a ```` b\n`````` c")
    assert out.startswith("```````text\n") and out.endswith("\n```````\n")
    assert block("plain").startswith("```text\n")


def test_markdown_stays_under_one_mib(record: dict[str, Any]) -> None:
    out = render_markdown(many(record, 400, big=8000))
    assert len(out.encode("utf-8")) < MAX_BYTES
    assert "Report truncated" in out and _outside_code(out) is not None


def test_markdown_abstain(empty: dict[str, Any]) -> None:
    assert render_markdown(empty).startswith("## cudnn-doctor: no known cuDNN RNN error in `train.log`")


# --- SARIF ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator() -> Any:
    import jsonschema

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("which", ["record", "empty", "hostile", "hostile_log_record"])
def test_sarif_validates_against_the_oasis_schema(
    which: str, sarif_validator: Any, request: pytest.FixtureRequest
) -> None:
    log = json.loads(render_sarif(request.getfixturevalue(which)))
    errors = sorted(sarif_validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def test_sarif_content(record: dict[str, Any]) -> None:
    log = json.loads(render_sarif(record))
    assert log["version"] == "2.1.0"
    driver = log["runs"][0]["tool"]["driver"]
    ids = [r["id"] for r in driver["rules"]]
    assert sorted(ids) == sorted(f["id"] for f in record["findings"])
    rule = driver["rules"][ids.index("pytorch/rnn-backward-in-eval-mode")]
    assert rule["fullDescription"]["text"].startswith("In eval mode PyTorch")
    assert rule["properties"]["scope"] == "rnn" and rule["properties"]["framework"] == "pytorch"
    assert rule["helpUri"].startswith("https://")
    results = log["runs"][0]["results"]
    res = next(r for r in results if r["ruleId"] == "pytorch/rnn-backward-in-eval-mode")
    assert res["level"] == "error" and driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "grad-cam.py" and loc["region"]["startLine"] == 222
    log_loc = res["relatedLocations"][0]["physicalLocation"]
    assert log_loc["artifactLocation"]["uri"] == "train.log" and log_loc["region"]["startLine"] == 8
    assert res["properties"]["confidence"] > 0 and res["properties"]["count"] == 1
    other = next(r for r in results if r is not res)
    assert other["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "other.log"
    assert len({r["partialFingerprints"]["cudnnDoctorFingerprint/v1"] for r in results}) == len(results)


def test_sarif_uris() -> None:
    assert artifact_uri("src/train.py") == "src/train.py"
    assert artifact_uri("/home/u/my run/train.py") == "file:///home/u/my%20run/train.py"
    assert artifact_uri("C:\\Users\\Sung-Jun Park\\train.py") == "file:///C:/Users/Sung-Jun%20Park/train.py"
    assert artifact_uri("<stdin>") == "%3Cstdin%3E"


# --- JUnit ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["record", "hostile", "hostile_log_record"])
def test_junit_parses_and_counts(which: str, request: pytest.FixtureRequest) -> None:
    r = request.getfixturevalue(which)
    root = ET.fromstring(render_junit(r).encode("utf-8"))
    suite = root.find("testsuite")
    assert suite is not None
    n = len(r["findings"])
    assert suite.get("tests") == str(n) and suite.get("failures") == str(n) and root.get("failures") == str(n)
    cases = suite.findall("testcase")
    assert len(cases) == n
    if which == "record":
        assert [c.get("name") for c in cases] == [f["id"] for f in r["findings"]]
    for c in cases:
        failure = c.find("failure")
        assert failure is not None and failure.get("message") and failure.text


def test_junit_names_and_text(record: dict[str, Any]) -> None:
    root = ET.fromstring(render_junit(record))
    case = next(c for c in root.iter("testcase") if c.get("name") == "pytorch/rnn-backward-in-eval-mode")
    assert case.get("classname") == "pytorch.rnn"
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "error"
    assert "Root cause:" in (failure.text or "") and "Workarounds (ranked):" in (failure.text or "")


def test_junit_no_finding_is_one_passing_testcase(empty: dict[str, Any]) -> None:
    root = ET.fromstring(render_junit(empty))
    cases = list(root.iter("testcase"))
    assert len(cases) == 1 and cases[0].find("failure") is None
    assert root.find("testsuite").get("tests") == "1" and root.find("testsuite").get("failures") == "0"  # type: ignore[union-attr]


# --- GitLab Code Quality --------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["record", "hostile", "hostile_log_record"])
def test_gitlab_code_quality(which: str, request: pytest.FixtureRequest) -> None:
    r = request.getfixturevalue(which)
    issues = json.loads(render_gitlab(r))
    assert len(issues) == len(r["findings"])
    for issue in issues:
        assert {"description", "check_name", "fingerprint", "severity", "location"} <= set(issue)
        assert issue["severity"] in {"blocker", "critical", "major", "minor", "info"}
        assert isinstance(issue["location"]["path"], str) and issue["location"]["lines"]["begin"] >= 1
        assert "\n" not in issue["description"] and "\r" not in issue["location"]["path"]


def test_gitlab_points_at_the_users_frame(record: dict[str, Any]) -> None:
    issues = {i["check_name"]: i for i in json.loads(render_gitlab(record))}
    assert issues["pytorch/rnn-backward-in-eval-mode"]["location"] == {
        "path": "grad-cam.py",
        "lines": {"begin": 222},
    }
    assert issues["pytorch/rnn-backward-in-eval-mode"]["severity"] == "critical"


def test_gitlab_fingerprints_unique(record: dict[str, Any]) -> None:
    r = many(record, 30)
    r["findings"] += copy.deepcopy(r["findings"][:5])  # exact duplicates too
    fps = [i["fingerprint"] for i in json.loads(render_gitlab(r))]
    assert len(fps) == 35 and len(set(fps)) == 35
    assert all(re.fullmatch(r"[0-9a-f]{64}", fp) for fp in fps)
    assert fps == [i["fingerprint"] for i in json.loads(render_gitlab(r))]  # stable

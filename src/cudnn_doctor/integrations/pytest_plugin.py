"""pytest plugin (entry point ``pytest11``, name ``cudnn_doctor``; ``-p no:cudnn_doctor`` turns it off).

A failing or erroring test whose exception or captured output holds a known cuDNN RNN error gets a
"cudnn-doctor" section in its failure report, a ``cudnn-doctor`` property in JUnit XML per diagnosis, and a
line in the terminal summary. A passing test costs one attribute check: the knowledge base is imported only
when a test has failed.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

PROPERTY = "cudnn-doctor"
SECTION = "cudnn-doctor"
_DIAGNOSES = pytest.StashKey[list[tuple[str, str, str]]]()  # (nodeid, signature id, title)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_DIAGNOSES] = []


def _failure_text(report: pytest.TestReport, excinfo: pytest.ExceptionInfo[BaseException] | None) -> str:
    """The exception as Python prints it, then the captured output (a test that runs a training script)."""
    from .hook import exception_text

    parts: list[str] = []
    if excinfo is not None:
        parts.append(exception_text(excinfo.value))
    elif report.longreprtext:
        parts.append(report.longreprtext)
    for name, content in report.sections:
        if name.startswith("Captured ") and content:
            parts.append(content)
    return "\n".join(parts)


@pytest.hookimpl(hookwrapper=True)  # the old-style wrapper: pytest 7 as well as 8 and 9
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.failed and call.excinfo is not None and not call.excinfo.errisinstance(pytest.exit.Exception):
        _annotate(item, report, call.excinfo)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    """A test module that cannot even be imported (``import torch`` failing on a missing libcudnn)."""
    outcome = yield
    report: pytest.CollectReport = outcome.get_result()
    if not report.failed:
        return
    from ..render.brief import render_brief
    from .hook import diagnose_record

    try:
        record = diagnose_record(report.longreprtext, source=report.nodeid or "<collection>")
    except Exception:
        return
    if record["findings"]:
        report.sections.append((SECTION, render_brief(record).rstrip("\n")))
        collector.config.stash[_DIAGNOSES].extend((report.nodeid, f["id"], f["title"]) for f in record["findings"])


def _annotate(item: pytest.Item, report: pytest.TestReport, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """Diagnose a failed phase; add the report section, the JUnit property and the summary entry."""
    from ..render.brief import render_brief
    from .hook import diagnose_record

    try:
        record = diagnose_record(_failure_text(report, excinfo), source=item.nodeid)
    except Exception as exc:  # a broken user signature directory must not break the test run
        report.sections.append((SECTION, f"could not diagnose this failure ({type(exc).__name__}: {exc})"))
        return
    if not record["findings"]:
        return
    width = item.config.get_terminal_writer().fullwidth if item.config.pluginmanager.has_plugin("terminalreporter") else 100
    text = render_brief(record, width=max(60, min(width, 120))).rstrip("\n")
    longrepr = report.longrepr
    if hasattr(longrepr, "addsection"):  # printed with the traceback (any --tb style, any --show-capture)
        longrepr.addsection(SECTION, text)  # type: ignore[union-attr]
    else:
        report.sections.append((SECTION, text))
    for f in record["findings"]:
        prop = (PROPERTY, f["id"])
        if prop not in item.user_properties:
            item.user_properties.append(prop)  # the teardown report carries them into JUnit XML
        if prop not in report.user_properties:
            report.user_properties.append(prop)
        item.config.stash[_DIAGNOSES].append((report.nodeid, f["id"], f["title"]))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    seen: dict[tuple[str, str], str] = {}
    for nodeid, sig_id, title in config.stash.get(_DIAGNOSES, []):
        seen.setdefault((nodeid, sig_id), title)
    for reports in (terminalreporter.stats.get("failed", []), terminalreporter.stats.get("error", [])):
        for rep in reports:  # reports from xdist workers carry only the property
            for name, value in getattr(rep, "user_properties", []):
                if name == PROPERTY:
                    seen.setdefault((rep.nodeid, str(value)), "")
    if not seen:
        return
    from ..read.textsafe import terminal_safe as safe

    if not all(seen.values()):  # the titles of diagnoses made in pytest-xdist workers
        try:
            from ..kb.compiled import load_catalog

            catalog = load_catalog()
            seen = {k: v or getattr(catalog.get(k[1]), "title", "") for k, v in seen.items()}
        except Exception:  # ids alone are enough
            pass
    terminalreporter.section("cudnn-doctor", sep="=")
    for (nodeid, sig_id), title in seen.items():
        terminalreporter.line(safe(f"{nodeid}: {sig_id}" + (f" - {title}" if title else "")))
    terminalreporter.line("every workaround, dead end and source: cudnn-doctor show ID")

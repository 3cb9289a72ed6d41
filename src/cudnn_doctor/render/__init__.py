"""Renderers: one module per output format, all fed by the same typed report (records.Report, built once
in report.py). They lay out; what to show was decided in rank.py."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from ..records import Report


class Format(str, Enum):
    terminal = "terminal"
    json = "json"
    github = "github"
    markdown = "markdown"
    sarif = "sarif"
    junit = "junit"
    gitlab = "gitlab"


def render(fmt: Format, record: Report, *, color: bool | None = None, width: int | None = None) -> str:
    """Render a report (report.build_report) in ``fmt``; every Format member has a module."""
    from importlib import import_module

    if fmt is Format.terminal:
        from .terminal import render_terminal

        return render_terminal(record, color=color, width=width)
    module, function = _RENDERERS[fmt]
    renderer: Any = getattr(import_module(f".{module}", __name__), function)
    return renderer(record)  # type: ignore[no-any-return]


# one module per format, imported only when used
_RENDERERS: dict[Format, tuple[str, str]] = {
    Format.json: ("json_format", "render_json"),
    Format.github: ("github", "render_github"),
    Format.markdown: ("markdown", "render_markdown"),
    Format.sarif: ("sarif", "render_sarif"),
    Format.junit: ("junit", "render_junit"),
    Format.gitlab: ("gitlab", "render_gitlab"),
}

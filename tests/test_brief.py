"""The short report under a traceback (pytest, IPython, excepthook): text and HTML, hostile log text."""

from __future__ import annotations

from cudnn_doctor import diagnose
from cudnn_doctor.render.brief import render_brief, render_brief_html
from cudnn_doctor.report import build_report

HOSTILE = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/<img src=x onerror=alert(1)>\\x1b[31m.py", line 3, in <script>\n'
    '    out, h = lstm(x, h0)\n'
    'RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n'
)


def test_html_escapes_everything_that_comes_from_the_log(catalog) -> None:  # type: ignore[no-untyped-def]
    record = build_report(diagnose(HOSTILE, catalog=catalog))
    record["findings"][0]["explanation"] = "<b onmouseover=alert(1)>\x1b]8;;http://evil\x07 h0 is wrong"
    html = render_brief_html(record)
    assert "<img" not in html and "<script" not in html and "<b onmouseover" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;b onmouseover=alert(1)&gt;" in html
    assert "\x1b" not in html and "\x07" not in html
    text = render_brief(record)
    assert "\x1b" not in text and "\x07" not in text
    assert text.startswith("cudnn-doctor: Initial hidden/cell state has the wrong shape for this RNN\n")


def test_nothing_known_renders_nothing_and_warnings_say_so(catalog) -> None:  # type: ignore[no-untyped-def]
    assert render_brief(build_report(diagnose("KeyError: 'x'\n", catalog=catalog))) == ""
    assert render_brief_html(build_report(diagnose("KeyError: 'x'\n", catalog=catalog))) == ""
    log = ("/pytorch/aten/src/ATen/native/cudnn/RNN.cpp:1266: UserWarning: RNN module weights are not part of single "
           "contiguous chunk of memory. This means they need to be compacted at every call, possibly greatly "
           "increasing memory usage. To compact weights again call flatten_parameters().\n")
    text = render_brief(build_report(diagnose(log, catalog=catalog)))
    assert text.startswith("cudnn-doctor: warning: ")


def test_at_most_three_findings_then_their_ids(catalog) -> None:  # type: ignore[no-untyped-def]
    record = build_report(diagnose("RuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n", catalog=catalog))
    f = record["findings"][0]
    record["findings"] = [f, *({**f, "id": f"x/extra-{i}"} for i in range(4))]
    text = render_brief(record)
    assert text.count("cudnn-doctor: Initial hidden") == 3
    assert text.rstrip().endswith("cudnn-doctor: also x/extra-2, x/extra-3")

"""IPython and Jupyter: ``%load_ext cudnn_doctor``.

Loading installs an exception handler (IPython's ``set_custom_exc``): an exception in a cell shows the usual
traceback, then the diagnosis: HTML in a notebook, text in a terminal IPython (the front end picks from the
displayed object's representations). A custom handler set before ours still handles its exceptions; unloading
puts it back. ``%cudnn_doctor`` diagnoses the last exception, ``%cudnn_doctor TEXT`` a one-line message and
``%%cudnn_doctor`` the text of its cell (a pasted log).
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..records import Report

MAGIC = "cudnn_doctor"
_saved: dict[int, tuple[tuple[type[BaseException], ...], Any]] = {}  # shell id -> its handler before ours


class DiagnosisView:
    """A diagnosis as IPython displays it: ``_repr_html_`` in a notebook, plain text in a terminal."""

    def __init__(self, record: Report) -> None:
        self.record = record

    def _text(self) -> str:
        from ..render.brief import render_brief

        return render_brief(self.record) or f"cudnn-doctor: {self.record['summary']}\n"

    def _repr_html_(self) -> str:
        import html

        from ..render.brief import render_brief_html

        return render_brief_html(self.record) or (
            f"<div class='cudnn-doctor'>cudnn-doctor: {html.escape(self.record['summary'])}</div>"
        )

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(self._text().rstrip("\n"))

    def __repr__(self) -> str:
        return self._text().rstrip("\n")


def _cell_names(text: str) -> str:
    """A cell's file name as IPython shows it, ``Cell In[3]``: ipykernel's ``/tmp/ipykernel_123/4567.py`` (from
    the shell's own map) and older IPython's ``<ipython-input-3-ab12...>``."""
    import re

    try:
        from IPython import get_ipython

        shell = get_ipython()
        names = dict(getattr(getattr(shell, "compile", None), "_filename_map", None) or {})
    except Exception:  # the map is IPython's; without it the file names stay as they are
        names = {}
    for name, number in names.items():
        if isinstance(name, str) and isinstance(number, int) and name in text:
            text = text.replace(name, f"Cell In[{number}]")
    return re.sub(r"<ipython-input-(\d+)-[0-9a-f]+>", r"Cell In[\1]", text)


def _show(text: str, source: str, *, quiet: bool) -> None:
    """Diagnose ``text`` and display the result (``quiet``: nothing when no finding, as under a traceback)."""
    from IPython.display import display

    from .hook import diagnose_record

    record = diagnose_record(_cell_names(text), source)
    if record["findings"] or not quiet:
        display(DiagnosisView(record))


def _handler(shell: Any, etype: type[BaseException], value: BaseException, tb: TracebackType | None,
             tb_offset: int | None = None) -> list[str]:
    """The usual traceback, then the diagnosis. Returns no structured traceback: it is already shown."""
    from .hook import exception_text

    before = _saved.get(id(shell))
    if before and before[0] and issubclass(etype, before[0]):  # a handler that was there first keeps its exceptions
        before[1](etype, value, tb, tb_offset)
    elif issubclass(etype, SyntaxError) and not _running():  # the cell did not compile: IPython's own display
        if issubclass(etype, IndentationError):
            shell.showindentationerror()
        else:
            shell.showsyntaxerror()
        return []
    else:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    if isinstance(value, KeyboardInterrupt):
        return []
    try:
        _show(exception_text(value.with_traceback(tb)), "<cell>", quiet=True)
    except Exception as exc:  # never let IPython unregister the handler over a diagnosis problem
        print(f"cudnn-doctor: could not diagnose this error ({type(exc).__name__}: {exc})", file=sys.stderr)
    return []


def _running() -> bool:
    """True when the handler is called for an exception raised by running the cell (IPython's run_code), False
    when the cell failed to compile."""
    frame = sys._getframe(2)
    for _ in range(8):
        if frame is None:
            break
        if frame.f_code.co_name == "run_code":
            return True
        frame = frame.f_back
    return False


def _magic(line: str, cell: str | None = None) -> None:
    """%cudnn_doctor: the last exception; %cudnn_doctor TEXT: that text; %%cudnn_doctor: the cell's text."""
    if cell is not None:
        _show(cell if not line.strip() else line + "\n" + cell, "<cell>", quiet=False)
        return
    if line.strip():
        _show(line, "<line>", quiet=False)
        return
    from .hook import exception_text

    value = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    if value is None:
        print("cudnn-doctor: no exception to diagnose yet (run the failing cell, or paste a log into a "
              "%%cudnn_doctor cell)")
        return
    _show(exception_text(value), "<last exception>", quiet=False)


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext cudnn_doctor``: the exception handler and the ``%cudnn_doctor`` magics."""
    if id(shell) not in _saved:
        _saved[id(shell)] = (tuple(shell.custom_exceptions), shell.CustomTB)
    shell.set_custom_exc((Exception,), _handler)
    shell.register_magic_function(_magic, magic_kind="line_cell", magic_name=MAGIC)


def unload_ipython_extension(shell: Any) -> None:
    """``%unload_ext cudnn_doctor``: the previous exception handler back (the magic stays, as IPython does)."""
    before = _saved.pop(id(shell), None)
    if before is not None:
        shell.custom_exceptions, shell.CustomTB = before

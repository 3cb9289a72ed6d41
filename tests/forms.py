"""The forms a user carries a message in (issue 27), applied to an example's message in place: the rest of the
example (its traceback, its evidence lines) stays as it is.

Each form takes (clean text, message start, message end) and gives the text in that form, or None where the
form does not apply (no prefix to drop, a one-word message to split).
"""

from __future__ import annotations

import re
from collections.abc import Callable

Form = Callable[[str, int, int], "str | None"]

_PREFIX = re.compile(r"^(?:[A-Za-z_.]*(?:Error|Exception)|UNKNOWN|INTERNAL|Check failed)\s*:\s*")
_SUFFIX = re.compile(r"\s*(?:\[Op:[^\]]*\]|\{\{node [^}]*\}\})\s*$")


def _line(text: str, start: int, end: int) -> tuple[str, str, str]:
    """(before, message, after) with the message on one line (its line breaks as spaces)."""
    return text[:start], " ".join(text[start:end].split()), text[end:]


def title(text: str, start: int, end: int) -> str:
    """An issue title: '# ' and prose around the message, on a line of its own."""
    before, msg, after = _line(text, start, end)
    return f"{before}\n# LSTM training on Colab: {msg} after upgrading, any idea?\n{after}"


def lower(text: str, start: int, end: int) -> str:
    return text[:start] + text[start:end].lower() + text[end:]


def upper(text: str, start: int, end: int) -> str:
    return text[:start] + text[start:end].upper() + text[end:]


def bare(text: str, start: int, end: int) -> str | None:
    """The message without its fixed prefix (RuntimeError:, InternalError:, UNKNOWN:) and suffix ([Op:...],
    {{node ...}})."""
    before, msg, after = _line(text, start, end)
    got = _SUFFIX.sub("", _PREFIX.sub("", msg))
    return None if got == msg or len(got) < 8 else before + got + after


def split(text: str, start: int, end: int) -> str | None:
    """The message's second half on the next line."""
    before, msg, after = _line(text, start, end)
    spaces = [m.start() for m in re.finditer(" ", msg)]
    if not spaces:
        return None
    mid = spaces[len(spaces) // 2]
    return before + msg[:mid] + "\n" + msg[mid + 1 :] + after


FORMS: dict[str, Form] = {"title": title, "lower": lower, "upper": upper, "bare": bare, "split": split}


def cuts(text: str, start: int, end: int, shortest: int) -> list[str]:
    """The text cut at every word boundary of the message from ``shortest`` characters on (the input ends
    there)."""
    msg = text[start:end]
    return [text[: start + m.end()] for m in re.finditer(r"\w+", msg) if shortest <= m.end() < len(msg)]


def emptied(text: str, start: int, end: int) -> str | None:
    """A traceback whose message line is emptied: the line of the message ends after its exception name."""
    line_start = text.rfind("\n", 0, start) + 1
    head = re.match(r"\s*[\w.]*(?:Error|Exception):", text[line_start:end])
    if head is None:
        return None
    line_end = text.find("\n", end)
    return text[: line_start + head.end()] + (text[line_end:] if line_end >= 0 else "")

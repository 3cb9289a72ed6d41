"""The forms a user carries a message in (issue 27), applied to an example's message in place: the rest of the
example (its traceback, its evidence lines) stays as it is.

The message is what the signature's regex matched on the lines that carry it (not the traceback frames a
cause's regex also spans: templates.message_span), with the fixed prefix it is printed with on its line
(``RuntimeError: cuDNN error: ``). Each form takes (clean text, message start, message end) and gives the text
in that form, or None where the form does not apply (no prefix to drop, a one-word message to split).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cudnn_doctor.kb.templates import HEAD, message_span, words
from cudnn_doctor.model import raise_site

Form = Callable[[str, int, int], "str | None"]

_SUFFIX = re.compile(r"\s*(?:\[Op:[^\]]*\]|\{\{node [^}]*\}\}|\[\[\{\{node [^}]*\}\}\]\])\s*$")
_EXCEPTION_LINE = re.compile(r"\s*(?:[\w.]*(?:Error|Exception)):")
_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+, in (\w+)', re.M)


def message(pattern: object, clean: str, literals: tuple[str, ...]) -> tuple[int, int] | None:
    """(start, end) of the example's message: its span, from its line's start where only a fixed prefix
    comes before it there."""
    span = message_span(pattern, clean, literals)
    if span is None:
        return None
    start, end = span
    line_start = clean.rfind("\n", 0, start) + 1
    head = HEAD.match(clean, line_start)
    if head is not None and head.end() >= start:
        start = line_start
    return start, end


def _line(text: str, start: int, end: int) -> tuple[str, str, str]:
    """(before, message, after) with the message on one line (its line breaks as spaces)."""
    return text[:start], " ".join(text[start:end].split()), text[end:]


def title(text: str, start: int, end: int) -> str:
    """An issue title: '# ' and prose around the message, on a line of its own."""
    before, msg, after = _line(text, start, end)
    return f"{before}\n# Training crashes on Colab: {msg} after upgrading, any idea?\n{after}"


def lower(text: str, start: int, end: int) -> str:
    return text[:start] + text[start:end].lower() + text[end:]


def upper(text: str, start: int, end: int) -> str:
    return text[:start] + text[start:end].upper() + text[end:]


def capitalized(text: str, start: int, end: int) -> str:
    """Another capitalisation: each word with a capital first letter, the rest lower case."""
    return text[:start] + re.sub(r"[A-Za-z]+", lambda m: m.group(0).capitalize(), text[start:end]) + text[end:]


def bare(text: str, start: int, end: int) -> str | None:
    """The message without its fixed prefix (RuntimeError:, InternalError:, UNKNOWN:) and suffix ([Op:...],
    {{node ...}})."""
    before, msg, after = _line(text, start, end)
    head = HEAD.match(msg)
    got = _SUFFIX.sub("", msg[head.end() :] if head else msg)
    return None if got == msg or len(got) < 8 else before + got + after


def split(text: str, start: int, end: int) -> str | None:
    """The message's second half on the next line."""
    before, msg, after = _line(text, start, end)
    spaces = [m.start() for m in re.finditer(" ", msg)]
    if not spaces:
        return None
    mid = spaces[len(spaces) // 2]
    return before + msg[:mid] + "\n" + msg[mid + 1 :] + after


def wrapped(text: str, start: int, end: int, width: int = 80) -> str | None:
    """The message's line hard-wrapped by a terminal at ``width`` columns, in the middle of a word of the message
    (None where the line is shorter or the column falls between words or outside the message)."""
    before, msg, after = _line(text, start, end)
    head = before.rfind("\n") + 1
    line = before[head:] + msg
    cut = width - (len(before) - head)
    if len(line) <= width or not 0 < cut < len(msg) or not (msg[cut - 1].isalnum() and msg[cut].isalnum()):
        return None
    return before + msg[:cut] + "\n" + msg[cut:] + after


QUOTE_MARK = re.compile(r"(?<![A-Za-z])[`'\"]|[`'\"](?![A-Za-z])")  # a quote mark, not an apostrophe inside a word


def unquoted(text: str, start: int, end: int) -> str | None:
    """The message with its quote marks dropped, as a title or a message typed from memory carries it ('LSTM
    object has no attribute _flat_weights_names'); an apostrophe inside a word ("aren't") stays."""
    msg = QUOTE_MARK.sub("", text[start:end])
    return None if msg == text[start:end] else text[:start] + msg + text[end:]


COLON = re.compile(r"(?<=\w):(?= )")  # a colon of the message's prose ('RuntimeError: cuDNN error: '), not 'cuda:0'


def colon_spaced(text: str, start: int, end: int) -> str | None:
    """A space before each colon of the message ('InternalError : Failed to call ThenRnnForward'): a title,
    French typography."""
    msg = COLON.sub(" :", text[start:end])
    return None if msg == text[start:end] else text[:start] + msg + text[end:]


def colon_glued(text: str, start: int, end: int) -> str | None:
    """No space after a colon of the message ('RuntimeError:cuDNN error:CUDNN_STATUS_EXECUTION_FAILED'): typed."""
    msg = re.sub(r"(?<=\w): ", ":", text[start:end])
    return None if msg == text[start:end] else text[:start] + msg + text[end:]


FORMS: dict[str, Form] = {"title": title, "lower": lower, "upper": upper, "capitalized": capitalized, "bare": bare, "split": split, "wrapped": wrapped, "unquoted": unquoted, "colon spaced": colon_spaced, "colon glued": colon_glued}


def cuts(text: str, start: int, end: int, shortest: int) -> list[str]:
    """The text cut at every word boundary of the message from ``shortest`` characters on (the input ends
    there)."""
    msg = text[start:end]
    return [text[: start + m.end()] for m in re.finditer(r"\w+", msg) if shortest <= m.end() < len(msg)]


def emptied(text: str, start: int, end: int, raised_at: tuple[str, ...]) -> str | None:
    """A traceback whose message line is emptied: the line of the message ends after its exception name, where
    the traceback's innermost frame is one of the places the signature raises it (``raised_at``)."""
    line_start = text.rfind("\n", 0, start) + 1
    head = _EXCEPTION_LINE.match(text, line_start)
    frames = list(_FRAME.finditer(text, 0, line_start))
    if head is None or head.end() > end or not frames:
        return None
    path, function = frames[-1].group(1).replace("\\", "/"), frames[-1].group(2)
    if not any(path.endswith(p) and function == f for p, f, _e in map(raise_site, raised_at)):
        return None
    line_end = text.find("\n", end)
    return text[: head.end()] + (text[line_end:] if line_end >= 0 else "")


def heads(text: str, start: int, end: int, enough: Callable[[list[str]], bool]) -> list[str]:
    """The text with the message's head cut (a wrapped terminal's first line lost, an excerpt starting
    mid-message): its fixed prefix and its first k words gone, for every k from 1 on while the words left
    (``enough``: the matcher's measure of what tells a message apart) are still distinctive; what comes
    before the message (a log line's location) and after it stays."""
    head = HEAD.match(text, start, end)
    body = head.end() if head else start
    got = [(w, a) for w, a, _b in words(text[body:end])]
    out = []
    for k in range(1, len(got)):
        if not enough([w for w, _a in got[k:]]):
            break
        out.append(text[:start] + text[body + got[k][1] :])
    return out


# a message typed from memory (issue 27): its articles dropped, a plural made singular (a lower-case word of prose,
# not a name in code: 'tensors', not 'weights_ih' or 'x.sizes')
_ARTICLE = re.compile(r"(?<![\w.'\"/-])(?:the|a|an)[ \t]+(?=[A-Za-z])", re.I)
_PLURAL = re.compile(r"(?<![\w.'\"/-])([a-z]{3,}[^siu\W_])s(?![\w.(\[/'\"-])")
_NOT_PLURAL = frozenset({"always", "towards", "perhaps", "whereas", "sometimes", "besides", "does", "this", "thus"})


def retyped(text: str, start: int, end: int) -> str | None:
    """The message as a user types it from memory: without its articles ('the', 'a', 'an'), its first plural
    made singular ('hidden tensor are not at same device'); None where it has neither."""
    msg = _ARTICLE.sub("", text[start:end])
    plural = next((m for m in _PLURAL.finditer(msg) if m.group(0) not in _NOT_PLURAL), None)
    if plural is not None:
        msg = msg[: plural.start()] + plural.group(1) + msg[plural.end() :]
    return None if msg == text[start:end] else text[:start] + msg + text[end:]

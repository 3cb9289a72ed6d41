"""Undo how a log was presented before it is matched: quoted, fenced, HTML-escaped, stored in a notebook,
hard-wrapped, numbered by a paste tool. Line numbers keep pointing into the original input.

This is the first half of the normalize step (normalize.py is the second: per line, CI prefixes and escape
sequences). One table, ``PRESENTATIONS``, names each presentation with how it is seen on a block's raw bytes
(a search, a look at the first lines) and how it is undone on the block's lines. It works per block
(read/sources.py) and costs nothing unless a block shows a presentation; only then is the block decoded and
rewritten (``present``). A rewritten block comes with an origin map: for each of its
lines, the index of the original line it starts on, so a match on a line joined from five wrapped pieces is
reported at the first piece, and a line expanded from a notebook's JSON string at the JSON line.

Undone here:

* Markdown: blockquotes (``> ``, nested, ``> >``, ``>> ``), code fences (the fence lines become blank), an
  indented code block (four spaces or a tab before every line), list bullets;
* a console's rectangular copy: lines padded with spaces to the window's width;
* HTML: entities (``&#39;``, ``&quot;``, ``&lt;``; stdlib ``html.unescape``), tags (``<br>`` ends a line,
  other tags are dropped);
* notebooks: a pasted ``"traceback": [...]`` list, an output's JSON or a whole notebook: each JSON string line
  is decoded (its ``\\n`` become lines, its ``\\u001b[...m`` escapes are removed by normalize.py);
* JSON-lines logging (Docker's json-file log, a JSON log formatter, a cloud console's export): each record's
  text fields (``"log"``, ``"message"``, ``"exc_info"``, ...) become its lines;
* task labels on most lines (``srun -l``'s ``0: ``): read as the launcher prefix they are;
* a log copied off a web page (pages.py, paste only): a GitHub issue whose Markdown was rendered (indentation,
  ``<module>`` and dunders restored in a traceback), a page that lost the line breaks (a collapsed traceback
  or log broken where its lines begin);
* Markdown's backslash escapes a rich-text editor adds (reddit's: ``CUDNN\\_STATUS``, ``\\<module\\>``; paste only);
* a workflow command a tool printed for GitHub Actions (``::error file=..::`` and a log whose line breaks are
  ``%0A``): its lines;
* an exception panel (VS Code's ``Exception has occurred: RuntimeError``, an error tracker's event title): the
  name line and the message line under it joined (paste only);
* a chat's code spans and code blocks glued to the log's lines, a PowerShell error record around a native
  command's first stderr line, an error tracker's event (its frames most recent first, after its exception
  line), an issue's title holding the message its body's traceback was cut before, a terminal's wrap re-joined
  with its padding: pastes.py;
* paste-tool gutters (``  12 | code``, ``12: code``: consecutive numbers on most lines), a literal ``^M``,
  non-breaking and thin spaces, smart quotes (``‘x’`` -> ``'x'``), an East Asian input method's full-width
  forms (``：``, ``（）``, U+3000) with the spaces its prose leaves out (``报错RuntimeError：cuDNN``), its prose a
  line apart where it runs into a traceback's head or an exception line;
* hard wraps at a width of 40-200 columns, mid-word or at spaces, including pieces that each carry a CI
  prefix (a timestamp, ``[rank0]:``): see ``unwrap``. Only in a paste: a big log's lines of equal length
  (``pytest -v``, Keras summaries, fixed-format step lines) or alternating lengths (logging lines between
  tqdm bars) are records, never pieces of one line;
* a mail client's re-flow of a quoted reply (below its ``On ... wrote:`` line): lines folded at their last space
  before the width, a word longer than the width left whole (``_fold_width``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from ..kb.patterns import LazyRe
from .jsonlines import decoded_lines
from .normalize import line_prefix, normalize_line
from .pages import collapsed, collapsed_seen, rendered, rendered_seen
from .pastes import PAD_MARK, chat, event, event_seen, padded_wrap, powershell, titled, titled_seen

if TYPE_CHECKING:
    from typing import Any

MIN_WIDTH, MAX_WIDTH = 40, 200
SAMPLE_BYTES = 64 << 10  # the head of a block whose line lengths are looked at for a wrap width
DETECT_WHOLE = 256 << 10  # a block up to this size (a paste) is searched whole for presentations
DETECT_SAMPLE = 32 << 10  # else its head
HEAD_CHARS = 2 * DETECT_SAMPLE  # the characters of an undone block its next presentations are looked for in (Text.head)

# what each presentation leaves in a block's raw bytes (each pattern starts with a literal the `re` engine
# skips to)
_NOTEBOOK_MARK = re.compile(rb'\\u001[bB]|\\n",?\s*$|"(?:traceback|output_type|ename|evalue)":', re.MULTILINE)
_HTML_MARK = re.compile(
    rb"&(?:#[0-9]{2,6}|#[xX][0-9a-fA-F]{2,5}|quot|lt|gt|amp|apos|nbsp);"
    rb"|<(?:br|/?(?:p|div|span|code|pre|tt|b|i|em|strong|a|li|ul|ol|blockquote|details|summary))\b[^>\n]{0,200}>"
)
_CHARACTERS_MARK = re.compile(rb"\xc2\xa0|\xe2\x80[\x98\x99\x9c\x9d\xaf\x89\x8b]")
# a full-width form (U+FF01-FF5E: \xef\xbc\x81-\xef\xbd\x9e), an ideographic space, or a CJK character (kana,
# hanzi, hangul: \xe3\x81-\xed\x9e) glued to a letter or digit
_CJK_LEAD = re.compile(rb"[\xe3-\xed]")
_WIDE_MARK = re.compile(
    rb"\xef(?:\xbc[\x81-\xbf]|\xbd[\x80-\x9e])|\xe3\x80\x80|[\xe3-\xed][\x80-\xbf]{2}[A-Za-z0-9_]|[A-Za-z0-9_.)\]'\"][\xe3-\xed][\x80-\xbf]{2}"
)
_CARETS_MARK = re.compile(rb"\^M")
_QUOTE_MARK = re.compile(rb"\n {0,2}>")
# Markdown's backslash escapes a rich-text editor adds (reddit's, a chat's: 'CUDNN\_STATUS\_BAD\_PARAM', '\<module\>',
# '\[1\]'); an underscore's only after a letter or digit (a Windows path's '\_work' is a path's)
_ESCAPABLE = r"[*`\[\]<>#~|^]"  # what Markdown escapes besides '_'
_ESCAPE_MARK = re.compile(rb"\\(?:" + _ESCAPABLE.encode() + rb"|(?<=[A-Za-z0-9]\\)_)")
# a workflow command a tool prints for GitHub Actions (pytest's annotations, a linter's), its text on one line:
# '::error file=train.py,line=42::RuntimeError: ...%0ATraceback ...' (%0A a line break, %25 a percent sign)
_COMMAND_MARK = re.compile(rb"\n::(?:error|warning|notice|debug)[ :]")  # (a literal first: memchr speed)
_COMMAND_STARTS = (b"::error", b"::warning", b"::notice", b"::debug")
# an editor's or an error tracker's exception panel: the exception's name on a line of its own, its message on
# the next (VS Code's 'Exception has occurred: RuntimeError', Sentry's event title)
_PANEL_MARK = re.compile(rb"Exception has occurred: |(?:^|\n)(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)\r?\n(?=[A-Za-z])")
_BULLET_MARK = re.compile(rb"\n[-*+] ")
# a chat's code span or block: a backtick (pastes.py tells a span or a glued fence); a PowerShell error record's
# position line ('At line:1 char:1', after the record's first line)
_CHAT_MARK = re.compile(rb"`")
_RECORD_MARK = re.compile(rb"\nAt (?:line:\d+|[^\n]{1,300}:\d+) char:\d+")


def _json_module() -> Any:
    import json  # here: only a notebook's JSON presentation needs it

    return json


def _html_module() -> Any:
    import html  # here: only an HTML presentation needs it

    return html


_QUOTE = LazyRe(r"^[ \t]{0,3}(?:>[ \t]?)+")
_FENCE_SOURCE = r"^[ \t]{0,3}(?:`{3,}|~{3,})[\w+-]*[ \t]*$"
_FENCE = LazyRe(_FENCE_SOURCE)
_BULLET_SOURCE = r"^[ \t]{0,3}(?:[-*+]|\d{1,3}[.)])[ \t]+(?=\S)"
_BULLET = LazyRe(_BULLET_SOURCE)
_GUTTER_SOURCE = r"^[ \t]*(\d{1,6})(?:[ \t]*[|│:][ \t]?|\t|\.[ \t]| {1,2}(?=\S))"
_GUTTER = re.compile(_GUTTER_SOURCE)
_LABEL = LazyRe(r"^(\d{1,5}): ")
_LABEL_BYTES = re.compile(rb"(\d{1,5}): ")


class _AnyLine:
    """A per-line pattern (``^...``) looked for in a block's whole text, at the start of any of its lines: on
    the first line, and after every newline (a literal the ``re`` engine skips to, ~10x faster than a
    MULTILINE ``^``, which is tried at every character)."""

    __slots__ = ("after", "first")

    def __init__(self, source: str) -> None:
        self.first = LazyRe(source, re.MULTILINE)
        self.after = LazyRe("\n" + source[1:], re.MULTILINE)

    def found(self, text: str) -> bool:
        return self.first.match(text) is not None or self.after.search(text) is not None

    def count(self, text: str) -> int:
        return (self.first.match(text) is not None) + len(self.after.findall(text))


# each looked for in a block's whole text before line by line (a quote mark: '>' at the start of a line)
_QUOTE_ANY = _AnyLine(r"^[ \t]{0,3}>")
_FENCE_ANY = _AnyLine(_FENCE_SOURCE)
_BULLET_ANY = _AnyLine(_BULLET_SOURCE)
_GUTTER_ANY = _AnyLine(_GUTTER_SOURCE)
_TAG = LazyRe(r"<(?:/?(?:p|div|span|code|pre|tt|b|i|em|strong|a|li|ul|ol|blockquote|details|summary|kbd|samp)\b[^>\n]{0,200}|br\s*/?)>", re.IGNORECASE)
_BR = LazyRe(r"<br\s*/?>", re.IGNORECASE)
# a JSON string as the loop unrolled (runs of plain characters between escapes): the same strings as
# ``"(?:[^"\\]|\\.)*"``, one alternation per character, at a fifth of the cost
_JSON_STRING_LINE = LazyRe(r'^\s*(?:"[\w-]+"\s*:\s*\[?\s*)?("[^"\\]*(?:\\.[^"\\]*)*")\s*[,\]}]*\s*$')
_JSON_STRUCTURE = LazyRe(
    r'^\s*(?:[\[\]{},]+|"[\w-]+"\s*:\s*(?:[\[{]|\d+|null|true|false|\{\}|\[\]|"(?:code|markdown|raw|error|stream|stdout|stderr|'
    r'execute_result|display_data|[0-9a-f-]{8,36})")?\s*,?)\s*$'
)
# a line that is one JSON string and nothing else (_JSON_STRING_LINE without a key)
_JSON_PURE_STRING = LazyRe(r'^\s*("[^"\\]*(?:\\.[^"\\]*)*")\s*[,\]}]*\s*$')
_ESCAPED_PUNCTUATION = LazyRe(rf"\\({_ESCAPABLE})")
_ESCAPED = LazyRe(rf"\\({_ESCAPABLE})|(?<!\b[A-Za-z]:)(?<!\\)\\(_)")  # not a drive's root: 'C:\_work'
_COMMAND = LazyRe(r"^::(?:error|warning|notice|debug)(?: [^:]*)?::")
_FRAME = LazyRe(r'^\s+File "')
_PANEL_NAME = LazyRe(r"^(?:Exception has occurred: )?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception))\s*$")
_SUMMARY_KEY = LazyRe(r'^\s*"(?:ename|evalue)"\s*:\s*"')
# typographic characters, and the full-width forms of ASCII an East Asian input method types ('：', '（',
# 'ｃｕＤＮＮ', U+FF01-FF5E) with its ideographic space (U+3000)
_SMART = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u200b": "",
    "\u3000": " ", **{chr(0xFF01 + i): chr(0x21 + i) for i in range(94)},
})
_SMART_CHARS = LazyRe("[\u2018\u2019\u201c\u201d\u00a0\u202f\u2009\u200b\u3000\uff01-\uff5e]")  # looked for first: translate goes at ~100 ns a character
# a full-width colon, comma or semicolon is typed without the space after it that the ASCII one takes; and
# East Asian prose is written without spaces, so a message is glued to the words around it ('报错RuntimeError:')
# (a colon had none before a digit: a device, a time, a file's line, 'cuda:0', '[11:02:14]', 'rnn-inl.h:674'; nor
# before a C++ scope's second colon, 'aten::lstm'; a comma none before a closing bracket)
_CLOSING = ")\\]}\uff09\uff3d"
_WIDE_SEPARATOR = LazyRe(
    f"(?<![:\uff1a]\uff1a)(?<=\uff1a)(?=[^\\s\\d\uff1a\uff0c\uff1b{_CLOSING}])|(?<=[\uff0c\uff1b])(?=[^\\s\uff1a\uff0c\uff1b{_CLOSING}])"
)
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_CJK_GLUED = LazyRe(f"(?<=[{_CJK}])(?=[A-Za-z0-9_])|(?<=[A-Za-z0-9_.)\\]'\"])(?=[{_CJK}])")
# East Asian prose (ending in a CJK character, then a colon or the space _typed put there) before a traceback's
# head or an exception line
_CJK_BEFORE_START = LazyRe(
    f"^(.*?[{_CJK}])[:,]? ?(?=Traceback \\(most recent call last\\):|(?:[A-Za-z_][\\w.]*\\.)?[A-Z]\\w*(?:Error|Exception|Warning)(?::|$))"
)
# a piece that starts a line of its own: never glued to the one before
_LINE_START = LazyRe(
    r"^(?:Traceback \(|During handling|The above exception|\s*File \"|\s*at |\s*\^|[-=_#*~]{4,}|(?:[A-Za-z_]\w*\.)*\w+(?:Error|Exception|Warning)\b:?"
    r"|>+ |[EWIFD]\d{4} |\d{4}-\d{2}-\d{2}|\[[\w ,.:-]*\]:?\s|\[\[|\(pid=|\(\w+ pid=|[A-Z]+:|\$ |>>> |\.\.\. |In \[\d+\]|Cell In"
    r"|\s*-+>|\s+\d+\s)"
)


@dataclass(frozen=True, slots=True)
class Presented:
    """A block rewritten: its lines and, for each, the index (in the original block) of its first line."""

    data: bytes
    origin: tuple[int, ...]
    undone: tuple[str, ...]  # what was undone, e.g. ('quote', 'wrap 80')

    @property
    def lines(self) -> int:
        return len(self.origin)


def _has_at(data: bytes, mark: bytes) -> bool:
    """``mark in data``, by its first byte (a rare one, found by memchr): Python's search for a short mark goes
    at ~1.5 GB/s, ~20 us per sample."""
    first = mark[:1]
    pos = data.find(first)
    while pos >= 0:
        if data.startswith(mark, pos):
            return True
        pos = data.find(first, pos + 1)
    return False


def _wrapped_sample(sample: bytes, literals: Collection[str]) -> bool:
    """A wrap, judged on a paste's first lines: the longest must be 40-200 columns (a cheap test first)."""
    lines = sample[:SAMPLE_BYTES].split(b"\n", 200)[:200]
    longest = max(map(len, lines))
    # byte lengths: no line of 40 columns, or one longer than any wrap width plus a CI prefix, rules it out
    if len(lines) < 2 or longest < MIN_WIDTH or longest > MAX_WIDTH + 48:
        return False
    return wrap_width([x.decode("utf-8", "replace") for x in lines], literals) is not None


def present(data: bytes, literals: Collection[str] = (), paste: bool = True, lines: int | None = None,
            skim: Callable[[bytes, int], bytes | None] | None = None) -> Presented | None:
    """The block with its presentations undone (PRESENTATIONS, in order), or None when there is nothing to
    undo. ``literals``: the knowledge base's literals (lower case), the dictionary that tells a cut word from
    two words. ``paste``: the block is (the start of) an input of paste size; only a paste is taken to be
    hard-wrapped (a big log's lines of equal length are records, not the pieces of one line). ``lines``: the
    block's line count where the reader counted it (counted here otherwise).

    Cheap unless a presentation is seen: a paste is looked at whole, a big log's block by its head, its first
    32 KiB (a log is quoted or escaped from end to end, and searching every byte of a GB log for a dozen
    markers would cost a third of the scan). In a paste, once one is seen, every presentation's undo looks at
    it (one may show only after another is undone: a notebook's JSON strings hold quoted or wrapped lines);
    in a big block, each presentation seen in its head as it is when its turn comes (a notebook's decoded
    strings). Each undo looks first at the block's whole text, a look at C speed that tells most blocks there
    is nothing to undo; the text is split into lines only for an undo that has something to do (``Text``).

    ``skim`` (read/skim.py; never for a paste, whose every line the tolerant reading reads): a big block of a
    notebook's JSON string lines decoded only where the scan reads it, or None; a block that another
    presentation is then seen in is decoded whole."""
    table = [p for p in PRESENTATIONS if paste or not p.paste_only]
    whole = len(data) <= DETECT_WHOLE
    head = data if whole else _head(data)
    if not any(p.seen(head, literals) for p in table):
        return None
    # A CRLF line end is a line end: left on a piece that gets joined to the next, the '\r' would read as a
    # progress-bar overwrite and erase what came before it.
    if b"\r" in data:
        text = data.decode("utf-8", "replace").replace("\r\n", "\n")
        block = Text(text[:-1] if text.endswith("\r") else text, count=lines)
    else:
        block = Text(None, count=lines, raw=data)  # decoded when an undo asks for its text
    got = _undone(block, table, whole, head, literals, skim)
    if got is _AGAIN:  # a skimmed notebook block another presentation is seen in: every line of it is read
        return present(data, literals, paste, lines)
    return got  # type: ignore[return-value]


_AGAIN = object()


def _undone(block: Text, table: list[Presentation], whole: bool, head: bytes, literals: Collection[str],
            skim: Callable[[bytes, int], bytes | None] | None) -> Presented | object | None:
    """present()'s undos, in order (each looked for in the block's head as it is when its turn comes, but in a
    whole block); _AGAIN where a block skimmed meets another presentation."""
    undone: list[str] = []
    for p in table:
        if not whole and not p.seen(head, literals):
            continue
        if undone == ["skim"]:
            return _AGAIN
        got = _skimmed(block, skim) if skim is not None and p is _NOTEBOOK else None
        got = got or p.undo(block, literals)
        if got is not None:
            block, what = got
            undone.append(what)
            head = head if whole else _head(block.head())
    if not undone:
        return None
    return Presented(block.data(), block.origins(), ("notebook",) if undone == ["skim"] else tuple(undone))


def _skimmed(block: Text, skim: Callable[[bytes, int], bytes | None]) -> tuple[Text, str] | None:
    """A notebook block skimmed (``skim``: read/skim.py), undone as "skim" (it is "notebook" once nothing else is)."""
    got = skim(block.raw, block.count()) if block.raw is not None else None
    return None if got is None else (Text(None, block.origin, block.count(), raw=got), "skim")


def _head(data: bytes) -> bytes:
    """A big block's head, where its presentations are looked for: its first 32 KiB and the rest of that line."""
    return data[: data.find(b"\n", DETECT_SAMPLE) + 1 or DETECT_SAMPLE]


Lines = list[tuple[str, int]]


class Text:
    """A block as the undos see it: its text and, per line, the original line it starts on (None: each line is
    its own). Its lines, (text, original line) pairs, are made when an undo asks for them, once. A block may
    come as its UTF-8 bytes (``raw``: the input, a notebook's strings decoded by jsonlines.py): decoded when an
    undo asks for its text, and given back as they are when none did."""

    __slots__ = ("_count", "_lines", "_text", "origin", "raw")

    def __init__(self, text: str | None, origin: list[int] | None = None, count: int | None = None, raw: bytes | None = None) -> None:
        self._text = text
        self.raw = raw  # the bytes the text is decoded from (None: a text made by an undo)
        self.origin = origin
        self._lines: Lines | None = None
        self._count = count  # its lines, where known (a count of a MiB block's newlines costs ~0.4 ms)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = (self.raw or b"").decode("utf-8", "replace")
        return self._text

    def data(self) -> bytes:
        """The block's UTF-8 bytes (its lone surrogates, from a notebook's JSON escapes, as they are)."""
        return self.raw if self.raw is not None and self._text is None else self.text.encode("utf-8", "surrogatepass")

    def head(self) -> bytes:
        """The bytes of the block's first HEAD_CHARS characters, where its presentations are looked for."""
        if self.raw is None or self._text is not None:
            return self.text[:HEAD_CHARS].encode("utf-8", "surrogatepass")
        # 4 bytes a character at most: the prefix holds those characters whole (a cut one comes after them)
        prefix = self.raw[: 8 * DETECT_SAMPLE + 4].decode("utf-8", "replace")
        return prefix[:HEAD_CHARS].encode("utf-8", "surrogatepass")

    @classmethod
    def of(cls, lines: Lines) -> Text:
        got = cls("\n".join([t for t, _ in lines]), [o for _, o in lines])
        got._lines = lines
        return got

    def lines(self) -> Lines:
        if self._lines is None:
            texts = self.text.split("\n")
            self._lines = list(zip(texts, range(len(texts)) if self.origin is None else self.origin, strict=True))
        return self._lines

    def count(self) -> int:
        if self._count is None:
            self._count = self.text.count("\n") + 1
        return self._count

    def origins(self) -> tuple[int, ...]:
        return tuple(range(self.count())) if self.origin is None else tuple(self.origin)


_NOTEBOOK_TEXT = ("\\u001b", "\\n", '"traceback"', '"evalue"')  # a notebook's JSON holds one, or there is nothing to undo
_NOTEBOOK_BYTES = tuple(m.encode() for m in _NOTEBOOK_TEXT)


def _notebook(block: Text) -> Text | Lines | None:
    """JSON string lines (a notebook's source, outputs, traceback lists) decoded; a one-line JSON object of an
    output (``{"output_type": "error", ..., "traceback": [...]}``) becomes its traceback's lines.

    A block whose every line is one JSON string (nearly every block of a notebook's JSON) is decoded from its
    bytes as one JSON string (jsonlines.py: one indentation, no CR); else each line is looked at, its lone
    strings decoded together (``_each_line``)."""
    raw = block.raw
    if raw is not None:
        if not any(m in raw for m in _NOTEBOOK_BYTES):
            return None
        got = decoded_lines(raw)  # a block of string lines, decoded as one JSON string (jsonlines.py)
        if got is not None:
            return Text(None, block.origin, block.count(), raw=got)
    if not any(m in block.text for m in _NOTEBOOK_TEXT):
        return None
    lines = block.lines()
    values = _each_line([t for t, _ in lines])
    if values is None:
        return None
    return [(x, o) for v, (_, o) in zip(values, lines, strict=True) for x in v.split("\n")]


def _each_line(texts: list[str]) -> list[str | None] | None:
    """Each line's text decoded, line by line (the lines a line stands for joined by newlines; a line that is
    not JSON as it is), or None when none is JSON. Lone strings are decoded together (``_strings``)."""
    pure = [*map(_JSON_PURE_STRING.compiled.match, texts)]
    decoded = _strings([m.group(1) for m in pure if m is not None])
    values = [v[:-1] if v is not None and v.endswith("\n") else v for v in decoded]
    if None in pure:
        it = iter(values)
        values = [next(it) if m is not None else _json_line(t) for t, m in zip(texts, pure, strict=True)]
    if all(v is None for v in values):
        return None
    if None in values:  # a line that is not JSON (or not valid JSON) stays as it is
        values = [t if v is None else v for t, v in zip(texts, values, strict=True)]
    return values


def _strings(literals: list[str]) -> list[str | None]:
    """JSON string literals decoded, all in one ``json.loads`` (each on its own where one is not valid JSON:
    an unknown escape, a control character; None for that one)."""
    try:
        return _json_module().loads("[" + ",".join(literals) + "]")  # type: ignore[no-any-return]
    except ValueError:
        return [_json_string(x) for x in literals]


def _json_line(t: str) -> str | None:
    """What a JSON line other than a lone string stands for, its lines as one text: an empty line for
    structure and the ``ename``/``evalue`` summary (the traceback holds the same message); None for a line
    that is not JSON."""
    if _SUMMARY_KEY.match(t) or _JSON_STRUCTURE.match(t):
        return ""
    got = _json_lines(t)
    return None if got is None else "\n".join(got)


def _json_lines(t: str) -> list[str] | None:
    """The lines a JSON line of a notebook stands for (None: not such a line): an output's one-line object, a
    ``"traceback": [...]`` or ``"text": [...]`` list, or one JSON string."""
    s = t.strip()
    if s.startswith("{") and ('"traceback"' in s or '"text"' in s):
        got = _json_object_lines(s)
        if got is not None:
            return got
    if s.startswith(('"traceback"', '"text"')) and "[" in s and s.rstrip(",").endswith("]"):
        got = _string_list_lines(_json_value(s[s.index("[") :].rstrip(",")))
        if got is not None:
            return got
    m = _JSON_STRING_LINE.match(t)
    if m is None or ("\\" not in m.group(1) and not s.startswith('"')):
        return None
    value = _json_string(m.group(1))
    if value is None:
        return None
    return value[:-1].split("\n") if value.endswith("\n") else value.split("\n")


def _json_value(text: str) -> Any:
    try:
        return _json_module().loads(text)
    except ValueError:
        return None


def _json_string(text: str) -> str | None:
    """``json.loads`` of a JSON string literal (``"..."``, as _JSON_STRING_LINE reads one), by the json
    module's own string scanner: loads' other steps cost three times the scan on a notebook's short lines."""
    try:
        value, end = _json_module().decoder.scanstring(text, 1)
    except ValueError:
        return None
    return value if end == len(text) else None


def _json_object_lines(s: str) -> list[str] | None:
    obj = _json_value(s.rstrip(","))
    if not isinstance(obj, dict):
        return None
    parts = obj.get("traceback") or obj.get("text")
    return _string_list_lines([parts] if isinstance(parts, str) else parts)


def _string_list_lines(parts: Any) -> list[str] | None:
    if isinstance(parts, list) and all(isinstance(p, str) for p in parts):
        return "\n".join(p.rstrip("\n") for p in parts).split("\n")
    return None


# the fields of a structured log record that hold its text: Docker's json-file log ('log'), Python's JSON
# formatters and structlog ('message', 'msg', 'event', 'exc_info', 'exception', 'stack_info'), Cloud Logging
# ('textPayload'), ECS ('error': {'stack_trace'}), pino/bunyan ('msg', 'err': {'stack'})
_RECORD_TEXT = frozenset(
    ("log", "message", "msg", "event", "textPayload", "exc_info", "exception", "stack_info", "stack_trace", "stacktrace", "stack", "traceback", "error", "err")
)


def _json_log(block: Text) -> Lines | None:
    """JSON-lines logging (one object per line: Docker's json-file driver, a JSON log formatter, a cloud
    console's export): each record becomes the lines of its text fields (``_RECORD_TEXT``, in the record's
    order, nested one level: ``{"error": {"stack_trace": ...}}``), a traceback held in one escaped string
    becoming its lines; other lines stay."""
    if '{"' not in block.text:
        return None
    lines = block.lines()
    records = [i for i, (t, _) in enumerate(lines) if t.lstrip().startswith('{"') and t.rstrip().endswith("}")]
    objs = _records([lines[i][0] for i in records])  # all of them in one json.loads
    got = {i: x for i, obj in zip(records, objs, strict=True) if (x := _record_lines(obj)) is not None}
    if not got:
        return None
    return [pair for i, (t, o) in enumerate(lines) for pair in ([(t, o)] if i not in got else [(x, o) for x in got[i]])]


def _records(texts: list[str]) -> list[Any]:
    """JSON lines decoded, all in one ``json.loads`` (each on its own where one is not valid JSON: None for it)."""
    try:
        got = _json_module().loads("[" + ",".join(texts) + "]")
    except ValueError:
        got = None
    if isinstance(got, list) and len(got) == len(texts):  # ('{"a": 1}, {"b": 2}' on one line is two values)
        return got
    return [_json_value(t) for t in texts]


def _record_lines(obj: Any) -> list[str] | None:
    found = _record_texts(obj, 2) if isinstance(obj, dict) else []
    texts = [x for x in found if x] or found[:1]  # a record of an empty line is an empty line
    return "\n".join(x.rstrip("\n") for x in texts).split("\n") if texts else None


def _record_texts(obj: dict[str, Any], depth: int) -> list[str]:
    out: list[str] = []
    for k, v in obj.items():
        if isinstance(v, str) and k in _RECORD_TEXT:
            out.append(v)
        elif isinstance(v, dict) and depth > 1:
            out += _record_texts(v, depth - 1)
    return out


def _html(block: Text) -> Lines | None:
    text = block.text
    amp = "&" in text
    if not (amp or ("<" in text and _TAG.search(text))):
        return None
    lines = block.lines()
    out = lines[:]
    changed = False
    # the lines to look at, from the last: a line split at its <br> tags replaces itself
    for i in reversed([i for i, (t, _) in enumerate(lines) if "&" in t or "<" in t]):
        t, o = lines[i]
        pieces, tagged = _html_line(t, amp)
        changed = changed or tagged or pieces != [t]
        out[i : i + 1] = [(p, o) for p in pieces]
    return out if changed else None


def _html_line(t: str, amp: bool) -> tuple[list[str], bool]:
    """One line split at its <br> tags, its other tags dropped, its entities unescaped; whether it held a tag."""
    tagged = "<" in t and _TAG.search(t) is not None
    pieces = [_TAG.sub("", p) for p in _BR.split(t)] if tagged else [t]
    if amp:
        pieces = [_html_module().unescape(p) if "&" in p else p for p in pieces]
    return pieces, tagged


def _markdown(block: Text) -> Lines | None:
    # a quote mark or a fence somewhere in the block's text first (at C speed), then line by line
    text = block.text
    quoted = _QUOTE_ANY.found(text) and any(_QUOTE.match(t) and not t.lstrip().startswith(">>> ") for t, _ in block.lines())
    fenced = _FENCE_ANY.found(text)
    if not (quoted or fenced):
        return None
    lines = block.lines()
    ends = _quote_ends([t for t, _ in lines]) if quoted else [0] * len(lines)
    out = [(_unquoted(t[end:], fenced), o) for (t, o), end in zip(lines, ends, strict=True)]
    return None if out == lines else out


def _quote_ends(texts: list[str]) -> list[int]:
    """Per line, where its quote marks end (0: none, or a mark that is the text's: ``_in_context``)."""
    marks = [None if _prompt(t) else _QUOTE.match(t) for t in texts]
    listed = _in_context([m is not None for m in marks], texts)
    return [m.end() if m is not None and on else 0 for m, on in zip(marks, listed, strict=True)]


def _prompt(t: str) -> bool:
    """'>>> x' is a Python prompt, not a triple quote (unless quoted itself: '> >>> x')."""
    m = _QUOTE.match(t)
    return m is not None and t.lstrip().startswith(">>> ") and m.group(0).count(">") == 3


def _in_context(marked: Sequence[bool], texts: Sequence[str]) -> list[bool]:
    """Which marked lines (a quote mark, a bullet at a line's start) are the presentation, not the text: one
    next to another marked line (a quoted block, a list; indented continuation lines between two items
    allowed), at the block's start, after a blank line or after prose that ends with a colon ('I get:'). A lone
    mark glued to the line before is the text's: the second half of a message or expression broken before a
    '* hidden_size' or a '> 0.f', a '- helperAllowFallback()' clause."""
    out = [False] * len(marked)
    for i in (i for i, m in enumerate(marked) if m):
        j, k = _item_end(marked, texts, i, -1), _item_end(marked, texts, i, 1)
        if j < 0 or marked[j] or (k < len(marked) and marked[k]):
            out[i] = True
        else:
            before = texts[i - 1].rstrip()
            out[i] = not before or before.endswith(":")
    return out


def _item_end(marked: Sequence[bool], texts: Sequence[str], i: int, step: int) -> int:
    """The index of the next line before (``step`` -1) or after (1) line ``i`` that is not an indented
    continuation line of a list item (-1 or len: none)."""
    j = i + step
    while 0 <= j < len(texts) and texts[j][:1] in (" ", "\t") and texts[j].strip() and not marked[j]:
        j += step
    return j


def _unquoted(t: str, fenced: bool) -> str:
    """One line (its quote marks gone) with a fence line blank, an inline-code line without its backticks."""
    if fenced and _FENCE.match(t):
        t = ""
    if t.startswith("`") and t.endswith("`") and len(t) > 2 and t.count("`") == 2:
        t = t[1:-1]
    return t


def _bullets(block: Text) -> Lines | None:
    """List bullets (``- ``, ``* ``, ``1. ``) dropped: after unwrapping, so a wrapped piece that happens to
    begin with ``- `` keeps its length."""
    if not _BULLET_ANY.found(block.text):
        return None
    lines = block.lines()
    texts = [t for t, _ in lines]
    marks = [*map(_BULLET.compiled.match, texts)]
    listed = _in_context([b is not None for b in marks], texts)
    if not any(listed):
        return None
    return [(t[b.end() :] if b is not None and on else t, o) for (t, o), b, on in zip(lines, marks, listed, strict=True)]


def _gutter_lines(raw: Sequence[bytes]) -> bool:
    nums = []
    for x in raw:
        m = _GUTTER.match(x.decode("utf-8", "replace"))
        nums.append(int(m.group(1)) if m else None)
    return _consecutive(nums)


def _consecutive(nums: Sequence[int | None]) -> bool:
    """Line numbers counting up by one on most lines (a paste tool's gutter)."""
    if len(nums) < 3:
        return False
    steps = sum(1 for a, b in pairwise(nums) if a is not None and b is not None and b == a + 1)
    return steps >= _steps_needed(len(nums))


def _steps_needed(n: int) -> int:
    return max(2, int(0.6 * (n - 1)))


def _gutter(block: Text) -> Lines | None:
    # each step is a line numbered as in a gutter: fewer such lines in the block's text, no gutter
    n = block.text.count("\n") + 1
    if n < 3 or _GUTTER_ANY.count(block.text) < _steps_needed(n):
        return None
    lines = block.lines()
    texts = [t for t, _ in lines]
    matches = [_GUTTER.match(t) for t in texts]
    if not _consecutive([int(m.group(1)) if m else None for m in matches]):
        return None
    return [(t[m.end() :] if m else t, o) for (t, o), m in zip(lines, matches, strict=True)]


def _carets(block: Text) -> Text | None:
    """A carriage return shown as '^M' (``cat -v``, a Windows log opened in a Unix editor): the line's last
    segment kept, as a terminal shows it. The one at a line's end goes in one pass over the text (a log with
    one on every line cost 85 CPU s/GiB line by line); a line with others is read line by line."""
    text = block.text
    if "^M" not in text:
        return None
    u = text.replace("^M\n", "\n")
    u = u[:-2] if u.endswith("^M") else u
    if "^M" in u:
        u = "\n".join(_last_segment(t) if "^M" in t else t for t in u.split("\n"))
    return None if u == text else Text(u, block.origin, block.count())


def _last_segment(t: str) -> str:
    last = t.split("^M")[-1]
    return last if last.strip() else t.replace("^M", "")


def _characters(block: Text) -> Lines | None:
    """Typographic and full-width characters as ASCII, and East Asian prose glued to a message spaced from
    it (``_typed``) or put a line apart from a traceback's head or an exception line (``_prose_apart``), on each
    line that holds one: what a person's editor or input method typed, so a paste's (line by line, ~7 us a line:
    a training log in Chinese, every line prose glued to numbers, cost 140 CPU s/GiB when a big log's blocks were
    undone too; bench/kinds.py's cjk kind)."""
    text = block.text
    if text.isascii() or (_SMART_CHARS.search(text) is None and _CJK_GLUED.search(text) is None):
        return None
    out: Lines = []
    for t, o in block.lines():
        out += [(t, o)] if t.isascii() else [(x, o) for x in _prose_apart(_typed(t))]
    return None if out == block.lines() else out


def _prose_apart(u: str) -> list[str]:
    """A line whose East Asian prose runs into a traceback's head or an exception line ('运行报错：Traceback
    (most recent call last):', '报错RuntimeError: ...'), typed: the prose and the log's line, two lines."""
    m = _CJK_BEFORE_START.match(u)
    return [m.group(1), u[m.end() :]] if m is not None else [u]


def _typed(u: str) -> str:
    """A line's typographic and full-width characters as ASCII, a space where East Asian prose is glued to a
    message or a full-width separator has none after it, two where an ideographic space indents it."""
    if u.startswith("\u3000"):  # an indentation: an ideographic space is two columns wide
        rest = u.lstrip("\u3000")
        u = "  " * (len(u) - len(rest)) + rest
    if _SMART_CHARS.search(u) is not None:
        u = _WIDE_SEPARATOR.sub(" ", u).translate(_SMART)
    return _CJK_GLUED.sub(" ", u) if _CJK_GLUED.search(u) is not None else u


def _escapes(block: Text) -> Lines | None:
    """Markdown's backslash escapes dropped (a rich-text editor's: reddit's, a chat's), line by line."""
    if "\\" not in block.text:
        return None
    lines = block.lines()
    out = [(_unescaped(t) if "\\" in t else t, o) for t, o in lines]
    return None if out == lines else out


def _unescaped(t: str) -> str:
    """A line's escapes dropped: its underscores' only where it has no bare one (an editor escapes them all; a
    Windows path's '\\__init__.py' keeps its backslash)."""
    if "_" in t.replace("\\_", ""):
        return _ESCAPED_PUNCTUATION.sub(r"\1", t)
    return _ESCAPED.sub(r"\1\2", t)


def _commands(block: Text) -> Lines | None:
    """A workflow command's text (``::error file=...::message``) as the lines it encodes."""
    if "::" not in block.text:
        return None
    lines = block.lines()
    out: Lines = []
    for t, o in lines:
        m = _COMMAND.match(t) if t.startswith("::") else None
        if m is None:
            out.append((t, o))
            continue
        body = t[m.end() :].replace("%0D", "").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")
        out += [(x, o) for x in body.split("\n")]
    return None if out == lines else out


def _panel(block: Text) -> Lines | None:
    """An exception panel's name line and message line joined as the traceback's last line (``RuntimeError:
    cuDNN error: ...``): only a message that does not begin a line of its own (a frame, a traceback's head).
    Frames right under it (VS Code's) are its traceback's: they come first, behind a traceback's head."""
    lines = block.lines()
    out: Lines = []
    i = 0
    changed = False
    while i < len(lines):
        t, o = lines[i]
        m = _PANEL_NAME.match(t) if ("Error" in t or "Exception" in t) and i + 1 < len(lines) else None
        nxt = lines[i + 1][0] if m is not None else ""
        if m is None or not nxt.strip() or nxt[0].isspace() or _LINE_START.match(nxt) is not None:
            out.append((t, o))
            i += 1
            continue
        j = _frames_end(lines, i + 2)
        head = [("Traceback (most recent call last):", o)] if j > i + 2 else []
        out += [*head, *lines[i + 2 : j], (f"{m.group(1)}: {nxt}", o)]
        changed = True
        i = j
    return out if changed else None


def _frames_end(lines: Lines, start: int) -> int:
    """The end of the frames that begin at line ``start`` (``start``: none there)."""
    if start >= len(lines) or _FRAME.match(lines[start][0]) is None:
        return start
    j = start
    while j < len(lines) and lines[j][0][:1].isspace() and lines[j][0].strip():
        j += 1
    return j


def _indented(block: Text) -> Lines | None:
    """A Markdown indented code block (Stack Overflow, a forum): every line that is not blank starts with four
    spaces or a tab, which go (one level: the log's own indentation stays)."""
    lines = block.lines()
    if not all(t.startswith(("    ", "\t")) or not t.strip() for t, _ in lines):
        return None
    return [(t[1:] if t.startswith("\t") else t[4:], o) for t, o in lines]


def _padded(block: Text) -> Lines | None:
    """A console's rectangular copy (the Windows console, a screen dump): the lines padded with spaces to the
    window's width. The padding goes, so that the lines' own lengths tell a hard wrap and a cut message ends
    where its text does."""
    lines = block.lines()
    ends = Counter(len(t) for t, _ in lines if t.endswith("  "))
    width, padded = ends.most_common(1)[0] if ends else (0, 0)
    # every line at least that long (a piece of a wrapped line fills the width unpadded; a line longer than the
    # window is a terminal's own), but the last or one in ten
    shorter = sum(1 for t, _ in lines if len(t) < width)
    if width < MIN_WIDTH or padded < 2 or shorter > max(1, len(lines) // 10):
        return None
    # a single space at the end is more likely a wrap's cut after a space than a padding of one column: it stays
    return [(t.rstrip(" ") if t.endswith("  ") else t, o) for t, o in lines]


def _labelled(block: Text) -> Lines | None:
    """Task labels (``srun -l``, ``mpirun --tag-output`` without brackets: ``0: ``, ``12: ``) on most lines:
    each becomes the launcher prefix normalize.py reads as the line's stream (``[rank12]: ``), so that
    interleaved tasks stay apart; a label normalize.py reads only before a traceback's start, where a line of
    its own may begin with a number and a colon."""
    lines = block.lines()
    labels = [m.group(1) for m in map(_LABEL.compiled.match, (t for t, _ in lines)) if m]
    if not _mostly(labels, sum(1 for t, _ in lines if t)):
        return None
    return [(_LABEL.sub(r"[rank\1]: ", t, count=1), o) for t, o in lines]


def _mostly(labels: Sequence[object], lines: int) -> bool:
    """Four in five lines labelled, with a few labels (a paste tool's gutter numbers each line: _gutter)."""
    return len(labels) >= 2 and len(labels) * 5 >= lines * 4 and len(set(labels)) * 2 <= len(labels)


def _unwrapped(block: Text, literals: Collection[str]) -> tuple[Text, str] | None:
    lines = block.lines()
    wrapped = wrap_width([t for t, _ in lines], literals)
    if wrapped is None:
        return None
    joined = unwrap(lines, *wrapped)
    return (Text.of(joined), f"{'fold' if wrapped[2] else 'wrap'} {wrapped[0]}") if len(joined) != len(lines) else None


@dataclass(frozen=True, slots=True)
class Presentation:
    """One way a log is presented: ``seen`` tells it on a block's raw bytes (a search, a look at the first
    lines), ``undo`` undoes it on the block's lines, returning them with what was undone (None: nothing)."""

    name: str
    seen: Callable[[bytes, Collection[str]], bool]
    undo: Callable[[Text, Collection[str]], tuple[Text, str] | None]
    paste_only: bool = False


def _step(name: str, undo: Callable[[Text], Text | Lines | None]) -> Callable[[Text, Collection[str]], tuple[Text, str] | None]:
    def run(block: Text, _literals: Collection[str]) -> tuple[Text, str] | None:
        got = undo(block)
        if got is None:
            return None
        return (got if isinstance(got, Text) else Text.of(got)), name

    return run


def _marked(pattern: re.Pattern[bytes], starts: tuple[bytes, ...] = (), inside: tuple[bytes, ...] = ()) -> Callable[[bytes, Collection[str]], bool]:
    def seen(sample: bytes, _literals: Collection[str]) -> bool:
        return sample.startswith(starts) or pattern.search(sample) is not None or any(_has_at(sample, m) for m in inside)

    return seen


def _characters_seen(sample: bytes, _literals: Collection[str]) -> bool:
    """A no-break space or a typographic character (their UTF-8 bytes begin \\xc2\\xa0 or \\xe2\\x80), a
    full-width form or a CJK character glued to a letter: the two-byte starts looked for first, at memchr speed;
    the pattern alone tries every \\xe2 byte, and a block of progress bars holds hundreds (each '█' is
    \\xe2\\x96\\x88)."""
    if b"\xc2\xa0" in sample or (b"\xe2\x80" in sample and _CHARACTERS_MARK.search(sample) is not None):
        return True
    return not sample.isascii() and _wide_seen(sample)


def _wide_seen(sample: bytes) -> bool:
    """A full-width form or space, or a CJK character glued to a letter or digit: the literals first; a block
    of progress bars holds no CJK lead byte ('█' is \\xe2), the pattern only where one is."""
    if b"\xef\xbc" in sample or b"\xef\xbd" in sample or b"\xe3\x80\x80" in sample:
        return True
    return _CJK_LEAD.search(sample) is not None and _WIDE_MARK.search(sample) is not None


def _page(seen: Callable[[bytes], bool]) -> Callable[[bytes, Collection[str]], bool]:
    return lambda sample, _literals: seen(sample)


def _lines_of(undo: Callable[[Lines], Lines | None]) -> Callable[[Text], Lines | None]:
    """An undo of pages.py on a block's lines, which it looks at only where the block holds a frame."""
    return lambda block: undo(block.lines()) if 'File "' in block.text else None


def _notebook_seen(sample: bytes, _literals: Collection[str]) -> bool:
    """The notebook's mark (a colour code's ``\\u001b``, a string's last ``\\n``, an output's keys), but not in
    JSON log records: a sample whose every line is a JSON object without a notebook output's keys is Docker's
    json-file log or a JSON formatter's (a record's colour code is the mark's), whose lines the notebook's
    undo leaves as they are after trying each (~20 us a line: a big json-file log's blocks at 3x a plain
    log's cost, bench/kinds.py's docker kind). In a paste the json-log presentation has decoded them first."""
    return _NOTEBOOK_MARK.search(sample) is not None and not _all_records(sample)


def _all_records(sample: bytes) -> bool:
    lines = sample.count(b"\n") + (not sample.endswith(b"\n"))
    if sample.startswith(b'{"') + sample.count(b'\n{"') != lines:
        return False
    return not any(key in sample for key in (b'"traceback"', b'"text"', b'"output_type"'))


def _json_log_seen(sample: bytes, _literals: Collection[str]) -> bool:
    return sample.startswith(b'{"') or b'\n{"' in sample  # a line that is a JSON object (a record, _json_log checks)


def _labels_seen(sample: bytes, _literals: Collection[str]) -> bool:
    if not sample[:1].isdigit():  # the first line labelled (most, _labelled checks)
        return False
    head = sample[:SAMPLE_BYTES].split(b"\n", 40)[:40]
    return _mostly([m.group(1) for m in map(_LABEL_BYTES.match, head) if m], sum(1 for x in head if x))


def _indented_seen(sample: bytes, _literals: Collection[str]) -> bool:
    return sample.startswith((b"    ", b"\t"))  # the first line is indented (every one, _indented checks)


def _padded_seen(sample: bytes, _literals: Collection[str]) -> bool:
    return b"   \n" in sample or b"   \r\n" in sample  # a line ends in spaces (padded to a width, _padded checks)


def _gutter_seen(sample: bytes, _literals: Collection[str]) -> bool:
    return _gutter_lines(sample[:SAMPLE_BYTES].split(b"\n", 40)[:40])


# In the order they are undone. A paste's JSON log records first: their text fields are the lines (the
# notebook's mark would otherwise take a record's colour code for a notebook and try every record as one); in a
# big log, decoding every record cost more than the whole scan (30 KiB metric records: 6 CPU s/GiB). A console's padding, a code block's indentation and task labels before the
# wraps (they hide the lines' lengths and make every piece look indented or labelled). A wrap is undone where it was made: a line
# wrapped after it was quoted ('> ' on its first piece only) before the quotes go, one quoted piece by piece
# ('> ' on every piece) after; bullets last, so a wrapped piece that happens to begin with '- ' keeps its length.
# What a person made of a log to post it (Markdown's quotes, fences and bullets, a paste tool's gutter, typed
# characters, hard wraps) is a paste's: a big log's lines are a program's, and undoing those line by line where a
# program's lines look alike cost 44-75 CPU s/GiB (Gradle's '> Task' lines, a YAML dump's '- ', a log viewer's
# numbers, Chinese prose; bench/README.md, the eleventh session).
_WRAP = Presentation("wrap", _wrapped_sample, _unwrapped, paste_only=True)
_NOTEBOOK = Presentation("notebook", _notebook_seen, _step("notebook", _notebook))
_COLLAPSED = Presentation("collapsed", _page(collapsed_seen), _step("collapsed", lambda block: collapsed(block.text, block.lines)), paste_only=True)
PRESENTATIONS = (
    Presentation("json-log", _json_log_seen, _step("json-log", _json_log), paste_only=True),
    _NOTEBOOK,
    Presentation("html", _marked(_HTML_MARK), _step("html", _html)),
    Presentation("padding", _padded_seen, _step("padding", _padded), paste_only=True),
    Presentation("indent", _indented_seen, _step("indent", _indented), paste_only=True),
    Presentation("labels", _labels_seen, _step("labels", _labelled)),
    Presentation("chat", _marked(_CHAT_MARK), _step("chat", lambda block: chat(block.text, block.lines)), paste_only=True),
    Presentation("powershell", _marked(_RECORD_MARK), _step("powershell", lambda block: powershell(block.lines()))),
    Presentation("padded-wrap", _marked(PAD_MARK), _step("padded-wrap", lambda block: padded_wrap(block.lines())), paste_only=True),
    _COLLAPSED,
    Presentation("rendered", _page(rendered_seen), _step("rendered", _lines_of(rendered)), paste_only=True),
    _WRAP,
    _COLLAPSED,  # a page's text whose line breaks collapsed, then hard-wrapped by a terminal: seen once unwrapped
    Presentation("markdown", _marked(_QUOTE_MARK, (b">", b"```", b"~~~"), (b"```",)), _step("markdown", _markdown), paste_only=True),
    Presentation("escapes", _marked(_ESCAPE_MARK), _step("escapes", _escapes), paste_only=True),
    Presentation("commands", _marked(_COMMAND_MARK, _COMMAND_STARTS), _step("commands", _commands)),
    Presentation("panel", _marked(_PANEL_MARK), _step("panel", _panel), paste_only=True),
    Presentation("event", _page(event_seen), _step("event", lambda block: event(block.lines())), paste_only=True),
    Presentation("gutter", _gutter_seen, _step("gutter", _gutter), paste_only=True),
    Presentation("carets", _marked(_CARETS_MARK, (b"^M",)), _step("carets", _carets)),
    Presentation("characters", _characters_seen, _step("characters", _characters), paste_only=True),
    _WRAP,
    Presentation("bullets", _marked(_BULLET_MARK, (b"- ", b"* ")), _step("bullets", _bullets), paste_only=True),
    Presentation("titled", _page(titled_seen), _step("titled", lambda block: titled(block.lines())), paste_only=True),
)


# ------------------------------------------------------------------ hard wraps


def _measures(texts: Sequence[str]) -> tuple[list[str], list[int], list[int], list[int]]:
    """Per line: clean text, its length, its length with its CI prefix (what a terminal wrapped), and the
    prefix's length. A line whose process tag appears from nowhere (``085: UserWarning`` after an untagged
    line) is a piece that happens to begin like a tag: it is measured as it is."""
    clean: list[str] = []
    physical: list[int] = []
    prefixes: list[int] = []
    prev: str | None = None
    for t in texts:
        c, stream = normalize_line(t)
        plen = line_prefix(t)
        if stream and prev == "":
            c, stream, plen = t.rstrip("\r"), "", 0
        clean.append(c)
        physical.append(len(c) + plen)
        prefixes.append(plen)
        prev = stream
    return clean, [len(c) for c in clean], physical, prefixes


def wrap_width(texts: Sequence[str], literals: Collection[str] = ()) -> tuple[int, bool, bool] | None:
    """(width, measured with the CI prefix, folded by a mail client) of a hard wrap, or None. See ``_width_of``
    and ``_fold_width``."""
    folded = _fold_width(texts)
    if folded is not None:
        return folded, True, True
    clean, lengths, physical, _ = _measures(texts)
    got = _width_of(clean, lengths, literals)
    if got is not None:
        return got, False, False
    if physical != lengths:
        got = _width_of(clean, physical, literals)
        if got is not None:
            return got, True, False
    return None


def _width_of(clean: Sequence[str], lengths: Sequence[int], literals: Collection[str] = ()) -> int | None:
    """The width a text was hard-wrapped at, or None.

    Evidence: at least two lines of exactly the longest length W (40-200 columns) that go on into a line that
    does not start a line of its own; or, wrapped at spaces, at least three lines ending within 15 columns of
    W whose next line begins with a lower-case word that would not have fit. A log that was not wrapped has
    lines of every length, and its long lines end where their text ends."""
    width = max(lengths, default=0)
    if width < MIN_WIDTH or width > MAX_WIDTH:
        return None
    if _cut_anywhere(clean, lengths, width, literals):
        return width
    near = sum(1 for i in range(len(clean) - 1) if _word_wrapped(lengths[i], clean[i], clean[i + 1], width))
    long_lines = sum(1 for n in lengths if n > width // 2)
    return width if near >= 3 and near * 3 >= long_lines else None


def _cut_anywhere(clean: Sequence[str], lengths: Sequence[int], width: int, literals: Collection[str]) -> bool:
    """Most lines of exactly ``width`` go on into the next line, twice at least (once: where the cut splits an
    identifier or a literal of the knowledge base)."""
    full = [i for i, n in enumerate(lengths) if n == width and i + 1 < len(clean)]
    # a line that is a row with the line before it (or after it) is a record of a layout, not a piece
    cont = [
        i
        for i in full
        if _continues(clean[i], clean[i + 1])
        and not _rows(clean[i], clean[i + 1], lengths[i + 1], width)
        and not (i > 0 and _rows(clean[i - 1], clean[i], lengths[i - 1], width))
    ]
    if not cont or len(cont) * 2 < len(full):
        return False
    first, nxt = clean[cont[0]], clean[cont[0] + 1]
    return len(cont) >= 2 or _identifier_cut(first, nxt) or _makes_literal(first, nxt, literals)


def _rows(cur: str, nxt: str, nxt_length: int, width: int) -> bool:
    """Two lines that are rows of one layout, not a line and its continuation: full lines that begin and end
    alike (a table's borders), or lines whose padded columns (a field after two spaces or more: a ``conda list``,
    ``sha256sum``'s file names, pytest -v's '[ 12%]') fall where both have one and each begins a field of the
    other. A wrap cuts text at one width, so its pieces' fields fall anywhere."""
    if nxt_length == width and nxt[:1] == cur[:1] and nxt[-1:] == cur[-1:]:
        return True
    a, b = _columns(cur), _columns(nxt)
    # a row ends in its last column's field (a channel, a file name, '[ 12%]'); a record's text after its padded
    # header (a log level's '%(levelname)-8s') runs on in words to the cut
    return bool(a & b) and a <= _field_starts(nxt) and b <= _field_starts(cur) and _last_field(cur, a) and _last_field(nxt, b)


def _last_field(text: str, columns: set[int]) -> bool:
    return text[max(columns):].rstrip().count(" ") <= _ROW_TAIL_SPACES


_ROW_TAIL_SPACES = 2


def _columns(text: str) -> set[int]:
    return {m.end() for m in _PADDING.finditer(text) if m.start() > 0}


def _field_starts(text: str) -> set[int]:
    return {m.start() for m in _FIELD.finditer(text)}


_PADDING = LazyRe(r" {2,}(?=\S)")
_FIELD = LazyRe(r"(?<!\S)\S")


def _first_word(text: str) -> str:
    return text.lstrip().split(" ", 1)[0]


def _continues(cur: str, nxt: str) -> bool:
    """Whether ``nxt`` can be the rest of ``cur``: not empty, not indented (one space is a cut before a space),
    not a line start of its own, not a new record that begins like ``cur`` did (``Epoch 2/10 ...``)."""
    if not nxt or nxt.startswith(("  ", "\t")):
        return False
    if _DOTTED_END.search(cur) and nxt[0].isalpha():  # 'tensorflow.python.framework.errors_impl.|UnknownError'
        return True
    body = nxt[1:] if nxt[0] == " " else nxt
    if not body or _LINE_START.match(body):
        return False
    head, first = _first_word(cur), _first_word(body)
    # a record never begins by closing a bracket it did not open ('32,1},' of a Julia signature's type list)
    return not (len(head) >= 3 and first == head and not _closes(first))


def _closes(word: str) -> bool:
    return any(word.count(c) > word.count(o) for o, c in ("()", "[]", "{}"))


_DOTTED_END = LazyRe(r"\w+(?:\.\w+)+\.$")
_TOKEN_END = LazyRe(r"[\w./-]+$")
_TOKEN_START = LazyRe(r"^[\w./-]+")


def _makes_literal(cur: str, nxt: str, literals: Collection[str]) -> bool:
    """Glued without a space, the two pieces spell one of the knowledge base's literals that neither holds
    (``Ou|t of memory``): the signatures' literals serve as the dictionary of words that get cut."""
    a, b = cur[-48:].lower(), nxt[:48].lower()
    joined = a + b
    return any(lit in joined and lit not in a and lit not in b for lit in literals)


def unbalanced(text: str) -> bool:
    """A bracket or quote left open: the line goes on."""
    return text.count("[") > text.count("]") or text.count("(") > text.count(")") or text.count("`") % 2 == 1 or text.count('"') % 2 == 1


def _identifier_cut(cur: str, nxt: str) -> bool:
    """One wrapped line is weak evidence: it counts only when the cut splits an identifier or a path
    (``CUDNN_STATUS_EXEC|UTION_FAILED``, ``cudnnRNNBack|wardData``, ``site-pack|ages/torch``), not two words an
    editor wrapped at a space (``found input tensor at|mps:0``)."""
    if _lost_space(cur, nxt):
        return False
    if nxt and not nxt[0].isspace() and unbalanced(cur):  # '... block: [52' | ',0,0], thread: ...'
        return True
    if len(nxt) > 1 and nxt[0] == " " and not nxt[1].isspace():  # cut before a space: ' failed: ...'
        return True
    a, b = _TOKEN_END.search(cur), _TOKEN_START.match(nxt)
    return a is not None and b is not None and _one_token(a.group(0), b.group(0))


# a comma, a semicolon, an operator that stands as a word ('layout ==', 'x <', '||'; not 'use_cudnn=', '(&')
_SPACED_AFTER = LazyRe(r"(?:[,;]|(?:^|\s)(?:[=!<>]=?|\|\||&&|[|&]))$")
_CAPS_END = LazyRe(r"(?:^|[^\w])[A-Z][A-Z0-9_]+$")  # a word in capitals, two letters at least ('I' | 't will')


def _lost_space(cur: str, nxt: str) -> bool:
    """The cut falls where text has a space, one a line break took (a message broken between two words, not
    cut by a wrap, which keeps every character): after a comma, an operator, a comparison (``(layout ==`` |
    ``1)``), between a number and a word (``Expected 4`` | ``input``, ``to be`` | ``1-D``), after a word in
    capitals before a lower-case one (``1D CPU`` | ``int64``). Measured on the whole base's examples: with the
    second half of a message on the next line, ~110 single cuts fall there; hard wraps at 60, 80 and 120
    columns, 4 of ~330 single cuts (a word in capitals, a number glued to a word: ``inp`` | ``0.size()``)."""
    if not cur or not nxt or nxt[0].isspace():
        return False
    a, b = cur[-1], nxt[0]
    if _SPACED_AFTER.search(cur) and (b.isalnum() or b in "(["):
        return True
    if (a.isdigit() and b.isalpha()) or (a.isalpha() and b.isdigit()):
        return True
    return b.islower() and _CAPS_END.search(cur) is not None


def _one_token(left: str, right: str) -> bool:
    """Whether the end of a piece and the start of the next spell one identifier or path."""
    if left[-1] in ".,;:" or (left[-1].islower() and right[0].isupper()):  # 'stream.|Aborted', 'encountered|CUDA'
        return False
    if right[:1].isupper() and right[1:2].islower():  # a capitalised word begins: 'LICENSE_ERROR|Stack trace'
        return False
    token = left + right
    return "_" in token or "/" in token or any(c.isdigit() for c in token) or re.search(r"[a-z][A-Z]", token) is not None


def _word_wrapped(n: int, cur: str, nxt: str, width: int) -> bool:
    """``cur`` (``n`` columns) ended at a space because ``nxt``'s first word would not fit in ``width``."""
    if not (width - 15 <= n < width) or not nxt or not (nxt[0].islower() or nxt[0].isdigit() or nxt[0] in "([{'\"_./"):
        return False
    if _LINE_START.match(nxt) or cur.endswith((":", "!", "?")):
        return False
    return n + 1 + len(nxt.split(" ", 1)[0]) > width


# a mail client's attribution line above the reply that quotes a message ('On Tue, May 14, 2024 at 9:00 AM Alice
# <alice@example.org> wrote:'): the quoted text below was re-flowed by the client at spaces
MAIL_WIDTH = 60  # a mail client folds at 72-80 columns; a quote whose longest line is shorter may be unfolded
_ATTRIBUTION = LazyRe(r"^On [^\n]{6,200}\bwrote:\s*$")


# an exception's qualified name heading its line ('onnxruntime.capi.onnxruntime_pybind11_state.Fail: ...')
_QUALIFIED_HEAD = LazyRe(r"(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*:(?:\s|$)")


def _fold_width(texts: Sequence[str]) -> int | None:
    """The width a mail client folded a quoted message at (below its attribution line), or None.

    A mail client folds each long line at its last space before the width W and leaves a word longer than W
    whole, so its folded lines end anywhere short of W (a fold before a long path leaves a short line) and a
    line over W is one word (or, for some clients, begins with a word over W): W is the least of the lines'
    lengths that every longer line is so. Below an attribution line, two folds (``_folded``) are evidence, or one
    at a mail client's width (MAIL_WIDTH on) or beside a line a word made longer than W; else one fold is a short
    quote's longest line before a line of its own. The lines are measured whole (the client folded them with
    their log prefixes)."""
    if not any(_ATTRIBUTION.match(t) for t in texts[:8]):  # (before any work on a text that is no reply)
        return None
    texts = [t.rstrip("\r") for t in texts]
    lengths = [0 if _ATTRIBUTION.match(t) else len(t) for t in texts]  # the attribution line was not folded
    first = [_first_space(t) for t in texts]
    folds = {w: _folds(texts, lengths, w) for w in _fold_widths(lengths, first) if w}
    best = max(folds, key=folds.__getitem__, default=None)  # the width that finds more folds
    if best is None or not folds[best]:
        return None
    # one fold, where no word was too long for a width under a mail client's (60 columns at least): a short quote's
    # longest line before a line of its own
    return best if folds[best] >= 2 or best >= MAIL_WIDTH or any(n > best for n in lengths) else None


def _fold_widths(lengths: Sequence[int], first: Sequence[int]) -> tuple[int | None, int | None]:
    """The least widths every longer line is one word over (or, for a client that left a line whole after a long
    word, begins with a word over)."""
    widths = sorted(w for w in set(lengths) if MIN_WIDTH <= w <= MAX_WIDTH)
    one_word = next((w for w in widths if all(first[i] == n for i, n in enumerate(lengths) if n > w)), None)
    return next((w for w in widths if all(first[i] > w for i, n in enumerate(lengths) if n > w)), None), one_word


def _folds(texts: Sequence[str], lengths: Sequence[int], width: int) -> int:
    return sum(1 for i in range(len(texts) - 1) if _folded(lengths[i], texts[i], texts[i + 1], width))


def _first_space(text: str) -> int:
    """Where the first space after a line's indentation is (its length where there is none)."""
    at = text.find(" ", len(text) - len(text.lstrip()))
    return len(text) if at < 0 else at


def _folded(n: int, cur: str, nxt: str, width: int) -> bool:
    """A mail client's fold: ``cur`` (``n`` columns) ended at a space because ``nxt``'s first word would not fit
    in ``width``, and ``nxt`` is not indented or a line start of its own (a traceback line, an exception name, a
    log prefix)."""
    if not cur.strip() or not nxt or nxt[0].isspace() or n > width or _ATTRIBUTION.match(cur):
        return False
    if (_LINE_START.match(nxt) and not nxt.startswith("at ")) or _QUALIFIED_HEAD.match(nxt):  # a frame's 'at' is indented
        return False
    return n + 1 + len(_first_word(nxt)) > width


def unwrap(lines: Lines, width: int, physical: bool = False, folded: bool = False) -> Lines:
    """Join the pieces of lines hard-wrapped at ``width``.

    A piece is glued to the one before when that one filled the width (exactly W columns: cut anywhere, joined
    as is; at spaces: the piece's first word would not have fit, joined with a space) and the piece does not
    start a line of its own (a traceback line, a log prefix, an exception name, indentation). A CI prefix
    (timestamp, ``[rank0]:``) repeated on every piece is dropped from the continuations. ``physical``: the
    width counts the prefix (a terminal wrapped the whole line, continuations have no prefix). ``folded``: a
    mail client's folds (``_folded``, on the lines as they are) are the pieces instead."""
    texts = [t for t, _ in lines]
    if folded:
        raw = [t.rstrip("\r") for t in texts]
        return _joined(lines, {i for i in range(1, len(raw)) if _folded(len(raw[i - 1]), raw[i - 1], raw[i], width)})
    clean, lengths, phys, prefixes = _measures(texts)
    measure = phys if physical else lengths
    out: Lines = []
    for i, (t, o) in enumerate(lines):
        if out and i > 0:
            n, prev, cur = measure[i - 1], clean[i - 1], clean[i]
            if n == width and _continues(prev, cur):
                out[-1] = (out[-1][0] + t[prefixes[i] :].rstrip("\r"), out[-1][1])
                continue
            if _word_wrapped(n, prev, cur, width):
                out[-1] = (out[-1][0] + " " + t[prefixes[i] :].rstrip("\r"), out[-1][1])
                continue
        out.append((t, o))
    return out


def _joined(lines: Lines, pieces: Collection[int]) -> Lines:
    """``lines`` with each line of ``pieces`` glued to the line before it with the space a fold took."""
    out: Lines = []
    for i, (t, o) in enumerate(lines):
        if out and i in pieces:
            out[-1] = (out[-1][0].rstrip("\r") + " " + t.rstrip("\r"), out[-1][1])
        else:
            out.append((t, o))
    return out

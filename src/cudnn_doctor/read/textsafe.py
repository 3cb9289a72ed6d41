"""Text safety in one place: what is stripped from log text, and how it is escaped for each place it goes.

Log lines and user signatures are hostile input. Every character class that is unsafe somewhere is named
once below; each consumer takes the classes it must not pass on:

=============================  =============================================================================
``strip_ansi``                 ANSI/VT escape sequences (CSI, OSC, two-byte ESC, the one-byte C1 CSI ``\\x9b``)
``normalize_controls``         normalize.py: C0 controls but TAB and LF, and DEL (a log line keeps its text)
``terminal_safe``              the terminal report: also C1, zero-width and bidi controls
``clean``                      CI formats (GitHub, GitLab, SARIF, JUnit, Markdown): escapes stripped, then C0
                               but TAB/LF/CR, C1, zero-width, bidi, line/paragraph separators, lone surrogates
``json_escape_invisible``      JSON: valid as they are, but written as ``\\uXXXX`` so a viewer cannot act on them
``xml_text``                   JUnit: only what XML 1.0 allows, after ``clean``
``escape_data/_property``      GitHub workflow commands, exactly @actions/core's ``escapeData``/``escapeProperty``
``md_text/md_code/md_block``   Markdown: prose escaped, code spans and fences longer than any backtick run
=============================  =============================================================================

Only ``re``, the standard library and patterns.LazyRe: the start-up path imports this module, so only the
pattern every report uses (the terminal's) is compiled at import; the others on first use.
``ANSI`` and ``NORMALIZE_CONTROLS`` are public so that normalize.py's per-line loop can test cheaply before
calling them.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from ..kb.patterns import LazyRe

if TYPE_CHECKING:
    from typing import Any

# ---- the character classes, each named once --------------------------------------------------------
C0_BUT_TAB_LF = "\x00-\x08\x0b-\x1f"  # CR (\x0d) included
C0_BUT_TAB_LF_CR = "\x00-\x08\x0b\x0c\x0e-\x1f"
DEL = "\x7f"
DEL_C1 = "\x7f-\x9f"  # \x9b is a one-byte CSI
ZERO_WIDTH = "\u200b-\u200f"  # ZWSP, ZWNJ, ZWJ, LRM, RLM
BIDI = "\u202a-\u202e\u2066-\u2069"  # embeddings, overrides, isolates
LINE_SEPARATORS = "\u2028\u2029"
SURROGATES = "\ud800-\udfff"  # lone surrogates from undecodable file names (not encodable)
BOM = "\ufeff"

_CSI_BODY = r"[0-?]*[ -/]*[@-~]"
# what may follow ESC: a CSI, an OSC (ended by BEL or ST, or not at all), a two-byte sequence
_AFTER_ESC = rf"\[{_CSI_BODY}|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_]"
ANSI = LazyRe(rf"\x1b(?:{_AFTER_ESC})|\x9b{_CSI_BODY}")
NORMALIZE_CONTROLS = LazyRe(f"[{C0_BUT_TAB_LF}{DEL}]")
# ANSI as UTF-8 bytes, an unterminated OSC stopping at the line's end: the sequences ESC starts (a pattern with a
# literal first byte, which `re` skips to: 5x faster than with the one-byte CSI, \xc2\x9b in UTF-8, beside)
_ESC_BYTES = LazyRe(lambda: b"\\x1b(?:%s)" % _AFTER_ESC.replace(r"[^\x07\x1b]", r"[^\x07\x1b\n]").encode("latin-1"))
_ANSI_BYTES = LazyRe(lambda: _ESC_BYTES.pattern + rf"|\xc2\x9b{_CSI_BODY}".encode("latin-1"))
# those but a colour code (SGR: ESC [ digits and ';' m), which ESC is looked past in C
_OTHER_ESC_BYTES = LazyRe(lambda: _ESC_BYTES.pattern.replace(b"\\x1b", b"\\x1b(?!\\[[0-9;]*m)", 1))
# the controls normalization deletes, as bytes for ``bytes.translate``. Not CR: normalization keeps a line's
# last CR segment and never joins two, so a deleted CR would join what it keeps to the text before it ('0.5' to
# 'DataParallel': no longer at a word start)
_DELETED_CONTROLS = re.sub(f"[^{C0_BUT_TAB_LF_CR}{DEL}]", "", "".join(map(chr, range(128)))).encode()
_TERMINAL = re.compile(f"[{C0_BUT_TAB_LF}{DEL_C1}{ZERO_WIDTH}{BIDI}]")
_LATER = {
    "ci": f"[{C0_BUT_TAB_LF_CR}{DEL_C1}{ZERO_WIDTH}{LINE_SEPARATORS}{BIDI}{SURROGATES}]",
    "json": f"[{DEL_C1}{ZERO_WIDTH}{LINE_SEPARATORS}{BIDI}{BOM}]",
    "xml": "[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]",  # not an XML 1.0 Char
    "md_special": r"([\\`*_\[\]|~])",  # ( ) ! only matter next to [ ], which are escaped
    "md_mention": r"([@#])(?=[\w-])",
    "md_ordered": r"^(\d+)\.(?=\s|$)",
    "backticks": r"`+",
}


@cache
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(_LATER[name])


def has_escape(text: str) -> bool:
    """Whether ``text`` may hold an escape sequence (a cheap test before the regex)."""
    return "\x1b" in text or "\x9b" in text


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences (colours, cursor moves, OSC titles and links)."""
    return ANSI.sub("", text) if has_escape(text) else text


def delete_other_escapes(data: bytes) -> bytes:
    """UTF-8 lines with every escape sequence ESC starts but a colour code deleted, as ``delete_escapes`` deletes
    them (a cursor move, a line's erase, an OSC); the colour codes kept."""
    return _OTHER_ESC_BYTES.sub(b"", data) if b"\x1b" in data else data


def delete_escapes(data: bytes) -> bytes:
    """UTF-8 lines with what normalization deletes from inside a line deleted, in its order (escape sequences,
    then C0 controls but TAB, LF and CR, and DEL): the prefilter and the context's rule-out look for literals
    in raw bytes read so. Never a newline: the n-th line of the result is the n-th line of ``data``.
    Equivalence with the text form: tests/test_delete_escapes.py."""
    if b"\x9b" in data and b"\xc2\x9b" in data:  # the one-byte test first: memchr, ~20x faster
        data = _ANSI_BYTES.sub(b"", data)
    elif b"\x1b" in data:
        data = _ESC_BYTES.sub(b"", data)
    return data.translate(None, _DELETED_CONTROLS)


def normalize_controls(line: str) -> str:
    """A log line without C0 controls (TAB and LF kept) and DEL: what normalize.py keeps of a line."""
    return NORMALIZE_CONTROLS.sub("", line)


def terminal_safe(value: object) -> str:
    """Text with control characters (ESC, CSI, bidi overrides...) removed, for a terminal or stderr."""
    return _TERMINAL.sub("", str(value))


def clean(value: object) -> str:
    """Text without terminal escape sequences and invisible/bidi control characters (LF and CR kept)."""
    return _pattern("ci").sub("", strip_ansi(str(value)))


def deep_clean(value: Any) -> Any:
    """``clean`` every string in a JSON-like structure (keys too)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [deep_clean(v) for v in value]
    if isinstance(value, dict):
        return {clean(k): deep_clean(v) for k, v in value.items()}
    return value


def json_escape_invisible(text: str) -> str:
    """JSON text with C1, zero-width, bidi, separator and BOM characters written as ``\\uXXXX``."""
    return _pattern("json").sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def cut(text: str, limit: int) -> str:
    """``text`` at most ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def xml_text(value: object, limit: int) -> str:
    """Text that is legal in XML 1.0, without terminal escapes, at most ``limit`` characters."""
    return cut(_pattern("xml").sub("", clean(value)), limit)


# ---- GitHub workflow commands (@actions/core) -----------------------------------------------------------
def escape_data(value: object) -> str:
    """@actions/core ``escapeData``: ``%`` -> %25, CR -> %0D, LF -> %0A."""
    return clean(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: object) -> str:
    """@actions/core ``escapeProperty``: ``escapeData`` plus ``:`` -> %3A and ``,`` -> %2C."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


# ---- Markdown (GitHub-flavoured) --------------------------------------------------------------------------
WJ = "\u2060"  # WORD JOINER: invisible, stops GitHub's @mention and #reference autolinks
MAX_BLOCK = 8 << 10  # characters of one code block


def _longest_backticks(s: str) -> int:
    return max((len(r) for r in _pattern("backticks").findall(s)), default=0)


def md_text(value: object) -> str:
    """Escape one line of prose (newlines become spaces) so it renders literally, also inside a table cell:
    HTML, emphasis, link brackets, table pipes, a leading block marker, and @mentions / #refs broken."""
    s = " ".join(clean(value).split())
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _pattern("md_special").sub(r"\\\1", s)
    s = _pattern("md_mention").sub(lambda m: m.group(1) + WJ, s)
    if s[:1] in "#+-=>":
        s = "\\" + s
    return _pattern("md_ordered").sub(r"\1\\.", s)


def md_code(value: object, *, table: bool = False) -> str:
    """An inline code span (one line) with a delimiter longer than any backtick run inside."""
    s = " ".join(clean(value).split())
    if table:  # GFM splits cells on | before parsing code spans
        s = s.replace("|", "\\|")
    if not s:
        return ""
    ticks = "`" * (_longest_backticks(s) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{ticks}{pad}{s}{pad}{ticks}"


def md_block(value: object, lang: str = "text") -> str:
    """A fenced code block whose fence is longer than any backtick run in the text."""
    s = clean(value).replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    if len(s) > MAX_BLOCK:
        s = s[:MAX_BLOCK] + f"\n[... {len(s) - MAX_BLOCK} characters cut ...]"
    fence = "`" * max(3, _longest_backticks(s) + 1)
    return f"{fence}{lang}\n{s}\n{fence}\n"

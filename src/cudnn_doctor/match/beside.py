"""What stands beside a reading on its line: each question the tolerant reading asks of the text right before
a reading (a fixed prefix, prose, a log line's own prefix, a status, a code comment) or right after it (a cut
mark, prose, a sentence's end, a closing quote), asked one way, here. A question one pattern answers is that pattern
(``PROSE_TAIL``: a word of prose right after a reading); one that several answer is a function (``prose_before``,
``delimited_after``). The readers (confirm.py, weigh.py, spelling.py, chains.py) take them from here.
"""

from __future__ import annotations

import re

from ..kb.patterns import LazyRe
from ..kb.templates import FORMAT, HEAD
from ..read.normalize import line_prefix
from .lines import line_start

# ------------------------------------------------------------------ before a reading, on its line

ENDS_IN_HEAD = LazyRe(HEAD.pattern + r"$")  # a fixed prefix (an exception's name, a status) ends the text
# prose before a message on its line: words, then a colon or a dash with a space after it (not a fixed prefix,
# not a quote that opens a string literal), and the function an eager error names after its status ('...Error:
# {{function_node __wrapped__CudnnRNNV3_device_...}} ')
PROSE_MAX = 400  # characters of prose before a message on its line (a title's; _PROSE_HEAD is quadratic in it)
_PROSE_HEAD = LazyRe(r"[A-Za-z]{2,}[^\n]*?[a-z)\]][ \t]*(?::|\s[-\u2013\u2014])[ \t]+(?:\{\{function_node\ [^{}\n]*\}\}[ \t]*)*$")
# what may stand right before a head cut reading on its line: nothing, a cut mark, an opening quote or bracket, what
# ends a log line's prefix or a prose head (a colon, a bracket, a bar, a dash)
_HEAD_CUT = LazyRe(r"(?:^|[:\]>|=\-\"'`(\[\u201c\u2018]|\.\.\.|\u2026)\s*$")
# an issue title's heading marks, on the text's first line only (elsewhere '# ' is a code comment's, a README's heading)
_TITLE_HEAD = LazyRe(r"\#{1,6} ")
COMMENT = LazyRe(r"[ \t]*(?:#(?!#{0,5} [A-Z\[])|//)")  # a code comment, not a Markdown heading ('# Title')
# what makes a sentence a framework's error, right before it on its line: a named exception or a status ('InvalidArgumentError:',
# TensorFlow's 'Internal:' / 'UNIMPLEMENTED:' / 'Invalid argument:', a CHECK), perhaps with the function it was raised
# in ('{{function_node __wrapped__CudnnRNNV3_...}} '); or a C++ source location before it (a log line's 'E
# tensorflow/.../cuda_dnn.cc:522] ', 'OP_REQUIRES failed at cudnn_rnn_ops.cc:1491 : Unknown: '); not a bare 'Error:'
# (an issue title's, a tool's own); an upper- or lower-cased paste's too ('INVALIDARGUMENTERROR: ')
STATUS_BEFORE = LazyRe(
    r"(?:(?:[\w.]+(?:Error|Exception|ERROR|EXCEPTION|error|exception)|UNKNOWN|INTERNAL|INVALID_ARGUMENT|UNIMPLEMENTED|FAILED_PRECONDITION|NOT_FOUND"
    r"|RESOURCE_EXHAUSTED|UNAVAILABLE|ABORTED|Unknown|Internal|Invalid\ argument|Unimplemented|Failed\ precondition"
    r"|Not\ found|Resource\ exhausted|Unavailable|Aborted|Check\ failed|CUDNN_STATUS_[A-Z_]+)\s*:\s*"
    r"(?:\{\{(?i:function_node)\ [^{}\n]*\}\}\s*)*|\.(?i:cc|cu|cpp|cxx|h)(?::\d+)?(?:\]|\s:)[^\n]*?)$"
)
# what may stand before the status word on its line (``log_prefix_only``), after its CI timestamp and launcher prefix (normalize.py's
# ``line_prefix``): indentation, a quote's '>', pytest's 'E   ', a time, a logger's level or bracketed tags, a
# C++ log line's glog/TF header (severity, time, thread, 'file.cc:24]'), a status code and the quote of a bytes
# repr (torch 0.x's "4: b'CUDNN_STATUS_...'"); not a word of a sentence nor an exception. A run of digits is one
# item, whole (the lookahead): split in every way it backtracked exponentially on a long timestamp before a word
LOG_PREFIX = re.compile(
    r"[ \t>]*(?:E[ \t]+)?(?:\d[\d:.,/T-]*(?![\d:.,/T-])[ \t:]*|[IWEF]\d{4}[ \t]+[\d:.]+[ \t]+\d+[ \t]+"
    r"|(?:ERROR|FATAL|CRITICAL|WARNING|INFO|DEBUG|[IWEF])\b[ \t:|-]*|\[[^\]\n]{0,40}\][ \t:|-]*"
    r"|[\w/.-]+\.(?:cc|cpp|cu|h):\d+\][ \t]*)*(?:b?['\"])?"
)

# ------------------------------------------------------------------ after a reading, on its line

_MARKS = r"\.\.\.|\u2026|\[truncated\]|\(truncated\)"  # what says a text was cut: an ellipsis, a truncation note
CUT_MARK = re.compile(r"\n|" + _MARKS)  # a cut mark, or a line's end (chains.py's ``word_ends``)
ELLIPSIS = LazyRe(r"\s*(?:" + _MARKS + ")")
_PROSE_WORD = r"[ \t]+[a-z]{2,}\b(?![(.\[])"  # prose after a message: a word, not a call's name
PROSE_TAIL = LazyRe(_PROSE_WORD)
# prose after a first clause: on its line, or the line ends there and other text follows (a page or an issue body
# quotes 'RuntimeError: Input and hidden tensors are not at the same device' on a line of its own, then explains it)
PROSE_AFTER = LazyRe(r"[ \t]*[,;.]?(?:" + _PROSE_WORD + r"|[ \t]*\n)")
_SENTENCE_END = LazyRe(r"[.?!]+[ \t]+(?=[A-Z][a-z])|[?!]")
_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201d": "\u201c", "\u2019": "\u2018"}  # closing: opening
# a quote that closes a message: right after it, or after the format fields that end it in its source's string
# literal ('... Expected {}, got {}'.format(...)); a full stop between at most
_CLOSING = LazyRe(r"(?:[ \t,]*(?:" + FORMAT.pattern + r"))*[.!?,;:]?[\"'`\u201d\u2019]")


def prose_before(head: str) -> bool:
    """Whether ``head`` (the text before a reading on its line) is prose that introduces it ('Training crashes
    on Colab: ', '... and got: '), PROSE_MAX characters at most."""
    return len(head) <= PROSE_MAX and _PROSE_HEAD.search(head) is not None


def prose_to_cut(head: str, first_line: bool = False) -> bool:
    """Whether ``head`` is prose before a reading that a regex may read without (``prose_before``): not a fixed
    prefix alone (after a title's heading marks too), not a code comment's (an issue title's heading marks on the
    text's ``first_line`` are no comment's, whatever the case of its first word: '# training crashes: '), not
    inside a quote that it opens."""
    title = first_line and _TITLE_HEAD.match(head.lstrip()) is not None
    body = _TITLE_HEAD.sub("", head.lstrip(), count=1) if title else head.lstrip()
    comment = COMMENT.match(head) is not None and not title
    return prose_before(head) and not HEAD.fullmatch(body) and not comment and head.count('"') % 2 == 0


def head_cut_before(head: str, first_line: bool) -> bool:
    """Whether a reading whose head was cut may stand after ``head`` on its line: no other word right before it
    (nothing, a cut mark, a quote, a bracket, a prefix's end), or an issue title's heading marks (only on the
    text's ``first_line``)."""
    return _HEAD_CUT.search(head) is not None or (first_line and _TITLE_HEAD.fullmatch(head) is not None)


def log_prefix_only(head: str) -> bool:
    """Whether only a log line's own prefix stands in ``head`` (``LOG_PREFIX``): no word of a sentence, no
    fixed prefix (another exception's, a status's) ending it."""
    return LOG_PREFIX.fullmatch(head, line_prefix(head)) is not None and not ENDS_IN_HEAD.search(head)


def delimited_after(text: str, start: int, end: int) -> bool:
    """Whether something ends the reading at [start, end): a cut mark, its quotes closing (``_quoted``), a
    sentence's end."""
    return ELLIPSIS.match(text, end) is not None or _quoted(text, start, end) or _SENTENCE_END.match(text, end) is not None


def _quoted(text: str, start: int, end: int) -> bool:
    """Whether [start, end) is closed by a quote right after it (a full stop between at most) that opens
    before it on its line."""
    m = _CLOSING.match(text, end)
    return m is not None and _QUOTES[m.group(0)[-1]] in text[line_start(text, start) : start]

"""Clean one log line as CI systems and launchers wrote it, keeping line numbers of the original.

Normalization is per line and never joins or drops lines, so line N of the normalized log is line N of the
file. It removes: ANSI escape sequences and other control characters; a trailing CR (CRLF files); progress
bars rewritten with a bare CR (only the last segment is what a terminal showed) or with backspaces (applied
as a terminal does: Keras' Progbar); GitHub Actions timestamps
and ``##[group]``-style markers; what a container runtime or a log viewer puts before every line (a Kubernetes
CRI log's ``<timestamp> stderr F ``, GitLab's ``<timestamp> 00O ``, ``docker compose``'s ``trainer-1  | ``,
journald/syslog's ``Dec 04 16:00:00 host python[1234]: ``, Kaggle's ``6.5s<TAB>12<TAB>``, a log viewer's
``2024-05-14 09:00:01.123<TAB>``); GitLab ``section_start:``/``section_end:`` markers; Jenkins ``[Pipeline]``
lines; and launcher prefixes that tag each line with its process (``[rank3]:``, ``[default0]:``,
``[1,0]<stderr>:``, ``(pid=123)``, kubectl's ``[pod/<name>/<container>]``), which become the line's *stream* so interleaved output of several
processes can be told apart.
"""

from __future__ import annotations

import re
import string
from functools import cache

from .textsafe import ANSI, NORMALIZE_CONTROLS


# compiled on first use (a pasted traceback's lines rarely start with a timestamp or a process tag; ~1.5 ms of
# start-up otherwise), each through a C-level cache: normalize_line runs once per line read
@cache
def _gh_timestamp() -> re.Pattern[str]:
    # an RFC 3339 UTC timestamp (GitHub Actions, `docker logs -t`), and what a runtime writes after it: a
    # Kubernetes CRI log's stream and partial/full tag ('stderr F '), GitLab's stream id ('00O ', '01E+ '); one
    # with a UTC offset (a cloud log's export: '+00:00 '); a log viewer's date and time and a tab before each line
    # (a log viewer's export: '2024-05-14 09:00:01.123<TAB>'), but not a log record's own, which a space follows
    # ('2024-05-14 09:00:01.123 E tensorflow/...', logging's ',123 - ', onnxruntime's '.8248668 [E:onnxruntime')
    return re.compile(
        r"^\ufeff?\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}) (?:std(?:out|err) [FP] |[0-9a-f]{2}[OE]\+? )?"
        r"| \d{2}:\d{2}:\d{2}(?:\.\d{3})?\t)"
    )


@cache
def _kaggle() -> re.Pattern[str]:
    return re.compile(r"^\d+(?:\.\d+)?s\t\d+\t")  # a Kaggle notebook's log: '6.5s<TAB>12<TAB>'


@cache
def _syslog() -> re.Pattern[str]:
    # journald / syslog: 'Dec 04 16:00:00 host python[1234]: ' (the process's name and id optional: 'kernel: ')
    return re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} [\w.-]+ [\w.@/()-]+(?:\[\d+\])?: ")


@cache
def _compose() -> re.Pattern[str]:
    # docker compose: a container's name, ending in its replica number, padded to align the bars: 'trainer-1  | '
    return re.compile(r"^[A-Za-z][\w.-]*[-_]\d+ *\| ")


# the characters a prefix starts with: a timestamp, a BOM, a CI marker, a host's or a container's name
_PREFIX_STARTS = frozenset("0123456789\ufeff#[" + string.ascii_letters)
_TIMESTAMP_STARTS = frozenset("0123456789\ufeff")  # (a set, not a string: the empty slice at a line's end is in every string)
_MONTHS = frozenset(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"])


@cache
def _gh_marker() -> re.Pattern[str]:
    return re.compile(r"^##\[(?:group|endgroup|section|command|debug|warning|error|notice)\]")


@cache
def _gitlab_section() -> re.Pattern[str]:
    return re.compile(r"^section_(?:start|end):\d+:[A-Za-z0-9_.-]+(?:\[[^\]]*\])?")


@cache
def _stream() -> re.Pattern[str]:
    return re.compile(
        r"^(?:\[(?P<rank>(?:rank|default|local_rank|worker)\d+)\]:\s?"
        r"|\[(?P<mpi>\d+,\d+)\]<std(?:out|err)>:(?: (?=\S))?"  # Open MPI adds no space: one is the line's indentation
        r"|\((?P<ray>(?:[A-Za-z_][\w.]* )?pid=\d+(?:, ip=[\d.]+)?)\)\s"
        r"|\[(?P<pod>pod/[\w.-]+/[\w.-]+)\] "  # kubectl logs --prefix: '[pod/<name>/<container>] '
        r"|(?P<rankn>\d+): (?=\[|Traceback|  File |\w+Error|\w+Warning))"
    )


def normalize_line(line: str) -> tuple[str, str]:
    """Return (clean text, stream key) for one raw line (without its newline)."""
    if line.endswith("\r"):
        line = line.rstrip("\r")
    if "\r" in line or "\b" in line:
        line = _terminal(line)
    if "\x1b" in line or "\x9b" in line:  # inline tests: this runs once per line of multi-GB logs
        line = ANSI.sub("", line)
    if line and line[0] in _PREFIX_STARTS:
        line = _ci_prefix(line)
    stream = ""
    if line and line[0] in "[(0123456789":
        m = _stream().match(line)
        if m:
            stream = next(v for v in m.groups() if v)
            line = line[m.end():]
    if not line.isprintable() and NORMALIZE_CONTROLS.search(line):  # isprintable: one C pass, true for most lines
        line = NORMALIZE_CONTROLS.sub("", line)
    return line, stream


def _ci_prefix(line: str) -> str:
    """The line without a host's or container's prefix (journald, docker compose), a timestamp and a CI
    system's marker (GitHub ``##[group]``, GitLab ``section_start:``, a Jenkins ``[Pipeline]`` line: nothing
    left)."""
    if line[0].isalpha():
        line = line[_host_prefix(line) :]
        if not line:
            return line
    if line[0] in _TIMESTAMP_STARTS:
        line = line[_timestamp(line) :]
    if line.startswith("##["):
        return _gh_marker().sub("", line, count=1)
    if line.startswith("section_"):
        return _gitlab_section().sub("", line, count=1)
    return "" if line.startswith("[Pipeline]") else line


def _host_prefix(line: str) -> int:
    """The length of a journald/syslog or ``docker compose`` prefix on a line that starts with a letter (0:
    none): a look at two or three characters first, the pattern only where they fit."""
    if line[3:4] == " " and line[:3] in _MONTHS:
        m = _syslog().match(line)
    elif "| " in line[:64]:
        m = _compose().match(line)
    else:
        return 0
    return m.end() if m else 0


def _timestamp(line: str) -> int:
    """The length of a timestamp prefix (and what a runtime writes after it) on a line that starts with a digit."""
    m = _gh_timestamp().match(line)
    if m is None and "s\t" in line[:12]:
        m = _kaggle().match(line)
    return m.end() if m else 0


def _terminal(line: str) -> str:
    """What a terminal shows of a line rewritten with carriage returns (the last segment with text) and
    backspaces (applied)."""
    if "\r" in line:
        parts = [p for p in line.split("\r") if p.strip() and p.strip("\b").strip()]
        line = parts[-1] if parts else ""
    return _backspaced(line) if "\b" in line else line


def _backspaced(line: str) -> str:
    """The line as a terminal shows it: a backspace moves the cursor back one column, and what follows
    overwrites from there (a backspace at the start of the line stays there)."""
    out: list[str] = []
    col = 0
    for piece in line.split("\b"):
        out[col : col + len(piece)] = piece
        col += len(piece)
        col = max(0, col - 1)
    return "".join(out)


def line_prefix(line: str) -> int:
    """The length of a line's CI timestamp and process prefix (``2024-..Z [rank0]: ``), which a tool that wraps
    long lines repeats on every piece."""
    pos = _host_prefix(line) if line[:1].isalpha() else 0
    if line[pos : pos + 1] in _TIMESTAMP_STARTS:
        pos += _timestamp(line[pos:] if pos else line)
    if line[pos : pos + 1] in ("[", "(") or line[pos : pos + 1].isdigit():
        m = _stream().match(line[pos:] if pos else line)
        if m:
            pos += m.end()
    return pos


def clean_text(text: str) -> str:
    """Normalize a whole (small) text; handy for tests and for pasted input."""
    return "\n".join(normalize_line(line)[0] for line in text.split("\n"))

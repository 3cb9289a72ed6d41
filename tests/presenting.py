"""The ways people post a log, as functions of the log's text (used by the self-checks over the whole base).

Each takes the text and returns it presented; none knows anything about the signatures. The notebook one
builds a real notebook file with nbformat (an error output whose traceback holds the log's lines, the exception
line coloured as IPython colours it).
"""

from __future__ import annotations

import html
import json
import re

RED, RESET = "\x1b[91m", "\x1b[39m"


def hard_wrap(text: str, width: int) -> str:
    """Every line longer than ``width`` cut into pieces of exactly ``width`` columns (mid-word), as a console
    window or a fixed-width paste does."""
    out: list[str] = []
    for line in text.split("\n"):
        while len(line) > width:
            out.append(line[:width])
            line = line[width:]
        out.append(line)
    return "\n".join(out)


def quoted(text: str) -> str:
    """A forum / e-mail reply: every line behind ``> ``."""
    return "\n".join("> " + line if line else ">" for line in text.split("\n"))


def nested_quoted(text: str) -> str:
    """A reply to a reply, as a mail client or a forum quotes it: every line behind ``>> ``."""
    return "\n".join(">> " + line if line else ">>" for line in text.split("\n"))


def indented(text: str) -> str:
    """A Markdown indented code block (Stack Overflow's 'code' button): four spaces before every line."""
    return "\n".join("    " + line if line else "" for line in text.split("\n"))


def console(text: str, width: int = 80) -> str:
    """Copied out of a Windows console window (a rectangular selection): wrapped at the window's width and every
    line padded with spaces to it."""
    return "\n".join(line.ljust(width) for line in hard_wrap(text, width).split("\n"))


def html_escaped(text: str) -> str:
    """Copied out of a web page's source: ``&quot;``, ``&#x27;``, ``&lt;``, ``&amp;``."""
    return html.escape(text, quote=True)


def ci_prefixed(text: str) -> str:
    """A GitHub Actions log of a torchrun job on a Windows runner: timestamp and rank on every line, CRLF."""
    return "\r\n".join(f"2024-05-01T10:00:{i % 60:02d}.1234567Z [rank0]: {line}" for i, line in enumerate(text.split("\n")))


def cri(text: str) -> str:
    """A Kubernetes pod's log as the kubelet stores it (/var/log/pods, CRI format): an RFC 3339 timestamp with
    nanoseconds, the stream and the full/partial tag on every line."""
    return "\n".join(f"2024-05-14T09:00:{i % 60:02d}.123456789Z stderr F {line}" for i, line in enumerate(text.split("\n")))


def compose(text: str) -> str:
    """``docker compose up`` / ``logs``: the container's name, padded, and a bar on every line."""
    return "\n".join(f"trainer-1  | {line}" for line in text.split("\n"))


def journald(text: str) -> str:
    """``journalctl`` / syslog (a systemd service's training run): date, host and process on every line."""
    return "\n".join(f"Dec 04 16:00:{i % 60:02d} gpu-node-3 python[1234]: {line}" for i, line in enumerate(text.split("\n")))


def kaggle(text: str) -> str:
    """A Kaggle notebook's log viewer copied: a header, then elapsed time and line number, tab-separated."""
    return "Time\t#\tLog Message\n" + "\n".join(f"{6.5 + i / 10:.1f}s\t{i + 1}\t{line}" for i, line in enumerate(text.split("\n")))


def mpi(text: str) -> str:
    """``mpirun --tag-output`` (Open MPI, Horovod): job and rank, the stream, a colon, and the line as it was."""
    return "\n".join(f"[1,0]<stderr>:{line}" for line in text.split("\n"))


def ray(text: str) -> str:
    """A Ray Train worker's output as the driver prints it: the actor, its pid and node before every line."""
    return "\n".join(f"(RayTrainWorker pid=1234, ip=10.0.0.1) {line}" for line in text.split("\n"))


def srun(text: str) -> str:
    """A SLURM job's output run with ``srun -l``: the task's number and a colon before every line."""
    return "\n".join(f"0: {line}" for line in text.split("\n"))


def kubectl(text: str) -> str:
    """``kubectl logs --prefix`` (a job's pods): ``[pod/<name>/<container>] `` before every line."""
    return "\n".join(f"[pod/trainer-7d9f-0/trainer] {line}" for line in text.split("\n"))


def viewer(text: str) -> str:
    """A log viewer's export (Grafana/Loki's): the date and time each line arrived (milliseconds or none), a
    tab, the line."""
    return "\n".join(f"2024-05-14 09:00:{i % 60:02d}{'.123' if i % 2 else ''}\t{line}" for i, line in enumerate(text.split("\n")))


def docker_json(text: str) -> str:
    """Docker's json-file log (``/var/lib/docker/containers/<id>/<id>-json.log``, what a log shipper forwards):
    one JSON object per line, the line in ``log`` with its newline."""
    return "\n".join(
        json.dumps({"log": line + "\n", "stream": "stderr", "time": f"2024-05-14T09:00:{i % 60:02d}.123456789Z"}) for i, line in enumerate(text.split("\n"))
    )


def json_record(text: str) -> str:
    """A JSON log formatter's record of the failure (python-json-logger's ``logger.exception``): the whole log
    in one escaped string of one line."""
    return json.dumps({"asctime": "2024-05-14 09:00:00,123", "levelname": "ERROR", "message": "training failed", "exc_info": text})


def notebook(text: str) -> str:
    """The log as a notebook cell's error output, saved by nbformat (the .ipynb JSON a user pastes).

    nbformat is a test extra: imported here, so that a run without it (CI's lowest-dependency run) can still
    use the other presentations."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    lines = text.rstrip("\n").split("\n")
    tb = []
    for line in lines:
        head, sep, rest = line.partition(": ")
        if sep and head.replace(".", "").replace("_", "").isalnum() and head.endswith(("Error", "Exception")):
            line = f"{RED}{head}{RESET}: {rest}"
        tb.append(line)
    last = lines[-1] if lines else ""
    ename, _, evalue = last.partition(": ")
    cell = new_code_cell(
        "model.fit(x, y)",
        execution_count=3,
        outputs=[new_output("error", ename=ename[:60] or "Error", evalue=evalue, traceback=tb)],
    )
    return nbformat.writes(new_notebook(cells=[cell]))


def terminal(text: str) -> str:
    """Captured from a colour terminal (``script``, ``--color=always``, a CI log with colours kept): the
    exception name red, numbers and quoted strings highlighted as rich's and IPython's highlighters do, so that
    escape sequences sit inside the message."""
    out = []
    for line in text.split("\n"):
        line = re.sub(r"\b(\d+(?:\.\d+)?)\b", "\x1b[1;36m\\1\x1b[0m", line)
        line = re.sub(r"'([^'\n]{1,40})'", "\x1b[32m'\\1'\x1b[0m", line)
        head, sep, rest = line.partition(": ")
        if sep and head.replace(".", "").replace("_", "").isalnum() and head.endswith(("Error", "Exception")):
            line = f"{RED}{head}{RESET}: {rest}"
        out.append(line)
    return "\n".join(out)


_DUNDER = re.compile(r"(?<![\w*])__(\w+?)__(?!\w)")
_STRONG = re.compile(r"(?<![\w*])\*\*(\S[^*\n]*?\S|\S)\*\*(?![\w*])")
_UNKNOWN_TAG = re.compile(r"</?[A-Za-z][\w-]*>")


def _rendered_line(line: str) -> str:
    """One line of Markdown as GitHub shows it outside a code block: its indentation gone (a paragraph's
    continuation line), ``__init__`` bold ``init``, ``**x**`` bold ``x``, a tag it does not allow
    (``<module>``) dropped."""
    return _UNKNOWN_TAG.sub("", _STRONG.sub(r"\1", _DUNDER.sub(r"\1", line.strip())))


def rendered(text: str) -> str:
    """A GitHub issue page copied from the browser: the poster's line and prose around the log, pasted without
    a code fence in a ``<details>`` block (its 'Click to expand' summary, expanded before copying), so the
    Markdown is rendered: indentation gone, ``__init__`` shown as bold ``init``, ``<module>`` dropped, blank
    lines collapsed; the page's 'Copy' button text and a reaction after it."""
    body = [_rendered_line(x) for x in text.rstrip("\n").split("\n")]
    body = [x for i, x in enumerate(body) if x or (i > 0 and body[i - 1])]
    return "\n".join(["alice-ml commented on May 14, 2024", "", "I get this when training my model:", "", "Click to expand", *body, "",
                      "Any idea what is wrong? Thanks!", "", "Copy link", "👍 1"])


def collapsed(text: str) -> str:
    """A page that lost the log's line breaks (a paste into a web form outside a code block, a log viewer's one
    field): every run of whitespace one space, the whole log one line, frames running together."""
    return " ".join(text.split())


_RAISED = re.compile(r"^((?:[\w.]+\.)?\w*(?:Error|Exception)\w*)(: )")
_WIDE = str.maketrans({":": "\uff1a", ",": "\uff0c", "(": "\uff08", ")": "\uff09", ";": "\uff1b", "!": "\uff01", "?": "\uff1f"})


def cjk(text: str) -> str:
    """A Chinese blog's or issue's prose (CSDN, Zhihu): the exception lines retyped with an input method's
    full-width punctuation ('：', '，', '（）', no space after them) and glued to the words before them
    ('报错RuntimeError：...'), the indentation in ideographic spaces (U+3000), the poster's words around the log."""
    out = []
    for line in text.split("\n"):
        if _RAISED.match(line):
            line = "运行时报错" + line.replace(": ", ":").replace(", ", ",").translate(_WIDE)
        out.append(re.sub(r"^( +)", lambda m: "\u3000" * (len(m.group(1)) // 2) + " " * (len(m.group(1)) % 2), line))
    return "我在训练模型的时候出现了这个问题：\n" + "\n".join(out).rstrip("\n") + "\n求大神解答，谢谢！"


def md_escaped(text: str) -> str:
    """Pasted into a rich-text editor that writes Markdown (reddit's, a chat's): its special characters
    backslash-escaped ('CUDNN\\_STATUS\\_BAD\\_PARAM', '\\<module\\>', '\\[1\\]')."""
    return re.sub(r"([_*\[\]<>#`])", r"\\\1", text)


def workflow_command(text: str) -> str:
    """A tool's GitHub Actions annotation of the failure printed where no runner reads it (another CI, a local
    run): ``::error file=...,line=...::`` and the whole log on one line, its line breaks ``%0A``."""
    body = text.rstrip("\n").replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return "Run python train.py\n::error file=train.py,line=42::" + body + "\n"


def panel(text: str) -> str:
    """VS Code's exception panel copied under the terminal's output: the log up to the last traceback as it
    was, then 'Exception has occurred: <name>' and the message on the next line, the traceback's frames below
    it (no 'Traceback' line), the rest of the log after."""
    lines = text.rstrip("\n").split("\n")
    for i in range(len(lines) - 1, -1, -1):
        m = _RAISED.match(lines[i])
        if m:
            start = max((k for k in range(i) if lines[k].startswith("Traceback (")), default=i)
            frames = [x for x in lines[start:i] if not x.startswith("Traceback (")]
            return "\n".join([*lines[:start], "Exception has occurred: " + m.group(1), lines[i][m.end() :], *frames, *lines[i + 1 :]])
    return text


def spans(text: str) -> str:
    """Pasted into Slack, Discord or Teams one line at a time as inline code: every line that is not blank in
    single backticks (a '`' inside a line stays), the poster's line before them."""
    return "this is what I get:\n" + "\n".join("`" + line + "`" if line.strip() else "" for line in text.rstrip("\n").split("\n"))


def chat_block(text: str) -> str:
    """A chat's code block copied out of Slack or Discord: the triple backticks glued to the log's first and
    last lines ('```Traceback (most recent call last):', 'RuntimeError: ...```'), the newlines kept, quoted
    with the poster's line by a reply ('> ' on every line)."""
    block = ("```" + text.strip("\n") + "```").split("\n")
    return "> getting this on the GPU box, any idea?\n" + "\n".join("> " + x if x else ">" for x in block)


def chat_line(text: str) -> str:
    """A chat's code block whose newlines were lost (Teams, a chat exported or re-pasted as one line): the
    whole log one line between triple backticks."""
    return "anyone seen this? ```" + " ".join(text.split()) + "```"


def email(text: str, width: int = 72) -> str:
    """A mailing-list reply: the log re-wrapped by the mail client at ``width`` columns (each long line folded at
    its last space before the width, a word longer than the width left whole, the continuation at column 0)
    and then quoted ``> `` by the reply (the quote mark on every folded piece)."""
    out: list[str] = []
    for line in text.rstrip("\n").split("\n"):
        while len(line) > width:
            cut = line.rfind(" ", 0, width + 1)
            if cut <= len(line) - len(line.lstrip()):  # no space after the indentation: a long word left whole
                break
            out.append(line[:cut])
            line = line[cut + 1 :]
        out.append(line)
    return "On Tue, May 14, 2024 at 9:00 AM Alice <alice@example.org> wrote:\n" + "\n".join("> " + x if x else ">" for x in out)


_FRAME_HEAD = re.compile(r'^\s*File "')


def sentry(text: str) -> str:
    """An error tracker's event (Sentry's issue page copied): the exception's type and message first as its
    title, then the frames most recent first, each with its source line; the lines before the traceback as
    they were, no 'Traceback' line."""
    lines = text.rstrip("\n").split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if _RAISED.match(lines[i]):
            start = max((k for k in range(i) if lines[k].startswith("Traceback (")), default=None)
            if start is None:
                return text
            frames: list[list[str]] = []
            for x in lines[start + 1 : i]:
                if _FRAME_HEAD.match(x) or not frames:
                    frames.append([x])
                else:
                    frames[-1].append(x)
            return "\n".join([*lines[:start], lines[i], *[x for f in reversed(frames) for x in f], *lines[i + 1 :]])
    return text


def powershell(text: str) -> str:
    """Windows PowerShell running ``python train.py 2>&1``: the first line Python wrote to stderr is the text of
    a ``NativeCommandError`` record (``python : <line>``, where and what, its category and id), the other
    stderr lines after it as they were."""
    lines = text.rstrip("\n").split("\n")
    i = next((k for k, x in enumerate(lines) if x.startswith("Traceback (") or _RAISED.match(x)), 0)
    record = [
        "python : " + lines[i],
        "At line:1 char:1",
        "+ python train.py",
        "+ ~~~~~~~~~~~~~~~",
        f"    + CategoryInfo          : NotSpecified: ({lines[i][:40]}:String) [], RemoteException",
        "    + FullyQualifiedErrorId : NativeCommandError",
        " ",
    ]
    return "\n".join([*lines[:i], *record, *lines[i + 1 :]])


def cjk_glued(text: str) -> str:
    """A Chinese post (CSDN, a QQ group) whose prose runs into the log: '运行报错：' glued to the traceback's
    head and '报错信息：' to the exception line, with nothing between them (the log's own punctuation kept)."""
    out = []
    for line in text.split("\n"):
        if line.startswith("Traceback ("):
            line = "运行报错：" + line
        elif _RAISED.match(line):
            line = "报错信息：" + line
        out.append(line)
    return "\n".join(out)


def titled(text: str) -> str:
    """A GitHub issue whose title is the error line and whose body's traceback stops before it (the poster cut
    the message off the pasted traceback): where the text ends with an exception line right under a
    traceback's frames, that line goes to a Markdown heading above the text, a blank line after it."""
    lines = text.rstrip("\n").split("\n")
    last = lines[-1]
    if len(lines) < 3 or not _RAISED.match(last) or not lines[-2][:1].isspace() or not any(x.startswith("Traceback (") for x in lines):
        return text
    return "\n".join(["# " + last, "", *lines[:-1]])


def cut(text: str, at: int) -> str:
    """The input stops at character ``at`` (a title cut mid-word, a truncated paste)."""
    return text[:at]


# ``email`` (a mail client's re-wrap at 72 columns, quoted): 105 of 1,072 examples differed on 7748e75 and 4
# counter-examples matched while only a hard wrap's lines of equal width were read; read/present.py reads a fold
# below the attribution line (``_fold_width``): 0 of 1,088 differ on its branch (lead23), none matched.
PRESENTATIONS = {
    "wrap60": lambda t: hard_wrap(t, 60),
    "wrap80": lambda t: hard_wrap(t, 80),
    "wrap120": lambda t: hard_wrap(t, 120),
    "quoted": quoted,
    "nested": nested_quoted,
    "indented": indented,
    "console": console,
    "html": html_escaped,
    "notebook": notebook,
    "terminal": terminal,
    "ci": ci_prefixed,
    "cri": cri,
    "compose": compose,
    "journald": journald,
    "kaggle": kaggle,
    "srun": srun,
    "mpi": mpi,
    "ray": ray,
    "docker-json": docker_json,
    "json-record": json_record,
    "rendered": rendered,
    "collapsed": collapsed,
    "cjk": cjk,
    "escaped": md_escaped,
    "command": workflow_command,
    "panel": panel,
    "kubectl": kubectl,
    "viewer": viewer,
    "spans": spans,
    "chat-block": chat_block,
    "chat-line": chat_line,
    "powershell": powershell,
    "sentry": sentry,
    "cjk-glued": cjk_glued,
    "titled": titled,
    "email": email,
}

"""Raise sites: the signatures raised where a line says an error was raised, its message missing or cut.

A signature's ``raised_at`` entries name the file and function (and perhaps the exception) it is raised in.
A line names such a place in three ways: a Python traceback's frame (its innermost, or one whose source line
calls a function of the same file where signatures are raised), a C++ backtrace's frame (read/frames.py's
``backtrace``), or a C++ log line's glog/dmlc prefix. ``Sites.at`` says which signatures were raised there,
why, and whether the line tells them alone; tolerant.py's ``Tolerant.raised`` reads each line of a region with
it and turns what it says into findings or near misses.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kb.patterns import LazyRe
from ..kb.templates import HEAD, stem, words
from ..model import Signature, raise_site
from ..read import frames
from .chains import Recognizer, runs, walk

# the framework's RNN code: a file or function so named (torch/nn/modules/rnn.py, keras/layers/rnn/, lstm_fwd)
RNN_CODE = LazyRe(r"(?i)rnn|lstm|gru|recurrent")
Site = tuple[list[int], str, bool]  # the signatures raised there, why, and whether the line tells them alone


class Sites:
    """The raise sites of a base's signatures (their ``raised_at``), read on a line."""

    def __init__(self, sigs: Sequence[Signature], rec: Recognizer) -> None:
        self.rec = rec  # (the templates: what a cut message or a missing attribute is read against)
        # each raise site (file, function): the signatures raised there, each with the exceptions it is raised as
        # there (None: any, an entry names none)
        self.frames: dict[tuple[str, str], dict[int, frozenset[str] | None]] = {}
        for idx, sig in enumerate(sigs):
            for where in sig.raised_at:
                path, function, exception = raise_site(where)
                raised_as = self.frames.setdefault((path.replace("\\", "/"), function.rpartition(".")[2]), {})
                had = raised_as.get(idx, frozenset())
                raised_as[idx] = None if had is None or exception is None else had | {exception}

    def at(self, lines: Sequence[str], li: int) -> Site | None:
        """The signatures raised where line ``li`` says an error was raised, and why: a traceback that stops at
        a frame whose shown source line calls a function of the same file where signatures are raised (those
        signatures: ``self.check_hidden_size(hx, expected_hidden_size)`` in torch/nn/modules/rnn.py, the input
        cut after it or its message line empty or cut, ``cut_call``); a traceback's innermost frame with no
        message after it, or with its message cut at the input's end partway through the template of a
        signature raised there (those signatures); a C++ error's log line, cut at the input's end, whose
        glog/dmlc prefix names the file it was raised in (``src/operator/rnn.cu:24: RNN is``); and whether that
        tells them alone: words of their message do, a frame with no message only in the framework's RNN code
        (``RNN_CODE``: torch/nn/modules/module.py's __getattr__ or TensorFlow's session.py raise every kind of
        error). A signature raised there as another exception than the message line names (its ``raised_at``
        entry says which: check_input raises the dtype error as ValueError, the rank and size errors as
        RuntimeError) is not it; an AttributeError's empty message line under a source line that reads the
        attribute a signature raised there names tells it (``_attribute``). None where the line is neither a
        frame nor such a log line."""
        at = frames.frame(lines[li])
        if at is None:  # a C++ backtrace, else a log line
            if (cpp := self._backtrace(lines, li)) is not None or (log := frames.logged(lines, li)) is None:
                return cpp
            return self._cut_at(self._raising(log[0], None), log[1], 2), f"the log line raised in {log[0]} is cut: {log[1][-60:]!r}", True
        raised = frames.raised_as(lines, li)  # the exception its message line names
        if raised is not None and frames.not_raised(raised):
            return None  # (SystemExit, KeyError: never a framework's message)
        called, msg = frames.cut_call(lines, li) or (None, None)
        idxs = (self._raising(at[0], called, raised) or self._raising(None, called, raised)) if called else []
        why = f"the traceback {'is cut' if msg is None else 'ends without its message'} where {at[1]}() of {at[0].rpartition('/')[2]} calls {called}()"
        if not idxs:
            msg = frames.innermost(lines, li)
            idxs = self._raising(*at, raised) if msg is not None else []
            why = f"the traceback ends in {lines[li].strip()[:80]!r} without its message"
        if not idxs:
            return self._attribute(lines, li, at)
        if msg:
            return self._cut_at(idxs, msg), f"the traceback's message is cut: {msg[-60:]!r}", True
        return idxs, why, RNN_CODE.search(" ".join(at)) is not None

    def _backtrace(self, lines: Sequence[str], li: int) -> Site | None:
        """The signatures raised in the function where a C++ backtrace without its message was raised
        (read/frames.py's ``backtrace``: 'frame #2: at::native::_cudnn_rnn_flatten_weight(...) + 0x1a2 (...)'), the
        native function a Python frame's call into it names too; never telling one (the function alone does not
        say which of its errors it was). None where that function is no raise site."""
        site = frames.backtrace(lines, li)
        idxs = self._raising(*site) if site is not None and site[1] else []
        return (idxs, f"the C++ backtrace names {site[1]}() without its message", False) if site and idxs else None

    def _attribute(self, lines: Sequence[str], li: int, at: tuple[str, str]) -> Site | None:
        """The signatures raised where the traceback's last frame, at ``li``, is, whose message says an attribute
        its source line reads is missing, where its message line is an AttributeError's with no text
        (``frames.attributes_read``): ``has no attribute 'reserve_space'`` of a template, ``self.reserve_space``
        read by the line (the name tells them). None where there are none."""
        names = dict.fromkeys(frames.attributes_read(lines, li))  # (first: most frames are followed by no such line)
        raising = self._raising(*at, "AttributeError") if names else []
        for name in names if raising else ():
            said = (_ATTRIBUTE_WORD, *(w for w, _a, _b in words(name)))
            idxs = [i for i in raising if any(runs(self.rec.tpls[t], said) for t in self.rec.of.get(i, ()))]
            if idxs:
                return idxs, f"the traceback ends where {at[1]}() reads {name} without its message (AttributeError)", True
        return None

    def _raising(self, path: str | None, function: str | None, raised: str | None = None) -> list[int]:
        """The signatures raised in ``function`` (None: anywhere, a log line's prefix names no function) of the
        file at ``path``; None: in native code's ``function`` (of a C/C++ file), what a Python frame's call into it
        raises (``_VF._pack_padded_sequence(input, lengths, batch_first)``, the ATen function of that name).
        ``raised``: the exception the traceback's message line names (None: none); a signature raised there as
        another (its ``raised_at`` entry names it) is not it."""
        sites = [(p, f) for p, f in self.frames if (f == function and frames.native(p) if path is None else path.endswith(p) and (not f or function in (None, f)))]
        # (a wrapper's exception ends with the class it wraps: torch._dynamo's TorchRuntimeError a RuntimeError)
        return sorted({i for site in sites for i, a in self.frames[site].items() if raised is None or a is None or any(raised.endswith(x) for x in a)})

    def _cut_at(self, idxs: Sequence[int], msg: str, least: int = 1) -> list[int]:
        """The signatures of ``idxs`` one of whose templates the message, cut, begins: its words (its fixed
        prefix apart; ``least`` of them at least: a file raises more than one function does, and a generic
        first word, 'Check', tells little) are the template's first ones, values absorbed, its last word
        perhaps cut short."""
        head = HEAD.match(msg)
        read = [w for w, _a, _b in words(msg[head.end() :] if head else msg)]
        return [i for i in idxs if any(_begins(read, self.rec.tpls[t]) for t in self.rec.of.get(i, ()))] if len(read) >= least else []


_ATTRIBUTE_WORD = stem("attribute")  # of a template's 'has no attribute ...'


def _begins(read: Sequence[str], tpl: Sequence[str]) -> bool:
    """Whether the words ``read`` are the start of the template's message (``tpl``: its head, then its words)
    stopped partway (``walk``): before its end or in its last word, or in a value (the last one after its last
    word) whose words are a value's: a few words, or numbers ('(1, 64, 2'), not a sentence another message goes
    on with ('the type torch.float32, got type torc')."""
    k, i = walk(tpl, read, 1, 0)
    if i == len(read):
        return k < len(tpl) or read[-1] != tpl[-1]
    rest = read[i:]
    return (k >= len(tpl) or not tpl[k]) and (len(rest) <= 3 or all(any(c.isdigit() for c in w) for w in rest))

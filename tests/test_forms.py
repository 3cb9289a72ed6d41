"""Every example of every signature in the forms people carry a message in (issue 27), the tolerant reading's
proof over the whole base: as an issue title, lower- and upper-cased, without its fixed prefix and suffix,
with its second half on the next line, cut at every word boundary from the signature's shortest distinctive
prefix on, and (for signatures that name where they are raised) as a traceback with its message line
emptied. Each must give the example's top finding. Counter-examples stay unmatched in every form.

The whole base is ``@pytest.mark.exhaustive`` (.ci/run); the default run takes a sample of it.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterator

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.cli.validate import shortest_prefix
from cudnn_doctor.kb.patterns import compile_pattern
from cudnn_doctor.kb.templates import words
from cudnn_doctor.match import Matcher
from cudnn_doctor.match.sites import RNN_CODE
from cudnn_doctor.match.tolerant import Tolerant
from cudnn_doctor.match.weigh import MIN_BITS, one_message
from cudnn_doctor.model import Signature
from cudnn_doctor.read.normalize import clean_text
from forms import (  # tests/ is on sys.path (rootdir-based imports)
    FORMS,
    cuts,
    emptied,
    heads,
    message,
)
from test_census import COVERED, render

CATALOG = catalogs.builtin()
READER = Tolerant(CATALOG.signatures, Matcher(CATALOG).evidence)
SAMPLE = 15  # the default run: one example in SAMPLE (by a hash of its id and name)
# the share of cases a form may still miss (issue 27's goal is none): a ratchet at what the mechanism gives.
# The whole base (the exhaustive run) measured on c49028d title 72/1715, lower 36/1715, upper 9/1715, capitalized
# 14/1715, bare 96/795, split 157/1695, cut 98/7793, emptied 16/64; with the tolerant reading of short messages
# and delimited (quoted, sentence, source-literal) messages: title 69/1715, bare 86/795, split 131/1695, cut
# 102/7904 (more cut points: shorter distinctive prefixes), the rest unchanged (before the emptied traceback's
# multi-line raise was read). The sample (every 15th example) title 4/115, lower 3/115, bare 9/52, split 10/115,
# cut 10/514. Most misses are a cause or a framework's wrapper losing to its generic where the form drops the
# evidence or the wording that told them apart (the sample's bare rate, 8/56, keeps bare at 0.16). On 6b09aef
# (stems, respelling, a message's line breaks read as spaces in the regex, prose after a whole message, other
# signatures read in another case on lines a regex matched): title 33/1717, lower 14/1717, upper 7/1717,
# capitalized 13/1717, bare 86/796, split 108/1697, cut 100/7906, emptied 9/64; the sample title 2/115, lower 0,
# bare 8/56, split 6/114, cut 1/538. On 019d11e (1,725 examples): title 34, lower 15, upper 7, capitalized 14, bare
# 86/799, split 110/1705, cut 100/7923, emptied 9/64; branch quality4 (a cut counts from what tells its message
# apart, a cut word of one or two letters, two words a line break parts not joined as one): split 106/1705, cut
# 101/8642 (more cut points: shorter distinctive prefixes), the rest unchanged. On 03871af (1,754 examples) split
# 106/1737; branch read5 (read/present.py undoes a presentation only where it is there: a lone bullet or quote mark
# glued to the line before is the text's, a line break where text has a space is no hard wrap's cut): split 78/1737,
# title 32, upper 8, capitalized 11, bare 88/818, the rest unchanged. Lower these as classes are fixed.
# On the merge of read5 into main (1,784 examples, the wrappers' rank in): cut 109/8783. The wrappers' rank made
# mxnet/rnn-cudnn-status the top of three MXNet examples, whose cut points fall before the status name on a line
# cudnn/status-check-failed's regex reads whole ('... (3 vs. 0) : cuD'): 9 of the 109 (the same cases as the
# presentations test's); cut 0.012 -> 0.0124.
# Branch kb5 (five converter/exporter/tracer signatures, 1,772 examples and census entries): split 82/1772, 4 of them
# the new signatures' (a hard wrap that leaves the second half starting '_thnn_fused_*_cell because ...' in the old
# ONNX exporter warning, twice as census renders, and a wrapped reason='TorchDynamo ...' inside a Dynamo DEBUG log
# line): the reader does not rejoin those lines (a reader limit, not the regexes: the unwrapped texts match); split
# 0.045 -> 0.0465.
# Branch frag20 (issue 27's head cut): "head", the message's fixed prefix and first k words gone, for every k while
# the words left still tell it apart (``distinct``: the tolerant reading's own measure), the rest of the text kept.
# Right: the same top finding, or, where none is, a near miss naming it (what is left may not say enough to be a
# finding: a near miss is the answer at worst). Whole base on 810fdab: 5,699 of 12,050 miss (2,398 right, 3,953
# near misses, 880 wrong, 4,819 nothing); on frag20 4,596 of 12,153 (4,753 right, 2,804 near misses, 843 wrong,
# 3,753 nothing; more forms: a chain grows back over a value, so more is distinctive). Most of what is left
# wrong is a cause losing to its generic where its distinctive start is cut (a status name left alone).
# Lead session 15: "titled head", each head cut as an issue title over the rest of the text (its first line, '# '
# before it, its log prefix gone): a user's title of a message typed without its first words ('# hx is not
# contiguous'). Whole base on 28d48bf + the title fix: 4,882 of 12,602 miss (head: 4,657 of 12,482 before census25);
# before it, '# ' stood before the reading, so no head was put back (a probe: 182 of 732 missed, then 5).
# review25b: "wrapped", the message's line hard-wrapped at 80 columns inside a word of the message (a terminal's
# wrap), which no other form or measured set did: 69 of 661 miss on the whole base (66f3a52), a lead for the reader.
# Branch recall30 (whole base, 3e0944a -> recall30): bare 80 -> 53 of 1,028 (a cause read where its generic matched,
# the prefix its regex spells put back: match/refine.py), wrapped 69 -> 9 of 673 (read/present.py finds a wrap's width
# under a longer line, and a page's collapsed lines once unwrapped; a near miss's regex tried with a wrap's split
# word joined), split 94 -> 88 of 2,165, emptied 15 of 96 (unchanged; the ratchet lowered to it).
# Branch recall31 (recall30 with fix30b's framework gating of refine.py and the wrap fixes, measured on the whole
# base with /tmp/bareforms.py): split 92 of 2,167 (recall30 alone measured 88 of 2,165), bare 53 of 1,028,
# wrapped 9 of 673; split's rate set to the measured count (0.041 failed the exhaustive run), under main's 0.0465.
# review31b: recall30's wrap width under a longer line (_cut_width) glued a conda list's rows and prose wrapped at
# spaces (a cause the list's cuDNN version rules out came first; a PyTorch paragraph got CuPy's finding): removed.
# Whole base then (bareforms): wrapped 47 of 677 (main before recall30: 69 of 673), bare 53 of 1,037, split 92 of 2,179.
# Branch tpl32 (whole base, bareforms): emptied 15 -> 5 of 96: a raise site's exception (raised_at's third word: check_input
# raises the dtype error as ValueError) tells the dtype error; an empty AttributeError under a line reading the attribute
# a template names (chainer's reserve_space, JAX's gpu_rnn); an empty message line followed by a log line after a
# shown call; keras's example showed a line its raise is not on. The 5 left: check_input's rank and size errors, both
# RuntimeError under the same 'raise RuntimeError(' line (a near miss naming the two). Bare 53 of 1,037, wrapped 47 of 677.
# Lead session 26: "unquoted", the message's quote marks dropped (a title, a message typed from memory; an
# apostrophe inside a word stays). Whole base (/work/notes/probe_forms.py): 318 of 538 missed on addeeab, where the
# regex's confirmation of a tolerant reading wanted each quote; 33 with kb/regexinfo.loose_regex (a quote optional
# in the last try's pattern where a word begins or ends before more text, or a space stands beside it). Most left: a generic whose own regex reads the unquoted line exactly
# (cudnn/library-not-found for TensorFlow's "Could not load dynamic library 'libcudnn.so.8'"), a cause's quoted
# evidence. "colon spaced" ('InternalError : Failed to call ThenRnnForward', a title, French typography) and "colon
# glued" ('RuntimeError:cuDNN error:CUDNN_STATUS_...'): a sample of every 4th example missed 136 and 119 of 400 on
# addeeab (the whole base: 534 and 453 of 1,592); 147 and 147 of 1,592 with loose_regex's colons (a space before
# a message's colon and the one after it optional; 189 and 154 before review26 found 14 signatures' loose patterns
# failing to compile where a quantifier followed the colon's space). Most left: a cause or a framework's wrapper whose own regex (read exactly, not loosened)
# wants the colon as printed, losing to its generic. Session 26's kb26 moved two CuPy logs to their generic
# (cupy/cudnn-rnn-status: they show no evidence of the Chainer cause they were examples of); upper-cased, CuPy's
# 'cuDNN Error: CUDNN_STATUS_...' is PyTorch's 'cuDNN error: ...' (the case that told them apart is gone), so
# pytorch/cudnn-rnn-execution-failed comes first: upper 12 -> 14 of 2,213 (the ratchet 0.005 -> 0.006).
# Split 91 -> 98 of 2,179 (the ratchet 0.0425 -> 0.045), on purpose, measured on the whole base: five of kb26/kb26b's
# moved or new logs (two CuPy logs read as PyTorch's and two CUDA.jl logs as CuPy's once their message's halves are
# joined, the ROCm int32 sweep as its generic) and two of the DL4J minibatch cause's: its lookahead reads the lines
# after the status, and a lookahead's line break is a line break now, not a space of the joined layout (review26:
# read as a space, another lookahead timed out on a 200-character line).
MISS_RATE = {"unquoted": 0.062, "colon spaced": 0.093, "colon glued": 0.093, "title": 0.02, "lower": 0.009, "upper": 0.006, "capitalized": 0.008, "bare": 0.052, "split": 0.045, "cut": 0.0124, "emptied": 0.053, "head": 0.379, "titled head": 0.388, "wrapped": 0.07}


def _top(text: str, near: str | None = None) -> str | None:
    """The top finding's id (``near``, where no finding is: that id where a near miss names it)."""
    d = diagnose(text, catalog=CATALOG)
    return d.findings[0].id if d.findings else near if any(n.id == near for n in d.near_misses) else None


def distinct(sig: Signature, left: list[str]) -> bool:
    """Whether the words ``left`` of a message (stems) still tell the signature's message apart, as the tolerant
    reading weighs a chain: one of its templates' chains over them holds MIN_BITS, and the words it read are
    one message's (Weigher.holding, one_message)."""
    tw = [(w, 0, 0) for w in left]
    idx, rec = READER.index[sig.id], READER.rec
    return any(
        idx in rec.owners[c.tid] and c.bits >= MIN_BITS and one_message(READER.sigs[i] for i in READER.weigher.holding(rec.words_of(c)))
        for c in rec.chains(tw, frozenset({len(tw) - 1}))
    )


def _asked(text: str, sig_id: str) -> bool:
    """A traceback emptied in a frame every kind of error passes through: no finding, a near miss naming the
    signature and asking for the message (sites.RNN_CODE)."""
    d = diagnose(text, catalog=CATALOG)
    return not d.findings and any(n.id == sig_id and "other errors are raised too" in n.reason for n in d.near_misses)


def _ids(text: str, read: bool = False) -> set[str]:
    """The ids found (``read``: only those the tolerant reading read from what is left of a message, marked cut)."""
    d = diagnose(text, catalog=CATALOG)
    found = [f for f in d.findings if f.cut is not None or not read]
    return {f.id for f in found} | {r for f in found for r in f.related}


def _texts() -> Iterator[tuple[Signature, str, str]]:
    """(signature, name, text) of every example of the base, then of every census entry (rendered)."""
    for sig in CATALOG.signatures:
        for i, ex in enumerate(sig.examples):
            yield sig, ex.name or str(i), ex.text
    for name, entry in COVERED:
        sig = CATALOG.get(entry["signature"])
        if sig is not None:
            yield sig, f"census {name}", render(entry)


def _cases(every: int) -> Iterator[tuple[Signature, str, str, int, int]]:
    """(signature, example name, clean text, message start, end) of every ``every``-th example."""
    for sig, name, text in _texts():
        if every > 1 and zlib.crc32(f"{sig.id} {name}".encode()) % every:
            continue  # a sample by the example's name: the same examples whatever signatures are added
        clean = clean_text(text)
        got = message(compile_pattern(sig.regex, sig.flags), clean, sig.prefilter or (sig.signature,))
        if got is not None:
            yield sig, name, clean, *got


def _forms(sig: Signature, clean: str, start: int, end: int) -> Iterator[tuple[str, str]]:
    for how, form in FORMS.items():
        got = form(clean, start, end)
        if got is not None:
            yield how, got
    p = shortest_prefix(READER, sig, clean)
    if p is not None and p.length is not None:
        at = clean.find(p.message)
        for text in cuts(clean, at, at + len(p.message), p.length):
            yield "cut", text
    line_start = clean.rfind("\n", 0, start) + 1
    for text in heads(clean, start, end, lambda left: distinct(sig, left)):
        yield "head", text
        line_end = text.find("\n", start) % (len(text) + 1)  # (-1: the text's end)
        # an issue title of it (its log prefix gone) over the rest of the text, its body
        yield "titled head", f"# {text[start:line_end]}\n{text[:line_start]}{text[line_end + 1 :]}"
    if sig.raised_at:
        got = emptied(clean, start, end, sig.raised_at)
        if got is not None:
            yield "emptied", got


def _run(every: int) -> tuple[dict[str, list[int]], list[str]]:
    counts: dict[str, list[int]] = {}
    misses: list[str] = []
    for sig, name, clean, start, end in _cases(every):
        base = _top(clean)
        for how, text in _forms(sig, clean, start, end):
            got = _top(text, base if how in ("head", "titled head") else None)  # a head cut: a near miss naming it at worst
            tally = counts.setdefault(how, [0, 0])
            tally[0] += 1
            if how == "emptied" and not any(RNN_CODE.search(w) for w in sig.raised_at) and _asked(text, sig.id):
                continue  # raised where other errors are too: asking for the message is the answer
            if got != base:
                tally[1] += 1
                misses.append(f"{sig.id} [{name}] {how}: {got} instead of {base}")
    return counts, misses


def _check(every: int) -> None:
    counts, misses = _run(every)
    report = "\n".join(misses[:80])
    for how, (cases, missed) in counts.items():
        expected = MISS_RATE[how] * cases
        # the whole base is held to the ratchet; a sample (which examples it holds shifts as signatures are
        # added) to the ratchet plus two standard deviations of the count a sample of that size draws
        allowed = expected + 1 + (2 * math.sqrt(expected) if every > 1 else 0)
        assert missed <= allowed, f"{how}: {missed} of {cases} miss\n{report}"


def test_a_sample_of_the_examples_in_every_form() -> None:
    _check(SAMPLE)


@pytest.mark.exhaustive
def test_every_example_in_every_form() -> None:
    _check(1)


def _counter_forms(text: str, own: frozenset[str] = frozenset()) -> Iterator[tuple[str, str]]:
    """The forms of a counter-example; its line that holds most of ``own`` (its signature's templates' words)
    retyped, and its head cut there: the lookalike message with its first k words gone, for every k (held to no reading of
    what is left, marked cut: a head cut may leave the signature's message itself, a status name alone or
    'Fail to find the dnn implementation.' out of its code comment, which its regex matches as a message)."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    yield "as written", text
    yield "lower", text.lower()
    yield "upper", text.upper()
    yield "title", f"# LSTM training: {first} after upgrading\n"
    yield "cut", text.strip()[: len(text.strip()) // 2]  # cut half-way
    lines = text.split("\n")
    li = max(range(len(lines)), key=lambda i: len({w for w, _a, _b in words(lines[i])} & own))
    # the lookalike message's line with its quote marks dropped, its colons spaced or glued (as a user retypes a
    # message; the context lines around it, a log's or a traceback's, are pasted as they are, and so is an
    # indented line: a traceback's source line, code quoting the message in a string)
    for how in ("unquoted", "colon spaced", "colon glued") if not lines[li][:1].isspace() else ():
        yield how, "\n".join([*lines[:li], FORMS[how](lines[li], 0, len(lines[li])) or lines[li], *lines[li + 1 :]])
    for _w, a, _b in words(lines[li])[1:]:
        yield "head", "\n".join([*lines[:li], lines[li][a:], *lines[li + 1 :]])
        yield "titled head", "\n".join(["# " + lines[li][a:], *lines[:li], *lines[li + 1 :]])


# Counter-examples that a form makes no counter-example any more: what made them one is gone from it (off their
# first line in the title form, past the half in the cut form), and what is left is the signature's message with
# the RNN evidence they lacked (the title's own "LSTM training"). Each names the forms and why.
FORM_UNDOES_COUNTER = {
    ("cudnn/cause-dropout-descriptor-out-of-memory", "dropout-layer-outside-tensorflow"): (("title",), "its dense "
    "layer's frames are gone: '# LSTM training: ... CUDNN_STATUS_EXECUTION_FAILED in cudnnSetDropoutDescriptor' is the "
    "dropout setup of an RNN by the title's own words"),
    ("flux/cudnn-rnn-status-error", "conv"): (("title",), "its convolution frame is gone: '# LSTM training: CUDNNError: "
    "CUDNN_STATUS_BAD_PARAM (code 3)' is CUDA.jl's status in an LSTM, as a user's title 'CUDNNError: ... (code 3) while "
    "training lstm' is (rank/wrappers.py reads both as Flux's)"),
    ("tensorflow/cudnnrnn-no-gpu-device", "directml-gpu-registered"): (("title", "cut"), "its 'Registered devices: [CPU, "
    "GPU]' line is gone: the message without its device list is stock TensorFlow's no-GPU case (an issue title, a paste "
    "cut there), as directml/cudnnrnn-invalid-argument-graph's own context says"),
    # two signatures of branch kb8 whose messages are generic (a lax.scan carry, a TensorRT loop) and gated on the
    # log showing an RNN: the title form's own words ('# LSTM training: ...') are that evidence, as a user's title is
    ("jax/scan-rnn-carry-mismatch", "brax-env-step"): (("title",), "its environment-step frames are gone: '# LSTM "
    "training: ... scan carry output and input must have identical types' is a scan carry mismatch in an RNN by the "
    "title's own words"),
    ("tensorrt/loop-rnn-build-failure", "preprocessing-map-while"): (("title",), "its tf.data map frames are gone: "
    "'# LSTM training: ...' puts the loop's build failure in an RNN model by the title's own words"),
    # branch kb9: TensorList Flex ops come from any while loop, so the TFLite runtime signature is gated on an RNN
    # branch frag20: the head cut leaves '...cuda_dnn.cc:1520] Invalid parameters' at the input's end, the start of
    # the RNN message 'Invalid parameters for RNN model' cut there (the end cut's reading, not the head cut's)
    ("tensorflow/dnn-plugin-rnn-shape-check", "params-size"): (("head",), "its line cut at its head down to 'Invalid "
    "parameters' at the input's end: the start of 'Invalid parameters for RNN model', cut by the input's end"),
    ("tensorflow/tflite-rnn-flex-ops-at-runtime", "tensorlist-without-rnn"): (("title",), "'# LSTM training: Node number "
    "0 (FlexTensorListReserve) failed to prepare' is an LSTM model's TensorList loop on a Flex-less interpreter by the "
    "title's own words"),
}


@pytest.mark.exhaustive
def test_every_counter_example_stays_unmatched_in_every_form() -> None:
    failures = [
        f"{sig.id} [{ex.name}] {form}"
        for sig in CATALOG.signatures
        for ex in sig.counter_examples
        for form, text in _counter_forms(ex.text, frozenset(w for t in sig.templates for w in t[1:] if w))
        if sig.id in _ids(text, form.endswith("head")) and form not in FORM_UNDOES_COUNTER.get((sig.id, ex.name), ((), ""))[0]
    ]
    assert failures == []
    by_id = {s.id: s for s in CATALOG.signatures}
    for (sid, name), (forms, _why) in FORM_UNDOES_COUNTER.items():  # each still needed
        (ex,) = [e for e in by_id[sid].counter_examples if e.name == name]
        texts = list(_counter_forms(ex.text, frozenset(w for t in by_id[sid].templates for w in t[1:] if w)))
        assert all(any(sid in _ids(t, f.endswith("head")) for g, t in texts if g == f) for f in forms), f"{sid} [{name}]: no longer read in {forms}: remove it"


def _clause_end(msg: str) -> int:
    """Where a message's first clause ends: its first comma or semicolon outside brackets and quotes; -1."""
    depth, quoted = 0, ""
    for i, ch in enumerate(msg):
        if quoted:
            quoted = "" if ch == quoted else quoted
        elif ch in "'\"`" and (i == 0 or not msg[i - 1].isalnum()):
            quoted = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth = max(0, depth - 1)
        elif ch in ",;" and depth == 0 and msg[i + 1 : i + 2] == " ":
            return i
    return -1


def _first_clauses(every: int) -> Iterator[tuple[str, str, str, str]]:
    """(signature id, example name, the message's first clause with prose after it on its line, the same clause
    ending its line with a line of prose after it) of every ``every``-th example whose message has a first clause
    of four words or more ending in a word."""
    for sig, name, clean, start, end in _cases(every):
        before, msg = clean[:start], " ".join(clean[start:end].split())
        cut = _clause_end(msg)
        clause = msg[:cut] if cut > 0 else ""
        # ending in a word of its template, not in a value (a number, after a colon, inside brackets it opened)
        line = (before + clause).rsplit("\n", 1)[-1]
        unclosed = any(line.count(a) > line.count(b) for a, b in ("()", "[]", "{}"))
        if len(clause.split()) >= 4 and clause.split()[-1].isalpha() and ": " not in clause[-len(clause.split()[-1]) - 2 :] and not unclosed:
            yield sig.id, name, f"{before}{clause} after upgrading\n", f"{before}{clause}\nThis is what I got after upgrading.\n"


@pytest.mark.parametrize("every", [pytest.param(SAMPLE, id="sample"), pytest.param(1, id="all", marks=pytest.mark.exhaustive)])
def test_a_first_clause_ending_its_line_reads_as_with_prose_after_it_on_the_line(every: int) -> None:
    """A page or an issue body quotes a message's first clause on a line of its own and explains it on the next
    ('RuntimeError: Input and hidden tensors are not at the same device' / 'This error means ...'): where the clause
    with prose after it on its line gives a finding, so does it, the same, over the whole base (it may give one
    where the other does not: a first clause that is a whole message of its own, a dlopen line before its
    '; dlerror: ...', is that message on a line of its own, not with prose glued to it)."""
    differ = []
    for sid, name, same, nxt in _first_clauses(every):
        want = _top(same)
        if want is not None and _top(nxt) != want:
            differ.append(f"{sid} [{name}]: {_top(nxt)} instead of {want}")
    assert differ == []


@pytest.mark.exhaustive
def test_no_counter_example_s_first_clause_ending_its_line_reads_as_its_signature() -> None:
    """The negative side: every counter-example's line that holds most of its signature's template words, cut
    at its first clause (as above) with a line of prose after it, gives no finding of its own signature."""
    alarms = []
    for sig in CATALOG.signatures:
        own = frozenset(w for t in sig.templates for w in t[1:] if w)
        for ex in sig.counter_examples:
            lines = ex.text.split("\n")
            li = max(range(len(lines)), key=lambda i: len({w for w, _a, _b in words(lines[i])} & own))
            cut = _clause_end(lines[li])
            if cut > 0 and len(lines[li][:cut].split()) >= 4:
                text = "\n".join([*lines[:li], lines[li][:cut], "This is what I got after upgrading."]) + "\n"
                if sig.id in _ids(text):
                    alarms.append(f"{sig.id} [{ex.name}]")
    assert alarms == []

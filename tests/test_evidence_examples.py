"""A cause's evidence as a report says it: texts its patterns match ('cuda:1'), not the patterns themselves
(``kb/regexinfo.examples``, shown by ``rank/differential.evidence_words`` in a candidate's note)."""

from __future__ import annotations

import re

import pytest

import cudnn_doctor
from cudnn_doctor.kb.compiled import load_catalog
from cudnn_doctor.kb.regexinfo import WILD, examples
from cudnn_doctor.rank.differential import evidence_words


@pytest.mark.parametrize(
    ("pattern", "shown"),
    [
        (r"cuda:[1-9]\b", ("cuda:1",)),
        (r"\bdevice\s*=\s*[1-9]\b", ("device=1",)),  # an optional space kept between two words only
        (r"Loaded runtime CuDNN library:\s*\d+\s*but source", ("Loaded runtime CuDNN library: 1 but source",)),
        (r"torch[/\\]nn[/\\]parallel[/\\]data_parallel\.py[\s\S]*?CuDNNError:\s*\d+", ("torch/nn/parallel/data_parallel.py … CuDNNError: 1",)),
        (r"nn\.DataParallel\b|DataParallel\(", ("nn.DataParallel", "DataParallel(")),  # each alternative
        (r"(?:\b\w+64_\d+\.dll\b|\bnvcuda\.dll\b)", ("nvcuda.dll",)),  # the alternative with fewest open characters
        (r"RNN\.lua:\d+: in function \W__init\W", ("RNN.lua:1: in function  __init ",)),  # a space it needs kept
        (r"\bCudnnRNN\w*", (f"CudnnRNN{WILD}",)),  # an open stretch of word characters attached to its word
        (r"nvidia-[a-z_-]+-cu12", (f"nvidia-{WILD}-cu12",)),
        (r"\bsequence_length\s*=\s*(?!None\b)\w", (f"sequence_length={WILD}",)),
    ],
)
def test_a_pattern_is_shown_by_a_text_it_matches(pattern: str, shown: tuple[str, ...]) -> None:
    assert examples(pattern) == shown


@pytest.mark.parametrize("pattern", [r"(a)\1", r"(?<=x)abc", "[unclosed"])
def test_no_example_where_it_cannot_say(pattern: str) -> None:
    """A back-reference, a lookbehind the example does not hold, a character the example leaves out, a pattern
    that does not compile: no example (the note shows the pattern as written)."""
    assert examples(pattern) == ()
    assert evidence_words([pattern]) == pattern


def test_every_cause_evidence_example_is_matched_by_its_pattern() -> None:
    """Over the whole base: each example a note would show is a text its pattern matches (its open characters
    read as 'x'), holds no regex syntax, and nearly every pattern has one."""
    needs = {x for sig in load_catalog().signatures if sig.cause for x in sig.context.require_any if not x.startswith("@")}
    said = {x: examples(x) for x in needs}
    for pattern, got in said.items():
        for text in got:
            assert re.search(pattern, text.replace(WILD, "x")), (pattern, text)
            assert not re.search(r"\\[dswbSWD]|\(\?|\[\^", text), (pattern, text)
    assert sum(map(bool, said.values())) >= 0.9 * len(said), sorted(x for x, got in said.items() if not got)


def test_a_note_shows_examples_within_its_width() -> None:
    shown = evidence_words([r"-gpuid\s+[1-9]", r"cuda:[1-9]\b", r"\bdevice\s*=\s*[1-9]\b"] * 8, width=60)
    assert shown.startswith("'-gpuid 1', 'cuda:1', 'device=1'") and shown.endswith(", …") and len(shown) <= 60


def test_a_report_says_the_evidence_to_look_for_as_text() -> None:
    """A generic status's differential under a PyTorch traceback cut before the model: the multi-GPU cause's note
    says what to look for ('cuda:1'), not its regex."""
    log = "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    loss.backward()\nRuntimeError: CUDNN_STATUS_EXECUTION_FAILED\n"
    notes = [c.note for f in cudnn_doctor.diagnose(log).findings for c in f.differential if c.note]
    assert notes and not any("\\s" in n or "[1-9]" in n for n in notes), notes


@pytest.mark.parametrize(
    "pattern",
    [
        "(?:a|" * 480 + "a" + ")" * 480,  # groups nested some hundred deep: RecursionError in the sampler (3.10 from 300)
        "(?:" * 17 + "x" + "{3})" * 17,  # nested repeats: an example of 3**17 characters (killed for memory)
        r"(?:x+x+)+(?:(?:x{3}){3}){3}(?=y)",  # catastrophic over its own example: 93 s unchecked
        r"(?:a{3}){1000000}",  # a repeat by the million: the `regex` module's compile takes minutes
        r"b(?:a{3}){0,1000000}",
        r"[[:digit:]]+",  # a `regex` POSIX class, which the standard parser reads as '[[:digt]' and ']': '[]'
    ],
)
@pytest.mark.filterwarnings("ignore:Possible nested set:FutureWarning")  # (the standard parser's, over '[[:digit:]]')
def test_a_hostile_pattern_gets_no_example_and_costs_no_time(pattern: str) -> None:
    """A user's signature (``--signatures``) may hold any pattern; its evidence search runs under a timeout
    (``_search``), and so must saying it: no exception, no hang, no example the `regex` module does not match."""
    import time

    t = time.monotonic()
    assert examples(pattern) == ()
    assert evidence_words([pattern]).startswith(pattern[:20])
    assert time.monotonic() - t < 2


def test_an_alternative_without_an_example_leaves_the_others() -> None:
    """A repeat of more than three ('\\d{5,8}') has no example; its branch's other alternatives still do."""
    assert examples(r"torch\.Size\(\[(?:6553[6-9]|[1-9]\d{5,8})\b") == ("torch.Size([65536",)


def test_a_note_is_cut_between_whole_examples() -> None:
    """An example may hold ', ' itself: the cut is between items, never inside one (a quote left open), and a
    first item over the width is cut within it, to the width."""
    vf = r"\b_VF\.(?:lstm|gru|rnn_tanh|rnn_relu)\(\s*\w+,\s*batch_sizes\b"
    for width in range(30, 90):
        shown = evidence_words([vf] * 3, width=width)
        assert len(shown) <= width and shown.count("'") % 2 == 0, (width, shown)
    assert len(evidence_words(["x" * 200])) == 160


def test_an_example_holding_a_quote_mark_is_quoted_with_the_other() -> None:
    assert evidence_words([r"Could not load dynamic library 'cudnn"]) == "\"Could not load dynamic library 'cudnn\""

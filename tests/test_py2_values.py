"""A message whose values Python 2 formatted: its longs in a tuple or list end in L (MXNet's ``Expecting (1, 16L,
64), got (1L, 4L, 64L)``, PyTorch 0.x's ``Expected hidden size (1L, 1L, 100L)``). The tolerant reading reads
them as Python 3 prints them (match/spelling.py3_values), as a property of the whole base: every example whose
message holds a tuple of integers gives the same top finding with them written as Python 2 writes them,
and no counter-example gains its signature so."""

from __future__ import annotations

import re
import zlib

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from test_forms import _cases, _ids, _top

CATALOG = catalogs.builtin()
# a tuple of two integers or more (a C++ message's list, TensorFlow's '[1, 32, 32]', is never Python 2's)
_INTS = re.compile(r"\([ \t]*\d+(?:[ \t]*,[ \t]*\d+)+[ \t]*,?[ \t]*\)")


def py2(text: str) -> str:
    """The text with every integer of its tuples written as Python 2 writes a long."""
    return _INTS.sub(lambda m: re.sub(r"\d+", lambda d: d.group(0) + "L", m.group(0)), text)


def _py2_forms(every: int) -> tuple[int, list[str], list[str]]:
    cases, misses, alarms = 0, [], []
    for sig, name, clean, start, end in _cases(every):
        if _INTS.search(clean, start, end) is None:
            continue
        cases += 1
        got = _top(clean[:start] + py2(clean[start:end]) + clean[end:])
        if got != _top(clean):
            misses.append(f"{sig.id} [{name}]: {got}")
    for sig in CATALOG.signatures:
        for ex in sig.counter_examples:
            sampled = not (every > 1 and zlib.crc32(f"{sig.id} {ex.name}".encode()) % every)
            if sampled and _INTS.search(ex.text) and sig.id in _ids(py2(ex.text)):
                alarms.append(f"{sig.id} [{ex.name}]")
    return cases, misses, alarms


def test_python_2_longs_in_a_message_s_values_are_read() -> None:
    text = 'File "/opt/py27/lib/python2.7/site-packages/mxnet/gluon/rnn/rnn_layer.py", line 240, in forward\n' \
        "ValueError: Invalid recurrent state shape. Expecting (1, 16L, 64), got (1L, 4L, 64L).\n"
    assert _top(text) == "mxnet/rnn-state-input-shape"
    assert _top("RuntimeError: Expected hidden[0] size (1L, 64L, 256L), got (64L, 256L)") == "pytorch/rnn-hidden-size-mismatch"
    # the report quotes the log as printed, its values read as Python 3's
    (found,) = diagnose(text, catalog=CATALOG).findings
    assert "(1L, 4L, 64L)" in found.first.text and dict(found.first.captures)["got"] == "1, 4, 64"
    # the match as printed, not the timestamp or prose before it on its line
    (found,) = diagnose("2017-05-01 10:00:00 ERROR when I call net.forward I get: " + text.split("\n")[-2], catalog=CATALOG).findings
    assert found.first.text.startswith("Invalid recurrent state shape") and "(1L, 4L, 64L)" in found.first.text


def test_a_sample_of_the_base_with_python_2_longs() -> None:
    cases, misses, alarms = _py2_forms(3)
    assert cases > 10 and misses == [] and alarms == [], (cases, misses, alarms)


@pytest.mark.exhaustive
def test_every_example_with_python_2_longs() -> None:
    cases, misses, alarms = _py2_forms(1)
    print(f"{len(misses)} of {cases}:\n" + "\n".join(misses))
    assert misses == [] and alarms == [], (cases, misses, alarms)  # 43 of 60 missed their top finding before

"""The notebook skim (read/skim.py): a big block of a notebook's JSON string lines, decoded only where a reading
reaches (its first and last lines, the lines around one holding a literal), is the block decoded whole on every
line a reading reaches, the matcher's prefilter finds the same lines in both, and a diagnosis reads the same."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from clirunner import invoke
from cudnn_doctor.match.matcher import Matcher
from cudnn_doctor.match.prefilter import Prefilter
from cudnn_doctor.match.reading import SKIM_MARGIN, TAIL_LINES
from cudnn_doctor.read import skim as skim_module
from cudnn_doctor.read.present import HEAD_CHARS, present

pytestmark = pytest.mark.usefixtures("hyperscan")  # the skim runs where hyperscan does

# a string's JSON, as a notebook writes it: progress bars, colour codes, quotes, paths, raw UTF-8, emoji
NOISE = ["Epoch 3/50 step 120/500 loss=0.4131 ", "2024-05-14T09:10:28.0133828Z saving checkpoint to ckpt/step_133834.pt ", "\\u2588\\u2588\\u2588", "\\r", "\\u001b[33mWARNING\\u001b[0m ", "é█ ",
         "\\ud83d\\ude00", "\\t", "C:\\\\Users\\\\x ", "\\\"quoted\\\" ", "a\\/b ", "[rank0]: ", "\\u00e9"]
# what the matcher finds, plain and hidden from a raw scan by an escape (a colour code, an ASCII letter, a slash,
# a quote, a control normalization deletes, a C1 CSI)
FOUND = ["RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM", "cuDNN\\u001b[0m error", "cu\\u0044NN error",
         "mkl\\/cudnn execution failed", "Expected input of type \\\"rnn\\\"", "cuDNN\\u0000 error", "cuDNN\\b error",
         "cuDNN\\u007f error", "cuDNN\\u009b1m error", "CUDNN_\\u001B[1mSTATUS_BAD_PARAM"]
# lines that are not one JSON string with a newline at this indentation, or that do not decode as JSON
RARE = ['    ],', '    "name": "stdout",', '    {"output_type": "error", "traceback": ["a", "b"]},', '   "other indentation\\n",',
        '      "no newline",', '      "inner\\nnewline\\n",', '      "inner\\u000anewline\\n",', '      "raw \x01 control\\n",',
        '      "bad \\x41 escape\\n",', '      "raw " quote\\n",', '      "lone \\ud83d surrogate\\n",']


def _block(rng: random.Random, lines: int, found: int, rare: int) -> bytes:
    out = ['      "' + "".join(rng.choices(NOISE, k=rng.randint(1, 12))) + '\\n",' for _ in range(lines)]
    for _ in range(found):
        i = rng.randrange(lines)
        out[i] = '      "[rank0]: ' + rng.choice(FOUND) + '\\n",'
    for _ in range(rare):
        out[rng.randrange(lines)] = rng.choice(RARE)
    return "\n".join(out).rstrip(",").encode()


def _found(pf, data: bytes) -> set[int]:  # type: ignore[no-untyped-def]
    """The lines the matcher's prefilter finds (raw and behind escapes)."""
    offsets = {*pf.scan(data), *pf.behind_escapes(data)}
    return {data.count(b"\n", 0, at) for at in offsets}


def test_a_skimmed_block_is_the_whole_decoding_wherever_a_reading_reaches(catalog) -> None:  # type: ignore[no-untyped-def]
    matcher = Matcher(catalog)
    skim = skim_module.Skim(matcher, TAIL_LINES, SKIM_MARGIN)
    pf = matcher.prefilter
    # what a reading reaches: the window of the block before, the block after's, the last lines' tolerant reading
    first, last, reach = matcher.after, max(matcher.before, TAIL_LINES), matcher.before + matcher.after + SKIM_MARGIN
    rng = random.Random(17)
    skimmed = 0
    for n in range(30):
        lines = rng.randint(3000, 6000)
        data = _block(rng, lines, rng.choice([0, 0, 1, 3, 80]), rng.choice([0, 0, 0, 1]))
        whole, got = present(data, paste=False, lines=lines), present(data, paste=False, lines=lines, skim=skim)
        assert whole is not None and got is not None, n
        assert (got.undone, got.origin, got.lines) == (whole.undone, whole.origin, whole.lines), n
        found = _found(pf, whole.data)
        assert _found(pf, got.data) == found, n
        assert got.data.decode("utf-8", "replace")[:HEAD_CHARS] == whole.data.decode("utf-8", "replace")[:HEAD_CHARS]
        reached = {*range(first), *range(whole.lines - last, whole.lines)}
        reached.update(i for f in found for i in range(f - reach, f + reach + 1))
        for i, (a, b) in enumerate(zip(got.data.split(b"\n"), whole.data.split(b"\n"), strict=True)):
            assert a == b or (a == b"" and i not in reached), (n, i, a, b)
        skimmed += got.data != whole.data
    assert skimmed >= 15  # most blocks are skimmed


def test_a_notebook_diagnosed_with_and_without_the_skim_reads_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    errors = ["RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM", "\\u001b[31mRuntimeError\\u001b[0m: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED",
              "UserWarning: RNN module weights are not part of single contiguous chunk of memory. This means they need to be compacted at every call, possibly greatly increasing memory usage. To compact weights again call flatten_parameters()."]
    lines = ['      "' + "".join(rng.choice(NOISE) for _ in range(rng.randint(1, 6))) + '\\n",' for _ in range(70000)]
    for at in (300, 9000, 14999, 21000, 33000, 52000, 69990):
        lines[at] = '      "' + rng.choice(errors) + '\\n",'
    body = "\n".join(lines).rstrip(",")
    path = tmp_path / "notebook.log"
    path.write_text('{\n "cells": [\n  {\n   "outputs": [\n    {\n     "name": "stderr",\n     "text": [\n' + body + "\n     ]\n    }\n   ]\n  }\n ]\n}\n")
    calls = []
    real = skim_module.Skim.__call__
    monkeypatch.setattr(skim_module.Skim, "__call__", lambda self, data, n: calls.append(real(self, data, n)) or calls[-1])
    skimmed = invoke(["diagnose", "--format", "json", str(path)], env={"CUDNN_DOCTOR_JOBS": "1"})
    assert sum(c is not None for c in calls) >= 2  # the skim was taken
    monkeypatch.setattr(skim_module.Skim, "__call__", lambda self, data, n: None)
    whole = invoke(["diagnose", "--format", "json", str(path)], env={"CUDNN_DOCTOR_JOBS": "1"})
    assert skimmed.stdout == whole.stdout
    assert json.loads(whole.stdout)["findings"]


def test_hyperscan_turned_off_for_a_while_comes_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A prefilter reads CUDNN_DOCTOR_NO_HYPERSCAN once: the shared ones are kept per setting, so a process that
    turned it off for a while (a test did, and the skim then never ran in the rest of that test process) gets
    hyperscan, and the skim, back when it turns it on again."""
    literals = ["cudnn_status_bad_param", "thenrnnforward"]
    with monkeypatch.context() as m:
        m.setenv("CUDNN_DOCTOR_NO_HYPERSCAN", "1")
        assert Prefilter.shared(literals).engine == "find"
    assert Prefilter.shared(literals).engine == "hyperscan"

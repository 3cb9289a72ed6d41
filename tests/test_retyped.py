"""A message typed from memory instead of pasted (issue 27): its articles dropped, a plural made singular ('Input and
hidden tensor are not at same device, ...'). The tolerant reading reads past a template's article the text lacks
(chains.DROPPED: articles, a status name's STATUS) and confirms the reading with the signature's regex, its words spelt as the signature spells each
at its place in the template: a finding with the regex's captures, marked cut (lower confidence), never an exact
match. Generated over the whole base (every example, every counter-example; a sample in the default run)."""

from __future__ import annotations

import zlib

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from forms import retyped
from rendered import says_in_every_format  # tests/ is on sys.path (rootdir-based imports)
from test_forms import _cases, _ids, _top

CATALOG = catalogs.builtin()
SAMPLE = 15  # the default run: one example (and one counter-example) in SAMPLE, by a hash of its name
# examples whose retyped message does not give their top finding: a ratchet at what the mechanism gives (whole
# base on retype22: 50 of the 671 examples and census entries a retyping changes; 331 on main 9b9b3b1). Most left
# are a cause or a wrapper losing to its generic (the retyped reading is marked cut: a whole message of another
# signature outranks it) or a message whose other words differ too (a tense, 'checking argument for')
# On main after census22 (678): 52, the two more being census22's onnx2pytorch torch.gru fallback (its example and
# census entry), whose TypeError retyped reads as the generic rnn-op-invalid-argument-types: 0.075 -> 0.078
# On main after census25 (718): 61, the nine more all census25's new signatures (cntk/optimized-rnnstack-invalid-config:
# 5 census entries and an example; mindspore/lstm-gpu-kernel-refused: 3 census entries): their context gates want
# CNTK's or MindSpore's frames, which the retyped messages' plural made singular or article dropped keep, but the
# retyped reading is not confirmed there (a lead: the same retyped lines alone are near misses): 0.078 -> 0.085
MISS_RATE = 0.085


def test_a_retyped_message_is_read_with_its_values_marked_retyped() -> None:
    text = "Input and parameter tensor are not at same device, found input tensor at cuda:0 and parameter tensor at cpu\n"
    (f,) = diagnose(text, catalog=CATALOG).findings
    assert f.id == "pytorch/rnn-input-hidden-device-mismatch"
    assert f.cut is not None and f.cut.get("retyped") is True and not f.cut.get("described")
    assert f.captures == {"name": "parameter", "input_device": "cuda:0", "other_device": "cpu"}
    says_in_every_format(diagnose(text, catalog=CATALOG), "retyped", "in other words")


def test_the_message_as_printed_stays_an_exact_match() -> None:
    text = "RuntimeError: Input and hidden tensors are not at the same device, found input tensor at cpu and hidden tensor at cuda:0\n"
    (f,) = diagnose(text, catalog=CATALOG).findings
    assert f.id == "pytorch/rnn-input-hidden-device-mismatch" and f.cut is None


def _examples(every: int) -> tuple[int, list[str]]:
    cases, misses = 0, []
    for sig, name, clean, start, end in _cases(every):
        text = retyped(clean, start, end)
        if text is None:
            continue
        cases += 1
        base, got = _top(clean), _top(text)
        if got != base:
            misses.append(f"{sig.id} [{name}]: {got} instead of {base}")
    return cases, misses


def _counters(every: int) -> list[str]:
    out = []
    for sig in CATALOG.signatures:
        for ex in sig.counter_examples:
            if every > 1 and zlib.crc32(f"{sig.id} {ex.name}".encode()) % every:
                continue
            text = retyped(ex.text, 0, len(ex.text))
            if text is not None and sig.id in _ids(text):
                out.append(f"{sig.id} [{ex.name}]")
    return out


def _check(every: int) -> None:
    cases, misses = _examples(every)
    assert len(misses) <= MISS_RATE * cases + 1 + (2 * (MISS_RATE * cases) ** 0.5 if every > 1 else 0), f"{len(misses)} of {cases}\n" + "\n".join(misses[:80])
    assert _counters(every) == []


def test_a_sample_of_the_examples_retyped() -> None:
    _check(SAMPLE)


@pytest.mark.exhaustive
def test_every_example_retyped() -> None:
    _check(1)


# A cuDNN status name typed from memory: its STATUS dropped ('CUDNN_BAD_PARAM') or its 'cudnn' misspelt
# ('CUDDN_STATUS_EXECUTION_FAILED'): chains.DROPPED and chains._cudnn. Measured over the whole base on lead23 (the
# examples whose message holds a status name, in both forms): 331 of 770 do not give their top finding, 657 on main
# 9ed8d0a; no counter-example matches. A ratchet. Most left are a status name alone on its line, or after a log
# line's location: a bare status name is at most a near miss (issue 27), and one typed otherwise names none.
STATUS_MISSES = 331
STATUS_FORMS = {"dropped": lambda name: "CUDNN_" + name[len("CUDNN_STATUS_") :], "misspelt": lambda name: "CUDDN" + name[len("CUDNN") :]}


def test_a_status_name_typed_from_memory_is_read_marked_retyped() -> None:
    trace = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n'
        "    out, (h, c) = self.lstm(x, (h0, c0))\n"
        '  File "/usr/lib/python3.10/site-packages/torch/nn/modules/rnn.py", line 812, in forward\n'
        "    result = _VF.lstm(input, hx, self._flat_weights, self.bias, self.num_layers,\n"
        "RuntimeError: cuDNN error: {}\n"
    )
    exact = diagnose(trace.format("CUDNN_STATUS_EXECUTION_FAILED"), catalog=CATALOG).findings[0]
    assert exact.id == "pytorch/cudnn-rnn-execution-failed" and exact.cut is None
    for name in ("CUDDN_STATUS_EXECUTION_FAILED", "cudn_status_execution_failed"):  # read, with less confidence
        f = diagnose(trace.format(name), catalog=CATALOG).findings[0]
        assert f.id == exact.id and f.confidence < exact.confidence, name
        assert f.cut is not None and f.cut.get("retyped") is True, name
    (f,) = diagnose(trace.format("CUDNN_BAD_PARAM"), catalog=CATALOG).findings  # STATUS put back, marked
    assert f.id == "pytorch/cudnn-rnn-bad-param" and f.cut is not None and f.cut.get("retyped") is True
    assert not diagnose("status bad param, cudn error", catalog=CATALOG).findings  # words, no status name


def _status_forms(every: int) -> tuple[int, list[str], list[str]]:
    import re

    name = re.compile(r"CUDNN_STATUS_[A-Z_]+")
    cases, misses, alarms = 0, [], []
    for sig, ex_name, clean, start, end in _cases(every):
        m = name.search(clean, start, end)
        if m is None:
            continue
        for form, respell in STATUS_FORMS.items():
            cases += 1
            got = _top(clean[: m.start()] + respell(m.group(0)) + clean[m.end() :])
            if got != _top(clean):
                misses.append(f"{sig.id} [{ex_name}] {form}: {got}")
    for sig in CATALOG.signatures:
        for ex in sig.counter_examples:
            m = name.search(ex.text)
            if m is None or (every > 1 and zlib.crc32(f"{sig.id} {ex.name}".encode()) % every):
                continue
            for form, respell in STATUS_FORMS.items():
                if sig.id in _ids(ex.text[: m.start()] + respell(m.group(0)) + ex.text[m.end() :]):
                    alarms.append(f"{sig.id} [{ex.name}] {form}")
    return cases, misses, alarms


@pytest.mark.exhaustive
def test_every_status_name_typed_from_memory() -> None:
    cases, misses, alarms = _status_forms(1)
    print(f"{len(misses)} of {cases}:\n" + "\n".join(misses))
    assert alarms == []
    assert len(misses) <= STATUS_MISSES, f"{len(misses)} of {cases}\n" + "\n".join(misses)

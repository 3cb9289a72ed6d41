"""What the long fuzz run (bench/fuzz.py) found and is not fixed yet, each input kept as it was generated
(tests/fixtures/fuzz/). Strict xfails: when the owner's fix lands, the XPASS says to drop the mark.

- Negative logs hard-wrapped (as CI viewers and paste tools do) got an RNN-specific finding: a wrapped
  mxnet cudnnConvolutionForward 'Check failed:' was read as a cut-off tensorflow/cudnn-rnn-internal-check-failed
  (fixed on main by 5769836: a cut reading needs a code-like or RNN/cuDNN word; now a plain test), and a
  wrapped Paddle conv2d CUDNN_STATUS_EXECUTION_FAILED was read as a cut-off
  tensorflow/cudnn-rnn-call-execution-failed (fixed by the rebuilt matcher, issue 27; now a plain test too).
- The same Paddle conv status cut at the end of the input (the 2026-12-02 run: corpus negatives 133/134 cut):
  cut after 'conv_cudnn_op.cu' or inside the path it was read as TF's RNN call (main's cut reader: fixed after
  'conv_cudnn_op.cu' only; the rebuilt matcher's tolerant reading reads neither as TF's RNN call).
- A multi-line warning repeated ~80 times in 8 KB, hard-wrapped with a '| ' prefix (the 2026-12-02 run on
  1d998a0: 23 of 9,000 inputs over 3 s of CPU, up to 77 s, all with a repeated line): every repetition gave
  the tolerant reading a chain to try in vain (48 s for this one); now a text gets MAX_TRIES vain tries.
- (not kept: its input was cut when stored) a notebook-JSON-looking paste of case 047 whose lines repeat
  hundreds of times took 19 s of CPU through diagnose + every renderer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cudnn_doctor import diagnose

FUZZ = Path(__file__).parent / "fixtures" / "fuzz"


@pytest.mark.parametrize("name", [
    "conv-check-failed-wrapped.txt",
    "paddle-conv-execution-failed-cut-at-conv-file.txt",  # a cut reading that names conv_cudnn_op.cu is no RNN call's
    "paddle-conv-execution-failed-cut-in-path.txt",  # cut at '.../operators/co'
    "paddle-conv-execution-failed-wrapped.txt",  # read as a cut TF RNN call before the rebuilt matcher (issue 27)
])
def test_wrapped_negative_gets_no_rnn_finding(name: str) -> None:
    d = diagnose((FUZZ / name).read_text(encoding="utf-8"))
    assert [f.id for f in d.findings if f.signature.scope == "rnn"] == []


def test_a_warning_repeated_many_times_is_read_in_bounded_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work, not time: the tolerant reading tries at most MAX_TRIES chains in vain per text (it tried ~1,000
    here, one per repetition of the warning, at a few ms each)."""
    from cudnn_doctor.match import tolerant

    tried: list[int] = []
    reading = tolerant.Tolerant._reading

    def counted(self: tolerant.Tolerant, *args: object, **kwargs: object) -> object:
        tried.append(1)
        return reading(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tolerant.Tolerant, "_reading", counted)
    d = diagnose((FUZZ / "repeated-warning-wrapped.txt").read_text(encoding="utf-8"))
    assert len(tried) <= tolerant.MAX_TRIES + tolerant.MAX_READINGS
    assert [f.id for f in d.findings if f.signature.scope == "rnn"] == []

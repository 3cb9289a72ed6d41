"""A dense CI log (many lines naming cuDNN/LSTM/GRU/RNN without being errors): the probe shortcuts (same
shape, retired detectors, narrowed prefilter) and both prefilter engines give what a plain scan gives."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cudnn_doctor import match as match_mod
from cudnn_doctor.env.detect import DETECTORS, EnvironmentCollector
from cudnn_doctor.match import probes as _probes_module  # noqa: F401 - match_mod.probes
from cudnn_doctor.model import Probe
from cudnn_doctor.read.sources import text_source
from cudnn_doctor.report import build_report
from cudnn_doctor.scan import Options, diagnose_sources

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"


def dense_log(lines: int = 12000, seed: int = 3) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    plants = {lines // 5: "001", lines // 2: "038", (4 * lines) // 5: "008"}
    for i in range(lines):
        if i in plants:
            out += (CORPUS / f"{plants[i]}.log").read_text().splitlines()
        ts = f"2024-05-14T09:{i // 600 % 60:02d}:{i % 60:02d}.{rng.randrange(10**7):07d}Z "
        k = rng.randrange(12)
        if k == 0:
            line = f"2024-05-14 09:12:{rng.randrange(60):02d}.{rng.randrange(10**6):06d}: I cuda_dnn.cc:{rng.randrange(400, 9999)}] Loaded cuDNN version {rng.choice((8600, 8906, 90100))}"
        elif k == 1:
            line = f"cuDNN version: {rng.choice(('8.9.2', '9.1.0'))}, cudnn.enabled=True, workspace {rng.randrange(1, 4096)} MiB"
        elif k == 2:
            line = f"DEBUG lstm_out.shape=torch.Size([{rng.choice((16, 128))}, {rng.randrange(8, 512)}, 256]) gru_hidden=(16, 256)"
        elif k == 3:
            line = f"tests/test_rnn.py::test_lstm_forward[cuda-float16-{rng.randrange(1000)}] PASSED [{rng.randrange(100):3d}%]"
        elif k == 4:
            line = f"  Downloading nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl ({rng.random() * 600:.1f}/664.9 MB)"
        elif k == 5:
            line = "torch.backends.cudnn.benchmark = True"
        elif k == 6:
            line = f"torch version {rng.choice(('2.3.1', '2.4.0'))} | Python version: 3.10.{rng.randrange(15)} | driver version: 550.{rng.randrange(99)}"
        elif k == 7:
            line = f"nvidia-cudnn-cu12=={rng.choice(('9.1.0.70', '8.9.2.26'))}"
        else:
            line = f"Epoch {i // 100} step {i} loss={rng.random():.4f}"
        out.append(ts + line)
    return "\n".join(out) + "\n"


def diagnose(text: str, catalog, monkeypatch, *, hyperscan: bool = True, memo: bool = True, block: int | None = None):  # type: ignore[no-untyped-def]
    with monkeypatch.context() as m:
        if not hyperscan:
            m.setenv("CUDNN_DOCTOR_NO_HYPERSCAN", "1")
        if not memo:  # every probe line goes to every probe of its literals, as before the shortcuts
            m.setattr(match_mod.probes, "PROBED_MEMO", 0)  # the module that reads it
            m.setattr(EnvironmentCollector, "probes", _plain_probes)
        if block is not None:
            from cudnn_doctor.read import sources as input_mod

            m.setattr(input_mod, "BLOCK_BYTES", block)
        record = build_report(diagnose_sources([text_source(text, "log")], catalog=catalog, options=Options(jobs=1)))
    return {k: record[k] for k in ("findings", "environment", "near_misses", "below_threshold", "error_lines")}


_real_probes = EnvironmentCollector.probes


def _plain_probes(self):  # type: ignore[no-untyped-def]
    """Probes that never retire nor skip a shape (what every line got before)."""
    out = []
    for p in _real_probes(self):
        handle = p.handle

        def keep(line: str, lineno: int, handle=handle) -> bool:  # type: ignore[no-untyped-def]
            handle(line, lineno)
            return True

        out.append(Probe(p.literals, keep, shape_free=False))
    return out


@pytest.fixture(scope="module")
def text() -> str:
    return dense_log()


def test_shortcuts_change_nothing(text: str, catalog, monkeypatch) -> None:
    plain = diagnose(text, catalog, monkeypatch, memo=False)
    assert {f["id"] for f in plain["findings"]} >= {"pytorch/rnn-backward-in-eval-mode", "pytorch/rnn-hidden-size-mismatch"}
    assert plain["environment"]["cudnn"]["version"] and plain["environment"]["torch"]["version"]
    assert diagnose(text, catalog, monkeypatch) == plain
    assert diagnose(text, catalog, monkeypatch, block=64 << 10) == plain  # memo and retirement across blocks


def test_pure_python_prefilter_gives_the_same(text: str, catalog, monkeypatch) -> None:
    """The path of platforms without a hyperscan wheel (CUDNN_DOCTOR_NO_HYPERSCAN=1), run in every CI job."""
    assert diagnose(text, catalog, monkeypatch, hyperscan=False) == diagnose(text, catalog, monkeypatch, memo=False)


def test_versions_that_differ_only_in_digits_still_count() -> None:
    """A shape whose first line gives nothing (cuDNN 4 is no cuDNN the detectors accept) is probed again."""
    from cudnn_doctor.match import Matcher

    collector = EnvironmentCollector()
    lines = ["Python version: 2.7.18", "Python version: 3.10.12", "Loaded cuDNN version 4", "Loaded cuDNN version 8"]
    m = Matcher(_empty_catalog(), probes=collector.probes())
    m.scan_text("\n".join(lines))
    assert collector.env.versions["python"] == "3.10.12"
    assert collector.env.versions["cudnn"] == "8"


def _empty_catalog():  # type: ignore[no-untyped-def]
    from cudnn_doctor.kb.load import Catalog

    return Catalog(signatures=[], evidence={})


def test_shape_free_detectors() -> None:
    free = {d.name: d.shape_free for d in DETECTORS}
    assert free["cuDNN loaded"] and free["pip freeze"] and free["python"]
    assert not free["libcudnn file"]  # cudnn64_: a literal digit
    assert not free["GPU 0 line"]

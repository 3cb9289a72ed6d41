"""The knowledge base's honesty rules, checked over the whole base so that they cannot regress.

"Knowledge is honest: a cause wins over its generic message only on decisive evidence in the log (its own line,
a version range, a frame, a value). A thread's hunch is a differential entry, not a finding. Precision is
sacred: a finding from a fragment must carry what is specific to that signature." Each test below encodes one
checkable part of that, for every signature it concerns (not for the instances that were found):

1. a generic status's own examples (the status with nothing that tells a cause apart) never get a specific
   cause, and every cause has a counter-example without its decisive evidence that gets one of its generics,
   with the cause still open in that generic's differential;
2. a signature specific to a platform (DirectML, ROCm, Colab, Windows, a GPU model) wins only where the log
   shows the platform: it has a counter-example of the same message without the platform, which gets another
   signature; or its message itself names the platform;
3. a framework's own signature is not outranked by a cross-framework one (``framework`` any/cudnn/cuda) on
   its examples: where the log shows the framework's wrapper, the framework's fixes are shown;
4. a fragment that ordinary logs hold (a prefilter literal, or a prefix of one that a cut line can end with,
   found in the corpus negatives and the benchmark's noise) is not enough on its own for a finding.

The texts are diagnosed as a user's are (``cudnn_doctor.diagnose`` with the built-in, cached catalog).
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
import sys
from functools import lru_cache
from pathlib import Path

import pytest

import catalogs  # tests/ is on sys.path (rootdir-based imports)
from cudnn_doctor import diagnose
from cudnn_doctor.rank.differential import is_generic_status
from sampling import sample

ROOT = Path(__file__).resolve().parents[1]
_CATALOG = catalogs.builtin()
SIGS = _CATALOG.signatures
BY_ID = {s.id: s for s in SIGS}
GENERAL = {"", "any", "cudnn", "cuda"}  # cross-framework signatures

CAUSES = [s for s in SIGS if s.cause is not None]
GENERICS = [s for s in SIGS if is_generic_status(s)]

# Violations found by the audit and not fixed yet, each with what is left to do. Strict xfail: fixing one fails the
# test until its line is removed here, and a new violation is not listed, so it fails at once.
_CENSUS = (
    "not a status wrapper: the status wrappers outrank cudnn/rnn-status-* (priority 67, tests/test_ranking.py), but "
    "this version check loses to the cross-framework version-mismatch signature, which docs/census/jax.yaml expects on top"
)
KNOWN: dict[tuple[str, str], str] = {
    # a framework's wrapper outranked by the cross-framework signature (class 3)
    ("framework", "jax/cuda-backend-version-check"): _CENSUS,
    # generic examples that show a cause's evidence: move the example to the cause, or make the cause stricter
    ("generic", "tensorflow/cudnnrnn-no-gpu-device"): "its examples list no GPU device and '<no registered kernels>', the "
    "CPU-only-package cause's decisive lines: keep generic examples without them (another developer edits signatures/tensorflow)",
    # causes without a counter-example of their generic's message lacking their evidence (or whose evidence is loose)
    ("cause", "cudnn/cause-legacy-rnn-api-removed-in-cudnn9"): "its generics are status messages, the cause a compiler/"
    "linker/loader error naming a removed function, which is its evidence. cudnn/symbol-load-failed (given a differential) "
    "reads only cuDNN's own loader lines, which for these calls come from cuDNN 8 (kb26b: no longer read by the cause), and "
    "it would list this cause under every cuDNN symbol failure (cudnnGetLibConfig, cudnnCreate): the differential cannot "
    "rule a candidate out by the symbol the generic captured. Needs that rule first",
    ("cause", "cudnn/cause-rnn-v5-descriptor-api-removed-in-cudnn8"): "as cudnn/cause-legacy-rnn-api-removed-in-cudnn9; "
    "no cuDNN loader line ever names the unversioned call (cuDNN 8 does not export it, cuDNN 7 has no front end)",
}


def _params(test: str, sigs: list, k: int | None = None) -> list:  # type: ignore[type-arg]
    """Each signature as a case; with ``k``, a seeded sample of ``k`` in the default run and every one under
    ``pytest -m exhaustive`` (a diagnosis per example: minutes for the whole base)."""
    out = []
    for s in sigs:
        reason = KNOWN.get((test, s.id))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(s, id=s.id, marks=marks))
    return out if k is None else sample(out, k)


@lru_cache(maxsize=4096)
def _diagnose(text: str):  # type: ignore[no-untyped-def]
    return diagnose(text, catalog=_CATALOG)


def _ids(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.id for f in result.findings]


# --------------------------------------------------------------------------------------------- 1. causes


def _refines(cause_id: str, generic_id: str) -> bool:
    cause = BY_ID[cause_id].cause
    return cause is not None and generic_id in cause.of


@pytest.mark.parametrize("sig", _params("generic", GENERICS, 8))
def test_a_generic_status_alone_names_no_cause(sig) -> None:  # type: ignore[no-untyped-def]
    """A generic status's examples show the status and nothing decisive: no cause of it may be a finding there
    (a cause that wins on one is either too loose, or the example is really that cause's and belongs to it)."""
    bad = []
    for ex in sig.examples:
        for fid in _ids(_diagnose(ex.text)):
            if fid != sig.id and _refines(fid, sig.id):
                bad.append(f"{ex.name}: {fid}")
    assert not bad, f"{sig.id}: a specific cause wins on the generic status alone: {bad}"


@pytest.mark.parametrize("sig", _params("cause", CAUSES, 8))
def test_a_cause_without_its_evidence_stays_in_the_differential(sig) -> None:  # type: ignore[no-untyped-def]
    """Every cause has a counter-example that is one of its generics' messages without the cause's decisive
    evidence: the generic is the finding there, and the cause is a candidate of its differential, not a finding."""
    assert sig.cause is not None
    seen = []
    for ex in sig.counter_examples:
        result = _diagnose(ex.text)
        ids = _ids(result)
        seen.append(f"{ex.name}: {ids}")
        if sig.id in ids:
            continue
        for f in result.findings:
            if f.id in sig.cause.of and sig.id in [c.id for c in f.differential or ()]:
                return
    pytest.fail(
        f"{sig.id}: no counter-example shows its generic ({', '.join(sig.cause.of)}) without its evidence with "
        f"this cause in the differential; counter-examples give {seen}"
    )


# ------------------------------------------------------------------------------------------ 2. platforms

# platform -> (what in a signature id says it is specific to it, what in a log shows the platform)
PLATFORMS = {
    "DirectML": (r"directml", r"directml|\bdml\b|tfdml|privateuseone"),
    "ROCm": (r"rocm|miopen", r"rocm|miopen|\bhip\b|\bgfx\d"),
    "Colab": (r"colab", r"colab|/content/|localhost:8080"),
    "Windows": (r"windows|\bwin\b", r"windows|\b[A-Z]:\\|\.dll\b|\.exe\b|nvcuda"),
    "WSL": (r"\bwsl\b", r"\bwsl\b|microsoft-standard|/usr/lib/wsl"),
    "A30/MIG": (r"\ba30\b|\bmig\b", r"\bA30\b|\bMIG\b|\b\dg\.\d+gb\b"),
    "sm_86": (r"sm86|sm-86", r"sm_?86|capability:?\s*8\.6|RTX 30\d0|\bA40\b|\bA10G?\b|RTX A\d000"),
}


def _platforms(sig) -> list[str]:  # type: ignore[no-untyped-def]
    words = sig.id.replace("/", " ").replace("-", " ")
    out = [name for name, (in_id, _) in PLATFORMS.items() if re.search(in_id, words, re.I)]
    if sig.framework == "tensorflow-directml" and "DirectML" not in out:
        out.append("DirectML")
    return out


PLATFORM_SIGS = [s for s in SIGS if _platforms(s)]
# signatures whose message proves the platform without naming it (the counter-example rule still holds for them)
INFERRED = {
    "directml/cudnnrnn-no-kernel": "a Keras LSTM/GRU (not CuDNNLSTM) emitted CudnnRNN and no kernel is registered for it: "
    "only a pluggable GPU does that (Metal is excluded by its markers)",
    "directml/cudnnrnn-invalid-argument-graph": "a GPU device is registered and CudnnRNN has no GPU kernel: a pluggable GPU",
    "directml/cudnnrnn-canonical-params-op-check": "'must be a scalar, received shape' is the plugin's wording; TensorFlow's "
    "kernels say 'is not a scalar'",
    "directml/torch-fused-rnn-cell-no-cpu-kernel": "the fused cell reached the CPU backend: stock PyTorch calls it for CUDA "
    "tensors only, torch-directml falls back to the CPU",
}


def test_platform_signatures_are_found() -> None:
    assert len(PLATFORM_SIGS) >= 10, [s.id for s in PLATFORM_SIGS]


@pytest.mark.parametrize("sig", _params("platform", PLATFORM_SIGS))
def test_a_platform_signature_needs_its_platform(sig) -> None:  # type: ignore[no-untyped-def]
    for name in _platforms(sig):
        marker = re.compile(PLATFORMS[name][1], re.I)
        if sig.prefilter and all(marker.search(lit) for lit in sig.prefilter):
            continue  # the message itself names the platform (miopenStatusBadParm, torch_directml)
        for ex in sig.examples:
            assert marker.search(ex.text) or sig.id in INFERRED, f"{sig.id}: example {ex.name} does not show {name}"
        found = []
        for ex in sig.counter_examples:
            if marker.search(ex.text) or not any(lit.lower() in ex.text.lower() for lit in sig.prefilter):
                continue
            ids = _ids(_diagnose(ex.text))
            found.append(f"{ex.name}: {ids}")
            if sig.id not in ids:
                break
        else:
            pytest.fail(
                f"{sig.id}: no counter-example holds its message without {name} and does not get it; "
                f"candidates: {found}"
            )


# --------------------------------------------------------------------------- 3. a framework's own message


def _general_literals() -> list[str]:
    return sorted({lit.lower() for s in SIGS if s.framework in GENERAL for lit in s.prefilter})


FRAMEWORK_SIGS = [s for s in SIGS if s.framework not in GENERAL]


@pytest.mark.parametrize("sig", _params("framework", FRAMEWORK_SIGS, 12))
def test_a_framework_signature_is_not_outranked_by_a_cross_framework_one(sig) -> None:  # type: ignore[no-untyped-def]
    """Where the framework's own signature matched its example (the log shows the framework's wrapper of the
    status), a cross-framework signature that is no cause (a cudnn/rnn-status-*, a general cuDNN/CUDA message)
    does not win over it: the framework's fixes come first, the cross-framework one is listed as related."""
    literals = _general_literals()
    bad = []
    for ex in sig.examples:
        if not any(lit in ex.text.lower() for lit in literals):
            continue
        result = _diagnose(ex.text)
        for f in result.findings:
            top = f.signature
            if top.framework in GENERAL and top.cause is None and sig.id in f.related:
                bad.append(f"{ex.name}: {f.id}")
    assert not bad, f"{sig.id} matched its own example but a cross-framework signature won: {bad}"


# ------------------------------------------------------------------------------ 4. fragments of ordinary text

MIN_CUT = 10  # a cut line is read when it ends with this much of a literal (match/cut.py MIN_LITERAL)
# literals that are the error itself, whole: a line holding only them is that error
_STATUS_NUMBER = re.compile(r"(?i)cudnn (?:error|status)\W*\d+")  # a status as its number (its family's literal)
WHOLE_ERRORS = {
    ("cuda/out-of-memory", "CUDA_ERROR_OUT_OF_MEMORY"): "the CUDA driver API's out-of-memory error name",
}


@lru_cache(maxsize=1)
def _noise() -> tuple[str, ...]:
    """Ordinary logs, lower-cased: the negatives of the development corpus (shared and in tests/fixtures) and
    the benchmark's noise lines (bench/biglog.py: pip, TensorFlow start-up, benign cuDNN/LSTM mentions, CI)."""
    docs: list[str] = []
    for shared in (ROOT.parent / "shared" / "corpus", Path("/work/shared/corpus")):
        cases = shared / "cases.jsonl"
        if cases.is_file():
            for line in cases.read_text(encoding="utf-8").splitlines():
                rec = json.loads(line)
                path = shared / f"{rec['case']}.log"
                if rec.get("polarity") == "negative" and path.is_file():
                    docs.append(path.read_text(encoding="utf-8", errors="replace"))
            break
    for path in sorted((ROOT / "tests" / "fixtures" / "corpus").glob("*.log")):
        head, _, log = path.read_text(encoding="utf-8", errors="replace").partition("\n")
        if "polarity=negative" in head:
            docs.append(log)
    spec = importlib.util.spec_from_file_location("_biglog_noise", ROOT / "bench" / "biglog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses looks its module up
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)

    class _Lines:
        def __init__(self) -> None:
            self.out: list[str] = []

        def line(self, text: str) -> None:
            self.out.append(text)

    rng = random.Random(5)
    for doc in range(20):
        w = _Lines()
        for step in range(60):
            (module._dense_noise if doc % 2 else module._noise)(w, rng, doc * 60 + step)
        docs.append("\n".join([*module.PIP, *module.TF_START, *module.BENIGN, *module.INFO, *w.out]))
    return tuple(d.lower() for d in docs)


def _in_noise(frag: str, lit: str) -> bool:
    """Whether ordinary logs hold ``frag`` as words of their own: not as the start of the whole literal (a
    negative log may hold the very error, say a version mismatch before a convolution)."""
    rest = re.escape(lit[len(frag) :].lower())
    pattern = re.compile(r"(?<![a-z0-9_])" + re.escape(frag.lower()) + r"(?![a-z0-9_])" + (f"(?!{rest})" if rest else ""))
    return any(pattern.search(doc) for doc in _noise())


def _fragments(lit: str) -> list[str]:
    """The literal, and its prefixes of MIN_CUT characters or more that end at a word's end (where a cut line
    can end)."""
    out = [lit]
    for k in range(MIN_CUT, len(lit)):
        if lit[k - 1].isalnum() and not (lit[k].isalnum() or lit[k] == "_"):
            out.append(lit[:k])
    return out


FRAGMENT_SIGS = [s for s in SIGS if s.prefilter]


def test_the_noise_corpus_is_there() -> None:
    assert len(_noise()) >= 37  # tests/fixtures negatives + the benchmark's noise at least


@pytest.mark.parametrize("sig", _params("fragment", FRAGMENT_SIGS, 20))
def test_a_common_fragment_is_not_a_finding(sig) -> None:  # type: ignore[no-untyped-def]
    """A prefilter literal, or a word-ending prefix of one, that ordinary logs hold is not what is specific to
    a signature: a line that holds only it, or ends with it, gets no finding of that signature (generic status
    signatures excepted for a status name: that is their message)."""
    bad = []
    for lit in sig.prefilter:
        if (sig.id, lit) in WHOLE_ERRORS:
            continue
        for frag in _fragments(lit):
            if is_generic_status(sig) and ("_" in frag or _STATUS_NUMBER.fullmatch(frag)):
                continue  # CUDNN_STATUS_BAD_PARAM, BAD_PARAM, DL4J's 'cuDNN status = 3': a generic status's own message
            if not _in_noise(frag, lit):
                continue
            for text in (frag, f"INFO: see the notes on {frag}"):
                if sig.id in _ids(_diagnose(text)):
                    bad.append(text)
    assert not bad, f"{sig.id}: a fragment common in ordinary logs is a finding: {bad}"

"""Versions in play, read from the log: collect_env, nvidia-smi, framework start-up lines, pip/conda lists.

Each detector is a few prefilter literals (given to the matcher, so a big log costs one extra alternation in
the scan it already does and nothing per line) and a regex run only on the lines holding one of them. Keep the
literals specific: a literal that occurs on every line of a multi-GB log makes its regex run on every line.

Each detector has a *rank* telling how much its evidence is worth; a component keeps the value of the
highest-ranked detector that saw it (the first one among equals), so that ``Loaded cuDNN version 8906`` (the
library that actually loaded) beats ``libcudnn.so.8`` (a file name) wherever they are in the log:

* 90 the running library reported itself (``Loaded cuDNN version``, cuDNN API logs, compiled/runtime checks)
* 80 the framework or a tool reported it (collect_env, ``torch.__version__``, nvidia-smi's driver and GPU,
  ``cudnn-doctor env``)
* 70 package lists (``pip freeze`` / ``pip list`` / ``conda list`` / ``pip install`` output)
* 60 what a user wrote in an issue template (``CUDA/cuDNN version: 11.8 / 8.6``)
* 50 library file names (``libcudnn.so.8.9.2``), nvcc
* 20-30 indirect hints (the driver's highest CUDA from nvidia-smi, ``+cu121`` in a wheel version, a
  conda build string ``cuda11.8_cudnn8.7.0``)

Python is not guessed from ``lib/python3.10/`` paths: every traceback frame holds one, and a literal that
common would make its regex run on most lines of a long log.

``--env torch=2.2.0`` overrides whatever the log says. Version texts keep local parts (``2.1.0+cu121``);
comparisons (rank.version_in) use the public part.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from ..kb.patterns import LazyRe
from ..model import RETIRE, Probe
from ..read.normalize import normalize_line

if TYPE_CHECKING:
    pass

# The "(how)" tags of ``cudnn-doctor env`` lines (localenv.py writes them); the detector below keys on these exact
# texts.
HOW_PACKAGE = "installed package"
HOW_CUDNN_CALL = "cudnnGetVersion"
HOW_CUDNN_FILE = "libcudnn file"
HOW_SMI = "nvidia-smi"
HOW_PYTHON = "this interpreter"
HOW_OS = "platform"
HOW_TAGS = (HOW_PACKAGE, HOW_CUDNN_CALL, HOW_CUDNN_FILE, HOW_SMI, HOW_PYTHON, HOW_OS)


def cudnn_int_text(n: int) -> str:
    """cudnnGetVersion()/CUDNN_VERSION as dotted text: 7605 -> 7.6.5, 8906 -> 8.9.6, 90100 -> 9.1.0."""
    if n >= 10000:
        return f"{n // 10000}.{(n % 10000) // 100}.{n % 100}"
    return f"{n // 1000}.{(n % 1000) // 100}.{n % 100}"


OVERRIDE_RANK = 100
_V = r"\d+(?:\.\d+)+(?:[-.]?(?:a|b|rc|post|dev)\d*)*(?:\+[\w.]+)?"  # dotted version, PEP 440-ish suffixes

Emit = Callable[[re.Match[str]], Iterable[tuple[str, str]]]


@dataclass(frozen=True, slots=True)
class Detector:
    """A probe for one environment fact (a version, a device): its prefilter literals and its regex."""

    name: str
    literals: tuple[str, ...]
    source: str  # the regex, compiled on first use (patterns.py caches it with the catalog)
    rank: int
    emit: Emit
    components: tuple[str, ...] = ()  # those it can emit ('*' = any, from a package name)

    @property
    def regex(self) -> re.Pattern[str]:
        return _compiled(self.source)

    @property
    def shape_free(self) -> bool:
        """Whether its regex matches all lines that differ only in their digits alike (no literal digit in
        the regex; digits in ``{m,n}`` counts and group names do not count): see model.Probe. Its literals
        may hold digits: the matcher's memo is per shape *and* set of literals hit."""
        return _shape_free(self.source)


@lru_cache(maxsize=1024)
def _compiled(source: str) -> re.Pattern[str]:
    """A detector's regex (the standard library's: our own patterns, run on one line at a time)."""
    return re.compile(source, re.IGNORECASE | re.MULTILINE)


@lru_cache(maxsize=1024)
def _shape_free(source: str) -> bool:
    return not any(ch.isdigit() for ch in re.sub(r"\{\d*(?:,\d*)?\}|\(\?P<\w+>", "", source))


def _one(component: str, group: str = "v", convert: Callable[[str], str | None] | None = None) -> Emit:
    def emit(m: re.Match[str]) -> Iterable[tuple[str, str]]:
        value = m.group(group)
        if value is not None and convert is not None:
            value = convert(value)
        return [(component, value)] if value else []

    return emit


def cudnn_version_text(raw: str) -> str | None:
    """cuDNN prints its version as an integer (7605 = 7.6.5, 8906 = 8.9.6, 90100 = 9.1.0); make it dotted.

    Dotted text is kept; a tuple ``(8, 9, 2)`` becomes 8.9.2. None for what cannot be a cuDNN version
    (e.g. CUDA.jl's ``cuDNN: 1.2.1`` is the Julia package, not the library).
    """
    raw = raw.strip().strip("()").rstrip(".")
    if "," in raw:
        raw = ".".join(p.strip() for p in raw.split(","))
    if raw.isdigit():
        if len(raw) in (4, 5):
            return cudnn_int_text(int(raw))
        return raw if len(raw) == 1 and raw in "56789" else None
    major = raw.split(".")[0]
    if not major.isdigit() or not 5 <= int(major) <= 9:
        return None
    return raw


_cudnn_text = cudnn_version_text  # old name


def cuda_version_text(raw: str) -> str | None:
    """CUDA as an integer (12020 = 12.2, 11080 = 11.8: CUDA_VERSION, cudaRuntimeGetVersion) or dotted."""
    raw = raw.strip().rstrip(".")
    if raw.isdigit():
        if len(raw) in (4, 5):
            n = int(raw)
            return f"{n // 1000}.{(n % 1000) // 10}"
        return None
    return raw


def _compute_capability(m: re.Match[str]) -> Iterable[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    gd = m.groupdict()
    gpu = gd.get("gpu") or gd.get("gpu2")
    if gpu:
        out.append(("gpu", gpu.strip()))
    if gd.get("cc"):
        out.append(("compute_capability", gd["cc"]))
    elif gd.get("major") and gd.get("minor"):
        out.append(("compute_capability", f"{gd['major']}.{gd['minor']}"))
    elif gd.get("sm"):
        sm = gd["sm"]
        out.append(("compute_capability", f"{sm[:-1]}.{sm[-1]}"))
    return out


# ---------------------------------------------------------------------------------- package names

_PACKAGE_COMPONENT: dict[str, str] = {
    "torch": "torch", "pytorch": "torch",
    "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow", "tensorflow-cpu": "tensorflow",
    "tensorflow-intel": "tensorflow", "tensorflow-macos": "tensorflow", "tensorflow-directml": "tensorflow",
    "tf-nightly": "tensorflow", "tf-nightly-gpu": "tensorflow", "tensorflow-rocm": "tensorflow",
    "keras": "keras", "keras-nightly": "keras",
    "jax": "jax", "jaxlib": "jaxlib",
    "cupy": "cupy", "chainer": "chainer", "mxnet": "mxnet",
    "paddlepaddle": "paddle", "paddlepaddle-gpu": "paddle",
    "onnxruntime": "onnxruntime", "onnxruntime-gpu": "onnxruntime",
    "cudnn": "cudnn", "python": "python",
    "cudatoolkit": "cuda", "cuda-toolkit": "cuda", "cuda-runtime": "cuda", "cuda-cudart": "cuda",
    "nvidia-cuda-runtime": "cuda", "nvidia-cudnn": "cudnn",  # CUDA 13's wheels: no -cuNN suffix
}
_PACKAGE_FAMILIES: tuple[tuple[str, str], ...] = (
    ("nvidia-cudnn-cu", "cudnn"),
    ("nvidia-cuda-runtime-cu", "cuda"),
    ("cupy-cuda", "cupy"),
    ("mxnet-cu", "mxnet"),
)


def package_component(name: str) -> str | None:
    """The component a pip/conda distribution name stands for (``tensorflow-gpu`` -> tensorflow)."""
    key = name.strip().lower().replace("_", "-")
    if key in _PACKAGE_COMPONENT:
        return _PACKAGE_COMPONENT[key]
    for prefix, component in _PACKAGE_FAMILIES:
        if key.startswith(prefix):
            return component
    return None


def _package_value(component: str, version: str) -> str | None:
    if component == "cudnn":
        return cudnn_version_text(version)
    if not re.match(r"\d", version):
        return None
    return version


_CONDA_BUILD = LazyRe(r"cuda(?P<cuda>\d+\.\d+)_cudnn(?P<cudnn>\d+\.\d+(?:\.\d+)?)")
_LOCAL_CUDA = LazyRe(r"\+cu(?P<cu>\d{2,3})\b")


def _package_row(m: re.Match[str]) -> Iterable[tuple[str, str]]:
    component = package_component(m.group("pkg"))
    if component is None:
        return []
    value = _package_value(component, m.group("v"))
    return [(component, value)] if value else []


def _package_hints(m: re.Match[str]) -> Iterable[tuple[str, str]]:
    """Weak hints in a package row: ``+cu121`` (the wheel's CUDA), a conda build ``cuda12.1_cudnn8.9.2``."""
    component = package_component(m.group("pkg"))
    if component != "torch":
        return []
    out: list[tuple[str, str]] = []
    line = m.string
    b = _CONDA_BUILD.search(line)
    if b:
        out += [("cuda", b.group("cuda")), ("cudnn", b.group("cudnn"))]
    c = _LOCAL_CUDA.search(m.group("v"))
    if c:
        cu = c.group("cu")
        out.append(("cuda", f"{cu[:-1]}.{cu[-1]}"))
    return out


def _install_list(m: re.Match[str]) -> Iterable[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for token in m.group("rest").split():
        t = re.fullmatch(r"(?P<pkg>[A-Za-z][\w.-]*?)-(?P<v>\d[\w.+!]*)", token)
        if t:
            component = package_component(t.group("pkg"))
            value = _package_value(component, t.group("v")) if component else None
            if component and value:
                out.append((component, value))
    return out


# Few literals, each covering several names: every literal the prefilter holds costs scan time on every
# byte of the log when hyperscan is not installed. A literal that also occurs in tracebacks of that
# framework (``cupy``, ``mxnet``) is fine: those lines are few.
_ROW_LITERALS = (
    "torch==", "torch  ",  # torch, pytorch (conda)
    "tensorflow==", "tensorflow  ", "tensorflow-", "tf-nightly",
    "keras==", "keras  ", "keras-nightly",
    "jax==", "jax  ", "jaxlib",
    "cupy", "chainer", "mxnet", "paddlepaddle", "onnxruntime",
    # cudnn (conda), nvidia-cudnn-cu1x: what its regexes need after the name (`\s*==`, two spaces), not `cudnn`
    # alone, which a CI log with cuDNN version lines, cudnn.benchmark warnings ... says on many lines
    "cudnn=", "cudnn =", "cudnn  ", "cudnn\t", "cudnn \t", "cudnn-cu",
    "cudatoolkit", "cuda-toolkit", "cuda-runtime", "cuda-cudart",  # also nvidia-cuda-runtime-cu1x
    "python  ",  # conda's python row
)
# Umbrella literals: one prefilter entry for many detectors, whose regexes then run on those lines only.
VERSION = "version"  # "Loaded cuDNN version", "Driver Version:", "PyTorch version:", "torch.__version__", ...
CUDNN = "cudnn"
_ROW_PREFIX = r"^\s*(?:\[(?:pip\d?|conda)\]\s+)?"  # no literal digit: see Detector.shape_free

# ---------------------------------------------------------------------------------- detectors


def _d(name: str, literals: Iterable[str], pattern: str, rank: int, emit: Emit, *components: str) -> Detector:
    return Detector(name, tuple(literals), pattern, rank, emit, components)


def _ours(m: re.Match[str]) -> Iterable[tuple[str, str]]:
    name, value, how = m.group("name").lower(), m.group("v").strip(), m.group("how")
    if how == "installed package":
        component = package_component(name)
        value = _package_value(component, value) if component else None
        return [(component, value)] if component and value else []
    if name == "cudnn":
        v = cudnn_version_text(value)
        return [("cudnn", v)] if v else []
    return [(name, value)]


_OURS_RANK = {"installed package": 80, "cudnnGetVersion": 90, "libcudnn file": 50, "nvidia-smi": 80}

_VERSION_ATTR = r"(?:\.__version__|\s+version)\s*[:=]?\s*['\"]?"
_CUDNN = {"convert": cudnn_version_text}
_CUDA = {"convert": cuda_version_text}


def _cudart(v: str) -> str | None:
    if "." in v:
        return v
    return f"{v[:-1]}.{v[-1]}" if len(v) >= 3 else None


def _os(m: re.Match[str]) -> Iterable[tuple[str, str]]:
    return [] if "collect" in m.group("v").lower() else [("os", m.group("v"))]


CC = "compute_capability"

# --- versions written free-form by a person anywhere in a log or an issue ("torch 2.2.0+cu121, cuDNN 8902",
# "tensorflow-gpu 1.15.2", "tf 2.4", "CUDA 11.8", "mxnet-cu101 1.5.0"): a package name, a separator and a dotted
# version. Only majors the component has really had are read, so a loss value, a shape or a date after one of
# those words is not a version ("torch 2024.01.05" is not torch 2024).
_FREE_NAMES = {
    "torch": "torch", "pytorch": "torch", "tf": "tensorflow", "tensorflow": "tensorflow", "keras": "keras",
    "jax": "jax", "jaxlib": "jaxlib", "mxnet": "mxnet", "paddle": "paddle", "paddlepaddle": "paddle",
    "onnxruntime": "onnxruntime", "cupy": "cupy", "chainer": "chainer", "cuda": "cuda",
}
_FREE_MAJORS = {
    "torch": range(0, 4), "tensorflow": range(0, 3), "keras": range(1, 4), "jax": range(0, 1), "jaxlib": range(0, 1),
    "mxnet": range(0, 3), "paddle": range(0, 4), "onnxruntime": range(0, 2), "cupy": range(1, 15),
    "chainer": range(1, 8), "cuda": range(7, 14),
}
_FREE_VERSION = (
    r"(?<![\w/.\\-])(?P<pkg>(?:py)?torch|tensorflow(?:-gpu|-cpu)?|tf|keras|jaxlib|jax|mxnet(?:-cu\d+\w*)?"
    r"|paddle(?:paddle)?(?:-gpu)?|onnxruntime(?:-gpu)?|cupy(?:-cuda\d+\w*)?|chainer|cuda(?:\s+toolkit)?(?!\s+version\s*:))"
    r"(?:\s*==?\s*|\s+(?:v(?:ersion)?\s*[:=]?\s*)?|-(?=\d))v?"
    r"(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3}){0,2}(?:(?:a|b|rc|\.post|\.dev)\d*)?(?:\+[\w.]+)?)(?!\.?\d|[A-Za-z_])"
    r"(?!\s*(?:[KMGT]i?B|[KMGT]\b|%|s\b|ms\b|sec|it/s|x\b))"  # a size, a time, a ratio: not a version
)
_FREE_LITERALS = (
    "torch ", "torch=", "torch-", "tensorflow ", "tensorflow=", "tensorflow-", "tf 0.", "tf 1.", "tf 2.", "tf==",
    "tf=1", "tf=2", "tf-1", "tf-2", "keras ", "keras=", "jax ", "jax=", "jaxlib", "mxnet", "paddle ", "paddle=", "paddlepaddle",
    "onnxruntime", "cupy",
    "chainer", "cuda 1", "cuda 7.", "cuda 8.", "cuda 9.", "cuda=", "cuda toolkit", "cuda v",
)


def _free_version(m: re.Match[str]) -> Iterable[tuple[str, str]]:
    """Every package/version pair on the line ("pytorch 1.4 with cudnn 7.6.5 and CUDA 10.1"), from ``m`` on."""
    out: list[tuple[str, str]] = []
    for one in _compiled(_FREE_VERSION).finditer(m.string, m.start()):
        name = one.group("pkg").lower().split()[0]
        component = _FREE_NAMES.get(re.sub(r"-(?:gpu|cpu|cu\d+\w*|cuda\d+\w*)$", "", name))
        version = one.group("v")
        if component is not None and int(version.split(".")[0]) in _FREE_MAJORS[component]:
            out.append((component, version))
    return out


def _cu_hint(m: re.Match[str]) -> Iterable[tuple[str, str]]:
    cu = m.group("cu")
    return [("cuda", f"{cu[:-1]}.{cu[-1]}")]

DETECTORS: list[Detector] = [
    # --- our own `cudnn-doctor env` output (rank per "(how)" tag, see _OURS_RANK)
    _d(
        "cudnn-doctor env",
        [f"({tag})" for tag in HOW_TAGS],  # its regex needs one: not `cudnn`, which a CI log says on many lines
        r"^\s*(?P<name>[A-Za-z][\w.-]*) (?P<v>\S.*?) "
        r"\((?P<how>" + "|".join(re.escape(t) for t in HOW_TAGS) + r")\)(?:\s+\S.*)?$",
        80, _ours, "*",
    ),
    # --- frameworks
    _d("torch version", [VERSION],
       r"\b(?:py)?torch" + _VERSION_ATTR + "(?P<v>" + _V + ")", 80, _one("torch"), "torch"),
    _d("tensorflow version", [VERSION],
       r"\b(?:tensorflow|tf)" + _VERSION_ATTR + "(?P<v>" + _V + ")", 80, _one("tensorflow"), "tensorflow"),
    _d("keras version", [VERSION],
       r"\bkeras" + _VERSION_ATTR + "(?P<v>" + _V + ")", 80, _one("keras"), "keras"),
    _d("jax version", [VERSION, "jax:"],
       r"(?:\bjax" + _VERSION_ATTR + r"|^\s*jax:\s+)(?P<v>" + _V + ")", 80, _one("jax"), "jax"),
    _d("jaxlib version", [VERSION, "jaxlib:"],
       r"(?:\bjaxlib(?:\.version)?" + _VERSION_ATTR + r"|^\s*jaxlib:\s+)(?P<v>" + _V + ")",
       80, _one("jaxlib"), "jaxlib"),
    _d("cupy show_config", [VERSION],
       r"^\s*CuPy Version\s*:\s*(?P<v>" + _V + ")", 80, _one("cupy"), "cupy"),
    _d("julia Pkg.status", ["] flux v"], r"\]\s+Flux v(?P<v>" + _V + ")", 80, _one("flux"), "flux"),
    _d("julia version", [VERSION, "- julia:"],
       r"(?:^Julia Version |^\s*- Julia:\s*)(?P<v>" + _V + ")", 80, _one("julia"), "julia"),
    # --- package lists
    _d("pip freeze", _ROW_LITERALS,
       _ROW_PREFIX + r"(?P<pkg>[A-Za-z][\w.-]*)\s*==\s*(?P<v>\d[\w.+!-]*)", 70, _package_row, "*"),
    _d("pip list / conda list", _ROW_LITERALS,
       _ROW_PREFIX + r"(?P<pkg>[A-Za-z][\w.-]*)\s{2,}(?P<v>\d[\w.+!-]*)(?:\s|$)", 70, _package_row, "*"),
    _d("package hints", ("torch==", "torch  "),
       _ROW_PREFIX + r"(?P<pkg>(?:py)?torch)(?:\s*==\s*|\s{2,})(?P<v>\d[\w.+!-]*)",
       25, _package_hints, "cuda", "cudnn"),
    _d("pip install", ["successfully installed "],
       r"Successfully installed (?P<rest>.+)$", 70, _install_list, "*"),
    _d("pip requirement satisfied", ["requirement already satisfied:"],
       r"Requirement already satisfied: (?P<pkg>[A-Za-z][\w.-]*)(?:\[[^\]]*\])?(?:[<>=!~][^ ]*)? "
       r"in \S.*?\((?P<v>\d[^)]*)\)\s*$",
       70, _package_row, "*"),
    # --- cuDNN
    # the library's own reports (rank 90) are looked for by what their regexes need, not `cudnn`: no lower-ranked
    # finding retires them, so in a log without one (a PyTorch log) every line naming cuDNN went to them
    _d("cuDNN loaded", ["loaded cudnn version "],
       r"Loaded cuDNN version (?P<v>\d+)", 90, _one("cudnn", **_CUDNN), "cudnn"),
    _d("cuDNN API log", ["cudnn (v"],
       r"\bCuDNN \(v(?P<v>\d{4,5})\b", 90, _one("cudnn", **_CUDNN), "cudnn"),
    _d("cuDNN runtime check",
       ["found runtime version", "but linked against", "loaded runtime cudnn library:", "found cudnn version"],
       r"(?:found runtime version|but linked against|Loaded runtime CuDNN library:|Found cuDNN version)\s*"
       r"(?P<v>\(\s*\d+,\s*\d+,\s*\d+\s*\)|\d[\d.]*)",
       90, _one("cudnn", **_CUDNN), "cudnn"),
    _d("torch.backends.cudnn.version()", ["cudnn.version()"],
       r"cudnn\.version\(\)\)?\s*[:=,]?\s*(?P<v>\d{4,5})\b", 80, _one("cudnn", **_CUDNN), "cudnn"),
    _d("cuDNN version text",
       [CUDNN],
       r"(?<![\w/-])cuDNN(?: runtime)?(?:\s+version)?\s*[:=]?\s*v?(?P<v>\d+\.\d+(?:\.\d+)*|\d{4,5})(?![\w.])",
       80, _one("cudnn", **_CUDNN), "cudnn"),
    _d("libcudnn file", ["libcudnn", "cudnn64_"],
       r"(?:libcudnn(?:_\w+)?\.so\.|libcudnn(?:_\w+)?\.(?=\d[\d.]*\.dylib)|cudnn64_)(?P<v>\d+(?:\.\d+){0,2})",
       50, _one("cudnn", **_CUDNN), "cudnn"),
    _d("TF build info", ["'cudnn_version'"],
       r"'cudnn_version',?\s*:?\s*'(?P<v>[\d.]+)'", 40, _one("cudnn", **_CUDNN), "cudnn"),
    _d("CUDA/cuDNN version (issue template)", ["cuda/cudnn version"],  # what its regex needs
       r"CUDA/cuDNN version:?\s*(?:CUDA\s*)?(?P<cuda>\d+\.\d+(?:\.\d+)?)\s*(?:/|,|and)\s*"
       r"(?:cuDNN\s*)?v?(?P<cudnn>\d+\.\d+(?:\.\d+)?)",
       60, lambda m: [("cuda", m.group("cuda")), ("cudnn", m.group("cudnn"))], "cuda", "cudnn"),
    # --- CUDA
    _d("CUDA build",
       [VERSION, "cuda used to build"],
       r"(?:CUDA used to build PyTorch:\s*|torch\.version\.cuda\)?\s*[:=,]?\s*['\"]?"
       r"|'cuda_version',?\s*:?\s*'|CUDA Build Version\s*:\s*)(?P<v>\d[\d.]*)",
       80, _one("cuda", **_CUDA), "cuda"),
    _d("CUDA runtime", [VERSION, "cuda runtime "],
       r"(?:CUDA runtime version\s*:\s*|Runtime API Version:\s*|^CUDA runtime )(?P<v>\d[\d.]*)",
       80, _one("cuda", **_CUDA), "cuda"),
    _d("CUDA found by JAX", [VERSION],
       r"Found CUDA version (?P<v>\d{4,5})\b", 90, _one("cuda", **_CUDA), "cuda"),
    _d("libcudart file", ["libcudart", "cudart64_"],
       r"(?:libcudart\.so\.|cudart64_)(?P<v>\d+(?:\.\d+)?)", 50, _one("cuda", convert=_cudart), "cuda"),
    _d("nvcc", ["cuda compilation tools"],
       r"Cuda compilation tools, release (?P<v>\d+\.\d+)", 50, _one("cuda"), "cuda"),
    _d("nvidia-smi CUDA", [VERSION], r"CUDA Version:\s*(?P<v>\d+\.\d+)", 30,
       lambda m: [("cuda", m.group("v")), ("cuda_driver", m.group("v"))], "cuda", "cuda_driver"),
    _d("driver CUDA", [VERSION, "cuda driver "],
       r"(?:Driver API Version:\s*|^CUDA driver )(?P<v>\d+\.\d+)", 80, _one("cuda_driver"), "cuda_driver"),
    # --- driver
    _d("driver", [VERSION, "nvidia driver "],
       r"(?:(?:Nvidia )?driver version:?\s*|kernel reported version is:?\s*|^NVIDIA driver )"
       r"(?P<v>\d{3,}\.\d+(?:\.\d+)?)",
       80, _one("driver"), "driver"),
    # --- GPU and compute capability
    _d("nvidia-smi GPU row", ["|   0  "],
       r"^\|\s+0\s+(?P<gpu>\S.*?)\s+(?:On|Off)\s+\|\s+[0-9A-Fa-f]{4,8}:", 80, _compute_capability, "gpu"),
    _d("GPU 0 line", ["gpu 0: "],
       r"^\s*(?:\[\w+\]\s*)?GPU 0: (?P<gpu>[^()\n]*?\S)\s*(?:\(UUID:.*)?$", 80, _compute_capability, "gpu"),
    _d("TF created device", ["device: 0, name:"],
       r"device: 0, name: (?P<gpu>[^,]+?), pci bus id: [^,]+(?:, compute capability: (?P<cc>\d+\.\d+))?",
       80, _compute_capability, "gpu", CC),
    _d("TF found device (2.x)", ["computecapability:"],
       r"name: (?P<gpu>.+?) computeCapability: (?P<cc>\d+\.\d+)", 80, _compute_capability, "gpu", CC),
    _d("TF found device (1.x)", ["memoryclockrate"],
       r"name: (?P<gpu>.+?) major: (?P<major>\d+) minor: (?P<minor>\d+) memoryClockRate",
       80, _compute_capability, "gpu", CC),
    _d("PyTorch capability warning", ["cuda capability"],
       r"(?:Found GPU\d+ (?P<gpu>.+?) which is of cuda capability (?P<cc>\d+\.\d+)"
       r"|(?:^|UserWarning:\s*)(?P<gpu2>\S.*?) with CUDA capability sm_(?P<sm>\d+))",
       80, _compute_capability, "gpu", CC),
    _d("Paddle GPU", ["gpu compute capability:"],
       r"GPU Compute Capability:\s*(?P<cc>\d+\.\d+)", 80, _compute_capability, CC),
    _d("CUDA.jl device", ["(sm_"],
       r"^\s*0: (?P<gpu>.+?) \(sm_(?P<sm>\d+)\b", 80, _compute_capability, "gpu", CC),
    # --- versions a person wrote anywhere (60, as an issue template; the +cuXXX hint stays weak, see emit)
    _d("free-form version", _FREE_LITERALS, _FREE_VERSION, 60, _free_version,
       "torch", "tensorflow", "keras", "jax", "jaxlib", "mxnet", "paddle", "onnxruntime", "cupy", "chainer", "cuda"),
    _d("free-form +cuXXX", ("torch ", "torch=", "torch-"),
       r"(?<![\w/.\\-])(?:py)?torch(?:\s*==?\s*|\s+(?:v(?:ersion)?\s*[:=]?\s*)?|-(?=\d))v?\d{1,2}\.\d{1,2}"
       r"(?:\.\d{1,3}){0,2}\+cu(?P<cu>\d{2,3})\b", 25, _cu_hint, "cuda"),
    # standalone multi-backend Keras (<= 2.3) prints this at import; it names no exact version
    _d("Keras backend line", ["using tensorflow backend", "using theano backend", "using cntk backend"],
       r"^\s*Using (?P<v>TensorFlow|Theano|CNTK) backend\.?\s*$", 20,
       lambda m: [("keras_backend", m.group("v").lower()), ("keras", "<2.4")], "keras_backend", "keras"),
    # --- python / OS
    _d("python", [VERSION, "python 3.", "python: 3."],
       r"(?:Python version\s*:?\s*|\bPython (?=\d\.)|^\s*python:\s+)(?P<v>\d\.\d+(?:\.\d+)?)(?![\d.])",
       80, _one("python", convert=lambda v: v if v.startswith("3.") else None), "python"),
    _d("OS", ["os: "], r"^\s*OS: (?P<v>\S.*?)\s*$", 80, _os, "os"),
]


@dataclass(slots=True)
class Environment:
    """Detected versions: component -> version text, where it was seen, how much that evidence is worth."""

    versions: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)

    def set(self, component: str, version: str, where: str, rank: int = 50) -> bool:
        """Record a value unless one of at least the same rank is already known; True if recorded."""
        version = version.strip()
        if not version or self.ranks.get(component, -1) >= rank:
            return False
        self.versions[component] = version
        self.sources[component] = where
        self.ranks[component] = rank
        return True

    def to_record(self) -> dict[str, dict[str, str]]:
        return {
            k: {"version": v, "source": self.sources.get(k, "")} for k, v in sorted(self.versions.items())
        }


class EnvironmentCollector:
    """Feeds on log lines through matcher probes and collects versions."""

    def __init__(self, detectors: list[Detector] | None = None) -> None:
        self.env = Environment()
        self.source = ""
        self.detectors = list(DETECTORS if detectors is None else detectors)

    def probes(self) -> list[Probe]:
        return [Probe(literals=d.literals, handle=self._make_handler(d), shape_free=d.shape_free) for d in self.detectors]

    def _make_handler(self, d: Detector) -> Callable[[str, int], bool]:
        fixed = tuple(c for c in d.components if c != "*")
        rank = max(d.rank, *_OURS_RANK.values()) if d.name == "cudnn-doctor env" else d.rank

        def handle(line: str, lineno: int) -> bool | int:
            """Whether lines like this one (see model.Probe) are still worth showing to this detector."""
            # no regex when every component it could give is already known at least as well (ranks only
            # grow: the detector is done)
            known = self.env.ranks
            if fixed and len(fixed) == len(d.components) and all(known.get(c, -1) >= rank for c in fixed):
                return RETIRE
            m = d.regex.search(line)
            if not m:
                return False
            r = _OURS_RANK.get(m.group("how"), d.rank) if d.name == "cudnn-doctor env" else d.rank
            for component, value in d.emit(m):
                if component and value:
                    self.env.set(component, value.strip(), f"{self.source}:{lineno}", r)
            return True

        return handle

    def scan(self, text: str, source: str = "<text>") -> Environment:
        """Run the detectors over a text held in memory (what the matcher does, without signatures)."""
        self.source = source
        handlers = [(tuple(lit.lower() for lit in d.literals), self._make_handler(d)) for d in self.detectors]
        for lineno, raw in enumerate(text.split("\n"), 1):
            low = raw.lower()
            line: str | None = None
            for lits, handle in handlers:
                if any(lit in low for lit in lits):
                    if line is None:
                        line = normalize_line(raw)[0]
                    handle(line, lineno)
        return self.env

    def override(self, pairs: dict[str, str]) -> None:
        for k, v in pairs.items():
            self.env.versions[k] = v
            self.env.sources[k] = "--env"
            self.env.ranks[k] = OVERRIDE_RANK


def detect(text: str, source: str = "<text>") -> Environment:
    """The environment a text shows (convenience for tests and callers without a matcher)."""
    return EnvironmentCollector().scan(text, source)

"""Version detection from log lines (environment.py) and how detected versions demote findings."""

from __future__ import annotations

import textwrap

import pytest

import cudnn_doctor
from cudnn_doctor.env.detect import (
    DETECTORS,
    EnvironmentCollector,
    cuda_version_text,
    cudnn_version_text,
    detect,
    package_component,
)
from cudnn_doctor.match import Matcher

COLLECT_ENV = textwrap.dedent(
    """\
    Collecting environment information...
    PyTorch version: 2.1.0+cu121
    Is debug build: False
    CUDA used to build PyTorch: 12.1
    ROCM used to build PyTorch: N/A

    OS: Ubuntu 22.04.3 LTS (x86_64)
    GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
    Clang version: Could not collect
    CMake version: version 3.27.7
    Libc version: glibc-2.35

    Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
    Python platform: Linux-5.15.0-1049-gcp-x86_64-with-glibc2.35
    Is CUDA available: True
    CUDA runtime version: 12.2.140
    CUDA_MODULE_LOADING set to: LAZY
    GPU models and configuration:
    GPU 0: NVIDIA A100-SXM4-40GB
    GPU 1: NVIDIA A100-SXM4-40GB

    Nvidia driver version: 535.104.05
    cuDNN version: Probably one of the following:
    /usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.6
    /usr/lib/x86_64-linux-gnu/libcudnn_adv_infer.so.8.9.6
    HIP runtime version: N/A
    MIOpen runtime version: N/A
    Is XNNPACK available: True

    CPU:
    Architecture:                       x86_64
    Model name:                         Intel(R) Xeon(R) CPU @ 2.20GHz

    Versions of relevant libraries:
    [pip3] numpy==1.26.2
    [pip3] torch==2.1.0+cu121
    [pip3] torchvision==0.16.0+cu121
    [pip3] triton==2.1.0
    [conda] Could not collect
    """
)

NVIDIA_SMI = textwrap.dedent(
    """\
    Mon Nov 20 10:00:00 2023
    +---------------------------------------------------------------------------------------+
    | NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
    |-----------------------------------------+----------------------+----------------------+
    | GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
    | Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
    |                                         |                      |               MIG M. |
    |=========================================+======================+======================|
    |   0  NVIDIA GeForce RTX 3090        Off | 00000000:01:00.0  On |                  N/A |
    | 30%   45C    P8              30W / 350W |    512MiB / 24576MiB |      2%      Default |
    +-----------------------------------------+----------------------+----------------------+
    """
)

TF_STARTUP = textwrap.dedent(
    """\
    2023-11-20 10:00:00.123456: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on.
    2023-11-20 10:00:00.234567: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized
    2023-11-20 10:00:01.345678: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 38224 MB memory:  -> device: 0, name: NVIDIA A100-SXM4-40GB, pci bus id: 0000:00:04.0, compute capability: 8.0
    Epoch 1/10
    2023-11-20 10:00:05.456789: I external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:454] Loaded cuDNN version 8906
    """
)

TF24_STARTUP = textwrap.dedent(
    """\
    2021-03-01 12:00:00.000001: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcudart.so.11.0
    2021-03-01 12:00:01.000001: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1720] Found device 0 with properties:
    pciBusID: 0000:00:04.0 name: Tesla T4 computeCapability: 7.5
    coreClock: 1.59GHz coreCount: 40 deviceMemorySize: 14.75GiB deviceMemoryBandwidth: 298.08GiB/s
    2021-03-01 12:00:01.000002: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcudnn.so.8
    """
)

PIP_FREEZE = textwrap.dedent(
    """\
    $ pip freeze
    absl-py==2.0.0
    keras==2.15.0
    nvidia-cudnn-cu12==8.9.4.25
    tensorboard==2.15.1
    tensorflow==2.15.0.post1
    tensorflow-estimator==2.15.0
    tensorflow-io-gcs-filesystem==0.34.0
    """
)

PIP_LIST = textwrap.dedent(
    """\
    Package                  Version
    ------------------------ ------------
    jax                      0.4.23
    jaxlib                   0.4.23+cuda12.cudnn89
    numpy                    1.26.2
    tensorflow               2.15.0
    """
)

CONDA_LIST = textwrap.dedent(
    """\
    # packages in environment at /opt/conda/envs/train:
    #
    # Name                    Version                   Build  Channel
    cudatoolkit               11.8.0               h6a678d5_0
    cudnn                     8.9.2.26               cuda11_0
    pytorch                   2.0.1           py3.10_cuda11.8_cudnn8.7.0_0    pytorch
    pytorch-cuda              11.8                 h7e8668a_5    pytorch
    python                    3.10.13              h955ad1f_0
    """
)


def versions(text: str) -> dict[str, str]:
    return detect(text).versions


def test_collect_env_full_output() -> None:
    env = detect(COLLECT_ENV, "env.txt")
    v = env.versions
    assert v["torch"] == "2.1.0+cu121"
    assert v["cuda"] == "12.1"  # what PyTorch was built with beats nvcc's "CUDA runtime version"
    assert v["os"] == "Ubuntu 22.04.3 LTS (x86_64)"
    assert v["python"] == "3.10.12"
    assert v["gpu"] == "NVIDIA A100-SXM4-40GB"
    assert v["driver"] == "535.104.05"
    assert v["cudnn"] == "8.9.6"  # from the library file names
    assert env.sources["torch"] == "env.txt:2"
    assert "numpy" not in v and "triton" not in v


def test_nvidia_smi_header_and_row() -> None:
    v = versions(NVIDIA_SMI)
    assert v["driver"] == "535.104.05"
    assert v["cuda"] == "12.2"
    assert v["cuda_driver"] == "12.2"
    assert v["gpu"] == "NVIDIA GeForce RTX 3090"


def test_nvidia_smi_cuda_ranks_below_the_frameworks_cuda() -> None:
    # nvidia-smi's CUDA Version is the highest the driver supports, not the toolkit in use
    v = versions(NVIDIA_SMI + "\nCUDA used to build PyTorch: 11.8\n")
    assert v["cuda"] == "11.8"
    assert v["cuda_driver"] == "12.2"


def test_tensorflow_startup_log() -> None:
    v = versions(TF_STARTUP)
    assert v["gpu"] == "NVIDIA A100-SXM4-40GB"
    assert v["compute_capability"] == "8.0"
    assert v["cudnn"] == "8.9.6"
    assert "python" not in v  # "This TensorFlow binary" etc. say nothing about Python


def test_tensorflow_24_startup_log_and_rank() -> None:
    v = versions(TF24_STARTUP)
    assert v["gpu"] == "Tesla T4"
    assert v["compute_capability"] == "7.5"
    assert v["cuda"] == "11.0"
    assert v["cudnn"] == "8"  # only the major is known from libcudnn.so.8
    # the loaded library's own report beats the file name, wherever it is
    v = versions(TF24_STARTUP + "\n2021-03-01 I tensorflow/stream_executor/cuda/cuda_dnn.cc:359] Loaded cuDNN version 8005\n")
    assert v["cudnn"] == "8.0.5"


def test_tensorflow_1x_device_properties() -> None:
    text = (
        "2018-05-01 I tensorflow/core/common_runtime/gpu/gpu_device.cc:1356] Found device 0 with properties: \n"
        "name: Tesla K80 major: 3 minor: 7 memoryClockRate(GHz): 0.8235\n"
    )
    v = versions(text)
    assert v["gpu"] == "Tesla K80"
    assert v["compute_capability"] == "3.7"


def test_pip_freeze() -> None:
    v = versions(PIP_FREEZE)
    assert v["tensorflow"] == "2.15.0.post1"
    assert v["keras"] == "2.15.0"
    assert v["cudnn"] == "8.9.4.25"


def test_pip_list() -> None:
    v = versions(PIP_LIST)
    assert v["jax"] == "0.4.23"
    assert v["jaxlib"] == "0.4.23+cuda12.cudnn89"
    assert v["tensorflow"] == "2.15.0"


def test_conda_list_and_build_string_hints() -> None:
    v = versions(CONDA_LIST)
    assert v["torch"] == "2.0.1"
    assert v["cuda"] == "11.8.0"
    assert v["cudnn"] == "8.9.2.26"  # the cudnn package row beats the pytorch build string hint
    assert v["python"] == "3.10.13"


def test_torch_wheel_local_version_hints_cuda() -> None:
    v = versions("[pip3] torch==2.2.0+cu118\n")
    assert v["torch"] == "2.2.0+cu118"
    assert v["cuda"] == "11.8"


def test_pip_install_output() -> None:
    text = "Successfully installed nvidia-cudnn-cu12-8.9.2.26 torch-2.1.0 triton-2.1.0\n"
    v = versions(text)
    assert v["torch"] == "2.1.0"
    assert v["cudnn"] == "8.9.2.26"
    text = "Requirement already satisfied: tensorflow[and-cuda]==2.15.0 in ./venv/lib/python3.11/site-packages (2.15.0)\n"
    assert versions(text)["tensorflow"] == "2.15.0"


@pytest.mark.parametrize(
    ("line", "component", "expected"),
    [
        ("Loaded cuDNN version 8906", "cudnn", "8.9.6"),
        ("I0000 cuda_dnn.cc:529] Loaded cuDNN version 90100", "cudnn", "9.1.0"),
        ("torch.backends.cudnn.version(): 8902", "cudnn", "8.9.2"),
        ("cudnn 8902", "cudnn", "8.9.2"),
        ("cuDNN version: 8.9.2", "cudnn", "8.9.2"),
        ("CUDA 12.1, cudnn 8.9.2 on a V100", "cudnn", "8.9.2"),
        ("Successfully opened dynamic library libcudnn.so.8", "cudnn", "8"),
        ("Successfully opened dynamic library libcudnn.so.7", "cudnn", "7"),
        ("I! CuDNN (v8907) function cudnnCreate() called:", "cudnn", "8.9.7"),
        (
            "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime "
            "version (8, 5, 0).",
            "cudnn",
            "8.5.0",
        ),
        ("E0000 cuda_dnn.cc:535] Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.", "cudnn", "8.6.0"),
        ("CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8907", "cudnn", "8.6.0"),
        ("cuDNN Version                : 8801", "cudnn", "8.8.1"),
        ("CUDA used to build PyTorch: 12.1", "cuda", "12.1"),
        ("Cuda compilation tools, release 11.8, V11.8.89", "cuda", "11.8"),
        ("| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |", "cuda", "12.2"),
        ("CUDA Runtime Version         : 12020", "cuda", "12.2"),
        ("Driver Version: 535.104.05", "driver", "535.104.05"),
        ("2023 E cuda_diagnostics.cc:168] kernel reported version is: 470.57.2", "driver", "470.57.2"),
        ("GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-0b1c2d3e-aaaa-bbbb-cccc-1234567890ab)", "gpu", "NVIDIA GeForce RTX 3090"),
        ("Found GPU0 GeForce GTX 770 which is of cuda capability 3.0.", "compute_capability", "3.0"),
        ("NVIDIA GeForce RTX 4090 with CUDA capability sm_89 is not compatible with the current PyTorch installation.",
         "compute_capability", "8.9"),
        ("W1120 10:00:00.1 gpu_resources.cc:61] Please NOTE: device: 0, GPU Compute Capability: 8.0, Driver API Version: "
         "12.2, Runtime API Version: 11.8", "cuda", "11.8"),
        ("Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)", "python", "3.10.12"),
        ("Python 3.9.7 (default, Sep 16 2021, 13:09:58)", "python", "3.9.7"),
        ("OS: Microsoft Windows 11 Pro", "os", "Microsoft Windows 11 Pro"),
        ("torch.__version__ = 1.13.1+cu117", "torch", "1.13.1+cu117"),
        ("TensorFlow version: 2.12.0", "tensorflow", "2.12.0"),
        ("tensorflow-gpu==2.4.1", "tensorflow", "2.4.1"),
        ("Keras version: 3.0.2", "keras", "3.0.2"),
        ("jax:    0.4.23", "jax", "0.4.23"),
        ("jaxlib: 0.4.23", "jaxlib", "0.4.23"),
        ("cupy-cuda12x==13.0.0", "cupy", "13.0.0"),
        ("paddlepaddle-gpu==2.5.2", "paddle", "2.5.2"),
        ("onnxruntime-gpu==1.16.3", "onnxruntime", "1.16.3"),
        ("  [587475ba] Flux v0.14.6", "flux", "0.14.6"),
        ("- CUDA/cuDNN version: 11.8 / 8.6", "cudnn", "8.6"),
    ],
)
def test_single_line_detectors(line: str, component: str, expected: str) -> None:
    assert versions(line).get(component) == expected


@pytest.mark.parametrize(
    "line",
    [
        "import torch",
        "x = torch.randn(5, 3, 10)",
        "  File \"train.py\", line 3, in <module>",
        "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED",
        "python train.py --epochs 3",
        "- cuDNN: 1.2.1",  # CUDA.jl's versioninfo: the Julia package, not the library
        "torchvision==0.16.0",
        "tensorflow-estimator==2.15.0",
        "cuDNN version: Could not collect",
        '  File "/usr/local/lib/python3.8/dist-packages/torch/nn/modules/rnn.py", line 812, in forward',
        "bbox: 0.1 pos: 3 photos: 12",
        "OS: Could not collect",
    ],
)
def test_lines_that_say_nothing(line: str) -> None:
    assert versions(line) == {}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("7605", "7.6.5"), ("7102", "7.1.2"), ("6021", "6.0.21"), ("8906", "8.9.6"), ("8100", "8.1.0"),
     ("90100", "9.1.0"), ("90300", "9.3.0"), ("91002", "9.10.2"), ("(8, 9, 2)", "8.9.2"), ("8.9.2", "8.9.2"),
     ("8", "8"), ("1.2.1", None), ("42", None)],
)
def test_cudnn_integer_decoding(raw: str, expected: str | None) -> None:
    assert cudnn_version_text(raw) == expected


def test_cuda_integer_decoding() -> None:
    assert cuda_version_text("12020") == "12.2"
    assert cuda_version_text("11080") == "11.8"
    assert cuda_version_text("10010") == "10.1"
    assert cuda_version_text("12.1") == "12.1"


def test_package_component() -> None:
    assert package_component("tensorflow_gpu") == "tensorflow"
    assert package_component("nvidia-cudnn-cu11") == "cudnn"
    assert package_component("pytorch") == "torch"
    assert package_component("torchvision") is None


def test_first_equal_rank_wins_and_override() -> None:
    c = EnvironmentCollector()
    c.scan("PyTorch version: 2.1.0\nPyTorch version: 1.13.0\n", "a.log")
    assert c.env.versions["torch"] == "2.1.0"
    c.override({"torch": "2.2.0"})
    assert c.env.to_record()["torch"] == {"version": "2.2.0", "source": "--env"}
    c.scan("Loaded cuDNN version 8906\n")
    assert "cudnn" in c.env.versions


def test_literals_are_specific() -> None:
    """No literal so short or common that it fires on ordinary lines of a training log."""
    ordinary = [
        "import torch", "python train.py", "Epoch 1/10", "loss: 0.123 - accuracy: 0.98",
        "x = torch.randn(5, 3, 10).cuda()", "out, (h, c) = self.lstm(x)", "  File \"train.py\", line 3, in main",
        "INFO:root:step 100", "torch.Size([5, 3, 20])",  # ("Using TensorFlow backend." is read: printed once)
        '  File "/usr/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl',
        "2023-11-20 10:00:00.1: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] step ok",
        "/usr/lib/python3.10/site-packages/torch/nn/modules/rnn.py:82: UserWarning: dropout option adds dropout",
        "tensor([0.1], device='cuda:0') cuda:0 device(type='cuda', index=0)",
    ]
    for d in DETECTORS:
        for lit in d.literals:
            assert len(lit) >= 4, (d.name, lit)
            for line in ordinary:
                assert lit.lower() not in line.lower(), (d.name, lit, line)


def test_matcher_probes_see_the_same(catalog) -> None:  # type: ignore[no-untyped-def]
    c = EnvironmentCollector()
    c.source = "log"
    m = Matcher(catalog, probes=c.probes())
    m.scan_text(COLLECT_ENV + NVIDIA_SMI + TF_STARTUP, "log")
    assert c.env.versions == detect(COLLECT_ENV + NVIDIA_SMI + TF_STARTUP).versions


# ------------------------------------------------------------------------- demotion through diagnose()

SIG = textwrap.dedent(
    """\
    id: testing/rnn-widget-error
    title: Widget failure in an RNN
    framework: pytorch
    scope: rnn
    severity: error
    priority: 95
    signature: "RuntimeError: widget frobnication failed in LSTM"
    regex: "RuntimeError: widget frobnication failed in (?P<layer>LSTM|GRU)"
    prefilter: ["widget frobnication failed"]
    root_cause: A made-up bug used by the tests.
    applies: {torch: ">=1.0"}
    fixed_in: {torch: "2.1.0"}
    workarounds:
      - action: Upgrade PyTorch
        how: pip install -U torch
        success_rate: 0.9
        verification_tier: estimated
        effort: low
      - action: Use the old flag
        how: torch.backends.cudnn.old_flag = True
        success_rate: 0.5
        verification_tier: estimated
        effort: low
        applies: {torch: "<1.5"}
    examples:
      - name: basic
        text: "RuntimeError: widget frobnication failed in LSTM"
        captures: {layer: LSTM}
    counter_examples:
      - name: other
        text: "RuntimeError: something else"
        why: different
    references: ["https://example.com/widget"]
    """
)


@pytest.fixture()
def widget_catalog(tmp_path):  # type: ignore[no-untyped-def]
    from cudnn_doctor.kb.compiled import load_catalog

    (tmp_path / "widget.yaml").write_text(SIG, encoding="utf-8")
    return load_catalog([str(tmp_path)], builtin=False, use_cache=False)


def _finding(text: str, catalog, env=None):  # type: ignore[no-untyped-def]
    d = cudnn_doctor.diagnose(text, catalog=catalog, env=env)
    found = [f for f in d.findings + d.below_threshold if f.id == "testing/rnn-widget-error"]
    assert found, d
    return d, found[0]


def test_old_version_is_not_demoted(widget_catalog) -> None:  # type: ignore[no-untyped-def]
    d, f = _finding("PyTorch version: 2.0.1+cu118\nRuntimeError: widget frobnication failed in LSTM\n", widget_catalog)
    assert f.demoted == []
    assert d.environment["torch"] == {"version": "2.0.1+cu118", "source": "<text>:1"}


def test_fixed_version_demotes_with_reason(widget_catalog) -> None:  # type: ignore[no-untyped-def]
    _, f = _finding("[pip3] torch==2.1.0+cu121\nRuntimeError: widget frobnication failed in LSTM\n", widget_catalog)
    assert f.demoted == ["fixed in torch 2.1.0; the log shows torch 2.1.0+cu121"]


def test_applies_demotes_with_reason(widget_catalog) -> None:  # type: ignore[no-untyped-def]
    _, f = _finding("torch 0.4.1 (installed package)\nRuntimeError: widget frobnication failed in LSTM\n", widget_catalog)
    assert f.demoted == ["applies to torch >=1.0; the log shows torch 0.4.1"]


def test_env_override_beats_the_log(widget_catalog) -> None:  # type: ignore[no-untyped-def]
    d, f = _finding("PyTorch version: 2.3.0\nRuntimeError: widget frobnication failed in LSTM\n", widget_catalog,
                    env={"torch": "1.4.0"})
    assert f.demoted == []
    assert d.environment["torch"]["source"] == "--env"


def test_workaround_hidden_by_version(widget_catalog) -> None:  # type: ignore[no-untyped-def]
    from cudnn_doctor.report import build_report

    d, _ = _finding("PyTorch version: 2.0.0\nRuntimeError: widget frobnication failed in LSTM\n", widget_catalog)
    rec = build_report(d)
    f = rec["findings"][0]
    assert [w["action"] for w in f["workarounds"]] == ["Upgrade PyTorch"]
    assert f["hidden_workarounds"] == [
        {"action": "Use the old flag", "reason": "needs torch <1.5; the log shows torch 2.0.0"}
    ]
    assert rec["environment"]["torch"]["version"] == "2.0.0"


def test_version_in_agrees_with_packaging_on_plain_releases() -> None:
    """rank.version_in decides plain releases itself (no packaging import on the way) exactly as PEP 440
    does, and leaves everything else to packaging."""
    import itertools

    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from cudnn_doctor.rank import findings as rank

    versions = ["1", "2", "2.0", "2.0.0", "2.3.9", "2.4", "2.4.0", "2.4.1", "2.14", "2.16", "2.16.0.1", "10.0", "2.04"]
    specs = [f"{op}{v}" for op in (">=", "<=", "==", "!=", "<", ">") for v in ("2", "2.4", "2.4.0", "2.14", "10")]
    specs += [">=2.0,<2.16", ">= 2.0 , < 2.16", ">=2.4,!=2.14"]
    for version, spec in itertools.product(versions, specs):
        quick = rank._release_in(version, spec)
        assert quick is not None, (version, spec)
        assert quick == SpecifierSet(spec).contains(Version(version), prereleases=True), (version, spec)
    for version, spec in [("2.14.0rc1", ">=2.14"), ("2.4.post1", ">2.4"), ("v2.4", "<2.5"), ("2.4", "~=2.3"), ("2.4", "==2.*"),
                          ("2.4", "<1,~=2.3")]:
        assert rank._release_in(version, spec) is None
        assert rank.version_in(version, spec) == SpecifierSet(spec).contains(Version(version), prereleases=True)
    assert rank.version_in("2.15.1+cu121", "<2.16") is True
    assert rank.version_in("not a version", ">=1") is None

"""``cudnn-doctor env`` (localenv.py): works with nothing installed, and its output reads back as a log's environment."""

from __future__ import annotations

import json
import os
import platform
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from clirunner import invoke
from cudnn_doctor.env import local as localenv
from cudnn_doctor.env.detect import EnvironmentCollector, detect
from cudnn_doctor.env.local import HOW_PACKAGE, LocalEnv, cudnn_int_text, describe_local

FAKE_SMI = textwrap.dedent(
    """\
    #!/bin/sh
    case "$1" in
      --query-gpu=name,driver_version,compute_cap)
        echo "NVIDIA A100-SXM4-80GB, 535.104.05, 8.0"
        echo "NVIDIA A100-SXM4-80GB, 535.104.05, 8.0" ;;
      "")
        echo "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |" ;;
      *) exit 2 ;;
    esac
    """
)


@pytest.fixture()
def fake_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine with torch, a pip cuDNN wheel and an nvidia-smi, all fake."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(FAKE_SMI)
    smi.chmod(smi.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")

    fake = {"torch": "2.1.0+cu121", "nvidia-cudnn-cu12": "8.9.2.26"}

    class Dist:  # what importlib.metadata.distributions() yields, as far as env reads it
        def __init__(self, name: str, version: str) -> None:
            self.metadata, self.version = {"Name": name}, version

    monkeypatch.setattr("importlib.metadata.distributions", lambda: [Dist(n, v) for n, v in fake.items()])
    site = tmp_path / "site-packages"
    lib = site / "nvidia" / "cudnn" / "lib"
    lib.mkdir(parents=True)
    (lib / "libcudnn.so.8").write_bytes(b"not really a library")
    monkeypatch.setattr(localenv, "_site_dirs", lambda: [str(site)])
    monkeypatch.setattr("ctypes.util.find_library", lambda name: None)
    return tmp_path


def test_env_on_this_machine_terminal_and_json() -> None:
    result = invoke(["env"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(localenv.HEADER)
    assert f"python {platform.python_version()} (this interpreter)" in result.output
    result = invoke(["env", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"facts", "versions", "missing", "notes"}
    assert data["versions"]["python"].startswith("3.")


def test_env_bad_format() -> None:
    from cudnn_doctor.cli.entry import main

    assert main(["env", "--format", "yaml"]) == 2


def test_env_with_fake_gpu_and_packages(fake_machine: Path) -> None:
    out = describe_local("terminal")
    assert "torch 2.1.0+cu121 (installed package)" in out
    assert "nvidia-cudnn-cu12 8.9.2.26 (installed package)" in out
    assert "cudnn 8 (libcudnn file)" in out
    assert "driver 535.104.05 (nvidia-smi)" in out
    assert "cuda_driver 12.2 (nvidia-smi)" in out
    assert "gpu NVIDIA A100-SXM4-80GB (nvidia-smi)" in out
    assert "compute_capability 8.0 (nvidia-smi)" in out
    assert "not installed: tensorflow" in out
    data = json.loads(describe_local("json"))
    assert data["versions"]["torch"] == "2.1.0+cu121"
    assert data["versions"]["gpu"] == "NVIDIA A100-SXM4-80GB"


def test_env_output_reads_back_as_the_same_versions(fake_machine: Path) -> None:
    out = describe_local("terminal")
    env = detect(out, "env.txt")
    assert env.versions["torch"] == "2.1.0+cu121"
    assert env.versions["cudnn"] == "8.9.2.26"  # the package beats the bare file name libcudnn.so.8
    assert env.versions["driver"] == "535.104.05"
    assert env.versions["gpu"] == "NVIDIA A100-SXM4-80GB"
    assert env.versions["compute_capability"] == "8.0"
    assert env.versions["cuda_driver"] == "12.2"
    assert env.versions["python"] == platform.python_version()
    assert "os" in env.versions
    # pasted above a traceback inside a bigger log, through the matcher's probes
    c = EnvironmentCollector()
    c.scan("some noise\n" + out + "Traceback (most recent call last):\n")
    assert c.env.versions == env.versions


def test_round_trip_of_every_fact_kind() -> None:
    env = LocalEnv()
    env.add("python", "3.10.12", localenv.HOW_PYTHON, "/usr/bin/python3")
    env.add("os", "Ubuntu 22.04.3 LTS (x86_64)", localenv.HOW_OS)
    for name, v in [("torch", "2.2.1+cu118"), ("tensorflow-gpu", "2.4.1"), ("keras", "3.0.5"), ("jax", "0.4.25"),
                    ("jaxlib", "0.4.25"), ("cupy-cuda12x", "13.0.0"), ("paddlepaddle-gpu", "2.6.0"),
                    ("onnxruntime-gpu", "1.17.1"), ("nvidia-cuda-runtime-cu12", "12.1.105")]:
        env.add(name, v, HOW_PACKAGE)
    env.add("cudnn", "9.1.0", localenv.HOW_CUDNN_CALL, "/usr/lib/x86_64-linux-gnu/libcudnn.so.9")
    env.add("driver", "550.54.15", localenv.HOW_SMI)
    env.add("gpu", "Tesla T4", localenv.HOW_SMI)
    got = detect(localenv.to_terminal(env)).versions
    assert got == {
        "python": "3.10.12", "os": "Ubuntu 22.04.3 LTS (x86_64)", "torch": "2.2.1+cu118", "tensorflow": "2.4.1",
        "keras": "3.0.5", "jax": "0.4.25", "jaxlib": "0.4.25", "cupy": "13.0.0", "paddle": "2.6.0",
        "onnxruntime": "1.17.1", "cuda": "12.1.105", "cudnn": "9.1.0", "driver": "550.54.15", "gpu": "Tesla T4",
    }


def test_cudnn_int_text() -> None:
    assert cudnn_int_text(7605) == "7.6.5"
    assert cudnn_int_text(8906) == "8.9.6"
    assert cudnn_int_text(90100) == "9.1.0"


def test_cudnn_get_version_never_raises(tmp_path: Path) -> None:
    bogus = tmp_path / "libcudnn.so.9"
    bogus.write_bytes(b"\x7fELF nope")
    assert localenv.cudnn_get_version(str(bogus)) is None
    assert localenv.cudnn_get_version(str(tmp_path / "missing.so")) is None
    import ctypes.util

    libc = ctypes.util.find_library("c")
    if libc:  # loads, but has no cudnnGetVersion
        assert localenv.cudnn_get_version(libc) is None


@pytest.mark.skipif(shutil.which("cc") is None or sys.platform != "linux", reason="needs a C compiler on Linux")
def test_cudnn_get_version_through_ctypes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "fake.c"
    src.write_text("#include <stddef.h>\nsize_t cudnnGetVersion(void) { return 90100; }\n")
    lib_dir = tmp_path / "site" / "nvidia" / "cudnn" / "lib"
    lib_dir.mkdir(parents=True)
    so = lib_dir / "libcudnn.so.9"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(src)], check=True, capture_output=True)
    monkeypatch.setattr(localenv, "_site_dirs", lambda: [str(tmp_path / "site")])
    monkeypatch.setattr("ctypes.util.find_library", lambda name: None)
    monkeypatch.setattr(localenv, "_nvidia_smi", lambda env: None)
    out = describe_local("terminal")
    assert f"cudnn 9.1.0 (cudnnGetVersion) {so}" in out
    assert detect(out).versions["cudnn"] == "9.1.0"
    assert json.loads(describe_local("json"))["versions"]["cudnn"] == "9.1.0"


def test_hanging_or_broken_nvidia_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 9\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(localenv, "SMI_TIMEOUT_S", 2.0)
    env = localenv.collect()
    assert not [f for f in env.facts if f.how == localenv.HOW_SMI]

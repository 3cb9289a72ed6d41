"""``cudnn-doctor env``: what is installed on this machine, without importing any framework.

Everything here is best effort and guarded: a missing package, a library that does not load, an absent or
hanging ``nvidia-smi`` only leave a line out. Nothing heavy is imported (versions come from
``importlib.metadata``; cuDNN's own ``cudnnGetVersion`` is called through ctypes when a libcudnn loads).

The terminal output is one fact per line, ``<component> <value> (<how>)`` optionally followed by a path,
e.g. ``torch 2.1.0+cu121 (installed package)``; environment.py understands these lines, so the output pasted
next to a log is read back as that log's environment.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

# the "(how)" tags of ``env`` lines and the cuDNN version text live with the detector that reads them back
# (environment.py): a diagnosis does not import this module
from .detect import HOW_CUDNN_CALL, HOW_CUDNN_FILE, HOW_OS, HOW_PACKAGE, HOW_PYTHON, HOW_SMI, cudnn_int_text

if TYPE_CHECKING:
    from typing import Any

HEADER = "cudnn-doctor env: versions found on this machine"


# Installed distributions that matter, by pattern on their normalized names (PEP 503), so that a new CUDA's
# wheels (nvidia-cudnn-cu13, cupy-cuda13x, jax-cuda13-plugin, nvidia-cuda-runtime) are found without a list to
# keep up; each with the framework it belongs to ("not installed: cupy" is said only when no cupy* is there).
# Order = output order.
FAMILIES: tuple[tuple[str, str], ...] = (
    ("torch", r"torch"),
    ("tensorflow", r"tensorflow(?:-[a-z]+)?|tf-nightly(?:-[a-z]+)?|intel-tensorflow"),
    ("keras", r"keras(?:-nightly)?|tf-keras"),
    ("jax", r"jax|jaxlib|jax-cuda\d+-(?:plugin|pjrt)|jax-rocm\d+-(?:plugin|pjrt)"),
    ("cupy", r"cupy(?:-cuda\d+x?|-rocm-[\w-]+)?"),
    ("chainer", r"chainer"),
    ("mxnet", r"mxnet(?:-cu\d+\w*|-mkl|-native)?"),
    ("paddlepaddle", r"paddlepaddle(?:-gpu)?"),
    ("onnxruntime", r"onnxruntime(?:-gpu|-directml|-training|-openvino)?"),
    ("nvidia", r"nvidia-cudnn(?:-cu\d+)?|nvidia-cuda-runtime(?:-cu\d+)?|nvidia-cuda-nvrtc(?:-cu\d+)?|nvidia-cublas(?:-cu\d+)?"),
)
FRAMEWORKS = ("torch", "tensorflow", "keras", "jax", "cupy", "mxnet", "paddlepaddle", "onnxruntime")  # "not installed: ..."
SMI_TIMEOUT_S = 5.0


@dataclass(slots=True)
class Fact:
    """One fact about this machine's stack (a component's version) and how it was learned."""

    component: str
    value: str
    how: str
    path: str = ""

    def line(self) -> str:
        return f"{self.component} {self.value} ({self.how})" + (f" {self.path}" if self.path else "")

    def to_record(self) -> dict[str, str]:
        out = {"component": self.component, "value": self.value, "how": self.how}
        if self.path:
            out["path"] = self.path
        return out


@dataclass(slots=True)
class LocalEnv:
    """What `cudnn-doctor env` learned about this machine: its facts, what it could not find, notes."""

    facts: list[Fact] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, component: str, value: str, how: str, path: str = "") -> None:
        value = " ".join(str(value).split())
        if value:
            self.facts.append(Fact(component, value, how, path))


def installed(names: Iterable[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(family, normalized name, version) of the distributions among ``names`` (name, version) that match
    FAMILIES, in FAMILIES order then by name; each name once."""
    patterns = [(family, re.compile(pattern)) for family, pattern in FAMILIES]
    found: dict[str, tuple[int, str, str]] = {}
    for raw, version in names:
        name = re.sub(r"[-_.]+", "-", str(raw or "")).lower()
        for rank, (family, pattern) in enumerate(patterns):
            if name not in found and version and pattern.fullmatch(name):
                found[name] = (rank, family, str(version))
    return [(family, name, version) for name, (_, family, version) in sorted(found.items(), key=lambda kv: (kv[1][0], kv[0]))]


def _name_version(dist: Any) -> tuple[str, str]:
    try:
        return str(dist.metadata["Name"] or ""), str(dist.version or "")
    except Exception:  # broken metadata: that distribution is left out
        return "", ""


def _packages(env: LocalEnv) -> None:
    from importlib import metadata

    names = [_name_version(dist) for dist in metadata.distributions()]
    families = set()
    for family, name, version in installed(names):
        families.add(family)
        env.add(name, version, HOW_PACKAGE)
    env.missing += [f for f in FRAMEWORKS if f not in families]


def _site_dirs() -> list[str]:
    dirs: list[str] = []
    try:
        import site

        dirs += list(site.getsitepackages())
        user = site.getusersitepackages()
        if isinstance(user, str):
            dirs.append(user)
    except Exception:
        pass
    dirs += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    out: list[str] = []
    for d in dirs:
        if d and d not in out and os.path.isdir(d):
            out.append(d)
    return out


_CUDNN_GLOBS = ("nvidia/cudnn/lib/libcudnn.so.*", "torch/lib/libcudnn.so.*", "nvidia/cudnn/bin/cudnn64_*.dll")


def cudnn_libraries() -> list[str]:
    """libcudnn files: the loader's answer plus pip wheels' nvidia/cudnn/lib (and torch/lib) folders."""
    import ctypes
    import ctypes.util
    import glob
    found: list[str] = []
    try:
        name = ctypes.util.find_library("cudnn")
    except Exception:
        name = None
    if name:
        found.append(name)
    for d in _site_dirs():
        for pattern in _CUDNN_GLOBS:
            for path in sorted(glob.glob(os.path.join(d, pattern))):
                if path not in found:
                    found.append(path)
    return found


def _library_version_from_name(path: str) -> str | None:
    base = os.path.basename(os.path.realpath(path)) if os.path.sep in path else path
    m = re.search(r"libcudnn\.so\.(\d+(?:\.\d+){0,2})$", base) or re.search(r"cudnn64_(\d+)\.dll$", base)
    return m.group(1) if m else None


def _cudnn(env: LocalEnv) -> None:
    libs = cudnn_libraries()
    if not libs:
        env.notes.append("no libcudnn on the loader path or in site-packages")
        return
    for path in libs:
        version = _library_version_from_name(path)
        if version:
            env.add("cudnn", version, HOW_CUDNN_FILE, path)
    for path in libs:
        got = cudnn_get_version(path)
        if got:
            env.add("cudnn", cudnn_int_text(got), HOW_CUDNN_CALL, path)
            return


def cudnn_get_version(path: str) -> int | None:
    """cudnnGetVersion() of the library at ``path``; None when it does not load (never raises)."""
    import ctypes
    import ctypes.util
    try:
        lib = ctypes.CDLL(path)
        fn = lib.cudnnGetVersion
        fn.restype = ctypes.c_size_t
        fn.argtypes = []
        value = int(fn())
        return value if value > 0 else None
    except Exception:
        return None


_SMI_HEADER = re.compile(r"Driver Version:\s*(?P<driver>[\d.]+)(?:.*?CUDA Version:\s*(?P<cuda>[\d.]+))?")


def _smi(exe: str, *args: str) -> tuple[int, str]:
    import subprocess

    proc = subprocess.run([exe, *args], capture_output=True, text=True, timeout=SMI_TIMEOUT_S, check=False)
    return proc.returncode, proc.stdout or ""


def _smi_rows(exe: str) -> list[str]:
    """One CSV row per GPU: name, driver, compute capability (old drivers do not know compute_cap)."""
    for query in ("name,driver_version,compute_cap", "name,driver_version"):
        rc, out = _smi(exe, f"--query-gpu={query}", "--format=csv,noheader")
        rows = [r for r in out.splitlines() if r.strip()] if rc == 0 else []
        if rows:
            return rows
    return []


def _nvidia_smi(env: LocalEnv) -> None:
    import shutil
    import subprocess

    exe = shutil.which("nvidia-smi")
    if not exe:
        env.notes.append("nvidia-smi not on PATH")
        return
    try:
        rows = _smi_rows(exe)
        head = _smi(exe)[1]
    except (OSError, subprocess.SubprocessError) as exc:
        env.notes.append(f"nvidia-smi failed: {exc}")
        return
    m = _SMI_HEADER.search(head)
    if m:
        env.add("driver", m.group("driver"), HOW_SMI)
        if m.group("cuda"):
            env.add("cuda_driver", m.group("cuda"), HOW_SMI)
    for i, row in enumerate(rows):
        _smi_row(env, i, [p.strip() for p in row.split(",")], driver_done=m is not None)


def _smi_row(env: LocalEnv, i: int, parts: list[str], driver_done: bool) -> None:
    """What one GPU's row says: the driver (first GPU, when the header did not), its name, its capability."""
    if i == 0 and len(parts) >= 2 and not driver_done:
        env.add("driver", parts[1], HOW_SMI)
    if parts and parts[0]:
        env.add("gpu", parts[0] if i == 0 else f"{i}: {parts[0]}", HOW_SMI)
    if i == 0 and len(parts) >= 3 and re.fullmatch(r"\d+\.\d+", parts[2]):
        env.add("compute_capability", parts[2], HOW_SMI)


def _os_text() -> str:
    import platform
    try:
        info = platform.freedesktop_os_release()  # type: ignore[attr-defined]
        name = info.get("PRETTY_NAME") or info.get("NAME")
        if name:
            return f"{name} ({platform.machine()})"
    except Exception:
        pass
    if sys.platform == "darwin":
        return f"macOS {platform.mac_ver()[0]} ({platform.machine()})"
    if sys.platform == "win32":
        return f"Windows {platform.release()} {platform.version()} ({platform.machine()})"
    return f"{platform.system()} {platform.release()} ({platform.machine()})"


def collect() -> LocalEnv:
    import platform
    env = LocalEnv()
    env.add("python", platform.python_version(), HOW_PYTHON, sys.executable or "")
    for step in (_os, _packages, _cudnn, _nvidia_smi):
        _guarded(step, env)
    return env


def _guarded(step: Any, env: LocalEnv) -> None:
    try:
        step(env)
    except Exception as exc:  # never let a probe break the command
        env.notes.append(f"{step.__name__.strip('_')}: {type(exc).__name__}: {exc}")


def _os(env: LocalEnv) -> None:
    env.add("os", _os_text(), HOW_OS)


def to_terminal(env: LocalEnv) -> str:
    lines = [HEADER]
    lines += [f.line() for f in env.facts]
    if env.missing:
        lines.append("not installed: " + ", ".join(env.missing))
    lines += [f"note: {n}" for n in env.notes]
    return "\n".join(lines) + "\n"


def to_json(env: LocalEnv) -> dict[str, Any]:
    versions: dict[str, str] = {}
    for f in env.facts:  # the best fact per component: cudnnGetVersion beats a file name
        if f.component not in versions or f.how == HOW_CUDNN_CALL:
            versions[f.component] = f.value
    return {
        "facts": [f.to_record() for f in env.facts],
        "versions": versions,
        "missing": env.missing,
        "notes": env.notes,
    }


def describe_local(fmt: str = "terminal") -> str:
    """Text for ``cudnn-doctor env``: ``terminal`` (plain lines) or ``json``."""
    import json
    env = collect()
    if fmt == "json":
        return json.dumps(to_json(env), indent=2, ensure_ascii=False) + "\n"
    if fmt != "terminal":
        from ..errors import UsageError

        raise UsageError(f"--format must be terminal or json, not {fmt!r}")
    return to_terminal(env)

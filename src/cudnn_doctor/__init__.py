"""cudnn-doctor: diagnose cuDNN RNN (LSTM/GRU) errors from tracebacks and CI logs.

    >>> import cudnn_doctor
    >>> d = cudnn_doctor.diagnose(open("train.log").read())
    >>> d.findings[0].id, d.findings[0].explanation
"""

from __future__ import annotations

from .version import __version__

__all__ = ["__version__", "auto", "diagnose", "install", "load_catalog", "uninstall"]

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from .integrations.hook import auto, install, uninstall
    from .kb.compiled import load_catalog
    from .scan import diagnose


def __getattr__(name: str) -> Any:  # lazy: keep `import cudnn_doctor` cheap for the CLI
    if name == "diagnose":
        from .scan import diagnose

        return diagnose
    if name == "load_catalog":
        from .kb.compiled import load_catalog

        return load_catalog
    if name in ("install", "uninstall", "auto"):  # the excepthooks (hook.py): cheap until an exception
        from .integrations import hook

        return getattr(hook, name)
    if name in ("load_ipython_extension", "unload_ipython_extension"):  # %load_ext cudnn_doctor
        from .integrations import ipython as ipython_ext

        return getattr(ipython_ext, name)
    raise AttributeError(name)

"""``env`` (what is installed on this machine) and ``mcp`` (the Model Context Protocol server)."""

from __future__ import annotations

import sys
from argparse import Namespace

from ..errors import UsageError
from .commands import EXIT_OK, write


def cmd_env(ns: Namespace) -> int:
    """Print the frameworks, cuDNN and CUDA found on this machine (no framework needs to be installed)."""
    from ..env.local import describe_local

    if ns.format not in ("terminal", "json"):
        raise UsageError(f"env: --format must be terminal or json, not {ns.format!r}")
    write(describe_local(ns.format), None)
    return EXIT_OK


def cmd_mcp(ns: Namespace) -> int:
    """Serve the Model Context Protocol on stdin/stdout for coding agents (needs the optional extra mcp)."""
    from ..integrations.mcp import serve

    if sys.stdin is not None and sys.stdin.isatty():
        sys.stderr.write("cudnn-doctor mcp: serving the Model Context Protocol on stdin/stdout, for an MCP client "
                         "to start (see README.md); Ctrl-C to stop\n")
    serve()
    return EXIT_OK

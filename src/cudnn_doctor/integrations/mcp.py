"""``cudnn-doctor mcp``: a Model Context Protocol server over stdio for coding agents.

Tools: ``diagnose`` (log text in, the JSON record of docs/output-format.md out), ``show``, ``search``, ``env``.
Resources: ``cudnn-doctor://signatures`` (the index), ``cudnn-doctor://signatures/<id>`` (one signature as
written) and ``cudnn-doctor://schema/output`` (the record's JSON Schema).

Built on the official ``mcp`` SDK (optional extra ``cudnn-doctor[mcp]``): ``MCPServer`` in mcp 2, ``FastMCP``
in mcp 1 (same decorators). stdout is the protocol channel: nothing else may print there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ..errors import DoctorError, MissingExtraError
from ..version import __version__

INSTALL_HINT = "pip install mcp (in a clone of cudnn-doctor: pip install '.[mcp]')"
URI_INDEX = "cudnn-doctor://signatures"
URI_SCHEMA = "cudnn-doctor://schema/output"
_memo: dict[str, Any] = {}

INSTRUCTIONS = (
    "cudnn-doctor diagnoses cuDNN RNN (LSTM/GRU) errors from PyTorch, TensorFlow/Keras, JAX, CuPy/Chainer, MXNet, "
    "PaddlePaddle, ONNX Runtime and Julia Flux logs. Give `diagnose` the traceback or the log (the last few "
    "hundred lines are enough); read its `summary` first: the cause, the dead end to avoid (fixes known not to "
    "work) and the fix to try first. `show` gives one signature's full record, `search` finds signatures by "
    "words, `env` describes the frameworks, cuDNN, CUDA and GPU of this machine. It abstains rather than guess: "
    "`abstained: true` means no known error was found."
)


def _server_class() -> Any:
    """``MCPServer`` (mcp 2) or ``FastMCP`` (mcp 1); a one-line error with the pip command without the SDK."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise MissingExtraError(f"`cudnn-doctor mcp` needs the MCP Python SDK (the mcp package): {INSTALL_HINT}") from None
    try:
        from mcp.server.mcpserver import MCPServer

        return MCPServer
    except ImportError:
        pass
    try:
        from mcp.server.fastmcp import FastMCP

        return FastMCP
    except ImportError:
        raise MissingExtraError(
            "`cudnn-doctor mcp`: the installed mcp package has neither MCPServer nor FastMCP: pip install -U mcp"
        ) from None


def _fail(message: str) -> NoReturn:
    """An expected tool error: the client gets the message as an error result (not a logged crash)."""
    try:
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError:
        from mcp.server.fastmcp.exceptions import ToolError
    raise ToolError(message)


def _catalog(**kwargs: Any) -> Any:
    """The catalog, from the cache; a signature file edited while the server runs is picked up."""
    from ..kb.compiled import load_catalog

    try:
        return load_catalog(**kwargs)
    except DoctorError as exc:  # a broken $CUDNN_DOCTOR_SIGNATURES directory
        _fail(str(exc))


def _signature_record(sig: Any) -> dict[str, Any]:
    """The signature as written in its file (the cached catalog leaves the examples out)."""
    from ..kb.load import read_record

    record = read_record(Path(sig.path))
    return record if isinstance(record, dict) else dict(sig.raw)


def diagnose(log: str = "", path: str = "", lang: str = "en", env: dict[str, str] | None = None) -> dict[str, Any]:
    """Diagnose a cuDNN RNN error from a log or traceback.

    Args:
        log: the log or traceback text (the last few hundred lines are enough; ANSI codes, CI timestamps
            and rank prefixes are handled).
        path: instead of `log`, a log file (or a directory of logs, or a .gz log) on this machine: a big CI
            log is read here, streamed, not sent through the protocol.
        lang: "en" or "zh".
        env: versions to assume when the log does not show them, e.g. {"torch": "2.2.0", "cudnn": "8.9.5"}.

    Returns the cudnn-doctor JSON record: `summary` (one paragraph: cause, dead end to avoid, fix to try
    first), `findings` best first (root_cause, explanation, dead_ends, ranked workarounds with rates and where
    they come from), `abstained` when nothing known matched.
    """
    from ..read.sources import sources_from_args, text_source
    from ..report import build_report
    from ..scan import Options, diagnose_sources

    if lang not in ("en", "zh"):
        _fail(f"lang must be en or zh, not {lang!r}")
    if bool(log) == bool(path):
        _fail("give either `log` (the text) or `path` (a log file on this machine), not both or neither")
    pairs = {str(k).strip().lower(): str(v).strip() for k, v in (env or {}).items() if str(k).strip() and str(v).strip()}
    if path:
        local = Path(path).expanduser()
        if local.exists() and not local.is_file() and not local.is_dir():  # a FIFO would block the server
            _fail(f"{path}: not a regular file (a FIFO, socket or device): give a log file or a directory")
        sources, problems = sources_from_args([str(local)], None)
        if not sources:
            _fail("; ".join(problems) or f"{path}: nothing to read")
    else:
        sources = [text_source(log, "<mcp>")]
    try:
        result = diagnose_sources(sources, catalog=_catalog(), options=Options(lang=lang, env=pairs))
    except DoctorError as exc:  # an unreadable file: binary data, permission denied
        _fail(str(exc))
    return build_report(result, lang)


def show(id: str) -> dict[str, Any]:
    """The full record of one signature: message, regex, root cause, every dead end and workaround with
    rates and sources, examples. `id` as in a finding, e.g. "pytorch/rnn-hidden-size-mismatch"."""
    catalog = _catalog()
    sig = catalog.get(id)
    if sig is None:
        close = [s.id for s in catalog.signatures if id.split("/")[-1] and id.split("/")[-1] in s.id][:5]
        _fail(f"no signature with id {id!r}" + (f" (did you mean: {', '.join(close)}?)" if close else " (see the search tool)"))
    return _signature_record(sig)


def search(words: str, limit: int = 20) -> dict[str, Any]:
    """Find signatures whose id, title, message, labels, root cause or examples contain every word
    (e.g. "CUDNN_STATUS_BAD_PARAM lstm"). Returns {"count", "signatures": [{id, title, framework, scope,
    severity}]}, best first."""
    from ..kb.search import search_signatures

    if "search" not in _memo:  # the search also looks at the examples, which the cached catalog leaves out
        _memo["search"] = _catalog(use_cache=False)
    catalog = _memo["search"]
    hits = search_signatures(catalog, words.split())
    rows = [{"id": s.id, "title": s.title, "framework": s.framework, "scope": s.scope, "severity": s.severity}
            for s in hits[: max(1, limit)]]
    return {"count": len(hits), "signatures": rows}


def env() -> dict[str, Any]:
    """The frameworks, cuDNN, CUDA, driver and GPU found on this machine (as `cudnn-doctor env --format
    json`); no framework needs to be installed or imported."""
    from ..env.local import describe_local

    result: dict[str, Any] = json.loads(describe_local("json"))
    return result


def build_server() -> Any:
    """The server with its tools and resources (not started)."""
    server_class = _server_class()
    try:  # the SDK's own log (stderr) only for problems: an agent's client shows it to the user
        server = server_class("cudnn-doctor", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
    except TypeError:  # mcp 1's FastMCP has no version argument
        server = server_class("cudnn-doctor", instructions=INSTRUCTIONS, log_level="WARNING")
    annotations = _read_only()
    for tool in (diagnose, show, search, env):
        server.tool(annotations=annotations)(tool)

    catalog = _catalog()

    @server.resource(URI_INDEX, name="signatures", mime_type="application/json",
                     description="Every signature of the knowledge base: id, title, framework, scope, severity.")
    def index() -> str:
        rows = [{"id": s.id, "title": s.title, "framework": s.framework, "scope": s.scope, "severity": s.severity,
                 "uri": f"{URI_INDEX}/{s.id}"} for s in _catalog().signatures]
        return json.dumps(rows, ensure_ascii=False, indent=1)

    @server.resource(URI_SCHEMA, name="output-schema", mime_type="application/schema+json",
                     description="JSON Schema of the record the diagnose tool returns.")
    def schema() -> str:
        return (Path(__file__).parents[1] / "data" / "output.schema.json").read_text(encoding="utf-8")

    for sig in catalog.signatures:
        server.resource(f"{URI_INDEX}/{sig.id}", name=sig.id, mime_type="application/json",
                        description=f"{sig.title} ({sig.framework}, {sig.scope})")(_reader(sig.id))
    return server


def _read_only() -> Any:
    """Tool annotations: every tool only reads (the knowledge base, a log, this machine's versions)."""
    from mcp.types import ToolAnnotations

    return ToolAnnotations.model_validate({"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False})


def _reader(sig_id: str) -> Callable[[], str]:
    def read() -> str:
        return json.dumps(show(sig_id), ensure_ascii=False, indent=1)

    return read


def serve() -> None:
    """Run the server on stdin/stdout until the client closes it."""
    build_server().run()

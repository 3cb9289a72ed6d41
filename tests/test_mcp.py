"""`cudnn-doctor mcp`, driven by the mcp package's own client over stdio (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
LOG = "Traceback (most recent call last):\n  File \"train.py\", line 74, in main\n    out, (h, c) = model.encoder(x, (h0, c0))\nRuntimeError: Expected hidden[0] size (2, 4, 64), got [1, 4, 64]\n"


def _get(obj: Any, snake: str, camel: str) -> Any:
    """mcp 2 names fields in snake_case, mcp 1 in camelCase."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


@pytest.fixture(scope="module")
def session_results() -> dict[str, Any]:
    """One server session: every call the tests look at, made in order."""
    pytest.importorskip("mcp")
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    out: dict[str, Any] = {}

    async def run() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "cudnn_doctor", "mcp"], env=dict(os.environ))
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                out["init"] = await session.initialize()
                out["tools"] = await session.list_tools()
                out["diagnose"] = await session.call_tool("diagnose", {"log": LOG})
                out["diagnose_none"] = await session.call_tool("diagnose", {"log": "all good\n"})
                out["diagnose_path"] = await session.call_tool("diagnose", {"path": str(ROOT / "docs" / "examples" / "lstm-hidden-size.log")})
                out["diagnose_missing"] = await session.call_tool("diagnose", {"path": "/no/such/train.log"})
                out["diagnose_neither"] = await session.call_tool("diagnose", {})
                out["show"] = await session.call_tool("show", {"id": "pytorch/rnn-hidden-size-mismatch"})
                out["show_bad"] = await session.call_tool("show", {"id": "pytorch/no-such-thing"})
                out["search"] = await session.call_tool("search", {"words": "CUDNN_STATUS_EXECUTION_FAILED"})
                out["env"] = await session.call_tool("env", {})
                out["resources"] = await session.list_resources()
                out["index"] = await session.read_resource("cudnn-doctor://signatures")
                out["one"] = await session.read_resource("cudnn-doctor://signatures/pytorch/rnn-hidden-size-mismatch")
                out["schema"] = await session.read_resource("cudnn-doctor://schema/output")

    anyio.run(run)
    return out


def _structured(result: Any) -> Any:
    assert not _get(result, "is_error", "isError"), result
    data = _get(result, "structured_content", "structuredContent")
    text = json.loads(result.content[0].text)  # the same JSON as text, for clients without structured content
    assert data == text or data == {"result": text}
    return data


def test_server_announces_four_tools_and_instructions(session_results: dict[str, Any]) -> None:
    init = session_results["init"]
    assert _get(init, "server_info", "serverInfo").name == "cudnn-doctor"
    assert "diagnose" in init.instructions and "summary" in init.instructions
    tools = {t.name: t for t in session_results["tools"].tools}
    assert set(tools) == {"diagnose", "show", "search", "env"}
    for tool in tools.values():
        assert _get(tool.annotations, "read_only_hint", "readOnlyHint") is True
    schema = _get(tools["diagnose"], "input_schema", "inputSchema")
    assert {"log", "path", "lang", "env"} <= set(schema["properties"]) and "summary" in tools["diagnose"].description


def test_diagnose_returns_the_documented_json_record(session_results: dict[str, Any]) -> None:
    record = _structured(session_results["diagnose"])
    jsonschema.validate(record, json.loads((ROOT / "src" / "cudnn_doctor" / "data" / "output.schema.json").read_text()))
    assert record["findings"][0]["id"] == "pytorch/rnn-hidden-size-mismatch"
    assert record["findings"][0]["user_frame"]["file"] == "train.py"
    assert record["summary"].startswith("Initial hidden/cell state has the wrong shape for this RNN")
    assert "Try first:" in record["summary"] and "Dead end:" in record["summary"]
    none = _structured(session_results["diagnose_none"])
    assert none["abstained"] and none["findings"] == [] and none["summary"].startswith("No known")


def test_diagnose_reads_a_log_file_on_the_agents_machine(session_results: dict[str, Any]) -> None:
    record = _structured(session_results["diagnose_path"])
    assert record["sources"] == [str(ROOT / "docs" / "examples" / "lstm-hidden-size.log")]
    assert record["findings"][0]["id"] == "pytorch/rnn-hidden-size-mismatch" and "torch" in record["environment"]
    for bad, words in (("diagnose_missing", "/no/such/train.log"), ("diagnose_neither", "either `log`")):
        result = session_results[bad]
        assert _get(result, "is_error", "isError") and words in result.content[0].text, result


def test_show_search_and_env(session_results: dict[str, Any]) -> None:
    sig = _structured(session_results["show"])
    assert sig["id"] == "pytorch/rnn-hidden-size-mismatch" and sig["examples"] and sig["workarounds"]
    bad = session_results["show_bad"]
    assert _get(bad, "is_error", "isError")
    assert "no signature with id 'pytorch/no-such-thing'" in bad.content[0].text
    found = _structured(session_results["search"])
    assert found["count"] >= 1 and any(s["id"] == "cudnn/rnn-status-execution-failed" for s in found["signatures"])
    env = _structured(session_results["env"])
    assert any(f["component"] == "python" for f in env["facts"])


def test_knowledge_base_is_exposed_as_resources(session_results: dict[str, Any]) -> None:
    uris = {str(r.uri) for r in session_results["resources"].resources}
    assert {"cudnn-doctor://signatures", "cudnn-doctor://schema/output",
            "cudnn-doctor://signatures/pytorch/rnn-hidden-size-mismatch"} <= uris
    index = json.loads(session_results["index"].contents[0].text)
    assert len(uris) == len(index) + 2 and len(index) > 100
    assert json.loads(session_results["one"].contents[0].text)["id"] == "pytorch/rnn-hidden-size-mismatch"
    assert json.loads(session_results["schema"].contents[0].text)["title"].startswith("cudnn-doctor diagnosis")


def test_missing_extra_is_a_one_line_error_with_the_pip_command() -> None:
    code = "import sys; sys.modules['mcp'] = None\nfrom cudnn_doctor.cli.entry import main\nsys.exit(main(['mcp']))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == "cudnn-doctor: error: `cudnn-doctor mcp` needs the MCP Python SDK (the mcp package): pip install mcp (in a clone of cudnn-doctor: pip install '.[mcp]')\n"
    assert proc.stdout == ""

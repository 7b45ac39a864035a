"""The scripted conversations the end-to-end tests hold with each server through the SDK client.

Each scenario is what a host does in practice: list, call, read, get; it follows the server's
declared capabilities (no ``logging/setLevel`` unless ``logging`` is declared) and the features
of the negotiated revision, and it deliberately makes two mistakes of the kind models make:
it calls a tool that is not listed (to see how the server answers) and it cancels a slow call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types

MODERN = "2026-07-28"


def _names(result) -> set[str]:
    return {tool.name for tool in result.tools}


async def _progress(progress: float, total: float | None, message: str | None) -> None:
    pass


async def _unknown_tool(client) -> None:
    """Call a tool the server never listed (a model hallucinating a name)."""
    try:
        await client.call_tool("no_such_tool", {})
    except Exception:  # a JSON-RPC error is the right answer; the test looks at the wire only
        pass


async def _cancel_after(client, seconds: float, name: str, arguments: dict[str, Any]) -> None:
    """Start a call with a progress token and give up on it (``notifications/cancelled``)."""
    with anyio.move_on_after(seconds):
        await client.call_tool(name, arguments, progress_callback=_progress)


async def weather(client, facts: dict) -> None:
    """The SDK-built server of ``tests/e2e/servers/weather_server.py``."""
    facts["version"] = version = client.protocol_version
    if version != MODERN:  # ping is gone in 2026-07-28
        await client.send_ping()
    if client.server_capabilities.logging is not None:
        await client.set_logging_level("info")
    tools = _names(await client.list_tools())
    await client.call_tool("get_forecast", {"city": "Seattle", "days": 2})  # outputSchema + structuredContent
    await client.call_tool("echo", {"text": "hello"})  # no outputSchema
    await client.call_tool("get_alerts", {"state": "WA"})  # tool error -> isError
    await client.call_tool("index_archive", {"files": 3}, progress_callback=_progress)  # progress + logging
    await _cancel_after(client, 0.8, "slow_search", {"query": "snow"})
    await client.call_tool("summarize", {"text": "Rain later"})  # sampling
    if "write_report" in tools and version not in ("2024-11-05", "2025-03-26"):
        await client.call_tool("write_report", {"path": "reports/today.txt"})  # elicitation
    await _unknown_tool(client)
    await client.list_resources()
    await client.list_resource_templates()
    await client.read_resource("weather://stations")
    await client.read_resource("weather://stations/KSEA/latest")
    await client.list_prompts()
    await client.get_prompt("plan_trip", {"city": "Lisbon"})


async def everything(client, facts: dict) -> None:
    """``@modelcontextprotocol/server-everything`` (stdio)."""
    facts["version"] = client.protocol_version
    await client.send_ping()
    if client.server_capabilities.logging is not None:
        await client.set_logging_level("info")
    tools = _names(await client.list_tools())
    await client.call_tool("echo", {"message": "hello"})
    await client.call_tool("get-sum", {"a": 2, "b": 3})
    await client.call_tool("get-structured-content", {"location": "New York"})
    await client.call_tool("get-annotated-message", {"messageType": "success", "includeImage": True})
    await client.call_tool("get-tiny-image", {})
    await client.call_tool("get-resource-links", {"count": 2})
    await client.call_tool("get-resource-reference", {"resourceType": "Text", "resourceId": 1})
    await client.call_tool("trigger-long-running-operation", {"duration": 0.4, "steps": 2},
                           progress_callback=_progress)
    # the server keeps reporting progress after the cancellation: wait for it to finish
    await _cancel_after(client, 0.5, "trigger-long-running-operation", {"duration": 1.2, "steps": 4})
    await anyio.sleep(1.2)
    if "trigger-sampling-request" in tools:
        await client.call_tool("trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20})
    if "trigger-elicitation-request" in tools:
        await client.call_tool("trigger-elicitation-request", {})
    await _unknown_tool(client)
    resources = (await client.list_resources()).resources
    await client.list_resource_templates()
    await client.read_resource(resources[0].uri)
    await client.read_resource("demo://resource/dynamic/text/1")
    await client.subscribe_resource(resources[0].uri)
    await client.unsubscribe_resource(resources[0].uri)
    await client.list_prompts()
    await client.get_prompt("simple-prompt")
    await client.get_prompt("args-prompt", {"city": "Lisbon"})
    await client.complete(types.PromptReference(type="ref/prompt", name="completable-prompt"),
                          {"name": "department", "value": "E"})


def filesystem(workspace: Path, roots: RootsCallback):
    """``@modelcontextprotocol/server-filesystem`` on ``workspace`` (roots come from the client)."""

    async def body(client, facts: dict) -> None:
        facts["version"] = client.protocol_version
        ws = str(workspace)
        await client.list_tools()
        await client.call_tool("list_allowed_directories", {})
        await client.call_tool("list_directory", {"path": ws})
        await client.call_tool("read_text_file", {"path": f"{ws}/notes.md"})
        await client.call_tool("write_file", {"path": f"{ws}/todo.txt", "content": "1. ship\n"})
        await client.call_tool("edit_file", {"path": f"{ws}/notes.md", "dryRun": True,
                                             "edits": [{"oldText": "Buy milk.", "newText": "Buy oat milk."}]})
        await client.call_tool("directory_tree", {"path": ws})
        await client.call_tool("search_files", {"path": ws, "pattern": "*.py"})
        await client.call_tool("read_text_file", {"path": "/etc/hostname"})  # outside the roots: isError
        await client.call_tool("read_text_file", {"path": f"{ws}/missing.txt"})  # ENOENT: isError
        await _unknown_tool(client)
        asked = roots.calls
        await client.send_roots_list_changed()  # the server asks for roots/list again
        with anyio.fail_after(15):
            while roots.calls == asked:
                await anyio.sleep(0.02)
        await client.call_tool("list_allowed_directories", {})

    return body


def make_workspace(root: Path) -> Path:
    workspace = root / "workspace"
    (workspace / "src").mkdir(parents=True)
    (workspace / "notes.md").write_text("# Notes\n\nBuy milk.\n")
    (workspace / "src" / "app.py").write_text("print('hi')\n")
    return workspace


class RootsCallback:
    """The client's ``roots/list`` handler: one root, the workspace; counts the server's asks."""

    def __init__(self, workspace: Path):
        self.workspace = workspace
        self.calls = 0

    async def __call__(self, context) -> types.ListRootsResult:
        self.calls += 1
        return types.ListRootsResult(roots=[types.Root(uri=self.workspace.as_uri(), name="workspace")])

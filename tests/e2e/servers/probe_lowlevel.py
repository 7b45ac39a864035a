"""A server on the official Python SDK's low-level API (``mcp.server.lowlevel.Server``) for
``mcplint probe`` tests: tools in pages of one, a prompt with a required argument, a resource;
unknown names and bad cursors are refused with -32602, a missing resource with -32002 (-32602 on
2026-07-28).

    python tests/e2e/servers/probe_lowlevel.py
"""

from __future__ import annotations

import warnings

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

warnings.simplefilter("ignore")

TOOLS = [
    types.Tool(name="echo", description="Echo text back.",
               input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    types.Tool(name="add", description="Add two integers.",
               input_schema={"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                             "required": ["a", "b"]}),
]
GREET = types.Prompt(name="greet", description="Greet someone.",
                     arguments=[types.PromptArgument(name="name", description="Who", required=True)])
HELLO = "file:///hello.txt"


def _page(params) -> int:
    cursor = params.cursor if params is not None else None
    if cursor is None:
        return 0
    if cursor.startswith("page-") and cursor[5:].isdigit() and int(cursor[5:]) < len(TOOLS):
        return int(cursor[5:])
    raise MCPError(-32602, "Invalid cursor")


async def list_tools(ctx, params) -> types.ListToolsResult:
    start = _page(params)
    more = f"page-{start + 1}" if start + 1 < len(TOOLS) else None
    return types.ListToolsResult(tools=TOOLS[start:start + 1], next_cursor=more)


async def call_tool(ctx, params) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name not in {t.name for t in TOOLS}:
        raise MCPError(-32602, f"Unknown tool: {params.name}")
    try:
        text = str(int(args["a"]) + int(args["b"])) if params.name == "add" else str(args["text"])
    except (KeyError, TypeError, ValueError) as exc:
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"Invalid arguments: {exc}")],
                                    is_error=True)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def list_prompts(ctx, params) -> types.ListPromptsResult:
    if params is not None and params.cursor is not None:
        raise MCPError(-32602, "Invalid cursor")
    return types.ListPromptsResult(prompts=[GREET])


async def get_prompt(ctx, params) -> types.GetPromptResult:
    if params.name != "greet":
        raise MCPError(-32602, f"Unknown prompt: {params.name}")
    name = (params.arguments or {}).get("name")
    if name is None:
        raise MCPError(-32602, "Missing required argument: name")
    return types.GetPromptResult(messages=[types.PromptMessage(
        role="user", content=types.TextContent(type="text", text=f"Hello {name}"))])


async def list_resources(ctx, params) -> types.ListResourcesResult:
    if params is not None and params.cursor is not None:
        raise MCPError(-32602, "Invalid cursor")
    return types.ListResourcesResult(resources=[types.Resource(uri=HELLO, name="hello", mime_type="text/plain")])


async def list_templates(ctx, params) -> types.ListResourceTemplatesResult:
    if params is not None and params.cursor is not None:
        raise MCPError(-32602, "Invalid cursor")
    return types.ListResourceTemplatesResult(resource_templates=[])


async def read_resource(ctx, params) -> types.ReadResourceResult:
    if str(params.uri) != HELLO:  # -32002 until 2025-11-25; 2026-07-28 forbids it for -32602
        code = -32602 if getattr(ctx, "protocol_version", None) == "2026-07-28" else -32002
        raise MCPError(code, "Resource not found", {"uri": str(params.uri)})
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=HELLO, mime_type="text/plain",
                                                                         text="hello")])


server = Server("probe-lowlevel", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool,
                on_list_prompts=list_prompts, on_get_prompt=get_prompt, on_list_resources=list_resources,
                on_list_resource_templates=list_templates, on_read_resource=read_resource)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)

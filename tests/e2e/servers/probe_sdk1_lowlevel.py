"""A server on the 1.x line of the official Python SDK, low-level API (``Server`` with its
decorators), for ``mcplint probe`` tests: one tool, nothing planted. Run with the 1.x SDK on
``PYTHONPATH`` (the suite installs ``mcp==1.30.0`` aside).

    PYTHONPATH=<mcp 1.x> python tests/e2e/servers/probe_sdk1_lowlevel.py
"""

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

server = Server("probe-sdk1-lowlevel")

ADD = types.Tool(name="add", description="Add two integers.",
                 inputSchema={"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                              "required": ["a", "b"]})


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [ADD]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    if name != "add":
        raise ValueError(f"Unknown tool: {name}")
    return [types.TextContent(type="text", text=str(arguments["a"] + arguments["b"]))]


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)

"""A server on the official Python SDK's high-level API (``MCPServer``) for ``mcplint probe``
tests: a tool with structured output, one that reports progress, a slow one (for --cancel-after),
a prompt with a required argument and a resource. Nothing is planted: what a probe finds is
the SDK's own behaviour.

    python tests/e2e/servers/probe_highlevel.py
"""

from __future__ import annotations

import warnings

import anyio
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

warnings.simplefilter("ignore")

server = MCPServer("probe-highlevel", version="1.0.0", log_level="WARNING")


class Sum(BaseModel):
    total: int


@server.tool(description="Add two integers (structured output).")
def add(a: int, b: int) -> Sum:
    return Sum(total=a + b)


@server.tool(description="Count to n, reporting progress.")
async def count(n: int, ctx: Context) -> str:
    for done in range(1, min(n, 3) + 1):
        await ctx.report_progress(done, n)
    return f"counted to {n}"


@server.tool(description="Takes a long time.")
async def slow(query: str) -> str:
    await anyio.sleep(30)
    return query


@server.prompt(description="Greet someone.")
def greet(name: str) -> str:
    return f"Hello {name}"


@server.resource("file:///hello.txt")
def hello() -> str:
    return "hello"


if __name__ == "__main__":
    server.run()

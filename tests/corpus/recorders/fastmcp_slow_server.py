"""A small stdio MCP server built with PyPI fastmcp: a quick tool, a slow tool (so that a call
can be cancelled or abandoned), one prompt and one resource.

Run (the recorders start it behind ``mcplint capture``):
    /work/rec/venv-fastmcp/bin/python tests/corpus/recorders/fastmcp_slow_server.py
with ``pip install fastmcp==4.1.6`` in /work/rec/venv-fastmcp.
"""

import anyio
from fastmcp import Context, FastMCP

mcp = FastMCP("corpus-slow-fastmcp")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool
async def sleep(seconds: float, ctx: Context) -> str:
    """Wait for the given number of seconds, reporting progress every second."""
    for i in range(1, int(seconds) + 1):
        await anyio.sleep(1)
        await ctx.report_progress(i, seconds)
    return f"slept {seconds} s"


@mcp.prompt
def greeting(name: str) -> str:
    """Greet someone."""
    return f"Say hello to {name}."


@mcp.resource("note://readme", mime_type="text/plain")
def readme() -> str:
    """A note."""
    return "Nothing to see here."


if __name__ == "__main__":
    mcp.run(show_banner=False)

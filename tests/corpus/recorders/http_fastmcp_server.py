"""A Streamable HTTP MCP server built with PyPI fastmcp (stateful, SSE answers, `mcp.run(transport="http")`),
for the HTTP corpus. The same tools as http_ts_server.mjs: add, slow (progress), ask_name
(elicitation during the call), announce (300 ms after answering, adds a tool and sends
tools/list_changed and a log message outside any request: the standalone GET stream).

  python3 -m venv /work/rec/venv-http-fastmcp && /work/rec/venv-http-fastmcp/bin/pip install fastmcp==4.1.6
  /work/rec/venv-http-fastmcp/bin/python tests/corpus/recorders/http_fastmcp_server.py PORT [--stateless-json]

With --stateless-json: `stateless_http=True, json_response=True` (no session, JSON answers, no GET stream).
"""

from __future__ import annotations

import asyncio
import sys
import warnings

from fastmcp import Context, FastMCP

warnings.simplefilter("ignore")
mcp = FastMCP("corpus-fastmcp-server")
background: set[asyncio.Task] = set()


@mcp.tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@mcp.tool
async def slow(steps: int, delay_ms: int, ctx: Context) -> str:
    """Count slowly, reporting progress."""
    for i in range(1, steps + 1):
        await asyncio.sleep(delay_ms / 1000)
        await ctx.report_progress(i, steps)
    return f"counted to {steps}"


@mcp.tool
async def ask_name(ctx: Context) -> str:
    """Ask the user for a name, then greet."""
    answer = await ctx.elicit("Who are you?", response_type=str)
    return f"Hello, {answer.data}!" if answer.action == "accept" else f"no name ({answer.action})"


@mcp.tool
async def announce(ctx: Context) -> str:
    """Add a tool shortly after answering."""
    session = ctx.session

    async def later() -> None:
        await asyncio.sleep(0.3)
        mcp.add_tool(extra)
        await session.send_tool_list_changed()
        await session.send_log_message(level="info", data='tool "extra" added')

    task = asyncio.get_running_loop().create_task(later())
    background.add(task)
    task.add_done_callback(background.discard)
    return "a new tool will appear"


def _extra() -> str:
    """Added later."""
    return "extra"


from fastmcp.tools import Tool  # noqa: E402

extra = Tool.from_function(_extra, name="extra")

if __name__ == "__main__":
    stateless = "--stateless-json" in sys.argv
    mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False, log_level="warning",
            stateless_http=stateless, json_response=stateless)

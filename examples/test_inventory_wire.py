"""Lint the MCP traffic of a server's own tests with mcplint's pytest plugin.

The server below is written with the official Python SDK (``MCPServer``). The tests drive it with
the SDK's ``Client``, once in process and once as a stdio subprocess, through the ``mcp_wire``
fixture, which records every message; ``mcp_wire.assert_clean()`` fails the test with mcplint's
findings if the traffic breaks the protocol.

    pip install mcplint mcp
    python -m pytest examples/test_inventory_wire.py            # assert_clean in each test
    python -m pytest examples/test_inventory_wire.py --mcplint  # also a report of every session

    python examples/test_inventory_wire.py                      # the server itself, on stdio
"""

from __future__ import annotations

import sys
import warnings

import anyio
import pytest

pytest.importorskip("mcp", reason="the official MCP Python SDK")

from mcp import StdioServerParameters  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402

warnings.filterwarnings("ignore", module=r"mcp(\.|$)")

server = MCPServer("inventory", version="1.0.0")
STOCK = {"SKU-10442": 12, "SKU-20871": 0}


@server.tool(description="Units in stock for a SKU.")
def stock_level(sku: str) -> int:
    return STOCK.get(sku, 0)


@server.resource("inventory://skus", description="Every SKU the warehouse knows.")
def skus() -> str:
    return "\n".join(sorted(STOCK))


async def _tour(client) -> None:
    tools = await client.list_tools()
    assert [tool.name for tool in tools.tools] == ["stock_level"]
    result = await client.call_tool("stock_level", {"sku": "SKU-10442"})
    assert result.structured_content == {"result": 12}
    await client.read_resource("inventory://skus")


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # the initialize handshake, and 2026-07-28
def test_in_process(mcp_wire, mode):
    async def main():
        async with mcp_wire.client(server, mode=mode) as client:
            await _tour(client)

    anyio.run(main)
    # TL013 (info): the SDK mirrors a structured result as the bare value, not as its JSON
    mcp_wire.assert_clean(ignore=["TL013"])


def test_over_stdio(mcp_wire):
    params = StdioServerParameters(command=sys.executable, args=[__file__])

    async def main():
        async with mcp_wire.client(params, mode="legacy") as client:
            await _tour(client)

    anyio.run(main)
    mcp_wire.assert_clean(ignore=["TL013"])


if __name__ == "__main__":
    server.run()

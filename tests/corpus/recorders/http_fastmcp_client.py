"""The corpus scenario as a PyPI fastmcp Client over Streamable HTTP (default settings: mode
"auto", so it probes server/discover before falling back to initialize).

  python3 -m venv /work/rec/venv-http-fastmcp && /work/rec/venv-http-fastmcp/bin/pip install fastmcp==4.1.6
  /work/rec/venv-http-fastmcp/bin/python tests/corpus/recorders/http_fastmcp_client.py URL

Expects the tools of http_ts_server.mjs (add, slow, ask_name, announce). Deliberate client errors:
a fabricated tools/list cursor, an unknown tool, bad arguments, a call cancelled by a timeout
(the SDK POSTs notifications/cancelled), and a call still running when the client exits.
"""

from __future__ import annotations

import asyncio
import sys

from fastmcp import Client
from fastmcp.client.messages import MessageHandler


async def main(url: str) -> None:
    changed = asyncio.Event()

    class Handler(MessageHandler):
        async def on_tool_list_changed(self, message) -> None:
            changed.set()

    async def elicit(message, response_type, params, context):
        return {"name": "Ada"}

    async def log(message) -> None:
        print("log:", message.data, file=sys.stderr)

    async def progress(done, total, message) -> None:
        pass

    async def attempt(label, coro):
        try:
            print(label, "->", await coro, file=sys.stderr)
        except Exception as exc:  # the deliberate mistakes fail
            print(label, "-> raised", type(exc).__name__, exc, file=sys.stderr)

    client = Client(url, elicitation_handler=elicit, message_handler=Handler(), log_handler=log)
    async with client:
        await client.list_tools()
        await attempt("fabricated cursor", client.list_tools_mcp(cursor="ZmFicmljYXRlZA=="))
        await attempt("add", client.call_tool("add", {"a": 2, "b": 3}))
        await attempt("unknown tool", client.call_tool("no_such_tool", {}))
        await attempt("bad arguments", client.call_tool("add", {"a": "two", "b": 3}))
        await asyncio.gather(  # two calls in flight at once, both with progress
            attempt("slow 3", client.call_tool("slow", {"steps": 3, "delay_ms": 150}, progress_handler=progress)),
            attempt("slow 2", client.call_tool("slow", {"steps": 2, "delay_ms": 120}, progress_handler=progress)))
        await attempt("elicitation", client.call_tool("ask_name", {}))
        await attempt("cancelled", client.call_tool("slow", {"steps": 20, "delay_ms": 100}, timeout=0.35,
                                                    progress_handler=progress))
        await attempt("announce", client.call_tool("announce", {}))
        await asyncio.wait_for(changed.wait(), 5)
        await client.list_tools()
        abandoned = asyncio.create_task(client.call_tool("slow", {"steps": 30, "delay_ms": 100}))
        await asyncio.sleep(0.4)  # the call runs; the client leaves without cancelling it
    abandoned.cancel()
    await asyncio.gather(abandoned, return_exceptions=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

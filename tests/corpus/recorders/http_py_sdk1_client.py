"""The corpus scenario as the official Python SDK 1.x client (`mcp<2`, ClientSession over
streamable_http_client).

  python3 -m venv /work/rec/venv-http-mcp1 && /work/rec/venv-http-mcp1/bin/pip install 'mcp==1.30.0'
  /work/rec/venv-http-mcp1/bin/python tests/corpus/recorders/http_py_sdk1_client.py URL

Expects the tools add, slow, announce (http_ts_server.mjs --json). Deliberate client errors: a
fabricated tools/list cursor, an unknown tool, bad arguments, a cancelled call (this SDK does not
cancel by itself: the script POSTs notifications/cancelled for the call's id), and a call
abandoned by a read timeout (the SDK stops waiting and sends no cancellation).
"""

from __future__ import annotations

import sys
from datetime import timedelta

import anyio
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client


async def main(url: str) -> None:
    changed = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(message.root,
                                                                        types.ToolListChangedNotification):
            changed.set()

    async def on_log(params) -> None:
        print("log:", params.data, file=sys.stderr)

    async def progress(done, total, message) -> None:
        pass

    async def attempt(label, call, *args, **kwargs):
        try:
            print(label, "->", str(await call(*args, **kwargs))[:200], file=sys.stderr)
        except Exception as exc:  # the deliberate mistakes fail
            print(label, "-> raised", type(exc).__name__, exc, file=sys.stderr)

    async with streamable_http_client(url) as (read, write, _), \
            ClientSession(read, write, logging_callback=on_log, message_handler=on_message) as session:
        await session.initialize()
        await session.list_tools()
        await attempt("fabricated cursor", session.list_tools,
                      params=types.PaginatedRequestParams(cursor="ZmFicmljYXRlZA=="))
        await attempt("add", session.call_tool, "add", {"a": 2, "b": 3})
        await attempt("unknown tool", session.call_tool, "no_such_tool", {})
        await attempt("bad arguments", session.call_tool, "add", {"a": "two", "b": 3})
        async with anyio.create_task_group() as group:  # two calls in flight at once
            group.start_soon(attempt, "slow 3", session.call_tool, "slow", {"steps": 3, "delay_ms": 150}, None,
                             progress)
            group.start_soon(attempt, "slow 2", session.call_tool, "slow", {"steps": 2, "delay_ms": 120}, None,
                             progress)
        async with anyio.create_task_group() as group:
            cancelled_id = session._request_id  # the id the next request gets (private: the SDK has no cancel API)
            group.start_soon(attempt, "cancelled", session.call_tool, "slow", {"steps": 20, "delay_ms": 100},
                             timedelta(seconds=3))
            await anyio.sleep(0.35)
            await session.send_notification(types.ClientNotification(types.CancelledNotification(
                params=types.CancelledNotificationParams(requestId=cancelled_id, reason="the user pressed stop"))))
        await attempt("announce", session.call_tool, "announce", {})
        with anyio.move_on_after(5):
            await changed.wait()
        await session.list_tools()
        await attempt("abandoned", session.call_tool, "slow", {"steps": 8, "delay_ms": 100},
                      timedelta(seconds=0.4))
        await anyio.sleep(1.0)  # the server still answers the abandoned call


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])

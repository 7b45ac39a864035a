"""Drive the official Python SDK client against the SDK-built weather server over HTTP on loopback,
through the recording proxy of :mod:`tests.e2e.har_proxy`, and return the HAR it recorded.

Transports: Streamable HTTP with SSE answers or JSON answers (any revision the SDK speaks,
2026-07-28 included) and the 2024-11-05 HTTP+SSE transport.
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from typing import Any

import anyio

from tests.e2e.har_proxy import Recorder, serve
from tests.e2e.harness import CLIENT_INFO, SERVERS, _answer, pinned_handshake_version

warnings.filterwarnings("ignore", module=r"mcp(\.|$)")


def weather_server():
    """A fresh MCPServer of ``tests/e2e/servers/weather_server.py`` (one per run)."""
    spec = importlib.util.spec_from_file_location("_e2e_weather_http", SERVERS / "weather_server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.server


def server_app(transport: str):
    server = weather_server()
    if transport == "http+sse":
        return server.sse_app()
    return server.streamable_http_app(json_response=transport == "json")


async def _run(url: str, transport: str, body, *, mode: str, timeout: float = 60, log_level: str | None = None,
               elicitation: bool = True) -> None:
    import mcp_types as types
    from mcp import Client, MCPDeprecationWarning

    if transport == "http+sse":
        from mcp.client.sse import sse_client

        connector = sse_client(url + "/sse")
    else:
        from mcp.client.streamable_http import streamable_http_client

        connector = streamable_http_client(url + "/mcp")

    async def on_sampling(context, params):
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="Mild."),
                                         model="e2e-model", stop_reason="endTurn")

    async def on_elicitation(context, params):
        schema = getattr(params, "requested_schema", None) or {}
        content = {name: _answer(prop) for name, prop in (schema.get("properties") or {}).items()}
        return types.ElicitResult(action="accept", content=content)

    async def on_log(params):
        pass

    client = Client(connector, mode=mode, client_info=types.Implementation(**CLIENT_INFO),
                    sampling_callback=on_sampling, elicitation_callback=on_elicitation if elicitation else None,
                    logging_callback=on_log, log_level=log_level, read_timeout_seconds=30)
    with warnings.catch_warnings(), anyio.fail_after(timeout):
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        async with client:
            await body(client)


def record(har_path: Path, transport: str, body, *, mode: str = "legacy", version: str | None = None,
           **options: Any) -> dict:
    """Run ``body(client, facts)`` through the recording proxy; write the HAR; return ``facts``."""
    facts: dict = {}
    with serve(server_app(transport)) as upstream:
        recorder = Recorder(upstream)
        with serve(recorder) as proxy:
            try:
                with pinned_handshake_version(version):
                    anyio.run(lambda: _run(proxy, transport, lambda client: body(client, facts), mode=mode,
                                           **options))
            finally:
                anyio.run(anyio.sleep, 0.3)  # let the last streams (GET, DELETE) finish recording
                recorder.write(har_path)
    return facts


async def weather_without_back_channel(client, facts: dict) -> None:
    """``scenarios.weather`` minus the tools that need a server-to-client request (sampling,
    elicitation): a JSON-response server has no stream to send them on."""
    from tests.e2e import scenarios

    facts["version"] = client.protocol_version
    await client.send_ping()
    await client.list_tools()
    await client.call_tool("get_forecast", {"city": "Seattle", "days": 2})
    await client.call_tool("echo", {"text": "hello"})
    await client.call_tool("get_alerts", {"state": "WA"})
    await client.call_tool("index_archive", {"files": 3}, progress_callback=scenarios._progress)
    await scenarios._unknown_tool(client)
    await client.list_resources()
    await client.read_resource("weather://stations")
    await client.list_prompts()
    await client.get_prompt("plan_trip", {"city": "Lisbon"})

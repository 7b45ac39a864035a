"""mitmproxy addon for recording MCP over Streamable HTTP with ``mitmdump -w``.

mitmproxy holds a response until its body is complete, so an SSE stream (the answer to a
``tools/call`` that sends progress or a sampling request, the GET stream) reaches the client only
when it ends, and the session stalls; streamed responses, on the other hand, are saved without
their body. This addon streams every ``text/event-stream`` response and keeps its body and the
arrival time of each chunk (flow metadata ``mcplint_chunks``, which ``mcplint check`` uses to
order the messages of several streams):

    mitmdump -s "$(python -m mcplint.commands.capture.mitm_addon)" -w mcp.flow --mode reverse:http://127.0.0.1:8000

Loaded by mitmproxy; ``python -m mcplint.commands.capture.mitm_addon`` prints this file's path.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

#: flow metadata key of the chunk arrivals: ``[{"ts": ISO-8601, "size": bytes}, ...]``
CHUNKS_KEY = "mcplint_chunks"


class _Keep:
    """A response's ``stream`` callable: passes every chunk on and keeps it in the flow."""

    def __init__(self, flow) -> None:
        self.flow = flow
        self.body = bytearray()
        self.chunks: list[dict] = []
        flow.metadata[CHUNKS_KEY] = self.chunks
        flow.response.raw_content = b""  # recorded, empty so far (None would say "not recorded")

    def __call__(self, data: bytes) -> bytes:
        if data:
            self.body += data
            self.chunks.append({"ts": datetime.fromtimestamp(time.time(), UTC).isoformat(timespec="microseconds")
                                .replace("+00:00", "Z"), "size": len(data)})
            # kept at every chunk: mitmproxy saves the flow (-w) before a later addon hears that it ended
            self.flow.response.raw_content = bytes(self.body)
        return data


class McpStreams:
    """Stream SSE responses and keep their bodies (see the module docstring)."""

    def responseheaders(self, flow) -> None:
        if flow.response.headers.get("content-type", "").lower().startswith("text/event-stream"):
            flow.response.stream = _Keep(flow)


addons = [McpStreams()]

if __name__ == "__main__":
    print(__file__)

"""MCPSpy JSON Lines (``mcpspy -o out.jsonl``; eBPF capture of stdio and HTTPS traffic).

One object per MCP message::

    {"timestamp":"2026-01-15T12:34:56.789Z","transport_type":"stdio",
     "stdio_transport":{"from_pid":4211,"from_comm":"node","to_pid":4230,"to_comm":"python3"},
     "session":{"internal_id":"..."},"type":"request","id":7,"method":"tools/call",...,
     "raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":7,...}"}

- The message is ``raw`` (the bytes MCPSpy saw); the decoded copy beside it is ignored.
- stdio: MCPSpy gives the sending and receiving process, not client and server. The process
  that sends ``initialize`` (or ``server/discover``) is the client of that pair of processes;
  from then on directions are marked observed. Before that, a method only one side may send
  names the client provisionally (directions not marked observed); with neither, the
  direction is left to inference.
- HTTP: ``http_transport.is_request`` true is the client's request body (c2s), otherwise the
  server's response or SSE event (s2c).
- Sessions: the ``Mcp-Session-Id`` (MCPSpy's ``session.external_id``) when there is one, else
  the pair of processes (``node(4211)<->python3(4230)#1``) for stdio or MCPSpy's internal id for
  HTTP; a second ``initialize`` between the same peers starts ``#2``.
- Other events MCPSpy writes to the same file (LLM messages, security alerts) are comments;
  a line that is not a JSON object is reported (JR002).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from mcplint import protocol
from mcplint.input.formats._common import Starts, comment, oversized, sniff_json_lines, timestamp, unreadable
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction

NAME = "mcpspy"
TRANSPORTS = frozenset({"stdio", "http", "sse"})
_STARTERS = frozenset({"initialize", "server/discover"})


def is_event(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("transport_type"), str)
            and value["transport_type"] in TRANSPORTS and "raw" in value
            and ("stdio_transport" in value or "http_transport" in value))


def _process(transport: dict, side: str) -> tuple[Any, Any]:
    return transport.get(f"{side}_pid"), transport.get(f"{side}_comm")


class _Roles:
    """Who is the client of each pair of processes."""

    def __init__(self) -> None:
        self.client: dict[frozenset, tuple[Any, bool]] = {}  # pair -> (client pid, confirmed)

    def direction(self, pair: frozenset, sender: Any, message: Any) -> tuple[Direction | None, bool]:
        method = message.get("method") if isinstance(message, dict) else None
        known = self.client.get(pair)
        if isinstance(method, str):
            if method in _STARTERS and "id" in message:
                if known is None or not known[1] or known[0] == sender:
                    self.client[pair] = known = (sender, True)
            elif known is None:
                senders = protocol.method_senders(method)
                if len(senders) == 1:
                    client_sent = next(iter(senders)) is Direction.C2S
                    others = [p for p in pair if p != sender]
                    if client_sent or others:
                        self.client[pair] = known = (sender if client_sent else others[0], False)
        if known is None:
            return None, False
        return (Direction.C2S if sender == known[0] else Direction.S2C), known[1]


def read_mcpspy(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    roles = _Roles()
    starts = Starts()
    for number, (data, too_long) in enumerate(lines, 1):
        if too_long:
            yield oversized(number, data, too_long)
            continue
        text, _ = decode_line(data)
        if not text.strip():
            yield comment(number, text)
            continue
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            yield unreadable(number, text, f"MCPSpy line is not JSON: {exc.msg}")
            continue
        if not isinstance(value, dict):
            yield unreadable(number, text, "MCPSpy line is not a JSON object")
            continue
        if not is_event(value):  # LLM, security and other events share the file
            yield comment(number, text)
            continue
        raw = value["raw"]
        if not isinstance(raw, str) or not raw.strip():
            yield unreadable(number, text, 'MCPSpy event has no "raw" message text')
            continue
        flags: frozenset[str] = frozenset()
        raw = raw.rstrip("\n")
        if raw.endswith("\r"):
            raw, flags = raw[:-1], frozenset({"crlf"})
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError:
            message = None
        ts = value.get("timestamp") if isinstance(value.get("timestamp"), str) else None
        session = value.get("session") if isinstance(value.get("session"), dict) else {}
        base = session.get("external_id")
        if value["transport_type"] == "stdio" and isinstance(value.get("stdio_transport"), dict):
            stdio = value["stdio_transport"]
            sender, receiver = _process(stdio, "from"), _process(stdio, "to")
            pair = frozenset({sender[0], receiver[0]})
            direction, observed = roles.direction(pair, sender[0], message)
            if base is None:
                ends = sorted((f"{comm}({pid})" for pid, comm in (sender, receiver)))
                base = "<->".join(ends)
            transport = "stdio"
        else:
            http = value.get("http_transport") if isinstance(value.get("http_transport"), dict) else {}
            direction, observed = (Direction.C2S if http.get("is_request") else Direction.S2C), True
            if base is None:
                base = session.get("internal_id") or f"{http.get('comm')}({http.get('pid')})@{http.get('host')}"
            transport = "http"
        yield Frame(number, raw, direction=direction, observed=observed and direction is not None, ts=ts,
                    t=timestamp(ts), flags=flags, transport=transport,
                    session=starts.message(str(base), direction, raw))


def sniff_mcpspy(head: list[str]) -> int:
    return sniff_json_lines(head, '"transport_type"', is_event)


FORMAT = register_format(InputFormat(
    NAME, read_mcpspy, sniff_mcpspy, "MCPSpy JSONL (eBPF capture: pid/comm pairs, raw messages)"))

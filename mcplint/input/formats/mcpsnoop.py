"""mcpsnoop session logs (JSON Lines written by its stdio shim and HTTP proxy).

::

    {"session_id":"server.py-48213-7f3a1c9e2b04","server_label":"weather","seq":0,"ts":"...","direction":"meta",
     "transport":"stdio","raw":{"command":["python","server.py"],"cwd":"/srv"}}
    {"session_id":"server.py-48213-7f3a1c9e2b04","server_label":"weather","seq":5,"ts":"2026-07-06T10:00:01.234Z",
     "direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":3,"method":"tools/call",...}}
    {"session_id":"...","seq":6,"ts":"...","direction":"stderr","transport":"stdio","text":"Traceback ..."}

- ``direction`` ``c2s``/``s2c`` is the message's direction (observed); ``raw`` is the message
  (mcpsnoop embeds it as JSON, so it is re-serialised compactly); ``text`` instead of ``raw``
  is a line that was not JSON on the protocol channel (stdout pollution), read as such.
- ``stderr`` lines are the server's stderr, ``meta`` (the server command) a comment.
- A frame mcpsnoop marked ``truncated`` (cut at its size cap) is reported as unreadable
  capture data rather than judged as a broken message.
- Sessions: ``session_id`` (one per shim process, so a restart is a new session), with the
  HTTP ``conn_id`` appended when present (one proxy serves several clients).
- HTTP facts mcpsnoop keeps (status, ``Mcp-Method``...) are partial; the frames carry the
  transport but no ``http`` facts, so HTTP rules judge HAR captures, not these.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from mcplint.input.formats._common import comment, oversized, sniff_json_lines, timestamp, unreadable
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction, Kind

NAME = "mcpsnoop"
DIRECTIONS = {"c2s": Direction.C2S, "s2c": Direction.S2C}
KINDS = frozenset({"c2s", "s2c", "stderr", "meta"})


def is_envelope(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("direction"), str) and value["direction"] in KINDS
            and "session_id" in value
            and "seq" in value and "ts" in value)


def read_mcpsnoop(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
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
            yield unreadable(number, text, f"mcpsnoop record is not JSON: {exc.msg}")
            continue
        if not is_envelope(value):
            yield unreadable(number, text, "not an mcpsnoop record (needs session_id, seq, ts and a direction "
                                           "of c2s, s2c, stderr or meta)")
            continue
        ts = value["ts"] if isinstance(value["ts"], str) else None
        session = str(value["session_id"])
        if value.get("conn_id"):
            session = f"{session}/{value['conn_id']}"
        transport = value.get("transport") if value.get("transport") in ("stdio", "http") else None
        common = {"ts": ts, "t": timestamp(ts), "session": session, "transport": transport}
        kind = value["direction"]
        if kind == "meta":
            yield comment(number, text, **common)
            continue
        if kind == "stderr":
            line = value.get("text", value.get("raw", ""))
            yield Frame(number, line if isinstance(line, str) else orjson.dumps(line).decode(), kind=Kind.STDERR,
                        observed=False, **common)
            continue
        if value.get("truncated"):
            yield unreadable(number, text, "mcpsnoop cut this frame at its size cap; the message is not linted")
            continue
        direction = DIRECTIONS[kind]
        if "raw" in value:
            message = value["raw"]
            yield Frame(number, orjson.dumps(message).decode(), msg=message, direction=direction, **common)
        elif isinstance(value.get("text"), str):  # a non-JSON line on the protocol channel
            yield Frame(number, value["text"], direction=direction, **common)
        else:
            yield unreadable(number, text, 'mcpsnoop frame has neither "raw" nor "text"')


def sniff_mcpsnoop(head: list[str]) -> int:
    return sniff_json_lines(head, '"session_id"', is_envelope)


FORMAT = register_format(InputFormat(
    NAME, read_mcpsnoop, sniff_mcpsnoop, "mcpsnoop session log JSONL (c2s/s2c/stderr/meta envelopes)"))

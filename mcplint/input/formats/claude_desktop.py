"""Claude Desktop logs: ``mcp.log`` and ``mcp-server-<name>.log``.

Every era of the line layout is read::

    2024-11-28T09:27:43.719Z [info] Attempting to connect to MCP server weather...
    2025-04-11T23:03:05.759Z [weather] [info] Message from client: {"method":"tools/call",...}
    2025-06-23T03:35:29.569Z [info] [weather] Message from server: {"jsonrpc":"2.0","id":24,...}
    2026-02-10T14:02:11.488Z [weather] [info] Message from client: {...} { metadata: undefined }
    2026-02-10T14:02:15.101Z [weather] [error] Unexpected token 'W', ... is not valid JSON {
      metadata: { context: 'connection', stack: `...` }
    }

- ``Message from client:`` is host to server (c2s), ``Message from server:`` the reverse; the
  JSON after it is the message (Claude logs it as sent), any ``{ metadata: ... }`` suffix is
  dropped. Server name and level come in either order (``[name] [level]`` or ``[level]
  [name]``); names may contain spaces and brackets.
- A ``{ metadata: ... }`` suffix that opens on one line and closes on later ones (a Node
  ``util.inspect`` object literal, maybe ending in ``%o``) makes those later lines comments.
- ``[error] Unexpected token 'W', "Weather se"... is not valid JSON`` is the host failing to
  parse a line of the server's stdout: it becomes that (quoted, cut) text from the server, so
  the pollution is reported (IO001) at the log line.
- Other time-stamped lines are the host's own log (comments). A line without the timestamp
  prefix is the server's raw stderr (``mcp-server-<name>.log`` interleaves it), attributed to
  the server of the last time-stamped line.
- How the connection ended (``Server transport closed unexpectedly, this is likely due to the
  process exiting early...``, ``Shutting down server...``, ``Client/Server transport closed``,
  ``Server disconnected``) is a comment carrying the facts as ``msg`` (see
  :func:`mcplint.input.formats._common.ended`); Claude logs no exit status.
- Sessions are per server and per start: ``<server>#<n>``, a new start at each
  ``Initializing server...`` (or a second ``initialize`` request), so one ``mcp.log`` with
  several servers and restarts splits into one session each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from mcplint.input.formats._common import (
    Starts,
    comment,
    ended,
    js_depth,
    oversized,
    split_json,
    stdout_fragment,
    timestamp,
)
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction, Kind

NAME = "claude-desktop"

_PREFIX = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)) (?=\[)")
LEVELS = frozenset({"info", "error", "warn", "warning", "debug", "trace", "verbose", "fatal", "log", "silly"})
_MESSAGE = re.compile(r"Message from (client|server): ")
_STARTS = ("Initializing server", "Attempting to connect to MCP server ")
#: How Claude Desktop's own lines begin (after the brackets); Claude Code's debug log, which
#: shares the time and level prefix, says ``MCP server "weather": ...`` instead.
VOCABULARY = ("Message from client: ", "Message from server: ", "Initializing server", "Server started and connected",
              "Client transport closed", "Server transport closed", "Shutting down server", "Using MCP server command",
              "Server disconnected", "Attempting to connect to MCP server ", "Connected to MCP server ",
              "Launching MCP Server")
_WIRE_FLAGS = frozenset({"invalid_utf8"})
#: Claude's lines about the end of a connection (the first one of a session tells the most):
#: "unexpectedly" is Claude's guess that the process exited early; the plain lines also follow
#: the host's own shutdown, so they say nothing about who ended it.
ENDINGS = (("Server transport closed unexpectedly", dict(event="closed", by="server")),
           ("Shutting down server", dict(event="exit", by="client")),
           ("Client transport closed", dict(event="closed")),
           ("Server transport closed", dict(event="closed")),
           ("Server disconnected", dict(event="closed")))
#: A metadata block is not followed over more lines than this.
MAX_METADATA_LINES = 2000


def _bracket(text: str, pos: int) -> tuple[str, int] | None:
    """The content of the bracket group starting at ``text[pos] == "["`` (nested brackets
    allowed) and the position after it, when a space or the end follows."""
    depth = 0
    for index in range(pos, min(len(text), pos + 512)):
        char = text[index]
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                end = index + 1
                if end == len(text) or text[end] == " ":
                    return text[pos + 1:index], end
                return None
    return None


def parse_line(text: str) -> tuple[str, str | None, str | None, str] | None:
    """``(ts, server, level, message text)`` of a time-stamped line, or None."""
    match = _PREFIX.match(text)
    if match is None:
        return None
    first = _bracket(text, match.end())
    if first is None:
        return None
    groups = [first]
    pos = first[1]
    if text.startswith(" [", pos):
        second = _bracket(text, pos + 1)
        if second is not None:
            groups.append(second)
            pos = second[1]
    ts = match.group(1)
    after_first = text[first[1] + 1:]
    rest = text[pos + 1:]
    first_is_level = groups[0][0].lower() in LEVELS
    second_is_level = len(groups) == 2 and groups[1][0].lower() in LEVELS
    if first_is_level:
        if len(groups) == 2 and not second_is_level:  # ``[level] [name] text``
            return ts, groups[1][0], groups[0][0], rest
        return ts, None, groups[0][0], after_first  # ``[level] text``
    if second_is_level:  # ``[name] [level] text``
        return ts, groups[0][0], groups[1][0], rest
    return ts, groups[0][0], None, after_first


def read_claude_desktop(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    starts = Starts()
    server: str | None = None
    metadata = 0  # open brackets of a multi-line metadata suffix
    metadata_lines = 0
    block_session: str | None = None  # the session of the entry a metadata block belongs to
    for number, (data, too_long) in enumerate(lines, 1):
        if too_long:
            yield oversized(number, data, too_long)
            continue
        text, flags = decode_line(data)
        parsed = parse_line(text)
        if metadata and parsed is None:
            metadata += js_depth(text)
            metadata_lines += 1
            if metadata_lines > MAX_METADATA_LINES:
                metadata = 0
            yield comment(number, text, session=block_session)
            metadata = max(metadata, 0)
            continue
        metadata = 0
        if parsed is None:
            if not text.strip():
                yield comment(number, text)
            else:  # the server's own stderr, written without any prefix
                yield Frame(number, text, kind=Kind.STDERR, observed=False, session=starts.current(server))
            continue
        ts, name, level, rest = parsed
        if name is not None:
            server = name
        found = _MESSAGE.match(rest)
        if found is None:
            for marker in _STARTS:
                if rest.startswith(marker):
                    target = name or _server_in(rest[len(marker):])
                    if target:
                        starts.start(target)
                        server = target
                    break
            session = starts.peek(name)
            if rest.rstrip().endswith("{"):
                metadata, metadata_lines, block_session = 1, 0, session
            fragment = stdout_fragment(rest) if level == "error" else None
            if fragment is not None:  # the host could not parse a line of the server's stdout
                yield Frame(number, fragment, direction=Direction.S2C, ts=ts, t=timestamp(ts),
                            session=session or (starts.current(server) if server else None))
                continue
            ending = next((facts for marker, facts in ENDINGS if rest.startswith(marker)), None)
            if ending is not None:
                yield ended(number, text, source="Claude Desktop log", ts=ts, t=timestamp(ts), session=session,
                            **ending)
                continue
            yield comment(number, text, ts=ts, t=timestamp(ts), session=session)
            continue
        direction = Direction.C2S if found.group(1) == "client" else Direction.S2C
        message, suffix = split_json(rest[found.end():])
        owner = name or server or "mcp"
        session = starts.message(owner, direction, message)
        if suffix.rstrip().endswith("{"):
            metadata, metadata_lines, block_session = max(js_depth(suffix), 1), 0, session
        yield Frame(number, message, direction=direction, ts=ts, t=timestamp(ts), flags=flags & _WIRE_FLAGS,
                    session=session)


def _server_in(text: str) -> str | None:
    """``weather`` of ``weather...`` (era A connection lines)."""
    name = text.rstrip(".!").strip()
    return name or None


def sniff_claude_desktop(head: list[str]) -> int:
    prefixed = vocabulary = json_lines = 0
    for text in head:
        if text[:1] in ("{", "["):
            json_lines += 1
            continue
        parsed = parse_line(text)
        if parsed is None or (parsed[2] is None):
            continue
        prefixed += 1
        if parsed[3].startswith(VOCABULARY):
            vocabulary += 1
    return 85 if vocabulary and prefixed >= json_lines else 0


FORMAT = register_format(InputFormat(
    NAME, read_claude_desktop, sniff_claude_desktop,
    "Claude Desktop mcp.log / mcp-server-<name>.log (Message from client/server lines, stderr)"))

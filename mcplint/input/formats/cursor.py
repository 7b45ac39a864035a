"""Cursor's "MCP Logs" output (``Cursor MCP.log``, later ``MCP Logs.log`` / ``MCP user-<name>.log``).

::

    2025-03-18 11:36:22.251 [info] pnpx: Starting new stdio process with command: pnpx figma-developer-mcp --stdio
    2025-03-18 11:36:23.987 [info] pnpx: Successfully connected to stdio server
    2025-02-25 01:21:18.277 [info] a1b2: Handling CallTool action for tool 'get_forecast'
    2025-07-10 10:49:36.646 [error] user-weather: Client error for command Unexpected token 'S', "Starting W"... is not valid JSON
    2025-04-04 18:44:12.832 [error] user-weather: Error in MCP: Client closed

A line carries a server tag (a few characters of the server's name, later ``user-<name>``) or
none (the per-server files); ``MCP`` is Cursor's own. Cursor logs no JSON-RPC message: the
lines are events, read as Claude Code's are (:mod:`mcplint.input.formats.claude_code`): a start
(``Starting new stdio process``, ``Connecting to ... server``) begins a session of the tag
(``<tag>#<n>``); ``Client closed for command`` ends it; the stdout text a ``Client error for
command ... is not valid JSON`` quotes is the server's (IO001); ``Received a response for an
unknown message ID`` is a note for ``diagnose``; everything else is a comment with the
lifecycle stages it shows. A line without the time stamp goes on with the entry before it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from mcplint.input.formats._common import Starts, comment, ended, oversized, stdout_fragment, timestamp
from mcplint.input.formats.claude_code import EVENTS_ONLY, event_note, flagged
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction

NAME = "cursor"
SOURCE = "Cursor MCP log"
_LINE = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[(info|error|warning|debug|trace)\] (.*)")
_TAG = re.compile(r"\s*([\w.@/-]{1,64}): (?=\S)")
_OWN = frozenset({"MCP", "listOfferings"})
_START = re.compile(r"^(?:Starting new stdio process|Connecting to (?:SSE|streamableHttp|streamable HTTP) server)")
_CLIENT_ERROR = "Client error for command "
STAGES = ((_START, ("transport",)),
          (re.compile(r"^Successfully connected to"), ("initialize_sent", "initialize_answered", "initialized_sent")),
          (re.compile(r"^Found \d+ tools|^listOfferings: Found \d+ tools"), ("tools_listed",)),
          (re.compile(r"^(?:Handling CallTool action|Calling tool) "), ("tools_listed", "tool_called")),
          (re.compile(r"^Successfully called tool "), ("tool_returned",)))
#: Cursor's words about a client that went away (it closes it itself, after an error or a reload).
ENDINGS = ("Client closed for command", "Error in MCP: Client closed")
VOCABULARY = ("Handling ", "Successfully connected to", "Starting new stdio process", "Client error for command",
              "Error in MCP", "Client closed for command", "getOrCreateClient", "Successfully called tool",
              "No server info found", "Connecting to SSE server", "Listing offerings", "Storing stdio client")


def parse_line(text: str) -> tuple[str, str, str | None, str] | None:
    """``(ts, level, tag, event)`` of a time-stamped line, or None."""
    found = _LINE.match(text)
    if found is None:
        return None
    ts, level, rest = found.groups()
    tag = _TAG.match(rest)
    if tag is None or tag.group(1).startswith(VOCABULARY):
        return ts, level, None, rest.lstrip()
    return ts, level, tag.group(1), rest[tag.end():]


def read_cursor(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    starts = Starts()
    started: set[str] = set()
    session: str | None = None  # the session of the last entry (an untimed line goes on with it)
    for number, (data, too_long) in enumerate(lines, 1):
        if too_long:
            yield oversized(number, data, too_long)
            continue
        text, _ = decode_line(data)
        parsed = parse_line(text)
        if parsed is None:
            yield comment(number, text, session=session, flags=EVENTS_ONLY if session else frozenset())
            continue
        ts, _, tag, event = parsed
        facts = dict(ts=ts, t=timestamp(ts))
        if tag in _OWN:  # Cursor's own lines, about no server
            session = None
            yield comment(number, text, **facts)
            continue
        name = tag or NAME
        if not starts.count.get(name) or (_START.search(event) and name in started):
            starts.start(name)
        if _START.search(event):  # the lines before a server's first start belong to that start
            started.add(name)
        session = starts.peek(name)
        cause = event[len(_CLIENT_ERROR):] if event.startswith(_CLIENT_ERROR) else None
        fragment = stdout_fragment(cause) if cause is not None else None
        if fragment is not None:  # Cursor could not parse a line of the server's stdout
            yield Frame(number, fragment, direction=Direction.S2C, session=session, **facts)
        elif event.startswith(ENDINGS):
            yield flagged(ended(number, event, "closed", SOURCE, session=session, **facts), event, STAGES)
        else:
            yield event_note(number, event, event, SOURCE, STAGES, session=session, **facts)


def sniff_cursor(head: list[str]) -> int:
    vocabulary = prefixed = json_lines = 0
    for text in head:
        if text[:1] in ("{", "["):
            json_lines += 1
            continue
        parsed = parse_line(text)
        if parsed is None:
            continue
        prefixed += 1
        vocabulary += parsed[3].startswith(VOCABULARY)
    return 86 if vocabulary and prefixed >= json_lines else 0


FORMAT = register_format(InputFormat(
    NAME, read_cursor, sniff_cursor,
    "Cursor MCP Logs output (<tag>: events; no messages)"))

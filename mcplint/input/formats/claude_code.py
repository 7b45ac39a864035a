"""Claude Code's MCP logs: the per-server ``mcp-logs-<server>/*.jsonl`` files and the ``--debug`` log.

::

    {"debug":"Starting connection with timeout of 30000ms","timestamp":"2026-01-12T09:19:32.944Z","sessionId":"3f2c...","cwd":"/home/u/proj"}
    {"error":"Server stderr: Weather MCP running on stdio\\n","timestamp":"...","sessionId":"3f2c...","cwd":"..."}
    2026-01-12T09:19:33.356Z [DEBUG] MCP server "weather": Successfully connected to stdio server in 412ms
    2026-01-12T09:19:33.360Z [ERROR] MCP server "weather" Server stderr: Weather MCP running on stdio

Both hold events, not frames: Claude Code logs no request ids and no raw messages. They are read
as what they are:

- ``Server stderr: ...`` (logged under ``error`` whatever it says) is the server's stderr; in the
  debug log a stderr entry goes on over the following lines without a time stamp.
- ``Starting connection ...`` begins a new session of that server (``<server>#<n>``; in the JSONL
  files, whose server is named only by their directory, ``<sessionId>#<n>``).
- How the connection ended (``STDIO connection dropped after 0s uptime``, ``Connection failed:
  ...``, ``Connection to MCP server "x" timed out``, ``Sending SIGINT to MCP server process``,
  ``Closing transport``) is a comment carrying the facts as ``msg`` (see
  :func:`mcplint.input.formats._common.ended`), for ``diagnose`` and ``show``.
- ``Connection error: Unexpected token 'S', "Starting W"... is not valid JSON`` (or Bun's ``JSON
  Parse error: Unexpected identifier "Starting"``) is Claude Code failing to parse a line of the
  server's stdout: it becomes that quoted text from the server (IO001). ``Received a response for
  an unknown message ID: {...}`` stays an event (a note for ``diagnose``): the SDK says it of late
  answers after its own timeout too, so the quoted message proves no wrong id.
- Every other entry (tool calls by name, results, capabilities, the rest of the debug log) is a
  comment. The comments carry the ``events-only`` flag, by which ``check`` says that the
  messages themselves are absent (IO014, info).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from mcplint.input.formats._common import (
    Starts,
    comment,
    ended,
    oversized,
    sniff_json_lines,
    stdout_fragment,
    timestamp,
    unreadable,
)
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction, Kind

JSONL = "claude-code-mcp-logs"
DEBUG = "claude-code-debug"
SOURCE = "Claude Code log"
EVENTS_ONLY = frozenset({"events-only"})
#: The server of a ``mcp-logs-<server>`` file is named only by its directory.
NAME = "claude-code"
_NONE = object()

_DEBUG_LINE = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) \[(DEBUG|INFO|WARN|ERROR)\] (.*)")
_SERVER = re.compile(r'MCP server "((?:[^"\\]|\\.)*)":? ')
_STDERR = "Server stderr: "
_START = "Starting connection"
_ERROR = "Connection error: "
_SIGNAL = re.compile(r"Sending (SIG[A-Z]+) to MCP server process")
#: Events that show lifecycle stages (``mcplint.commands.diagnose.collect.STAGES``) were reached.
STAGES = ((re.compile(r"^Starting connection"), ("transport",)),
          (re.compile(r"^(?:Successfully connected|Connection established)"),
           ("initialize_sent", "initialize_answered", "initialized_sent")),
          (re.compile(r"^Calling MCP tool: "), ("tools_listed", "tool_called")),
          (re.compile(r"^Tool '.*' completed successfully|^Tool call succeeded"), ("tool_returned",)))
#: The TypeScript SDK's errors for a message it cannot place (Claude Code, Cursor).
_UNPLACED = re.compile(r"Received a (?:(response) for an unknown message ID|progress notification for an unknown token)")
#: V8's JSON.parse errors that locate the fault without quoting the line.
_UNQUOTED = re.compile(r"(?:Unexpected non-whitespace character after JSON|Unexpected end of JSON input"
                       r"|Expected .{1,40} in JSON) at position \d+|JSON Parse error: Unexpected EOF")
#: How Claude Code says a connection ended (the first one of a session tells the most).
ENDINGS = (("STDIO connection dropped", dict(event="closed")),
           ("Connection failed", dict(event="closed")),
           ("Closing transport", dict(event="closed")),
           ("Connection to MCP server", dict(event="closed", by="client")))  # "... timed out after 5000ms"


def _event(number: int, text: str, event: str, ts: str | None, starts: Starts, name: str) -> Frame:
    """The frame of one logged event ``event`` (``text``: the whole line) of server ``name``."""
    facts: dict[str, Any] = dict(ts=ts, t=timestamp(ts))
    if event.startswith(_START) or not starts.count.get(name):
        starts.start(name)
    session = starts.peek(name)
    if event.startswith(_STDERR):
        return Frame(number, event[len(_STDERR):].rstrip("\n"), kind=Kind.STDERR, observed=False,
                     session=starts.current(name), **facts)
    failed = event.startswith(_ERROR)
    cause = event[len(_ERROR):] if failed else event
    fragment = stdout_fragment(cause) if failed else None
    if fragment is not None:  # Claude Code could not parse a line of the server's stdout
        return Frame(number, fragment, direction=Direction.S2C, session=session, **facts)
    if _SIGNAL.search(event) is not None:  # Claude Code stops the server
        return flagged(ended(number, event, "closed", SOURCE, by="client", session=session, **facts), event)
    ending = next((how for marker, how in ENDINGS if event.startswith(marker)), None)
    if ending is None and failed and "Connection closed" in cause:
        ending = dict(event="closed")
    if ending is not None:
        if "timed out" in event:  # Claude Code gave up waiting for the server
            ending = dict(event="closed", by="client")
        return flagged(ended(number, event, source=SOURCE, session=session, **ending, **facts), event)
    return event_note(number, event, event, session=session, **facts)


def event_note(number: int, text: str, event: str, source: str = SOURCE, stages: tuple = STAGES,
               **facts: Any) -> Frame:
    """A logged event as a comment carrying what it tells ``diagnose`` as ``msg``: the lifecycle
    stages it shows were reached (by the ``stages`` table of the host), whether it is a timeout."""
    note = {"dir": "meta", "event": "host-event", "raw": event, "source": source}
    return comment(number, text, msg=_facts(note, event, stages), flags=EVENTS_ONLY, **facts)


def _facts(note: dict, event: str, stages: tuple = STAGES) -> dict:
    """``note`` with what ``event`` tells ``diagnose``: stages reached, a timeout, a note in words."""
    note.update(stages=list(next((reached for marker, reached in stages if marker.search(event)), ())),
                timeout="timed out" in event, host_note=unplaced(event))
    return note


def unplaced(event: str) -> str | None:
    """What a host's "unknown message ID" error says, in words, or None. The SDKs raise it for a
    response whose request they no longer wait for: often a late answer after the host's own
    timeout, so it proves no wrong id (the message itself stays out of the analysis)."""
    found = _UNPLACED.search(event)
    if found is None:
        if _UNQUOTED.search(event):  # V8's other JSON.parse errors give a position, not the text
            return ("the host could not parse a line of the server's stdout (its error quotes none of it): "
                    "stdout pollution, see IO001 for the usual writers")
        return None
    what = "a response for a request it was no longer waiting for (late after its timeout, or a wrong id)" \
        if found.group(1) else "progress for a token it did not know (late after its timeout, or a wrong token)"
    return f"the host received {what}"


def flagged(frame: Frame, event: str, stages: tuple = STAGES) -> Frame:
    """An ending note (:func:`~mcplint.input.formats._common.ended`) of an events log, with its facts."""
    frame.flags = EVENTS_ONLY
    _facts(frame.msg, event, stages)
    return frame


def read_mcp_logs(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    """``{"debug"|"error": ..., "timestamp", "sessionId", "cwd"}`` per line (one server per file)."""
    starts = Starts()
    last_run: Any = _NONE
    for number, (data, too_long) in enumerate(lines, 1):
        if too_long:
            yield oversized(number, data, too_long)
            continue
        text, _ = decode_line(data)
        if not text.strip():
            yield comment(number, text, flags=EVENTS_ONLY)
            continue
        try:
            entry = orjson.loads(text)
        except orjson.JSONDecodeError:
            entry = None
        event = _entry_text(entry)
        if event is None:
            yield unreadable(number, text, 'Claude Code log entry is not an object with "debug" or "error" text')
            continue
        ts = entry.get("timestamp")
        ts = ts if isinstance(ts, str) else None
        run = entry.get("sessionId")
        if run != last_run and last_run is not _NONE and not event.startswith(_START):  # another connection
            starts.start(NAME)
        last_run = run
        yield _event(number, event, event, ts, starts, NAME)


def _entry_text(entry: Any) -> str | None:
    if type(entry) is not dict:
        return None
    for key in ("debug", "error"):
        if isinstance(entry.get(key), str):
            return entry[key]
    return None


def read_debug_log(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    """``<ts> [LEVEL] MCP server "name": ...`` lines among the rest of Claude Code's debug log."""
    starts = Starts()
    stderr_of: str | None = None  # the server whose stderr entry goes on over untimed lines
    block_session: str | None = None
    for number, (data, too_long) in enumerate(lines, 1):
        if too_long:
            yield oversized(number, data, too_long)
            continue
        text, _ = decode_line(data)
        found = _DEBUG_LINE.match(text)
        if found is None:  # a line of the entry before (stderr goes on; anything else is a comment)
            if stderr_of is not None and text.strip():
                yield Frame(number, text, kind=Kind.STDERR, observed=False, session=starts.current(stderr_of))
            else:
                yield comment(number, text, session=block_session, flags=EVENTS_ONLY)
            continue
        ts, _, rest = found.groups()
        server = _SERVER.match(rest)
        if server is None:
            stderr_of = block_session = None  # Claude Code's own log, not about a server
            yield comment(number, text, ts=ts, t=timestamp(ts))
            continue
        name = server.group(1)
        event = rest[server.end():]
        frame = _event(number, text, event, ts, starts, name)
        stderr_of = name if frame.kind is Kind.STDERR else None
        block_session = frame.session
        yield frame


def _is_entry(value: Any) -> bool:
    return _entry_text(value) is not None and "jsonrpc" not in value and "timestamp" in value


def sniff_mcp_logs(head: list[str]) -> int:
    return max(sniff_json_lines(head, '"debug"', _is_entry, 92), sniff_json_lines(head, '"error"', _is_entry, 92))


def sniff_debug_log(head: list[str]) -> int:
    prefixed = servers = json_lines = 0
    for text in head:
        if text[:1] in ("{", "["):
            json_lines += 1
            continue
        found = _DEBUG_LINE.match(text)
        if found is not None:
            prefixed += 1
            servers += _SERVER.match(found.group(3)) is not None
    if servers and prefixed >= json_lines:
        return 88
    return 60 if prefixed >= 3 and prefixed >= json_lines else 0


register_format(InputFormat(
    JSONL, read_mcp_logs, sniff_mcp_logs,
    "Claude Code mcp-logs-<server>/*.jsonl (events: connection, stderr, tool calls; no messages)"))
register_format(InputFormat(
    DEBUG, read_debug_log, sniff_debug_log,
    "Claude Code --debug log (MCP server \"name\": events; no messages)"))

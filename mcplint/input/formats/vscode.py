"""VS Code's MCP output channel ("MCP: Show Output", one channel per server).

::

    2026-01-06 14:50:03.931 [debug] [editor -> server] {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}
    2026-01-06 14:50:03.933 [debug] [server -> editor] {"result":{"tools":[]},"jsonrpc":"2.0","id":2}
    2025-03-23 16:38:00.970 [info] [Client Says] {"jsonrpc":"2.0","id":4,"method":"tools/call",...}
    2025-07-05 22:27:17.634 [warning] [server stderr] ModuleNotFoundError: No module named 'yaml'
    2026-01-06 14:50:01.002 [info] Starting server weather

- ``[editor -> server]`` and ``[Client Says]`` (March 2025 builds) are client to server;
  ``[server -> editor]`` and ``[Server Says]`` server to client; ``[server stderr]`` lines are
  the server's stderr. The same markers are read without the time and level prefix (lines
  pasted from the panel into an issue).
- Other prefixed lines are VS Code's own log (comments); a line without prefix continues the
  entry before it (stderr when that was stderr, a comment otherwise).
- Times are local time without a zone, kept as such (``2026-01-06T14:50:03.931``).
- Sessions: ``<server>#<n>``, a new start at ``Starting server <name>`` / ``Connection state:
  Starting`` (consecutive markers count once) or at a second ``initialize`` request.
- How the server ended (``Connection state: Error Process exited with code 1``, ``code null``
  for a signal, ``Server exited before responding to `initialize` request.``, ``Stopping server
  <name>`` when VS Code stops it, ``Connection state: Stopped`` after an exit with code 0 or when
  VS Code let go of the server) is a comment carrying the facts as ``msg`` (see
  :func:`mcplint.input.formats._common.ended`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from mcplint.input.formats._common import Starts, comment, ended, oversized, timestamp
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction, Kind

NAME = "vscode"

_PREFIX = re.compile(r"(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?) \[(trace|debug|info|warning|error|critical)\] ")
MARKERS = {
    "[editor -> server] ": Direction.C2S,
    "[Client Says] ": Direction.C2S,
    "[server -> editor] ": Direction.S2C,
    "[Server Says] ": Direction.S2C,
}
STDERR_MARKER = "[server stderr]"
_START = re.compile(r"Starting server (?!from )(.+?)\s*$")
_VOCABULARY = re.compile(r"Connection state: |Starting server |Stopping server |Waiting for server to respond"
                         r"|Discovered \d+ tools|\d{3} status (?:sending message|connecting) to ")
_WIRE_FLAGS = frozenset({"invalid_utf8"})
#: VS Code's line when the server's process exits with a non-zero code (null: killed by a signal).
_EXITED = re.compile(r"Connection state: Error Process exited with code (-?\d+|null)")


def _marker(rest: str) -> tuple[str, Direction | None] | None:
    for marker, direction in MARKERS.items():
        if rest.startswith(marker):
            return marker, direction
    if rest.startswith(STDERR_MARKER):
        return STDERR_MARKER, None
    return None


def read_vscode(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    starts = Starts()
    server = "server"
    previous_stderr = False
    for number, (data, too_long) in enumerate(lines, 1):
        if too_long:
            yield oversized(number, data, too_long)
            continue
        text, flags = decode_line(data)
        prefix = _PREFIX.match(text)
        ts = f"{prefix.group(1)}T{prefix.group(2)}" if prefix else None
        rest = text[prefix.end():] if prefix else text
        found = _marker(rest)
        if found is None:
            if prefix is None and previous_stderr and text.strip():  # a stderr entry spanning lines
                yield Frame(number, text, kind=Kind.STDERR, observed=False, session=starts.current(server))
                continue
            previous_stderr = False
            if prefix is not None:
                start = _START.match(rest)
                if start is not None:
                    server = start.group(1)
                    starts.start(server, lazy=True)
                elif rest.startswith("Connection state: Starting"):
                    starts.start(server, lazy=True)
            facts = dict(ts=ts, t=timestamp(ts), session=starts.peek(server))
            ending = _ending(rest)
            yield comment(number, text, **facts) if ending is None else ended(number, text, **ending, **facts)
            continue
        marker, direction = found
        body = rest[len(marker):]
        if direction is None:
            previous_stderr = True
            yield Frame(number, body.removeprefix(" "), kind=Kind.STDERR, observed=False, ts=ts, t=timestamp(ts),
                        session=starts.current(server))
            continue
        previous_stderr = False
        yield Frame(number, body, direction=direction, ts=ts, t=timestamp(ts), flags=flags & _WIRE_FLAGS,
                    session=starts.message(server, direction, body))


def _ending(rest: str) -> dict | None:
    """The exit facts of one of VS Code's own lines, or None when it says nothing about an end."""
    exited = _EXITED.match(rest)
    if exited is not None:
        code = exited.group(1)
        status = dict(status=None, signal="unknown") if code == "null" else dict(status=int(code))
        return dict(event="exit", source="VS Code log", **status)
    if rest.startswith("Server exited before responding"):
        return dict(event="exit", source="VS Code log")
    if rest.startswith("Connection state: Stopped"):  # exit code 0, or VS Code disposed of the connection
        return dict(event="closed", source="VS Code log")
    if rest.startswith("Stopping server"):
        return dict(event="exit", source="VS Code log", by="client")
    return None


def sniff_vscode(head: list[str]) -> int:
    prefixed = markers = json_lines = 0
    for text in head:
        if text[:1] in ("{", "["):
            if _marker(text) is None:
                json_lines += 1
            else:
                markers += 1
            continue
        prefix = _PREFIX.match(text)
        rest = text[prefix.end():] if prefix else text
        if prefix is not None:
            prefixed += 1
        if _marker(rest) is not None or (prefix is not None and _VOCABULARY.match(rest)):
            markers += 1
    if markers and prefixed + markers >= json_lines:
        return 85
    return 0


FORMAT = register_format(InputFormat(
    NAME, read_vscode, sniff_vscode,
    "VS Code MCP output channel ([editor -> server] / [server -> editor] / [server stderr])"))

"""MCP Inspector v2 History / Protocol exports (``inspector-history-<server>-<time>.json``).

A JSON array (pretty-printed by the Inspector's download, or compact) of message entries::

    [
      {
        "id": "m-17",
        "timestamp": "2026-05-27T10:00:42.123Z",
        "direction": "request",
        "origin": "client",
        "message": {
          "jsonrpc": "2.0", "id": 3, "method": "tools/call", ...
        },
        "response": {
          "jsonrpc": "2.0", "id": 3, "result": {...}
        },
        "duration": 212
      },
      ...
    ]

- Each ``message`` (and the ``response`` a request entry embeds) is one record, located at the
  line where its object starts in the file; every other line is a comment (a compact export
  puts several records on one line).
- ``origin`` says who sent the message (``client`` -> c2s, ``server`` -> s2c); an embedded
  response goes the other way. Exports without ``origin`` leave the direction to inference.
- The entry's ``timestamp`` is the message's time; an embedded response is dated
  ``timestamp + duration`` and is analysed at that moment (after the entries logged before
  the response arrived, such as progress notifications), keeping its own line number.
- An entry that is not an object with a ``message`` object is reported (JR002) at its first
  line; a document cut short keeps its complete entries and reports the rest.
- Some Inspector versions record only the client's requests among what it sends (not its
  notifications or its answers to server requests): lifecycle findings about a missing
  ``notifications/initialized`` can come from the export, not from the client.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from mcplint import protocol
from mcplint.input.formats._common import comment, iso_after, oversized, timestamp, unreadable
from mcplint.input.parse import Frame
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction

NAME = "inspector"

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\]\n]')
_ORIGINS = {"client": Direction.C2S, "server": Direction.S2C}
_DIRECTION = re.compile(r'"direction"\s*:\s*"(?:request|response|notification)"')
_MESSAGE_KEY = re.compile(r'"message"\s*:\s*\{')


class _Entry:
    __slots__ = ("end", "line", "members", "start")

    def __init__(self, start: int, line: int):
        self.start = start
        self.end = -1
        self.line = line
        self.members: dict[str, int] = {}  # key of an object member -> line where the object starts


def _scan(text: str) -> tuple[list[_Entry], int]:
    """The top-level array's object elements, with the lines where their member objects start;
    and the depth left open at the end (0 for a complete document)."""
    entries: list[_Entry] = []
    depth = 0
    line = 1
    last_string = ""
    current: _Entry | None = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token[0] == '"':
            if depth == 2:
                last_string = token
        elif token in "{[":
            if depth == 1 and token == "{":
                current = _Entry(match.start(), line)
            elif depth == 2 and token == "{" and current is not None and last_string:
                current.members.setdefault(last_string[1:-1], line)
            depth += 1
        else:
            depth -= 1
            if depth == 1 and current is not None and token == "}":
                current.end = match.end()
                entries.append(current)
                current = None
            last_string = "" if depth < 2 else last_string
    if current is not None:
        entries.append(current)  # cut short: end stays -1
    return entries, depth


def _frames(entry: _Entry, text: str) -> tuple[list[tuple[float | None, bool, Frame]], Frame | None]:
    """``([(time, is_embedded_response, frame)], error)`` for one entry."""
    if entry.end < 0:
        return [], unreadable(entry.line, "", "Inspector export ends inside this entry (file cut short)")
    try:
        value: Any = orjson.loads(text[entry.start:entry.end])
    except orjson.JSONDecodeError as exc:
        return [], unreadable(entry.line, "", f"Inspector entry is not valid JSON: {exc.msg}")
    message = value.get("message") if isinstance(value, dict) else None
    if not isinstance(message, dict):
        return [], unreadable(entry.line, "", 'Inspector entry has no "message" object')
    ts = value.get("timestamp") if isinstance(value.get("timestamp"), str) else None
    direction, observed = _direction(value, message)
    out = [(timestamp(ts), False,
            _frame(entry.members.get("message", entry.line), message, direction, observed, ts))]
    response = value.get("response")
    if isinstance(response, dict):
        answer_ts = iso_after(ts, value.get("duration")) or ts
        out.append((timestamp(answer_ts), True, _frame(entry.members.get("response", entry.line), response,
                                                       direction.other if direction else None, observed,
                                                       answer_ts)))
    return out, None


def _stray_elements(text: str) -> int:
    """How many elements of a well-formed export are not objects."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return 0
    return sum(not isinstance(item, dict) for item in value) if isinstance(value, list) else 0


def _direction(entry: dict, message: dict) -> tuple[Direction | None, bool]:
    origin = _ORIGINS.get(entry.get("origin"))
    if origin is not None:
        return origin, True
    method = message.get("method")
    senders = protocol.method_senders(method) if isinstance(method, str) else frozenset()
    if len(senders) == 1:
        return next(iter(senders)), False
    return None, False


def _frame(line: int, message: dict, direction: Direction | None, observed: bool, ts: str | None) -> Frame:
    return Frame(line, orjson.dumps(message).decode(), msg=message, direction=direction,
                 observed=observed and direction is not None, ts=ts, t=timestamp(ts))


def read_inspector(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    raw: list[bytes] = []
    cut: dict[int, Any] = {}
    for number, (data, too_long) in enumerate(lines, 1):
        raw.append(data)
        if too_long:
            cut[number] = too_long
    if cut:  # a line over the size limit: the document cannot be read
        for number in range(1, len(raw) + 1):
            yield oversized(number, raw[number - 1], cut[number]) if number in cut else comment(number, "")
        return
    text = "\n".join(data.decode("utf-8", "replace") for data in raw)
    text = text.removeprefix("\ufeff")
    located: dict[int, list[tuple[float | None, bool, Frame]]] = {}  # line -> the records starting there
    errors: dict[int, Frame] = {}
    body = text.lstrip()
    if body and not body.startswith("["):
        line = text[:len(text) - len(body)].count("\n") + 1
        errors[line] = unreadable(line, "", "Inspector export is not a JSON array of message entries")
    elif body:
        entries, _ = _scan(text)
        stray = _stray_elements(text)
        if stray:
            line = text[:len(text) - len(body)].count("\n") + 1
            errors[line] = unreadable(line, "", f"Inspector export has {stray} array element(s) that are not "
                                                "entry objects; they were not read")
        for entry in entries:
            frames, error = _frames(entry, text)
            if error is not None:
                errors.setdefault(entry.line, error)
            for item in frames:
                located.setdefault(item[2].line, []).append(item)
    deferred: list[tuple[float, int, Frame]] = []  # embedded responses waiting for their time
    order = 0
    for number in range(1, len(raw) + 1):
        here = located.get(number)
        error = errors.get(number)
        if error is not None:
            error.data = raw[number - 1].decode("utf-8", "replace")
        if not here:
            yield error or comment(number, raw[number - 1])
            continue
        for moment, embedded, frame in here:
            while deferred and moment is not None and deferred[0][0] <= moment:
                yield heapq.heappop(deferred)[2]
            if embedded and moment is not None:
                order += 1
                heapq.heappush(deferred, (moment, order, frame))
            else:
                yield frame
        if error is not None:  # an entry error on a line that also starts a record (compact export)
            yield error
    while deferred:
        yield heapq.heappop(deferred)[2]


def sniff_inspector(head: list[str]) -> int:
    first = next((text for text in head if text), "")
    if not first.startswith("["):
        return 0
    joined = "\n".join(head)
    if _DIRECTION.search(joined) and _MESSAGE_KEY.search(joined):
        return 88
    return 0


FORMAT = register_format(InputFormat(
    NAME, read_inspector, sniff_inspector, "MCP Inspector v2 History/Protocol export (JSON array of entries)"))

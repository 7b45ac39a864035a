"""Pieces shared by the host-log and recorder readers (not a format of its own)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from mcplint.input.lines import oversized_frame as oversized  # noqa: F401  (the readers' name for it)
from mcplint.input.lines import parse_ts
from mcplint.input.parse import Frame
from mcplint.model import Direction, Kind

ENVELOPE = frozenset({"envelope"})
_FRACTION = re.compile(r"(\.\d{6})\d+")


def timestamp(ts: Any) -> float | None:
    """Epoch seconds of an ISO-8601 string (nanosecond fractions allowed), or None."""
    t = parse_ts(ts)
    if t is None and isinstance(ts, str):
        t = parse_ts(_FRACTION.sub(r"\1", ts))
    return t


def iso_after(ts: str | None, milliseconds: Any) -> str | None:
    """``ts`` plus ``milliseconds`` as an ISO-8601 string (None when either is unusable)."""
    t = timestamp(ts)
    if t is None or not isinstance(milliseconds, (int, float)) or isinstance(milliseconds, bool):
        return None
    moment = datetime.fromtimestamp(t, UTC) + timedelta(milliseconds=milliseconds)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def sniff_json_lines(head: list[str], marker: str, accept: Callable[[Any], bool], score: int = 93) -> int:
    """``score`` when one of the first JSON lines holding ``marker`` is a record ``accept`` knows."""
    for text in head[:20]:
        if not text.startswith("{") or marker not in text:
            continue
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            continue
        if accept(value):
            return score
    return 0


def comment(line: int, text: str | bytes, **facts: Any) -> Frame:
    return Frame(line, text, kind=Kind.COMMENT, observed=False, **facts)


def ended(line: int, text: str, event: str, source: str, *, status: int | None = None, signal: str | None = None,
          by: str | None = None, **facts: Any) -> Frame:
    """A host's log line saying how the server ended, as a comment carrying the facts in the shape of
    ``mcplint capture``'s exit ``meta`` record (``mcplint diagnose`` reads them): ``event`` is "exit"
    (the process ended) or "closed" (only the connection is known to have closed); ``by`` is
    "client" when the host ended the session, "server" when the server's side did, else None."""
    return comment(line, text, msg={"dir": "meta", "event": event, "raw": text, "status": status, "signal": signal,
                                    "by": by, "source": source}, **facts)


def ended_by(msg: Any) -> str | None:
    """Who ended the session according to an ending note (the ``msg`` of a comment made by
    :func:`ended`, or ``mcplint capture``'s exit ``meta`` record, which says it in words):
    "client", "server" or None."""
    if type(msg) is not dict or msg.get("dir") != "meta":
        return None
    by, raw = msg.get("by"), msg.get("raw")
    if by in ("client", "server"):
        return by
    if msg.get("event") == "exit" and isinstance(raw, str) and (
            "after stdin closed" in raw or "after mcplint capture received" in raw):
        return "client"  # mcplint capture saw the host close the server's stdin (or signal it) first
    return None


def unreadable(line: int, text: str, error: str) -> Frame:
    """A line the reader cannot interpret: reported (JR002, party capture), never dropped."""
    return Frame(line, text, kind=Kind.MALFORMED, flags=ENVELOPE, error=error)


def split_json(text: str) -> tuple[str, str]:
    """``(message, suffix)``: a JSON value at the start of ``text`` and what follows it.

    When ``text`` does not start with a complete JSON value the whole of it is the message
    (the parser then reports it as malformed or as text, with the line's content).
    """
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if exc.msg == "unexpected content after document" and exc.pos > 0:
            return text[:exc.pos].rstrip(), text[exc.pos:]
        return text, ""
    return text, ""


def is_initialize(text: str | bytes) -> bool:
    """Whether a message text is an ``initialize`` request (a new session of the same peers)."""
    if (b'"initialize"' if isinstance(text, bytes) else '"initialize"') not in text:
        return False
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict) and value.get("method") == "initialize" and "id" in value


class Starts:
    """Session keys ``<server>#<start n>``: one per server and per process start.

    A start is counted at a start marker of the log (``Initializing server...``); with
    ``lazy`` a marker right after another one (no traffic in between) is the same start. An
    ``initialize`` request after other messages of the same start also begins a new session.
    """

    def __init__(self) -> None:
        self.count: dict[str, int] = {}
        self.busy: dict[str, bool] = {}  # anything (stderr included) since the last start
        self.messages: dict[str, int] = {}  # messages since the last start

    def start(self, name: str, lazy: bool = False) -> None:
        if lazy and self.count.get(name) and not self.busy.get(name):
            return
        self.count[name] = self.count.get(name, 0) + 1
        self.busy[name] = False
        self.messages[name] = 0

    def message(self, name: str, direction: Direction | None, text: str | bytes) -> str:
        """The session key of a message from or to ``name``."""
        if not self.count.get(name) or self.messages.get(name) and direction is not Direction.S2C and is_initialize(text):
            self.start(name)
        self.busy[name] = True
        self.messages[name] = self.messages.get(name, 0) + 1
        return f"{name}#{self.count[name]}"

    def peek(self, name: str | None) -> str | None:
        """The session key of ``name``'s current start, without counting it as used."""
        if name is None or not self.count.get(name):
            return None
        return f"{name}#{self.count[name]}"

    def current(self, name: str | None) -> str | None:
        """The session key of ``name``'s current start (for its stderr), None before any."""
        if name is None or not self.count.get(name):
            return None
        self.busy[name] = True
        return f"{name}#{self.count[name]}"


def js_depth(text: str) -> int:
    """Opened minus closed brackets of a JavaScript object literal line (``util.inspect``
    output), outside of quoted strings."""
    depth = 0
    quote = ""
    escaped = False
    for char in text:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return depth


#: How hosts report a line of the server's stdout that is not JSON, each quoting its start: V8's
#: ``JSON.parse`` (Claude Desktop, Cursor, Claude Code on Node), JavaScriptCore's (Claude Code on
#: Bun: it quotes the first word) and pydantic's (the Python SDK's stdio client, in the
#: ``Failed to parse JSONRPC message from server`` traceback).
_HOST_PARSE_ERRORS = (
    re.compile(r"""Unexpected token .{1,8}, "(.*?)"(\.\.\.)? is not valid JSON"""),
    re.compile(r"""JSON Parse error: Unexpected identifier "(.*?)"()"""),
    re.compile(r"""\[type=json_invalid, input_value=(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"), input_type=str\]"""),
)


def stdout_fragment(text: str) -> str | None:
    """The start of the server's stdout line that a host's "not valid JSON" error quotes (with
    ``...`` where the host cut it), or None when ``text`` is no such error."""
    for pattern in _HOST_PARSE_ERRORS:
        found = pattern.search(text)
        if found is None:
            continue
        if pattern is _HOST_PARSE_ERRORS[2]:  # a Python repr of the whole line
            quoted = found.group(1) if found.group(1) is not None else found.group(2)
            return quoted.encode("utf-8", "backslashreplace").decode("unicode_escape", "replace")
        if pattern is _HOST_PARSE_ERRORS[1]:  # JavaScriptCore names the word it stopped at
            return found.group(1) + "..."
        return found.group(1) + ("..." if found.group(2) else "")
    return None

"""Open an input: sniff its format (unless named) and read it into frames; and the built-in
formats: plain JSON Lines, the canonical capture format and the transcript notation.

Each reader turns an input's lines (:mod:`mcplint.input.lines`) into
:class:`~mcplint.input.parse.Frame` objects, one per input line, carrying what the format says
about direction, time and session. Every format registers in :mod:`mcplint.input.registry`; this
module imports them all (:data:`FORMAT_MODULES`), so importing it completes the registry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

import orjson

from mcplint.input.lines import MAX_LINE_BYTES, Batch, Cut, Lines, iter_lines, oversized_frame, parse_ts
from mcplint.input.literal_scan import CUT
from mcplint.input.parse import Frame, LineFrames, classify, decode_line
from mcplint.input.registry import (
    INPUT_FORMATS,
    READERS,
    SNIFF_BYTES,
    SNIFF_LINES,
    BinaryInput,
    InputFormat,
    UnknownFormat,
    binary_reason,
    register_format,
    scored,
    sniff,
)
from mcplint.model import Direction, Kind, Record

#: What the rest of mcplint imports from here: the registry's view once every format is in it.
__all__ = [
    "FORMATS", "FORMAT_MODULES", "INPUT_FORMATS", "READERS", "SNIFF_BYTES", "SNIFF_LINES", "BinaryInput", "InputFormat",
    "UnknownFormat", "formats", "open_frames", "read_capture", "read_jsonl", "read_transcript", "scored", "sniff",
]

# -- plain JSON Lines -----------------------------------------------------------------------
def read_jsonl(lines: Iterable[tuple[bytes, bool]]) -> LineFrames:
    """Plain JSON-RPC lines with no envelope: direction unknown, inferred later. Each frame
    carries its line's secret-scan literals when :class:`Lines` found them (the message is the line)."""
    if type(lines) is Lines:
        return LineFrames(lines.batches(), _jsonl_frame)
    return LineFrames(_as_batches(lines), _jsonl_frame)


def _as_batches(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Batch]:
    """``(line, cut)`` pairs as :class:`Lines` batches of one line each (a line is handed on as
    soon as it comes: ``--follow``), with no secret-scan literals known."""
    for data, cut in lines:
        yield [data], [cut] if cut else None, [None]


def _jsonl_frame(number: int, data: bytes, cut: Cut | bool, signs: int | None) -> Frame:
    if cut:
        return oversized_frame(number, data, cut)
    return Frame(number, data, False, signs)


# -- canonical capture format ---------------------------------------------------------------
_C2S, _S2C = Direction.C2S, Direction.S2C
_DIRS = {"c2s": _C2S, "s2c": _S2C}
_CAPTURE_DIRS = ("c2s", "s2c", "stderr", "meta")
_TRANSPORTS = ("stdio", "http")  # a record's "transport": rules that differ by transport read it
_UNREAD = object()
_EVENTS_ONLY = frozenset({"events-only"})  # a meta record of a host log of events (see convert)


#: A member of a capture record's envelope, with its value when that is a string or a number.
_ENVELOPE_MEMBER = re.compile(rb'"(ts|dir|session|raw|msg)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?)?')


def _capture_head(data: bytes) -> dict[str, Any]:
    """Direction, time and session of a capture record cut for its size, as far as the members
    before its message (``raw`` or ``msg``) tell."""
    facts: dict[str, Any] = {}
    for member in _ENVELOPE_MEMBER.finditer(data):
        name, value = member.groups()
        if value is None or name in (b"raw", b"msg"):
            break
        value = orjson.loads(value)
        if name == b"dir" and value in _DIRS:
            facts["direction"] = _DIRS[value]
        elif name == b"ts":
            facts.update(ts=value if isinstance(value, str) else None, t=parse_ts(value))
        elif name == b"session":
            facts["session"] = str(value)
    return facts


def _not_json(text: str) -> str | None:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return exc.msg
    return None


def read_capture(lines: Iterable[tuple[bytes, bool]]) -> Iterable[Frame]:
    """``{"ts", "dir", "raw"|"msg", "session"?, "transport"?}`` per line (DESIGN.md, canonical capture).

    From :class:`Lines`, the frames come as :class:`LineFrames` whose ``record`` makes the record
    of a line in the common envelope at once (:func:`_capture_record`), as the frame would parse."""
    if type(lines) is Lines:
        return LineFrames(lines.batches(), _capture_frame, _capture_record)
    return (_capture_frame(number, data, cut) for number, (data, cut) in enumerate(lines, 1))


def _capture_record(path: str, number: int, data: bytes, signs: int | None = None) -> Record | None:
    """The record of capture line ``data`` when it is a message in the common envelope (``dir``
    c2s or s2c, ``raw`` a JSON object with no CR, BOM or NUL of its own), as :class:`Parser` makes
    it of :func:`_capture_frame`'s frame; None for any other line. (A CR ending the line itself
    needs no test: the frame drops it with the capture file's other flags, and orjson reads it as
    the white space it is.)

    ``signs``, the line's secret-scan literals, become the record's: the line holds the message's
    text as a JSON string, whose escapes touch no character of a literal (quotes, backslashes,
    controls), so every literal of the message is in the line, and the line's bits are a superset of
    the message's; but for a line longer than the scan, where the message's scanned head need not
    lie inside the line's (escapes lengthen it), and the frame's record leaves them unknown."""
    try:
        envelope = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if type(envelope) is not dict:
        return None
    side = envelope.get("dir")
    raw = envelope.get("raw")
    if type(raw) is not str or "\r" in raw:  # (orjson refuses a BOM and a NUL itself)
        return None
    if side == "c2s":
        direction = _C2S
    elif side == "s2c":
        direction = _S2C
    else:
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if type(value) is not dict:
        return None
    record = classify(path, number, raw, value)
    record.direction = direction
    ts = envelope.get("ts")
    if ts is not None:
        if type(ts) is str:
            record.ts = ts
        record.t = parse_ts(ts)
    if ts is None or len(envelope) > 3:  # members beyond ts, dir and raw
        session = envelope.get("session")
        if session is not None:
            record.session_key = str(session)
        transport = envelope.get("transport")
        if transport is not None and transport in _TRANSPORTS:
            record.transport = transport
    if signs is not None and not signs & CUT:
        record.signs = signs
    return record


def _capture_frame(number: int, data: bytes, oversized: Cut | bool, signs: int | None = None) -> Frame:
    """The frame of capture line ``data`` (``signs``: unused, the message is not the line)."""
    if oversized:
        return oversized_frame(number, data, oversized, **_capture_head(data))
    envelope = _UNREAD
    if data[-1:] != b"\r":  # fast path: orjson checks UTF-8 itself, so a line it reads needs no decoding
        try:
            envelope = orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    if envelope is not _UNREAD:
        text, flags = data, frozenset()
    else:
        text, flags = decode_line(data)
    if envelope is _UNREAD and not text.strip():  # a blank line of the capture file, not of the traffic
        return Frame(number, text, kind=Kind.COMMENT, flags=flags, observed=False)
    try:
        if envelope is _UNREAD:
            envelope = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return Frame(number, text, kind=Kind.MALFORMED, flags=flags | {"envelope"},
                     error=f"capture record is not JSON: {exc.msg}")
    if not isinstance(envelope, dict) or envelope.get("dir") not in _CAPTURE_DIRS:
        return Frame(number, text, kind=Kind.MALFORMED, flags=flags | {"envelope"},
                     error='capture record lacks "dir" of c2s, s2c, stderr or meta')
    ts = envelope.get("ts")
    session = envelope.get("session")
    transport = envelope.get("transport")
    common = dict(ts=ts if isinstance(ts, str) else None, t=parse_ts(ts),
                  session=str(session) if session is not None else None,
                  transport=transport if transport in _TRANSPORTS else None)
    if envelope["dir"] == "meta":  # the recorder's own note (mcplint capture: start, exit), kept as ``msg``
        if envelope.get("event") == "http" and "har" in envelope:  # an HTTP exchange (capture --http)
            from mcplint.input.formats.har import exchange_frame

            http = envelope.get("http")
            frame = exchange_frame(number, envelope["har"], http.get("entry") if isinstance(http, dict) else None,
                                   envelope.get("legacy"), ts=common["ts"], t=common["t"],
                                   session=common["session"])
            if frame is not None:
                return frame
        note = envelope.get("raw", "")
        return Frame(number, note if isinstance(note, str) else str(note), kind=Kind.COMMENT,
                     observed=False, msg=envelope, flags=_EVENTS_ONLY if envelope.get("events_only") is True
                     else frozenset(), **common)
    if envelope["dir"] == "stderr":
        raw = envelope.get("raw", envelope.get("text", ""))
        return Frame(number, raw if isinstance(raw, str) else str(raw), kind=Kind.STDERR,
                     observed=False, **common)
    direction = _DIRS[envelope["dir"]]
    # CRLF, BOM, UTF-16 of the capture file itself say nothing about the traffic (IO005/IO006)
    wire_flags = flags & {"invalid_utf8"}
    if "raw" in envelope and isinstance(envelope["raw"], str):
        raw = envelope["raw"]
        raw_flags = wire_flags
        if raw.endswith("\r"):
            raw, raw_flags = raw[:-1], raw_flags | {"crlf"}
        if raw.startswith("\ufeff"):
            raw, raw_flags = raw[1:], raw_flags | {"bom"}
        if "\x00" in raw:
            raw_flags = raw_flags | {"nul"}
        if common["transport"] == "http" and (problem := _not_json(raw)) is not None:
            # an HTTP body or SSE event that is not JSON is a broken message (as in a HAR),
            # not text beside the messages as on a stdio pipe
            return Frame(number, raw, direction=direction, kind=Kind.MALFORMED, flags=raw_flags,
                         error=f"{'server' if direction is Direction.S2C else 'client'} message is not JSON: "
                               f"{problem}", **common)
        return Frame(number, raw, direction=direction, flags=raw_flags, **common)
    elif "msg" in envelope:
        msg = envelope["msg"]
        return Frame(number, orjson.dumps(msg).decode(), direction=direction, msg=msg,
                     flags=wire_flags, **common)
    else:
        return Frame(number, text, direction=direction, kind=Kind.MALFORMED, flags=flags | {"envelope"},
                     error='capture record has neither "raw" (string) nor "msg"', **common)


# -- transcript notation --------------------------------------------------------------------
_ARROW = re.compile(r"^\s*(C→S|S→C|C->S|S->C)(?: |$)")
_AT = re.compile(r"@(\d+(?:\.\d+)?)s? ")
_ANNOTATION = re.compile(r"\s{2,}#\s*(?:error|warning|info):\s*\[[A-Za-z0-9_, -]*\]\s*$")
_INIT = re.compile(r"^#\s*init\s+(\S+)(?:\s+C=(\{.*?\}))?(?:\s+S=(\{.*\}))?\s*$")


def strip_annotation(text: str) -> str:
    """Remove a rule-doc expectation suffix (``  # error: [JR004]``) from a transcript line."""
    return _ANNOTATION.sub("", text)


def init_macro(version: str, client_caps: str | None, server_caps: str | None) -> list[tuple[Direction, str]]:
    """Expand the catalog's ``# init V C=<caps> S=<caps>`` abbreviation of the handshake."""
    c = client_caps or "{}"
    s = server_caps or "{}"
    return [
        (Direction.C2S, '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s",'
                        '"capabilities":%s,"clientInfo":{"name":"c","version":"1"}}}' % (version, c)),
        (Direction.S2C, '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%s","capabilities":%s,'
                        '"serverInfo":{"name":"s","version":"1"}}}' % (version, s)),
        (Direction.C2S, '{"jsonrpc":"2.0","method":"notifications/initialized"}'),
    ]


def read_transcript(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    """``C→S {...}`` / ``S→C {...}`` lines (ASCII arrows too); ``#`` lines are comments.

    An optional ``@<seconds>`` after the arrow (``S→C @45 {...}``) gives the message's time, in
    seconds from the transcript's start, for rules that judge timing.

    A ``# init V C=<caps> S=<caps>`` comment expands to the three handshake messages, all
    located at the comment's line.
    """
    for number, (data, oversized) in enumerate(lines, 1):
        if oversized:
            arrow = _ARROW.match(data.decode("utf-8", "replace"))
            direction = None if arrow is None else Direction.C2S if arrow.group(1).startswith("C") else Direction.S2C
            yield oversized_frame(number, data, oversized, direction=direction)
            continue
        text, flags = decode_line(data)
        text = strip_annotation(text)
        match = _ARROW.match(text)
        if match:
            direction = Direction.C2S if match.group(1).startswith("C") else Direction.S2C
            body = text[match.end():]
            at = _AT.match(body)
            if at:  # ``C→S @12.5 {...}``: the message was sent 12.5 s after the transcript's start
                yield Frame(number, body[at.end():], direction=direction, flags=flags, t=float(at.group(1)))
            else:
                yield Frame(number, body, direction=direction, flags=flags)
            continue
        stripped = text.strip()
        init = _INIT.match(stripped)
        if init:
            for direction, message in init_macro(*init.groups()):
                yield Frame(number, message, direction=direction)
            continue
        if not stripped or stripped.startswith("#"):
            yield Frame(number, text, kind=Kind.COMMENT, flags=flags, observed=False)
        else:
            yield Frame(number, text, flags=flags, observed=False)


def _sniff_transcript(head: list[str]) -> int:
    arrows = sum(1 for text in head if _ARROW.match(text))
    plain = sum(1 for text in head if text and not text.startswith("#") and not _ARROW.match(text))
    return 90 if arrows and arrows >= plain else 0


def _sniff_capture(head: list[str]) -> int:
    first = next((text for text in head if text and not text.startswith("#")), "")
    if not first.startswith("{"):
        return 0
    try:
        value = orjson.loads(first)
    except orjson.JSONDecodeError:
        return 0
    if isinstance(value, dict) and value.get("dir") in _CAPTURE_DIRS and ("raw" in value or "msg" in value):
        return 95
    return 0


def _sniff_jsonl(head: list[str]) -> int:
    return 10  # the fallback: JSON-RPC lines, or anything line-based a server wrote to stdout


register_format(InputFormat("jsonl", read_jsonl, _sniff_jsonl,
                            "plain JSON Lines of JSON-RPC messages (direction inferred)"))
register_format(InputFormat("capture", read_capture, _sniff_capture,
                            "mcplint's canonical capture format (ts, dir, raw/msg)"))
register_format(InputFormat("transcript", read_transcript, _sniff_transcript,
                            "transcript notation (C→S / S→C lines)"))


#: How far past the sniffed head to look for a JSON line before calling a file unknown.
UNKNOWN_LOOKAHEAD_LINES = 1000


def _content(data: bytes) -> bytes:
    return data.lstrip(b"\xef\xbb\xbf").strip()


def _json_like(data: bytes) -> bool:
    """A line that could belong to a JSON-RPC stream (a JSON value's start, or a jsonrpc member)."""
    text = _content(data)
    return text[:1] in (b"{", b"[") or b'"jsonrpc"' in text


def _unknown(head: list[tuple[bytes, bool]], lines: Lines) -> bool:
    """No registered format claims the file and no line looks like JSON-RPC (reading a little
    further than the head, so a long banner before the first message is not mistaken)."""
    content = [d for d, _ in head if _content(d) and not _content(d).startswith(b"#")]
    if not content or any(_json_like(d) or too_long for d, too_long in head):
        return False
    further = lines.head(len(head) + UNKNOWN_LOOKAHEAD_LINES, 1 << 62)[len(head):]
    return not any(_json_like(data) or too_long for data, too_long in further)


def formats() -> tuple[str, ...]:
    """Names of the registered input formats (for ``--input-format``)."""
    return tuple(INPUT_FORMATS)


def open_frames(stream: IO[bytes], input_format: str = "auto", strict: bool = False,
                max_line_bytes: int = MAX_LINE_BYTES) -> tuple[str, Iterator[Frame]]:
    """Sniff (unless told) and return the format name and the frames of ``stream``.

    With ``strict``, a binary stream raises :class:`BinaryInput`, and a stream that no format
    claims and that has no line looking like JSON-RPC raises :class:`UnknownFormat` (otherwise
    both are read as plain JSON Lines, every line accounted for). Empty input, and
    JSON-RPC lines mixed with banners, are never unknown. Lines longer than ``max_line_bytes``
    are not parsed (IO013).
    """
    lines = iter_lines(stream, max_line_bytes)
    head = lines.head(SNIFF_LINES, SNIFF_BYTES)
    fmt, score = (input_format, None) if input_format != "auto" else scored([d for d, _ in head])
    chosen = INPUT_FORMATS.get(fmt)
    binary = None
    if strict and not (chosen is not None and chosen.binary and score != 0):
        binary = binary_reason(b"\n".join(d for d, _ in head)[:8192])
    if binary is not None:
        raise BinaryInput(f"binary file ({binary}), not an MCP capture")
    problem = chosen.missing() if chosen is not None and chosen.missing is not None else None
    if problem is not None:
        raise UnknownFormat(problem)
    if input_format != "auto":
        return input_format, READERS[input_format](lines)
    if strict and score <= _sniff_jsonl([]) and _unknown(head, lines):
        raise UnknownFormat(f"not in a known input format (tried {', '.join(INPUT_FORMATS)}); "
                            "name one with --input-format")
    return fmt, READERS[fmt](lines)


#: Modules that register further input formats (host logs, HAR, ...), imported once here.
FORMAT_MODULES: tuple[str, ...] = tuple(f"mcplint.input.formats.{name}" for name in (
    "har", "claude_desktop", "vscode", "inspector", "mcpspy", "mcpsnoop", "go_sdk", "claude_code", "cursor",
    "python_sdk", "mcp_proxy", "mitmproxy",
))

for _module in FORMAT_MODULES:
    import importlib

    importlib.import_module(_module)

#: Names of every input format, for ``--input-format`` choices.
FORMATS: tuple[str, ...] = tuple(INPUT_FORMATS)

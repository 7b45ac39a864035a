"""HAR 1.2 (HTTP Archive) captures of MCP over HTTP: Streamable HTTP and the 2024-11-05 HTTP+SSE
transport, as browser devtools, mitmproxy or a recording proxy write them.

What becomes a record:

- every entry gives one *exchange* record (``Kind.COMMENT``) on the entry's first line, whose
  ``http`` facts describe the whole HTTP exchange (method, URL, status, request and response
  headers, the parsed SSE events, the JSON-RPC values sent and received). The HTTP rules judge
  these; they exist even when no JSON-RPC message travelled (a ``202``, a ``DELETE``, a ``404``);
- the JSON-RPC values of the request body (client to server; a 2025-03-26 batch stays one batch
  record) and of the response (a JSON body, or each SSE event carrying data) are message records
  located on the same line, with ``http`` facts that add the SSE event id and event type;
- every other line of the document is a comment record, so that every input line is accounted for
  (records = lines + messages + entries sharing a line).

The messages of a request the server refused at the HTTP level (an error status without a JSON-RPC
body: ``401``, ``404`` for an expired session, ``405``...) are not handed to the protocol analysis:
the server never processed them. The HTTP rules still see them in the exchange facts.

Sessions: an ``Mcp-Session-Id`` (request header, else the response header of the initialize
exchange) names the session; requests that omit it belong to the session last used on the same
endpoint. An HTTP+SSE (2024-11-05) session is one ``GET`` stream and the POSTs to the endpoint it
announced. 2026-07-28 requests without a session id are stateless (the analyzer groups them).

Order: every message is placed by when it arrived, whatever entry it belongs to: a request body
when the request started, an SSE event when the chunk holding its end arrived (the recorder's
``response._chunks``: ``[{"ts", "size"}, ...]`` in arrival order), a JSON answer when its body
ended. Without per-chunk timing an exchange's events are spread over its receive time by the share
of the body before them (the first at the first byte; the response that ends a POST at the end),
and the events of a GET stream have no known time: they come as early as their causes allow. Causes always hold (a response after
the request it answers, progress after the request with its token, a client's answer after the
server request; within the timestamps' resolution) and so does each stream's own order. Messages
whose order against a message of another exchange of their session the HAR cannot establish (their
possible arrival times overlap) carry the ``order-uncertain`` flag (``model.ORDER_UNCERTAIN``):
rules that judge order report them with low confidence.
"""

from __future__ import annotations

import base64
import heapq
import json
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

from mcplint import protocol
from mcplint.input.lines import oversized_frame, parse_ts
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import ORDER_UNCERTAIN, Direction, Kind, id_key

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")
_SSE_LINE = re.compile(r"\r\n|\r|\n")
_HEAD = re.compile(r'^\s*\{\s*"log"\s*:\s*\{')
_MODERN_FLOOR = protocol.V2026_07_28
#: How far a cause may seem to come after what it caused (clocks of the recording tool's parts).
_CLOCK_SLACK = 0.002
_UNCERTAIN = frozenset({ORDER_UNCERTAIN})
#: Durations beyond a year are not read (nor NaN and infinity, which would break the ordering).
_MAX_MS = 366 * 86400 * 1000.0


class HarError(ValueError):
    """The document is not a readable HAR (position of the problem in the joined text)."""

    def __init__(self, message: str, pos: int):
        super().__init__(message)
        self.pos = pos


# -- locating entries in the document ---------------------------------------------------------
def _ws(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()


def _key(text: str, pos: int) -> tuple[str, int]:
    if text[pos:pos + 1] != '"':
        raise HarError("expected an object key", pos)
    try:
        return json.decoder.scanstring(text, pos + 1)
    except json.JSONDecodeError as exc:
        raise HarError(f"bad object key: {exc.msg}", exc.pos) from None


def _value(text: str, pos: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        raise HarError(f"invalid JSON: {exc.msg}", exc.pos) from None
    except RecursionError:
        raise HarError("JSON nested too deeply", pos) from None


def _members(text: str, pos: int) -> Iterator[tuple[str, int]]:
    """Walk an object starting at ``pos`` (its ``{``): yield ``(key, value_pos)``; the consumer
    must send back the position after the value."""
    if text[pos:pos + 1] != "{":
        raise HarError("expected a JSON object", pos)
    pos = _ws(text, pos + 1)
    if text[pos:pos + 1] == "}":
        return pos + 1
    while True:
        key, pos = _key(text, pos)
        pos = _ws(text, pos)
        if text[pos:pos + 1] != ":":
            raise HarError("expected ':' after an object key", pos)
        pos = _ws(text, pos + 1)
        end = yield key, pos
        pos = _ws(text, end)
        sep = text[pos:pos + 1]
        if sep == "}":
            return pos + 1
        if sep != ",":
            raise HarError("expected ',' or '}' in an object", pos)
        pos = _ws(text, pos + 1)


def _walk_object(text: str, pos: int, visit) -> int:
    """Call ``visit(key, value_pos)`` for each member; it returns the end of the value."""
    walker = _members(text, pos)
    try:
        key, at = next(walker)
        while True:
            key, at = walker.send(visit(key, at))
    except StopIteration as stop:
        return stop.value


def locate_entries(text: str) -> tuple[list[tuple[int, Any]], HarError | None, bool]:
    """``([(offset, entry), ...], error, found_log_entries)`` of a HAR document."""
    entries: list[tuple[int, Any]] = []
    found = False

    def skip(_key: str, at: int) -> int:
        return _value(text, at)[1]

    def in_log(key: str, at: int) -> int:
        nonlocal found
        if key != "entries":
            return skip(key, at)
        if text[at:at + 1] != "[":
            return skip(key, at)
        found = True
        pos = _ws(text, at + 1)
        if text[pos:pos + 1] == "]":
            return pos + 1
        while True:
            value, end = _value(text, pos)
            entries.append((pos, value))
            pos = _ws(text, end)
            sep = text[pos:pos + 1]
            if sep == "]":
                return pos + 1
            if sep != ",":
                raise HarError("expected ',' or ']' between entries", pos)
            pos = _ws(text, pos + 1)

    def in_root(key: str, at: int) -> int:
        if key == "log" and text[at:at + 1] == "{":
            return _walk_object(text, at, in_log)
        return skip(key, at)

    try:
        start = _ws(text, 0)
        end = _walk_object(text, start, in_root)
        rest = _ws(text, end)
        if rest < len(text):
            return entries, HarError("content after the end of the HAR document", rest), found
    except HarError as exc:
        return entries, exc, found
    return entries, None, found


# -- HTTP details ---------------------------------------------------------------------------
def _headers(items: Any) -> dict[str, str]:
    """Lower-cased header names; repeated headers joined with ", " (pseudo-headers dropped)."""
    out: dict[str, str] = {}
    if not isinstance(items, list):
        return out
    for item in items:
        if not isinstance(item, dict):
            continue
        name, value = item.get("name"), item.get("value")
        if not isinstance(name, str) or name.startswith(":"):
            continue
        value = value if isinstance(value, str) else "" if value is None else str(value)
        key = name.lower()
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


def media_type(value: str | None) -> str | None:
    """``"text/event-stream"`` of ``"text/event-stream; charset=utf-8"`` (lower case)."""
    if not value:
        return None
    return value.split(";", 1)[0].strip().lower() or None


def _body(container: Any) -> tuple[str | None, bool, int]:
    """``(text, recorded, bytes)`` of ``request.postData`` / ``response.content`` (``bytes``: the
    size of the raw body, base64-decoded)."""
    if not isinstance(container, dict):
        return None, True, 0
    text = container.get("text")
    if not isinstance(text, str):
        size = container.get("size")
        return None, not (isinstance(size, int) and size > 0), 0
    if container.get("encoding") == "base64":
        try:
            raw = base64.b64decode(text, validate=False)
        except (ValueError, TypeError):
            return text, True, _utf8_size(text)
        return raw.decode("utf-8", "replace"), True, len(raw)
    return text, True, _utf8_size(text)


def _utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def parse_sse(text: str) -> list[dict[str, Any]]:
    """SSE events (WHATWG parsing): ``{"id", "event", "data", "retry", "complete", "index", "end"}``.

    ``data`` is None when the block had no data field (an ``id:``-only or ``retry:``-only block);
    ``id`` is None when the block set no id. A block not followed by a blank line (a cut stream)
    is kept with ``complete`` False. ``end`` is the offset in ``text`` where the event ended (after
    its blank line).
    """
    events: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    data: list[str] | None = None

    def dispatch(complete: bool, end: int) -> None:
        nonlocal current, data
        if current or data is not None:
            event = {"id": current.get("id"), "event": current.get("event") or "message",
                     "data": None if data is None else "\n".join(data), "retry": current.get("retry"),
                     "complete": complete, "index": len(events), "comment": current.get("comment"), "end": end}
            events.append(event)
        current, data = {}, None

    def field(line: str) -> None:
        nonlocal data
        if line.startswith(":"):
            current.setdefault("comment", line[1:].strip())
            return
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data = [] if data is None else data
            data.append(value)
        elif name == "event":
            current["event"] = value
        elif name == "id":
            if "\x00" not in value:
                current["id"] = value
        elif name == "retry" and value.isdigit():
            current["retry"] = int(value)

    pos = 0
    for match in _SSE_LINE.finditer(text):
        line, pos = text[pos:match.start()], match.end()
        if line == "":
            dispatch(True, pos)
        else:
            field(line)
    if pos < len(text):  # a last line without its line end
        field(text[pos:])
    dispatch(False, len(text))
    return [e for e in events if e["data"] is not None or e["id"] is not None or e["retry"] is not None
            or e["event"] != "message"]


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    try:
        return datetime.fromtimestamp(t, tz=UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):  # beyond what a date can say
        return None


def _ms(value: Any) -> float:
    """Seconds of a HAR duration in ms (negative: not applicable)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < _MAX_MS
    return float(value) / 1000 if ok else 0.0


def _json_values(text: str) -> tuple[list[Any], str | None]:
    """The JSON values in a body (normally one; several when concatenated) or a parse error."""
    values: list[Any] = []
    pos = _ws(text, 0)
    while pos < len(text) and len(values) < 1000:
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            return values, f"{exc.msg} at character {exc.pos}"
        except RecursionError:
            return values, "nesting too deep"
        values.append(value)
        pos = _ws(text, end)
    return values, None


def _looks_jsonrpc(value: Any) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_looks_jsonrpc(v) for v in value)
    return isinstance(value, dict) and ("jsonrpc" in value or "method" in value
                                        or ("id" in value and ("result" in value or "error" in value)))


def is_modern_value(value: Any) -> bool:
    """A 2026-07-28 request or notification (server/discover or the per-request ``_meta``)."""
    if not isinstance(value, dict):
        return False
    if value.get("method") == "server/discover":
        return True
    params = value.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and protocol.PROTOCOL_VERSION_META in meta


@dataclass
class _Entry:
    index: int
    line: int
    http: dict[str, Any]
    sent: list[Any] = field(default_factory=list)  # parsed request body values
    body_error: str | None = None
    received: list[tuple[dict | None, Any, str | None]] = field(default_factory=list)  # (event, value, error)
    delivered: bool = True
    session: str | None = None
    started: float | None = None
    ts: str | None = None
    resolution: float = 0.001  # of startedDateTime (and so of the times derived from it)
    size: int = 0  # raw response body bytes
    spans: list[tuple[int, int]] = field(default_factory=list)  # bytes of the body each received value held
    chunks: tuple[list[int], list[tuple[float, str, float]]] = ([], [])  # see _chunk_times


def _entry(index: int, line: int, raw: dict) -> _Entry:
    request = raw.get("request") if isinstance(raw.get("request"), dict) else {}
    response = raw.get("response") if isinstance(raw.get("response"), dict) else {}
    method = request.get("method") if isinstance(request.get("method"), str) else "?"
    url = request.get("url") if isinstance(request.get("url"), str) else ""
    req_headers = _headers(request.get("headers"))
    resp_headers = _headers(response.get("headers"))
    status = response.get("status")
    status = status if isinstance(status, int) and not isinstance(status, bool) and status > 0 else None
    content = response.get("content") if isinstance(response.get("content"), dict) else {}
    post = request.get("postData") if isinstance(request.get("postData"), dict) else None
    req_body, _, _ = _body(post)
    resp_body, recorded, size = _body(content)
    content_type = media_type(resp_headers.get("content-type")) or media_type(
        content.get("mimeType") if isinstance(content.get("mimeType"), str) else None)
    if resp_body == "" and content_type is None:
        resp_body = None if not recorded else ""
    request_type = media_type(req_headers.get("content-type")) or media_type(
        post.get("mimeType") if post and isinstance(post.get("mimeType"), str) else None)
    started = parse_ts(raw.get("startedDateTime")) if isinstance(raw.get("startedDateTime"), str) else None
    timings = raw.get("timings") if isinstance(raw.get("timings"), dict) else {}
    first_byte = None
    ended = None
    if started is not None:
        first_byte = started + sum(_ms(timings.get(k)) for k in ("blocked", "dns", "connect", "send", "wait"))
        total = raw.get("time")
        ended = started + _ms(total) if isinstance(total, (int, float)) else first_byte + _ms(timings.get("receive"))
    error = response.get("_error") if isinstance(response.get("_error"), str) else None
    split = urlsplit(url)
    http: dict[str, Any] = {
        "entry": index,
        "method": method.upper(),
        "url": url,
        "server_ip": raw.get("serverIPAddress") if isinstance(raw.get("serverIPAddress"), str) else None,
        "path": split.path or "/",
        "query": split.query,
        "origin": f"{split.scheme}://{split.netloc}",
        "status": status,
        "status_text": response.get("statusText") if isinstance(response.get("statusText"), str) else "",
        "request_headers": req_headers,
        "response_headers": resp_headers,
        "request_content_type": request_type,
        "content_type": content_type,
        "request_body": req_body,
        "response_body": resp_body,
        "body_recorded": recorded,
        "aborted": status is None or error is not None,
        "error": error,
        "stream": method.lower(),
        "sse": content_type == "text/event-stream",
        "events": [],
        "sent": [],
        "received": [],
        "started": started,
        "first_byte": first_byte,
        "ended": ended,
        "transport": "streamable",
        "endpoint": None,
        "delivered": True,
        "role": "exchange",
        "sse_event_id": None,
        "sse_event": None,
        "sse_index": None,
    }
    entry = _Entry(index, line, http, started=started, ts=raw.get("startedDateTime")
                   if isinstance(raw.get("startedDateTime"), str) else None, size=size)
    if entry.ts is not None:
        entry.resolution = _resolution(entry.ts)
    if req_body is not None and req_body.strip():
        entry.sent, entry.body_error = _json_values(req_body)
    http["sent"] = entry.sent
    http["body_error"] = entry.body_error
    if resp_body is not None:
        if http["sse"]:
            http["events"] = parse_sse(resp_body)
            ends = _byte_offsets(resp_body, [event["end"] for event in http["events"]])
            for event, begin, end in zip(http["events"], [0, *ends], ends, strict=False):
                data = event["data"]
                if data is None or not data.strip() or event["event"] == "endpoint":
                    continue
                values, err = _json_values(data)
                if err is not None or len(values) != 1:
                    entry.received.append((event, None, err or f"{len(values)} JSON values in one event"))
                else:
                    entry.received.append((event, values[0], None))
                entry.spans.append((begin, end))
        elif resp_body.strip():
            # a JSON body that is no JSON-RPC message ({"status": "ok"} for a notification) is an
            # HTTP fact (HT004/HT005), not a message; broken JSON in a JSON answer is reported
            values, err = _json_values(resp_body)
            is_json = content_type is not None and (content_type == "application/json" or content_type.endswith("+json"))
            if err is None and len(values) == 1 and _looks_jsonrpc(values[0]):
                entry.received.append((None, values[0], None))
            elif err is not None and is_json and status is not None and 200 <= status < 300:
                entry.received.append((None, None, err))
            entry.spans = [(0, size)] * len(entry.received)
    if entry.received:
        entry.chunks = _chunk_times(response.get("_chunks"), size)
    http["received"] = [value for _, value, _ in entry.received]
    # the HTTP layer refused the request: its messages were never processed
    refused = status is not None and status >= 300 and not any(v is not None and _looks_jsonrpc(v)
                                                                for _, v, _ in entry.received)
    entry.delivered = not refused
    http["delivered"] = entry.delivered
    return entry


_FRACTION = re.compile(r"T\d\d:\d\d(?::\d\d(?:[.,](\d+))?)?")


def _resolution(ts: str) -> float:
    """How finely an ISO-8601 timestamp resolves time: 0.001 for ``...T09:30:00.123Z``."""
    match = _FRACTION.search(ts)
    if match is None:
        return 1.0
    digits = match.group(1)
    return max(10.0 ** -len(digits), 1e-6) if digits else 1.0


def _byte_offsets(text: str, offsets: list[int]) -> list[int]:
    """UTF-8 byte offsets of ascending character offsets into ``text``."""
    if text.isascii():
        return list(offsets)
    out, done, at = [], 0, 0
    for offset in offsets:
        done += _utf8_size(text[at:offset])
        at = offset
        out.append(done)
    return out


def _chunk_times(chunks: Any, size: int) -> tuple[list[int], list[tuple[float, str, float]]]:
    """``(ends, times)`` of ``response._chunks``: the byte offset where each chunk ended and
    ``(t, ts, resolution)`` of its arrival. None at all unless every chunk is readable and their
    sizes add up to the body (else they describe other bytes: a body redacted or cut since)."""
    ends: list[int] = []
    times: list[tuple[float, str, float]] = []
    if not isinstance(chunks, list):
        return ends, times
    total, latest = 0, float("-inf")
    for chunk in chunks:
        count = chunk.get("size") if isinstance(chunk, dict) else None
        ts = chunk.get("ts") if isinstance(chunk, dict) else None
        t = parse_ts(ts) if isinstance(ts, str) else None
        if t is None or not isinstance(count, int) or isinstance(count, bool) or count < 0:
            return [], []
        total += count
        if t < latest:  # listed in arrival order: a clock going back does not move a chunk earlier
            t, ts = latest, _iso(latest) or ts
        latest = t
        ends.append(total)
        times.append((t, ts, _resolution(ts)))
    return (ends, times) if total == size else ([], [])


def _endpoint_event(http: dict) -> dict | None:
    for event in http["events"]:
        if event["event"] == "endpoint":
            return event
    return None


# -- sessions -----------------------------------------------------------------------------------
class _Sessions:
    """Assign each entry a session key (see the module docstring)."""

    def __init__(self):
        self.labels: dict[str, str] = {}
        self.current: dict[str, str | None] = {}
        self.legacy_endpoints: dict[str, str] = {}
        self.legacy_by_origin: dict[str, str] = {}
        self.anonymous = 0
        self.sse = 0

    def label(self, sid: str) -> str:
        label = self.labels.get(sid)
        if label is None:
            shown = sid if len(sid) <= 12 else sid[:6] + "…"
            label = f"mcp-session {shown}"
            if label in self.labels.values():
                label = f"{label} #{len(self.labels) + 1}"
            self.labels[sid] = label
        return label

    def assign(self, entry: _Entry) -> None:
        http = entry.http
        endpoint = http["origin"] + http["path"]
        announce = _endpoint_event(http) if http["method"] == "GET" and http["sse"] else None
        if announce is not None:
            self.sse += 1
            key = f"http+sse {self.sse}"
            target = urljoin(http["url"], (announce["data"] or "").strip())
            http["transport"], http["endpoint"] = "sse", target
            self.legacy_endpoints[target] = key
            self.legacy_by_origin[http["origin"]] = key
            entry.session = key
            return
        if http["url"] in self.legacy_endpoints:
            http["transport"] = "sse"
            entry.session = self.legacy_endpoints[http["url"]]
            return
        headers_sid = http["request_headers"].get("mcp-session-id")
        response_sid = http["response_headers"].get("mcp-session-id")
        modern = any(is_modern_value(v) for v in entry.sent) or (
            http["request_headers"].get("mcp-protocol-version", "") >= _MODERN_FLOOR)
        if headers_sid is None and response_sid is None and not modern and http["method"] == "POST" \
                and http["origin"] in self.legacy_by_origin and not self.current.get(endpoint):
            # a POST of the HTTP+SSE transport to another URL than the announced endpoint
            http["transport"] = "sse"
            entry.session = self.legacy_by_origin[http["origin"]]
            return
        if headers_sid:
            key: str | None = self.label(headers_sid)
        elif modern:
            key = None  # stateless, even when the server mints a session id (HM014)
        elif response_sid:
            key = self.label(response_sid)
        elif any(isinstance(v, dict) and v.get("method") == "initialize" for v in entry.sent):
            self.anonymous += 1
            key = f"http {self.anonymous}"
        else:
            key = self.current.get(endpoint)
        entry.session = key
        if not modern or key is not None:
            self.current[endpoint] = key


# -- arrival times -------------------------------------------------------------------------------
_INF = float("inf")


@dataclass(slots=True, eq=False)
class _Item:
    """One frame of an exchange, placed on the arrival timeline."""

    frame: Frame
    stream: int  # the exchange (index in the entry list): its frames keep their order
    value: Any = None  # the JSON-RPC value when the frame is a message
    key: float = 0.0  # where it sorts: when it arrived (estimated; raised by stream order and causes)
    lo: float = -_INF  # earliest possible arrival
    hi: float = _INF  # latest possible arrival
    server: bool = False
    estimated: bool = False  # the arrival was not measured, only bounded
    wants: tuple = ()  # ((cause, consumes), ...) see _wants
    offers: tuple = ()  # causes it is (see _offers)
    done: bool = False


def _arrivals(entry: _Entry, base: float) -> list[tuple[float | None, str | None, float, float, bool]]:
    """``(t, ts, lo, hi, estimated)`` of each received value: ``t`` its measured or estimated
    arrival (None when unknown), ``lo``/``hi`` its bounds; ``base``: when the request went out.

    Without chunk timing, a value arrived when the share of the receive time its first byte
    stands at had passed (the first at the first byte), except the response that completes a
    POST: the body ended with it.
    """
    http = entry.http
    ends, times = entry.chunks
    covered = ends[-1] if ends else 0
    first, last, res = http["first_byte"], http["ended"], entry.resolution
    final = len(entry.received) - 1
    stream = http["method"] == "GET" and http["sse"]  # long-lived: when each event came is unknown
    out: list[tuple[float | None, str | None, float, float, bool]] = []
    for position, ((begin, end), (event, value, _)) in enumerate(zip(entry.spans, entry.received, strict=True)):
        if end <= covered:  # the chunk that holds the value's end
            t, ts, precision = times[bisect_left(ends, end)]
            out.append((t, ts, t, t + precision, False))
            continue
        if first is None:  # no timings: some time after the request
            out.append((None, None, base, _INF, True))
            continue
        start, done = (times[-1][0], covered) if ends else (first, 0)
        stop = max(last if last is not None else start, start)
        if stream:
            out.append((None, None, start, stop + res, True))
        elif position == final and not http["aborted"] and isinstance(value, (dict, list)) and entry.sent \
                and all(isinstance(v, dict) and _is_response(v) for v in _listed(value)):
            out.append((stop, None, stop, stop + res, False))
        else:
            share = (max(begin, done) - done) / (entry.size - done) if entry.size > done else 0.0
            out.append((start + (stop - start) * share, None, start, stop + res, True))
    return out


def _listed(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def _items(values: Any) -> Iterator[dict]:
    for item in _listed(values):
        if isinstance(item, dict):
            yield item


def _is_response(item: dict) -> bool:
    return "method" not in item and "id" in item and ("result" in item or "error" in item)


def _wants(value: Any, server: bool, session: str | None) -> tuple:
    """The causes a message cannot come before: ``((cause, consumes), ...)``. A server response
    needs the request it answers (one answer per request), progress the request with its token; a
    client response needs the server request, a retried request the ``requestState`` it carries."""
    out = []
    for item in _items(value):
        if _is_response(item):
            out.append((("request" if server else "server request", session, id_key(item["id"])), True))
            continue
        params = item.get("params")
        if not isinstance(params, dict):
            continue
        if server and item.get("method") == "notifications/progress" and "progressToken" in params:
            out.append((("token", session, id_key(params["progressToken"])), False))
        elif not server and isinstance(params.get("requestState"), str):
            out.append((("state", session, params["requestState"]), False))
    return tuple(out)


def _offers(value: Any, server: bool, session: str | None) -> tuple:
    """The causes a message is (see :func:`_wants`); a client response is also the ``answer`` a
    stream without measured times waits for after its server request."""
    out = []
    for item in _items(value):
        if isinstance(item.get("method"), str) and "id" in item:
            out.append(("server request" if server else "request", session, id_key(item["id"])))
            params = item.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            if not server and isinstance(meta, dict) and "progressToken" in meta:
                out.append(("token", session, id_key(meta["progressToken"])))
        elif _is_response(item):
            result = item.get("result")
            if not server:
                out.append(("answer", session, id_key(item["id"])))
            elif isinstance(result, dict) and isinstance(result.get("requestState"), str):
                out.append(("state", session, result["requestState"]))
    return tuple(out)


class _Timeline:
    """Merges the exchanges' frames by arrival (see the module docstring).

    Each exchange is a stream whose own order holds; the next frame of every stream competes by
    ``key``, a server message first on a tie (a client acts on what it got). A frame waits while a
    cause it wants may still come: a frame offering it, not yet placed, that could have arrived
    before this one's latest arrival. After a server request from a stream without measured times,
    its next estimated frames also wait for the client's answer (the server usually did).
    """

    def __init__(self, streams: list[list[_Item]]):
        self.streams = streams
        self.offered: dict[tuple, list[_Item]] = {}
        for items in streams:
            for item in items:
                for cause in item.offers:
                    self.offered.setdefault(cause, []).append(item)
        self.sent: Counter = Counter()
        self.position = [0] * len(streams)
        self.gates: dict[int, tuple] = {}  # stream -> the client answer it waits for
        self.ready: list[tuple[float, bool, int, int]] = []
        self.waiting: dict[tuple, list[int]] = {}  # cause -> streams whose next frame waits for it

    def _pending(self, cause: tuple, item: _Item) -> bool:
        if self.sent[cause] > 0:
            return False
        return any(not other.done and other.lo <= item.hi + _CLOCK_SLACK for other in self.offered.get(cause, ()))

    def _blocker(self, stream: int, item: _Item) -> tuple | None:
        gate = self.gates.get(stream)
        if gate is not None:
            if item.estimated and self._pending(gate, item):
                return gate
            del self.gates[stream]
        for cause, _ in item.wants:
            if self._pending(cause, item):
                return cause
        return None

    def _place(self, stream: int, force: bool = False) -> None:
        at = self.position[stream]
        item = self.streams[stream][at]
        cause = None if force else self._blocker(stream, item)
        if cause is None:
            heapq.heappush(self.ready, (item.key, not item.server, stream, at))
        else:
            self.waiting.setdefault(cause, []).append(stream)

    def _next(self, stream: int) -> None:
        items, at = self.streams[stream], self.position[stream]
        if at < len(items):
            if at:
                item, before = items[at], items[at - 1]
                item.key, item.lo = max(item.key, before.key), max(item.lo, before.lo)
            self._place(stream)

    def _unblock(self) -> None:
        """Every next frame waits for another: the earliest goes anyway."""
        stream = min((s for streams in self.waiting.values() for s in streams),
                     key=lambda s: (self.streams[s][self.position[s]].key, s))
        for cause, streams in list(self.waiting.items()):
            if stream in streams:
                streams.remove(stream)
                if not streams:
                    del self.waiting[cause]
        self._place(stream, force=True)

    def order(self) -> Iterator[_Item]:
        for stream in range(len(self.streams)):
            self._next(stream)
        while self.ready or self.waiting:
            if not self.ready:
                self._unblock()
                continue
            _, _, stream, at = heapq.heappop(self.ready)
            item = self.streams[stream][at]
            item.done = True
            for cause, consumes in item.wants:
                if consumes and self.sent[cause] > 0:
                    self.sent[cause] -= 1
            for cause in item.offers:
                self.sent[cause] += 1
                for other in self.waiting.pop(cause, ()):
                    self._follow(self.streams[other][self.position[other]], item)
                    self._place(other)
            value = item.value
            if item.server and item.estimated and isinstance(value, dict) and isinstance(value.get("method"), str) \
                    and "id" in value:
                gate = ("answer", item.frame.session, id_key(value["id"]))
                if gate in self.offered:
                    self.gates[stream] = gate
            self.position[stream] += 1
            self._next(stream)
            yield item

    @staticmethod
    def _follow(item: _Item, cause: _Item) -> None:
        """``item`` waited for ``cause``: it came later."""
        item.key, item.lo = max(item.key, cause.key), max(item.lo, cause.lo)
        frame, t = item.frame, cause.frame.t
        if frame.t is not None and t is not None and t > frame.t:
            frame.t, frame.ts = t, _iso(t)


def _mark_uncertain(items: list[_Item]) -> None:
    """Flag the messages whose possible arrival overlaps that of a message of another exchange of
    their session: the HAR cannot tell which came first."""
    groups: dict[str | None, list[_Item]] = {}
    for item in items:
        if item.value is not None:
            groups.setdefault(item.frame.session, []).append(item)
    for group in groups.values():
        group.sort(key=lambda item: (item.lo, item.hi))  # an instant before spans that start with it
        _sweep(group, lambda item: item.hi, lambda a, b: a > b, lambda hi, item: hi > item.lo)
        _sweep(reversed(group), lambda item: item.lo, lambda a, b: a < b, lambda lo, item: lo < item.hi)


def _sweep(items: Iterable[_Item], far, better, overlaps) -> None:
    """Flag each item that ``overlaps`` the farthest reach (``far``) of an item before it in
    ``items`` from another stream: the best two reaches of distinct streams are kept."""
    best: tuple[float, int] | None = None
    second: tuple[float, int] | None = None
    for item in items:
        other = best if best is None or best[1] != item.stream else second
        if other is not None and overlaps(other[0], item):
            item.frame.flags = item.frame.flags | _UNCERTAIN
        reach = far(item)
        if best is None or better(reach, best[0]):
            if best is not None and best[1] != item.stream:
                second = best
            best = (reach, item.stream)
        elif item.stream != best[1] and (second is None or better(reach, second[0])):
            second = (reach, item.stream)


# -- frames ---------------------------------------------------------------------------------------
def _summary(http: dict) -> str:
    status = http["status"]
    answer = f"{status} {http['status_text']}".strip() if status is not None else "no response"
    if http["error"]:
        answer += f" ({http['error']})"
    return f"entry {http['entry']}: {http['method']} {http['url']} → {answer}"


def _pairing(entry: _Entry) -> tuple[int, Any] | None:
    """``(position, id)`` when the exchange ties an error without an id (null or absent) to its
    request: the POST carried exactly one request (a 2025-03-26 batch may add notifications and
    responses), and its response, not a ``202``, holds exactly one such error and no response
    naming the request's id. Over HTTP that response is the request's answer channel, so the error
    answers the request (the analyzer reads the ``answers_id`` fact of the error's frame)."""
    http = entry.http
    if http["method"] != "POST" or http["status"] in (None, 202):
        return None
    requests = [item for value in entry.sent for item in _items(value)
                if isinstance(item.get("method"), str) and "id" in item]
    if len(requests) != 1 or requests[0]["id"] is None:
        return None
    wanted = id_key(requests[0]["id"])
    found = None
    for position, (_, value, _) in enumerate(entry.received):
        for item in _items(value):
            if "method" in item or ("result" not in item and "error" not in item):
                continue
            if item.get("id") is not None:
                if id_key(item["id"]) == wanted:
                    return None  # answered by its id
            elif "error" in item:
                if found is not None:
                    return None  # which one answers it?
                found = (position, requests[0]["id"])
    return found


def _stream(entry: _Entry, stream: int, sent: float) -> list[_Item]:
    """The frames of one exchange, in their order, placed on the timeline; ``sent``: the key of
    the request (when it started, or the previous request's for an entry without times)."""
    http = entry.http
    session = entry.session
    common = {"session": session, "transport": "http"}
    t, ts = entry.started, entry.ts
    lo = t if t is not None else sent
    items: list[_Item] = []
    if entry.delivered:
        request_http = {**http, "role": "request"}
        if entry.body_error is not None:
            frame = Frame(entry.line, http["request_body"] or "", direction=Direction.C2S, kind=Kind.MALFORMED,
                          error=f"{http['method']} body is not JSON: {entry.body_error}", t=t, ts=ts,
                          http=request_http, **common)
            items.append(_Item(frame, stream, key=sent, lo=lo, hi=sent))
        for value in entry.sent:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":")) if len(entry.sent) > 1 \
                else (http["request_body"] or "").strip()
            frame = Frame(entry.line, text, direction=Direction.C2S, msg=value, t=t, ts=ts, http=request_http,
                          **common)
            items.append(_Item(frame, stream, value, key=sent, lo=lo, hi=sent, wants=_wants(value, False, session),
                               offers=_offers(value, False, session)))
    exchange = Frame(entry.line, _summary(http), kind=Kind.COMMENT, observed=False, t=t, ts=ts, http=http, **common)
    items.append(_Item(exchange, stream, key=sent, lo=lo, hi=sent))
    paired = _pairing(entry)
    for position, ((event, value, error), (when, stamp, low, high, estimated)) in enumerate(
            zip(entry.received, _arrivals(entry, sent), strict=True)):
        facts = {**http, "role": "response"}
        if paired is not None and paired[0] == position:
            facts["answers_id"] = paired[1]
        if event is not None:
            facts.update(sse_event_id=event["id"], sse_event=event["event"], sse_index=event["index"])
            data = event["data"] or ""
        else:
            data = (http["response_body"] or "").strip()
        moment = {"t": when, "ts": stamp or _iso(when)}
        if value is None:
            frame = Frame(entry.line, data, direction=Direction.S2C, kind=Kind.MALFORMED,
                          error=f"server message is not JSON: {error}", http=facts, **moment, **common)
        else:
            frame = Frame(entry.line, data, direction=Direction.S2C, msg=value, http=facts, **moment, **common)
        items.append(_Item(frame, stream, value, key=when if when is not None else low, lo=low, hi=high, server=True,
                           estimated=estimated, wants=_wants(value, True, session),
                           offers=_offers(value, True, session)))
    return items


def read_har(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    """Frames of a HAR document (see the module docstring)."""
    texts: list[str] = []
    cut: dict[int, Any] = {}  # line -> lines.Cut of the lines too long to read (IO013)
    for number, (data, too_long) in enumerate(lines, 1):
        text, _ = decode_line(data)
        texts.append(text)
        if too_long:
            cut[number] = too_long
    if not texts:
        return
    joined = "\n".join(texts)
    starts = [0]
    for text in texts[:-1]:
        starts.append(starts[-1] + len(text) + 1)

    def line_of(pos: int) -> int:
        return bisect_right(starts, pos)

    located, error, found = locate_entries(joined)
    if not found and error is None:
        error = HarError('not a HAR document: no "log" object with an "entries" array', 0)
    entries: list[_Entry] = []
    bad: dict[int, list[str]] = {}
    for index, (offset, raw) in enumerate(located, 1):
        if isinstance(raw, dict) and isinstance(raw.get("request"), dict):
            entries.append(_entry(index, line_of(offset), raw))
        else:
            bad.setdefault(line_of(offset), []).append(f"HAR entry {index} is not an object with a request")
    del located  # the parsed document: what the entries need was copied out
    sessions = _Sessions()
    for entry in entries:
        sessions.assign(entry)
    error_line = line_of(error.pos) if error is not None else None
    if cut and error_line is not None and error_line >= min(cut):
        error_line = None  # the document breaks off at a line too long to read: IO013 says so

    streams: list[list[_Item]] = []
    sent = -_INF
    for stream, entry in enumerate(entries):
        if entry.started is not None:
            sent = entry.started + entry.resolution  # the latest it can have gone out
        streams.append(_stream(entry, stream, sent))
    ordered = list(_Timeline(streams).order())
    _mark_uncertain(ordered)

    entry_lines = {entry.line for entry in entries}
    session_at = None if not entries else entries[0].session
    done = 0  # lines accounted for

    def lines_before(end: int) -> Iterator[Frame]:
        """The lines before ``end`` that no entry's records stand for."""
        nonlocal done
        while done + 1 < end:
            done += 1
            text, emitted = texts[done - 1], done in entry_lines
            if done in cut:
                yield oversized_frame(done, text, cut[done], session=session_at, transport="http")
                emitted = True
            for message in bad.get(done, ()):
                yield Frame(done, text, kind=Kind.MALFORMED, flags=frozenset({"envelope"}), error=message,
                            session=session_at, transport="http", observed=False)
                emitted = True
            if done == error_line:
                yield Frame(done, text, kind=Kind.MALFORMED, flags=frozenset({"envelope"}),
                            error=f"unreadable HAR document: {error}", session=session_at, transport="http",
                            observed=False)
                emitted = True
            if not emitted:
                yield Frame(done, text, kind=Kind.COMMENT, observed=False, session=session_at, transport="http")

    begun: set[int] = set()
    for item in ordered:
        if item.stream not in begun:
            begun.add(item.stream)
            entry = entries[item.stream]
            yield from lines_before(entry.line)
            session_at = entry.session
        yield item.frame
    yield from lines_before(len(texts) + 1)


def exchange_frame(line: int, raw: Any, index: Any, legacy: Any = None, **common: Any) -> Frame | None:
    """The exchange record of a canonical capture's ``http`` note (``mcplint capture --http``
    writes the HAR entry of each exchange when it ends): the facts the HTTP rules judge, as a HAR
    of the same traffic gives them. ``legacy``: the exchange belongs to the HTTP+SSE transport
    (the endpoint URL its GET stream announced, or true for a POST to it). None when ``raw`` is no
    HAR entry."""
    if not isinstance(raw, dict) or not isinstance(raw.get("request"), dict):
        return None
    entry = _entry(index if isinstance(index, int) and not isinstance(index, bool) else 0, line, raw)
    if legacy:
        entry.http["transport"] = "sse"
        if isinstance(legacy, str):
            entry.http["endpoint"] = legacy
    return Frame(line, _summary(entry.http), kind=Kind.COMMENT, observed=False, http=entry.http, transport="http",
                 **common)


#: The facts worth keeping when a record leaves mcplint (``mcplint convert``): where it travelled.
SUMMARY_KEYS = ("entry", "method", "url", "status", "content_type", "stream", "sse_event_id", "sse_event")


def http_summary(http: dict | None) -> dict | None:
    """A small copy of a record's HTTP facts (no bodies, no headers, so no credentials)."""
    if http is None:
        return None
    return {key: http[key] for key in SUMMARY_KEYS if http.get(key) is not None}


def _sniff_har(head: list[str]) -> int:
    text = "\n".join(head)
    if not _HEAD.match(text):
        return 0
    if '"entries"' in text or '"creator"' in text or '"version"' in text or len(head) < 3:
        return 96
    return 60


HAR = register_format(InputFormat("har", read_har, _sniff_har,
                                  "HAR 1.2 HTTP archive of MCP over Streamable HTTP or HTTP+SSE"))

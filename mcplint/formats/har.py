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

Order: a HAR lists entries by start time, but a stream's events arrive while later requests are
made (all responses of the HTTP+SSE transport travel on the GET stream opened first). Server
messages are therefore released in stream order as early as their causes allow: a response after
the request it answers, a progress notification after the request that carries its token.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from bisect import bisect_right
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

from mcplint import protocol
from mcplint.model import Direction, Kind, id_key
from mcplint.parse import Frame, decode_line
from mcplint.readers import InputFormat, parse_ts, register_format

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")
_SSE_LINE = re.compile(r"\r\n|\r|\n")
_HEAD = re.compile(r'^\s*\{\s*"log"\s*:\s*\{')
_MODERN_FLOOR = protocol.V2026_07_28
#: HAR times have millisecond precision: a message is "after" the next request only beyond this.
_CLOCK_SLACK = 0.002


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


def _body(container: Any) -> tuple[str | None, bool]:
    """``(text, recorded)`` of ``request.postData`` / ``response.content``."""
    if not isinstance(container, dict):
        return None, True
    text = container.get("text")
    if not isinstance(text, str):
        size = container.get("size")
        return None, not (isinstance(size, int) and size > 0)
    if container.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=False).decode("utf-8", "replace"), True
        except (ValueError, TypeError):
            return text, True
    return text, True


def parse_sse(text: str) -> list[dict[str, Any]]:
    """SSE events (WHATWG parsing): ``{"id", "event", "data", "retry", "complete", "index"}``.

    ``data`` is None when the block had no data field (an ``id:``-only or ``retry:``-only block);
    ``id`` is None when the block set no id. A block not followed by a blank line (a cut stream)
    is kept with ``complete`` False.
    """
    events: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    data: list[str] | None = None

    def dispatch(complete: bool) -> None:
        nonlocal current, data
        if current or data is not None:
            event = {"id": current.get("id"), "event": current.get("event") or "message",
                     "data": None if data is None else "\n".join(data), "retry": current.get("retry"),
                     "complete": complete, "index": len(events), "comment": current.get("comment")}
            events.append(event)
        current, data = {}, None

    lines = _SSE_LINE.split(text)
    if lines and lines[-1] == "":
        lines.pop()
        ended = True
    else:
        ended = False
    for line in lines:
        if line == "":
            dispatch(True)
            continue
        if line.startswith(":"):
            current.setdefault("comment", line[1:].strip())
            continue
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
    dispatch(ended and text.endswith(("\n\n", "\r\n\r\n", "\r\r")))
    return [e for e in events if e["data"] is not None or e["id"] is not None or e["retry"] is not None
            or e["event"] != "message"]


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    return datetime.fromtimestamp(t, tz=UTC).isoformat().replace("+00:00", "Z")


def _ms(value: Any) -> float:
    return float(value) / 1000 if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0.0


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
    req_body, _ = _body(post)
    resp_body, recorded = _body(content)
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
                   if isinstance(raw.get("startedDateTime"), str) else None)
    if req_body is not None and req_body.strip():
        entry.sent, entry.body_error = _json_values(req_body)
    http["sent"] = entry.sent
    http["body_error"] = entry.body_error
    if resp_body is not None:
        if http["sse"]:
            http["events"] = parse_sse(resp_body)
            for event in http["events"]:
                data = event["data"]
                if data is None or not data.strip() or event["event"] == "endpoint":
                    continue
                values, err = _json_values(data)
                if err is not None or len(values) != 1:
                    entry.received.append((event, None, err or f"{len(values)} JSON values in one event"))
                else:
                    entry.received.append((event, values[0], None))
        elif resp_body.strip():
            # a JSON body that is no JSON-RPC message ({"status": "ok"} for a notification) is an
            # HTTP fact (HT004/HT005), not a message; broken JSON in a JSON answer is reported
            values, err = _json_values(resp_body)
            is_json = content_type is not None and (content_type == "application/json" or content_type.endswith("+json"))
            if err is None and len(values) == 1 and _looks_jsonrpc(values[0]):
                entry.received.append((None, values[0], None))
            elif err is not None and is_json and status is not None and 200 <= status < 300:
                entry.received.append((None, None, err))
    http["received"] = [value for _, value, _ in entry.received]
    # the HTTP layer refused the request: its messages were never processed
    refused = status is not None and status >= 300 and not any(v is not None and _looks_jsonrpc(v)
                                                                for _, v, _ in entry.received)
    entry.delivered = not refused
    http["delivered"] = entry.delivered
    return entry


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


# -- ordering of server messages -----------------------------------------------------------------
def _client_keys(values: Iterable[Any]) -> Iterator[tuple[str, Any]]:
    """What client messages make possible: responses to their requests (``id``), progress on
    their tokens (``token``), the rest of a stream that waited for their answer (``answer``)."""
    for value in values:
        for item in (value if isinstance(value, list) else (value,)):
            if not isinstance(item, dict):
                continue
            if "method" not in item and "id" in item and ("result" in item or "error" in item):
                yield "answer", id_key(item["id"])
                continue
            if isinstance(item.get("method"), str) and "id" in item:
                yield "id", id_key(item["id"])
                params = item.get("params")
                meta = params.get("_meta") if isinstance(params, dict) else None
                if isinstance(meta, dict) and "progressToken" in meta:
                    yield "token", id_key(meta["progressToken"])


def _needs(value: Any) -> tuple[str, Any] | None:
    """What a server message waits for: the client request it answers or reports progress on."""
    if not isinstance(value, dict):
        return None
    if "method" not in value and "id" in value and ("result" in value or "error" in value):
        return "id", id_key(value["id"])
    if value.get("method") == "notifications/progress":
        params = value.get("params")
        if isinstance(params, dict) and "progressToken" in params:
            return "token", id_key(params["progressToken"])
    return None


class _Scheduler:
    """Releases server messages in stream order once what they answer has been sent.

    A stream also waits, after a server request, for the client's answer to it when the HAR holds
    one (the server's next messages usually depend on it: a tool call completes once the
    elicitation it asked for was answered).
    """

    def __init__(self, entries: list[_Entry]):
        self.future: Counter = Counter()
        for entry in entries:
            if entry.delivered:
                for kind, key in _client_keys(entry.sent):
                    self.future[(entry.session, kind, key)] += 1
        self.sent: Counter = Counter()
        self.queues: list[deque[tuple[Frame, Any]]] = []
        self.gates: dict[int, tuple] = {}  # id(queue) -> the client answer it waits for

    def client_sent(self, entry: _Entry) -> None:
        if not entry.delivered:
            return
        for kind, key in _client_keys(entry.sent):
            self.future[(entry.session, kind, key)] -= 1
            self.sent[(entry.session, kind, key)] += 1

    def ready(self, frame: Frame, value: Any) -> bool:
        need = _needs(value)
        if need is None:
            return True
        key = (frame.session, *need)
        return self.sent[key] > 0 or self.future[key] <= 0

    def take(self, frame: Frame, value: Any, queue: deque | None = None) -> Frame:
        need = _needs(value)
        if need is not None and need[0] == "id" and self.sent[(frame.session, *need)] > 0:
            self.sent[(frame.session, *need)] -= 1
        if queue is not None and isinstance(value, dict) and isinstance(value.get("method"), str) and "id" in value:
            gate = (frame.session, "answer", id_key(value["id"]))
            if self.future[gate] > 0:
                self.gates[id(queue)] = gate
        return frame

    def _open(self, queue: deque) -> bool:
        gate = self.gates.get(id(queue))
        if gate is None:
            return True
        if self.sent[gate] > 0 or self.future[gate] <= 0:
            del self.gates[id(queue)]
            return True
        return False

    def release(self, horizon: float | None = None) -> Iterator[Frame]:
        """Release what is ready, earliest first; a message that arrived after ``horizon`` (the
        start of the next request in the HAR) waits for that request."""
        while True:
            best = None
            for position, queue in enumerate(self.queues):
                if not queue or not self._open(queue) or not self.ready(*queue[0]):
                    continue
                t = queue[0][0].t
                if t is not None and horizon is not None and t > horizon + _CLOCK_SLACK:
                    continue
                rank = (t if t is not None else float("-inf"), position)
                if best is None or rank < best[0]:
                    best = (rank, queue)
            if best is None:
                break
            queue = best[1]
            yield self.take(*queue.popleft(), queue)
        self.queues = [q for q in self.queues if q]

    def release_state(self, session: str | None, state: str) -> Iterator[Frame]:
        """Force out the InputRequiredResult whose ``requestState`` a retried request carries."""
        for queue in self.queues:
            for position, (frame, value) in enumerate(queue):
                result = value.get("result") if isinstance(value, dict) else None
                if isinstance(result, dict) and result.get("requestState") == state and frame.session == session:
                    for _ in range(position + 1):
                        yield self.take(*queue.popleft())
                    return

    def release_request(self, session: str | None, request_id: Any) -> Iterator[Frame]:
        """Force out the server request a client response answers (and what precedes it)."""
        key = id_key(request_id)
        for queue in self.queues:
            for position, (_, value) in enumerate(queue):
                if isinstance(value, dict) and "method" in value and "id" in value \
                        and id_key(value["id"]) == key and queue[position][0].session == session:
                    for _ in range(position + 1):
                        yield self.take(*queue.popleft())
                    return

    def drain(self) -> Iterator[Frame]:
        for queue in self.queues:
            while queue:
                yield self.take(*queue.popleft())
        self.queues = []
        self.gates.clear()


# -- frames ---------------------------------------------------------------------------------------
def _summary(http: dict) -> str:
    status = http["status"]
    answer = f"{status} {http['status_text']}".strip() if status is not None else "no response"
    if http["error"]:
        answer += f" ({http['error']})"
    return f"entry {http['entry']}: {http['method']} {http['url']} → {answer}"


def _frames_of(entry: _Entry, scheduler: _Scheduler) -> Iterator[Frame]:
    http = entry.http
    common = {"session": entry.session, "transport": "http"}
    t, ts = entry.started, entry.ts
    if entry.delivered:
        request_http = {**http, "role": "request"}
        if entry.body_error is not None:
            yield Frame(entry.line, http["request_body"] or "", direction=Direction.C2S, kind=Kind.MALFORMED,
                        error=f"{http['method']} body is not JSON: {entry.body_error}", t=t, ts=ts,
                        http=request_http, **common)
        for value in entry.sent:
            for item in (value if isinstance(value, list) else (value,)):
                if isinstance(item, dict) and "method" not in item and "id" in item:
                    yield from scheduler.release_request(entry.session, item["id"])
                params = item.get("params") if isinstance(item, dict) else None
                if isinstance(params, dict) and isinstance(params.get("requestState"), str):
                    yield from scheduler.release_state(entry.session, params["requestState"])
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":")) if len(entry.sent) > 1 \
                else (http["request_body"] or "").strip()
            yield Frame(entry.line, text, direction=Direction.C2S, msg=value, t=t, ts=ts,
                        http=request_http, **common)
        scheduler.client_sent(entry)
    yield Frame(entry.line, _summary(http), kind=Kind.COMMENT, observed=False, t=t, ts=ts, http=http, **common)
    if not entry.received:
        return
    queue: deque[tuple[Frame, Any]] = deque()
    last = len(entry.received) - 1
    for position, (event, value, error) in enumerate(entry.received):
        if http["method"] == "GET":
            when = None  # a long-lived stream: when each event came is unknown
        else:
            when = http["ended"] if position == last or event is None else http["first_byte"]
        facts = {**http, "role": "response"}
        if event is not None:
            facts.update(sse_event_id=event["id"], sse_event=event["event"], sse_index=event["index"])
            data = event["data"] or ""
        else:
            data = (http["response_body"] or "").strip()
        moment = {"t": when, "ts": _iso(when) if when is not None else None}
        if value is None:
            frame = Frame(entry.line, data, direction=Direction.S2C, kind=Kind.MALFORMED,
                          error=f"server message is not JSON: {error}", http=facts, **moment, **common)
        else:
            frame = Frame(entry.line, data, direction=Direction.S2C, msg=value, http=facts, **moment, **common)
        queue.append((frame, value))
    scheduler.queues.append(queue)


def read_har(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    """Frames of a HAR document (see the module docstring)."""
    texts: list[str] = []
    oversized = False
    for data, cut in lines:
        text, _ = decode_line(data)
        texts.append(text)
        oversized = oversized or cut
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
    sessions = _Sessions()
    for entry in entries:
        sessions.assign(entry)
    scheduler = _Scheduler(entries)
    error_line = line_of(error.pos) if error is not None else None
    if oversized and error is not None:
        error = HarError(f"a line is longer than the reader's limit; {error}", error.pos)

    by_line: dict[int, list[_Entry]] = {}
    for entry in entries:
        by_line.setdefault(entry.line, []).append(entry)
    horizons = {id(entry): after.started for entry, after in itertools.pairwise(entries)}
    session_at = None if not entries else entries[0].session
    for number in range(1, len(texts) + 1):
        text = texts[number - 1]
        emitted = False
        for entry in by_line.get(number, ()):
            session_at = entry.session
            yield from _frames_of(entry, scheduler)
            yield from scheduler.release(horizons.get(id(entry)))
            emitted = True
        for message in bad.get(number, ()):
            yield Frame(number, text, kind=Kind.MALFORMED, flags=frozenset({"envelope"}), error=message,
                        session=session_at, transport="http", observed=False)
            emitted = True
        if number == error_line:
            yield from scheduler.drain()
            yield Frame(number, text, kind=Kind.MALFORMED, flags=frozenset({"envelope"}),
                        error=f"unreadable HAR document: {error}", session=session_at, transport="http",
                        observed=False)
            emitted = True
        if not emitted:
            yield Frame(number, text, kind=Kind.COMMENT, observed=False, session=session_at, transport="http")
    yield from scheduler.drain()


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

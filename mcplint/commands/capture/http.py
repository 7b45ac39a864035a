"""``mcplint capture --http``: a recording reverse proxy for MCP over Streamable HTTP (and the
2024-11-05 HTTP+SSE transport).

The host is pointed at ``http://127.0.0.1:PORT/...`` instead of the server's URL. A request to the
root path goes to the ``--upstream`` URL itself; any other path goes to that path on the upstream's
origin (so ``/mcp`` and the ``/messages/?session_id=...`` endpoint of an HTTP+SSE server work).
Requests and answers are relayed unchanged: method, headers, status, body bytes, SSE chunks as
they arrive (each is recorded, then forwarded; nothing waits for the end of a stream), GET
streams, ``Last-Event-ID``, DELETE, 202s, 4xx/5xx and ``WWW-Authenticate``. Hop-by-hop headers are
not forwarded, and neither is ``Accept-Encoding``: the upstream answers uncompressed, so what is
recorded is readable. An upstream that cannot be reached gets the host a 502, recorded as such.

Two outputs, which lint alike:

- the canonical capture (default): the JSON-RPC messages as ``c2s``/``s2c`` records in the order
  the proxy saw them (an SSE event when its last byte arrived), each with ``"transport": "http"``
  and the ``http`` summary of :func:`mcplint.input.formats.har.http_summary` (exchange number, method,
  URL, status, content type, SSE event id and type), plus one ``meta`` record per exchange
  (``event: "http"``); no headers, so no credentials. Sessions are labelled ``http N`` by
  ``Mcp-Session-Id`` (never the id itself), as the HAR reader groups them;
- HAR 1.2 (``-o x.har``): every exchange with headers and bodies, and ``response._chunks`` (each
  body chunk's arrival time, microseconds, and size), written when the proxy stops.

``--redact`` redacts what is written (the engine of ``mcplint redact``), never what is relayed.
``--lint`` lints the canonical records as they are made, in a child process (as stdio capture).
"""

from __future__ import annotations

import codecs
import io
import ipaddress
import json
import os
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

from mcplint import __version__
from mcplint.commands.capture.stdio import LiveLinter, Recorder, redactor
from mcplint.input.formats.har import SUMMARY_KEYS, media_type, parse_sse
from mcplint.untrusted import shown

#: Not forwarded (RFC 9110 hop-by-hop, lengths the server recomputes, and compression).
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "proxy-authenticate", "te", "trailer",
                        "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding"})
EXTRA = "http"
MISSING = (f"mcplint capture --http needs the HTTP stack of the '{EXTRA}' extra: "
           f"pip install 'mcplint[{EXTRA}]'")
_EOL = re.compile(r"\r\n|\r|\n")
_CONNECT_TIMEOUT = 10.0
#: The canonical capture's exchange notes keep answers up to this size (the messages are records
#: of their own; beyond it the HTTP rules see the exchange without its body, as a HAR that omits it).
EXCHANGE_BODY_LIMIT = 1 << 20


class ProxyError(ValueError):
    """A bad --listen or --upstream, or a missing HTTP stack (one line for the user)."""


def http_stack() -> tuple[Any, Any]:
    """``(httpx2, uvicorn)``, imported on first use (``mcplint check`` never pays for them)."""
    try:
        import httpx2
        import uvicorn
    except ImportError:
        raise ProxyError(MISSING) from None
    return httpx2, uvicorn


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT``; a bare port means loopback) as ``(host, port)``."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise ProxyError(f"--listen {text!r}: expected HOST:PORT (port 0-65535)")
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_upstream(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProxyError(f"--upstream {url!r}: expected an http:// or https:// URL")
    return url


# -- the SSE events of a stream, as they complete --------------------------------------------
class SseEvents:
    """Feed a stream's bytes; get each SSE event once its blank line has arrived."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pieces: list[str] = []

    def feed(self, data: bytes, final: bool = False) -> list[dict[str, Any]]:
        text = self._decoder.decode(data, final)
        if text:
            self._pieces.append(text)
        if not final and "\n" not in text and "\r" not in text:
            return []
        buffer = "".join(self._pieces)
        end = len(buffer) - 1 if buffer.endswith("\r") and not final else len(buffer)  # maybe half a CRLF
        cut = line = 0
        for match in _EOL.finditer(buffer, 0, end):
            if match.start() == line:
                cut = match.end()
            line = match.end()
        if final:
            cut = len(buffer)
        self._pieces = [buffer[cut:]] if cut < len(buffer) else []
        return parse_sse(buffer[:cut]) if cut else []


# -- one exchange -------------------------------------------------------------------------------
@dataclass(eq=False)
class Exchange:
    """What the proxy saw of one request and its answer."""

    index: int
    started: float
    method: str
    url: str
    http_version: str
    request_headers: list[tuple[str, str]]
    body: bytes
    status: int = 0
    reason: str = ""
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    first_byte: float | None = None
    ended: float | None = None
    chunks: list[tuple[datetime, bytes]] = field(default_factory=list)
    size: int = 0
    error: str | None = None
    session: str | None = None
    sse: SseEvents | None = None
    held: list[str] = field(default_factory=list)  # request messages not written yet
    released: bool = False  # its request messages were written (or refused)
    noted: bool = False  # its exchange note was written
    finished: bool = False  # its end was recorded
    legacy: str | bool = False  # HTTP+SSE (2024-11-05): the endpoint its GET stream announced, or True for a POST to it
    answer: list[bytes] = field(default_factory=list)  # a non-SSE body, for the canonical record

    def header(self, name: str, response: bool = False) -> str | None:
        for key, value in self.response_headers if response else self.request_headers:
            if key.lower() == name:
                return value
        return None

    @property
    def content_type(self) -> str | None:
        return media_type(self.header("content-type", response=True))

    def summary(self, **more: Any) -> dict[str, Any]:
        facts = {"entry": self.index, "method": self.method, "url": self.url, "status": self.status or None,
                 "content_type": self.content_type, "stream": self.method.lower(), **more}
        return {key: facts[key] for key in SUMMARY_KEYS if facts.get(key) is not None}


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, tz=UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _pairs(items: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in items]


def har_entry(ex: Exchange) -> dict[str, Any]:
    """The HAR 1.2 entry of an exchange (``response._chunks``: arrival time and size of each chunk)."""
    data = b"".join(chunk for _, chunk in ex.chunks)
    kept = len(data) == ex.size
    query = urlsplit(ex.url).query
    request: dict[str, Any] = {
        "method": ex.method, "url": ex.url, "httpVersion": f"HTTP/{ex.http_version}",
        "headers": _pairs(ex.request_headers), "cookies": [], "headersSize": -1, "bodySize": len(ex.body),
        "queryString": [{"name": k, "value": v} for k, _, v in (p.partition("=") for p in query.split("&") if p)]}
    if ex.body:
        request["postData"] = {"mimeType": ex.header("content-type") or "",
                               "text": ex.body.decode("utf-8", "replace")}
    content: dict[str, Any] = {"size": ex.size, "mimeType": ex.header("content-type", response=True) or ""}
    if data and kept:
        content["text"] = data.decode("utf-8", "replace")
    response: dict[str, Any] = {
        "status": ex.status, "statusText": ex.reason, "httpVersion": "HTTP/1.1",
        "headers": _pairs(ex.response_headers), "cookies": [], "content": content, "redirectURL": "",
        "headersSize": -1, "bodySize": ex.size,
        "_chunks": [{"ts": t.isoformat(timespec="microseconds").replace("+00:00", "Z"), "size": len(chunk)}
                    for t, chunk in ex.chunks] if kept else []}
    if ex.error:
        response["_error"] = ex.error
    ended = ex.ended if ex.ended is not None else time.time()
    first = ex.first_byte if ex.first_byte is not None else ended
    wait, total = max(first - ex.started, 0) * 1000, max(ended - ex.started, 0) * 1000
    return {"startedDateTime": _iso(ex.started), "time": round(total, 3), "request": request, "response": response,
            "cache": {}, "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": round(wait, 3),
                                     "receive": round(total - wait, 3)}}


# -- what is written ----------------------------------------------------------------------------
class Sessions:
    """Session labels as the HAR reader assigns them: by ``Mcp-Session-Id`` (request, else the
    answer's), an HTTP+SSE stream and the endpoint it announced, stateless 2026-07-28 requests none."""

    def __init__(self) -> None:
        self.labels: dict[str, str] = {}
        self.current: dict[str, str | None] = {}
        self.legacy: dict[str, str] = {}

    def _label(self, sid: str) -> str:
        return self.labels.setdefault(sid, f"http {len(self.labels) + 1}")

    def assign(self, ex: Exchange, values: list[Any]) -> str | None:
        endpoint = ex.url.partition("?")[0]
        if ex.url in self.legacy:
            ex.legacy = True
            return self.legacy[ex.url]
        sid = ex.header("mcp-session-id") or ex.header("mcp-session-id", response=True)
        modern = (ex.header("mcp-protocol-version") or "") >= "2026-07-28"
        if sid and not (modern and not ex.header("mcp-session-id")):
            key: str | None = self._label(sid)
        elif modern:
            return None
        elif any(isinstance(v, dict) and v.get("method") == "initialize" for v in values):
            key = f"http {len(self.labels) + 1}"
            self.labels[f"anonymous {key}"] = key
        else:
            key = self.current.get(endpoint)
        self.current[endpoint] = key
        return key

    def announce(self, ex: Exchange, target: str) -> str:
        key = f"http+sse {len(self.legacy) + 1}"
        ex.legacy = urljoin(ex.url, target.strip())
        self.legacy[ex.legacy] = key
        return key


def _said(ex: Exchange) -> str:
    path = urlsplit(ex.url).path or "/"
    return f"{ex.method} {path} → {ex.status or 'no answer'}" + (f" ({ex.error})" if ex.error else "")


def _values(text: str) -> list[Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return value if isinstance(value, list) else [value]


def _jsonrpc(text: str) -> bool:
    return any(isinstance(v, dict) and v.get("jsonrpc") == "2.0" for v in _values(text))


class HttpRecorder:
    """Turns the proxy's exchanges into canonical records (file, or only the live linter) and
    HAR entries (kept for the end). Runs on the proxy's event loop: no locks."""

    def __init__(self, records: Recorder | None, har: bool):
        self.records = records
        self.har = har
        self.exchanges: list[Exchange] = []
        self.sessions = Sessions()
        self.count = 0
        self._held: list[Exchange] = []  # exchanges whose request messages are not written yet
        self._streams: list[Exchange] = []  # GET streams without their exchange note yet

    def next_index(self) -> int:
        """The next exchange's number (1-based, as a HAR reader numbers entries)."""
        self.count += 1
        return self.count

    def _record(self, ex: Exchange, direction: str, raw: str, **more: Any) -> None:
        self._flush(ex)
        if self.records is not None:
            self.records.record(direction, raw.encode("utf-8", "surrogateescape"),
                                extra={**({"session": ex.session} if ex.session else {}), "transport": "http",
                                       "http": ex.summary(**more)})

    def _note(self, ex: Exchange, event: str, text: str, **more: Any) -> None:
        self._flush(ex)
        if self.records is not None:
            self.records.meta(event, text, **({"session": ex.session} if ex.session else {}), http=ex.summary(),
                              **more)

    def _flush(self, ex: Exchange) -> None:
        """Write the requests still held of exchanges before ``ex``: whatever comes next may be
        what they caused (an answer on another stream), so they go first, as delivered."""
        while self._held and self._held[0] is not ex:
            self._release(self._held[0], refused=False)

    def request(self, ex: Exchange) -> None:
        if self.har:
            self.exchanges.append(ex)
        if ex.method == "GET":
            self._streams.append(ex)
        text = ex.body.decode("utf-8", "surrogateescape").strip()
        if text:
            ex.held.append(text)
            self._held.append(ex)

    def _release(self, ex: Exchange, refused: bool) -> None:
        """Write the request's messages (held until the answer's headers show whether the server
        took them: a request refused at the HTTP level was never processed, as in a HAR)."""
        if ex.released:
            return
        ex.released = True
        if ex in self._held:
            self._held.remove(ex)
        held, ex.held = ex.held, []
        ex.session = self.sessions.assign(ex, [v for text in held for v in _values(text)])
        for text in held:
            if refused:
                self._note(ex, "http-refused", f"request body not processed by the server ({len(text)} characters)")
            else:
                self._record(ex, "c2s", text)

    def _refused(self, ex: Exchange) -> bool:
        return ex.status >= 300 and ex.sse is None and not _jsonrpc(b"".join(ex.answer).decode("utf-8", "replace"))

    def response(self, ex: Exchange) -> None:
        if ex.content_type == "text/event-stream":
            ex.sse = SseEvents()
            self._release(ex, refused=False)

    def chunk(self, ex: Exchange, data: bytes) -> None:
        ex.size += len(data)
        if self.har or ex.size <= EXCHANGE_BODY_LIMIT:
            ex.chunks.append((datetime.now(UTC), data))
        elif ex.chunks:  # the canonical capture's exchange note keeps no body this large
            ex.chunks = []
        if ex.sse is not None:
            self._events(ex, ex.sse.feed(data))
        elif self.records is not None:
            ex.answer.append(data)

    def _events(self, ex: Exchange, events: list[dict[str, Any]]) -> None:
        for event in events:
            if event["event"] == "endpoint" and ex.method == "GET":
                ex.session = self.sessions.announce(ex, event["data"] or "")
                continue
            if event["data"] is None or not event["data"].strip():
                continue
            self._record(ex, "s2c", event["data"], sse_event_id=event["id"], sse_event=event["event"])

    def end(self, ex: Exchange) -> None:
        if ex.finished:  # the proxy's shutdown and the stream's own end may both report it
            return
        ex.finished = True
        if ex.ended is None:
            ex.ended = time.time()
        if ex.sse is not None:
            self._events(ex, ex.sse.feed(b"", final=True))
        else:
            self._release(ex, self._refused(ex))
            text = b"".join(ex.answer).decode("utf-8", "surrogateescape").strip()
            ex.answer = []
            if text and (_jsonrpc(text) or (ex.content_type or "").endswith("json") and 200 <= ex.status < 300):
                self._record(ex, "s2c", text)
        self._exchange_note(ex)

    def _exchange_note(self, ex: Exchange) -> None:
        """The exchange's note with its HAR entry, which the reader turns into the facts the HTTP
        rules judge. Written when it ends; a GET stream still open then, begun before it, gets its
        note first with what it has so far (exchanges come in the order they began, as in a HAR)."""
        for other in [s for s in self._streams if s is not ex and s.started <= ex.started]:
            self._streams.remove(other)
            other.noted = True
            self._note(other, "http", f"{_said(other)} (stream open)", har=har_entry(other),
                       **({"legacy": other.legacy} if other.legacy else {}))
        if ex in self._streams:
            self._streams.remove(ex)
        if ex.noted:
            self._note(ex, "http-end", _said(ex))
        else:
            ex.noted = True
            self._note(ex, "http", _said(ex), har=har_entry(ex), **({"legacy": ex.legacy} if ex.legacy else {}))

    def har_document(self) -> dict[str, Any]:
        entries = [har_entry(ex) for ex in sorted(self.exchanges, key=lambda ex: ex.started)]
        return {"log": {"version": "1.2", "creator": {"name": "mcplint capture --http", "version": __version__},
                        "pages": [], "entries": entries}}


# -- the proxy (ASGI) ---------------------------------------------------------------------------
class _ClientGone(Exception):
    pass


class Proxy:
    """ASGI app relaying every request to ``upstream`` and reporting it to ``recorder``."""

    def __init__(self, upstream: str, recorder: HttpRecorder, verify: bool = True):
        self.upstream = upstream
        self.base = "{0.scheme}://{0.netloc}".format(urlsplit(upstream))
        self.recorder = recorder
        self.verify = verify
        self.client: Any = None
        self.open: set[Exchange] = set()

    def target(self, path: str, query: str) -> str:
        url = self.upstream if path == "/" else self.base + path
        return url + (("&" if "?" in url else "?") + query if query else "")

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._exchange(scope, receive, send)

    async def _lifespan(self, receive, send) -> None:
        httpx2, _ = http_stack()
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.client = httpx2.AsyncClient(
                    verify=self.verify, follow_redirects=False,
                    timeout=httpx2.Timeout(None, connect=_CONNECT_TIMEOUT),
                    limits=httpx2.Limits(max_connections=None, max_keepalive_connections=100))
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for ex in list(self.open):  # streams still open when the proxy stops
                    ex.error = ex.error or "the proxy stopped before the answer ended"
                    self.recorder.end(ex)
                await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _exchange(self, scope, receive, send) -> None:
        import anyio

        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        forwarded = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP]
        url = self.target(scope["path"], scope.get("query_string", b"").decode("latin-1"))
        netloc = urlsplit(url).netloc
        ex = Exchange(self.recorder.next_index(), time.time(), scope["method"], url, scope.get("http_version", "1.1"),
                      [("host", netloc), *forwarded], bytes(body))
        self.recorder.request(ex)
        self.open.add(ex)
        try:
            await self._relay(ex, forwarded, receive, send, anyio)
        finally:
            self.open.discard(ex)

    async def _relay(self, ex: Exchange, forwarded, receive, send, anyio) -> None:
        recorder = self.recorder
        request = self.client.build_request(ex.method, ex.url, headers=forwarded, content=ex.body or None)
        try:
            response = await self._send_or_disconnect(request, receive, anyio)
        except Exception as exc:  # the upstream cannot be reached: the host gets a 502
            ex.error = f"upstream unreachable: {type(exc).__name__}: {exc}"
            ex.status, ex.reason, ex.first_byte = 502, "Bad Gateway", time.time()
            text = f"mcplint capture: {ex.error}\n".encode("utf-8", "replace")
            ex.response_headers = [("content-type", "text/plain; charset=utf-8")]
            recorder.response(ex)
            recorder.chunk(ex, text)
            recorder.end(ex)
            await send({"type": "http.response.start", "status": 502,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
            await send({"type": "http.response.body", "body": text})
            return
        if response is None:  # the host went away before the upstream answered
            ex.error = "the client closed the connection before the answer"
            recorder.end(ex)
            return
        ex.first_byte = time.time()
        ex.status, ex.reason = response.status_code, response.reason_phrase
        ex.response_headers = list(response.headers.multi_items())
        recorder.response(ex)
        cut = None
        try:
            await send({"type": "http.response.start", "status": ex.status,
                        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in ex.response_headers
                                    if k.lower() not in HOP_BY_HOP]})
            cut = await self._stream(ex, response, receive, send, anyio)
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
            recorder.end(ex)
        if cut is not None:  # the upstream broke the stream: so does the proxy (the host must see it)
            raise cut

    async def _send_or_disconnect(self, request, receive, anyio):
        """The upstream's answer (headers; the body streams), or None if the host disconnects first."""
        answer: list = []
        try:
            async with anyio.create_task_group() as group:
                async def watch() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(watch)
                answer.append(await self.client.send(request, stream=True))
                group.cancel_scope.cancel()
        except ExceptionGroup as failed:  # the upstream's own error, not the task group's wrapper
            raise failed.exceptions[0] from None
        return answer[0] if answer else None

    async def _stream(self, ex: Exchange, response, receive, send, anyio) -> Exception | None:
        """Relay the body chunk by chunk (recorded first); the exception that cut it upstream, if any."""
        cut: list[Exception] = []
        async with anyio.create_task_group() as group:
            async def watch() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                if ex.ended is None:
                    ex.error = ex.error or "the client closed the connection before the answer ended"
                    group.cancel_scope.cancel()

            group.start_soon(watch)
            try:
                async for chunk in response.aiter_raw():
                    self.recorder.chunk(ex, chunk)
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                ex.ended = time.time()
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            except OSError:  # the host's connection broke
                ex.error = ex.error or "the client connection broke"
            except Exception as exc:  # the upstream closed mid-stream
                ex.ended = time.time()
                ex.error = f"upstream closed the stream: {type(exc).__name__}: {exc}"
                cut.append(_ClientGone(ex.error))
            group.cancel_scope.cancel()
        return cut[0] if cut else None


# -- running it ---------------------------------------------------------------------------------
def write_har(document: dict[str, Any], path: str, redact: bool) -> None:
    data = (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
    if redact:
        from mcplint.redact import Redactor, redact_stream

        out = io.BytesIO()
        redact_stream(io.BytesIO(data), out, Redactor(), "har")
        data = out.getvalue()
    with open(path, "wb") as handle:
        handle.write(data)


def default_output(har: bool = False) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return os.path.join(os.getcwd(), f"mcplint-capture-{stamp}-{os.getpid()}.{'har' if har else 'mcplog'}")


class HttpCapture:
    """One recording: ``start()`` binds and serves in a thread (tests), ``run()`` in this thread (CLI)."""

    def __init__(self, listen: str, upstream: str, output: str | None = None, *, redact: bool = False,
                 lint: bool = False, insecure: bool = False, say: Callable[[str], None] | None = None):
        self.host, self.port = parse_listen(listen)
        self.upstream = check_upstream(upstream)
        http_stack()
        self.say = say or (lambda text: sys.stderr.write(text))
        if output and output.endswith(("/", os.sep)):
            os.makedirs(output, exist_ok=True)  # a directory the host config names: create it
        if output and os.path.isdir(output):
            output = os.path.join(output, os.path.basename(default_output()))
        self.path = output or default_output()
        self.har = self.path.lower().endswith(".har")
        self.redact = redact
        self._sink = open(os.devnull if self.har else self.path, "wb")
        linter = LiveLinter(self.path + (" (live)" if self.har else "")) if lint else None
        records = None if self.har and not lint else Recorder(self._sink, None if self.har or not redact
                                                              else redactor(), linter)
        self.recorder = HttpRecorder(records, self.har)
        self.proxy = Proxy(self.upstream, self.recorder, verify=not insecure)
        self.sock = self._bind()
        self.url = "http://{}:{}".format(f"[{self.host}]" if ":" in self.host else self.host,
                                         self.sock.getsockname()[1])
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def _bind(self) -> socket.socket:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
            sock.listen(1024)  # connections made once the URL is announced wait for the server to start
        except OSError as exc:
            sock.close()
            raise ProxyError(f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}") from None
        return sock

    def _announce(self) -> None:
        if not is_loopback(self.host):
            self.say(f"mcplint capture: warning: listening on {shown(self.host)}, not loopback: other machines "
                     "can reach the proxy and the server behind it\n")
        self.say(f"mcplint capture: proxying {self.url} -> {shown(self.upstream)}; recording to {shown(self.path)}\n")

    def _make_server(self):
        _, uvicorn = http_stack()
        config = uvicorn.Config(self.proxy, log_level="critical", lifespan="on", ws="none", access_log=False,
                                timeout_graceful_shutdown=2, timeout_keep_alive=30)
        self._server = uvicorn.Server(config)
        return self._server

    def run(self) -> int:
        """Serve until SIGINT/SIGTERM; then write the file. 0, or 1 when it could not be written."""
        self._announce()
        self.records_meta("start", f"mcplint {__version__} capture --http {self.url} -> {self.upstream}")
        server = self._make_server()
        # uvicorn stops on SIGINT/SIGTERM, then raises the signal again for the handler it found:
        # the file must be written first, and the stop is the normal end of a recording
        previous = signal.signal(signal.SIGTERM, lambda *_: None)
        try:
            server.run(sockets=[self.sock])
        except KeyboardInterrupt:
            pass
        finally:
            status = self.finish()
            signal.signal(signal.SIGTERM, previous)
        return status

    def start(self, timeout: float = 10.0) -> str:
        server = self._make_server()
        self.records_meta("start", f"mcplint {__version__} capture --http {self.url} -> {self.upstream}")
        self._thread = threading.Thread(target=server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the proxy did not start")
            time.sleep(0.01)
        return self.url

    def stop(self, timeout: float = 10.0) -> int:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        return self.finish()

    def records_meta(self, event: str, text: str) -> None:
        if self.recorder.records is not None:
            self.recorder.records.meta(event, text, upstream=self.upstream, listen=self.url)

    def finish(self) -> int:
        records = self.recorder.records
        status = 0
        if records is not None:
            records.meta("exit", f"proxy stopped after {self.recorder.count} exchanges")
            records.close()
            if records.error:
                self.say(f"mcplint capture: could not write {shown(self.path)}: {shown(records.error)}\n")
                status = 1
        self._sink.close()
        self.sock.close()
        if self.har:
            try:
                write_har(self.recorder.har_document(), self.path, self.redact)
            except OSError as exc:
                self.say(f"mcplint capture: could not write {shown(self.path)}: {shown(exc.strerror or str(exc))}\n")
                status = 1
        return status


def run_http_capture(listen: str, upstream: str, output: str | None = None, *, redact: bool = False,
                     lint: bool = False, insecure: bool = False) -> int:
    """Entry point of ``mcplint capture --http``."""
    return HttpCapture(listen, upstream, output, redact=redact, lint=lint, insecure=insecure).run()

"""One Streamable HTTP session that ``mcplint probe --url`` drives, every message recorded.

Each message is POSTed (``Accept: application/json, text/event-stream``); the answer comes as
one JSON body or on an SSE stream, whose events are recorded as they arrive. The session id the
server issues (``Mcp-Session-Id``) and, from 2025-06-18, the negotiated ``MCP-Protocol-Version``
go with every later request; a 2026-07-28 request carries its revision, method and name (tool,
prompt, resource URI) as headers.
Ending the session is a DELETE when the server issued an id. The records carry
``"transport": "http"`` and the probe session's label, and each exchange ends with its ``http``
note (its HAR entry, as ``mcplint capture --http`` writes it), so the HTTP rules judge the
server's statuses and headers too. This link has the interface of
:class:`~mcplint.commands.probe.stdio.StdioLink`.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import orjson

from mcplint import __version__, protocol
from mcplint.commands.capture.http import Exchange, ProxyError, SseEvents, har_entry, http_stack
from mcplint.commands.capture.stdio import Recorder
from mcplint.commands.probe.stdio import Reply, StartError

_ACCEPT = "application/json, text/event-stream"


class HttpLink:
    """A Streamable HTTP session with the server at ``url``."""

    def __init__(self, url: str, recorder: Recorder, session: str, insecure: bool = False,
                 entries: Iterator[int] | None = None):
        self.url = url
        self.entries = entries if entries is not None else itertools.count(1)  # HAR entry numbers, shared by the links
        self.recorder = recorder
        self.session = session
        self.insecure = insecure
        self.extra = {"session": session, "transport": "http"}
        self.ended: str | None = None
        self.last_stderr: deque[str] = deque(maxlen=2)  # an HTTP server has no stderr to quote
        self.version: str | None = None  # negotiated revision, once known
        self._session_id: str | None = None
        self._replies: dict[Any, dict] = {}
        self._next_id = 0
        self._client = None
        self._broken = False

    def start(self) -> None:
        try:
            httpx2, _ = http_stack()
        except ProxyError as exc:  # the 'http' extra is not installed
            raise StartError(str(exc)) from None
        self._httpx = httpx2
        self._client = httpx2.Client(verify=not self.insecure, follow_redirects=False)
        self.recorder.meta("start", f"mcplint {__version__} probe connected to {self.url}", url=self.url,
                           mcplint=__version__, session=self.session)

    @property
    def alive(self) -> bool:
        return self._client is not None and not self._broken

    def negotiated(self, version: str) -> None:
        self.version = version

    def close(self) -> str:
        if self._client is None or self.ended is not None:
            return self.ended or ""
        text = "the probe ended the session"
        if self._session_id is not None and not self._broken:
            exchange = self._exchange("DELETE", self._headers(None), b"")
            try:
                response = self._client.delete(self.url, headers=self._headers(None), timeout=5)
                self._answered_with(exchange, response)
                self._received_chunk(exchange, response.content)
                text += f" (DELETE: HTTP {response.status_code})"
            except self._httpx.HTTPError as exc:
                text += f" (DELETE failed: {type(exc).__name__})"
            if exchange.status:
                self._exchange_note(exchange)
        self._client.close()
        self.recorder.meta("closed", text, by="client", session=self.session, transport="http")
        self.ended = text
        return text

    def abort(self) -> None:
        """Drop the connection now: the probe was interrupted."""
        self._broken = True
        if self._client is not None:
            self._client.close()

    # -- traffic ---------------------------------------------------------------------------------
    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def notify(self, method: str, params: dict | None = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def send(self, message: Any, timeout: float = 10.0, **marks: Any) -> bool:
        """POST one message and read what comes back (within ``timeout``); False when the
        server could not be reached or the exchange broke off."""
        line = message if isinstance(message, bytes) else orjson.dumps(message)
        self.recorder.record("c2s", line, {**self.extra, **marks})
        if self._client is None:
            return False
        deadline = time.monotonic() + timeout
        headers = self._headers(message)
        exchange = self._exchange("POST", headers, line)
        try:
            with self._client.stream("POST", self.url, content=line, headers=headers,
                                     timeout=self._httpx.Timeout(timeout)) as response:
                self._answered_with(exchange, response)
                self._session_id = response.headers.get("mcp-session-id") or self._session_id
                kind = (response.headers.get("content-type") or "").split(";")[0].strip().lower()
                if kind == "text/event-stream":
                    events = SseEvents()
                    for chunk in response.iter_bytes():
                        self._received_chunk(exchange, chunk)
                        for event in events.feed(chunk):
                            self._received(event.get("data"))
                        if self._answered(message) or time.monotonic() > deadline:
                            break
                else:
                    body = response.read()
                    self._received_chunk(exchange, body)
                    if body.strip():
                        self._received(body.decode("utf-8", "replace"))
                    if response.status_code >= 400 and not self._answered(message):
                        self.recorder.meta("http-error", f"HTTP {response.status_code} to the probe's POST",
                                           session=self.session, transport="http", status=response.status_code)
                        return False
        except self._httpx.TimeoutException:
            exchange.error = "timeout"
            return True  # nothing (more) came in time: wait() says timeout
        except self._httpx.HTTPError as exc:
            exchange.error = type(exc).__name__
            self._broken = True
            if self._next_id <= 1 and self._session_id is None and isinstance(exc, self._httpx.ConnectError):
                raise StartError(f"could not connect to {self.url}: {exc}") from exc
            self.recorder.meta("http-error", f"the probe's POST failed: {type(exc).__name__}",
                               session=self.session, transport="http")
            return False
        finally:
            if exchange.status:  # an answer's headers came: the HTTP rules have facts to judge
                self._exchange_note(exchange)
        return True

    # -- the exchanges' notes ------------------------------------------------------------------------
    def _exchange(self, method: str, headers: dict[str, str], body: bytes) -> Exchange:
        return Exchange(next(self.entries), time.time(), method, self.url, "1.1", list(headers.items()), body)

    @staticmethod
    def _answered_with(exchange: Exchange, response: Any) -> None:
        exchange.status, exchange.reason = response.status_code, response.reason_phrase
        exchange.http_version = response.http_version.removeprefix("HTTP/")
        exchange.response_headers = list(response.headers.multi_items())
        exchange.first_byte = time.time()

    @staticmethod
    def _received_chunk(exchange: Exchange, chunk: bytes) -> None:
        if chunk:
            exchange.chunks.append((datetime.now(UTC), chunk))
            exchange.size += len(chunk)

    def _exchange_note(self, exchange: Exchange) -> None:
        """The exchange's ``http`` note with its HAR entry (read back as the HTTP rules' facts)."""
        exchange.ended = time.time()
        said = f"{exchange.method} {self.url} -> HTTP {exchange.status}"
        if exchange.error:
            said += f" ({exchange.error})"
        self.recorder.meta("http", said, session=self.session, http=exchange.summary(), har=har_entry(exchange))

    def request(self, method: str, params: dict | None, timeout: float, *, request_id: Any = None,
                **marks: Any) -> tuple[Any, Reply]:
        rid = self.new_id() if request_id is None else request_id
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        started = time.monotonic()
        if not self.send(message, timeout, **marks):
            return rid, Reply("closed", None, time.monotonic() - started)
        return rid, self.wait(rid, 0, started, timeout)

    def wait(self, rid: Any, timeout: float, started: float | None = None, waited: float | None = None) -> Reply:
        """The answer to ``rid`` if it came (answers come within their own exchange)."""
        answer = self._replies.pop(_key(rid), None)
        took = time.monotonic() - started if started is not None else 0.0
        if answer is None:
            return Reply("timeout", None, waited if waited is not None else timeout)
        kind = "error" if "error" in answer else "result"
        return Reply(kind, answer.get(kind), took)

    # -- the server's side -------------------------------------------------------------------------
    def _headers(self, message: Any) -> dict[str, str]:
        headers = {"Accept": _ACCEPT, "Content-Type": "application/json"}
        if self._session_id is not None:
            headers["Mcp-Session-Id"] = self._session_id
        params = message.get("params") if isinstance(message, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        modern = isinstance(meta, dict) and meta.get(protocol.PROTOCOL_VERSION_META)
        if modern:
            headers["MCP-Protocol-Version"] = str(modern)
            headers["Mcp-Method"] = str(message.get("method"))
            name = params.get("uri" if message.get("method") == "resources/read" else "name")
            if isinstance(name, str) and name.isascii() and name.isprintable():
                headers["Mcp-Name"] = name
        elif self.version is not None and protocol.at_least(self.version, protocol.V2025_06_18):
            headers["MCP-Protocol-Version"] = self.version
        return headers

    def _answered(self, message: Any) -> bool:
        return isinstance(message, dict) and "id" in message and _key(message["id"]) in self._replies

    def _received(self, text: Any) -> None:
        if not isinstance(text, str) or not text.strip():
            return
        self.recorder.record("s2c", text.encode("utf-8", "surrogateescape"), self.extra)
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return
        for message in value if isinstance(value, list) else [value]:
            if not isinstance(message, dict):
                continue
            if "method" in message and "id" in message:
                self._answer(message)
            elif "id" in message and ("result" in message or "error" in message):
                self._replies[_key(message["id"])] = message

    def _answer(self, request: dict) -> None:
        """A request from the server (on a POST's stream): the probe declared no client capabilities."""
        if request.get("method") == "ping":
            self.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
        else:
            self.send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "Method not found"}})


def _key(rid: Any) -> Any:
    return (type(rid).__name__, rid)

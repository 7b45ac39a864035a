"""A tiny recording reverse proxy for MCP over HTTP, and an in-thread loopback server runner.

``Recorder(upstream)`` is an ASGI app: it forwards each request to the upstream server, streams
the answer back chunk by chunk (SSE streams stay live: the SDK client reads events as they come)
and records the exchange as a HAR 1.2 entry, the way a devtools or mitmproxy export would. Each
``response._chunks`` lists the body's chunks in arrival order as ``{"ts": ISO-8601 UTC with
microseconds, "size": raw bytes}``, ``ts`` taken when the chunk came from upstream, before it is
forwarded (the sizes add up to the body's byte length).
``serve(app)`` runs an ASGI app with uvicorn on 127.0.0.1 (an ephemeral port) in a background
thread. Nothing leaves the machine.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

_HOP = {"host", "content-length", "connection", "accept-encoding", "transfer-encoding", "keep-alive"}


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _iso_us(t: datetime) -> str:
    return t.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _pairs(items) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in items]


async def _answer_or_disconnect(client, request, receive):
    """The upstream's streamed answer, or None when the client disconnects before its headers come."""
    answer: list = []
    async with anyio.create_task_group() as group:
        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(watch)
        answer.append(await client.send(request, stream=True))
        group.cancel_scope.cancel()
    return answer[0] if answer else None


class Recorder:
    """ASGI reverse proxy recording every exchange as a HAR entry."""

    def __init__(self, upstream: str):
        self.upstream = upstream.rstrip("/")
        self.entries: list[tuple[float, dict]] = []

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        await self._exchange(scope, receive, send)

    async def _exchange(self, scope, receive, send) -> None:
        import httpx2

        started = time.time()
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        query = scope.get("query_string", b"").decode("latin-1")
        path = scope["path"] + (f"?{query}" if query else "")
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        forwarded = [(k, v) for k, v in headers if k.lower() not in _HOP]
        method = scope["method"]
        chunks: list[bytes] = []
        arrivals: list[datetime] = []  # when each chunk came from upstream (before it is forwarded)
        status, status_text, answer_headers, error = 0, "", [], None
        first_byte = ended = delivered = started
        async with httpx2.AsyncClient(timeout=None) as client:
            request = client.build_request(method, self.upstream + path, headers=forwarded, content=body or None)
            try:
                response = await _answer_or_disconnect(client, request, receive)
            except anyio.get_cancelled_exc_class():  # shut down while the upstream had not answered
                self.entries.append((started, self._entry(method, scope, path, headers, body, 0, "", [], b"", started,
                                                          started, time.time(), "net::ERR_ABORTED (no answer)", [])))
                raise
            except Exception as exc:  # the upstream is gone: answer 502 and record it
                response, error = None, f"upstream error: {exc!r}"
                await send({"type": "http.response.start", "status": 502, "headers": []})
                await send({"type": "http.response.body", "body": b""})
            else:
                if response is None:  # the client went away before the upstream answered (status 0, as devtools)
                    error = "net::ERR_ABORTED (no answer)"
            if response is not None:
                first_byte = time.time()
                status, status_text = response.status_code, response.reason_phrase
                answer_headers = list(response.headers.multi_items())
                await send({"type": "http.response.start", "status": status,
                            "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer_headers
                                        if k.lower() not in _HOP]})
                error_box: list[str] = []
                done: list[bool] = []
                async with anyio.create_task_group() as group:
                    async def watch() -> None:
                        while (await receive())["type"] != "http.disconnect":
                            pass
                        if not done:  # the client went away before the answer ended
                            error_box.append("net::ERR_ABORTED")
                            group.cancel_scope.cancel()

                    group.start_soon(watch)
                    try:
                        async for chunk in response.aiter_raw():
                            arrivals.append(datetime.now(UTC))
                            chunks.append(chunk)
                            delivered = time.time()  # before the client can see it (and act on it)
                            await send({"type": "http.response.body", "body": chunk, "more_body": True})
                        done.append(True)
                        await send({"type": "http.response.body", "body": b"", "more_body": False})
                    except Exception as exc:  # the client went away mid-stream
                        error_box.append(f"net::ERR_FAILED ({type(exc).__name__})")
                    group.cancel_scope.cancel()
                if error_box:  # the client closed the stream before it ended (as devtools record it)
                    error = error_box[0]
                with anyio.CancelScope(shield=True):
                    await response.aclose()
        # the last byte the client got, not the teardown of the upstream connection
        ended = delivered if chunks else time.time()
        self.entries.append((started, self._entry(method, scope, path, headers, body, status, status_text,
                                                  answer_headers, b"".join(chunks), started, first_byte, ended,
                                                  error, [{"ts": _iso_us(t), "size": len(c)}
                                                          for t, c in zip(arrivals, chunks, strict=True)])))

    def _entry(self, method, scope, path, headers, body, status, status_text, answer_headers, data, started,
               first_byte, ended, error, timed_chunks) -> dict[str, Any]:
        host = {k.lower(): v for k, v in headers}.get("host", "127.0.0.1")
        url = f"http://{host}{path}"
        query = [{"name": k, "value": v} for k, _, v in (p.partition("=") for p in path.partition("?")[2].split("&")
                                                        if p)]
        request: dict[str, Any] = {"method": method, "url": url, "httpVersion": f"HTTP/{scope.get('http_version', '1.1')}",
                                   "headers": _pairs(headers), "queryString": query, "cookies": [],
                                   "headersSize": -1, "bodySize": len(body)}
        kinds = {k.lower(): v for k, v in headers}
        if body:
            request["postData"] = {"mimeType": kinds.get("content-type", ""), "text": body.decode("utf-8", "replace")}
        answer_kinds = {k.lower(): v for k, v in answer_headers}
        content = {"size": len(data), "mimeType": answer_kinds.get("content-type", "")}
        if data:
            content["text"] = data.decode("utf-8", "replace")
        response = {"status": status, "statusText": status_text, "httpVersion": "HTTP/1.1",
                    "headers": _pairs(answer_headers), "cookies": [], "content": content, "redirectURL": "",
                    "headersSize": -1, "bodySize": len(data), "_chunks": timed_chunks}
        if error:
            response["_error"] = error
        wait = max(first_byte - started, 0) * 1000
        total = max(ended - started, 0) * 1000
        return {"startedDateTime": _iso(started), "time": round(total, 3), "request": request, "response": response,
                "cache": {}, "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 0,
                                         "wait": round(wait, 3), "receive": round(total - wait, 3)}}

    def har(self) -> dict:
        entries = [entry for _, entry in sorted(self.entries, key=lambda item: item[0])]
        return {"log": {"version": "1.2", "creator": {"name": "mcplint-test-proxy", "version": "1.0"},
                        "pages": [], "entries": entries}}

    def write(self, path: Path) -> Path:
        path.write_text(json.dumps(self.har(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return path


@contextlib.contextmanager
def serve(app, timeout: float = 10.0, **config: Any) -> Iterator[str]:
    """Run ``app`` with uvicorn on a loopback ephemeral port; yields ``http://127.0.0.1:<port>``
    (``https://`` when ``config`` names ``ssl_certfile``; ``config`` goes to ``uvicorn.Config``)."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on", ws="none",
                                           timeout_graceful_shutdown=2, **config))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.time() + timeout
    while not server.started:
        if time.time() > deadline or not thread.is_alive():
            raise RuntimeError("the loopback server did not start")
        time.sleep(0.01)
    try:
        yield f"{'https' if config.get('ssl_certfile') else 'http'}://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
        sock.close()

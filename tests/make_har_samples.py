"""Write the HAR samples of ``samples/`` (run: ``python -m tests.make_har_samples``).

The clean samples replay the messages of the clean stdio samples over HTTP, the way the
transport of their revision carries them:

- Streamable HTTP with SSE responses (2025-11-25): a session id, each request's messages on its
  own POST stream (priming event first, unique event ids), unrelated server messages on the GET
  stream, notifications and responses answered 202, DELETE at the end;
- Streamable HTTP with JSON responses (2025-06-18): one JSON body per request, server requests and
  notifications on the GET stream;
- 2026-07-28: no session, routing headers on every POST, SSE (with ``X-Accel-Buffering: no``) for
  requests that stream notifications;
- HTTP+SSE (2024-11-05): the endpoint event, then every server message on the GET stream.

The other samples are small scenarios with the mistakes described in ``samples/README.md``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from tests.harbuilder import (
    ACCEPT,
    dumps,
    entry,
    handshake,
    har,
    initialize_request,
    initialize_result,
)

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
ORIGIN = "http://127.0.0.1:8000"
MCP = ORIGIN + "/mcp"
CREATOR = "mitmproxy"
SID = "1868a90c3b4f4e0f9d1b6f2a7c5e8d40"


def _messages(name: str) -> list[tuple[str, dict, float]]:
    """(dir, message, seconds since the first record) of a canonical capture sample."""
    out, start = [], None
    for line in (SAMPLES / name).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        t = datetime.fromisoformat(record["ts"]).timestamp()
        start = t if start is None else start
        if record["dir"] in ("c2s", "s2c"):
            message = json.loads(record["raw"]) if "raw" in record else record["msg"]
            out.append((record["dir"], message, t - start))
    return out


def _kind(message: dict) -> str:
    if "method" in message:
        return "request" if "id" in message else "notification"
    return "response"


def _with_times(item: dict, started: float, ended: float) -> dict:
    item["time"] = round(max(ended - started, 0.0) * 1000, 3)
    streamed = item["response"]["content"].get("mimeType") == "text/event-stream"
    item["timings"]["wait"] = min(item["time"], 2.0) if streamed else max(item["time"] - 1, 0)
    item["timings"]["receive"] = round(item["time"] - item["timings"]["wait"], 3)
    return item


class _Replay:
    """Turns a stdio message sequence into HAR entries for one transport flavour."""

    def __init__(self, version: str, mode: str):
        self.version, self.mode = version, mode
        self.entries: list[dict] = []
        self.open: dict = {}  # request id -> (entry, events, started)
        self.get_events: list = []
        self.get_entry: dict | None = None
        self.counter = 0
        self.session = SID if mode in ("sse", "json") else None

    def event_id(self, stream: str) -> str:
        self.counter += 1
        return f"{stream}-{self.counter}"

    def post_headers(self, message: dict) -> dict:
        out = {"Accept": ACCEPT, "Content-Type": "application/json", "User-Agent": "python-httpx/0.28.1"}
        if self.mode == "modern":
            out["MCP-Protocol-Version"] = self.version
            out["Mcp-Method"] = message.get("method", "")
            params = message.get("params") or {}
            key = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}.get(message.get("method"))
            if key and isinstance(params.get(key), str):
                out["Mcp-Name"] = params[key]
            return out
        if message.get("method") != "initialize":
            out["Mcp-Session-Id"] = self.session
            if self.version >= "2025-06-18":
                out["MCP-Protocol-Version"] = self.version
        return out

    def client(self, message: dict, t: float) -> None:
        kind = _kind(message)
        if message.get("method") == "notifications/cancelled":
            key = json.dumps((message.get("params") or {}).get("requestId"))
            if key in self.open:  # the request's stream ends without a response
                item, events, started = self.open.pop(key)
                self.finish(item, events, started, t + 0.002)
        if kind != "request":
            self.entries.append(entry(url=MCP, request_headers=self.post_headers(message), body=message,
                                      status=202, started=t, time_ms=1.5))
            if message.get("method") == "notifications/initialized" and self.mode in ("sse", "json"):
                self.open_get(t + 0.001)  # before the server's next message (it may travel on it)
            return
        item = entry(url=MCP, request_headers=self.post_headers(message), body=message, started=t)
        self.entries.append(item)
        self.open[json.dumps(message["id"])] = (item, [], t)

    def open_get(self, t: float) -> None:
        self.get_entry = entry("GET", MCP, request_headers={"Accept": "text/event-stream", "Mcp-Session-Id": self.session,
                                                           "MCP-Protocol-Version": self.version}, started=t)
        if self.mode == "sse":
            self.get_events.append({"id": self.event_id("get"), "data": ""})
        self.entries.append(self.get_entry)

    def server(self, message: dict, t: float) -> None:
        kind = _kind(message)
        if kind == "response":
            key = json.dumps(message["id"])
            if key in self.open:
                item, events, started = self.open.pop(key)
                events.append(message)
                self.finish(item, events, started, t)
                return
        # a message related to an open request travels on its stream (json mode: dropped)
        related = self.related(message)
        if related is not None:
            if self.mode != "json":
                related[1].append(message)
            return
        self.get_events.append({"id": self.event_id("get"), "event": "message", "data": message} if self.mode == "sse"
                               else message)

    def related(self, message: dict):
        if not self.open:
            return None
        params = message.get("params") or {}
        token = params.get("progressToken")
        for item, events, started in self.open.values():
            body = json.loads(item["request"]["postData"]["text"])
            meta = (body.get("params") or {}).get("_meta") or {}
            if token is not None and meta.get("progressToken") == token:
                return item, events
        if self.mode == "json":
            return None
        return list(self.open.values())[-1][:2]  # server requests and logs during a call

    def finish(self, item: dict, events: list, started: float, ended: float) -> None:
        streamed = len(events) != 1 or self.mode == "sse"
        response = item["response"]
        if streamed:
            stream = f"post{len(self.entries)}"
            wire = []
            if self.mode == "sse":
                wire.append({"id": self.event_id(stream), "data": ""})
            for message in events:
                wire.append({"id": self.event_id(stream), "event": "message", "data": message}
                            if self.mode == "sse" else {"event": "message", "data": message})
            fresh = entry(url=MCP, request_headers={}, sse=wire, started=0)
        else:
            fresh = entry(url=MCP, request_headers={}, json_body=events[0], started=0)
        response["content"] = fresh["response"]["content"]
        response["headers"] = fresh["response"]["headers"]
        response["bodySize"] = fresh["response"]["bodySize"]
        extra = []
        body = json.loads(item["request"]["postData"]["text"])
        if body.get("method") == "initialize" and self.session:
            extra.append({"name": "mcp-session-id", "value": self.session})
        if streamed and self.mode == "modern":
            extra.append({"name": "X-Accel-Buffering", "value": "no"})
        extra.append({"name": "server", "value": "uvicorn"})
        response["headers"] = extra + response["headers"]
        _with_times(item, started, ended)

    def close(self, t: float) -> list[dict]:
        if self.get_entry is not None:
            fresh = entry("GET", MCP, sse=self.get_events, started=0) if self.get_events or self.mode == "sse" else None
            if fresh is not None:
                self.get_entry["response"] = fresh["response"]
            else:
                self.get_entry["response"] = entry("GET", MCP, status=405, started=0)["response"]
                self.get_entry["time"] = 1.2
            if fresh is not None:
                _with_times(self.get_entry, 0, t - _started(self.get_entry))
        if self.session:
            self.entries.append(entry("DELETE", MCP, request_headers={"Mcp-Session-Id": self.session,
                                                                      "MCP-Protocol-Version": self.version},
                                      status=200 if self.mode == "sse" else 405, started=t, time_ms=1.1))
        return self.entries


def _started(item: dict) -> float:
    from tests.harbuilder import START

    return datetime.fromisoformat(item["startedDateTime"]).timestamp() - START.timestamp()


def replay(name: str, version: str, mode: str) -> dict:
    flow = _Replay(version, mode)
    last = 0.0
    for direction, message, t in _messages(name):
        (flow.client if direction == "c2s" else flow.server)(message, t)
        last = t
    return har(flow.close(last + 0.2), CREATOR)


def legacy_sse(name: str) -> dict:
    """The 2024-11-05 HTTP+SSE transport: GET /sse with the endpoint event, POSTs answered 202."""
    endpoint = "/messages/?session_id=6f9e2b1c4d8a4e7f9a0b1c2d3e4f5a6b"
    events = [{"event": "endpoint", "data": endpoint}]
    posts = []
    last = 0.0
    for direction, message, t in _messages(name):
        last = t
        if direction == "s2c":
            events.append({"event": "message", "data": message})
        else:
            posts.append(entry(url=ORIGIN + endpoint, request_headers={"Content-Type": "application/json",
                                                                       "User-Agent": "python-httpx/0.28.1"},
                               body=message, status=202, text="Accepted", started=t + 0.01, time_ms=1.3))
    stream = entry("GET", ORIGIN + "/sse", request_headers={"Accept": "text/event-stream",
                                                            "User-Agent": "python-httpx/0.28.1"},
                   sse=events, started=0.0)
    _with_times(stream, 0, last + 0.3)
    return har([stream] + posts, CREATOR)


# -- scenarios with mistakes -----------------------------------------------------------------------
V5 = "2025-11-25"
M = "2026-07-28"


def _post(body, *, session=SID, version=V5, accept=ACCEPT, **kw):
    pairs = {"Accept": accept, "Content-Type": "application/json"}
    if session:
        pairs["Mcp-Session-Id"] = session
    if version:
        pairs["MCP-Protocol-Version"] = version
    pairs.update(kw.pop("extra", {}))
    return entry(url=MCP, request_headers=pairs, body=body, **kw)


def session_mistakes() -> dict:
    tools = {"tools": [{"name": "search_issues", "description": "Search Jira issues with JQL",
                        "inputSchema": {"type": "object", "properties": {"jql": {"type": "string"}},
                                        "required": ["jql"]}}]}
    e = handshake(V5, SID, {"roots": {"listChanged": True}}, {"tools": {}}, url=MCP)
    e += [
        # Accept lists only JSON (HT002)
        _post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, accept="application/json",
              json_body={"jsonrpc": "2.0", "id": 1, "result": tools}, started=1.0),
        # no MCP-Protocol-Version after initialization (HT017)
        _post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "search_issues", "arguments": {"jql": "project = OPS"}}}, version=None,
              json_body={"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "3 issues"}],
                                                               "isError": False}}, started=2.0),
        # a notification answered 200 with a JSON body (HT004)
        _post({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}, json_body={"status": "ok"},
              started=2.5),
        # the session expired: 404, then the client keeps the old id (HT014)
        _post({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, status=404, text="Session not found",
              started=900.0),
        _post({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, status=404, text="Session not found",
              started=901.0),
        # DELETE without the session id (HT016)
        entry("DELETE", MCP, request_headers={"MCP-Protocol-Version": V5}, status=400,
              text="Bad Request: Missing session ID", started=902.0),
    ]
    return har(e, CREATOR)


def modern_headers() -> dict:
    meta = {"io.modelcontextprotocol/protocolVersion": M, "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "gateway-probe", "version": "0.4.0"}}
    info = {"io.modelcontextprotocol/serverInfo": {"name": "warehouse", "version": "1.2.0"}}
    tool = {"name": "execute_sql", "title": "Run SQL", "description": "Run a read-only query in a region",
            "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}, "query": {"type": "string"}},
                "required": ["region", "query"]}}

    def mpost(i, method, params=None, *, hdrs=None, **kw):
        body = {"jsonrpc": "2.0", "id": i, "method": method, "params": dict(params or {}, _meta=meta)}
        pairs = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": M,
                 "Mcp-Method": method}
        pairs.update(hdrs or {})
        return entry(url=MCP, request_headers={k: v for k, v in pairs.items() if v is not None}, body=body, **kw)

    def result(i, value):
        return {"jsonrpc": "2.0", "id": i, "result": dict(value, resultType="complete", _meta=info)}

    call = {"name": "execute_sql", "arguments": {"region": "eu-west1", "query": "select count(*) from orders"}}
    e = [
        mpost(1, "server/discover", json_body=result(1, {
            "supportedVersions": [M], "capabilities": {"tools": {}}, "ttlMs": 600000, "cacheScope": "public"}),
              started=0.0),
        mpost(2, "tools/list", json_body=result(2, {"tools": [tool], "ttlMs": 600000, "cacheScope": "public"}),
              started=0.2),
        # Mcp-Method disagrees with the body and the server serves it (HM004, HM007)
        mpost(3, "tools/call", call, hdrs={"Mcp-Method": "tools/list", "Mcp-Name": "execute_sql",
                                           "Mcp-Param-Region": "eu-west1"},
              json_body=result(3, {"content": [{"type": "text", "text": "1841"}], "isError": False}), started=1.0),
        # no Mcp-Param-Region: refused correctly with 400/-32020, but the client is wrong (HM006)
        mpost(4, "tools/call", call, hdrs={"Mcp-Name": "execute_sql"}, status=400,
              json_body={"jsonrpc": "2.0", "id": 4, "error": {"code": -32020,
                                                              "message": "Mcp-Param-Region header is missing"}},
              started=2.0),
        # -32601 with HTTP 200 (HM009)
        mpost(5, "prompts/list", json_body={"jsonrpc": "2.0", "id": 5,
                                            "error": {"code": -32601, "message": "Method not found"}}, started=3.0),
        # the server mints a session id (HM014)
        mpost(6, "tools/call", call, hdrs={"Mcp-Name": "execute_sql", "Mcp-Param-Region": "eu-west1"},
              response_headers={"Mcp-Session-Id": "a1b2c3"},
              json_body=result(6, {"content": [{"type": "text", "text": "1841"}], "isError": False}), started=4.0),
    ]
    return har(e, CREATOR)


def auth_mistakes() -> dict:
    url = "https://mcp.example.com/mcp"
    token = "Bearer eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1c2VyLTQyIiwic2NvcGUiOiJmaWxlczpyZWFkIn0.c2lnbmF0dXJl"
    challenge = ('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", '
                 'scope="files:read"')

    def auth_post(body, *, auth=True, version=V5, session=SID, query="", **kw):
        pairs = {"Accept": ACCEPT, "Content-Type": "application/json"}
        if session:
            pairs["Mcp-Session-Id"] = session
        if version:
            pairs["MCP-Protocol-Version"] = version
        if auth:
            pairs["Authorization"] = token
        return entry(url=url + query, request_headers=pairs, body=body, **kw)

    init = initialize_request(V5, {}, "desktop-agent")
    e = [
        # 401 without WWW-Authenticate (AU003, a warning in 2025-11-25)
        auth_post(init, auth=False, session=None, version=None, status=401, started=0.0),
        auth_post(init, auth=False, session=None, version=None, status=401,
                  response_headers={"WWW-Authenticate": challenge}, started=0.5),
        auth_post(init, session=None, version=None, response_headers={"Mcp-Session-Id": SID},
                  json_body=initialize_result(V5, {"tools": {}}, "files"), started=5.0),
        auth_post({"jsonrpc": "2.0", "method": "notifications/initialized"}, status=202, started=5.1),
        # the token in the query string instead of the header (AU002, and AU001: no header)
        auth_post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, auth=False,
                  query="?access_token=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2ln", status=401,
                  response_headers={"WWW-Authenticate": challenge}, started=6.0),
        # an authorization failure as a JSON-RPC error with HTTP 200 (AU006)
        auth_post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                  json_body={"jsonrpc": "2.0", "id": 2, "error": {"code": -32001,
                                                                  "message": "Unauthorized: token expired"}},
                  started=3600.0),
        entry("DELETE", url, request_headers={"Mcp-Session-Id": SID, "MCP-Protocol-Version": V5,
                                              "Authorization": token}, status=200, started=3601.0),
    ]
    return har(e, CREATOR)


SAMPLE_FILES = {
    "clean-streamable-http-sse-2025-11-25.har": lambda: replay("clean-2025-11-25.mcplog", "2025-11-25", "sse"),
    "clean-streamable-http-json-2025-06-18.har": lambda: replay("clean-2025-06-18.mcplog", "2025-06-18", "json"),
    "clean-streamable-http-2026-07-28.har": lambda: replay("clean-2026-07-28.mcplog", M, "modern"),
    "clean-http-sse-transport-2024-11-05.har": lambda: legacy_sse("clean-2024-11-05.mcplog"),
    "http-session-mistakes-2025-11-25.har": session_mistakes,
    "http-modern-headers-2026-07-28.har": modern_headers,
    "http-auth-mistakes-2025-11-25.har": auth_mistakes,
}


def main() -> None:
    for name, build in SAMPLE_FILES.items():
        (SAMPLES / name).write_text(dumps(build()), encoding="utf-8")
        print("wrote", name)


if __name__ == "__main__":
    main()

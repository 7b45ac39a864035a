"""Build HAR 1.2 documents of MCP traffic for tests, samples and rule-page examples.

``entry(...)`` makes one HAR entry (request + response); ``handshake(...)`` the two entries of a
Streamable HTTP initialize + notifications/initialized; ``har(entries)`` the document;
``dumps(doc)`` pretty-prints it the way browsers export HAR (2-space indent), ``one_per_line``
puts each entry on its own line (rule pages).

``expand_example(text)`` prepares a ```har block of a rule page for the reader: the annotation
suffixes (``  # error: [HT004]``) are cut, ``# init <version> [session=<id>] [C=<caps>] [S=<caps>]``
lines become the two handshake entries on that same line (followed by a comma, so more entries
must follow), and other ``#`` lines become blank lines (line numbers never move).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

URL = "http://127.0.0.1:8000/mcp"
ACCEPT = "application/json, text/event-stream"
START = datetime(2026, 3, 2, 9, 30, 0, tzinfo=UTC)
_ANNOTATION = re.compile(r"\s{2,}#\s*(?:error|warning|info):\s*\[[A-Za-z0-9_, -]*\]\s*$")
_INIT = re.compile(r"^#\s*init\s+(\S+)((?:\s+\w+=\S+)*)\s*$")


def headers(pairs: dict[str, str] | None) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in (pairs or {}).items()]


def sse_text(events: list[Any]) -> str:
    """SSE wire text of events: a message value, or a dict with id/event/data/retry (data may be
    a message value or a string)."""
    out = []
    for event in events:
        if not (isinstance(event, dict) and ("data" in event or "id" in event or "retry" in event)
                and "jsonrpc" not in event):
            event = {"event": "message", "data": event}
        lines = []
        if event.get("event"):
            lines.append(f"event: {event['event']}")
        if event.get("id") is not None:
            lines.append(f"id: {event['id']}")
        if event.get("retry") is not None:
            lines.append(f"retry: {event['retry']}")
        if "data" in event:
            data = event["data"]
            text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
            lines.extend(f"data: {part}" if part else "data:" for part in text.split("\n"))
        out.append("\n".join(lines) + "\n\n")
    return "".join(out)


_STATUS_TEXT = {200: "OK", 202: "Accepted", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
                403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 500: "Internal Server Error"}


def entry(method: str = "POST", url: str = URL, *, request_headers: dict | None = None, body: Any = None,
          status: int = 200, response_headers: dict | None = None, json_body: Any = None, sse: list | None = None,
          text: str | None = None, mime: str | None = None, started: float = 0.0, time_ms: float = 5.0,
          error: str | None = None, arrivals: list[float] | None = None, wait_ms: float | None = None) -> dict:
    """One HAR entry. ``body``: the request body (a value is JSON-encoded); the response is
    ``json_body`` (application/json), ``sse`` (text/event-stream events) or ``text``.
    ``arrivals``: seconds after START at which each SSE event (or the body) arrived, recorded as
    ``response._chunks`` (one chunk each); ``wait_ms``: the time to the first byte (default: all
    but the last millisecond)."""
    req_headers = dict(request_headers or {})
    post = None
    if body is not None:
        post_text = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))
        post = {"mimeType": "application/json", "text": post_text}
        req_headers.setdefault("Content-Type", "application/json")
    resp_headers = dict(response_headers or {})
    if json_body is not None:
        content = {"size": 0, "mimeType": "application/json",
                   "text": json_body if isinstance(json_body, str) else json.dumps(json_body, separators=(",", ":"))}
        resp_headers.setdefault("Content-Type", "application/json")
    elif sse is not None:
        content = {"size": 0, "mimeType": "text/event-stream", "text": sse_text(sse)}
        resp_headers.setdefault("Content-Type", "text/event-stream")
    elif text is not None:
        content = {"size": len(text), "mimeType": mime or "text/plain", "text": text}
        resp_headers.setdefault("Content-Type", mime or "text/plain")
    else:
        content = {"size": 0, "mimeType": ""}
    if "text" in content:
        content["size"] = len(content["text"].encode("utf-8"))
    when = START + timedelta(seconds=started)
    wait = {"wait": max(time_ms - 1, 0), "receive": min(time_ms, 1)} if wait_ms is None else \
        {"wait": min(wait_ms, time_ms), "receive": time_ms - min(wait_ms, time_ms)}
    request = {"method": method, "url": url, "httpVersion": "HTTP/1.1", "headers": headers(req_headers),
               "queryString": [], "cookies": [], "headersSize": -1, "bodySize": len(post["text"]) if post else 0}
    if post is not None:
        request["postData"] = post
    response = {"status": status, "statusText": _STATUS_TEXT.get(status, ""), "httpVersion": "HTTP/1.1",
                "headers": headers(resp_headers), "cookies": [], "content": content, "redirectURL": "",
                "headersSize": -1, "bodySize": content["size"]}
    if error:
        response["_error"] = error
    if arrivals is not None:
        parts = [sse_text([event]) for event in sse] if sse is not None else [content.get("text", "")]
        response["_chunks"] = [{"ts": _stamp(START + timedelta(seconds=at), "microseconds"),
                                "size": len(part.encode("utf-8"))} for at, part in zip(arrivals, parts, strict=True)]
    return {"startedDateTime": _stamp(when), "time": time_ms,
            "request": request, "response": response, "cache": {},
            "timings": {"blocked": 0, "dns": -1, "connect": -1, "send": 0, **wait}}


def post_headers(session: str | None = None, version: str | None = None, **extra: str) -> dict[str, str]:
    out = {"Accept": ACCEPT, "Content-Type": "application/json"}
    if session:
        out["Mcp-Session-Id"] = session
    if version:
        out["MCP-Protocol-Version"] = version
    out.update({k.replace("_", "-"): v for k, v in extra.items()})
    return out


def initialize_request(version: str, caps: Any = None, client: str = "c") -> dict:
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": caps or {},
                       "clientInfo": {"name": client, "version": "1"}}}


def initialize_result(version: str, caps: Any = None, server: str = "s") -> dict:
    return {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": version, "capabilities": caps or {},
                                                  "serverInfo": {"name": server, "version": "1"}}}


def handshake(version: str = "2025-11-25", session: str | None = "s1", client_caps: Any = None,
              server_caps: Any = None, *, url: str = URL, sse: bool = False, started: float = 0.0) -> list[dict]:
    """initialize (answered with a JSON body, or SSE) and notifications/initialized (202)."""
    issued = {"Mcp-Session-Id": session} if session else {}
    result = initialize_result(version, server_caps)
    first = entry(url=url, request_headers=post_headers(), body=initialize_request(version, client_caps),
                  response_headers=issued, started=started,
                  **({"sse": [result]} if sse else {"json_body": result}))
    second = entry(url=url, request_headers=post_headers(session, version if version >= "2025-06-18" else None),
                   body={"jsonrpc": "2.0", "method": "notifications/initialized"}, status=202,
                   started=started + 0.05, time_ms=2)
    return [first, second]


def in_sequence(entries: list[dict], step: float = 0.1) -> list[dict]:
    """Entries left at the default start (``started=0``) start one after the other, ``step``
    seconds apart by position (the reader orders messages by time)."""
    first = _stamp(START)
    for position, item in enumerate(entries):
        if position and item["startedDateTime"] == first:
            item["startedDateTime"] = _stamp(START + timedelta(seconds=position * step))
    return entries


def _stamp(when: datetime, timespec: str = "milliseconds") -> str:
    return when.isoformat(timespec=timespec).replace("+00:00", "Z")


def har(entries: list[dict], creator: str = "mcplint-tests") -> dict:
    return {"log": {"version": "1.2", "creator": {"name": creator, "version": "1.0"}, "pages": [],
                    "entries": entries}}


def dumps(doc: dict) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def one_per_line(entries: list[dict]) -> str:
    inner = ",\n".join(json.dumps(e, separators=(",", ":")) for e in entries)
    return '{"log":{"version":"1.2","creator":{"name":"example","version":"1"},"entries":[\n' + inner + "\n]}}\n"


def compact(entry_: dict) -> str:
    return json.dumps(entry_, separators=(",", ":"))


def expand_example(text: str) -> str:
    """A ```har rule-page block, ready for the HAR reader (see the module docstring)."""
    out = []
    for line in text.split("\n"):
        line = _ANNOTATION.sub("", line)
        stripped = line.strip()
        if stripped.startswith("#"):
            match = _INIT.match(stripped)
            if match is None:
                out.append("")
                continue
            options = dict(part.split("=", 1) for part in match.group(2).split())
            session = options.get("session", "s1")
            entries = handshake(match.group(1), None if session == "-" else session,
                                json.loads(options.get("C", "{}")), json.loads(options.get("S", "{}")),
                                url=options.get("url", URL), sse=options.get("sse") == "yes")
            out.append(", ".join(compact(e) for e in entries) + ",")
            continue
        out.append(line)
    return "\n".join(out)

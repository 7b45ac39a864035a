"""mitmproxy flow files (``mitmdump -w``), read with mitmproxy's own ``FlowReader``.

mitmproxy is an optional extra (``pip install 'mcplint[mitmproxy]'``); without it a flow file is
recognised and named, and ``check`` exits 2 saying which extra reads it.

Each HTTP flow becomes the HAR entry it would export to (method, URL, headers, bodies, status,
timings, the error of a broken exchange, and the per-chunk arrival times that
:mod:`mcplint.commands.capture.mitm_addon` keeps for streamed SSE responses), and the entries go through the HAR
reader (:mod:`mcplint.input.formats.har`): the same frames, sessions, order and HTTP facts as a HAR of
the same traffic, so the HTTP rules judge both alike. A finding's line is the number of the flow
in the file (other flows, TCP/UDP/DNS, count but carry no message). A streamed response saved
without its body (mitmdump without the addon) is an exchange whose body was not recorded.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from mcplint.commands.capture.mitm_addon import CHUNKS_KEY
from mcplint.input.formats.har import read_har
from mcplint.input.parse import Frame
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Kind

EXTRA = "pip install 'mcplint[mitmproxy]'"
#: the start of a flow file: a tnetstring dictionary (``<length>:<length>:<key>;``) whose first
#: key is one of a flow's (mitmproxy writes a flow's state last key first: ``websocket`` today)
_HEAD = re.compile(r"^\d{1,12}:\d{1,9}:(websocket|response|request|version|type|id|error|marked|metadata|comment|"
                   r"server_conn|client_conn|timestamp_created|is_replay|intercepted|live);")
#: a body size with no text: the HAR way to say that the body was not recorded
_UNRECORDED = {"size": 1, "comment": "streamed by mitmproxy without mcplint's addon: body not recorded"}


def _sniff(head: list[str]) -> int:
    return 98 if head and _HEAD.match(head[0]) else 0


def _missing() -> str | None:
    try:
        import mitmproxy.io  # noqa: F401
    except ImportError:
        return f"reading a mitmproxy flow file needs mitmproxy: {EXTRA}"
    return None


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _ms(start: float | None, end: float | None) -> float:
    return max(0.0, (end - start) * 1000) if start is not None and end is not None else -1


def _headers(headers) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in headers.items(multi=True)]


def _body(message, mime: str | None) -> dict[str, Any]:
    """HAR ``postData``/``content`` of a request or response (decoded per Content-Encoding)."""
    if message.raw_content is None:
        return dict(_UNRECORDED, mimeType=mime or "")
    data = message.get_content(strict=False) or b""
    try:
        return {"size": len(data), "mimeType": mime or "", "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"size": len(data), "mimeType": mime or "", "text": base64.b64encode(data).decode(),
                "encoding": "base64"}


def har_entry(flow) -> dict[str, Any]:
    """The HAR 1.2 entry of one mitmproxy ``HTTPFlow``."""
    request, response = flow.request, flow.response
    post = _body(request, request.headers.get("content-type"))
    entry: dict[str, Any] = {
        "startedDateTime": _iso(request.timestamp_start),
        "request": {"method": request.method, "url": request.url, "httpVersion": request.http_version,
                    "headers": _headers(request.headers), "queryString": [], "headersSize": -1,
                    "bodySize": post["size"], "postData": post},
    }
    peer = getattr(flow.server_conn, "peername", None)
    if peer:
        entry["serverIPAddress"] = str(peer[0])
    if response is None:
        entry["response"] = {"status": 0, "statusText": "", "headers": [], "content": {"size": 0, "mimeType": ""}}
        entry["time"] = _ms(request.timestamp_start, request.timestamp_end)
        entry["timings"] = {"send": entry["time"], "wait": -1, "receive": -1}
    else:
        content = _body(response, response.headers.get("content-type"))
        entry["response"] = {"status": response.status_code, "statusText": response.reason,
                             "httpVersion": response.http_version, "headers": _headers(response.headers),
                             "content": content, "headersSize": -1, "bodySize": content["size"]}
        chunks = flow.metadata.get(CHUNKS_KEY)
        if isinstance(chunks, list) and chunks:
            entry["response"]["_chunks"] = chunks
        send = _ms(request.timestamp_start, request.timestamp_end)
        wait = _ms(request.timestamp_end, response.timestamp_start)
        receive = _ms(response.timestamp_start, response.timestamp_end)
        entry["timings"] = {"send": max(send, 0), "wait": max(wait, 0), "receive": max(receive, 0)}
        entry["time"] = sum(entry["timings"].values())
    if flow.error is not None:
        entry["response"]["_error"] = flow.error.msg
    return entry


def read_flows(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    """Frames of a flow file (see the module docstring)."""
    from mitmproxy import http
    from mitmproxy.io import FlowReader

    data = b"\n".join(line for line, _ in lines)  # the file's bytes (a flow file never ends with a newline)
    slots: list[str] = []  # one per flow: its HAR entry, or "" for a flow that is no HTTP exchange
    error = None
    try:
        for flow in FlowReader(io.BytesIO(data)).stream():
            slots.append(json.dumps(har_entry(flow), ensure_ascii=False) if isinstance(flow, http.HTTPFlow) else "")
    except Exception as exc:  # noqa: BLE001 - mitmproxy's reader raises all kinds on a damaged file
        error = f"unreadable mitmproxy flow file after {len(slots)} flows: {exc}"
    # one line per flow, so that a finding's line is its flow's number
    entries = [index for index, slot in enumerate(slots) if slot]
    document = ['{"log":{"version":"1.2","creator":{"name":"mitmproxy"},"entries":[' if not index else ""
                for index in range(len(slots))] or ['{"log":{"version":"1.2","creator":{"name":"mitmproxy"},"entries":[']
    for index in entries:
        document[index] += slots[index] + ("," if index != entries[-1] else "")
    document[-1] += "]}}"
    # header bytes that are not UTF-8 come as lone surrogates: written as JSON escapes, read back as such
    yield from read_har((line.encode("utf-8", "backslashreplace"), False) for line in document)
    if error is not None:
        yield Frame(len(slots) + 1, "", kind=Kind.MALFORMED, flags=frozenset({"envelope"}), error=error,
                    transport="http", observed=False)


MITMPROXY = register_format(InputFormat("mitmproxy", read_flows, _sniff,
                                        f"mitmproxy flow file (mitmdump -w), needs {EXTRA}",
                                        binary=True, missing=_missing))

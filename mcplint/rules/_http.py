"""Shared facts and helpers of the HTTP rule families (HT, HS, HM, AU).

HTTP captures (the HAR reader) give every HTTP exchange an *exchange* record: a ``Kind.COMMENT``
record whose ``http`` facts hold the request and response of one HAR entry (see
:mod:`mcplint.input.formats.har`). Most HTTP rules judge those records, because they exist whether or
not a JSON-RPC message travelled (a ``202``, a ``DELETE``, a ``401``...). The
:class:`HttpTracker` keeps what later exchanges of the session are judged against: the issued
``Mcp-Session-Id``, SSE event ids, streams that ended without their response, and so on.

Messages never show header values that may be secrets: rules name headers, and any value they
quote goes through :func:`shown`.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from mcplint import protocol
from mcplint.excerpt import mask_text, shorten
from mcplint.model import ORDER_UNCERTAIN, Direction, Kind, Record, id_key
from mcplint.rules._base import Tracker, tracker

EXCHANGES = frozenset({Kind.COMMENT})
STREAMABLE_LEGACY = "basic/transports §Streamable HTTP"
MODERN_HTTP = "basic/transports/streamable-http"
JSON = "application/json"
SSE = "text/event-stream"
HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


# -- reading the facts -------------------------------------------------------------------------
def exchange(record: Record) -> dict | None:
    """The HTTP facts of an exchange record, or None for any other record."""
    http = record.http
    return http if http is not None and http.get("role") == "exchange" else None


def request_header(http: dict, name: str) -> str | None:
    return http["request_headers"].get(name)


def response_header(http: dict, name: str) -> str | None:
    return http["response_headers"].get(name)


def shown(value: str, limit: int = 60) -> str:
    """A header value or URL as it may appear in a message: secrets masked, cut to ``limit``."""
    return shorten(mask_text(value), limit)


def where(http: dict) -> str:
    """``entry 3 (POST /mcp → 202)``: how a finding names the HTTP exchange."""
    status = http["status"] if http["status"] is not None else "no response"
    path = http["path"] + ("?…" if http["query"] else "")
    return f"entry {http['entry']} ({http['method']} {path} → {status})"


def ok(http: dict) -> bool:
    status = http["status"]
    return status is not None and 200 <= status < 300


def flat(values: list[Any]) -> list[Any]:
    """Messages of a list of body values, batches unfolded."""
    out: list[Any] = []
    for value in values:
        out.extend(value if isinstance(value, list) else (value,))
    return out


def shape(value: Any) -> str:
    """``request`` / ``notification`` / ``response`` / ``invalid`` of a parsed JSON-RPC value."""
    if not isinstance(value, dict):
        return "invalid"
    if isinstance(value.get("method"), str) and "result" not in value and "error" not in value:
        return "request" if "id" in value else "notification"
    if "method" not in value and ("result" in value or "error" in value):
        return "response"
    return "invalid"


def sent(http: dict, kind: str | None = None) -> list[dict]:
    """Client messages of the request body (of one shape when ``kind`` is given)."""
    return [v for v in flat(http["sent"]) if kind is None or shape(v) == kind]


def received(http: dict, kind: str | None = None) -> list[dict]:
    """Server messages of the response (JSON body or SSE events), in order."""
    return [v for v in flat(http["received"]) if kind is None or shape(v) == kind]


def describe(value: dict) -> str:
    """``tools/call #3``, ``notifications/initialized``, ``response #3``."""
    kind = shape(value)
    if kind == "request":
        return f"{value['method']} #{_id(value.get('id'))}"
    if kind == "notification":
        return value["method"]
    if kind == "response":
        return f"{'error' if 'error' in value else 'response'} #{_id(value.get('id'))}"
    return "a non-message value"


def _id(value: Any) -> str:
    import orjson

    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)


def error_code(value: Any) -> Any:
    error = value.get("error") if isinstance(value, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def media_types(header: str | None) -> list[str]:
    """Media ranges of an ``Accept`` header, lower case, parameters dropped."""
    if not header:
        return []
    return [part.split(";", 1)[0].strip().lower() for part in header.split(",") if part.strip()]


def accept_problem(http: dict, wanted: tuple[str, ...]) -> tuple[str, bool] | None:
    """What is wrong with the request's ``Accept`` header for ``wanted`` media types.

    ``(problem, wildcard_only)``: ``wildcard_only`` when a wildcard range covers what is missing
    (the types are accepted but not listed).
    """
    header = request_header(http, "accept")
    if header is None:
        return "has no Accept header", False
    ranges = media_types(header)
    missing = [m for m in wanted if m not in ranges]
    if not missing:
        return None
    wildcard = all("*/*" in ranges or f"{m.split('/')[0]}/*" in ranges for m in missing)
    return f"has Accept: {shown(header)} without {' and '.join(missing)}", wildcard


def version_in(http: dict, record: Record | None = None) -> str | None:
    """The revision an exchange speaks: its MCP-Protocol-Version header, the version the body
    names (initialize params, 2026-07-28 ``_meta``), else the session's."""
    header = request_header(http, "mcp-protocol-version")
    named = header
    for value in sent(http):
        params = value.get("params") if isinstance(value.get("params"), dict) else {}
        if value.get("method") == "initialize" and isinstance(params.get("protocolVersion"), str):
            named = named or params["protocolVersion"]
        meta = params.get("_meta")
        if isinstance(meta, dict) and isinstance(meta.get(protocol.PROTOCOL_VERSION_META), str):
            named = named or meta[protocol.PROTOCOL_VERSION_META]
    if named and _DATE.match(named):
        return protocol.nearest_known(named)
    return record.revision if record is not None else None


def is_modern_exchange(http: dict, session: Any) -> bool:
    """A 2026-07-28 exchange: a modern session, or a body/header that names a modern revision."""
    if session is not None and session.modern:
        return True
    version = version_in(http)
    return version in protocol.MODERN


def streamable(http: dict) -> bool:
    return http["transport"] == "streamable"


def meta_version(value: dict) -> Any:
    params = value.get("params") if isinstance(value.get("params"), dict) else {}
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    return meta.get(protocol.PROTOCOL_VERSION_META)


def valid_version(value: str) -> bool:
    """A revision string a server could support: a date from 2024-11-05 on."""
    return bool(_DATE.match(value)) and value >= protocol.V2024_11_05


def token_of(value: dict) -> Any:
    """The :func:`~mcplint.model.id_key` of a request value's progress token; None without one."""
    params = value.get("params") if isinstance(value.get("params"), dict) else {}
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    return id_key(meta["progressToken"]) if "progressToken" in meta else None


def progress_token(value: dict) -> Any:
    """The token (its id_key) of a ``notifications/progress`` value; None when it names none."""
    if value.get("method") != "notifications/progress":
        return None
    params = value.get("params") if isinstance(value.get("params"), dict) else {}
    return id_key(params["progressToken"]) if "progressToken" in params else None


def answered_in(http: dict) -> set:
    """Ids of the responses among the server messages of an exchange."""
    return {id_key(v.get("id")) for v in received(http, "response") if "id" in v}


def request_ids(http: dict) -> list:
    return [id_key(v["id"]) for v in sent(http, "request")]


def stream_events(http: dict) -> list[tuple[dict, Any]]:
    """``(event, value)`` for each SSE event of the response; value None when it carries no message."""
    out = []
    for event in http["events"]:
        data = event["data"]
        value = None
        if data is not None and data.strip() and event["event"] != "endpoint":
            try:
                import orjson

                value = orjson.loads(data)
            except ValueError:
                value = ...  # not JSON
        out.append((event, value))
    return out


def final_response_index(http: dict) -> int | None:
    """Index (in ``stream_events``) of the event answering the last request of the POST."""
    wanted = set(request_ids(http))
    if not wanted:
        return None
    last = None
    for index, (_, value) in enumerate(stream_events(http)):
        for item in value if isinstance(value, list) else (value,):
            if shape(item) == "response" and id_key(item.get("id")) in wanted:
                wanted.discard(id_key(item.get("id")))
                last = index
    return last if not wanted else None


# -- per-session facts ---------------------------------------------------------------------------
@dataclass(slots=True)
class Stream:
    """What a session remembers of one response stream (a POST's or a GET's)."""

    entry: int
    record: Record
    method: str
    requests: set = field(default_factory=set)  # id keys of the requests POSTed with it
    tokens: set = field(default_factory=set)  # progress tokens of those requests
    unanswered: set = field(default_factory=set)  # request ids the stream ended without answering
    ended: float | None = None
    retry: int | None = None  # last retry: value (ms)
    sse: bool = False


@dataclass(slots=True)
class HttpFacts:
    endpoint: str | None = None  # origin + path of the session's MCP endpoint (first POST)
    legacy_endpoint: str | None = None  # HTTP+SSE: the URL the endpoint event announced
    session_id: str | None = None  # Mcp-Session-Id the server issued
    issued_entry: int | None = None
    dead: dict = field(default_factory=dict)  # session id -> (entry, "404" | "deleted")
    delete_sent: bool = False
    event_ids: dict = field(default_factory=dict)  # SSE event id -> (entry, data)
    streams: dict = field(default_factory=dict)  # entry -> Stream
    tokens: dict = field(default_factory=dict)  # progress token -> entry of the request carrying it
    posted: dict = field(default_factory=dict)  # request id key -> entry that POSTed it
    interrupted: dict = field(default_factory=dict)  # request id key -> Stream that ended without it
    delivered: dict = field(default_factory=dict)  # ("request"|"response", id key) -> entry (HT011)
    ended: dict | None = None  # the first exchange that ended the session: a DELETE, or a 404 for its id
    last: Record | None = None  # last exchange record
    exchanges: int = 0


@tracker
class HttpTracker(Tracker):
    """Commits each HTTP exchange into the session's :class:`HttpFacts`."""

    kinds = EXCHANGES
    facts = HttpFacts

    def commit(self, record: Record, session: Any) -> None:
        http = exchange(record)
        if http is None:
            return
        facts: HttpFacts = self.of(session)
        facts.last = record
        facts.exchanges += 1
        entry = http["entry"]
        if http["method"] == "POST" and facts.endpoint is None and http["transport"] == "streamable":
            facts.endpoint = http["origin"] + http["path"]
        if http["endpoint"]:
            facts.legacy_endpoint = http["endpoint"]
        issued = response_header(http, "mcp-session-id")
        if issued and facts.session_id is None:
            facts.session_id, facts.issued_entry = issued, entry
        used = request_header(http, "mcp-session-id")
        if used and http["status"] == 404:
            facts.dead.setdefault(used, (entry, "404"))
        if http["method"] == "DELETE" or (used and http["status"] == 404):
            facts.ended = facts.ended or http
        if http["method"] == "DELETE":
            facts.delete_sent = True
            if used and ok(http):
                facts.dead.setdefault(used, (entry, "deleted"))
        for event in http["events"]:
            if event["id"]:
                facts.event_ids.setdefault(event["id"], (entry, event["data"]))
        for value in sent(http, "request"):
            key = id_key(value["id"])
            facts.posted[key] = entry
            facts.delivered.pop(("response", key), None)
            token = token_of(value)
            if token is not None:
                facts.tokens[token] = entry
        for value in sent(http, "response"):
            facts.delivered.pop(("request", id_key(value.get("id"))), None)
        for value in received(http):
            kind = shape(value)
            if kind in ("request", "response") and "id" in value:
                facts.delivered.setdefault((kind, id_key(value["id"])), entry)
        stream = Stream(entry, record, http["method"], set(request_ids(http)),
                        {t for t in (token_of(v) for v in sent(http, "request")) if t is not None},
                        ended=http["ended"], sse=http["sse"])
        for event in http["events"]:
            if event["retry"] is not None:
                stream.retry = event["retry"]
        if http["sse"] and http["body_recorded"] and stream.requests:
            stream.unanswered = stream.requests - answered_in(http)
            for key in stream.unanswered:
                facts.interrupted[key] = stream
                if session.modern and http["aborted"]:
                    _closed_is_cancel(session, key, record)
        for key in answered_in(http):
            facts.interrupted.pop(key, None)
        facts.streams[entry] = stream


def _closed_is_cancel(session: Any, key: Any, record: Record) -> None:
    """In 2026-07-28 a client cancels over HTTP by closing the request's response stream: record
    the exchange as the request's cancellation, as a ``notifications/cancelled`` would be."""
    entry = session.requests[Direction.C2S].get(key)
    if entry is not None and entry.response is None and entry.cancel is None:
        entry.cancel = record


def facts_of(session: Any) -> HttpFacts:
    return HttpTracker.of(session)


def seen_facts(session: Any) -> HttpFacts | None:
    """The session's HttpFacts if anything made them, else None: a session without HTTP
    exchanges, whose facts would all be empty (no streams, no session id, nothing interrupted)."""
    return HttpTracker.peek(session)


def resumed_stream(http: dict, facts: HttpFacts) -> Stream | None:
    """The stream a GET with ``Last-Event-ID`` resumes (None when unknown)."""
    last = request_header(http, "last-event-id")
    if not last or last not in facts.event_ids:
        return None
    return facts.streams.get(facts.event_ids[last][0])


def after(later: dict, earlier: dict) -> bool:
    """Whether exchange ``later`` started after exchange ``earlier`` (by time, else HAR order)."""
    if later["started"] is not None and earlier["started"] is not None:
        return later["started"] > earlier["started"]
    return later["entry"] > earlier["entry"]


def client_closed(http: dict) -> bool:
    """Whether the recorder says the client itself broke off the exchange (``net::ERR_ABORTED``,
    Firefox's ``NS_BINDING_ABORTED``, a cancelled request)."""
    error = (http["error"] or "").lower()
    return "abort" in error or "cancel" in error


# -- when client requests ran ---------------------------------------------------------------------
INF = float("inf")


@dataclass(slots=True)
class Run:
    """When one client request ran: from its POST until its response (or cancellation) came.

    ``sure_end`` is as long as it surely ran, ``may_end`` as long as it may have run (``INF``
    while unanswered; the two differ when the answer's time is unknown).
    """

    key: Any  # model.id_key of the request id
    method: str | None
    entry: int | None  # the exchange that POSTed it
    start: float | None
    sure_end: float
    may_end: float
    task: bool  # answered with a CreateTaskResult: the work goes on as a task


def runs(session: Any, facts: HttpFacts) -> dict[tuple, Run]:
    """The client requests of the session (but ``ping``) by id key, with when they ran."""
    out = {}
    for table in (session.pending[Direction.C2S], session.requests[Direction.C2S]):
        for key, entry in table.items():
            record = entry.record
            if record.method == "ping":
                continue
            start = record.t
            ended = entry.response if entry.response is not None else entry.cancel
            if ended is None:
                sure = may = INF
            elif ended.t is None:  # answered, but when is not known
                sure, may = (start if start is not None else -INF), INF
            else:  # a response ends its stream: its time is the stream's end, or its chunk's
                sure = may = ended.t
            out[key] = Run(key, record.method, facts.posted.get(key), start, sure, may, entry.task)
    return out


def running_alone(candidates: dict[tuple, Run], low: float, high: float) -> Run | None:
    """The one request that surely ran from ``low`` to ``high`` while no other may have run."""
    if low == -INF or high == INF or low > high:
        return None  # unknown, or inconsistent timings
    inside = [r for r in candidates.values() if r.start is not None and r.start <= low and high <= r.sure_end]
    if len(inside) != 1:
        return None
    only = inside[0]
    for other in candidates.values():
        start = other.start if other.start is not None else -INF
        if other is not only and start <= high and low <= other.may_end:
            return None
    return only


def arrival(value: dict, http: dict, session: Any, record: Record | None = None) -> tuple[float, float]:
    """When a server message of a stream may have arrived: when its ``record`` arrived, if the
    reader knows it; else while the stream was open, and for a server request, before the client
    answered it."""
    if record is not None and record.t is not None and ORDER_UNCERTAIN not in record.flags:
        return record.t, record.t
    low = http["first_byte"] if http["first_byte"] is not None else http["started"]
    high = http["ended"] if http["ended"] is not None else INF
    if shape(value) == "request":
        asked = session.find_request(Direction.S2C, value.get("id"))
        answer = asked.response if asked is not None else None
        if answer is not None and answer.t is not None:
            high = min(high, answer.t)
    return (low if low is not None else -INF), high


# -- where the server is -------------------------------------------------------------------------
def host_of(value: str | None) -> str:
    """The host of a URL, an origin or a ``Host`` header value, lower case ('' when none)."""
    if not value:
        return ""
    try:
        return urlsplit(value if "://" in value else "//" + value).hostname or ""
    except ValueError:
        return ""


def local_host(host: str) -> bool:
    """A name or address of this machine: localhost, 127.0.0.0/8, ::1 (also IPv4-mapped), and
    0.0.0.0, which browsers and systems route to local services."""
    host = host.lower().strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or ip.is_unspecified or (mapped is not None and mapped.is_loopback)


def local_reach(http: dict) -> str | None:
    """How an exchange reached a server on this machine: ``"address"`` when the request named a
    loopback host, ``"name"`` when it named another host (URL or ``Host`` header) but went to a
    loopback address (HAR ``serverIPAddress``: DNS rebinding, a hosts-file name or a local
    proxy), None when nothing says the server is local."""
    url_host = host_of(http["url"])
    if not (local_host(url_host) or local_host(http.get("server_ip") or "")):
        return None
    return "address" if local_host(requested_host(http)) else "name"


def requested_host(http: dict) -> str:
    """The host the request asked for: its ``Host`` (HTTP/2 ``:authority``) header, else the URL's."""
    return host_of(request_header(http, "host") or request_header(http, ":authority")) or host_of(http["url"])

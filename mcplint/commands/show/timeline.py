"""``mcplint show``: a capture as a timeline (table, Mermaid sequence diagram or HTML report).

The data every view reads (:class:`Row`, :class:`SessionHeader`) is made here, masked as it is
made (``mcplint.excerpt``); renderers pass it through ``mcplint.untrusted`` for their format.
"""

from __future__ import annotations

import base64
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcplint import protocol
from mcplint.excerpt import excerpt_of, mask_field, mask_id, mask_session, mask_text, mask_value, shorten
from mcplint.model import Direction, Finding, Kind, Record
from mcplint.redact.placeholders import BLOB_PREFIX
from mcplint.rules._base import Tracker, fmt_id

#: Strings longer than this are elided from whole messages (``Row.message``).
MAX_STRING = 2048
#: A whole message is cut after this many characters (with a note saying how much is left out).
MAX_MESSAGE = 1 << 16
_CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo"
_SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
#: Labels and details are cut to this many characters, after masking this many.
MAX_LABEL, MASK_SPAN = 80, 2048


@dataclass
class Row:
    """One line of the capture as the timeline shows it (two rows share a line when a HAR entry
    holds a request and its response). Everything from the capture is masked."""

    path: str
    session: str
    line: int
    t: float | None
    direction: str | None
    kind: str  # a Kind value, "http" (an HTTP exchange without a message) or "finding" (synthetic)
    method: str | None
    id: Any
    status: str = ""
    latency: float | None = None
    answered_at: int | None = None  # line of the response (requests)
    answers: int | None = None  # line of the request (responses)
    excerpt: str = ""
    findings: list[Finding] = field(default_factory=list)
    #: what happened: the method and its subject (``tools/call get_weather``); a response carries its
    #: request's label; text rows their first line; HTTP rows ``HTTP POST /mcp``
    label: str = ""
    inferred: bool = False  # the analyzer inferred the direction (shown ``C→S?``)
    detail: str = ""  # the outcome in words: ``isError: ...``, ``error -32602 Unknown tool: x``, ``HTTP 401``
    http_status: int | None = None  # the HTTP status of the exchange (HTTP captures)
    message: str | None = None  # the whole message, pretty-printed and masked (None: not JSON)
    anchor: str = ""  # file-qualified, unique, URL-safe: f{file}-L{line}[-{n}]
    span: int = 1  # input lines the message occupies (a pretty-printed message: several)

    @property
    def id_text(self) -> str:
        return "" if self.id is None else fmt_id(self.id)

    @property
    def arrow(self) -> str:
        """``C→S``, ``S→C`` (``?`` appended when inferred), or nothing."""
        arrow = ARROW.get(self.direction, "")
        return arrow + "?" if arrow and self.inferred else arrow


@dataclass
class SessionHeader:
    """A session at a glance (masked): who spoke, which revision, what each side declared."""

    path: str
    session: str
    client_name: str | None = None
    client_version: str | None = None
    server_name: str | None = None
    server_version: str | None = None
    requested_revision: str | None = None
    negotiated_revision: str | None = None
    client_capabilities: dict | None = None
    server_capabilities: dict | None = None
    instructions: str | None = None
    transport: str | None = None  # "stdio" | "http" when the input format says
    first_t: float | None = None
    last_t: float | None = None
    requests: int = 0
    responses: int = 0  # results and errors
    errors: int = 0  # error responses
    notifications: int = 0
    stderr: int = 0
    text: int = 0  # non-JSON and malformed lines
    findings: dict[str, int] = field(default_factory=dict)  # severity -> count (``attach``)

    @property
    def duration(self) -> float | None:
        if self.first_t is None or self.last_t is None:
            return None
        return self.last_t - self.first_t

    @property
    def client(self) -> str:
        return " ".join(p for p in (self.client_name, self.client_version) if p)

    @property
    def server(self) -> str:
        return " ".join(p for p in (self.server_name, self.server_version) if p)


def _status(record: Record) -> str:
    kind = record.kind
    if kind is Kind.REQUEST:
        return "pending"
    if kind is Kind.RESULT:
        result = record.msg.get("result") if isinstance(record.msg, dict) else None
        if isinstance(result, dict) and result.get("isError") is True:
            return "isError"
        return "ok" if record.answer in ("ok", "after-cancel") else (record.answer or "ok")
    if kind is Kind.ERROR:
        error = record.msg.get("error") if isinstance(record.msg, dict) else None
        return f"error {error.get('code')}" if isinstance(error, dict) else "error"
    if kind is Kind.NOTIFICATION:
        return ""
    return {Kind.TEXT: "non-JSON", Kind.MALFORMED: "malformed", Kind.STDERR: "stderr"}.get(kind, kind.value)


# -- what a row says ----------------------------------------------------------------------------

def _cut(text: str, limit: int = MAX_LABEL) -> str:
    return shorten(text, limit)


def _masked(text: str) -> str:
    """``text`` masked, then cut (cut first, a secret split at the cut could escape masking)."""
    return _cut(mask_text(text[:MASK_SPAN]))


def _str(value: Any) -> str | None:
    return value if type(value) is str and value else None


#: the params member that names what a request or notification is about
_SUBJECT = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri", "resources/subscribe": "uri",
            "resources/unsubscribe": "uri", "notifications/resources/updated": "uri",
            "notifications/message": "level", "logging/setLevel": "level", "tasks/get": "taskId",
            "tasks/result": "taskId", "tasks/cancel": "taskId", "notifications/cancelled": "requestId"}


def _subject(method: str | None, params: Any) -> str | None:
    if not method or type(params) is not dict:
        return None
    if method == "completion/complete":
        ref = params.get("ref") if type(params.get("ref")) is dict else {}
        argument = params.get("argument") if type(params.get("argument")) is dict else {}
        parts = [_str(ref.get("name")) or _str(ref.get("uri")), _str(argument.get("name"))]
        return " ".join(p for p in parts if p) or None
    if method == "notifications/progress":
        progress, total = params.get("progress"), params.get("total")
        if type(progress) in (int, float):
            return f"{progress:g}" + (f"/{total:g}" if type(total) in (int, float) else "")
        return None
    member = _SUBJECT.get(method)
    if member is None:
        return None
    value = params.get(member)
    if member == "requestId" and value is not None and type(value) in (int, str):
        return "#" + fmt_id(value)
    return _str(value)


def _label(record: Record) -> str:
    """What happened, masked (see ``Row.label``)."""
    kind = record.kind
    if kind in (Kind.STDERR, Kind.TEXT, Kind.MALFORMED):
        text = record.text.strip()
        first = " ".join(text.split("\n", 1)[0][:MASK_SPAN].split()) if text else ""
        return _masked(first) if first else kind.value
    if record.is_response:
        request = record.request
        if request is not None:
            return _label(request)
    method = record.effective_method
    if method is None:
        return kind.value
    subject = _subject(method, record.params)
    if subject is None:
        return mask_field(method) or method
    return _masked(f"{method} {subject[:MASK_SPAN]}")


def _first_text(content: Any) -> str | None:
    if type(content) is list:
        for item in content:
            if type(item) is dict and item.get("type") == "text" and type(item.get("text")) is str:
                return item["text"]
    return None


_NOT_JSON = frozenset({Kind.MALFORMED, Kind.TEXT, Kind.STDERR})

_COUNTED = {"tools/list": "tools", "resources/list": "resources", "resources/templates/list": "resourceTemplates",
            "prompts/list": "prompts"}


def _detail(record: Record) -> str:
    """The outcome in words, masked (see ``Row.detail``)."""
    kind = record.kind
    msg = record.msg if type(record.msg) is dict else {}
    if kind is Kind.ERROR:
        error = msg.get("error")
        if type(error) is not dict:
            return "error"
        message = error.get("message")
        text = f"error {error.get('code')}" + (f" {str(message)[:MASK_SPAN]}" if message else "")
        return _masked(text)
    if kind is Kind.RESULT:
        result = msg.get("result")
        if type(result) is not dict:
            return ""
        method = record.effective_method
        if result.get("isError") is True:
            text = _first_text(result.get("content"))
            return _masked("isError" + (f": {text[:MASK_SPAN]}" if text else ""))
        if record.answer == "after-cancel":
            return "after cancel"
        if method in _COUNTED and type(result.get(_COUNTED[method])) is list:
            n = len(result[_COUNTED[method]])
            more = ", more pages" if result.get("nextCursor") is not None else ""
            return f"{n} {_COUNTED[method] if n != 1 else _COUNTED[method][:-1]}{more}"
        if method in ("initialize", "server/discover"):
            meta = result.get("_meta") if type(result.get("_meta")) is dict else {}
            info = result.get("serverInfo") or meta.get(_SERVER_INFO_META)
            info = info if type(info) is dict else {}
            versions = result.get("supportedVersions")
            versions = ", ".join(v for v in versions if type(v) is str) if type(versions) is list \
                else _str(result.get("protocolVersion"))
            parts = [_str(info.get("name")), _str(info.get("version")), versions]
            return _masked(" ".join(p for p in parts if p))
        return ""
    if kind is Kind.MALFORMED and record.error:
        return _masked(record.error)
    if kind is Kind.NOTIFICATION and record.method == "notifications/cancelled":
        params = record.params if type(record.params) is dict else {}
        reason = _str(params.get("reason"))
        return _masked(f"reason: {reason}") if reason else ""
    return ""


#: members the redaction engine reads as binary (image/audio ``data``, resource ``blob``): left
#: whole for it, which puts a placeholder of their size in their place without scanning them
_BLOB_MEMBERS = frozenset({"data", "blob"})


def _note(text: str) -> str:
    return f"<… {len(text.encode('utf-8', 'surrogatepass')):,} bytes …>"


def _elided(value: Any, member: str | None = None) -> Any:
    """``value`` with long strings (big texts, long logs) replaced by a note of their size."""
    kind = type(value)
    if kind is str:
        return value if len(value) <= MAX_STRING or member in _BLOB_MEMBERS else _note(value)
    if kind is dict:
        return {k: _elided(v, k) for k, v in value.items()}
    if kind is list:
        return [_elided(v) for v in value]
    return value


def _readable(value: Any) -> Any:
    """A masked value for reading: the engine's base64 blob placeholders decoded into a note
    (``<… [REDACTED] image/png 1,234 bytes …>``), strings still long elided."""
    kind = type(value)
    if kind is str:
        if value.startswith(BLOB_PREFIX):
            try:
                return f"<… {base64.b64decode(value).decode()} …>"
            except ValueError:
                return value
        return value if len(value) <= MAX_STRING else _note(value)
    if kind is dict:
        return {k: _readable(v) for k, v in value.items()}
    if kind is list:
        return [_readable(v) for v in value]
    return value


def whole_message(value: Any) -> str | None:
    """A JSON value pretty-printed for reading: long strings elided, masked, cut at ``MAX_MESSAGE``."""
    try:
        text = orjson.dumps(_readable(mask_value(_elided(value))), option=orjson.OPT_INDENT_2).decode()
    except (TypeError, orjson.JSONEncodeError):
        return None
    if len(text) > MAX_MESSAGE:
        cut = text.rfind("\n", 0, MAX_MESSAGE)
        cut = cut if cut > 0 else MAX_MESSAGE
        text = text[:cut] + f"\n<… {len(text) - cut:,} more characters not shown …>"
    return text


def _http_label(http: dict) -> str:
    """``HTTP POST /mcp (tools/list)``: the exchange and the methods it carried; a query is cut
    (it may hold a token, AU002)."""
    path = str(http.get("path") or "/") + ("?…" if http.get("query") else "")
    sent = http.get("sent") if type(http.get("sent")) is list else []
    methods = [item["method"] for value in sent for item in (value if type(value) is list else [value])
               if type(item) is dict and type(item.get("method")) is str]
    carried = f" ({', '.join(methods[:3])}{', …' if len(methods) > 3 else ''})" if methods else ""
    return _masked(f"HTTP {http.get('method') or '?'} {path}{carried}")


def _sent(http: dict) -> str | None:
    """The messages an HTTP exchange without a message row sent (not delivered: a 401), whole."""
    sent = http.get("sent")
    if type(sent) is not list or not sent:
        return None
    return whole_message(sent[0] if len(sent) == 1 else sent)


def _http_status(record: Record) -> int | None:
    http = record.http
    status = http.get("status") if type(http) is dict else None
    return status if type(status) is int else None


# -- the collector ------------------------------------------------------------------------------

class TimelineCollector(Tracker):
    """Keeps one :class:`Row` per message, text line or HTTP exchange, links responses to their
    requests, and one :class:`SessionHeader` per session (``headers``).

    What a row shows from the capture (session label, method, id, status, label, detail, excerpt,
    message) is masked as it is made (``mcplint.excerpt``), so every view and format shows it
    masked; filters match the masked values, as shown. ``attach`` adds the findings, with a
    synthetic row (kind ``finding``) for each finding whose line has no row.
    """

    kinds = frozenset(Kind) - {Kind.CONTINUATION}
    methods = None

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.headers: dict[tuple[str, str], SessionHeader] = {}
        self.files: list[str] = []  # paths in the order first seen (``f{n}`` of anchors counts from 1)
        self._file_index: dict[str, int] = {}
        self._on_line: dict[tuple[str, int], int] = {}  # rows made on a line, for anchors
        self._requests: dict[tuple, Row] = {}  # (path, session, seq) of a request -> its row

    # anchors and headers
    def _anchor(self, path: str, line: int) -> str:
        index = self._file_index.get(path)
        if index is None:
            index = self._file_index[path] = len(self.files) + 1
            self.files.append(path)
        n = self._on_line.get((path, line), 0) + 1
        self._on_line[(path, line)] = n
        return f"f{index}-L{line}" + (f"-{n}" if n > 1 else "")

    def header(self, path: str, session: str) -> SessionHeader:
        header = self.headers.get((path, session))
        if header is None:
            header = self.headers[(path, session)] = SessionHeader(path, session)
        return header

    def commit(self, record: Record, session) -> None:
        if record.parent is not None:
            return  # batch elements: the batch line stands for them
        label = mask_session(session.label)
        header = self.header(record.path, label)
        if record.t is not None:
            header.first_t = record.t if header.first_t is None else min(header.first_t, record.t)
            header.last_t = record.t if header.last_t is None else max(header.last_t, record.t)
        if header.transport is None and record.transport:
            header.transport = record.transport
        if record.kind is Kind.COMMENT:
            if "events-only" in record.flags:
                self._event(record, label)
            else:
                self._exchange(record, label)
            return
        self._count(header, record)
        self._handshake(header, record)
        row = Row(record.path, label, record.line, record.t,
                  record.direction.value if record.direction else None, record.kind.value,
                  mask_field(record.effective_method), mask_id(record.id) if record.has_id else None,
                  mask_field(_status(record)), excerpt=excerpt_of(record, 100),
                  label=_label(record), inferred=record.direction is not None and not record.direction_observed,
                  detail=_detail(record), http_status=_http_status(record),
                  message=whole_message(record.msg) if record.msg is not None and record.kind not in _NOT_JSON
                  else None,
                  anchor=self._anchor(record.path, record.line), span=max(record.span, 1))
        self.rows.append(row)
        if record.kind is Kind.REQUEST:
            self._requests[(record.path, session.label, record.seq)] = row
        elif record.is_response and record.request is not None:
            request_row = self._requests.get((record.path, session.label, record.request.seq))
            if request_row is not None:
                row.answers = request_row.line
                row.label = request_row.label
                if request_row.answered_at is None:
                    request_row.answered_at = row.line
                    request_row.status = "answered" if row.status in ("ok", "isError") else row.status
                    request_row.detail = row.detail if row.kind == "error" or row.status == "isError" else ""
                    if row.t is not None and request_row.t is not None:
                        request_row.latency = row.latency = row.t - request_row.t
        elif record.kind is Kind.NOTIFICATION and record.method == "notifications/cancelled":
            params = record.params if isinstance(record.params, dict) else {}
            entry = session.find_request(record.direction, params.get("requestId")) if record.direction else None
            request_row = self._requests.get((record.path, session.label, entry.record.seq)) \
                if entry is not None else None
            if request_row is not None and request_row.answered_at is None:
                request_row.status = "cancelled"
                request_row.detail = "cancelled"

    def _event(self, record: Record, session: str) -> None:
        """An event of a host log that records events instead of messages (Claude Code's): a row
        of kind "event" saying what the host logged."""
        msg = record.msg
        text = msg.get("raw") if type(msg) is dict and isinstance(msg.get("raw"), str) else record.text
        if not text.strip():
            return
        self.rows.append(Row(record.path, session, record.line, record.t, None, "event", None, None,
                             status="event", excerpt=_masked(text.strip()), label=_masked(" ".join(text.split())),
                             anchor=self._anchor(record.path, record.line)))

    def _exchange(self, record: Record, session: str) -> None:
        """A HAR entry that delivered no message (a 401, a GET that opens an SSE stream) gets a
        row of its own (``HTTP POST /mcp``); the rows of the messages it sent carry its status.
        The reader gives an entry's exchange after the messages it sent, before those it received."""
        http = record.http
        if type(http) is not dict or http.get("role") != "exchange":
            return  # a line of the capture's own structure
        if (record.path, record.line) in self._on_line:
            return  # the messages it sent have their rows
        status = _http_status(record)
        self.rows.append(Row(record.path, session, record.line, record.t, None, "http", None, None,
                             str(status) if status is not None else "no response",
                             excerpt=excerpt_of(record, 100), label=_http_label(http),
                             detail=f"HTTP {status}" if status is not None and status >= 400 else "",
                             http_status=status, message=_sent(http),
                             anchor=self._anchor(record.path, record.line)))

    @staticmethod
    def _count(header: SessionHeader, record: Record) -> None:
        kind = record.kind
        if kind is Kind.REQUEST:
            header.requests += 1
        elif kind is Kind.RESULT:
            header.responses += 1
        elif kind is Kind.ERROR:
            header.responses += 1
            header.errors += 1
        elif kind is Kind.NOTIFICATION:
            header.notifications += 1
        elif kind is Kind.STDERR:
            header.stderr += 1
        elif kind in (Kind.TEXT, Kind.MALFORMED):
            header.text += 1
        elif kind is Kind.BATCH:
            for child in record.children:
                TimelineCollector._count(header, child)

    @staticmethod
    def _handshake(header: SessionHeader, record: Record) -> None:
        """Names, revisions, capabilities and instructions from ``initialize`` (and the
        2026-07-28 ``server/discover`` and request ``_meta``)."""
        method = record.effective_method
        if record.kind is Kind.BATCH:
            for child in record.children:
                TimelineCollector._handshake(header, child)
            return
        msg = record.msg if type(record.msg) is dict else None
        if msg is None:
            return
        if record.kind is Kind.REQUEST:
            params = record.params if type(record.params) is dict else {}
            meta = params.get("_meta") if type(params.get("_meta")) is dict else {}
            if method == "initialize":
                info, version = params.get("clientInfo"), params.get("protocolVersion")
                caps = params.get("capabilities")
            else:  # 2026-07-28: every request says who sends it
                info = meta.get(_CLIENT_INFO_META)
                version = meta.get(protocol.PROTOCOL_VERSION_META)
                caps = meta.get(protocol.CLIENT_CAPABILITIES_META)
            if type(info) is dict and header.client_name is None:
                header.client_name = mask_field(_str(info.get("name")))
                header.client_version = mask_field(_str(info.get("version")))
            if type(version) is str and header.requested_revision is None:
                header.requested_revision = mask_field(version)
            if type(caps) is dict and header.client_capabilities is None:
                header.client_capabilities = mask_value(_elided(caps))
            return
        if record.kind is not Kind.RESULT or method not in ("initialize", "server/discover"):
            return
        result = msg.get("result")
        if type(result) is not dict:
            return
        meta = result.get("_meta") if type(result.get("_meta")) is dict else {}
        info = result.get("serverInfo") or meta.get(_SERVER_INFO_META)
        if type(info) is dict:
            header.server_name = mask_field(_str(info.get("name")))
            header.server_version = mask_field(_str(info.get("version")))
        if method == "initialize" and type(result.get("protocolVersion")) is str:
            header.negotiated_revision = mask_field(result["protocolVersion"])
        if type(result.get("capabilities")) is dict:
            header.server_capabilities = mask_value(_elided(result["capabilities"]))
        if type(result.get("instructions")) is str:
            header.instructions = mask_text(result["instructions"][:MAX_MESSAGE])

    def finish(self, session) -> None:
        header = self.headers.get((session.path, mask_session(session.label)))
        if header is None:
            return
        if header.negotiated_revision is None and session.version:
            header.negotiated_revision = mask_field(session.version)
        if header.requested_revision is None and session.requested_version:
            header.requested_revision = mask_field(session.requested_version)

    def attach(self, findings: list[Finding]) -> None:
        """Put each finding on its row (the row of its line that matches its direction and id
        best), or on a synthetic row of its own; count findings by severity in the headers."""
        by_line: dict[tuple[str, int], list[Row]] = {}
        for row in self.rows:
            by_line.setdefault((row.path, row.line), []).append(row)
        synthetic: list[Row] = []
        for finding in findings:
            session = finding.session or ""
            header = self.headers.get((finding.path, session))
            if header is not None:
                header.findings[finding.severity.value] = header.findings.get(finding.severity.value, 0) + 1
            rows = by_line.get((finding.path, finding.line))
            if rows:
                _best(rows, finding).findings.append(finding)
                continue
            row = Row(finding.path, session, finding.line, None, finding.direction, "finding",
                      finding.method, finding.id, finding.severity.value, findings=[finding],
                      label=_cut(f"{finding.code} {finding.message}"), inferred=finding.direction_inferred,
                      detail=finding.severity.value, excerpt=finding.excerpt or "",
                      anchor=self._anchor(finding.path, finding.line))
            synthetic.append(row)
        if synthetic:
            self.rows = _merged(self.rows, synthetic)


def _best(rows: list[Row], finding: Finding) -> Row:
    if len(rows) == 1:
        return rows[0]
    for row in reversed(rows):
        if row.direction == finding.direction and (finding.id is None or row.id == finding.id):
            return row
    for row in reversed(rows):
        if row.direction == finding.direction:
            return row
    return rows[-1]


def _merged(rows: list[Row], synthetic: list[Row]) -> list[Row]:
    """``rows`` with each synthetic row placed after the last row of its file at or before its
    line (before the file's first row when there is none; at the end for a file without rows)."""
    by_path: dict[str, list[tuple[int, int]]] = {}  # path -> (line, position), by line
    for i, row in enumerate(rows):
        by_path.setdefault(row.path, []).append((row.line, i))
    reach: dict[str, tuple[list[int], list[int]]] = {}  # path -> (lines, latest position up to each)
    for path, items in by_path.items():
        items.sort()
        latest, best = [], -1
        for _, i in items:
            best = max(best, i)
            latest.append(best)
        reach[path] = ([line for line, _ in items], latest)
    place: dict[int, list[Row]] = {}
    tail: list[Row] = []
    for extra in sorted(synthetic, key=lambda r: r.line):
        if extra.path not in reach:
            tail.append(extra)
            continue
        lines, latest = reach[extra.path]
        k = bisect_right(lines, extra.line)
        at = latest[k - 1] if k else min(i for _, i in by_path[extra.path]) - 1
        place.setdefault(at, []).append(extra)
    out = list(place.get(-1, []))
    for i, row in enumerate(rows):
        out.append(row)
        out.extend(place.get(i, []))
    return out + tail


@dataclass
class RowFilter:
    session: str | None = None
    method: str | None = None
    id: str | None = None
    direction: str | None = None
    since: float | None = None  # seconds from the first timestamp
    until: float | None = None
    line: int | None = None

    def keep(self, row: Row, start: float | None) -> bool:
        if self.session is not None and row.session != self.session:
            return False
        if self.method is not None and row.method != self.method:
            return False
        if self.id is not None and row.id_text.strip('"') != self.id.strip('"'):
            return False
        if self.direction is not None and row.direction != self.direction:
            return False
        if self.line is not None and not row.line <= self.line < row.line + row.span:
            return False
        if (self.since is not None or self.until is not None) and row.t is not None and start is not None:
            offset = row.t - start
            if (self.since is not None and offset < self.since) or (self.until is not None and offset > self.until):
                return False
        return True


def filtered(rows: list[Row], keep: RowFilter) -> list[Row]:
    start = next((r.t for r in rows if r.t is not None), None)
    return [row for row in rows if keep.keep(row, start)]


ARROW = {Direction.C2S.value: "C→S", Direction.S2C.value: "S→C", None: ""}


def fmt_latency(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _listed(items: list[str], limit: int = 20) -> str:
    return ", ".join(items[:limit]) + (f", … ({len(items) - limit} more)" if len(items) > limit else "")


def selection_error(collector: TimelineCollector, rows: list[Row], session: str | None,
                    line: int | None, request_id: str | None = None) -> str | None:
    """Why ``--session``, ``--line`` or ``--id`` selects nothing, naming what exists (None: it
    selects rows)."""
    if session is not None and not any(row.session == session for row in collector.rows):
        by_file: dict[str, list[str]] = {}
        for row in collector.rows:
            labels = by_file.setdefault(row.path, [])
            if row.session not in labels:
                labels.append(row.session)
        if len(by_file) == 1:
            (path, labels), = by_file.items()
            return f"no session '{session}' in {path}; sessions: {_listed(labels)}"
        where = "; ".join(f"{path}: {_listed(labels, 5)}" for path, labels in list(by_file.items())[:5])
        more = f"; … ({len(by_file) - 5} more files)" if len(by_file) > 5 else ""
        return f"no session '{session}' in {len(by_file)} files; sessions: {where or 'none'}{more}"
    if request_id is not None and not rows and line is None:
        ids = list(dict.fromkeys(row.id_text for row in collector.rows
                                 if row.id is not None and (session is None or row.session == session)))
        return f"no message with id {request_id}; ids: {_listed(ids) if ids else 'none'}"
    if line is None:
        return None
    if len(collector.files) > 1:
        return f"--line needs exactly one input file ({len(collector.files)} captures were read)"
    if rows:
        return None
    rows = [row for row in collector.rows if session is None or row.session == session]
    lines = sorted({row.line for row in rows})
    if not lines:
        return f"no line {line}; the capture has no messages"
    last = max(row.line + row.span - 1 for row in rows)
    if line < lines[0] or line > last:
        return f"no line {line}; the capture has lines {lines[0]}-{last}"
    k = bisect_right(lines, line)
    return f"no message on line {line}; nearest: {lines[k - 1]}, {lines[k]}"

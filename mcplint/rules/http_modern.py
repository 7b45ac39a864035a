"""Streamable HTTP in 2026-07-28 (HM): one message per POST, routing headers that mirror the body,
HTTP status codes for protocol errors, no sessions, cancellation by closing the stream.

The routing headers (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``, ``Mcp-Param-*``) are
judged once per exchange by :func:`header_problems`; HM003-HM006 report the client's mistakes,
HM007 the server that did not reject them with ``400`` and ``-32020``.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from typing import Any

from mcplint import protocol
from mcplint.model import Record, Severity, id_key
from mcplint.rules._base import Rule, fmt_id, rule
from mcplint.rules._http import (
    EXCHANGES,
    HEADER_MISMATCH,
    JSON,
    MISSING_CAPABILITY,
    MODERN_HTTP,
    SSE,
    UNSUPPORTED_VERSION,
    describe,
    error_code,
    exchange,
    facts_of,
    is_modern_exchange,
    meta_version,
    ok,
    received,
    request_header,
    response_header,
    sent,
    shape,
    shown,
    streamable,
    valid_version,
    where,
)
from mcplint.rules.http_legacy import (
    accept_findings,
    accepted_status_findings,
    after_final_findings,
    progress_on_other_stream,
    request_content_findings,
)

_SENDING = f"{MODERN_HTTP} §Sending Messages"
_RECEIVING = f"{MODERN_HTTP} §Receiving Messages"
_HEADERS = f"{MODERN_HTTP} §Standard Request Headers"
_VERSION = f"{MODERN_HTTP} §Protocol Version Header"
_VALIDATION = f"{MODERN_HTTP} §Server Validation"
_PARAMS = f"{MODERN_HTTP} §Custom Headers from Tool Parameters"
_EARLIER = f"{MODERN_HTTP} §Earlier Streamable HTTP Revisions"

#: Methods whose ``Mcp-Name`` header mirrors a params member.
NAME_BEARING = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
#: Client requests of the handshake revisions that 2026-07-28 removed (tasks moved to an extension).
REMOVED = frozenset({"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"})

_SENTINEL = re.compile(r"^=\?base64\?(.*)\?=$")
_SENTINEL_ANY_CASE = re.compile(r"^=\?base64\?(.*)\?=$", re.IGNORECASE)
_HEADER_SAFE = re.compile(r"^[\x20-\x7E]*$")


class ModernExchangeRule(Rule):
    """A rule that judges the HTTP exchanges of 2026-07-28 traffic."""

    kinds = EXCHANGES
    versions = protocol.MODERN

    def check(self, record, session):
        http = exchange(record)
        if http is None or not streamable(http) or not is_modern_exchange(http, session):
            return ()
        return self.judge(record, http, session)

    def judge(self, record: Record, http: dict, session) -> Iterator:
        return iter(())


# -- header values -------------------------------------------------------------------------------
def decode_value(value: str) -> tuple[str | None, str | None]:
    """``(decoded, problem)`` of a header value that may use the ``=?base64?…?=`` sentinel."""
    match = _SENTINEL.match(value)
    if match is None:
        if _SENTINEL_ANY_CASE.match(value):
            return None, "uses a wrongly cased base64 sentinel (it must be '=?base64?…?=')"
        return value, None
    payload = match.group(1)
    try:
        raw = base64.b64decode(payload, validate=True)
        if base64.b64encode(raw).decode("ascii") != payload:
            raise ValueError
        return raw.decode("utf-8"), None
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None, "carries a base64 sentinel that does not decode to UTF-8"


def needs_encoding(value: str) -> bool:
    """Whether a value must travel base64-encoded (not plain visible ASCII, edge whitespace, looks
    like the sentinel)."""
    return not _HEADER_SAFE.match(value) or value != value.strip() or bool(_SENTINEL.match(value))


def rendered(value: Any) -> str | None:
    """How a tool argument is mirrored into an ``Mcp-Param-*`` header (None: not mirrorable)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def _matches(value: Any, header: str) -> bool:
    if isinstance(value, bool):
        return header == ("true" if value else "false")
    if isinstance(value, (int, float)):
        try:
            return float(header) == float(value)
        except ValueError:
            return False
    return header == value


def annotated(schema: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """``(property path, header token)`` of every property marked ``x-mcp-header``."""
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, sub in properties.items():
        if not isinstance(sub, dict):
            continue
        token = sub.get("x-mcp-header")
        if isinstance(token, str) and token:
            yield (*path, name), token
        yield from annotated(sub, (*path, name))


def _at(arguments: Any, path: tuple[str, ...]) -> Any:
    node = arguments
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def header_problems(http: dict, session) -> list[tuple[str, str]]:
    """``(code, text)`` of every routing-header mistake of the exchange's request (cached)."""
    cached = http.get("_header_problems")
    if cached is not None:
        return cached
    out: list[tuple[str, str]] = []
    messages = [v for v in sent(http) if shape(v) in ("request", "notification")]
    if http["method"] == "POST" and len(http["sent"]) == 1 and len(messages) == 1:
        out = list(_problems(http, messages[0], session))
    http["_header_problems"] = out
    return out


def _problems(http: dict, message: dict, session) -> Iterator[tuple[str, str]]:
    version = request_header(http, "mcp-protocol-version")
    body_version = meta_version(message)
    if version is None:
        yield "HM003", "lacks the MCP-Protocol-Version header"
    elif body_version is not None and version != body_version:
        yield "HM003", (f"has MCP-Protocol-Version {shown(version, 30)!r} but _meta names "
                        f"{shown(str(body_version), 30)!r}")
    method = message["method"]
    header = request_header(http, "mcp-method")
    if header is None:
        if shape(message) == "request":
            yield "HM004", f"lacks the Mcp-Method header ({method})"
    elif header != method:
        yield "HM004", f"has Mcp-Method {shown(header, 40)!r} but the body's method is {shown(method, 40)!r}"
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    key = NAME_BEARING.get(method)
    if key is not None and isinstance(params.get(key), str):
        yield from _name_problems(request_header(http, "mcp-name"), params[key], key)
    if method == "tools/call" and isinstance(params.get("name"), str):
        yield from _param_problems(http, params, session)


def _name_problems(header: str | None, value: str, key: str) -> Iterator[tuple[str, str]]:
    if header is None:
        yield "HM005", f"lacks the Mcp-Name header (params.{key} {shown(value, 40)!r})"
        return
    decoded, problem = decode_value(header)
    if problem is not None:
        yield "HM005", f"has an Mcp-Name header that {problem}"
    elif decoded != value:
        yield "HM005", f"has Mcp-Name {shown(header, 40)!r}, which does not match params.{key} {shown(value, 40)!r}"
    elif decoded == header and needs_encoding(value):
        yield "HM005", (f"sends params.{key} {shown(value, 40)!r} in Mcp-Name unencoded; this value must use the "
                        "'=?base64?…?=' form")


def _param_problems(http: dict, params: dict, session) -> Iterator[tuple[str, str]]:
    tool = session.tools.tools.get(params["name"]) if session is not None else None
    schema = tool.get("inputSchema") if isinstance(tool, dict) else None
    if schema is None:
        return
    arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
    for path, token in annotated(schema):
        name = f"Mcp-Param-{token}"
        header = request_header(http, name.lower())
        value = _at(arguments, path)
        where_ = ".".join(path)
        if value is None:
            if header is not None:
                yield "HM006", f"sends {name} although argument {where_!r} is absent or null"
            continue
        text = rendered(value)
        if text is None:
            continue
        if header is None:
            yield "HM006", f"lacks {name} for argument {where_!r}"
            continue
        decoded, problem = decode_value(header)
        if problem is not None:
            yield "HM006", f"has a {name} header that {problem}"
        elif not _matches(value, decoded):
            yield "HM006", f"has {name} {shown(header, 30)!r}, which does not match argument {where_!r}"
        elif decoded == header and isinstance(value, str) and needs_encoding(value):
            yield "HM006", f"sends argument {where_!r} in {name} unencoded; it must use the '=?base64?…?=' form"


# -- rules ---------------------------------------------------------------------------------------
@rule
class PostBodySingleRequestOrNotification(ModernExchangeRule):
    """Checks that a 2026-07-28 POST body is exactly one request or notification."""

    code, name = "HM001", "post-body-single-request-or-notification"
    severity, level, spec = Severity.ERROR, "MUST", _SENDING
    party = "client"
    hint = "POST one JSON-RPC request or notification per HTTP request; clients never send responses."

    def judge(self, record, http, session):
        if http["method"] != "POST" or (not http["sent"] and http["body_error"] is None):
            return
        values = http["sent"]
        if len(values) > 1:
            yield self.report(record, f"{where(http)}: the POST body holds {len(values)} concatenated JSON values")
        elif values and isinstance(values[0], list):
            yield self.report(record, f"{where(http)}: the POST body is a batch of {len(values[0])} messages; "
                                      "2026-07-28 has no batching")
        elif values and shape(values[0]) == "response":
            yield self.report(record, f"{where(http)}: the client POSTed a JSON-RPC {describe(values[0])}; "
                                      "2026-07-28 clients never send responses")


@rule
class AcceptHeader(ModernExchangeRule):
    """Checks that a 2026-07-28 POST lists both application/json and text/event-stream in Accept."""

    code, name = "HM002", "accept-header"
    severity, level, spec = Severity.ERROR, "MUST", _SENDING
    party = "client"
    hint = "Send Accept: application/json, text/event-stream with every POST."

    def judge(self, record, http, session):
        if http["method"] == "POST" and http["sent"]:
            yield from accept_findings(self, record, http, (JSON, SSE))


class _HeaderRule(ModernExchangeRule):
    party = "client"

    def judge(self, record, http, session):
        for code, text in header_problems(http, session):
            if code == self.code:
                yield self.report(record, f"{where(http)}: the request {text}")


@rule
class ProtocolVersionHeaderModern(_HeaderRule):
    """Checks that every 2026-07-28 POST carries MCP-Protocol-Version equal to the _meta version."""

    code, name = "HM003", "modern-protocol-version-header"
    severity, level, spec = Severity.ERROR, "MUST", _VERSION
    hint = "Send MCP-Protocol-Version with the same value as params._meta's protocolVersion on every POST."


@rule
class McpMethodHeader(_HeaderRule):
    """Checks that the Mcp-Method header names the body's method."""

    code, name = "HM004", "mcp-method-header"
    severity, level, spec = Severity.ERROR, "MUST", _HEADERS
    hint = "Send Mcp-Method: <method> with every request, equal to the JSON-RPC method."


@rule
class McpNameHeader(_HeaderRule):
    """Checks that Mcp-Name mirrors the tool/prompt name or resource URI, encoded when needed."""

    code, name = "HM005", "mcp-name-header"
    severity, level, spec = Severity.ERROR, "MUST", _HEADERS
    hint = ("Send Mcp-Name with params.name (tools/call, prompts/get) or params.uri (resources/read); use "
            "'=?base64?<base64 of UTF-8>?=' for values that are not plain visible ASCII.")


@rule
class McpParamHeaders(_HeaderRule):
    """Checks the Mcp-Param-* headers of tools/call against the tool's x-mcp-header arguments."""

    code, name = "HM006", "mcp-param-headers"
    severity, level, spec = Severity.ERROR, "MUST", _PARAMS
    hint = ("For each inputSchema property marked x-mcp-header: N with a non-null argument, send Mcp-Param-N "
            "with the argument's value (and no header when the argument is absent).")


@rule
class HeaderMismatchNotRejected(ModernExchangeRule):
    """Checks that a server rejects requests with wrong routing headers with 400 and -32020."""

    code, name = "HM007", "header-mismatch-not-rejected"
    severity, level, spec = Severity.ERROR, "MUST", _VALIDATION
    party = "server"
    hint = "Reject a request whose routing headers are missing or disagree with the body: 400 with error -32020."

    def judge(self, record, http, session):
        problems = header_problems(http, session)
        if not problems or http["status"] is None:
            return
        codes = ", ".join(sorted({code for code, _ in problems}))
        errors = [error_code(v) for v in received(http, "response") if "error" in v]
        if ok(http) and not errors:
            yield self.report(record, f"{where(http)}: the server accepted a request with wrong routing headers "
                                      f"({codes}); it must answer 400 with error -32020")
        elif http["status"] != 400 or (errors and HEADER_MISMATCH not in errors):
            got = f"{http['status']}" + (f" with error {fmt_id(errors[0])}" if errors else "")
            if errors and errors[0] in (UNSUPPORTED_VERSION, -32602) or (not errors and not ok(http)
                                                                         and http["status"] == 400):
                return  # another ladder rung answered first (_meta, version), or no JSON-RPC body to judge
            yield self.report(record, f"{where(http)}: a request with wrong routing headers ({codes}) was "
                                      f"answered {got}; a header mismatch is 400 with error -32020")


@rule
class UnsupportedVersionStatus(ModernExchangeRule):
    """Checks that an unsupported protocol version is refused with 400 and -32022 (with data)."""

    code, name = "HM008", "unsupported-version-status"
    severity, level, spec = Severity.ERROR, "MUST", _VERSION
    party = "server"
    hint = ('Refuse an unsupported version with HTTP 400 and error -32022, data {"supported": [...], '
            '"requested": "<version>"}.')

    def judge(self, record, http, session):
        if http["status"] is None:
            return
        for value in received(http, "response"):
            if error_code(value) != UNSUPPORTED_VERSION:
                continue
            if http["status"] != 400:
                yield self.report(record, f"{where(http)}: error -32022 (unsupported protocol version) came with "
                                          f"HTTP {http['status']}; it must be 400")
            data = value["error"].get("data")
            if not (isinstance(data, dict) and isinstance(data.get("supported"), list) and "requested" in data):
                yield self.report(record, f"{where(http)}: error -32022 lacks data.supported (a list) and "
                                          "data.requested")
            return
        messages = [v for v in sent(http, "request")]
        if len(messages) != 1:
            return
        version = meta_version(messages[0])
        header = request_header(http, "mcp-protocol-version")
        if not isinstance(version, str) or (header is not None and header != version) or valid_version(version):
            return
        errors = [error_code(v) for v in received(http, "response") if "error" in v]
        if ok(http) and not errors:
            yield self.report(record, f"{where(http)}: the server accepted protocol version "
                                      f"{shown(version, 30)!r}; an unsupported version is 400 with error -32022")
        elif errors and errors[0] != UNSUPPORTED_VERSION:
            yield self.report(record, f"{where(http)}: protocol version {shown(version, 30)!r} was refused with "
                                      f"error {fmt_id(errors[0])}; an unsupported version is -32022")


@rule
class UnknownMethodStatus(ModernExchangeRule):
    """Checks that a request for an unknown method is answered 404 with -32601."""

    code, name = "HM009", "unknown-method-status"
    severity, level, spec = Severity.ERROR, "MUST", _VERSION
    party = "server"
    hint = "Answer a method the server does not implement with HTTP 404 and error -32601."

    def judge(self, record, http, session):
        if http["status"] is None:
            return
        for value in received(http, "response"):
            if error_code(value) == -32601 and http["status"] != 404:
                yield self.report(record, f"{where(http)}: error -32601 (method not found) came with HTTP "
                                          f"{http['status']}; it must be 404")
                return
        for value in sent(http, "request"):
            if value["method"] in REMOVED and ok(http) and any(
                    "result" in v and id_key(v.get("id")) == id_key(value["id"]) for v in received(http)):
                yield self.report(record, f"{where(http)}: {value['method']!r} does not exist in 2026-07-28, yet the "
                                          "server answered it with a result; an unknown method is 404 with -32601",
                                  confidence="low")


@rule
class MetaOrCapabilityErrorStatus(ModernExchangeRule):
    """Checks that missing _meta (-32602) and missing client capabilities (-32021) come with HTTP 400."""

    code, name = "HM010", "meta-or-capability-error-status"
    severity, level, spec = Severity.ERROR, "MUST", "basic §_meta"
    party = "server"
    hint = "Refuse a request without the required _meta with 400/-32602, one lacking a capability with 400/-32021."

    def judge(self, record, http, session):
        if http["status"] is None:
            return
        requests = sent(http, "request")
        lacking = [v for v in requests if v["method"] != "server/discover" and meta_version(v) is None]
        for value in received(http, "response"):
            code = error_code(value)
            if code == MISSING_CAPABILITY and http["status"] != 400:
                yield self.report(record, f"{where(http)}: error -32021 (missing client capability) came with HTTP "
                                          f"{http['status']}; it must be 400")
            elif code == -32602 and lacking and http["status"] != 400:
                yield self.report(record, f"{where(http)}: error -32602 for a request without the required _meta "
                                          f"came with HTTP {http['status']}; it must be 400")


@rule
class NotificationPostStatus(ModernExchangeRule):
    """Checks that a 2026-07-28 notification POST is answered 202 with no body (or an error)."""

    code, name = "HM011", "notification-post-status"
    severity, level, spec = Severity.ERROR, "MUST", _SENDING
    party = "server"
    hint = "Answer an accepted notification with 202 Accepted and an empty body."

    def judge(self, record, http, session):
        return accepted_status_findings(self, record, http)


@rule
class RequestPostContentTypeModern(ModernExchangeRule):
    """Checks that a 2026-07-28 request is answered with application/json or text/event-stream."""

    code, name = "HM012", "modern-request-post-content-type"
    severity, level, spec = Severity.ERROR, "MUST", _SENDING
    party = "server"
    hint = "Answer a request with its JSON-RPC response (application/json) or an SSE stream that carries it."

    def judge(self, record, http, session):
        return request_content_findings(self, record, http)


@rule
class SseStreamContents(ModernExchangeRule):
    """Checks that a request's SSE stream carries no requests, only its own notifications, and ends
    with the response."""

    code, name = "HM013", "sse-stream-contents"
    severity, level, spec = Severity.ERROR, "MUST", _RECEIVING
    party = "server"
    hint = ("Put only the request's own notifications and its final response on its stream; ask the client for "
            "input with an InputRequiredResult, never with a request.")

    def judge(self, record, http, session):
        if not http["sse"]:
            return
        for value in received(http, "request"):
            yield self.report(record, f"{where(http)}: the server sent the request {describe(value)} on the stream; "
                              "2026-07-28 servers send no JSON-RPC requests")
            break
        yield from progress_on_other_stream(self, record, http, session)
        yield from after_final_findings(self, record, http, severity=Severity.WARNING, level="SHOULD")


@rule
class LegacyMechanismsUsed(ModernExchangeRule):
    """Checks for sessions, GET streams and DELETE in 2026-07-28 traffic (removed mechanisms)."""

    code, name = "HM014", "legacy-mechanisms-used"
    severity, level, spec = Severity.INFO, "info", _EARLIER
    party = "client"
    hint = ("2026-07-28 has no sessions, GET stream or DELETE: POST each request on its own, and do not mint or "
            "echo Mcp-Session-Id.")

    def judge(self, record, http, session):
        if http["method"] in ("GET", "DELETE"):
            yield self.report(record, f"{where(http)}: the client sent {http['method']} to the MCP endpoint, which "
                                      "2026-07-28 does not define")
            if http["method"] == "GET" and ok(http) and http["sse"]:
                yield self.report(record, f"{where(http)}: the server opened a GET stream; a 2026-07-28 server "
                                          "should answer GET with 405", party="server", severity=Severity.WARNING,
                                  level="SHOULD")
        elif request_header(http, "mcp-session-id"):
            yield self.report(record, f"{where(http)}: the request carries an Mcp-Session-Id header, which "
                                      "2026-07-28 does not use")
        if response_header(http, "mcp-session-id") and not request_header(http, "mcp-session-id"):
            yield self.report(record, f"{where(http)}: the server minted an Mcp-Session-Id; a 2026-07-28 server "
                                      "should never issue one", party="server", severity=Severity.WARNING,
                              level="SHOULD")


@rule
class NoResumability(ModernExchangeRule):
    """Checks for attempts to resume 2026-07-28 streams (Last-Event-ID, re-sending the same id)."""

    code, name = "HM015", "no-resumability"
    severity, level, spec = Severity.INFO, "info", _SENDING
    party = "client"
    hint = "A broken 2026-07-28 stream loses its request: send it again as a new request with a new id."

    def judge(self, record, http, session):
        if request_header(http, "last-event-id"):
            yield self.report(record, f"{where(http)}: the client sent Last-Event-ID; 2026-07-28 streams cannot be "
                                      "resumed")
        facts = facts_of(session)
        for value in sent(http, "request"):
            stream = facts.interrupted.get(id_key(value["id"]))
            if stream is not None and stream.entry != http["entry"]:
                yield self.report(record, f"{where(http)}: the client re-sent {describe(value)} with the id of the "
                                          f"request whose stream broke in entry {stream.entry}; a re-issued request "
                                          "needs a new id")


@rule
class DisconnectIsCancel(ModernExchangeRule):
    """Checks for messages about a request after the client closed its stream (cancelled it)."""

    code, name = "HM016", "disconnect-is-cancel"
    severity, level, spec = Severity.WARNING, "MUST", f"{MODERN_HTTP} §Cancellation"
    confidence = "low"
    party = "server"
    hint = "Treat a closed response stream as cancellation: send nothing more for that request."

    def judge(self, record, http, session):
        facts = facts_of(session)
        for value in received(http):
            kind = shape(value)
            if kind == "response" and "id" in value:
                stream = facts.interrupted.get(id_key(value["id"]))
                if stream is not None and stream.entry != http["entry"]:
                    yield self.report(record, f"{where(http)}: {describe(value)} arrived after the stream of its "
                                              f"request (entry {stream.entry}) was closed")


@rule
class XAccelBuffering(ModernExchangeRule):
    """Checks that SSE responses disable proxy buffering with X-Accel-Buffering: no."""

    code, name = "HM017", "x-accel-buffering"
    severity, level, spec = Severity.INFO, "SHOULD", _RECEIVING
    party = "server"
    hint = "Add X-Accel-Buffering: no to SSE responses so that reverse proxies pass events on at once."

    def judge(self, record, http, session):
        if http["sse"] and ok(http) and (response_header(http, "x-accel-buffering") or "").strip().lower() != "no":
            yield self.report(record, f"{where(http)}: the SSE response lacks X-Accel-Buffering: no")


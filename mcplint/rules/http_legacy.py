"""Streamable HTTP up to 2025-11-25 (HT): methods, headers, status codes, streams and sessions.

These rules judge HTTP captures (HAR): every HTTP exchange is one record carrying its request and
response (see :mod:`mcplint.rules._http`). They apply to sessions that use the Streamable HTTP
transport with a handshake-era revision; the 2024-11-05 HTTP+SSE transport has its own rules (HS),
2026-07-28 its own (HM).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from mcplint import protocol
from mcplint.model import Direction, Finding, Kind, Record, Severity, id_key, id_of_key
from mcplint.rules._base import NOTIFICATIONS, REQUESTS, RESPONSES, Rule, fmt_id, rule
from mcplint.rules._http import (
    EXCHANGES,
    JSON,
    SSE,
    STREAMABLE_LEGACY,
    HttpTracker,
    accept_problem,
    after,
    answered_in,
    arrival,
    client_closed,
    describe,
    exchange,
    facts_of,
    final_response_index,
    host_of,
    is_modern_exchange,
    local_host,
    local_reach,
    ok,
    progress_token,
    received,
    request_header,
    request_ids,
    response_header,
    resumed_stream,
    running_alone,
    runs,
    sent,
    shape,
    shown,
    stream_events,
    streamable,
    token_of,
    valid_version,
    version_in,
    where,
)

_SENDING = f"{STREAMABLE_LEGACY} §Sending Messages to the Server"
_LISTENING = f"{STREAMABLE_LEGACY} §Listening for Messages from the Server"
_MULTIPLE = f"{STREAMABLE_LEGACY} §Multiple Connections"
_RESUME = f"{STREAMABLE_LEGACY} §Resumability and Redelivery"
_SESSIONS = f"{STREAMABLE_LEGACY} §Session Management"
_VERSION_HEADER = f"{STREAMABLE_LEGACY} §Protocol Version Header"


class ExchangeRule(Rule):
    """A rule that judges HTTP exchanges (HAR entries) of Streamable HTTP handshake-era sessions."""

    kinds = EXCHANGES
    versions = protocol.LEGACY

    def check(self, record, session):
        http = exchange(record)
        if http is None or not streamable(http) or is_modern_exchange(http, session):
            return ()
        return self.judge(record, http, session)

    def judge(self, record: Record, http: dict, session) -> Iterator[Finding]:
        return iter(())


# -- sending messages ----------------------------------------------------------------------------
@rule
class ClientMessageNotPost(ExchangeRule):
    """Checks that every client message is its own HTTP POST to the session's MCP endpoint."""

    code, name = "HT001", "client-message-not-post"
    severity, level, spec = Severity.ERROR, "MUST", _SENDING
    party = "client"
    hint = "POST each JSON-RPC message (or a 2025-03-26 batch) on its own to the MCP endpoint."

    def judge(self, record, http, session):
        if not http["sent"]:
            return
        if http["method"] != "POST":
            yield self.report(record, f"{where(http)}: the client sent {describe(sent(http)[0]) if sent(http) else 'JSON'} "
                                      f"in a {http['method']} body; every client message must be a new HTTP POST")
            return
        if len(http["sent"]) > 1:
            yield self.report(record, f"{where(http)}: the POST body holds {len(http['sent'])} concatenated JSON "
                                      "values; a POST carries one message (or one 2025-03-26 batch array)")
        endpoint = facts_of(session).endpoint
        here = http["origin"] + http["path"]
        if endpoint is not None and here != endpoint:
            yield self.report(record, f"{where(http)}: POST to {shown(here)}, but the session's MCP endpoint is "
                                      f"{shown(endpoint)}")


@rule
class PostAcceptHeader(ExchangeRule):
    """Checks that a POST lists both application/json and text/event-stream in Accept."""

    code, name = "HT002", "post-accept-header"
    severity, level, spec = Severity.ERROR, "MUST", _SENDING
    party = "client"
    hint = "Send Accept: application/json, text/event-stream with every POST."

    def judge(self, record, http, session):
        if http["method"] != "POST" or not http["sent"]:
            return
        yield from accept_findings(self, record, http, (JSON, SSE))


def accept_findings(rule_: Rule, record: Record, http: dict, wanted: tuple[str, ...]) -> Iterator[Finding]:
    """The Accept-header finding of HT002/HT003/HM002 (a wildcard alone is a warning)."""
    problem = accept_problem(http, wanted)
    if problem is None:
        return
    text, wildcard = problem
    listed = " and ".join(wanted)
    if wildcard:
        yield rule_.report(record, f"{where(http)}: the request {text}; a wildcard accepts it but the client must "
                                   f"list {listed}", severity=Severity.WARNING, confidence="low")
    else:
        yield rule_.report(record, f"{where(http)}: the request {text}; the client must list {listed}")


@rule
class GetAcceptHeader(ExchangeRule):
    """Checks that a GET opening the server's stream accepts text/event-stream."""

    code, name = "HT003", "get-accept-header"
    severity, level, spec = Severity.ERROR, "MUST", _LISTENING
    party = "client"
    hint = "Send Accept: text/event-stream with the GET that opens the server's stream."

    def judge(self, record, http, session):
        if http["method"] == "GET":
            yield from accept_findings(self, record, http, (SSE,))


def accepted_status_findings(rule_: Rule, record: Record, http: dict) -> Iterator[Finding]:
    """HT004/HM011: a POST of notifications/responses is answered 202 with no body, or an error."""
    if http["method"] != "POST" or not http["sent"] or http["status"] is None:
        return
    messages = sent(http)
    if not messages or any(shape(v) not in ("notification", "response") for v in messages):
        return
    what = ", ".join(describe(v) for v in messages[:3]) + (" …" if len(messages) > 3 else "")
    status = http["status"]
    body = http["response_body"]
    if status == 202:
        if body and body.strip():
            yield rule_.report(record, f"{where(http)}: 202 Accepted for {what} carries a body "
                                       f"({len(body)} characters); it must be empty")
    elif 200 <= status < 400:
        yield rule_.report(record, f"{where(http)}: {what} was answered {status} {http['status_text']}".rstrip()
                                   + "; an accepted notification or response gets 202 Accepted with no body")


@rule
class NotificationOrResponsePostStatus(ExchangeRule):
    """Checks that a POST of notifications or responses is answered 202 with no body (or an error)."""

    code, name = "HT004", "notification-or-response-post-status"
    severity, level, spec = Severity.ERROR, "MUST", _SENDING
    party = "server"
    hint = "Answer a POST that holds only notifications/responses with 202 Accepted and an empty body."

    def judge(self, record, http, session):
        return accepted_status_findings(self, record, http)


def request_content_findings(rule_: Rule, record: Record, http: dict) -> Iterator[Finding]:
    """HT005/HM012: a POSTed request is answered with JSON (its response) or an SSE stream."""
    if http["method"] != "POST" or not ok(http):
        return
    requests = sent(http, "request")
    if not requests:
        return
    what = ", ".join(describe(v) for v in requests[:3])
    if http["status"] == 202:
        yield rule_.report(record, f"{where(http)}: the request {what} was answered 202 Accepted; a request gets "
                                   "its response as application/json or text/event-stream")
        return
    if not http["body_recorded"]:
        return
    kind = http["content_type"]
    body = http["response_body"] or ""
    if kind not in (JSON, SSE):
        shown_type = f"Content-Type {shown(kind)}" if kind else "no Content-Type"
        empty = " and an empty body" if not body.strip() else ""
        yield rule_.report(record, f"{where(http)}: the response to {what} has {shown_type}{empty}; it must be "
                                   f"{JSON} or {SSE}")
        return
    if kind == JSON:
        missing = [v for v in requests if id_key(v["id"]) not in answered_in(http)]
        if missing:
            yield rule_.report(record, f"{where(http)}: the application/json body is not the response to "
                                       f"{', '.join(describe(v) for v in missing[:3])}")


@rule
class RequestPostContentType(ExchangeRule):
    """Checks that a POSTed request is answered with application/json or text/event-stream."""

    code, name = "HT005", "request-post-content-type"
    severity, level, spec = Severity.ERROR, "MUST", _SENDING
    party = "server"
    hint = "Answer a request with its JSON-RPC response (application/json) or an SSE stream that carries it."

    def judge(self, record, http, session):
        return request_content_findings(self, record, http)


@rule
class GetResponse(ExchangeRule):
    """Checks that a GET on the MCP endpoint is answered with an SSE stream or 405."""

    code, name = "HT006", "get-response"
    severity, level, spec = Severity.ERROR, "MUST", _LISTENING
    party = "server"
    hint = "Answer GET with Content-Type: text/event-stream, or with 405 Method Not Allowed."

    def judge(self, record, http, session):
        if http["method"] == "GET" and ok(http) and http["content_type"] != SSE:
            kind = f"Content-Type {shown(http['content_type'])}" if http["content_type"] else "no Content-Type"
            yield self.report(record, f"{where(http)}: the GET was answered with {kind}; it must open a "
                                      f"{SSE} stream or be refused with 405")


@rule
class ResponseOnGetStream(Rule):
    """Checks for JSON-RPC responses on the GET stream outside a resumption."""

    code, name = "HT007", "response-on-get-stream"
    severity, level, spec = Severity.ERROR, "MUST NOT", _LISTENING
    versions = protocol.LEGACY
    kinds, requires = RESPONSES, frozenset({"http"})
    party = "server"
    hint = "Send each response on the POST stream of its request; the GET stream carries requests and notifications."

    def check(self, record, session):
        http = record.http
        if http is None or http.get("role") != "response" or http["method"] != "GET" or not streamable(http):
            return
        if request_header(http, "last-event-id") or session.modern:
            return
        yield self.report(record, f"{where(http)}: response {fmt_id(record.id)} arrived on the GET stream, "
                                  "which is not a resumption (no Last-Event-ID)")


@rule
class SseResponseMissing(ExchangeRule):
    """Checks for POST SSE streams that end without the response, never resumed."""

    code, name = "HT008", "sse-response-missing"
    severity, level, spec = Severity.WARNING, "SHOULD", _SENDING
    confidence = "low"
    party = "server"
    hint = ("Keep the POST stream open until the response was sent, or send an event id (and retry) so that the "
            "client can resume it with GET and Last-Event-ID.")

    finish_needs = frozenset({HttpTracker})

    def finish(self, session):
        facts = session.state.get(HttpTracker)  # (seen_facts inline: a session without HTTP has none)
        if facts is None or not facts.interrupted or session.modern:
            return ()  # every finding is of an interrupted stream
        return self._unanswered_streams(session, facts)

    def _unanswered_streams(self, session, facts):
        seen = set()
        for key, stream in list(facts.interrupted.items()):
            entry = session.requests[Direction.C2S].get(key)
            if entry is not None and (entry.response is not None or entry.cancel is not None):
                continue  # answered elsewhere (resumed), or cancelled: no response is due
            http = stream.record.http
            if client_closed(http) or (facts.ended is not None and after(facts.ended, http)):
                continue  # the client closed it, or the session ended (DELETE, expiry) while it ran
            if (stream.entry, key) in seen:
                continue
            seen.add((stream.entry, key))
            resumable = any(e["id"] for e in http["events"])
            tail = (" and the client never resumed it with GET and Last-Event-ID" if resumable
                    else "; it carried no event id to resume from")
            yield self.report(stream.record, f"{where(http)}: the SSE stream of request {fmt_id(id_of_key(key))} ended "
                                             f"without its response{tail}")


@rule
class SseStreamNotTerminated(ExchangeRule):
    """Checks for messages sent on a POST stream after the response that should have closed it."""

    code, name = "HT009", "sse-stream-not-terminated"
    severity, level, spec = Severity.WARNING, "SHOULD", _SENDING
    party = "server"
    hint = "Close the POST's SSE stream once the response (to every request of the POST) was sent."

    def judge(self, record, http, session):
        yield from after_final_findings(self, record, http)


def after_final_findings(rule_: Rule, record: Record, http: dict, **override) -> Iterator[Finding]:
    """HT009/HM013: messages on a POST stream after the response to its last request."""
    if http["method"] != "POST" or not http["sse"]:
        return
    final = final_response_index(http)
    if final is None:
        return
    after = [value for _, value in stream_events(http)[final + 1:] if value is not None]
    if after:
        first = after[0]
        what = describe(first) if isinstance(first, dict) else "data"
        yield rule_.report(record, f"{where(http)}: {len(after)} more event{'s' if len(after) > 1 else ''} "
                                   f"({what}{', …' if len(after) > 1 else ''}) followed the response on the POST stream",
                           **override)


#: server messages that belong to a client request when they are sent for one (HT010)
_REQUEST_SCOPED = frozenset({"notifications/progress", "notifications/message", "sampling/createMessage",
                             "elicitation/create", "roots/list"})
_RELATED_TASK = "io.modelcontextprotocol/related-task"


@rule
class SseUnrelatedMessages(ExchangeRule):
    """Checks for messages of a running request sent on another request's stream or on the GET stream."""

    code, name = "HT010", "sse-unrelated-messages"
    severity, level, spec = Severity.WARNING, "SHOULD", _SENDING
    confidence = "low"
    party = "server"
    hint = ("Send a request's progress, log messages and requests on that request's POST stream; keep the GET "
            "stream for messages unrelated to running requests.")
    kinds = EXCHANGES | REQUESTS | NOTIFICATIONS  # the GET stream's messages: when each arrived
    requires = frozenset({"http"})

    def check(self, record, session):
        http = record.http
        if http is not None and record.kind is not Kind.COMMENT:
            if http.get("role") == "response" and http["method"] == "GET" and record.method in _REQUEST_SCOPED:
                session.state_for(self).setdefault((http["entry"], http["sse_index"]), record)
            return ()
        return super().check(record, session)

    def judge(self, record, http, session):
        yield from progress_on_other_stream(self, record, http, session)

    finish_needs = frozenset({HttpTracker})

    def finish(self, session):
        facts = session.state.get(HttpTracker)  # (seen_facts inline)
        if facts is None or not facts.streams or session.modern:
            return ()  # every finding is of a GET stream
        return self._get_streams(session, facts)

    def _get_streams(self, session, facts):
        arrived = session.kept_state(self)
        candidates = None
        for stream in facts.streams.values():
            http = stream.record.http
            if stream.method != "GET" or not streamable(http) or request_header(http, "last-event-id"):
                continue  # a resumption replays a POST stream
            tied: dict[tuple, list] = {}  # (request key, by token) -> [(message, its record)]
            for event, data in stream_events(http):
                for value in data if isinstance(data, list) else (data,):
                    if shape(value) == "invalid" or value.get("method") not in _REQUEST_SCOPED \
                            or _RELATED_TASK in _meta_of(value):
                        continue  # task messages may use any stream (2025-11-25 tasks §Input Required Status)
                    candidates = candidates if candidates is not None else runs(session, facts)
                    message = arrived.get((http["entry"], event["index"]))
                    low, high = arrival(value, http, session, message)
                    if value["method"] == "notifications/progress":
                        run = _by_token(value, facts, candidates)
                        if run is not None and not run.task and low <= run.may_end:
                            tied.setdefault((run.key, True), []).append((describe(value), message))
                    elif (run := running_alone(candidates, low, high)) is not None:
                        tied.setdefault((run.key, False), []).append((describe(value), message))
            for (key, by_token), messages in tied.items():
                yield self._finding(stream.record, candidates[key], by_token, messages)

    def _finding(self, exchange_record: Record, run, by_token: bool, messages: list) -> Finding:
        """One finding per GET stream and request, on the first message (else the exchange)."""
        http = exchange_record.http
        counts = Counter(text for text, _ in messages)
        what = ", ".join(f"{m} ×{n}" if n > 1 else m for m, n in list(counts.items())[:3])
        what += f" and {len(counts) - 3} more" if len(counts) > 3 else ""
        request = f"{run.method} #{fmt_id(id_of_key(run.key))}" + (f" (entry {run.entry})" if run.entry is not None else "")
        record = next((r for _, r in messages if r is not None), exchange_record)
        if by_token:
            return self.report(record, f"{where(http)}: {what} for the progress token of {request} arrived on the "
                                       "standalone GET stream; it belongs on that request's POST stream",
                               spec=_LISTENING)
        return self.report(record, f"{where(http)}: {what} arrived on the standalone GET stream while {request} "
                                   "was the only request running; if related to it, it belongs on its POST stream",
                           severity=Severity.INFO, spec=_LISTENING)


def _meta_of(value: dict) -> dict:
    params = value.get("params") if isinstance(value.get("params"), dict) else {}
    return params.get("_meta") if isinstance(params.get("_meta"), dict) else {}


def _by_token(value: dict, facts, candidates: dict):
    """The client request whose progress token a ``notifications/progress`` names."""
    token = progress_token(value)
    posting = facts.streams.get(facts.tokens.get(token)) if token is not None else None
    if posting is None:
        return None
    for request in sent(posting.record.http, "request"):
        if token_of(request) == token:
            return candidates.get(id_key(request["id"]))
    return None


def progress_on_other_stream(rule_: Rule, record: Record, http: dict, session) -> Iterator[Finding]:
    """HT010/HM013: progress for the token of one POSTed request on the stream of another POST."""
    if http["method"] != "POST":
        return
    facts = facts_of(session)
    own = {t for t in (token_of(v) for v in sent(http, "request")) if t is not None}
    for value in received(http, "notification"):
        token = progress_token(value)
        if token is None or token in own:
            continue
        origin = facts.tokens.get(token)
        if origin is not None:
            yield rule_.report(record, f"{where(http)}: progress for token {fmt_id(id_of_key(token))} of the request "
                                       f"POSTed in entry {origin} arrived on another request's stream")


@rule
class MessageBroadcast(ExchangeRule):
    """Checks that the server sends each request or response on one stream only."""

    code, name = "HT011", "message-broadcast"
    severity, level, spec = Severity.ERROR, "MUST NOT", _MULTIPLE
    party = "server"
    hint = "Send every JSON-RPC message on exactly one of the connected streams."

    def judge(self, record, http, session):
        if request_header(http, "last-event-id"):
            return  # a resumption redelivers what the broken stream missed
        facts = facts_of(session)
        entry = http["entry"]
        own = set(request_ids(http))  # a request sent again (same id) is answered again on its own POST
        for value in received(http):
            kind = shape(value)
            if kind not in ("request", "response") or "id" not in value:
                continue
            key = id_key(value["id"])
            if kind == "response" and (value["id"] is None or key in own):
                continue  # an error to an unreadable request (id null) answers only its own POST
            earlier = facts.delivered.get((kind, key))
            if earlier is not None and earlier != entry:
                yield self.report(record, f"{where(http)}: {describe(value)} was already sent on the stream of "
                                          f"entry {earlier}")


@rule
class SseEventIdNotUnique(ExchangeRule):
    """Checks that SSE event ids are unique across all streams of a session."""

    code, name = "HT012", "sse-event-id-not-unique"
    severity, level, spec = Severity.ERROR, "MUST", _RESUME
    party = "server"
    hint = "Make event ids unique per session (e.g. a stream id plus a counter), so Last-Event-ID names one event."

    def judge(self, record, http, session):
        facts = facts_of(session)
        resuming = bool(request_header(http, "last-event-id"))
        seen: dict[str, str | None] = {}
        duplicates: list[str] = []
        for event in http["events"]:
            event_id = event["id"]
            if not event_id:
                continue
            earlier = facts.event_ids.get(event_id)
            if event_id in seen or (earlier is not None and not (resuming and earlier[1] == event["data"])):
                duplicates.append(event_id)
            seen[event_id] = event["data"]
        if duplicates:
            first = duplicates[0]
            earlier = facts.event_ids.get(first)
            other = f"entry {earlier[0]}" if earlier is not None else "the same stream"
            more = f" (and {len(duplicates) - 1} more)" if len(duplicates) > 1 else ""
            yield self.report(record, f"{where(http)}: SSE event id {shown(first, 40)!r} was already used on "
                                      f"{other}{more}")


@rule
class ReplayOnWrongStream(ExchangeRule):
    """Checks that a resumed stream replays only messages of the stream it resumes."""

    code, name = "HT013", "replay-on-wrong-stream"
    severity, level, spec = Severity.WARNING, "MUST NOT", _RESUME
    confidence = "low"
    party = "server"
    hint = "On GET with Last-Event-ID, replay only the events of the disconnected stream."

    def judge(self, record, http, session):
        if http["method"] != "GET":
            return
        original = resumed_stream(http, facts_of(session))
        if original is None or original.method != "POST":
            return
        foreign = [v for v in received(http, "response") if "id" in v and id_key(v["id"]) not in original.requests]
        if foreign:
            yield self.report(record, f"{where(http)}: resuming the stream of entry {original.entry} replayed "
                                      f"{describe(foreign[0])}, which belongs to another stream")


# -- sessions ------------------------------------------------------------------------------------
_VISIBLE = frozenset(chr(c) for c in range(0x21, 0x7F))


def _lacks_session_id(http: dict, facts) -> bool:
    """A request after the server issued a session id that does not carry it (not a new initialize)."""
    if facts.session_id is None or request_header(http, "mcp-session-id") or http["method"] == "DELETE":
        return False  # a DELETE without the header is HT016
    return not any(v.get("method") == "initialize" for v in sent(http))


@rule
class SessionIdRules(ExchangeRule):
    """Checks the Mcp-Session-Id lifecycle: valid ids, echoed on every request, dropped after 404."""

    code, name = "HT014", "session-id-rules"
    severity, level, spec = Severity.ERROR, "MUST", _SESSIONS
    party = "client"
    hint = ("Send the issued Mcp-Session-Id on every later request; after a 404 for it, start over with an "
            "initialize without the header. Servers: use visible ASCII ids and answer 404 for ended sessions.")

    def judge(self, record, http, session):
        facts = facts_of(session)
        issued = response_header(http, "mcp-session-id")
        if issued is not None and (not issued or not set(issued) <= _VISIBLE):
            yield self.report(record, f"{where(http)}: the Mcp-Session-Id the server issued contains characters "
                                      "outside visible ASCII (0x21-0x7E)", party="server")
        if _lacks_session_id(http, facts):
            yield self.report(record, f"{where(http)}: the request lacks the Mcp-Session-Id header the server "
                                      f"issued in entry {facts.issued_entry}")
        used = request_header(http, "mcp-session-id")
        if used and used in facts.dead:
            entry, why = facts.dead[used]
            initialize = any(v.get("method") == "initialize" for v in sent(http))
            ended = "answered 404 for it" if why == "404" else "terminated it (DELETE)"
            if why == "404":
                what = ("sent initialize with the old Mcp-Session-Id" if initialize
                        else "kept using the Mcp-Session-Id")
                yield self.report(record, f"{where(http)}: the client {what} although the server {ended} in entry "
                                          f"{entry}; it must start a new session with an initialize without the header")
            if ok(http):
                yield self.report(record, f"{where(http)}: the server accepted an Mcp-Session-Id it {ended} in "
                                          f"entry {entry}; it must answer 404", party="server")


@rule
class MissingSessionNot400(ExchangeRule):
    """Checks that a server requiring sessions answers requests without Mcp-Session-Id with 400."""

    code, name = "HT015", "missing-session-not-400"
    severity, level, spec = Severity.WARNING, "SHOULD", _SESSIONS
    party = "server"
    hint = "Answer a request that lacks the required Mcp-Session-Id with 400 Bad Request."

    def judge(self, record, http, session):
        facts = facts_of(session)
        if http["status"] is None or http["status"] == 400 or not _lacks_session_id(http, facts):
            return
        yield self.report(record, f"{where(http)}: a request without the Mcp-Session-Id header was answered "
                                  f"{http['status']} {http['status_text']}".rstrip() + "; it should be 400 Bad Request")


@rule
class SessionDelete(ExchangeRule):
    """Checks that a client ends its session with a DELETE that carries the session id."""

    code, name = "HT016", "session-delete"
    severity, level, spec = Severity.WARNING, "SHOULD", _SESSIONS
    party = "client"
    hint = "When done, send DELETE to the MCP endpoint with the Mcp-Session-Id header."

    def judge(self, record, http, session):
        if http["method"] == "DELETE" and not request_header(http, "mcp-session-id"):
            yield self.report(record, f"{where(http)}: DELETE without the Mcp-Session-Id header cannot say which "
                                      "session ends", severity=Severity.ERROR, level="MUST")

    finish_needs = frozenset({HttpTracker})

    def finish(self, session):
        facts = session.state.get(HttpTracker)  # (seen_facts inline)
        if facts is None or facts.session_id is None or facts.delete_sent or facts.last is None or session.modern:
            return ()
        if facts.session_id in facts.dead:
            return ()  # the server ended it
        return [self.report(facts.last, f"The client left session {session.label} (issued in entry "
                                        f"{facts.issued_entry}) without a DELETE", severity=Severity.INFO,
                            confidence="low")]


@rule
class ProtocolVersionHeader(ExchangeRule):
    """Checks that requests after initialization carry the negotiated MCP-Protocol-Version."""

    code, name = "HT017", "protocol-version-header"
    severity, level, spec = Severity.ERROR, "MUST", _VERSION_HEADER
    versions = protocol.legacy_since(protocol.V2025_06_18)
    party = "client"
    hint = "Send MCP-Protocol-Version: <negotiated version> on every request after initialize."

    def judge(self, record, http, session):
        if session.init_response is None or session.phase == "failed":
            return
        if any(v.get("method") == "initialize" for v in sent(http)):
            return
        negotiated = session.version
        if not protocol.at_least(negotiated, protocol.V2025_06_18) or negotiated in protocol.MODERN:
            return
        header = request_header(http, "mcp-protocol-version")
        if header is None:
            yield self.report(record, f"{where(http)}: the request lacks the MCP-Protocol-Version header "
                                      f"(negotiated {negotiated})")
            return
        if header != negotiated:
            yield self.report(record, f"{where(http)}: MCP-Protocol-Version is {shown(header, 30)!r}, not the "
                                      f"negotiated {negotiated}", severity=Severity.WARNING, level="SHOULD")
        if not valid_version(header) and ok(http):
            yield self.report(record, f"{where(http)}: the server accepted the invalid MCP-Protocol-Version "
                                      f"{shown(header, 30)!r}; it must answer 400 Bad Request", party="server")


@rule
class OriginValidation(Rule):
    """Checks that a server on this machine refuses requests from foreign web origins (DNS rebinding)."""

    code, name = "HT018", "origin-validation"
    severity, level, spec = Severity.ERROR, "MUST", f"{STREAMABLE_LEGACY} §Security Warning"
    confidence = "low"
    kinds = EXCHANGES
    party = "server"
    hint = ("Validate the Origin header of every request (DNS rebinding) and answer 403 Forbidden when it is not "
            "an origin you serve.")

    def check(self, record, session):
        http = exchange(record)
        if http is None or http["method"] not in ("POST", "GET", "DELETE"):
            return  # a CORS preflight (OPTIONS) processes no MCP message
        origin = request_header(http, "origin")
        reach = local_reach(http)
        if origin is None or reach is None or local_host(host_of(origin)):
            return  # no page of a foreign web origin talking to this machine
        modern = is_modern_exchange(http, session)
        spec = ("basic/transports/streamable-http §Security & Endpoint" if modern
                else "basic/transports §HTTP with SSE §Security Warning" if http["transport"] == "sse" else None)
        if ok(http):
            accepted = session.state_for(self).setdefault("accepted", set())
            if origin in accepted:
                return  # the same page again: once per session
            accepted.add(origin)
            if reach == "address":
                yield self.report(record, f"{where(http)}: the local server accepted a request with Origin: "
                                          f"{shown(origin)}; a foreign origin must be refused (DNS rebinding)",
                                  spec=spec)
            else:
                asked = host_of(request_header(http, "host")) or host_of(http["url"])
                via = f" at {shown(http['server_ip'], 40)}" if http.get("server_ip") else ""
                yield self.report(record, f"{where(http)}: {shown(asked, 40)} was reached on this machine{via} and "
                                          f"the server accepted Origin: {shown(origin)}; a page that rebinds its "
                                          "name to a loopback address looks like this (a local proxy or a hosts-file "
                                          "name does too)", severity=Severity.WARNING, spec=spec)
        elif http["status"] is not None and http["status"] != 403 and (
                modern or protocol.at_least(version_in(http, record), protocol.V2025_11_25)):
            yield self.report(record, f"{where(http)}: a request with the foreign Origin: {shown(origin)} was "
                                      f"refused with {http['status']}; the status for an invalid Origin is 403",
                              severity=Severity.INFO, spec=spec)


@rule
class SsePrimingEvent(ExchangeRule):
    """Checks that a 2025-11-25 POST stream starts with a priming event (an event id, no data)."""

    code, name = "HT019", "sse-priming-event"
    severity, level, spec = Severity.INFO, "SHOULD", _SENDING
    versions = frozenset({protocol.V2025_11_25})
    party = "server"
    hint = "Start each SSE stream with an event that has an id and empty data, so the client can resume it."

    def judge(self, record, http, session):
        if http["method"] != "POST" or not http["sse"] or not sent(http, "request"):
            return
        events = stream_events(http)
        if not events:
            return
        first, value = events[0]
        state = session.state_for(self)
        if value is not None and not (first["id"] and not first["data"]) and not state.get("reported"):
            state["reported"] = True  # a server without an event store does this on every stream: say it once
            yield self.report(record, f"{where(http)}: the SSE stream starts with a message, not with a priming "
                                      "event (an event id and empty data); later streams of this session are not "
                                      "reported again")


@rule
class RetryBeforeClose(ExchangeRule):
    """Checks that a client waits the announced retry interval before resuming a closed stream."""

    code, name = "HT020", "retry-before-close"
    severity, level, spec = Severity.WARNING, "MUST", _SENDING
    versions = frozenset({protocol.V2025_11_25})
    confidence = "low"
    party = "client"
    hint = "Wait at least the retry: interval the server sent before reconnecting with Last-Event-ID."

    def judge(self, record, http, session):
        if http["method"] != "GET":
            return
        original = resumed_stream(http, facts_of(session))
        if original is None or original.retry is None or original.ended is None or http["started"] is None:
            return
        waited = (http["started"] - original.ended) * 1000
        if waited < original.retry:
            yield self.report(record, f"{where(http)}: the client resumed the stream of entry {original.entry} "
                                      f"{max(waited, 0):.0f} ms after it closed; the server asked for "
                                      f"retry: {original.retry}")


@rule
class ResumeNotViaGet(ExchangeRule):
    """Checks for a client re-POSTing an interrupted request instead of resuming its stream."""

    code, name = "HT021", "resume-not-via-get"
    severity, level, spec = Severity.WARNING, "SHOULD", _RESUME
    party = "client"
    hint = "Resume a broken stream with GET and Last-Event-ID; do not POST the same request again."

    def judge(self, record, http, session):
        if http["method"] != "POST":
            return
        facts = facts_of(session)
        for key in request_ids(http):
            stream = facts.interrupted.get(key)
            if stream is not None and stream.entry != http["entry"]:
                yield self.report(record, f"{where(http)}: request {fmt_id(id_of_key(key))} was POSTed again after its "
                                          f"stream (entry {stream.entry}) broke; resume with GET and Last-Event-ID")


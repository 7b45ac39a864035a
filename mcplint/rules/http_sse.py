"""The 2024-11-05 HTTP+SSE transport (HS): the endpoint event and POSTs to the announced URL.

The client opens an SSE stream with GET; the server's first event is ``endpoint`` with the URL
the client POSTs its messages to; every server message travels on that stream as a ``message``
event. The HAR reader recognises the transport by the ``endpoint`` event (see
:mod:`mcplint.input.formats.har`). Origin validation (HS004) is HT018.
"""

from __future__ import annotations

from mcplint import protocol
from mcplint.model import Severity
from mcplint.rules._base import Rule, rule
from mcplint.rules._http import (
    EXCHANGES,
    exchange,
    facts_of,
    shape,
    shown,
    stream_events,
    where,
)

_HTTP_SSE = "basic/transports §HTTP with SSE"


class SseTransportRule(Rule):
    """A rule that judges the exchanges of HTTP+SSE (2024-11-05 transport) sessions."""

    kinds = EXCHANGES
    versions = protocol.LEGACY

    def check(self, record, session):
        http = exchange(record)
        if http is None or http["transport"] != "sse":
            return ()
        return self.judge(record, http, session)

    def judge(self, record, http, session):
        return iter(())


@rule
class EndpointEventFirst(SseTransportRule):
    """Checks that an HTTP+SSE stream opens with an endpoint event carrying the POST URL."""

    code, name = "HS001", "endpoint-event-first"
    severity, level, spec = Severity.ERROR, "MUST", _HTTP_SSE
    party = "server"
    hint = "Send `event: endpoint` with the message URL as the very first event of the SSE stream."

    def judge(self, record, http, session):
        if http["method"] != "GET" or not http["events"]:
            return
        first = http["events"][0]
        if first["event"] != "endpoint":
            yield self.report(record, f"{where(http)}: the first SSE event is {first['event']!r}, not 'endpoint'; "
                                      "the endpoint event must come first")
        elif not (first["data"] or "").strip():
            yield self.report(record, f"{where(http)}: the endpoint event carries no URL")


@rule
class PostToEndpoint(SseTransportRule):
    """Checks that HTTP+SSE clients POST their messages to the URL of the endpoint event."""

    code, name = "HS002", "post-to-endpoint"
    severity, level, spec = Severity.ERROR, "MUST", _HTTP_SSE
    party = "client"
    hint = "POST every message to the exact URL (path and query) the endpoint event announced."

    def judge(self, record, http, session):
        if http["method"] != "POST" or not http["sent"]:
            return
        endpoint = facts_of(session).legacy_endpoint
        if endpoint is not None and http["url"] != endpoint:
            yield self.report(record, f"{where(http)}: the client POSTed to {shown(http['url'])}, not to the "
                                      f"announced endpoint {shown(endpoint)}")


@rule
class ServerMessagesAsMessageEvents(SseTransportRule):
    """Checks that HTTP+SSE server messages are `message` events with JSON data."""

    code, name = "HS003", "server-messages-as-message-events"
    severity, level, spec = Severity.ERROR, "MUST", _HTTP_SSE
    party = "server"
    hint = "Send every JSON-RPC message as `event: message` with the JSON text in `data`."

    def judge(self, record, http, session):
        if http["method"] != "GET":
            return
        for event, value in stream_events(http):
            if event["event"] == "endpoint" or value is None:
                continue
            if value is ...:
                if event["event"] == "message":
                    yield self.report(record, f"{where(http)}: message event {event['index'] + 1} carries data "
                                              "that is not JSON")
                continue
            if event["event"] != "message" and any(shape(v) != "invalid" for v in
                                                   (value if isinstance(value, list) else [value])):
                yield self.report(record, f"{where(http)}: a JSON-RPC message was sent as event "
                                          f"{shown(event['event'], 30)!r}, not 'message'")

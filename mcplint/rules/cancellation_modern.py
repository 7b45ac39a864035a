"""Cancellation in 2026-07-28 (CN007, CN009): who may cancel what, and when the client must.

In the stateless revision only the client cancels requests; a server sends
``notifications/cancelled`` solely to tear down a ``subscriptions/listen`` stream (on stdio).
On stdio a client that abandons a request MUST say so with ``notifications/cancelled``.

Not implemented: CN008 (``notifications/cancelled`` POSTed over Streamable HTTP) needs the
transport of a record, which the capture formats do not carry yet (HTTP issue).
"""

from __future__ import annotations

from mcplint import protocol
from mcplint.model import Direction, Severity
from mcplint.rules._base import fmt_id, params_of, rule
from mcplint.rules.cancellation import CancelRule
from mcplint.rules.heuristics import _Reissue
from mcplint.rules.subscriptions import LISTEN

_CANCELLATION = "basic/patterns/cancellation"


@rule
class ServerCancelNotSubscription(CancelRule):
    """Checks that a 2026-07-28 server cancels nothing but a ``subscriptions/listen`` stream."""

    code, name = "CN007", "server-cancel-not-subscription"
    severity, level, spec = Severity.ERROR, "MUST NOT", _CANCELLATION
    versions = protocol.MODERN
    party = "server"
    hint = ("Answer (or fail) a request instead of cancelling it; a server sends "
            "notifications/cancelled only to end a subscriptions/listen stream.")

    def check(self, record, session):
        params = params_of(record)
        if record.direction is not Direction.S2C or "requestId" not in params:
            return
        entry = session.find_request(Direction.C2S, params["requestId"])
        if entry is None or entry.record.method == LISTEN:
            return  # no such client request: CN001
        yield self.report(record, f"The server cancelled the client's {entry.record.method} "
                                  f"{fmt_id(entry.record.id)}; servers may cancel only a "
                                  "subscriptions/listen stream",
                          related=[(entry.record, "the client's request")])


@rule
class StdioCancelRequired(_Reissue):
    """Checks for 2026-07-28 clients that re-send a call they gave up on without cancelling it."""

    code, name = "CN009", "stdio-cancel-required"
    severity, level, spec = Severity.WARNING, "MUST", "basic/transports/stdio §Cancellation"
    versions = protocol.MODERN
    hint = ("On stdio, send notifications/cancelled for every request you stop waiting for "
            "(before sending it again).")

    ignored_transport = "http"  # over Streamable HTTP closing the stream is the cancellation

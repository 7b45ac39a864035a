"""Ping (PI): the liveness check of the handshake revisions.

Either side may send ``ping`` at any time; "the receiver MUST respond promptly with an empty
response" (basic/utilities/ping §Behavior Requirements). 2026-07-28 removed ``ping`` (SV004
reports it there), so these rules cover the handshake revisions only. A ping that is never
answered at all is reported at the end of the session by HX001/HX005; PI003 reports the pings
the capture shows to be *late*: given up by their sender, overtaken by a later ping, or
answered after more than :data:`PING_TIMEOUT` seconds.
"""

from __future__ import annotations

from mcplint import protocol
from mcplint.model import Kind, Record, Severity, id_key
from mcplint.rules._base import REQUESTS, RESPONSES, Rule, fmt_id, params_of, rule
from mcplint.rules._feature_helpers import error_code, error_message

_BEHAVIOR = "basic/utilities/ping §Behavior Requirements"
_REQUEST, _NOTIFICATION, _ERROR = Kind.REQUEST, Kind.NOTIFICATION, Kind.ERROR
_PING = frozenset({"ping"})

#: Seconds after which a ping answer no longer counts as prompt (timestamped captures).
PING_TIMEOUT = 10.0
#: How many of the sender's requests are searched back for the earlier ping (bounded work).
_LOOKBACK = 1000


@rule
class PingResponseNotEmpty(Rule):
    """Checks that a ping is answered with an empty result (only `_meta` allowed), not an error."""

    code, name = "PI001", "ping-response-not-empty"
    severity, level, spec = Severity.ERROR, "MUST", _BEHAVIOR
    versions = protocol.LEGACY
    kinds = RESPONSES
    methods = _PING
    answers = frozenset({"ok"})
    hint = 'Answer every ping with {"jsonrpc":"2.0","id":<same id>,"result":{}}, before and after initialization.'

    def check(self, record, session):
        msg = record.msg
        result = msg.get("result") if record.kind is not _ERROR else None
        if type(result) is dict and (not result or len(result) == 1 and "_meta" in result):
            return ()  # the usual answer, {}
        related = [(record.request, "ping")]
        if record.kind is _ERROR:
            code = error_code(record)
            return [self.report(record, f"Ping was answered with error {fmt_id(code)} "
                                        f"({error_message(record) or 'no message'}) instead of an empty result",
                                related=related)]
        extra = sorted(k for k in result if k != "_meta") if isinstance(result, dict) else []
        if extra:
            return [self.report(record, f"Ping result is not empty: it carries {', '.join(map(repr, extra[:5]))}",
                                severity=Severity.WARNING, related=related)]
        return ()


@rule
class PingWithParams(Rule):
    """Checks for ping requests that carry parameters other than `_meta`."""

    code, name = "PI002", "ping-with-params"
    severity, level, spec = Severity.INFO, "info", "basic/utilities/ping §Message Format"
    versions = protocol.LEGACY
    kinds = REQUESTS
    methods = _PING
    hint = 'Send ping without params: {"jsonrpc":"2.0","id":1,"method":"ping"}.'

    def check(self, record, session):
        params = record.params
        if params is None:
            return ()  # the usual ping
        extra = sorted(k for k in params_of(record) if k != "_meta")
        if extra:
            return [self.report(record, f"Ping carries params {', '.join(map(repr, extra[:5]))}; a ping has no "
                                        "parameters (only _meta is allowed) and the receiver ignores them")]
        return ()


@rule
class PingUnanswered(Rule):
    """Checks for pings the receiver did not answer promptly: given up, overtaken or answered late."""

    code, name = "PI003", "ping-unanswered"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "heuristic", _BEHAVIOR
    party = "receiver"
    confidence = "low"
    versions = protocol.LEGACY
    kinds = REQUESTS | RESPONSES | frozenset({Kind.NOTIFICATION})
    methods = frozenset({"ping", "notifications/cancelled"})
    hint = ("Answer ping immediately, even while other requests are running (do not queue it behind "
            "slow work); a sender that gets no answer will treat the connection as dead.")

    def check(self, record, session):
        direction = record.direction
        if direction is None:
            return ()
        kind = record.kind
        if kind is _REQUEST:
            pings = self._open(session, direction)
            overdue = self._overtaken(record, session, pings) if pings else None
            if record.has_id:
                pings[id_key(record.id)] = record
            if overdue is None:
                return ()
            return [self.report(record, f"Ping {fmt_id(overdue.id)} was still unanswered when the "
                                        f"{direction.sender} sent this ping, although the "
                                        f"{direction.other.sender} answered later requests",
                                related=[(overdue, "unanswered ping")])]
        if kind is _NOTIFICATION:
            entry = session.find_request(direction, params_of(record).get("requestId"))
            if entry is None or entry.record.method != "ping":
                return ()
            self._open(session, direction).pop(id_key(entry.record.id), None)
            if not entry.pending or entry.cancel is not None:
                return ()
            return [self.report(record, f"The {direction.sender} gave up on ping {fmt_id(entry.record.id)}: the "
                                        f"{direction.other.sender} did not answer it before this cancellation",
                                related=[(entry.record, "unanswered ping")])]
        request = record.request
        if request is None or (record.answer != "ok" and record.answer != "after-cancel"):
            return ()
        self._open(session, direction.other).pop(id_key(request.id), None)
        start, end = request.t, record.t
        if start is None or end is None or end - start <= PING_TIMEOUT:
            return ()
        return [self.report(record, f"Ping {fmt_id(record.id)} was answered after {end - start:.1f} s "
                                    f"(more than {PING_TIMEOUT:.0f} s): not promptly",
                            party="sender", related=[(request, "ping")])]

    def _open(self, session, sender) -> dict:
        """The sender's pings not yet answered (id_key -> request), kept so that the common case,
        no ping open, costs nothing."""
        return session.state_for(self).setdefault(sender, {})

    def _overtaken(self, record: Record, session, open_pings: dict) -> Record | None:
        """The sender's earlier ping (one of ``open_pings``), still unanswered although the receiver
        answered a later request."""
        state = session.state_for(self)
        reported = state.setdefault("reported", set())
        answered_later = False
        for count, entry in enumerate(reversed(session.requests[record.direction].values())):
            if count >= _LOOKBACK:
                break
            key = id_key(entry.record.id)
            if key in open_pings and entry.record.method == "ping" and entry.pending and entry.cancel is None:
                if answered_later and key not in reported:
                    reported.add(key)
                    return entry.record
                return None  # the latest open ping has not been overtaken (yet)
            if entry.response is not None:
                answered_later = True
        return None

"""Subscriptions (SB), 2026-07-28: the ``subscriptions/listen`` stream and what travels on it.

A client opens a long-lived stream with ``subscriptions/listen`` and a filter of the
notification types it wants; the server acknowledges it with
``notifications/subscriptions/acknowledged`` (the subset it agreed to honor) and then sends only
those types, each carrying ``_meta["io.modelcontextprotocol/subscriptionId"]`` = the id of the
listen request. The server ends the stream with a result (graceful closure) or, on stdio, with
``notifications/cancelled``; the client ends it with ``notifications/cancelled``.
The :class:`Subscriptions` tracker keeps the listen requests of a session.

Not implemented: SB008 (server teardown without either signal) needs the capture to record the
end of the server process or of the stream, which today's capture formats do not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded, _alternate_key
from mcplint.model import Direction, Kind, Record, Severity, id_key
from mcplint.rules._base import (
    NOTIFICATIONS,
    REQUESTS,
    RESPONSES,
    Rule,
    Tracker,
    fmt_id,
    params_of,
    result_of,
    rule,
    tracker,
)

LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
CANCELLED = "notifications/cancelled"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
UPDATED = "notifications/resources/updated"
RESOURCE_SUBSCRIPTIONS = "resourceSubscriptions"

#: Change notifications a client opts in to, and the filter flag that asks for each.
FLAGS = {
    "notifications/tools/list_changed": "toolsListChanged",
    "notifications/prompts/list_changed": "promptsListChanged",
    "notifications/resources/list_changed": "resourcesListChanged",
}
#: Every notification type that is only delivered on a listen stream.
SUBSCRIBABLE = frozenset(FLAGS) | {UPDATED}
#: Notifications that belong to one request, never to a listen stream.
REQUEST_SCOPED = frozenset({"notifications/message", "notifications/progress"})
#: Filter entries and the server capability that backs each (SB009).
FILTER_GATES = {
    "toolsListChanged": protocol.Gate("server", ("tools",), "listChanged", protocol.MODERN),
    "promptsListChanged": protocol.Gate("server", ("prompts",), "listChanged", protocol.MODERN),
    "resourcesListChanged": protocol.Gate("server", ("resources",), "listChanged", protocol.MODERN),
    RESOURCE_SUBSCRIPTIONS: protocol.Gate("server", ("resources",), "subscribe", protocol.MODERN),
}

_PAGE = "basic/patterns/subscriptions"
#: Seconds within which a notification crossing the client's cancellation counts as a race.
GRACE_SECONDS = 1.0


# -- facts ---------------------------------------------------------------------------------------
@dataclass(slots=True, eq=False)
class Listen:
    """One ``subscriptions/listen`` request and what became of it."""

    record: Record
    filter: dict  # the requested SubscriptionFilter ({} when absent or malformed)
    ack: Record | None = None
    acked: dict | None = None  # the acknowledged filter
    closed: Record | None = None  # the server's response or either side's cancellation

    @property
    def open(self) -> bool:
        return self.closed is None

    @property
    def honored(self) -> dict:
        """The filter in force: the acknowledged one once there is one, else the requested one."""
        return self.acked if self.acked is not None else self.filter


@dataclass(slots=True)
class SubscriptionFacts:
    listens: Bounded = field(default_factory=lambda: Bounded(10_000))  # id_key -> Listen


def subscription_id(record: Record) -> tuple[bool, Any]:
    """``(present, value)`` of ``params._meta["io.modelcontextprotocol/subscriptionId"]``."""
    meta = params_of(record).get("_meta")
    if isinstance(meta, dict) and SUBSCRIPTION_ID in meta:
        return True, meta[SUBSCRIPTION_ID]
    return False, None


def filter_of(value: Any) -> dict:
    notifications = value.get("notifications") if isinstance(value, dict) else None
    return notifications if isinstance(notifications, dict) else {}


def uris_of(filter_: dict) -> list[str]:
    uris = filter_.get(RESOURCE_SUBSCRIPTIONS)
    return [u for u in uris if isinstance(u, str)] if isinstance(uris, list) else []


def asks_for(filter_: dict, method: str) -> bool:
    """Whether a filter opts in to notifications of ``method``."""
    if method == UPDATED:
        return bool(uris_of(filter_))
    flag = FLAGS.get(method)
    return flag is not None and filter_.get(flag) is True


def in_scope(uri: Any, subscribed: list[str]) -> bool:
    """``uri`` is a subscribed URI or a sub-resource of one (the schema allows sub-resources)."""
    if not isinstance(uri, str):
        return True  # not a string: a schema matter
    for base in subscribed:
        if uri == base:
            return True
        stem = base.rstrip("/")
        if uri.startswith(stem) and uri[len(stem):len(stem) + 1] in ("/", "#", "?"):
            return True
    return False


def listen_of(session, value: Any) -> Listen | None:
    return Subscriptions.of(session).listens.get(id_key(value))


def wanted_by_open_listen(session, record: Record) -> Listen | None:
    """An open listen that asked for this notification (for updates: for its URI)."""
    uri = params_of(record).get("uri")
    for listen in Subscriptions.of(session).listens.values():
        if listen.open and asks_for(listen.filter, record.method) and (
                record.method != UPDATED or in_scope(uri, uris_of(listen.filter))):
            return listen
    return None


def what(record: Record) -> str:
    return record.method or record.kind.value


@tracker
class Subscriptions(Tracker):
    """Keeps the session's ``subscriptions/listen`` requests, acknowledgments and closures."""

    kinds = REQUESTS | NOTIFICATIONS | RESPONSES
    methods = frozenset({LISTEN, ACKNOWLEDGED, CANCELLED})
    facts = SubscriptionFacts

    def commit(self, record, session):
        facts = Subscriptions.of(session)
        kind = record.kind
        if kind is Kind.REQUEST:
            if record.direction is Direction.C2S and record.has_id and record.id is not None:
                facts.listens[id_key(record.id)] = Listen(record, filter_of(record.params))
        elif kind is Kind.NOTIFICATION:
            if record.method == ACKNOWLEDGED and record.direction is Direction.S2C:
                present, value = subscription_id(record)
                listen = facts.listens.get(id_key(value)) if present else None
                if listen is not None and listen.ack is None:
                    listen.ack, listen.acked = record, filter_of(record.params)
            elif record.method == CANCELLED:
                params = params_of(record)
                listen = facts.listens.get(id_key(params.get("requestId"))) if "requestId" in params else None
                if listen is not None and listen.open:
                    listen.closed = record
        elif record.direction is Direction.S2C and record.answer in ("ok", "after-cancel"):
            listen = facts.listens.get(id_key(record.id))
            if listen is not None and listen.record is record.request and listen.open:
                listen.closed = record


class _ServerNotification(Rule):
    versions = protocol.MODERN
    kinds = NOTIFICATIONS
    party = "server"

    def applicable(self, record: Record) -> bool:
        return record.direction is Direction.S2C


# -- rules ---------------------------------------------------------------------------------------
@rule
class UnrequestedNotificationType(_ServerNotification):
    """Checks that servers send change notifications only on a listen stream that asked for them."""

    code, name = "SB001", "unrequested-notification-type"
    severity, level, spec = Severity.ERROR, "MUST NOT", f"{_PAGE} §Opening a Stream"
    methods = SUBSCRIBABLE
    hint = ("Send list_changed and resources/updated notifications only on a subscriptions/listen "
            "stream whose filter asked for them, with the stream's subscriptionId.")

    def check(self, record, session):
        if not self.applicable(record):
            return
        present, value = subscription_id(record)
        if not present:
            if wanted_by_open_listen(session, record) is not None:
                return  # on a stream that asked for it, only the id is missing: SB004
            if session.midstream:
                yield self.report(record, f"{what(record)} carries no subscriptionId and no "
                                          "subscriptions/listen in the capture asked for it (the "
                                          "capture may have missed the listen request)",
                                  confidence="low", severity=Severity.WARNING)
                return
            yield self.report(record, f"{what(record)} was sent outside any subscriptions/listen "
                                      "stream; change notifications are only delivered on a stream "
                                      "whose filter asked for them")
            return
        listen = listen_of(session, value)
        if listen is None:
            return  # names no listen request: SB004
        if listen.closed is not None:
            yield from self._after_close(record, listen)
            return
        if not asks_for(listen.filter, record.method):
            flag = "resourceSubscriptions" if record.method == UPDATED else FLAGS[record.method]
            yield self.report(
                record, f"{what(record)} on subscription {fmt_id(value)}, whose filter did not ask "
                        f"for it ({flag} not requested)",
                related=[(listen.record, "subscriptions/listen request")])

    def _after_close(self, record: Record, listen: Listen):
        closed = listen.closed
        related = [(listen.record, "subscriptions/listen request"), (closed, "end of the subscription")]
        by_client = closed.direction is Direction.C2S
        gap = record.t - closed.t if record.t is not None and closed.t is not None else None
        if by_client and (gap is None or gap <= GRACE_SECONDS):
            yield self.report(record, f"{what(record)} on subscription {fmt_id(listen.record.id)} after "
                                      "the client cancelled it (may have crossed the cancellation)",
                              severity=Severity.WARNING, confidence="low", related=related)
            return
        who = "the client cancelled" if by_client else "the server closed"
        yield self.report(record, f"{what(record)} on subscription {fmt_id(listen.record.id)} after {who} it",
                          related=related)


@rule
class AckNotFirst(_ServerNotification):
    """Checks that nothing is sent on a subscription before its acknowledgment."""

    code, name = "SB002", "ack-not-first"
    severity, level, spec = Severity.ERROR, "MUST", f"{_PAGE} §Acknowledgment"
    hint = ("Send notifications/subscriptions/acknowledged first, then the subscription's "
            "notifications.")

    def check(self, record, session):
        if not self.applicable(record) or record.method == ACKNOWLEDGED:
            return
        present, value = subscription_id(record)
        listen = listen_of(session, value) if present else None
        if listen is None or listen.ack is not None or listen.closed is not None:
            return
        yield self.report(record, f"{what(record)} on subscription {fmt_id(value)} before the "
                                  "subscription was acknowledged",
                          related=[(listen.record, "subscriptions/listen request")])


@rule
class AckNotSubset(_ServerNotification):
    """Checks that an acknowledgment lists only notification types and URIs the client requested."""

    code, name = "SB003", "ack-not-subset"
    severity, level, spec = Severity.ERROR, "derived", f"{_PAGE} §Acknowledgment"
    methods = frozenset({ACKNOWLEDGED})
    hint = "Acknowledge the subset of the requested filter the server honors, nothing more."

    def check(self, record, session):
        if not self.applicable(record):
            return
        present, value = subscription_id(record)
        listen = listen_of(session, value) if present else None
        if listen is None or listen.ack is not None:
            return
        acked, asked = filter_of(record.params), listen.filter
        extra = [flag for flag in FLAGS.values() if acked.get(flag) is True and asked.get(flag) is not True]
        requested = set(uris_of(asked))
        extra += [f"resourceSubscriptions {uri!r}" for uri in uris_of(acked) if uri not in requested]
        if extra:
            yield self.report(record, f"Acknowledgment of subscription {fmt_id(value)} lists what the "
                                      f"client did not request: {', '.join(extra)}",
                              related=[(listen.record, "subscriptions/listen request")])


@rule
class MissingSubscriptionId(_ServerNotification):
    """Checks that notifications on a listen stream carry the listen request's id as subscriptionId."""

    code, name = "SB004", "missing-subscription-id"
    severity, level, spec = Severity.ERROR, "MUST", f"{_PAGE} §Receiving Notifications"
    hint = ('Put _meta["io.modelcontextprotocol/subscriptionId"] = the subscriptions/listen '
            "request id (same value and type) on every notification of the stream.")

    def check(self, record, session):
        if not self.applicable(record):
            return
        present, value = subscription_id(record)
        if not present:
            if record.method == ACKNOWLEDGED:
                yield self.report(record, "The acknowledgment carries no subscriptionId; the client "
                                          "cannot tell which subscription it confirms")
            elif record.method in SUBSCRIBABLE:
                listen = wanted_by_open_listen(session, record)
                if listen is not None:
                    yield self.report(record, f"{what(record)} on the stream of subscription "
                                              f"{fmt_id(listen.record.id)} carries no subscriptionId",
                                      related=[(listen.record, "subscriptions/listen request")])
            return
        if listen_of(session, value) is not None:
            return
        listens = Subscriptions.of(session).listens
        alt = _alternate_key(value)
        note = ""
        if alt is not None and alt in listens:
            note = f" (subscriptions/listen {fmt_id(listens[alt].record.id)} exists: ids are type-exact)"
        elif session.midstream:
            return  # the listen request may predate the capture
        yield self.report(record, f"{what(record)} names subscriptionId {fmt_id(value)}, which is the id "
                                  f"of no subscriptions/listen request{note}")


@rule
class RequestScopedOnListenStream(_ServerNotification):
    """Checks for log and progress notifications sent on a listen stream."""

    code, name = "SB005", "request-scoped-on-listen-stream"
    severity, level, spec = Severity.ERROR, "MUST NOT", "server/utilities/logging §Log Message Notifications"
    methods = REQUEST_SCOPED
    hint = ("Send notifications/message and notifications/progress for the request they belong to, "
            "without a subscriptionId; a listen stream carries only change notifications.")

    def check(self, record, session):
        if not self.applicable(record):
            return
        present, value = subscription_id(record)
        if not present:
            return
        if record.method == "notifications/progress":
            yield self.report(record, f"notifications/progress carries subscriptionId {fmt_id(value)}; "
                                      "progress belongs to its request and is not delivered on a "
                                      "listen stream",
                              severity=Severity.WARNING, level="derived",
                              spec="basic/transports/streamable-http §Receiving Messages")
            return
        yield self.report(record, f"notifications/message carries subscriptionId {fmt_id(value)}; log "
                                  "messages must not be sent on a listen stream")


@rule
class ResourceUpdatedScope(_ServerNotification):
    """Checks that resources/updated names a subscribed URI or a sub-resource of one."""

    code, name = "SB006", "resource-updated-scope"
    severity, level, spec = Severity.WARNING, "MUST NOT", f"{_PAGE} §Opening a Stream"
    confidence = "low"
    methods = frozenset({UPDATED})
    hint = "Send resources/updated only for URIs listed in resourceSubscriptions (or beneath them)."

    def check(self, record, session):
        if not self.applicable(record):
            return
        present, value = subscription_id(record)
        listen = listen_of(session, value) if present else None
        if listen is None or listen.closed is not None:
            return
        subscribed = uris_of(listen.filter)
        uri = params_of(record).get("uri")
        if subscribed and not in_scope(uri, subscribed):
            shown = ", ".join(repr(u) for u in subscribed[:3]) + (", …" if len(subscribed) > 3 else "")
            yield self.report(record, f"resources/updated for {uri!r} on subscription {fmt_id(value)}, "
                                      f"which subscribed to {shown} (not the same resource nor beneath it)",
                              related=[(listen.record, "subscriptions/listen request")])


@rule
class ListenCloseResultShape(Rule):
    """Checks that the result closing a listen stream names the subscription in its ``_meta``."""

    code, name = "SB007", "listen-close-result-shape"
    severity, level, spec = Severity.ERROR, "SCHEMA", f"{_PAGE} §Graceful Closure"
    versions = protocol.MODERN
    kinds = frozenset({Kind.RESULT})
    methods = frozenset({LISTEN})
    answers = frozenset({"ok", "after-cancel"})
    party = "server"
    hint = ('Close a subscription with {"resultType":"complete","_meta":'
            '{"io.modelcontextprotocol/subscriptionId":<listen id>}}.')

    def check(self, record, session):
        result = result_of(record)
        if record.direction is not Direction.S2C or not isinstance(result, dict):
            return
        meta = result.get("_meta")
        if not isinstance(meta, dict) or SUBSCRIPTION_ID not in meta:
            yield self.report(record, "The result closing subscription "
                                      f"{fmt_id(record.id)} has no _meta subscriptionId")
        elif id_key(meta[SUBSCRIPTION_ID]) != id_key(record.id):
            yield self.report(record, f"The result closing subscription {fmt_id(record.id)} names "
                                      f"subscriptionId {fmt_id(meta[SUBSCRIPTION_ID])}; it must equal "
                                      "the response id")


@rule
class ListenFilterVsCapabilities(_ServerNotification):
    """Checks for acknowledged filters that the server's discovered capabilities do not back."""

    code, name = "SB009", "listen-filter-vs-capabilities"
    severity, level, spec = Severity.INFO, "info", f"{_PAGE} §Acknowledgment"
    confidence = "low"
    methods = frozenset({ACKNOWLEDGED})
    hint = ("Declare tools/prompts/resources listChanged (and resources.subscribe) in the "
            "server/discover capabilities when the server honors those subscriptions.")

    def check(self, record, session):
        caps = session.server_caps
        if not self.applicable(record) or not isinstance(caps, dict):
            return  # no server/discover answer seen: nothing to compare with
        acked = filter_of(record.params)
        unbacked = []
        for entry, gate in FILTER_GATES.items():
            honored = bool(uris_of(acked)) if entry == RESOURCE_SUBSCRIPTIONS else acked.get(entry) is True
            if honored and not protocol.gate_open(gate, caps):
                unbacked.append(f"{entry} (capabilities.{gate.describe()} not declared)")
        if unbacked:
            yield self.report(record, "The acknowledgment honors " + ", ".join(unbacked)
                              + " although server/discover did not advertise it")

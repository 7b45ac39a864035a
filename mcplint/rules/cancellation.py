"""Cancellation (CN): ``notifications/cancelled`` and what may follow it.

A party cancels one of *its own* requests by id; the receiver should stop working on it and
(2026-07-28: must) not answer it. The analyzer sets ``RequestEntry.cancel`` when a pending
request is cancelled by its sender, and marks a later response ``answer == "after-cancel"``.
Cancelling ``initialize`` is ``LC014``; cancelling a task is ``CN004`` (2025-11-25).
"""

from __future__ import annotations

from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import RequestEntry, _alternate_key
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import NOTIFICATIONS, RESPONSES, Rule, error_of, fmt_id, params_of, rule

CANCELLED = "notifications/cancelled"
_BEHAVIOR = "basic/utilities/cancellation §Behavior Requirements"
#: The race window: a message for a request at most this many seconds after its cancellation (or
#: a cancellation at most this long after the response) may have crossed it on the wire.
GRACE_SECONDS = 1.0
#: JSON-RPC error code "request cancelled" (LSP's RequestCancelled, used by some MCP SDKs).
REQUEST_CANCELLED = -32800


def cancel_target(record: Record, session) -> tuple[bool, Any, RequestEntry | None]:
    """``(present, requestId, entry)``: the request the cancelling side says it cancels."""
    params = params_of(record)
    if "requestId" not in params:
        return False, None, None
    request_id = params["requestId"]
    if record.direction is None:
        return True, request_id, None
    return True, request_id, session.find_request(record.direction, request_id)


def cancels_task(record: Record, entry: RequestEntry | None) -> bool:
    """A 2025-11-25 cancellation of a request that already became a task (CN004's case)."""
    return entry is not None and entry.task and record.revision == protocol.V2025_11_25


def says_cancelled(record: Record) -> bool:
    """An error response that names the cancellation: code -32800, or a message about it
    (the Python SDK answers ``{"code": 0, "message": "Request cancelled"}``)."""
    error = error_of(record) if record.kind is Kind.ERROR else None
    if not isinstance(error, dict):
        return False
    message = error.get("message")
    return error.get("code") == REQUEST_CANCELLED or (isinstance(message, str) and "cancel" in message.lower())


def seconds_between(earlier: Record | None, later: Record) -> float | None:
    if earlier is None or earlier.t is None or later.t is None:
        return None
    return later.t - earlier.t


class CancelRule(Rule):
    """Base of the rules that judge a ``notifications/cancelled``."""

    kinds = NOTIFICATIONS
    methods = frozenset({CANCELLED})


@rule
class CancelUnknownOrWrongDirection(CancelRule):
    """Checks that a cancellation names a request that its sender issued."""

    code, name = "CN001", "cancel-unknown-or-wrong-direction"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _BEHAVIOR
    hint = "Cancel only your own requests, by their exact id (same value and type)."

    def check(self, record, session):
        present, request_id, entry = cancel_target(record, session)
        if not present or entry is not None or record.direction is None:
            return
        sender, peer = record.direction.sender, record.direction.other.sender
        theirs = session.find_request(record.direction.other, request_id)
        modern = record.revision in protocol.MODERN
        if modern and record.direction is Direction.S2C:
            if theirs is not None:
                return  # 2026-07-28 server teardown of a client request: CN007 judges which ones
            sender = "client"  # 2026-07-28: the id must be one "the client previously issued"
        low = "low" if session.midstream else None
        if theirs is not None:
            yield self.report(
                record,
                f"The {sender} cancelled request {fmt_id(request_id)}, which the {peer} sent; "
                f"a party may only cancel requests it issued itself",
                confidence=low, related=[(theirs.record, f"{peer}'s request with this id")])
            return
        owner = Direction.C2S if sender == "client" else Direction.S2C
        alt = _alternate_key(request_id)
        note = ""
        if alt is not None and alt in session.requests[owner]:
            other = session.requests[owner][alt].record
            note = f" (request {fmt_id(other.id)} exists: ids are type-exact)"
        yield self.report(
            record, f"requestId {fmt_id(request_id)} is not the id of any request the {sender} sent{note}",
            confidence=low)


@rule
class CancelCompletedRequest(CancelRule):
    """Checks for cancellations of requests whose response the canceller had already received."""

    code, name = "CN002", "cancel-completed-request"
    order_sensitive = True
    severity, level, spec = Severity.INFO, "MUST", _BEHAVIOR
    confidence = "low"
    hint = "Cancel only requests still in progress; once the response arrived there is nothing to cancel."

    def check(self, record, session):
        present, request_id, entry = cancel_target(record, session)
        if entry is None or entry.response is None or cancels_task(record, entry):
            return
        if entry.record.method == "initialize":
            return  # LC014 reports any cancellation of initialize
        gap = seconds_between(entry.response, record)
        late = gap is not None and gap > GRACE_SECONDS
        when = f" {gap:.1f} s earlier" if gap is not None and gap >= 0 else ""
        yield self.report(
            record,
            f"Request {fmt_id(request_id)} ({entry.record.method!r}) was cancelled although its "
            f"response had arrived{when}",
            severity=Severity.WARNING if late else None,
            related=[(entry.record, "request"), (entry.response, "response")])


@rule
class CancelTaskWithNotification(CancelRule):
    """Checks for ``notifications/cancelled`` aimed at a request that became a task."""

    code, name = "CN004", "cancel-task-with-notification"
    severity, level, spec = Severity.ERROR, "MUST", _BEHAVIOR
    versions = frozenset({protocol.V2025_11_25})
    hint = 'Cancel a task with the "tasks/cancel" request and its taskId.'

    def check(self, record, session):
        present, request_id, entry = cancel_target(record, session)
        if not cancels_task(record, entry):
            return
        result = entry.response.msg.get("result") if entry.response.kind is Kind.RESULT else None
        task = result.get("task") if isinstance(result, dict) else None
        task_id = task.get("taskId") if isinstance(task, dict) else None
        named = f" {fmt_id(task_id)}" if task_id is not None else ""
        yield self.report(
            record,
            f"Request {fmt_id(request_id)} became task{named}; notifications/cancelled must not "
            "be used to cancel tasks (use tasks/cancel)",
            related=[(entry.record, "task-augmented request"), (entry.response, "CreateTaskResult")])


@rule
class CancelMissingRequestId(CancelRule):
    """Checks for cancellations without a ``requestId``."""

    code, name = "CN005", "cancel-missing-request-id"
    severity, level, spec = Severity.ERROR, "SCHEMA", _BEHAVIOR
    hint = "Name the cancelled request in params.requestId."

    def check(self, record, session):
        params = record.params
        if params is not None and not isinstance(params, dict):
            return  # not an object: JR007
        if params is not None and "requestId" in params:
            return
        if record.revision == protocol.V2025_11_25:
            # optional in the 2025-11-25 schema, but "MUST be provided for cancelling non-task requests"
            finding = self.report(record, "notifications/cancelled has no requestId; only requests "
                                          "can be cancelled this way and they must be named",
                                  severity=Severity.WARNING, level="MUST")
            yield finding
            return
        yield self.report(record, "notifications/cancelled has no requestId (required)")


@rule
class ResponseAfterCancel(Rule):
    """Checks for responses (and progress) sent for a request after its cancellation."""

    code, name = "CN006", "response-after-cancel"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD", _BEHAVIOR
    confidence = "low"
    kinds = RESPONSES | NOTIFICATIONS
    answers = frozenset({"after-cancel"})  # progress notifications of a cancelled request too
    hint = "Stop work on a cancelled request and send nothing more for it."

    def check(self, record, session):
        entry = self._cancelled_request(record, session)
        if entry is None:
            return
        gap = seconds_between(entry.cancel, record)
        when = f"{gap:.1f} s after its cancellation" if gap is not None and gap >= 0 else "after its cancellation"
        about = f"{fmt_id(entry.record.id)} ({entry.record.method!r})"
        modern = record.revision in protocol.MODERN
        # legacy: receivers SHOULD not answer; 2026-07-28: MUST NOT send any further message for it
        breach = {"severity": Severity.ERROR, "level": "MUST NOT"} if modern else {}
        related = [(entry.record, "request"), (entry.cancel, "cancellation")]
        if record.kind is Kind.NOTIFICATION:
            if gap is not None and gap <= GRACE_SECONDS:
                return  # progress already on its way when the cancellation arrived
            what = f"Progress for request {about} was sent {when}"
            if not modern:  # legacy revisions forbid only the response
                yield self.report(record, f"{what}: the receiver should stop processing a cancelled request",
                                  severity=Severity.INFO, related=related)
                return
        elif says_cancelled(record):  # answered *because of* the cancellation: no race
            yield self.report(record, f"Request {about} was answered {when} with an error saying it was "
                                      "cancelled; a cancelled request gets no response",
                              confidence="high", related=related, **breach)
            return
        else:
            what = f"Request {about} was answered {when}"
        if gap is None or gap <= GRACE_SECONDS:
            why = ("no timestamps: it may have crossed the cancellation" if gap is None
                   else "within the race window: it probably crossed the cancellation")
            yield self.report(record, f"{what} ({why}); the canceller should ignore it",
                              severity=Severity.INFO, related=related)
        else:
            yield self.report(record, what, related=related, **breach)

    @staticmethod
    def _cancelled_request(record: Record, session) -> RequestEntry | None:
        """The cancelled request that ``record`` answers or reports progress for."""
        if record.direction is None:
            return None
        if record.kind is Kind.NOTIFICATION:
            entry = record.target.live
        else:
            entry = session.find_request(record.direction.other, record.id)
        if entry is None or entry.cancel is None or entry.record.method == "initialize":
            return None  # cancelling initialize is void (LC014): the server must still answer it
        return entry

"""Progress (PR): progress tokens on requests and the ``notifications/progress`` that refer to them.

A request carrying ``params._meta.progressToken`` lets its *receiver* send
``notifications/progress`` for that token until the request is answered. The analyzer keeps the
live tokens per requester (``session.tokens``) and the answered ones (``session.finished_tokens``);
``last_progress`` and ``total`` of a token are updated after the rules ran, so a rule sees the
values of the earlier notifications.
"""

from __future__ import annotations

from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import RequestEntry, progress_token
from mcplint.model import Direction, Kind, Severity, id_key
from mcplint.rules._base import NOTIFICATIONS, REQUESTS, Rule, feature, fmt_id, params_of, rule
from mcplint.rules.schema import FOLDED, Accepting

PROGRESS = "notifications/progress"
_FLOW = "basic/utilities/progress §Progress Flow"
_BEHAVIOR = "basic/utilities/progress §Behavior Requirements"
_REQUEST = Kind.REQUEST
_NUMBER = (int, float)
_TOKEN_TYPES = (int, str)
_V2024_11_05 = protocol.V2024_11_05


def is_number(value: Any) -> bool:
    """A JSON number (booleans are no numbers)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_PARAMS = Accepting("notification", PROGRESS)


@feature(FOLDED["notification", PROGRESS], Kind.NOTIFICATION, PROGRESS)
def plain_progress(record) -> bool:
    """Whether a ``notifications/progress`` is the common, well-formed kind that none of PR001,
    PR003-PR006, PR008 and SV002 can report: a string or integer token of the peer's request still
    in progress (live, not answered), ``progress`` above the previous value, no ``total`` it
    exceeds or changes, a string ``message`` (none in 2024-11-05), and params the acceptor of
    their type vouches for (SV002: as ``schema.plain_notification``, which the engine does not ask
    of progress: ``schema.FOLDED``). Each clause is the early exit of one rule. The engine tests it
    once instead of calling those seven rules, which require the feature "odd-progress" (checked
    in the rules themselves it cost what it saved, issue 16)."""
    params = record.params
    if type(params) is not dict or type(params.get("progressToken")) not in _TOKEN_TYPES:
        return False  # PR001, PR003
    ref = record.target
    if ref is None or ref.finished is not None:
        return False  # PR003 (no direction, or no such token), PR004
    live = ref.live
    if live is None:
        return False  # PR003
    progress = params.get("progress")
    if live.last_progress is not None and type(progress) in _NUMBER and not progress > live.last_progress:
        return False  # PR005 (is_number() inlined: JSON numbers are exactly int or float)
    total = params.get("total")
    if type(total) in _NUMBER and (type(progress) in _NUMBER and progress > total
                                   or live.total is not None and live.total != total):
        return False  # PR006
    if "message" in params and (type(params["message"]) is not str or record.revision == _V2024_11_05):
        return False  # PR008
    return _PARAMS.vouches(record, params)  # SV002


class ProgressRule(Rule):
    """Base of the rules that judge a ``notifications/progress``."""

    kinds = NOTIFICATIONS
    methods = frozenset({PROGRESS})


@rule
class ProgressTokenType(ProgressRule):
    """Checks that progress tokens are strings or integers."""

    code, name = "PR001", "progress-token-type"
    severity, level, spec = Severity.ERROR, "MUST", _FLOW
    # not called on a plain_progress() notification, nor on a request without a progress token or
    # with a string or integer one (the engine's "token" feature)
    requires = frozenset({"odd-progress", "token"})
    kinds = frozenset({Kind.REQUEST, Kind.NOTIFICATION})
    methods = None  # any request may carry a token
    hint = "Use a string or an integer (no fraction, no boolean, no null) as progress token."

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return kind is Kind.REQUEST or method == PROGRESS

    def check(self, record, session):
        # Runs on every request: progress_token() inlined, and no token (the usual case) leaves
        # after two dict probes.
        params = record.params
        if not isinstance(params, dict):
            return ()
        if record.kind is _REQUEST:
            meta = params.get("_meta")
            if not isinstance(meta, dict) or "progressToken" not in meta:
                return ()
            token, where = meta["progressToken"], "params._meta.progressToken"
        elif record.method == PROGRESS and "progressToken" in params:
            token, where = params["progressToken"], "params.progressToken"
        else:
            return ()
        if type(token) in (int, str):
            return ()
        kind = "null" if token is None else type(token).__name__
        return [self.report(record, f"{where} {fmt_id(token)} is {kind}, not a string or integer")]


@rule
class ProgressTokenNotUnique(ProgressRule):
    """Checks that a sender does not reuse the progress token of one of its active requests."""

    code, name = "PR002", "progress-token-not-unique"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _FLOW
    kinds = REQUESTS
    methods = None
    requires = frozenset({"token"})  # not called on a request whose token (if any) is not live
    hint = "Give every request its own progress token (a counter or a UUID)."

    def check(self, record, session):
        present, token = progress_token(record)
        earlier = session.tokens[record.direction].get(id_key(token)) \
            if present and record.direction is not None else None
        return () if earlier is None else self._reused(record, token, earlier)

    def _reused(self, record, token, earlier):
        sender = record.direction.sender.capitalize()
        if earlier.task:
            yield self.report(
                record,
                f"{sender} reused progress token {fmt_id(token)} of task-augmented request "
                f"{fmt_id(earlier.record.id)}, whose task may still be running",
                confidence="low",
                related=[(earlier.record, "request that issued the token"),
                         (earlier.response, "CreateTaskResult (token stays valid until the task ends)")])
            return
        yield self.report(
            record,
            f"{sender} reused progress token {fmt_id(token)} while request "
            f"{fmt_id(earlier.record.id)} ({earlier.record.method!r}) that carries it is still active",
            related=[(earlier.record, "active request with this token")])


@rule
class ProgressUnknownToken(ProgressRule):
    """Checks for progress notifications whose token the peer never issued in a request."""

    code, name = "PR003", "progress-unknown-token"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _BEHAVIOR
    requires = frozenset({"odd-progress"})  # not called on a plain_progress() notification
    hint = ("Only send progress for a token that the peer put in params._meta.progressToken "
            "of a request it sent you.")

    def check(self, record, session):
        ref = record.target
        if ref is None:
            return self._unknown_to_both(record, session) if record.direction is None else ()
        if ref.live is not None or ref.finished is not None:
            return ()
        return self._unknown(record, session, ref)

    def _unknown_to_both(self, record, session):
        """A notification of unknown sender (plain JSON Lines) is wrong whoever sent it when no
        request of either side carried its token (a token of one side would have set the direction)."""
        params = params_of(record)
        if "progressToken" not in params:
            return
        token = params["progressToken"]
        key = id_key(token)
        tables = [table[side] for table in (session.tokens, session.finished_tokens) for side in Direction]
        if any(key in table for table in tables):
            return  # tokens of both sides: who sent it, and whether that is right, stays open
        forgotten = False  # an answered request of unknown sender is kept without its params
        for entry in session.undirected.values():
            if type(entry) is not RequestEntry:
                forgotten = True
                continue
            present, carried = progress_token(entry.record)
            if present and id_key(carried) == key:
                return  # carried by a request of unknown sender
        partial = session.midstream or forgotten or any(table.evicted > 0 for table in tables)
        yield self.report(record, f"Progress token {fmt_id(token)} was not issued in any request of either "
                                  "side (the capture does not say who sent this notification)",
                          confidence="low" if partial else None)

    def _unknown(self, record, session, ref):
        key = id_key(ref.token)
        sender, peer = record.direction.sender, ref.requester.sender
        partial = (session.midstream or session.finished_tokens[ref.requester].evicted > 0
                   or session.tokens[ref.requester].evicted > 0)
        own = session.tokens[record.direction].get(key) or session.finished_tokens[record.direction].get(key)
        if own is not None:
            yield self.report(
                record,
                f"The {sender} sent progress for token {fmt_id(ref.token)} of its own request "
                f"{fmt_id(own.record.id)}; progress flows from the receiver of a request to its sender",
                confidence="low" if partial else None,
                related=[(own.record, f"{sender}'s own request with this token")])
            return
        yield self.report(
            record,
            f"Progress token {fmt_id(ref.token)} was not issued by the {peer} in any request",
            confidence="low" if partial else None)


@rule
class ProgressAfterCompletion(ProgressRule):
    """Checks for progress notifications sent after the request they report on was answered."""

    code, name = "PR004", "progress-after-completion"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _BEHAVIOR
    requires = frozenset({"odd-progress"})  # not called on a plain_progress() notification
    hint = "Send the last progress notification before the response, never after it."

    def check(self, record, session):
        ref = record.target
        if ref is None or ref.finished is None or ref.finished.task:
            return ()  # a task's token ends with the task, not the response (PR007)
        entry = ref.finished
        return [self.report(
            record,
            f"Progress for token {fmt_id(ref.token)} after request {fmt_id(entry.record.id)} "
            f"({entry.record.method!r}) was answered",
            related=[(entry.record, "request that issued the token"), (entry.response, "response")])]


@rule
class ProgressNotIncreasing(ProgressRule):
    """Checks that the ``progress`` value of one token increases with every notification."""

    code, name = "PR005", "progress-not-increasing"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _FLOW
    requires = frozenset({"odd-progress"})  # not called on a plain_progress() notification
    hint = "Send a strictly larger progress value each time; skip notifications that add nothing."

    def check(self, record, session):
        ref = record.target
        if ref is None or ref.live is None or ref.live.last_progress is None:
            return ()
        progress = params_of(record).get("progress")
        previous = ref.live.last_progress
        if not is_number(progress) or progress > previous:
            return ()
        verb = "repeats" if progress == previous else "goes back from"
        return [self.report(
            record,
            f"Progress {fmt_id(progress)} for token {fmt_id(ref.token)} {verb} "
            f"{'the previous value ' if progress == previous else ''}{fmt_id(previous)}",
            related=[(ref.live.last_progress_record, "earlier progress notification")])]


@rule
class ProgressExceedsTotal(ProgressRule):
    """Checks for progress beyond ``total`` and for a ``total`` that changes between notifications."""

    code, name = "PR006", "progress-exceeds-total"
    severity, level, spec = Severity.INFO, "heuristic", _FLOW
    requires = frozenset({"odd-progress"})  # not called on a plain_progress() notification
    confidence = "low"
    hint = "Keep progress within total, and keep total stable (or omit it when unknown)."

    def check(self, record, session):
        params = record.params
        if not isinstance(params, dict):
            return ()
        total = params.get("total")
        if type(total) not in _NUMBER:  # is_number() inlined: JSON numbers are exactly int or float
            return ()
        progress = params.get("progress")
        ref = record.target
        entry = ref.live if ref is not None else None
        notes, related = [], []
        if type(progress) in _NUMBER and progress > total:
            notes.append(f"progress {fmt_id(progress)} exceeds total {fmt_id(total)}")
        if entry is not None and entry.total is not None and entry.total != total:
            notes.append(f"total changed from {fmt_id(entry.total)} to {fmt_id(total)}")
            related.append((entry.last_progress_record, "earlier progress notification"))
        if not notes:
            return ()
        token = fmt_id(params.get("progressToken"))
        return [self.report(record, f"Progress for token {token}: " + "; ".join(notes), related=related)]

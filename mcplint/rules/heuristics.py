"""Heuristics (HX): patterns that are no spec violation by themselves but usually mean trouble.

Every rule here is ``confidence="low"`` and conservative: it speaks only when the capture shows
the pattern plainly, and its thresholds are class attributes (override them in a subclass or
per-rule options). Timing heuristics read ``record.t`` (capture timestamps) and stay silent
when the input has none (transcripts, plain JSON Lines).

Covered elsewhere: HX001/HX005 (unanswered requests) in ``unanswered.py``; HX003 (ping timeout)
is ``PI003 ping-unanswered`` in ``ping.py``. HX013 reads tool result text: only the head of a
single text block, after cheap substring tests, so large results cost next to nothing.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import orjson

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded, RequestEntry, Session
from mcplint.excerpt import _SENSITIVE_KEY, _TOKEN
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.protocol import LONG_LIVED
from mcplint.rules._base import (
    MESSAGES,
    NOTIFICATIONS,
    REQUESTS,
    RESPONSES,
    Rule,
    RuleOptions,
    duration,
    fmt_id,
    params_of,
    result_of,
    rule,
    set_plan_facts,
)
from mcplint.rules._secrets import (
    AUTH_PROBES,
    MAX_SCAN,
    TOKEN_PROBES,
    has_sk,
    has_token_probe,
    might_hold_secret,
)
from mcplint.rules.errors import after_listing
from mcplint.rules.subscriptions import Subscriptions, asks_for
from mcplint.rules.tools import content_kinds, looks_failed
from mcplint.rules.unanswered import call_key, label, maybe_answered

_TIMEOUTS = "basic/lifecycle §Timeouts"


# -- shared helpers ------------------------------------------------------------------------------
def table(session: Session, rule_: Rule, name: str) -> Bounded:
    """The rule's per-session table ``name`` (made on first use, bounded to 10 000 entries)."""
    key = (type(rule_), name)
    found = session.state.get(key)
    if found is None:
        found = session.state[key] = Bounded(10_000)
    return found


def alone(record: Record, session: Session) -> bool:
    """Whether no earlier request of the record's sender can still be open: its pending table is
    empty and no table of the session ever forgot an entry (a request forgotten while open stays
    open in compact form, outside the pending table). Requests are committed after the rules ran,
    so the record itself is not counted."""
    return not session.pending.get(record.direction) and not session.limits_hit


def seconds(earlier: Record | None, later: Record | None) -> float | None:
    """Seconds between two records when both carry capture timestamps."""
    if earlier is None or later is None or earlier.t is None or later.t is None:
        return None
    return later.t - earlier.t


_C2S, _S2C, _NOTIFICATION = Direction.C2S, Direction.S2C, Kind.NOTIFICATION
_SIDES = (_C2S, _S2C)
#: entries a rule's per-session table keeps (the oldest inserted are forgotten first, as in a Bounded)
_KEPT = 10_000


def keep(table: dict, key, value) -> None:
    """``table[key] = value`` in a plain dict bounded to :data:`_KEPT` entries (the oldest
    inserted forgotten first, as :class:`Bounded` does, without a Python ``__setitem__``)."""
    table[key] = value
    if len(table) > _KEPT:
        del table[next(iter(table))]


class _Reissued:
    """What :class:`_Reissue` keeps of a session: call key -> the latest request with it; ``seen``:
    the arrival number of the last request the rule judged; the retries decided at the end
    (the later request's arrival number -> the fields of a :class:`Retry`) and when to prune them."""

    __slots__ = ("latest", "prune_at", "retries", "seen")

    def __init__(self):
        self.latest: dict = {}
        self.seen = -1
        self.retries: dict = {}
        self.prune_at = 64


@dataclass(slots=True)
class Retry:
    """A client request sent again (same method and params) while the earlier one was open."""

    earlier: RequestEntry
    later: Record
    gap: float | None


class _Reissue(Rule):
    """Shared logic of HX004 and CN009: a client re-sends a call without cancelling the first.

    A re-sent identical request while the earlier one is still open shows the client stopped
    waiting for it. It is reported when the earlier request never got an answer in the capture,
    or when timestamps show the client waited at least ``min_wait`` seconds before re-sending.
    """

    kinds = REQUESTS
    # not called on a request that comes alone() (the engine's "overlap" feature): see check
    requires = frozenset({"overlap"})
    party = "client"
    confidence = "low"
    #: seconds the client must have waited before the re-send for it to count as a timeout
    min_wait: ClassVar[float] = 10.0
    #: long-lived by design, or judged by other rules (re-initialize: LC010; ping: PI003)
    exempt: ClassVar[frozenset[str]] = LONG_LIVED | {"initialize", "ping"}
    #: requests of this transport are neither judged nor remembered (None: none)
    ignored_transport: ClassVar[str | None] = None

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return method not in cls.exempt  # never judged (a request is dispatched by its own method)

    def check(self, record, session):
        pending = session.pending.get(_C2S)  # (None: the client asked nothing yet)
        if record.direction is not _C2S or not record.has_id or (not pending and not session.limits_hit) \
                or (self.ignored_transport is not None and record.transport == self.ignored_transport):
            return ()  # (the third test is alone(), for a check called without the "overlap" feature)
        # A finding needs the latest earlier copy of the call still open (a whole pending entry).
        # A request that comes alone() is not judged (nor seen: the "overlap" feature), and keyed
        # at the next request that does not come alone if still open: no request it could shadow
        # was open when it came, and while it stays open no later request comes alone, so the
        # "latest" table is the eager one wherever it matters (a sequential session never
        # serializes its params). It is the client's oldest open request (all others came
        # after it), and came after the last request seen here.
        state = session.state.get(type(self))
        if state is None:
            state = session.state[type(self)] = _Reissued()
        latest = state.latest
        seen, state.seen = state.seen, record.seq
        for oldest in pending.values() if pending else ():
            if type(oldest) is RequestEntry and oldest.record.seq > seen:
                first = oldest.record
                if first.method not in self.exempt and (self.ignored_transport is None
                                                        or first.transport != self.ignored_transport):
                    keep(latest, call_key(first), first)  # every later request took this path
            break
        key = call_key(record)
        earlier: Record | None = latest.get(key)
        latest[key] = record  # (keep() inline, here and for the retries below)
        if len(latest) > _KEPT:
            del latest[next(iter(latest))]
        if earlier is None or earlier.parent is not None:
            return ()  # batch elements left unanswered are JR018/JR019's story
        entry = session.find_request(_C2S, earlier.id)
        # (a compact entry, Answered, stands in for its request with another object: not earlier)
        if type(entry) is not RequestEntry or entry.record is not earlier or entry.response is not None \
                or entry.cancel is not None:
            return ()
        t, sent = record.t, earlier.t
        gap = t - sent if t is not None and sent is not None else None  # (seconds() inline)
        if gap is not None and gap >= self.min_wait:
            return [self.describe(Retry(entry, record, gap), "it was still unanswered")]
        # decided at the end: was the earlier request ever answered?
        retries = state.retries
        if len(retries) >= state.prune_at:  # forget those whose earlier request was settled
            for seq in [seq for seq, (first, _, _) in retries.items()
                        if first.response is not None or first.cancel is not None]:
                del retries[seq]
            state.prune_at = max(64, 2 * len(retries))
        retries[record.seq] = (entry, record, gap)  # a Retry's fields (made when reported)
        if len(retries) > _KEPT:
            del retries[next(iter(retries))]
        return ()

    finish_needs = frozenset({"state"})

    def finish(self, session):
        state = session.state.get(type(self))
        if state is None or not state.retries:
            return ()
        return [maybe_answered(self.describe(Retry(*retry), "it was never answered"), retry[0])
                for retry in state.retries.values() if retry[0].pending and retry[0].cancel is None]

    def describe(self, retry: Retry, outcome: str):
        earlier = retry.earlier.record
        waited = f" {duration(retry.gap)} later" if retry.gap is not None else ""
        return self.report(
            retry.later, f"{label(retry.later)} repeats {label(earlier)}{waited} without cancelling it "
                         f"({outcome}); send notifications/cancelled for a request you stop waiting for",
            related=[(earlier, "the abandoned request")])


# -- HX002 slow-response ----------------------------------------------------------------------------
@rule
class SlowResponse(Rule):
    """Checks for responses that took longer than the method's latency threshold."""

    code, name = "HX002", "slow-response"
    severity, level, spec = Severity.INFO, "heuristic", _TIMEOUTS
    confidence = "low"
    party = "sender"
    kinds, requires = RESPONSES, frozenset({"timed"})
    answers = frozenset({"ok"})
    hint = ("Answer quickly or report progress (notifications/progress) while working; "
            "clients time out silent requests.")
    #: seconds after which a response counts as slow, by method (default for the others)
    threshold: float = 10.0
    thresholds: dict[str, float] = {"initialize": 30.0, "tools/call": 60.0}

    class Options(RuleOptions):
        threshold: float = 10.0  # seconds, for methods without their own threshold
        thresholds: dict[str, float] = {"initialize": 30.0, "tools/call": 60.0}  # method -> seconds
    #: methods that wait for a person or are long-lived by design
    exempt: ClassVar[frozenset[str]] = LONG_LIVED | {
        "ping",  # PI003
        "sampling/createMessage", "elicitation/create"}

    def check(self, record, session):
        request = record.request
        if request is None or record.direction is None or (t := record.t) is None \
                or (sent := request.t) is None or request.method in self.exempt:
            return ()  # ("timed": record.t is set; seconds() inline)
        took = t - sent
        limit = self.thresholds.get(request.method, self.threshold)
        if took <= limit:
            return ()
        entry = session.find_request(record.direction.other, record.id)
        if entry is not None and entry.last_progress_record is not None:
            return ()  # the receiver reported progress while it worked
        return [self.report(record, f"{label(request)} was answered after {duration(took)} "
                                    f"(threshold {limit:g} s)", related=[(request, "request")])]


# -- HX004 timeout-without-cancel -----------------------------------------------------------------
@rule
class TimeoutWithoutCancel(_Reissue):
    """Checks for clients that re-send a call they gave up on without cancelling the first one."""

    code, name = "HX004", "timeout-without-cancel"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD", _TIMEOUTS
    versions = protocol.LEGACY
    hint = ("When you stop waiting for a request, send notifications/cancelled for it before (or "
            "instead of) sending it again.")


# -- HX006 notification-flood (timing; registered once transcripts can carry timestamps) ---------
class NotificationFlood(Rule):
    """Checks for progress or log notifications sent faster than a client can use them."""

    code, name = "HX006", "notification-flood"
    severity, level, spec = Severity.WARNING, "SHOULD", "basic/utilities/progress §Behavior Requirements"
    confidence = "low"
    kinds = NOTIFICATIONS
    methods = frozenset({"notifications/progress", "notifications/message"})
    hint = "Rate-limit progress and log notifications (coalesce updates, a few per second at most)."
    #: notifications per second that count as a flood, sustained over ``window`` seconds
    rate: ClassVar[float] = 100.0
    window: ClassVar[float] = 2.0

    def check(self, record, session):
        if record.t is None or record.direction is None:
            return
        state = session.state_for(self)
        key = (record.direction, record.method)
        if key in state.setdefault("reported", set()):
            return
        times = state.setdefault(key, deque())
        times.append(record.t)
        while times and record.t - times[0] > self.window:
            times.popleft()
        if len(times) > self.rate * self.window:
            state["reported"].add(key)
            state.pop(key)
            spec = ("server/utilities/logging §Security Considerations"
                    if record.method == "notifications/message" else None)
            yield self.report(record, f"{len(times)} {record.method} within {self.window:g} s (more than "
                                      f"{self.rate:g} per second); reported once per session",
                              spec=spec)


# -- HX007 call-unlisted-tool ---------------------------------------------------------------------
@rule
class CallUnlistedTool(Rule):
    """Checks for calls of tools missing from the server's latest complete tool list."""

    code, name = "HX007", "call-unlisted-tool"
    order_sensitive = True
    severity, level, spec = Severity.INFO, "heuristic", "server/tools §Listing Tools"
    confidence = "low"
    party = "client"
    kinds = REQUESTS
    methods = frozenset({"tools/call"})
    requires = frozenset({"odd-call"})  # not called on a call tools.plain_call() finds clean
    awaits = classmethod(after_listing)  # catalog.current needs a listing
    hint = "Call only tools from the latest tools/list result; list again after list_changed."

    def check(self, record, session):
        params = record.params
        name = params.get("name") if type(params) is dict else None
        catalog = session.tools
        if type(name) is not str or name in catalog.names or record.direction is not _C2S \
                or not catalog.current:
            return ()  # (a listed name first: the usual call)
        known = ", ".join(sorted(catalog.names)[:5]) or "none"
        return [self.report(record, f"Tool {name!r} is not in the server's latest tools/list "
                                    f"(listed: {known}{', …' if len(catalog.names) > 5 else ''})")]


# -- HX008 list-change-without-notification -------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Feature:
    name: str
    list_method: str
    items: str  # the result member holding the list
    key: str  # what identifies an item
    notification: str
    flag: str  # the 2026-07-28 subscription filter flag


FEATURES = (
    Feature("tools", "tools/list", "tools", "name", "notifications/tools/list_changed", "toolsListChanged"),
    Feature("prompts", "prompts/list", "prompts", "name", "notifications/prompts/list_changed",
            "promptsListChanged"),
    Feature("resources", "resources/list", "resources", "uri", "notifications/resources/list_changed",
            "resourcesListChanged"),
)
_BY_METHOD = {f.list_method: f for f in FEATURES} | {f.notification: f for f in FEATURES}


@dataclass(slots=True, eq=False)
class Listing:
    """What HX008 knows of one feature's list in a session."""

    pages: Bounded | None = None  # nextCursor -> names so far (made at the first paginated listing)
    names: frozenset | None = None  # the latest complete listing
    record: Record | None = None
    notified: bool = False  # a list_changed arrived since that listing
    suspect: tuple | None = None  # (record, earlier record, added, removed) awaiting a late notification


#: the Session.state key HX008 sets once a listing changed unannounced (its finisher's need)
_HX008_SUSPECT = "HX008:suspect"


@rule
class ListChangeWithoutNotification(Rule):
    """Checks for lists that changed between two listings without a list_changed notification."""

    code, name = "HX008", "list-change-without-notification"
    order_sensitive = True
    severity, level, spec = Severity.INFO, "SHOULD", "server/tools §List Changed Notification"
    confidence = "low"
    party = "server"
    kinds = frozenset({Kind.RESULT}) | NOTIFICATIONS
    methods = frozenset(_BY_METHOD)
    hint = ("Send notifications/<feature>/list_changed whenever the list changes (to subscribers "
            "in 2026-07-28).")

    def check(self, record, session):
        if record.direction is not _S2C:
            return ()
        method = record.method  # (record.effective_method inline)
        feature = _BY_METHOD[method if method is not None else record.request.method]
        listings = session.state.get(_HX008_STATE)  # (Session.state_for inline)
        if listings is None:
            listings = session.state[_HX008_STATE] = {}
        listing = listings.get(feature.name)
        if listing is None:
            listing = listings[feature.name] = Listing()
        if record.kind is _NOTIFICATION:
            listing.notified, listing.suspect = True, None  # announced (perhaps a little late)
            return ()
        names = self._assemble(record, feature, listing)
        if names is None:
            return ()
        found = ()
        if listing.suspect is not None:
            found = [self._report(feature, *listing.suspect)]
            listing.suspect = None
        if listing.names is not None:
            if names is ...:
                names = self._names(record, feature)
            if listing.names is ...:
                listing.names = self._names(listing.record, feature)
            if names != listing.names and not listing.notified and self._expected(feature, session):
                listing.suspect = (record, listing.record, names - listing.names, listing.names - names)
                session.state[_HX008_SUSPECT] = True
        listing.names, listing.record, listing.notified = names, record, False
        return found

    finish_needs = frozenset({_HX008_SUSPECT})

    def finish(self, session):
        listings = session.state.get(_HX008_STATE)  # (Session.kept_state inline)
        if listings:
            for listing in listings.values():
                if listing.suspect is not None:  # (most sessions have none: no generator for them)
                    return self._suspects(listings)
        return ()

    def _suspects(self, listings: dict):
        for feature in FEATURES:
            listing = listings.get(feature.name)
            if listing is not None and listing.suspect is not None:
                yield self._report(feature, *listing.suspect)

    @staticmethod
    def _assemble(record: Record, feature: Feature, listing: Listing) -> frozenset | None:
        """The complete listing once its last page arrived (None before, or when a page is unknown);
        ``...`` for a listing of one page, whose names :meth:`_names` reads when a later listing
        needs them (most sessions list once)."""
        msg, request = record.msg, record.request
        result = msg.get("result") if isinstance(msg, dict) else None  # (result_of, params_of inline)
        if not isinstance(result, dict) or result.get("resultType", "complete") != "complete" or request is None:
            return None
        params = request.params
        cursor = params.get("cursor") if isinstance(params, dict) else None
        following = result.get("nextCursor")
        if cursor is None and not isinstance(following, str):
            return ...
        items, key = result.get(feature.items), feature.key
        names = {i.get(key) for i in items
                 if isinstance(i, dict) and isinstance(i.get(key), str)} if isinstance(items, list) else set()
        if cursor is not None:
            before = listing.pages.pop(cursor, None) if isinstance(cursor, str) and listing.pages else None
            if before is None:
                return None  # a page of a listing whose start we did not see
            names |= before
        if isinstance(following, str):
            if listing.pages is None:
                listing.pages = Bounded(1_000)
            listing.pages[following] = names
            return None
        return frozenset(names)  # names of the pages are strings too

    @staticmethod
    def _names(record: Record, feature: Feature) -> frozenset:
        """The names of a listing of one page (:meth:`_assemble` checked its result)."""
        items, key = record.msg["result"].get(feature.items), feature.key
        return frozenset(i.get(key) for i in items
                         if isinstance(i, dict) and isinstance(i.get(key), str)) if isinstance(items, list) \
            else frozenset()

    @staticmethod
    def _expected(feature: Feature, session: Session) -> bool:
        """Whether the server had promised list_changed notifications to this client."""
        if session.modern:
            return any(listen.open and asks_for(listen.honored, feature.notification)
                       for listen in Subscriptions.of(session).listens.values())
        return protocol.gate_open(protocol.GATES[feature.notification], session.server_caps)

    def _report(self, feature: Feature, record: Record, earlier: Record, added, removed):
        change = []
        if added:
            change.append("added " + ", ".join(repr(n) for n in sorted(added)[:5]))
        if removed:
            change.append("removed " + ", ".join(repr(n) for n in sorted(removed)[:5]))
        return self.report(record, f"The {feature.name} list changed since the previous "
                                   f"{feature.list_method} ({'; '.join(change)}) but no "
                                   f"{feature.notification} was sent",
                           related=[(earlier, f"previous {feature.list_method} result")],
                           spec=f"server/{feature.name} §List Changed Notification")


_HX008_STATE = ListChangeWithoutNotification.__name__  # its key in Session.state


# -- HX009 retry-storm ----------------------------------------------------------------------------
_ERROR = Kind.ERROR
#: plan fact: a request with a timestamp came in the session (RetryStorm judges every request then)
_STORM_TIMED = "retry-storm-timed"
_STORM_TIMED_FACTS = frozenset({_STORM_TIMED})
#: what a request must show for RetryStorm to be called on it (but with count 1)
_STORM_NEEDS = frozenset({"overlap", "timed", "fact:" + _STORM_TIMED})


@rule
class RetryStorm(Rule):
    """Checks for the same request re-sent many times in a row while the earlier copies failed."""

    code, name = "HX009", "retry-storm"
    order_sensitive = True
    severity, level, spec = Severity.INFO, "heuristic", _TIMEOUTS
    confidence = "low"
    kinds = REQUESTS
    hint = "Retry with exponential backoff and a cap; cancel or await the previous attempt first."
    #: identical requests that make a storm, and the window (seconds) they must fall in
    count: ClassVar[int] = 5
    window: ClassVar[float] = 10.0
    #: keep-alives are judged by PI003
    exempt: ClassVar[frozenset[str]] = frozenset({"ping"})
    #: failing copies of one call kept (the newest): a longer chain was reported when it reached
    #: ``count``, and judging each copy again at every copy would cost its length each time
    keep: ClassVar[int] = 64

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return method not in cls.exempt  # never judged (a request is dispatched by its own method)

    @property
    def requires_any(self) -> frozenset[str]:
        """Not called on a request that comes alone() without a timestamp in a session without
        timed requests (the engine's "overlap" and "timed" features, the plan fact of a timed
        request): check would only remember it (see there). With ``count`` 1 each request is a storm."""
        return _STORM_NEEDS if self.count > 1 else frozenset()

    def check(self, record, session):
        direction = record.direction
        if direction is None or not record.has_id:
            return ()
        state = session.state.get(type(self))
        if state is None:
            state = session.state[type(self)] = _Storms()
        seen, state.seen = state.seen, record.seq
        # Untimed, a copy counts while it is open: a request that comes alone() in a session of
        # untimed requests starts its chain afresh, so it is only remembered (per sender) and its
        # chain made at the next request that does not come alone. A remembered request dropped
        # for a later one of its sender that came alone was answered by then: its chain would have
        # been emptied at the next copy. (Once timed: earlier copies may count although answered,
        # with an error, so those sessions take the whole path.)
        t = record.t
        if t is None and not state.timed and self.count > 1 and not session.pending.get(direction) \
                and not session.limits_hit:
            state.held[direction] = record
            return ()
        held = state.held
        if not state.timed:
            # The engine does not call this on a request that comes alone (requires_any): the
            # latest of each sender since the last call, if still open, is its oldest open request
            # (any other came after it, not alone, and was judged). If answered, no copy of its
            # call by its sender was open when it came, nor is it: its chain holds none that counts.
            for side in _SIDES:
                table = session.pending.get(side)  # (None: the side never asked)
                for oldest in table.values() if table else ():
                    early = oldest.record
                    if early.seq > seen and early.method not in self.exempt:
                        held[side] = early
                    break
        if t is not None and not state.timed:
            state.timed = True
            set_plan_facts(session, _STORM_TIMED, _STORM_TIMED_FACTS)
        chains = state.chains
        if held:  # in arrival order, as they would have been keyed
            for early in sorted(held.values(), key=_seq):
                keep(chains, (early.direction, call_key(early)), [early])
            held.clear()
        key = (direction, call_key(record))
        chain: list[Record] | None = chains.get(key)
        if chain is None:
            chain = []
            keep(chains, key, chain)
        within = t is not None
        if chain:  # the earlier copies that still count: failed (and, with times, recent)
            kept = self._recent_failures(chain, t, direction, session) if t is not None else None
            if kept is not None:
                chain[:] = kept
            elif t is not None or len(chain) >= self.count - 1:
                find = session.find_request
                chain[:] = [r for r in chain if _open(find(r.direction, r.id), r)]
                within = False
            # else: too short to make a storm with this copy, and untimed: the copies that closed
            # are dropped when the chain is long enough to count (a closed copy stays closed)
        chain.append(record)
        if len(chain) > self.keep and len(chain) > self.count:
            del chain[0]
        if len(chain) != self.count:
            return ()
        within = (f" within {duration(t - chain[0].t)}, the earlier ones failed or unanswered"
                  if within else " while the earlier ones were all still unanswered")
        return [self.report(record, f"{label(record)} is the {self.count}th identical {record.method} "
                                    f"in a row{within}", related=[(chain[0], "first attempt")])]

    def _recent_failures(self, chain: list[Record], t: float, direction: Direction,
                         session: Session) -> list[Record] | None:
        """The copies of ``chain`` (``direction``'s) that fell within the window before ``t`` and
        failed (``_failed``, not strict); None when one has no timestamp. Each copy's entry is
        found once and read in place: a whole entry's response, a compact one through ``_failed``."""
        kept, window, find = [], self.window, session.find_request
        for request in chain:
            sent = request.t
            if sent is None:
                return None
            if t - sent > window:
                continue
            entry = find(direction, request.id)
            if type(entry) is RequestEntry:
                response = entry.response
                if (response is None or response.kind is _ERROR) \
                        and ((attempt := entry.record) is request or attempt.seq == request.seq):
                    kept.append(request)
            elif entry is not None and self._failed(request, session, False):
                kept.append(request)
        return kept

    @staticmethod
    def _failed(request: Record, session: Session, strict: bool) -> bool:
        """The attempt did not succeed: still open (or, with timestamps, answered with an error)."""
        entry = session.find_request(request.direction, request.id)
        if entry is None:
            return False
        if not entry.pending and (strict or entry.response.kind is not Kind.ERROR):
            return False
        attempt = entry.record  # (a compact entry stands in for its request with the same seq)
        return attempt is request or attempt.seq == request.seq


class _Storms:
    """What :class:`RetryStorm` keeps of a session: (sender, call key) -> the copies that still
    count; the requests that came alone, not keyed yet (sender -> the latest); whether a request
    with a timestamp came; the last request judged."""

    __slots__ = ("chains", "held", "seen", "timed")

    def __init__(self):
        self.chains: dict = {}
        self.held: dict = {}
        self.timed = False
        self.seen = -1  # the arrival number of the last request the rule was called on


def _seq(record: Record) -> int:
    return record.seq


def _open(entry, request: Record) -> bool:
    """``RetryStorm._failed(request, strict=True)`` of the entry found for its id: still open."""
    if type(entry) is RequestEntry:
        return entry.response is None and (entry.record is request or entry.record.seq == request.seq)
    # a compact entry (open when a table forgot it) stands in for its request with the same seq
    return entry is not None and entry.pending and entry.record.seq == request.seq


# -- HX010 capture-truncated ----------------------------------------------------------------------
@rule
class CaptureTruncated(Rule):
    """Checks for captures that join a session already under way."""

    code, name = "HX010", "capture-truncated"
    severity, level, spec = Severity.INFO, "info", "basic/lifecycle §Initialization"
    confidence = "low"
    party = "capture"
    kinds, requires = MESSAGES, frozenset({"first"})
    hint = ("Start the capture before the client connects (mcplint capture -- CMD), or pass "
            "--protocol-version when analysing a partial capture (which also silences this note).")

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return method != "initialize" or kind is not Kind.REQUEST  # which opens a session: no midstream

    def check(self, record, session):
        if session.messages == 0 and session.midstream and not session.version_given:
            yield self.report(record, "The capture starts in the middle of a session (the first message is "
                                      f"{_first(record)}, not initialize or a 2026-07-28 request); rules "
                                      "that need history report with low confidence")


def _first(record: Record) -> str:
    if record.method is not None:
        kind = "request" if record.kind is Kind.REQUEST else "notification"
        return f"the {kind} {record.method!r}"
    return f"a {record.kind.value} for id {fmt_id(record.id)}" if record.has_id else f"a {record.kind.value}"


# -- HX011 secrets-in-traffic ---------------------------------------------------------------------
_AUTH = re.compile(r"(?:[Bb]earer|[Bb]asic|BEARER|BASIC)\s+([A-Za-z0-9._~+/=-]{12,})")
_URL_CREDENTIAL = re.compile(r"://[^/\s:@\"]+:[^/\s@\"]+@")
_PLACEHOLDER = frozenset({"[redacted]", "redacted", "***", "xxx", "changeme", "<redacted>", "none", "null",
                          "true", "false", "required", "optional"})
_MAX_NODES = 20_000  # JSON nodes of one message walked at most


def secret_hits(value: Any, path: str, out: list[tuple[str, str, int]], tokens: bool,
                budget: list[int], depth: int = 0) -> None:
    """Collect ``(json path, kind, hash of the value)`` of credentials in a JSON value.

    Values under secret-like member names are always looked at; other strings only when
    ``tokens`` (the line contains a token-shaped literal). Values are never kept.
    """
    budget[0] -= 1
    if depth > 32 or len(out) >= 20 or budget[0] < 0:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and isinstance(key, str) and sensitive_key(key):
                if _looks_set(item):
                    out.append((_member(path, key), f"value of {key!r}", hash(item)))
            elif isinstance(item, (dict, list)) or (tokens and isinstance(item, str)):
                secret_hits(item, _member(path, key), out, tokens, budget, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)) or (tokens and isinstance(item, str)):
                secret_hits(item, f"{path}[{index}]", out, tokens, budget, depth + 1)
    elif isinstance(value, str) and len(value) >= 12:
        kind = token_kind(value)
        if kind:
            out.append((path, kind, hash(value)))


def _member(path: str, key: Any) -> str:
    return f"{path}.{key}" if isinstance(key, str) and key.isidentifier() else f"{path}[{key!r}]"


def _looks_set(value: str) -> bool:
    text = value.strip()
    return len(text) >= 6 and text.lower() not in _PLACEHOLDER and not text.startswith(("[REDACTED", "${", "<")) \
        and set(text) != {"*"}


def token_kind(text: str) -> str | None:
    """What kind of credential a string holds (provider tokens by the excerpt masker's patterns)."""
    text = text[:MAX_SCAN]
    if any(probe in text for probe in AUTH_PROBES):
        for match in _AUTH.finditer(text):
            secret = match.group(1)
            if any(c.isdigit() for c in secret) and any(c.isalpha() for c in secret):
                return "bearer/basic credential"  # "Basic authentication is ..." is prose
    if "://" in text and "@" in text and _URL_CREDENTIAL.search(text):
        return "password in URL"
    if not (any(probe in text for probe in TOKEN_PROBES) or has_sk(text)):
        return None
    for match in _TOKEN.finditer(text):
        found = match.group(0)
        if found[:6].lower().startswith(("bearer", "basic")) or text[max(0, match.start() - 3):match.start()] == "://":
            continue  # judged above
        if found.startswith("-----BEGIN"):
            return "private key"
        if found.startswith("eyJ"):
            return "JSON Web Token"
        return "API token"
    return None


_PART = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
#: Last words of a key that names a secret rather than holding one (secretName, password_file).
_NOT_A_VALUE = frozenset({"name", "names", "id", "ids", "ref", "arn", "path", "file", "type", "version",
                          "url", "uri", "length", "count", "manager", "hint", "policy", "required"})


@lru_cache(maxsize=4096)
def sensitive_key(key: str) -> bool:
    """A member name whose string value is a credential (``password``, ``aws_secret_access_key``)."""
    if _SENSITIVE_KEY.match(key):
        return True
    parts = [p.lower() for p in _PART.findall(key)]
    if not parts or parts[-1] in _NOT_A_VALUE:
        return False
    if any(p in ("secret", "password", "passwd") for p in parts):
        return True
    return parts[-2:] in (["api", "key"], ["access", "key"], ["private", "key"])


@rule
class SecretsInTraffic(Rule):
    """Checks for credentials (API keys, tokens, passwords) travelling in messages."""

    code, name = "HX011", "secrets-in-traffic"
    severity, level, spec = Severity.INFO, "heuristic", "basic/security_best_practices"
    confidence = "low"
    kinds = MESSAGES
    requires = frozenset({"signs"})  # a line without any literal of might_hold_secret holds none
    hint = ("Keep credentials out of MCP messages: configure them in the server's environment, and "
            "redact captures (mcplint redact) before sharing them.")

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return kind is not Kind.NOTIFICATION or method != "notifications/message"  # log data: LG006

    def check(self, record, session):
        msg = record.msg
        if record.method == "notifications/message" or not isinstance(msg, dict) \
                or not might_hold_secret(record.data, record.signs):
            return ()  # log data: LG006
        tokens = has_token_probe(record.text)
        hits: list[tuple[str, str, int]] = []
        budget = [_MAX_NODES]
        for member in ("params", "result", "error"):
            if member in msg:
                secret_hits(msg[member], member, hits, tokens, budget)
        if not hits:
            return ()
        seen = table(session, self, "seen")
        fresh = [(path, kind) for path, kind, value in hits if value not in seen]
        for _, _, value in hits:
            seen[value] = True
        if not fresh:
            return ()
        shown = "; ".join(f"{kind} at {path}" for path, kind in fresh[:3])
        more = f", and {len(fresh) - 3} more" if len(fresh) > 3 else ""
        # "credential: <text>" would read as a credential itself to the output masking
        return [self.report(record, f"Message carries what looks like a credential ({shown}{more}; "
                                    "each value is reported once per session)")]


# -- HX012 mrtr-loop ------------------------------------------------------------------------------
@rule
class MrtrLoop(Rule):
    """Checks for one logical call answered ``input_required`` round after round."""

    code, name = "HX012", "mrtr-loop"
    severity, level, spec = Severity.INFO, "heuristic", "basic/patterns/mrtr"
    confidence = "low"
    party = "server"
    versions = protocol.MODERN
    kinds = frozenset({Kind.RESULT, Kind.ERROR})
    methods = frozenset({"tools/call", "prompts/get", "resources/read"})
    answers = frozenset({"ok"})
    hint = "Ask for all the input a call needs in as few rounds as possible; finish or fail the call."
    #: input_required rounds of one call before it counts as a loop
    rounds: ClassVar[int] = 5

    def check(self, record, session):
        request = record.request
        if record.direction is not Direction.S2C or request is None:
            return
        params = params_of(request)
        target = params.get("name", params.get("uri"))
        try:
            arguments = orjson.dumps(params.get("arguments"), option=orjson.OPT_SORT_KEYS)
        except TypeError:
            arguments = repr(params.get("arguments")).encode()
        key = (request.method, fmt_id(target), hash(arguments))
        loops = table(session, self, "rounds")
        result = result_of(record)
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            loops.pop(key, None)
            return
        count, first = loops.get(key, (0, request))
        loops[key] = (count + 1, first)
        if count + 1 == self.rounds + 1:
            yield self.report(record, f"{request.method} {fmt_id(target)} was answered input_required "
                                      f"{count + 1} times in a row", related=[(first, "first attempt")])


# -- HX013 tool-failure-as-success ----------------------------------------------------------------
_HEAD = 400  # characters of the text looked at
_SHORT = 500  # a failure statement: the whole text at most this long ...
_SHORT_LINES = 5  # ... and this many lines
_STATEMENT = re.compile(
    r"(?i:error|exception)(?:\s+(?i:while|in|during|from|occurred|executing|calling|running|fetching|"
    r"processing|reading|writing|loading|parsing|connecting|creating|updating|deleting|sending|getting|"
    r"opening|invoking|querying|retrieving|saving|uploading|downloading|generating|resolving)\b"
    r"[^:\n]{0,80})?\s*:\s*"
    r"(?!(?i:null|none|nil|false|0|no|n/a)\s*$)\S"  # "error: null" is a key, not a failure
    r"|(?i:an?\s+(?:unexpected\s+|internal\s+|unknown\s+)?error\s+(?:has\s+)?occurred)\b"
    r"|(?i:failed\s*:\s*\S|failed\s+to\s+\w)"
    r"|\w+(?:\s\w+)?\s+failed\s+with\s+status(?:\s+code)?\s+\d{3}"
    r"|(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)\s*:\s*\S")
_PY_TRACEBACK = "Traceback (most recent call last):"
_JS_FRAME = re.compile(r"\s+at\s.+(?:\(.+:\d+:\d+\)|:\d+:\d+)\s*$")
#: tools whose successful result may well be an error text: logs, diagnostics, code and commands
#: (name words starting with one of the prefixes, or equal to one of the short words)
_ABOUT_ERRORS = ("logg", "error", "diagnos", "lint", "test", "debug", "trace", "grep", "search", "exec",
                 "eval", "shell", "command", "bash", "terminal", "console", "script", "python", "repl",
                 "compil", "build", "check", "status", "health", "monitor", "validat", "verif", "inspect",
                 "analy")
_ERROR_WORDS = frozenset({"log", "logs", "run", "runs", "sh", "cmd", "py", "js", "sql"})
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


@lru_cache(maxsize=1024)
def reports_errors(tool: str) -> bool:
    """Whether a tool's name says its results are about errors or come from running code."""
    words = [word.lower() for word in _WORDS.findall(tool)]
    return any(word in _ERROR_WORDS or word.startswith(_ABOUT_ERRORS) for word in words)


def failure_text(text: str) -> str | None:
    """What a tool result's whole text is when it plainly reports a failure, else None."""
    if not looks_failed(text):
        return None
    head = text[:_HEAD].lstrip()
    first, _, rest = head.partition("\n")
    if first.startswith(_PY_TRACEBACK):
        return "a Python traceback"
    if not _STATEMENT.match(first):
        return None
    if _JS_FRAME.match(rest.partition("\n")[0]):
        return "an error with a stack trace"
    if len(text) > _SHORT:
        return None  # a document that starts with an error line
    lines = text.strip().splitlines()
    if len(lines) > _SHORT_LINES or any(_STATEMENT.match(line) for line in lines[1:]):
        return None  # a list of messages, not one failure
    return "an error message"


_FAILED_VALUES = ("error", "failed", "failure")
_ONE_TEXT = ("text",)


def structured_failure(value: Any) -> bool:
    """Whether ``structuredContent`` says the call failed (an error member, ok/success false)."""
    if not isinstance(value, dict):
        return False
    return any(value.get(key) for key in ("error", "errors", "exception")) \
        or value.get("success") is False or value.get("ok") is False or value.get("status") in _FAILED_VALUES


@rule
class ToolFailureAsSuccess(Rule):
    """Checks for `tools/call` results whose only text plainly reports a failure but lack isError: true."""

    code, name = "HX013", "tool-failure-as-success"
    severity, level, spec = Severity.INFO, "heuristic", "server/tools §Error Handling"
    confidence = "low"
    party = "server"
    kinds = frozenset({Kind.RESULT})
    methods = frozenset({"tools/call"})
    answers = frozenset({"ok"})
    requires = frozenset({"odd-answer"})  # not called on a result tools.plain_answer() finds clean
    hint = ('Return a failed tool run as {"content": [{"type": "text", "text": "..."}], "isError": true} '
            "so that the client and the model know the call failed.")

    def check(self, record, session):
        if record.direction is not Direction.S2C or content_kinds(record) != _ONE_TEXT:
            return ()  # shared walk: only a result whose whole content is one text block is judged
        result = result_of(record)
        if type(result) is not dict or result.get("isError", False) is not False \
                or type(text := result["content"][0].get("text")) is not str:
            return ()
        kind = failure_text(text)
        if kind is None:
            return ()
        name = params_of(record.request).get("name") if record.request is not None else None
        if not isinstance(name, str) or reports_errors(name) \
                or ("structuredContent" in result and not structured_failure(result["structuredContent"])):
            return ()
        state = "false" if "isError" in result else "absent"
        return [self.report(record, f"Result of tool {name!r} is {kind} ({_shown_line(text)}) but isError "
                                    f"is {state}: the client takes the call for a success",
                            related=[(record.request, "request")])]


def _shown_line(text: str) -> str:
    first = text.lstrip()[:80].partition("\n")[0]
    return orjson.dumps(first if len(first) < 60 else first[:59] + "…").decode()

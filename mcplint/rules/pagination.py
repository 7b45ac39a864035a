"""Pagination (PA): opaque cursors of the list methods.

A list result may carry ``nextCursor``; the requester passes it back as ``params.cursor`` to get
the next page, and treats it as opaque: it "MUST NOT parse, modify, or persist" it across
sessions (server/utilities/pagination). :class:`PaginationTracker` remembers, per requester and
method, every cursor the other side issued and the cursors of the traversal in progress.
Paginated methods: ``tools/list``, ``prompts/list``, ``resources/list``,
``resources/templates/list`` (every revision) and ``tasks/list`` (2025-11-25, either side).
In 2026-07-28 an empty string is a valid cursor; only an absent ``nextCursor`` ends paging.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded
from mcplint.model import Kind, Record, Severity
from mcplint.rules._base import REQUESTS, RESPONSES, Rule, Tracker, feature, fmt_id, params_of, result_of, rule, tracker
from mcplint.rules._feature_helpers import ENVELOPE_CODES, a, error_code, error_message, shown

_GUIDE = "server/utilities/pagination §Implementation Guidelines"
_ERRORS = "server/utilities/pagination §Error Handling"
_RESPONSE = "server/utilities/pagination §Response Format"

LIST_METHODS = frozenset({"tools/list", "prompts/list", "resources/list", "resources/templates/list"})
TASKS_LIST = "tasks/list"
PAGINATED = LIST_METHODS | {TASKS_LIST}
_FILE_KEY = "mcplint.pagination.issued"  # Session.file_state: cursors issued in any session of the file
_KEPT = 10_000  # cursors remembered per requester and method


def paginated(method: str | None, revision: str | None) -> bool:
    """Whether ``method`` takes a cursor in ``revision`` (tasks/list only in 2025-11-25)."""
    if method in LIST_METHODS:
        return True
    return method == TASKS_LIST and (revision is None or revision == protocol.V2025_11_25)


def cursor_of(record: Record | None) -> tuple[bool, object]:
    params = params_of(record) if record is not None else {}
    return "cursor" in params, params.get("cursor")


@feature("paging", Kind.RESULT, *sorted(PAGINATED))
def single_page(record: Record) -> bool:
    """A list result that none of PA002, PA003 and PA005 (which require the feature "paging") can
    report, by each one's first test: the result is an object without ``nextCursor`` (PA002, PA005),
    answering a request without ``cursor`` (PA003)."""
    msg = record.msg  # (result_of, cursor_of inline)
    result = msg.get("result") if type(msg) is dict else None
    if type(result) is not dict or "nextCursor" in result:
        return False
    request = record.request
    params = request.params if request is not None else None
    return type(params) is not dict or "cursor" not in params


# -- tracker ---------------------------------------------------------------------------------
_REQUEST = Kind.REQUEST  # (a plain name: Kind.REQUEST costs a descriptor call)
@dataclass(slots=True)
class PaginationFacts:
    #: (requester direction, method) -> {cursor: the result record that issued it}
    issued: dict = field(default_factory=dict)
    #: (requester direction, method) -> {cursor: request record} of the traversal in progress
    traversal: dict = field(default_factory=dict)


@tracker
class PaginationTracker(Tracker):
    """Issued cursors and the traversal in progress, per requester and list method."""

    kinds = REQUESTS | frozenset({Kind.RESULT})
    methods = PAGINATED
    facts = PaginationFacts

    def commit(self, record, session):
        if record.kind is _REQUEST:
            direction = record.direction
            if direction is None:
                return
            params = record.params  # (cursor_of inline)
            if type(params) is not dict or "cursor" not in params:
                # a new traversal starts at the first page (no facts made for it alone)
                facts = session.state.get(PaginationTracker)  # (Tracker.peek inline)
                if facts is not None and (direction, record.method) in facts.traversal:
                    facts.traversal[direction, record.method] = {}
            elif isinstance(params["cursor"], str):
                self.of(session).traversal.setdefault((direction, record.method), {})[params["cursor"]] = record
            return
        msg = record.msg  # (result_of inline; most results end no page)
        result = msg.get("result") if type(msg) is dict else None
        if type(result) is not dict or not isinstance(result.get("nextCursor"), str):
            return
        request = record.request
        if request is None or request.direction is None or record.answer not in ("ok", "after-cancel"):
            return
        key = (request.direction, request.method)
        issued = self.of(session).issued.get(key)
        if issued is None:
            issued = self.of(session).issued[key] = Bounded(_KEPT)
        issued[result["nextCursor"]] = record
        # setdefault, not "in": storing asks nothing about other sessions (see mcplint.analysis.parallel)
        files = session.file_state.setdefault(_FILE_KEY, {}).setdefault(key, Bounded(_KEPT))
        files[result["nextCursor"]] = session.label


def cursor_origin(record: Record, session) -> str | None:
    """Where the string cursor of a list request came from: "issued" (by the receiver for this
    method), or a description of where else it appeared; None when it was never issued."""
    facts = PaginationTracker.of(session)
    _, cursor = cursor_of(record)
    key = (record.direction, record.method)
    if cursor in facts.issued.get(key, ()):
        return "issued"
    for (direction, method), cursors in facts.issued.items():
        if cursor in cursors and direction is record.direction:
            return f"was issued for {method}, not {record.method}"
    elsewhere = session.file_state.get(_FILE_KEY, {}).get(key, {})
    if cursor in elsewhere and elsewhere[cursor] != session.label:
        return f"was issued in session {elsewhere[cursor]}; cursors MUST NOT be reused across sessions"
    return None


# -- PA001 -----------------------------------------------------------------------------------
@rule
class CursorNotIssued(Rule):
    """Checks that list requests only pass back cursors the other side issued as `nextCursor`."""

    code, name = "PA001", "cursor-not-issued"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _GUIDE
    kinds = REQUESTS
    methods = PAGINATED
    requires = frozenset({"cursor"})  # a request without a cursor is the first page
    hint = "Pass back nextCursor exactly as received (opaque); start a new listing without a cursor."

    def check(self, record, session):
        present, cursor = cursor_of(record)
        if not present or not isinstance(cursor, str) or record.direction is None \
                or not paginated(record.method, record.revision):
            return
        origin = cursor_origin(record, session)
        if origin == "issued":
            return
        receiver = record.direction.other.sender
        if origin is not None:
            message = f"Cursor {shown(cursor)} {origin}"
        elif cursor == "":
            message = f"Empty cursor that the {receiver} never issued: omit cursor to get the first page"
        else:
            message = (f"Cursor {shown(cursor)} was never returned as nextCursor of {record.method} by the "
                       f"{receiver} (a fabricated or modified cursor)")
        severity = Severity.INFO if cursor == "" and origin is None else None
        yield self.report(record, message, severity=severity,
                          confidence="low" if session.midstream else None)


# -- PA002 -----------------------------------------------------------------------------------
@rule
class NextCursorType(Rule):
    """Checks that `nextCursor` is a string when present (absent means the last page)."""

    code, name = "PA002", "next-cursor-type"
    severity, level, spec = Severity.ERROR, "SCHEMA", _RESPONSE
    kinds = frozenset({Kind.RESULT})
    methods = PAGINATED
    requires = frozenset({"paging"})  # not called on a single_page() result
    hint = 'Omit nextCursor on the last page (do not send "nextCursor": null); otherwise send a string.'

    def check(self, record, session):
        result = result_of(record)
        if not isinstance(result, dict) or "nextCursor" not in result or record.request is None:
            return
        value = result["nextCursor"]
        if isinstance(value, str) or not paginated(record.request.method, record.revision):
            return
        advice = " (omit it on the last page)" if value is None else ""
        yield self.report(record, f"nextCursor is {a(value)}, not a string{advice}",
                          related=[(record.request, "list request")])


# -- PA003 -----------------------------------------------------------------------------------
_CURSOR_WORDS = re.compile(r"(?i)cursor|\bpage")


@rule
class InvalidCursorResponse(Rule):
    """Checks that invalid or expired cursors are refused with -32602 (Invalid params)."""

    code, name = "PA003", "invalid-cursor-response"
    severity, level, spec = Severity.WARNING, "SHOULD", _ERRORS
    party = "sender"
    kinds = RESPONSES
    methods = LIST_METHODS  # tasks/list: TK013 (MUST in 2025-11-25)
    answers = frozenset({"ok"})
    requires = frozenset({"paging"})  # not called on a single_page() result
    hint = "Answer a request with an invalid or expired cursor with a -32602 (Invalid params) error."

    def check(self, record, session):
        request = record.request
        present, cursor = cursor_of(request)
        if not present or not isinstance(cursor, str) or request.direction is None:
            return
        origin = cursor_origin(request, session)
        known_bad = origin != "issued" and not session.midstream
        related = [(request, "request with the cursor")]
        if record.kind is Kind.RESULT:
            if known_bad:
                yield self.report(record, f"{request.method} with cursor {shown(cursor)}, which was never "
                                          "issued, was answered with a page instead of a -32602 error",
                                  confidence="low", related=related)
            return
        code = error_code(record)
        if type(code) is not int or code == -32602 or code in ENVELOPE_CODES or code == -32601:
            return
        if known_bad or _CURSOR_WORDS.search(error_message(record)):
            yield self.report(record, f"{request.method} with an invalid cursor was refused with code "
                                      f"{fmt_id(code)} instead of -32602 (Invalid params)",
                              severity=Severity.INFO, confidence=None if known_bad else "low",
                              related=related)


# -- PA004 -----------------------------------------------------------------------------------
@rule
class CursorOnNonPaginatedMethod(Rule):
    """Checks for a `cursor` parameter on methods that do not paginate."""

    code, name = "PA004", "cursor-on-non-paginated-method"
    severity, level, spec = Severity.INFO, "info", _GUIDE
    kinds = REQUESTS
    methods = protocol.REQUEST_METHODS
    requires = frozenset({"cursor"})  # called only on a request whose params hold a cursor
    hint = "Only tools/list, prompts/list, resources/list, resources/templates/list (and tasks/list) take a cursor."

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return not paginated(method, revision)

    def check(self, record, session):
        params = record.params
        if not isinstance(params, dict) or "cursor" not in params or paginated(record.method, record.revision):
            return ()
        spec = protocol.METHODS[record.method]
        if record.revision is not None and record.revision not in spec.versions:
            return ()  # the method does not exist in this revision at all (SV004)
        return [self.report(record, f"{record.method} does not paginate; its 'cursor' parameter is ignored")]


# -- PA005 -----------------------------------------------------------------------------------
@rule
class PaginationLoop(Rule):
    """Checks for `nextCursor` values that send the requester back to a page it already fetched."""

    code, name = "PA005", "pagination-loop"
    severity, level, spec = Severity.WARNING, "heuristic", _GUIDE
    party = "sender"
    confidence = "low"
    kinds = frozenset({Kind.RESULT})
    methods = PAGINATED
    answers = frozenset({"ok"})
    requires = frozenset({"paging"})  # not called on a single_page() result
    hint = "Return a cursor that points past the current page, and omit nextCursor on the last page."

    def check(self, record, session):
        request = record.request
        result = result_of(record)
        if not isinstance(result, dict) or not isinstance(result.get("nextCursor"), str) \
                or request.direction is None:
            return
        following = result["nextCursor"]
        _, cursor = cursor_of(request)
        if following == cursor:
            yield self.report(record, f"nextCursor {shown(following)} is the cursor of this very request: "
                                      "following it fetches the same page forever",
                              related=[(request, "request")])
            return
        traversal = PaginationTracker.of(session).traversal.get((request.direction, request.method), {})
        earlier = traversal.get(following)
        if earlier is not None and earlier is not request:
            yield self.report(record, f"nextCursor {shown(following)} was already used in this listing "
                                      f"(request {fmt_id(earlier.id)}): the pages form a cycle",
                              related=[(earlier, "earlier request with this cursor")])


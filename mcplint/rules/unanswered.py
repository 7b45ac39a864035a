"""Unanswered requests (HX001, HX005): requests still open when the session's capture ends.

Not spec violations by themselves (the capture may simply stop early), hence warnings with low
confidence; but an open request at the end is the usual trace of a stall ("the server connects
and nothing happens"), and the lifecycle's timeout rules expect the sender to cancel it.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

import orjson

from mcplint import protocol
from mcplint.analysis.analyzer import RequestEntry, Session
from mcplint.model import Direction, Finding, Record, Related, Severity, id_key
from mcplint.protocol import LONG_LIVED
from mcplint.rules._base import RESPONSES, Rule, RuleOptions, fmt_id, rule, where
from mcplint.rules._http import facts_of
from mcplint.rules._memo import per_recent_records

_TIMEOUTS = "basic/lifecycle §Timeouts"
_C2S, _S2C = Direction.C2S, Direction.S2C  # (an enum member read from its class costs a descriptor call)



def note_answer(state: dict, record: Record) -> None:
    """Remember responses the analyzer could not commit but that did answer something.

    A response with the right id in the wrong type (JR012) or a response whose direction is
    unknown still shows that the peer answered; its request must not be called unanswered.
    """
    if record.answer == "type-mismatch" and record.request is not None and record.request.direction:
        state.setdefault("answered", set()).add((record.request.direction, id_key(record.request.id)))
    elif record.answer == "unknown-direction":
        state.setdefault("undirected", set()).add(id_key(record.id))


def open_requests(session: Session, sender: Direction, state: dict) -> list[RequestEntry]:
    """``sender``'s requests with neither response nor cancellation, in arrival order."""
    pending = session.pending.get(sender)
    if not pending:
        return []
    answered = state.get("answered", ())
    undirected = state.get("undirected", ())
    out = []
    for key, entry in pending.items():
        if entry.cancel is None and (sender, key) not in answered and key not in undirected:
            out.append(entry)
    out.sort(key=lambda e: e.record.seq)
    return out


def blocking(session: Session, entry: RequestEntry, server_open: list[RequestEntry]) -> list[RequestEntry]:
    """Open server requests sent while the client request ``entry`` was waiting (legacy stdio)."""
    if session.modern:
        return []
    return [s for s in server_open if s.record.method != "ping" and s.record.seq > entry.record.seq]


def until_end(entry: RequestEntry, session: Session) -> str:
    """How much of the session follows the request, e.g. ``the session ends 12 lines / 30 s later``;
    on HTTP input ``the session ends with entry 19, 395 ms later`` (a HAR's lines say nothing)."""
    if type(entry.record.http) is dict:
        return _until_last_exchange(entry.record, facts_of(session).last)
    last = session.last_record
    if last is None or last.line <= entry.record.line:
        return "the session ends right after it"
    lines = last.line - entry.record.line
    text = f"the session ends {lines} line{'s' if lines != 1 else ''}"
    start, end = entry.record.t, last.t
    if start is not None and end is not None and end > start:
        text += f" / {_duration(end - start)}"
    return text + " later"


def _until_last_exchange(request: Record, last: Record | None) -> str:
    """``the session ends with entry 19, 395 ms later`` (by the end of the session's last exchange)."""
    if last is None or type(last.http) is not dict:
        return "the session ends right after it"
    http = last.http
    text = f"the session ends with {where(last)}"
    if http.get("entry") == request.http.get("entry"):
        text += ", its own"
    end = http["ended"] if http.get("ended") is not None else http.get("started")
    if request.t is not None and end is not None and end > request.t:
        text += f", {_duration(end - request.t)} later"
    return text


def _duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    return f"{seconds / 60:.1f} min"


def maybe_answered(finding: Finding, entry: RequestEntry) -> Finding:
    """A request that a line too long to read may have answered (IO013, its id out of sight):
    said so, and reported as info with low confidence."""
    line = entry.unread_answer
    if line is not None:
        finding.severity, finding.confidence = Severity.INFO, "low"
        finding.message += f"; {where(line)} was too long for mcplint to read (IO013) and may have been its response"
        finding.related.append(Related(line.line, "line too long to read (IO013)"))
    return finding


def label(record: Record) -> str:
    return f"{record.method} #{fmt_id(record.id)}"


_SORTED = orjson.OPT_SORT_KEYS


@per_recent_records  # HX004, CN009 and HX009 ask of a request and of an earlier one in turn
def call_key(record: Record) -> tuple[str | None, int]:
    """What makes two requests "the same call": method and params without ``_meta``.

    ``_meta`` is left out because it carries per-request values (progress tokens, identity).
    """
    params = record.params
    if isinstance(params, dict) and "_meta" in params:
        params = params.copy()
        del params["_meta"]
    try:
        body = orjson.dumps(params, option=_SORTED)
    except TypeError:
        body = repr(params).encode()
    return (record.method, hash(body))


def sent_again(session: Session, entries: list[RequestEntry]) -> dict[RequestEntry, Record]:
    """The open client requests among ``entries`` that the client later sent again (same method
    and params, another id), each with the latest copy: the client gave up on the first.

    Only requests the analyzer still holds whole are compared (the open ones and the last
    answered ones); ``initialize`` and ``ping`` are re-sent for other reasons.
    """
    methods = {e.record.method for e in entries} - {"initialize", "ping"}
    if not methods:
        return {}
    latest: dict[tuple, Record] = {}
    held = chain(session.pending[Direction.C2S].values(), (e for _, e in session.recent.get(_C2S, ())))
    for entry in held:
        record = entry.record
        if type(entry) is RequestEntry and record.method in methods:
            key = call_key(record)
            if key not in latest or record.seq > latest[key].seq:
                latest[key] = record
    again = {}
    for entry in entries:
        later = latest.get(call_key(entry.record)) if entry.record.method in methods else None
        if later is not None and later.seq > entry.record.seq:
            again[entry] = later
    return again


class _Unanswered(Rule):
    """Shared plumbing: responses are watched only to spot answers the analyzer could not match."""

    kinds = RESPONSES
    answers = frozenset({"type-mismatch", "unknown-direction"})
    confidence = "low"

    def check(self, record, session):
        note_answer(session.state_for(self), record)
        return ()


@rule
class RequestUnanswered(_Unanswered):
    """Checks for client requests that got neither a response nor a cancellation before the end."""

    code, name = "HX001", "request-unanswered"
    severity, level, spec = Severity.WARNING, "heuristic", _TIMEOUTS
    party = "receiver"
    hint = ("Make the server answer every request (an error is an answer); a client that gives up "
            "should send notifications/cancelled.")

    ignore_methods: frozenset[str] = frozenset()

    class Options(RuleOptions):
        ignore_methods: frozenset[str] = frozenset()  # methods whose open requests are not reported

    finish_needs = frozenset({"pending:c2s"})

    def finish(self, session: Session) -> Iterator:
        if not session.pending.get(_C2S):
            return ()  # every finding is of a client request still pending (open_requests): none
        return self._stalled(session)

    def _stalled(self, session: Session) -> Iterator:
        state = session.kept_state(self)
        server_open = open_requests(session, Direction.S2C, state)
        stalled = [entry for entry in open_requests(session, Direction.C2S, state)
                   if entry.record.method not in LONG_LIVED and entry.record.method not in self.ignore_methods
                   # else the root cause is the client's own unanswered server request (HX005)
                   and not blocking(session, entry, server_open)]
        again = sent_again(session, stalled) if stalled else {}
        closed = session.client_closed  # the reader's note that the client ended the session
        for entry in stalled:
            request, later = entry.record, again.get(entry)
            if closed is not None and closed.seq < request.seq:
                closed = None  # requests sent after it were not given up by it
            if request.method == "initialize":  # which the client may not cancel
                yield maybe_answered(self.report(
                    request, f"{label(request)} was never answered, so the handshake never completed: the server "
                             f"never replied ({until_end(entry, session)})"), entry)
            elif later is not None or closed is not None:
                if later is not None:  # it stopped waiting without the cancellation the lifecycle asks for
                    how, gave_up, severity = f"sent it again as {label(later)}", "the same request sent again", None
                else:  # the spec lets a client end a session with requests open; no answer could follow
                    how, gave_up = (("ended the session (DELETE)", "the client ended the session") if closed.http
                                    else ("closed the connection", "the client closed the connection"))
                    severity = Severity.INFO
                finding = self.report(
                    request, f"{label(request)} was never answered and never cancelled: the server never replied, "
                             f"and the client gave up on it and {how} ({until_end(entry, session)})",
                    related=[(later or closed, gave_up)], severity=severity)
                finding.party = None  # the capture cannot tell whether the server was stuck or still working
                yield maybe_answered(finding, entry)
            else:
                yield maybe_answered(self.report(request, f"{label(request)} was never answered and never cancelled "
                                                          f"({until_end(entry, session)})"), entry)


@rule
class ServerRequestUnanswered(_Unanswered):
    """Checks for server-to-client requests the client never answered."""

    code, name = "HX005", "server-request-unanswered"
    severity, level, spec = Severity.WARNING, "heuristic", _TIMEOUTS
    party = "client"
    versions = protocol.LEGACY
    hint = ("Answer every server request, with an error (e.g. -32601 or a user rejection) if the "
            "client cannot or will not serve it.")

    finish_needs = frozenset({"pending:s2c"})

    def finish(self, session: Session) -> Iterator:
        if not session.pending.get(_S2C):
            return ()  # every finding is of a server request still pending (open_requests): none
        return self._unanswered(session)

    def _unanswered(self, session: Session) -> Iterator:
        state = session.kept_state(self)
        server_open = open_requests(session, Direction.S2C, state)
        client_open = [e for e in open_requests(session, Direction.C2S, state)
                       if e.record.method not in LONG_LIVED]
        for entry in server_open:
            request = entry.record
            waiting = [c for c in client_open if entry in blocking(session, c, [entry])]
            message = (f"Server request {label(request)} was never answered by the client "
                       f"({until_end(entry, session)})")
            if waiting:
                message += (f"; the client's {', '.join(label(c.record) for c in waiting)} "
                            f"{'is' if len(waiting) == 1 else 'are'} probably stuck behind it")
            yield maybe_answered(self.report(
                request, message, related=[(c.record, "client request waiting for this one") for c in waiting]), entry)

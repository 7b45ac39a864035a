"""Unanswered requests (HX001, HX005): requests still open when the session's capture ends.

Not spec violations by themselves (the capture may simply stop early), hence warnings with low
confidence; but an open request at the end is the usual trace of a stall ("the server connects
and nothing happens"), and the lifecycle's timeout rules expect the sender to cancel it.
"""

from __future__ import annotations

from collections.abc import Iterator

from mcplint import protocol
from mcplint.analyzer import RequestEntry, Session
from mcplint.model import Direction, Record, Severity, id_key
from mcplint.rules._base import RESPONSES, Rule, RuleOptions, fmt_id, rule

_TIMEOUTS = "basic/lifecycle §Timeouts"

#: Requests that stay open by design: the modern listen stream, the blocking 2025-11-25 task result.
LONG_LIVED = frozenset({"subscriptions/listen", "tasks/result"})


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
    """``sender``'s requests with neither response nor cancellation, in input order."""
    answered = state.get("answered", set())
    undirected = state.get("undirected", set())
    out = []
    for key, entry in session.pending[sender].items():
        if entry.cancel is None and (sender, key) not in answered and key not in undirected:
            out.append(entry)
    out.sort(key=lambda e: e.record.line)
    return out


def blocking(session: Session, entry: RequestEntry, server_open: list[RequestEntry]) -> list[RequestEntry]:
    """Open server requests sent while the client request ``entry`` was waiting (legacy stdio)."""
    if session.modern:
        return []
    return [s for s in server_open if s.record.method != "ping" and s.record.line >= entry.record.line]


def until_end(entry: RequestEntry, session: Session) -> str:
    """How much of the session follows the request, e.g. ``the session ends 12 lines / 30 s later``."""
    last = session.last_record
    if last is None or last.line <= entry.record.line:
        return "the session ends right after it"
    lines = last.line - entry.record.line
    text = f"the session ends {lines} line{'s' if lines != 1 else ''}"
    start, end = entry.record.t, last.t
    if start is not None and end is not None and end > start:
        text += f" / {_duration(end - start)}"
    return text + " later"


def _duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    return f"{seconds / 60:.1f} min"


def label(record: Record) -> str:
    return f"{record.method} #{fmt_id(record.id)}"


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

    def finish(self, session: Session) -> Iterator:
        state = session.state_for(self)
        server_open = open_requests(session, Direction.S2C, state)
        for entry in open_requests(session, Direction.C2S, state):
            request = entry.record
            if request.method in LONG_LIVED or request.method in self.ignore_methods:
                continue
            if blocking(session, entry, server_open):
                continue  # the root cause is the client's own unanswered server request (HX005)
            if request.method == "initialize":
                message = (f"{label(request)} was never answered, so the handshake never completed: "
                           f"the server never replied ({until_end(entry, session)})")
            else:
                message = (f"{label(request)} was never answered and never cancelled "
                           f"({until_end(entry, session)})")
            yield self.report(request, message)


@rule
class ServerRequestUnanswered(_Unanswered):
    """Checks for server-to-client requests the client never answered."""

    code, name = "HX005", "server-request-unanswered"
    severity, level, spec = Severity.WARNING, "heuristic", _TIMEOUTS
    party = "client"
    versions = protocol.LEGACY
    hint = ("Answer every server request, with an error (e.g. -32601 or a user rejection) if the "
            "client cannot or will not serve it.")

    def finish(self, session: Session) -> Iterator:
        state = session.state_for(self)
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
            yield self.report(request, message,
                              related=[(c.record, "client request waiting for this one") for c in waiting])

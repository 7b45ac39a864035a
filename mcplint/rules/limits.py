"""mcplint's own limits (IO012, IO013): a session so long that a table mcplint keeps for it forgot
entries; a line too long to read.

mcplint streams: per session it remembers the requests it saw (most of them compact), the open
ones, live progress tokens and the last tool list, each up to a cap (``analyzer.Limits``), so that
memory does not grow with the capture. When a table first forgets an entry the analyzer notes the
record (``Session.limits_hit``); IO012 reports it once per session and table, saying which
checks see less from there on. The caps are IO012's options.

Input lines are read up to ``LintOptions.max_line_bytes`` (``lines.MAX_LINE_BYTES``); a longer
line is cut by the reader, not parsed, and IO013 reports it once per file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcplint.analysis.analyzer import MAX_ANSWERED, MAX_OPEN_SESSIONS, MAX_PENDING, MAX_TOOLS, Limits
from mcplint.model import Kind, Severity
from mcplint.rules._base import Rule, RuleOptions, fmt_id, rule
from mcplint.rules.resources import MAX_SUBSCRIPTIONS

if TYPE_CHECKING:  # (names of the Options annotations, which rules._base.options_model reads)
    from typing import Annotated

    from annotated_types import Ge

_SIDE = {"c2s": "client", "s2c": "server"}

#: table -> (what reached its limit, the limit's option or value, what checks miss from there on)
_TABLES = {
    "answered": (
        "the {side} sent more than {limit} requests in this session",
        "max_answered",
        "the oldest are forgotten, so reuse of their ids (JR006), a late duplicate or mistyped response "
        "to them (JR012, JR013, which then reads as JR011) and their cancellation (CN001, CN002) go "
        "unreported"),
    "pending": (
        "more than {limit} requests of the {side} were open at once",
        "max_pending",
        "the oldest open ones are forgotten: they are not reported as unanswered (HX001, HX005) and "
        "a late response to one is matched by id only, not judged against its request"),
    "tokens": (
        "more than {limit} progress tokens of the {side}'s requests were live at once",
        "max_pending",
        "progress for the oldest is reported as for an unknown token (PR003, at low confidence)"),
    "undirected": (
        "more than {limit} requests of unknown direction were kept",
        "max_pending",
        "responses to the oldest are no longer matched to them"),
    "tools": (
        "tools/list listed more than {limit} tools",
        "max_tools",
        "only the first are kept, and checks against the tool list (HX007, TL006-TL011, TK002, TK003) "
        "treat it as incomplete"),
    "sessions": (
        "more than {limit} sessions named by the capture were open at once",
        "max_sessions",
        "mcplint finishes the session idle the longest whenever another one opens (this one first, at "
        "its last message): requests such a session left open are reported as unanswered (HX001), and "
        "if it goes on later its messages form a new session (labelled \"resumed\") that starts mid-way"),
    "subscriptions": (
        "the client subscribed to more than {limit} resources",
        MAX_SUBSCRIPTIONS,
        "the oldest subscriptions are forgotten, so updates for resources never subscribed to are no "
        "longer reported (RS002)"),
}


@rule
class TrackingLimitReached(Rule):
    """Checks for sessions so long that a table mcplint keeps per session reached its limit."""

    code, name = "IO012", "tracking-limit-reached"
    severity, level, spec = Severity.INFO, "info", "basic §Requests"
    party = "capture"
    hint = "Raise the limit (max-answered, max-pending, max-tools, max-sessions) if the machine has the " \
           "memory, or split the capture."
    max_answered: int = MAX_ANSWERED
    max_pending: int = MAX_PENDING
    max_tools: int = MAX_TOOLS
    max_sessions: int = MAX_OPEN_SESSIONS

    class Options(RuleOptions):
        max_answered: Annotated[int, Ge(1)] = MAX_ANSWERED  # requests remembered per side of a session
        max_pending: Annotated[int, Ge(1)] = MAX_PENDING  # open requests (and live progress tokens) per side
        max_tools: Annotated[int, Ge(1)] = MAX_TOOLS  # tools kept of one tools/list traversal
        max_sessions: Annotated[int, Ge(1)] = MAX_OPEN_SESSIONS  # sessions named by the capture open at once

    def table_limits(self) -> Limits:
        """The table caps this rule's options set (the engine hands them to the analyzer)."""
        return Limits(self.max_answered, self.max_pending, self.max_tools, self.max_sessions)

    finish_needs = frozenset({"limits"})

    def finish(self, session):
        if not session.limits_hit:
            return ()
        return self._reached(session)

    def _reached(self, session):
        hits = sorted(session.limits_hit.items(), key=lambda item: item[1].line)
        for name, record in hits:
            table, _, side = name.partition(":")
            what, option, missed = _TABLES[table]
            limit = getattr(self, option) if isinstance(option, str) else option
            yield self.report(record, f"Tracking limit reached: {what.format(side=_SIDE.get(side), limit=limit)}; "
                                      f"from here on {missed}")


def _size(count: int) -> str:
    """``64 MiB (67,108,864 bytes)``, or ``1,500 bytes`` for a size that is no round unit."""
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit} ({count:,} bytes)"
    return f"{count:,} bytes"


#: Session.file_state key: a line over the limit was reported in this file.
_LINE_REPORTED = "mcplint.line-limit-reported"


@rule
class LineLimitReached(Rule):
    """Checks for input lines longer than mcplint reads (its line limit, not the protocol's)."""

    code, name = "IO013", "line-limit-reached"
    severity, level, spec = Severity.INFO, "info", "basic/transports §stdio"
    kinds, requires = frozenset({Kind.MALFORMED}), frozenset({"flags"})
    party = "capture"
    hint = "Raise the limit with --max-line-bytes, or max-line-bytes in [tool.mcplint], if the machine has the memory."

    def check(self, record, session):
        if "oversized" not in record.flags:
            return ()
        state = session.state_for(self)
        if "first" in state:
            state["more"] += 1
        elif _LINE_REPORTED not in session.file_state:  # once per file: the first such line
            session.file_state[_LINE_REPORTED] = True
            state["first"], state["more"] = record, 0
        return ()

    finish_needs = frozenset({"state"})

    def finish(self, session):
        state = session.kept_state(self)
        record = state.get("first")
        if record is None:
            return ()
        cut, more = record.msg, state["more"]
        request = record.request  # the analyzer's reading of the line's start
        answers = (f" (by its start, the response to {request.method} #{fmt_id(request.id)} on line {request.line})"
                   if request is not None else "")
        others = (f"; {more} more line{'s' if more != 1 else ''} of this session {'were' if more != 1 else 'was'} "
                  "not read either" if more else "")
        return [self.report(record, f"Line {record.line}{answers} is {cut.size:,} bytes long, more than mcplint's "
                                    f"line limit of {_size(cut.limit)}: it was not read{others}. Raise the limit with "
                                    "--max-line-bytes, or max-line-bytes in [tool.mcplint]")]

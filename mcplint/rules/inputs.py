"""What an input file holds as a whole (IO): rules about the capture, not about a message."""

from __future__ import annotations

from dataclasses import replace

from mcplint.model import Kind, Severity
from mcplint.rules._base import Rule, rule

_HTTP_SEEN = "IO014-http"  # file_state key: an HTTP exchange without a message body was seen
_EVENTS = "IO014-events"  # file_state key: the input is a host log of events (its reader flags them)
#: The readers' names for logs of events (``source`` of their notes).
EVENTS_SOURCES = frozenset({"Claude Code log", "Cursor MCP log"})


@rule
class NoMcpTraffic(Rule):
    """Checks for inputs that hold no MCP message at all."""

    code, name = "IO014", "no-mcp-traffic"
    severity, level, spec = Severity.WARNING, "info", "basic/transports"
    party = "capture"
    kinds = frozenset({Kind.COMMENT, Kind.TEXT})
    requires = frozenset({"first"})  # before a session's first message: HTTP refused at once (a 401) is traffic too
    hint = ("Check that the capture recorded the server's stdout (or the HTTP bodies), and that the "
            "file is the capture and not its log; an empty capture of a server that exited at once "
            "is a case for `mcplint diagnose`.")

    def check(self, record, session):
        if record.http is not None:
            session.file_state[_HTTP_SEEN] = True
        elif "events-only" in record.flags and type(record.msg) is dict:
            source = record.msg.get("source")  # a capture's meta record may say anything: only known names
            session.file_state.setdefault(_EVENTS, source if source in EVENTS_SOURCES else "host log")
        return ()

    def finish_file(self, path, analyzer):
        sessions = analyzer.all_sessions()
        where = "standard input" if path == "-" else path
        events = analyzer.file_state.get(_EVENTS)
        if events is not None:  # a log of events: no message was ever in it, nothing went missing
            return (replace(self.report_file(
                path, f"No MCP messages in {where}: a {events} records events (connections, stderr, tool calls), "
                      "not the messages; only stdout pollution it quotes is checked",
            ), severity=Severity.INFO, hint="Run `mcplint diagnose` on it for the lifecycle it shows; for the "
                                             "messages, record the session with `mcplint capture -- COMMAND`."),)
        if analyzer.file_state.get(_HTTP_SEEN) or analyzer.sessions_finished_idle \
                or any(s.messages or s.unreadable for s in sessions):
            return ()
        what = "the input is empty" if not sessions else "no line of it is a JSON-RPC message"
        return (self.report_file(path, f"No MCP traffic found in {where}: {what}"),)

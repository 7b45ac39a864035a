"""What an input file holds as a whole (IO): rules about the capture, not about a message."""

from __future__ import annotations

from mcplint.model import Kind, Severity
from mcplint.rules._base import Rule, rule

_HTTP_SEEN = "IO014-http"  # file_state key: an HTTP exchange without a message body was seen


@rule
class NoMcpTraffic(Rule):
    """Checks for inputs that hold no MCP message at all."""

    code, name = "IO014", "no-mcp-traffic"
    severity, level, spec = Severity.WARNING, "info", "basic/transports"
    party = "capture"
    kinds = frozenset({Kind.COMMENT, Kind.TEXT})
    requires = frozenset({"http"})  # HTTP traffic refused before any message (a 401) is traffic too
    hint = ("Check that the capture recorded the server's stdout (or the HTTP bodies), and that the "
            "file is the capture and not its log; an empty capture of a server that exited at once "
            "is a case for `mcplint diagnose`.")

    def check(self, record, session):
        session.file_state[_HTTP_SEEN] = True
        return ()

    def finish_file(self, path, analyzer):
        sessions = analyzer.all_sessions()
        if analyzer.file_state.get(_HTTP_SEEN) or analyzer.sessions_finished_idle \
                or any(s.messages or s.unreadable for s in sessions):
            return ()
        what = "the input is empty" if not sessions else "no line of it is a JSON-RPC message"
        where = "standard input" if path == "-" else path
        return (self.report_file(path, f"No MCP traffic found in {where}: {what}"),)

"""stdio transport (IO): one UTF-8 JSON-RPC message per line, nothing else on stdin/stdout."""

from __future__ import annotations

from mcplint import protocol
from mcplint.excerpt import mask_text, shorten
from mcplint.input import pollution
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import MESSAGES, Rule, fmt_id, rule

_STDIO = "basic/transports §stdio"

#: Every record kind that stands for bytes on stdin/stdout (not stderr, not transcript comments).
WIRE_KINDS = MESSAGES | frozenset({
    Kind.BATCH, Kind.MULTI, Kind.INVALID, Kind.MALFORMED, Kind.TEXT, Kind.CONTINUATION})

_ENCODING_PROBLEMS = {
    "invalid_utf8": "is not valid UTF-8 (undecodable bytes)",
    "utf16": "is UTF-16 encoded, not UTF-8",
    "bom": "starts with a byte order mark (U+FEFF)",
    "nul": "contains NUL bytes (UTF-16 or binary output)",
}


def on_wire(record: Record) -> bool:
    """True for a whole input line of the traffic: not a batch/multi element, not a capture error."""
    return record.parent is None and "envelope" not in record.flags


def is_blank(record: Record) -> bool:
    return "blank" in record.flags


def shown_text(record: Record, limit: int = 80) -> str:
    """The line as it may appear in a message: secrets masked, cut to ``limit``."""
    return shorten(mask_text(record.text.strip()), limit)


def _framing_note(record: Record) -> str:
    if record.text.lstrip().lower().startswith("content-length:"):
        return " (LSP-style Content-Length framing; MCP stdio is newline-delimited JSON)"
    return ""


@rule
class StdoutNonMcp(Rule):
    """Checks for non-JSON text (banners, logs) on the server's stdout."""

    code, name = "IO001", "stdout-non-mcp"
    severity, level, spec = Severity.ERROR, "MUST NOT", _STDIO
    kinds = frozenset({Kind.TEXT})
    hint = "Write logs to stderr (or send notifications/message); stdout carries only JSON-RPC messages."

    def check(self, record, session):
        if record.direction is Direction.C2S or is_blank(record) or not on_wire(record):
            return
        text = f"{shown_text(record)!r}{_framing_note(record)}"
        origin, fix = pollution.origin(record.text.strip())
        likely = "" if origin == pollution.UNKNOWN[0] or _framing_note(record) else f"; likely {origin}"
        hint = None if origin == pollution.UNKNOWN[0] else fix
        if record.direction is Direction.S2C:
            yield self.report(record, f"Server wrote non-MCP text to stdout: {text}{likely}", hint=hint)
        else:
            yield self.report(record, f"Non-JSON line {text} in a capture without direction; most likely the "
                                      f"server's stdout, which must carry only MCP messages{likely}",
                              confidence="low", party="server", hint=hint)


@rule
class StdinNonMcp(Rule):
    """Checks for non-JSON text written by the client to the server's stdin."""

    code, name = "IO002", "stdin-non-mcp"
    severity, level, spec = Severity.ERROR, "MUST NOT", _STDIO
    kinds = frozenset({Kind.TEXT})
    hint = "Write only JSON-RPC messages to the server's stdin, one per line."

    def check(self, record, session):
        if record.direction is Direction.C2S and not is_blank(record) and on_wire(record):
            yield self.report(record, f"Client wrote non-MCP text to the server's stdin: "
                                      f"{shown_text(record)!r}{_framing_note(record)}")


@rule
class EmbeddedNewline(Rule):
    """Checks for a message spread over several lines (pretty-printed JSON)."""

    code, name = "IO003", "embedded-newline"
    severity, level, spec = Severity.ERROR, "MUST NOT", _STDIO
    kinds = MESSAGES | frozenset({Kind.BATCH, Kind.INVALID})
    requires = frozenset({"flags"})
    hint = "Serialize each message compactly on one line (no pretty-printing, no raw newlines)."

    def check(self, record, session):
        if "multiline" in record.flags and on_wire(record):
            yield self.report(record, f"Message spans {record.span} lines (lines {record.line}-"
                                      f"{record.line + record.span - 1}); a newline-delimited reader "
                                      f"sees {record.span} broken fragments")


@rule
class MultipleMessagesOneLine(Rule):
    """Checks for several JSON values written on one line without a newline between them."""

    code, name = "IO004", "multiple-messages-one-line"
    severity, level, spec = Severity.ERROR, "MUST", _STDIO
    kinds = frozenset({Kind.MULTI})
    hint = "Terminate every message with a newline; concatenated JSON values are not a batch."

    def check(self, record, session):
        if not on_wire(record):
            return
        what = ", ".join(_describe(child) for child in record.children[:5])
        more = f", … ({len(record.children) - 5} more)" if len(record.children) > 5 else ""
        yield self.report(record, f"{len(record.children)} JSON values on one line ({what}{more}); "
                                  "each message must be on its own line",
                          party=_writer(record))


def _writer(record: Record) -> str | None:
    """Who wrote a line of several values (its elements are not analysed yet when it is checked)."""
    if record.direction is not None:
        return record.direction.sender
    for child in record.children:
        senders = protocol.method_senders(child.method)
        if len(senders) == 1:
            return next(iter(senders)).sender
    return None


def _describe(record: Record) -> str:
    if record.method is not None:
        return f"{record.method} #{fmt_id(record.id)}" if record.has_id else record.method
    if record.is_response:
        return f"{record.kind.value} id {fmt_id(record.id)}" if record.has_id else record.kind.value
    return record.kind.value


@rule
class NotUtf8(Rule):
    """Checks for lines that are not plain UTF-8 (invalid bytes, UTF-16, byte order mark, NUL)."""

    code, name = "IO005", "not-utf8"
    severity, level, spec = Severity.ERROR, "MUST", _STDIO
    kinds = WIRE_KINDS
    requires = frozenset({"flags"})
    hint = "Encode stdin/stdout as UTF-8 without BOM (e.g. PYTHONIOENCODING=utf-8, no UTF-16 console)."

    def check(self, record, session):
        problems = [text for flag, text in _ENCODING_PROBLEMS.items() if flag in record.flags]
        if not problems or not on_wire(record):
            return
        legacy_2024 = record.revision == protocol.V2024_11_05
        yield self.report(record, "Line " + " and ".join(problems)
                          + ("; 2024-11-05 implies UTF-8 through JSON" if legacy_2024 else ""),
                          severity=Severity.WARNING if legacy_2024 else None)


@rule
class BlankOrCrlfLines(Rule):
    """Checks for blank lines and CRLF line endings on stdin/stdout."""

    code, name = "IO006", "blank-or-crlf-lines"
    severity, level, spec = Severity.INFO, "info", _STDIO
    kinds = WIRE_KINDS
    requires = frozenset({"flags"})
    hint = "End each message with a single \\n and do not write empty lines."

    def check(self, record, session):
        if not on_wire(record):
            return
        problems = []
        if is_blank(record):
            problems.append("Blank line between messages (not a valid MCP message)")
        if "crlf" in record.flags:
            state = session.state_for(self)
            if not state.get("crlf"):
                state["crlf"] = True
                problems.append("Line ends with CRLF (\\r\\n) instead of LF (reported once per session)")
        if problems:
            yield self.report(record, "; ".join(problems),
                              confidence="low" if record.direction is None and is_blank(record) else None)


@rule
class DirectionUnknown(Rule):
    """Checks for messages whose direction the capture does not say and the analyzer cannot infer."""

    code, name = "IO011", "direction-unknown"
    severity, level, spec = Severity.INFO, "info", _STDIO
    kinds = MESSAGES
    requires = frozenset({"undirected"})
    party = "capture"
    hint = 'Record with `mcplint capture`, or use the canonical capture format with "dir".'

    def check(self, record, session):
        state = session.state_for(self)
        records = state.setdefault("records", [])
        if len(records) < 5:
            records.append(record)
        state["count"] = state.get("count", 0) + 1
        return ()

    finish_needs = frozenset({"state"})

    def finish(self, session):
        state = session.state.get(_IO011_STATE)  # (kept_state inline: most sessions have none)
        if not state:
            return ()
        first, *later = state["records"]
        count = state["count"]
        others = f"; {count - 1} more message{'s' if count > 2 else ''} of this session too" if count > 1 else ""
        return [self.report(first, f"Direction of {_describe(first)} is unknown (the capture does not say, and "
                                   f"either side may send it){others}; direction-dependent checks were skipped",
                            related=[(r, f"also undecided: {_describe(r)}") for r in later])]


_IO011_STATE = DirectionUnknown.__name__  # (Session.state_for)

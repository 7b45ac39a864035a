"""Error-layer misuse (TL): protocol errors vs. tool execution errors on ``tools/call``.

The spec splits tool failures into two channels (server/tools §Error Handling): problems in
*finding* the tool are JSON-RPC protocol errors, failures of the tool itself go into a result
with ``isError: true`` so that the model can see them. Which tools exist is only known from a
complete, current ``tools/list`` (``session.tools.current``); without one these rules are silent.
"""

from __future__ import annotations

import re

from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import Rule, error_of, fmt_id, params_of, result_of, rule

_TOOL_ERRORS = "server/tools §Error Handling"
_TOOLS_CALL = frozenset({"tools/call"})

#: Codes that name a protocol-level problem of the request itself, never a tool failure:
#: JSON-RPC parse/invalid request/method not found/invalid params, resource not found (-32002),
#: URL elicitation required (-32042), and the 2026-07-28 header/capability/version errors.
PROTOCOL_CODES = frozenset({-32700, -32600, -32601, -32602, -32002, -32042, -32020, -32021, -32022})

_UNKNOWN_TOOL = re.compile(
    r"(?i)\b(unknown|no such|invalid|unrecognized|unregistered|nonexistent|undefined)[ _-]tool\b"
    r"(?![ _-]*(arguments?|input|param|call|result|output|schema|response|error|execution))"
    r"|\btool[ _]not[ _](found|registered|available)\b"
    r"|\btool\s+['\"`]?[\w./:-]+['\"`]?\s+(not found|does not exist|doesn't exist|is not (registered|available|defined))"
    r"|\b(could not|couldn't|cannot|can't|unable to) find (the )?tool\b")


def tool_name(request: Record | None) -> str | None:
    name = params_of(request).get("name") if request is not None else None
    return name if isinstance(name, str) else None


#: plan fact (``tools.ToolFacts``): a tools/list result came in the session, so a tool may be listed
LISTED = "tools:listed"


def after_listing(cls, facts: frozenset[str], kind, method) -> bool:
    """``Rule.awaits`` of the rules that judge a call by the listed tools (``session.tools``,
    :func:`listed`): the analyzer lists no tool before a tools/list result."""
    return LISTED in facts


def listed(session, name: str | None) -> bool | None:
    """True/False when ``name`` is/is not in a complete, current tool list; None when unknown."""
    if name is None or not session.tools.current:
        return None
    return name in session.tools.names


def says_unknown_tool(record: Record) -> bool:
    error = error_of(record)
    message = error.get("message") if isinstance(error, dict) else None
    return isinstance(message, str) and bool(_UNKNOWN_TOOL.search(message))


#: only the first answer to a call is judged (not duplicates, not answers after a cancel)
_FIRST_ANSWER = frozenset({"ok"})


@rule
class UnknownToolMustBeProtocolError(Rule):
    """Checks for calls of unlisted tools answered with a result instead of a JSON-RPC error."""

    code, name = "TL006", "unknown-tool-must-be-protocol-error"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "derived", _TOOL_ERRORS
    party = "server"
    confidence = "low"
    kinds = frozenset({Kind.RESULT})
    methods = _TOOLS_CALL
    answers = _FIRST_ANSWER
    requires = frozenset({"odd-answer"})  # not called on a result tools.plain_answer() finds clean
    awaits = classmethod(after_listing)
    hint = 'Answer a call of an unknown tool with a JSON-RPC error (-32602 "Unknown tool").'

    def check(self, record, session):
        if record.direction is not Direction.S2C:
            return ()
        name = tool_name(record.request)
        if listed(session, name) is not False:
            return ()
        result = result_of(record)
        how = "an isError result" if isinstance(result, dict) and result.get("isError") is True \
            else "a success result"
        return [self.report(record, f"Call of tool {name!r}, which is not in the current tool list, "
                                    f"was answered with {how} instead of a JSON-RPC error",
                            related=[(record.request, "request")])]


@rule
class UnknownToolErrorCode(Rule):
    """Checks that an unknown tool is reported with error code -32602 (Invalid params)."""

    code, name = "TL007", "unknown-tool-error-code"
    order_sensitive = True
    severity, level, spec = Severity.INFO, "info", _TOOL_ERRORS
    party = "server"
    kinds = frozenset({Kind.ERROR})
    methods = _TOOLS_CALL
    answers = _FIRST_ANSWER
    hint = "Use -32602 (Invalid params) for an unknown tool name, as the spec's example does."

    def check(self, record, session):
        if record.direction is not Direction.S2C:
            return
        error = error_of(record)
        code = error.get("code") if isinstance(error, dict) else None
        if type(code) is not int or code == -32602 or code in (-32700, -32600, -32020, -32021, -32022):
            return  # malformed request / 2026-07-28 envelope errors take precedence over the lookup
        name = tool_name(record.request)
        unlisted = listed(session, name) is False
        if not (unlisted or says_unknown_tool(record)):
            return
        why = "is not in the current tool list" if unlisted else "is reported as unknown"
        named = bool(name) and name in str(error.get("message"))
        yield self.report(record, f"Tool {name!r} {why} and was refused with code {fmt_id(code)} "
                                  "instead of -32602",
                          confidence=None if unlisted or named else "low",
                          related=[(record.request, "request")])


@rule
class ToolFailureAsProtocolError(Rule):
    """Checks for failures of a listed tool sent as a JSON-RPC error instead of an isError result."""

    code, name = "TL019", "tool-failure-as-protocol-error"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD", _TOOL_ERRORS
    party = "server"
    confidence = "low"
    kinds = frozenset({Kind.ERROR})
    methods = _TOOLS_CALL
    answers = _FIRST_ANSWER
    hint = ('Return {"content": [...], "isError": true} for errors raised by the tool, so that the '
            "model can see them; keep JSON-RPC errors for unknown tools and bad requests.")

    def check(self, record, session):
        if record.direction is not Direction.S2C or session.client_closed is not None:
            return  # an answer sent after the client ended the session is a shutdown artefact
        error = error_of(record)
        code = error.get("code") if isinstance(error, dict) else None
        if type(code) is not int or code in PROTOCOL_CODES:
            return
        name = tool_name(record.request)
        if not listed(session, name) or says_unknown_tool(record):
            return
        what = "Internal error" if code == -32603 else "implementation-defined error"
        yield self.report(record, f"Listed tool {name!r} failed with JSON-RPC error {fmt_id(code)} "
                                  f"({what}) instead of a result with isError: true, so the "
                                  "model cannot see the failure",
                          related=[(record.request, "request")])

"""JSON-RPC framing and ids (JR): the envelope every MCP message must respect."""

from __future__ import annotations

import re

from mcplint import protocol
from mcplint.model import Kind, Severity, id_key
from mcplint.rules._base import (
    MESSAGES, NOTIFICATIONS, REQUESTS, RESPONSES, Rule, RuleOptions, error_of, fmt_id, result_of, rule,
)

_BASIC = "basic §Messages"
_RESPONSES = "basic §Responses"
_REQUESTS = "basic §Requests"


def _json_type(value) -> str:
    """The JSON name of a value's type, as a user reads it in the message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string"}.get(type(value), type(value).__name__)


def _a(value) -> str:
    """``_json_type`` with an article: "an array", "a string", "null"."""
    kind = _json_type(value)
    return kind if kind == "null" else ("an " if kind[0] in "aeiou" else "a ") + kind


@rule
class JsonrpcVersion(Rule):
    """Checks that every message carries ``"jsonrpc": "2.0"``."""

    code, name = "JR001", "jsonrpc-version"
    severity, level, spec = Severity.ERROR, "MUST", _BASIC
    kinds, requires = MESSAGES, frozenset({"envelope"})
    hint = 'Add "jsonrpc": "2.0" to every message.'

    def check(self, record, session):
        version = record.msg.get("jsonrpc", ...)
        if version != "2.0":
            shown = ("missing" if version is ... else fmt_id(version) if isinstance(version, str)
                     else f"the {_json_type(version)} {fmt_id(version)}")
            yield self.report(record, f'"jsonrpc" is {shown}; it must be the string "2.0"')


@rule
class UnparseableMessage(Rule):
    """Checks for lines that look like JSON but do not parse, and JSON values that are no message."""

    code, name = "JR002", "unparseable-message"
    severity, level, spec = Severity.ERROR, "MUST", _BASIC
    kinds = frozenset({Kind.MALFORMED, Kind.INVALID})
    hint = "Send one complete JSON object per message; the receiver answers -32700 otherwise."

    def check(self, record, session):
        if record.kind is Kind.INVALID:
            if isinstance(record.msg, dict):
                return  # an object of the wrong shape is JR003
            what = "Batch element" if record.parent is not None else "Message"
            yield self.report(record, f"{what} is {_a(record.msg)}, not a JSON object")
            return
        if "oversized" in record.flags:
            return  # too long for mcplint to read: its own limit, not a protocol error (IO013)
        if "envelope" in record.flags:
            yield self.report(record, f"Unreadable capture record: {record.error}", party="capture",
                              hint="Fix the capture file; each line must be a capture record.")
            return
        yield self.report(record, f"Message is not valid JSON ({record.error})")


@rule
class AmbiguousMessageShape(Rule):
    """Checks for objects that are neither a request, a notification nor a response."""

    code, name = "JR003", "ambiguous-message-shape"
    severity, level, spec = Severity.ERROR, "MUST", _BASIC
    kinds = frozenset({Kind.INVALID})
    hint = "A message has method (+id for requests) or id with exactly one of result/error."

    def check(self, record, session):
        if isinstance(record.msg, dict):
            yield self.report(record, f"Object is not a JSON-RPC message: {record.error}")


@rule
class RequestIdNull(Rule):
    """Checks for requests whose ``id`` is ``null``."""

    code, name = "JR004", "request-id-null"
    severity, level, spec = Severity.ERROR, "MUST NOT", _REQUESTS
    kinds, requires = REQUESTS, frozenset({"envelope"})
    hint = "Use a string or integer id; MCP forbids null request ids."

    def check(self, record, session):
        if record.id is None:
            yield self.report(record, f"Request {record.method!r} has a null id")


@rule
class RequestIdType(Rule):
    """Checks for request ids that are neither a string nor an integer."""

    code, name = "JR005", "request-id-type"
    severity, level, spec = Severity.ERROR, "MUST", _REQUESTS
    kinds, requires = REQUESTS, frozenset({"envelope"})
    hint = "Use a string or an integer (no fraction, no boolean) as request id."

    def check(self, record, session):
        value = record.id
        if value is None or type(value) in (int, str):
            return
        if type(value) is float and value.is_integer():
            # valid "integer" for JSON Schema, but JSON-RPC: numbers SHOULD NOT contain fractions
            yield self.report(record, f"Request id {fmt_id(value)} is written with a fraction; "
                                      f"send {int(value)}", severity=Severity.WARNING)
            return
        yield self.report(record, f"Request id {fmt_id(value)} is {_a(value)}, "
                                  "not a string or integer")


@rule
class RequestIdReused(Rule):
    """Checks for a sender reusing one of its own request ids."""

    code, name = "JR006", "request-id-reused"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST NOT", _REQUESTS
    kinds = REQUESTS
    # every report needs ``earlier``: the sender's request with this id, which is what the engine's
    # "reused-id" feature looks up (same tables and key, for the same directed int or str ids)
    requires = frozenset({"reused-id"})
    hint = "Never reuse a request id within a session (2026-07-28: while it is outstanding)."

    def check(self, record, session):
        if record.direction is None or record.id is None or type(record.id) not in (int, str):
            return ()
        earlier = session.find_request(record.direction, record.id)
        if earlier is None or (session.modern and not earlier.pending):
            return ()  # 2026-07-28 only forbids ids equal to an outstanding request
        state = "still unanswered" if earlier.pending else "already used"
        # 2026-07-28: a cancelled request may or may not still count as outstanding
        low = session.modern and earlier.cancel is not None
        return [self.report(
            record,
            f"{record.direction.sender.capitalize()} reused request id {fmt_id(record.id)} "
            f"({state}{', cancelled' if earlier.cancel else ''}, first sent with {earlier.record.method!r})",
            confidence="low" if low else None,
            related=[(earlier.record, "first request with this id")],
        )]


@rule
class ParamsNotObject(Rule):
    """Checks for ``params`` that is present but not a JSON object."""

    code, name = "JR007", "params-not-object"
    severity, level, spec = Severity.ERROR, "SCHEMA", _REQUESTS
    kinds, requires = frozenset({Kind.REQUEST, Kind.NOTIFICATION}), frozenset({"envelope"})
    hint = "MCP params are always an object (JSON-RPC positional arrays are not used)."

    def check(self, record, session):
        if "params" in record.msg and not isinstance(record.msg["params"], dict):
            yield self.report(record, f"params of {record.method!r} is "
                                      f"{_a(record.msg['params'])}, not an object")


@rule
class NotificationWithId(Rule):
    """Checks for notification methods sent with an ``id``."""

    code, name = "JR008", "notification-with-id"
    severity, level, spec = Severity.ERROR, "MUST NOT", "basic §Notifications"
    kinds = REQUESTS
    methods = protocol.NOTIFICATION_METHODS
    hint = "Drop the id: notifications are one-way and must not be answered."

    def check(self, record, session):
        yield self.report(record, f"Notification {record.method!r} was sent with id "
                                  f"{fmt_id(record.id)}, making it a request")


@rule
class RequestSentAsNotification(Rule):
    """Checks for request methods sent without an ``id``."""

    code, name = "JR009", "request-sent-as-notification"
    severity, level, spec = Severity.ERROR, "SCHEMA", _REQUESTS
    kinds = NOTIFICATIONS
    methods = protocol.REQUEST_METHODS
    hint = "Give the request an id so that its response can be correlated."

    def check(self, record, session):
        yield self.report(record, f"Request method {record.method!r} was sent without an id; "
                                  "no response can be matched to it")


@rule
class ResponseToNotification(Rule):
    """Checks for success responses that answer no request (typically a notification)."""

    code, name = "JR010", "response-to-notification"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST NOT", "basic §Notifications"
    kinds = frozenset({Kind.RESULT})
    answers = frozenset({"no-id"})
    hint = "Do not answer notifications; only requests (messages with an id) get responses."

    def check(self, record, session):
        if record.answer != "no-id":
            return
        previous = session.last_record
        if previous is not None and previous.kind is Kind.REQUEST and previous.id is None:
            return  # echoes a null-id request: JR004 reports the cause
        related = []
        if previous is not None and previous.kind is Kind.NOTIFICATION and previous.direction != record.direction:
            related.append((previous, f"notification {previous.method!r}"))
        yield self.report(record, "Result without an id answers no request"
                          + (f" (it follows notification {previous.method!r})" if related else ""),
                          related=related)


@rule
class ResponseUnknownId(Rule):
    """Checks for responses whose id matches no request the peer sent."""

    code, name = "JR011", "response-unknown-id"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _RESPONSES
    kinds = RESPONSES
    answers = frozenset({"unknown", "own-id"})  # "echo-invalid" answers an invalid message: fine
    hint = "Answer with exactly the id of the request (same value and type)."

    def check(self, record, session):
        if record.answer == "unknown":
            peer = record.direction.other
            finding = self.report(record, f"Response id {fmt_id(record.id)} matches no request the {peer.sender} sent",
                                  confidence="low" if session.midstream else None)
            if peer in session.first_message:
                yield finding
                return
            # nothing of the peer captured yet: reported at the end unless the log has one side only
            held = session.state_for(self).setdefault(peer, [])
            if len(held) < MAX_HELD:
                held.append(finding)
        elif record.answer == "own-id":
            yield self.report(record, f"Response id {fmt_id(record.id)} matches a request of the "
                                      f"{record.direction.sender} itself, not of the {record.direction.other.sender}")

    finish_needs = frozenset({"state"})

    def finish(self, session):
        held = session.state.get(_JR011_STATE)  # (kept_state inline: most sessions hold none)
        if held is None:
            return ()
        return [finding for peer, found in held.items() if peer in session.first_message for finding in found]


_JR011_STATE = ResponseUnknownId.__name__  # (Session.state_for)


#: Unknown-id responses held until the session ends (the peer had not spoken yet), per side.
MAX_HELD = 100


@rule
class ResponseIdTypeMismatch(Rule):
    """Checks for responses whose id equals the request's id in value but not in type."""

    code, name = "JR012", "response-id-type-mismatch"
    severity, level, spec = Severity.ERROR, "MUST", _RESPONSES
    kinds = RESPONSES
    answers = frozenset({"type-mismatch"})
    hint = "Echo the id unchanged: 1 and \"1\" are different ids."

    def check(self, record, session):
        if record.answer == "type-mismatch":
            yield self.report(record, f"Response id {fmt_id(record.id)} has the wrong type: the request "
                                      f"used {fmt_id(record.request.id)}",
                              related=[(record.request, "request")])


@rule
class DuplicateResponse(Rule):
    """Checks for a second response to an already answered request."""

    code, name = "JR013", "duplicate-response"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _RESPONSES
    kinds = RESPONSES
    answers = frozenset({"duplicate"})
    hint = "Send exactly one response per request."

    def check(self, record, session):
        if record.answer == "duplicate":
            entry = (session.find_request(record.direction.other, record.id) if record.direction is not None
                     else session.undirected.get(id_key(record.id)))
            request = entry.record  # record.request, or a stand-in once the analyzer compacted the entry
            yield self.report(record, f"Request {fmt_id(record.id)} ({request.method!r}) was already answered",
                              related=[(request, "request"), (entry.response, "first response")])


@rule
class ResultAndError(Rule):
    """Checks for responses that carry both ``result`` and ``error``."""

    code, name = "JR014", "result-and-error"
    severity, level, spec = Severity.ERROR, "MUST NOT", _RESPONSES
    kinds, requires = RESPONSES, frozenset({"envelope"})
    hint = "A response has either result or error, never both (omit the unused member, no null)."

    def check(self, record, session):
        msg = record.msg
        if "result" not in msg or "error" not in msg:
            return
        if msg["error"] is None:
            yield self.report(record, 'Success response carries "error": null; omit error instead')
        elif msg["result"] is None:
            yield self.report(record, 'Error response carries "result": null; omit result instead')
        else:
            yield self.report(record, "Response carries both result and error")


@rule
class ResultNotObject(Rule):
    """Checks for ``result`` members that are not JSON objects."""

    code, name = "JR015", "result-not-object"
    severity, level, spec = Severity.ERROR, "SCHEMA", _RESPONSES
    kinds, requires = RESPONSES, frozenset({"envelope"})
    hint = "Return an object, at least {} for an empty result."

    def check(self, record, session):
        if "result" not in record.msg:
            return
        result = result_of(record)
        if result is None and "error" in record.msg:
            return  # "result": null beside an error: JR014
        if not isinstance(result, dict):
            yield self.report(record, f"result is {_a(result)}, not an object")


@rule
class ErrorObjectShape(Rule):
    """Checks that ``error`` is an object with an integer ``code`` and a string ``message``."""

    code, name = "JR016", "error-object-shape"
    severity, level, spec = Severity.ERROR, "MUST", "basic §Error Responses"
    kinds, requires = frozenset({Kind.ERROR, Kind.RESULT}), frozenset({"envelope"})
    hint = 'Use {"code": <integer>, "message": "<text>"} with optional "data".'

    def check(self, record, session):
        if "error" not in record.msg:
            return
        error = error_of(record)
        if error is None and "result" in record.msg:
            return  # "error": null beside a result: JR014
        if not isinstance(error, dict):
            yield self.report(record, f"error is {_a(error)}, not an object")
            return
        problems = []
        code = error.get("code")
        if "code" not in error:
            problems.append("code is missing")
        elif type(code) is not int:
            problems.append(f"code {fmt_id(code)} is not an integer")
        if "message" not in error:
            problems.append("message is missing")
        elif not isinstance(error["message"], str):
            problems.append(f"message is {_a(error['message'])}, not a string")
        if problems:
            yield self.report(record, "Malformed error object: " + "; ".join(problems))


@rule
class ErrorResponseId(Rule):
    """Checks for error responses without an id where the request's id was readable."""

    code, name = "JR017", "error-response-id"
    severity, level, spec = Severity.ERROR, "MUST", "basic §Error Responses"
    kinds = frozenset({Kind.ERROR})
    answers = frozenset({"no-id"})  # "unreadable": it answers an unparseable message, fine
    confidence = "low"
    hint = "Copy the request's id into the error; only unreadable requests get a null/absent id."

    def check(self, record, session):
        error = error_of(record)
        code = error.get("code") if isinstance(error, dict) else None
        if code in (-32700, -32600):
            return  # parse error / invalid request: the id could not be read
        yield self.report(record, f"Error response (code {fmt_id(code)}) has "
                                  f"{'a null' if record.has_id else 'no'} id although it does not "
                                  "report an unreadable request")


@rule
class BatchNotAllowed(Rule):
    """Checks for JSON-RPC batches outside revision 2025-03-26."""

    code, name = "JR018", "batch-not-allowed"
    severity, level, spec = Severity.ERROR, "MUST", "basic/transports §stdio"
    kinds = frozenset({Kind.BATCH})
    hint = "Send each message on its own line; batching existed only in 2025-03-26."

    def check(self, record, session):
        version = record.revision
        if version == protocol.V2025_03_26:
            return
        if version == protocol.V2024_11_05:
            yield self.report(record, "JSON-RPC batch in a 2024-11-05 session (batches are not defined there)",
                              severity=Severity.WARNING)
        elif version is None:
            yield self.report(record, "JSON-RPC batch; batches are allowed only in 2025-03-26",
                              severity=Severity.WARNING, confidence="low")
        else:
            yield self.report(record, f"JSON-RPC batch in a {record.version} session; "
                                      "batching was removed in 2025-06-18")


@rule
class BatchContents(Rule):
    """Checks that a 2025-03-26 batch is non-empty and does not mix requests with responses."""

    code, name = "JR019", "batch-contents"
    severity, level, spec = Severity.ERROR, "MUST", "basic §Batching"
    versions = frozenset({protocol.V2025_03_26})
    kinds = frozenset({Kind.BATCH})
    hint = "A batch holds either requests/notifications or responses, and at least one."

    def check(self, record, session):
        if not record.children:
            yield self.report(record, "Empty batch []")
            return
        calls = any(c.kind in (Kind.REQUEST, Kind.NOTIFICATION) for c in record.children)
        answers = any(c.kind in (Kind.RESULT, Kind.ERROR) for c in record.children)
        if calls and answers:
            yield self.report(record, "Batch mixes requests/notifications with responses")


_NOT_FOUND = re.compile(r"(?i)not found|unknown|no such|not supported|unsupported|not implemented|does ?n[o']t exist")


@rule
class UnknownMethodHandling(Rule):
    """Checks that a request for a method the receiver lacks is refused with -32601."""

    code, name = "JR020", "unknown-method-handling"
    severity, level, spec = Severity.INFO, "SHOULD", "basic §Error Responses"
    kinds = frozenset({Kind.ERROR})
    confidence = "low"
    hint = "Answer requests for unimplemented methods with -32601 (Method not found)."

    def check(self, record, session):
        request = record.request
        if request is None or request.method is None:
            return
        spec = protocol.METHODS.get(request.method)
        version = record.revision
        if spec is not None and (version is None or version in spec.versions):
            return  # a method of the revision in effect: refusing it is another matter
        error = error_of(record)
        if not isinstance(error, dict) or type(error.get("code")) is not int or error["code"] == -32601:
            return  # a non-integer code is JR016
        message = str(error.get("message", ""))
        names_method = "method" in message.lower() or request.method in message
        if names_method and _NOT_FOUND.search(message):
            yield self.report(record, f"Unknown method {request.method!r} refused with code "
                                      f"{fmt_id(error.get('code'))} instead of -32601",
                              related=[(request, "request")])


@rule
class ReservedRpcMethod(Rule):
    """Checks for method names starting with ``rpc.``, which JSON-RPC reserves."""

    code, name = "JR021", "reserved-rpc-method"
    severity, level, spec = Severity.ERROR, "MUST NOT", _BASIC
    kinds = frozenset({Kind.REQUEST, Kind.NOTIFICATION})
    hint = "Pick a method name outside the reserved rpc. namespace."

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return isinstance(method, str) and method.startswith("rpc.")

    def check(self, record, session):
        if record.method.startswith("rpc."):
            yield self.report(record, f"Method {record.method!r} uses the reserved 'rpc.' prefix")


@rule
class ErrorMessageConcise(Rule):
    """Checks for error messages that are multi-line or very long."""

    code, name = "JR022", "error-message-concise"
    severity, level, spec = Severity.INFO, "SHOULD", "basic §Error Responses"
    kinds = frozenset({Kind.ERROR})
    hint = "Keep error.message to one short sentence; put details (tracebacks) in error.data."

    max_length: int = 300

    class Options(RuleOptions):
        max_length: int = 300  # characters; longer messages are reported

    def check(self, record, session):
        error = error_of(record)
        message = error.get("message") if isinstance(error, dict) else None
        if isinstance(message, str) and ("\n" in message.strip() or len(message) > self.max_length):
            why = "spans several lines" if "\n" in message.strip() else f"is {len(message)} characters long"
            yield self.report(record, f"error.message {why}")

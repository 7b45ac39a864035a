"""The stateless revision 2026-07-28 (MD): per-request ``_meta``, ``resultType``,
``server/discover``, no server-initiated requests, the MCP error-code ranges.

A session is modern once a client request carries ``_meta["io.modelcontextprotocol/protocolVersion"]``
or is ``server/discover`` (the analyzer decides; an ``initialize`` starts a new, legacy session).
Capabilities travel on every request, so each rule judges a response against the
``clientCapabilities`` of the request it answers, never against an earlier one.

Several checks depend on whether the *server* speaks 2026-07-28 at all: a dual-era client probes a
legacy server with ``server/discover`` and falls back to ``initialize`` when it gets an error. Such a
legacy server is not judged by 2026-07-28 rules: :class:`ModernTracker` keeps the first response
that only a 2026-07-28 server sends (``evidence``), and server-side rules that could hit a legacy
server wait for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcplint import protocol
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import (
    REQUESTS, RESPONSES, Rule, Tracker, error_of, fmt_id, params_of, result_of, rule, tracker,
)

C2S, S2C = Direction.C2S, Direction.S2C
PROTOCOL_VERSION = protocol.PROTOCOL_VERSION_META
CLIENT_CAPABILITIES = protocol.CLIENT_CAPABILITIES_META
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

CORE_RESULT_TYPES = frozenset({"complete", "input_required"})
#: resultType values that official extensions add (advertised in clientCapabilities.extensions)
EXTENSION_RESULT_TYPES = {TASKS_EXTENSION: frozenset({"task"})}
#: the codes 2026-07-28 defines in its reserved range -32020..-32099
MODERN_ERRORS = {-32020: "HeaderMismatch", -32021: "MissingRequiredClientCapability",
                 -32022: "UnsupportedProtocolVersion"}
JSONRPC_CODES = frozenset({-32700, -32600, -32601, -32602, -32603})
ANSWERED = frozenset({"ok", "after-cancel"})

_META = "basic §_meta"
_RESULTS = "basic §Result Responses"
_VERSIONING = "basic/versioning §Protocol Version Negotiation"
_ERROR_CODES = "basic §Error Codes"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


# -- shared helpers ------------------------------------------------------------------------
def request_meta(request: Record | None) -> dict | None:
    """``params._meta`` of a request when it is an object."""
    meta = params_of(request).get("_meta") if request is not None else None
    return meta if isinstance(meta, dict) else None


def request_caps(request: Record | None) -> dict | None:
    """The ``clientCapabilities`` a request declared, or None when absent/malformed (MD001)."""
    meta = request_meta(request)
    caps = meta.get(CLIENT_CAPABILITIES) if meta is not None else None
    return caps if isinstance(caps, dict) else None


def requested_version(request: Record | None) -> str | None:
    meta = request_meta(request)
    version = meta.get(PROTOCOL_VERSION) if meta is not None else None
    return version if isinstance(version, str) else None


def error_code(record: Record) -> Any:
    error = error_of(record)
    code = error.get("code") if isinstance(error, dict) else None
    return code if type(code) is int else None


def error_message(record: Record) -> str:
    error = error_of(record)
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else ""


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return {dict: "an object", list: "an array", str: "a string"}.get(type(value), type(value).__name__)


def meta_problems(request: Record) -> list[str]:
    """What is wrong with the required per-request ``_meta`` fields (empty when nothing)."""
    params = request.params
    if params is not None and not isinstance(params, dict):
        return []  # params that are no object at all: JR007
    meta = params.get("_meta") if isinstance(params, dict) else None
    if meta is None:
        return ["no _meta (protocolVersion and clientCapabilities are required)"]
    if not isinstance(meta, dict):
        return [f"_meta is {_json_type(meta)}, not an object"]
    problems = []
    for key, kind, name in ((PROTOCOL_VERSION, str, "a string"), (CLIENT_CAPABILITIES, dict, "an object")):
        if key not in meta:
            problems.append(f"{key} is missing")
        elif not isinstance(meta[key], kind):
            problems.append(f"{key} is {_json_type(meta[key])}, not {name}")
    return problems


def modern_response(record: Record, session) -> bool:
    """A first answer of the server to a client request in a 2026-07-28 session."""
    return (session.modern and record.direction is S2C and record.request is not None
            and record.answer in ANSWERED)


def is_modern_evidence(record: Record) -> bool:
    """A server response only a 2026-07-28 server sends: a result with ``resultType``, a
    successful ``server/discover``, or one of the -32020..-32022 errors."""
    if record.kind is Kind.RESULT:
        result = result_of(record)
        if not isinstance(result, dict):
            return False
        request = record.request
        return isinstance(result.get("resultType"), str) or (
            request is not None and request.method == "server/discover")
    return error_code(record) in MODERN_ERRORS


def speaks_modern(record: Record, session) -> bool:
    """Whether the server answering ``record`` has shown that it implements 2026-07-28 (by this
    response or an earlier one); a legacy server answering a modern request is not judged."""
    return ModernTracker.of(session).evidence is not None or is_modern_evidence(record)


def covered(required: Any, declared: Any) -> bool:
    """Whether the capabilities ``required`` are all present in ``declared`` (deeply).

    ``elicitation: {}`` declares form mode (spec client/elicitation §Capabilities).
    """
    if not isinstance(required, dict):
        return True
    if not isinstance(declared, dict):
        return not required
    for key, value in required.items():
        if key not in declared or declared[key] is None:
            return False
        inner = declared[key]
        if key == "elicitation" and inner == {}:
            inner = {"form": {}}
        if isinstance(value, dict) and value and not covered(value, inner):
            return False
    return True


def _versions(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


# -- tracker ---------------------------------------------------------------------------------
@dataclass(slots=True, eq=False)
class ModernFacts:
    """What a 2026-07-28 session has shown about its server and client so far."""

    evidence: Record | None = None  # first response only a 2026-07-28 server sends
    supported: list[str] | None = None  # versions the server last advertised (discover / -32022)
    supported_source: Record | None = None
    rejected: Record | None = None  # the last -32022 error, until the client's next request
    rejected_versions: list[str] | None = None
    declared: dict[str, Record] = field(default_factory=dict)  # client capability -> last request declaring it


@tracker
class ModernTracker(Tracker):
    """Server evidence, advertised versions and per-request capability declarations."""

    kinds = frozenset({Kind.REQUEST, Kind.RESULT, Kind.ERROR})
    facts = ModernFacts

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return modern

    def commit(self, record, session):
        facts = self.of(session)
        if record.kind is Kind.REQUEST:
            if record.direction is C2S:
                for name in request_caps(record) or ():
                    facts.declared[name] = record
                facts.rejected = facts.rejected_versions = None
            return
        if record.direction is not S2C or record.answer not in ANSWERED:
            return
        if facts.evidence is None and is_modern_evidence(record):
            facts.evidence = record
        request = record.request
        if record.kind is Kind.RESULT:
            result = result_of(record)
            if request is not None and request.method == "server/discover" and isinstance(result, dict):
                versions = _versions(result.get("supportedVersions"))
                if versions is not None:
                    facts.supported, facts.supported_source = versions, record
        elif error_code(record) == -32022:
            data = error_of(record).get("data")
            versions = _versions(data.get("supported")) if isinstance(data, dict) else None
            if versions is not None:
                facts.supported, facts.supported_source = versions, record
                facts.rejected, facts.rejected_versions = record, versions


def unsupported(version: str, facts: ModernFacts) -> tuple[str, str] | None:
    """``(reason, confidence)`` when the server does not implement ``version``, else None."""
    if facts.supported is not None:
        if version in facts.supported:
            return None
        return f"the server lists only {', '.join(facts.supported) or 'no versions'} as supported", "high"
    if version in protocol.VERSIONS:
        return None
    if _DATE.match(version):
        if version > protocol.VERSIONS[-1]:
            return None  # a revision newer than mcplint knows; the server may implement it
        return f"no MCP revision is called {version!r}", "high"
    return f"{version!r} is not an MCP revision", "low"


# -- MD001 -----------------------------------------------------------------------------------
@rule
class RequestMetaMissing(Rule):
    """Checks that every request carries the required ``_meta`` protocol version and capabilities."""

    code, name = "MD001", "request-meta-missing"
    severity, level, spec = Severity.ERROR, "MUST", _META
    versions = protocol.MODERN
    kinds = frozenset({Kind.REQUEST, Kind.RESULT, Kind.ERROR})
    hint = ('Put "io.modelcontextprotocol/protocolVersion" and "io.modelcontextprotocol/clientCapabilities" '
            "in params._meta of every request; servers reject requests without them with -32602.")

    def check(self, record, session):
        if not session.modern:
            return
        if record.kind is Kind.REQUEST:
            if record.direction is C2S:
                problems = meta_problems(record)
                if problems:
                    yield self.report(record, f"Request {record.method!r} lacks its required per-request "
                                              f"metadata: {'; '.join(problems)}")
            return
        if not modern_response(record, session) or not speaks_modern(record, session):
            return
        request = record.request
        problems = meta_problems(request)
        if not problems:
            return
        related = [(request, "request without the required _meta")]
        if record.kind is Kind.RESULT:
            yield self.report(record, f"Server answered {request.method!r} with success although the request "
                                      f"is malformed ({'; '.join(problems)}); it must reject it with -32602",
                              party="server", related=related)
            return
        code = error_code(record)
        exempt = {-32602, -32601, -32020} | ({-32022} if requested_version(request) else set())
        if code is None or code in exempt:
            return
        yield self.report(record, f"Server rejected {request.method!r}, whose _meta is incomplete, with code "
                                  f"{code} instead of -32602 (Invalid params)", severity=Severity.WARNING,
                          party="server", related=related)


# -- MD002 -----------------------------------------------------------------------------------
@rule
class UnsupportedVersionHandling(Rule):
    """Checks that requests for an unsupported protocol version get -32022 with the supported list."""

    code, name = "MD002", "unsupported-version-handling"
    severity, level, spec = Severity.ERROR, "MUST", _VERSIONING
    versions = protocol.MODERN
    kinds = frozenset({Kind.REQUEST, Kind.RESULT, Kind.ERROR})
    party = "server"
    hint = ('Answer a request for a version you do not implement with error -32022 and '
            'data {"supported": [...], "requested": "<version>"}.')

    def check(self, record, session):
        if not session.modern:
            return
        facts = ModernTracker.of(session)
        if record.kind is Kind.REQUEST:
            if record.direction is C2S and facts.rejected is not None:
                yield from self._client_retry(record, facts)
            return
        if not modern_response(record, session) or not speaks_modern(record, session):
            return
        request = record.request
        version = requested_version(request)
        if version is None:
            return  # no version at all: MD001
        related = [(request, "request")]
        if record.kind is Kind.RESULT:
            verdict = unsupported(version, facts)
            if verdict is None or request.method == "server/discover":
                return  # a discover result not listing the version: MD009
            reason, confidence = verdict
            if facts.supported_source is not None:
                related.append((facts.supported_source, "versions the server advertised"))
            yield self.report(record, f"Server answered {request.method!r} for protocol version {version!r} "
                                      f"with success although {reason}; it must return -32022 "
                                      "(UnsupportedProtocolVersion)",
                              confidence=confidence, related=related,
                              severity=Severity.WARNING if confidence == "low" else None)
            return
        code = error_code(record)
        if code == -32022:
            yield from self._typed_error(record, version, related)
            return
        verdict = unsupported(version, facts)
        if verdict is None or code is None or code == -32020:
            return
        if code == -32602 and meta_problems(request):
            return  # the request is malformed anyway (MD001)
        if code == -32601 and request.method not in protocol.REQUEST_METHODS:
            return  # an unknown method may be refused first
        reason, confidence = verdict
        yield self.report(record, f"Server refused protocol version {version!r} ({reason}) with code {code} "
                                  "instead of -32022 (UnsupportedProtocolVersion)",
                          confidence=confidence, related=related,
                          severity=Severity.WARNING if confidence == "low" else None)

    def _typed_error(self, record, version, related):
        data = error_of(record).get("data")
        if not isinstance(data, dict):
            return  # missing or malformed data: SV005
        requested = data.get("requested")
        if isinstance(requested, str) and requested != version:
            yield self.report(record, f"-32022 names {requested!r} as the requested version, but the "
                                      f"request asked for {version!r}", related=related)
        supported = _versions(data.get("supported"))
        if supported is not None and version in supported:
            yield self.report(record, f"-32022 rejects protocol version {version!r} although its own "
                                      "data.supported lists it", related=related)

    def _client_retry(self, record, facts):
        version = requested_version(record)
        supported = facts.rejected_versions or []
        if version is None or not supported or version in supported:
            return
        yield self.report(record, f"Client sent {record.method!r} with protocol version {version!r} after the "
                                  f"server answered -32022 listing {', '.join(supported)}",
                          severity=Severity.INFO, level="SHOULD", party="client",
                          related=[(facts.rejected, "UnsupportedProtocolVersionError")],
                          hint="Retry with a version from the error's data.supported list, or report the "
                               "incompatibility to the user.")


# -- MD003 / MD004 -----------------------------------------------------------------------------
@rule
class ResultTypeMissing(Rule):
    """Checks that every result of a 2026-07-28 server carries ``resultType``."""

    code, name = "MD003", "result-type-missing"
    severity, level, spec = Severity.ERROR, "MUST", _RESULTS
    versions = protocol.MODERN
    kinds = frozenset({Kind.RESULT})
    answers = ANSWERED
    party = "server"
    hint = 'Add "resultType": "complete" (or "input_required") to every result.'

    def check(self, record, session):
        if not modern_response(record, session):
            return
        result = result_of(record)
        if not isinstance(result, dict) or "resultType" in result:
            return
        request = record.request
        evidence = ModernTracker.of(session).evidence
        if evidence is not None or request.method == "server/discover":
            related = [(evidence, "this server speaks 2026-07-28")] if evidence is not None else []
            yield self.report(record, f"Result of {request.method!r} has no resultType",
                              related=[(request, "request"), *related])
            return
        state = session.state_for(self)
        if not state.get("unsure"):
            state["unsure"] = True  # a legacy server answering a modern client: say it once
            yield self.report(record, f"Result of {request.method!r} has no resultType; either the server "
                                      "omits a required field or it implements only a legacy revision and "
                                      "should not have accepted this 2026-07-28 request",
                              severity=Severity.WARNING, confidence="low", related=[(request, "request")])


@rule
class ResultTypeUnknown(Rule):
    """Checks for ``resultType`` values that neither the core protocol nor an advertised extension defines."""

    code, name = "MD004", "result-type-unknown"
    severity, level, spec = Severity.ERROR, "MUST", "basic §ResultType"
    versions = protocol.MODERN
    kinds = frozenset({Kind.RESULT})
    answers = ANSWERED
    party = "server"
    hint = ('Use "complete" or "input_required"; extension values (e.g. "task") only when the request\'s '
            "clientCapabilities.extensions advertise that extension.")

    def check(self, record, session):
        if not modern_response(record, session):
            return
        result = result_of(record)
        if not isinstance(result, dict) or "resultType" not in result:
            return
        value = result["resultType"]
        if not isinstance(value, str):
            yield self.report(record, f"resultType is {_json_type(value)} ({fmt_id(value)}), not a string")
            return
        if value in CORE_RESULT_TYPES:
            return
        caps = request_caps(record.request) or {}
        extensions = caps.get("extensions") if isinstance(caps.get("extensions"), dict) else {}
        if any(value in EXTENSION_RESULT_TYPES.get(ext, ()) for ext in extensions):
            return
        owner = next((ext for ext, values in EXTENSION_RESULT_TYPES.items() if value in values), None)
        related = [(record.request, "request")]
        if owner is not None:
            yield self.report(record, f"resultType {value!r} belongs to the extension {owner!r}, which the "
                                      "request's clientCapabilities.extensions do not advertise",
                              related=related)
            return
        unknown = sorted(ext for ext in extensions if ext not in EXTENSION_RESULT_TYPES)
        if unknown:
            yield self.report(record, f"resultType {value!r} is not a core value; it may come from the "
                                      f"advertised extension {', '.join(map(repr, unknown))}",
                              severity=Severity.INFO, confidence="low", related=related)
            return
        yield self.report(record, f"resultType {value!r} is neither \"complete\" nor \"input_required\" and "
                                  "no advertised extension defines it; clients must treat it as invalid",
                          related=related)


# -- MD005 / MD006 -----------------------------------------------------------------------------
@rule
class ServerInitiatedRequest(Rule):
    """Checks for JSON-RPC requests sent by a 2026-07-28 server."""

    code, name = "MD005", "server-initiated-request"
    severity, level, spec = Severity.ERROR, "MUST NOT", "basic/patterns"
    versions = protocol.MODERN
    kinds = REQUESTS
    party = "server"
    hint = ("Ask for elicitation, sampling or roots inside an InputRequiredResult on the client's request "
            "(multi round-trip requests); never send a request to the client.")

    def check(self, record, session):
        if session.modern and record.direction is S2C:
            yield self.report(record, f"Server sent the request {record.method!r} (id {fmt_id(record.id)}); "
                                      "2026-07-28 servers never initiate JSON-RPC requests")


@rule
class ClientSentResponse(Rule):
    """Checks for JSON-RPC responses sent by a 2026-07-28 client."""

    code, name = "MD006", "client-sent-response"
    severity, level, spec = Severity.ERROR, "MUST NOT", "basic/transports/stdio §Sending Messages"
    versions = protocol.MODERN
    kinds = RESPONSES
    party = "client"
    hint = "Send only requests and notifications; answer server input requests by retrying with inputResponses."

    def check(self, record, session):
        if not (session.modern and record.direction is C2S):
            return
        related = [(record.request, "the server request it answers")] if record.request is not None else []
        what = "an error" if record.kind is Kind.ERROR else "a result"
        yield self.report(record, f"Client sent {what} (id {fmt_id(record.id)}); 2026-07-28 clients never "
                                  "send JSON-RPC responses", related=related)


# -- MD007 -----------------------------------------------------------------------------------
_CAP_WORD = re.compile(r"(?i)\b(elicitation|elicit|sampling|roots)\b|\bclient capabilit")
_MISSING_WORD = re.compile(r"(?i)capabilit|not (declared|supported|advertised|enabled|available)|unsupported"
                           r"|does ?n[o']t support|\black(s|ing)?\b|\bmissing\b|\brequires?\b")
_CAP_NAMES = {"elicit": "elicitation", "elicitation": "elicitation", "sampling": "sampling", "roots": "roots"}


@rule
class MissingCapabilityError(Rule):
    """Checks that a missing client capability is signalled with -32021, and only when it is missing."""

    code, name = "MD007", "missing-capability-error"
    severity, level, spec = Severity.WARNING, "MUST", _META
    versions = protocol.MODERN
    kinds = frozenset({Kind.ERROR})
    answers = ANSWERED
    party = "server"
    confidence = "low"
    hint = ('Return error -32021 with data {"requiredCapabilities": {...}} naming the client capabilities '
            "the request lacks.")

    def check(self, record, session):
        if not modern_response(record, session) or not speaks_modern(record, session):
            return
        caps = request_caps(record.request)
        if caps is None:
            return  # no capabilities declared at all: MD001
        code = error_code(record)
        related = [(record.request, "request and its clientCapabilities")]
        if code == -32021:
            data = error_of(record).get("data")
            required = data.get("requiredCapabilities") if isinstance(data, dict) else None
            if isinstance(required, dict) and required and covered(required, caps):
                yield self.report(record, f"-32021 names {fmt_id(required)} as missing, but the request "
                                          f"declared {fmt_id(caps)}", related=related)
            return
        message = error_message(record)
        found = _CAP_WORD.search(message)
        if code is None or found is None or not _MISSING_WORD.search(message):
            return
        name = _CAP_NAMES.get((found.group(1) or "").lower())
        if name is not None and name in caps:
            return  # the capability was declared; the error is about something else
        what = f"client capability {name!r}" if name else "a client capability"
        yield self.report(record, f"Server signalled a missing {what} with code {code} "
                                  f"({message.strip()[:80]!r}) instead of -32021 (MissingRequiredClientCapability)",
                          related=related)


# -- MD008 / MD009 -----------------------------------------------------------------------------
@rule
class DiscoverNotImplemented(Rule):
    """Checks that a server answering 2026-07-28 requests implements ``server/discover``."""

    code, name = "MD008", "discover-not-implemented"
    severity, level, spec = Severity.ERROR, "MUST", _VERSIONING
    versions = protocol.MODERN
    kinds = frozenset({Kind.ERROR})
    methods = frozenset({"server/discover"})
    answers = ANSWERED
    party = "server"
    hint = "Implement server/discover: answer with supportedVersions, capabilities and cache hints."

    def check(self, record, session):
        if not modern_response(record, session) or error_code(record) != -32601:
            return
        evidence = ModernTracker.of(session).evidence
        if evidence is None:  # a legacy server answering a dual-era probe; decided at the end
            session.state_for(self).setdefault("pending", []).append(record)
            return
        yield self._finding(record, evidence)

    finish_needs = frozenset({"state"})

    def finish(self, session):
        pending = session.kept_state(self).get("pending")
        evidence = ModernTracker.of(session).evidence if pending else None
        if evidence is None:
            return ()
        return [self._finding(record, evidence) for record in pending]

    def _finding(self, record, evidence):
        return self.report(record, "Server answered server/discover with -32601 (Method not found) although "
                                   "it serves 2026-07-28 requests; every modern server must implement it",
                           related=[(record.request, "request"), (evidence, "a 2026-07-28 response of this server")])


@rule
class DiscoverResultShape(Rule):
    """Checks that a ``server/discover`` result lists its supported versions and capabilities."""

    code, name = "MD009", "discover-result-shape"
    severity, level, spec = Severity.ERROR, "SCHEMA", "server/discover"
    versions = protocol.MODERN
    kinds = frozenset({Kind.RESULT})
    methods = frozenset({"server/discover"})
    answers = ANSWERED
    party = "server"
    hint = ('Answer with {"resultType": "complete", "supportedVersions": [...], "capabilities": {...}, '
            '"ttlMs": ..., "cacheScope": ...}.')

    def check(self, record, session):
        if not modern_response(record, session):
            return
        result = result_of(record)
        if not isinstance(result, dict) or result.get("resultType", "complete") != "complete":
            return  # no object (JR015) or not a final result (MD004, MR001)
        problems = []
        versions = result.get("supportedVersions")
        if "supportedVersions" not in result:
            problems.append("supportedVersions is missing")
        elif not isinstance(versions, list):
            problems.append(f"supportedVersions is {_json_type(versions)}, not an array")
        elif _versions(versions) is None:
            problems.append("supportedVersions holds non-string items")
        if "capabilities" not in result:
            problems.append("capabilities is missing")
        if "instructions" in result and not isinstance(result["instructions"], str):
            problems.append(f"instructions is {_json_type(result['instructions'])}, not a string")
        if problems:
            yield self.report(record, "Malformed DiscoverResult: " + "; ".join(problems))
            return
        version = requested_version(record.request)
        if version is not None and version not in versions:
            yield self.report(record, f"server/discover succeeded for protocol version {version!r}, which its "
                                      f"supportedVersions ({', '.join(versions) or 'empty'}) do not list",
                              severity=Severity.INFO, level="derived", related=[(record.request, "request")])


# -- MD010 -----------------------------------------------------------------------------------
def code_problem(code: int, method: str | None) -> tuple[Severity, str, str] | None:
    """``(severity, level, why)`` when 2026-07-28 forbids or discourages emitting ``code``."""
    if code in MODERN_ERRORS or code in JSONRPC_CODES:
        return None
    if code == -32002:
        if method == "resources/read":
            return None  # a resource not found: RS004 says -32602
        return Severity.ERROR, "MUST NOT", "-32002 (resource not found) is retired; use -32602"
    if code == -32042:
        return Severity.ERROR, "MUST NOT", "-32042 (URL elicitation required) is retired"
    if -32099 <= code <= -32020:
        why = "codes -32020..-32099 are reserved for the specification, which defines only -32020, -32021 and -32022"
        return Severity.ERROR, "MUST NOT", why
    if -32019 <= code <= -32000:
        return Severity.WARNING, "SHOULD NOT", "-32000..-32019 is the legacy implementation-defined range"
    if -32768 <= code < -32000:
        return Severity.WARNING, "SHOULD", "-32768..-32000 is reserved by JSON-RPC; allocate codes outside it"
    return None


@rule
class ErrorCodeAllocation(Rule):
    """Checks for error codes that 2026-07-28 retires, reserves or discourages."""

    code, name = "MD010", "error-code-allocation"
    severity, level, spec = Severity.ERROR, "MUST NOT", _ERROR_CODES
    versions = protocol.MODERN
    kinds = frozenset({Kind.ERROR})
    party = "server"
    hint = ("Use the JSON-RPC codes, -32020/-32021/-32022 for their defined meanings, and codes outside "
            "-32768..-32000 for your own errors.")

    def check(self, record, session):
        if not session.modern or record.direction is not S2C or not speaks_modern(record, session):
            return
        code = error_code(record)
        problem = code_problem(code, record.request.method if record.request else None) if code else None
        if problem is None:
            return
        severity, level, why = problem
        yield self.report(record, f"Error code {code}: {why}", severity=severity, level=level)


# -- MD011 -----------------------------------------------------------------------------------
@rule
class IdentityMeta(Rule):
    """Checks for requests without ``clientInfo`` and results without ``serverInfo`` in ``_meta``."""

    code, name = "MD011", "identity-meta"
    severity, level, spec = Severity.INFO, "SHOULD", _META
    versions = protocol.MODERN
    kinds = frozenset({Kind.REQUEST, Kind.RESULT})
    hint = ('Send "io.modelcontextprotocol/clientInfo" in every request\'s _meta and '
            '"io.modelcontextprotocol/serverInfo" in every result\'s _meta.')

    def check(self, record, session):
        if not session.modern:
            return
        if record.kind is Kind.REQUEST:
            meta = request_meta(record)
            if record.direction is C2S and meta is not None and CLIENT_INFO not in meta:
                self._note(session, "client", record)
            return
        if not modern_response(record, session):
            return
        result = result_of(record)
        if not isinstance(result, dict):
            return
        meta = result.get("_meta")
        if isinstance(meta, dict) and SERVER_INFO in meta:
            return
        if record.request.method == "server/discover":
            session.state_for(self)["server-warned"] = True
            yield self.report(record, f"DiscoverResult has no {SERVER_INFO} in _meta; clients learn the "
                                      "server's name and version there", severity=Severity.WARNING)
            return
        self._note(session, "server", record)

    def _note(self, session, side, record):
        state = session.state_for(self).setdefault(side, [None, 0])
        if state[0] is None:
            state[0] = record
        state[1] += 1

    finish_needs = frozenset({"state"})

    def finish(self, session):
        state = session.kept_state(self)
        if not state:
            return ()  # no request or result without the info was noted
        return self._missing(state)

    def _missing(self, state: dict):
        for side, key, what in (("client", CLIENT_INFO, "request"), ("server", SERVER_INFO, "result")):
            first, count = state.get(side, (None, 0))
            if first is None or (side == "server" and state.get("server-warned")):
                continue
            more = f" ({count - 1} more {what}s of this session too)" if count > 1 else ""
            yield self.report(first, f"{what.capitalize()} _meta has no {key}{more}", party=side)


# -- MD012 -----------------------------------------------------------------------------------
_STATEFUL = re.compile(
    r"(?i)\bnot (yet )?initiali[sz]ed\b|\buninitiali[sz]ed\b|\bbefore initiali[sz]|\binitiali[sz]e (first|required)"
    r"|\b(call|send) (initiali[sz]e|server/discover) first\b|\bserver/discover (first|required|was not called)"
    r"|\bno (active |valid |open )?session\b|\bsession (not found|expired|required|is required|not initiali[sz]ed)"
    r"|\bmissing session\b|\bhandshake (required|not (completed|done))")


@rule
class ReliesOnConnectionState(Rule):
    """Checks for 2026-07-28 servers that refuse a request for want of an earlier one (a handshake, a session)."""

    code, name = "MD012", "relies-on-connection-state"
    severity, level, spec = Severity.WARNING, "MUST NOT", "basic §Statelessness"
    versions = protocol.MODERN
    kinds = frozenset({Kind.ERROR})
    answers = ANSWERED
    party = "server"
    confidence = "low"
    hint = "Serve every request from its own _meta; never require server/discover, initialize or a session first."

    def check(self, record, session):
        if not modern_response(record, session):
            return
        evidence = ModernTracker.of(session).evidence
        message = error_message(record)
        if evidence is None or not _STATEFUL.search(message):
            return  # without evidence, a legacy server is the likelier explanation
        yield self.report(record, f"Server refused {record.request.method!r} with {message.strip()[:80]!r}: a "
                                  "2026-07-28 server must not depend on earlier requests over the connection",
                          related=[(record.request, "request"), (evidence, "a 2026-07-28 response of this server")])

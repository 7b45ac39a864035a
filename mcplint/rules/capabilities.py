"""Capability gating (CAP): use, serve and refuse only what the handshake negotiated.

Capabilities are known only after the handshake (``session.server_caps`` once the initialize
result was seen, ``session.client_caps`` once the initialize request was seen); while a side's
declaration is unknown nothing is judged. The gates (``protocol.GATES``) are those of the
handshake era: in 2026-07-28 capabilities travel per request and these rules stay silent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import (
    NOTIFICATIONS,
    REQUESTS,
    Rule,
    Tracker,
    error_of,
    fmt_id,
    params_of,
    result_of,
    rule,
    set_plan_facts,
    tracker,
)

_NEGOTIATION = "basic/lifecycle §Capability Negotiation"
_OPERATION = "basic/lifecycle §Operation"

SERVER_REQUESTS = frozenset(m for m, g in protocol.GATES.items()
                            if g.side == "server" and m in protocol.REQUEST_METHODS)
CLIENT_REQUESTS = frozenset(m for m, g in protocol.GATES.items()
                            if g.side == "client" and m in protocol.REQUEST_METHODS)
GATED_NOTIFICATIONS = frozenset(m for m in protocol.GATES if m in protocol.NOTIFICATION_METHODS)
_ANSWERED = ("ok", "after-cancel")
_GATES = protocol.GATES


# -- shared helpers ------------------------------------------------------------------------
def gate_for(method: str | None, record: Record) -> protocol.Gate | None:
    """The gate of ``method`` when it applies to the revision in effect for ``record``.

    With an unknown revision only gates valid in every handshake revision are applied.
    """
    gate = protocol.GATES.get(method) if method else None
    if gate is None:
        return None
    version = record.revision
    if version is None:
        return gate if protocol.LEGACY <= gate.versions else None
    return gate if version in gate.versions else None


def known_caps(session, side: str) -> dict | None:
    """One side's declared capabilities, or None while unknown (or not an object: CAP006)."""
    if not session.legacy:
        return None
    caps = session.caps_of(side)
    return caps if isinstance(caps, dict) else None


def closed_gate(method: str | None, record: Record, session, side: str | None = None
                ) -> tuple[protocol.Gate, dict] | None:
    """``(gate, caps)`` when ``method``'s gate applies to ``record`` (:func:`gate_for`) and the known
    capabilities of its side (:func:`known_caps`; ``side``: only a gate of that side) leave it
    closed; else None. Runs on most requests and results, so it is one lookup and a few attribute
    reads when the gate is open."""
    gate = _GATES.get(method)
    if gate is None or (side is not None and gate.side != side) or session.era == "modern":
        return None
    version = record.revision
    if not (protocol.LEGACY <= gate.versions if version is None else version in gate.versions):
        return None
    caps = session.server_caps if gate.side == "server" else session.client_caps
    if not isinstance(caps, dict) or protocol.gate_open(gate, caps):
        return None
    return gate, caps


def declared(gate: protocol.Gate, caps: dict, record: Record) -> bool:
    """Whether ``caps`` open ``gate`` for ``record`` (elicitation modes from 2025-11-25)."""
    if not protocol.gate_open(gate, caps):
        return False
    if record.effective_method == "elicitation/create" and protocol.at_least(record.version,
                                                                              protocol.V2025_11_25):
        request = record if record.kind is Kind.REQUEST else record.request
        mode = params_of(request).get("mode", "form") if request is not None else "form"
        value = caps["elicitation"]
        modes = {m for m in ("form", "url") if isinstance(value, dict) and m in value} or {"form"}
        return mode in modes  # an empty elicitation: {} means form only
    return True


def negotiation_level(version: str | None, always_must: bool = False) -> tuple[Severity, str, str | None]:
    """(severity, level, confidence) of using an undeclared capability in ``version``.

    "Only use capabilities that were successfully negotiated" is SHOULD in 2024-11-05 and
    2025-03-26 and MUST from 2025-06-18; with an unknown revision the weaker reading wins.
    """
    if always_must or protocol.at_least(version, protocol.V2025_06_18):
        return Severity.ERROR, "MUST", None
    if version is None:
        return Severity.WARNING, "SHOULD", "low"
    return Severity.WARNING, "SHOULD", None


def caps_source(session, side: str) -> list[tuple[Record, str]]:
    """The handshake message that carried ``side``'s capabilities, as a related location."""
    source = session.init_response if side == "server" else session.init_request
    return [(source, f"{side} capabilities")] if source is not None else []


def missing_text(gate: protocol.Gate, caps: dict) -> str:
    """Why ``gate`` is closed: the capability is absent, or its flag is not true."""
    if gate.flag is not None and protocol.gate_open(protocol.Gate(gate.side, gate.path), caps):
        return f"declared {'.'.join(gate.path)!r} without {gate.flag}: true"
    return f"did not declare {gate.describe()!r}"


def error_code(record: Record) -> Any:
    error = error_of(record)
    return error.get("code") if isinstance(error, dict) else None


# -- the server's closed gates: a plan fact of CAP001, CAP003 and CAP004 ----------------------
_CLOSED = "closed-gate "  # plan fact "closed-gate <method>": the server's capabilities close the method's gate
_NONE_CLOSED: frozenset[str] = frozenset()
_CLOSED_BY = Bounded(256)  # the server's capabilities as JSON text -> its plan facts: servers declare alike


#: the capabilities object serialized last and its JSON text (a handshake's are serialized for
#: CAP006's clean test and for the closed gates; the reference keeps the object's id unique)
_LAST_TEXT: tuple = (None, b"")


def caps_text(caps: Any) -> bytes:
    """``orjson.dumps(caps)`` (raises TypeError as it does), once for the same object in a row."""
    global _LAST_TEXT
    last = _LAST_TEXT
    if last[0] is caps:
        return last[1]
    text = orjson.dumps(caps)
    _LAST_TEXT = (caps, text)
    return text


def closed_facts(caps: Any) -> frozenset[str]:
    """The plan facts of the server-side gates that the server's ``caps`` close (none while unknown)."""
    if not isinstance(caps, dict):
        return _NONE_CLOSED
    try:
        key = caps_text(caps)
    except TypeError:
        key = None
    facts = _CLOSED_BY.get(key)
    if facts is None:
        facts = frozenset(_CLOSED + method for method, gate in _GATES.items()
                          if gate.side == "server" and not protocol.gate_open(gate, caps))
        if key is not None:
            _CLOSED_BY[key] = facts
    return facts


def close_gates(session) -> None:
    """Make the methods whose gate the server's capabilities close the session's plan facts (after
    a result to initialize or server/discover: :class:`ClosedGates`)."""
    set_plan_facts(session, _CLOSED, closed_facts(session.server_caps))


@tracker
class ClosedGates(Tracker):
    """Keeps the methods whose gate the server's capabilities close as plan facts, so that the rules
    of server-side gates (:class:`GateRule`) run only on records of such a method.

    Why none of their findings is lost: each needs :func:`closed_gate` of the record's (effective)
    method, i.e. a capabilities object of the gate's side that leaves the gate closed. The analyzer
    sets the server's capabilities only when it commits a result matched to an initialize or
    server/discover request (``effective_method`` names these), and the facts are made anew after
    each: here for server/discover, by ``lifecycle.HandshakeVersions`` (:func:`close_gates`) for
    initialize, whose results it commits anyway. (The client's side changes with every 2026-07-28
    request: its gates are not facts.)"""

    kinds = frozenset({Kind.RESULT})
    methods = frozenset({"server/discover"})

    def commit(self, record, session):
        close_gates(session)


class GateRule(Rule):
    """A rule that reports only records of a method whose gate is closed: for a server-side gate,
    only while :class:`ClosedGates` says so."""

    @classmethod
    def awaits(cls, facts, kind, method):
        gate = _GATES.get(method)
        return gate is not None and (gate.side != "server" or _CLOSED + method in facts)


# -- CAP001-CAP003: using an undeclared capability ----------------------------------------
def _use_check(rule_: Rule, record: Record, session, direction: Direction, what: str):
    if record.direction is not direction:
        return ()
    found = closed_gate(record.method, record, session)
    if found is None:
        return ()
    gate, caps = found
    severity, level, confidence = negotiation_level(record.revision,
                                                    always_must=gate.path == ("logging",)
                                                    and record.kind is Kind.NOTIFICATION)
    finding = rule_.report(
        record, f"{record.direction.sender.capitalize()} sent {what} {record.method!r} although "
                f"{'it' if gate.side == record.direction.sender else 'the ' + gate.side} "
                f"{missing_text(gate, caps)}",
        severity=severity, confidence=confidence, related=caps_source(session, gate.side), level=level)
    return [finding]


@rule
class ClientRequestWithoutServerCapability(GateRule):
    """Checks for client requests that need a server capability the server did not declare."""

    code, name = "CAP001", "client-request-without-server-capability"
    severity, level, spec = Severity.ERROR, "MUST", _OPERATION
    versions = protocol.LEGACY
    kinds = REQUESTS
    methods = SERVER_REQUESTS
    hint = "Only call methods of capabilities the server declared in its initialize result."

    def check(self, record, session):
        return _use_check(self, record, session, Direction.C2S, "request")


@rule
class ServerRequestWithoutClientCapability(Rule):
    """Checks for server requests (sampling, roots, elicitation) the client did not declare."""

    code, name = "CAP002", "server-request-without-client-capability"
    severity, level, spec = Severity.ERROR, "MUST", _OPERATION
    versions = protocol.LEGACY
    kinds = REQUESTS
    methods = CLIENT_REQUESTS
    hint = "Send sampling/roots/elicitation requests only to clients that declared the capability."

    def check(self, record, session):
        return _use_check(self, record, session, Direction.S2C, "request")


@rule
class NotificationWithoutCapability(GateRule):
    """Checks for gated notifications (list_changed, resources/updated, log messages) sent undeclared."""

    code, name = "CAP003", "notification-without-capability"
    severity, level, spec = Severity.ERROR, "MUST", _NEGOTIATION
    versions = protocol.LEGACY
    kinds = NOTIFICATIONS
    methods = GATED_NOTIFICATIONS
    hint = "Declare the capability (listChanged/subscribe: true, logging: {}) or do not send the notification."

    def check(self, record, session):
        gate = protocol.GATES[record.method]
        side = Direction.S2C if gate.side == "server" else Direction.C2S
        return _use_check(self, record, session, side, "notification")


# -- CAP004/CAP005: serving an undeclared capability --------------------------------------
def _served_check(rule_: Rule, record: Record, session, side: str):
    request = record.request
    if request is None or record.answer not in _ANSWERED or record.direction is None:
        return ()
    if record.direction.sender != side:
        return ()
    found = closed_gate(request.method, record, session, side)
    if found is None:
        return ()
    gate, caps = found
    flag_only = gate.flag is not None and protocol.gate_open(protocol.Gate(gate.side, gate.path), caps)
    finding = rule_.report(
        record, f"{side.capitalize()} answered {request.method!r} with success although it "
                f"{missing_text(gate, caps)}",
        severity=Severity.WARNING if flag_only else None,
        related=[(request, "request")], level="derived" if flag_only else None)
    return [finding]


@rule
class FeatureServedUndeclared(GateRule):
    """Checks for servers answering a gated method with success without declaring the capability."""

    code, name = "CAP004", "feature-served-undeclared"
    severity, level, spec = Severity.ERROR, "MUST", _NEGOTIATION
    party = "server"
    versions = protocol.LEGACY
    kinds = frozenset({Kind.RESULT})
    methods = SERVER_REQUESTS
    hint = "Declare every capability the server supports in the initialize result."

    def check(self, record, session):
        return _served_check(self, record, session, "server")


@rule
class ClientFeatureServedUndeclared(Rule):
    """Checks for clients answering roots/sampling/elicitation with success without declaring them."""

    code, name = "CAP005", "client-feature-served-undeclared"
    severity, level, spec = Severity.ERROR, "MUST", _NEGOTIATION
    party = "client"
    versions = protocol.LEGACY
    kinds = frozenset({Kind.RESULT})
    methods = CLIENT_REQUESTS
    hint = "Declare roots/sampling/elicitation in the initialize request if the client supports them."

    def check(self, record, session):
        return _served_check(self, record, session, "client")


# -- CAP006: capability shape ---------------------------------------------------------------
_EL = protocol.legacy_since(protocol.V2025_06_18)
_TASKS = frozenset({protocol.V2025_11_25})
_NEW = protocol.since(protocol.V2025_11_25)


@dataclass(frozen=True)
class CapShape:
    """A known capability: an object (or a map of objects), its boolean flags and object members."""

    versions: frozenset[str]
    is_map: bool = False
    flags: tuple[str, ...] = ()
    flag_versions: frozenset[str] = protocol.ALL
    members: tuple[str, ...] = ()
    member_versions: frozenset[str] = protocol.ALL


CAP_SHAPES: dict[str, dict[str, CapShape]] = {
    "server": {
        "experimental": CapShape(protocol.ALL, is_map=True),
        "logging": CapShape(protocol.ALL),
        "completions": CapShape(protocol.since(protocol.V2025_03_26)),
        "prompts": CapShape(protocol.ALL, flags=("listChanged",)),
        "resources": CapShape(protocol.ALL, flags=("listChanged", "subscribe")),
        "tools": CapShape(protocol.ALL, flags=("listChanged",)),
        "tasks": CapShape(_TASKS, members=("list", "cancel", "requests")),
        "extensions": CapShape(protocol.MODERN, is_map=True),
    },
    "client": {
        "experimental": CapShape(protocol.ALL, is_map=True),
        "roots": CapShape(protocol.ALL, flags=("listChanged",), flag_versions=protocol.LEGACY),
        "sampling": CapShape(protocol.ALL, members=("context", "tools"), member_versions=_NEW),
        "elicitation": CapShape(_EL | protocol.MODERN, members=("form", "url"), member_versions=_NEW),
        "tasks": CapShape(_TASKS, members=("list", "cancel", "requests")),
        "extensions": CapShape(protocol.MODERN, is_map=True),
    },
}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "array",
            dict: "object"}.get(type(value), type(value).__name__)


def capability_problems(caps: Any, side: str, version: str | None) -> list[str]:
    """Shape problems of one side's capabilities object; unknown keys are allowed."""
    if not isinstance(caps, dict):
        return [f"capabilities is {_json_type(caps)}, not an object"]
    version = protocol.nearest_known(version)
    problems = []
    for key, shape in CAP_SHAPES[side].items():
        if key not in caps or (version is not None and version not in shape.versions):
            continue
        value = caps[key]
        if not isinstance(value, dict):
            problems.append(f"{key!r} is {_json_type(value)}, not an object"
                            + (" (declare it as {})" if value is True else ""))
            continue
        if shape.is_map:
            problems += [f"{key}.{name!r} is {_json_type(entry)}, not an object"
                         for name, entry in value.items() if not isinstance(entry, dict)]
        if version is None or version in shape.flag_versions:
            problems += [f"{key}.{flag} is {_json_type(value[flag])}, not a boolean"
                         for flag in shape.flags if flag in value and not isinstance(value[flag], bool)]
        if version is None or version in shape.member_versions:
            problems += [f"{key}.{member} is {_json_type(value[member])}, not an object"
                         for member in shape.members if member in value and not isinstance(value[member], dict)]
    return problems


@rule
class CapabilityShape(Rule):
    """Checks that declared capabilities are objects with boolean flags (unknown keys allowed)."""

    code, name = "CAP006", "capability-shape"
    severity, level, spec = Severity.ERROR, "SCHEMA", _NEGOTIATION
    kinds = frozenset({Kind.REQUEST, Kind.RESULT})
    # not called on an initialize request or result whose capabilities it found clean before
    # (lifecycle.plain_initialize, plain_initialize_result: known_clean)
    requires = frozenset({"odd-initialize", "odd-initialize-result"})
    hint = 'Declare each capability as an object: "tools": {"listChanged": true}, "logging": {}.'

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        if kind is Kind.REQUEST:
            return method == "initialize" or modern
        return method in ("initialize", "server/discover")

    def check(self, record, session):
        if record.kind is Kind.REQUEST:
            if record.method == "initialize" and record.direction is Direction.C2S:
                params = params_of(record)
                if "capabilities" in params:
                    return self._judge(record, params["capabilities"], "client",
                                       params.get("protocolVersion"), "initialize request")
            elif session.modern and record.direction is Direction.C2S:
                meta = params_of(record).get("_meta")
                if isinstance(meta, dict) and protocol.CLIENT_CAPABILITIES_META in meta:
                    caps = meta[protocol.CLIENT_CAPABILITIES_META]
                    seen = session.state_for(self).setdefault("seen", set())
                    key = orjson.dumps(caps, option=orjson.OPT_SORT_KEYS)
                    if key not in seen:  # the same declaration repeats on every request
                        seen.add(key)
                        return self._judge(record, caps, "client", record.version, "request _meta")
            return ()
        request = record.request
        if request is None or record.direction is not Direction.S2C:
            return ()
        result = result_of(record)
        if not isinstance(result, dict) or "capabilities" not in result:
            return ()
        if request.method == "initialize":
            return self._judge(record, result["capabilities"], "server", result.get("protocolVersion"),
                               "initialize result")
        if request.method == "server/discover":
            return self._judge(record, result["capabilities"], "server", record.version,
                               "server/discover result")
        return ()

    def _judge(self, record, caps, side, version, where):
        version = version if isinstance(version, str) else None
        try:  # sessions declare the same capabilities verbatim: a clean text is not walked again
            key = (side, version, orjson.dumps(caps))
        except TypeError:
            key = None
        if key in _CLEAN_CAPS:
            return ()
        problems = capability_problems(caps, side, version)
        if problems:
            return [self.report(record, f"Malformed {side} capabilities in the {where}: " + "; ".join(problems))]
        if key is not None:
            if len(_CLEAN_CAPS) >= 1024:
                _CLEAN_CAPS.clear()
            _CLEAN_CAPS.add(key)
        return ()


#: (side, version, capabilities JSON text) that capability_problems() found clean (a pure
#: function of these: problems are never cached, so their order and text stay the walk's)
_CLEAN_CAPS: set[tuple] = set()


def known_clean(caps: Any, side: str, version: Any) -> bool:
    """Whether CAP006 found ``caps`` of ``side`` clean before, declared with the protocolVersion
    ``version`` (so that it would find nothing in them now)."""
    try:
        return (side, version if isinstance(version, str) else None, caps_text(caps)) in _CLEAN_CAPS
    except TypeError:
        return False


# -- CAP007: refusing an undeclared feature -------------------------------------------------
_REFUSAL_SPECS = {
    "roots/list": ("client", "client/roots §Error Handling", protocol.LEGACY),
    "completion/complete": ("server", "server/utilities/completion §Error Handling",
                            protocol.legacy_since(protocol.V2025_03_26)),
}


@rule
class UndeclaredFeatureErrorCode(Rule):
    """Checks that roots/list and completion/complete are refused with -32601 when undeclared."""

    code, name = "CAP007", "undeclared-feature-error-code"
    severity, level, spec = Severity.WARNING, "SHOULD", "client/roots §Error Handling"
    versions = protocol.LEGACY
    kinds = frozenset({Kind.ERROR})
    methods = frozenset(_REFUSAL_SPECS)
    hint = "Refuse a feature you did not declare with -32601 (Method not found)."

    def check(self, record, session):
        request = record.request
        if request is None or record.answer not in _ANSWERED or record.direction is None:
            return
        side, spec, versions = _REFUSAL_SPECS[request.method]
        if record.direction.sender != side or record.revision not in versions:
            return
        gate = protocol.GATES[request.method]
        caps = known_caps(session, side)
        code = error_code(record)
        if caps is None or protocol.gate_open(gate, caps) or type(code) is not int or code == -32601:
            return
        finding = self.report(record, f"{side.capitalize()} refused {request.method!r}, whose capability "
                                      f"{gate.describe()!r} it did not declare, with code {fmt_id(code)} "
                                      "instead of -32601", related=[(request, "request")], spec=spec)
        yield finding


# -- CAP008: declared, then "Method not found" ----------------------------------------------
_ITEM_METHODS = frozenset({"tools/call", "prompts/get", "resources/read", "resources/subscribe",
                           "resources/unsubscribe", "completion/complete"})
_ITEM_WORDS = re.compile(r"(?i)\b(tool|prompt|resource|uri|template|argument|ref)\b")


def about_item(request: Record, message: str) -> bool:
    """Whether an error message talks about the named tool/prompt/resource, not the method."""
    params = params_of(request)
    for key in ("name", "uri"):
        value = params.get(key)
        if isinstance(value, str) and value and value in message:
            return True
    return bool(_ITEM_WORDS.search(message))


@rule
class DeclaredCapabilityMethodNotFound(Rule):
    """Checks for -32601 (Method not found) answers to methods of a capability the receiver declared."""

    code, name = "CAP008", "declared-capability-method-not-found"
    severity, level, spec = Severity.WARNING, "derived", _NEGOTIATION
    versions = protocol.LEGACY
    kinds = frozenset({Kind.ERROR})
    methods = SERVER_REQUESTS | CLIENT_REQUESTS
    hint = "Implement every method of a declared capability, or do not declare the capability."

    def check(self, record, session):
        request = record.request
        if request is None or record.answer != "ok" or record.direction is None:
            return
        if error_code(record) != -32601:
            return
        gate = gate_for(request.method, record)
        side = record.direction.sender
        if gate is None or gate.side != side:
            return
        caps = known_caps(session, side)
        if caps is None or not declared(gate, caps, record):
            return
        error = error_of(record)
        message = str(error.get("message", ""))
        confidence = None
        if request.method in _ITEM_METHODS:
            if about_item(request, message):
                return  # "Unknown tool: x" -- a wrong code for a missing item (TL007), not a missing method
            if "method" not in message.lower() and request.method not in message:
                confidence = "low"
        yield self.report(record, f"{side.capitalize()} declared {gate.describe()!r} but answered "
                                  f"{request.method!r} with -32601 Method not found",
                          confidence=confidence,
                          related=[(request, "request"), *caps_source(session, side)])

"""Lifecycle and version negotiation (LC): the legacy ``initialize`` handshake.

Sessions are cut by the analyzer: a client ``initialize`` in a stream that already carried
messages starts a new session, unless the capture names the session (``session`` key), in
which case a second ``initialize`` stays in the same session (LC010). The analyzer keeps the
handshake facts (``session.phase``, ``init_request``, ``init_response``, ``initialized``);
the rules below only judge them.
"""

from __future__ import annotations

from typing import Any

import orjson

from mcplint import protocol
from mcplint.analysis.analyzer import Phase, SessionKey
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import (
    MESSAGES,
    NOTIFICATIONS,
    REQUESTS,
    Rule,
    Tracker,
    feature,
    fmt_id,
    params_of,
    result_of,
    rule,
    set_plan_facts,
    tracker,
    where,
)
from mcplint.rules.capabilities import close_gates, known_clean

C2S, S2C = Direction.C2S, Direction.S2C
#: the features of a handshake message its rules require (:func:`plain_initialize`, :func:`plain_initialize_result`)
_ODD_INITIALIZE = frozenset({"odd-initialize"})
_ODD_RESULT = frozenset({"odd-initialize-result"})
_INIT = "basic/lifecycle §Initialization"
_NEGOTIATION = "basic/lifecycle §Version Negotiation"
_INITIALIZE = frozenset({"initialize"})
_INITIALIZED = "notifications/initialized"
_HANDSHAKE_DONE = (Phase.INITIALIZED, Phase.OPERATING)
#: file_state key (a SessionKey with the ordinal): an unkeyed session in which, so far, only the server spoke (LC002)
_SERVER_FIRST = "lc002-server-only-session"
#: file_state key: server name -> {version: result record} of initialize answers that echoed (LC011)
_ECHOED = "lc011-echoed-versions"
#: LC007: fewer messages than this after the client's first request -> the capture may be cut short
_FEW = 3


def _client_operation(record: Record) -> bool:
    """A client request that is normal operation (anything but ``ping`` and ``initialize``)."""
    return record.direction is C2S and record.kind is Kind.REQUEST and record.method not in ("ping", "initialize")


def _is_client_initialize(record: Record) -> bool:
    return record.kind is Kind.REQUEST and record.method == "initialize" and record.direction is not S2C


def _handshake_problems(obj: dict[str, Any], info_key: str) -> list[str]:
    """What is missing or mistyped in initialize params / result (``info_key``: clientInfo|serverInfo)."""
    problems = []
    for key, kind, label in (("protocolVersion", str, "a string"), ("capabilities", dict, "an object")):
        if key not in obj:
            problems.append(f"{key} is missing")
        elif not isinstance(obj[key], kind):
            problems.append(f"{key} is not {label}")
    info = obj.get(info_key)
    if info_key not in obj:
        problems.append(f"{info_key} is missing")
    elif not isinstance(info, dict):
        problems.append(f"{info_key} is not an object")
    else:
        for key in ("name", "version"):
            if key not in info:
                problems.append(f"{info_key}.{key} is missing")
            elif not isinstance(info[key], str):
                problems.append(f"{info_key}.{key} is not a string")
    return problems


def _versions(session) -> tuple[Any, Any]:
    """``(requested, answered)`` protocolVersion values of the session's last handshake."""
    requested = params_of(session.init_request).get("protocolVersion") if session.init_request else None
    result = result_of(session.init_response) if session.init_response is not None else None
    answered = result.get("protocolVersion") if isinstance(result, dict) else None
    return requested, answered


def _negotiated(record: Record) -> tuple[str, str, dict] | None:
    """``(requested, answered, versions)`` of a successful initialize result whose request and
    result both name a version (what LC011 judges), ``versions``: the file's record of the versions
    its server echoed (LC011, kept by :class:`HandshakeVersions`); else None."""
    result = result_of(record)
    if record.answer not in ("ok", "after-cancel") or not isinstance(result, dict):
        return None
    requested = params_of(record.request).get("protocolVersion")
    answered = result.get("protocolVersion")
    if not isinstance(requested, str) or not isinstance(answered, str):
        return None
    return requested, answered, _echoed(record.session, result)


def _echoed(session, result: dict) -> dict:
    """The file's record of the versions that the server named by ``result`` echoed (LC011)."""
    info = result.get("serverInfo")
    server = info.get("name") if isinstance(info, dict) and isinstance(info.get("name"), str) else None
    return session.file_state.setdefault(_ECHOED, {}).setdefault(server, {})


def _unsupported(requested: Any, answered: Any) -> str | None:
    """Why the client evidently cannot support the ``answered`` version, if it cannot."""
    if not isinstance(answered, str) or answered == requested:
        return None
    if answered not in protocol.VERSIONS:
        return "which is not a published MCP version"
    if requested in protocol.VERSIONS and answered > requested:
        return f"which is newer than the {requested!r} the client asked for (its latest)"
    return None


@rule
class InitializeNotFirst(Rule):
    """Checks that the client's first message of a session is the initialize request."""

    code, name = "LC001", "initialize-not-first"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _INIT
    party = "client"
    versions = protocol.LEGACY
    kinds = MESSAGES
    phases = frozenset({Phase.NEW})  # the first client message arrives before initialize commits
    hint = "Open every session with an initialize request and send nothing before it."

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return method != "initialize" or kind is not Kind.REQUEST  # a client's is the expected opening

    def check(self, record, session):
        if record.direction is not C2S or session.first_message.get(C2S) is not record or session.modern:
            return
        if _is_client_initialize(record):
            return
        truncated = session.midstream and (session.ordinal == 1 or session.explicit_key)
        if truncated and session.version_given:
            return  # --protocol-version says the capture starts after the handshake
        what = f"{record.method!r}" if record.method else f"a {record.kind.value} (id {fmt_id(record.id)})"
        yield self.report(record, f"First client message of the session is {what}, not an initialize request"
                          + (" (or the capture started mid-session; --protocol-version says so)" if truncated else ""),
                          confidence="low" if truncated else None,
                          severity=Severity.WARNING if truncated else None)


@rule
class ServerSpeaksBeforeInitialize(Rule):
    """Checks for server messages sent before the client's initialize request arrived."""

    code, name = "LC002", "server-speaks-before-initialize"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _INIT
    party = "server"
    versions = protocol.LEGACY
    kinds = MESSAGES
    phases = frozenset({Phase.NEW})
    requires = _ODD_INITIALIZE
    hint = "Stay silent (no logs, no notifications, no requests) until initialize has been received."

    def check(self, record, session):
        if record.direction is S2C:
            if session.init_request is None and C2S not in session.first_message:
                state = session.state_for(self)
                state.setdefault("first", record)
                if record.is_response:
                    state["answers"] = True  # it answers a request the capture missed: truncated
                if not session.explicit_key:  # keyed by ordinal: only the next session looks it up
                    session.file_state[SessionKey(_SERVER_FIRST, session.ordinal)] = session
            return ()
        if not _is_client_initialize(record) or session.first_message.get(C2S) is not record:
            return ()
        early = session
        if "first" not in session.state_for(self) and not session.explicit_key:
            # the analyzer opened a new session for this initialize: look at the one before
            previous = session.file_state.get(SessionKey(_SERVER_FIRST, session.ordinal - 1))
            if previous is not None and C2S not in previous.first_message:
                early = previous
        state = early.state_for(self)
        first = state.get("first")
        if first is not None and not state.get("answers"):
            what = first.method or first.kind.value
            return [self.report(first, f"Server sent {what!r} before the client's initialize request",
                               related=[(record, "initialize")])]
        return ()


@rule
class InitializeParams(Rule):
    """Checks that initialize params carry protocolVersion, capabilities and clientInfo{name,version}."""

    code, name = "LC003", "initialize-params"
    severity, level, spec = Severity.ERROR, "SCHEMA", _INIT
    versions = protocol.LEGACY
    kinds = REQUESTS
    methods = _INITIALIZE
    requires = _ODD_INITIALIZE
    hint = 'Send {"protocolVersion": "<latest>", "capabilities": {...}, "clientInfo": {"name": ..., "version": ...}}.'

    def check(self, record, session):
        if record.direction is S2C:
            return ()
        if "params" not in record.msg:
            return [self.report(record, "initialize request has no params (protocolVersion, capabilities "
                                       "and clientInfo are required)")]
        if not isinstance(record.params, dict):
            return ()  # JR007
        problems = _handshake_problems(record.params, "clientInfo")
        if problems:
            return [self.report(record, "Malformed initialize params: " + "; ".join(problems))]
        return ()


@rule
class InitializeResult(Rule):
    """Checks that an initialize result carries protocolVersion, capabilities and serverInfo{name,version}."""

    code, name = "LC004", "initialize-result"
    severity, level, spec = Severity.ERROR, "MUST", _INIT
    versions = protocol.LEGACY
    kinds = frozenset({Kind.RESULT})
    methods = _INITIALIZE
    requires = _ODD_RESULT
    hint = 'Answer with {"protocolVersion": ..., "capabilities": {...}, "serverInfo": {"name": ..., "version": ...}}.'

    def check(self, record, session):
        result = result_of(record)
        if record.answer not in ("ok", "after-cancel") or not isinstance(result, dict):
            return ()  # duplicates: JR013; non-object result: JR015
        problems = _handshake_problems(result, "serverInfo")
        if problems:
            return [self.report(record, "Malformed initialize result: " + "; ".join(problems),
                               related=[(record.request, "initialize request")])]
        return ()


@rule
class RequestBeforeInitResponse(Rule):
    """Checks for client requests other than ping sent before initialize was answered."""

    code, name = "LC005", "request-before-init-response"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD NOT", _INIT
    versions = protocol.LEGACY
    kinds = REQUESTS
    phases = frozenset({Phase.INITIALIZING})
    hint = "Wait for the initialize response before sending requests (pings excepted)."

    def check(self, record, session):
        if _client_operation(record) and session.phase == Phase.INITIALIZING:
            yield self.report(record, f"Client sent {record.method!r} before the server answered initialize",
                              related=[(session.init_request, "initialize, not yet answered")])


@rule
class ServerRequestBeforeInitialized(Rule):
    """Checks for server requests other than ping sent before notifications/initialized."""

    code, name = "LC006", "server-request-before-initialized"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD NOT", _INIT
    versions = protocol.LEGACY
    kinds = REQUESTS
    phases = frozenset({Phase.INITIALIZING, Phase.INITIALIZED})
    hint = "Send requests (roots/list, sampling, elicitation) only after notifications/initialized arrived."

    def check(self, record, session):
        if record.direction is not S2C or record.method == "ping" or session.initialized is not None:
            return
        if session.phase in (Phase.INITIALIZING, Phase.INITIALIZED):
            yield self.report(record, f"Server sent request {record.method!r} before the client's "
                                      "notifications/initialized",
                              related=[(session.init_request, "initialize")])


@rule
class InitializedMissing(Rule):
    """Checks that a client which continues after a successful initialize sends notifications/initialized."""

    code, name = "LC007", "initialized-missing"
    severity, level, spec = Severity.ERROR, "MUST", _INIT
    party = "client"
    versions = protocol.LEGACY
    kinds = REQUESTS
    phases = frozenset({Phase.INITIALIZED})
    hint = 'Send {"jsonrpc":"2.0","method":"notifications/initialized"} right after the initialize result.'

    def check(self, record, session):
        if _client_operation(record) and session.phase == Phase.INITIALIZED:
            state = session.state_for(self)
            if "first" not in state:
                state["first"], state["at"] = record, session.messages
        return ()

    finish_needs = frozenset({"state"})

    def finish(self, session):
        state = session.state.get(_LC007_STATE)  # (kept_state inline: most sessions have none)
        if state is None or session.phase != Phase.INITIALIZED:
            return ()
        first = state.get("first")
        if first is None:
            return ()
        short = session.messages - state["at"] - 1 < _FEW
        return [self.report(first, f"Client went on with {first.method!r} after a successful initialize but "
                                   "never sent notifications/initialized",
                            confidence="low" if short else None,
                            related=[(session.init_response, "initialize result")])]


_LC007_STATE = InitializedMissing.__name__  # (Session.state_for)


@rule
class InitializedPremature(Rule):
    """Checks for notifications/initialized sent before the initialize result or after an initialize error."""

    code, name = "LC008", "initialized-premature"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _INIT
    versions = protocol.LEGACY
    kinds = NOTIFICATIONS
    methods = frozenset({_INITIALIZED})
    phases = frozenset({Phase.INITIALIZING, Phase.FAILED})  # the two it reports in
    hint = "Send notifications/initialized only after a successful initialize result."

    def check(self, record, session):
        if record.direction is not C2S:
            return ()
        if session.phase == Phase.INITIALIZING:
            return [self.report(record, "notifications/initialized sent before the server answered initialize",
                               related=[(session.init_request, "initialize, not yet answered")])]
        if session.phase == Phase.FAILED:
            return [self.report(record, "notifications/initialized sent although initialize failed",
                               related=[(session.init_response, "initialize error")])]
        return ()


#: plan fact: a client operation came before notifications/initialized (LC009 kept it)
_EARLY_OPERATION = "lc009-early-operation"
_EARLY_FACTS = frozenset({_EARLY_OPERATION})


@rule
class OperationBeforeInitialized(Rule):
    """Checks for client requests sent after the initialize result but before notifications/initialized."""

    code, name = "LC009", "operation-before-initialized"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "derived", _INIT
    versions = protocol.LEGACY
    kinds = frozenset({Kind.REQUEST, Kind.NOTIFICATION})
    phases = frozenset({Phase.INITIALIZED})
    hint = "Send notifications/initialized first; it signals that normal operation may begin."

    @classmethod
    def awaits(cls, facts, kind, method):
        # a notification reports only a client operation that the check kept (making the fact)
        return kind is not Kind.NOTIFICATION or _EARLY_OPERATION in facts

    def check(self, record, session):
        if session.phase != Phase.INITIALIZED:
            return ()
        if _client_operation(record):
            state = session.state_for(self)
            state.setdefault("first", record)
            state["count"] = state.get("count", 0) + 1
            if _EARLY_OPERATION not in session.plan_facts:
                set_plan_facts(session, _EARLY_OPERATION, _EARLY_FACTS)
        elif record.method == _INITIALIZED and record.direction is C2S:
            state = session.state_for(self)
            first = state.pop("first", None)
            if first is not None:
                more = state.pop("count") - 1
                return [self.report(first, f"Client sent {first.method!r}"
                                   + (f" and {more} more request(s)" if more else "")
                                   + " before its notifications/initialized",
                                   related=[(record, "notifications/initialized")])]
        return ()


@rule
class Reinitialize(Rule):
    """Checks for a second initialize request inside one named session."""

    code, name = "LC010", "reinitialize"
    severity, level, spec = Severity.WARNING, "heuristic", _INIT
    confidence = "low"
    versions = protocol.LEGACY
    kinds = REQUESTS
    methods = _INITIALIZE
    requires = _ODD_INITIALIZE
    hint = "Start a new session (new process, or HTTP initialize without a session id) instead."

    def check(self, record, session):
        earlier = session.init_request
        if record.direction is S2C or earlier is None or earlier is record or session.phase == Phase.FAILED:
            return ()  # a retry after a failed initialize is no re-initialization
        return [self.report(record, f"Second initialize in session {session.label} "
                                   f"(the first was {where(earlier, on=True)})",
                           related=[(earlier, "first initialize")])]


@rule
class VersionNotEchoed(Rule):
    """Checks for initialize results whose protocolVersion differs from the requested one."""

    code, name = "LC011", "version-not-echoed"
    severity, level, spec = Severity.INFO, "MUST", _NEGOTIATION
    party = "server"
    versions = protocol.LEGACY
    kinds = frozenset({Kind.RESULT})
    methods = _INITIALIZE
    requires = _ODD_RESULT  # not called where the version was echoed (HandshakeVersions keeps those)
    hint = "Answer with the requested version whenever you support it."

    def check(self, record, session):
        negotiated = _negotiated(record)
        if negotiated is None:
            return ()  # LC003 / LC004
        requested, answered, echoed = negotiated
        if answered == requested:
            return ()
        before = echoed.get(requested)
        if before is not None:
            return [self.report(record, f"Server answered protocolVersion {answered!r} to a request for "
                                       f"{requested!r}, although it accepted {requested!r} {where(before, on=True)}",
                               severity=Severity.WARNING, confidence="low",
                               related=[(before, f"the same server echoed {requested!r}")])]
        return [self.report(record, f"Server answered protocolVersion {answered!r} to a request for "
                                   f"{requested!r}")]


_UNSUPPORTED = "unsupported-version"  # plan fact: the handshake's answered version is one the client cannot support
_YES, _NO = frozenset({_UNSUPPORTED}), frozenset()


@tracker
class HandshakeVersions(Tracker):
    """Keeps "the server chose a version the client cannot support" as a plan fact (LC012 waits
    for it), and the versions each server of the file echoed (LC011 reads them; it is not called
    where the version was echoed: :func:`plain_initialize_result`). It also makes the plan facts
    of the gates the server's capabilities close (``capabilities.ClosedGates``, one commit for both).

    The verdict depends on ``session.init_request`` and ``init_response`` only, and LC012 runs in
    the phases after a successful handshake only: the analyzer enters them when it commits a result
    to initialize, after which the fact is made anew, and leaves them when either changes again
    (a new initialize request, an error to initialize)."""

    kinds = frozenset({Kind.RESULT})
    methods = _INITIALIZE

    def commit(self, record, session):
        unsupported = _unsupported(*_versions(session)) is not None
        try:  # the closed gates are a function of the server's capabilities' text (closed_facts)
            key = (session.plan_facts, unsupported, orjson.dumps(session.server_caps))
        except TypeError:
            key = None
        facts = _AFTER_HANDSHAKE.get(key)
        if facts is None:
            set_plan_facts(session, _UNSUPPORTED, _YES if unsupported else _NO)
            close_gates(session)
            if key is not None:
                if len(_AFTER_HANDSHAKE) > 4096:
                    _AFTER_HANDSHAKE.clear()
                _AFTER_HANDSHAKE[key] = session.plan_facts
        else:
            session.plan_facts = facts
        legacy = _LEGACY_ERA.get((record.revision, session.modern))
        if legacy is None:
            known = protocol.nearest_known(record.revision, session.modern)  # (Engine.applies of LC011)
            legacy = _LEGACY_ERA[record.revision, session.modern] = \
                known in protocol.LEGACY if known is not None else not session.modern
        if not legacy:
            return
        negotiated = _negotiated(record)
        if negotiated is not None and negotiated[0] == negotiated[1]:
            negotiated[2].setdefault(negotiated[0], record)  # the first result that echoed it


#: (plan facts, whether the server chose a version the client cannot support, the JSON text of
#: its capabilities) -> the session's plan facts after the handshake: what set_plan_facts makes
#: of both families, once per combination (sessions repeat their handshake)
_AFTER_HANDSHAKE: dict[tuple | None, frozenset[str]] = {}
#: (revision, modern) -> whether LC011 covers it (Engine.applies)
_LEGACY_ERA: dict[tuple, bool] = {}


@rule
class ClientContinuesOnUnsupportedVersion(Rule):
    """Checks for clients that keep operating after the server chose a version they cannot support."""

    code, name = "LC012", "client-continues-on-unsupported-version"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD", _NEGOTIATION
    confidence = "low"
    party = "client"
    # The session's version is the (possibly unknown) answered one, e.g. "latest", which the
    # engine may map to the stateless revision; so apply everywhere and require a handshake.
    versions = protocol.ALL
    kinds = REQUESTS
    phases = frozenset(_HANDSHAKE_DONE)
    hint = "Disconnect when the server answers a protocol version you do not support."

    @classmethod
    def awaits(cls, facts, kind, method):
        return _UNSUPPORTED in facts  # HandshakeVersions: the verdict below, made after each handshake

    def check(self, record, session):
        if not _client_operation(record) or session.phase not in _HANDSHAKE_DONE:
            return ()
        state = session.state_for(self)
        requested, answered = _versions(session)
        why = _unsupported(requested, answered)
        if why is None or state.get("reported"):
            return ()
        state["reported"] = True
        return [self.report(record, f"Client kept sending requests ({record.method!r}) although the server "
                                    f"chose protocolVersion {answered!r}, {why}",
                            related=[(session.init_response, "initialize result")])]


@rule
class InitializeInBatch(Rule):
    """Checks for initialize requests sent inside a JSON-RPC batch."""

    code, name = "LC013", "initialize-in-batch"
    severity, level, spec = Severity.ERROR, "MUST NOT", _INIT
    versions = protocol.LEGACY
    kinds = REQUESTS
    methods = _INITIALIZE
    requires = _ODD_INITIALIZE
    hint = "Send initialize on its own, never as an element of a batch array."

    def check(self, record, session):
        if record.parent is not None and record.direction is not S2C:
            return [self.report(record, "initialize request sent inside a JSON-RPC batch")]
        return ()


@rule
class InitializeCancelled(Rule):
    """Checks for a client cancelling its own initialize request."""

    code, name = "LC014", "initialize-cancelled"
    severity, level, spec = Severity.ERROR, "MUST NOT", "basic/utilities/cancellation §Behavior Requirements"
    versions = protocol.LEGACY
    kinds = NOTIFICATIONS
    methods = frozenset({"notifications/cancelled"})
    hint = "Never cancel initialize; close the connection if the server does not answer."

    def check(self, record, session):
        if record.direction is not C2S:
            return
        request_id = params_of(record).get("requestId")
        entry = session.find_request(C2S, request_id)
        if entry is not None and entry.record.method == "initialize":
            yield self.report(record, f"Client cancelled its initialize request (id {fmt_id(request_id)})",
                              related=[(entry.record, "initialize")])


@rule
class OperationAfterInitError(Rule):
    """Checks for client requests sent on a session whose initialize failed."""

    code, name = "LC015", "operation-after-init-error"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "derived", "basic/lifecycle §Error Handling"
    confidence = "low"
    versions = protocol.LEGACY
    kinds = REQUESTS
    phases = frozenset({Phase.FAILED})
    hint = "After an initialize error, retry initialize (e.g. with a supported version) or disconnect."

    def check(self, record, session):
        if not _client_operation(record) or session.phase != Phase.FAILED:
            return
        state = session.state_for(self)
        if not state.get("reported"):
            state["reported"] = True
            yield self.report(record, f"Client sent {record.method!r} although initialize failed",
                              related=[(session.init_response, "initialize error")])


# -- the handshake messages, judged once for all their rules ------------------------------------
def _well_formed(obj: dict[str, Any], info_key: str) -> bool:
    """Whether :func:`_handshake_problems` finds nothing in ``obj``."""
    info = obj.get(info_key)
    return isinstance(obj.get("protocolVersion"), str) and isinstance(obj.get("capabilities"), dict) \
        and isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)


#: exact JSON texts of initialize params (results) that _well_formed found well-formed and whose
#: capabilities CAP006 had found clean (known_clean): sessions repeat their handshake verbatim, and
#: both verdicts are functions of the text (CAP006's never changes once made)
_PLAIN_PARAMS: set[bytes] = set()
_PLAIN_RESULTS: set[bytes] = set()


def _plain(obj: dict[str, Any], info_key: str, side: str, known: set[bytes]) -> bool:
    """``_well_formed(obj, info_key)`` and ``known_clean`` of its capabilities (``side``'s),
    remembered in ``known`` per text of ``obj``."""
    try:
        text = orjson.dumps(obj)
    except TypeError:
        text = None
    if text in known:
        return True
    if not _well_formed(obj, info_key) or not known_clean(obj["capabilities"], side, obj["protocolVersion"]):
        return False
    if text is not None:
        if len(known) >= 1024:
            known.clear()
        known.add(text)
    return True


_LC002_STATE = ServerSpeaksBeforeInitialize.__name__  # (Session.state_for)


@feature("odd-initialize", Kind.REQUEST, "initialize")
def plain_initialize(record: Record) -> bool:
    """A client's initialize request that none of LC002, LC003, LC010, LC013 and CAP006 (which
    require the feature "odd-initialize") can report, by their tests: no server message came
    before it in this session or, unless the capture names sessions, in the one before (LC002);
    well-formed params, or none that are an object (LC003: JR007's); no earlier initialize in the
    session, or one that failed (LC010); not in a batch (LC013); capabilities that CAP006 found
    clean before, or none (CAP006). Any other sender is left to the rules (LC002 keeps a server's)."""
    session = record.session
    if record.direction is not C2S or record.parent is not None:
        return False
    earlier = session.init_request
    if earlier is not None and earlier is not record and session.phase != Phase.FAILED:
        return False
    if session.first_message.get(C2S) is record:
        state = session.state.get(_LC002_STATE)
        if state is not None and "first" in state or not session.explicit_key \
                and SessionKey(_SERVER_FIRST, session.ordinal - 1) in session.file_state:
            return False
    msg = record.msg
    if "params" not in msg:
        return False
    params = record.params
    return not isinstance(params, dict) or _plain(params, "clientInfo", "client", _PLAIN_PARAMS)


@feature("odd-initialize-result", Kind.RESULT, "initialize")
def plain_initialize_result(record: Record) -> bool:
    """A server's result to initialize that none of LC004, LC011 and CAP006 (which require the
    feature "odd-initialize-result") can report, by their tests: a well-formed result (LC004); the
    requested version echoed (LC011: :class:`HandshakeVersions` notes it, as LC011 did); capabilities
    that CAP006 found clean before (CAP006). Any other sender is left to the rules."""
    msg, request = record.msg, record.request
    result = msg.get("result")
    if record.direction is not S2C or not isinstance(result, dict) or request is None:
        return False
    return _plain(result, "serverInfo", "server", _PLAIN_RESULTS) \
        and params_of(request).get("protocolVersion") == result["protocolVersion"]

"""Multi round-trip requests (MR), 2026-07-28: ``InputRequiredResult``, retries with
``inputResponses`` and ``requestState`` (spec basic/patterns/mrtr).

:class:`MrtrTracker` follows each *logical call*: a request answered with an
``InputRequiredResult`` opens an :class:`Issue`; a later client request that echoes its
``requestState`` (or, without one, the same method and target with ``inputResponses``) is its
retry. Rules read the link of a request (:func:`link_of`) and the issue it points to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded
from mcplint.model import Direction, Kind, Record, Severity, id_key
from mcplint.rules._base import REQUESTS, Rule, Tracker, fmt_id, params_of, result_of, rule, tracker
from mcplint.rules.modern import ANSWERED, ModernTracker, modern_response, request_caps

C2S, S2C = Direction.C2S, Direction.S2C
MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
#: the server-to-client requests an InputRequiredResult may embed, with the client capability each needs
INPUT_METHODS = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
#: request members that are not the "original params" of a retry
RETRY_MEMBERS = frozenset({"_meta", "inputResponses", "requestState"})

_MRTR = "basic/patterns/mrtr"
_SERVER = f"{_MRTR} §Server Requirements (Basic Workflow)"
_CLIENT = f"{_MRTR} §Client Requirements (Basic Workflow)"


# -- shared helpers --------------------------------------------------------------------------
def is_input_required(record: Record) -> bool:
    result = result_of(record) if record.kind is Kind.RESULT else None
    return isinstance(result, dict) and result.get("resultType") == "input_required"


def target_of(request: Record) -> Any:
    """What a request acts on: the tool/prompt name or the resource URI."""
    params = params_of(request)
    return params.get("uri") if request.method == "resources/read" else params.get("name")


def key_of(record: Record) -> int:
    """A request's or result's identity in the MRTR tables (ids may be reused once answered)."""
    return record.seq


def _short(value: Any, limit: int = 40) -> str:
    text = fmt_id(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


@dataclass(slots=True, eq=False)
class Issue:
    """One InputRequiredResult and what became of it."""

    result: Record  # the InputRequiredResult
    request: Record  # the request it answered
    state: str | None  # its requestState
    inputs: dict  # its inputRequests (valid map or empty)
    chain: tuple[Record, ...]  # the requests of the logical call, first to ``request``
    retries: list[Record] = field(default_factory=list)
    outcomes: dict = field(default_factory=dict)  # retry key -> pending/complete/input_required/error/cancelled

    @property
    def round(self) -> int:
        """How many input_required rounds the logical call has had so far (1 for the first)."""
        return len(self.chain)

    def consumed(self) -> Record | None:
        """The retry that used this issue up (an answered or pending one; failed retries may be repeated)."""
        for retry in self.retries:
            if self.outcomes.get(key_of(retry)) not in ("error", "cancelled"):
                return retry
        return None


@dataclass(slots=True, eq=False)
class Link:
    """How a request carrying ``requestState``/``inputResponses`` relates to the issues seen."""

    kind: str  # retry | other-method | reused | foreign | unsolicited
    issue: Issue | None = None
    state_ok: bool = True  # requestState echoed exactly (or rightly absent)
    prior: Record | None = None  # reused: the retry that already used the issue


@dataclass(slots=True, eq=False)
class MrtrFacts:
    by_state: Bounded = field(default_factory=lambda: Bounded(10_000))  # requestState -> [Issue, ...]
    issues: Bounded = field(default_factory=lambda: Bounded(1_000))  # result key -> Issue, oldest first
    retry_of: Bounded = field(default_factory=lambda: Bounded(10_000))  # retry request key -> Issue
    cache: tuple | None = None  # (record, link) of the request being judged


def original_params(params: dict) -> dict:
    """A request's params without the members a retry adds or may renew."""
    return {k: v for k, v in params.items() if k not in RETRY_MEMBERS}


def _best(issues: list[Issue], record: Record, params: dict) -> Issue:
    """The issue ``record`` most likely retries: same target, exactly its input keys answered (for
    an issue without inputRequests: no ``inputResponses`` member at all, as a member, even empty,
    answers a result that asked for input), same params; the oldest wins a tie, as a client retries
    the calls in the order their InputRequiredResults came (parallel calls of one tool, or a server
    handing out one requestState value to several calls, stay apart: each issue is used once)."""
    responses = params.get("inputResponses")
    keys = set(responses) if isinstance(responses, dict) else set()
    answers = "inputResponses" in params
    target, core = target_of(record), original_params(params)

    def score(issue: Issue) -> tuple:
        inputs = set(issue.inputs)
        return (target_of(issue.request) == target, inputs == keys and (bool(inputs) or not answers),
                bool(inputs) and inputs <= keys, bool(inputs & keys),
                original_params(params_of(issue.request)) == core)

    best = issues[0]
    for issue in issues[1:]:
        if score(issue) > score(best):
            best = issue
    return best


def _link(record: Record, facts: MrtrFacts) -> Link | None:
    params = params_of(record)
    has_state, has_responses = "requestState" in params, "inputResponses" in params
    if not (has_state or has_responses):
        return None
    state = params.get("requestState")
    issued = facts.by_state.get(state) if isinstance(state, str) else None
    if issued:
        same = [issue for issue in issued if issue.request.method == record.method]
        if not same:
            return Link("other-method", issued[-1])
        fresh = [issue for issue in same if issue.consumed() is None]
        if not fresh:
            return Link("reused", same[-1], prior=same[-1].consumed())
        return Link("retry", _best(fresh, record, params))
    target = target_of(record)
    open_ = [issue for issue in facts.issues.values() if issue.request.method == record.method
             and target_of(issue.request) == target and issue.consumed() is None]
    if open_:
        issue = _best(open_, record, params)
        return Link("retry", issue, state_ok=not has_state and issue.state is None)
    responses = params.get("inputResponses")
    if isinstance(responses, dict) and responses:
        for issue in reversed(facts.issues.values()):
            if issue.consumed() is None and set(responses) & set(issue.inputs):
                return Link("foreign", issue)
    return Link("unsolicited")


def link_of(record: Record, session) -> Link | None:
    """The link of a client request (computed once, shared by the rules and the tracker)."""
    facts = MrtrTracker.of(session)
    if facts.cache is not None and facts.cache[0] is record:
        return facts.cache[1]
    link = _link(record, facts)
    facts.cache = (record, link)
    return link


def retry_link(record: Record, session) -> Link | None:
    """The link of a client request in a 2026-07-28 session when it retries an issue."""
    if not session.modern or record.direction is not C2S:
        return None
    link = link_of(record, session)
    return link if link is not None and link.kind == "retry" else None


@tracker
class MrtrTracker(Tracker):
    """InputRequiredResults issued (by requestState) and the retries that answered them."""

    kinds = frozenset({Kind.REQUEST, Kind.RESULT, Kind.ERROR, Kind.NOTIFICATION})
    facts = MrtrFacts

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return modern

    def commit(self, record, session):
        facts = self.of(session)
        kind = record.kind
        if kind is Kind.NOTIFICATION:
            if record.method == "notifications/cancelled" and record.direction is C2S:
                entry = session.find_request(C2S, params_of(record).get("requestId"))
                if entry is not None and key_of(entry.record) in facts.retry_of:
                    facts.retry_of[key_of(entry.record)].outcomes[key_of(entry.record)] = "cancelled"
            return
        if kind is Kind.REQUEST:
            if record.direction is C2S:
                link = link_of(record, session)
                if link is not None and link.kind == "retry":
                    link.issue.retries.append(record)
                    link.issue.outcomes[key_of(record)] = "pending"
                    facts.retry_of[key_of(record)] = link.issue
            facts.cache = None
            return
        if record.direction is not S2C or record.request is None or record.answer not in ANSWERED:
            return
        request = record.request
        parent = facts.retry_of.get(key_of(request))
        outcome = ("error" if kind is Kind.ERROR else
                   "input_required" if is_input_required(record) else "complete")
        if parent is not None:
            parent.outcomes[key_of(request)] = outcome
        if outcome != "input_required":
            return
        result = result_of(record)
        state = result.get("requestState")
        inputs = result.get("inputRequests")
        issue = Issue(record, request, state if isinstance(state, str) else None,
                      inputs if isinstance(inputs, dict) else {},
                      (parent.chain if parent is not None else ()) + (request,))
        if issue.state is not None:
            issued = facts.by_state.get(issue.state) or []
            facts.by_state[issue.state] = [*issued[-15:], issue]  # a server may reuse one value
        facts.issues[key_of(record)] = issue


class InputRequiredRule(Rule):
    """Base of the rules that judge an InputRequiredResult of a 2026-07-28 server."""

    versions = protocol.MODERN
    kinds = frozenset({Kind.RESULT})
    answers = ANSWERED
    party = "server"

    def check(self, record, session):
        if modern_response(record, session) and is_input_required(record):
            yield from self.judge(record, result_of(record), session)

    def judge(self, record, result, session):
        return ()


class RetryRule(Rule):
    """Base of the rules that judge a client request carrying inputResponses/requestState."""

    versions = protocol.MODERN
    kinds = REQUESTS
    party = "client"


# -- MR001-MR004: the InputRequiredResult ------------------------------------------------------
@rule
class InputRequiredOnUnsupportedMethod(InputRequiredRule):
    """Checks for InputRequiredResults on requests other than tools/call, prompts/get and resources/read."""

    code, name = "MR001", "input-required-on-unsupported-method"
    severity, level, spec = Severity.ERROR, "MUST NOT", f"{_MRTR} §Supported Requests"
    hint = "Only tools/call, prompts/get and resources/read may answer input_required; finish or fail other requests."

    def judge(self, record, result, session):
        method = record.request.method
        if method not in MRTR_METHODS:
            yield self.report(record, f"{method!r} was answered with an InputRequiredResult; only tools/call, "
                                      "prompts/get and resources/read may be", related=[(record.request, "request")])


@rule
class InputRequiredEmpty(InputRequiredRule):
    """Checks that an InputRequiredResult carries ``inputRequests`` or ``requestState``."""

    code, name = "MR002", "input-required-empty"
    severity, level, spec = Severity.ERROR, "MUST", _SERVER
    hint = "Include the inputRequests the client must fulfil, a requestState to echo, or both."

    def judge(self, record, result, session):
        if "requestState" in result:
            return
        inputs = result.get("inputRequests")
        if "inputRequests" not in result:
            yield self.report(record, "InputRequiredResult has neither inputRequests nor requestState")
        elif inputs == {}:
            yield self.report(record, "InputRequiredResult has an empty inputRequests map and no requestState: "
                                      "it asks for nothing", severity=Severity.WARNING)


def input_request_problems(key: str, value: Any) -> list[str]:
    """Why one inputRequests entry is not an ElicitRequest, CreateMessageRequest or ListRootsRequest."""
    if not isinstance(value, dict):
        return [f"{key!r} is not an object"]
    method = value.get("method")
    if not isinstance(method, str) or method not in INPUT_METHODS:
        shown = "has no method" if "method" not in value else f"has method {_short(method)}"
        return [f"{key!r} {shown} (must be elicitation/create, sampling/createMessage or roots/list)"]
    problems = []
    if "params" not in value and method != "roots/list":
        problems.append(f"{key!r} ({method}) has no params")
    elif "params" in value and not isinstance(value["params"], dict):
        problems.append(f"{key!r} ({method}) params is not an object")
    return problems


@rule
class InputRequestType(InputRequiredRule):
    """Checks that each ``inputRequests`` value is an elicitation, sampling or roots request object."""

    code, name = "MR003", "input-request-type"
    severity, level, spec = Severity.ERROR, "MUST", _SERVER
    hint = ('Each inputRequests value is {"method": "elicitation/create" | "sampling/createMessage" | '
            '"roots/list", "params": {...}} without jsonrpc or id.')

    def judge(self, record, result, session):
        if "inputRequests" not in result:
            return
        inputs = result["inputRequests"]
        if not isinstance(inputs, dict):
            yield self.report(record, f"inputRequests is {_short(inputs)}, not an object mapping keys to requests")
            return
        problems = [p for key, value in inputs.items() for p in input_request_problems(key, value)]
        if problems:
            yield self.report(record, "Invalid input requests: " + "; ".join(problems))
        envelope = [key for key, value in inputs.items()
                    if isinstance(value, dict) and ("jsonrpc" in value or "id" in value)]
        if envelope:
            yield self.report(record, f"Input request{'s' if len(envelope) > 1 else ''} "
                                      f"{', '.join(map(repr, envelope))} carr{'y' if len(envelope) > 1 else 'ies'} "
                                      "a JSON-RPC envelope (jsonrpc/id); embedded requests are bare "
                                      "{method, params} objects", severity=Severity.WARNING, level="derived")


def capability_gap(method: str, params: Any, caps: dict) -> str | None:
    """Why ``caps`` do not cover the input request, or None when they do (the capability itself;
    for sampling also ``sampling.tools`` when tools are offered)."""
    params = params if isinstance(params, dict) else {}
    need = INPUT_METHODS[method]
    if need not in caps or caps[need] is None:
        return f"{method} needs the {need!r} capability"
    declared = caps[need] if isinstance(caps[need], dict) else {}
    # an elicitation mode the client did not declare (elicitation.url) is EL001's
    if method == "sampling/createMessage" and ("tools" in params or "toolChoice" in params) \
            and "tools" not in declared:
        return "sampling with tools needs sampling.tools"
    return None


@rule
class InputRequestUndeclaredCapability(InputRequiredRule):
    """Checks for input requests that the answered request's ``clientCapabilities`` do not allow."""

    code, name = "MR004", "input-request-undeclared-capability"
    severity, level, spec = Severity.ERROR, "MUST NOT", _SERVER
    hint = ("Ask only for what this request's clientCapabilities declare; otherwise return -32021 "
            "(MissingRequiredClientCapability).")

    def judge(self, record, result, session):
        inputs = result.get("inputRequests")
        caps = request_caps(record.request)
        if not isinstance(inputs, dict) or caps is None:
            return  # malformed map (MR003) or no capabilities at all (MD001)
        gaps, related = [], [(record.request, "request and its clientCapabilities")]
        declared = ModernTracker.of(session).declared
        for key, value in inputs.items():
            if not isinstance(value, dict) or not isinstance(value.get("method"), str) \
                    or value["method"] not in INPUT_METHODS:
                continue
            gap = capability_gap(value["method"], value.get("params"), caps)
            if gap is None:
                continue
            gaps.append(f"{key!r}: {gap}")
            earlier = declared.get(INPUT_METHODS[value["method"]])
            if earlier is not None and earlier is not record.request and all(r is not earlier for r, _ in related):
                related.append((earlier, "an earlier request declared it; capabilities are per request"))
        if gaps:
            yield self.report(record, "InputRequiredResult asks for input the request's clientCapabilities do "
                                      f"not declare: {'; '.join(gaps)}", related=related)


# -- MR005-MR010: the client's retry -------------------------------------------------------------
@rule
class RetryReusesId(RetryRule):
    """Checks that a retry after input_required uses a new JSON-RPC id."""

    code, name = "MR005", "retry-reuses-id"
    severity, level, spec = Severity.ERROR, "MUST", _CLIENT
    hint = "Give every retry a fresh id: the retry is a new, independent request."

    def check(self, record, session):
        link = retry_link(record, session)
        if link is None or type(record.id) not in (int, str):
            return
        mine = id_key(record.id)
        for earlier in link.issue.chain:
            if id_key(earlier.id) == mine:
                yield self.report(record, f"Retry of {record.method!r} reuses id {fmt_id(record.id)} of the "
                                          "request it retries", related=[(earlier, "earlier request with this id"),
                                                                         (link.issue.result, "InputRequiredResult")])
                return


@rule
class RequestStateNotEchoed(RetryRule):
    """Checks that a retry echoes the exact ``requestState`` it was given, and none when none was given."""

    code, name = "MR006", "request-state-not-echoed"
    severity, level, spec = Severity.ERROR, "MUST", _CLIENT
    hint = "Send back the requestState of the InputRequiredResult byte for byte; send none if it had none."

    def check(self, record, session):
        link = retry_link(record, session)
        if link is None or link.state_ok:
            return
        issue, params = link.issue, params_of(record)
        if issue.state is None:
            why = "carries a requestState although the InputRequiredResult had none"
        elif "requestState" not in params:
            why = "omits the requestState of the InputRequiredResult"
        else:
            why = (f"changed the requestState ({_short(issue.state)} was issued, "
                   f"{_short(params['requestState'])} came back)")
        responses = params.get("inputResponses")
        unsure = bool(issue.inputs) and not (isinstance(responses, dict) and set(responses) & set(issue.inputs))
        yield self.report(record, f"Retry of {record.method!r} {why}", confidence="low" if unsure else None,
                          related=[(issue.result, "InputRequiredResult")])


def response_problem(method: str, value: Any) -> str | None:
    """Why an inputResponses value is not the result type of its input request."""
    if not isinstance(value, dict):
        return "is not an object"
    if method == "elicitation/create":
        if value.get("action") not in ("accept", "decline", "cancel"):
            return "is no ElicitResult (action must be accept, decline or cancel)"
    elif method == "sampling/createMessage":
        missing = [m for m in ("role", "content", "model") if m not in value]
        if missing:
            return f"is no CreateMessageResult (no {', '.join(missing)})"
    elif method == "roots/list" and not isinstance(value.get("roots"), list):
        return "is no ListRootsResult (no roots array)"
    return None


@rule
class InputResponsesIncomplete(RetryRule):
    """Checks that a retry answers every input request with a result of the matching type."""

    code, name = "MR007", "input-responses-incomplete"
    severity, level, spec = Severity.ERROR, "MUST", _CLIENT
    kinds = frozenset({Kind.REQUEST, Kind.ERROR})
    hint = ("Fulfil every inputRequests entry and send its result under the same key in inputResponses "
            "(a declined elicitation is {\"action\": \"decline\"}).")

    def check(self, record, session):
        if record.kind is Kind.ERROR:
            yield from self._server_side(record, session)
            return
        link = retry_link(record, session)
        if link is None or not link.issue.inputs:
            return
        problems = self._problems(link.issue.inputs, params_of(record))
        if problems:
            session.state_for(self).setdefault("incomplete", Bounded(10_000))[key_of(record)] = True
            yield self.report(record, f"Retry of {record.method!r} does not answer the input requests: "
                                      + "; ".join(problems), related=[(link.issue.result, "InputRequiredResult")])

    @staticmethod
    def _problems(inputs: dict, params: dict) -> list[str]:
        if "inputResponses" not in params:
            return [f"no inputResponses (asked for {', '.join(map(repr, inputs))})"]
        responses = params["inputResponses"]
        if not isinstance(responses, dict):
            return [f"inputResponses is {_short(responses)}, not an object"]
        problems = [f"{key!r} is missing" for key in inputs if key not in responses]
        for key, request in inputs.items():
            method = request.get("method") if isinstance(request, dict) else None
            if key in responses and method in INPUT_METHODS:
                problem = response_problem(method, responses[key])
                if problem:
                    problems.append(f"{key!r} {problem}")
        return problems

    def _server_side(self, record, session):
        incomplete = session.state_for(self).get("incomplete")
        if not incomplete or not modern_response(record, session) or key_of(record.request) not in incomplete:
            return
        yield self.report(record, "Server answered an incomplete retry with an error; it should ask for the "
                                  "missing input again with a new InputRequiredResult",
                          severity=Severity.INFO, level="SHOULD", party="server", spec=f"{_MRTR} §Error Handling",
                          related=[(record.request, "incomplete retry")],
                          hint="Return a new InputRequiredResult for the input that is still missing.")


@rule
class InputResponsesMisused(RetryRule):
    """Checks for ``requestState``/``inputResponses`` of one InputRequiredResult used on another request."""

    code, name = "MR008", "input-responses-misused"
    severity, level, spec = Severity.WARNING, "MUST NOT", _CLIENT
    confidence = "low"
    hint = "Use inputResponses and requestState only on the one retry of the request that received them."

    def check(self, record, session):
        if not session.modern or record.direction is not C2S:
            return
        link = link_of(record, session)
        if link is None or link.kind not in ("other-method", "reused", "foreign"):
            return
        issue = link.issue
        related = [(issue.result, "InputRequiredResult"), (issue.request, "the request it answered")]
        if link.kind == "other-method":
            yield self.report(record, f"{record.method!r} carries the requestState issued for "
                                      f"{issue.request.method!r}", severity=Severity.ERROR, confidence="high",
                              related=related)
        elif link.kind == "reused":
            state = "still pending" if issue.outcomes.get(key_of(link.prior)) == "pending" else "already answered"
            yield self.report(record, f"requestState was already used by request {fmt_id(link.prior.id)} "
                                      f"({state}); it belongs to a single retry",
                              related=[*related, (link.prior, "first retry")])
        else:
            shared = sorted(set(params_of(record).get("inputResponses", {})) & set(issue.inputs))
            yield self.report(record, f"{record.method!r} carries inputResponses ({', '.join(map(repr, shared))}) "
                                      f"asked for by the InputRequiredResult of {issue.request.method!r} "
                                      f"{_short(target_of(issue.request))}", related=related)


@rule
class RetryParamsChanged(RetryRule):
    """Checks for retries whose params differ from the original request's (beyond the MRTR fields)."""

    code, name = "MR009", "retry-params-changed"
    severity, level, spec = Severity.INFO, "derived", _CLIENT
    confidence = "low"
    hint = "Retry the original request unchanged, adding only inputResponses and requestState."

    def check(self, record, session):
        link = retry_link(record, session)
        if link is None:
            return
        mine, original = original_params(params_of(record)), original_params(params_of(link.issue.request))
        changed = sorted(k for k in set(mine) | set(original) if mine.get(k, ...) != original.get(k, ...))
        if changed:
            yield self.report(record, f"Retry of {record.method!r} changed {', '.join(changed)} relative to the "
                                      "request that received input_required",
                              related=[(link.issue.request, "original request"),
                                       (link.issue.result, "InputRequiredResult")])


@rule
class InputResponsesUnsolicited(RetryRule):
    """Checks for ``inputResponses``/``requestState`` that no InputRequiredResult in the capture asked for."""

    code, name = "MR010", "input-responses-unsolicited"
    severity, level, spec = Severity.INFO, "heuristic", _CLIENT
    confidence = "low"
    hint = "Send inputResponses and requestState only when retrying after an InputRequiredResult."

    def check(self, record, session):
        if not session.modern or record.direction is not C2S:
            return
        link = link_of(record, session)
        if link is not None and link.kind == "unsolicited":
            members = [m for m in ("inputResponses", "requestState") if m in params_of(record)]
            yield self.report(record, f"{record.method!r} carries {' and '.join(members)} that no "
                                      "InputRequiredResult in the capture asked for")

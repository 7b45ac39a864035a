"""Sampling (SM): ``sampling/createMessage`` requests of servers and the clients' answers.

Up to 2025-11-25 sampling is a server→client JSON-RPC request; in 2026-07-28 it only travels
inside an InputRequiredResult (``inputRequests``) and is answered in the retried request's
``inputResponses`` (see ``_embedded``). Whether the client declared ``sampling`` at all is
CAP002/CAP005 (handshake) and MR004 (2026-07-28); these rules judge the payloads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded
from mcplint.model import Direction, Kind, Severity
from mcplint.rules._base import Rule, Tracker, error_of, fmt_id, rule, tracker
from mcplint.rules._embedded import (
    ANSWERED,
    KINDS,
    ClientFeatureRule,
    Problem,
    answers_to,
    asks_for,
    before,
    is_number,
    json_type,
    legacy_caps,
    may_carry,
    methods_for,
    report_problems,
)

METHOD = "sampling/createMessage"
_METHODS = methods_for(METHOD)
_V24, _V25A, _V25C = protocol.V2024_11_05, protocol.V2025_03_26, protocol.V2025_11_25
_TOOLS_ERA = protocol.since(_V25C)
_SCHEMA = "schema §CreateMessageRequest"
_RESULT_SCHEMA = "schema §CreateMessageResult"
_ROLES = ("user", "assistant")

#: content block type -> (revision that introduced it in sampling, required string/object members)
BLOCKS: dict[str, tuple[str, tuple[tuple[str, type], ...]]] = {
    "text": (_V24, (("text", str),)),
    "image": (_V24, (("data", str), ("mimeType", str))),
    "audio": (_V25A, (("data", str), ("mimeType", str))),
    "tool_use": (_V25C, (("id", str), ("name", str), ("input", dict))),
    "tool_result": (_V25C, (("toolUseId", str), ("content", list))),
}


# -- shared helpers ------------------------------------------------------------------------------
def blocks(content: Any) -> list[dict]:
    """The content blocks of a sampling message (a single block or, from 2025-11-25, an array)."""
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def of_type(content: Any, kind: str) -> list[dict]:
    return [block for block in blocks(content) if block.get("type") == kind]


def messages_of(params: Any) -> list[dict]:
    messages = params.get("messages") if isinstance(params, dict) else None
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def content_problems(content: Any, revision: str | None, where: str) -> list[Problem]:
    """Problems of a SamplingMessage ``content``: block types allowed for sampling, their
    required members, and arrays before 2025-11-25 (a later revision's shape: info)."""
    problems: list[Problem] = []
    if isinstance(content, list):
        if before(revision, _V25C):
            problems.append((Severity.INFO, (f"{where} is an array of blocks, which sampling "
                                            f"allows only from 2025-11-25 (a single block before)")))
        items = list(enumerate(content))
    elif isinstance(content, dict):
        items = [(None, content)]
    else:
        return [(Severity.ERROR, f"{where} is {json_type(content)}, not a content block")]
    for index, block in items:
        path = where if index is None else f"{where}[{index}]"
        if not isinstance(block, dict):
            problems.append((Severity.ERROR, f"{path} is {json_type(block)}, not a content block"))
            continue
        kind = block.get("type")
        spec = BLOCKS.get(kind) if isinstance(kind, str) else None
        if spec is None:
            what = "has no type" if kind is None else f"has type {fmt_id(kind)}"
            allowed = "text, image, audio, tool_use or tool_result"
            problems.append((Severity.ERROR, f"{path} {what}; sampling content is {allowed}"))
            continue
        since, members = spec
        if before(revision, since):
            problems.append((Severity.INFO, f"{path} is {kind!r} content, introduced for sampling in {since}"))
        for member, kind_of in members:
            if not isinstance(block.get(member), kind_of):
                shown = "missing" if member not in block else f"{json_type(block[member])}"
                problems.append((Severity.ERROR, (f"{path} ({kind}) {member!r} is {shown}, "
                                                 f"not {'a string' if kind_of is str else 'an ' + json_type(kind_of())}")))
    return problems


def declared(caps: dict | None, member: str) -> bool | None:
    """Whether the client declared ``sampling.<member>``; None when unknown or when it did not
    declare sampling at all (CAP002/MR004 report that)."""
    sampling = caps.get("sampling") if isinstance(caps, dict) else None
    if not isinstance(sampling, dict):
        return None
    return isinstance(sampling.get(member), dict)


# -- SM001 ------------------------------------------------------------------------------------
def params_problems(params: Any, revision: str | None) -> list[Problem]:
    if not isinstance(params, dict):
        return [(Severity.ERROR, "params are missing" if params is None else f"params is {json_type(params)}")]
    problems: list[Problem] = []
    messages = params.get("messages")
    if not isinstance(messages, list):
        problems.append((Severity.ERROR, "'messages' is missing" if messages is None and "messages" not in params
                         else f"'messages' is {json_type(messages)}, not an array"))
        messages = []
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            problems.append((Severity.ERROR, f"{where} is {json_type(message)}, not a message"))
            continue
        role = message.get("role")
        if role not in _ROLES:
            problems.append((Severity.ERROR, (f"{where}.role is {fmt_id(role) if 'role' in message else 'missing'}; "
                                             "it must be 'user' or 'assistant'")))
        if "content" not in message:
            problems.append((Severity.ERROR, f"{where}.content is missing"))
        else:
            problems += content_problems(message["content"], revision, f"{where}.content")
    if not is_number(params.get("maxTokens")):
        problems.append((Severity.ERROR, "'maxTokens' is missing" if "maxTokens" not in params
                         else f"'maxTokens' is {json_type(params['maxTokens'])}, not a number"))
    include = params.get("includeContext")
    if "includeContext" in params and include not in ("none", "thisServer", "allServers"):
        problems.append((Severity.ERROR, (f"'includeContext' is {fmt_id(include)}; it must be 'none', "
                                         "'thisServer' or 'allServers'")))
    return problems


@rule
class SamplingParams(ClientFeatureRule):
    """Checks that sampling requests carry messages (user/assistant, sampling content) and maxTokens."""

    code, name = "SM001", "sampling-params"
    severity, level, spec = Severity.ERROR, "SCHEMA", _SCHEMA
    party = "server"
    methods = _METHODS
    hint = ('Send {"messages": [{"role": "user", "content": {"type": "text", "text": "..."}}], '
            '"maxTokens": N}; content blocks are text, image, audio (and tool_use/tool_result from 2025-11-25).')

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            yield from report_problems(self, ask, params_problems(ask.params, ask.revision),
                                  lead="Malformed sampling/createMessage params")


# -- SM002 ------------------------------------------------------------------------------------
def tool_members(params: Any) -> list[str]:
    return [m for m in ("tools", "toolChoice") if isinstance(params, dict) and m in params]


@rule
class SamplingToolsWithoutCapability(Rule):
    """Checks for tool-enabled sampling requests to clients without sampling.tools, and clients accepting them."""

    code, name = "SM002", "sampling-tools-without-capability"
    severity, level, spec = Severity.ERROR, "MUST NOT", "client/sampling §Tools in Sampling"
    versions = protocol.LEGACY
    kinds = frozenset({Kind.REQUEST, Kind.RESULT})
    methods = frozenset({METHOD})
    hint = ("Send tools/toolChoice only to clients that declared sampling.tools; a client that did "
            "not must answer such a request with an error.")

    def check(self, record, session):
        if record.kind is Kind.REQUEST:
            for ask in asks_for(record, session, METHOD):
                used = tool_members(ask.params)
                if not used:
                    continue
                if before(ask.revision, _V25C):
                    yield self.report(record, f"Sampling request uses {' and '.join(used)}, introduced "
                                              f"in 2025-11-25, in a {ask.revision} session",
                                      severity=Severity.INFO, level="info")
                elif declared(ask.caps, "tools") is False:
                    yield self.report(record, f"Server sent a sampling request with {' and '.join(used)} "
                                              "although the client did not declare sampling.tools",
                                      related=_caps_source(session))
            return
        for answer in answers_to(record, session, METHOD):
            used = tool_members(answer.params)
            if used and answer.revision in _TOOLS_ERA and declared(legacy_caps(session), "tools") is False:
                yield self.report(record, f"Client answered a sampling request with {' and '.join(used)} "
                                          "successfully although it did not declare sampling.tools; it "
                                          "must return an error", party="client", level="MUST",
                                  related=answer.related)


def _caps_source(session) -> list:
    return [(session.init_request, "client capabilities")] if session.init_request is not None else []


# -- SM003 ------------------------------------------------------------------------------------
@rule
class SamplingIncludeContextUndeclared(ClientFeatureRule):
    """Checks for includeContext thisServer/allServers sent to clients without sampling.context."""

    code, name = "SM003", "sampling-include-context-undeclared"
    severity, level, spec = Severity.WARNING, "SHOULD NOT", "client/sampling §Capabilities"
    party = "server"
    versions = _TOOLS_ERA
    methods = _METHODS
    hint = 'Omit includeContext (it defaults to "none") unless the client declared sampling.context.'

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            value = ask.params.get("includeContext") if isinstance(ask.params, dict) else None
            if value in ("thisServer", "allServers") and ask.revision is not None \
                    and declared(ask.caps, "context") is False:
                yield self.report(record, ask.at(f"includeContext {value!r} (soft-deprecated) sent although "
                                                 "the client did not declare sampling.context"))


# -- SM004-SM006: the tool conversation in messages -------------------------------------------
@rule
class ToolResultMixedContent(ClientFeatureRule):
    """Checks that a user message with tool results contains only tool results."""

    code, name = "SM004", "tool-result-mixed-content"
    severity, level, spec = Severity.ERROR, "MUST", "client/sampling §Tool Result Messages"
    party = "server"
    versions = _TOOLS_ERA
    methods = _METHODS
    hint = "Put tool results in a user message of their own; send any text in a separate message."

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            bad = []
            for index, message in enumerate(messages_of(ask.params)):
                content = blocks(message.get("content"))
                results = [b for b in content if b.get("type") == "tool_result"]
                others = sorted({str(b.get("type")) for b in content if b.get("type") != "tool_result"})
                if results and others:
                    bad.append(f"messages[{index}] mixes tool_result with {', '.join(others)}")
            if bad:
                yield self.report(record, ask.at("A message with tool results must contain only tool "
                                                 "results: " + "; ".join(bad)))


def _ids(blocks_: list[dict], member: str) -> list:
    return [b.get(member) for b in blocks_ if isinstance(b.get(member), str)]


@rule
class ToolUseUnbalanced(ClientFeatureRule):
    """Checks that every assistant tool_use message is followed by a user message answering each tool use."""

    code, name = "SM005", "tool-use-unbalanced"
    severity, level, spec = Severity.ERROR, "MUST", "client/sampling §Tool Use and Result Balance"
    party = "server"
    versions = _TOOLS_ERA
    methods = _METHODS
    hint = ("Follow each assistant message of tool_use blocks directly with a user message holding "
            "one tool_result per toolUseId.")

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            messages = messages_of(ask.params)
            bad = []
            for index, message in enumerate(messages):
                if message.get("role") != "assistant":
                    continue
                uses = _ids(of_type(message.get("content"), "tool_use"), "id")
                if not uses:
                    continue
                shown = ", ".join(fmt_id(u) for u in uses)
                following = messages[index + 1] if index + 1 < len(messages) else None
                if following is None:
                    bad.append(f"messages[{index}] (tool_use {shown}) is the last message; its tool results are missing")
                elif following.get("role") != "user":
                    bad.append(f"messages[{index}] (tool_use {shown}) is followed by a "
                               f"{fmt_id(following.get('role'))} message instead of the tool results")
                else:
                    answered = set(_ids(of_type(following.get("content"), "tool_result"), "toolUseId"))
                    missing = [u for u in uses if u not in answered]
                    if missing:
                        bad.append(f"messages[{index + 1}] has no tool_result for "
                                   + ", ".join(fmt_id(u) for u in missing))
            if bad:
                yield self.report(record, ask.at("Unbalanced tool use: " + "; ".join(bad)))


@dataclass(slots=True)
class SamplingFacts:
    #: tool_use ids the client returned in earlier sampling results of the session
    tool_uses: Bounded = field(default_factory=lambda: Bounded(100_000))


@tracker
class SamplingHistory(Tracker):
    """Collects the tool_use ids of sampling results (a later request's tool_result refers to them)."""

    kinds = KINDS
    methods = _METHODS
    facts = SamplingFacts

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return may_carry(method, revision)

    def commit(self, record, session):
        for answer in answers_to(record, session, METHOD):
            result = answer.result
            if isinstance(result, dict):
                for use_id in _ids(of_type(result.get("content"), "tool_use"), "id"):
                    SamplingHistory.of(session).tool_uses[use_id] = True


@rule
class ToolResultUnknownId(ClientFeatureRule):
    """Checks that every tool_result answers a tool_use id that came before it."""

    code, name = "SM006", "tool-result-unknown-id"
    severity, level, spec = Severity.ERROR, "MUST", "schema §ToolResultContent"
    party = "server"
    versions = _TOOLS_ERA
    methods = _METHODS
    hint = "Set each tool_result's toolUseId to the id of the tool_use block it answers."

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            earlier = SamplingHistory.of(session).tool_uses
            seen: set = set()
            unknown = []
            for index, message in enumerate(messages_of(ask.params)):
                content = message.get("content")
                for use_id in _ids(of_type(content, "tool_result"), "toolUseId"):
                    if use_id not in seen and use_id not in earlier:
                        unknown.append(f"{fmt_id(use_id)} (messages[{index}])")
                seen.update(_ids(of_type(content, "tool_use"), "id"))
            if unknown:
                yield self.report(record, ask.at("tool_result refers to no earlier tool_use: " + ", ".join(unknown)),
                                  confidence="low" if session.midstream else None)


# -- SM007-SM009: the client's answer ---------------------------------------------------------
def tool_choice(params: Any) -> Any:
    choice = params.get("toolChoice") if isinstance(params, dict) else None
    return choice.get("mode") if isinstance(choice, dict) else None


@rule
class ToolChoiceViolated(ClientFeatureRule):
    """Checks that sampling results honour toolChoice: no tool use for "none", a tool use for "required"."""

    code, name = "SM007", "tool-choice-violated"
    severity, level, spec = Severity.ERROR, "MUST", "client/sampling §Tool Choice Modes"
    party = "client"
    versions = _TOOLS_ERA
    methods = _METHODS
    hint = 'Honour toolChoice: with "none" return no tool_use block, with "required" at least one.'

    def check(self, record, session):
        for answer in answers_to(record, session, METHOD):
            mode, result = tool_choice(answer.params), answer.result
            if mode not in ("none", "required") or not isinstance(result, dict):
                continue
            uses = of_type(result.get("content"), "tool_use")
            if mode == "none" and uses:
                yield self.report(record, answer.at(f'Result uses {len(uses)} tool(s) although the request '
                                                    'set toolChoice {"mode": "none"}'), related=answer.related)
            elif mode == "required" and not uses and result.get("stopReason") != "maxTokens" \
                    and not any(of_type(m.get("content"), "tool_use") for m in messages_of(answer.params)
                                if m.get("role") == "assistant"):
                yield self.report(record, answer.at('Result uses no tool although the request set toolChoice '
                                                    '{"mode": "required"}'), related=answer.related)


def result_problems(result: Any, revision: str | None) -> list[Problem]:
    if not isinstance(result, dict):
        return []  # JR015 (not an object) / MR007 (not the matching result type)
    problems: list[Problem] = []
    role = result.get("role")
    if role not in _ROLES:
        problems.append((Severity.ERROR, "'role' is missing" if "role" not in result
                         else f"'role' is {fmt_id(role)}; it must be 'user' or 'assistant'"))
    if "content" not in result:
        problems.append((Severity.ERROR, "'content' is missing"))
    else:
        problems += content_problems(result["content"], revision, "content")
    if not isinstance(result.get("model"), str):
        problems.append((Severity.ERROR, "'model' is missing" if "model" not in result
                         else f"'model' is {json_type(result['model'])}, not a string"))
    if "stopReason" in result and not isinstance(result["stopReason"], str):
        problems.append((Severity.ERROR, f"'stopReason' is {json_type(result['stopReason'])}, not a string"))
    return problems


@rule
class CreateMessageResultShape(ClientFeatureRule):
    """Checks that sampling results carry role, content (sampling blocks) and model."""

    code, name = "SM008", "create-message-result-shape"
    severity, level, spec = Severity.ERROR, "SCHEMA", _RESULT_SCHEMA
    party = "client"
    methods = _METHODS
    hint = 'Answer with {"role": "assistant", "content": {"type": "text", "text": "..."}, "model": "<model name>"}.'

    def check(self, record, session):
        for answer in answers_to(record, session, METHOD):
            yield from report_problems(self, answer, result_problems(answer.result, answer.revision),
                                  lead="Malformed sampling result")


@rule
class StopReasonInconsistent(ClientFeatureRule):
    """Checks that stopReason "toolUse" and tool_use content go together."""

    code, name = "SM009", "stop-reason-inconsistent"
    severity, level, spec = Severity.INFO, "heuristic", _RESULT_SCHEMA
    party = "client"
    confidence = "low"
    versions = _TOOLS_ERA
    methods = _METHODS
    hint = 'Set stopReason "toolUse" exactly when the content holds tool_use blocks.'

    def check(self, record, session):
        for answer in answers_to(record, session, METHOD):
            result = answer.result
            if not isinstance(result, dict):
                continue
            reason, uses = result.get("stopReason"), of_type(result.get("content"), "tool_use")
            if reason == "toolUse" and not uses:
                yield self.report(record, answer.at('stopReason is "toolUse" but the content has no tool_use block'),
                                  related=answer.related)
            elif uses and isinstance(reason, str) and reason != "toolUse":
                yield self.report(record, answer.at(f'Content has tool_use blocks but stopReason is {reason!r}, '
                                                    'not "toolUse"'), related=answer.related)


# -- SM010, SM011 -------------------------------------------------------------------------------
_REJECTED = re.compile(r"(?i)\b(reject(ed|s)?|declin(e|ed|es)|den(y|ied|ies)|refus(e|ed|es)|disapproved?|not approved)\b")


@rule
class SamplingRejectionCode(Rule):
    """Checks that a client refusing a sampling request on the user's behalf uses code -1."""

    code, name = "SM010", "sampling-rejection-code"
    severity, level, spec = Severity.INFO, "SHOULD", "client/sampling §Error Handling"
    party = "client"
    confidence = "low"
    versions = protocol.LEGACY
    kinds = frozenset({Kind.ERROR})
    methods = frozenset({METHOD})
    answers = ANSWERED
    hint = 'Refuse a sampling request the user rejected with {"code": -1, "message": "User rejected sampling request"}.'

    def check(self, record, session):
        error = error_of(record)
        if record.direction is Direction.S2C or not isinstance(error, dict):
            return
        code, message = error.get("code"), error.get("message")
        if code == -1 or type(code) is not int or not isinstance(message, str) or not _REJECTED.search(message):
            return
        yield self.report(record, f"Sampling request refused ({message!r}) with code {fmt_id(code)}; "
                                  "the spec uses -1 for a user rejection",
                          related=[(record.request, "request")] if record.request is not None else [])


_PRIORITIES = ("costPriority", "speedPriority", "intelligencePriority")


def preference_problems(params: Any) -> list[Problem]:
    if not isinstance(params, dict) or "modelPreferences" not in params:
        return []
    prefs = params["modelPreferences"]
    if not isinstance(prefs, dict):
        return [(Severity.ERROR, f"modelPreferences is {json_type(prefs)}, not an object")]
    problems: list[Problem] = []
    for name in _PRIORITIES:
        if name in prefs:
            value = prefs[name]
            if not is_number(value):
                problems.append((Severity.ERROR, f"{name} is {json_type(value)}, not a number"))
            elif not 0 <= value <= 1:
                problems.append((Severity.ERROR, f"{name} is {value}, outside [0, 1]"))
    hints = prefs.get("hints")
    if "hints" in prefs and not isinstance(hints, list):
        problems.append((Severity.ERROR, f"hints is {json_type(hints)}, not an array"))
    return problems


@rule
class ModelPreferencesRange(ClientFeatureRule):
    """Checks that modelPreferences priorities are numbers between 0 and 1."""

    code, name = "SM011", "model-preferences-range"
    severity, level, spec = Severity.ERROR, "SCHEMA", "schema §ModelPreferences"
    party = "server"
    methods = _METHODS
    hint = "Give costPriority, speedPriority and intelligencePriority as numbers from 0 to 1."

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            yield from report_problems(self, ask, preference_problems(ask.params), lead="Invalid modelPreferences")


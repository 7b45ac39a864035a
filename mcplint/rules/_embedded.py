"""Client features (sampling, elicitation, roots) wherever they travel.

Up to 2025-11-25 a server asks the client with a JSON-RPC request (``sampling/createMessage``,
``elicitation/create``, ``roots/list``) and the client answers it. In 2026-07-28 the same
``{method, params}`` objects are embedded in an ``InputRequiredResult.inputRequests`` map and the
client answers them in the ``inputResponses`` map of the retried request (MRTR). The rules of
these families judge a *payload*; :func:`asks_for` and :func:`answers_to` find the payloads of a record
in either era, so one check serves both. The MRTR rules (MR) own the envelope (which methods may
be embedded, missing keys, wrong result types); these helpers only hand over payloads whose
method is known.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import Rule, Tracker, fmt_id, params_of, result_of, tracker

#: Requests that may answer with an InputRequiredResult (2026-07-28, basic/patterns/mrtr).
MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
#: Record kinds that carry a client-feature payload: legacy requests/results, and in 2026-07-28
#: input-required results (asks) and retried requests (answers).
KINDS = frozenset({Kind.REQUEST, Kind.RESULT})
#: Only first answers are judged (JR013 reports duplicates); a type-mismatched id still answers.
ANSWERED = frozenset({"ok", "after-cancel", "type-mismatch"})


def methods_for(method: str) -> frozenset[str]:
    """Dispatch methods of a rule about ``method``: itself plus the MRTR carriers (for a
    :class:`ClientFeatureRule`)."""
    return frozenset({method}) | MRTR_METHODS


class ClientFeatureRule(Rule):
    """A rule about a client-feature payload wherever it travels: set ``methods`` to
    ``methods_for(METHOD)``. An MRTR carrier (tools/call...) only holds such a payload in
    2026-07-28, so its records of older revisions are not dispatched."""

    kinds = KINDS

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return may_carry(method, revision)


def may_carry(method: str | None, revision: str | None) -> bool:
    """Whether a record of ``method`` in ``revision`` may carry a client-feature payload: an MRTR
    carrier (tools/call...) only in 2026-07-28 (the dispatch test of client-feature rules and
    trackers)."""
    return method not in MRTR_METHODS or revision in protocol.MODERN


@dataclass(slots=True)
class Ask:
    """A server's request for a client feature: its params and where it was found."""

    record: Record  # the record to report on
    params: Any  # the request's params (any JSON value; None when absent)
    where: str  # "" for a JSON-RPC request, 'inputRequests["k"]' when embedded
    caps: dict | None  # the client capabilities in force, None while unknown
    revision: str | None

    def at(self, text: str) -> str:
        """``text`` prefixed with the embedded location, if any."""
        return f"{self.where}: {text}" if self.where else text


@dataclass(slots=True)
class Answer:
    """A client's successful answer to a client-feature request."""

    record: Record
    result: Any  # the result object (any JSON value)
    params: Any  # the params of the request it answers
    where: str
    request: Record | None  # the JSON-RPC request (legacy) or the InputRequiredResult (modern)
    revision: str | None

    def at(self, text: str) -> str:
        return f"{self.where}: {text}" if self.where else text

    @property
    def related(self) -> list[tuple[Record, str]]:
        if self.request is None:
            return []
        return [(self.request, "request" if not self.where else "input request")]


def meta_caps(record: Record | None) -> dict | None:
    """The ``io.modelcontextprotocol/clientCapabilities`` of a 2026-07-28 request, if an object."""
    meta = params_of(record).get("_meta") if record is not None else None
    caps = meta.get(protocol.CLIENT_CAPABILITIES_META) if isinstance(meta, dict) else None
    return caps if isinstance(caps, dict) else None


def legacy_caps(session) -> dict | None:
    """The client's declared capabilities in a handshake session, None while unknown."""
    caps = session.client_caps if session.legacy else None
    return caps if isinstance(caps, dict) else None


def is_modern(record: Record) -> bool:
    return record.revision in protocol.MODERN


def asks_for(record: Record, session, method: str) -> Iterator[Ask]:
    """The ``method`` requests carried by ``record``: the record itself (a server→client request
    of a handshake session) or the embedded ``inputRequests`` of a 2026-07-28 result."""
    if record.kind is Kind.REQUEST:
        if record.method == method and record.direction is not Direction.C2S and not is_modern(record):
            yield Ask(record, record.params, "", legacy_caps(session), record.revision)
        return
    if record.kind is not Kind.RESULT or record.direction is Direction.C2S or not is_modern(record):
        return
    for key, embedded in input_requests(record):
        if embedded.get("method") == method:
            yield Ask(record, embedded.get("params"), f"inputRequests[{fmt_id(key)}]",
                      meta_caps(record.request), record.revision)


def input_requests(record: Record) -> Iterator[tuple[str, dict]]:
    """``(key, {method, params})`` of an InputRequiredResult (objects only)."""
    result = result_of(record)
    if not isinstance(result, dict) or result.get("resultType") != "input_required":
        return
    embedded = result.get("inputRequests")
    if isinstance(embedded, dict):
        for key, value in embedded.items():
            if isinstance(value, dict):
                yield key, value


def task_created(record: Record) -> bool:
    """A 2025-11-25 task-augmented request answered with a CreateTaskResult (the real result
    comes later through tasks/result)."""
    result = result_of(record)
    return isinstance(result, dict) and isinstance(result.get("task"), dict) and "task" in params_of(record.request)


def answers_to(record: Record, session, method: str) -> Iterator[Answer]:
    """The client's successful answers to ``method`` carried by ``record``: a result of a
    handshake session, or the ``inputResponses`` of a retried 2026-07-28 request."""
    if record.kind is Kind.RESULT:
        request = record.request
        if (request is None or request.method != method or record.direction is Direction.S2C
                or record.answer not in ANSWERED or is_modern(record) or task_created(record)):
            return
        yield Answer(record, result_of(record), request.params, "", request, record.revision)
        return
    if record.kind is not Kind.REQUEST or record.direction is Direction.S2C or not is_modern(record):
        return
    params = record.params
    responses = params.get("inputResponses") if isinstance(params, dict) else None
    if not isinstance(responses, dict):
        return
    asked = Embedded.lookup(session, params.get("requestState"))
    for key, value in responses.items():
        entry = asked.get(key) if isinstance(key, str) else None
        if entry is None or entry.method != method or not isinstance(value, dict):
            continue  # unsolicited keys and wrong result types are the MRTR rules' (MR007, MR010)
        yield Answer(record, value, entry.params, f"inputResponses[{fmt_id(key)}]", entry.record,
                     record.revision)


# -- the embedded requests of a session (2026-07-28) ------------------------------------------
@dataclass(slots=True)
class AskedEntry:
    method: Any
    params: Any
    record: Record  # the InputRequiredResult


@dataclass(slots=True)
class EmbeddedFacts:
    by_state: Bounded = field(default_factory=lambda: Bounded(10_000))  # requestState -> {key: entry}
    latest: Bounded = field(default_factory=lambda: Bounded(10_000))  # key -> entry of the newest result


@tracker
class Embedded(Tracker):
    """Remembers the inputRequests of every InputRequiredResult, so that the retried request's
    inputResponses can be judged against what was asked."""

    kinds = frozenset({Kind.RESULT})
    methods = MRTR_METHODS
    facts = EmbeddedFacts

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return revision in protocol.MODERN  # is_modern

    def commit(self, record, session):
        if record.direction is Direction.C2S:
            return
        asked = {key: AskedEntry(value.get("method"), value.get("params"), record)
                 for key, value in input_requests(record)}
        if not asked:
            return
        facts = Embedded.of(session)
        state = result_of(record).get("requestState")
        if isinstance(state, str):
            facts.by_state[state] = asked
        for key, entry in asked.items():
            facts.latest[key] = entry

    @classmethod
    def lookup(cls, session, state: Any) -> dict:
        """The inputRequests a retry answers: those of its requestState, else the newest per key."""
        facts = cls.of(session)
        if isinstance(state, str) and state in facts.by_state:
            return facts.by_state[state]
        return facts.latest


# -- reporting -----------------------------------------------------------------------------------
Problem = tuple[Severity, str]

_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


def report_problems(rule: Rule, item: Ask | Answer, problems: list[Problem], *, lead: str,
                    confidence: str | None = None, party: str | None = None, level: str | None = None,
                    related: list | None = None):
    """One finding for all ``problems`` of one payload, at the worst of their severities."""
    if not problems:
        return
    worst = max((severity for severity, _ in problems), key=_RANK.__getitem__)
    text = "; ".join(message for _, message in problems)
    if related is None:
        related = item.related if isinstance(item, Answer) else []
    yield rule.report(item.record, item.at(f"{lead}: {text}"), severity=worst, confidence=confidence,
                      party=party, level=level if level is not None else _level(rule, worst),
                      related=related)


def _level(rule: Rule, severity: Severity) -> str | None:
    """Notes of a later revision's feature are version-strictness info, not the rule's level."""
    return "info" if severity is Severity.INFO and rule.severity is not Severity.INFO else None


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string"}.get(type(value), type(value).__name__)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def before(revision: str | None, since: str) -> bool:
    """True when a known ``revision`` predates ``since`` (the feature is from a later revision).
    An unknown revision gets the benefit of the doubt."""
    return revision in protocol.VERSIONS and not protocol.at_least(revision, since)

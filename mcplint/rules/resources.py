"""Resources (RS): listing, reading and subscribing to server resources.

Sources: server/resources of each revision and the ``Resource*`` schema types. The capability
gates of the resource methods are CAP001/CAP003/CAP004's; RS001 covers the ``subscribe`` gate
where those cannot judge it. Subscriptions (handshake revisions) are kept by
:class:`ResourceTracker`: a URI counts as subscribed from its ``resources/subscribe`` request
until a successful ``resources/unsubscribe`` (or a refusal of the subscribe). Base64 of ``blob``
is TL015's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded, Phase
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import (
    NOTIFICATIONS,
    REQUESTS,
    RESPONSES,
    Rule,
    Tracker,
    fmt_id,
    params_of,
    result_of,
    rule,
    set_plan_facts,
    tracker,
    where,
)
from mcplint.rules._feature_helpers import (
    a,
    error_message,
    final_result,
    item_error_code,
    listing,
    says_not_found,
    shown,
)
from mcplint.rules.capabilities import missing_text, negotiation_level

_PAGE = "server/resources"
_ERRORS = "server/resources §Error Handling"
_SUBSCRIBE = "resources/subscribe"
_UNSUBSCRIBE = "resources/unsubscribe"
_UPDATED = "notifications/resources/updated"
_READ = "resources/read"
_SUB_GATE = protocol.GATES[_SUBSCRIBE]


# -- tracker ---------------------------------------------------------------------------------
#: Subscribed URIs kept per session; beyond this the oldest are forgotten (IO012 says so).
MAX_SUBSCRIPTIONS = 10_000


@dataclass(slots=True)
class ResourceFacts:
    subscribed: Bounded = field(default_factory=lambda: Bounded(MAX_SUBSCRIPTIONS))  # uri -> "pending" | "active"
    unsubscribed: Bounded = field(default_factory=lambda: Bounded(10_000))  # uri -> unsubscribe result


@tracker
class ResourceTracker(Tracker):
    """The URIs the client subscribed to (handshake revisions)."""

    kinds = REQUESTS | RESPONSES
    methods = frozenset({_SUBSCRIBE, _UNSUBSCRIBE})
    facts = ResourceFacts

    def commit(self, record, session):
        facts = self.of(session)
        if record.kind is Kind.REQUEST:
            uri = params_of(record).get("uri")
            if record.method == _SUBSCRIBE and isinstance(uri, str) and facts.subscribed.get(uri) != "active":
                facts.subscribed[uri] = "pending"
                facts.unsubscribed.pop(uri, None)
                if facts.subscribed.evicted:
                    session.limit_reached("subscriptions")
            return
        if record.request is None or record.answer not in ("ok", "after-cancel"):
            return
        uri = params_of(record.request).get("uri")
        if not isinstance(uri, str):
            return
        if record.request.method == _SUBSCRIBE:
            if record.kind is Kind.RESULT:
                facts.subscribed[uri] = "active"
            elif facts.subscribed.get(uri) == "pending":
                del facts.subscribed[uri]
        elif record.kind is Kind.RESULT:
            facts.subscribed.pop(uri, None)
            facts.unsubscribed[uri] = record


def covers(subscribed: str, uri: str) -> bool:
    """Whether an update of ``uri`` belongs to a subscription of ``subscribed`` (the same URI or a
    sub-resource of it, schema ResourceUpdatedNotification)."""
    if uri == subscribed:
        return True
    base = subscribed.rstrip("/")
    return uri.startswith((base + "/", subscribed + "?", subscribed + "#"))


# -- RS001 -----------------------------------------------------------------------------------
#: plan fact: a subscription request came before the server's capabilities (RS001 kept it)
_EARLY = "rs001-early-subscription"
_EARLY_FACTS = frozenset({_EARLY})


@rule
class SubscribeWithoutCapability(Rule):
    """Checks for subscriptions to resource updates that the server's capabilities do not offer."""

    code, name = "RS001", "subscribe-without-capability"
    severity, level, spec = Severity.ERROR, "MUST", "server/resources §Capabilities"
    kinds = REQUESTS | frozenset({Kind.RESULT})
    methods = frozenset({_SUBSCRIBE, _UNSUBSCRIBE, "initialize", "subscriptions/listen"})
    hint = 'Subscribe only when the server declared "resources": {"subscribe": true}.'

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return method != "initialize" or kind is not Kind.REQUEST  # (initialize: its result)

    @classmethod
    def awaits(cls, facts, kind, method):
        # a result reports only requests that the check kept as early (making the fact)
        return kind is Kind.REQUEST or _EARLY in facts

    def check(self, record, session):
        if record.kind is Kind.REQUEST:
            if record.direction is not Direction.C2S:
                return
            if record.method == "subscriptions/listen":
                yield from self._listen(record, session)
            elif record.method != "initialize" and session.phase in (Phase.NEW, Phase.INITIALIZING):
                early = session.state_for(self).setdefault("early", [])
                if len(early) < 20:
                    early.append(record)  # sent before the server's capabilities were known
                if _EARLY not in session.plan_facts:
                    set_plan_facts(session, _EARLY, _EARLY_FACTS)
            return
        early = session.state_for(self).pop("early", ())
        result = result_of(record)
        caps = result.get("capabilities") if isinstance(result, dict) else None
        if not early or record.direction is not Direction.S2C or not isinstance(caps, dict) \
                or protocol.gate_open(_SUB_GATE, caps):
            return
        severity, level, confidence = negotiation_level(record.revision)
        for request in early:
            yield self.report(request, f"Client sent {request.method} before the initialize result, which "
                                       f"then {missing_text(_SUB_GATE, caps)} ({where(record)})",
                              severity=severity, level=level, confidence=confidence,
                              related=[(record, "initialize result")])

    def _listen(self, record, session):
        """2026-07-28: resourceSubscriptions on a listen request while server/discover offers none."""
        filters = params_of(record).get("notifications")
        wanted = filters.get("resourceSubscriptions") if isinstance(filters, dict) else None
        caps = session.server_caps
        if not wanted or not isinstance(wanted, list) or not isinstance(caps, dict) \
                or protocol.gate_open(_SUB_GATE, caps):
            return
        yield self.report(record, f"Client asked for resourceSubscriptions although the server/discover "
                                  f"result {missing_text(_SUB_GATE, caps)}",
                          severity=Severity.WARNING, level="derived")


# -- RS002 -----------------------------------------------------------------------------------
@rule
class UpdatedWithoutSubscription(Rule):
    """Checks for `notifications/resources/updated` about URIs the client did not subscribe to."""

    code, name = "RS002", "updated-without-subscription"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD", "server/resources §Subscriptions"
    confidence = "low"
    versions = protocol.LEGACY
    kinds = NOTIFICATIONS
    methods = frozenset({_UPDATED})
    hint = "Send notifications/resources/updated only for URIs (or sub-resources of URIs) the client subscribed to."

    def check(self, record, session):
        uri = params_of(record).get("uri")
        if record.direction is not Direction.S2C or not isinstance(uri, str) or session.midstream:
            return
        caps = session.server_caps
        if not isinstance(caps, dict) or not protocol.gate_open(_SUB_GATE, caps):
            return  # capabilities unknown, or the notification is undeclared altogether (CAP003)
        facts = ResourceTracker.of(session)
        if any(covers(subscribed, uri) for subscribed in facts.subscribed):
            return
        gone = facts.unsubscribed.get(uri)
        if gone is not None:
            yield self.report(record, f"Update for {shown(uri, 80)} after the client unsubscribed from it",
                              related=[(gone, "unsubscribe confirmed")], level="should (schema)")
        elif not facts.subscribed.evicted:  # else it may be a subscription forgotten (IO012)
            yield self.report(record, f"Update for {shown(uri, 80)}, which the client never subscribed to "
                                      "(nor to a resource containing it)", level="should (schema)")


# -- RS003 -----------------------------------------------------------------------------------
def contents_problems(contents: Any, where: str = "contents") -> list[str]:
    """Shape problems of a ``(TextResourceContents | BlobResourceContents)[]``."""
    if not isinstance(contents, list):
        return [f"{where} is missing" if contents is ... else f"{where} is {a(contents)}, not an array"]
    problems = []
    for index, item in enumerate(contents):
        problems += [f"{where}[{index}] {p}" for p in resource_contents_problems(item)]
    return problems


def resource_contents_problems(item: Any) -> list[str]:
    """Shape problems of one text or blob resource contents object."""
    if not isinstance(item, dict):
        return [f"is {a(item)}, not an object"]
    problems = []
    if not isinstance(item.get("uri"), str):
        problems.append("has no uri" if "uri" not in item else f"uri is {a(item['uri'])}")
    has_text, has_blob = "text" in item, "blob" in item
    if has_text and has_blob:
        problems.append("has both text and blob")
    elif not has_text and not has_blob:
        problems.append("has neither text nor blob")
    for key in ("text", "blob", "mimeType"):
        if key in item and not isinstance(item[key], str):
            problems.append(f"{key} is {a(item[key])}, not a string")
    return problems


@rule
class ResourceContentsShape(Rule):
    """Checks that `resources/read` results carry `contents` items with a uri and exactly one of text/blob."""

    code, name = "RS003", "resource-contents-shape"
    severity, level, spec = Severity.ERROR, "SCHEMA", "server/resources §Resource Contents"
    kinds = frozenset({Kind.RESULT})
    methods = frozenset({_READ})
    answers = frozenset({"ok"})
    hint = 'Return {"contents": [{"uri": ..., "mimeType": ..., "text": ...}]} (or "blob" with base64, not both).'

    def check(self, record, session):
        result = final_result(record)
        if result is None or record.direction is not Direction.S2C:
            return
        problems = contents_problems(result.get("contents", ...))
        if problems:
            yield self.report(record, f"Malformed resources/read result: {listing(problems)}",
                              related=[(record.request, "request")])


# -- RS004 -----------------------------------------------------------------------------------
@rule
class ResourceNotFoundCode(Rule):
    """Checks the error code for a resource that does not exist: -32002 (handshake revisions), -32602 (2026-07-28)."""

    code, name = "RS004", "resource-not-found-code"
    severity, level, spec = Severity.INFO, "SHOULD", _ERRORS
    kinds = frozenset({Kind.ERROR})
    methods = frozenset({_READ})
    answers = frozenset({"ok"})
    hint = ("Report a missing resource with -32002 in 2024-11-05 ... 2025-11-25 and with -32602 "
            "(Invalid params) in 2026-07-28, which forbids -32002.")

    def check(self, record, session):
        code, message = item_error_code(record, session), error_message(record)
        if code is None:
            return  # -32601 counts only while "resources" is declared (see item_error_code)
        related = [(record.request, "request")]
        if record.revision in protocol.MODERN:
            if code == -32002:
                yield self.report(record, "Resource not found reported with -32002, which 2026-07-28 "
                                          "retired: it MUST be -32602 (Invalid params)",
                                  severity=Severity.ERROR, level="MUST", related=related)
            elif code != -32602 and says_not_found(message):
                yield self.report(record, f"Resource not found reported with code {fmt_id(code)}; "
                                          "2026-07-28 requires -32602 (Invalid params)",
                                  severity=Severity.ERROR, level="MUST", confidence="low", related=related)
        elif code != -32002 and says_not_found(message):
            yield self.report(record, f"Resource not found reported with code {fmt_id(code)} instead of "
                                      "-32002 (Resource not found)", related=related)


# -- RS005 -----------------------------------------------------------------------------------
@rule
class EmptyContentsForMissing(Rule):
    """Checks for 2026-07-28 `resources/read` results with empty `contents` (forbidden for a missing resource)."""

    code, name = "RS005", "empty-contents-for-missing"
    severity, level, spec = Severity.WARNING, "MUST NOT", _ERRORS
    confidence = "low"
    party = "server"
    versions = protocol.MODERN
    kinds = frozenset({Kind.RESULT})
    methods = frozenset({_READ})
    answers = frozenset({"ok"})
    hint = "Answer a read of a resource that does not exist with a -32602 error, never with empty contents."

    def check(self, record, session):
        result = final_result(record)
        if result is not None and result.get("contents") == []:
            uri = params_of(record.request).get("uri")
            yield self.report(record, f"resources/read of {shown(uri, 80)} returned empty contents; if the "
                                      "resource does not exist this MUST be a -32602 error",
                              related=[(record.request, "request")])


# -- RS006 -----------------------------------------------------------------------------------
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_URI_CHARS = re.compile(r"[^A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_VARNAME = re.compile(r"^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$")
_MODIFIER = re.compile(r"^(?::[1-9][0-9]{0,3}|\*)$")
_TEMPLATE_LITERAL_BAD = re.compile(r"[\x00-\x20\"'<>\\^`|]")


def uri_problem(value: Any) -> tuple[int, str] | None:
    """``(rank, problem)`` when ``value`` is no absolute RFC 3986 URI; rank 2 error, 1 warning."""
    if not isinstance(value, str):
        return 2, f"is {a(value)}, not a string"
    if not value:
        return 2, "is empty"
    if not _SCHEME.match(value):
        return 2, f"{shown(value)} has no scheme (a relative reference or a path, not a URI)"
    bad = _URI_CHARS.findall(value)
    ascii_bad = sorted({c for c in bad if ord(c) < 128})
    if ascii_bad:
        named = ", ".join("space" if c == " " else repr(c) for c in ascii_bad[:4])
        return 2, f"{shown(value)} contains {named} (percent-encode it)"
    if _BAD_PERCENT.search(value):
        return 2, f"{shown(value)} has a '%' that does not start a percent-encoded byte"
    if bad:
        return 1, f"{shown(value)} contains non-ASCII characters (an IRI; percent-encode them as UTF-8)"
    return None


def template_problem(value: Any) -> tuple[int, str] | None:
    """``(rank, problem)`` when ``value`` is no RFC 6570 URI template."""
    if not isinstance(value, str):
        return 2, f"is {a(value)}, not a string"
    if not value:
        return 2, "is empty"
    rest, rank, problems = value, 0, []
    while rest:
        start = rest.find("{")
        literal = rest if start < 0 else rest[:start]
        if "}" in literal or _TEMPLATE_LITERAL_BAD.search(literal) or _BAD_PERCENT.search(literal):
            return 2, f"{shown(value)} has an unmatched '}}' or a character not allowed outside expressions"
        if start < 0:
            break
        end = rest.find("}", start)
        if end < 0 or "{" in rest[start + 1:end]:
            return 2, f"{shown(value)} has an unclosed '{{'"
        expression = rest[start + 1:end]
        if expression[:1] in "=,!@|" and expression:
            return 2, f"{shown(value)} uses the reserved operator {expression[0]!r}"
        body = expression[1:] if expression[:1] in "+#./;?&" else expression
        if not body:
            return 2, f"{shown(value)} has an empty expression"
        for varspec in body.split(","):
            if varspec.endswith("*"):
                name, modifier = varspec[:-1], "*"
            elif ":" in varspec:
                name, _, length = varspec.partition(":")
                modifier = ":" + length
            else:
                name, modifier = varspec, ""
            if not _VARNAME.match(name) or (modifier and not _MODIFIER.match(modifier)):
                rank = max(rank, 1)
                problems.append(varspec)
        rest = rest[end + 1:]
    if problems:
        return rank, (f"{shown(value)} has variables RFC 6570 does not allow "
                      f"({', '.join(map(repr, problems[:3]))}; names take letters, digits, '_' and '.', "
                      "prefix lengths 1-9999)")
    return None


_RESULT_URIS = {"resources/list": ("resources", "uri", False),
                "resources/templates/list": ("resourceTemplates", "uriTemplate", True),
                _READ: ("contents", "uri", False)}


def _uris(record: Record) -> list[tuple[str, Any, bool]]:
    """``(location, value, is_template)`` of every resource URI a record carries."""
    method = record.effective_method
    if record.kind in (Kind.REQUEST, Kind.NOTIFICATION):
        params = params_of(record)
        return [("params.uri", params["uri"], False)] if "uri" in params else []
    result = final_result(record)
    where = _RESULT_URIS.get(method)
    if result is None or where is None:
        return []
    member, key, template = where
    items = result.get(member)
    if not isinstance(items, list):
        return []
    return [(f"{member}[{i}].{key}", item[key], template) for i, item in enumerate(items)
            if isinstance(item, dict) and key in item]


@rule
class ResourceUriSyntax(Rule):
    """Checks that resource URIs are absolute RFC 3986 URIs and `uriTemplate`s are RFC 6570 templates."""

    code, name = "RS006", "resource-uri-syntax"
    severity, level, spec = Severity.ERROR, "MUST", "server/resources §Custom URI Schemes"
    kinds = REQUESTS | NOTIFICATIONS | frozenset({Kind.RESULT})
    methods = frozenset({_READ, _SUBSCRIBE, _UNSUBSCRIBE, _UPDATED, "resources/list", "resources/templates/list"})
    hint = ("Use absolute URIs with a scheme (file:///a%20b.txt, myapp://item/1), percent-encoding spaces "
            "and other reserved characters; write templates as RFC 6570 ({name}, {+path}).")

    def check(self, record, session):
        if record.kind is Kind.RESULT and record.answer != "ok":
            return
        problems = []
        for where, value, template in _uris(record):
            problem = template_problem(value) if template else uri_problem(value)
            if problem is not None:
                problems.append((problem[0], f"{where} {problem[1]}"))
        if not problems:
            return
        worst = max(rank for rank, _ in problems)
        yield self.report(record, f"Invalid resource URI: {listing([text for _, text in problems], 3)}",
                          severity=Severity.ERROR if worst == 2 else Severity.WARNING,
                          level=None if worst == 2 else "SHOULD")


# -- RS007 -----------------------------------------------------------------------------------
_ISO_8601 = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$")
_ROLES = ("user", "assistant")


def annotation_problems(annotations: Any, revision: str | None) -> list[tuple[int, str]]:
    """``(rank, problem)`` of an ``Annotations`` object (rank 2 schema error, 1 should)."""
    if not isinstance(annotations, dict):
        return [(2, f"is {a(annotations)}, not an object")]
    problems = []
    if "priority" in annotations:
        priority = annotations["priority"]
        if not isinstance(priority, (int, float)) or isinstance(priority, bool):
            problems.append((2, f"priority is {a(priority)}, not a number"))
        elif not 0 <= priority <= 1:
            problems.append((2, f"priority {shown(priority)} is outside [0, 1]"))
    if "audience" in annotations:
        audience = annotations["audience"]
        if not isinstance(audience, list):
            problems.append((2, f"audience is {a(audience)}, not an array"))
        else:
            wrong = [role for role in audience if role not in _ROLES]
            if wrong:
                roles = ", ".join(shown(r) for r in wrong[:3])
                problems.append((2, f'audience contains {roles} (only "user" and "assistant")'))
    if "lastModified" in annotations and protocol.at_least(revision, protocol.V2025_06_18):
        modified = annotations["lastModified"]
        if not isinstance(modified, str):
            problems.append((2, f"lastModified is {a(modified)}, not a string"))
        elif not _ISO_8601.match(modified):
            problems.append((1, f"lastModified {shown(modified)} is not an ISO 8601 timestamp"))
    return problems


@rule
class AnnotationsRange(Rule):
    """Checks resource annotations: priority in [0, 1], audience user/assistant, ISO 8601 lastModified."""

    code, name = "RS007", "annotations-range"
    severity, level, spec = Severity.ERROR, "SCHEMA", "server/resources §Annotations"
    kinds = frozenset({Kind.RESULT})
    methods = frozenset({"resources/list", "resources/templates/list"})
    answers = frozenset({"ok"})
    hint = 'Use {"audience": ["user"], "priority": 0.8, "lastModified": "2025-01-12T15:00:58Z"}.'

    def check(self, record, session):
        result = final_result(record)
        member = "resources" if record.request.method == "resources/list" else "resourceTemplates"
        items = result.get(member) if result is not None else None
        if not isinstance(items, list):
            return
        problems = []
        for index, item in enumerate(items):
            if isinstance(item, dict) and "annotations" in item:
                problems += [(rank, f"{member}[{index}].annotations {text}")
                             for rank, text in annotation_problems(item["annotations"], record.revision)]
        if problems:
            worst = max(rank for rank, _ in problems)
            yield self.report(record, f"Invalid annotations: {listing([text for _, text in problems], 3)}",
                              severity=Severity.ERROR if worst == 2 else Severity.WARNING,
                              level=None if worst == 2 else "should")

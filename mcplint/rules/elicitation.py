"""Elicitation (EL): ``elicitation/create`` in form and URL mode, its answers, the URL
elicitation completion notification and the ``-32042`` URLElicitationRequiredError.

Elicitation exists from 2025-06-18 (form only); 2025-11-25 adds URL mode (``mode``, ``url``,
``elicitationId``), ``notifications/elicitation/complete`` and ``-32042``; in 2026-07-28 requests
travel inside InputRequiredResult.inputRequests (no ``elicitationId``, no ``-32042``, see
``_embedded``). Whether the client declared ``elicitation`` at all is CAP002/CAP005 and MR004.
Messages never quote what a user typed: only names and types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded
from mcplint.excerpt import _SENSITIVE_KEY, _TOKEN
from mcplint.model import Direction, Kind, Severity
from mcplint.rules._base import (
    Rule,
    Tracker,
    error_of,
    fmt_id,
    params_of,
    rule,
    tracker,
)
from mcplint.rules._embedded import (
    ANSWERED,
    Ask,
    ClientFeatureRule,
    Problem,
    answers_to,
    asks_for,
    before,
    is_number,
    json_type,
    legacy_caps,
    methods_for,
    report_problems,
)

METHOD = "elicitation/create"
COMPLETE = "notifications/elicitation/complete"
URL_REQUIRED = -32042
_METHODS = methods_for(METHOD)
_V25B, _V25C = protocol.V2025_06_18, protocol.V2025_11_25
_ELICITATION = protocol.since(_V25B)  # 2025-06-18, 2025-11-25, 2026-07-28
_MODES = protocol.since(_V25C)
_URL_ERA = frozenset({_V25C})  # elicitationId, notifications/elicitation/complete, -32042
_FORMATS = ("email", "uri", "date", "date-time")


# -- shared helpers ------------------------------------------------------------------------------
def mode_of(params: Any) -> Any:
    """The elicitation mode of a request (absent = form)."""
    return params.get("mode", "form") if isinstance(params, dict) else "form"


def is_form(params: Any, revision: str | None) -> bool:
    """Form mode: ``mode`` absent or "form" (2025-06-18 knows no other mode than form)."""
    mode = mode_of(params)
    return mode == "form" or (before(revision, _V25C) and mode != "url")


def declared_modes(caps: dict | None) -> set[str] | None:
    """Modes the client declared; ``elicitation: {}`` means form only. None while unknown or when
    elicitation itself is undeclared (CAP002/MR004)."""
    elicitation = caps.get("elicitation") if isinstance(caps, dict) else None
    if not isinstance(elicitation, dict):
        return None
    return {m for m in ("form", "url") if elicitation.get(m) is not None} or {"form"}


_MODE_NAMES = {"form": "Form-mode", "url": "URL-mode"}


def _caps_source(session) -> list:
    return [(session.init_request, "client capabilities")] if session.init_request is not None else []


def _schema(params: Any) -> dict | None:
    schema = params.get("requestedSchema") if isinstance(params, dict) else None
    return schema if isinstance(schema, dict) else None


def _properties(params: Any) -> dict:
    schema = _schema(params)
    props = schema.get("properties") if schema is not None else None
    return props if isinstance(props, dict) else {}


# -- EL001, EL002: modes ---------------------------------------------------------------------
@rule
class ElicitationModeUndeclared(ClientFeatureRule):
    """Checks for elicitation requests in a mode the client did not declare."""

    code, name = "EL001", "elicitation-mode-undeclared"
    severity, level, spec = Severity.ERROR, "MUST NOT", "client/elicitation §Capabilities"
    party = "server"
    versions = _ELICITATION
    methods = _METHODS
    hint = ('Send mode "url" only to clients declaring elicitation.url, and form mode only to clients '
            'declaring elicitation.form (or an empty elicitation: {}).')

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            mode = mode_of(ask.params)
            if before(ask.revision, _V25C):
                if mode == "url":
                    yield self.report(record, ask.at(f"URL-mode elicitation, introduced in 2025-11-25, in a "
                                                     f"{ask.revision} session"), severity=Severity.INFO, level="info")
                continue
            if mode not in ("form", "url"):
                yield self.report(record, ask.at(f"Elicitation mode {fmt_id(mode)} is not defined (form or url)"),
                                  level="SCHEMA", spec="schema §ElicitRequestParams")
                continue
            modes = declared_modes(ask.caps)
            if modes is not None and mode not in modes:
                yield self.report(record, ask.at(f"{_MODE_NAMES[mode]} elicitation sent although the client "
                                                 f"declared only {', '.join(sorted(modes))} mode"),
                                  related=_caps_source(session) if not ask.where else [])


@rule
class UndeclaredModeAccepted(Rule):
    """Checks that clients refuse elicitation requests in an undeclared mode with -32602."""

    code, name = "EL002", "undeclared-mode-accepted"
    severity, level, spec = Severity.ERROR, "MUST", "client/elicitation §Error Handling"
    party = "client"
    versions = _URL_ERA
    kinds = frozenset({Kind.RESULT, Kind.ERROR})
    methods = frozenset({METHOD})
    answers = ANSWERED
    hint = "Answer an elicitation/create in a mode you did not declare with error -32602 (Invalid params)."

    def check(self, record, session):
        request = record.request
        if request is None or record.direction is Direction.S2C:
            return
        mode = mode_of(request.params)
        modes = declared_modes(legacy_caps(session))
        if modes is None or mode not in ("form", "url") or mode in modes:
            return
        related = [(request, "request")]
        if record.kind is Kind.RESULT:
            yield self.report(record, f"Client accepted a {_MODE_NAMES[mode]} elicitation although it declared only "
                                      f"{', '.join(sorted(modes))} mode; it must answer -32602", related=related)
            return
        error = error_of(record)
        code = error.get("code") if isinstance(error, dict) else None
        if type(code) is int and code != -32602:
            yield self.report(record, f"Client refused a {_MODE_NAMES[mode]} elicitation it did not declare with code "
                                      f"{fmt_id(code)} instead of -32602", severity=Severity.WARNING,
                              related=related)


# -- EL003, EL004: request params ------------------------------------------------------------
def property_problems(name: str, prop: Any, revision: str | None) -> list[Problem]:
    where = f"property {name!r}"
    if not isinstance(prop, dict):
        return [(Severity.ERROR, f"{where} is {json_type(prop)}, not a schema object")]
    kind = prop.get("type")
    if kind in ("number", "integer", "boolean"):
        return []
    if kind == "string":
        fmt = prop.get("format")
        if "format" in prop and fmt not in _FORMATS:
            return [(Severity.ERROR, f"{where} uses format {fmt_id(fmt)}; allowed are {', '.join(_FORMATS)}")]
        return []
    if kind == "array":
        items = prop.get("items")
        enum = isinstance(items, dict) and (isinstance(items.get("enum"), list) or isinstance(items.get("anyOf"), list))
        if not enum:
            return [(Severity.ERROR, (f"{where} is an array; only multi-select enums (items.enum or items.anyOf) "
                                     "are allowed"))]
        if before(revision, _V25C):
            return [(Severity.INFO, f"{where} is a multi-select enum, introduced in 2025-11-25")]
        return []
    if kind == "object":
        return [(Severity.ERROR, f"{where} is a nested object; only primitive properties are allowed")]
    shown = "has no type" if kind is None else f"has type {fmt_id(kind)}"
    return [(Severity.ERROR, f"{where} {shown}; use string, number, integer, boolean or a multi-select enum")]


def form_problems(params: Any, revision: str | None) -> list[Problem]:
    if not isinstance(params, dict):
        return [(Severity.ERROR, "params are missing" if params is None else f"params is {json_type(params)}")]
    problems: list[Problem] = []
    if not isinstance(params.get("message"), str):
        problems.append((Severity.ERROR, "'message' is missing" if "message" not in params
                         else f"'message' is {json_type(params['message'])}, not a string"))
    schema = params.get("requestedSchema")
    if not isinstance(schema, dict):
        problems.append((Severity.ERROR, "'requestedSchema' is missing" if "requestedSchema" not in params
                         else f"'requestedSchema' is {json_type(schema)}, not an object"))
        return problems
    if schema.get("type") != "object":
        problems.append((Severity.ERROR, (f"requestedSchema.type is {fmt_id(schema.get('type')) if 'type' in schema else 'missing'}; "
                                         "it must be \"object\"")))
    props = schema.get("properties")
    if not isinstance(props, dict):
        problems.append((Severity.ERROR, "requestedSchema.properties is missing" if "properties" not in schema
                         else f"requestedSchema.properties is {json_type(props)}, not an object"))
        props = {}
    for name, prop in props.items():
        problems += property_problems(name, prop, revision)
    required = schema.get("required")
    if "required" in schema and not (isinstance(required, list) and all(isinstance(r, str) for r in required)):
        problems.append((Severity.ERROR, "requestedSchema.required is not an array of strings"))
    return problems


@rule
class FormSchemaRestricted(ClientFeatureRule):
    """Checks that form-mode elicitation requests carry a message and a flat schema of primitive properties."""

    code, name = "EL003", "form-schema-restricted"
    severity, level, spec = Severity.ERROR, "SCHEMA", "client/elicitation §Requested Schema"
    party = "server"
    versions = _ELICITATION
    methods = _METHODS
    hint = ('Use {"type": "object", "properties": {...}} whose properties are string, number, integer, '
            "boolean or enum schemas; no nested objects or arrays of objects.")

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            if is_form(ask.params, ask.revision):
                yield from report_problems(self, ask, form_problems(ask.params, ask.revision),
                                           lead="Invalid form-mode elicitation")


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def valid_url(value: Any) -> bool:
    """An absolute URL without whitespace; http(s) URLs need a host."""
    if not isinstance(value, str) or not _SCHEME.match(value) or any(c.isspace() for c in value):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return bool(parts.hostname) if parts.scheme.lower() in ("http", "https") else True


def url_params_problems(params: Any, revision: str | None) -> list[Problem]:
    problems: list[Problem] = []
    if not isinstance(params.get("message"), str):
        problems.append((Severity.ERROR, "'message' is missing" if "message" not in params
                         else f"'message' is {json_type(params['message'])}, not a string"))
    url = params.get("url")
    if "url" not in params:
        problems.append((Severity.ERROR, "'url' is missing"))
    elif not valid_url(url):
        problems.append((Severity.ERROR, "'url' is not a valid absolute URL" if isinstance(url, str)
                         else f"'url' is {json_type(url)}, not a string"))
    if revision not in protocol.MODERN and not isinstance(params.get("elicitationId"), str):
        problems.append((Severity.ERROR, "'elicitationId' is missing" if "elicitationId" not in params
                         else f"'elicitationId' is {json_type(params['elicitationId'])}, not a string"))
    return problems


@rule
class UrlModeParams(ClientFeatureRule):
    """Checks that URL-mode elicitation requests carry a message, a valid url and (2025-11-25) an elicitationId."""

    code, name = "EL004", "url-mode-params"
    severity, level, spec = Severity.ERROR, "MUST", "client/elicitation §URL Mode Elicitation Requests"
    party = "server"
    versions = _MODES
    methods = _METHODS
    hint = 'Send {"mode": "url", "message": "...", "url": "https://...", "elicitationId": "<unique id>"}.'

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            if isinstance(ask.params, dict) and mode_of(ask.params) == "url":
                yield from report_problems(self, ask, url_params_problems(ask.params, ask.revision),
                                           lead="Invalid URL-mode elicitation")


# -- EL005-EL007: the client's answer ---------------------------------------------------------
@rule
class ElicitResultAction(ClientFeatureRule):
    """Checks that elicitation results carry action accept, decline or cancel."""

    code, name = "EL005", "elicit-result-action"
    severity, level, spec = Severity.ERROR, "SCHEMA", "schema §ElicitResult"
    party = "client"
    versions = _ELICITATION
    methods = _METHODS
    hint = 'Answer with {"action": "accept" | "decline" | "cancel"} (plus content for an accepted form).'

    def check(self, record, session):
        for answer in answers_to(record, session, METHOD):
            result = answer.result
            if not isinstance(result, dict) or result.get("action") in ("accept", "decline", "cancel"):
                continue
            shown = fmt_id(result["action"]) if "action" in result else "missing"
            yield self.report(record, answer.at(f"Elicitation result action is {shown}; it must be "
                                                "'accept', 'decline' or 'cancel'"), related=answer.related)


def _value_ok(value: Any) -> bool | None:
    """True for string/number/boolean, None for string[] (2025-11-25), False otherwise."""
    if isinstance(value, (str, bool)) or is_number(value):
        return True
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return None
    return False


def content_problems(result: dict, params: Any, revision: str | None) -> list[Problem]:
    if "content" not in result:
        return []
    content, action = result["content"], result.get("action")
    if not isinstance(content, dict):
        return [(Severity.ERROR, f"content is {json_type(content)}, not an object")]
    problems: list[Problem] = []
    if action == "accept" and mode_of(params) == "url":
        problems.append((Severity.WARNING, ("an accepted URL-mode elicitation carries content; the data "
                                           "must stay out of band")))
    elif action in ("decline", "cancel") and content:
        problems.append((Severity.INFO, f"a {action!r} result carries content"))
    for key, value in content.items():
        ok = _value_ok(value)
        if ok is False:
            problems.append((Severity.ERROR, (f"content[{fmt_id(key)}] is {json_type(value)}; values are "
                                             "strings, numbers, booleans or string arrays")))
        elif ok is None and before(revision, _V25C):
            problems.append((Severity.INFO, f"content[{fmt_id(key)}] is a string array, introduced in 2025-11-25"))
    return problems


@rule
class ElicitResultContentMisplaced(ClientFeatureRule):
    """Checks that elicitation content comes only with an accepted form and holds primitive values."""

    code, name = "EL006", "elicit-result-content-misplaced"
    severity, level, spec = Severity.WARNING, "SCHEMA", "schema §ElicitResult"
    party = "client"
    versions = _ELICITATION
    methods = _METHODS
    hint = ("Send content only with action accept of a form-mode elicitation, as an object of "
            "strings, numbers, booleans or string arrays.")

    def check(self, record, session):
        for answer in answers_to(record, session, METHOD):
            if isinstance(answer.result, dict):
                yield from report_problems(self, answer, content_problems(answer.result, answer.params,
                                                                          answer.revision),
                                           lead="Misplaced or malformed elicitation content")


def _allowed(prop: dict) -> list | None:
    """The allowed values of an enum property (enum or oneOf/anyOf consts), None if not an enum."""
    if isinstance(prop.get("enum"), list):
        return prop["enum"]
    options = prop.get("oneOf") if isinstance(prop.get("oneOf"), list) else prop.get("anyOf")
    if isinstance(options, list) and options and all(isinstance(o, dict) and "const" in o for o in options):
        return [o["const"] for o in options]
    return None


def _bounds(value: Any, prop: dict, low: str, high: str, what: str) -> str | None:
    lo, hi = prop.get(low), prop.get(high)
    if is_number(lo) and value < lo:
        return f"is shorter than {low} {lo}" if what == "length" else f"is below {low} {lo}"
    if is_number(hi) and value > hi:
        return f"is longer than {high} {hi}" if what == "length" else f"is above {high} {hi}"
    return None


def value_problem(value: Any, prop: dict) -> str | None:
    """Why ``value`` does not fit the primitive schema ``prop`` (never quoting the value)."""
    kind = prop.get("type")
    if kind == "string":
        if not isinstance(value, str):
            return f"is {json_type(value)}, not a string"
        allowed = _allowed(prop)
        if allowed is not None and value not in allowed:
            return "is not one of the allowed values"
        return _bounds(len(value), prop, "minLength", "maxLength", "length")
    if kind in ("number", "integer"):
        if not is_number(value) or (kind == "integer" and not float(value).is_integer()):
            return f"is {json_type(value) if not is_number(value) else 'a fraction'}, not {'an integer' if kind == 'integer' else 'a number'}"
        return _bounds(value, prop, "minimum", "maximum", "value")
    if kind == "boolean":
        return None if isinstance(value, bool) else f"is {json_type(value)}, not a boolean"
    if kind == "array":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return f"is {json_type(value)}, not an array of strings"
        items = prop.get("items")
        allowed = _allowed(items) if isinstance(items, dict) else None
        if allowed is not None and any(v not in allowed for v in value):
            return "holds a value that is not one of the allowed values"
        return _bounds(len(value), prop, "minItems", "maxItems", "length")
    return None


def mismatches(content: dict, schema: dict) -> list[str]:
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    out = []
    required = schema.get("required")
    for name in required if isinstance(required, list) else ():
        if isinstance(name, str) and name not in content:
            out.append(f"required {name!r} is missing")
    for name, value in content.items():
        prop = props.get(name)
        problem = value_problem(value, prop) if isinstance(prop, dict) else None
        if problem:
            out.append(f"{name!r} {problem}")
    return out


@rule
class ElicitContentSchemaMismatch(ClientFeatureRule):
    """Checks that accepted form content validates against the requested schema."""

    code, name = "EL007", "elicit-content-schema-mismatch"
    severity, level, spec = Severity.WARNING, "SHOULD", "client/elicitation §Form Mode Security"
    party = "client"
    versions = _ELICITATION
    methods = _METHODS
    hint = "Validate the user's input against requestedSchema before accepting (required fields, types, enums, bounds)."

    def check(self, record, session):
        for answer in answers_to(record, session, METHOD):
            result, schema = answer.result, _schema(answer.params)
            if not isinstance(result, dict) or result.get("action") != "accept" or schema is None \
                    or not is_form(answer.params, answer.revision) or not isinstance(result.get("content"), dict):
                continue
            found = mismatches(result["content"], schema)
            if found:
                yield self.report(record, answer.at("Accepted content does not match requestedSchema: "
                                                    + "; ".join(found)), related=answer.related)


# -- EL008, EL009: URL elicitation required, completion ---------------------------------------
def required_entries(record) -> list | None:
    """``data.elicitations`` of a -32042 error from the server, or None when it is no such error."""
    error = error_of(record)
    if record.direction is Direction.C2S or not isinstance(error, dict) or error.get("code") != URL_REQUIRED:
        return None
    data = error.get("data")
    entries = data.get("elicitations") if isinstance(data, dict) else None
    return entries if isinstance(entries, list) else []


@rule
class UrlElicitationRequiredError(Rule):
    """Checks that -32042 errors list URL-mode elicitations with an elicitationId each."""

    code, name = "EL008", "url-elicitation-required-error"
    severity, level, spec = Severity.ERROR, "MUST", "client/elicitation §URL Elicitation Required Error"
    party = "server"
    versions = _URL_ERA
    kinds = frozenset({Kind.ERROR})
    hint = ('Put the required URL elicitations in error.data.elicitations: [{"mode": "url", '
            '"elicitationId": "...", "url": "https://...", "message": "..."}].')

    def check(self, record, session):
        entries = required_entries(record)
        if entries is None:
            return
        error = error_of(record)
        data = error.get("data")
        if not entries:
            what = ("has no data" if "data" not in error else "has no elicitations list"
                    if not isinstance(data, dict) or not isinstance(data.get("elicitations"), list)
                    else "lists no elicitation")
            yield self.report(record, f"URLElicitationRequiredError (-32042) {what}")
            return
        bad = []
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                bad.append(f"elicitations[{index}] is {json_type(entry)}")
            elif entry.get("mode") != "url":
                bad.append(f"elicitations[{index}] has mode {fmt_id(entry.get('mode')) if 'mode' in entry else 'missing'}, not \"url\"")
            else:
                missing = [m for m in ("elicitationId", "url", "message") if not isinstance(entry.get(m), str)]
                if missing:
                    bad.append(f"elicitations[{index}] lacks {', '.join(missing)}")
        if bad:
            yield self.report(record, "URLElicitationRequiredError (-32042) entries must be URL-mode "
                                      "elicitations with an elicitationId: " + "; ".join(bad))
        caps = legacy_caps(session)
        modes = declared_modes(caps)
        if caps is not None and (modes is None or "url" not in modes):
            yield self.report(record, "URLElicitationRequiredError (-32042) sent although the client did not "
                                      "declare elicitation.url", severity=Severity.WARNING, level="derived",
                              confidence="low", related=_caps_source(session))


@dataclass(slots=True)
class ElicitationFacts:
    ids: Bounded = field(default_factory=lambda: Bounded(100_000))  # elicitationId -> issuing record


@tracker
class ElicitationIds(Tracker):
    """Collects the elicitationIds a server issued (URL-mode requests and -32042 errors)."""

    kinds = frozenset({Kind.REQUEST, Kind.ERROR})
    facts = ElicitationFacts

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        return kind is not Kind.REQUEST or method == METHOD  # errors: -32042 answers any request

    def commit(self, record, session):
        if record.kind is Kind.REQUEST:
            if record.direction is Direction.C2S:
                return
            entries = [record.params]
        else:
            entries = required_entries(record)
            if not entries:
                return
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("elicitationId"), str):
                ElicitationIds.of(session).ids[entry["elicitationId"]] = record


@rule
class ElicitationCompleteUnknownId(Rule):
    """Checks that elicitation completion notifications name an elicitationId the server issued."""

    code, name = "EL009", "elicitation-complete-unknown-id"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", "client/elicitation §Completion Notifications for URL Mode Elicitation"
    party = "server"
    versions = _URL_ERA
    kinds = frozenset({Kind.NOTIFICATION})
    methods = frozenset({COMPLETE})
    hint = "Send notifications/elicitation/complete only with the elicitationId of a URL elicitation sent to this client."

    def check(self, record, session):
        if record.direction is Direction.C2S:
            return
        value = params_of(record).get("elicitationId")
        if not isinstance(value, str):
            shown = "missing" if "elicitationId" not in params_of(record) else json_type(value)
            yield self.report(record, f"Elicitation completion without a string elicitationId ({shown})",
                              level="SCHEMA")
            return
        if value in ElicitationIds.of(session).ids:
            return
        midstream = session.midstream
        yield self.report(record, f"Elicitation completion for elicitationId {fmt_id(value)}, which no URL "
                                  "elicitation or -32042 error of this session issued"
                                  + (" (the capture starts mid-session)" if midstream else ""),
                          severity=Severity.WARNING if midstream else None,
                          confidence="low" if midstream else None)


# -- EL010, EL011: security heuristics --------------------------------------------------------
_B, _E = r"(?<![a-z])", r"(?![a-z])"  # word edges that treat "_" and digits as separators
_SENSITIVE = re.compile(
    rf"(?i)(pass(word|wd|phrase|code)|{_B}pwd{_E}|{_B}api[\s_-]?key|{_B}secret(?!ary)|private[\s_-]?key|"
    rf"{_B}(access|auth|bearer|refresh|session|id)[\s_-]?token|credit[\s_-]?card|{_B}card[\s_-]?(number|no{_E})|"
    rf"{_B}cvv|{_B}cvc{_E}|security[\s_-]?code|{_B}ssn{_E}|social[\s_-]?security|{_B}pin{_E}|"
    rf"one[\s_-]?time[\s_-]?code|{_B}otp{_E})")
_WEAK = re.compile(rf"(?i)({_B}token{_E}|credential|{_B}iban{_E}|bank[\s_-]?account|routing[\s_-]?number)")
_TEXT_TYPES = ("string", "number", "integer")


def sensitive_fields(params: Any) -> tuple[list[str], bool]:
    """Form properties that look like they ask for a secret: (names, strong evidence)."""
    names, strong = [], False
    for name, prop in _properties(params).items():
        if not isinstance(prop, dict) or prop.get("type") not in _TEXT_TYPES or _allowed(prop) is not None:
            continue  # booleans and enums cannot carry a typed-in secret
        title = prop.get("title") if isinstance(prop.get("title"), str) else ""
        texts = [name, title] + ([prop["description"]] if isinstance(prop.get("description"), str) else [])
        if _SENSITIVE_KEY.match(name) or _SENSITIVE.search(name) or _SENSITIVE.search(title) \
                or prop.get("format") == "password":
            names.append(name)
            strong = True
        elif any((_SENSITIVE.search(t) or _WEAK.search(t)) and not _NEGATED.search(t) for t in texts):
            names.append(name)
    return names, strong


#: "do not enter your PIN": a description that warns against a secret does not ask for one
_NEGATED = re.compile(r"(?i)\b(?:do not|don't|never|not|no|without|avoid)\b")


@rule
class SensitiveDataViaForm(ClientFeatureRule):
    """Checks for form-mode elicitations whose fields ask for passwords, API keys, tokens or card data."""

    code, name = "EL010", "sensitive-data-via-form"
    severity, level, spec = Severity.WARNING, "MUST NOT", "client/elicitation §User Interaction Model"
    party = "server"
    confidence = "low"
    versions = _ELICITATION
    methods = _METHODS
    hint = ("Never collect credentials or payment data through a form; from 2025-11-25 send a URL-mode "
            "elicitation to a page of your own instead.")

    def check(self, record, session):
        for ask in asks_for(record, session, METHOD):
            if not is_form(ask.params, ask.revision):
                continue
            names, strong = sensitive_fields(ask.params)
            if names:
                instead = "" if before(ask.revision, _V25C) else "; use URL mode for sensitive data"
                yield self.report(record, ask.at("Form-mode elicitation seems to ask for sensitive data: "
                                                 + ", ".join(fmt_id(n) for n in names) + instead),
                                  confidence="high" if strong else None)


_SECRET_PARAMS = frozenset({
    "token", "access_token", "id_token", "refresh_token", "auth_token", "code", "key", "api_key", "apikey",
    "api-key", "password", "passwd", "pwd", "secret", "client_secret", "sig", "signature",
    "x-amz-signature", "x-goog-signature", "x-amz-credential", "x-amz-security-token",
})
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")
_LINK = re.compile(r"(?i)\bhttps?://[^\s\"'<>]+")


def url_problems(url: Any) -> list[Problem]:
    """Credentials, token-like parameters and plain http in an elicitation URL."""
    if not isinstance(url, str) or not valid_url(url):
        return []  # EL004
    parts = urlsplit(url)
    problems: list[Problem] = []
    if parts.password:
        problems.append((Severity.ERROR, "the URL carries a user name and password"))
    elif parts.username:
        problems.append((Severity.WARNING, "the URL carries a user name"))
    bare = url.replace(parts.netloc, parts.netloc.rpartition("@")[2], 1) if "@" in parts.netloc else url
    if _TOKEN.search(bare):
        problems.append((Severity.ERROR, "the URL holds a token-shaped secret"))
    names = sorted({name for name, _ in parse_qsl(parts.query + "&" + parts.fragment, keep_blank_values=False)
                    if name.lower() in _SECRET_PARAMS})
    if names:
        problems.append((Severity.WARNING, "the URL has credential-like parameters ("
                         + ", ".join(names) + "); it may be pre-authenticated"))
    if parts.scheme.lower() == "http" and (parts.hostname or "").lower() not in _LOCAL_HOSTS:
        problems.append((Severity.INFO, "the URL uses http, not https"))
    return problems


def _texts(value: Any, depth: int = 0):
    if depth > 8:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item, depth + 1)


def _level_of(problems: list[Problem]) -> str:
    return "MUST NOT" if any(s is not Severity.INFO for s, _ in problems) else "SHOULD"


@rule
class UnsafeElicitationUrl(Rule):
    """Checks elicitation URLs for credentials, pre-authentication and plain http, and forms for links."""

    code, name = "EL011", "unsafe-elicitation-url"
    severity, level, spec = Severity.WARNING, "MUST NOT", "client/elicitation §Safe URL Handling"
    party = "server"
    confidence = "low"
    versions = _MODES
    kinds = frozenset({Kind.REQUEST, Kind.RESULT, Kind.ERROR})
    hint = ("Send a URL without credentials, user data or access tokens, over https; the page itself "
            "must authenticate the user.")

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        # exactly the records check() can judge: an elicitation/create request of a handshake
        # revision, a 2026-07-28 result (inputRequests, whatever it answers) and a 2025-11-25
        # error (a -32042 answers any request); asks_for() and check() test the same facts
        if kind is Kind.REQUEST:
            return method == METHOD and revision not in protocol.MODERN
        if kind is Kind.RESULT:
            return revision in protocol.MODERN
        return revision in _URL_ERA

    def check(self, record, session):
        if record.kind is Kind.ERROR:
            if record.revision in _URL_ERA:
                for index, entry in enumerate(required_entries(record) or ()):
                    if isinstance(entry, dict):
                        yield from self._url(Ask(record, entry, f"data.elicitations[{index}]", None, record.revision))
            return
        for ask in asks_for(record, session, METHOD):
            mode = mode_of(ask.params)
            if mode == "url" and isinstance(ask.params, dict):
                yield from self._url(ask)
            elif mode == "form" and isinstance(ask.params, dict):
                links = sorted({m.group(0) for text in _texts([ask.params.get("message"), _schema(ask.params)])
                                for m in _LINK.finditer(text)})
                if links:
                    yield self.report(record, ask.at(f"Form-mode elicitation contains {len(links)} link(s) a "
                                                     "client might render clickable"),
                                      severity=Severity.INFO, level="SHOULD NOT")

    def _url(self, ask: Ask):
        problems = url_problems(ask.params.get("url"))
        worst_error = any(s is Severity.ERROR for s, _ in problems)
        yield from report_problems(self, ask, problems, lead="Unsafe elicitation URL",
                                   confidence="high" if worst_error else None, level=_level_of(problems))

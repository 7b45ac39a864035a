"""Logging (LG): ``notifications/message``, ``logging/setLevel`` and the 2026-07-28 per-request level.

Handshake revisions: a server that declared ``logging`` sends ``notifications/message`` and the
client may set the minimum level with ``logging/setLevel`` (server/utilities/logging).
2026-07-28 replaced ``setLevel`` by ``_meta["io.modelcontextprotocol/logLevel"]`` on each
request: without it the server MUST NOT log for that request (and the feature is deprecated).

Capability gating of ``notifications/message`` in the handshake revisions is CAP003's; LG001
covers what CAP003 cannot judge (log messages sent before the initialize result, and the
``server/discover`` capabilities of 2026-07-28). The level set by ``logging/setLevel`` is kept by
:class:`LoggingTracker`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded, Phase
from mcplint.excerpt import _SENSITIVE_KEY, _TOKEN  # the redaction engine will supersede these
from mcplint.model import Direction, Kind, Record, Severity, id_key
from mcplint.rules._base import (
    NOTIFICATIONS,
    REQUESTS,
    RESPONSES,
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
from mcplint.rules._feature_helpers import (
    ENVELOPE_CODES,
    a,
    error_code,
    plural,
    request_meta,
    shown,
)
from mcplint.rules._secrets import might_hold_log_secret
from mcplint.rules.schema import FOLDED, Accepting

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
RANK = {level: rank for rank, level in enumerate(LEVELS)}
LOG_LEVEL_META = "io.modelcontextprotocol/logLevel"
SUBSCRIPTION_META = "io.modelcontextprotocol/subscriptionId"
MESSAGE = "notifications/message"
SET_LEVEL = "logging/setLevel"

# (module names: ``Direction.S2C`` is a class-attribute lookup, about 0.9k instructions)
_S2C, _NOTIFICATION = Direction.S2C, Kind.NOTIFICATION
#: the phases in which a legacy session's log message concerns LG001 (before the initialize result)
_EARLY = frozenset({Phase.NEW, Phase.INITIALIZING})

_CAPS = "server/utilities/logging §Capabilities"
_LEVELS = "server/utilities/logging §Log Levels"
_ERRORS = "server/utilities/logging §Error Handling"
_SECURITY = "server/utilities/logging §Security"
_PER_REQUEST = "server/utilities/logging §Per-request log level"

#: Common non-syslog spellings and what the client or server probably meant.
_ALIASES = {"warn": "warning", "fatal": "critical", "trace": "debug", "verbose": "debug", "err": "error",
            "crit": "critical", "emerg": "emergency", "information": "info", "informational": "info",
            "severe": "error", "panic": "emergency", "dbg": "debug", "all": "debug", "log": "info"}


def is_level(value: Any) -> bool:
    """Whether ``value`` is one of the eight level names (any JSON value may come in)."""
    return isinstance(value, str) and value in RANK


def level_problem(value: Any, present: bool = True) -> str | None:
    """Why ``value`` is no LoggingLevel, with the likely intended name; None when it is one."""
    if not present:
        return "is missing"
    if isinstance(value, str) and value in RANK:
        return None
    if not isinstance(value, str):
        return f"is {a(value)}, not one of the 8 level names"
    meant = value.lower() if value.lower() in RANK else _ALIASES.get(value.lower())
    return f"{shown(value)} is not a level name" + (f' (use "{meant}")' if meant else "")


def request_log_level(record: Record | None) -> tuple[bool, Any]:
    """``(present, value)`` of a 2026-07-28 request's ``_meta`` log level."""
    meta = request_meta(record)
    return LOG_LEVEL_META in meta, meta.get(LOG_LEVEL_META)


def is_log(record: Record) -> bool:
    return record.method == MESSAGE and record.direction is _S2C


_PARAMS = Accepting("notification", MESSAGE)


@feature(FOLDED["notification", MESSAGE], Kind.NOTIFICATION, MESSAGE)
def plain_log(record: Record) -> bool:
    """A ``notifications/message`` that none of LG001, LG002, LG005, LG006 and SV002 (which require
    the feature "odd-log") can report, by each one's first tests: params an object with a ``level``
    that is a level name (LG002) and a ``data`` member (LG005), on a line without any literal that
    LG006's patterns need (:func:`might_hold_log_secret`), in a session of the handshake era past
    its initialize request's answer (LG001 judges a 2026-07-28 server's capabilities, and keeps
    the messages sent before the initialize result), params the acceptor of their type vouches for
    (SV002: as ``schema.plain_notification``, which the engine does not ask of a log message:
    ``schema.FOLDED``)."""
    params = record.params
    if type(params) is not dict or "data" not in params:
        return False
    level = params.get("level")  # (is_level() and is_log() inline: the method is MESSAGE)
    if type(level) is not str or level not in RANK:
        return False
    session = record.session
    if session.modern or session.phase in _EARLY:
        return False  # LG001
    if record.direction is _S2C and might_hold_log_secret(record.data, record.signs):
        return False  # LG006
    return _PARAMS.vouches(record, params)  # SV002


_LEVEL_SET = "logging:level-set"
_LEVEL_SET_FACTS = frozenset({_LEVEL_SET})


# -- tracker: the level set with logging/setLevel ------------------------------------------
@dataclass(slots=True)
class LoggingFacts:
    level: str | None = None  # the minimum level the server acknowledged
    level_request: Record | None = None
    pending: Bounded = field(default_factory=lambda: Bounded(1_000))  # id_key -> level of setLevel requests not yet answered


@tracker
class LoggingTracker(Tracker):
    """The log level acknowledged by the last successful ``logging/setLevel``."""

    kinds = REQUESTS | RESPONSES
    methods = frozenset({SET_LEVEL})
    facts = LoggingFacts

    def commit(self, record, session):
        facts = self.of(session)
        if record.kind is Kind.REQUEST:
            level = params_of(record).get("level")
            if record.direction is Direction.C2S and record.has_id and is_level(level):
                facts.pending[id_key(record.id)] = level
            return
        if record.answer not in ("ok", "after-cancel") or record.request is None:
            return
        level = facts.pending.pop(id_key(record.request.id), None)
        if record.kind is Kind.RESULT and level is not None:
            facts.level, facts.level_request = level, record.request
            if _LEVEL_SET not in session.plan_facts:  # LG004 waits for the first acknowledged level
                set_plan_facts(session, _LEVEL_SET, _LEVEL_SET_FACTS)

    @classmethod
    def threshold(cls, session) -> tuple[str | None, Record | None]:
        """The lowest level the server may currently use: the acknowledged one, or a lower one a
        pending setLevel asks for (the server may apply it before answering)."""
        facts = cls.of(session)
        level = facts.level
        if level is not None:
            for pending in facts.pending.values():
                if RANK[pending] < RANK[level]:
                    level = pending
        return level, facts.level_request


# -- LG001 -----------------------------------------------------------------------------------
_EARLY_KEPT = 20  # log messages before the initialize result remembered (and reported) per session


@rule
class LogWithoutCapability(Rule):
    """Checks for log messages from servers whose capabilities lack `logging`, where CAP003 cannot tell."""

    code, name = "LG001", "log-without-capability"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _CAPS
    kinds = NOTIFICATIONS | frozenset({Kind.RESULT})
    methods = frozenset({MESSAGE, "initialize"})
    requires = frozenset({"odd-log"})  # not called on a plain_log() message (initialize results: always)
    hint = 'Declare "logging": {} in the server capabilities, or do not send notifications/message.'

    def check(self, record, session):
        if record.kind is not _NOTIFICATION:
            return self._initialize_result(record, session)
        if not is_log(record):
            return ()
        if session.modern:
            caps = session.server_caps
            if isinstance(caps, dict) and not isinstance(caps.get("logging"), dict):
                return [self.report(record, "Server sent a log message although its server/discover "
                                            "result declares no 'logging' capability")]
        elif session.phase in (Phase.NEW, Phase.INITIALIZING):
            early = session.state_for(self).setdefault("early", [])
            if len(early) < _EARLY_KEPT:
                early.append(record)
        return ()

    def _initialize_result(self, record, session):
        """Judge the log messages sent before the capabilities were known."""
        state = session.state.get(_LG001_STATE)  # (kept_state inline: most sessions keep no message)
        early = state.pop("early", ()) if state else ()
        if not early:
            return ()
        result = result_of(record)
        caps = result.get("capabilities") if isinstance(result, dict) else None
        if record.direction is not Direction.S2C or not isinstance(caps, dict) or "logging" in caps:
            return ()
        return [self.report(log, f"Server sent this log message before its initialize result, which "
                                 f"then declared no 'logging' capability ({where(record)})",
                            related=[(record, "initialize result without logging")]) for log in early]


_LG001_STATE = LogWithoutCapability.__name__  # (Session.state_for)


# -- LG002 -----------------------------------------------------------------------------------
@rule
class LogLevelInvalid(Rule):
    """Checks that log levels are one of the 8 syslog names (messages, setLevel, request `_meta`)."""

    code, name = "LG002", "log-level-invalid"
    severity, level, spec = Severity.ERROR, "SCHEMA", _LEVELS
    kinds = REQUESTS | NOTIFICATIONS
    requires = frozenset({"odd-log"})  # not called on a plain_log() message
    hint = ('Use one of "debug", "info", "notice", "warning", "error", "critical", "alert", '
            '"emergency" (lower case).')

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        if kind is Kind.NOTIFICATION:
            return method == MESSAGE
        return method == SET_LEVEL or revision in protocol.MODERN

    def check(self, record, session):
        if record.kind is not Kind.NOTIFICATION:
            return self._request(record)
        params = record.params
        problem = level_problem(params.get("level"), "level" in params) \
            if record.method == MESSAGE and isinstance(params, dict) else None
        return [self.report(record, f"Log message level {problem}")] if problem else ()

    def _request(self, record):
        if record.method == SET_LEVEL:
            params = params_of(record)
            problem = level_problem(params.get("level"), "level" in params)
            if problem and isinstance(record.params, dict):
                yield self.report(record, f"logging/setLevel level {problem}")
        elif record.revision in protocol.MODERN and record.direction is Direction.C2S:
            present, value = request_log_level(record)
            problem = level_problem(value) if present else None
            if problem:
                yield self.report(record, f"_meta[{LOG_LEVEL_META!r}] {problem}")


# -- LG003 -----------------------------------------------------------------------------------
@rule
class SetLevelInvalidAccepted(Rule):
    """Checks that `logging/setLevel` with an unknown level is refused with -32602."""

    code, name = "LG003", "setlevel-invalid-accepted"
    severity, level, spec = Severity.WARNING, "SHOULD", _ERRORS
    party = "server"
    versions = protocol.LEGACY
    kinds = RESPONSES
    methods = frozenset({SET_LEVEL})
    answers = frozenset({"ok"})
    hint = "Reject a logging/setLevel with an unknown level with -32602 (Invalid params)."

    def check(self, record, session):
        yield from invalid_level_answer(self, record, params_of(record.request).get("level"),
                                        "level" in params_of(record.request), "logging/setLevel level")


def invalid_level_answer(rule_: Rule, record: Record, value: Any, present: bool, what: str):
    """LG003/LG008: the answer to a request whose level is invalid must be a -32602 error."""
    problem = level_problem(value, present)
    if problem is None or record.direction is not Direction.S2C:
        return
    related = [(record.request, "request")]
    if record.kind is Kind.RESULT:
        yield rule_.report(record, f"Server accepted a request whose {what} {problem}; it should "
                                   "refuse it with -32602", related=related)
        return
    code = error_code(record)
    if type(code) is int and code != -32602 and code not in ENVELOPE_CODES:
        yield rule_.report(record, f"Server refused a request whose {what} {problem} with code "
                                   f"{fmt_id(code)} instead of -32602", severity=Severity.INFO,
                           related=related)


# -- LG004 -----------------------------------------------------------------------------------
@rule
class LogBelowThreshold(Rule):
    """Checks for log messages below the minimum level the client set with `logging/setLevel`."""

    code, name = "LG004", "log-below-threshold"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD", "server/utilities/logging §Setting Log Level"
    versions = protocol.LEGACY
    kinds = NOTIFICATIONS
    methods = frozenset({MESSAGE})
    hint = "Drop log messages below the level the client set with logging/setLevel."

    @classmethod
    def awaits(cls, facts, kind, method):
        return _LEVEL_SET in facts  # LoggingTracker: no threshold before a level was acknowledged

    def check(self, record, session):
        facts = session.state.get(LoggingTracker)  # (read, not made: most sessions never set a level)
        if facts is None or facts.level is None or not is_log(record):
            return ()  # no level acknowledged: no threshold (LoggingTracker.threshold)
        level = params_of(record).get("level")
        threshold, source = LoggingTracker.threshold(session)
        if threshold is None or not is_level(level) or RANK[level] >= RANK[threshold]:
            return ()
        return [self.report(record, f"Log message at level {level!r} although the client set the minimum "
                                    f"level to {threshold!r}", related=[(source, "logging/setLevel")],
                            level="should (schema)")]


# -- LG005 -----------------------------------------------------------------------------------
@rule
class LogDataMissing(Rule):
    """Checks that log messages carry the required `data` member."""

    code, name = "LG005", "log-data-missing"
    severity, level, spec = Severity.ERROR, "SCHEMA", "server/utilities/logging §Log Message Notifications"
    kinds = NOTIFICATIONS
    methods = frozenset({MESSAGE})
    requires = frozenset({"odd-log"})  # not called on a plain_log() message
    hint = 'Put the log payload in params.data (any JSON value, e.g. "data": "connected").'

    def check(self, record, session):
        if record.params is None and "params" not in record.msg:
            return [self.report(record, "Log message has no params: level and data are required")]
        if isinstance(record.params, dict) and "data" not in record.params:
            others = [k for k in ("message", "msg", "text") if k in record.params]
            extra = f" (the text is in {others[0]!r}, which clients ignore)" if others else ""
            return [self.report(record, f"Log message has no 'data' member{extra}")]
        return ()


# -- LG006 -----------------------------------------------------------------------------------
_TOKEN_KINDS = (("gh", "a GitHub token"), ("github_pat_", "a GitHub token"), ("glpat-", "a GitLab token"),
                ("xox", "a Slack token"), ("sk-ant-", "an Anthropic API key"), ("sk-", "an API key"),
                ("sk_", "a Stripe key"), ("rk_", "a Stripe key"), ("AKIA", "an AWS access key id"),
                ("AIza", "a Google API key"), ("hf_", "a Hugging Face token"), ("npm_", "an npm token"),
                ("eyJ", "a JSON Web Token"), ("-----BEGIN", "a private key"))
_KEY_VALUE = re.compile(
    r"(?i)\b(password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?token|refresh[_-]?token"
    r"|auth[_-]?token)\b\s*[=:]\s*[\"']?([^\s\"',;&}]{4,})")
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\b")
_RESERVED_DOMAINS = re.compile(r"(?i)(^|\.)(example\.(com|net|org)|example|test|invalid|localhost|local)$")
_MASKED = re.compile(r"^(\*+|x{3,}|X{3,}|\.{3,}|<[^>]*>|\[[^\]]*\]|\$\{[^}]*\}|redacted|hidden|null|none)$", re.IGNORECASE)
_SCAN_LIMIT = 256 * 1024  # characters of log data scanned per message
#: The shortest text ``_TOKEN`` matches without an "@" (``xoxb-`` and 10 characters; the URL
#: password alternative needs the "@"): shorter strings are not searched at all.
_TOKEN_MIN = 15


def token_kind(text: str) -> str:
    lowered = text.lower()
    if lowered.startswith(("bearer", "basic")):
        return "an Authorization credential"
    for prefix, kind in _TOKEN_KINDS:
        if text.startswith(prefix):
            return kind
    return "a password in a URL"


def secrets_in(value: Any, path: str = "data", budget: list | None = None) -> list[tuple[int, str, str]]:
    """``(rank, what, where)`` of credential-shaped content in a log payload.

    rank 2: a known credential format (token prefixes, JWT, private key, URL password);
    rank 1: a value under a sensitive key or ``password=...`` text; rank 0: an e-mail address.
    """
    budget = budget if budget is not None else [_SCAN_LIMIT]
    found: list[tuple[int, str, str]] = []
    if budget[0] <= 0:
        return found
    if isinstance(value, str):
        budget[0] -= len(value)
        text = value[:_SCAN_LIMIT]
        at = "@" in text  # e-mail addresses and URL passwords need one
        match = _TOKEN.search(text) if at or len(text) >= _TOKEN_MIN else None
        if match:
            found.append((2, token_kind(match.group(0)), path))
        kv = _KEY_VALUE.search(text) if "=" in text or ":" in text else None
        if kv and not _MASKED.match(kv.group(2)) and not match:
            found.append((1, f"a secret ({kv.group(1).lower()}=...)", path))
        for email in _EMAIL.finditer(text) if at else ():
            if not _RESERVED_DOMAINS.search(email.group(1)):
                found.append((0, "an e-mail address (personal data)", path))
                break
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if isinstance(key, str) and key.isidentifier() else f"{path}[{shown(key)}]"
            if isinstance(key, str) and _SENSITIVE_KEY.match(key) and isinstance(item, str) \
                    and item and not _MASKED.match(item) and not _TOKEN.search(item):
                found.append((1, f"a secret (the value of {key!r})", where))
            else:
                found.extend(secrets_in(item, where, budget))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(secrets_in(item, f"{path}[{index}]", budget))
    return found


@rule
class LogContainsSecrets(Rule):
    """Checks log messages for credentials, secrets and personal data (pattern scan)."""

    code, name = "LG006", "log-contains-secrets"
    severity, level, spec = Severity.ERROR, "MUST NOT", _SECURITY
    kinds = NOTIFICATIONS
    methods = frozenset({MESSAGE})
    requires = frozenset({"odd-log"})  # not called on a plain_log() message
    hint = "Remove or mask credentials and personal data before logging (e.g. log only the last 4 characters)."

    def check(self, record, session):
        # record.data is the message's JSON text (a batch element's: its batch's): every value
        # secrets_in matches needs a literal of might_hold_log_secret there, in any ASCII case,
        # JSON-escaped or spelled with a letter that case-folds to ASCII (tests/test_rules_logging)
        if not is_log(record) or not might_hold_log_secret(record.data, record.signs):
            return ()
        params = params_of(record)
        found = secrets_in(params.get("data"))
        if isinstance(params.get("logger"), str):
            found += secrets_in(params["logger"], "logger")
        if not found:
            return ()
        found.sort(key=lambda item: -item[0])
        rank, what, where = found[0]
        more = f" and {plural(len(found) - 1, 'more finding')}" if len(found) > 1 else ""
        severity, confidence = ((Severity.ERROR, "high") if rank == 2 else
                                (Severity.WARNING, "low") if rank == 1 else (Severity.INFO, "low"))
        return [self.report(record, f"Log message contains what looks like {what} at {where}{more}",
                            severity=severity, confidence=confidence)]


# -- LG007 -----------------------------------------------------------------------------------
_PENDING_SCAN = 10_000


def log_requests(session) -> tuple[int, list[tuple[Record, str]]]:
    """(number of in-flight client requests, those among them that set a valid log level)."""
    count, opted = 0, []
    for entry in session.pending[Direction.C2S].values():
        if count >= _PENDING_SCAN:
            break
        request = entry.record
        if request.method == "subscriptions/listen":
            continue  # a listen stream never carries log messages (SB005)
        count += 1
        present, level = request_log_level(request)
        if present and is_level(level):
            opted.append((request, level))
    return count, opted


@rule
class ModernLogWithoutLoglevel(Rule):
    """Checks that 2026-07-28 servers log only for in-flight requests that set a log level, at or above it."""

    code, name = "LG007", "modern-log-without-loglevel"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST NOT", _PER_REQUEST
    versions = protocol.MODERN
    kinds = NOTIFICATIONS
    methods = frozenset({MESSAGE})
    hint = ('Send notifications/message only while answering a request whose _meta carries '
            '"io.modelcontextprotocol/logLevel", at or above that level, before its response.')

    def check(self, record, session):
        if not is_log(record):
            return
        meta = params_of(record).get("_meta")
        if isinstance(meta, dict) and SUBSCRIPTION_META in meta:
            return  # delivered on a listen stream: SB005
        confidence = "low" if session.midstream else None
        in_flight, opted = log_requests(session)
        if not opted:
            why = ("no client request is in flight" if not in_flight else
                   f"none of the {plural(in_flight, 'in-flight request')} carries _meta[{LOG_LEVEL_META!r}]")
            yield self.report(record, f"Server sent a log message although {why}", confidence=confidence)
            return
        level = params_of(record).get("level")
        lowest = min(opted, key=lambda item: RANK[item[1]])
        if is_level(level) and RANK[level] < RANK[lowest[1]]:
            yield self.report(record, f"Log message at level {level!r} is below the level every in-flight "
                                      f"request asked for (lowest: {lowest[1]!r})", confidence=confidence,
                              related=[(lowest[0], "request with the lowest log level")])


# -- LG008 -----------------------------------------------------------------------------------
@rule
class ModernInvalidLoglevelAccepted(Rule):
    """Checks that 2026-07-28 requests with an unknown `_meta` log level are refused with -32602."""

    code, name = "LG008", "modern-invalid-loglevel-accepted"
    severity, level, spec = Severity.WARNING, "SHOULD", _ERRORS
    party = "server"
    versions = protocol.MODERN
    kinds = RESPONSES
    answers = frozenset({"ok"})
    hint = "Reject a request whose io.modelcontextprotocol/logLevel is not a level name with -32602."

    def check(self, record, session):
        present, value = request_log_level(record.request)
        if present and record.request.direction is Direction.C2S:  # input_required counts as accepted
            yield from invalid_level_answer(self, record, value, True, f"_meta[{LOG_LEVEL_META!r}]")

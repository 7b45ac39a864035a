"""``_meta`` (MT): the metadata object of params and results, its key syntax, the prefixes MCP
reserves, the OpenTelemetry trace-context keys and (2026-07-28) extension identifiers.

Only ``params._meta`` of requests and notifications and ``result._meta`` of results are judged,
and only when present, so that these rules cost next to nothing on ordinary traffic.
The reserved-prefix rule changed between revisions (catalog §29 item 9): 2025-06-18 reserves a
prefix with a ``mcp``/``modelcontextprotocol`` label followed by another label
(``mcp.dev/``), 2025-11-25 and later one whose *second* label is ``mcp``/``modelcontextprotocol``
(``io.modelcontextprotocol/``, ``dev.mcp/``). Each revision is judged by its own rule.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from mcplint import protocol
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import MESSAGES, Rule, fmt_id, params_of, result_of, rule
from mcplint.rules._embedded import json_type

_SPEC = "basic §_meta"
_KEYS_ERA = protocol.since(protocol.V2025_06_18)

_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_PREFIX = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_NAME = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?")
_RESERVED_LABELS = frozenset({"mcp", "modelcontextprotocol"})

#: ``_meta`` keys the specification (or an official extension) defines under a reserved prefix.
KNOWN_KEYS = frozenset({
    "io.modelcontextprotocol/related-task",  # 2025-11-25 tasks
    "io.modelcontextprotocol/model-immediate-response",  # 2025-11-25 tasks
    protocol.PROTOCOL_VERSION_META,  # 2026-07-28 request metadata ...
    "io.modelcontextprotocol/clientInfo",
    protocol.CLIENT_CAPABILITIES_META,
    "io.modelcontextprotocol/logLevel",
    "io.modelcontextprotocol/serverInfo",
    "io.modelcontextprotocol/subscriptionId",
})
_OFFICIAL = "io.modelcontextprotocol"  # official extensions define further keys under it
TRACE_KEYS = ("traceparent", "tracestate", "baggage")
_RESULT = Kind.RESULT


def meta_of(record: Record) -> tuple[str, Any] | None:
    """``(where, value)`` of the record's ``params._meta`` or ``result._meta``, when present."""
    if record.kind is _RESULT:
        holder, where = result_of(record), "result._meta"
    else:
        holder, where = record.params, "params._meta"
    if isinstance(holder, dict) and "_meta" in holder:
        return where, holder["_meta"]
    return None


def meta_object(record: Record) -> tuple[str, dict] | None:
    """``(where, value)`` of a present, non-empty ``_meta`` object."""
    found = meta_of(record)
    if found is None:
        return None
    meta = found[1]
    return found if meta and isinstance(meta, dict) else None


def key_problem(key: str, prefix_required: bool = False) -> str | None:
    """Why ``key`` is not a valid ``_meta`` key (prefix ``label(.label)*/`` + name), or None."""
    if len(key) <= 128:  # the same few keys come on every message: remember their verdicts
        return _remembered_key_problem(key, prefix_required)
    return _key_problem(key, prefix_required)


def _key_problem(key: str, prefix_required: bool) -> str | None:
    prefix, slash, name = key.partition("/")
    if not slash:
        if prefix_required:
            return "has no prefix (reverse-DNS labels followed by '/')"
        prefix, name = "", key
    elif not _PREFIX.fullmatch(prefix):
        return (f"has an invalid prefix {prefix + '/'!r} (dot-separated labels that start with a letter, "
                "end with a letter or digit, with letters, digits or hyphens between)")
    if not _NAME.fullmatch(name):
        return (f"has an invalid name {name!r} (it must start and end with a letter or digit, with "
                "letters, digits, '-', '_' or '.' between)")
    return None


_remembered_key_problem = lru_cache(maxsize=4096)(_key_problem)


def reserved_prefix(key: str, revision: str | None) -> bool:
    """Whether ``key``'s prefix is reserved for MCP under the rule of ``revision``."""
    prefix, slash, _ = key.partition("/")
    if not slash:
        return False
    labels = prefix.lower().split(".")
    if revision == protocol.V2025_06_18:
        return any(label in _RESERVED_LABELS for label in labels[:-1])
    return len(labels) >= 2 and labels[1] in _RESERVED_LABELS


@rule
class MetaNotObject(Rule):
    """Checks that ``_meta`` in params and results is a JSON object."""

    code, name = "MT001", "meta-not-object"
    severity, level, spec = Severity.ERROR, "SCHEMA", _SPEC
    kinds, requires = MESSAGES, frozenset({"meta"})
    hint = 'Send _meta as an object ({"progressToken": 1}) or leave it out.'

    def check(self, record, session):
        found = meta_of(record)
        if found is None or isinstance(found[1], dict):
            return ()
        where, meta = found
        return [self.report(record, f"{where} is {json_type(meta)}, not an object")]


@rule
class MetaKeySyntax(Rule):
    """Checks that ``_meta`` keys are an optional reverse-DNS prefix plus a well-formed name."""

    code, name = "MT002", "meta-key-syntax"
    severity, level, spec = Severity.ERROR, "MUST", _SPEC
    versions = _KEYS_ERA
    kinds, requires = MESSAGES, frozenset({"meta"})
    hint = 'Name _meta keys like "com.example/my-key": labels start with a letter, names start and end alphanumeric.'

    def check(self, record, session):
        found = meta_object(record)
        if found is None:
            return ()
        where, meta = found
        for key in meta:  # nearly always valid: no list (nor list-comprehension frame) for them
            if key_problem(key):
                break
        else:
            return ()
        bad = [f"{fmt_id(key)} {problem}" for key in meta if (problem := key_problem(key))]
        return [self.report(record, f"Invalid {where} key(s): " + "; ".join(bad),
                            confidence="low" if record.revision is None else None)]


@rule
class MetaReservedPrefixMisuse(Rule):
    """Checks for ``_meta`` keys under a prefix reserved for MCP that the specification does not define."""

    code, name = "MT003", "meta-reserved-prefix-misuse"
    severity, level, spec = Severity.WARNING, "MUST NOT", _SPEC
    versions = _KEYS_ERA
    kinds, requires = MESSAGES, frozenset({"meta"})
    hint = 'Put your own metadata under a prefix of your own domain (e.g. "com.example/"), not an MCP-reserved one.'

    def check(self, record, session):
        revision = record.revision
        found = meta_object(record) if revision is not None else None  # the rule depends on the revision
        if found is None:
            return ()
        where, meta = found
        bad = None  # as in MT002: a list only when some key is reported
        for key in meta:
            if key not in KNOWN_KEYS and reserved_prefix(key, revision) and key_problem(key) is None:
                bad = [key] if bad is None else bad + [key]
        if bad is None:
            return ()
        official = all(key.partition("/")[0].lower() == _OFFICIAL for key in bad)
        return [self.report(record, f"{where} uses key(s) under a prefix reserved for MCP in {revision} "
                                    "that the specification does not define: "
                                    + ", ".join(fmt_id(k) for k in bad)
                                    + (" (an official extension may define them)" if official else ""),
                            confidence="low" if official else None)]


# -- MT004: W3C trace context -----------------------------------------------------------------
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")
_TS_KEY = re.compile(r"[a-z0-9][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13}")
_TS_VALUE = re.compile(r"[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_BAGGAGE_VALUE = re.compile(r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*")


def traceparent_problem(value: str) -> str | None:
    match = _TRACEPARENT.fullmatch(value)
    if match is None:
        return "is not version-traceid-parentid-flags in lowercase hex (2-32-16-2 digits)"
    version, trace_id, parent_id, _, rest = match.groups()
    if version == "ff":
        return "has the invalid version ff"
    if version == "00" and rest:
        return "has extra fields after the flags (version 00 has exactly four)"
    if trace_id == "0" * 32:
        return "has an all-zero trace-id"
    if parent_id == "0" * 16:
        return "has an all-zero parent-id"
    return None


def tracestate_problem(value: str) -> str | None:
    members = [m.strip(" \t") for m in value.split(",")]
    members = [m for m in members if m]
    if len(members) > 32:
        return f"has {len(members)} list members (at most 32)"
    for member in members:
        key, eq, val = member.partition("=")
        if not eq or not _TS_KEY.fullmatch(key) or not _TS_VALUE.fullmatch(val):
            return f"has a malformed list member {member[:40]!r} (key=value, lowercase key)"
    return None


def baggage_problem(value: str) -> str | None:
    for member in value.split(","):
        entry, *properties = member.split(";")
        key, eq, val = entry.partition("=")
        if not eq or not _TOKEN.fullmatch(key.strip(" \t")) or not _BAGGAGE_VALUE.fullmatch(val.strip(" \t")):
            return f"has a malformed list member {member.strip()[:40]!r} (key=value, percent-encoded value)"
        for prop in properties:
            pkey, peq, pval = prop.partition("=")
            if not _TOKEN.fullmatch(pkey.strip(" \t")) or (peq and not _BAGGAGE_VALUE.fullmatch(pval.strip(" \t"))):
                return f"has a malformed property {prop.strip()[:40]!r}"
    return None


_TRACE_CHECKS = {"traceparent": traceparent_problem, "tracestate": tracestate_problem, "baggage": baggage_problem}


@rule
class TraceContextFormat(Rule):
    """Checks that traceparent, tracestate and baggage in ``_meta`` follow W3C Trace Context and Baggage."""

    code, name = "MT004", "trace-context-format"
    severity, level, spec = Severity.ERROR, "MUST", "basic §_meta"
    versions = protocol.MODERN
    kinds, requires = MESSAGES, frozenset({"meta"})
    hint = 'Send traceparent as "00-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>" (W3C Trace Context).'

    def check(self, record, session):
        found = meta_object(record)
        if found is None:
            return
        where, meta = found
        for key in TRACE_KEYS:
            if key not in meta:
                continue
            value = meta[key]
            problem = _TRACE_CHECKS[key](value) if isinstance(value, str) else f"is {json_type(value)}, not a string"
            if problem:
                yield self.report(record, f"{where}.{key} {problem}")


# -- MT005: extension identifiers (2026-07-28) ------------------------------------------------
@rule
class ExtensionIdSyntax(Rule):
    """Checks that capability extension identifiers are prefixed ``_meta``-style keys."""

    code, name = "MT005", "extension-id-syntax"
    severity, level, spec = Severity.ERROR, "MUST", "basic/versioning §Extension Negotiation"
    versions = protocol.MODERN
    kinds = frozenset({Kind.REQUEST, Kind.RESULT})
    hint = 'Identify extensions as "<reverse-dns>/<name>", e.g. "io.modelcontextprotocol/tasks" or "com.example/my-ext".'

    def check(self, record, session):
        if record.kind is Kind.REQUEST:
            if record.direction is Direction.S2C:
                return
            meta = params_of(record).get("_meta")
            caps = meta.get(protocol.CLIENT_CAPABILITIES_META) if isinstance(meta, dict) else None
            side, where = "client", "clientCapabilities"
        else:
            request = record.request
            if request is None or request.method != "server/discover" or record.direction is Direction.C2S:
                return
            result = result_of(record)
            caps = result.get("capabilities") if isinstance(result, dict) else None
            side, where = "server", "server/discover capabilities"
        extensions = caps.get("extensions") if isinstance(caps, dict) else None
        if not isinstance(extensions, dict):
            return
        seen = session.state_for(self).setdefault(side, set())  # client caps repeat on every request
        bad = []
        for key in extensions:
            problem = key_problem(key, prefix_required=True)
            if problem and key not in seen:
                seen.add(key)
                bad.append(f"{fmt_id(key)} {problem}")
        if bad:
            yield self.report(record, f"Invalid extension identifier(s) in the {where}: " + "; ".join(bad))

"""Authorization on the wire (AU): bearer tokens on every request, never in the URL, and the
401/403 challenges that tell the client where and how to get one (HTTP only, from 2025-03-26).

Token values are never shown: rules name the header or query parameter only. Tokens are compared
through a hash kept per origin in the file's state (AU004).
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import parse_qsl

from mcplint import protocol
from mcplint.model import Severity
from mcplint.rules._base import Rule, rule
from mcplint.rules._http import (
    EXCHANGES,
    exchange,
    ok,
    received,
    request_header,
    response_header,
    shown,
    version_in,
    where,
)

_AUTH = "basic/authorization"
_TOKEN_PARAMS = frozenset({"access_token", "token", "id_token", "auth", "auth_token", "bearer", "authorization",
                           "api_key", "apikey", "jwt"})
_JWT = re.compile(r"^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*$")
_AUTH_WORDS = re.compile(r"(?i)unauthori[sz]ed|forbidden|not authenticated|authentication (required|failed)"
                         r"|invalid[_ ]token|expired[_ ]token|token (is )?(invalid|expired)|insufficient[_ ]scope")


def _scheme(value: str) -> tuple[str, str]:
    scheme, _, rest = value.strip().partition(" ")
    return scheme.lower(), rest.strip()


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _origin_state(session, origin: str) -> dict:
    store = session.file_state.setdefault("http-auth", {})
    return store.setdefault(origin, {"bearer": None, "rejected": {}})


def _challenge_params(value: str) -> dict[str, str]:
    return {k.lower(): v for k, v in re.findall(r'([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*"?([^",]*)"?', value)}


class AuthRule(Rule):
    """A rule that judges HTTP exchanges of revisions with the authorization framework."""

    kinds = EXCHANGES
    versions = protocol.since(protocol.V2025_03_26)
    spec = _AUTH

    def check(self, record, session):
        http = exchange(record)
        if http is None:
            return ()
        version = version_in(http, record)
        if version == protocol.V2024_11_05:
            return ()
        return self.judge(record, http, session, version)

    def judge(self, record, http, session, version):
        return iter(())


@rule
class BearerOnEveryRequest(AuthRule):
    """Checks that a client that authenticates sends its bearer token on every request."""

    code, name = "AU001", "bearer-on-every-request"
    severity, level, spec = Severity.ERROR, "MUST", f"{_AUTH} §Token Requirements"
    party = "client"
    hint = "Send Authorization: Bearer <token> on every HTTP request to the MCP server, once you have a token."

    def judge(self, record, http, session, version):
        state = _origin_state(session, http["origin"])
        value = request_header(http, "authorization")
        if value is None:
            if state["bearer"] is not None:
                yield self.report(record, f"{where(http)}: the request lacks the Authorization header, although "
                                          f"the client sent a bearer token to this server in entry {state['bearer']}")
            return
        scheme, _ = _scheme(value)
        if scheme != "bearer":
            yield self.report(record, f"{where(http)}: the Authorization header uses the {scheme or 'empty'!r} scheme; "
                                      "MCP access tokens are sent as Authorization: Bearer <token>")
        elif state["bearer"] is None:
            state["bearer"] = http["entry"]


@rule
class TokenInQuery(AuthRule):
    """Checks for access tokens in the request URL's query string."""

    code, name = "AU002", "token-in-query"
    severity, level, spec = Severity.ERROR, "MUST NOT", f"{_AUTH} §Access Token Usage"
    party = "client"
    hint = "Send the access token only in the Authorization header, never in the URL."

    def judge(self, record, http, session, version):
        if not http["query"]:
            return
        for name, value in parse_qsl(http["query"], keep_blank_values=True):
            if value and (name.lower() in _TOKEN_PARAMS or _JWT.match(value)):
                yield self.report(record, f"{where(http)}: the URL carries a token in the query parameter "
                                          f"{name[:40]!r}; access tokens must not be in the query string")
                return


@rule
class UnauthorizedWithoutWwwAuthenticate(AuthRule):
    """Checks that a 401 points the client at the resource metadata with WWW-Authenticate."""

    code, name = "AU003", "401-without-www-authenticate"
    severity, level, spec = Severity.ERROR, "MUST", f"{_AUTH} §Authorization Server Location"
    party = "server"
    hint = ('Answer 401 with WWW-Authenticate: Bearer resource_metadata="https://<server>/.well-known/'
            'oauth-protected-resource".')

    def judge(self, record, http, session, version):
        if http["status"] != 401 or version == protocol.V2025_03_26:
            return
        header = response_header(http, "www-authenticate")
        strict = version == protocol.V2025_06_18
        options = {} if strict else {"severity": Severity.WARNING, "confidence": "low"}
        if header is None:
            tail = ("" if strict else "; unless the server publishes its resource metadata at the well-known "
                    "location, the client cannot find the authorization server")
            yield self.report(record, f"{where(http)}: 401 Unauthorized without a WWW-Authenticate header{tail}",
                              **options)
        elif "resource_metadata" not in _challenge_params(header):
            if strict:
                yield self.report(record, f"{where(http)}: the 401's WWW-Authenticate has no resource_metadata "
                                          "parameter pointing at the protected resource metadata")
            else:
                yield self.report(record, f"{where(http)}: the 401's WWW-Authenticate has no resource_metadata "
                                          "parameter; the client must fall back to the well-known location",
                                  severity=Severity.INFO, confidence="low", level="SHOULD")


@rule
class InvalidTokenNot401(AuthRule):
    """Checks that a server refuses invalid tokens with 401 (empty tokens, tokens it refused before)."""

    code, name = "AU004", "invalid-token-not-401"
    severity, level, spec = Severity.ERROR, "MUST", f"{_AUTH} §Token Handling"
    confidence = "low"
    party = "server"
    hint = "Answer every request with a missing, invalid or expired token with 401 Unauthorized."

    def judge(self, record, http, session, version):
        value = request_header(http, "authorization")
        if value is None or http["status"] is None:
            return
        scheme, token = _scheme(value)
        if scheme != "bearer":
            return
        state = _origin_state(session, http["origin"])
        digest = _digest(token)
        if http["status"] == 401:
            state["rejected"].setdefault(digest, http["entry"])
            return
        if not ok(http):
            return
        if not token:
            yield self.report(record, f"{where(http)}: the server accepted an empty bearer token")
        elif digest in state["rejected"]:
            yield self.report(record, f"{where(http)}: the server accepted the bearer token it refused with 401 in "
                                      f"entry {state['rejected'][digest]}")


@rule
class InsufficientScopeShape(AuthRule):
    """Checks that insufficient scope is a 403 with an insufficient_scope Bearer challenge."""

    code, name = "AU005", "insufficient-scope-shape"
    severity, level, spec = Severity.WARNING, "SHOULD", f"{_AUTH} §Scope Challenge Handling"
    versions = protocol.since(protocol.V2025_11_25)
    party = "server"
    hint = ('Answer 403 with WWW-Authenticate: Bearer error="insufficient_scope", scope="<needed>", '
            'resource_metadata="<url>".')

    def judge(self, record, http, session, version):
        if not protocol.at_least(version, protocol.V2025_11_25) and version not in protocol.MODERN:
            return
        header = response_header(http, "www-authenticate") or ""
        params = _challenge_params(header)
        if http["status"] == 403 and request_header(http, "authorization"):
            if params.get("error") != "insufficient_scope":
                yield self.report(record, f"{where(http)}: 403 for an authenticated request without a "
                                          'WWW-Authenticate challenge error="insufficient_scope"')
            elif "scope" not in params:
                yield self.report(record, f"{where(http)}: the insufficient_scope challenge does not name the "
                                          "scope the request needs")
        elif http["status"] == 401 and params.get("error") == "insufficient_scope":
            yield self.report(record, f"{where(http)}: insufficient scope was answered 401; it is a 403",
                              severity=Severity.INFO)


@rule
class AuthStatusCodes(AuthRule):
    """Checks for authorization failures reported as 200 with a JSON-RPC error, or as 500."""

    code, name = "AU006", "auth-status-codes"
    severity, level, spec = Severity.ERROR, "MUST", f"{_AUTH} §Error Handling"
    confidence = "low"
    party = "server"
    hint = "Report authorization failures with HTTP status codes: 401 (no or invalid token), 403 (scope), 400."

    def judge(self, record, http, session, version):
        status = http["status"]
        if status is None or not (ok(http) or status >= 500):
            return
        for value in received(http, "response"):
            error = value.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            if isinstance(message, str) and _AUTH_WORDS.search(message):
                yield self.report(record, f"{where(http)}: an authorization failure (error "
                                          f"{error.get('code')!r}: {shown(message, 60)!r}) came with HTTP {status}; "
                                          "it must be 401 or 403")
                return
        body = http["response_body"] or ""
        if status >= 500 and not received(http) and _AUTH_WORDS.search(body[:500]):
            yield self.report(record, f"{where(http)}: an authorization failure came with HTTP {status}; "
                                      "it must be 401 or 403")


@rule
class ScopeHint(AuthRule):
    """Checks that a 401 challenge names the scope the client should ask for."""

    code, name = "AU007", "scope-hint"
    severity, level, spec = Severity.INFO, "SHOULD", f"{_AUTH} §Protected Resource Metadata Discovery Requirements"
    versions = protocol.since(protocol.V2025_11_25)
    party = "server"
    hint = 'Add scope="<scopes>" to the 401 WWW-Authenticate challenge.'

    def judge(self, record, http, session, version):
        if http["status"] != 401 or not (protocol.at_least(version, protocol.V2025_11_25)
                                         or version in protocol.MODERN):
            return
        header = response_header(http, "www-authenticate")
        if header is not None and "scope" not in _challenge_params(header):
            yield self.report(record, f"{where(http)}: the 401's WWW-Authenticate challenge names no scope")

"""Sensitive names: JSON keys, header names, environment variables, CLI flags, URL parameters.

A name is normalised (lower case, only ``[a-z0-9]``: ``X-Api-Key``, ``x_api_key``, ``apiKey``
and ``API_KEY`` all become ``apikey``) and then judged:

- ``STRONG``: the value is a credential whatever it looks like (``password``, ``GITHUB_TOKEN``,
  ``client_secret``, ``Authorization``, ``Cookie``, ``Mcp-Session-Id``...);
- ``FUZZY``: the value is a credential only when it looks random (``key``, ``auth``, ``code``,
  ``state``, ``*_key``): keyboard tools send ``{"key": "Enter"}``; under ``session`` a UUID
  counts too (a capture's session member, an HTTP session id);
- ``None``: not sensitive. Look-alikes from MCP and OAuth vocabulary win over the sensitive
  words: ``progressToken``, ``maxTokens``, ``usage.input_tokens``, ``nextCursor``,
  ``token_endpoint``, ``token_endpoint_auth_methods_supported``, ``code_challenge``,
  ``publicKey``, ``keyId``, ``secretName``, ``author``...
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mcplint.redact.placeholders import PLACEHOLDER_RE

STRONG, FUZZY = "strong", "fuzzy"

_NORMALIZE = re.compile(r"[^a-z0-9]+")

#: Names that are credentials however they end.
_STRONG_EXACT = {
    "password", "passwd", "pwd", "pass", "passphrase", "passcode", "secret", "secrets", "token",
    "apikey", "xapikey", "accesskey", "secretkey", "privatekey", "privatekeyid", "clientsecret",
    "authorization", "proxyauthorization", "cookie", "cookies", "setcookie", "credential",
    "credentials", "creds", "sessionid", "mcpsessionid", "sessiontoken", "sessionkey", "sessionsecret",
    "accesstoken", "refreshtoken", "idtoken", "codeverifier", "devicecode", "signature", "otp", "pin",
    "totp", "mfacode", "xauthtoken", "privatetoken", "xgoogapikey", "ocpapimsubscriptionkey",
    "xvaulttoken", "xamzsecuritytoken", "dpop", "assertion", "clientassertion", "subjecttoken",
    "actortoken", "registrationaccesstoken", "pat", "cvv", "cvc", "cardnumber", "creditcard",
    "creditcardnumber", "ccnumber", "cardno", "ssn", "xcsrftoken", "csrftoken", "xsrftoken",
    "connectionstring", "connstr", "dsn", "webhooksecret", "signingsecret", "encryptionkey",
    "signingkey", "masterkey", "sharedaccesskey", "accountkey", "sasltoken", "saslpassword",
}
#: Names that look sensitive but are not (MCP, LLM usage, OAuth metadata, schemas).
_BENIGN_EXACT = {
    "progresstoken", "tokentype", "tokenizer", "nexttoken", "pagetoken", "nextpagetoken",
    "continuationtoken", "resumetoken", "synctoken", "cursortoken", "cursor", "nextcursor", "keys",
    "primarykey", "publickey", "publickeys", "publickeypem", "publickeyjwk", "keyid", "kid",
    "passwordrequired", "haspassword", "authtype", "authmethod", "authmethods", "authscheme",
    "authmode", "authprovider", "authenabled", "authrequired", "authserver", "authservers",
    "authorizationserver", "authorizationservers", "codechallenge", "codechallengemethod",
    "keyboard", "keybinding", "keybindings", "hotkey", "sortkey", "cachekey", "partitionkey",
    "idempotencykey", "foreignkey", "author", "authors", "compat", "passthrough", "bypass", "compass",
    "keyword", "keywords", "keypress", "keycode", "keydown", "keyup", "monkey", "tokens",
    "statecode", "keyframes", "signaturehelp", "errorcode", "statuscode", "exitcode",
    "countrycode", "postcode", "zipcode", "languagecode", "currencycode", "sourcecode", "opcode",
    "responsecode", "returncode", "pincode",
}
#: Endings that make a name descriptive (``token_endpoint``, ``secret_name``, ``max_tokens``).
_BENIGN_SUFFIXES = (
    "endpoint", "url", "uri", "urls", "uris", "supported", "type", "types", "method", "methods",
    "name", "names", "length", "count", "expiresin", "expiresat", "expiry", "expiration", "ttl",
    "lifetime", "id", "ids", "tokens", "required", "enabled", "disabled", "format", "field", "fields",
    "hint", "label", "description", "title", "path", "file", "dir", "env", "envvar", "policy",
    "scope", "scopes", "header", "headers", "prefix", "location", "limit", "limits", "usage", "mode",
    "version", "provider", "strategy", "schema", "algorithm", "alg", "size", "index", "createdat",
    "updatedat", "expired", "valid", "status", "ref", "arn", "hint", "set", "exists", "source",
    "store", "storage", "manager", "helper", "command", "cmd", "keychain", "vault", "rotation",
    "placeholder", "prompt", "budget", "estimate", "price", "cost", "rate", "used", "remaining",
)
#: Words that make a name strong wherever they occur in it.
_STRONG_WORDS = (
    "password", "passwd", "passphrase", "secret", "apikey", "privatekey", "accesskey", "secretkey",
    "accesstoken", "refreshtoken", "authtoken", "bearertoken", "idtoken", "sessiontoken",
    "credential", "cookie", "authorization", "sessionid", "clientsecret",
)
#: Endings that make a name strong (``GITHUB_TOKEN``, ``DB_PASS``, ``GITHUB_PAT``).
_STRONG_SUFFIXES = ("token", "pwd", "pass", "pat", "sessionkey", "signature", "otp")

#: Words that make a URL query parameter secret (``exaApiKey``, ``sig``, ``code``, ``state``).
_URL_WORDS = ("key", "token", "secret", "pass", "pwd", "auth", "sig", "credential", "session",
              "code", "state", "nonce")


def normalize(name: str) -> str:
    return _NORMALIZE.sub("", name.lower())


def kind_of(norm: str) -> str:
    """The placeholder kind for a value under a sensitive name."""
    if "authorization" in norm:
        return "authorization"
    if "cookie" in norm:
        return "cookie"
    if "passw" in norm or "passphrase" in norm or norm.endswith(("pwd", "pass", "passcode")):
        return "password"
    if "session" in norm:
        return "session-id"
    if "privatekey" in norm:
        return "private-key"
    if norm in ("cvv", "cvc", "cardnumber", "creditcard", "creditcardnumber", "ccnumber", "cardno"):
        return "card"
    if norm == "ssn":
        return "national-id"
    if norm in ("otp", "pin", "totp", "mfacode") or norm.endswith("otp"):
        return "pin"
    if "signature" in norm or norm in ("sig", "signingkey"):
        return "signature"
    if "apikey" in norm or norm.endswith("key"):
        return "api-key"
    if "secret" in norm:
        return "secret"
    if "token" in norm or norm in ("dpop", "pat", "assertion", "clientassertion") or norm.endswith("pat"):
        return "token"
    if "credential" in norm or norm == "creds":
        return "credential"
    if "connstr" in norm or "connectionstring" in norm or norm == "dsn":
        return "connection-string"
    return "secret"


class KeyClassifier:
    """Judges names; ``extra`` and ``keep`` come from the user's configuration."""

    def __init__(self, extra: Iterable[str] = (), keep: Iterable[str] = ()):
        self._extra = {normalize(n) for n in extra} - {""}
        self._keep = {normalize(n) for n in keep} - {""}
        self._cache: dict[str, tuple[str, str] | None] = {}

    def classify(self, name: str) -> tuple[str, str] | None:
        """``(STRONG|FUZZY, kind)`` or None."""
        cached = self._cache.get(name, 0)
        if cached != 0:
            return cached  # type: ignore[return-value]
        # a placeholder in a name (a key redacted by an earlier pass) stands for the value it hid,
        # not for its kind ("Bearer [REDACTED:bearer-token:...]" is not a "bearertoken" name)
        bare = PLACEHOLDER_RE.sub("x", name) if "[REDACTED" in name else name
        result = self._judge(normalize(bare)) if len(name) <= 128 and not name.startswith("[REDACTED") else None
        if len(self._cache) > 50_000:
            self._cache.clear()
        self._cache[name] = result
        return result

    def strong(self, name: str) -> str | None:
        """The kind when ``name`` is strongly sensitive, else None."""
        verdict = self.classify(name)
        return verdict[1] if verdict is not None and verdict[0] == STRONG else None

    def benign(self, name: str) -> bool:
        """Descriptive names (``token_type``, ``secret_name``, ``max_tokens``): their values are kept."""
        n = normalize(name)
        return n in self._keep or n in _BENIGN_EXACT or n.endswith(_BENIGN_SUFFIXES)

    @staticmethod
    def normalize_is(name: str, normalized: str) -> bool:
        return normalize(name) == normalized

    def _judge(self, n: str) -> tuple[str, str] | None:
        if not n or n in self._keep:
            return None
        if n in self._extra or n in _STRONG_EXACT:
            return (STRONG, kind_of(n))
        if n in _BENIGN_EXACT or n.endswith(_BENIGN_SUFFIXES):
            return None
        if any(word in n for word in _STRONG_WORDS) or n.endswith(_STRONG_SUFFIXES):
            return (STRONG, kind_of(n))
        if n in ("key", "auth", "sig", "code", "state", "nonce", "salt", "hmac", "session") or n.endswith(("key", "auth")):
            return (FUZZY, kind_of(n))
        return None

    def url_param(self, name: str) -> str | None:
        """The kind when a URL query/fragment parameter named ``name`` carries a secret."""
        n = normalize(name)
        if not n or n in self._keep:
            return None
        verdict = self._judge(n)
        if verdict is not None:
            return verdict[1]
        if n in ("state", "code"):
            return "token"
        if n in _BENIGN_EXACT or n.endswith(_BENIGN_SUFFIXES):
            return None
        if any(word in n for word in _URL_WORDS):
            return kind_of(n) if kind_of(n) != "secret" else "url-secret"
        return None

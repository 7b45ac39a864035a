"""Credentials found by context in free text (decoded strings, stderr, log lines, files).

- ``bearer-token``/``basic-auth``: an HTTP auth scheme word and the credential after it; the
  scheme is kept (``Bearer [REDACTED:bearer-token:1a2b3c4d]``);
- assignments ``NAME=value``, ``NAME: value``, ``export NAME="value"``, ``"name": "value"`` in
  text that is not JSON (``.env`` files returned by a tool, YAML, INI, ``key=value`` logs,
  connection strings ``Password=...;``), where NAME is a sensitive name (see ``keys``); a
  quoted value runs to its closing quote or, when the quote never closes (a cut log line), to
  the end of the line; ``Authorization``/``Cookie`` values keep their scheme and cookie names;
- CLI flags ``--api-key X``, ``--token=X``;
- a high-entropy token just after a word such as "token", "secret" or "api key"
  (``generic-secret``); entropy is only a gate here, never a detector on its own.
"""

from __future__ import annotations

import re

from mcplint.redact._rx import is_hex_digest, looks_random, rx, trie_pattern
from mcplint.redact.keys import STRONG, KeyClassifier
from mcplint.redact.placeholders import starts_with_placeholder
from mcplint.redact.spans import GENERIC, STRUCTURE, Span

KINDS = frozenset({"bearer-token", "basic-auth", "auth-credential", "generic-secret", "authorization", "cookie",
                   "password", "secret", "token", "api-key", "session-id", "private-key", "credential",
                   "signature", "pin", "card", "national-id", "connection-string", "env-secret"})

#: Pieces of sensitive names (see ``keys``): an identifier is judged only when it holds one.
NAME_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cookie", "credential", "creds", "session",
              "signature", "sig", "otp", "pin", "dpop", "assertion", "pat", "cvv", "cvc", "card", "ssn", "connstr",
              "connection", "dsn", "code", "state", "nonce", "salt", "hmac", "verifier", "bearer", "basic",
              "negotiate")
#: Words after which a random-looking token is taken for a secret (``generic-secret``).
_GENERIC = frozenset({"token", "secret", "pass", "key", "credential", "creds"})
_SCHEMES = ("bearer", "basic", "dpop", "negotiate")

_WORD_TRIE = rx("name-words", trie_pattern(sorted(NAME_WORDS), as_bytes=False))
_WORD_TRIE_I = rx("name-words-i", trie_pattern(sorted(NAME_WORDS), as_bytes=False), re.IGNORECASE)
AUTH = rx("auth-scheme", r"(?<![A-Za-z0-9])(?i:(bearer|basic|dpop|negotiate))[ \t]+([A-Za-z0-9._~+/=-]{8,4096}+)")
_SCHEME = rx("scheme-prefix", r"[ \t]{0,16}(?i:bearer|basic|dpop|negotiate|token|digest|ntlm|apikey|sso-key)[ \t]+")
_IDENT_TAIL = rx("ident-tail", r"[A-Za-z0-9_.-]{0,80}")
_SEP = rx("assign-sep", r"[ \t]{0,16}(:=|=>|=|:)(?!//)[ \t]{0,16}")
_QUOTED = rx("quoted-value", r"\"((?:[^\"\\\n]|\\.){0,4096}+)\"?|'([^'\n]{0,4096}+)'?")
_BARE = rx("bare-value", r"(?:[^\s\"'`;&]|[;&](?![A-Za-z_][A-Za-z0-9_ .-]{0,40}=)){1,4096}+")
_TO_EOL = rx("line-value", r"[^\r\n]{1,4096}+")
_RUN = rx("generic-run", r"(?<![A-Za-z0-9_.~+/=-])[A-Za-z0-9_.~+/=-]{16,}")
_COOKIE_PAIR = rx("cookie-pair", r"(?<![^;,\s])[ \t]{0,16}([^=;,\s]{1,256}+)=([^;]{0,4096}+)")
TEMPLATE = rx("template", r"\$\{[^}\n]{1,200}\}|\$[A-Za-z_][A-Za-z0-9_]{0,100}|\{\{[^\n{}]{1,200}+\}\}|%[A-Za-z_][A-Za-z0-9_]{0,100}%"
                          r"|<[^<>\n]{1,100}>|\*{3,}|[xX]{4,}|\.{3}|…|(?i:true|false|null|none|undefined|nil|redacted)")
_IDENT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def is_benign_value(value: str) -> bool:
    """Empty, templated (``${TOKEN}``, ``<your-token>``), masked (``***``) or already redacted."""
    stripped = value.strip()
    return (not stripped or starts_with_placeholder(stripped) or TEMPLATE.fullmatch(stripped) is not None)


def value_spans(kind: str, value: str, offset: int = 0, set_cookie: bool = False) -> list[Span]:
    """Spans that redact a value found under a sensitive name.

    ``Authorization`` values keep the scheme word; cookie headers keep cookie names (for
    ``Set-Cookie`` only the first pair is a value, the rest are attributes).
    """
    if is_benign_value(value):
        return []
    if kind == "cookie":
        spans = []
        for m in _COOKIE_PAIR.finditer(value):
            cookie = m.group(2).strip()
            if cookie and not is_benign_value(cookie):
                start = offset + m.start(2) + (len(m.group(2)) - len(m.group(2).lstrip()))
                spans.append(Span(start, start + len(cookie), "cookie", cookie, STRUCTURE))
            if set_cookie:
                break
        if spans:
            return spans
    scheme = _SCHEME.match(value)
    if scheme is not None and kind in ("authorization", "token", "api-key", "secret", "credential"):
        rest = value[scheme.end():].strip()
        if not rest or is_benign_value(rest):
            return []
        start = offset + scheme.end()
        return [Span(start, start + len(rest), kind, rest, STRUCTURE)]
    return [Span(offset, offset + len(value), kind, value, STRUCTURE)]


def find(text: str, keys: KeyClassifier) -> list[Span]:
    """Spans of context-found credentials; cheap when no sensitive word occurs."""
    low = text.lower() if text.isascii() else None
    hits = _WORD_TRIE.finditer(low) if low is not None else _WORD_TRIE_I.finditer(text)
    spans: list[Span] = []
    done = -1
    schemes = False
    for hit in hits:
        word = hit.group().lower()
        schemes = schemes or word in _SCHEMES
        if hit.start() < done:
            continue
        done = _around(text, hit.start(), hit.end(), word, keys, spans)
    if schemes:
        _auth(text, spans)
    return spans


def _around(text: str, start: int, end: int, word: str, keys: KeyClassifier, spans: list[Span]) -> int:
    """Judge the identifier holding a sensitive word: ``NAME=value``, ``--flag value``, or a
    random token just after it. Returns the end of the identifier."""
    left = start
    while left > 0 and start - left < 80 and text[left - 1] in _IDENT_CHARS:
        left -= 1
    right = _IDENT_TAIL.match(text, end).end()
    name = text[left:right].rstrip(".")
    right = left + len(name)
    dashes = len(name) - len(name.lstrip("-"))
    bare_name = name[dashes:]
    if not bare_name or bare_name[0].isdigit():
        return right
    quote = text[left - 1] if left and text[left - 1] in "\"'" else ""
    pos = right + 1 if quote and text.startswith(quote, right) else right
    sep = _SEP.match(text, pos)
    verdict = keys.classify(bare_name)
    if sep is not None and verdict is not None:
        level, kind = verdict
        op = sep.group(1)
        to_eol = op == ":" and (kind in ("authorization", "cookie") or (not quote and level == STRONG))
        bounds = _value_at(text, sep.end(), to_eol)
        if bounds is None:
            return right
        value = text[bounds[0]:bounds[1]]
        if not (value[:1] in "{[" and not value.startswith("[REDACTED")) and (level == STRONG or looks_random(value)):
            spans.extend(value_spans(kind, value, bounds[0], set_cookie=keys.normalize_is(bare_name, "setcookie")))
        return bounds[1]  # words inside the value belong to it
    if dashes and verdict is not None and verdict[0] == STRONG and text[pos:pos + 1] in (" ", "\t"):
        value_start = pos
        while value_start < len(text) and text[value_start] in " \t":
            value_start += 1
        if text[value_start:value_start + 1] not in ("-", ""):
            bounds = _value_at(text, value_start, to_eol=False)
            if bounds is not None:
                spans.extend(value_spans(verdict[1], text[bounds[0]:bounds[1]], bounds[0]))
                return bounds[1]
            return right
    if word in _GENERIC and not (verdict is None and keys.benign(bare_name)):
        _generic(text, right, spans)
    return right


def _credential_ok(credential: str) -> bool:
    """``Bearer authentication`` in prose is not a credential; real ones mix characters."""
    if any(c.isdigit() for c in credential) or any(c in "._~+/=-" for c in credential):
        return True
    return len(credential) >= 16 and not credential.islower() and not credential.isupper()


def _auth(text: str, spans: list[Span]) -> None:
    for m in AUTH.finditer(text):
        credential = m.group(2)
        if not _credential_ok(credential) or starts_with_placeholder(text[m.start(2):]):
            continue
        if "=" in credential.rstrip("=") or text[m.end(2):m.end(2) + 1] == '"':
            continue  # a challenge parameter (Bearer realm="x", resource_metadata="..."), not a token68
        scheme = m.group(1).lower()
        kind = "basic-auth" if scheme == "basic" else "bearer-token" if scheme in ("bearer", "dpop") else "auth-credential"
        spans.append(Span(m.start(2), m.end(2), kind, credential, STRUCTURE))


def _value_at(text: str, pos: int, to_eol: bool) -> tuple[int, int] | None:
    """Bounds of the value starting at ``pos``: quoted, bare, or the rest of the line."""
    if pos >= len(text):
        return None
    q = _QUOTED.match(text, pos)
    if q is not None:
        group = 1 if q.group(1) is not None else 2
        return (q.start(group), q.end(group)) if q.end(group) > q.start(group) else None
    m = (_TO_EOL if to_eol else _BARE).match(text, pos)
    if m is None:
        return None
    start, end = m.start(), m.end()
    if to_eol:
        while end > start and text[end - 1] in " \t,;)]}":
            end -= 1
    return (start, end) if end > start else None


def _generic(text: str, after: int, spans: list[Span]) -> None:
    """A random-looking token within 48 characters after a word such as "token" or "secret"."""
    run = _RUN.search(text, after, after + 48)
    if run is None:
        return
    end = _RUN.match(text, run.start()).end() if run.end() == after + 48 else run.end()
    value = text[run.start():end]
    if looks_random(value) and not is_hex_digest(value):
        spans.append(Span(run.start(), end, "generic-secret", value, GENERIC))

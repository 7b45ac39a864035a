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

from mcplint.redact._rx import is_hex_digest, looks_random, rx
from mcplint.redact.keys import FUZZY, STRONG, KeyClassifier
from mcplint.redact.placeholders import starts_with_placeholder
from mcplint.redact.spans import GENERIC, STRUCTURE, Span

KINDS = frozenset({"bearer-token", "basic-auth", "auth-credential", "generic-secret", "authorization", "cookie",
                   "password", "secret", "token", "api-key", "session-id", "private-key", "credential",
                   "signature", "pin", "card", "national-id", "connection-string", "env-secret"})

#: Words whose presence makes the detectors of this module worth running.
SENSITIVE_WORDS = (r"(?i:passw|passphrase|passcode|pwd|secret|(?<!rogress)(?<!ROGRESS)token(?![sS])|auth(?!or)"
                   r"|key(?![sS]\b)|cookie|session|credential|creds|signature|bearer|basic\s|private|\bpin\b|\botp\b"
                   r"|\bsig=|\bpat\b|dsn|connstr)")
TRIGGERS = (SENSITIVE_WORDS,)
WORDS = rx("sensitive-words", SENSITIVE_WORDS)

AUTH = rx("auth-scheme", r"(?<![A-Za-z0-9])(?i:(bearer|basic|dpop|negotiate))[ \t]+([A-Za-z0-9._~+/=-]{8,4096}+)")
_SCHEME = rx("scheme-prefix", r"[ \t]*(?i:bearer|basic|dpop|negotiate|token|digest|ntlm|apikey|sso-key)[ \t]+")
ASSIGN = rx("assignment", r"(?<![A-Za-z0-9_.])([\"']?)([A-Za-z_][A-Za-z0-9_.-]{0,80}+)\1[ \t]*(:=|=>|=|:)(?!//)[ \t]*")
FLAG = rx("cli-flag", r"(?<![\w-])--?([A-Za-z][A-Za-z0-9_-]{0,60}+)[ \t]+(?=[^\s-])")
_QUOTED = rx("quoted-value", r"\"((?:[^\"\\\n]|\\.){0,4096}+)\"?|'([^'\n]{0,4096}+)'?")
_BARE = rx("bare-value", r"(?:[^\s\"'`;&]|[;&](?![A-Za-z_][A-Za-z0-9_ .-]{0,40}=)){1,4096}+")
_TO_EOL = rx("line-value", r"[^\r\n]{1,4096}+")
_RUN = rx("generic-run", r"(?<![A-Za-z0-9_.~+/=-])[A-Za-z0-9_.~+/=-]{16,}")
_IDENT_TAIL = rx("ident-tail", r"[A-Za-z0-9_-]{0,60}")
_COOKIE_PAIR = rx("cookie-pair", r"[ \t]*([^=;,\s]{1,256})=([^;]{0,4096}+)")
TEMPLATE = rx("template", r"\$\{[^}\n]{1,200}\}|\$[A-Za-z_][A-Za-z0-9_]{0,100}|\{\{[^\n]{1,200}?\}\}|%[A-Za-z_][A-Za-z0-9_]{0,100}%"
                          r"|<[^<>\n]{1,100}>|\*{3,}|[xX]{4,}|\.{3}|…|(?i:true|false|null|none|undefined|nil|redacted)")


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
    if WORDS.search(text) is None:
        return []
    spans: list[Span] = []
    _auth(text, spans)
    if "=" in text or ":" in text:
        _assignments(text, keys, spans)
    if "-" in text:
        _flags(text, keys, spans)
    _generic(text, keys, spans)
    return spans


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


def _assignments(text: str, keys: KeyClassifier, spans: list[Span]) -> None:
    for m in ASSIGN.finditer(text):
        name = m.group(2)
        verdict = keys.classify(name)
        if verdict is None:
            continue
        level, kind = verdict
        bounds = _value_at(text, m.end(), to_eol=m.group(3) == ":" and kind in ("authorization", "cookie")
                           or (m.group(3) == ":" and not m.group(1) and level == STRONG))
        if bounds is None:
            continue
        value = text[bounds[0]:bounds[1]]
        if value[:1] in "{[" and not value.startswith("[REDACTED"):
            continue  # a structure, not a value
        if level == FUZZY and not looks_random(value):
            continue
        spans.extend(value_spans(kind, value, bounds[0], set_cookie=keys.normalize_is(name, "setcookie")))


def _flags(text: str, keys: KeyClassifier, spans: list[Span]) -> None:
    for m in FLAG.finditer(text):
        kind = keys.strong(m.group(1))
        if kind is None:
            continue
        bounds = _value_at(text, m.end(), to_eol=False)
        if bounds is None:
            continue
        spans.extend(value_spans(kind, text[bounds[0]:bounds[1]], bounds[0]))


_GENERIC_WORDS = rx("generic-words", r"(?i:token|secret|passw(?:or)?d|api[ _-]?key|access[ _-]?key|key|credential)s?")


def _generic(text: str, keys: KeyClassifier, spans: list[Span]) -> None:
    for m in _GENERIC_WORDS.finditer(text):
        start = m.start()
        while start > 0 and start > m.start() - 60 and (text[start - 1].isalnum() or text[start - 1] in "_-"):
            start -= 1
        ident = text[start:_IDENT_TAIL.match(text, m.end()).end()]
        if keys.classify(ident) is None and keys.benign(ident):
            continue
        run = _RUN.search(text, m.end(), m.end() + 48)
        if run is None:
            continue
        end = _RUN.match(text, run.start()).end() if run.end() == m.end() + 48 else run.end()
        value = text[run.start():end]
        if looks_random(value) and not is_hex_digest(value) and not starts_with_placeholder(text[run.start() - 1:]):
            spans.append(Span(run.start(), end, "generic-secret", value, GENERIC))

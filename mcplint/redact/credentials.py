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
  (``generic-secret``); entropy is only a gate here, never a detector on its own;
- values in prose: "the password is X", "password was: X", "passwd X", "my secret is X", "the
  token is X", "API key: X". After a password word the next word is the value unless it is an
  ordinary word that cannot be one ("the password is incorrect/required/too short/hashed...":
  ``PROSE_STOP`` and words ending in -ed/-ing); after any other sensitive name, and after a
  password word with no verb or colon, the value must look like a credential (letters and
  digits, or symbols; 6 characters at least: "the token is expired" is common);
- ``session-id``: a UUID or random-looking token after "session" / "session id (is)" /
  "session:" in free text (``Mcp-Session-Id`` values are session credentials); bare UUIDs
  elsewhere are kept (request ids are often UUIDs);
- ``national-id``: US Social Security numbers ``AAA-GG-SSSS`` or ``AAA GG SSSS`` (area not
  000, 666 or 900-999; group not 00; serial not 0000; not next to other digit groups), and 9
  compact digits only after "SSN" or "social security". The kind is the one values under an
  ``ssn`` key get; it is a credential kind, not personal data, so ``--keep pii`` and
  credentials-only engines still redact it.
"""

from __future__ import annotations

import re

from mcplint.redact._rx import is_hex_digest, looks_random, rx, trie_pattern
from mcplint.redact.keys import STRONG, KeyClassifier, normalize
from mcplint.redact.placeholders import PLACEHOLDER_RE, starts_with_placeholder
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
#: What ends a bare value (``key=value``) and a value that runs to the end of the line
_BARE_STOP = rx("bare-value-stop", r"[\s\"'`]|[;&](?=[A-Za-z_][A-Za-z0-9_ .-]{0,40}=)")
_EOL_STOP = rx("line-value-stop", r"[\r\n]")
_MAX_VALUE = 4096
_RUN = rx("generic-run", r"(?<![A-Za-z0-9_.~+/=-])[A-Za-z0-9_.~+/=-]{16,}")
_COOKIE_PAIR = rx("cookie-pair", r"(?<![^;,\s])[ \t]{0,16}([^=;,\s]{1,256}+)=([^;]{0,4096}+)")
TEMPLATE = rx("template", r"\$\{[^}\n]{1,200}\}|\$[A-Za-z_][A-Za-z0-9_]{0,100}|\{\{[^\n{}]{1,200}+\}\}|%[A-Za-z_][A-Za-z0-9_]{0,100}%"
                          r"|<[^<>\n]{1,100}>|\*{3,}|[xX]{4,}|\.{3}|…|(?i:true|false|null|none|undefined|nil|redacted)")
_IDENT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")

#: "is", "was: ", ":", "=" or just a space between a sensitive name and its value in prose.
_PROSE = rx("prose-value", r"(?:[ \t]{1,4}(?i:(is|was|are|were))"
                           r"(?:[ \t]{1,4}(?i:now|still|set[ \t]{1,4}to|changed[ \t]{1,4}to))?"
                           r"(?:[ \t]{0,4}:[ \t]{0,4}|[ \t]{1,4})|([ \t]{0,4}[:=][ \t]{0,4})|[ \t]{1,4})"
                           r"(?:\"([^\"\n]{1,256}+)\"|'([^'\n]{1,256}+)'|`([^`\n]{1,256}+)`|([^\s\"'`]{1,256}+))")
_NEXT_PARAM = rx("next-param", r"[;&](?=[A-Za-z_][A-Za-z0-9_.-]{0,40}=)")
#: Words after "the password is" that describe the password instead of being it.
PROSE_STOP = frozenset("""
    a about again all also always an and any as at authentication automatically be been being both by
    can cannot case-sensitive changed checked complex correct currently default did different does
    empty encrypted entered expired expiring field for forgotten from generated given going had has
    have hidden in incorrect insecure invalid is it its known less logged long longer manager masked
    mandatory missing more must my needed never no none not now null of ok okay on only optional or
    our policy printed prompt protected provided random read redacted rejected required reset same
    saved secure sensitive sent set shared short shorter should shown simple still stored strong than
    that the their this to too typed unchanged undefined unknown unset updated used valid very
    visible was weak will with written wrong your
""".split())
_UNIT_WORDS = ("char", "digit", "letter", "symbol", "byte", "long")
_SYMBOLS = frozenset("!@#$%^&*+=~?")
_NOT_A_VALUE = rx("not-a-value", r"v?\d{1,6}(?:\.\d{1,6}){1,4}"
                                 r"|[\w.-]{1,200}\.(?i:json|ya?ml|toml|txt|env|md|py|js|ts|sh|ini|cfg|conf|log|pem|key)")
_KEY_PHRASE = rx("key-phrase", r"(?i:api|access|secret)[ \t]{1,2}$")
_SESSION = rx("session-value", r"(?:[ \t]{1,4}(?i:id))?(?:[ \t]{1,4}(?i:is|was))?(?=[ \t:=#])[ \t]{0,2}[:=#]?[ \t]{0,3}"
                               r"([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
                               r"(?![0-9A-Za-z_~+/=-]|\.[0-9A-Za-z])"
                               r"|[A-Za-z0-9_.~+/=-]{16,1024}+)")
SSN = rx("ssn", r"(?<![\w.+/-])(?<!\d )(\d{3})([ -]?)(\d{2})\2(\d{4})(?![\w/-]|\.\d| \d)")
_ZEROS = bytes.maketrans(b"0123456789", b"0000000000")
_SSN_CONTEXT = rx("ssn-context", r"(?i:\bssn|social[ \t]{1,4}security)[^\n]{0,24}$")


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
    # words inside placeholders ("[REDACTED:github-pat:...]") are no names
    placeholders = [m.span() for m in PLACEHOLDER_RE.finditer(text)] if "[REDACTED" in text else []
    ends = _ValueEnds(text)
    for hit in hits:
        word = hit.group().lower()
        schemes = schemes or word in _SCHEMES
        if hit.start() < done:
            continue
        inside = next((end for start, end in placeholders if start <= hit.start() < end), None)
        if inside is not None:
            done = inside
            continue
        done = _around(ends, hit.start(), hit.end(), word, keys, spans)
    if schemes:
        _auth(text, spans)
    if len(text) >= 9:
        # (in bytes: a C translation; no byte of a character beyond ASCII is an ASCII digit)
        zeros = text.encode("utf-8", "surrogatepass").translate(_ZEROS)
        if b"000-00-0000" in zeros or b"000 00 0000" in zeros or (
                b"000000000" in zeros and ("ssn" in (low or text.lower()) or "social" in (low or text.lower()))):
            _ssns(text, spans)
    return spans


def _around(ends: _ValueEnds, start: int, end: int, word: str, keys: KeyClassifier, spans: list[Span]) -> int:
    """Judge the identifier holding a sensitive word: ``NAME=value``, ``--flag value``, or a
    random token just after it. Returns the end of the identifier."""
    text = ends.text
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
        bounds = _value_at(ends, sep.end(), to_eol)
        value = text[bounds[0]:bounds[1]] if bounds is not None else ""
        if not value:
            pass
        elif not (value[:1] in "{[" and not value.startswith("[REDACTED")) and (level == STRONG or looks_random(value)):
            spans.extend(value_spans(kind, value, bounds[0], set_cookie=keys.normalize_is(bare_name, "setcookie")))
            return bounds[1]  # words inside a redacted value belong to it
        elif kind == "api-key" and _KEY_PHRASE.search(text, max(0, left - 10), left) and credential_like(value):
            spans.extend(value_spans(kind, value, bounds[0]))  # "api key: X"
            return bounds[1]
        # not a value after all ("auth: DB_PASSWORD=x", "session: <uuid>"): prose rules and what
        # follows are judged on their own
    if dashes and verdict is not None and verdict[0] == STRONG and text[pos:pos + 1] in (" ", "\t"):
        value_start = pos
        while value_start < len(text) and text[value_start] in " \t":
            value_start += 1
        if text[value_start:value_start + 1] not in ("-", ""):
            bounds = _value_at(ends, value_start, to_eol=False)
            if bounds is not None:
                spans.extend(value_spans(verdict[1], text[bounds[0]:bounds[1]], bounds[0]))
                return bounds[1]
            return right
    end = _prose(text, left, right, bare_name, verdict, spans)
    if end is not None:
        return end
    if word in _GENERIC and not (verdict is None and keys.benign(bare_name)):
        _generic(text, right, spans)
    return right


def credential_like(value: str) -> bool:
    """A value that can be a credential: 6 characters at least, letters and digits or symbols,
    and not a version, a file name or a path."""
    v = value.rstrip(".,;:!?)]}")
    if len(v) < 6 or v[0] in "/~" or "://" in v or _NOT_A_VALUE.fullmatch(v):
        return False
    letters = digits = False
    for c in v:
        if c.isalpha():
            letters = True
        elif c.isdigit():
            digits = True
        elif c in _SYMBOLS:
            return True
    return letters and digits


def _prose(text: str, left: int, right: int, name: str, verdict, spans: list[Span]) -> int | None:
    """A value after a sensitive name in prose; returns its end when it was redacted."""
    norm = normalize(name)
    if norm == "session":
        return _session(text, right, spans)
    if verdict is not None and verdict[0] == STRONG:
        kind = verdict[1]
    elif norm == "key" and _KEY_PHRASE.search(text, max(0, left - 10), left):
        kind = "api-key"  # "API key is X"
    else:
        return None
    if kind in ("authorization", "cookie"):
        return None
    m = _PROSE.match(text, right)
    if m is None:
        return None
    group = next(g for g in (3, 4, 5, 6) if m.group(g) is not None)
    start, end = m.span(group)
    if group == 6:
        cut = _NEXT_PARAM.search(text, start, end)  # "...is+X&page=2" in a query string
        end = cut.start() if cut is not None else end
        while end > start and text[end - 1] in ",;)]}":
            end -= 1
    value = text[start:end]
    if not value or is_benign_value(value):
        return None
    verb = m.group(1) is not None or m.group(2) is not None
    if kind == "password" and verb:
        word = value.split(None, 1)[0].rstrip(".,;:!?").lower()
        if word in PROSE_STOP or (word.isalpha() and word.endswith(("ed", "ing"))) or (
                word.isdigit() and text[m.end():m.end() + 12].lstrip().lower().startswith(_UNIT_WORDS)):
            return None
    elif kind == "national-id":
        return None  # SSNs by their shape (``_ssns``)
    elif not credential_like(value):
        return None
    spans.append(Span(start, end, kind, value, STRUCTURE))
    return end


def _session(text: str, right: int, spans: list[Span]) -> int | None:
    """``session 3f2c...``, ``Session ID: <token>``: a UUID, or a random-looking token."""
    m = _SESSION.match(text, right)
    if m is None:
        return None
    value = m.group(1)
    if value[8:9] != "-" and not looks_random(value):
        return None
    spans.append(Span(m.start(1), m.end(1), "session-id", value, STRUCTURE))
    return m.end(1)


def _ssns(text: str, spans: list[Span]) -> None:
    for m in SSN.finditer(text):
        area, sep, group, serial = m.groups()
        if area == "000" or area == "666" or area >= "900" or group == "00" or serial == "0000":
            continue
        if not sep and not _SSN_CONTEXT.search(text, max(0, m.start() - 40), m.start()):
            continue
        spans.append(Span(m.start(), m.end(), "national-id", area + group + serial, STRUCTURE))


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


class _ValueEnds:
    """Where bare and to-end-of-line values of one line end, each run of value characters scanned
    once. Whether a character continues a value depends only on the text from it on, so a value
    that starts inside a run already measured ends where that run ends (or 4096 characters on):
    a line of 25,000 ``key=`` costs one scan, not 25,000 scans of 4 KB."""

    def __init__(self, text: str):
        self.text = text
        self._runs: dict[re.Pattern[str], tuple[int, int]] = {}  # stop pattern -> last run measured

    def end(self, stop: re.Pattern[str], pos: int) -> int:
        """End of the value starting at ``pos`` (``pos`` itself: no value)."""
        run = self._runs.get(stop)
        if run is None or not run[0] <= pos <= run[1]:
            found = stop.search(self.text, pos)
            run = self._runs[stop] = (pos, found.start() if found is not None else len(self.text))
        return min(run[1], pos + _MAX_VALUE)


def _value_at(ends: _ValueEnds, pos: int, to_eol: bool) -> tuple[int, int] | None:
    """Bounds of the value starting at ``pos``: quoted, bare, or the rest of the line."""
    text = ends.text
    if pos >= len(text):
        return None
    q = _QUOTED.match(text, pos)
    if q is not None:
        group = 1 if q.group(1) is not None else 2
        return (q.start(group), q.end(group)) if q.end(group) > q.start(group) else None
    start, end = pos, ends.end(_EOL_STOP if to_eol else _BARE_STOP, pos)
    if end == start:
        return None
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

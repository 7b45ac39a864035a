"""The cheap test that lets most of a capture through untouched.

Before any JSON parsing or detector runs, a line (or a decoded string) is asked: could any rule
fire here? The answer must never be "no" when a detector would find something (tests plant
every kind of secret and check), and should be "no" for ordinary traffic. A regular expression
that tries many alternatives at every position is slow in Python, so the test is made of
primitives that run in C over the UTF-8 bytes:

- one trie-shaped regex over the lower-cased bytes for every sensitive word; lookaheads and a
  few longer benign words keep ordinary vocabulary out (``progressToken``, ``maxTokens``,
  ``keyboard``, ``publicKey``, ``author``, ``path``, ``passed``), and ``code``/``state``/``pin``
  must be whole words;
- provider prefixes are in the same trie (lower-cased) and must then start a token in their
  exact case (``ghp_``, ``AKIA``, ``PMAK-``);
- ``@``, ``://``, ``%``, ``::``, ``+`` and escapes as substring checks;
- digits mapped to ``0`` (``bytes.translate``) for phone and card shapes, digits deleted to
  find ``...`` (dotted quads: IPv4);
- base64 characters mapped to one letter to find runs of 20 or more, then only those runs are
  checked (plain lower-case words, paths and hex are not base64 worth decoding).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mcplint.redact import providers
from mcplint.redact._rx import trie_pattern

_ZEROS = bytes.maketrans(b"0123456789", b"0000000000")
_DIGITS = b"0123456789"
_DIGIT_SHAPES = (b"000-000-0000", b"000.000.0000", b"(000)", b"0000 0000 0000", b"0000-0000-0000",
                 b"0000 000000 0000", b"0000-000000-0000")
_CARD_WORDS = (b"card", b"credit", b"visa", b"amex", b"mastercard", b"payment")
_B64 = bytes((0x62 if (chr(c).isalnum() and c < 128) or c in b"+_" else 0x20) for c in range(256))

PROVIDER, WHOLE, CONTEXT, PLAIN, BENIGN = range(5)
#: Whole words (lower case) that trigger: non-alphanumeric on both sides.
WHOLE_WORDS = ("code", "state", "nonce", "salt", "hmac", "pin", "cvv", "cvc", "ssn", "dsn", "accept", "basic",
               "negotiate", "dpop", "totp", "mfacode", "creds", "secrets", "pwd")
#: Words that trigger anywhere (inside compound names too) and longer literals.
PLAIN_WORDS = (
    "secret", "passw", "passphrase", "passcode", "cred", "cookie", "bearer", "sessionid", "session_id",
    "session-id", "sessiontoken", "session_token", "sessionkey", "session_key", "connstr", "connectionstring",
    "connection_string", "authorization", "assertion", "verifier", "card", "privatekey", "private_key",
    "private-key", "/users/", "/home/", "\\users\\", "data:", "-----begin", "putty-user-key-file-", "github_pat_",
    "hooks.slack.com/", "discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "sb_secret_", "api_org_",
    "age-secret-key-1", "lin_api_", "q~", ":aa", ".atlasv1.", "://", ":\\/\\/", "_pwd", "_pass", "_pat",
    'sig"', "sig\\", "sig=", "elicitation/create",
)
#: Words that must not be followed by these (``tokens``, ``keyboard``, ``author``, ``path``).
CONTEXT_WORDS = {
    b"token": rb"(?!s|iz|type|_type|endpoint|_endpoint|url|_url|count)",
    b"key": rb"(?!s|board|word|down|up|press|frame|code|stroke|id|_id|name|_name|note|chain)",
    b"auth": rb"(?!or)",
    b"signature": rb"(?!help)",
    b"pass": rb"(?![a-z])",
    b"pat": rb"(?![a-z])",
    b"otp": rb"(?![a-z])",
}
#: Ordinary names that hold a trigger word after their start (``progressToken``, ``publicKey``).
BENIGN_WORDS = (
    "progresstoken", "nexttoken", "pagetoken", "nextpagetoken", "cursortoken", "publickey", "primarykey", "sortkey",
    "cachekey", "hotkey", "monkey", "turkey", "donkey", "whiskey", "jockey", "idempotencykey", "foreignkey",
    "partitionkey",
)
_TWILIO = re.compile(rb"SK[0-9a-fA-F]{32}")


def _provider_prefixes() -> dict[bytes, tuple[bytes, ...]]:
    """Lower-cased provider prefix -> the exact prefixes it stands for (``pmak-`` -> ``PMAK-``)."""
    out: dict[bytes, set[bytes]] = {}
    for prefix, _ in providers._PREFIXED:
        exact = prefix.strip().encode()
        out.setdefault(exact.lower(), set()).add(exact)
    return {low: tuple(sorted(exact)) for low, exact in out.items()}


class Prefilter:
    """``prefilter(data, string=...)``: may a rule fire in these UTF-8 bytes?"""

    def __init__(self, extra: Iterable[str] = (), personal: bool = True):
        self.kind: dict[bytes, int] = {}
        self.providers = _provider_prefixes()
        for prefix in self.providers:
            self.kind[prefix] = PROVIDER
        for word in WHOLE_WORDS:
            self.kind[word.encode()] = WHOLE
        for word in PLAIN_WORDS:
            self.kind[word.encode()] = PLAIN
        self.kind.update((word, CONTEXT) for word in CONTEXT_WORDS)
        self.kind.update((word.encode(), BENIGN) for word in BENIGN_WORDS)
        for word in extra:
            if word:
                self.kind[word.lower().encode("utf-8", "surrogatepass")] = PLAIN
        # words that start with a letter go in the trie; the others (":aa", "/users/") are
        # searched as substrings, so the trie is only tried at letters
        self.regex = re.compile(trie_pattern(sorted(w for w in self.kind if w[:1].isalpha()),
                                             suffixes=CONTEXT_WORDS))
        self.substrings = tuple(sorted(w for w in self.kind if not w[:1].isalpha() and self.kind[w] != PROVIDER))
        self.odd_providers = tuple(sorted(w for w in self.kind if not w[:1].isalpha() and self.kind[w] == PROVIDER))
        self.personal = personal

    def __call__(self, data: bytes, string: bool = True) -> bool:
        low = data.lower()
        for m in self.regex.finditer(low):
            if self._real(data, low, m.group(), m.start(), m.end()):
                return True
        for needle in self.substrings:
            if needle in low:
                return True
        for prefix in self.odd_providers:  # "-----begin"
            if prefix in low and self._provider(data, prefix, low.find(prefix)):
                return True
        if b"@" in data and _email_like(data):
            return True
        if b"SK" in data and _TWILIO.search(data):
            return True
        if b"%" in data and _PERCENT.search(data):
            return True
        if b"\\" in data:
            if string and _ESCAPE.search(data):
                return True
            if not string and (b"\\u" in data or b"\\/" in data):
                return True
        if self.personal and _personal(data, low):
            return True
        return _base64_run(data)

    def _provider(self, data: bytes, word: bytes, start: int) -> bool:
        """A provider prefix, in its exact case, that starts a token."""
        while start >= 0:
            if not (start and data[start - 1:start].isalnum()) and data.startswith(self.providers[word], start):
                return True
            start = data.lower().find(word, start + 1)
        return False

    def _real(self, data: bytes, low: bytes, word: bytes, start: int, end: int) -> bool:
        kind = self.kind.get(word, PLAIN)
        if kind == PLAIN or kind == CONTEXT:
            return True
        if kind == PROVIDER:
            return not (start and low[start - 1:start].isalnum()) and data.startswith(self.providers[word], start)
        if kind == WHOLE:
            return not (start and low[start - 1:start].isalnum()) and not low[end:end + 1].isalnum()
        return False


def _email_like(data: bytes) -> bool:
    at = data.find(b"@")
    while at >= 0:
        if at and data[at - 1:at].isalnum() and data[at + 1:at + 2].isalnum():
            return True
        at = data.find(b"@", at + 1)
    return False


def _personal(data: bytes, low: bytes) -> bool:
    if b"+" in data and _E164.search(data):
        return True
    if b"::" in data:
        return True
    if b"." in data and b"..." in data.translate(None, _DIGITS):
        return True
    zeros = data.translate(_ZEROS)
    for shape in _DIGIT_SHAPES:
        if shape in zeros:
            return True
    return b"0000000000000" in zeros and any(word in low for word in _CARD_WORDS)


_PERCENT = re.compile(rb"%[0-9A-Fa-f]{2}")
_ESCAPE = re.compile(rb'\\["\\/bfnrtu]')
_E164 = re.compile(rb"\+[1-9][0-9 ().-]{6}")
_RUN = re.compile(rb"[A-Za-z0-9+_]{20,}")
_BORING = re.compile(rb"[0-9a-fA-F]+|[a-z0-9_]+")


def _base64_run(data: bytes) -> bool:
    """A run of 20+ base64 characters that is not a lower-case word, path or hex string."""
    if len(data) < 20 or b"bbbbbbbbbbbbbbbbbbbb" not in data.translate(_B64):
        return False
    for m in _RUN.finditer(data):
        if not _BORING.fullmatch(m.group()):
            return True
    return False

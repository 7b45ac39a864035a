"""The cheap test that lets most of a capture through untouched.

Before any JSON parsing or detector runs, a line (or a decoded string) is asked: could any rule
fire here? The answer must never be "no" when a detector would find something (a test plants
every kind of secret and checks), and should be "no" for ordinary traffic. Regular
expressions that try a pattern at every position are slow in Python, so the test is built
from fast primitives over the UTF-8 bytes:

- one trie-shaped regex over the lower-cased bytes for every literal trigger: provider
  prefixes (case-insensitively: a superset), sensitive words, ``/users/``, ``-----begin``...
  Hits in ordinary vocabulary (``progressToken``, ``maxTokens``, ``keyboard``, ``author``,
  ``task-``) are dismissed by looking at their neighbours;
- substring checks (``@``, ``://``, ``%``, ``::``, ``+``, escapes);
- digits mapped to ``0`` (``bytes.translate``) and searched as literals: ``000-000-0000``,
  ``0000 0000 0000``; digits deleted to find ``...`` (dotted quads: IPv4);
- long base64 runs that are not plain lower-case words, paths or hex.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mcplint.redact import providers

_ZEROS = bytes.maketrans(b"0123456789", b"0000000000")
_DIGITS = b"0123456789"
#: Digit shapes of phone and card numbers once every digit is "0".
_DIGIT_SHAPES = (b"000-000-0000", b"000.000.0000", b"(000)", b"0000 0000 0000", b"0000-0000-0000",
                 b"0000 000000 0000", b"0000-000000-0000")
_CARD_WORDS = (b"card", b"credit", b"visa", b"amex", b"mastercard", b"payment")

#: Sensitive words (lower case) and other literal triggers of the text detectors.
WORDS = (
    "passw", "passphrase", "passcode", "pwd", "secret", "token", "auth", "key", "cookie", "sessionid",
    "session_id", "session-id", "sessiontoken", "session_token", "sessionkey", "session_key", "credential",
    "creds", "signature", "bearer", "basic ", "dpop", "negotiate", "private", 'pin"', "pin\\", 'otp"', "otp\\",
    "sig=", "_pat", "dsn", "connstr", "assertion", "verifier", "/users/", "/home/", "\\users\\", "data:",
    'accept"', "accept\\", "q~", ":aa", ".atlasv1.",
)
#: Neighbours that make a word hit ordinary vocabulary: (before, after) per word.
_BENIGN = {
    b"token": ((b"progress", b"progress_", b"next", b"page", b"cursor"),
               (b"s", b"izer", b"iz", b"type", b"_type", b"endpoint", b"_endpoint", b"url", b"_url", b"count")),
    b"key": ((b"public", b"public_", b"primary", b"sort", b"cache", b"hot", b"mon", b"tur", b"don", b"whis",
              b"joc", b"idempotency"),
             (b"s", b"board", b"word", b"down", b"up", b"press", b"frame", b"code", b"stroke", b"id", b"_id",
              b"name", b"_name", b"note")),
    b"auth": ((), (b"or", b"ority")),
    b"private": ((), (b'"', b"\\", b",", b"}", b" ", b"=")),
    b"signature": ((), (b"help",)),
    b"dsn": ((), ()),
}


def trie_pattern(words: Iterable[str | bytes]) -> bytes:
    """A regex (bytes) matching any of ``words``, shaped as a trie so each position is cheap.

    A word that is a prefix of another ends the branch (a search only needs one hit).
    """
    root: dict = {}
    for word in words:
        node = root
        for byte in (word.encode() if isinstance(word, str) else word):
            node = node.setdefault(byte, {})
        node[None] = True

    def build(node: dict) -> bytes:
        if None in node:
            return b""
        singles: list[bytes] = []
        groups: list[bytes] = []
        for byte in sorted(node):
            tail = build(node[byte])
            char = re.escape(bytes([byte]))
            (groups.append(char + tail) if tail else singles.append(char))
        if singles:
            groups.append(singles[0] if len(singles) == 1 else b"[" + b"".join(singles) + b"]")
        return groups[0] if len(groups) == 1 else b"(?:" + b"|".join(groups) + b")"

    return build(root)


class Prefilter:
    """``prefilter(data, string=...)``: may a rule fire in these UTF-8 bytes?"""

    def __init__(self, extra: Iterable[str] = (), personal: bool = True):
        self._providers = {p.lower().encode() for p, _ in providers._PREFIXED}
        literals = set(self._providers) | {w.encode() for w in WORDS} | {e.lower().encode() for e in extra}
        self.regex = re.compile(trie_pattern(sorted(literals)))
        self.personal = personal

    def __call__(self, data: bytes, string: bool = True) -> bool:
        low = data.lower()
        for m in self.regex.finditer(low):
            if self._real(low, m.group(), m.start(), m.end()):
                return True
        if b"://" in data or (b"@" in data and self._email_like(data)) or b"SK" in data and _twilio(data):
            return True
        if b"%" in data and _PERCENT.search(data):
            return True
        if b"\\" in data:
            if string and _ESCAPE.search(data):
                return True
            if not string and (b"\\u" in data or b"\\/" in data):
                return True
        if self.personal and self._personal(data, low):
            return True
        return _base64_run(data)

    def _real(self, low: bytes, word: bytes, start: int, end: int) -> bool:
        if word in self._providers and start and low[start - 1:start].isalnum():
            return False  # "task-", "disk-": a provider prefix must start a token
        benign = _BENIGN.get(word)
        if benign is None:
            return True
        before, after = benign
        return not (low.startswith(after, end) if after else False) and not (
            low.endswith(before, 0, start) if before else False)

    @staticmethod
    def _email_like(data: bytes) -> bool:
        at = data.find(b"@")
        while at >= 0:
            if at and data[at - 1:at].isalnum() and data[at + 1:at + 2].isalnum():
                return True
            at = data.find(b"@", at + 1)
        return False

    @staticmethod
    def _personal(data: bytes, low: bytes) -> bool:
        if b"+" in data and _E164.search(data):
            return True
        if b"::" in data:
            return True
        if b"." in data and b"..." in data.translate(None, _DIGITS):
            return True
        zeros = data.translate(_ZEROS)
        if any(shape in zeros for shape in _DIGIT_SHAPES):
            return True
        return b"0000000000000" in zeros and any(word in low for word in _CARD_WORDS)


_PERCENT = re.compile(rb"%[0-9A-Fa-f]{2}")
_ESCAPE = re.compile(rb'\\["\\/bfnrtu]')
_E164 = re.compile(rb"\+[1-9][0-9 ().-]{6}")
_TWILIO = re.compile(rb"SK[0-9a-fA-F]{32}")
_RUN = re.compile(rb"[A-Za-z0-9+/_-]{20,}")
_BORING = re.compile(rb"[0-9a-fA-F-]+|[a-z0-9/_-]+")


def _twilio(data: bytes) -> bool:
    return _TWILIO.search(data) is not None


def _base64_run(data: bytes) -> bool:
    """A run of 20+ base64 characters that is not a lower-case path, word or hex string."""
    if len(data) < 20:
        return False
    for m in _RUN.finditer(data):
        if not _BORING.fullmatch(m.group()):
            return True
    return False

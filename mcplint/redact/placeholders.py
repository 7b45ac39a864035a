"""Placeholders and their keyed-HMAC tags.

A redacted value becomes ``[REDACTED:<kind>:<tag>]`` where ``tag`` is the first 8 hex digits
of HMAC-SHA256(run key, secret). The same secret gets the same tag everywhere in a run (body,
header, log line, base64 layer), whatever rule found it, so correlation survives; without the
key nothing can be reversed or even confirmed. The key is random per run unless given.

Two format-preserving variants exist where the shape matters to readers and validators:
emails become ``user-<tag>@example.invalid`` and home-folder user names ``user-<tag>``.
Placeholders contain no trigger of any rule (``[``, ``]`` and ``:`` stop every token run), so
redacting a redacted text changes nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from mcplint.redact._rx import rx

PLACEHOLDER_RE = rx("placeholder", r"\[REDACTED(?::[a-z0-9-]{1,40}:[0-9a-f]{8,64})?\]")
#: The format-preserving forms (email local part, home-folder segment).
PSEUDONYM_RE = rx("pseudonym", r"user-[0-9a-f]{8,64}")
KIND_RE = rx("kind", r"[a-z0-9]{1,20}(?:-[a-z0-9]{1,20}){0,5}")
EMAIL_DOMAIN = "example.invalid"
#: base64 of "[REDACTED" — every blob placeholder starts with it.
BLOB_PREFIX = "W1JFREFDVEVE"

_CACHE_LIMIT = 200_000
_CACHEABLE = 4096


class Tagger:
    """Tags and placeholders for one run (one key)."""

    def __init__(self, key: bytes | str | None = None, plain: bool = False):
        if isinstance(key, str):
            key = key.encode("utf-8")
        self.key = key or os.urandom(32)
        self.plain = plain
        self._cache: dict[str, str] = {}
        self._owner: dict[str, str] = {}  # tag -> full MAC of the secret that owns it

    def tag(self, secret: str) -> str:
        """8 hex digits, longer only when two different secrets of this run would collide."""
        cached = self._cache.get(secret)
        if cached is not None:
            return cached
        mac = hmac.new(self.key, secret.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
        for size in (8, 12, 16, 64):
            tag = mac[:size]
            owner = self._owner.setdefault(tag, mac)
            if owner == mac:
                break
        if len(secret) <= _CACHEABLE:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[secret] = tag
        return tag

    def placeholder(self, kind: str, secret: str) -> str:
        if self.plain:
            return "[REDACTED]"
        return f"[REDACTED:{kind}:{self.tag(secret)}]"

    def pseudonym(self, secret: str) -> str:
        """``user-<tag>``: a user name that keeps the shape of a path or an email."""
        return "user-" + self.tag(secret)

    def email(self, secret: str) -> str:
        return f"user-{self.tag(secret.lower())}@{EMAIL_DOMAIN}"


def is_placeholder(text: str) -> bool:
    return PLACEHOLDER_RE.fullmatch(text) is not None


def starts_with_placeholder(text: str) -> bool:
    return text.startswith("[REDACTED") and PLACEHOLDER_RE.match(text) is not None

"""Credentials inside URLs and connection strings.

- ``url-password``: the password of ``scheme://user:password@host`` (https, postgres,
  mongodb+srv, redis, amqp...); the user name and host stay;
- ``url-userinfo``: a random-looking user part without password (``https://<token>@host``);
- query, fragment and matrix parameters whose name carries a secret (``access_token``,
  ``exaApiKey``, ``X-Amz-Signature``, ``sig``, ``code``, ``state``); the name stays, the value is
  redacted (tagged by its percent-decoded form);
- ``url-path-secret``: a path segment of at least 24 characters that mixes three character
  classes with high entropy (keys in hosted-server paths, webhook tokens); UUIDs, digests and
  file names are kept.
"""

from __future__ import annotations

from urllib.parse import unquote

from mcplint.redact._rx import entropy, is_hex_digest, rx
from mcplint.redact.credentials import is_benign_value
from mcplint.redact.keys import KeyClassifier
from mcplint.redact.placeholders import starts_with_placeholder
from mcplint.redact.spans import STRUCTURE, Span

KINDS = frozenset({"url-password", "url-userinfo", "url-secret", "url-path-secret"})

URL = rx("url", r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}://([^\s\"'<>\\`{}|^]{1,4096}+)")
PARAM = rx("url-param", r"[?&#;]([^=&#;\s/]{1,80})=([^&#\s]{0,4096}+)")
_UUID_SEGMENT = rx("uuid-segment", r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")

TRIGGERS = (r"://", r":\\/\\/")
_MAX_NESTED = 8


def find(text: str, keys: KeyClassifier) -> list[Span]:
    if "://" not in text:
        return []
    spans: list[Span] = []
    for m in URL.finditer(text):
        _one(text, m.start(1), m.group(1), keys, spans)
        # URLs inside this one (``?redirect=https://user:pw@host/``) are judged on their own too;
        # a bounded number, so a run of "a://a://..." stays linear
        inner, pos = None, m.start(1)
        for _ in range(_MAX_NESTED):
            inner = URL.search(text, pos, m.end())
            if inner is None:
                break
            _one(text, inner.start(1), inner.group(1), keys, spans)
            pos = inner.start(1)
    return spans


def _one(text: str, base: int, body: str, keys: KeyClassifier, spans: list[Span]) -> None:
    query = len(body)
    for mark in "?#":
        i = body.find(mark)
        if 0 <= i < query:
            query = i
    authority_end = body.find("/")
    authority_end = query if authority_end < 0 or authority_end > query else authority_end
    at = body.rfind("@", 0, query)
    if at > 0:
        userinfo = body[:at]
        colon = userinfo.find(":")
        slash = userinfo.find("/")
        if slash < 0 or 0 <= colon < slash:
            authority_end = max(authority_end, at)
            if colon >= 0:
                password = userinfo[colon + 1:]
                if password and not is_benign_value(password):
                    spans.append(Span(base + colon + 1, base + at, "url-password", unquote(password), STRUCTURE))
            elif _secretish(userinfo, 16):
                spans.append(Span(base, base + at, "url-userinfo", unquote(userinfo), STRUCTURE))
    path_start = authority_end
    for segment_start, segment in _segments(body, path_start, query):
        if _secretish(segment, 24):
            spans.append(Span(base + segment_start, base + segment_start + len(segment), "url-path-secret",
                              segment, STRUCTURE))
    for p in PARAM.finditer(body, path_start):
        value = p.group(2)
        if not value or is_benign_value(value) or starts_with_placeholder(value):
            continue
        kind = keys.url_param(unquote(p.group(1)))
        if kind is not None:
            spans.append(Span(base + p.start(2), base + p.end(2), kind if kind != "secret" else "url-secret",
                              unquote(value), STRUCTURE))


def _segments(body: str, start: int, end: int):
    pos = start
    while pos < end:
        nxt = body.find("/", pos + 1, end)
        nxt = end if nxt < 0 else nxt
        segment = body[pos + 1 if body.startswith("/", pos) else pos:nxt]
        if len(segment) >= 24:
            yield (nxt - len(segment), segment)
        pos = nxt


def _secretish(segment: str, min_len: int) -> bool:
    """Long, three character classes, high entropy, and not a UUID, digest or file name."""
    if len(segment) < min_len or len(segment) > 1024 or starts_with_placeholder(segment):
        return False
    if _UUID_SEGMENT.fullmatch(segment) or is_hex_digest(segment):
        return False
    classes = (any(c.islower() for c in segment) + any(c.isupper() for c in segment)
               + any(c.isdigit() for c in segment) + any(not c.isalnum() for c in segment))
    if classes < 3:
        return False
    extension = segment.rsplit(".", 1)[1] if "." in segment[-6:] else ""
    if extension.isalpha():  # a file name
        return False
    if "%" in segment or "[" in segment:
        return False
    return entropy(segment) >= 3.5

"""Images, audio and binary blobs: a placeholder that keeps the MIME type and the size.

Screenshots and files can show secrets no text rule can read, and random base64 contains
token-shaped substrings, so binary fields are never scanned as text. By default their value
becomes the base64 of ``[REDACTED:<kind>:<tag>] <mimeType> <size> bytes``: still valid base64
(schema checks keep passing), the ``mimeType`` member is untouched, the same blob gets the same
tag. ``--keep-blobs`` keeps them; text blobs (a ``.env`` served as a resource ``blob``) are then
decoded, redacted and re-encoded.

Known binary fields: ``data`` of ``image``/``audio`` content blocks, ``blob`` of resource
contents, and ``data:<mime>;base64,...`` URIs anywhere in a string.
"""

from __future__ import annotations

import base64

from mcplint.redact._rx import rx
from mcplint.redact.placeholders import BLOB_PREFIX, Tagger
from mcplint.redact.spans import EXPLICIT, Span

KINDS = frozenset({"image", "audio", "blob"})
DATA_URI = rx("data-uri", r"data:([A-Za-z0-9.+-]{1,40}/[A-Za-z0-9.+-]{1,80})?((?:;[A-Za-z0-9=._-]{1,80}){0,4});base64,"
                          r"([A-Za-z0-9+/_-]{1,}={0,2})")
TRIGGERS = (r"data:[A-Za-z0-9.+/-]{0,121};",)


def decoded_size(b64: str) -> int:
    """Bytes a base64 text decodes to (whitespace and padding ignored)."""
    n = len(b64) - b64.count("\n") - b64.count("\r") - b64.count(" ")
    n -= len(b64) - len(b64.rstrip("=")) if b64.endswith("=") else 0
    return n * 3 // 4


def is_placeholder_blob(b64: str) -> bool:
    return b64.startswith(BLOB_PREFIX)


def placeholder(tagger: Tagger, kind: str, b64: str, mime: str | None) -> str:
    """The base64 placeholder for a blob (tag from the blob's own text)."""
    if tagger.plain:
        text = f"[REDACTED] {mime or 'application/octet-stream'} {decoded_size(b64)} bytes"
    else:
        text = f"[REDACTED:{kind}:{tagger.tag(b64)}] {mime or 'application/octet-stream'} {decoded_size(b64)} bytes"
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def kind_for(mime: str | None, fallback: str = "blob") -> str:
    if mime:
        major = mime.split("/", 1)[0].lower()
        if major in ("image", "audio"):
            return major
    return fallback


def data_uris(text: str, tagger: Tagger) -> list[Span]:
    """``data:image/png;base64,...`` URIs: the payload becomes a placeholder."""
    if "data:" not in text or ";base64," not in text:
        return []
    spans = []
    for m in DATA_URI.finditer(text):
        payload = m.group(3)
        if is_placeholder_blob(payload) or len(payload) < 16:
            continue
        mime = m.group(1)
        kind = kind_for(mime)
        spans.append(Span(m.start(3), m.end(3), kind, payload, EXPLICIT, placeholder(tagger, kind, payload, mime)))
    return spans

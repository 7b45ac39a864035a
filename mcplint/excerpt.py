"""Short, secret-free excerpts of records for findings.

A finding shows the line it is about, but never a credential. Masking goes through the
redaction engine of ``mcplint redact`` (:mod:`mcplint.redact`), in its "plain" form: every
credential becomes ``[REDACTED]`` (no kind, no tag), personal data is kept so excerpts stay
useful for debugging, and the excerpt is cut to length only after masking.

``secret_kinds`` tells rules which kinds of credentials a text holds (never the values).
``_SENSITIVE_KEY`` and ``_TOKEN`` are the earlier, smaller patterns, kept unchanged because
rules import them; new code should prefer ``secret_kinds``.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from mcplint.model import Kind, Record
from mcplint.redact import BLOB_KINDS, RedactOptions, Redactor, Report

MAX_EXCERPT = 160
#: Longer texts are cut before masking (an excerpt shows 160 characters; masking stays cheap).
MAX_MASKED = 1 << 16

_SENSITIVE_KEY = re.compile(
    r"(?i)^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api[-_]?key|apikey|"
    r"password|passwd|pwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|id[-_]?token|"
    r"auth[-_]?token|bearer|private[-_]?key|mcp-session-id|session[-_]?token|credentials?)$"
)
_TOKEN = re.compile(
    r"(?:\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[baprs]-[A-Za-z0-9-]{10,}|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})\b"
    r"|(?i:bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
    r"|(?<=://)[^/\s:@]+:[^/\s@]+(?=@))"
)

MASK = "[REDACTED]"

_ENGINE: Redactor | None = None
_COUNTER: Redactor | None = None


def _engine() -> Redactor:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = Redactor(RedactOptions(plain=True, personal=False, counting=False))
    return _ENGINE


def mask_text(text: str) -> str:
    """Mask credentials in free text (any line shape: JSON, log lines, headers, .env)."""
    return _engine().redact_text(text)


def mask_value(value: Any, depth: int = 0) -> Any:
    """A copy of a JSON value with credentials masked (same shape; sensitive members masked)."""
    return _engine().redact_value(value)


def secret_kinds(text: str) -> dict[str, int]:
    """Kinds of credentials in ``text`` (``{"github-pat": 1, "password": 2}``), never the values.

    Personal data and blobs are not counted: this is about secrets.
    """
    global _COUNTER
    if _COUNTER is None:
        _COUNTER = Redactor(RedactOptions(plain=True, personal=False, keep=BLOB_KINDS))
    engine = _COUNTER
    engine.report = Report()
    engine.redact_text(text[:MAX_MASKED])
    return dict(engine.report.counts)


def shorten(text: str, limit: int = MAX_EXCERPT) -> str:
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def excerpt_of(record: Record, limit: int = MAX_EXCERPT) -> str:
    """The record's text, masked and cut to ``limit`` characters."""
    text = None
    if record.msg is not None and record.kind not in (Kind.MALFORMED, Kind.TEXT, Kind.STDERR):
        try:
            text = orjson.dumps(record.msg).decode()
        except TypeError:
            pass
    if text is None:
        text = record.text
    return shorten(mask_text(text[:MAX_MASKED]), limit)

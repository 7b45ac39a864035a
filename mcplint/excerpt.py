"""Short, secret-free excerpts of records for findings.

A finding shows the line it is about, but never a credential: values under sensitive keys
and strings that look like tokens are masked before the excerpt is cut to length.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from mcplint.model import Kind, Record

MAX_EXCERPT = 160

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


def mask_text(text: str) -> str:
    """Mask token-shaped substrings of free text."""
    return _TOKEN.sub(MASK, text)


def mask_value(value: Any, depth: int = 0) -> Any:
    """A copy of a JSON value with sensitive members and token-shaped strings masked."""
    if depth > 64:
        return "…"
    if isinstance(value, dict):
        return {
            key: (MASK if isinstance(key, str) and _SENSITIVE_KEY.match(key) and val not in (None, "")
                  else mask_value(val, depth + 1))
            for key, val in value.items()
        }
    if isinstance(value, list):
        return [mask_value(item, depth + 1) for item in value]
    if isinstance(value, str):
        return mask_text(value)
    return value


def shorten(text: str, limit: int = MAX_EXCERPT) -> str:
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def excerpt_of(record: Record, limit: int = MAX_EXCERPT) -> str:
    """The record's text, masked and cut to ``limit`` characters."""
    if record.msg is not None and record.kind not in (Kind.MALFORMED, Kind.TEXT, Kind.STDERR):
        try:
            text = orjson.dumps(mask_value(record.msg)).decode()
        except TypeError:
            text = mask_text(record.text)
    else:
        text = mask_text(record.text)
    return shorten(text, limit)

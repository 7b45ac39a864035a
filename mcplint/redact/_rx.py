"""Pattern registry and small value tests shared by the detectors.

Every regular expression of the redaction engine is compiled through :func:`rx`, so that one
test can run all of them on adversarial inputs (catastrophic backtracking). Patterns follow
the rules of the design notes: literal triggers first, bounded repetition, no nested
quantifiers, ``re.ASCII`` so that ``\\w``/``\\d``/``\\b`` mean ASCII.
"""

from __future__ import annotations

import math
import re
from collections import Counter

#: (name, compiled pattern) of every built-in regex; see tests/test_redact_safety.py.
REGISTRY: list[tuple[str, re.Pattern[str]]] = []


def rx(name: str, pattern: str, flags: int = 0) -> re.Pattern[str]:
    compiled = re.compile(pattern, flags | re.ASCII)
    REGISTRY.append((name, compiled))
    return compiled


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(text)
    if not n:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


_TOKENISH = rx("tokenish", r"[A-Za-z0-9_.~+/=:-]{16,4096}")
_UUID = rx("uuid", r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = rx("hex", r"[0-9a-fA-F]+")


def looks_random(value: str, min_len: int = 16) -> bool:
    """A single token that is long, mixes letters and digits and has high entropy.

    Used only as a gate where the context is already suspicious (a fuzzy key name such as
    ``key``, an ``env`` map, a word like "token" just before it); never on all text.
    """
    if len(value) < min_len or not _TOKENISH.fullmatch(value):
        return False
    if value[0] in "/~." or "://" in value or _UUID.fullmatch(value):
        return False
    if value.isdigit() or value.isalpha():
        return False
    if not any(c.isdigit() for c in value):
        return False
    return entropy(value) >= (3.0 if len(value) < 24 else 3.4)


def is_hex_digest(value: str) -> bool:
    """Git object ids and SHA-256 digests (kept: they identify content, not people)."""
    return len(value) in (40, 64) and bool(_HEX.fullmatch(value))

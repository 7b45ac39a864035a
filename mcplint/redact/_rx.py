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
from collections.abc import Iterable

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
_DIGIT = rx("digit", r"\d")


def looks_random(value: str, min_len: int = 16) -> bool:
    """A single token that is long, mixes letters and digits and has high entropy.

    Used only as a gate where the context is already suspicious (a fuzzy key name such as
    ``key``, an ``env`` map, a word like "token" just before it); never on all text.
    """
    if not min_len <= len(value) <= 1024 or not _TOKENISH.fullmatch(value):
        return False
    if value[0] in "/~." or "://" in value or _UUID.fullmatch(value):
        return False
    if value.isdigit() or value.isalpha() or _DIGIT.search(value) is None:
        return False
    return entropy(value) >= (3.0 if len(value) < 24 else 3.4)


def is_uuid(value: str) -> bool:
    return len(value) == 36 and _UUID.fullmatch(value) is not None


def is_hex_digest(value: str) -> bool:
    """Git object ids and SHA-256 digests (kept: they identify content, not people)."""
    return len(value) in (40, 64) and bool(_HEX.fullmatch(value))


def trie_pattern(words: Iterable[str | bytes], as_bytes: bool = True, longest: bool = False) -> bytes | str:
    """A regex matching any of ``words``, shaped as a trie so each position is cheap.

    By default a word that is a prefix of another ends its branch (a search only needs one
    hit); with ``longest`` the longer words stay reachable and win (leftmost-longest).
    """
    root: dict = {}
    for word in words:
        if as_bytes:
            word = (word.encode("utf-8", "surrogatepass") if isinstance(word, str) else word).decode("latin-1")
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[None] = True

    def build(node: dict) -> str:
        end = None in node
        children = sorted(c for c in node if c is not None)
        if end and (not children or not longest):
            return ""
        singles: list[str] = []
        groups: list[str] = []
        for char in children:
            tail = build(node[char])
            (groups.append(re.escape(char) + tail) if tail else singles.append(re.escape(char)))
        if singles:
            groups.append(singles[0] if len(singles) == 1 else "[" + "".join(singles) + "]")
        body = groups[0] if len(groups) == 1 and not end else "(?:" + "|".join(groups) + ")"
        return body + "?" if end else body

    pattern = build(root) if root else "(?!)"
    return pattern.encode("latin-1") if as_bytes else pattern

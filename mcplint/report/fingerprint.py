"""Stable finding fingerprints for baselines, SARIF ``partialFingerprints`` and GitLab.

A fingerprint names *what* went wrong, not *where in the file*: the rule, the file, the session,
the direction, the method and the JSON-RPC id, plus an ordinal among findings that share all of
these. Unrelated edits to a capture (lines added before the finding) leave it unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import orjson

from mcplint.model import Finding


def identity(finding: Finding) -> tuple:
    try:
        ident = orjson.dumps(finding.id).decode()
    except TypeError:
        ident = repr(finding.id)
    return (finding.code, finding.path, finding.session or "", finding.direction or "",
            finding.method or "", ident)


def fingerprints(findings: Iterable[Finding]) -> list[str]:
    """One fingerprint per finding, in the order given (findings should be sorted)."""
    seen: dict[tuple, int] = {}
    out = []
    for finding in findings:
        key = identity(finding)
        ordinal = seen.get(key, 0)
        seen[key] = ordinal + 1
        text = "\x1f".join((*key, str(ordinal)))
        out.append(hashlib.sha256(text.encode("utf-8")).hexdigest()[:32])
    return out

"""Baselines: record today's findings, hide them tomorrow, report entries that went stale."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO

import orjson

from mcplint import __version__
from mcplint.model import Finding
from mcplint.report.fingerprint import fingerprints

FORMAT_VERSION = 1


class BaselineError(ValueError):
    """A baseline file that cannot be read."""


def write(out: IO[bytes], findings: list[Finding]) -> int:
    """Write the fingerprints of ``findings`` (sorted) to the binary stream ``out``; return how many."""
    entries = [{"fingerprint": print_, "code": f.code, "path": f.path, "line": f.line, "message": f.message}
               for f, print_ in zip(findings, fingerprints(findings))]
    document = {"tool": "mcplint", "version": __version__, "format": FORMAT_VERSION, "findings": entries}
    out.write(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    return len(entries)


@dataclass
class Filtered:
    kept: list[Finding]
    hidden: int
    stale: list[dict]  # baseline entries that matched nothing


def apply(path: str | Path, findings: list[Finding]) -> Filtered:
    """Hide findings whose fingerprint the baseline at ``path`` lists."""
    try:
        document = orjson.loads(Path(path).read_bytes())
        entries = {e["fingerprint"]: e for e in document["findings"]}
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
        raise BaselineError(f"{path}: not a mcplint baseline ({exc})") from exc
    kept, used = [], set()
    for finding, print_ in zip(findings, fingerprints(findings)):
        if print_ in entries:
            used.add(print_)
        else:
            kept.append(finding)
    stale = [entry for print_, entry in entries.items() if print_ not in used]
    return Filtered(kept, len(findings) - len(kept), stale)

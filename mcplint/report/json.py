"""Machine-readable output: one JSON array, or one JSON object per line (DESIGN.md contract)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any

from mcplint.untrusted import json_text


def json_array(findings, summary, out) -> None:
    write_array(out, (f.to_dict() for f in findings))
    out.write("\n")


def json_lines(findings, summary, out) -> None:
    for finding in findings:
        out.write(json_text(finding.to_dict()))
        out.write("\n")


def write_array(out: IO[str], items: Iterable[Any], depth: int = 0) -> None:
    """Write ``items`` as the JSON array ``json_text(list(items), indent=True)`` would be at
    ``depth`` levels of a document, one item at a time: a report of 100,000 findings never holds
    the whole text (nor every item's dict) in memory."""
    pad = "\n" + "  " * (depth + 1)
    opened = False
    for item in items:
        out.write(("," if opened else "[") + pad + json_text(item, indent=True).replace("\n", pad))
        opened = True
    out.write("\n" + "  " * depth + "]" if opened else "[]")

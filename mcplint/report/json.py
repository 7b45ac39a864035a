"""Machine-readable output: one JSON array, or one JSON object per line (DESIGN.md contract)."""

from __future__ import annotations

from mcplint.untrusted import json_text


def json_array(findings, summary, out) -> None:
    out.write(json_text([f.to_dict() for f in findings], indent=True))
    out.write("\n")


def json_lines(findings, summary, out) -> None:
    for finding in findings:
        out.write(json_text(finding.to_dict()))
        out.write("\n")

"""Machine-readable output: one JSON array, or one JSON object per line (DESIGN.md contract)."""

from __future__ import annotations

import orjson


def json_array(findings, summary, out) -> None:
    out.write(orjson.dumps([f.to_dict() for f in findings], option=orjson.OPT_INDENT_2).decode())
    out.write("\n")


def json_lines(findings, summary, out) -> None:
    for finding in findings:
        out.write(orjson.dumps(finding.to_dict()).decode())
        out.write("\n")

"""Reporters: turn findings into text or machine formats; and what output shares (finding fingerprints,
terminal colour, the progress line on stderr)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO

from mcplint.model import Finding
from mcplint.report import ci
from mcplint.report import json as json_report
from mcplint.report import markdown as markdown_report
from mcplint.report import text as text_report

Reporter = Callable[[Sequence[Finding], "RunSummary", IO[str]], None]

REPORTERS: dict[str, Reporter] = {
    "full": text_report.full,
    "concise": text_report.concise,
    "grouped": text_report.grouped,
    "json": json_report.json_array,
    "json-lines": json_report.json_lines,
    "sarif": ci.sarif,
    "github": ci.github,
    "gitlab": ci.gitlab,
    "junit": ci.junit,
    "markdown": markdown_report.markdown,
}

#: reporters that take a ``color`` argument (human formats)
COLORED = frozenset({"full", "concise", "grouped"})

from mcplint.report.summary import RunSummary  # noqa: E402  (re-export)

__all__ = ["COLORED", "REPORTERS", "RunSummary"]

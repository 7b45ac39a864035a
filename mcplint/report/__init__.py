"""Reporters: turn findings into text or machine formats."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO

from mcplint.model import Finding
from mcplint.report import json as json_report
from mcplint.report import text as text_report

Reporter = Callable[[Sequence[Finding], "RunSummary", IO[str]], None]

REPORTERS: dict[str, Reporter] = {
    "full": text_report.full,
    "concise": text_report.concise,
    "json": json_report.json_array,
    "json-lines": json_report.json_lines,
}

from mcplint.report.summary import RunSummary  # noqa: E402  (re-export)

__all__ = ["REPORTERS", "RunSummary"]

"""Where a line of stray text on a stdio server's stdout comes from, and how to stop it.

Shared by ``IO001`` (the finding's hint) and ``mcplint diagnose`` (its stdout pollution list).
The line is what the capture holds, or the start of it that a host quoted in its "not valid
JSON" error (:func:`mcplint.input.formats._common.stdout_fragment`).
"""

from __future__ import annotations

import re

#: ``(pattern, origin, fix)``: the first pattern that matches the line names who wrote it.
ORIGINS = (
    (re.compile(r"(?i)^npm (warn|notice|err)|^npx:|need to install the following packages"),
     "npm/npx install output or warnings",
     "Run the server with `npx -y --quiet` or pre-install it; never let npm write to the MCP stdout."),
    (re.compile(r"(?i)dotenv|injecting env"),
     "a dotenv notice",
     "Pass `quiet: true` to dotenv's config() (or set DOTENV_CONFIG_QUIET=true)."),
    (re.compile(r"(?i)^content-le"),  # also as a host quotes it: "Content-Le"...
     "LSP-style Content-Length framing",
     "MCP stdio is newline-delimited JSON: write one JSON message per line, without headers."),
    (re.compile(r"^(INFO|DEBUG|WARNING|ERROR|CRITICAL)[: ]|^(INFO|DEBUG|WARNING|ERROR):\w+:"),
     "Python logging on stdout",
     "Configure logging with a StreamHandler on sys.stderr (logging.basicConfig(stream=sys.stderr))."),
    (re.compile(r"^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d"),
     "a time-stamped line of a logger writing to stdout",
     "Point the logger's handler at stderr (Node: console.error or a stderr transport; Python: "
     "logging.basicConfig(stream=sys.stderr))."),
    (re.compile(r"(?i)running on stdio|server (started|running|listening)|listening on|\bon stdio\b"
                r"|^(?:starting|started|loading|loaded|initializing|initialized|connecting)\b"),
     "a start-up banner printed with print/console.log",
     "Write banners with console.error / print(..., file=sys.stderr)."),
)
UNKNOWN = ("unknown writer", "Find what prints this line and send it to stderr.")


def origin(text: str) -> tuple[str, str]:
    """``(origin, fix)`` of a stray stdout line (:data:`UNKNOWN` when no pattern knows it)."""
    for pattern, found, fix in ORIGINS:
        if pattern.search(text):
            return found, fix
    return UNKNOWN

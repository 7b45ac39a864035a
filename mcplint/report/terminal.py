"""Terminal output: whether to colour, and how.

``--color auto|always|never`` on every command with text output; ``auto`` honours ``NO_COLOR``
(https://no-color.org) and ``FORCE_COLOR`` (https://force-color.org).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import IO, Any

import click

COLOR_CHOICES = ("auto", "always", "never")

#: Colour of each severity (finding severities are ``mcplint.model.Severity`` values)
SEVERITY_COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}


def color_wanted(choice: str, stream: IO[str] | None = None) -> bool:
    """``--color``: ``always``/``never`` as said; ``auto`` colours a terminal unless ``NO_COLOR``
    is set, and ``FORCE_COLOR`` colours any stream (https://no-color.org, https://force-color.org)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream or sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def styler(color: bool) -> Callable[..., str]:
    """``click.style`` when colouring, else a function that returns the text unchanged."""
    return click.style if color else _plain


def _plain(text: Any, **_: Any) -> str:
    return str(text)

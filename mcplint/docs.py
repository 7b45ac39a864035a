"""Find and read the rule pages (``rules/<CODE>-<name>.md``), installed or in a checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def docs_dir() -> Path | None:
    """``mcplint/_rule_docs`` inside a wheel, else ``rules/`` beside the package (editable/checkout)."""
    for candidate in (_PACKAGE / "_rule_docs", _PACKAGE.parent / "rules"):
        if candidate.is_dir():
            return candidate
    return None


def page_path(code: str, name: str) -> Path | None:
    directory = docs_dir()
    if directory is None:
        return None
    path = directory / f"{code}-{name}.md"
    return path if path.is_file() else None


def read_page(code: str, name: str) -> str | None:
    path = page_path(code, name)
    return path.read_text(encoding="utf-8") if path else None

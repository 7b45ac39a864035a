"""Find and read the rule pages (``rules/<CODE>-<name>.md``), installed or in a checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # mcplint/


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


def sections(text: str) -> dict[str, str]:
    """``## Heading`` -> body of a rule page."""
    out: dict[str, str] = {}
    current = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            if current is not None:
                out[current] = "\n".join(lines).strip()
            current, lines = line[3:].strip(), []
        elif current is not None:
            lines.append(line)
    if current is not None:
        out[current] = "\n".join(lines).strip()
    return out


def help_url(code: str, name: str) -> str:
    """Where a rule's page can be read online (the repository's rules/ folder)."""
    return f"{DOCS_BASE_URL}/{code}-{name}.md"


DOCS_BASE_URL = "https://github.com/mcplint/mcplint/blob/main/rules"

"""``mcplint check --show-settings``: the effective settings, and where each value came from.

Printed as TOML that could be pasted into ``[tool.mcplint]``, each key followed by a comment
naming its source: ``default``, ``command line``, an environment variable, or the file and key.
"""

from __future__ import annotations

import orjson

from mcplint.config.settings import Settings
from mcplint.input.discovery import DEFAULT_EXCLUDES
from mcplint.report.terminal import styler
from mcplint.rules import load


def _toml(value) -> str:
    if value is None:
        return '"auto"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return orjson.dumps(value).decode()
    if isinstance(value, (list, tuple, set)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict) and not value:
        return "{}"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml(str(k))} = {_toml(v)}" for k, v in value.items()) + " }"
    return _toml(str(value))


def values(settings: Settings) -> dict[str, object]:
    """Setting name (as written in the file) -> effective value."""
    return {
        "select": settings.selection.get("select") or ["(default set)"],
        "extend-select": settings.selection.get("extend_select") or [],
        "ignore": settings.selection.get("ignore") or [],
        "fail-on": settings.fail_on.value,
        "min-severity": settings.min_severity.value,
        "output-format": settings.output_format,
        "protocol-version": settings.protocol_version,
        "per-file-ignores": {pattern: sorted(codes) for pattern, codes in settings.per_file_ignores},
        "severity": {code: severity.value for code, severity in settings.severity.items()},
        "rules": settings.rule_options,
        "exclude": list(DEFAULT_EXCLUDES if settings.exclude is None else settings.exclude),
        "extend-exclude": settings.extend_exclude,
        "respect-gitignore": settings.respect_gitignore,
        "force-exclude": settings.force_exclude,
        "max-line-bytes": settings.max_line_bytes,
    }


def render(settings: Settings, color: bool = False) -> str:
    style = styler(color)
    where = str(settings.config_path) if settings.config_path else "none found (defaults)"
    lines = [style(f"# configuration file: {where}", dim=True),
             style(f"# exclude patterns are relative to: {settings.root}", dim=True),
             style(f"# rules selected: {len(settings.rules)} of {len(load())}", dim=True)]
    for key, value in values(settings).items():
        source = settings.sources.get(key.replace("-", "_"), "default")
        lines.append(f"{style(key, bold=True)} = {_toml(value)}  {style('# ' + source, dim=True)}")
    return "\n".join(lines) + "\n"

"""Effective settings of a ``check`` run: the configuration file merged with the command line.

The command line wins over the file, the file over the defaults. ``select`` replaces the base
set, ``extend-select`` adds to it, ``ignore`` removes from it (ruff's model). Per-rule options
are validated by the rule's own ``Options`` model; severity overrides and per-file ignores are
applied to findings after linting.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from mcplint.config import ConfigError, Loaded
from mcplint.model import Finding, Severity
from mcplint.rules import load
from mcplint.rules._base import Rule
from mcplint.select import SelectionError, resolve, select_rules


@dataclass
class Settings:
    rules: list[Rule]
    fail_on: Severity = Severity.ERROR
    min_severity: Severity = Severity.INFO
    output_format: str = "full"
    protocol_version: str | None = None
    per_file_ignores: list[tuple[str, set[str]]] = field(default_factory=list)
    severity: dict[str, Severity] = field(default_factory=dict)  # code -> forced severity
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)  # code -> validated options


def _code_of(key: str, where: str) -> str:
    registry = load()
    if key.upper() in registry:
        return key.upper()
    for code, cls in registry.items():
        if cls.name == key:
            return code
    raise ConfigError(f"{where}: unknown rule {key!r}")


def configure(rules: list[Rule], options: dict[str, dict[str, Any]]) -> list[Rule]:
    """Set validated per-rule options on rule instances (attributes of the same names)."""
    for rule in rules:
        for name, value in options.get(rule.code, {}).items():
            setattr(rule, name, value)
    return rules


def _rule_options(loaded: Loaded) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    registry = load()
    for key, values in loaded.config.rules.items():
        where = f"{loaded.path}: {loaded.prefix}rules.{key}"
        code = _code_of(key, where)
        model = registry[code].Options
        if model is None:
            raise ConfigError(f"{where}: rule {code} has no options")
        try:
            validated = model.model_validate(values)
        except ValidationError as exc:
            problems = []
            for error in exc.errors():
                path = ".".join(str(p) for p in error["loc"])
                why = "unknown option" if error["type"] == "extra_forbidden" else error["msg"]
                problems.append(f"{where}.{path}: {why}")
            raise ConfigError("; ".join(problems)) from None
        out[code] = validated.model_dump()
    return out


def resolve_settings(loaded: Loaded, *, select: list[str], extend_select: list[str], ignore: list[str],
                     fail_on: str | None, min_severity: str | None, output_format: str | None,
                     protocol_version: str | None) -> Settings:
    """Merge the file (``loaded``) and the command line into effective settings."""
    config = loaded.config
    prefix = f"{loaded.path}: {loaded.prefix}" if loaded.path else ""
    try:
        rules = select_rules(select or config.select or (), ignore=[*config.ignore, *ignore],
                             extend=[*config.extend_select, *extend_select])
        per_file = [(pattern, set().union(*(resolve(s) for s in selectors)) if selectors else set())
                    for pattern, selectors in config.per_file_ignores.items()]
    except SelectionError as exc:
        raise ConfigError(f"{prefix}{exc}") from None
    severity = {_code_of(key, f"{prefix}severity.{key}"): Severity(value) for key, value in config.severity.items()}
    options = _rule_options(loaded) if config.rules else {}
    return Settings(
        rules=configure(rules, options),
        fail_on=Severity(fail_on or config.fail_on or "error"),
        min_severity=Severity(min_severity or config.min_severity or "info"),
        output_format=output_format or config.output_format or "full",
        protocol_version=protocol_version or config.protocol_version,
        per_file_ignores=per_file,
        severity=severity,
        rule_options=options,
    )


def apply(findings: list[Finding], settings: Settings) -> list[Finding]:
    """Severity overrides, per-file ignores and the minimum severity."""
    out = []
    for finding in findings:
        if finding.code in settings.severity:
            finding.severity = settings.severity[finding.code]
        if settings.per_file_ignores and _ignored(finding, settings.per_file_ignores):
            continue
        if finding.severity.rank >= settings.min_severity.rank:
            out.append(finding)
    return out


def _ignored(finding: Finding, patterns: list[tuple[str, set[str]]]) -> bool:
    path = PurePath(finding.path).as_posix()
    for pattern, codes in patterns:
        if finding.code in codes and (fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(PurePath(path).name, pattern)):
            return True
    return False

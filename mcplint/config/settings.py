"""Effective settings of a ``check`` run: the configuration file merged with the command line.

The command line wins over the file, the file over the defaults. ``select`` replaces the base
set, ``extend-select`` adds to it, ``ignore`` removes from it (ruff's model). Per-rule options
are validated by the rule's own ``Options`` model; severity overrides and per-file ignores are
applied to findings after linting.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from mcplint.config.files import SETTING_KEYS, ConfigError, Loaded
from mcplint.config.select import SelectionError, resolve, select_rules
from mcplint.input.discovery import Finder
from mcplint.input.lines import MAX_LINE_BYTES
from mcplint.model import Finding, Severity
from mcplint.rules import load
from mcplint.rules._base import Rule, options_model


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
    exclude: list[str] | None = None  # None: the default excludes
    extend_exclude: list[str] = field(default_factory=list)
    respect_gitignore: bool = True
    force_exclude: bool = False
    skip_non_captures: bool = False  # command line only (pre-commit)
    max_line_bytes: int = MAX_LINE_BYTES
    root: Path = field(default_factory=Path.cwd)  # exclude patterns are relative to it
    #: the selectors the rules were chosen by: "select" (None: the default set), "extend_select", "ignore"
    selection: dict[str, list[str] | None] = field(default_factory=dict)
    config_path: Path | None = None
    #: setting -> where its value came from ("default", "command line", "<file>: tool.mcplint.<key>")
    sources: dict[str, str] = field(default_factory=dict)

    def finder(self) -> Finder:
        """File discovery with these excludes."""
        return Finder(self.exclude, self.extend_exclude, self.respect_gitignore, self.force_exclude, self.root,
                      self.skip_non_captures)


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
    from pydantic import ValidationError

    out: dict[str, dict[str, Any]] = {}
    registry = load()
    for key, values in loaded.config.rules.items():
        where = f"{loaded.path}: {loaded.prefix}rules.{key}"
        code = _code_of(key, where)
        if registry[code].Options is None:
            raise ConfigError(f"{where}: rule {code} has no options")
        model = options_model(registry[code].Options)
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


#: command-line option of each setting, for messages
_OPTIONS = {"select": "--select", "extend_select": "--extend-select", "ignore": "--ignore"}


def _check_selectors(values: list[str], where: str) -> None:
    for index, selector in enumerate(values):
        try:
            resolve(selector)
        except SelectionError as exc:
            raise ConfigError(f"{where}[{index}]: {exc}") from None


def resolve_settings(loaded: Loaded, *, select: list[str] = (), extend_select: list[str] = (),
                     ignore: list[str] = (), fail_on: str | None = None, min_severity: str | None = None,
                     output_format: str | None = None, protocol_version: str | None = None,
                     exclude: list[str] | None = None, extend_exclude: list[str] = (),
                     respect_gitignore: bool | None = None, force_exclude: bool | None = None,
                     max_line_bytes: int | None = None, origins: dict[str, str] | None = None) -> Settings:
    """Merge the file (``loaded``) and the command line into effective settings.

    A command-line value of None (or an empty list) means "not given". ``origins`` names a
    source other than "command line" for a given value (an environment variable).
    Raises :class:`ConfigError` naming the file and key path, or the option, of a bad value.
    """
    config = loaded.config
    prefix = f"{loaded.path}: {loaded.prefix}" if loaded.path else ""
    given = {"select": list(select), "extend_select": list(extend_select), "ignore": list(ignore),
             "fail_on": fail_on, "min_severity": min_severity, "output_format": output_format,
             "protocol_version": protocol_version, "exclude": exclude, "extend_exclude": list(extend_exclude),
             "respect_gitignore": respect_gitignore, "force_exclude": force_exclude,
             "max_line_bytes": max_line_bytes}
    for key in ("select", "extend_select", "ignore"):
        for selector in given[key]:
            try:
                resolve(selector)
            except SelectionError as exc:
                raise ConfigError(f"{_OPTIONS[key]}: {exc}") from None
        _check_selectors(getattr(config, key) or [], f"{prefix}{_hyphens(key)}")
    try:
        rules = select_rules(select or config.select or (), ignore=[*config.ignore, *ignore],
                             extend=[*config.extend_select, *extend_select])
    except SelectionError as exc:  # the selection as a whole (already checked one by one)
        raise ConfigError(str(exc)) from None
    per_file = []
    for pattern, selectors in config.per_file_ignores.items():
        _check_selectors(selectors, f"{prefix}per-file-ignores.{pattern!r}")
        per_file.append((pattern, set().union(*(resolve(s) for s in selectors)) if selectors else set()))
    severity = {_code_of(key, f"{prefix}severity.{key}"): Severity(value) for key, value in config.severity.items()}
    options = _rule_options(loaded) if config.rules else {}
    sources = _sources(loaded, given, origins or {})
    return Settings(
        rules=configure(rules, options),
        fail_on=Severity(fail_on or config.fail_on or "error"),
        min_severity=Severity(min_severity or config.min_severity or "info"),
        output_format=output_format or config.output_format or "full",
        protocol_version=protocol_version or config.protocol_version,
        per_file_ignores=per_file,
        severity=severity,
        rule_options=options,
        exclude=exclude if exclude is not None else config.exclude,
        extend_exclude=[*config.extend_exclude, *extend_exclude],
        respect_gitignore=respect_gitignore if respect_gitignore is not None else config.respect_gitignore,
        force_exclude=force_exclude if force_exclude is not None else config.force_exclude,
        max_line_bytes=max_line_bytes or config.max_line_bytes or MAX_LINE_BYTES,
        root=loaded.path.parent if loaded.path is not None else Path.cwd(),
        selection={"select": list(select) or config.select, "extend_select": [*config.extend_select, *extend_select],
                   "ignore": [*config.ignore, *ignore]},
        config_path=loaded.path,
        sources=sources,
    )


def _hyphens(key: str) -> str:
    return key.replace("_", "-")


def _sources(loaded: Loaded, given: dict[str, Any], origins: dict[str, str]) -> dict[str, str]:
    """Where each setting's value came from (``--show-settings``); lists that add up name both."""
    out = {}
    in_file = loaded.config.model_fields_set
    for key in SETTING_KEYS:
        places = []
        if key in in_file:
            places.append(f"{loaded.path}: {loaded.prefix}{_hyphens(key)}")
        if given.get(key) not in (None, []):
            cli = origins.get(key, "command line")
            places = [*places, cli] if key in ("extend_select", "ignore", "extend_exclude") else [cli]
        out[key] = " + ".join(places) or "default"
    return out


def apply(findings: list[Finding], settings: Settings, min_severity: Severity | None = None) -> list[Finding]:
    """Severity overrides, per-file ignores and the minimum severity (``min_severity``, default
    the settings')."""
    floor = (min_severity or settings.min_severity).rank
    out = []
    for finding in findings:
        if finding.code in settings.severity:
            finding.severity = settings.severity[finding.code]
        if settings.per_file_ignores and _ignored(finding, settings.per_file_ignores):
            continue
        if finding.severity.rank >= floor:
            out.append(finding)
    return out


def _ignored(finding: Finding, patterns: list[tuple[str, set[str]]]) -> bool:
    path = PurePath(finding.path).as_posix()
    for pattern, codes in patterns:
        if finding.code in codes and (fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(PurePath(path).name, pattern)):
            return True
    return False

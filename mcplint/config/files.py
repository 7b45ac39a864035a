"""Configuration files: ``[tool.mcplint]`` in ``pyproject.toml``, or ``mcplint.toml`` / ``.mcplint.toml``.

The file is found from the working directory upwards: the first directory holding
``mcplint.toml``, ``.mcplint.toml`` or a ``pyproject.toml`` *with* a ``[tool.mcplint]`` table
wins (in that order inside one directory). Contents are validated with pydantic: an unknown
key or a bad value is a :class:`ConfigError` that names the key path
(``tool.mcplint.redact.kep: unknown key``), and the command exits with status 2.

Top-level keys are the lint and file-discovery settings (``select``, ``exclude``...); the
``redact`` section holds user rules for ``mcplint redact``. Add a key by adding a field to
:class:`Config`; ``mcplint check --show-settings`` lists every key with where its value came from.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

FILE_NAMES = ("mcplint.toml", ".mcplint.toml", "pyproject.toml")


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names file and key path."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_REPEATS = tuple(op for op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, getattr(sre_parse, "POSSESSIVE_REPEAT", None))
                 if op is not None)


def _nested_quantifier(pattern: str) -> bool:
    """True when a repeat sits inside another repeat and either is unbounded (``(a+)+``)."""

    def walk(items, outer: str | None) -> bool:
        for op, arg in items:
            if op in _REPEATS:
                unbounded = arg[1] == sre_parse.MAXREPEAT
                if outer is not None and (unbounded or outer == "unbounded"):
                    return True
                if walk(arg[2], "unbounded" if unbounded or outer == "unbounded" else "bounded"):
                    return True
            elif ((op == sre_parse.SUBPATTERN and walk(arg[-1], outer))
                  or (op == sre_parse.BRANCH and any(walk(branch, outer) for branch in arg[1]))
                  or (op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT) and walk(arg[1], outer))):
                return True
        return False

    return walk(sre_parse.parse(pattern), None)


def _check_regex(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regular expression: {exc}") from None
    if _nested_quantifier(pattern):
        raise ValueError("nested quantifiers (such as (a+)+) can take exponential time; rewrite the pattern")
    return pattern


class RedactPattern(_Strict):
    """An extra secret shape: ``kind`` names it in placeholders and reports."""

    kind: str = Field(pattern=r"^[a-z0-9]{1,20}(?:-[a-z0-9]{1,20}){0,5}$")
    regex: str
    triggers: list[str] = Field(min_length=1, description="literals; the regex only runs near one of them")
    group: int = Field(default=0, ge=0)

    @field_validator("regex")
    @classmethod
    def _regex(cls, value: str) -> str:
        return _check_regex(value)

    @field_validator("triggers")
    @classmethod
    def _non_empty(cls, value: list[str]) -> list[str]:
        if any(not t for t in value):
            raise ValueError("a trigger cannot be empty")
        return value


class RedactConfig(_Strict):
    """``[tool.mcplint.redact]``: user rules for ``mcplint redact``."""

    keys: list[str] = Field(default_factory=list, description="more sensitive key/header/env names")
    keep_keys: list[str] = Field(default_factory=list, description="names never treated as sensitive")
    keep: list[str] = Field(default_factory=list, description="kinds (or pii, blobs) to keep")
    keep_blobs: bool = False
    allow: list[str] = Field(default_factory=list, description="regexes; a secret fully matching one is kept")
    keep_values: list[str] = Field(default_factory=list, description='exact values, or "sha256:<hex>"')
    secrets_from: list[str] = Field(default_factory=list, description="host configs / .env files")
    patterns: list[RedactPattern] = Field(default_factory=list)

    @field_validator("allow")
    @classmethod
    def _allow(cls, value: list[str]) -> list[str]:
        return [_check_regex(v) for v in value]


_SEVERITY = Literal["error", "warning", "info"]


def _hyphens(name: str) -> str:
    return name.replace("_", "-")


class Config(_Strict):
    """The whole file: lint settings at the top level, ``redact`` for ``mcplint redact``.

    Keys are written with hyphens (``fail-on``, ``per-file-ignores``), as in ruff.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=_hyphens, populate_by_name=True)

    select: list[str] | None = Field(default=None, description="rules to run (replaces the default set)")
    extend_select: list[str] = Field(default_factory=list, description="rules added to the selection")
    ignore: list[str] = Field(default_factory=list, description="rules removed from the selection")
    fail_on: _SEVERITY | None = None
    min_severity: _SEVERITY | None = None
    output_format: str | None = None
    protocol_version: str | None = Field(default=None, description='"auto" or a revision such as "2025-06-18"')
    per_file_ignores: dict[str, list[str]] = Field(default_factory=dict, description="glob -> rules to ignore")
    severity: dict[str, _SEVERITY] = Field(default_factory=dict, description="rule (code or name) -> severity")
    rules: dict[str, dict[str, Any]] = Field(default_factory=dict, description="rule (code or name) -> options")
    exclude: list[str] | None = Field(default=None, description="gitignore-style patterns; replaces the default excludes")
    extend_exclude: list[str] = Field(default_factory=list, description="patterns added to the excludes")
    respect_gitignore: bool = Field(default=True, description=".gitignore, .git/info/exclude and git's global excludes")
    force_exclude: bool = Field(default=False, description="excludes apply to files named on the command line too")
    max_line_bytes: int | None = Field(default=None, ge=1024, le=1 << 34,
                                       description="longer input lines are not parsed (IO013)")
    redact: RedactConfig = Field(default_factory=RedactConfig)

    @field_validator("protocol_version")
    @classmethod
    def _version(cls, value: str | None) -> str | None:
        from mcplint.protocol import VERSIONS

        if value is None or value == "auto":
            return None
        if value not in VERSIONS:
            raise ValueError(f"unknown protocol version {value!r}; use auto or one of {', '.join(VERSIONS)}")
        return value

    @field_validator("output_format")
    @classmethod
    def _output_format(cls, value: str | None) -> str | None:
        from mcplint.report import REPORTERS

        if value is not None and value not in REPORTERS:
            raise ValueError(f"unknown output format {value!r}; use one of {', '.join(sorted(REPORTERS))}")
        return value


@dataclass(frozen=True)
class Loaded:
    config: Config
    path: Path | None  # None: defaults, no file found
    prefix: str = ""  # "tool.mcplint." for pyproject.toml

    def relative(self, name: str) -> Path:
        """A path named in the file, relative to the file's directory."""
        path = Path(name).expanduser()
        return path if path.is_absolute() or self.path is None else self.path.parent / path


def _table(path: Path) -> dict[str, Any] | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("mcplint")
        return table if isinstance(table, dict) else None
    return data


def find(start: Path | None = None) -> Path | None:
    """The configuration file that applies in ``start`` (default: the working directory)."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        for name in FILE_NAMES:
            candidate = directory / name
            if candidate.is_file() and (name != "pyproject.toml" or _table(candidate) is not None):
                return candidate
    return None


def _where(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def load(path: str | Path | None = None, start: Path | None = None) -> Loaded:
    """Read and validate a configuration (``path``, or the one found from ``start`` upwards)."""
    file = Path(path) if path is not None else find(start)
    if file is None:
        return Loaded(Config(), None)
    table = _table(file)
    prefix = "tool.mcplint." if file.name == "pyproject.toml" else ""
    if table is None:
        if path is not None and file.name == "pyproject.toml":
            raise ConfigError(f"{file}: no [tool.mcplint] table")
        return Loaded(Config(), file, prefix)
    try:
        config = Config.model_validate(table)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = prefix + _where(error["loc"])
            why = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
            problems.append(f"{where}: {why}")
        raise ConfigError(f"{file}: " + "; ".join(problems)) from None
    return Loaded(config, file, prefix)

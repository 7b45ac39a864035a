"""The configuration file's contents as pydantic models: an unknown key or a bad value is a
validation error that :func:`mcplint.config.files.load` turns into a :class:`ConfigError` naming the
key path. Imported only when a file is read (or its keys listed): a run without a configuration
file does not import pydantic (issue 16, start-up).

Add a key by adding a field to :class:`Config`, and its default to ``files.Defaults``.
"""

from __future__ import annotations

import re
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


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

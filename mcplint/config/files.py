"""Configuration files: ``[tool.mcplint]`` in ``pyproject.toml``, or ``mcplint.toml`` / ``.mcplint.toml``.

The file is found from the working directory upwards: the first directory holding
``mcplint.toml``, ``.mcplint.toml`` or a ``pyproject.toml`` *with* a ``[tool.mcplint]`` table
wins (in that order inside one directory). Contents are validated with pydantic
(:mod:`mcplint.config.models`): an unknown key or a bad value is a :class:`ConfigError` that names
the key path (``tool.mcplint.redact.kep: unknown key``), and the command exits with status 2.

Top-level keys are the lint and file-discovery settings (``select``, ``exclude``...); the
``redact`` section holds user rules for ``mcplint redact``. Add a key by adding a field to
``models.Config`` and its default to :class:`Defaults`; ``mcplint check --show-settings`` lists
every key with where its value came from.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcplint.config.models import Config

FILE_NAMES = ("mcplint.toml", ".mcplint.toml", "pyproject.toml")


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names file and key path."""


@dataclass(frozen=True)
class Defaults:
    """What ``models.Config()`` holds, without importing pydantic: the configuration of a run that
    found no file (most runs; a test holds the two equal)."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    fail_on: str | None = None
    min_severity: str | None = None
    output_format: str | None = None
    protocol_version: str | None = None
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    exclude: list[str] | None = None
    extend_exclude: list[str] = field(default_factory=list)
    respect_gitignore: bool = True
    force_exclude: bool = False
    max_line_bytes: int | None = None
    model_fields_set: frozenset[str] = frozenset()  # (as pydantic names the keys a file set: none)

    @property
    def redact(self) -> Any:
        """``[redact]``'s defaults (``mcplint redact`` validates its options with pydantic anyway)."""
        from mcplint.config.models import RedactConfig

        return RedactConfig()


#: The top-level lint and discovery settings, in ``models.Config``'s order (``redact`` aside)
SETTING_KEYS = tuple(item.name for item in fields(Defaults) if item.name != "model_fields_set")


@dataclass(frozen=True)
class Loaded:
    config: Config | Defaults
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
        return Loaded(Defaults(), None)
    table = _table(file)
    prefix = "tool.mcplint." if file.name == "pyproject.toml" else ""
    if table is None:
        if path is not None and file.name == "pyproject.toml":
            raise ConfigError(f"{file}: no [tool.mcplint] table")
        return Loaded(Defaults(), file, prefix)
    from pydantic import ValidationError

    from mcplint.config.models import Config

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

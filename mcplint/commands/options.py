"""The options commands share (inputs, output, severities) and what a command was told about its inputs."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, fields

import click

from mcplint import protocol
from mcplint.api import InputError, LintOptions, lint_paths
from mcplint.commands.common import fail, input_paths, say, split_list
from mcplint.config.files import ConfigError, Defaults, Loaded
from mcplint.config.files import load as load_config
from mcplint.config.settings import Settings, resolve_settings
from mcplint.input.readers import FORMATS
from mcplint.model import Severity
from mcplint.report.terminal import COLOR_CHOICES
from mcplint.untrusted import shown

SEVERITIES = click.Choice([s.value for s in Severity])


def click_options(*decorators):
    """Apply a list of click decorators in reading order."""
    def apply(function):
        for decorator in reversed(decorators):
            function = decorator(function)
        return function
    return apply


@dataclass(frozen=True)
class Inputs:
    """What every command that reads captures was told: paths, input options, file discovery, config."""

    paths: tuple[str, ...]
    input_format: str
    protocol_version: str | None
    stdin_filename: str
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    respect_gitignore: bool | None
    force_exclude: bool | None
    skip_non_captures: bool
    max_line_bytes: int | None
    config_file: str | None
    isolated: bool
    verbose: bool

    def settings(self, ctx: click.Context, **given) -> Settings:
        """The configuration file (``--config``, found, or none with ``--isolated``) merged with the
        command line (these options and ``given``); a bad file or value is a one-line error naming the key."""
        if self.config_file is not None and not os.path.isfile(self.config_file):
            fail(f"--config {self.config_file}: no such file")
        origins = {}
        if ctx.get_parameter_source("output_format") is click.core.ParameterSource.ENVIRONMENT:
            origins["output_format"] = "environment MCPLINT_OUTPUT_FORMAT"
        for key in ("select", "extend_select", "ignore"):
            if key in given:
                given[key] = split_list(given[key])
        try:
            loaded = Loaded(Defaults(), None) if self.isolated else load_config(self.config_file)
            settings = resolve_settings(
                loaded, origins=origins, protocol_version=self.protocol_version,
                exclude=split_list(self.exclude) or None, extend_exclude=split_list(self.extend_exclude),
                respect_gitignore=self.respect_gitignore, force_exclude=self.force_exclude,
                max_line_bytes=self.max_line_bytes, **given)
        except ConfigError as exc:
            fail(str(exc))
        settings.skip_non_captures = self.skip_non_captures
        return settings

    def lint(self, settings: Settings, rules=None, jobs: int = 1, observers=()):
        """Lint the inputs; an input that cannot be read is a one-line error. Notes on stderr with -v."""
        options = LintOptions(self.input_format, settings.protocol_version, self.stdin_filename,
                              settings.rule_options, max_line_bytes=settings.max_line_bytes)
        try:
            findings, summary = lint_paths(self.resolved_paths, rules, options, jobs=jobs, observers=observers,
                                           finder=settings.finder())
        except InputError as exc:
            fail(str(exc))
        if self.verbose:
            for path, fmt in summary.formats.items():
                say(f"mcplint: reading {shown(path)} as {fmt}")
            for path, why in summary.skipped:
                say(f"mcplint: skipped {shown(path)}: {shown(why)}")
        return findings, summary

    @property
    def resolved_paths(self) -> list[str]:
        return input_paths(self.paths)


def input_options(function):
    """Add the :class:`Inputs` options to a command, which receives them as ``inputs``."""
    names = [f.name for f in fields(Inputs)]

    @functools.wraps(function)
    def command(*args, **kwargs):
        inputs = Inputs(**{name: kwargs.pop(name) for name in names})
        return function(*args, inputs=inputs, **kwargs)

    return _input_options(command)


_input_options = click_options(
    click.argument("paths", nargs=-1, metavar="[PATH|-]..."),
    click.option("--input-format", type=click.Choice(("auto",) + FORMATS), default="auto", show_default=True,
                 help="Input format; sniffed from the first lines by default."),
    click.option("--protocol-version", type=click.Choice(protocol.VERSIONS),
                 help="Revision to assume when the capture starts after initialize."),
    click.option("--stdin-filename", default="-", help="Name to report for input read from stdin."),
    click.option("--exclude", multiple=True, metavar="PATTERNS",
                 help="Gitignore-style patterns to skip in directories (replaces the default excludes; "
                      "comma-separated, repeatable)."),
    click.option("--extend-exclude", multiple=True, metavar="PATTERNS", help="Patterns to skip, added to the excludes."),
    click.option("--respect-gitignore/--no-respect-gitignore", default=None,
                 help="Skip what .gitignore, .git/info/exclude and git's global excludes ignore [default: on]."),
    click.option("--force-exclude", is_flag=True, default=None,
                 help="Apply excludes to files named on the command line too (for pre-commit)."),
    click.option("--skip-non-captures", is_flag=True,
                 help="Skip files named on the command line that are not MCP captures, as a directory walk "
                      "does (for pre-commit, which names every changed .json and .log file)."),
    click.option("--max-line-bytes", type=click.IntRange(min=1024), metavar="BYTES",
                 help="Longer input lines are not parsed (reported as IO013) [default: 64 MiB]."),
    click.option("--config", "config_file", metavar="PATH",
                 help="Configuration file (default: mcplint.toml, .mcplint.toml or pyproject.toml found upwards)."),
    click.option("--isolated", is_flag=True, help="Ignore configuration files."),
    click.option("-v", "--verbose", is_flag=True,
                 help="Say on stderr which input format each file was read as, and list skipped files."),
)


def output_options(formats: list[str], default: str | None, help: str | None = None, envvar: str | None = None):
    """``--output-format``, ``-o/--output-file`` and ``--color``."""
    return click_options(
        click.option("--output-format", type=click.Choice(formats), default=default, show_default=default is not None,
                     envvar=envvar, help=help),
        click.option("-o", "--output-file", metavar="FILE", help="Write to FILE instead of stdout."),
        click.option("--color", type=click.Choice(COLOR_CHOICES), default="auto", show_default=True,
                     help="Colour text output (auto: on a terminal, honouring NO_COLOR and FORCE_COLOR)."),
    )


def jobs_wanted(jobs: int | None) -> int | None:
    """Processes for ``check``: as asked (0: one per CPU), or None to decide by the inputs' size."""
    return None if jobs is None else (jobs or os.cpu_count() or 1)

"""The ``mcplint`` command line: click wiring of the commands (their work lives elsewhere)."""

from __future__ import annotations

import functools
import importlib
import os
import sys
from dataclasses import dataclass, fields
from typing import NoReturn

import click
import orjson

from mcplint import __version__, protocol
from mcplint.api import InputError, LintOptions, discover, exceeds, lint_paths
from mcplint.commands.check import baseline
from mcplint.commands.common import (
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    OutputFile,
    fail,
    input_paths,
    one_input,
    say,
    split_list,
    warn,
)
from mcplint.config.files import Config, ConfigError, Loaded
from mcplint.config.files import load as load_config
from mcplint.config.settings import Settings, resolve_settings
from mcplint.config.settings import apply as apply_settings
from mcplint.excerpt import mask_text
from mcplint.input.readers import FORMATS
from mcplint.model import Severity
from mcplint.report import COLORED, REPORTERS
from mcplint.report.terminal import COLOR_CHOICES, color_wanted
from mcplint.report.text import statistics, statistics_json
from mcplint.rules import load
from mcplint.rules.pages import read_page
from mcplint.untrusted import json_text, shown

SEVERITIES = click.Choice([s.value for s in Severity])


class _Main(click.Group):
    """The command group: Ctrl-C exits 130 quietly; a bug of ours is one line and exit 2.
    Commands in ``lazy`` are imported when they run or help lists them (start-up time)."""

    lazy = {"redact": ("mcplint.commands.redact", "redact")}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy and name not in self.commands:
            module, attribute = self.lazy[name]
            self.add_command(getattr(importlib.import_module(module), attribute), name)
        return super().get_command(ctx, name)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            say("mcplint: interrupted")
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:  # the reader went away (`mcplint ... | head`): stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_BROKEN_PIPE)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as exc:
            if os.environ.get("MCPLINT_DEBUG"):
                raise
            say(f"mcplint: internal error: {type(exc).__name__}: {shown(mask_text(str(exc)))} (set MCPLINT_DEBUG=1 "
                "for the traceback, and please report it)")
            sys.exit(EXIT_ERROR)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mcplint")
def main() -> None:
    """Lint captured Model Context Protocol (MCP) traffic against the spec."""


def _options(*decorators):
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
            loaded = Loaded(Config(), None) if self.isolated else load_config(self.config_file)
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


_input_options = _options(
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


def _output_options(formats: list[str], default: str | None, help: str | None = None, envvar: str | None = None):
    """``--output-format``, ``-o/--output-file`` and ``--color``."""
    return _options(
        click.option("--output-format", type=click.Choice(formats), default=default, show_default=default is not None,
                     envvar=envvar, help=help),
        click.option("-o", "--output-file", metavar="FILE", help="Write to FILE instead of stdout."),
        click.option("--color", type=click.Choice(COLOR_CHOICES), default="auto", show_default=True,
                     help="Colour text output (auto: on a terminal, honouring NO_COLOR and FORCE_COLOR)."),
    )


def _jobs(jobs: int | None) -> int | None:
    """Processes for ``check``: as asked (0: one per CPU), or None to decide by the inputs' size."""
    return None if jobs is None else (jobs or os.cpu_count() or 1)


@main.command()
@input_options
@_output_options(sorted(REPORTERS), None, "Output format (default: full, or output-format from the configuration).",
                 envvar="MCPLINT_OUTPUT_FORMAT")
@click.option("--select", multiple=True, metavar="RULES",
              help="Rules to run: codes, prefixes, names, categories or ALL (comma-separated, repeatable).")
@click.option("--extend-select", multiple=True, metavar="RULES", help="Rules to add to the selection.")
@click.option("--ignore", multiple=True, metavar="RULES", help="Rules to skip (same syntax as --select).")
@click.option("--fail-on", type=SEVERITIES, help="Exit 1 when a finding has at least this severity [default: error].")
@click.option("--min-severity", type=SEVERITIES,
              help="Hide findings below this severity [default: info]; --fail-on still counts them.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings exceed --fail-on.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no summary line, no notes.")
@click.option("--report", "reports", multiple=True, metavar="FORMAT=PATH",
              help="Also write FORMAT to PATH (repeatable), e.g. --report sarif=mcplint.sarif.")
@click.option("--statistics", is_flag=True,
              help="Print counts per rule and severity instead of the findings (JSON with --output-format json).")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=None,
              help="Lint files, and the sessions of large files, in this many processes (0: one per CPU; "
                   "default: one per CPU when the inputs hold 8 MB or more, else 1).")
@click.option("--write-baseline", metavar="FILE", help="Record the current findings in FILE (then exit 0).")
@click.option("--baseline", "baseline_file", metavar="FILE",
              help="Hide findings recorded in FILE; report entries that no longer match.")
@click.option("--show-files", is_flag=True, help="List the files a run would lint, and why others are skipped; lint nothing.")
@click.option("--show-settings", is_flag=True, help="Print the effective settings and where each came from; lint nothing.")
@click.option("--follow", is_flag=True, help="Follow one growing capture or log: print findings as they are found "
                                              "(survives truncation and rotation; Ctrl-C ends with the summary).")
@click.pass_context
def check(ctx, inputs, output_format, output_file, color, select, extend_select, ignore, fail_on, min_severity,
          exit_zero, quiet, reports, statistics, jobs, write_baseline, baseline_file, show_files,
          show_settings, follow) -> None:
    """Lint captures (files, directories, or - for stdin) and report findings.

    Without PATH: the working directory at a terminal, stdin when input is piped in.
    Exit status: 0 clean, 1 findings at or above --fail-on, 2 mcplint could not do its job,
    130 interrupted.
    """
    settings = inputs.settings(ctx, select=select, extend_select=extend_select, ignore=ignore, fail_on=fail_on,
                               min_severity=min_severity, output_format=output_format)
    paths = inputs.resolved_paths
    if show_settings:
        from mcplint.commands.check.show_settings import render

        use_color = color_wanted(color)
        click.echo(render(settings, use_color), nl=False, color=use_color)
        return
    if show_files:
        _show_files(paths, settings, color)
        return
    if follow:
        from mcplint.commands.follow import follow_check

        if statistics or reports or output_file or write_baseline or baseline_file or jobs is not None:
            fail("--follow prints findings to stdout: it takes no --statistics, --report, -o, --jobs or baseline")
        follow_check(paths, settings, inputs.input_format, color, quiet, exit_zero)
        return
    if baseline_file is not None and not os.path.isfile(baseline_file):
        fail(f"--baseline {baseline_file}: no such file")
    main_format = settings.output_format
    if statistics:
        main_format = "statistics-json" if main_format == "json" else "statistics"
    outputs = [(main_format, OutputFile(output_file)), *((fmt, OutputFile(path, what="report file"))
                                                         for fmt, path in map(_report_spec, reports))]
    baseline_out = OutputFile(write_baseline, binary=True, what="baseline file") if write_baseline else None
    try:
        for _, out in outputs:  # an unwritable output fails now, not after the work
            out.open()
        if baseline_out is not None:
            baseline_out.open()
        findings, summary = inputs.lint(settings, settings.rules, jobs=_jobs(jobs))
        reported = apply_settings(findings, settings, min_severity=Severity.INFO)  # --fail-on counts these
        if baseline_out is not None:
            count = baseline.write(baseline_out.stream, _at_least(reported, settings.min_severity))
            baseline_out.commit()
            for _, out in outputs:
                out.discard()
            say(f"mcplint: wrote {_count(count, 'finding')} to baseline {write_baseline}")
            return
        if baseline_file:
            reported = _apply_baseline(baseline_file, reported, quiet)
        visible = _at_least(reported, settings.min_severity)
        summary.fail_on = settings.fail_on
        for f in reported:
            if f.severity.rank < settings.min_severity.rank:
                summary.hidden[f.severity] = summary.hidden.get(f.severity, 0) + 1
        for index, (fmt, out) in enumerate(outputs):
            _render(fmt, visible, summary, out.stream, color if index == 0 else "never", quiet)
            out.commit()
    finally:
        for _, out in outputs:
            out.discard()
        if baseline_out is not None:
            baseline_out.discard()
    if summary.crashes:  # findings above are complete except for the failed checks: say so, exit 2
        for crash in summary.crashes[:5]:
            where, sep, error = crash.partition(": ")  # "<rule> failed on <path>:<line>", the exception
            say(f"mcplint: internal error: {where}{sep}{shown(mask_text(error))}")
        more = len(summary.crashes) - 5
        say(("" if more <= 0 else f"mcplint: ... and {more} more; ") +
            "mcplint: some checks failed on this input; please report it (MCPLINT_DEBUG=1 shows more)")
        sys.exit(EXIT_ERROR)
    if not exit_zero and exceeds(reported, settings.fail_on):
        sys.exit(EXIT_FINDINGS)


def _at_least(findings, severity: Severity) -> list:
    return [f for f in findings if f.severity.rank >= severity.rank]


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _apply_baseline(path: str, findings, quiet: bool):
    try:
        filtered = baseline.apply(path, findings)
    except baseline.BaselineError as exc:
        fail(str(exc))
    if filtered.hidden and not quiet:
        say(f"mcplint: the baseline hid {_count(filtered.hidden, 'finding')}")
    if filtered.stale:
        say(f"mcplint: {len(filtered.stale)} baseline entr{'y' if len(filtered.stale) == 1 else 'ies'} "
            "no longer match (fixed, or the capture changed); refresh it with --write-baseline:")
        for entry in filtered.stale:
            say(f"  {shown(entry.get('path'))}:{entry.get('line')}: {shown(entry.get('code'))} "
                f"{shown(mask_text(str(entry.get('message'))))}")
    return filtered.kept


def _show_files(paths: list[str], settings: Settings, color: str) -> None:
    """``--show-files``: every decision of file discovery, linted files first."""
    from mcplint.report.terminal import styler

    finder = settings.finder()
    try:
        found, problem = discover(paths, finder), None
    except InputError as exc:
        if not all(name == "-" or os.path.exists(name) for name in paths):
            fail(str(exc))
        found, problem = finder.discover(paths), str(exc)  # a directory without captures: say why
    use_color = color_wanted(color)
    style = styler(use_color)
    for decision in sorted(found.decisions, key=lambda d: not d.lint):
        verdict = style("lint", fg="green") if decision.lint else style("skip", fg="yellow")
        click.echo(f"{verdict}  {shown(decision.path)}  ({shown(decision.reason)})", color=use_color)
    skipped = len(found.decisions) - len(found.files)
    say(f"{_count(len(found.files), 'file')} to lint, {skipped} skipped.")
    if problem:
        say(f"mcplint: a run would fail: {shown(problem)}")


def _report_spec(spec: str) -> tuple[str, str]:
    fmt, sep, path = spec.partition("=")
    if not sep or not path or fmt not in REPORTERS:
        fail(f"--report {spec!r}: expected FORMAT=PATH with FORMAT one of {', '.join(sorted(REPORTERS))}")
    return fmt, path


def _render(fmt: str, findings, summary, out, color: str, quiet: bool) -> None:
    """Render ``findings`` in ``fmt`` to the open text stream ``out``."""
    use_color = color_wanted(color, out)
    if fmt == "statistics":
        statistics(findings, summary, out, color=use_color, quiet=quiet)
    elif fmt == "statistics-json":
        statistics_json(findings, summary, out)
    elif fmt in COLORED:
        REPORTERS[fmt](findings, summary, out, color=use_color, quiet=quiet)
    else:
        REPORTERS[fmt](findings, summary, out)


def _emit(text: str, output_file: str | None) -> None:
    """Print ``text`` (with a final newline) to stdout or, atomically, to ``output_file``."""
    with OutputFile(output_file) as out:
        out.stream.write(text if text.endswith("\n") else text + "\n")


@main.command()
@input_options
@_output_options(["table", "json"], "table")
@click.option("--per-session/--overall", default=True, show_default=True,
              help="Tables per session as well as the overall one.")
@click.pass_context
def stats(ctx, inputs, output_format, output_file, color, per_session) -> None:
    """Traffic figures: messages per method, latency, errors, isError rate, open requests."""
    from mcplint.commands.stats.collect import StatsCollector, as_dict, merged
    from mcplint.commands.stats.render import render_tables

    settings = inputs.settings(ctx)
    with OutputFile(output_file) as out:
        collector = StatsCollector()
        findings, summary = inputs.lint(settings, observers=[collector])
        collector.add_findings(findings)
        sessions = collector.labelled()
        overall = merged(collector.all_figures())
        if output_format == "json":
            document = {"overall": as_dict(overall), "sessions": {k: as_dict(v) for k, v in sessions.items()},
                        "sessions_not_shown": collector.folded, "files": summary.files, "records": summary.records}
            out.stream.write(json_text(document, indent=True) + "\n")
            return
        out.stream.write(render_tables(overall, sessions if per_session else {}, summary,
                                       color=color_wanted(color, out.stream)) + "\n")
        if collector.folded:
            out.stream.write(f"({collector.folded} more session(s) count in the overall figures only)\n")


@main.command()
@input_options
@_output_options(["text", "json", "markdown"], "text",
                 "markdown is ready to paste into an issue (every format masks secrets and personal data).")
@click.option("--fail-on-stall", is_flag=True,
              help="Exit 1 when a session stalled: a request left unanswered, or the handshake never completed.")
@click.pass_context
def diagnose(ctx, inputs, output_format, output_file, color, fail_on_stall) -> None:
    """Where did each session stall, and what to suspect.

    Exit status: 0 done (with --fail-on-stall: no session stalled), 1 a session stalled
    (--fail-on-stall), 2 mcplint could not do its job.
    """
    from mcplint.commands.diagnose import render as diagnose_report
    from mcplint.commands.diagnose.collect import DiagnoseCollector

    settings = inputs.settings(ctx)
    with OutputFile(output_file) as out:
        collector = DiagnoseCollector()
        inputs.lint(settings, observers=[collector])
        diagnoses = [d.masked() for d in collector.diagnoses.values()]  # every format: nothing secret shown
        if output_format == "json":
            text = json_text([d.as_dict() for d in diagnoses], indent=True)
        elif output_format == "markdown":
            text = diagnose_report.markdown(diagnoses)
        else:
            text = diagnose_report.text(diagnoses, color=color_wanted(color, out.stream))
        out.stream.write(text + "\n")
        if collector.unlisted:  # sessions beyond the ones diagnosed in full
            counts = ", ".join(f"{n} {outcome}" for outcome, n in collector.unlisted.most_common())
            note = f"{sum(collector.unlisted.values())} more session(s) not listed: {counts}"
            if output_format == "json":
                say(note)
            else:
                out.stream.write(note + "\n")
    if fail_on_stall and collector.stalled:
        say(f"mcplint: {_count(collector.stalled, 'session')} stalled")
        sys.exit(EXIT_FINDINGS)


@main.command()
@input_options
@_output_options(["table", "markdown", "mermaid", "html"], "table",
                 "markdown: the table for an issue report; mermaid renders on GitHub; html is a self-contained report.")
@click.option("--format", "format_alias", type=click.Choice(["table", "markdown", "mermaid", "html"]), hidden=True)
@click.option("--session", help="Only this session (label as in findings).")
@click.option("--method", help="Only this method (responses count under their request's method).")
@click.option("--id", "request_id", help="Only this JSON-RPC id; table and markdown print its messages whole.")
@click.option("--line", "line", type=click.IntRange(min=0), metavar="N",
              help="The message(s) on line N whole, with their findings (one input file).")
@click.option("--direction", type=click.Choice(["c2s", "s2c"]), help="Only this direction.")
@click.option("--since", type=float, help="Only lines at least this many seconds after the first timestamp.")
@click.option("--until", type=float, help="Only lines at most this many seconds after the first timestamp.")
@click.option("--follow", is_flag=True, help="Follow one growing capture or log: print rows as they are written "
                                              "(survives truncation and rotation; Ctrl-C ends).")
@click.pass_context
def show(ctx, inputs, output_format, output_file, color, format_alias, session, method, request_id, direction,
         since, until, follow, line) -> None:
    """A capture as a timeline: table (a header per session), Markdown, Mermaid sequence diagram or
    HTML report; with --line N (or --id N) the whole messages."""
    from mcplint.commands.show import mermaid as show_render
    from mcplint.commands.show import text as show_text
    from mcplint.commands.show.timeline import RowFilter, TimelineCollector, filtered, selection_error

    fmt = format_alias or output_format
    settings = inputs.settings(ctx)
    paths = inputs.resolved_paths
    if follow:
        from mcplint.commands.follow import follow_show

        if fmt != "table" or output_file:
            fail("--follow prints table rows to stdout (no other --output-format, no -o)")
        follow_show(paths, settings, inputs.input_format, color, RowFilter(
            session=session, method=method, id=request_id, direction=direction, since=since, until=until))
        return
    if line is not None and len(paths) != 1:
        fail(f"--line needs exactly one input file (got {len(paths)})")
    with OutputFile(output_file) as out:
        collector = TimelineCollector()
        findings, _ = inputs.lint(settings, observers=[collector])
        collector.attach(findings)
        rows = filtered(collector.rows, RowFilter(session, method, request_id, direction, since, until, line))
        error = selection_error(collector, rows, session, line, request_id)
        if error:
            fail(error)
        whole = (line is not None or request_id is not None) and fmt in ("table", "markdown")
        if whole:
            text = show_text.whole_markdown(rows) if fmt == "markdown" else show_text.whole(
                rows, color=color_wanted(color, out.stream))
        elif fmt == "markdown":
            text = show_text.markdown(rows, collector.headers)
        elif fmt == "mermaid":
            text = show_render.mermaid(rows)
        elif fmt == "html":
            from mcplint.commands.show.html import html_report
            shown = {(r.path, r.line) for r in rows}
            text = html_report(rows, [f for f in findings if (f.path, f.line) in shown],
                               ", ".join(paths) if paths != ["-"] else "stdin", collector.headers)
        else:
            text = show_text.table(rows, collector.headers, color=color_wanted(color, out.stream))
        out.stream.write(text if text.endswith("\n") else text + "\n")


@main.command("rule")
@click.argument("selector", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@_output_options(["text", "json", "markdown"], "text")
def rule_cmd(selector, show_all, output_format, output_file, color) -> None:
    """Show a rule's documentation page (by code or name), or list all rules."""
    from mcplint.report.terminal import styler

    registry = load()
    style = styler(color_wanted(color) and output_format == "text" and not output_file)
    if show_all or not selector:
        rows = [cls for _, cls in sorted(registry.items())]
        if output_format == "json":
            text = orjson.dumps([_rule_meta(cls) for cls in rows], option=orjson.OPT_INDENT_2).decode()
        elif output_format == "markdown":
            lines = ["| Code | Name | Severity | Level | Versions | Summary |", "|---|---|---|---|---|---|"]
            for cls in rows:
                meta = _rule_meta(cls)
                lines.append(f"| {cls.code} | {cls.name} | {meta['severity']} | {cls.level} | "
                             f"{meta['versions']} | {cls.summary()} |")
            text = "\n".join(lines)
        else:
            text = "\n".join(f"{style(f'{cls.code:<7}', bold=True)} {cls.name:<44} {cls.severity.value:<8} "
                             f"{cls.summary()}" for cls in rows)
        _emit(text, output_file)
        return
    by_name = {cls.name: cls for cls in registry.values()}
    cls = registry.get(selector.upper()) or by_name.get(selector)
    if cls is None:
        fail(f"no rule {selector!r} (mcplint rule --all lists them)")
    if output_format == "json":
        _emit(orjson.dumps(_rule_meta(cls), option=orjson.OPT_INDENT_2).decode(), output_file)
        return
    page = read_page(cls.code, cls.name)
    _emit(page if page else f"{cls.name} ({cls.code})\n\n{cls.summary()}", output_file)


def _rule_meta(cls) -> dict:
    versions = [v for v in protocol.VERSIONS if v in cls.versions]
    return {
        "code": cls.code,
        "name": cls.name,
        "category": cls.category(),
        "severity": cls.severity.value,
        "level": cls.level,
        "confidence": cls.confidence,
        "versions": "all" if len(versions) == len(protocol.VERSIONS) else ", ".join(versions),
        "summary": cls.summary(),
        "spec": cls.spec,
        "hint": cls.hint,
    }


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-o", "--output-file", "output", metavar="FILE|DIR",
              help="Capture file (a directory gets a new timestamped file; with --http, a name ending in .har "
                   "writes HAR 1.2). Default: mcplint-capture-<time>-<pid>.mcplog in the working directory.")
@click.option("--output", "output_alias", hidden=True)
@click.option("--redact", is_flag=True,
              help="Redact credentials and personal data in what is written (never in what is relayed).")
@click.option("--lint", is_flag=True, help="Lint as the traffic flows and print findings to stderr.")
@click.option("--grace", type=click.FloatRange(min=0), default=2.0, show_default=True, metavar="SECONDS",
              help="Wait this long after closing the server's stdin before SIGTERM, and after SIGTERM "
                   "before SIGKILL.")
@click.option("--http", "http", is_flag=True,
              help="Record a remote server over Streamable HTTP (or HTTP+SSE): a reverse proxy on --listen "
                   "relaying to --upstream; stop it with Ctrl-C.")
@click.option("--listen", default="127.0.0.1:0", show_default=True, metavar="HOST:PORT",
              help="With --http: where the proxy listens (port 0: any free port, announced on stderr). "
                   "An address other than loopback is warned about.")
@click.option("--upstream", metavar="URL", help="With --http: the server's URL (http:// or https://).")
@click.option("--insecure", is_flag=True, help="With --http: do not verify the upstream's TLS certificate.")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="[-- COMMAND [ARGS]...]")
def capture(output, output_alias, redact, lint, grace, http, listen, upstream, insecure, command) -> None:
    """Run an MCP stdio server behind a recording proxy, or record a remote one with --http.

    The host launches `mcplint capture -o FILE -- COMMAND ARGS...` instead of the server. Bytes
    pass unchanged in both directions; every line (and the server's stderr) is recorded in the
    canonical capture format before it is forwarded. Exits with the server's status.

    With `--http --upstream URL`, the host is pointed at the proxy's URL instead of the server's:
    requests, answers and SSE events are relayed unchanged and as they arrive, and recorded.
    """
    if http:
        _capture_http(output or output_alias, redact, lint, listen, upstream, insecure, command)
    if not command:
        fail("capture needs a server command after --, or --http --upstream URL")
    if upstream or insecure:
        fail("--upstream and --insecure need --http")
    from mcplint.commands.capture.stdio import run_capture

    try:
        status = run_capture(list(command), output or output_alias, redact=redact, lint=lint, grace=grace)
    except OSError as exc:
        fail(f"cannot open capture file: {exc.filename or output or output_alias}: {exc.strerror or exc}")
    sys.exit(status)


def _capture_http(output, redact, lint, listen, upstream, insecure, command) -> NoReturn:
    if command:
        fail("--http records a remote server: no command after -- (use --upstream URL)")
    if not upstream:
        fail("--http needs --upstream URL (the server's http:// or https:// URL)")
    from mcplint.commands.capture.http import ProxyError, run_http_capture

    try:
        status = run_http_capture(listen, upstream, output, redact=redact, lint=lint, insecure=insecure)
    except ProxyError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot open capture file: {exc.filename or output}: {exc.strerror or exc}")
    sys.exit(status)


@main.command()
@click.argument("path", required=False, metavar="[PATH|-]")
@click.option("-o", "--output-file", "output", metavar="FILE", help="Write here instead of stdout.")
@click.option("--output", "output_alias", hidden=True)
@click.option("--to", "target", type=click.Choice(["capture", "jsonl"]), default="capture", show_default=True,
              help="capture: mcplint's canonical capture format; jsonl: plain JSON Lines of the messages.")
@click.option("--input-format", type=click.Choice(("auto",) + FORMATS), default="auto", show_default=True,
              help="Input format; sniffed from the first lines by default.")
@click.option("--protocol-version", type=click.Choice(protocol.VERSIONS),
              help="Revision to assume when the input starts after initialize (direction inference).")
def convert(path, output, output_alias, target, input_format, protocol_version) -> None:
    """Convert any supported input (host logs, recorder JSONL, HAR...) to the canonical capture format.

    Lines the reader cannot interpret, and messages whose direction is unknown, are reported
    on stderr with their line numbers and left out. What is written is redacted as `mcplint redact`
    does (credentials and personal data; MCPLINT_REDACT_KEY gives stable tags, as redact's --key).
    Without PATH: stdin when input is piped in. Exit status: 0 converted, 2 unreadable input.
    """
    from mcplint.commands.convert import convert_stream
    from mcplint.input.readers import UnknownFormat
    from mcplint.redact import RedactOptions, Redactor

    path = one_input(path)
    name = "-" if path == "-" else path

    def note(line: int, message: str) -> None:
        warn(f"{name}:{line}: {message}")

    try:
        source = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        fail(f"{exc.filename}: {exc.strerror}")
    with source, OutputFile(output or output_alias) as out:
        try:
            convert_stream(source, out.stream, target, input_format, name, note, protocol_version,
                           Redactor(RedactOptions(key=os.environ.get("MCPLINT_REDACT_KEY") or None)))
        except UnknownFormat as exc:
            fail(f"{name}: {exc}")


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--output-format", type=click.Choice(sorted(REPORTERS)), default=None, envvar="MCPLINT_OUTPUT_FORMAT",
              help="Output format of the findings (default: full, or output-format from the configuration).")
@click.option("-o", "--output-file", "capture_file", metavar="FILE",
              help="Keep the recorded session in FILE (canonical capture; mcplint check/show/diagnose read it).")
@click.option("--color", type=click.Choice(COLOR_CHOICES), default="auto", show_default=True,
              help="Colour text output (auto: on a terminal, honouring NO_COLOR and FORCE_COLOR).")
@click.option("--select", multiple=True, metavar="RULES", help="Rules to run (as check).")
@click.option("--extend-select", multiple=True, metavar="RULES", help="Rules to add to the selection.")
@click.option("--ignore", multiple=True, metavar="RULES", help="Rules to skip.")
@click.option("--fail-on", type=SEVERITIES, help="Exit 1 when a finding has at least this severity [default: error].")
@click.option("--min-severity", type=SEVERITIES, help="Hide findings below this severity [default: info].")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings exceed --fail-on or the server hung.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no summary line, no notes.")
@click.option("--report", "reports", multiple=True, metavar="FORMAT=PATH", help="Also write FORMAT to PATH.")
@click.option("--config", "config_file", metavar="PATH", help="Configuration file (as check).")
@click.option("--isolated", is_flag=True, help="Ignore configuration files.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=10.0, show_default=True, metavar="SECONDS",
              help="How long to wait for each answer before the server counts as hung.")
@click.option("--grace", type=click.FloatRange(min=0), default=2.0, show_default=True, metavar="SECONDS",
              help="Wait this long after closing the server's stdin before SIGTERM, and after SIGTERM before SIGKILL.")
@click.option("--call-tools", is_flag=True,
              help="Also call the server's tools with arguments made from their inputSchema (this runs them!).")
@click.option("--tool", "tools", multiple=True, metavar="NAME", help="With --call-tools: only this tool (repeatable).")
@click.option("--cancel-after", type=click.FloatRange(min=0.1), metavar="SECONDS",
              help="With --call-tools: cancel a tool call still running after this long (else it may take --timeout).")
@click.option("-y", "--yes", is_flag=True, help="With --call-tools: do not ask before calling tools.")
@click.option("--page-limit", type=click.IntRange(min=1), default=20, show_default=True,
              help="Follow nextCursor for at most this many pages per list method.")
@click.option("--url", metavar="URL", help="Probe a Streamable HTTP server at URL (http:// or https://) instead of "
                                           "starting a command.")
@click.option("--insecure", is_flag=True, help="With --url: do not verify the server's TLS certificate.")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="[-- COMMAND [ARGS]...]")
@click.pass_context
def probe(ctx, output_format, capture_file, color, select, extend_select, ignore, fail_on, min_severity, exit_zero,
          quiet, reports, config_file, isolated, timeout, grace, call_tools, tools, cancel_after, yes, page_limit,
          url, insecure, command) -> None:
    """Check a server without a host: run a scripted client session against it and lint it.

    `mcplint probe -- python server.py` starts the server as a child (as capture does) and drives
    the handshake with every revision, every declared list, the error paths and the shutdown; no
    tool runs unless --call-tools. The session is linted as check lints a capture.
    Exit status: 0 clean, 1 findings at or above --fail-on, or the server crashed, hung or refused
    the handshake, 2 mcplint could not do its job, 130 interrupted.
    """
    import tempfile

    from mcplint.commands.probe.script import ProbeOptions, github_notes, provoked, run_probe
    from mcplint.commands.probe.stdio import StartError

    if url and command:
        fail("probe takes a server command after -- or --url URL, not both")
    if not url and not command:
        fail("probe needs a server command after -- (mcplint probe -- python server.py), or --url URL")
    if insecure and not url:
        fail("--insecure needs --url")
    if url:
        from urllib.parse import urlsplit

        if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
            fail(f"--url {url!r}: expected an http:// or https:// URL")
    if (tools or cancel_after is not None) and not call_tools:
        fail("--tool and --cancel-after need --call-tools")
    inputs = Inputs((), "auto", None, "-", (), (), None, None, False, None, config_file, isolated, False)
    settings = inputs.settings(ctx, select=select, extend_select=extend_select, ignore=ignore, fail_on=fail_on,
                               min_severity=min_severity, output_format=output_format)
    outputs = [(settings.output_format, OutputFile(None)),
               *((fmt, OutputFile(path, what="report file")) for fmt, path in map(_report_spec, reports))]
    options = ProbeOptions(timeout=timeout, grace=grace, call_tools=call_tools, tools=tuple(tools),
                           cancel_after=cancel_after, page_limit=page_limit, insecure=insecure)
    keep = capture_file
    if keep is None:
        handle, path = tempfile.mkstemp(prefix="mcplint-probe-", suffix=".mcplog")
        os.close(handle)
    else:
        path = keep
    try:
        for _, out in outputs:
            out.open()
        try:
            run = run_probe(url or list(command), path, options, _tool_confirmation(yes))
        except StartError as exc:
            fail(str(exc))
        except OSError as exc:
            fail(f"cannot write the capture: {exc.filename or path}: {exc.strerror or exc}")
        findings, summary = lint_paths([path], settings.rules, LintOptions(
            rule_options=settings.rule_options, max_line_bytes=settings.max_line_bytes))
        findings, hidden_own = provoked(findings, run)
        reported = apply_settings(findings, settings, min_severity=Severity.INFO)
        visible = _at_least(reported, settings.min_severity)
        summary.fail_on = settings.fail_on
        for f in reported:
            if f.severity.rank < settings.min_severity.rank:
                summary.hidden[f.severity] = summary.hidden.get(f.severity, 0) + 1
        for index, (fmt, out) in enumerate(outputs):
            _render(fmt, visible, summary, out.stream, color if index == 0 else "never", quiet)
            if fmt == "github":  # hangs and crashes annotate the run too
                github_notes(run.events, out.stream)
            out.commit()
    finally:
        for _, out in outputs:
            out.discard()
        if keep is None:
            os.unlink(path)
    for event in run.events:
        say(f"mcplint probe: {'' if event.fatal else 'note: '}{event.line()}")
    if not quiet:
        say(f"mcplint probe: {_count(len(run.sessions), 'session')}"
            + (f"; {_count(hidden_own, 'finding')} on the probe's deliberate violations not shown" if hidden_own else "")
            + (f"; capture kept in {keep}" if keep else ""))
    if summary.crashes:
        say("mcplint: some checks failed on this input; please report it (MCPLINT_DEBUG=1 shows more)")
        sys.exit(EXIT_ERROR)
    if not exit_zero and (run.failed or exceeds(reported, settings.fail_on)):
        sys.exit(EXIT_FINDINGS)


def _tool_confirmation(yes: bool):
    """--call-tools asks before running tools, unless -y; without a terminal to ask, -y is needed."""
    def confirm(names: list[str]) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            warn(f"--call-tools would run {len(names)} tool(s) and cannot ask here: pass -y to run them; "
                 "no tool was called")
            return False
        return click.confirm(f"Call {len(names)} tool(s) of this server ({shown(', '.join(names))})?", err=True)
    return confirm

"""The ``mcplint`` command line."""

from __future__ import annotations

import os
import sys

import click
import orjson

from mcplint import __version__, baseline, protocol
from mcplint.api import AUTO_JOBS_BYTES, InputError, LintOptions, exceeds, input_bytes, lint_paths
from mcplint.docs import read_page
from mcplint.excerpt import mask_text
from mcplint.model import Severity
from mcplint.readers import FORMATS
from mcplint.report import COLORED, REPORTERS
from mcplint.report.text import statistics
from mcplint.rules import load
from mcplint.config import Config, ConfigError, Loaded
from mcplint.config import load as load_config
from mcplint.settings import apply as apply_settings
from mcplint.settings import resolve_settings

SEVERITIES = click.Choice([s.value for s in Severity])


def _split(values: tuple[str, ...]) -> list[str]:
    return [part for value in values for part in value.split(",") if part.strip()]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mcplint")
def main() -> None:
    """Lint captured Model Context Protocol (MCP) traffic against the spec."""


def _jobs(jobs: int | None, paths) -> int:
    """Processes for ``check``: as asked, or by the inputs' size (small runs start no pool)."""
    if jobs is None:
        return (os.cpu_count() or 1) if input_bytes(paths) >= AUTO_JOBS_BYTES else 1
    return jobs or os.cpu_count() or 1


@main.command()
@click.argument("paths", nargs=-1, metavar="[PATH|-]...")
@click.option("--input-format", type=click.Choice(("auto",) + FORMATS), default="auto", show_default=True,
              help="Input format; sniffed from the first lines by default.")
@click.option("--protocol-version", type=click.Choice(protocol.VERSIONS),
              help="Revision to assume when the capture starts after initialize.")
@click.option("--output-format", type=click.Choice(sorted(REPORTERS)), envvar="MCPLINT_OUTPUT_FORMAT",
              help="Output format (default: full, or output-format from the configuration).")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, writable=True),
              help="Write results to this file instead of stdout.")
@click.option("--select", multiple=True, metavar="RULES",
              help="Rules to run: codes, prefixes, names, categories or ALL (comma-separated, repeatable).")
@click.option("--extend-select", multiple=True, metavar="RULES", help="Rules to add to the selection.")
@click.option("--ignore", multiple=True, metavar="RULES", help="Rules to skip (same syntax as --select).")
@click.option("--fail-on", type=SEVERITIES, help="Exit 1 when a finding has at least this severity [default: error].")
@click.option("--min-severity", type=SEVERITIES, help="Hide findings below this severity [default: info].")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings exceed --fail-on.")
@click.option("--stdin-filename", default="-", help="Name to report for input read from stdin.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option("--report", "reports", multiple=True, metavar="FORMAT=PATH",
              help="Also write FORMAT to PATH (repeatable), e.g. --report sarif=mcplint.sarif.")
@click.option("--statistics", is_flag=True, help="Print counts per rule instead of the findings.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=None,
              help="Lint files, and the sessions of large files, in this many processes (0: one per CPU; "
                   "default: one per CPU when the inputs hold 8 MB or more, else 1).")
@click.option("--write-baseline", type=click.Path(dir_okay=False), metavar="FILE",
              help="Record the current findings in FILE (then exit 0).")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False, exists=True), metavar="FILE",
              help="Hide findings recorded in FILE; report entries that no longer match.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, exists=True), metavar="PATH",
              help="Configuration file (default: mcplint.toml, .mcplint.toml or pyproject.toml found upwards).")
@click.option("--isolated", is_flag=True, help="Ignore configuration files.")
@click.option("-v", "--verbose", is_flag=True, help="Say on stderr which input format each file was read as.")
def check(paths, input_format, protocol_version, output_format, output_file, select, extend_select, ignore,
          fail_on, min_severity, exit_zero, stdin_filename, color, reports, statistics, jobs,
          write_baseline, baseline_file, config_file, isolated, verbose) -> None:
    """Lint captures (files, directories, or - for stdin) and report findings.

    Exit status: 0 clean, 1 findings at or above --fail-on, 2 mcplint could not do its job.
    """
    try:
        loaded = Loaded(Config(), None) if isolated else load_config(config_file)
        settings = resolve_settings(loaded, select=_split(select), extend_select=_split(extend_select),
                                    ignore=_split(ignore), fail_on=fail_on, min_severity=min_severity,
                                    output_format=output_format, protocol_version=protocol_version)
    except ConfigError as exc:
        click.echo(f"mcplint: error: {exc}", err=True)
        sys.exit(2)
    extra_reports = [_report_spec(spec) for spec in reports]
    options = LintOptions(input_format, settings.protocol_version, stdin_filename, settings.rule_options)
    try:
        findings, summary = lint_paths(list(paths), settings.rules, options, jobs=_jobs(jobs, paths))
    except InputError as exc:
        click.echo(f"mcplint: error: {exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # a bug of ours: say so in one line, exit 2 (traceback on request)
        if os.environ.get("MCPLINT_DEBUG"):
            raise
        click.echo(f"mcplint: internal error: {type(exc).__name__}: {mask_text(str(exc))} (set MCPLINT_DEBUG=1 for "
                   "the traceback, and please report it)", err=True)
        sys.exit(2)
    if verbose:
        for path, fmt in summary.formats.items():
            click.echo(f"mcplint: reading {path} as {fmt}", err=True)
    shown = apply_settings(findings, settings)
    for name in summary.skipped:
        click.echo(f"mcplint: skipped {name}: in no known capture format", err=True)
    if write_baseline:
        count = baseline.write(write_baseline, shown)
        click.echo(f"mcplint: wrote {count} finding{'s' if count != 1 else ''} to baseline {write_baseline}", err=True)
        return
    if baseline_file:
        try:
            filtered = baseline.apply(baseline_file, shown)
        except baseline.BaselineError as exc:
            click.echo(f"mcplint: error: {exc}", err=True)
            sys.exit(2)
        shown = filtered.kept
        if filtered.hidden:
            click.echo(f"mcplint: the baseline hid {filtered.hidden} finding(s)", err=True)
        if filtered.stale:
            click.echo(f"mcplint: {len(filtered.stale)} baseline entr{'y' if len(filtered.stale) == 1 else 'ies'} "
                       "no longer match (fixed, or the capture changed); refresh it with --write-baseline:",
                       err=True)
            for entry in filtered.stale:
                click.echo(f"  {entry.get('path')}:{entry.get('line')}: {entry.get('code')} "
                           f"{mask_text(str(entry.get('message')))}",
                           err=True)
    main_format = "statistics" if statistics else settings.output_format
    _write(main_format, shown, summary, output_file, color)
    for fmt, path in extra_reports:
        _write(fmt, shown, summary, path, "never")
    if summary.crashes:  # findings above are complete except for the failed checks: say so, exit 2
        for crash in summary.crashes[:5]:
            where, sep, error = crash.partition(": ")  # "<rule> failed on <path>:<line>", the exception
            click.echo(f"mcplint: internal error: {where}{sep}{mask_text(error)}", err=True)
        more = len(summary.crashes) - 5
        click.echo(("" if more <= 0 else f"mcplint: ... and {more} more; ") +
                   "mcplint: some checks failed on this input; please report it (MCPLINT_DEBUG=1 shows more)",
                   err=True)
        sys.exit(2)
    if not exit_zero and exceeds(shown, settings.fail_on):
        sys.exit(1)


def _report_spec(spec: str) -> tuple[str, str]:
    fmt, sep, path = spec.partition("=")
    if not sep or not path or fmt not in REPORTERS:
        raise click.BadParameter(f"expected FORMAT=PATH with FORMAT one of {', '.join(sorted(REPORTERS))}",
                                 param_hint="--report")
    return fmt, path


def _write(fmt: str, findings, summary, path: str | None, color: str) -> None:
    """Render ``findings`` in ``fmt`` to ``path`` (stdout when None)."""
    out = open(path, "w", encoding="utf-8") if path else sys.stdout
    try:
        if fmt == "statistics":
            statistics(findings, summary, out)
        elif fmt in COLORED:
            use_color = color == "always" or (color == "auto" and out is sys.stdout and sys.stdout.isatty()
                                              and "NO_COLOR" not in os.environ)
            REPORTERS[fmt](findings, summary, out, color=use_color)
        else:
            REPORTERS[fmt](findings, summary, out)
    finally:
        if path:
            out.close()


@main.command()
@click.argument("paths", nargs=-1, metavar="[PATH|-]...")
@click.option("--input-format", type=click.Choice(("auto",) + FORMATS), default="auto", show_default=True)
@click.option("--protocol-version", type=click.Choice(protocol.VERSIONS))
@click.option("--output-format", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--per-session/--overall", default=True, show_default=True,
              help="Tables per session as well as the overall one.")
def stats(paths, input_format, protocol_version, output_format, per_session) -> None:
    """Traffic figures: messages per method, latency, errors, isError rate, open requests."""
    from mcplint.stats import StatsCollector, as_dict, merged
    from mcplint.stats_report import render_tables

    collector = StatsCollector()
    try:
        findings, summary = lint_paths(list(paths), None, LintOptions(input_format, protocol_version),
                                       observers=[collector])
    except InputError as exc:
        click.echo(f"mcplint: error: {exc}", err=True)
        sys.exit(2)
    collector.add_findings(findings)
    sessions = collector.labelled()
    overall = merged(collector.all_figures())
    if output_format == "json":
        document = {"overall": as_dict(overall), "sessions": {k: as_dict(v) for k, v in sessions.items()},
                    "sessions_not_shown": collector.folded, "files": summary.files, "records": summary.records}
        click.echo(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode())
        return
    click.echo(render_tables(overall, sessions if per_session else {}, summary))
    if collector.folded:
        click.echo(f"({collector.folded} more session(s) count in the overall figures only)")


@main.command()
@click.argument("paths", nargs=-1, metavar="[PATH|-]...")
@click.option("--input-format", type=click.Choice(("auto",) + FORMATS), default="auto", show_default=True)
@click.option("--protocol-version", type=click.Choice(protocol.VERSIONS))
@click.option("--output-format", type=click.Choice(["text", "json", "markdown"]), default="text",
              show_default=True,
              help="markdown is ready to paste into an issue (every format masks secrets and personal data).")
def diagnose(paths, input_format, protocol_version, output_format) -> None:
    """Where did each session stall, and what to suspect."""
    from mcplint import diagnose_report
    from mcplint.diagnose import DiagnoseCollector

    collector = DiagnoseCollector()
    try:
        lint_paths(list(paths), None, LintOptions(input_format, protocol_version), observers=[collector])
    except InputError as exc:
        click.echo(f"mcplint: error: {exc}", err=True)
        sys.exit(2)
    diagnoses = [d.masked() for d in collector.diagnoses.values()]  # every format: nothing secret shown
    if output_format == "json":
        click.echo(orjson.dumps([d.as_dict() for d in diagnoses], option=orjson.OPT_INDENT_2).decode())
    elif output_format == "markdown":
        click.echo(diagnose_report.markdown(diagnoses))
    else:
        click.echo(diagnose_report.text(diagnoses))
    if collector.unlisted:  # sessions beyond the ones diagnosed in full
        counts = ", ".join(f"{n} {outcome}" for outcome, n in collector.unlisted.most_common())
        click.echo(f"{sum(collector.unlisted.values())} more session(s) not listed: {counts}",
                   err=output_format == "json")


@main.command()
@click.argument("paths", nargs=-1, metavar="[PATH|-]...")
@click.option("--input-format", type=click.Choice(("auto",) + FORMATS), default="auto", show_default=True)
@click.option("--protocol-version", type=click.Choice(protocol.VERSIONS))
@click.option("--format", "fmt", type=click.Choice(["table", "mermaid", "html"]), default="table",
              show_default=True, help="mermaid renders on GitHub; html is a self-contained report.")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), help="Write to this file.")
@click.option("--session", help="Only this session (label as in findings).")
@click.option("--method", help="Only this method (responses count under their request's method).")
@click.option("--id", "request_id", help="Only this JSON-RPC id.")
@click.option("--direction", type=click.Choice(["c2s", "s2c"]), help="Only this direction.")
@click.option("--since", type=float, help="Only lines at least this many seconds after the first timestamp.")
@click.option("--until", type=float, help="Only lines at most this many seconds after the first timestamp.")
def show(paths, input_format, protocol_version, fmt, output_file, session, method, request_id, direction,
         since, until) -> None:
    """A capture as a timeline: table, Mermaid sequence diagram or HTML report."""
    from mcplint import show_render
    from mcplint.show import RowFilter, TimelineCollector, filtered

    collector = TimelineCollector()
    try:
        findings, _ = lint_paths(list(paths), None, LintOptions(input_format, protocol_version),
                                 observers=[collector])
    except InputError as exc:
        click.echo(f"mcplint: error: {exc}", err=True)
        sys.exit(2)
    collector.attach(findings)
    rows = filtered(collector.rows, RowFilter(session, method, request_id, direction, since, until))
    if fmt == "mermaid":
        text = show_render.mermaid(rows)
    elif fmt == "html":
        shown = {(r.path, r.line) for r in rows}
        text = show_render.html_report(rows, [f for f in findings if (f.path, f.line) in shown],
                                       ", ".join(paths) or "stdin")
    else:
        text = show_render.table(rows)
    if output_file:
        with open(output_file, "w", encoding="utf-8") as out:
            out.write(text if text.endswith("\n") else text + "\n")
    else:
        click.echo(text)


@main.command("rule")
@click.argument("selector", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@click.option("--output-format", type=click.Choice(["text", "json", "markdown"]), default="text",
              show_default=True)
def rule_cmd(selector, show_all, output_format) -> None:
    """Show a rule's documentation page (by code or name), or list all rules."""
    registry = load()
    if show_all or not selector:
        rows = [cls for _, cls in sorted(registry.items())]
        if output_format == "json":
            click.echo(orjson.dumps([_rule_meta(cls) for cls in rows], option=orjson.OPT_INDENT_2).decode())
        elif output_format == "markdown":
            click.echo("| Code | Name | Severity | Level | Versions | Summary |\n|---|---|---|---|---|---|")
            for cls in rows:
                meta = _rule_meta(cls)
                click.echo(f"| {cls.code} | {cls.name} | {meta['severity']} | {cls.level} | "
                           f"{meta['versions']} | {cls.summary()} |")
        else:
            for cls in rows:
                click.echo(f"{cls.code:<7} {cls.name:<44} {cls.severity.value:<8} {cls.summary()}")
        return
    by_name = {cls.name: cls for cls in registry.values()}
    cls = registry.get(selector.upper()) or by_name.get(selector)
    if cls is None:
        click.echo(f"mcplint: error: no rule {selector!r}", err=True)
        sys.exit(2)
    if output_format == "json":
        click.echo(orjson.dumps(_rule_meta(cls), option=orjson.OPT_INDENT_2).decode())
        return
    page = read_page(cls.code, cls.name)
    click.echo(page if page else f"{cls.name} ({cls.code})\n\n{cls.summary()}")


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
@click.option("-o", "--output", "output", type=click.Path(writable=True), metavar="FILE|DIR",
              help="Capture file (a directory gets a new timestamped file). Default: "
                   "mcplint-capture-<time>-<pid>.mcplog in the working directory.")
@click.option("--redact", is_flag=True,
              help="Redact credentials and personal data in what is written (never in what is relayed).")
@click.option("--lint", is_flag=True, help="Lint as the traffic flows and print findings to stderr.")
@click.option("--grace", type=click.FloatRange(min=0), default=2.0, show_default=True, metavar="SECONDS",
              help="Wait this long after closing the server's stdin before SIGTERM, and after SIGTERM "
                   "before SIGKILL.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- COMMAND [ARGS]...")
def capture(output, redact, lint, grace, command) -> None:
    """Run an MCP stdio server behind a recording proxy.

    The host launches `mcplint capture -o FILE -- COMMAND ARGS...` instead of the server. Bytes
    pass unchanged in both directions; every line (and the server's stderr) is recorded in the
    canonical capture format before it is forwarded. Exits with the server's status.
    """
    from mcplint.capture import run_capture

    try:
        status = run_capture(list(command), output, redact=redact, lint=lint, grace=grace)
    except OSError as exc:
        click.echo(f"mcplint: error: cannot open capture file: {exc}", err=True)
        sys.exit(2)
    sys.exit(status)


from mcplint.redact.command import redact as _redact  # noqa: E402  (mcplint redact)

main.add_command(_redact)


@main.command()
@click.argument("path", required=False, default="-", metavar="[PATH|-]")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, writable=True), metavar="OUT",
              help="Write here instead of stdout.")
@click.option("--to", "target", type=click.Choice(["capture", "jsonl"]), default="capture", show_default=True,
              help="capture: mcplint's canonical capture format; jsonl: plain JSON Lines of the messages.")
@click.option("--input-format", type=click.Choice(("auto",) + FORMATS), default="auto", show_default=True,
              help="Input format; sniffed from the first lines by default.")
@click.option("--protocol-version", type=click.Choice(protocol.VERSIONS),
              help="Revision to assume when the input starts after initialize (direction inference).")
def convert(path, output, target, input_format, protocol_version) -> None:
    """Convert any supported input (host logs, recorder JSONL, HAR...) to the canonical capture format.

    Lines the reader cannot interpret, and messages whose direction is unknown, are reported
    on stderr with their line numbers and left out. What is written is redacted as `mcplint redact`
    does (credentials and personal data; MCPLINT_REDACT_KEY gives stable tags, as redact's --key).
    Exit status: 0 converted, 2 unreadable input.
    """
    import contextlib

    from mcplint.convert import convert_stream
    from mcplint.readers import UnknownFormat
    from mcplint.redact import RedactOptions, Redactor

    name = "-" if path == "-" else path

    def warn(line: int, message: str) -> None:
        click.echo(f"mcplint: warning: {name}:{line}: {message}", err=True)

    with contextlib.ExitStack() as stack:
        try:
            source = sys.stdin.buffer if path == "-" else stack.enter_context(open(path, "rb"))
            out = stack.enter_context(open(output, "w", encoding="utf-8", newline="")) if output else sys.stdout
        except OSError as exc:
            click.echo(f"mcplint: error: {exc.filename}: {exc.strerror}", err=True)
            sys.exit(2)
        try:
            convert_stream(source, out, target, input_format, name, warn, protocol_version,
                           Redactor(RedactOptions(key=os.environ.get("MCPLINT_REDACT_KEY") or None)))
        except UnknownFormat as exc:
            click.echo(f"mcplint: error: {name}: {exc}", err=True)
            sys.exit(2)

"""``mcplint check``: lint the inputs and report the findings (with baselines, ``--show-files``,
``--show-settings`` and ``--follow``)."""

from __future__ import annotations

import os
import sys

import click

from mcplint.api import InputError, discover, exceeds
from mcplint.commands.check import baseline
from mcplint.commands.check.output import at_least, count_of, publish, report_outputs
from mcplint.commands.common import EXIT_ERROR, EXIT_FINDINGS, OutputFile, fail, say
from mcplint.commands.options import Inputs, jobs_wanted
from mcplint.config.settings import Settings
from mcplint.config.settings import apply as apply_settings
from mcplint.excerpt import mask_text
from mcplint.model import Severity
from mcplint.report.terminal import color_wanted
from mcplint.untrusted import shown


def run_check(ctx: click.Context, inputs: Inputs, output_format, output_file, color, select, extend_select, ignore,
              fail_on, min_severity, exit_zero, quiet, reports, statistics, jobs, write_baseline, baseline_file,
              show_files, show_settings, follow) -> None:
    """What ``mcplint check`` does with its options (see ``mcplint check --help``)."""
    settings = inputs.settings(ctx, select=select, extend_select=extend_select, ignore=ignore, fail_on=fail_on,
                               min_severity=min_severity, output_format=output_format)
    paths = inputs.resolved_paths
    if show_settings:
        from mcplint.commands.check.show_settings import render

        use_color = color_wanted(color)
        click.echo(render(settings, use_color), nl=False, color=use_color)
        return
    if show_files:
        show_file_decisions(paths, settings, color)
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
    outputs = [(main_format, OutputFile(output_file)), *report_outputs(reports)]
    baseline_out = OutputFile(write_baseline, binary=True, what="baseline file") if write_baseline else None
    try:
        for _, out in outputs:  # an unwritable output fails now, not after the work
            out.open()
        if baseline_out is not None:
            baseline_out.open()
        findings, summary = inputs.lint(settings, settings.rules, jobs=jobs_wanted(jobs))
        reported = apply_settings(findings, settings, min_severity=Severity.INFO)  # --fail-on counts these
        if baseline_out is not None:
            count = baseline.write(baseline_out.stream, at_least(reported, settings.min_severity))
            baseline_out.commit()
            for _, out in outputs:
                out.discard()
            say(f"mcplint: wrote {count_of(count, 'finding')} to baseline {write_baseline}")
            return
        if baseline_file:
            reported = apply_baseline(baseline_file, reported, quiet)
        publish(reported, summary, settings, outputs, color, quiet)
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


def apply_baseline(path: str, findings, quiet: bool):
    try:
        filtered = baseline.apply(path, findings)
    except baseline.BaselineError as exc:
        fail(str(exc))
    if filtered.hidden and not quiet:
        say(f"mcplint: the baseline hid {count_of(filtered.hidden, 'finding')}")
    if filtered.stale:
        say(f"mcplint: {len(filtered.stale)} baseline entr{'y' if len(filtered.stale) == 1 else 'ies'} "
            "no longer match (fixed, or the capture changed); refresh it with --write-baseline:")
        for entry in filtered.stale:
            say(f"  {shown(entry.get('path'))}:{entry.get('line')}: {shown(entry.get('code'))} "
                f"{shown(mask_text(str(entry.get('message'))))}")
    return filtered.kept


def show_file_decisions(paths: list[str], settings: Settings, color: str) -> None:
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
    say(f"{count_of(len(found.files), 'file')} to lint, {skipped} skipped.")
    if problem:
        say(f"mcplint: a run would fail: {shown(problem)}")

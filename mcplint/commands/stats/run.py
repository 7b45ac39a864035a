"""``mcplint stats``: lint with a figures collector attached, then print its tables or JSON."""

from __future__ import annotations

import click

from mcplint.commands.common import OutputFile
from mcplint.commands.options import Inputs
from mcplint.report.terminal import color_wanted
from mcplint.untrusted import json_text


def run_stats(ctx: click.Context, inputs: Inputs, output_format, output_file, color, per_session) -> None:
    """``mcplint stats`` with the options it was given (see ``mcplint stats --help``)."""
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

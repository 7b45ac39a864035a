"""``mcplint diagnose``: lint with the stall collector attached, then report where each session stalled."""

from __future__ import annotations

import sys

import click

from mcplint.commands.check.output import count_of
from mcplint.commands.common import EXIT_FINDINGS, OutputFile, say
from mcplint.commands.options import Inputs
from mcplint.report.terminal import color_wanted
from mcplint.untrusted import json_text


def run_diagnose(ctx: click.Context, inputs: Inputs, output_format, output_file, color, fail_on_stall) -> None:
    """``mcplint diagnose`` with the options it was given (see ``mcplint diagnose --help``)."""
    from mcplint.commands.diagnose import render
    from mcplint.commands.diagnose.collect import DiagnoseCollector

    settings = inputs.settings(ctx)
    with OutputFile(output_file) as out:
        collector = DiagnoseCollector()
        inputs.lint(settings, observers=[collector])
        diagnoses = [d.masked() for d in collector.diagnoses.values()]  # every format: nothing secret shown
        if output_format == "json":
            text = json_text([d.as_dict() for d in diagnoses], indent=True)
        elif output_format == "markdown":
            text = render.markdown(diagnoses)
        else:
            text = render.text(diagnoses, color=color_wanted(color, out.stream))
        out.stream.write(text + "\n")
        if collector.unlisted:  # sessions beyond the ones diagnosed in full
            counts = ", ".join(f"{n} {outcome}" for outcome, n in collector.unlisted.most_common())
            note = f"{sum(collector.unlisted.values())} more session(s) not listed: {counts}"
            if output_format == "json":
                say(note)
            else:
                out.stream.write(note + "\n")
    if fail_on_stall and collector.stalled:
        say(f"mcplint: {count_of(collector.stalled, 'session')} stalled")
        sys.exit(EXIT_FINDINGS)

"""``mcplint show``: lint with the timeline collector attached, then render the rows asked for."""

from __future__ import annotations

import click

from mcplint.commands.common import OutputFile, fail
from mcplint.commands.options import Inputs
from mcplint.report.terminal import color_wanted


def run_show(ctx: click.Context, inputs: Inputs, output_format, output_file, color, format_alias, session, method,
             request_id, direction, since, until, follow, line) -> None:
    """``mcplint show`` with the options it was given (see ``mcplint show --help``)."""
    from mcplint.commands.show import mermaid
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
            text = mermaid.mermaid(rows)
        elif fmt == "html":
            from mcplint.commands.show.html import html_report
            shown = {(r.path, r.line) for r in rows}
            text = html_report(rows, [f for f in findings if (f.path, f.line) in shown],
                               ", ".join(paths) if paths != ["-"] else "stdin", collector.headers)
        else:
            text = show_text.table(rows, collector.headers, color=color_wanted(color, out.stream))
        out.stream.write(text if text.endswith("\n") else text + "\n")

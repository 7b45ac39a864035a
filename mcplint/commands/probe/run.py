"""What ``mcplint probe`` does with its options: run the scripted session, lint it as ``check``
lints a capture, report, and exit by the findings and by how the server behaved."""

from __future__ import annotations

import os
import sys

import click

from mcplint.api import LintOptions, exceeds, lint_paths
from mcplint.commands.check.output import count_of, publish, report_outputs
from mcplint.commands.common import EXIT_ERROR, EXIT_FINDINGS, OutputFile, fail, say, warn
from mcplint.commands.options import Inputs
from mcplint.config.settings import apply as apply_settings
from mcplint.model import Severity
from mcplint.untrusted import shown


def run_probe_command(ctx: click.Context, output_format, capture_file, color, select, extend_select, ignore, fail_on,
                      min_severity, exit_zero, quiet, reports, config_file, isolated, timeout, grace, call_tools,
                      tools, cancel_after, yes, page_limit, url, insecure, command) -> None:
    """``mcplint probe`` (see ``mcplint probe --help``)."""
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
    outputs = [(settings.output_format, OutputFile(None)), *report_outputs(reports)]
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
        publish(reported, summary, settings, outputs, color, quiet,  # hangs and crashes annotate a github run too
                after=lambda fmt, stream: github_notes(run.events, stream) if fmt == "github" else None)
    finally:
        for _, out in outputs:
            out.discard()
        if keep is None:
            os.unlink(path)
    for event in run.events:
        say(f"mcplint probe: {'' if event.fatal else 'note: '}{event.line()}")
    if not quiet:
        say(f"mcplint probe: {count_of(len(run.sessions), 'session')}"
            + (f"; {count_of(hidden_own, 'finding')} on the probe's deliberate violations not shown" if hidden_own else "")
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

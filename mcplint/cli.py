"""The ``mcplint`` command line: click wiring of the commands (their work lives elsewhere)."""

from __future__ import annotations

import importlib
import os
import sys

import click

from mcplint import __version__, protocol
from mcplint.commands.common import EXIT_BROKEN_PIPE, EXIT_ERROR, EXIT_INTERRUPTED, say
from mcplint.commands.options import SEVERITIES, input_options, output_options
from mcplint.excerpt import mask_text
from mcplint.input.readers import FORMATS
from mcplint.report import REPORTERS
from mcplint.report.terminal import COLOR_CHOICES
from mcplint.untrusted import shown


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


@main.command()
@input_options
@output_options(sorted(REPORTERS), None, "Output format (default: full, or output-format from the configuration).",
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
def check(ctx, inputs, **options) -> None:
    """Lint captures (files, directories, or - for stdin) and report findings.

    Without PATH: the working directory at a terminal, stdin when input is piped in.
    Exit status: 0 clean, 1 findings at or above --fail-on, 2 mcplint could not do its job,
    130 interrupted.
    """
    from mcplint.commands.check.run import run_check

    run_check(ctx, inputs, **options)


@main.command()
@input_options
@output_options(["table", "json"], "table")
@click.option("--per-session/--overall", default=True, show_default=True,
              help="Tables per session as well as the overall one.")
@click.pass_context
def stats(ctx, inputs, **options) -> None:
    """Traffic figures: messages per method, latency, errors, isError rate, open requests."""
    from mcplint.commands.stats.run import run_stats

    run_stats(ctx, inputs, **options)


@main.command()
@input_options
@output_options(["text", "json", "markdown"], "text",
                "markdown is ready to paste into an issue (every format masks secrets and personal data).")
@click.option("--fail-on-stall", is_flag=True,
              help="Exit 1 when a session stalled: a request left unanswered, or the handshake never completed.")
@click.pass_context
def diagnose(ctx, inputs, **options) -> None:
    """Where did each session stall, and what to suspect.

    Exit status: 0 done (with --fail-on-stall: no session stalled), 1 a session stalled
    (--fail-on-stall), 2 mcplint could not do its job.
    """
    from mcplint.commands.diagnose.run import run_diagnose

    run_diagnose(ctx, inputs, **options)


@main.command()
@input_options
@output_options(["table", "markdown", "mermaid", "html"], "table",
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
def show(ctx, inputs, **options) -> None:
    """A capture as a timeline: table (a header per session), Markdown, Mermaid sequence diagram or
    HTML report; with --line N (or --id N) the whole messages."""
    from mcplint.commands.show.run import run_show

    run_show(ctx, inputs, **options)


@main.command("rule")
@click.argument("selector", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@output_options(["text", "json", "markdown"], "text")
def rule_cmd(**options) -> None:
    """Show a rule's documentation page (by code or name), or list all rules."""
    from mcplint.commands.rule import run_rule

    run_rule(**options)


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
def capture(**options) -> None:
    """Run an MCP stdio server behind a recording proxy, or record a remote one with --http.

    The host launches `mcplint capture -o FILE -- COMMAND ARGS...` instead of the server. Bytes
    pass unchanged in both directions; every line (and the server's stderr) is recorded in the
    canonical capture format before it is forwarded. Exits with the server's status.

    With `--http --upstream URL`, the host is pointed at the proxy's URL instead of the server's:
    requests, answers and SSE events are relayed unchanged and as they arrive, and recorded.
    """
    from mcplint.commands.capture.run import run_capture_command

    run_capture_command(**options)


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
def convert(**options) -> None:
    """Convert any supported input (host logs, recorder JSONL, HAR...) to the canonical capture format.

    Lines the reader cannot interpret, and messages whose direction is unknown, are reported
    on stderr with their line numbers and left out. What is written is redacted as `mcplint redact`
    does (credentials and personal data; MCPLINT_REDACT_KEY gives stable tags, as redact's --key).
    Without PATH: stdin when input is piped in. Exit status: 0 converted, 2 unreadable input.
    """
    from mcplint.commands.convert import run_convert

    run_convert(**options)


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
def probe(ctx, **options) -> None:
    """Check a server without a host: run a scripted client session against it and lint it.

    `mcplint probe -- python server.py` starts the server as a child (as capture does) and drives
    the handshake with every revision, every declared list, the error paths and the shutdown; no
    tool runs unless --call-tools. The session is linted as check lints a capture.
    Exit status: 0 clean, 1 findings at or above --fail-on, or the server crashed, hung or refused
    the handshake, 2 mcplint could not do its job, 130 interrupted.
    """
    from mcplint.commands.probe.run import run_probe_command

    run_probe_command(ctx, **options)

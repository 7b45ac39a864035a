"""Tables for ``mcplint stats`` (tabulate).

Methods, error codes, session labels, versions and file names come from captures: each is
:func:`~mcplint.untrusted.shown` (escapes escaped, one line) before it reaches a table."""

from __future__ import annotations

from tabulate import tabulate

from mcplint.commands.stats.collect import Figures, error_rows, fmt_seconds, method_rows
from mcplint.excerpt import mask_field
from mcplint.report.terminal import styler
from mcplint.untrusted import shown


def _table(figures: Figures) -> str:
    rows = [(shown(r["method"]), r["c2s"], r["s2c"], r["?"] or "", r["errors"] or "", fmt_seconds(r["p50"]),
             fmt_seconds(r["p95"]), fmt_seconds(r["max"])) for r in method_rows(figures)]
    table = tabulate(rows, headers=["method", "C→S", "S→C", "dir?", "errors", "p50", "p95", "max"],
                     tablefmt="simple")
    facts = []
    if figures.tool_calls:
        rate = figures.tool_is_error / figures.tool_calls
        facts.append(f"tool results with isError: {figures.tool_is_error}/{figures.tool_calls} ({rate:.0%})")
    if figures.unanswered:
        facts.append("unanswered requests: "
                     + ", ".join(f"{shown(m)}×{n}" for m, n in figures.unanswered.most_common()))
    if figures.cancelled:
        facts.append(f"cancellations: {figures.cancelled}")
    if figures.other_lines:
        facts.append("other lines: " + ", ".join(f"{k}×{n}" for k, n in sorted(figures.other_lines.items())))
    if figures.findings:
        facts.append("findings: " + ", ".join(f"{n} {sev}" for sev, n in sorted(figures.findings.items())))
    errors = "\n\n" + _error_table(figures) if figures.error_codes else ""
    return table + ("\n" + "\n".join(facts) if facts else "") + errors


def _error_table(figures: Figures) -> str:
    """One row per JSON-RPC error code, with the methods it answered (``-32602 invalid params 5
    tools/call ×4, prompts/get ×1``)."""
    rows = [(shown(r["code"]), r["name"] or "", r["count"],
             ", ".join(f"{shown(m)} ×{n}" for m, n in r["methods"].items()))
            for r in error_rows(figures)]
    return tabulate(rows, headers=["error code", "name", "count", "answered"], tablefmt="simple",
                    disable_numparse=True, colalign=("right", "left", "right", "left"))


def render_tables(overall: Figures, sessions: dict[str, Figures], summary, color: bool = False) -> str:
    bold = styler(color)

    def style(text: str) -> str:
        return bold(text, bold=True)

    parts = []
    for name, figures in sessions.items():
        heading = style(f"{shown(name)} ({shown(mask_field(figures.version) or 'version unknown')})")
        parts.append(f"{heading}\n{_table(figures)}")
    heading = style(f"Overall: {summary.files} file(s), {len(sessions)} session(s), {summary.records} records")
    parts.append(f"{heading}\n{_table(overall)}")
    return "\n\n".join(parts)

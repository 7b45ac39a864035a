"""Tables for ``mcplint stats`` (tabulate)."""

from __future__ import annotations

from tabulate import tabulate

from mcplint.excerpt import mask_field
from mcplint.stats import Figures, fmt_seconds, method_rows


def _table(figures: Figures) -> str:
    rows = [(r["method"], r["c2s"], r["s2c"], r["?"] or "", r["errors"] or "", fmt_seconds(r["p50"]),
             fmt_seconds(r["p95"]), fmt_seconds(r["max"])) for r in method_rows(figures)]
    table = tabulate(rows, headers=["method", "C→S", "S→C", "dir?", "errors", "p50", "p95", "max"],
                     tablefmt="simple")
    facts = []
    if figures.tool_calls:
        rate = figures.tool_is_error / figures.tool_calls
        facts.append(f"tool results with isError: {figures.tool_is_error}/{figures.tool_calls} ({rate:.0%})")
    if figures.error_codes:
        codes = ", ".join(f"{code}×{n}" for (_, code), n in figures.error_codes.most_common())
        facts.append(f"JSON-RPC errors by code: {codes}")
    if figures.unanswered:
        facts.append("unanswered requests: " + ", ".join(f"{m}×{n}" for m, n in figures.unanswered.most_common()))
    if figures.cancelled:
        facts.append(f"cancellations: {figures.cancelled}")
    if figures.other_lines:
        facts.append("other lines: " + ", ".join(f"{k}×{n}" for k, n in sorted(figures.other_lines.items())))
    if figures.findings:
        facts.append("findings: " + ", ".join(f"{n} {sev}" for sev, n in sorted(figures.findings.items())))
    return table + ("\n" + "\n".join(facts) if facts else "")


def render_tables(overall: Figures, sessions: dict[str, Figures], summary) -> str:
    parts = []
    for name, figures in sessions.items():
        parts.append(f"{name} ({mask_field(figures.version) or 'version unknown'})\n{_table(figures)}")
    parts.append(f"Overall: {summary.files} file(s), {len(sessions)} session(s), {summary.records} records\n"
                 f"{_table(overall)}")
    return "\n\n".join(parts)

"""Human-readable output: ``full`` (grouped, with context) and ``concise`` (one line each)."""

from __future__ import annotations

from itertools import groupby

import click
from tabulate import tabulate

from mcplint.excerpt import mask_field, mask_session
from mcplint.model import Severity
from mcplint.rules._base import fmt_id

_COLORS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_ARROWS = {"c2s": "C→S", "s2c": "S→C", None: "   "}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(findings, summary) -> str:
    counts = summary.counts(findings)
    files = _plural(summary.files, "file")
    sessions = _plural(summary.session_count(), "session")
    if not findings:
        return f"All checks passed: {files}, {sessions}, {_plural(summary.records, 'record')}."
    parts = ", ".join(f"{counts[s]} {s.value}" if s is Severity.INFO else _plural(counts[s], s.value)
                      for s in Severity if counts[s])
    return f"Found {_plural(len(findings), 'finding')} ({parts}) in {files}, {sessions}."


def full(findings, summary, out, color: bool = False) -> None:
    style = click.style if color else (lambda text, **_: text)
    # findings carry masked session labels (mcplint.excerpt); so must the lookup
    infos = {(path, mask_session(s.label)): s for path, ss in summary.sessions.items() for s in ss}
    for (path, session), group in groupby(findings, key=lambda f: (f.path, f.session)):
        info = infos.get((path, session))
        facts = []
        if info is not None:
            facts.append(mask_field(info.version) or "version unknown")
            if info.era == "modern":
                facts.append("stateless")
        header = f"{path} — session {session}" if session else path
        if facts:
            header += f" ({', '.join(facts)})"
        out.write(style(header, bold=True) + "\n")
        for f in group:
            arrow = _ARROWS.get(f.direction, "   ") + ("?" if f.direction_inferred else " ")
            where = f"{f.line:>5}  {arrow}"
            what = style(f"{f.severity.value:<7}", fg=_COLORS[f.severity], bold=True)
            subject = ""
            if f.method:
                subject = f" [{f.method}" + (f" #{fmt_id(f.id)}" if f.id is not None else "") + "]"
            heuristic = style(" (heuristic)", dim=True) if f.confidence == "low" else ""
            out.write(f"{where}  {what} {style(f.code, bold=True)} {f.message}{subject}{heuristic}\n")
            pad = " " * 14
            if f.excerpt:
                out.write(f"{pad}{style('│', dim=True)} {f.excerpt}\n")
            for rel in f.related:
                out.write(f"{pad}{style('↳', dim=True)} line {rel.line}: {rel.note}\n")
            fault = f" · fault: {f.party}" if f.party else ""
            out.write(f"{pad}{style('spec:', dim=True)} {f.spec}{fault}\n")
            if f.hint:
                out.write(f"{pad}{style('help:', fg='green')} {f.hint}\n")
        out.write("\n")
    out.write(summary_line(findings, summary) + "\n")


def concise(findings, summary, out, color: bool = False) -> None:
    for f in findings:
        out.write(f"{f.path}:{f.line}: {f.code} [{f.severity.value}] {f.message}\n")
    out.write(summary_line(findings, summary) + "\n")


def grouped(findings, summary, out, color: bool = False) -> None:
    """One table per file: line, direction, severity, code and message."""
    for path, group in groupby(findings, key=lambda f: f.path):
        rows = [(f.line, _ARROWS.get(f.direction, "") + ("?" if f.direction_inferred else ""),
                 f.severity.value, f.code, f.message + (" (heuristic)" if f.confidence == "low" else ""))
                for f in group]
        out.write(f"{path}:\n")
        out.write(tabulate(rows, headers=["line", "dir", "severity", "code", "message"], tablefmt="simple"))
        out.write("\n\n")
    out.write(summary_line(findings, summary) + "\n")


def statistics(findings, summary, out, color: bool = False) -> None:
    """Counts per rule, most frequent first, then the summary line."""
    counts: dict[tuple[str, str], int] = {}
    severity: dict[str, str] = {}
    for f in findings:
        counts[(f.code, f.name)] = counts.get((f.code, f.name), 0) + 1
        severity[f.code] = f.severity.value
    rows = sorted(((n, code, name, severity[code]) for (code, name), n in counts.items()),
                  key=lambda r: (-r[0], r[1]))
    if rows:
        out.write(tabulate(rows, headers=["count", "code", "name", "severity"], tablefmt="simple"))
        out.write("\n")
    out.write(summary_line(findings, summary) + "\n")

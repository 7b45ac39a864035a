"""Human-readable output: ``full`` (grouped, with context) and ``concise`` (one line each)."""

from __future__ import annotations

from itertools import groupby

from mcplint.excerpt import mask_field, mask_session
from mcplint.model import Severity
from mcplint.report.terminal import SEVERITY_COLORS, styler
from mcplint.rules._base import fmt_id
from mcplint.untrusted import json_text, shown, shown_finding

_ARROWS = {"c2s": "C→S", "s2c": "S→C", None: "   "}


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _by_severity(counts: dict[Severity, int]) -> str:
    return ", ".join(f"{counts[s]} {s.value}" if s is Severity.INFO else _plural(counts[s], s.value)
                     for s in Severity if counts.get(s))


def summary_line(findings, summary) -> str:
    """The last line of the text formats: what was found where, and what was left out."""
    files = _plural(summary.files, "file")
    sessions = _plural(summary.session_count(), "session")
    if findings:
        line = (f"Found {_plural(len(findings), 'finding')} ({_by_severity(summary.counts(findings))}) "
                f"in {files}, {sessions}.")
    elif summary.hidden_failing():
        line = f"No findings shown in {files}, {sessions}."
    else:
        line = f"All checks passed: {files}, {sessions}, {_plural(summary.records, 'record')}."
    hidden = sum(summary.hidden.values())
    failing = summary.hidden_failing()
    if failing:
        line += (f" {_plural(hidden, 'finding')} ({_by_severity(summary.hidden)}) hidden by --min-severity, "
                 f"{failing} of them at or above --fail-on {summary.fail_on.value}: the run fails.")
    if summary.skipped:
        n = len(summary.skipped)
        line += f" Skipped {n} file{' that is not an MCP capture' if n == 1 else 's that are not MCP captures'}."
    return line


def full(findings, summary, out, color: bool = False, quiet: bool = False) -> None:
    style = styler(color)
    findings = [shown_finding(f) for f in findings]
    infos = _named_sessions(findings, summary)
    # what does not depend on the finding, styled once
    severities = {s: style(f"{s.value:<7}", fg=SEVERITY_COLORS[s.value], bold=True) for s in Severity}
    heuristic, codes = style(" (heuristic)", dim=True), {}
    pad = " " * 14
    bar, also = f"{pad}{style('│', dim=True)}", f"{pad}{style('↳', dim=True)}"
    spec, help_ = f"{pad}{style('spec:', dim=True)}", f"{pad}{style('help:', fg='green')}"
    for (path, session), group in groupby(findings, key=lambda f: (f.path, f.session)):
        info = infos.get((path, session))
        facts = []
        if info is not None:
            facts.append(shown(mask_field(info.version)) or "version unknown")
            if info.era == "modern":
                facts.append("stateless")
        header = f"{path} — session {session}" if session else path
        if facts:
            header += f" ({', '.join(facts)})"
        out.write(style(header, bold=True) + "\n")
        for f in group:
            arrow = _ARROWS.get(f.direction, "   ") + ("?" if f.direction_inferred else " ")
            subject = ""
            if f.method:
                subject = f" [{f.method}" + (f" #{_id_text(f.id)}" if f.id is not None else "") + "]"
            code = codes.get(f.code) or codes.setdefault(f.code, style(f.code, bold=True))
            lines = [f"{f.line:>5}  {arrow}  {severities[f.severity]} {code} {f.message}{subject}"
                     f"{heuristic if f.confidence == 'low' else ''}\n"]
            if f.excerpt:
                lines.append(f"{bar} {f.excerpt}\n")
            for rel in f.related:
                lines.append(f"{also} line {rel.line}: {rel.note}\n")
            fault = f" · fault: {f.party}" if f.party else ""
            lines.append(f"{spec} {f.spec}{fault}\n")
            if f.hint:
                lines.append(f"{help_} {f.hint}\n")
            out.write("".join(lines))
        out.write("\n")
    _footer(findings, summary, out, style, quiet)


def _named_sessions(findings, summary) -> dict:
    """The summary's sessions that ``findings`` name, by (path, session) as findings show them
    (masked: :mod:`mcplint.excerpt`). Only these are kept: a 1 GB tee has 170,000 sessions."""
    wanted = {(f.path, f.session) for f in findings}
    paths = {path for path, _ in wanted}
    infos = {}
    for path, sessions in summary.sessions.items():
        path = shown(path)
        if path in paths:
            for session in sessions:
                key = (path, shown(mask_session(session.label)))
                if key in wanted:
                    infos[key] = session
    return infos


def _id_text(value) -> str:
    """:func:`fmt_id`; an integer's text without a call to orjson."""
    return str(value) if type(value) is int else fmt_id(value)


def _footer(findings, summary, out, style, quiet: bool) -> None:
    if not quiet:
        out.write(style(summary_line(findings, summary), bold=True) + "\n")


def _severity(f, style) -> str:
    return style(f.severity.value, fg=SEVERITY_COLORS[f.severity.value], bold=True)


def concise(findings, summary, out, color: bool = False, quiet: bool = False) -> None:
    style = styler(color)
    findings = [shown_finding(f) for f in findings]
    for f in findings:
        out.write(f"{style(f.path, bold=True)}:{f.line}: {style(f.code, bold=True)} [{_severity(f, style)}] "
                  f"{f.message}\n")
    _footer(findings, summary, out, style, quiet)


def grouped(findings, summary, out, color: bool = False, quiet: bool = False) -> None:
    """One table per file: line, direction, severity, code and message."""
    # (imported by the formats that draw tables: start-up)
    from tabulate import tabulate

    style = styler(color)
    findings = [shown_finding(f) for f in findings]
    for path, group in groupby(findings, key=lambda f: f.path):
        rows = [(f.line, _ARROWS.get(f.direction, "") + ("?" if f.direction_inferred else ""),
                 _severity(f, style), f.code, f.message + (" (heuristic)" if f.confidence == "low" else ""))
                for f in group]
        out.write(style(f"{path}:", bold=True) + "\n")
        out.write(tabulate(rows, headers=["line", "dir", "severity", "code", "message"], tablefmt="simple"))
        out.write("\n\n")
    _footer(findings, summary, out, style, quiet)


def statistics_rows(findings) -> list[dict]:
    """Counts per rule and severity as reported (a rule may report at several severities),
    most frequent first."""
    counts: dict[tuple[str, str, Severity], int] = {}
    for f in findings:
        key = (f.code, f.name, f.severity)
        counts[key] = counts.get(key, 0) + 1
    rows = [{"code": code, "name": name, "severity": severity.value, "count": n}
            for (code, name, severity), n in counts.items()]
    return sorted(rows, key=lambda r: (-r["count"], r["code"], r["severity"]))


def statistics(findings, summary, out, color: bool = False, quiet: bool = False) -> None:
    """Counts per rule and severity, then the summary line."""
    style = styler(color)
    rows = [(r["count"], style(r["code"], bold=True), r["name"],
             style(r["severity"], fg=SEVERITY_COLORS[r["severity"]], bold=True))
            for r in statistics_rows(findings)]
    if rows:
        from tabulate import tabulate

        out.write(tabulate(rows, headers=["count", "code", "name", "severity"], tablefmt="simple"))
        out.write("\n")
    _footer(findings, summary, out, style, quiet)


def statistics_json(findings, summary, out) -> None:
    """``--statistics --output-format json``: the same rows as a JSON array."""
    out.write(json_text(statistics_rows(findings), indent=True) + "\n")

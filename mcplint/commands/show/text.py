"""``mcplint show`` as text: the timeline table with a header per session, the same in GitHub
Markdown (for an issue report), and whole messages (``--line``, ``--id``).

Capture text reaches the output through :mod:`mcplint.untrusted` only: ``shown`` in the terminal,
``markdown_text`` / ``markdown_code`` / ``markdown_fence`` in Markdown."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

from tabulate import tabulate

from mcplint.commands.show.timeline import Row, SessionHeader, fmt_latency
from mcplint.excerpt import shorten
from mcplint.report.terminal import SEVERITY_COLORS, styler
from mcplint.untrusted import markdown_code, markdown_fence, markdown_text, shown, shown_lines

#: Table cells are cut to these widths, as shown (the whole text is one ``--line`` away).
ID_WIDTH, LABEL_WIDTH, DETAIL_WIDTH, INSTRUCTIONS_WIDTH = 24, 44, 36, 100
SEVERITIES = ("error", "warning", "info")


def _clock(t: float | None) -> str:
    if t is None:
        return ""
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 or noun == "info" else "s")


def _capabilities(caps: dict | None) -> str:
    """``tools (listChanged), resources (subscribe, listChanged), logging``."""
    if not caps:
        return "none" if caps == {} else "?"
    parts = []
    for name, value in caps.items():
        flags = [k for k, v in value.items() if v] if isinstance(value, dict) else []
        parts.append(f"{name} ({', '.join(flags)})" if flags else name)
    return ", ".join(parts)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 60:
        return fmt_latency(seconds)
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min {rest} s"


def header_facts(header: SessionHeader) -> list[tuple[str, str]]:
    """The session header as (name, value) pairs of raw text (masked, not yet made safe)."""
    facts = [("client", header.client or "?"), ("server", header.server or "?")] \
        if header.client or header.server else []
    revisions = {header.requested_revision, header.negotiated_revision} - {None}
    if len(revisions) == 1:
        facts.append(("revision", revisions.pop()))
    elif revisions:
        facts.append(("revision", f"requested {header.requested_revision or '?'}, "
                                  f"negotiated {header.negotiated_revision or '?'}"))
    if header.client_capabilities is not None:
        facts.append(("client capabilities", _capabilities(header.client_capabilities)))
    if header.server_capabilities is not None:
        facts.append(("server capabilities", _capabilities(header.server_capabilities)))
    if header.instructions:
        facts.append(("instructions", shorten(shown(header.instructions), INSTRUCTIONS_WIDTH)))
    traffic = [_count(header.requests, "request"), _count(header.responses, "response")
               + (f" ({_count(header.errors, 'error')})" if header.errors else ""),
               _count(header.notifications, "notification")]
    if header.stderr:
        traffic.append(_count(header.stderr, "stderr line"))
    if header.text:
        traffic.append(_count(header.text, "non-JSON line"))
    if not (header.requests or header.responses or header.notifications):
        traffic[:3] = ["no JSON-RPC messages"]
    facts.append(("traffic", ", ".join(traffic) + (f" in {_duration(header.duration)}" if header.duration is not None
                                                   else "")
                  + (f" over {header.transport}" if header.transport else "")))
    found = [_count(header.findings[s], s) for s in SEVERITIES if header.findings.get(s)]
    facts.append(("findings", ", ".join(found) if found else "none"))
    return facts


def _severities(header: SessionHeader, style: Callable[..., str]) -> str:
    """The findings line of a header, each severity in its colour."""
    found = [style(_count(header.findings[s], s), fg=SEVERITY_COLORS[s], bold=True)
             for s in SEVERITIES if header.findings.get(s)]
    return ", ".join(found) if found else "none"


def sessions(rows: list[Row]) -> list[tuple[tuple[str, str], list[Row]]]:
    """The rows by session (sessions in the order they first appear, rows in capture order)."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.path, row.session), []).append(row)
    return list(groups.items())


def _pair(row: Row) -> str:
    return f"→{row.answered_at}" if row.answered_at else (f"←{row.answers}" if row.answers else "")


def _cells(rows: list[Row], codes: Callable[[Row], str], text: Callable[[str], str], http: bool) -> list[list]:
    out, previous = [], None
    for row in rows:
        delta = f"+{_duration(row.t - previous)}" if row.t is not None and previous is not None else ""
        previous = row.t if row.t is not None else previous
        cells = [row.line, _clock(row.t), delta, row.arrow, text(shorten(shown(row.id_text), ID_WIDTH)),
                 text(shorten(shown(row.label or row.method or row.kind), LABEL_WIDTH)),
                 text(shorten(shown(row.detail or row.status), DETAIL_WIDTH)), _pair(row), fmt_latency(row.latency)]
        if http:
            cells.append("" if row.http_status is None else row.http_status)
        out.append(cells + [codes(row)])
    return out


_COLUMNS = ("line", "time", "Δt", "dir", "id", "what", "outcome", "pair", "latency")


def table(rows: list[Row], headers: dict[tuple[str, str], SessionHeader] | None = None,
          color: bool = False) -> str:
    """Per session: its header, then its rows (``headers`` None or empty: the rows alone)."""
    style = styler(color)
    http = any(row.http_status is not None for row in rows)
    columns = [style(h, bold=True) for h in (*_COLUMNS, *(("http",) if http else ()), "findings")]

    def codes(row: Row) -> str:
        return ",".join(style(f.code, fg=SEVERITY_COLORS[f.severity.value], bold=True) for f in row.findings)

    if not headers:
        return tabulate(_cells(rows, codes, shown, http), headers=columns, tablefmt="simple")
    blocks = []
    for key, group in sessions(rows):
        header = headers.get(key)
        lines = [style(f"{shown(key[0])} · session {shown(key[1])}", bold=True)]
        if header is not None:
            width = max(len(name) for name, _ in header_facts(header))
            lines += [f"  {name:<{width}}  " + (_severities(header, style) if name == "findings" else shown(value))
                      for name, value in header_facts(header)]
        lines += ["", tabulate(_cells(group, codes, shown, http), headers=columns, tablefmt="simple")]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def markdown(rows: list[Row], headers: dict[tuple[str, str], SessionHeader]) -> str:
    """The header and table of each session in GitHub Markdown, with its findings listed below."""
    http = any(row.http_status is not None for row in rows)
    names = [*_COLUMNS, *(("http",) if http else ()), "findings"]
    blocks = ["## mcplint show", ""]
    for key, group in sessions(rows):
        blocks += [f"### {markdown_code(key[0])} · session {markdown_code(key[1])}", ""]
        header = headers.get(key)
        if header is not None:
            blocks += [f"- **{name}:** {markdown_text(value)}" for name, value in header_facts(header)]
            blocks.append("")
        blocks += ["| " + " | ".join(names) + " |",
                   "|" + "|".join("---:" if n in ("line", "latency", "http") else "---" for n in names) + "|"]
        for cells in _cells(group, lambda row: ", ".join(f.code for f in row.findings), markdown_code, http):
            blocks.append("| " + " | ".join(str(c) for c in cells) + " |")
        found = [(row, f) for row in group for f in row.findings]
        if found:
            blocks += ["", "Findings:", ""]
            blocks += [f"- line {row.line}: **{f.severity.value} {f.code}** {markdown_text(f.message)}"
                       + (f" ([spec]({f.spec_url}))" if f.spec_url else "") for row, f in found]  # ours
        blocks.append("")
    blocks.append("_Generated by mcplint; values that look like secrets are redacted._")
    return "\n".join(blocks)


def _title(row: Row) -> str:
    what = " ".join(p for p in (row.arrow, row.kind if row.kind != "http" else "", row.label) if p)
    facts = [f"{row.path}:{row.line}", f"session {row.session}", what]
    if row.id is not None:
        facts.append(f"id {row.id_text}")
    if row.answered_at:
        facts.append(f"answered at line {row.answered_at}")
    if row.answers:
        facts.append(f"answers line {row.answers}")
    if row.latency is not None:
        facts.append(fmt_latency(row.latency))
    if row.http_status is not None:
        facts.append(f"HTTP {row.http_status}")
    if row.detail and row.detail != f"HTTP {row.http_status}":
        facts.append(row.detail)
    return " · ".join(facts)


def _finding_lines(row: Row) -> list[str]:
    out = []
    for f in row.findings:
        out.append(f"{f.severity.value} {f.code} {f.name}: {f.message}")
        if f.hint:
            out.append(f"  hint: {f.hint}")
        out += [f"  line {r.line}: {r.note}" for r in f.related]
        if f.spec or f.spec_url:
            out.append(f"  spec: {' '.join(p for p in (f.spec, f.spec_url) if p)}")
    return out


def whole(rows: list[Row], color: bool = False) -> str:
    """Each row's whole message (masked, pretty-printed) under a title line, its findings below."""
    style = styler(color)
    blocks = []
    for row in rows:
        lines = [style(shown(_title(row)), bold=True)]
        lines.append(shown_lines(row.message) if row.message is not None else shown(row.excerpt))
        for text in _finding_lines(row):
            severity = text.split(" ", 1)[0]
            lines.append(style(shown(text), fg=SEVERITY_COLORS[severity], bold=True)
                         if severity in SEVERITY_COLORS else shown(text))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def whole_markdown(rows: list[Row]) -> str:
    """:func:`whole` in GitHub Markdown: a heading per row, the message in a fenced JSON block."""
    blocks = []
    for row in rows:
        block = [f"#### {markdown_text(_title(row))}", ""]
        block.append(markdown_fence(row.message, "json") if row.message is not None else markdown_fence(row.excerpt))
        if row.findings:
            block.append("")
            block += [f"- {markdown_text(text.strip())}" for text in _finding_lines(row)]
        blocks.append("\n".join(block))
    return "\n\n".join(blocks)

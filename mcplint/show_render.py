"""Renderers for ``mcplint show``: table, Mermaid sequence diagram, self-contained HTML.

What a row holds from the capture reaches the output through :mod:`mcplint.untrusted` only:
``shown`` in the table and the diagram, ``html_text`` in the HTML report."""

from __future__ import annotations

import textwrap
from datetime import datetime, timezone

from tabulate import tabulate

from mcplint import __version__
from mcplint.show import ARROW, Row, fmt_latency
from mcplint.terminal import SEVERITY_COLORS, styler
from mcplint.untrusted import html_text, shown

#: Rows drawn in diagrams at most (tables have no limit).
MAX_DIAGRAM_ROWS = 400


def _clock(t: float | None) -> str:
    if t is None:
        return ""
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]


def table(rows: list[Row], color: bool = False) -> str:
    style = styler(color)
    out, previous = [], None
    for row in rows:
        delta = f"+{fmt_latency(row.t - previous)}" if row.t is not None and previous is not None else ""
        previous = row.t if row.t is not None else previous
        codes = ",".join(style(f.code, fg=SEVERITY_COLORS[f.severity.value], bold=True) for f in row.findings)
        pair = f"→{row.answered_at}" if row.answered_at else (f"←{row.answers}" if row.answers else "")
        out.append((row.line, _clock(row.t), delta, ARROW.get(row.direction, ""), shown(row.id_text),
                    shown(row.method or row.kind), shown(row.status), pair, fmt_latency(row.latency), codes))
    headers = [style(h, bold=True) for h in ("line", "time", "Δt", "dir", "id", "method", "status", "pair",
                                             "latency", "findings")]
    return tabulate(out, headers=headers, tablefmt="simple")


# what ends or escapes a statement (; #), and markup: Mermaid may render a label as HTML
_MERMAID_ESCAPES = str.maketrans({ch: f"#{ord(ch)};" for ch in "#;<>&\"'`"})
#: Mermaid notes: characters per line (``<br/>`` breaks them), lines at most.
NOTE_WIDTH, NOTE_LINES = 60, 6
_MARKS = {"error": "⛔", "warning": "⚠", "info": "ℹ"}
_TEXT_KINDS = ("stderr", "text", "malformed")


def _mermaid_text(text: str, limit: int = 120) -> str:
    """:func:`~mcplint.untrusted.shown` text (one line, no control or bidi character), cut to
    ``limit`` characters, with Mermaid entity codes for the characters that end a statement or make markup."""
    return shown(text)[:limit].translate(_MERMAID_ESCAPES)


def _mermaid_note(text: str) -> str:
    """Note text wrapped at :data:`NOTE_WIDTH` with Mermaid's ``<br/>`` (our only markup: every
    piece of capture text goes through :func:`_mermaid_text`), at most :data:`NOTE_LINES` lines."""
    pieces = textwrap.wrap(shown(text), NOTE_WIDTH, break_long_words=True, break_on_hyphens=False) or [""]
    if len(pieces) > NOTE_LINES:
        pieces = pieces[:NOTE_LINES - 1] + [pieces[NOTE_LINES - 1][:NOTE_WIDTH - 1] + "…"]
    return "<br/>".join(_mermaid_text(piece, NOTE_WIDTH) for piece in pieces)


def _label(row: Row) -> str:
    label = getattr(row, "label", "") or row.method or row.kind  # Row.label: method and subject
    return f"{label} #{row.id_text}" if row.id is not None else label


def _inferred(row: Row) -> bool:
    return bool(getattr(row, "inferred", False))


def mermaid(rows: list[Row]) -> str:
    """A Mermaid sequence diagram: messages as arrows (``?`` after the arrow's label when the
    direction was inferred, unless every direction was), stderr and other non-message lines as
    grey ``rect`` notes beside their side, findings as ``Note over C,S`` with a severity mark."""
    drawn = rows[:MAX_DIAGRAM_ROWS]
    lines = ["sequenceDiagram", "    participant C as Client", "    participant S as Server"]
    messages = [r for r in drawn if r.kind not in _TEXT_KINDS and r.kind != "finding"]
    all_inferred = bool(messages) and all(_inferred(r) for r in messages)
    if all_inferred:
        lines.append("    Note over C,S: directions inferred (the capture does not record them)")
    in_rect = False
    for row in drawn:
        text_row = row.kind in _TEXT_KINDS
        if in_rect and not text_row:
            lines.append("    end")
            in_rect = False
        guess = " (direction?)" if _inferred(row) and not all_inferred else ""
        label = _label(row)
        if row.kind == "request":
            arrow = "C->>S" if row.direction == "c2s" else "S->>C"
            lines.append(f"    {arrow}: {_mermaid_text(label)}{guess}")
        elif row.kind in ("result", "error"):
            arrow = "S-->>C" if row.direction == "s2c" else "C-->>S"
            outcome = getattr(row, "detail", "") or row.status
            extra = f" {outcome}" + (f" ({fmt_latency(row.latency)})" if row.latency is not None else "")
            lines.append(f"    {arrow}: {_mermaid_text(label + extra)}{guess}")
        elif row.kind == "notification":
            arrow = "C-)S" if row.direction == "c2s" else "S-)C"
            lines.append(f"    {arrow}: {_mermaid_text(label)}{guess}")
        elif row.kind == "http":  # an HTTP exchange without a message: its request line and status
            outcome = getattr(row, "detail", "") or row.status
            lines.append(f"    C->>S: {_mermaid_text(f'{label} → {outcome}' if outcome else label)}")
        elif text_row:
            if not in_rect:
                lines.append("    rect rgb(238, 238, 238)")
                in_rect = True
            side = "left of C" if row.direction == "c2s" else "right of S"
            lines.append(f"    Note {side}: {_mermaid_note(f'{row.kind}: {row.excerpt}')}")
        for finding in row.findings:
            mark = _MARKS.get(finding.severity.value, "")
            lines.append(f"    Note over C,S: {mark} {_mermaid_note(f'{finding.severity.value} {finding.code} line {row.line}: {finding.message}')}")
    if in_rect:
        lines.append("    end")
    if len(rows) > MAX_DIAGRAM_ROWS:
        lines.append(f"    Note over C,S: {len(rows) - MAX_DIAGRAM_ROWS} more lines not drawn")
    return "\n".join(lines)


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#1b1f24}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.85em}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left}
tr:target,li:target{background:#fff3c4}.error{color:#b42318}.warning{color:#b54708}.info{color:#175cd3}
code{font-size:.95em}svg text{font-family:ui-monospace,monospace;font-size:11px}
.lane{stroke:#98a2b3;stroke-dasharray:4 3}.msg{stroke:#344054;marker-end:url(#head)}.reply{stroke-dasharray:5 3}
"""


def _svg(rows: list[Row]) -> str:
    drawn = [r for r in rows if r.kind in ("request", "result", "error", "notification", "text", "malformed",
                                            "stderr")][:MAX_DIAGRAM_ROWS]
    step, left, right, width = 26, 140, 620, 760
    height = 60 + step * len(drawn)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="sequence diagram">',
             '<defs><marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
             '<path d="M0,0 L8,4 L0,8 z" fill="#344054"/></marker></defs>',
             f'<text x="{left}" y="20" text-anchor="middle" font-weight="bold">Client</text>',
             f'<text x="{right}" y="20" text-anchor="middle" font-weight="bold">Server</text>',
             f'<line class="lane" x1="{left}" y1="28" x2="{left}" y2="{height}"/>',
             f'<line class="lane" x1="{right}" y1="28" x2="{right}" y2="{height}"/>']
    for i, row in enumerate(drawn):
        y = 50 + i * step
        label = html_text(f"{row.method or row.kind}" + (f" #{row.id_text}" if row.id is not None else "")
                          + (f" {row.status}" if row.kind in ("result", "error") else "")
                          + (f" ({fmt_latency(row.latency)})" if row.latency is not None and row.kind != "request" else ""))
        mark = "".join(f" ⚠{f.code}" for f in row.findings)
        link = f'<a href="#L{row.line}"><text x="8" y="{y + 4}">{row.line}</text></a>'
        if row.kind in ("text", "malformed", "stderr"):
            x = right if row.direction != "c2s" else left
            parts.append(f'{link}<text x="{x}" y="{y + 4}" text-anchor="middle" fill="#667085">'
                         f'{html_text(row.kind)}{html_text(mark)}</text>')
            continue
        start, end = (left, right) if row.direction == "c2s" else (right, left)
        css = "msg reply" if row.kind in ("result", "error") else "msg"
        parts.append(f'{link}<line class="{css}" x1="{start}" y1="{y}" x2="{end}" y2="{y}"/>'
                     f'<text x="{(left + right) / 2}" y="{y - 4}" text-anchor="middle">{label}'
                     f'<tspan fill="#b42318">{html_text(mark)}</tspan></text>')
    parts.append("</svg>")
    return "".join(parts)


def html_report(rows: list[Row], findings, title: str) -> str:
    finding_index = {id(f): i for i, f in enumerate(findings)}
    body = [f"<h1>mcplint report: {html_text(title)}</h1>",
            f"<p>{len(rows)} lines, {len(findings)} finding(s). Generated by mcplint {__version__}; "
            "secrets in excerpts are masked.</p>",
            "<h2>Findings</h2>"]
    if findings:
        body.append("<ol>")
        for i, f in enumerate(findings):
            body.append(f'<li id="F{i}"><a href="#L{f.line}">line {f.line}</a> '
                        f'<b class="{f.severity.value}">{f.severity.value} {f.code}</b> {html_text(f.message)}'
                        f' <small>({html_text(f.spec or "")}; fault: {html_text(f.party or "?")})</small></li>')
        body.append("</ol>")
    else:
        body.append("<p>No findings.</p>")
    body.append("<h2>Sequence diagram</h2>")
    body.append(_svg(rows))
    body.append("<h2>Timeline</h2><table><tr><th>line</th><th>time</th><th>dir</th><th>id</th><th>method</th>"
                "<th>status</th><th>latency</th><th>findings</th><th>excerpt</th></tr>")
    for row in rows:
        links = " ".join(f'<a class="{f.severity.value}" href="#F{finding_index[id(f)]}">{f.code}</a>'
                         for f in row.findings if id(f) in finding_index)
        body.append(f'<tr id="L{row.line}"><td>{row.line}</td><td>{_clock(row.t)}</td>'
                    f'<td>{ARROW.get(row.direction, "")}</td><td>{html_text(row.id_text)}</td>'
                    f'<td>{html_text(row.method or row.kind)}</td><td>{html_text(row.status)}</td>'
                    f'<td>{fmt_latency(row.latency)}</td><td>{links}</td>'
                    f'<td><code>{html_text(row.excerpt)}</code></td></tr>')
    body.append("</table>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>mcplint: {html_text(title)}</title><style>{_CSS}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")

"""``mcplint show --output-format html``: one self-contained page (no script, no external resource).

A section per file, a card per session (who talked, which revision, capabilities, counts), then
the session's rows: each row says what happened (label, direction, detail, latency, HTTP status)
and expands (``<details>``) to the whole message; each finding sits under its row with its hint,
related lines and spec link. Anchors are file-qualified (``Row.anchor``), so links never jump to
another file's line.

Everything taken from the capture (and file names) reaches the page through
:func:`mcplint.untrusted.html_text`; it was masked when the row or header was made.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable

import orjson

from mcplint import __version__
from mcplint.commands.show.mermaid import _clock
from mcplint.commands.show.timeline import ARROW, Row, fmt_latency
from mcplint.untrusted import html_text

#: Rows drawn in a session's sequence diagram at most.
MAX_DIAGRAM_ROWS = 400
#: A file's list of findings starts open up to this many (each finding also sits under its row).
MAX_OPEN_OVERVIEW = 30
#: Characters of a label drawn in the diagram.
DIAGRAM_LABEL = 64
_SEVERITIES = ("error", "warning", "info")
_DRAWN = ("request", "result", "error", "notification", "text", "malformed", "stderr")


def _lines(text: str) -> str:
    """Multi-line capture text (a pretty-printed message): each line through ``html_text``."""
    return "\n".join(html_text(line) for line in text.split("\n"))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _direction(row: Row) -> str:
    arrow = ARROW.get(row.direction, "")
    return arrow + "?" if arrow and row.inferred else arrow


def _label(row: Row) -> str:
    return row.label or row.method or row.kind


def _severity_counts(counts: Counter | dict) -> str:
    parts = [f'<span class="sev {s}">{_plural(counts[s], s) if s != "info" else f"{counts[s]} info"}</span>'
             for s in _SEVERITIES if counts.get(s)]
    return " ".join(parts) if parts else '<span class="none">no findings</span>'


class _Page:
    """Ids for one page: file sections, sessions, rows (file-qualified) and findings."""

    def __init__(self, rows: list[Row], findings: Iterable) -> None:
        self.files: dict[str, dict[Any, list[Row]]] = {}
        for row in rows:
            self.files.setdefault(row.path, {}).setdefault(row.session, []).append(row)
        self.file_ids = {path: f"file-{i}" for i, path in enumerate(self.files)}
        self.anchor: dict[int, str] = {}
        self.at_line: dict[tuple[str, int], list[str]] = {}
        taken: set[str] = set()
        for path, sessions in self.files.items():
            prefix = f"f{list(self.files).index(path)}"
            for session_rows in sessions.values():
                for row in session_rows:
                    anchor = row.anchor or f"{prefix}-L{row.line}"
                    base, n = anchor, 1
                    while anchor in taken:  # the collector's anchors are unique; rows made elsewhere may have none
                        n += 1
                        anchor = f"{base}-{n}"
                    taken.add(anchor)
                    self.anchor[id(row)] = anchor
                    self.at_line.setdefault((path, row.line), []).append(anchor)
        on_rows = {id(f) for row in rows for f in row.findings}
        self.loose: dict[str, list] = {}  # findings on no row, by file
        for finding in findings:
            if id(finding) not in on_rows:
                self.loose.setdefault(finding.path, []).append(finding)
                if finding.path not in self.files:
                    self.files[finding.path] = {}
                    self.file_ids[finding.path] = f"file-{len(self.file_ids)}"
        self.finding_id: dict[int, str] = {}  # file-qualified: {file id}-F{n}
        for path, sessions in self.files.items():
            in_file = [f for session_rows in sessions.values() for row in session_rows for f in row.findings]
            for n, finding in enumerate(in_file + self.loose.get(path, [])):
                self.finding_id[id(finding)] = f"{self.file_ids[path]}-F{n}"

    def line_link(self, path: str, line: int, text: str | None = None, avoid: str | None = None) -> str:
        """A link to the row of ``line`` in ``path`` (not ``avoid``), or plain text if it is not on the page."""
        text = text if text is not None else f"line {line}"
        anchors = [a for a in self.at_line.get((path, line), ()) if a != avoid]
        return f'<a href="#{anchors[0]}">{html_text(text)}</a>' if anchors else html_text(text)


def html_report(rows: list[Row], findings: Iterable = (), title: str = "", headers: dict | None = None) -> str:
    """The page for ``rows`` (with their findings attached). ``findings`` that are on no row get a
    list of their own under their file, so that nothing ``check`` reports is missing;
    ``headers``: the collector's ``SessionHeader`` per ``(path, session)``."""
    page = _Page(rows, findings)
    loose = page.loose
    headers = headers or {}

    all_findings = [f for row in rows for f in row.findings] + [f for fs in loose.values() for f in fs]
    sessions_total = sum(len(s) for s in page.files.values())
    body = [f'<header><h1>mcplint show <span class="title">{html_text(title)}</span></h1>',
            f'<p class="summary">{_plural(len(page.files), "file")}, {_plural(sessions_total, "session")}, '
            f'{_plural(len(rows), "row")}; {_severity_counts(Counter(f.severity.value for f in all_findings))}.'
            f' <span class="muted">mcplint {html_text(__version__)}. Secrets and personal data are masked;'
            ' select a row to see its whole message.</span></p></header>']
    body.append(_toc(page, headers, loose))
    for path, sessions in page.files.items():
        body.append(_file_section(page, path, sessions, headers, loose.get(path, [])))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="color-scheme" content="light dark">'
            f"<title>mcplint: {html_text(title)}</title><style>{_CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _session_name(session: Any) -> str:
    return f"session {session}" if session not in (None, "") else "session"


def _toc(page: _Page, headers: dict, loose: dict) -> str:
    many = ' class="many"' if len(page.files) > 6 else ""  # two columns on a wide window
    out = [f'<nav class="toc"><h2>Contents</h2><ol{many}>']
    for path, sessions in page.files.items():
        fid = page.file_ids[path]
        counts = Counter(f.severity.value for rows in sessions.values() for r in rows for f in r.findings)
        counts.update(f.severity.value for f in loose.get(path, ()))
        out.append(f'<li><a href="#{fid}" class="file">{html_text(path)}</a> {_severity_counts(counts)}<ol>')
        for k, (session, rows) in enumerate(sessions.items()):
            header = headers.get((path, session))
            who = _who(header)
            scount = Counter(f.severity.value for r in rows for f in r.findings)
            out.append(f'<li><a href="#{fid}-s{k}">{html_text(_session_name(session))}</a>'
                       f'{" · " + who if who else ""} · {_plural(len(rows), "row")} {_severity_counts(scount)}</li>')
        out.append("</ol></li>")
    out.append("</ol></nav>")
    return "".join(out)


def _who(header) -> str:
    """``client → server`` of a session header (HTML), or nothing."""
    if header is None:
        return ""
    if not header.client and not header.server:
        return ""
    return f"{html_text(header.client or '?')} → {html_text(header.server or '?')}"


def _file_section(page: _Page, path: str, sessions: dict, headers: dict, loose: list) -> str:
    fid = page.file_ids[path]
    file_findings = [f for rows in sessions.values() for r in rows for f in r.findings] + loose
    out = [f'<section class="file" id="{fid}"><h2>{html_text(path)}</h2>']
    if file_findings:
        opened = " open" if len(file_findings) <= MAX_OPEN_OVERVIEW else ""
        out.append(f'<details class="overview"{opened}><summary>{_plural(len(file_findings), "finding")} in this file'
                   '</summary><ol class="overview">')
        for finding in sorted(file_findings, key=lambda f: (f.line, f.code)):
            sev = finding.severity.value
            out.append(f'<li><a href="#{page.finding_id[id(finding)]}">line {finding.line}</a> '
                       f'<span class="badge {sev}">{sev}</span> '
                       f'<strong class="code">{html_text(finding.code)}</strong> '
                       f'{html_text(finding.message)}</li>')
        out.append("</ol></details>")
    for k, (session, rows) in enumerate(sessions.items()):
        out.append(_session_section(page, path, f"{fid}-s{k}", session, rows, headers.get((path, session))))
    if loose:
        out.append('<h3>Findings without a row on this page</h3><ol class="findings">')
        out.extend(_finding(page, f) for f in loose)
        out.append("</ol>")
    out.append("</section>")
    return "\n".join(out)


_KIND_COUNTS = (("request", "requests"), ("result", "results"), ("error", "errors"),
                ("notification", "notifications"), ("stderr", "stderr lines"), ("text", "text lines"),
                ("malformed", "malformed lines"), ("finding", "finding rows"))


def _session_section(page: _Page, path: str, sid: str, session, rows: list[Row], header) -> str:
    out = [f'<section class="session" id="{sid}">', _card(path, session, rows, header)]
    drawn = [r for r in rows if r.kind in _DRAWN]
    if drawn:
        out.append(f'<details class="diagram"><summary>Sequence diagram ({_plural(len(drawn), "message")})'
                   f'</summary>{_svg(page, drawn)}</details>')
    out.append(f'<div class="{_columns(rows)}" role="table" aria-label="messages">'
               '<div class="cells head" role="row"><span>line</span><span class="t">time</span><span>dir</span>'
               '<span>id</span><span>what</span><span>outcome</span><span>latency</span><span class="http">HTTP</span>'
               '<span>findings</span></div>')
    out.extend(_row(page, row) for row in rows)
    out.append("</div></section>")
    return "\n".join(out)


def _columns(rows: list[Row]) -> str:
    """The class of a session's rows: no time or HTTP column where no row has one."""
    classes = ["rows"]
    if all(r.t is None for r in rows):
        classes.append("no-time")
    if all(r.http_status is None for r in rows):
        classes.append("no-http")
    return " ".join(classes)


def _card(path: str, session, rows: list[Row], header) -> str:
    """The session header: who talked, which revision, capabilities, counts, findings."""
    facts: list[tuple[str, str]] = []
    who = _who(header)
    if who:
        facts.append(("client → server", who))
    if header is not None:
        requested, negotiated = header.requested_revision, header.negotiated_revision
        if requested or negotiated:
            text = html_text(requested or "?")
            if negotiated and negotiated != requested:
                text += f" → {html_text(negotiated)}"
            elif negotiated:
                text += " (agreed)"
            facts.append(("revision", text))
        if header.transport:
            facts.append(("transport", html_text(header.transport)))
    first, last = (header.first_t, header.last_t) if header is not None else (None, None)
    if first is None or last is None:
        times = [r.t for r in rows if r.t is not None]
        first, last = (min(times), max(times)) if times else (None, None)
    if first is not None:
        facts.append(("time", f"{_clock(first)} – {_clock(last)} UTC ({fmt_latency(last - first) or '0 ms'})"))
    facts.append(("messages", _counts(header, rows)))
    by_severity = header.findings if header is not None else Counter(
        f.severity.value for r in rows for f in r.findings)
    facts.append(("findings", _severity_counts(by_severity)))
    if header is not None:
        for side in ("client", "server"):
            caps = header.client_capabilities if side == "client" else header.server_capabilities
            if isinstance(caps, dict):
                facts.append((f"{side} capabilities", _capabilities(caps)))
        if header.instructions:
            facts.append(("instructions", _long_text(str(header.instructions))))
    wide = ("client capabilities", "server capabilities", "instructions")
    dl = "".join(f'<div class="fact{" wide" if name in wide else ""}"><dt>{name}</dt><dd>{value}</dd></div>'
                 for name, value in facts)
    name = re.split(r"[\\/]", path)[-1] or path  # the section above names the whole path
    return (f'<div class="card"><h3>{html_text(_session_name(session))} '
            f'<span class="muted">in {html_text(name)}</span></h3><dl>{dl}</dl></div>')


def _counts(header, rows: list[Row]) -> str:
    """The session's message counts: the header's (whole session), else the rows shown."""
    if header is not None:
        counts = [(header.requests, "request"), (header.responses, "response"), (header.errors, "error response"),
                  (header.notifications, "notification"), (header.stderr, "stderr line"),
                  (header.text, "non-JSON line")]
        return ", ".join(_plural(n, word) for n, word in counts if n) or "none"
    kinds = Counter(r.kind for r in rows)
    return ", ".join(f"{kinds[k]} {word if kinds[k] != 1 else word.rstrip('s')}"
                     for k, word in _KIND_COUNTS if kinds.get(k)) or "none"


def _capabilities(caps: dict) -> str:
    if not caps:
        return '<span class="muted">none</span>'
    names = []
    for name, value in caps.items():
        flags = [k for k, v in value.items() if v is True] if isinstance(value, dict) else []
        names.append(f'<code>{html_text(name)}</code>' + (f" ({html_text(', '.join(flags))})" if flags else ""))
    return " ".join(names) + (f'<details class="json"><summary>JSON</summary><pre>{_lines(_json(caps))}</pre>'
                              '</details>')


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2, default=str).decode()
    except TypeError:
        return str(value)


def _long_text(text: str, limit: int = 300) -> str:
    if len(text) <= limit and "\n" not in text:
        return f'<span class="text">{html_text(text)}</span>'
    first = text.split("\n", 1)[0][:limit]
    return (f'<details class="text"><summary>{html_text(first)} …</summary>'
            f'<pre>{_lines(text)}</pre></details>')


def _row(page: _Page, row: Row) -> str:
    anchor = page.anchor[id(row)]
    sev = max((f.severity.value for f in row.findings), key=_SEVERITIES[::-1].index, default="")
    classes = f"row k-{html_text(row.kind)}" + (f" has-{sev}" if sev else "")
    detail = row.detail or (row.status if row.status not in ("ok", "answered") else "")
    latency = fmt_latency(row.latency)
    pair = row.answered_at or row.answers
    if pair:
        arrow = "→" if row.answered_at else "←"
        latency = page.line_link(row.path, pair, f"{latency} {arrow}{pair}".strip(), avoid=anchor)
    http = row.http_status
    codes = " ".join(f'<a class="badge {f.severity.value}" href="#{page.finding_id[id(f)]}">{html_text(f.code)}</a>'
                     for f in row.findings)
    cells = (f'<a class="ln" href="#{anchor}" title="line {row.line}">{row.line}</a>'
             f'<span class="t">{_clock(row.t)}</span>'
             f'<span class="dir">{_direction(row)}</span>'
             f'<span class="id">{"#" + html_text(row.id_text) if row.id is not None else ""}</span>'
             f'<span class="label">{html_text(_label(row))}</span>'
             f'<span class="detail">{html_text(detail)}</span>'
             f'<span class="lat">{latency}</span>'
             f'<span class="http">{"" if http is None else html_text(http)}</span>'
             f'<span class="codes">{codes}</span>')
    message = row.message
    if message:
        line = f'<details><summary class="cells" role="row">{cells}</summary><pre class="json">{_lines(message)}</pre></details>'
    elif row.excerpt and row.kind not in ("finding",):
        line = (f'<details><summary class="cells" role="row">{cells}</summary>'
                f'<pre class="json">{html_text(row.excerpt)}</pre></details>')
    else:
        line = f'<div class="cells plain" role="row">{cells}</div>'
    found = ""
    if row.findings:
        found = '<ol class="findings">' + "".join(_finding(page, f) for f in row.findings) + "</ol>"
    return f'<div class="{classes}" id="{anchor}">{line}{found}</div>'


def _finding(page: _Page, finding) -> str:
    sev = finding.severity.value
    meta = [f'{html_text(finding.path)}:{finding.line}']
    if finding.session:
        meta.append(html_text(_session_name(finding.session)))
    if finding.party:
        meta.append(f"fault: {html_text(finding.party)}")
    if finding.confidence and finding.confidence != "high":
        meta.append(f"confidence: {html_text(finding.confidence)}")
    if finding.direction_inferred:
        meta.append("direction inferred")
    spec = html_text(finding.spec or "specification")
    url = finding.spec_url or ""
    if url.startswith("https://"):
        meta.append(f'<a href="{html_text(url)}" rel="noreferrer">{spec}</a>')
    elif finding.spec:
        meta.append(spec)
    related = "".join(f"<li>{page.line_link(finding.path, r.line)} {html_text(r.note)}</li>" for r in finding.related)
    return (f'<li class="finding {sev}" id="{page.finding_id[id(finding)]}" data-code="{html_text(finding.code)}" '
            f'data-path="{html_text(finding.path)}" data-line="{finding.line}">'
            f'<span class="badge {sev}">{sev}</span> <strong class="code">{html_text(finding.code)}</strong> '
            f'<span class="name">{html_text(finding.name)}</span> '
            f'<span class="message">{html_text(finding.message)}</span>'
            + (f'<div class="hint">{html_text(finding.hint)}</div>' if finding.hint else "")
            + (f'<ul class="related">{related}</ul>' if related else "")
            + f'<div class="meta">{" · ".join(meta)}</div></li>')


def _svg(page: _Page, rows: list[Row]) -> str:
    """A sequence diagram of a session's messages; each line number links to its row."""
    drawn = rows[:MAX_DIAGRAM_ROWS]
    step, left, right, width = 26, 150, 650, 800
    height = 60 + step * len(drawn) + (step if len(rows) > len(drawn) else 0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
             f'role="img" aria-label="sequence diagram">',
             f'<text x="{left}" y="20" text-anchor="middle" class="party">Client</text>',
             f'<text x="{right}" y="20" text-anchor="middle" class="party">Server</text>',
             f'<line class="lane" x1="{left}" y1="28" x2="{left}" y2="{height}"/>',
             f'<line class="lane" x1="{right}" y1="28" x2="{right}" y2="{height}"/>']
    for i, row in enumerate(drawn):
        y = 50 + i * step
        label = _label(row)
        if row.kind in ("result", "error"):
            label += f" {row.detail or (row.status if row.status != 'ok' else '')}".rstrip()
            if row.latency is not None:
                label += f" ({fmt_latency(row.latency)})"
        if row.inferred:
            label += " (direction inferred)"
        label = _cut(label, DIAGRAM_LABEL)
        mark = "".join(f" ⚠{f.code}" for f in row.findings)
        link = f'<a href="#{page.anchor[id(row)]}"><text x="8" y="{y + 4}" class="ln">{row.line}</text></a>'
        if row.kind in ("text", "malformed", "stderr"):
            # beside the lane of the side that wrote it, between the lanes
            x, anchor = (left + 8, "start") if row.direction == "c2s" else (right - 8, "end")
            parts.append(f'{link}<text x="{x}" y="{y + 4}" text-anchor="{anchor}" class="note">'
                         f'{html_text(row.kind)}: {html_text(_cut(label, DIAGRAM_LABEL - 12))}<tspan class="mark">{html_text(mark)}</tspan></text>')
            continue
        start, end = (left, right) if row.direction == "c2s" else (right, left)
        css = "msg reply" if row.kind in ("result", "error") else "msg"
        tip = 7 if end > start else -7
        parts.append(f'{link}<line class="{css}" x1="{start}" y1="{y}" x2="{end - tip}" y2="{y}"/>'
                     f'<path class="head" d="M{end},{y} L{end - tip},{y - 4} L{end - tip},{y + 4} z"/>'
                     f'<text x="{(left + right) / 2}" y="{y - 5}" text-anchor="middle">{html_text(label)}'
                     f'<tspan class="mark">{html_text(mark)}</tspan></text>')
    if len(rows) > len(drawn):
        parts.append(f'<text x="{(left + right) / 2}" y="{height - 6}" text-anchor="middle" class="note">'
                     f'{len(rows) - len(drawn)} more messages not drawn</text>')
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#5d6673;--line:#d8dee4;--card:#f6f8fa;
--hover:#eef4ff;--target:#fff3c4;--link:#0b57d0;--error:#b42318;--warning:#a15c07;--info:#175cd3;
--error-bg:#fef3f2;--warning-bg:#fffaeb;--info-bg:#eff8ff;--code:#f3f4f6;--lane:#98a2b3;--arrow:#344054}
@media (prefers-color-scheme:dark){:root{--bg:#0f1419;--fg:#e6edf3;--muted:#9aa5b1;--line:#30363d;--card:#161b22;
--hover:#1c2533;--target:#3d3314;--link:#7cb3ff;--error:#ff7b72;--warning:#e3b341;--info:#79c0ff;
--error-bg:#2d1517;--warning-bg:#2b2111;--info-bg:#0f2136;--code:#1f242c;--lane:#57606a;--arrow:#c9d1d9}}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;padding:1em 1.5em 3em;max-width:1600px;
background:var(--bg);color:var(--fg);overflow-wrap:anywhere}
a{color:var(--link)}h1{font-size:1.35em;margin:.2em 0}h2{font-size:1.15em;margin:0 0 .5em}h3{font-size:1em;margin:0 0 .4em}
.muted,.none{color:var(--muted)}.summary{margin:.3em 0 1em}
code,pre,.cells,.ln{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.toc{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.6em 1em;margin-bottom:1.5em}
.toc ol{margin:.2em 0;padding-left:1.4em}.toc>ol.many{columns:2 38em;column-gap:2.5em}.toc>ol>li{break-inside:avoid}.toc .file{font-weight:600}
section.file{margin:2em 0;border-top:3px solid var(--line);padding-top:.8em}
section.session{margin:1.2em 0}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.7em 1em;margin:.6em 0}
.card dl{display:grid;grid-template-columns:repeat(auto-fill,minmax(17em,1fr));gap:.35em 1.5em;margin:0}
.card .fact{min-width:0}.card .fact.wide{grid-column:1/-1}
.card dt{color:var(--muted);font-size:.8em;text-transform:uppercase;letter-spacing:.04em}.card dd{margin:0;min-width:0}
details.json summary,details.text summary{cursor:pointer;color:var(--muted)}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3em 0;padding:.6em .8em;background:var(--code);
border-radius:6px;font-size:12.5px;max-height:40em;overflow-y:auto}
.sev{font-weight:600;white-space:nowrap}.sev.error,.badge.error{color:var(--error)}.sev.warning,.badge.warning{color:var(--warning)}
.sev.info,.badge.info{color:var(--info)}
.badge{display:inline-block;font-size:.78em;font-weight:700;text-transform:uppercase;letter-spacing:.03em;
padding:0 .45em;border:1px solid currentColor;border-radius:4px;text-decoration:none;white-space:nowrap}
a.badge{text-transform:none;font-family:ui-monospace,monospace}
ol.overview{margin:.3em 0 1em;padding-left:1.6em}ol.overview li{margin:.1em 0}
details.overview>summary,details.diagram>summary{cursor:pointer;font-weight:600;margin:.3em 0}
details.diagram svg{max-width:100%;height:auto;display:block}
svg text{font:11px ui-monospace,monospace;fill:var(--fg)}svg .party{font-weight:700;font-size:13px}
svg .note{fill:var(--muted)}svg .mark{fill:var(--error)}svg .ln{fill:var(--link)}
svg .lane{stroke:var(--lane);stroke-dasharray:4 3}svg .msg{stroke:var(--arrow)}svg .reply{stroke-dasharray:5 3}
svg .head{fill:var(--arrow)}
.rows{border:1px solid var(--line);border-radius:8px;font-size:13px}
.rows{--cols:4.2em 7.4em 3.4em 4em minmax(0,2.6fr) minmax(0,2.6fr) 7.5em 3.2em minmax(0,1.2fr)}
.no-time{--cols:4.2em 3.4em 4em minmax(0,2.6fr) minmax(0,2.6fr) 7.5em 3.2em minmax(0,1.2fr)}
.no-http{--cols:4.2em 7.4em 3.4em 4em minmax(0,2.6fr) minmax(0,2.6fr) 7.5em minmax(0,1.2fr)}
.no-time.no-http{--cols:4.2em 3.4em 4em minmax(0,2.6fr) minmax(0,2.6fr) 7.5em minmax(0,1.2fr)}
.no-time .t,.no-http .http{display:none}
.cells{display:grid;grid-template-columns:var(--cols);
gap:0 .7em;padding:.25em .6em;align-items:baseline}
.cells>*{min-width:0}
.cells.head{font-family:system-ui,sans-serif;font-weight:600;color:var(--muted);border-bottom:1px solid var(--line);
position:sticky;top:0;background:var(--bg);z-index:1}
.row{border-bottom:1px solid var(--line)}.row:last-child{border-bottom:0}
.row:target,.finding:target{background:var(--target)}
summary.cells{cursor:pointer;list-style:none}summary.cells::-webkit-details-marker{display:none}
summary.cells:hover{background:var(--hover)}
.ln{text-decoration:none;font-weight:600}details>summary.cells .ln::before{content:"▸ ";color:var(--muted)}
details[open]>summary.cells .ln::before{content:"▾ "}.cells.plain .ln{padding-left:1.05em}
.t,.lat,.id,.http{color:var(--muted)}.dir{white-space:nowrap}.label{font-weight:600}
.k-stderr .label,.k-text .label,.k-malformed .label{font-weight:400;color:var(--muted);font-style:italic}
.k-error .detail,.has-error .detail{color:var(--error)}
.k-finding .label{font-style:italic}
.row>details>pre{margin:.2em .6em .6em 5.4em}
.has-error{box-shadow:inset 3px 0 var(--error)}.has-warning{box-shadow:inset 3px 0 var(--warning)}
.has-info{box-shadow:inset 3px 0 var(--info)}
ol.findings{list-style:none;margin:0 .6em .5em 5.4em;padding:0}
.finding{border-radius:6px;padding:.35em .7em;margin:.25em 0;border-left:3px solid currentColor}
.finding.error{background:var(--error-bg);border-color:var(--error)}
.finding.warning{background:var(--warning-bg);border-color:var(--warning)}
.finding.info{background:var(--info-bg);border-color:var(--info)}
.finding .code{font-family:ui-monospace,monospace}.finding .name{color:var(--muted)}
.finding .hint{margin-top:.2em}.finding .hint::before{content:"Hint: ";font-weight:600}
.finding .meta{color:var(--muted);font-size:.9em;margin-top:.15em}
.finding ul.related{margin:.2em 0;padding-left:1.2em}
@media (max-width:760px){
body{padding:.6em .7em 2em;font-size:13px}
.rows .cells{grid-template-columns:3.8em 7.4em 3.4em 5.4em minmax(0,1fr);gap:0 .5em;grid-template-areas:
"ln t dir http lat" "ln label label label label" "ln detail detail detail detail" "ln id id codes codes"}
.rows.no-time .cells{grid-template-areas:"ln dir dir http lat" "ln label label label label"
"ln detail detail detail detail" "ln id id codes codes"}
.cells.head{display:none}
.http:not(:empty)::before{content:"HTTP "}.http{white-space:nowrap}
.ln{grid-area:ln}.t{grid-area:t}.dir{grid-area:dir}.id{grid-area:id}.label{grid-area:label}.detail{grid-area:detail}
.lat{grid-area:lat;text-align:right}.http{grid-area:http}.codes{grid-area:codes}
.row>details>pre,ol.findings{margin-left:.6em}
}
"""

"""Renderers for ``mcplint show``: the Mermaid sequence diagram (the table and Markdown are in
:mod:`mcplint.commands.show.text`, the HTML page in :mod:`mcplint.commands.show.html`).

What a row holds from the capture reaches the output through :mod:`mcplint.untrusted` only
(``shown``, then Mermaid's entity codes)."""

from __future__ import annotations

import textwrap
from datetime import datetime, timezone

from mcplint.commands.show.timeline import Row, fmt_latency
from mcplint.untrusted import shown

#: Rows drawn in diagrams at most (tables have no limit).
MAX_DIAGRAM_ROWS = 400


def _clock(t: float | None) -> str:
    if t is None:
        return ""
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]


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

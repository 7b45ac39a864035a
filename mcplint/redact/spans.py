"""Spans found by the detectors, merged and applied to a text.

A span is a half-open range of a text, the kind of secret found there, the canonical secret
(what the tag is computed from: for ``Bearer x`` only ``x``) and optionally an explicit
replacement (blob placeholders, re-encoded layers). Overlapping spans merge into one so that
nothing leaks between them; the most specific kind wins (provider > known value > structure >
generic > personal data).
"""

from __future__ import annotations

from typing import NamedTuple

# ranks: higher wins when spans overlap
PERSONAL, GENERIC, STRUCTURE, KNOWN, PROVIDER, EXPLICIT = range(6)


class Span(NamedTuple):
    start: int
    end: int
    kind: str
    secret: str
    rank: int = STRUCTURE
    replacement: str | None = None


def merge(spans: list[Span], text: str) -> list[Span]:
    """Sorted, non-overlapping spans; overlapping ones become their union."""
    if len(spans) < 2:
        return spans
    spans.sort(key=lambda s: (s.start, -s.end))
    out: list[Span] = [spans[0]]
    for span in spans[1:]:
        last = out[-1]
        if span.start >= last.end:
            out.append(span)
            continue
        if span.end <= last.end and last.replacement is not None:
            continue  # inside an explicit replacement (blob, re-encoded layer)
        if span.replacement is not None or last.replacement is not None:
            out[-1] = last if last.rank >= span.rank else span
            continue
        if span.end <= last.end and (span.start, span.end) != (last.start, last.end):
            continue  # strictly inside: the outer span hides it
        end = max(last.end, span.end)
        best = last if last.rank >= span.rank else span
        same = (span.start, span.end) == (last.start, last.end)
        out[-1] = Span(last.start, end, best.kind, best.secret if same else text[last.start:end], best.rank)
    return out


def apply(text: str, spans: list[Span], render) -> str:
    """Replace each span by its replacement, or by ``render(span)``."""
    pieces = []
    pos = 0
    for span in spans:
        pieces.append(text[pos:span.start])
        pieces.append(span.replacement if span.replacement is not None else render(span))
        pos = span.end
    pieces.append(text[pos:])
    return "".join(pieces)

"""``mcplint stats``: traffic figures per session and overall, streamed.

Counts messages per method and direction, latency percentiles per method (from capture
timestamps), JSON-RPC errors by code with the methods they answered, the tool ``isError`` rate
(failures that monitors counting only JSON-RPC errors never see), unanswered and cancelled
requests, and findings per severity.

Memory stays bounded: latencies are a reservoir sample per method, and beyond ``MAX_SESSIONS``
finished sessions the figures of further ones are folded into one aggregate that counts in the
overall figures only.
"""

from __future__ import annotations

import random
from array import array
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcplint.excerpt import mask_field, mask_session
from mcplint.model import Finding, Kind, Record
from mcplint.protocol import ERROR_NAMES
from mcplint.rules._base import Tracker

#: Latency samples kept per method; beyond this a reservoir sample stands in for the rest.
MAX_SAMPLES = 50_000
#: Sessions whose figures are kept (and shown) one by one; later ones count in the overall only.
MAX_SESSIONS = 200
#: Longest error code key shown (a code is capture data: any JSON value, of any size).
MAX_CODE_CHARS = 40
#: The code key of an error object without a ``code``.
NO_CODE = "(no code)"
#: How the errors of a request that is not known (no id, an id nobody asked) are listed.
UNKNOWN_REQUEST = "(unknown request)"
_NAMES = {str(code): name for code, name in ERROR_NAMES.items()}


@dataclass
class Latencies:
    samples: array = field(default_factory=lambda: array("d"))  # seconds
    seen: int = 0
    maximum: float = 0.0

    def add(self, value: float, rng: random.Random) -> None:
        self.seen += 1
        self.maximum = max(self.maximum, value)
        if len(self.samples) < MAX_SAMPLES:
            self.samples.append(value)
        else:  # reservoir sampling keeps the percentiles honest at bounded memory
            slot = rng.randrange(self.seen)
            if slot < MAX_SAMPLES:
                self.samples[slot] = value

    def percentile(self, q: float) -> float | None:
        if not self.samples:
            return None
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Figures:
    """The figures of one session (or of the whole run)."""

    messages: Counter = field(default_factory=Counter)  # (method, direction, kind) -> n
    latency: dict[str, Latencies] = field(default_factory=lambda: defaultdict(Latencies))
    error_codes: Counter = field(default_factory=Counter)  # (code_key, method) -> n
    tool_calls: int = 0
    tool_is_error: int = 0
    cancelled: int = 0
    unanswered: Counter = field(default_factory=Counter)  # method -> n
    findings: Counter = field(default_factory=Counter)  # severity -> n
    version: str | None = None
    other_lines: Counter = field(default_factory=Counter)  # record kind -> n (text, stderr, ...)


class StatsCollector(Tracker):
    """Watches every record after it was judged and keeps :class:`Figures` per session.

    Methods and error codes (:func:`code_key`) are counted masked (``mcplint.excerpt``): a method
    that holds a secret counts as ``[REDACTED]``. Sessions are keyed by their own labels;
    :meth:`labelled` gives the masked labels to show.
    """

    kinds = frozenset(Kind)
    methods = None

    def __init__(self) -> None:
        self.sessions: dict[tuple[str, str], Figures] = {}
        self.rng = random.Random(0)
        self.finished = 0
        self.folded = 0  # sessions beyond MAX_SESSIONS, counted in ``others`` only
        self.others = Figures()

    def figures(self, session) -> Figures:
        key = (session.path, session.label)
        figures = self.sessions.get(key)
        if figures is None:
            figures = self.sessions[key] = Figures()
        return figures

    def commit(self, record: Record, session) -> None:
        figures = self.figures(session)
        figures.version = session.version or figures.version
        kind = record.kind
        if not record.is_message:
            if kind is not Kind.COMMENT:
                figures.other_lines[kind.value] += 1
            return
        method = mask_field(record.effective_method) or "?"
        direction = record.direction.value if record.direction else "?"
        figures.messages[(method, direction, kind.value)] += 1
        if kind is Kind.NOTIFICATION and method == "notifications/cancelled":
            figures.cancelled += 1
        if kind is Kind.ERROR:  # every error sent, its request known or not (then method "?")
            figures.error_codes[(code_key(record.msg), method)] += 1
        if not record.is_response or record.answer not in ("ok", "after-cancel"):
            return
        request = record.request
        if request is not None and request.t is not None and record.t is not None:
            figures.latency[method].add(max(0.0, record.t - request.t), self.rng)
        if kind is Kind.RESULT and method == "tools/call":
            figures.tool_calls += 1
            result = record.msg.get("result")
            if isinstance(result, dict) and result.get("isError") is True:
                figures.tool_is_error += 1

    def finish(self, session) -> None:
        """Count the requests still open when the session ended (call before release); fold the
        session into ``others`` once ``MAX_SESSIONS`` sessions are kept."""
        figures = self.figures(session)
        for entry in session.pending_requests():
            if entry.cancel is None:
                figures.unanswered[mask_field(entry.record.method) or "?"] += 1
        self.finished += 1
        if self.finished > MAX_SESSIONS:
            fold(self.others, self.sessions.pop((session.path, session.label)), self.rng)
            self.folded += 1

    def add_findings(self, findings: list[Finding]) -> None:
        """Count findings per session (findings carry masked session labels)."""
        by_label = {(path, mask_session(label)): figures for (path, label), figures in self.sessions.items()}
        for finding in findings:
            figures = by_label.get((finding.path, finding.session or ""))
            if figures is None and finding.session and self.folded:
                figures = self.others  # a session folded into the aggregate
            if figures is not None:
                figures.findings[finding.severity.value] += 1

    def labelled(self) -> dict[str, Figures]:
        """The sessions with messages, by ``<path> session <label>`` with the label masked."""
        out: dict[str, Figures] = {}
        for (path, label), figures in self.sessions.items():
            if sum(figures.messages.values()):
                name = base = f"{path} session {mask_session(label)}"
                while name in out:  # two labels masked alike
                    name = f"{base} #{len(out) + 1}"
                out[name] = figures
        return out

    def all_figures(self) -> list[Figures]:
        """Every session's figures, the folded ones as one aggregate (for the overall figures)."""
        return list(self.sessions.values()) + ([self.others] if self.folded else [])


def code_key(message: dict) -> str:
    """The key an error response's code counts under: an integer as its digits, any other value as
    its JSON text (so the string ``"-32601"`` stays apart from -32601), masked as ids are and cut
    to ``MAX_CODE_CHARS``."""
    error = message.get("error")
    if not isinstance(error, dict) or "code" not in error:
        return NO_CODE
    code = error["code"]
    if type(code) is int:
        text = str(code) if -10**30 < code < 10**30 else f"(integer of {code.bit_length()} bits)"
    elif type(code) is float:
        text = repr(code)
    else:
        try:
            text = orjson.dumps(code).decode()
        except TypeError:  # orjson.JSONEncodeError: too deep, an integer beyond 64 bits, ...
            text = f"({type(code).__name__})"
    text = mask_field(text)
    return text if len(text) <= MAX_CODE_CHARS else text[:MAX_CODE_CHARS - 1] + "…"


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def method_rows(figures: Figures) -> list[dict[str, Any]]:
    """One row per method: counts by direction, errors, latency percentiles."""
    methods: dict[str, dict[str, Any]] = {}
    for (method, direction, kind), count in figures.messages.items():
        row = methods.setdefault(method, {"method": method, "c2s": 0, "s2c": 0, "?": 0, "errors": 0})
        row[direction] = row.get(direction, 0) + count
    for (_, method), count in figures.error_codes.items():
        methods.setdefault(method, {"method": method, "c2s": 0, "s2c": 0, "?": 0, "errors": 0})["errors"] += count
    for method, row in methods.items():
        lat = figures.latency.get(method)
        row["p50"] = lat.percentile(0.50) if lat else None
        row["p95"] = lat.percentile(0.95) if lat else None
        row["max"] = lat.maximum if lat and lat.seen else None
    return sorted(methods.values(), key=lambda r: (-(r["c2s"] + r["s2c"] + r["?"]), r["method"]))


def error_rows(figures: Figures) -> list[dict[str, Any]]:
    """One row per error code, most frequent first: count, standard name (or None) and the
    methods of the requests it answered, counted (``UNKNOWN_REQUEST`` when no request is known)."""
    rows: dict[str, dict[str, Any]] = {}
    for (code, method), count in figures.error_codes.items():
        row = rows.setdefault(code, {"code": code, "name": _NAMES.get(code), "count": 0, "methods": Counter()})
        row["count"] += count
        row["methods"][UNKNOWN_REQUEST if method == "?" else method] += count
    for row in rows.values():
        row["methods"] = dict(sorted(row["methods"].items(), key=lambda item: (-item[1], item[0])))
    return sorted(rows.values(), key=lambda row: (-row["count"], row["code"]))


def merged(figures: list[Figures]) -> Figures:
    total = Figures()
    rng = random.Random(0)
    for part in figures:
        fold(total, part, rng)
    return total


def fold(total: Figures, part: Figures, rng: random.Random) -> None:
    """Add ``part``'s figures to ``total`` (latencies: a reservoir sample of both)."""
    total.messages.update(part.messages)
    total.error_codes.update(part.error_codes)
    total.unanswered.update(part.unanswered)
    total.findings.update(part.findings)
    total.other_lines.update(part.other_lines)
    total.tool_calls += part.tool_calls
    total.tool_is_error += part.tool_is_error
    total.cancelled += part.cancelled
    for method, lat in part.latency.items():
        target = total.latency[method]
        for value in lat.samples:
            target.add(value, rng)
        target.seen += lat.seen - len(lat.samples)
        target.maximum = max(target.maximum, lat.maximum)


def as_dict(figures: Figures) -> dict[str, Any]:
    return {
        "version": mask_field(figures.version),
        "methods": method_rows(figures),
        "errors_by_code": {row["code"]: {"count": row["count"], "name": row["name"], "methods": row["methods"]}
                           for row in error_rows(figures)},
        "tool_calls": figures.tool_calls,
        "tool_is_error": figures.tool_is_error,
        "tool_is_error_rate": figures.tool_is_error / figures.tool_calls if figures.tool_calls else None,
        "cancelled": figures.cancelled,
        "unanswered": dict(figures.unanswered),
        "findings": dict(figures.findings),
        "other_lines": dict(figures.other_lines),
    }

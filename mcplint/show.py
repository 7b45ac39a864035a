"""``mcplint show``: a capture as a timeline (table, Mermaid sequence diagram or HTML report)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplint.excerpt import excerpt_of, mask_field, mask_id, mask_session
from mcplint.model import Direction, Finding, Kind, Record
from mcplint.rules._base import Tracker, fmt_id


@dataclass
class Row:
    """One line of the capture as the timeline shows it."""

    path: str
    session: str
    line: int
    t: float | None
    direction: str | None
    kind: str
    method: str | None
    id: Any
    status: str = ""
    latency: float | None = None
    answered_at: int | None = None  # line of the response (requests)
    answers: int | None = None  # line of the request (responses)
    excerpt: str = ""
    findings: list[Finding] = field(default_factory=list)

    @property
    def id_text(self) -> str:
        return "" if self.id is None else fmt_id(self.id)


def _status(record: Record) -> str:
    kind = record.kind
    if kind is Kind.REQUEST:
        return "pending"
    if kind is Kind.RESULT:
        result = record.msg.get("result") if isinstance(record.msg, dict) else None
        if isinstance(result, dict) and result.get("isError") is True:
            return "isError"
        return "ok" if record.answer in ("ok", "after-cancel") else (record.answer or "ok")
    if kind is Kind.ERROR:
        error = record.msg.get("error") if isinstance(record.msg, dict) else None
        return f"error {error.get('code')}" if isinstance(error, dict) else "error"
    if kind is Kind.NOTIFICATION:
        return ""
    return {Kind.TEXT: "non-JSON", Kind.MALFORMED: "malformed", Kind.STDERR: "stderr"}.get(kind, kind.value)


class TimelineCollector(Tracker):
    """Keeps one :class:`Row` per input line and links responses to their requests.

    What a row shows from the capture (session label, method, id, status, excerpt) is masked
    as it is made (``mcplint.excerpt``), so every view and format shows it masked; filters
    match the masked values, as shown.
    """

    kinds = frozenset(Kind) - {Kind.COMMENT, Kind.CONTINUATION}
    methods = None

    def __init__(self) -> None:
        self.rows: list[Row] = []
        self._requests: dict[tuple, Row] = {}  # (path, session, seq) of a request -> its row

    def commit(self, record: Record, session) -> None:
        if record.parent is not None:
            return  # batch elements: the batch line stands for them
        row = Row(record.path, mask_session(session.label), record.line, record.t,
                  record.direction.value if record.direction else None, record.kind.value,
                  mask_field(record.effective_method), mask_id(record.id) if record.has_id else None,
                  mask_field(_status(record)), excerpt=excerpt_of(record, 100))
        self.rows.append(row)
        if record.kind is Kind.REQUEST:
            self._requests[(record.path, session.label, record.seq)] = row
        elif record.is_response and record.request is not None:
            request_row = self._requests.get((record.path, session.label, record.request.seq))
            if request_row is not None:
                row.answers = request_row.line
                if request_row.answered_at is None:
                    request_row.answered_at = row.line
                    request_row.status = "answered" if row.status in ("ok", "isError") else row.status
                    if row.t is not None and request_row.t is not None:
                        request_row.latency = row.latency = row.t - request_row.t
        elif record.kind is Kind.NOTIFICATION and record.method == "notifications/cancelled":
            params = record.params if isinstance(record.params, dict) else {}
            entry = session.find_request(record.direction, params.get("requestId")) if record.direction else None
            request_row = self._requests.get((record.path, session.label, entry.record.seq)) \
                if entry is not None else None
            if request_row is not None and request_row.answered_at is None:
                request_row.status = "cancelled"

    def attach(self, findings: list[Finding]) -> None:
        by_line: dict[tuple[str, int], Row] = {(row.path, row.line): row for row in self.rows}
        for finding in findings:
            row = by_line.get((finding.path, finding.line))
            if row is not None:
                row.findings.append(finding)


@dataclass
class RowFilter:
    session: str | None = None
    method: str | None = None
    id: str | None = None
    direction: str | None = None
    since: float | None = None  # seconds from the first timestamp
    until: float | None = None

    def keep(self, row: Row, start: float | None) -> bool:
        if self.session is not None and row.session != self.session:
            return False
        if self.method is not None and row.method != self.method:
            return False
        if self.id is not None and row.id_text.strip('"') != self.id.strip('"'):
            return False
        if self.direction is not None and row.direction != self.direction:
            return False
        if (self.since is not None or self.until is not None) and row.t is not None and start is not None:
            offset = row.t - start
            if (self.since is not None and offset < self.since) or (self.until is not None and offset > self.until):
                return False
        return True


def filtered(rows: list[Row], keep: RowFilter) -> list[Row]:
    start = next((r.t for r in rows if r.t is not None), None)
    return [row for row in rows if keep.keep(row, start)]


ARROW = {Direction.C2S.value: "C→S", Direction.S2C.value: "S→C", None: ""}


def fmt_latency(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"

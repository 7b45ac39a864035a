"""``Record.seq``, the arrival number (issue 13): which of two records came first, and which record
is which, where lines cannot say (HAR entries, batches, minified files)."""

from __future__ import annotations

import io
import json

from mcplint.analysis.analyzer import Answered, RequestEntry
from mcplint.analysis.engine import Engine
from mcplint.commands.show.timeline import TimelineCollector
from mcplint.input.lines import iter_lines
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames, read_capture
from mcplint.model import Direction, Kind, Record
from mcplint.rules._base import Tracker
from tests.test_har_order import Stateless, Traffic, call, ok, one_line, progress, request, tools


class Seen(Tracker):
    """An observer that keeps every record it is shown and, at the end, the open requests."""

    kinds = frozenset(Kind)

    def __init__(self):
        self.records: list[Record] = []
        self.open: list[tuple] = []

    def commit(self, record, session):
        self.records.append(record)

    def finish(self, session):
        self.open = [(e.record.method, e.record.id) for e in session.pending_requests()]


def run(text: str, *observers, path="<in>") -> list:
    engine = Engine(observers=observers)
    _, frames = open_frames(io.BytesIO(text.encode()))
    return list(engine.lint_records(Parser(path).records(frames), path))


def test_records_are_numbered_in_the_order_the_engine_takes_them():
    batch = [request(2, "tools/list"), request(3, "prompts/list")]
    text = "".join(json.dumps(v) + "\n" for v in (request(1, "ping"), batch, ok(1)))
    seen = Seen()
    engine = Engine(observers=[seen])
    for name in ("a", "b"):  # one engine, two files: the numbers go on growing
        _, frames = open_frames(io.BytesIO(text.encode()))
        list(engine.lint_records(Parser(name).records(frames), name))
    # observers see a batch's elements before the batch itself; its number comes first all the same
    order = sorted(seen.records, key=lambda r: r.seq)
    assert [(r.path, r.kind, r.id) for r in order] == [
        (p, k, i) for p in ("a", "b") for k, i in ((Kind.REQUEST, 1), (Kind.BATCH, None), (Kind.REQUEST, 2),
                                                   (Kind.REQUEST, 3), (Kind.RESULT, 1))]
    assert len({r.seq for r in seen.records}) == len(seen.records)
    assert {r.line for r in order if r.kind is not Kind.RESULT and r.path == "a"} == {1, 2}


def test_compact_entries_stand_in_with_the_request_s_numbers():
    request_ = Record("<t>", 4, Kind.REQUEST, b"{}", direction=Direction.C2S, has_id=True, id=7,
                      method="tools/call", seq=40)
    entry = RequestEntry(request_)
    entry.response = Record("<t>", 4, Kind.ERROR, b"{}", direction=Direction.S2C, has_id=True, id=7, seq=52)
    compact = Answered(entry, Direction.C2S)
    assert (compact.record.seq, compact.response.seq) == (40, 52)
    compact.cancel = Record("<t>", 4, Kind.NOTIFICATION, b"{}", seq=45)
    assert compact.cancel.seq == 45


def test_a_storm_of_compacted_attempts_is_still_seen():
    """Attempts answered long ago are kept compact; the stand-in is recognised as the attempt."""
    events, at = [], 0.0
    for attempt in range(1, 6):
        events += [(at, "c2s", call(attempt, "flaky")),
                   (at + 0.01, "s2c", {"jsonrpc": "2.0", "id": attempt, "error": {"code": -32603, "message": "down"}})]
        for other in range(150):  # enough answered requests in between to compact the attempt
            id_ = 1000 * attempt + other
            events += [(at + 0.02, "c2s", request(id_, "ping")), (at + 0.02, "s2c", ok(id_))]
        at += 1.0
    traffic = Traffic(server_caps={"tools": {}})
    traffic.wire = [(t, d, v) for t, d, v in traffic.wire] + [(t + 1, d, v) for t, d, v in events]
    frames = read_capture(iter_lines(io.BytesIO(traffic.capture().encode())))
    found = list(Engine().lint_records(Parser("<c>").records(frames), "<c>"))
    assert [f.id for f in found if f.code == "HX009"] == [5]


def test_open_requests_are_listed_in_arrival_order():
    """The GET stream is listed first but its server request came after the client's call."""
    traffic = Traffic(client_caps={"elicitation": {}})
    ask = request(0, "elicitation/create", {"message": "Sure?", "requestedSchema": {"type": "object"}})
    traffic.get(0.1, [(2.0, ask)], ended=6.0)
    traffic.post(request(1, "tools/list"), 0.5, json=(0.52, ok(1, tools("alpha"))))
    traffic.post(call(2, "alpha", token="a"), 1.0, sse=[(1.1, progress("a", 1))], ended=6.0)
    seen = Seen()
    run(traffic.har(), seen)
    assert seen.open == [("tools/call", 2), ("elicitation/create", 0)]


def test_timeline_links_each_answer_to_its_own_request_on_one_line():
    """Two requests in flight at once, both on line 1."""
    traffic = Stateless()
    traffic.ask(1, "tools/list", {}, 0.0, {"tools": []})
    traffic.ask(2, "tools/call", {"name": "q", "arguments": {}}, 0.01, error={"code": -32602, "message": "no"})
    timeline = TimelineCollector()
    run(one_line(traffic), timeline)
    statuses = {(row.method, row.id): row.status for row in timeline.rows if row.kind == "request"}
    assert statuses == {("tools/list", 1): "answered", ("tools/call", 2): "error -32602"}

"""MCP Inspector v2 History/Protocol export reader."""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.model import Direction, Kind
from tests.formats_helpers import (
    assert_one_record_per_line,
    line_count,
    lint,
    lint_engine,
    messages_of,
    records_of,
    sample,
    sniffed,
)

FMT = "inspector"
NAME = "inspector-history-weather-2026-05-27T10-01-03.120Z.json"


def entry(n, message, origin="client", response=None, duration=None, ts="2026-05-27T10:00:40.000Z"):
    out = {"id": f"m-{n}", "timestamp": ts, "direction": "request" if "id" in message and "method" in message
           else "notification" if "method" in message else "response", "origin": origin, "message": message}
    if response is not None:
        out["response"] = response
    if duration is not None:
        out["duration"] = duration
    return out


def test_sample_sniffs_and_accounts_for_every_line():
    data = sample(NAME)
    assert sniffed(data) == FMT
    assert_one_record_per_line(data, FMT)
    assert lint(data) == []


def test_records_sit_where_their_object_starts():
    data = sample(NAME)
    lines = data.decode().split("\n")
    for record in messages_of(data, FMT):
        assert lines[record.line - 1].rstrip().endswith(("\"message\": {", "\"response\": {"))


def test_directions_from_origin_and_embedded_responses():
    messages = messages_of(sample(NAME), FMT)
    assert [(r.method or "response", r.direction) for r in messages[:3]] == [
        ("initialize", Direction.C2S), ("response", Direction.S2C), ("notifications/initialized", Direction.C2S)]
    assert all(r.direction_observed for r in messages)
    assert messages[1].ts == "2026-05-27T10:00:40.193Z"  # timestamp + duration (181 ms)


def test_embedded_response_is_analysed_at_its_time():
    messages = messages_of(sample(NAME), FMT)
    order = [(r.line, r.method or f"response {r.id}") for r in messages]
    call = order.index((98, "tools/call"))
    assert [m for _, m in order[call:call + 5]] == [
        "tools/call", "notifications/progress", "notifications/message", "notifications/progress", "response 2"]
    assert order[call + 4][0] == 112  # still reported at its own line


def test_compact_export_puts_several_records_on_one_line():
    doc = [entry(1, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, response={"jsonrpc": "2.0", "id": 1, "result": {}},
                 duration=3),
           entry(2, {"jsonrpc": "2.0", "method": "notifications/message",
                     "params": {"level": "info", "data": "x"}}, origin="server", ts="2026-05-27T10:00:41.000Z")]
    data = orjson.dumps(doc) + b"\n"
    assert sniffed(data) == FMT
    records = records_of(data, FMT)
    assert [r.line for r in records] == [1, 1, 1]
    assert [r.direction for r in records] == [Direction.C2S, Direction.S2C, Direction.S2C]


def test_no_origin_leaves_direction_to_inference():
    doc = [{"id": "m-1", "timestamp": "2026-05-27T10:00:40.000Z", "direction": "request",
            "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            "response": {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}, "duration": 2}]
    messages = messages_of(orjson.dumps(doc, option=orjson.OPT_INDENT_2), FMT)
    assert messages[0].direction is Direction.C2S and not messages[0].direction_observed
    assert messages[1].direction is Direction.S2C and not messages[1].direction_observed


def test_bad_entries_and_cut_documents_are_reported():
    good = entry(1, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, response={"jsonrpc": "2.0", "id": 1, "result": {}})
    doc = orjson.dumps([good, {"id": "m-2", "direction": "request"}, 7], option=orjson.OPT_INDENT_2)
    records = assert_one_record_per_line(doc + b"\n", FMT)
    bad = [r for r in records if r.kind is Kind.MALFORMED]
    assert [r.line for r in bad] == [1, 18]
    assert "1 array element(s) that are not entry objects" in bad[0].error and 'no "message"' in bad[1].error
    cut = doc[:len(doc) * 2 // 3]
    records = assert_one_record_per_line(cut, FMT)
    assert [r.kind for r in records if r.kind is Kind.MALFORMED] == [Kind.MALFORMED]
    assert {f.code for f in lint(cut, FMT)} == {"JR002"}


def test_not_an_array():
    data = b'{"entries": []}\n'
    records = assert_one_record_per_line(data, FMT)
    assert records[0].kind is Kind.MALFORMED
    assert sniffed(data) != FMT


def test_a_jsonrpc_batch_is_not_an_export():
    assert sniffed(b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]\n') \
        == "jsonl"


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(min_value=0, max_value=5000), st.binary(max_size=40))
def test_damaged_exports_never_crash_and_keep_line_count(cut, junk):
    data = sample(NAME)
    cut = min(cut, len(data))
    damaged = data[:cut] + junk.replace(b"\n", b" ") + data[cut:]
    records = records_of(damaged, FMT)
    assert sorted({r.line for r in records}) == list(range(1, line_count(damaged) + 1))
    lint_engine(damaged, FMT)

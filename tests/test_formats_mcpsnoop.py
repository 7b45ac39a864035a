"""mcpsnoop session log reader."""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.model import Direction, Kind
from tests.formats_helpers import (
    assert_one_record_per_line,
    lint,
    lint_engine,
    messages_of,
    records_of,
    sample,
    sniffed,
)

FMT = "mcpsnoop"
NAME = "mcpsnoop-weather.jsonl"


def envelope(direction, seq=1, session="srv-1-aa", **extra):
    out = {"session_id": session, "server_label": "weather", "seq": seq, "ts": "2026-07-06T10:00:01.234Z",
           "direction": direction, "transport": "stdio"}
    out.update(extra)
    return orjson.dumps(out)


def test_sample_sniffs_and_accounts_for_every_line():
    data = sample(NAME)
    assert sniffed(data) == FMT
    records = assert_one_record_per_line(data, FMT)
    assert records[0].kind is Kind.COMMENT and records[2].kind is Kind.STDERR
    assert [(f.code, f.line) for f in lint(data)] == [("IO001", 9)]


def test_directions_sessions_and_times():
    messages = messages_of(sample(NAME), FMT)
    assert [r.direction for r in messages[:3]] == [Direction.C2S, Direction.S2C, Direction.C2S]
    assert all(r.direction_observed for r in messages)
    assert {r.session_key for r in messages} == {"server.py-48213-7f3a1c9e2b04"}
    assert messages[0].ts == "2026-07-06T10:00:00.118Z" and messages[0].transport == "stdio"


def test_http_connections_are_separate_sessions_and_truncated_frames_are_reported():
    data = b"\n".join([
        envelope("c2s", raw={"jsonrpc": "2.0", "id": 1, "method": "ping"}, transport="http", conn_id="c1"),
        envelope("c2s", raw={"jsonrpc": "2.0", "id": 1, "method": "ping"}, transport="http", conn_id="c2"),
        envelope("s2c", raw={"jsonrpc": "2.0", "id": 1, "result": {}}, transport="http", conn_id="c1", status=200),
        envelope("s2c", text='{"jsonrpc":"2.0","id":1,"res', truncated=True),
    ])
    records = assert_one_record_per_line(data, FMT)
    assert [r.session_key for r in records[:3]] == ["srv-1-aa/c1", "srv-1-aa/c2", "srv-1-aa/c1"]
    assert records[3].kind is Kind.MALFORMED and "size cap" in records[3].error
    assert [f.party for f in lint(data, FMT) if f.code == "JR002"] == ["capture"]


def test_garbage_is_reported():
    data = b"\n".join([b"{oops", b'{"direction":"c2s"}', envelope("c2s"), b"", envelope("stderr", text="hi")])
    records = assert_one_record_per_line(data, FMT)
    assert [r.kind for r in records] == [Kind.MALFORMED, Kind.MALFORMED, Kind.MALFORMED, Kind.COMMENT, Kind.STDERR]


_values = st.one_of(st.none(), st.integers(-2**53, 2**53), st.text(max_size=8), st.sampled_from(["c2s", "s2c", "stderr", "meta"]),
                    st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "result"]), st.integers(-2**53, 2**53), max_size=3))
_junk = st.one_of(st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"")),
                  st.dictionaries(st.sampled_from(["session_id", "seq", "ts", "direction", "raw", "text", "truncated",
                                                   "conn_id", "transport"]), _values, max_size=8).map(orjson.dumps))


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_junk, max_size=10))
def test_garbage_lines_never_crash_and_keep_line_count(lines):
    data = sample(NAME) + b"\n".join(lines)
    assert_one_record_per_line(data, FMT)
    records_of(data, FMT)
    lint_engine(data, FMT)

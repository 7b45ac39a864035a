"""MCPSpy JSONL reader."""

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

FMT = "mcpspy"
NAME = "mcpspy-weather.jsonl"


def event(msg, sender=(10, "node"), receiver=(20, "python3"), ts="2026-01-15T12:34:56.789123456Z", **extra):
    out = {"timestamp": ts, "transport_type": "stdio",
           "stdio_transport": {"from_pid": sender[0], "from_comm": sender[1], "to_pid": receiver[0],
                               "to_comm": receiver[1]},
           "session": None, "type": "request", "error": {}, "raw": orjson.dumps(msg).decode()}
    out.update(extra)
    return orjson.dumps(out)


CLIENT, SERVER = (10, "node"), (20, "python3")
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
INIT_OK = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                  "serverInfo": {"name": "s", "version": "1"}}}


def test_sample_sniffs_accounts_for_every_line_and_is_clean():
    data = sample(NAME)
    assert sniffed(data) == FMT
    records = assert_one_record_per_line(data, FMT)
    assert [r.kind for r in records if r.line in (6, 9)] == [Kind.COMMENT, Kind.COMMENT]  # LLM events
    assert lint(data) == []


def test_the_process_that_sends_initialize_is_the_client():
    messages = messages_of(sample(NAME), FMT)
    assert [r.direction for r in messages] == [Direction.C2S, Direction.S2C, Direction.C2S, Direction.C2S,
                                              Direction.S2C, Direction.C2S, Direction.S2C]
    assert all(r.direction_observed for r in messages)
    assert {r.session_key for r in messages} == {"node(4211)<->python3(4230)#1"}
    assert messages[0].ts == "2026-01-15T12:34:50.101233Z" and messages[0].transport == "stdio"


def test_midstream_capture_infers_roles_from_methods_without_claiming_observation():
    data = b"\n".join([event({"jsonrpc": "2.0", "id": 5, "result": {}}, SERVER, CLIENT),
                       event({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "x"}}, CLIENT, SERVER),
                       event({"jsonrpc": "2.0", "id": 6, "result": {"content": []}}, SERVER, CLIENT),
                       event(INIT, CLIENT, SERVER)])
    messages = messages_of(data, FMT)
    assert messages[0].direction is None  # nothing known yet: mcplint infers it later (a response: the server's)
    assert messages[1].direction is Direction.C2S and not messages[1].direction_observed
    assert messages[2].direction is Direction.S2C and not messages[2].direction_observed
    assert messages[3].direction is Direction.C2S and messages[3].direction_observed
    assert [r.session_key for r in messages] == ["node(10)<->python3(20)#1"] * 3 + ["node(10)<->python3(20)#2"]


def test_nanosecond_timestamps_and_http_events():
    http = orjson.dumps({"timestamp": "2026-01-15T12:34:56.789123456Z", "transport_type": "http",
                         "http_transport": {"pid": 47837, "comm": "python", "host": "127.0.0.1:8000", "is_request": True},
                         "session": {"external_id": "9f1c", "internal_id": "x"}, "type": "request", "error": {},
                         "raw": orjson.dumps(INIT).decode()})
    reply = orjson.dumps({"timestamp": "2026-01-15T12:34:56.901Z", "transport_type": "http",
                          "http_transport": {"pid": 47837, "comm": "python", "host": "127.0.0.1:8000"},
                          "session": {"external_id": "9f1c", "internal_id": "x"}, "type": "response", "error": {},
                          "raw": orjson.dumps(INIT_OK).decode()})
    messages = messages_of(http + b"\n" + reply + b"\n", FMT)
    assert [(r.direction, r.transport, r.session_key) for r in messages] == [
        (Direction.C2S, "http", "9f1c#1"), (Direction.S2C, "http", "9f1c#1")]
    assert messages[0].t is not None


def test_garbage_is_reported_and_raw_crlf_kept():
    data = b"\n".join([b"not json", b"[1,2]", event(INIT, CLIENT, SERVER, raw=""),
                       event(INIT, CLIENT, SERVER, raw=orjson.dumps(INIT).decode() + "\r\n"), b""])
    records = assert_one_record_per_line(data, FMT)
    assert [r.kind for r in records] == [Kind.MALFORMED, Kind.MALFORMED, Kind.MALFORMED, Kind.REQUEST]
    assert "crlf" in records[3].flags
    assert [f.code for f in lint(data, FMT) if f.code == "JR002"] == ["JR002"] * 3


_junk = st.one_of(st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"")),
                  st.dictionaries(st.sampled_from(["transport_type", "raw", "stdio_transport", "http_transport",
                                                   "session", "timestamp"]),
                                  st.one_of(st.none(), st.integers(-2**53, 2**53), st.text(max_size=10),
                                            st.sampled_from(["stdio", "http", "{}", '{"jsonrpc":"2.0"}']),
                                            st.dictionaries(st.text(max_size=5), st.integers(-2**53, 2**53), max_size=2)),
                                  max_size=6).map(orjson.dumps))


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_junk, max_size=10))
def test_garbage_lines_never_crash_and_keep_line_count(lines):
    data = sample(NAME) + b"\n".join(lines)
    assert_one_record_per_line(data, FMT)
    records_of(data, FMT)
    lint_engine(data, FMT)

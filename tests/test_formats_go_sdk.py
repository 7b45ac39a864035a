"""Go SDK LoggingTransport reader: direction relative to the logging side."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.input.formats import go_sdk
from mcplint.model import Direction, Kind
from tests.formats_helpers import (
    assert_one_record_per_line,
    lint,
    lint_engine,
    messages_of,
    sample,
    sniffed,
)

FMT = "go-sdk-log"
NAME = "go-sdk-logging-transport-server.log"
INIT = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "c", "version": "1"}}})
INIT_OK = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                              "serverInfo": {"name": "s", "version": "1"}}})


def test_sample_sniffs_accounts_for_every_line_and_is_clean():
    data = sample(NAME)
    assert sniffed(data) == FMT
    records = assert_one_record_per_line(data, FMT)
    assert records[0].kind is Kind.COMMENT and records[-1].kind is Kind.COMMENT
    assert lint(data) == []


def test_server_side_log_read_is_client_to_server():
    messages = messages_of(sample(NAME), FMT)
    assert messages[0].method == "initialize" and messages[0].direction is Direction.C2S
    assert messages[1].direction is Direction.S2C
    assert all(r.direction_observed for r in messages)


def test_client_side_log_write_is_client_to_server():
    data = b"write: " + INIT + b"\nread: " + INIT_OK + b'\nwrite: {"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    messages = messages_of(data, FMT)
    assert [r.direction for r in messages] == [Direction.C2S, Direction.S2C, Direction.C2S]
    assert all(r.direction_observed for r in messages)


def test_go_log_timestamps_and_glued_error_lines():
    data = (b"2026/03/02 09:14:07.123456 read: " + INIT + b"\n"
            b"2026/03/02 09:14:07.200000 write: " + INIT_OK + b"\n"
            b'read error: EOFread: {"jsonrpc":"2.0","id":2,"method":"ping"}\n')
    records = assert_one_record_per_line(data, FMT)
    assert records[0].ts == "2026-03-02T09:14:07.123456"
    assert records[1].t - records[0].t == pytest.approx(0.076544)
    assert records[2].kind is Kind.REQUEST and records[2].direction is Direction.C2S


def test_without_initialize_methods_decide_but_are_not_observed():
    data = (b'read: {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}\n'
            b'write: {"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n')
    messages = messages_of(data, FMT)
    assert [r.direction for r in messages] == [Direction.C2S, Direction.S2C]
    assert not any(r.direction_observed for r in messages)


def test_conflicting_or_missing_evidence_leaves_direction_unknown():
    conflicting = (b'read: {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}\n'
                   b'read: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n')
    frames = list(go_sdk.read_go_sdk((line, False) for line in conflicting.split(b"\n")[:2]))
    assert [f.direction for f in frames] == [None, None] and not any(f.observed for f in frames)
    nothing = b'read: {"jsonrpc":"2.0","id":3,"method":"ping"}\nwrite: {"jsonrpc":"2.0","id":3,"result":{}}\n'
    frames = list(go_sdk.read_go_sdk((line, False) for line in nothing.split(b"\n")[:2]))
    assert [f.direction for f in frames] == [None, None]


def test_decision_waits_at_most_a_bounded_number_of_lines(monkeypatch):
    monkeypatch.setattr(go_sdk, "DECIDE_WITHIN", 3)
    data = [b'read: {"jsonrpc":"2.0","id":%d,"method":"ping"}' % n for n in range(5)] + [b"read: " + INIT]
    frames = list(go_sdk.read_go_sdk((line, False) for line in data))
    assert [f.line for f in frames] == [1, 2, 3, 4, 5, 6]
    assert [f.direction for f in frames[:3]] == [None, None, None]


def test_other_output_is_not_taken_for_this_format():
    assert sniffed(b"server starting\nlistening on :8080\nread config from /etc/x\n" * 3) != FMT
    mostly_jsonl = b'read: {"jsonrpc":"2.0","id":3,"method":"ping"}\n' + b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n' * 5
    assert sniffed(mostly_jsonl) == "jsonl"


_garbage = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=80)
_prefixes = st.sampled_from(["", "read: ", "write: ", "read: {", "write: [", "read error: ", "write error: read: {",
                             "2026/03/02 09:14:07 read: {"])


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(_prefixes, _garbage), max_size=12))
def test_garbage_lines_never_crash_and_keep_line_count(pairs):
    data = sample(NAME) + "".join(p + g + "\n" for p, g in pairs).encode()
    assert_one_record_per_line(data, FMT)
    lint_engine(data, FMT)

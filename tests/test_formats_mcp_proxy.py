"""punkpeye mcp-proxy --debug reader: the server's side from data chunks, dropped stdout lines."""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.input.formats.mcp_proxy import js_string
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

FMT, NAME = "mcp-proxy", "mcp-proxy-debug.log"


def test_sample_sniffs_accounts_for_every_line_and_reports_only_the_pollution():
    data = sample(NAME)
    assert sniffed(data) == FMT
    assert_one_record_per_line(data, FMT)
    assert sorted((f.code, f.line) for f in lint(data)) == [("HX010", 4), ("IO001", 2)]


def test_chunks_are_the_servers_messages_as_sent():
    messages = messages_of(sample(NAME), FMT)
    assert [m.line for m in messages] == [4, 21, 29, 30, 45]
    assert all(m.direction is Direction.S2C for m in messages)
    assert messages[0].text.startswith('{"result":{"protocolVersion":"2025-06-18"')
    assert messages[3].msg["result"]["content"][0]["text"] == "Oslo: rain, it's 7°C"  # a backtick literal


def test_elided_message_events_and_closing_are_not_messages():
    records = records_of(sample(NAME), FMT)
    elided = [r for r in records if "[Object]" in r.text or "[Array]" in r.text]
    assert elided and all(r.kind is Kind.COMMENT for r in elided)
    assert records[-1].kind is Kind.COMMENT and records[-1].msg["event"] == "closed"


def test_a_chunk_after_close_is_a_new_session():
    data = (b"transport event { chunk: '{\"result\":{},\"jsonrpc\":\"2.0\",\"id\":1}\\n', type: 'data' }\n"
            b"transport event { type: 'close' }\n"
            b"transport event { chunk: '{\"result\":{},\"jsonrpc\":\"2.0\",\"id\":1}\\n', type: 'data' }\n")
    assert [r.session_key for r in records_of(data, FMT)] == ["mcp-proxy#1", "mcp-proxy#1", "mcp-proxy#2"]


def test_dropped_lines_of_a_multi_line_warning_are_each_the_servers_stdout():
    data = (b"[mcp-proxy] ignoring non-JSON output [\n  'usage: weather [-h] [--port PORT]',\n"
            b"  'weather: error: unrecognized arguments: --stdio'\n]\n")
    records = assert_one_record_per_line(data, FMT)
    assert [(r.kind, r.text) for r in records if r.direction is Direction.S2C] == [
        (Kind.TEXT, "usage: weather [-h] [--port PORT]"), (Kind.TEXT, "weather: error: unrecognized arguments: --stdio")]


def test_a_chunk_cut_by_util_inspect_is_unreadable_not_guessed():
    data = b"transport event { chunk: '{\"result\":{\"text\":\"aaaa'... 20417 more characters, type: 'data' }\n"
    (record,) = records_of(data, FMT)
    assert record.kind is Kind.MALFORMED


def test_one_sided_log_draws_no_unknown_id_but_a_two_sided_one_does():
    assert "JR011" not in {f.code for f in lint(sample(NAME))}
    both = ('S→C {"jsonrpc":"2.0","id":9,"result":{}}\n'
            'C→S {"jsonrpc":"2.0","id":15,"method":"ping"}\n').encode()
    assert [(f.code, f.line, f.confidence) for f in lint(both) if f.code == "JR011"] == [("JR011", 1, "low")]


@given(st.text(max_size=40))
def test_js_string_reads_what_json_writes(text):
    # a JSON string literal is a valid JavaScript string literal with the same value
    assert js_string(orjson.dumps(text).decode()) == text


_garbage = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=60)
_prefixes = st.sampled_from(["", "transport event {", "transport event { chunk: '", "  chunk: '", "    '", "}",
                             "[mcp-proxy] ignoring non-JSON output [", "[mcp-proxy] stripped non-JSON prefix from output: "])


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(_prefixes, _garbage), max_size=12))
def test_garbage_never_crashes_and_keeps_line_count(pairs):
    data = sample(NAME) + "".join(p + g + "\n" for p, g in pairs).encode()
    assert_one_record_per_line(data, FMT)
    lint_engine(data, FMT)

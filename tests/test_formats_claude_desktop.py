"""Claude Desktop mcp.log / mcp-server-<name>.log reader."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.input.formats.claude_desktop import parse_line
from mcplint.model import Direction, Kind
from tests.formats_helpers import (
    assert_one_record_per_line,
    frames_of,
    lint,
    lint_engine,
    messages_of,
    records_of,
    sample,
    sniffed,
)

FMT = "claude-desktop"
SAMPLES = ["claude-desktop-mcp-server-weather.log", "claude-desktop-mcp-server-weather-2026.log",
           "claude-desktop-mcp.log"]


@pytest.mark.parametrize("name", SAMPLES)
def test_samples_sniff_and_account_for_every_line(name):
    data = sample(name)
    assert sniffed(data) == FMT
    assert_one_record_per_line(data, FMT)


def test_both_field_orders_and_era_a():
    assert parse_line("2025-04-11T23:03:05.759Z [weather] [info] Message from client: {}") == (
        "2025-04-11T23:03:05.759Z", "weather", "info", "Message from client: {}")
    assert parse_line("2025-06-23T03:35:29.569Z [info] [weather] Client transport closed") == (
        "2025-06-23T03:35:29.569Z", "weather", "info", "Client transport closed")
    assert parse_line("2024-11-28T09:27:43.719Z [info] Connected to MCP server weather!") == (
        "2024-11-28T09:27:43.719Z", None, "info", "Connected to MCP server weather!")
    # names with spaces and brackets
    assert parse_line("2025-06-23T03:35:29.569Z [Control your Mac] [error] boom")[1] == "Control your Mac"
    assert parse_line("2025-06-23T03:35:29.569Z [warn] [files [beta]] Message from server: {}")[1] == "files [beta]"
    assert parse_line("Traceback (most recent call last):") is None


def test_directions_timestamps_and_metadata_suffix():
    data = sample("claude-desktop-mcp-server-weather-2026.log")
    messages = messages_of(data, FMT)
    first = messages[0]
    assert first.method == "initialize" and first.direction is Direction.C2S and first.direction_observed
    assert first.ts == "2026-02-10T14:02:11.410Z" and first.t == pytest.approx(1770732131.41)
    assert first.text.endswith('"id":0}')  # the { metadata: undefined } suffix is not part of the message
    assert messages[1].direction is Direction.S2C and messages[1].id == 0
    kinds = {r.line: r.kind for r in records_of(data, FMT)}
    assert all(kinds[n] is Kind.COMMENT for n in range(2, 15))  # the command line and its multi-line metadata block
    assert kinds[16] is Kind.STDERR and kinds[31] is Kind.STDERR
    assert all(kinds[n] is Kind.COMMENT for n in range(18, 26))


def test_stdout_pollution_reported_by_the_host_becomes_server_text():
    found = lint(sample("claude-desktop-mcp-server-weather-2026.log"))
    assert [(f.code, f.line) for f in found] == [("IO001", 17)]
    assert "Weather se..." in found[0].message


def test_sessions_per_server_and_per_start():
    data = sample("claude-desktop-mcp.log")
    sessions = [(r.line, r.session_key) for r in messages_of(data, FMT)]
    assert (13, "weather#2") in sessions  # the 2024 connection was start 1
    assert (16, "Control your Mac#2") in sessions and (19, "Control your Mac#2") in sessions
    assert (25, "weather#3") in sessions and (33, "weather#3") in sessions
    assert {key for _, key in sessions} == {"weather#2", "weather#3", "Control your Mac#2"}


def test_second_initialize_without_marker_is_a_new_session():
    text = (
        b'2025-04-11T23:02:58.137Z [w] [info] Message from client: {"method":"initialize","params":{},"jsonrpc":"2.0","id":0}\n'
        b'2025-04-11T23:02:58.412Z [w] [info] Message from server: {"jsonrpc":"2.0","id":0,"result":{}}\n'
        b'2025-04-11T23:05:58.137Z [w] [info] Message from client: {"method":"initialize","params":{},"jsonrpc":"2.0","id":0}\n'
    )
    assert [r.session_key for r in messages_of(text, FMT)] == ["w#1", "w#1", "w#2"]


def test_stderr_belongs_to_the_current_start():
    records = records_of(sample("claude-desktop-mcp-server-weather.log"), FMT)
    stderr = [r for r in records if r.kind is Kind.STDERR]
    assert [r.line for r in stderr] == [4, 10, 15]
    assert {r.session_key for r in stderr} == {"weather#1"}


def test_truncated_message_is_reported_not_dropped():
    text = (b'2025-04-11T23:02:58.137Z [w] [info] Message from client: {"method":"initialize","params":{}\n'
            b'2025-04-11T23:02:58.412Z [w] [info] Message from server: {"jsonrpc":"2.0","id":0,"result":{}} {\n'
            b'  metadata: undefined\n'
            b'}\n')
    records = assert_one_record_per_line(text, FMT)
    assert records[0].kind is Kind.MALFORMED and records[0].direction is Direction.C2S
    assert records[1].kind is Kind.RESULT
    assert [r.kind for r in records[2:]] == [Kind.COMMENT, Kind.COMMENT]
    assert "JR002" in {f.code for f in lint(text, FMT)}


def test_mcp_log_sniffs_even_with_a_stderr_line_first():
    data = b"Traceback (most recent call last):\n" + sample("claude-desktop-mcp.log")
    assert sniffed(data) == FMT


def test_generic_iso_logs_are_not_claimed():
    data = b"2025-04-11T23:02:58.137Z [info] request handled in 3 ms\n" * 5
    assert sniffed(data) != FMT
    claude_code_debug = (b'2026-01-12T09:19:33.356Z [DEBUG] MCP server "weather": Successfully connected to stdio server\n'
                         b'2026-01-12T09:19:33.360Z [ERROR] MCP server "weather" Server stderr: Weather MCP running\n')
    assert sniffed(claude_code_debug) != FMT
    polluted = (b'2025-04-11T23:02:58.137Z [info] Initializing server...\n'
                + b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n' * 5)
    assert sniffed(polluted) == "jsonl"


_garbage = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=80)
_prefixes = st.sampled_from(["", "2025-04-11T23:02:58.137Z [w] [info] ", "2025-04-11T23:02:58.137Z [error] [w] ",
                             "2025-04-11T23:02:58.137Z [w] [info] Message from client: ",
                             "2025-04-11T23:02:58.137Z [w] [info] Message from server: ", "  metadata: {", "}"])


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(_prefixes, _garbage), max_size=12))
def test_garbage_lines_never_crash_and_keep_line_count(pairs):
    data = sample("claude-desktop-mcp-server-weather.log") + "".join(p + g + "\n" for p, g in pairs).encode()
    assert_one_record_per_line(data, FMT)
    lint_engine(data, FMT)


def test_frames_of_names_the_format():
    assert frames_of(sample("claude-desktop-mcp.log"))[0] == FMT

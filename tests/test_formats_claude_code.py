"""Claude Code readers: mcp-logs JSONL and the --debug log hold events, not messages."""

from __future__ import annotations

import orjson
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.cli import main
from mcplint.model import Direction, Kind, Severity
from tests.formats_helpers import SAMPLES, assert_one_record_per_line, lint, lint_engine, records_of, sample, sniffed

JSONL, DEBUG = "claude-code-mcp-logs", "claude-code-debug"
JSONL_SAMPLE, DEBUG_SAMPLE = "claude-code-mcp-logs-weather.jsonl", "claude-code-debug.txt"


def _entry(key: str, text: str, run: str = "3f2c", ts: str = "2026-01-12T09:19:32.944Z") -> bytes:
    return orjson.dumps({key: text, "timestamp": ts, "sessionId": run, "cwd": "/p"}) + b"\n"


def _diagnoses(name: str):
    result = CliRunner().invoke(main, ["diagnose", "--output-format", "json", str(SAMPLES / name)])
    assert result.exit_code == 0, result.output
    return {d["session"]: d for d in orjson.loads(result.output)}


def _reached(d) -> list[str]:
    return [s["stage"] for s in d["stages"] if s["reached"]]


def test_samples_sniff_and_account_for_every_line():
    for name, fmt in ((JSONL_SAMPLE, JSONL), (DEBUG_SAMPLE, DEBUG)):
        data = sample(name)
        assert sniffed(data) == fmt
        assert_one_record_per_line(data, fmt)


def test_check_says_messages_are_absent_and_reports_only_quoted_pollution():
    findings = lint(sample(DEBUG_SAMPLE))
    assert sorted((f.code, f.line, f.severity) for f in findings) == [
        ("IO001", 13, Severity.ERROR), ("IO014", 1, Severity.INFO)]
    assert "records events" in findings[-1].message
    assert "'Jira...'" in findings[0].message


def test_no_message_is_invented():
    for name, fmt in ((JSONL_SAMPLE, JSONL), (DEBUG_SAMPLE, DEBUG)):
        records = records_of(sample(name), fmt)
        assert not [r for r in records if r.is_message]
        assert [r.kind for r in records if r.direction is not None] == [Kind.TEXT]


def test_stderr_connections_and_sessions():
    records = records_of(sample(JSONL_SAMPLE), JSONL)
    stderr = [r for r in records if r.kind is Kind.STDERR]
    assert stderr[0].text == "Weather MCP server v1.4.0 running on stdio"
    assert {r.session_key for r in records} == {"claude-code#1", "claude-code#2"}
    debug = records_of(sample(DEBUG_SAMPLE), DEBUG)
    untimed = next(r for r in debug if r.line == 6)
    assert untimed.kind is Kind.STDERR and untimed.session_key == "weather#1"
    assert {r.session_key for r in debug} == {None, "weather#1", "jira#1", "jira#2"}


def test_a_new_session_id_starts_a_new_session_even_without_starting_line():
    data = _entry("debug", "Calling MCP tool: a") + _entry("debug", "Calling MCP tool: b", run="other")
    assert [r.session_key for r in records_of(data, JSONL)] == ["claude-code#1", "claude-code#2"]


def test_diagnose_reads_events_as_lifecycle_evidence():
    found = _diagnoses(DEBUG_SAMPLE)
    weather, jira, retry = found["weather#1"], found["jira#1"], found["jira#2"]
    assert weather["last_stage"] == "tool_returned" and "initialize_answered" in _reached(weather)
    assert [t["line"] for t in weather["timeouts"]] == [18]
    assert jira["last_stage"] == "initialized_sent" and "not JSON to stdout" in jira["suspect"]
    assert jira["stdout_pollution"][0]["text"] == "Jira..."
    assert _reached(retry) == ["transport"] and len(retry["timeouts"]) == 2
    assert retry["exit"]["by"] == "client"


def test_unplaced_response_is_a_note_not_a_message():
    found = _diagnoses(JSONL_SAMPLE)
    assert any("no longer waiting" in note for note in found["claude-code#1"]["notes"])
    ended = found["claude-code#2"]["exit"]
    assert ended["source"] == "Claude Code log" and ended["traceback"]["exception"].startswith("BrokenPipeError")


def test_bun_and_v8_parse_errors_quote_the_stdout_line():
    data = (_entry("debug", 'Connection error: JSON Parse error: Unexpected identifier "Starting"')
            + _entry("debug", "Connection error: Unexpected token 'S', \"Starting W\"... is not valid JSON"))
    texts = [(r.text, r.direction) for r in records_of(data, JSONL)]
    assert texts == [("Starting...", Direction.S2C), ("Starting W...", Direction.S2C)]


def test_other_json_lines_are_not_claude_code():
    rpc_error = b'{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"},"timestamp":"t"}\n' * 3
    assert sniffed(rpc_error) == "jsonl"
    assert sniffed(b"2026-03-02T18:44:15.902Z [info] Attempting to connect to MCP server weather...\n") \
        == "claude-desktop"


def test_unreadable_entries_are_reported_not_dropped():
    data = _entry("debug", "Starting connection") + b'{"debug": 3}\nnot json\n'
    records = assert_one_record_per_line(data, JSONL)
    assert [r.kind for r in records[1:]] == [Kind.MALFORMED, Kind.MALFORMED]


_garbage = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=60)
_debug_prefixes = st.sampled_from(["", "2026-03-02T18:44:15.902Z [DEBUG] ", '2026-03-02T18:44:15.902Z [ERROR] MCP server "w" ',
                                   '2026-03-02T18:44:15.902Z [DEBUG] MCP server "w": ', "Server stderr: "])


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(_debug_prefixes, _garbage), max_size=10), st.lists(_garbage, max_size=6))
def test_garbage_never_crashes_and_keeps_line_count(debug_lines, events):
    debug = sample(DEBUG_SAMPLE) + "".join(p + g + "\n" for p, g in debug_lines).encode()
    assert_one_record_per_line(debug, DEBUG)
    lint_engine(debug, DEBUG)
    jsonl = sample(JSONL_SAMPLE) + b"".join(_entry("error", "Server stderr: " + e) + _entry("debug", e) for e in events)
    assert_one_record_per_line(jsonl, JSONL)
    lint_engine(jsonl, JSONL)


def test_a_parse_error_quoting_no_text_is_a_diagnose_note():
    data = (_entry("debug", "Starting connection with timeout of 30000ms")
            + _entry("debug", "Connection error: Unexpected non-whitespace character after JSON at position 4"))
    records = records_of(data, JSONL)
    assert [r.kind for r in records] == [Kind.COMMENT, Kind.COMMENT]  # no text is invented
    assert "could not parse a line of the server's stdout" in records[1].msg["host_note"]

"""Cursor "MCP Logs" reader: events per server tag, stdout pollution and unknown-id evidence."""

from __future__ import annotations

import orjson
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.cli import main
from mcplint.model import Direction, Kind, Severity
from tests.formats_helpers import SAMPLES, assert_one_record_per_line, lint, lint_engine, records_of, sample, sniffed

FMT, NAME = "cursor", "cursor-mcp-logs.log"


def test_sample_sniffs_accounts_for_every_line_and_reports_only_the_quoted_pollution():
    data = sample(NAME)
    assert sniffed(data) == FMT
    records = assert_one_record_per_line(data, FMT)
    assert not [r for r in records if r.is_message]
    findings = sorted((f.code, f.line, f.severity) for f in lint(data))
    assert findings == [("IO001", 14, Severity.ERROR), ("IO014", 1, Severity.INFO)]
    polluted = next(r for r in records if r.kind is Kind.TEXT)
    assert (polluted.text, polluted.direction, polluted.session_key) == ("Starting J...", Direction.S2C, "user-jira#1")


def test_sessions_per_tag_and_start_and_cursors_own_lines_apart():
    records = records_of(sample(NAME), FMT)
    assert {r.session_key for r in records} == {"user-weather#1", "user-jira#1", None}
    assert next(r for r in records if r.line == 18).session_key == "user-weather#1"  # untimed: the entry goes on
    restart = b"2025-07-10 10:49:31.104 [info] a1b2: Starting new stdio process with command: x\n" * 2
    assert [r.session_key for r in records_of(restart, FMT)] == ["a1b2#1", "a1b2#2"]


def test_diagnose_reads_stages_timeouts_notes_and_endings():
    result = CliRunner().invoke(main, ["diagnose", "--output-format", "json", str(SAMPLES / NAME)])
    found = {d["session"]: d for d in orjson.loads(result.output)}
    weather, jira = found["user-weather#1"], found["user-jira#1"]
    assert weather["last_stage"] == "tool_returned" and [t["line"] for t in weather["timeouts"]] == [22]
    assert any("no longer waiting" in note for note in weather["notes"])
    assert jira["exit"]["source"] == "Cursor MCP log" and jira["stdout_pollution"][0]["line"] == 14


def test_other_logs_are_not_cursor():
    vscode = sample("vscode-mcp-output-weather.log")
    assert sniffed(vscode) == "vscode"
    assert sniffed(sample("claude-code-debug.txt")) == "claude-code-debug"


_garbage = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=60)
_prefixes = st.sampled_from(["", "2025-07-10 10:49:31.104 [info] ", "2025-07-10 10:49:31.104 [error] x: ",
                             "2025-07-10 10:49:31.104 [error] x: Client error for command ",
                             "2025-07-10 10:49:31.104 [info]  MCP: "])


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(_prefixes, _garbage), max_size=10))
def test_garbage_never_crashes_and_keeps_line_count(pairs):
    data = sample(NAME) + "".join(p + g + "\n" for p, g in pairs).encode()
    assert_one_record_per_line(data, FMT)
    lint_engine(data, FMT)

"""VS Code MCP output channel reader."""

from __future__ import annotations

import pytest
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

FMT = "vscode"
SAMPLES = ["vscode-mcp-output-weather.log", "vscode-mcp-output-2025-03.log"]


@pytest.mark.parametrize("name", SAMPLES)
def test_samples_sniff_and_account_for_every_line(name):
    data = sample(name)
    assert sniffed(data) == FMT
    assert_one_record_per_line(data, FMT)


def test_markers_give_direction_and_local_time():
    messages = messages_of(sample("vscode-mcp-output-weather.log"), FMT)
    by_line = {r.line: r for r in messages}
    assert by_line[19].direction is Direction.C2S and by_line[19].direction_observed
    assert by_line[22].direction is Direction.S2C
    assert by_line[27].method == "roots/list" and by_line[27].direction is Direction.S2C
    assert by_line[28].direction is Direction.C2S  # the editor's answer
    assert by_line[19].ts == "2026-01-06T14:50:03.170"  # local time, no zone invented
    assert by_line[22].t - by_line[19].t == pytest.approx(0.751)


def test_march_2025_markers():
    messages = messages_of(sample("vscode-mcp-output-2025-03.log"), FMT)
    assert [r.direction for r in messages[:3]] == [Direction.C2S, Direction.S2C, Direction.C2S]
    assert {r.session_key for r in messages} == {"github#1"}


def test_restarts_are_sessions_and_stderr_is_kept():
    records = records_of(sample("vscode-mcp-output-weather.log"), FMT)
    stderr = [r for r in records if r.kind is Kind.STDERR]
    assert [r.line for r in stderr] == [8, 9, 10, 11, 21]
    assert stderr[1].text == '  File "/home/dev/weather/server.py", line 3, in <module>'  # indentation kept
    assert {r.session_key for r in stderr[:4]} == {"weather#1"} and stderr[4].session_key == "weather#2"
    sessions = {r.session_key for r in records if r.kind in (Kind.REQUEST, Kind.RESULT, Kind.NOTIFICATION)}
    assert sessions == {"weather#1", "weather#2"}
    assert [(f.code, f.line) for f in lint(sample("vscode-mcp-output-weather.log"))] == [("HX001", 6)]


def test_pasted_lines_without_prefix():
    text = (b'[editor -> server] {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            b'"capabilities":{},"clientInfo":{"name":"Visual Studio Code","version":"1.101.0"}}}\n'
            b'[server -> editor] {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},'
            b'"serverInfo":{"name":"s","version":"1"}}}\n')
    assert sniffed(text) == FMT
    assert [r.direction for r in messages_of(text, FMT)] == [Direction.C2S, Direction.S2C]


def test_unprefixed_lines_continue_the_entry_before():
    text = (b"2025-07-05 22:27:17.634 [warning] [server stderr] Error: boom\n"
            b"    at main (/srv/index.js:3:9)\n"
            b"2025-07-05 22:27:17.700 [error] Server exited before responding to `initialize` request.\n"
            b"  (details follow)\n")
    kinds = [r.kind for r in assert_one_record_per_line(text, FMT)]
    assert kinds == [Kind.STDERR, Kind.STDERR, Kind.COMMENT, Kind.COMMENT]


def test_broken_payload_is_reported():
    text = b'2026-01-06 14:50:03.926 [debug] [server -> editor] {"jsonrpc":"2.0","id":2,"result":\n'
    records = assert_one_record_per_line(text, FMT)
    assert records[0].kind is Kind.MALFORMED and records[0].direction is Direction.S2C
    assert "JR002" in {f.code for f in lint(text, FMT)}


def test_jsonl_with_a_vscode_line_stays_jsonl():
    data = b'2026-01-06 14:50:01.002 [info] Starting server weather\n' + b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n' * 4
    assert sniffed(data) == "jsonl"


_garbage = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=80)
_prefixes = st.sampled_from(["", "2026-01-06 14:50:03.926 [debug] ", "2026-01-06 14:50:03.926 [debug] [editor -> server] ",
                             "2026-01-06 14:50:03.926 [debug] [server -> editor] ", "[Server Says] ",
                             "2026-01-06 14:50:03.926 [warning] [server stderr]", "2026-01-06 14:50:03.926 [info] Starting server "])


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(_prefixes, _garbage), max_size=12))
def test_garbage_lines_never_crash_and_keep_line_count(pairs):
    data = sample("vscode-mcp-output-2025-03.log") + "".join(p + g + "\n" for p, g in pairs).encode()
    assert_one_record_per_line(data, FMT)
    lint_engine(data, FMT)

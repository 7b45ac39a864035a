"""mcplint stats: counts, latency percentiles, error codes, isError rate, open requests."""

from __future__ import annotations

import orjson
from click.testing import CliRunner

from mcplint.cli import main


def capture(*entries):
    lines = []
    for second, direction, message in entries:
        lines.append(orjson.dumps({"ts": f"2026-01-01T00:00:{second:06.3f}Z", "dir": direction,
                                   "raw": orjson.dumps(message).decode()}))
    return b"\n".join(lines).decode() + "\n"


TEXT = capture(
    (0.0, "c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
    (0.01, "s2c", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18",
                                                        "capabilities": {"tools": {}},
                                                        "serverInfo": {"name": "s", "version": "1"}}}),
    (0.02, "c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    (1.0, "c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a", "arguments": {}}}),
    (1.5, "s2c", {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": True}}),
    (2.0, "c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "a", "arguments": {}}}),
    (4.0, "s2c", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "boom"}}),
    (5.0, "c2s", {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "a", "arguments": {}}}),
)


def test_stats_json():
    result = CliRunner().invoke(main, ["stats", "--output-format", "json", "-"], input=TEXT)
    assert result.exit_code == 0, result.output
    overall = orjson.loads(result.output)["overall"]
    calls = next(r for r in overall["methods"] if r["method"] == "tools/call")
    assert calls["c2s"] == 3 and calls["s2c"] == 2 and calls["errors"] == 1
    assert calls["max"] == 2.0 and calls["p50"] in (0.5, 2.0)
    assert overall["tool_calls"] == 1 and overall["tool_is_error"] == 1  # the error is not a tool result
    assert overall["errors_by_code"] == [{"method": "tools/call", "code": -32603, "count": 1}]
    assert overall["unanswered"] == {"tools/call": 1}


def test_stats_table():
    result = CliRunner().invoke(main, ["stats", "-"], input=TEXT)
    assert result.exit_code == 0
    assert "tools/call" in result.output and "isError: 1/1" in result.output
    assert "unanswered requests: tools/call×1" in result.output


def test_sessions_beyond_the_limit_count_in_the_overall_only(monkeypatch):
    import mcplint.stats

    monkeypatch.setattr(mcplint.stats, "MAX_SESSIONS", 2)
    result = CliRunner().invoke(main, ["stats", "--output-format", "json", "-"], input=TEXT * 4)
    document = orjson.loads(result.output)
    assert len(document["sessions"]) == 2 and document["sessions_not_shown"] == 2
    calls = next(r for r in document["overall"]["methods"] if r["method"] == "tools/call")
    assert calls["c2s"] == 12 and calls["s2c"] == 8
    assert document["overall"]["unanswered"] == {"tools/call": 4}
    single = orjson.loads(CliRunner().invoke(main, ["stats", "--output-format", "json", "-"], input=TEXT).output)
    assert sum(document["overall"]["findings"].values()) == 4 * sum(single["overall"]["findings"].values()) > 0
    table = CliRunner().invoke(main, ["stats", "-"], input=TEXT * 4).output
    assert "(2 more session(s) count in the overall figures only)" in table

"""mcplint stats: counts, latency percentiles, error codes, isError rate, open requests."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcplint.api import LintOptions, lint_paths
from mcplint.cli import main
from mcplint.commands.stats.collect import StatsCollector, as_dict, code_key, merged
from mcplint.commands.stats.render import render_tables
from mcplint.protocol import ERROR_NAMES


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
    assert overall["errors_by_code"] == {"-32603": {"count": 1, "name": "internal error",
                                                    "methods": {"tools/call": 1}}}
    assert overall["unanswered"] == {"tools/call": 1}


def test_stats_table():
    result = CliRunner().invoke(main, ["stats", "-"], input=TEXT)
    assert result.exit_code == 0
    assert "tools/call" in result.output and "isError: 1/1" in result.output
    assert "unanswered requests: tools/call×1" in result.output


def test_sessions_beyond_the_limit_count_in_the_overall_only(monkeypatch):
    import mcplint.commands.stats.collect

    monkeypatch.setattr(mcplint.commands.stats.collect, "MAX_SESSIONS", 2)
    result = CliRunner().invoke(main, ["stats", "--output-format", "json", "-"], input=TEXT * 4)
    document = orjson.loads(result.output)
    assert len(document["sessions"]) == 2 and document["sessions_not_shown"] == 2
    calls = next(r for r in document["overall"]["methods"] if r["method"] == "tools/call")
    assert calls["c2s"] == 12 and calls["s2c"] == 8
    assert document["overall"]["unanswered"] == {"tools/call": 4}
    assert document["overall"]["errors_by_code"]["-32603"]["count"] == 4  # folded sessions add once
    single = orjson.loads(CliRunner().invoke(main, ["stats", "--output-format", "json", "-"], input=TEXT).output)
    assert sum(document["overall"]["findings"].values()) == 4 * sum(single["overall"]["findings"].values()) > 0
    table = CliRunner().invoke(main, ["stats", "-"], input=TEXT * 4).output
    assert "(2 more session(s) count in the overall figures only)" in table


def collect(tmp_path, text):
    """Run the stats collector over ``text`` (as ``mcplint stats`` does, without the command line)."""
    path = tmp_path / "capture.jsonl"
    path.write_text(text)
    collector = StatsCollector()
    _, summary = lint_paths([str(path)], None, LintOptions(), observers=[collector])
    collector.add_findings([])
    return collector, merged(collector.all_figures()), summary


def initialize(second):
    return [(second, "c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
            (second + 0.01, "s2c", {"jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}, "prompts": {}},
                "serverInfo": {"name": "s", "version": "1"}}}),
            (second + 0.02, "c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"})]


def failing(second, id, method, code, params=None):
    """A request and the error answering it."""
    return [(second, "c2s", {"jsonrpc": "2.0", "id": id, "method": method, "params": params or {"name": "a"}}),
            (second + 0.5, "s2c", {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "no"}})]


#: Two sessions: -32602 answers tools/call and prompts/get in the first, tools/call and a request
#: nobody sent in the second, which also answers an unreadable message with -32700.
TWO_SESSIONS = capture(
    *initialize(0), *failing(1, 1, "tools/call", -32602), *failing(2, 2, "prompts/get", -32602),
    *initialize(10), *failing(11, 1, "tools/call", -32602),
    (12, "s2c", {"jsonrpc": "2.0", "id": 99, "error": {"code": -32602, "message": "no"}}),
    (13, "s2c", {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}))


def test_an_error_code_is_one_row_with_the_methods_it_answered(tmp_path):
    collector, overall, summary = collect(tmp_path, TWO_SESSIONS)
    assert len(collector.labelled()) == 2
    errors = as_dict(overall)["errors_by_code"]
    assert errors == {
        "-32602": {"count": 4, "name": "invalid params",
                   "methods": {"tools/call": 2, "(unknown request)": 1, "prompts/get": 1}},
        "-32700": {"count": 1, "name": "parse error", "methods": {"(unknown request)": 1}}}
    assert list(errors) == ["-32602", "-32700"]  # most frequent first
    first = as_dict(next(iter(collector.labelled().values())))["errors_by_code"]
    assert first == {"-32602": {"count": 2, "name": "invalid params", "methods": {"prompts/get": 1, "tools/call": 1}}}
    orjson.dumps({"overall": as_dict(overall)})  # serialisable as the command writes it

    table = render_tables(overall, collector.labelled(), summary).split("Overall:")[1]
    rows = [line.split() for line in table.splitlines() if line.lstrip().startswith("-327")
            or line.lstrip().startswith("-326")]
    assert rows == [["-32602", "invalid", "params", "4", "tools/call", "×2,", "(unknown", "request)", "×1,",
                     "prompts/get", "×1"],
                    ["-32700", "parse", "error", "1", "(unknown", "request)", "×1"]]
    calls = next(line for line in table.splitlines() if line.startswith("tools/call"))
    assert calls.split()[3] == "2"  # the errors column of the method table agrees


def test_merged_figures_add_error_counts(tmp_path):
    collector, overall, _ = collect(tmp_path, TWO_SESSIONS)
    twice = merged([overall, overall])
    assert as_dict(twice)["errors_by_code"]["-32602"] == {
        "count": 8, "name": "invalid params", "methods": {"tools/call": 4, "(unknown request)": 2, "prompts/get": 2}}
    assert as_dict(overall)["errors_by_code"]["-32602"]["count"] == 4  # the parts stay as they were


def test_codes_that_are_no_integers_count_apart_and_do_not_crash(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPLINT_DEBUG", "1")  # a crash of the collector raises instead of being logged
    codes = [-32601, -32601.0, "-32601", {"a": 1}, [1], True, None, "x" * 1000]
    entries = [entry for n, code in enumerate(codes, 1) for entry in failing(n, n, "tools/call", code)]
    entries.append((20, "s2c", {"jsonrpc": "2.0", "id": 50, "error": {"message": "no code"}}))
    entries.append((21, "s2c", {"jsonrpc": "2.0", "id": 51, "error": "not an object"}))
    _, overall, summary = collect(tmp_path, capture(*initialize(0), *entries))
    errors = as_dict(overall)["errors_by_code"]
    assert {code: row["count"] for code, row in errors.items()} == {
        "-32601": 1, "-32601.0": 1, '"-32601"': 1, '{"a":1}': 1, "[1]": 1, "true": 1, "null": 1,
        '"' + "x" * 38 + "…": 1, "(no code)": 2}
    assert [row["name"] for row in errors.values() if row["name"]] == ["method not found"]
    assert "(no code)" in render_tables(overall, {}, summary)


def test_code_keys_stay_bounded_and_masked():
    assert code_key({"error": {"code": 10 ** 5000}}) == "(integer of 16610 bits)"
    assert code_key({"error": {"code": {"deep": [2 ** 70]}}}) == "(dict)"  # orjson writes 64 bits at most
    assert code_key({"error": {"code": float("nan")}}) == "nan"
    assert code_key({"error": {"code": 4111111111111111}}) != "4111111111111111"  # a card number is masked
    assert code_key({"error": {"code": -32042}}) == "-32042"


SHARED_SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec"


@pytest.mark.skipif(not SHARED_SPEC.is_dir(), reason="../shared/spec not present")
def test_every_error_code_of_the_schemas_has_its_name():
    import re

    spec = SHARED_SPEC
    constants = {int(code): name.replace("_", " ").lower() for schema in spec.glob("*/schema.ts")
                 for name, code in re.findall(r"export const (\w+) = (-32\d{3});", schema.read_text())}
    assert constants, "no schemas found"
    assert {code: name.lower() for code, name in ERROR_NAMES.items() if code in constants} == constants
    assert ERROR_NAMES[-32002] == "resource not found"  # from the prose, not a schema constant

"""mcplint convert: any input format to the canonical capture format (and to plain JSON Lines)."""

from __future__ import annotations

import io

import orjson
import pytest
from click.testing import CliRunner

from mcplint.cli import main
from mcplint.commands.convert import convert_stream
from mcplint.input.readers import UnknownFormat
from tests.formats_helpers import SAMPLES, lint, sample

CONVERTIBLE = ["claude-desktop-mcp-server-weather.log", "claude-desktop-mcp-server-weather-2026.log",
               "claude-desktop-mcp.log", "vscode-mcp-output-weather.log", "vscode-mcp-output-2025-03.log",
               "inspector-history-weather-2026-05-27T10-01-03.120Z.json", "mcpspy-weather.jsonl",
               "mcpsnoop-weather.jsonl", "go-sdk-logging-transport-server.log", "stdout-banner.mcplog",
               "clean-2025-06-18.mcplog", "clean-transcript-2025-06-18.transcript",
               "claude-code-mcp-logs-weather.jsonl", "claude-code-debug.txt", "cursor-mcp-logs.log",
               "python-sdk-client-debug.log", "mcp-proxy-debug.log"]


def convert(data: bytes, to: str = "capture", fmt: str = "auto"):
    out = io.StringIO()
    warnings: list[tuple[int, str]] = []
    result = convert_stream(io.BytesIO(data), out, to, fmt, "<t>", lambda line, message: warnings.append((line, message)))
    return out.getvalue(), warnings, result


def codes(findings):
    return sorted((f.code, f.session) for f in findings)


@pytest.mark.parametrize("name", CONVERTIBLE)
def test_capture_round_trip_keeps_every_finding(name):
    data = sample(name)
    text, warnings, result = convert(data)
    assert warnings == []
    converted = text.encode()
    assert lint(converted, "capture") is not None
    before = [(f.code, f.session) for f in lint(data)]
    after = [(f.code, f.session) for f in lint(converted, "capture")]
    if result.input_format in ("jsonl", "transcript"):  # sessions are numbered the same way
        assert sorted(before) == sorted(after)
    else:
        assert sorted(c for c, _ in before) == sorted(c for c, _ in after)
        # a label that looks like a session credential is masked in findings and redacted by convert
        masked = {None if s is None else "[REDACTED]" if s.startswith("[REDACTED") else s for _, s in after}
        assert {s for _, s in before} <= masked | {None}


def test_capture_records_carry_time_direction_session_and_stderr():
    text, _, result = convert(sample("claude-desktop-mcp.log"))
    assert result.input_format == "claude-desktop"
    records = [orjson.loads(line) for line in text.splitlines()]
    assert records[0] == {"ts": "2025-06-23T03:35:12.094Z", "dir": "c2s", "raw": records[0]["raw"],
                          "session": "weather#2"}
    assert orjson.loads(records[0]["raw"])["method"] == "initialize"
    assert {r["dir"] for r in records} == {"c2s", "s2c", "meta"}  # meta: how connections ended
    assert all(r["event"] in ("exit", "closed") for r in records if r["dir"] == "meta")
    text, _, _ = convert(sample("mcpsnoop-weather.jsonl"))
    records = [orjson.loads(line) for line in text.splitlines()]
    ready = next(r for r in records if r["raw"] == "INFO:weather:weather server 1.5.0 ready on stdio")
    assert ready["ts"] == "2026-07-06T10:00:00.391Z" and ready["dir"] == "stderr" and ready["transport"] == "stdio"
    assert ready["session"].startswith("[REDACTED:session-id:")  # "server.py-48213-7f3a1c9e2b04" looks random
    assert {"dir": "s2c", "raw": "fetching forecast for Oslo..."}.items() <= records[7].items()  # pollution kept


def test_inferred_directions_and_wire_details_are_kept():
    data = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\r\n\xef\xbb\xbf{"jsonrpc":"2.0","id":1,"result":{}}\n'
    text, warnings, _ = convert(data)
    records = [orjson.loads(line) for line in text.splitlines()]
    assert [r["dir"] for r in records] == ["c2s", "s2c"] and warnings == []
    assert records[0]["raw"].endswith("\r") and records[1]["raw"].startswith("\ufeff")
    assert sorted(f.code for f in lint(data)) == sorted(f.code for f in lint(text.encode(), "capture"))


def test_uninterpretable_lines_become_warnings_with_line_numbers():
    data = sample("mcpsnoop-weather.jsonl").split(b"\n")
    data[3:3] = [b"garbage line here", b'{"not":"an envelope"}']
    text, warnings, result = convert(b"\n".join(data))
    assert [line for line, _ in warnings] == [4, 5]
    assert "not JSON" in warnings[0][1] and "garbage line here" in warnings[0][1]
    assert result.written == len(text.splitlines()) == 9  # everything else converted (meta dropped)


def test_unknown_direction_is_a_warning_for_capture_but_kept_in_jsonl():
    data = b'{"jsonrpc":"2.0","method":"x/custom"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    text, warnings, _ = convert(data)
    assert [line for line, _ in warnings] == [1] and "direction unknown" in warnings[0][1]
    assert len(text.splitlines()) == 1
    text, warnings, _ = convert(data, "jsonl")
    assert text.encode() == data and warnings == []


def test_to_jsonl_writes_the_messages_as_sent():
    text, _, _ = convert(sample("go-sdk-logging-transport-server.log"), "jsonl")
    lines = text.splitlines()
    assert len(lines) == 7 and lines[0].startswith('{"jsonrpc":"2.0","id":1,"method":"initialize"')
    pretty = (SAMPLES / "pretty-printed.jsonl").read_bytes()
    text, _, _ = convert(pretty, "jsonl")
    assert all(orjson.loads(line) for line in text.splitlines())  # re-assembled messages on one line


def test_unknown_input_raises():
    with pytest.raises(UnknownFormat):
        convert(b"just some text\nand more\n")


def test_cli(tmp_path):
    runner = CliRunner()
    out = tmp_path / "out.mcplog"
    result = runner.invoke(main, ["convert", str(SAMPLES / "vscode-mcp-output-weather.log"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().count("\n") == 20  # 11 messages, 5 stderr lines and 4 connection endings
    check = runner.invoke(main, ["check", "--output-format", "concise", str(out)])
    assert "HX001" in check.output
    result = runner.invoke(main, ["convert", "--to", "jsonl", "-"], input=sample("mcpspy-weather.jsonl"))
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 7
    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n")
    result = runner.invoke(main, ["convert", str(bad)])
    assert result.exit_code == 2 and "not in a known input format" in result.output
    assert runner.invoke(main, ["convert", str(tmp_path / "missing.log")]).exit_code == 2
    garbage = b"garbage\n" + sample("mcpsnoop-weather.jsonl")
    result = runner.invoke(main, ["convert", "--input-format", "mcpsnoop", "-"], input=garbage)
    assert result.exit_code == 0
    assert "mcplint: warning: -:1: mcpsnoop record is not JSON" in result.stderr


def test_events_of_a_host_log_are_kept_as_meta_records_for_diagnose():
    text, warnings, _ = convert(sample("claude-code-debug.txt"))
    records = [orjson.loads(line) for line in text.splitlines()]
    notes = [r for r in records if r["dir"] == "meta"]
    assert warnings == [] and notes and all(r.get("events_only") for r in notes)
    assert {"Starting connection with timeout of 30000ms", "Sending SIGINT to MCP server process"} <= {
        r["raw"] for r in notes}
    (info,) = [f for f in lint(text.encode(), "capture") if f.code == "IO014"]
    assert info.severity.value == "info"

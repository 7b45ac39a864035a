"""Sniffing across formats, unknown formats (exit 2), check -v, and redaction of the host-log formats."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner

from mcplint.cli import main
from mcplint.input.readers import INPUT_FORMATS
from mcplint.redact import HANDLERS, Redactor, redact_stream
from tests.formats_helpers import SAMPLES, sample, sniffed

#: The formats of this family and their samples (file name -> format).
OURS = {
    "claude-desktop-mcp-server-weather.log": "claude-desktop",
    "claude-desktop-mcp-server-weather-2026.log": "claude-desktop",
    "claude-desktop-mcp.log": "claude-desktop",
    "vscode-mcp-output-weather.log": "vscode",
    "vscode-mcp-output-2025-03.log": "vscode",
    "inspector-history-weather-2026-05-27T10-01-03.120Z.json": "inspector",
    "mcpspy-weather.jsonl": "mcpspy",
    "mcpsnoop-weather.jsonl": "mcpsnoop",
    "go-sdk-logging-transport-server.log": "go-sdk-log",
}
FORMATS = sorted(set(OURS.values()))


def run(args, stdin=None):
    return CliRunner().invoke(main, args, input=stdin)


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md"))
def test_every_sample_sniffs_as_its_own_format(name):
    fmt = sniffed(sample(name))
    if name in OURS:
        assert fmt == OURS[name]
    else:
        assert fmt not in FORMATS, f"{name} taken for {fmt}"


def test_formats_are_registered_with_descriptions():
    for name in FORMATS:
        assert name in INPUT_FORMATS and INPUT_FORMATS[name].description


def test_check_verbose_names_the_format():
    path = str(SAMPLES / "claude-desktop-mcp.log")
    result = run(["check", "-v", "--output-format", "concise", path])
    assert f"mcplint: reading {path} as claude-desktop" in result.stderr
    quiet = run(["check", "--output-format", "concise", path])
    assert "reading" not in quiet.stderr
    piped = run(["check", "--verbose", "-"], sample("mcpspy-weather.jsonl"))
    assert "mcplint: reading - as mcpspy" in piped.stderr and piped.exit_code == 0


def test_unknown_format_exits_two_naming_the_formats_tried(tmp_path):
    notes = tmp_path / "notes.log"
    notes.write_text("Windsurf MCP Logs\n2025-02-25 01:21:18.277 [info] a1b2: Refreshing plugin index\n")
    result = run(["check", str(notes)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "not in a known input format" in lines[0]
    assert all(name in lines[0] for name in ("jsonl", "capture", "transcript", *FORMATS))
    assert run(["check", "--input-format", "jsonl", str(notes)]).exit_code == 1  # read as told: IO001


def test_empty_and_blank_inputs_are_fine():
    for data in ("", "\n\n"):
        result = run(["check", "-"], data)
        assert result.exit_code == 0, (data, result.output)
    assert run(["check", "-"], "# a comment line, as transcripts have\n").exit_code != 2


def test_polluted_stdio_capture_is_still_read_as_jsonl():
    data = ("=== MCP Debug Wrapper Started ===\nArgs: --stdio\n"
            '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
            '"clientInfo":{"name":"c","version":"1"}}}\nINFO server ready\n')
    result = run(["check", "-v", "--output-format", "concise", "-"], data)
    assert "as jsonl" in result.stderr and "IO001" in result.output and result.exit_code == 1


def test_a_long_banner_before_the_first_message_is_not_unknown():
    data = "starting...\n" * 120 + '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    result = run(["check", "--output-format", "concise", "-"], data)
    assert result.exit_code == 1 and "IO001" in result.output


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_has_redaction(fmt):
    assert fmt in HANDLERS


@pytest.mark.parametrize("name", sorted(OURS))
def test_redaction_keeps_clean_samples_byte_identical(name):
    data = sample(name)
    out = io.BytesIO()
    redactor = Redactor()
    assert redact_stream(io.BytesIO(data), out, redactor) == OURS[name]
    changed = [(a, b) for a, b in zip(data.split(b"\n"), out.getvalue().split(b"\n")) if a != b]
    assert all(b"[REDACTED:home-user" in b or b"user-" in b for _, b in changed), changed


SECRETS = {
    "claude-desktop": (
        "2026-02-10T14:02:10.958Z [weather] [info] Using MCP server command: /usr/local/bin/uvx with args and path: {\n"
        "  metadata: {\n"
        "    args: [ 'weather-mcp', '--api-key', 'wk_live_9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c', [length]: 3 ],\n"
        "  }\n"
        "} %o\n"
        '2026-02-10T14:03:40.017Z [weather] [info] Message from client: {"method":"tools/call","params":{"name":"x",'
        '"arguments":{"password":"correct-horse-battery-staple-42"}},"jsonrpc":"2.0","id":12} { metadata: undefined }\n'
        "Authorization: Bearer ghp_1234567890abcdefghijklmnopqrstuvwxyzAB\n"),
    "vscode": (
        '2026-01-06 14:50:21.640 [debug] [editor -> server] {"jsonrpc":"2.0","id":3,"method":"tools/call","params":'
        '{"name":"login","arguments":{"password":"correct-horse-battery-staple-42"}}}\n'
        "2026-01-06 14:50:21.641 [warning] [server stderr] -----BEGIN PRIVATE KEY-----\n"
        "2026-01-06 14:50:21.641 [warning] [server stderr] MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n"
        "2026-01-06 14:50:21.641 [warning] [server stderr] -----END PRIVATE KEY-----\n"
        "2026-01-06 14:50:21.700 [warning] [server stderr] GITHUB_TOKEN=ghp_1234567890abcdefghijklmnopqrstuvwxyzAB\n"),
    "go-sdk-log": ('read: {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"login","arguments":'
                   '{"password":"correct-horse-battery-staple-42"}}}\n'),
    "mcpspy": ('{"timestamp":"2026-01-15T12:34:56.789Z","transport_type":"stdio","stdio_transport":{"from_pid":1,'
               '"from_comm":"node","to_pid":2,"to_comm":"python3"},"session":null,"type":"request","id":7,'
               '"params":{"arguments":{"password":"correct-horse-battery-staple-42"}},"error":{},'
               '"raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":7,\\"method\\":\\"tools/call\\",\\"params\\":{\\"arguments\\":'
               '{\\"password\\":\\"correct-horse-battery-staple-42\\"}}}"}\n'),
    "mcpsnoop": (
        '{"session_id":"s-1","server_label":"w","seq":1,"ts":"2026-07-06T10:00:01.234Z","direction":"c2s",'
        '"transport":"stdio","raw":{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":'
        '{"password":"correct-horse-battery-staple-42"}}}}\n'
        '{"session_id":"s-1","server_label":"w","seq":2,"ts":"2026-07-06T10:00:01.300Z","direction":"stderr",'
        '"transport":"stdio","text":"-----BEGIN PRIVATE KEY-----"}\n'
        '{"session_id":"s-1","server_label":"w","seq":3,"ts":"2026-07-06T10:00:01.300Z","direction":"stderr",'
        '"transport":"stdio","text":"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"}\n'
        '{"session_id":"s-1","server_label":"w","seq":4,"ts":"2026-07-06T10:00:01.300Z","direction":"stderr",'
        '"transport":"stdio","text":"-----END PRIVATE KEY-----"}\n'),
    "inspector": ('[\n  {\n    "id": "m-1",\n    "timestamp": "2026-05-27T10:00:40.012Z",\n    "direction": "request",\n'
                  '    "origin": "client",\n    "message": {\n      "jsonrpc": "2.0",\n      "id": 3,\n'
                  '      "method": "tools/call",\n      "params": {\n        "arguments": {\n'
                  '          "password": "correct-horse-battery-staple-42"\n        }\n      }\n    }\n  }\n]\n'),
}


@pytest.mark.parametrize("fmt", sorted(SECRETS))
def test_redaction_removes_planted_secrets_and_keeps_the_format(fmt):
    data = SECRETS[fmt].encode()
    out = io.BytesIO()
    assert redact_stream(io.BytesIO(data), out, Redactor(), fmt) == fmt
    text = out.getvalue().decode()
    for secret in ("correct-horse-battery-staple-42", "ghp_1234567890", "wk_live_9f8a", "MIIEvQIBADAN"):
        assert secret not in text, (fmt, secret, text)
    assert text.count("\n") == data.count(b"\n")
    assert sniffed(out.getvalue()) == fmt
    if fmt == "vscode":
        assert text.splitlines()[2].startswith("2026-01-06 14:50:21.641 [warning] [server stderr] [REDACTED:")

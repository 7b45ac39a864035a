"""mcplint show: timeline table with pairing and latency, filters, Mermaid (the HTML page: test_show_html.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from mcplint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "samples" / "progress-after-cancel.mcplog")


def show(*args):
    result = CliRunner().invoke(main, ["show", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_table_pairs_requests_and_shows_latency_and_findings():
    text = show(SAMPLE)
    call = next(line for line in text.splitlines() if line.split()[:1] == ["7"])
    assert "tools/call" in call and "→15" in call and "59.00 s" in call
    late = next(line for line in text.splitlines() if line.split()[:1] == ["15"])
    assert "←7" in late and "CN006" in late


def test_filters():
    text = show(SAMPLE, "--method", "tools/call", "--direction", "s2c")
    body = text.split("-----\n")[-1].splitlines()
    assert body and all("S→C" in line and "tools/call" in line for line in body)
    assert [line.split()[0] for line in show(SAMPLE, "--id", "2", "--format", "mermaid").splitlines()[3:5]] == [
        "C->>S:", "S-->>C:"]
    assert "initialize" not in show(SAMPLE, "--since", "5")


def test_mermaid():
    text = show(str(ROOT / "samples" / "reused-ids.jsonl"), "--format", "mermaid")
    assert text.startswith("sequenceDiagram")
    assert "C->>S: tools/call " in text and "Note over C,S: ⛔ error JR006" in text


# -- the data every view reads (Row fields, SessionHeader, synthetic rows, anchors) -------------

def collect(*paths):
    from mcplint.api import LintOptions, lint_paths
    from mcplint.commands.show.timeline import TimelineCollector

    collector = TimelineCollector()
    findings, _ = lint_paths([str(p) for p in paths], None, LintOptions(), observers=[collector])
    collector.attach(findings)
    return collector, findings


def test_rows_say_what_happened():
    rows = {row.anchor: row for row in collect(ROOT / "samples" / "unknown-tool-iserror.mcplog")[0].rows}
    assert rows["f1-L7"].label == rows["f1-L9"].label == "tools/call get_weather"
    assert rows["f1-L9"].detail == rows["f1-L7"].detail == "isError: Unknown tool: get_weather"
    assert rows["f1-L6"].detail == "2 tools" and rows["f1-L2"].detail == "weather 1.12.4 2025-06-18"
    assert rows["f1-L5"].label.startswith("[11/30/26 09:41:06] INFO Processing request of type ListToolsRequest")
    assert not any(row.inferred for row in rows.values())
    modern = {row.line: row for row in collect(ROOT / "samples" / "clean-2026-07-28.mcplog")[0].rows}
    assert modern[13].label == modern[14].label == "resources/read weather://stations/KSEA/latest"
    assert modern[17].label == "prompts/get plan_outdoor_day" and modern[8].label == "notifications/progress 1/2"
    inferred = collect(ROOT / "samples" / "reused-ids.jsonl")[0].rows
    assert all(row.inferred for row in inferred) and inferred[0].arrow == "C→S?"


def test_http_rows_and_status():
    collector, findings = collect(ROOT / "samples" / "http-auth-mistakes-2025-11-25.har")
    rows = {row.anchor: row for row in collector.rows}
    assert rows["f1-L10"].kind == "http" and rows["f1-L10"].label == "HTTP POST /mcp (initialize)"
    assert rows["f1-L10"].detail == "HTTP 401" and rows["f1-L10"].http_status == 401
    assert [f.code for f in rows["f1-L10"].findings] == ["AU003"]
    assert rows["f1-L241"].label == "HTTP POST /mcp?… (tools/list)"  # the query holds a token
    assert {f.code for f in rows["f1-L241"].findings} == {"AU001", "AU002"}
    assert rows["f1-L304"].kind == "request" and rows["f1-L304-2"].kind == "error"
    assert rows["f1-L304-2"].detail == "error -32001 Unauthorized: token expired"
    assert rows["f1-L304"].http_status == 200 and rows["f1-L372"].label == "HTTP DELETE /mcp"
    assert sum(len(row.findings) for row in collector.rows) == len(findings) == 4
    # the legacy SSE transport: responses arrive on the GET stream between a POST and its exchange
    sse = collect(ROOT / "samples" / "clean-http-sse-transport-2024-11-05.har")[0].rows
    assert [row.label for row in sse if row.kind == "http"] == ["HTTP GET /sse"]
    assert all(row.http_status == 202 for row in sse if row.kind == "request")


def test_whole_message_is_pretty_masked_and_elided():
    import json

    from mcplint.commands.show.timeline import MAX_MESSAGE, whole_message

    token = "ghp_" + "a1B2c3D4e5" * 4
    text = whole_message({"jsonrpc": "2.0", "id": 1, "result": {"content": [
        {"type": "image", "data": "QUJD" * 1000, "mimeType": "image/png"}, {"type": "text", "text": f"key {token}"},
        {"type": "text", "text": "long " * 1000}]}})
    assert token not in text and '"key [REDACTED]"' in text and '"<… 5,000 bytes …>"' in text
    assert '"<… [REDACTED] image/png 3000 bytes …>"' in text
    assert text.startswith('{\n  "jsonrpc": "2.0"') and json.loads(text)["id"] == 1
    big = whole_message({"items": [f"item {i} " + "x" * 100 for i in range(2000)]})
    assert len(big) < MAX_MESSAGE + 100 and big.endswith("more characters not shown …>")
    rows = collect(ROOT / "samples" / "unknown-tool-iserror.mcplog")[0].rows
    assert json.loads(rows[6].message)["params"]["name"] == "get_weather"
    assert rows[4].kind == "stderr" and rows[4].message is None


def test_anchors_are_file_qualified_and_unique_and_every_finding_has_a_row():
    collector, findings = collect(ROOT / "samples")
    anchors = [row.anchor for row in collector.rows]
    assert len(anchors) == len(set(anchors)) > 1000
    assert all(re.fullmatch(r"f\d+-L\d+(-\d+)?", anchor) for anchor in anchors)
    assert len(collector.files) > 40 and {a.split("-")[0] for a in anchors} == {
        f"f{i}" for i in range(1, len(collector.files) + 1)}
    placed = [f for row in collector.rows for f in row.findings]
    assert len(placed) == len(findings) and {id(f) for f in placed} == {id(f) for f in findings}


def test_findings_without_a_row_get_a_synthetic_row():
    from mcplint.commands.show.timeline import Row, TimelineCollector
    from mcplint.model import Finding, Severity

    collector = TimelineCollector()
    for line in (3, 9):
        collector.rows.append(Row("a.mcplog", "1", line, None, "c2s", "request", "ping", line,
                                  anchor=collector._anchor("a.mcplog", line)))
    lost = [Finding("HX001", "x", Severity.ERROR, "before", "a.mcplog", 1, session="1"),
            Finding("HX002", "x", Severity.WARNING, "between", "a.mcplog", 5, session="1"),
            Finding("HX003", "x", Severity.INFO, "same line", "a.mcplog", 5, session="1"),
            Finding("HX004", "x", Severity.INFO, "other file", "b.mcplog", 0)]
    collector.attach(lost + [Finding("HX005", "x", Severity.INFO, "on a row", "a.mcplog", 9, session="1")])
    assert [(row.kind, row.line, row.anchor) for row in collector.rows] == [
        ("finding", 1, "f1-L1"), ("request", 3, "f1-L3"), ("finding", 5, "f1-L5"), ("finding", 5, "f1-L5-2"),
        ("request", 9, "f1-L9"), ("finding", 0, "f2-L0")]
    assert [f.code for row in collector.rows for f in row.findings] == ["HX001", "HX002", "HX003", "HX005", "HX004"]
    assert collector.rows[2].label == "HX002 between" and collector.rows[2].session == "1"


def test_session_header():
    collector, _ = collect(ROOT / "samples" / "unknown-tool-iserror.mcplog")
    (key, header), = collector.headers.items()
    assert key == (str(ROOT / "samples" / "unknown-tool-iserror.mcplog"), "1")
    assert (header.client, header.server) == ("claude-ai 0.1.0", "weather 1.12.4")
    assert header.requested_revision == header.negotiated_revision == "2025-06-18"
    assert header.server_capabilities == {"tools": {"listChanged": True}} or "tools" in header.server_capabilities
    assert (header.requests, header.responses, header.errors, header.notifications, header.stderr) == (4, 4, 0, 1, 3)
    assert header.findings == {"warning": 2, "info": 1} or sum(header.findings.values()) == 3
    assert header.duration is not None and header.duration > 0
    modern = next(iter(collect(ROOT / "samples" / "clean-2026-07-28.mcplog")[0].headers.values()))
    assert (modern.client, modern.server) == ("claude-code 2.1.4", "weather-server 3.0.0")
    assert modern.requested_revision == "2026-07-28" and modern.client_capabilities == {"elicitation": {"form": {}}}
    assert modern.instructions.startswith("Use get_forecast") and modern.stderr == 1
    http = collect(ROOT / "samples" / "http-auth-mistakes-2025-11-25.har")[0].headers
    assert {h.transport for h in http.values()} == {"http"}


# -- table, Markdown, whole messages, errors -----------------------------------------------------

def test_table_has_a_header_per_session():
    text = show(str(ROOT / "samples" / "unknown-tool-iserror.mcplog"))
    head, table = text.split("\n\n", 1)
    assert head.splitlines()[0].endswith("unknown-tool-iserror.mcplog · session 1")
    facts = dict(line.strip().split("  ", 1) for line in head.splitlines()[1:])
    facts = {name: value.strip() for name, value in facts.items()}
    assert facts["client"] == "claude-ai 0.1.0" and facts["server"] == "weather 1.12.4"
    assert facts["revision"] == "2025-06-18" and facts["client capabilities"] == "none"
    assert facts["server capabilities"] == "experimental, prompts, resources, tools"
    assert facts["traffic"] == "4 requests, 4 responses, 1 notification, 3 stderr lines in 12.64 s"
    assert facts["findings"] == "1 warning, 2 info"
    assert table.split()[:9] == ["line", "time", "Δt", "dir", "id", "what", "outcome", "pair", "latency"]
    call = next(line for line in table.splitlines() if line.split()[:1] == ["9"])
    assert "S→C" in call and "tools/call get_weather" in call and "isError: Unknown tool: get_weather" in call
    modern = show(str(ROOT / "samples" / "clean-2026-07-28.mcplog")).split("\n\n")[0]
    assert "instructions         Use get_forecast for multi-day forecasts" in modern
    assert "client capabilities  elicitation" in modern and "over" not in modern
    colored = CliRunner().invoke(main, ["show", "--color", "always",
                                        str(ROOT / "samples" / "unknown-tool-iserror.mcplog")])
    assert "\x1b[33m\x1b[1m1 warning\x1b[0m, \x1b[36m\x1b[1m2 info\x1b[0m" in colored.output
    inferred = show(str(ROOT / "samples" / "reused-ids.jsonl"))
    assert "C→S?" in inferred and "S→C?" in inferred


def test_table_of_a_har_shows_http_rows_and_status():
    text = show(str(ROOT / "samples" / "http-auth-mistakes-2025-11-25.har"), "--color", "never")
    assert text.count(" · session ") == 3 and "no JSON-RPC messages in 0 ms over http" in text
    assert "in 59 min 56 s over http" in text and "3 errors" in text
    entry = next(line for line in text.splitlines() if line.split()[:1] == ["241"])
    assert "HTTP POST /mcp?… (tools/list)" in entry and "401" in entry and "AU001,AU002" in entry
    assert "access_token" not in text


def test_markdown_renders_the_header_and_table():
    import cmarkgfm

    text = show(str(ROOT / "samples" / "unknown-tool-iserror.mcplog"), "--output-format", "markdown")
    page = cmarkgfm.github_flavored_markdown_to_html(text)
    assert "<h3><code>" in page and "session <code>1</code></h3>" in page
    assert "<li><strong>client:</strong> claude-ai 0.1.0</li>" in page
    assert page.count("<tr>") == 1 + 12 and "<code>tools/call get_weather</code>" in page
    assert "<strong>warning TL006</strong>" in page
    assert 'href="https://modelcontextprotocol.io/specification/2025-06-18/' in page


def test_line_prints_the_whole_message_with_its_findings():
    text = show(str(ROOT / "samples" / "unknown-tool-iserror.mcplog"), "--line", "9")
    title, body = text.split("\n", 1)
    assert title.endswith("unknown-tool-iserror.mcplog:9 · session 1 · S→C result tools/call get_weather · "
                          "id 2 · answers line 7 · 3 ms · isError: Unknown tool: get_weather")
    message, findings = body.split("\n}\n", 1)
    assert json.loads(message + "\n}")["result"]["isError"] is True
    assert findings.startswith("warning TL006 unknown-tool-must-be-protocol-error: Call of tool 'get_weather'")
    assert "  hint: " in findings and "  line 7: request" in findings
    assert "spec: 2025-06-18 server/tools §Error Handling" in findings
    har = show(str(ROOT / "samples" / "http-auth-mistakes-2025-11-25.har"), "--line", "304")
    assert har.count(" · HTTP 200 · ") == 2 and "error AU006" in har  # a request and its response
    pretty = show(str(ROOT / "samples" / "pretty-printed.jsonl"), "--line", "30")  # inside a message of 23 lines
    assert pretty.startswith(str(ROOT / "samples" / "pretty-printed.jsonl") + ":18 · ") and "error IO003" in pretty
    stderr = show(str(ROOT / "samples" / "unknown-tool-iserror.mcplog"), "--line", "5")
    assert stderr.splitlines()[1].startswith("[11/30/26 09:41:06] INFO")


def test_id_prints_the_request_and_its_response_whole():
    text = show(str(ROOT / "samples" / "unknown-tool-iserror.mcplog"), "--id", "2")
    titles = [line for line in text.splitlines() if " · session " in line]
    assert [title.split(" · ")[0].rsplit(":", 1)[-1] for title in titles] == ["7", "9"]
    assert '"name": "get_weather"' in text and '"isError": true' in text and "info HX007" in text
    markdown = show(str(ROOT / "samples" / "unknown-tool-iserror.mcplog"), "--id", "2", "--output-format", "markdown")
    assert markdown.count("```json\n{") == 2 and markdown.startswith("#### ")


def test_secrets_in_whole_messages_are_masked(tmp_path):
    token = "ghp_" + "Zx9Yw8Vu7T" * 4
    capture = tmp_path / "s.jsonl"
    capture.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "deploy", "arguments": {"password": "hunter2hunter2", "note": f"use {token}"}}}) + "\n")
    for fmt in ("table", "markdown"):
        text = show(str(capture), "--line", "1", "--output-format", fmt)
        assert token not in text and "hunter2" not in text and "[REDACTED]" in text
    # a label is masked before it is cut: a token across the cut leaves no fragment
    capture.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "a" * 60 + " " + token}}) + "\n")
    row = collect(capture)[0].rows[0]
    assert row.label.endswith("…") and "ghp_" not in row.label and "[RED" in row.label


def _fails(*args):
    result = CliRunner().invoke(main, ["show", *args])
    assert result.exit_code == 2, result.output
    return result.stderr.strip()


def test_unknown_session_and_line_exit_2_naming_what_exists():
    mcplog = str(ROOT / "samples" / "unknown-tool-iserror.mcplog")
    assert _fails(mcplog, "--session", "nope") == f"mcplint: error: no session 'nope' in {mcplog}; sessions: 1"
    assert _fails(mcplog, "--line", "99") == "mcplint: error: no line 99; the capture has lines 1-12"
    har = str(ROOT / "samples" / "http-auth-mistakes-2025-11-25.har")
    assert _fails(har, "--line", "11") == "mcplint: error: no message on line 11; nearest: 10, 60"
    assert _fails(har, "--session", "x").endswith("sessions: http 1, http 2, mcp-session 1868a9…")
    assert _fails(mcplog, "--id", "99") == "mcplint: error: no message with id 99; ids: 0, 1, 2, 3"
    assert _fails(mcplog, har, "--line", "1") == "mcplint: error: --line needs exactly one input file (got 2)"
    assert _fails(str(ROOT / "samples"), "--line", "1").startswith(
        "mcplint: error: --line needs exactly one input file (52 captures")
    several = _fails(str(ROOT / "samples"), "--session", "nope")
    assert several.startswith("mcplint: error: no session 'nope' in 52 files; sessions: ") and "more files" in several

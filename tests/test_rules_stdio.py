"""Edge cases of the stdio transport rules (IO001-IO006, IO011) that the rule pages do not show."""

from __future__ import annotations

import io

import orjson

from mcplint.analysis.engine import Engine
from tests.ruledocs import run_transcript

ENGINE = Engine()

INIT_REQ = ('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}')
INIT_RES = ('{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},'
            '"serverInfo":{"name":"s","version":"1"}}}')
INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'


def handshake(version="2025-06-18"):
    return [(INIT_REQ % version).encode(), (INIT_RES % version).encode(), INITIALIZED.encode()]


def lint_bytes(data: bytes, fmt="auto"):
    return list(ENGINE.lint_stream(io.BytesIO(data), "<t>", fmt))


def jsonl(*lines: bytes):
    return [f for f in lint_bytes(b"\n".join(lines) + b"\n", "jsonl") if f.code.startswith("IO")]


def capture(*records: dict, raw_suffix=b"\n"):
    data = raw_suffix.join(orjson.dumps(r) for r in records) + raw_suffix
    return [f for f in lint_bytes(data, "capture") if f.code.startswith("IO")]


def io_findings(text):
    return [f for f in run_transcript(text) if f.code.startswith("IO")]


def codes(found):
    return [(f.line, f.code) for f in found]


# -- clean traffic --------------------------------------------------------------------------
def test_clean_transcript_draws_nothing():
    text = ('# init 2025-06-18 C={} S={"tools":{}}\n'
            '# a comment line\n'
            '\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n')
    assert io_findings(text) == []


def test_clean_jsonl_with_inferable_directions_draws_nothing():
    lines = handshake() + [b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                           b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}']
    assert jsonl(*lines) == []


def test_newlines_inside_json_strings_are_fine():
    text = ('# init 2025-06-18 C={} S={"tools":{}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\\nb"}]}}\n')
    assert io_findings(text) == []


# -- IO001 / IO002 --------------------------------------------------------------------------
def test_banner_in_plain_jsonl_is_low_confidence_server_stdout():
    found = jsonl(b"Server started on stdio", *handshake())
    assert codes(found) == [(1, "IO001")]
    assert found[0].confidence == "low" and found[0].party == "server"
    assert "direction" in found[0].message


def test_client_text_is_io002_only():
    found = io_findings('# init 2025-06-18 C={} S={}\nC→S quit\n')
    assert codes(found) == [(2, "IO002")]
    assert found[0].party == "client"


def test_non_mcp_text_is_masked_and_shortened_in_the_message():
    secret = "ghp_" + "a" * 36
    found = io_findings(f'S→C using token {secret} ' + "x" * 200 + "\n")
    assert codes(found) == [(1, "IO001"), (1, "IO014")]  # and the input holds no MCP message
    assert secret not in found[0].message and "[REDACTED]" in found[0].message
    assert len(found[0].message) < 160


def test_stderr_and_capture_blank_lines_are_not_traffic():
    found = capture(
        {"dir": "c2s", "raw": INIT_REQ % "2025-06-18"},
        {"dir": "stderr", "raw": "Error: config not found"},
        {"dir": "s2c", "raw": INIT_RES % "2025-06-18"},
        {"dir": "stderr", "raw": ""},
    )
    assert found == []
    data = b"\n".join([orjson.dumps({"dir": "c2s", "raw": INIT_REQ % "2025-06-18"}), b"",
                       orjson.dumps({"dir": "s2c", "raw": INIT_RES % "2025-06-18"})]) + b"\n"
    assert [f for f in lint_bytes(data, "capture") if f.code.startswith("IO")] == []


def test_banner_in_capture_is_high_confidence():
    found = capture({"dir": "c2s", "raw": INIT_REQ % "2025-06-18"},
                    {"dir": "s2c", "raw": "Listening..."},
                    {"dir": "s2c", "raw": INIT_RES % "2025-06-18"})
    assert codes(found) == [(2, "IO001")] and found[0].confidence == "high"


# -- IO003 / IO004 --------------------------------------------------------------------------
def test_pretty_printed_jsonl_message_is_reported_once():
    lines = handshake() + [b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                           b"{", b'  "jsonrpc": "2.0",', b'  "id": 1,', b'  "result": {"tools": []}', b"}"]
    found = jsonl(*lines)
    assert codes(found) == [(5, "IO003")]
    assert "5 lines" in found[0].message


def test_pretty_printed_batch_is_reported_once_not_per_element():
    text = ('# init 2025-03-26 C={} S={}\n'
            'C→S [\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"ping"},\n'
            'C→S {"jsonrpc":"2.0","id":2,"method":"ping"}\n'
            'C→S ]\n')
    assert codes(io_findings(text)) == [(2, "IO003")]


def test_concatenated_values_are_one_finding_not_per_child():
    found = jsonl(*handshake(), b'{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}\xe9')
    # the trailing invalid byte makes the tail unparseable: not split, no IO004
    assert [c for _, c in codes(found)] == ["IO005"]
    found = jsonl(*handshake(), b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}{"jsonrpc":"2.0","id":2,"method":"tools/list"}\r')
    assert sorted(c for _, c in codes(found)) == ["IO004", "IO006"]
    io004 = [f for f in found if f.code == "IO004"][0]
    assert io004.party == "client" and "tools/list #1" in io004.message


# -- IO005 ----------------------------------------------------------------------------------
def test_invalid_utf8_is_error_from_2025_03_26_and_warning_in_2024_11_05():
    bad = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"caf\xe9"}]}}'
    call = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}'
    for version, severity in (("2025-03-26", "error"), ("2025-11-25", "error"), ("2024-11-05", "warning")):
        found = jsonl(*handshake(version), call, bad)
        assert [(f.line, f.code, f.severity.value) for f in found] == [(5, "IO005", severity)], version


def test_utf16_and_nul_lines():
    line = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    found = jsonl(*handshake(), line.encode("utf-16-le"))  # no BOM: recognised by its NUL bytes
    assert codes(found) == [(4, "IO005")] and "UTF-16" in found[0].message
    found = jsonl(*handshake(), line.encode()[:-1] + b'\x00}')  # a stray NUL inside UTF-8
    assert (4, "IO005") in codes(found)
    found = jsonl(*handshake(), ("\ufeff" + line).encode("utf-16-le"))
    assert codes(found) == [(4, "IO005")] and "UTF-16" in found[0].message


def test_capture_file_encoding_is_not_the_traffic_encoding():
    records = [{"dir": "c2s", "raw": INIT_REQ % "2025-06-18"}, {"dir": "s2c", "raw": INIT_RES % "2025-06-18"}]
    data = b"\xef\xbb\xbf" + b"\r\n".join(orjson.dumps(r) for r in records) + b"\r\n"
    assert [f for f in lint_bytes(data) if f.code.startswith(("IO", "JR"))] == []


def test_bom_inside_capture_raw_is_reported():
    found = capture({"dir": "c2s", "raw": INIT_REQ % "2025-06-18"},
                    {"dir": "s2c", "raw": "\ufeff" + INIT_RES % "2025-06-18"})
    assert codes(found) == [(2, "IO005")] and "byte order mark" in found[0].message


# -- IO006 ----------------------------------------------------------------------------------
def test_crlf_reported_once_per_session():
    lines = [line + b"\r" for line in handshake()] + [b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\r']
    lines += [line + b"\r" for line in handshake()]  # a second session (new initialize)
    found = jsonl(*lines)
    assert codes(found) == [(1, "IO006"), (5, "IO006")]
    assert found[0].severity.value == "info"


def test_crlf_in_capture_raw():
    found = capture({"dir": "c2s", "raw": INIT_REQ % "2025-06-18" + "\r"},
                    {"dir": "s2c", "raw": INIT_RES % "2025-06-18" + "\r"})
    assert codes(found) == [(1, "IO006")]


def test_every_blank_line_is_reported_and_blank_crlf_is_one_finding():
    found = jsonl(*handshake(), b"", b"   ", b"\r")
    assert codes(found) == [(4, "IO006"), (5, "IO006"), (6, "IO006")]
    assert all(f.confidence == "low" for f in found)  # no direction in plain JSON Lines
    assert "CRLF" in found[2].message and "Blank" in found[2].message
    found = io_findings('# init 2025-06-18 C={} S={}\nS→C \nC→S\n')
    assert [(f.line, f.code, f.confidence) for f in found] == [(2, "IO006", "high"), (3, "IO006", "high")]


# -- IO011 ----------------------------------------------------------------------------------
def test_direction_unknown_only_for_undecidable_messages():
    lines = handshake() + [b'{"jsonrpc":"2.0","id":"s1","method":"roots/list"}',  # only servers send it
                           b'{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}',    # answers the server
                           b'{"jsonrpc":"2.0","id":5,"method":"ping"}',             # either side
                           b'{"jsonrpc":"2.0","method":"notifications/custom"}']    # unknown method
    found = jsonl(*lines)
    assert codes(found) == [(6, "IO011")]  # once per session, at the first undecided message
    assert found[0].party == "capture" and found[0].severity.value == "info"
    assert "1 more message" in found[0].message and [r.line for r in found[0].related] == [7]


def test_direction_unknown_never_for_observed_direction():
    text = '# init 2025-06-18 C={} S={}\nS→C {"jsonrpc":"2.0","id":5,"method":"ping"}\nC→S {"jsonrpc":"2.0","id":5,"result":{}}\n'
    assert io_findings(text) == []

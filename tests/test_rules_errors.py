"""Edge cases of the error-layer rules TL006, TL007 and TL019 that the rule pages do not show."""

from __future__ import annotations

import pytest

from mcplint.rules.errors import says_unknown_tool
from mcplint.model import Kind, Record
from tests.ruledocs import run_transcript

TL = ("TL006", "TL007", "TL019")
LIST = """\
# init {version} C={{}} S={{"tools":{{"listChanged":true}}}}
C→S {{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
S→C {{"jsonrpc":"2.0","id":1,"result":{{"tools":[{{"name":"add","inputSchema":{{"type":"object"}}}}]}}}}
"""


def tl(text: str) -> list[tuple[int, str, str, str]]:
    return [(f.line, f.code, f.severity.value, f.confidence) for f in run_transcript(text) if f.code in TL]


def call(id_: int, name: str, answer: str) -> str:
    return (f'C→S {{"jsonrpc":"2.0","id":{id_},"method":"tools/call","params":{{"name":"{name}","arguments":{{}}}}}}\n'
            f'S→C {{"jsonrpc":"2.0","id":{id_},{answer}}}\n')


OK = '"result":{"content":[{"type":"text","text":"ok"}]}'
TOOL_ERROR = '"result":{"content":[{"type":"text","text":"failed"}],"isError":true}'


def err(code: int, message: str = "boom") -> str:
    return f'"error":{{"code":{code},"message":"{message}"}}'


def test_legal_tool_traffic_draws_nothing():
    text = LIST.format(version="2025-06-18") + call(2, "add", OK) + call(3, "add", TOOL_ERROR) \
        + call(4, "nope", err(-32602, "Unknown tool: nope")) + call(5, "add", err(-32602, "Invalid arguments"))
    assert tl(text) == []


def test_unknown_tool_success_result_is_tl006():
    text = LIST.format(version="2025-11-25") + call(2, "nope", OK)
    assert tl(text) == [(5, "TL006", "warning", "low")]


def test_no_tool_list_means_no_judgement():
    text = '# init 2025-06-18 C={} S={"tools":{}}\n' + call(1, "nope", TOOL_ERROR) + call(2, "x", err(-32603))
    assert tl(text) == []


def test_incomplete_list_is_not_current():
    text = """\
# init 2025-06-18 C={} S={"tools":{}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}
""" + call(2, "mul", TOOL_ERROR) + call(3, "add", err(-32603))
    assert tl(text) == []


def test_tool_on_a_later_page_is_known():
    text = """\
# init 2025-06-18 C={} S={"tools":{}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}
C→S {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2"}}
S→C {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"mul","inputSchema":{"type":"object"}}]}}
""" + call(3, "mul", TOOL_ERROR) + call(4, "sub", TOOL_ERROR)
    assert tl(text) == [(9, "TL006", "warning", "low")]


def test_list_changed_makes_the_list_stale():
    text = LIST.format(version="2025-06-18") + 'S→C {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n' \
        + call(2, "fresh", OK) + call(3, "add", err(-32603))
    assert tl(text) == []


@pytest.mark.parametrize("code", [-32700, -32600, -32601, -32602, -32002, -32042])
def test_protocol_codes_are_never_tool_failures(code):
    text = LIST.format(version="2025-11-25") + call(2, "add", err(code))
    assert [c for _, c, _, _ in tl(text) if c == "TL019"] == []


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_internal_and_implementation_defined_codes_for_listed_tools(version):
    text = LIST.format(version=version) + call(2, "add", err(-32603)) + call(3, "add", err(-1, "rate limited"))
    assert tl(text) == [(5, "TL019", "warning", "low"), (7, "TL019", "warning", "low")]


def test_unlisted_tool_with_internal_error_is_tl007_not_tl019():
    text = LIST.format(version="2025-06-18") + call(2, "nope", err(-32603, "KeyError: nope"))
    assert tl(text) == [(5, "TL007", "info", "high")]


def test_listed_tool_reported_unknown_is_tl007_not_tl019():
    text = LIST.format(version="2025-06-18") + call(2, "add", err(-32603, "Tool add not found"))
    assert tl(text) == [(5, "TL007", "info", "high")]


def test_malformed_request_errors_take_precedence_over_unknown_tool():
    text = LIST.format(version="2025-06-18") + call(2, "nope", err(-32600, "Unknown tool: nope"))
    assert tl(text) == []


def test_answers_after_cancellation_and_duplicates_are_not_judged():
    text = LIST.format(version="2025-06-18") + """\
C→S {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{}}}
C→S {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}
S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Request cancelled"}}
""" + call(3, "nope", err(-32602, "Unknown tool: nope")) \
        + 'S→C {"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":true}}\n'
    assert tl(text) == []


@pytest.mark.parametrize("message,unknown", [
    ("Unknown tool: nope", True),
    ("unknown_tool", True),
    ("Tool 'nope' not found", True),
    ("Tool nope does not exist", True),
    ("No such tool", True),
    ("Could not find tool nope", True),
    ("tool not found", True),
    ("Tool add failed: file not found", False),
    ("Tool execution failed: resource not found", False),
    ("Method not found: tools/call", False),
    ("Invalid arguments for tool add", False),
    ("Invalid tool arguments: a must be a number", False),
    ("invalid tool input", False),
    ("Invalid tool name 'x y'", True),
])
def test_unknown_tool_messages(message, unknown):
    record = Record("<t>", 1, Kind.ERROR, "", msg={"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": message}})
    assert says_unknown_tool(record) is unknown


def _capture(tmp_path, closed_before_answer: bool) -> list[tuple[int, str]]:
    """A listed tool's call answered with -32000 as the server shuts down, after or before the
    capture's note that the host closed stdin."""
    import json

    from mcplint.api import lint_paths

    def line(direction: str, msg: dict) -> dict:
        return {"ts": "2026-12-03T07:30:06.000Z", "dir": direction, "raw": json.dumps(msg)}

    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
    ready = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
             "serverInfo": {"name": "s", "version": "1"}}
    tools = [{"name": "sleep", "inputSchema": {"type": "object"}}]
    lines = [line("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}),
             line("s2c", {"jsonrpc": "2.0", "id": 0, "result": ready}),
             line("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
             line("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
             line("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}),
             line("c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "sleep"}})]
    answer = line("s2c", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Connection closed"}})
    closed = {"ts": "2026-12-03T07:30:06.000Z", "dir": "meta", "event": "stdin-closed",
              "raw": "the host closed stdin; closing the server's stdin", "by": "client"}
    lines += [closed, answer] if closed_before_answer else [answer, closed]
    path = tmp_path / "cap.mcplog"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    findings, _ = lint_paths([str(path)])
    return [(f.line, f.code) for f in findings if f.code in TL]


def test_tl019_skips_answers_sent_after_the_client_closed_the_session(tmp_path):
    assert _capture(tmp_path, closed_before_answer=True) == []
    assert _capture(tmp_path, closed_before_answer=False) == [(7, "TL019")]

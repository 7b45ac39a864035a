"""Ping rules (PI001-PI003): edge cases the pages do not show, and a property test."""

from __future__ import annotations

import io

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.analysis.engine import Engine
from tests.feature_sessions import C2S, LEGACY, S2C, Script, findings
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={} S={"tools":{}}\n'


def pi(text):
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code.startswith("PI")]


def test_ping_before_initialize_answered_empty_is_clean():
    text = ('C→S {"jsonrpc":"2.0","id":"p","method":"ping"}\n'
            'S→C {"jsonrpc":"2.0","id":"p","result":{}}\n' + INIT.replace("\n", "") + "\n")
    assert pi(text) == []


def test_meta_in_ping_result_and_params_is_allowed():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"progressToken":1}}}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"result":{"_meta":{"x":1}}}\n'
                   'C→S {"jsonrpc":"2.0","id":2,"method":"ping","params":{}}\n'
                   'S→C {"jsonrpc":"2.0","id":2,"result":{}}\n')
    assert pi(text) == []


def test_modern_sessions_are_not_judged():
    meta = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{}}')
    text = (f'C→S {{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{meta}}}}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}\n'
            f'C→S {{"jsonrpc":"2.0","id":2,"method":"ping","params":{{{meta}}}}}\n'
            'S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}\n')
    assert pi(text) == []


def test_pipelined_pings_without_answers_in_between_are_not_late():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"ping"}\n'
                   'C→S {"jsonrpc":"2.0","id":2,"method":"ping"}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"result":{}}\n'
                   'S→C {"jsonrpc":"2.0","id":2,"result":{}}\n')
    assert pi(text) == []


def test_overtaken_ping_is_reported_once():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"ping"}\n'
                   'C→S {"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
                   'S→C {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n'
                   'C→S {"jsonrpc":"2.0","id":3,"method":"ping"}\n'
                   'C→S {"jsonrpc":"2.0","id":4,"method":"ping"}\n')
    assert pi(text) == [(5, "PI003", "warning")]


def test_server_pings_are_judged_too():
    text = ('# init 2025-06-18 C={"roots":{}} S={}\n'
            'S→C {"jsonrpc":"2.0","id":"hb","method":"ping"}\n'
            'C→S {"jsonrpc":"2.0","id":"hb","result":{"ok":true}}\n'
            'S→C {"jsonrpc":"2.0","id":"hb2","method":"ping"}\n'
            'S→C {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hb2"}}\n')
    assert pi(text) == [(3, "PI001", "warning"), (5, "PI003", "warning")]


def test_cancelling_an_answered_ping_is_not_reported():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"ping"}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"result":{}}\n'
                   'C→S {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n')
    assert [c for _, c, _ in pi(text)] == []


def _capture(records):
    return "\n".join(orjson.dumps(r).decode() for r in records) + "\n"


def test_late_answer_in_a_timestamped_capture():
    init = [
        {"ts": "2026-01-01T00:00:00Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}},
        {"ts": "2026-01-01T00:00:00.1Z", "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}}},
        {"ts": "2026-01-01T00:00:00.2Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "method": "notifications/initialized"}},
        {"ts": "2026-01-01T00:00:01Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 1, "method": "ping"}},
        {"ts": "2026-01-01T00:00:01.5Z", "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 1, "result": {}}},
        {"ts": "2026-01-01T00:00:02Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 2, "method": "ping"}},
        {"ts": "2026-01-01T00:00:30Z", "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 2, "result": {}}},
    ]
    data = _capture(init).encode()
    found = [(f.line, f.code, f.party) for f in Engine().lint_stream(io.BytesIO(data), "x.mcplog")
             if f.code.startswith("PI")]
    assert found == [(7, "PI003", "server")]


# -- property test ---------------------------------------------------------------------------
@st.composite
def ping_sessions(draw) -> Script:
    """Legacy sessions where both sides ping and every ping is answered at once, mixed with
    ordinary requests and pipelined pings."""
    script = Script(draw(st.sampled_from(LEGACY)), client_caps={"roots": {}}, server_caps={"tools": {}})
    for op in draw(st.lists(st.sampled_from(["ping_c", "ping_s", "list", "pipelined", "meta"]), max_size=10)):
        if op == "ping_c":
            script.call("ping", None, {})
        elif op == "ping_s":
            script.call("ping", None, {}, sender=S2C)
        elif op == "list":
            script.call("tools/list", None, {"tools": []})
        elif op == "pipelined":
            first, second = script.request("ping"), script.request("ping")
            script.result(first, {})
            script.result(second, {})
        else:
            script.call("ping", {"_meta": {"progressToken": script.next_id}}, {"_meta": {}})
    return script


def mutate(script: Script, how: str) -> tuple[Script, int, str]:
    """Apply one targeted mutation; return the script, the line to be flagged and the severity."""
    if how == "pong":
        _, answer = script.call("ping", None, {"pong": True})
        return script, script.line(answer), "warning"
    if how == "error":
        index = script.request("ping", sender=S2C)
        return script, script.line(script.error(index, -32601, "Method not found")), "error"
    if how == "params":
        index, _ = script.call("ping", {"x": 1}, {})
        return script, script.line(index), "info"
    if how == "cancel":
        index = script.request("ping")
        cancel = script.notify("notifications/cancelled", {"requestId": script.messages[index][1]["id"]}, sender=C2S)
        return script, script.line(cancel), "warning"
    script.request("ping")  # overtaken
    script.call("tools/list", None, {"tools": []})
    return script, script.line(script.request("ping")), "warning"


@settings(max_examples=40, deadline=None)
@given(ping_sessions())
def test_generated_ping_sessions_draw_no_ping_finding(script):
    assert findings(script, "PI") == []


@settings(max_examples=40, deadline=None)
@given(ping_sessions(), st.sampled_from(["pong", "error", "params", "cancel", "overtaken"]))
def test_targeted_ping_mutations_are_reported(script, how):
    script, line, severity = mutate(script, how)
    expected = {"pong": "PI001", "error": "PI001", "params": "PI002", "cancel": "PI003", "overtaken": "PI003"}[how]
    found = findings(script, "PI")
    assert (line, expected, severity) in found, found
    assert {code for _, code, _ in found} == {expected}

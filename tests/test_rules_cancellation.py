"""Edge cases of the cancellation rules (CN001, CN002, CN004-CN006) that the rule pages do not show."""

from __future__ import annotations

import io

import orjson

from mcplint.engine import Engine
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={"sampling":{}} S={"tools":{}}\n'
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
TASK = {"task": {"taskId": "T", "status": "working", "createdAt": "x", "lastUpdatedAt": "x", "ttl": None}}


def call(i, sender="C→S", extra=""):
    return f'{sender} {{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"t","arguments":{{}}{extra}}}}}\n'


def cancel(i, sender="C→S"):
    return f'{sender} {{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{i}}}}}\n'


def result(i, sender="S→C", body='{"content":[]}'):
    return f'{sender} {{"jsonrpc":"2.0","id":{i},"result":{body}}}\n'


def cn(findings):
    return [f for f in findings if f.code.startswith("CN")]


def lint(text):
    return cn(run_transcript(text))


# -- timestamped captures (canonical capture format) --------------------------------------------
def handshake(version):
    caps = {}
    return [
        (0, "c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": caps, "clientInfo": {"name": "c", "version": "1"}}}),
        (0, "s2c", {"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}),
        (0, "c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]


def tool_call(i, modern=False):
    params = {"name": "t", "arguments": {}}
    if modern:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}


def cancelled(i):
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": i}}


def answer(i):
    return {"jsonrpc": "2.0", "id": i, "result": {"content": []}}


def lint_capture(events):
    """``events``: (seconds, dir, msg) triples; timestamps count from a fixed instant."""
    lines = [orjson.dumps({"ts": f"2025-06-18T10:00:{t:06.3f}+00:00", "dir": d, "msg": m}) for t, d, m in events]
    stream = io.BytesIO(b"\n".join(lines) + b"\n")
    return cn(Engine().lint_stream(stream, "<capture>", "capture"))


def legacy(*events):
    return handshake("2025-06-18") + list(events)


# -- clean traffic --------------------------------------------------------------------------
def test_cancel_of_pending_request_without_response_draws_nothing():
    assert lint(INIT + call(1) + cancel(1)) == []


def test_race_within_grace_window_draws_nothing():
    events = legacy((1, "c2s", tool_call(1)), (3, "c2s", cancelled(1)), (3.5, "s2c", answer(1)))
    assert lint_capture(events) == []


def test_server_cancels_its_own_request():
    text = (INIT + 'S→C {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],'
            '"maxTokens":5}}\n' + cancel(1, "S→C"))
    assert lint(text) == []


def test_same_id_on_both_sides_is_not_wrong_direction():
    text = (INIT + call(1) + 'S→C {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage",'
            '"params":{"messages":[],"maxTokens":5}}\n' + cancel(1, "S→C") + result(1))
    assert lint(text) == []


# -- CN001 ------------------------------------------------------------------------------------
def test_cancel_initialize_is_left_to_lc014():
    text = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n' + cancel(0))
    assert [f.code for f in lint(text) if f.code == "CN001"] == []


def test_answering_a_cancelled_initialize_is_right():
    text = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n' + cancel(0)
            + 'S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},'
              '"serverInfo":{"name":"s","version":"1"}}}\n' + cancel(0))
    assert lint(text) == []


def test_cancel_id_is_type_exact():
    (finding,) = lint(INIT + call(1) + cancel('"1"'))
    assert finding.code == "CN001" and "type-exact" in finding.message


def test_unknown_id_midstream_is_low_confidence():
    (finding,) = lint(call(5) + cancel(9))
    assert (finding.code, finding.confidence) == ("CN001", "low")


def test_modern_server_teardown_of_listen_is_not_cn001():
    listen = ('C→S {"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{"_meta":'
              + orjson.dumps(META).decode() + '}}\n')
    assert [f for f in lint(listen + cancel(4, "S→C")) if f.code == "CN001"] == []


def test_modern_server_cancel_of_unknown_id_is_cn001():
    request = ('C→S {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":'
               + orjson.dumps(META).decode() + '}}\n')
    found = [f for f in lint(request + cancel(8, "S→C")) if f.code == "CN001"]
    assert len(found) == 1 and "client" in found[0].message


# -- CN002 ------------------------------------------------------------------------------------
def test_cancel_long_after_response_is_warning():
    events = legacy((1, "c2s", tool_call(1)), (2, "s2c", answer(1)), (9, "c2s", cancelled(1)))
    (finding,) = lint_capture(events)
    assert (finding.code, finding.severity.value, finding.confidence) == ("CN002", "warning", "low")


def test_cancel_right_after_response_is_info():
    events = legacy((1, "c2s", tool_call(1)), (2, "s2c", answer(1)), (2.4, "c2s", cancelled(1)))
    (finding,) = lint_capture(events)
    assert (finding.code, finding.severity.value) == ("CN002", "info")


def test_task_cancel_is_cn004_not_cn002_and_only_in_2025_11_25():
    task = orjson.dumps(TASK).decode()
    body = call(1, extra=',"task":{}') + result(1, body=task) + cancel(1)
    newer = '# init 2025-11-25 C={} S={"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}\n' + body
    assert [f.code for f in lint(newer)] == ["CN004"]
    assert [f.code for f in lint(INIT + body)] == ["CN002"]


def test_cancel_before_create_task_result_is_fine():
    text = ('# init 2025-11-25 C={} S={"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}\n'
            + call(1, extra=',"task":{}') + cancel(1))
    assert lint(text) == []  # no CreateTaskResult yet: still an ordinary request


# -- CN005 ------------------------------------------------------------------------------------
def test_missing_params_is_cn005():
    (finding,) = lint(INIT + call(1) + 'C→S {"jsonrpc":"2.0","method":"notifications/cancelled"}\n')
    assert (finding.code, finding.severity.value) == ("CN005", "error")


def test_params_not_object_is_left_to_jr007():
    assert lint(INIT + 'C→S {"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}\n') == []


def test_missing_request_id_2025_11_25_cites_must():
    text = '# init 2025-11-25 C={} S={}\nC→S {"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}\n'
    (finding,) = lint(text)
    assert (finding.code, finding.severity.value) == ("CN005", "warning") and "(MUST)" in finding.spec


# -- CN006 ------------------------------------------------------------------------------------
def test_late_response_legacy_is_warning_on_the_responder():
    events = legacy((1, "c2s", tool_call(1)), (2, "c2s", cancelled(1)), (7, "s2c", answer(1)))
    (finding,) = lint_capture(events)
    assert (finding.code, finding.severity.value, finding.confidence, finding.party) == (
        "CN006", "warning", "low", "server")
    assert "5.0 s" in finding.message


def test_late_response_modern_is_error_must_not():
    events = [(1, "c2s", tool_call(1, modern=True)), (2, "c2s", cancelled(1)), (4, "s2c", answer(1))]
    (finding,) = lint_capture(events)
    assert (finding.code, finding.severity.value, finding.confidence) == ("CN006", "error", "low")
    assert "(MUST NOT)" in finding.spec and "basic/patterns/cancellation" in finding.spec_url


def test_late_answer_by_client_to_server_request_blames_client():
    text = (INIT + 'S→C {"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"messages":[],'
            '"maxTokens":5}}\n' + cancel(3, "S→C")
            + result(3, "C→S", '{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}'))
    (finding,) = lint(text)
    assert (finding.code, finding.severity.value, finding.party) == ("CN006", "info", "client")


def test_cancel_after_late_response_is_cn002():
    text = INIT + call(1) + cancel(1) + result(1) + cancel(1)
    assert [f.code for f in lint(text)] == ["CN006", "CN002"]

"""Edge cases of the cancellation rules (CN001, CN002, CN004-CN006) that the rule pages do not show."""

from __future__ import annotations

import io

import orjson
import pytest

from mcplint.analysis.engine import Engine
from mcplint.rules.cancellation import GRACE_SECONDS
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


def test_cancel_of_pending_request_without_response_timed_draws_nothing():
    assert lint_capture(legacy((1, "c2s", tool_call(1)), (3, "c2s", cancelled(1)))) == []


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


def error(i, code, message):
    return {"jsonrpc": "2.0", "id": i, "error": {"code": code, "message": message}}


def progress(token, value):
    return {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": value}}


def cn006(findings):
    return [(f.severity.value, f.confidence) for f in findings if f.code == "CN006"]


@pytest.mark.parametrize("gap,expected", [
    (0.0, ("info", "low")), (0.5, ("info", "low")), (GRACE_SECONDS, ("info", "low")),
    (GRACE_SECONDS + 0.1, ("warning", "low")), (30, ("warning", "low"))])
def test_race_window_bounds_the_legacy_warning(gap, expected):
    events = legacy((1, "c2s", tool_call(1)), (3, "c2s", cancelled(1)), (3 + gap, "s2c", answer(1)))
    (finding,) = lint_capture(events)
    assert (finding.severity.value, finding.confidence) == expected
    if gap <= GRACE_SECONDS:
        assert "race window" in finding.message and "crossed the cancellation" in finding.message


@pytest.mark.parametrize("gap", [0.2, 1.5])
def test_modern_race_window_is_info_then_error(gap):
    events = [(1, "c2s", tool_call(1, modern=True)), (2, "c2s", cancelled(1)), (2 + gap, "s2c", answer(1))]
    assert cn006(lint_capture(events)) == [("info", "low") if gap <= GRACE_SECONDS else ("error", "low")]


@pytest.mark.parametrize("code,message", [
    (-32800, "Request cancelled"), (0, "Request cancelled"), (-32603, "Operation canceled by client"),
    (-32000, "CancelledError")])
def test_error_saying_cancelled_is_warning_even_inside_the_race_window(code, message):
    events = legacy((1, "c2s", tool_call(1)), (3, "c2s", cancelled(1)), (3.01, "s2c", error(1, code, message)))
    (finding,) = lint_capture(events)
    assert (finding.code, finding.severity.value, finding.confidence, finding.party) == (
        "CN006", "warning", "high", "server")
    assert "saying it was cancelled" in finding.message and "(SHOULD)" in finding.spec


def test_error_saying_cancelled_without_timestamps_is_warning():
    text = INIT + call(1) + cancel(1) + 'S→C {"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"Request cancelled"}}\n'
    assert cn006(lint(text)) == [("warning", "high")]


def test_modern_error_saying_cancelled_is_error_must_not():
    events = [(1, "c2s", tool_call(1, modern=True)), (2, "c2s", cancelled(1)),
              (2.05, "s2c", error(1, -32800, "Request cancelled"))]
    (finding,) = lint_capture(events)
    assert (finding.severity.value, finding.confidence) == ("error", "high") and "(MUST NOT)" in finding.spec


def test_other_error_inside_the_race_window_is_info():
    events = legacy((1, "c2s", tool_call(1)), (3, "c2s", cancelled(1)), (3.2, "s2c", error(1, -32603, "boom")))
    assert cn006(lint_capture(events)) == [("info", "low")]


def test_error_naming_cancellation_without_a_cancel_is_not_cn006():
    text = INIT + call(1) + 'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"Request cancelled"}}\n'
    assert lint(text) == []


@pytest.mark.parametrize("gap", [GRACE_SECONDS + 0.1, 40])
def test_legacy_progress_after_cancel_is_info(gap):
    call_ = tool_call(1)
    call_["params"]["_meta"] = {"progressToken": "p1"}
    events = legacy((1, "c2s", call_), (2, "s2c", progress("p1", 1)), (3, "c2s", cancelled(1)),
                    (3 + gap, "s2c", progress("p1", 2)))
    (finding,) = lint_capture(events)
    assert (finding.code, finding.severity.value, finding.confidence, finding.line) == ("CN006", "info", "low", 7)
    assert "should stop processing" in finding.message and "(SHOULD)" in finding.spec


@pytest.mark.parametrize("modern", [False, True])
@pytest.mark.parametrize("gap", [0.0, 0.7, GRACE_SECONDS])
def test_progress_inside_the_race_window_draws_nothing(gap, modern):
    call_ = tool_call(1, modern)
    call_["params"]["_meta"] = {**(META if modern else {}), "progressToken": "p1"}
    events = [(1, "c2s", call_), (3, "c2s", cancelled(1)), (3 + gap, "s2c", progress("p1", 2))]
    assert lint_capture(events if modern else legacy(*events)) == []


def test_legacy_progress_after_cancel_without_timestamps_is_info():
    text = (INIT + call(1, extra=',"_meta":{"progressToken":"p1"}') + cancel(1)
            + 'S→C {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}\n')
    assert cn006(lint(text)) == [("info", "low")]


def test_modern_progress_after_cancel_is_error_beyond_the_race_window():
    call_ = tool_call(1, modern=True)
    call_["params"]["_meta"] = {**META, "progressToken": "p1"}
    events = [(1, "c2s", call_), (2, "c2s", cancelled(1)), (9, "s2c", progress("p1", 2))]
    (finding,) = lint_capture(events)
    assert finding.severity.value == "error" and "(MUST NOT)" in finding.spec


def test_late_answer_by_client_to_server_request_blames_client():
    text = (INIT + 'S→C {"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"messages":[],'
            '"maxTokens":5}}\n' + cancel(3, "S→C")
            + result(3, "C→S", '{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}'))
    (finding,) = lint(text)
    assert (finding.code, finding.severity.value, finding.party) == ("CN006", "info", "client")


def test_cancel_after_late_response_is_cn002():
    text = INIT + call(1) + cancel(1) + result(1) + cancel(1)
    assert [f.code for f in lint(text)] == ["CN006", "CN002"]

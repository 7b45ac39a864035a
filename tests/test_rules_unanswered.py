"""Edge cases of the end-of-capture rules HX001 and HX005 that the rule pages do not show."""

from __future__ import annotations

import io

import orjson
import pytest

from mcplint.analysis.engine import Engine
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames
from tests.harbuilder import dumps, entry, handshake, har, in_sequence, post_headers
from tests.ruledocs import run_transcript

ENGINE = Engine()
INIT = '# init 2025-06-18 C={"roots":{},"sampling":{}} S={"tools":{}}\n'
META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'


def call(i, sender="C→S"):
    return f'{sender} {{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"t","arguments":{{}}}}}}\n'


def request(i, method, sender="S→C", params=None):
    extra = f',"params":{params}' if params else ""
    return f'{sender} {{"jsonrpc":"2.0","id":{i},"method":"{method}"{extra}}}\n'


def result(i, sender="S→C", body="{}"):
    return f'{sender} {{"jsonrpc":"2.0","id":{i},"result":{body}}}\n'


def cancel(i, sender="C→S"):
    return f'{sender} {{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{i}}}}}\n'


def hx(found):
    return [f for f in found if f.code in ("HX001", "HX005")]


def codes(text):
    return [(f.line, f.code) for f in hx(run_transcript(text))]


# -- nothing to report -----------------------------------------------------------------------
def test_answered_requests_and_notifications_draw_nothing():
    text = (INIT + call(1) + request(7, "roots/list") + result(7, "C→S", '{"roots":[]}')
            + result(1, body='{"content":[]}')
            + 'C→S {"jsonrpc":"2.0","method":"notifications/roots/list_changed"}\n')
    assert codes(text) == []


def test_error_response_is_an_answer():
    text = INIT + call(1) + 'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}\n'
    assert codes(text) == []


def test_cancelled_requests_are_not_reported():
    text = INIT + call(1) + cancel(1) + request(2, "roots/list") + cancel(2, "S→C")
    assert codes(text) == []


def test_long_lived_requests_are_exempt():
    listen = f'C→S {{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{{{META}}}}}\n'
    assert codes(listen) == []
    tasks = ('# init 2025-11-25 C={} S={"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}\n'
             'C→S {"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{"taskId":"t1"}}\n')
    assert codes(tasks) == []


def test_wrong_id_type_answer_is_not_also_unanswered():
    text = INIT + call(1) + 'S→C {"jsonrpc":"2.0","id":"1","result":{"content":[]}}\n'
    found = run_transcript(text)
    assert [f.code for f in found if f.code in ("JR012", "HX001")] == ["JR012"]


def test_answer_of_unknown_direction_is_not_called_unanswered():
    lines = [
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        '"capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}',
        '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
        '"serverInfo":{"name":"s","version":"1"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}',
        '{"jsonrpc":"2.0","id":1,"method":"roots/list"}',
        '{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}',  # whose? both id 1 are open
        '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}',
    ]
    found = list(ENGINE.lint_stream(io.BytesIO("\n".join(lines).encode()), "<t>", "jsonl"))
    assert [f.code for f in found if f.code == "IO011"] == ["IO011"]  # once per session
    assert hx(found) == []


# -- HX001 ------------------------------------------------------------------------------------
def test_each_open_request_reported_once_with_gap():
    text = INIT + call(1) + search(2) + request(3, "ping", "C→S") + result(3) + '# end\n'
    found = hx(run_transcript(text))
    assert [(f.line, f.code) for f in found] == [(2, "HX001"), (3, "HX001")]
    first = found[0]
    assert first.severity.value == "warning" and first.confidence == "low" and first.party == "server"
    assert first.message.startswith("tools/call #1 was never answered") and "4 lines later" in first.message


def test_unanswered_initialize_says_the_handshake_never_completed():
    text = ('C→S {"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n'
            'S→C Server listening\n')
    found = hx(run_transcript(text))
    assert [(f.line, f.code) for f in found] == [(1, "HX001")]
    assert "handshake never completed" in found[0].message and 'initialize #"init"' in found[0].message


def test_session_restarted_by_new_initialize_is_still_reported():
    text = INIT + call(1) + INIT + call(1) + result(1, body='{"content":[]}')
    found = hx(run_transcript(text))
    assert [(f.line, f.code, f.session) for f in found] == [(2, "HX001", "1")]


def test_timestamps_give_the_stall_duration():
    records = [
        {"ts": "2025-01-01T00:00:00Z", "dir": "c2s", "raw": '{"jsonrpc":"2.0","id":0,"method":"initialize",'
         '"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}'},
        {"ts": "2025-01-01T00:00:30Z", "dir": "stderr", "raw": "still loading"},
        {"ts": "2025-01-01T00:10:00Z", "dir": "stderr", "raw": "killed"},
    ]
    data = b"\n".join(orjson.dumps(r) for r in records) + b"\n"
    found = hx(ENGINE.lint_stream(io.BytesIO(data), "<t>"))
    assert len(found) == 1 and "2 lines / 10.0 min later" in found[0].message


def search(i, query="q", sender="C→S"):
    return (f'{sender} {{"jsonrpc":"2.0","id":{i},"method":"tools/call",'
            f'"params":{{"name":"search","arguments":{{"query":"{query}"}}}}}}\n')


def test_call_sent_again_is_abandoned_by_the_client_and_unanswered_by_the_server():
    text = INIT + search(1) + search(2) + result(2, body='{"content":[]}')
    (finding,) = hx(run_transcript(text))
    assert (finding.line, finding.code, finding.party, finding.severity.value) == (2, "HX001", None, "warning")
    assert "the server never replied, and the client gave up on it and sent it again as tools/call #2" \
        in finding.message
    assert [(r.line, r.note) for r in finding.related] == [(3, "the same request sent again")]


def test_latest_copy_is_named_and_every_abandoned_copy_reported():
    text = INIT + search(1) + search(2) + search(3) + result(3, body='{"content":[]}')
    found = hx(run_transcript(text))
    assert [(f.line, f.party, f.related[0].line) for f in found] == [(2, None, 4), (3, None, 4)]


def test_batch_elements_sent_again_one_by_one_name_their_own_copies():
    text = (INIT + 'C→S [{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"prompts/list"}]\n'
            + request(3, "tools/list", "C→S") + result(3, body='{"tools":[]}')
            + request(4, "prompts/list", "C→S") + result(4, body='{"prompts":[]}'))
    found = hx(run_transcript(text))
    assert [(f.line, f.party, f.related[0].line) for f in found] == [(2, None, 3), (2, None, 5)]
    assert "as tools/list #3" in found[0].message and "as prompts/list #4" in found[1].message


def test_other_arguments_are_another_call_and_the_server_owes_it():
    text = INIT + search(1, "a") + search(2, "b") + result(2, body='{"content":[]}')
    (finding,) = hx(run_transcript(text))
    assert finding.party == "server" and "gave up" not in finding.message


def test_modern_call_sent_again_is_ambiguous_too():
    first = (f'C→S {{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{}},'
             f'{META}}}}}\n')
    text = first + first.replace('"id":1', '"id":2') + 'S→C {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}\n'
    found = [f for f in run_transcript(text) if f.code in ("HX001", "CN009")]
    assert sorted((f.code, f.line, f.party) for f in found) == [("CN009", 2, "client"), ("HX001", 1, None)]


def test_initialize_sent_again_stays_the_servers():
    init = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n')
    found = hx(run_transcript(init + init.replace('"id":0', '"id":1')))
    assert [(f.line, f.party) for f in found] == [(1, "server"), (2, "server")]
    assert all("handshake never completed" in f.message for f in found)


def capture(*records):
    return hx(ENGINE.lint_stream(io.BytesIO(b"\n".join(orjson.dumps(r) for r in records) + b"\n"), "<t>"))


HANDSHAKE = [
    {"ts": "2025-01-01T00:00:00Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}},
    {"ts": "2025-01-01T00:00:00Z", "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}},
    {"ts": "2025-01-01T00:00:00Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "method": "notifications/initialized"}},
]
CALL = {"ts": "2025-01-01T00:00:01Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                            "params": {"name": "fetch", "arguments": {}}}}


@pytest.mark.parametrize("how", ["after stdin closed", "after mcplint capture received SIGTERM"])
def test_client_that_closed_the_connection_gave_up_too(how):
    end = {"ts": "2025-01-01T00:01:01Z", "dir": "meta", "event": "exit", "raw": f"server exited with status 0 {how}",
           "status": 0, "signal": None, "steps": []}
    (finding,) = capture(*HANDSHAKE, CALL, end)
    assert (finding.line, finding.party) == (4, None)
    assert "the client gave up on it and closed the connection (the session ends 1 line / 60.0 s later)" \
        in finding.message
    assert [(r.line, r.note) for r in finding.related] == [(5, "the client closed the connection")]


def test_stdin_closed_note_in_the_traffic_marks_where_the_client_gave_up():
    closed = {"ts": "2025-01-01T00:00:30Z", "dir": "meta", "event": "stdin-closed", "by": "client",
              "raw": "the host closed stdin; closing the server's stdin"}
    late = dict(CALL, ts="2025-01-01T00:00:31Z", msg=dict(CALL["msg"], id=2, params={"name": "other", "arguments": {}}))
    exit_ = {"ts": "2025-01-01T00:00:32Z", "dir": "meta", "event": "exit", "status": 0, "signal": None,
             "steps": [], "raw": "server exited with status 0 after stdin closed"}
    found = capture(*HANDSHAKE, CALL, closed, late, exit_)
    assert [(f.line, f.party, [r.line for r in f.related]) for f in found] == [(4, None, [5]), (6, "server", [])]


def test_server_that_exited_on_its_own_owes_the_answer():
    end = {"ts": "2025-01-01T00:01:01Z", "dir": "meta", "event": "exit", "status": 1, "signal": None, "steps": [],
           "raw": "server exited with status 1 on its own while stdin was open"}
    (finding,) = capture(*HANDSHAKE, CALL, end)
    assert finding.party == "server" and "gave up" not in finding.message


def test_initialize_open_when_the_client_closes_stays_the_servers():
    end = {"ts": "2025-01-01T00:01:00Z", "dir": "meta", "event": "exit", "status": 0, "signal": None, "steps": [],
           "raw": "server exited with status 0 after stdin closed"}
    (finding,) = capture(HANDSHAKE[0], end)
    assert finding.party == "server" and "handshake never completed" in finding.message


def test_client_that_closed_the_connection_is_info_not_a_warning():
    end = {"ts": "2025-01-01T00:01:01Z", "dir": "meta", "event": "exit", "status": 0, "signal": None, "steps": [],
           "raw": "server exited with status 0 after stdin closed"}
    (finding,) = capture(*HANDSHAKE, CALL, end)
    assert (finding.severity.value, finding.confidence, finding.party) == ("info", "low", None)


# -- HX001 over HTTP (HAR) ------------------------------------------------------------------------
SID = "s1"


def lint_har(entries, version="2025-11-25"):
    doc = dumps(har(in_sequence(handshake(version, SID, {}, {"tools": {}}) + entries)))
    fmt, frames = open_frames(io.BytesIO(doc.encode()))
    assert fmt == "har"
    engine = Engine()
    found = list(engine.lint_records(Parser("<har>").records(frames), "<har>"))
    return found


def post(body, version="2025-11-25", session=SID, **kw):
    return entry(request_headers=post_headers(session, version), body=body, **kw)


def no_session_error(status=400, id_=None):
    value = {"jsonrpc": "2.0", "error": {"code": -32000, "message": "No valid session"}}
    if id_ != "absent":
        value["id"] = id_
    return value


def rpc(i, method="tools/call", params=None):
    return {"jsonrpc": "2.0", "id": i, "method": method,
            "params": params if params is not None else {"name": "t", "arguments": {}}}


@pytest.mark.parametrize("id_", [None, "absent"])
def test_http_error_without_id_answers_the_one_request_of_its_post(id_):
    found = lint_har([post(rpc(1), status=400, json_body=no_session_error(id_=id_))])
    assert [f.code for f in found if f.code in ("HX001", "JR017")] == ["JR017"]  # JR017 still says: copy the id


def test_http_error_without_id_in_an_sse_answer_answers_its_request_too():
    found = lint_har([post(rpc(1), sse=[{"jsonrpc": "2.0", "method": "notifications/message",
                                         "params": {"level": "info", "data": "x"}}, no_session_error()])])
    assert "HX001" not in {f.code for f in found}


def test_diagnose_takes_the_paired_error_as_the_answer(tmp_path):
    from click.testing import CliRunner

    from mcplint.cli import main

    discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}
    path = tmp_path / "discover.har"
    path.write_text(dumps(har([entry(request_headers=post_headers(None, "2026-07-28"), body=discover, status=400,
                                     json_body=no_session_error())])))
    result = CliRunner().invoke(main, ["diagnose", "--output-format", "json", str(path)])
    (diagnosis,) = orjson.loads(result.output)
    assert [r["outcome"] for r in diagnosis["modern_requests"]] == ["error -32000 No valid session"]
    assert diagnosis["open_requests"] == []


def test_error_without_id_on_stdio_stays_unmatched():
    text = INIT + call(1) + 'S→C {"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No valid session"}}\n'
    assert codes(text) == [(2, "HX001")]


def test_http_batch_of_two_requests_is_not_paired_with_an_error_without_id():
    batch = [rpc(1, "tools/list", {}), rpc(2, "prompts/list", {})]
    found = lint_har([post(batch, version="2025-03-26", status=400, json_body=no_session_error())],
                     version="2025-03-26")
    assert sorted(f.id for f in hx(found)) == [1, 2]


def test_http_batch_of_one_request_and_a_notification_is_paired():
    batch = [rpc(1, "tools/list", {}), {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}]
    found = lint_har([post(batch, version="2025-03-26", status=400, json_body=no_session_error())],
                     version="2025-03-26")
    assert hx(found) == []


def test_http_error_without_id_next_to_the_real_answer_answers_nothing():
    found = lint_har([post(rpc(1), sse=[no_session_error(), {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}])])
    assert [f.code for f in found if f.code in ("HX001", "JR011", "JR013")] == []


def test_http_202_with_an_error_without_id_is_not_an_answer():
    found = lint_har([post(rpc(1), status=202, json_body=no_session_error())])
    assert [f.id for f in hx(found)] == [1]


def slow_call(i=1, started=0.3):
    """A call whose SSE stream carries progress and is still open when the DELETE comes."""
    params = {"name": "t", "arguments": {}, "_meta": {"progressToken": i}}
    return post(rpc(i, params=params), sse=[{"jsonrpc": "2.0", "method": "notifications/progress",
                                             "params": {"progressToken": i, "progress": 1}}],
                started=started, time_ms=400)


def delete(status=200, started=0.5):
    return entry("DELETE", request_headers={"Mcp-Session-Id": SID, "MCP-Protocol-Version": "2025-11-25"},
                 status=status, started=started, time_ms=3)


def test_http_delete_ends_the_session_and_the_open_call_is_info():
    (finding,) = hx(lint_har([slow_call(), delete()]))
    assert (finding.severity.value, finding.party) == ("info", None)
    assert "the client gave up on it and ended the session (DELETE)" in finding.message
    assert [r.note for r in finding.related] == ["the client ended the session (entry 4, 200 ms later)"]


def test_http_delete_refused_with_405_leaves_the_session_open():
    (finding,) = hx(lint_har([slow_call(), delete(405)]))
    assert (finding.severity.value, finding.party) == ("warning", "server") and "gave up" not in finding.message


@pytest.mark.parametrize("status", [200, 405])
def test_http_answer_after_the_delete_is_a_shutdown_artefact_for_tl019(status):
    """The DELETE is the analyzer's session.client_closed, as stdin-closed is on stdio."""
    listing = post(rpc(1, "tools/list", {}), json_body={"jsonrpc": "2.0", "id": 1, "result": {
        "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}, started=0.2)
    closed = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Connection closed"}}
    call_ = post(rpc(2), sse=[closed], arrivals=[0.6], started=0.3, time_ms=310)
    found = lint_har([listing, call_, delete(status)])
    assert [f.code for f in found if f.code == "TL019"] == ([] if status == 200 else ["TL019"])


def test_http_distances_are_entries_and_seconds_not_lines():
    found = hx(lint_har([slow_call(), post(rpc(2, "ping", {}), started=0.5, json_body=ok_result(2))]))
    (finding,) = found
    assert "line" not in finding.message
    assert finding.message.endswith("(the session ends with entry 4, 205 ms later)")


def test_http_distance_when_the_request_is_in_the_last_entry():
    (finding,) = hx(lint_har([slow_call()]))
    assert finding.message.endswith("(the session ends with entry 3, its own, 400 ms later)")


def ok_result(i):
    return {"jsonrpc": "2.0", "id": i, "result": {}}


# -- HX005 ------------------------------------------------------------------------------------
def test_server_request_blocking_a_tool_call_is_the_root_cause():
    sampling = ('{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}')
    text = INIT + call(1) + request(0, "sampling/createMessage", params=sampling)
    found = hx(run_transcript(text))
    assert [(f.line, f.code) for f in found] == [(3, "HX005")]
    assert found[0].party == "client" and [r.line for r in found[0].related] == [2]
    assert "tools/call #1" in found[0].message


def test_client_request_sent_after_the_server_request_is_not_blocked_by_it():
    text = INIT + request(0, "roots/list") + call(1)
    assert sorted(codes(text)) == [(2, "HX005"), (3, "HX001")]


def test_unanswered_server_ping_blocks_nothing():
    text = INIT + call(1) + 'S→C {"jsonrpc":"2.0","id":"hb","method":"ping"}\n'
    found = sorted(hx(run_transcript(text)), key=lambda f: f.line)
    assert [(f.line, f.code) for f in found] == [(2, "HX001"), (3, "HX005")]
    assert found[1].related == [] and 'ping #"hb"' in found[1].message


def test_hx005_does_not_apply_to_modern_sessions():
    text = (f'C→S {{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}\n'
            'S→C {"jsonrpc":"2.0","id":9,"method":"roots/list"}\n')
    assert [c for _, c in codes(text)] == ["HX001"]

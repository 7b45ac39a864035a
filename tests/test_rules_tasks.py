"""Tasks (TK001-TK021), task progress (PR007) and the progress message (PR008).

Edge cases the rule pages do not show, and a hypothesis property test: generated spec-valid task
sessions (task-augmented tools/call, polling tasks/get, status notifications, progress,
tasks/result, tasks/cancel, tasks/list) draw no finding of the family, and targeted mutations of
them are reported under the expected code.
"""

from __future__ import annotations

import copy

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ruledocs import run_transcript
from tests.test_dispatch import unpruned

FAMILY = ("TK", "PR007", "PR008")
RELATED = "io.modelcontextprotocol/related-task"
SERVER_CAPS = {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}
TOOLS = [
    {"name": "render", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
    {"name": "build", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
    {"name": "echo", "inputSchema": {"type": "object"}},
]


def init(version="2025-11-25", client=None, server=None):
    client = {} if client is None else client
    server = SERVER_CAPS if server is None else server
    return f"# init {version} C={orjson.dumps(client).decode()} S={orjson.dumps(server).decode()}\n"


def line(direction, msg):
    return f"{direction} {orjson.dumps(msg).decode()}\n"


def c2s(msg):
    return line("C→S", {"jsonrpc": "2.0", **msg})


def s2c(msg):
    return line("S→C", {"jsonrpc": "2.0", **msg})


def task(task_id, status="working", **extra):
    return {"taskId": task_id, "status": status, "createdAt": "2025-11-25T10:00:00Z",
            "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": None, **extra}


LIST_TOOLS = c2s({"id": "tl", "method": "tools/list"}) + s2c({"id": "tl", "result": {"tools": TOOLS}})


def call(i, name="render", augmented=True, token=None):
    params = {"name": name, "arguments": {}}
    if augmented:
        params["task"] = {"ttl": 60000}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return c2s({"id": i, "method": "tools/call", "params": params})


def created(i, task_id, status="working", **extra):
    return s2c({"id": i, "result": {"task": task(task_id, status, **extra)}})


def op(i, method, task_id, **params):
    return c2s({"id": i, "method": method, "params": {"taskId": task_id, **params}})


def got(i, task_id, status="working", **extra):
    return s2c({"id": i, "result": task(task_id, status, **extra)})


def status(task_id, value, **extra):
    return s2c({"method": "notifications/tasks/status", "params": task(task_id, value, **extra)})


def payload(i, task_id, text="done", is_error=False, related=True):
    result = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    if related:
        result["_meta"] = {RELATED: {"taskId": task_id}}
    return s2c({"id": i, "result": result})


def error(i, code, message, sender=s2c):
    return sender({"id": i, "error": {"code": code, "message": message}})


def progress(token, value, sender=s2c, **extra):
    return sender({"method": "notifications/progress", "params": {"progressToken": token, "progress": value, **extra}})


def family(text):
    return [f for f in run_transcript(text) if f.code.startswith(FAMILY)]


def codes(text):
    return sorted((f.line, f.code) for f in family(text))


BASE = init() + LIST_TOOLS  # lines 1-3


# -- clean traffic --------------------------------------------------------------------------
def test_full_lifecycle_draws_nothing():
    text = (BASE + call(1, token="p") + created(1, "T1", pollInterval=1000) + progress("p", 1, total=2)
            + op(2, "tasks/get", "T1") + got(2, "T1") + op(3, "tasks/result", "T1")
            + status("T1", "input_required") + status("T1", "working") + progress("p", 2, total=2)
            + status("T1", "completed") + payload(3, "T1")
            + c2s({"id": 4, "method": "tasks/list"})
            + s2c({"id": 4, "result": {"tasks": [task("T1", "completed")]}})
            + op(5, "tasks/cancel", "T1") + error(5, -32602, "Cannot cancel task: already completed")
            + op(6, "tasks/get", "gone") + error(6, -32602, "Task not found"))
    assert family(text) == []


def test_tasks_are_not_judged_outside_2025_11_25():
    text = (init("2025-06-18") + LIST_TOOLS + call(1) + created(1, "T1", "completed")
            + op(2, "tasks/cancel", "T1") + got(2, "T1", "working"))
    assert family(text) == []


def test_server_as_requestor_of_a_sampling_task():
    client = {"sampling": {}, "tasks": {"list": {}, "requests": {"sampling": {"createMessage": {}}}}}
    sampling = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5,
                "task": {}}
    text = (init(client=client, server={}) + s2c({"id": 1, "method": "sampling/createMessage", "params": sampling})
            + c2s({"id": 1, "result": {"task": task("S1")}})
            + s2c({"id": 2, "method": "tasks/get", "params": {"taskId": "S1"}})
            + c2s({"id": 2, "result": task("S1", "completed")})
            + s2c({"id": 3, "method": "tasks/result", "params": {"taskId": "S1"}})
            + c2s({"id": 3, "result": {"role": "assistant", "content": {"type": "text", "text": "hello"},
                                       "model": "m", "_meta": {RELATED: {"taskId": "S1"}}}})
            + s2c({"id": 4, "method": "tasks/list"}) + c2s({"id": 4, "result": {"tasks": [task("S1", "completed")]}}))
    assert family(text) == []


def test_same_task_id_on_both_sides_is_two_tasks():
    client = {"sampling": {}, "tasks": {"requests": {"sampling": {"createMessage": {}}}}}
    sampling = {"messages": [], "maxTokens": 5, "task": {}}
    text = (init(client=client) + LIST_TOOLS + call(1) + created(1, "T")
            + s2c({"id": 1, "method": "sampling/createMessage", "params": sampling})
            + c2s({"id": 1, "result": {"task": task("T")}}))
    assert codes(text) == []


# -- negotiation ----------------------------------------------------------------------------
def test_optional_tool_as_task_and_required_tool_refused_with_32600_are_fine():
    text = (BASE + call(1) + created(1, "T1") + call(2, "build", augmented=False)
            + error(2, -32600, "Task augmentation required for tools/call requests"))
    assert codes(text) == [(6, "TK003")]  # the client's plain call only; -32600 is tolerated


def test_required_tool_refused_with_other_code_is_a_warning():
    text = BASE + call(1, "build", augmented=False) + error(1, -32603, "needs a task")
    found = [(f.line, f.code, f.severity.value) for f in family(text)]
    assert found == [(4, "TK003", "error"), (5, "TK003", "warning")]


def test_tool_level_rules_need_the_server_capability():
    server = {"tools": {}}
    text = init(server=server) + LIST_TOOLS + call(1, "build", augmented=False) + payload(1, "x", related=False)
    assert codes(text) == []


def test_stale_catalog_lowers_confidence():
    server = {"tools": {"listChanged": True}, "tasks": {"requests": {"tools": {"call": {}}}}}
    text = (init(server=server) + LIST_TOOLS + s2c({"method": "notifications/tools/list_changed"})
            + call(1, "echo") + error(1, -32601, "Method not found"))
    found = [(f.code, f.confidence) for f in family(text)]
    assert found == [("TK002", "low")]


def test_unknown_tool_is_not_judged_by_tool_level_rules():
    text = BASE + call(1, "nope") + error(1, -32602, "Unknown tool: nope")
    assert codes(text) == []


def test_create_task_result_for_plain_request_is_a_warning():
    text = BASE + call(1, augmented=False) + created(1, "T1")
    found = [(f.line, f.code, f.severity.value) for f in family(text)]
    assert found == [(5, "TK004", "warning")]


def test_custom_method_result_with_task_member_is_ignored():
    text = BASE + c2s({"id": 1, "method": "acme/job"}) + s2c({"id": 1, "result": {"task": {"id": 3}}})
    assert codes(text) == []


def test_other_standard_request_with_task_is_a_low_warning():
    text = BASE + c2s({"id": 1, "method": "tools/list", "params": {"task": {}}}) + s2c({"id": 1, "result": {"tools": TOOLS}})
    found = [(f.code, f.severity.value, f.confidence) for f in family(text)]
    assert found == [("TK001", "warning", "low")]


def test_midstream_capture_does_not_judge_capabilities():
    text = call(1) + created(1, "T1") + op(2, "tasks/cancel", "T1") + got(2, "T1", "cancelled")
    assert codes(text) == []


# -- lifecycle -------------------------------------------------------------------------------
def test_response_computed_before_terminal_status_is_not_a_transition():
    text = BASE + call(1) + created(1, "T1") + op(2, "tasks/get", "T1") + status("T1", "completed") + got(2, "T1")
    assert codes(text) == []


def test_cancel_racing_with_completion_is_not_judged():
    text = (BASE + call(1) + created(1, "T1") + op(2, "tasks/cancel", "T1") + status("T1", "completed")
            + got(2, "T1", "cancelled"))
    assert codes(text) == []


def test_terminal_status_repeated_is_fine_and_change_is_reported_once_per_message():
    text = (BASE + call(1) + created(1, "T1") + status("T1", "cancelled") + status("T1", "cancelled")
            + status("T1", "completed"))
    assert codes(text) == [(8, "TK008")]


def test_cancel_terminal_task_is_tk011_only():
    text = BASE + call(1) + created(1, "T1") + status("T1", "failed") + op(2, "tasks/cancel", "T1") + got(2, "T1", "cancelled")
    assert codes(text) == [(8, "TK011")]


def test_cancel_terminal_task_with_wrong_code():
    text = BASE + call(1) + created(1, "T1") + status("T1", "failed") + op(2, "tasks/cancel", "T1") + error(2, -32603, "boom")
    assert codes(text) == [(8, "TK011")]


def test_task_object_problems_in_list_and_notification():
    bad = {"taskId": "T1", "status": "done", "createdAt": "2025-11-25T10:00:00+02:00", "lastUpdatedAt": 5,
           "ttl": "1h", "pollInterval": "fast"}
    text = (BASE + call(1) + created(1, "T1") + s2c({"method": "notifications/tasks/status", "params": bad})
            + c2s({"id": 2, "method": "tasks/list"}) + s2c({"id": 2, "result": {"tasks": [bad, task("T1")]}}))
    found = family(text)
    assert [(f.line, f.code) for f in found] == [(6, "TK006"), (8, "TK006")]
    assert "status" in found[0].message and "ttl" in found[0].message and "pollInterval" in found[0].message


def test_timestamp_forms_accepted():
    ok = task("T1", createdAt="2025-11-25T10:00:00.123456+00:00", lastUpdatedAt="2025-11-25")
    text = BASE + call(1) + s2c({"id": 1, "result": {"task": ok}})
    assert codes(text) == []


# -- tasks/get, tasks/result, tasks/list ------------------------------------------------------
def test_unknown_id_error_wording():
    text = (BASE + op(1, "tasks/get", "a") + error(1, -32601, "Method not found")
            + op(2, "tasks/result", "b") + error(2, -32603, "database unavailable")
            + op(3, "tasks/cancel", "c") + error(3, -32000, "No such task"))
    assert codes(text) == [(9, "TK010")]


def test_success_for_task_seen_in_earlier_session_of_the_file_is_fine():
    first = BASE + call(1) + created(1, "T1")
    second = BASE + op(2, "tasks/get", "T1") + got(2, "T1")
    assert codes(first + second) == []


def test_success_for_task_seen_in_a_listing_is_fine():
    text = (BASE + c2s({"id": 1, "method": "tasks/list"}) + s2c({"id": 1, "result": {"tasks": [task("T9")]}})
            + op(2, "tasks/get", "T9") + got(2, "T9"))
    assert codes(text) == []


def test_early_tasks_result_is_reported_on_the_payload():
    text = (BASE + call(1) + created(1, "T1") + op(2, "tasks/result", "T1") + payload(2, "T1")
            + op(3, "tasks/get", "T1") + got(3, "T1", "working"))
    found = family(text)
    assert [(f.line, f.code, f.confidence) for f in found] == [(7, "TK015", "low")]


def test_error_from_tasks_result_is_not_early():
    text = (BASE + call(1) + created(1, "T1") + op(2, "tasks/result", "T1") + error(2, -32602, "Task has expired")
            + op(3, "tasks/get", "T1") + got(3, "T1", "working"))
    assert codes(text) == []


def test_completed_status_after_is_error_payload_is_tk020():
    text = (BASE + call(1) + created(1, "T1") + op(2, "tasks/result", "T1") + payload(2, "T1", is_error=True)
            + status("T1", "completed"))
    assert codes(text) == [(8, "TK020")]


def test_failed_tool_task_with_is_error_payload_is_fine():
    text = BASE + call(1) + created(1, "T1") + status("T1", "failed") + op(2, "tasks/result", "T1") + payload(2, "T1", is_error=True)
    assert codes(text) == []


def test_related_task_with_wrong_id():
    text = BASE + call(1) + created(1, "T1") + op(2, "tasks/result", "T1") + payload(2, "T2")
    assert codes(text) == [(7, "TK016")]


def test_listing_over_pages_and_tasks_created_later():
    text = (BASE + call(1) + created(1, "T1") + call(2) + created(2, "T2")
            + c2s({"id": 3, "method": "tasks/list"})
            + s2c({"id": 3, "result": {"tasks": [task("T1")], "nextCursor": "c1"}})
            + call(4) + created(4, "T3")
            + c2s({"id": 5, "method": "tasks/list", "params": {"cursor": "c1"}})
            + s2c({"id": 5, "result": {"tasks": [task("T2")]}})
            + op(6, "tasks/get", "T3") + got(6, "T3") + op(7, "tasks/get", "T1") + got(7, "T1"))
    assert codes(text) == []


def test_cancelled_task_missing_from_listing_is_fine():
    text = (BASE + call(1) + created(1, "T1") + op(2, "tasks/cancel", "T1") + got(2, "T1", "cancelled")
            + c2s({"id": 3, "method": "tasks/list"}) + s2c({"id": 3, "result": {"tasks": []}})
            + op(4, "tasks/get", "T1") + got(4, "T1", "cancelled"))
    assert codes(text) == []


def test_task_ops_from_a_server_are_gated_by_client_capabilities():
    client = {"sampling": {}, "tasks": {"requests": {"sampling": {"createMessage": {}}}}}
    text = (init(client=client, server={}) + s2c({"id": 1, "method": "tasks/list"})
            + c2s({"id": 1, "error": {"code": -32601, "message": "Method not found"}}))
    found = family(text)
    assert [(f.code, f.party) for f in found] == [("TK013", "server")]


# -- related-task, polling, progress -----------------------------------------------------------
def test_input_request_while_ordinary_request_open_is_not_judged():
    client = {"elicitation": {}}
    elicit = {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}
    text = (init(client=client) + LIST_TOOLS + call(1) + created(1, "T1") + status("T1", "input_required")
            + call(2, augmented=False)
            + s2c({"id": 7, "method": "elicitation/create", "params": elicit})
            + c2s({"id": 7, "result": {"action": "decline"}}) + payload(2, "x", related=False))
    assert codes(text) == []


def test_task_status_notification_with_related_task():
    note = task("T1", "completed")
    note["_meta"] = {RELATED: {"taskId": "T1"}}
    text = BASE + call(1) + created(1, "T1") + s2c({"method": "notifications/tasks/status", "params": note})
    assert codes(text) == [(6, "TK018")]


def capture(events):
    """Canonical capture lines from ``(seconds, dir, msg)``."""
    lines = []
    for seconds, direction, msg in events:
        lines.append(orjson.dumps({"ts": f"2025-11-25T10:00:{seconds:06.3f}+00:00", "dir": direction,
                                   "msg": {"jsonrpc": "2.0", **msg}}))
    return lines


def lint_capture(events):
    import io

    from mcplint.analysis.engine import Engine
    from mcplint.input.lines import iter_lines
    from mcplint.input.parse import Parser
    from mcplint.input.readers import read_capture

    data = b"\n".join(capture(events)) + b"\n"
    frames = read_capture(iter_lines(io.BytesIO(data)))
    return [f for f in Engine().lint_records(Parser("<c>").records(frames), "<c>") if f.code.startswith(FAMILY)]


def timed_polls(gap):
    hello = [(0, "c2s", {"id": 0, "method": "initialize", "params": {
                 "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
             (0.1, "s2c", {"id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": SERVER_CAPS,
                                               "serverInfo": {"name": "s", "version": "1"}}}),
             (0.2, "c2s", {"method": "notifications/initialized"}),
             (0.3, "c2s", {"id": 1, "method": "tools/list"}),
             (0.4, "s2c", {"id": 1, "result": {"tools": TOOLS}}),
             (1, "c2s", {"id": 2, "method": "tools/call", "params": {"name": "render", "arguments": {}, "task": {}}}),
             (1.1, "s2c", {"id": 2, "result": {"task": task("T", pollInterval=2000)}}),
             (2, "c2s", {"id": 3, "method": "tasks/get", "params": {"taskId": "T"}}),
             (2.1, "s2c", {"id": 3, "result": task("T", pollInterval=2000)}),
             (2 + gap, "c2s", {"id": 4, "method": "tasks/get", "params": {"taskId": "T"}}),
             (2.1 + gap, "s2c", {"id": 4, "result": task("T", pollInterval=2000)})]
    return hello


def test_poll_gap_measured_with_timestamps():
    found = lint_capture(timed_polls(0.5))
    assert [(f.code, f.severity.value, f.confidence) for f in found] == [("TK021", "warning", "low")]
    assert lint_capture(timed_polls(1.9)) == []  # within the 10 % tolerance
    assert lint_capture(timed_polls(3)) == []


def test_overlapping_poll_whose_predecessor_is_never_answered_is_not_reported():
    text = BASE + call(1) + created(1, "T1", pollInterval=1000) + op(2, "tasks/get", "T1") + op(3, "tasks/get", "T1") + got(3, "T1")
    assert codes(text) == []


def test_overlapping_polls_without_advertised_interval_are_not_reported():
    text = (BASE + call(1) + created(1, "T1") + op(2, "tasks/get", "T1") + op(3, "tasks/get", "T1")
            + got(2, "T1") + got(3, "T1"))
    assert codes(text) == []


def test_task_progress_with_other_token_named_by_related_task():
    text = (BASE + call(1, token="p") + created(1, "T1")
            + progress("p", 1) + progress("q", 2, _meta={RELATED: {"taskId": "T1"}}))
    found = [(f.line, f.code) for f in run_transcript(text) if f.code.startswith("PR")]
    assert (7, "PR007") in found and (6, "PR007") not in found


def test_progress_with_related_task_and_right_token_is_fine():
    text = BASE + call(1, token=5) + created(1, "T1") + progress(5, 1, _meta={RELATED: {"taskId": "T1"}})
    assert codes(text) == []


def test_progress_message_versions():
    base = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"p"}}}'
    for version, expected in (("2024-11-05", [("PR008", "info")]), ("2025-03-26", []), ("2025-11-25", [])):
        text = (init(version, server={"tools": {}}) + "C→S " + base + "\n"
                + progress("p", 1, message="half") + s2c({"id": 1, "result": {"content": []}}))
        assert [(f.code, f.severity.value) for f in family(text)] == expected, version
    meta = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}')
    modern = ('C→S {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},' + meta + '}}\n'
              + progress("p", 1, message=3))
    assert [(f.code, f.severity.value) for f in family(modern)] == [("PR008", "error")]


# -- property test: generated spec-valid sessions, and targeted mutations ----------------------
class Session:
    """A generated task session: messages as (direction, dict, tag) to mutate before rendering."""

    def __init__(self, server_caps):
        self.server_caps = server_caps
        self.items: list[list] = []

    def text(self):
        out = [init(server=self.server_caps), LIST_TOOLS]
        for direction, msg, _ in self.items:
            out.append(line(direction, {"jsonrpc": "2.0", **msg}))
        return "".join(out)

    def find(self, tag):
        return [item for item in self.items if item[2][:len(tag)] == tag]


@st.composite
def task_plans(draw, index, force=None):
    """The messages of one task, in order: (direction, msg, tag); ``force`` fixes some choices."""
    force = force or {}
    counter = iter(range(index * 100 + 1, index * 100 + 100))
    tid = f"task-{index}"
    token = force["token"] if "token" in force else draw(st.sampled_from([None, f"tok-{index}", index]))
    tool = force.get("tool") or draw(st.sampled_from(["render", "build"]))
    interval = draw(st.sampled_from([None, 500, 2000]))
    extra = {"pollInterval": interval} if interval else {}
    plan = []
    rid = next(counter)
    params = {"name": tool, "arguments": {}, "task": draw(st.sampled_from([{}, {"ttl": 60000}]))}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    plan.append(("C→S", {"id": rid, "method": "tools/call", "params": params}, ("call", index)))
    plan.append(("S→C", {"id": rid, "result": {"task": task(tid, **extra)}}, ("create", index)))
    current, value = "working", 0
    steps = draw(st.lists(st.sampled_from(["poll", "note", "progress"]), max_size=5))
    for step in force.get("steps", []) + steps:
        if step == "progress" and token is not None:
            value += draw(st.integers(1, 5))
            plan.append(("S→C", {"method": "notifications/progress",
                                 "params": {"progressToken": token, "progress": value}}, ("progress", index)))
        elif step == "note":
            current = "input_required" if current == "working" else "working"
            plan.append(("S→C", {"method": "notifications/tasks/status", "params": task(tid, current, **extra)},
                         ("note", index)))
        else:
            rid = next(counter)
            plan.append(("C→S", {"id": rid, "method": "tasks/get", "params": {"taskId": tid}}, ("poll", index)))
            plan.append(("S→C", {"id": rid, "result": task(tid, current, **extra)}, ("polled", index)))
    ending = force.get("ending") or draw(st.sampled_from(["completed", "failed", "cancel", "blocking"]))
    if ending == "cancel":
        rid = next(counter)
        plan.append(("C→S", {"id": rid, "method": "tasks/cancel", "params": {"taskId": tid}}, ("cancel", index)))
        plan.append(("S→C", {"id": rid, "result": task(tid, "cancelled")}, ("cancelled", index)))
        return plan, "cancelled"
    final = "completed" if ending in ("completed", "blocking") else "failed"
    result = {"content": [{"type": "text", "text": "out"}], "_meta": {RELATED: {"taskId": tid}}}
    if final == "failed":
        result["isError"] = True
    rid = next(counter)
    request = ("C→S", {"id": rid, "method": "tasks/result", "params": {"taskId": tid}}, ("result", index))
    terminal = ("S→C", {"method": "notifications/tasks/status", "params": task(tid, final)}, ("terminal", index))
    answer = ("S→C", {"id": rid, "result": result}, ("payload", index))
    plan += [request, terminal, answer] if ending == "blocking" else [terminal, request, answer]
    return plan, final


@st.composite
def sessions(draw, force=None, tasks=1):
    """A session of ``tasks``..3 interleaved tasks; ``force`` fixes choices of the first task."""
    count = draw(st.integers(tasks, 3))
    plans = [draw(task_plans(i, force if i == 0 else None)) for i in range(count)]
    rnd = draw(st.randoms(use_true_random=False))
    queues = [list(p) for p, _ in plans]
    session = Session(copy.deepcopy(SERVER_CAPS))
    while any(queues):
        queue = rnd.choice([q for q in queues if q])
        session.items.append(list(queue.pop(0)))
    listing = [task(f"task-{i}", final) for i, (_, final) in enumerate(plans)]
    session.items.append(["C→S", {"id": 9000, "method": "tasks/list"}, ("list",)])
    session.items.append(["S→C", {"id": 9000, "result": {"tasks": listing}}, ("listed",)])
    return session


def found_codes(session):
    return {f.code for f in run_transcript(session.text()) if f.code.startswith(FAMILY)}


@settings(max_examples=80, deadline=None)
@given(sessions())
def test_generated_task_sessions_are_clean(session):
    findings = [f for f in run_transcript(session.text()) if f.code.startswith(FAMILY)]
    assert findings == [], session.text() + "\n" + "\n".join(f"{f.line} {f.code} {f.message}" for f in findings)


def _mutate(session, kind, rnd):
    """Apply one violation; return the code expected, or None when the session has no spot for it."""
    first = lambda tag: (session.find(tag) or [None])[0]
    if kind == "undeclared":
        session.server_caps["tasks"].pop("requests")
        return "TK001"
    if kind == "initial":
        item = first(("create",))
        item[1]["result"]["task"]["status"] = "input_required"
        return "TK007"
    if kind == "fields":
        item = first(("create",))
        del item[1]["result"]["task"]["createdAt"]
        return "TK006"
    if kind == "duplicate-id":
        creates = session.find(("create",))
        if len(creates) < 2:
            return None
        creates[1][1]["result"]["task"]["taskId"] = creates[0][1]["result"]["task"]["taskId"]
        return "TK009"
    if kind == "no-related":
        item = first(("payload",))
        if item is None:
            return None
        del item[1]["result"]["_meta"]
        return "TK016"
    if kind == "related-on-get":
        item = first(("poll",))
        if item is None:
            return None
        item[1]["params"]["_meta"] = {RELATED: {"taskId": item[1]["params"]["taskId"]}}
        return "TK018"
    if kind == "wrong-id":
        item = first(("polled",))
        if item is None:
            return None
        item[1]["result"]["taskId"] = "someone-else"
        return "TK019"
    if kind == "cancel-not-cancelled":
        item = first(("cancelled",))
        if item is None:
            return None
        item[1]["result"]["status"] = "working"
        return "TK012"
    if kind == "revive":
        index = rnd.choice([i[2][1] for i in session.find(("create",))])
        session.items.insert(len(session.items) - 2, ["S→C", {"method": "notifications/tasks/status",
                                                             "params": task(f"task-{index}", "working")}, ("x",)])
        return "TK008"
    if kind == "late-progress":
        calls = [i for i in session.find(("call",)) if "_meta" in i[1]["params"]]
        if not calls:
            return None
        token = calls[0][1]["params"]["_meta"]["progressToken"]
        session.items.append(["S→C", {"method": "notifications/progress",
                                      "params": {"progressToken": token, "progress": 1000}}, ("x",)])
        return "PR007"
    if kind == "no-cancel-cap":
        if not session.find(("cancel",)):
            return None
        session.server_caps["tasks"].pop("cancel")
        return "TK014"
    if kind == "no-list-cap":
        session.server_caps["tasks"].pop("list")
        return "TK013"
    if kind == "plain-answer":
        item = first(("create",))
        item[1]["result"] = {"content": [{"type": "text", "text": "inline"}]}
        return "TK005"
    if kind == "plain-call-of-required":
        calls = [i for i in session.find(("call",)) if i[1]["params"]["name"] == "build"]
        if not calls:
            return None
        del calls[0][1]["params"]["task"]
        return "TK003"
    if kind == "failed-success":
        for item in session.find(("payload",)):
            if item[1]["result"].get("isError"):
                del item[1]["result"]["isError"]
                return "TK015"
        return None
    if kind == "completed-is-error":
        for item in session.find(("payload",)):
            if not item[1]["result"].get("isError"):
                item[1]["result"]["isError"] = True
                return "TK020"
        return None
    raise AssertionError(kind)


#: mutation -> what the generated session must contain for it (choices forced on the first task)
MUTATIONS = {
    "undeclared": {}, "initial": {}, "fields": {}, "duplicate-id": {"tasks": 2},
    "no-related": {"force": {"ending": "completed"}}, "related-on-get": {"force": {"steps": ["poll"]}},
    "wrong-id": {"force": {"steps": ["poll"]}}, "cancel-not-cancelled": {"force": {"ending": "cancel"}},
    "revive": {}, "late-progress": {"force": {"token": "tok"}}, "no-cancel-cap": {"force": {"ending": "cancel"}},
    "no-list-cap": {}, "plain-answer": {}, "plain-call-of-required": {"force": {"tool": "build"}},
    "failed-success": {"force": {"ending": "failed"}}, "completed-is-error": {"force": {"ending": "completed"}},
}


@pytest.mark.parametrize("kind", sorted(MUTATIONS))
def test_mutations_are_reported_under_their_code(kind):
    @settings(max_examples=15, deadline=None)
    @given(sessions(**MUTATIONS[kind]), st.randoms(use_true_random=False))
    def check(session, rnd):
        expected = _mutate(session, kind, rnd)
        assert expected is not None, f"{kind}: the generated session has no place for it"
        found = found_codes(session)
        assert expected in found, f"{kind}: expected {expected}, got {sorted(found)}\n{session.text()}"

    check()


def test_task_token_can_be_reused_after_the_task_ended():
    """The token of a finished task is free again: no PR002 for a new request that reuses it."""
    from tests.ruledocs import run_transcript

    text = '''# init 2025-11-25 C={} S={"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}}
C→S {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{},"task":{"ttl":60000},"_meta":{"progressToken":"p"}}}
S→C {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"T1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":60000}}}
C→S {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T1"}}
S→C {"jsonrpc":"2.0","id":3,"result":{"taskId":"T1","status":"completed","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:01Z","ttl":60000}}
C→S {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":"p"}}}
S→C {"jsonrpc":"2.0","id":4,"result":{"content":[]}}
'''
    codes = [f.code for f in run_transcript(text)]
    assert "PR002" not in codes


# -- the "task" dispatch feature: traffic without tasks costs the family nothing -------------------
PLAIN = (init(server={"tools": {}, "logging": {}}) + c2s({"id": 1, "method": "tools/list"})
         + s2c({"id": 1, "result": {"tools": TOOLS[2:]}}) + call(2, "echo", augmented=False, token="p")
         + progress("p", 1, total=2)
         + s2c({"method": "notifications/message", "params": {"level": "info", "data": "x"}})
         + s2c({"id": 2, "result": {"content": [{"type": "text", "text": "x"}]}})
         + c2s({"id": 3, "method": "ping"}) + s2c({"id": 3, "result": {}}))


def test_traffic_without_tasks_calls_no_task_rule(monkeypatch):
    """No task rule is called: TK003 waits for the plan fact of a listed tool that requires tasks."""
    from mcplint.rules import load

    called = []
    for code, cls in load().items():
        if code.startswith("TK") or code == "PR007":
            original = cls.check
            monkeypatch.setattr(cls, "check", lambda self, record, session, _check=original:
                                called.append(self.code) or _check(self, record, session))
    assert family(PLAIN) == [] and called == []


def test_traffic_without_tasks_keeps_no_task_facts():
    from mcplint.analysis.engine import Engine
    from mcplint.rules._base import Tracker
    from mcplint.rules.tasks import TaskTracker

    class Watch(Tracker):
        def __init__(self):
            self.seen = []

        def finish(self, session):
            self.seen.append(TaskTracker.known(session))

    watch = Watch()
    run_transcript(PLAIN, Engine(observers=[watch]))
    run_transcript(BASE + call(1) + created(1, "T1"), Engine(observers=[watch]))
    assert watch.seen[0] is None and watch.seen[1].tasks


def test_task_object_in_a_session_that_never_declared_tasks_is_judged():
    bare = {"taskId": "T1", "status": "working"}  # no timestamps, no ttl
    text = (init(server={"tools": {}}) + LIST_TOOLS + call(1, augmented=False)
            + s2c({"id": 1, "result": {"task": bare}}))
    assert codes(text) == [(5, "TK004"), (5, "TK006")]


def test_task_records_of_no_known_revision_are_judged():
    """Without a handshake (no version known) the task rules still apply, and so does the gate."""
    text = (c2s({"id": 1, "method": "tasks/get", "params": {"taskId": "T1"}})
            + s2c({"id": 1, "result": {"taskId": "T1", "status": "working"}})
            + s2c({"method": "notifications/tasks/status", "params": {"taskId": "T1", "status": "done"}}))
    assert codes(text) == [(2, "TK006"), (3, "TK006")]


def test_is_error_payload_then_completed_status_by_tasks_get_is_tk020():
    text = (BASE + call(1) + created(1, "T1") + op(2, "tasks/result", "T1") + payload(2, "T1", is_error=True)
            + op(3, "tasks/get", "T1") + got(3, "T1", "completed"))
    assert codes(text) == [(9, "TK020")]


def test_required_tool_listed_on_a_later_page_is_judged():
    first, rest = TOOLS[:1], TOOLS[1:]
    text = (init() + c2s({"id": "a", "method": "tools/list"})
            + s2c({"id": "a", "result": {"tools": first, "nextCursor": "2"}})
            + c2s({"id": "b", "method": "tools/list", "params": {"cursor": "2"}})
            + s2c({"id": "b", "result": {"tools": rest}}) + call(1, "build", augmented=False)
            + error(1, -32603, "needs a task"))
    assert codes(text) == [(6, "TK003"), (7, "TK003")]


def test_required_tool_no_longer_listed_is_not_judged():
    relisted = c2s({"id": "r", "method": "tools/list"}) + s2c({"id": "r", "result": {"tools": TOOLS[:1]}})
    assert codes(BASE + relisted + call(1, "build", augmented=False)) == []


def test_input_request_while_a_task_waits_for_input_is_tk017():
    client = {"elicitation": {}}
    elicit = {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}
    text = (init(client=client) + LIST_TOOLS + call(1) + created(1, "T1") + status("T1", "input_required")
            + s2c({"id": 7, "method": "elicitation/create", "params": elicit}))
    assert codes(text) == [(7, "TK017")]


@settings(max_examples=60, deadline=None)
@given(sessions(), st.sampled_from(sorted(MUTATIONS)), st.randoms(use_true_random=False))
def test_the_task_gate_drops_no_finding(session, kind, rnd):
    """Generated task sessions, clean and mutated, find the same with the gate and without it."""
    texts = [session.text()]
    if _mutate(session, kind, rnd) is not None:
        texts.append(session.text())
    for text in texts:
        gated = [(f.line, f.code, f.message) for f in run_transcript(text)]
        with unpruned():
            assert [(f.line, f.code, f.message) for f in run_transcript(text)] == gated


def test_the_engine_knows_the_task_methods():
    from mcplint.analysis.features import TASK_METHODS
    from mcplint.rules.tasks import STATUS_NOTIFICATION
    from mcplint.rules.tasks import TASK_METHODS as OURS

    assert TASK_METHODS == OURS | {STATUS_NOTIFICATION}


def test_required_tool_listed_beside_a_task_member_is_judged():
    listed = (c2s({"id": "a", "method": "tools/list", "params": {"task": {}}})
              + s2c({"id": "a", "result": {"tools": TOOLS, "task": task("L1")}}))
    assert codes(init() + listed + call(1, "build", augmented=False)) == [(2, "TK001"), (3, "TK004"), (4, "TK003")]


def test_tk003_leaves_at_once_while_no_listed_tool_requires_a_task():
    """TK003 runs on every tools/call request and response: without a task-required tool (the
    TaskTracker notes them) it returns no generator to drain, just nothing."""
    from types import SimpleNamespace

    from mcplint.rules.tasks import RequiredToolInvokedWithoutTask

    assert RequiredToolInvokedWithoutTask().check(None, SimpleNamespace(state={})) == ()


def test_tracker_commits_only_task_records_and_answers_that_may_end_an_operation(monkeypatch):
    """TaskTracker is planned on records with the "task" feature, and, once a task request made an
    operation, on any answer (one that reuses the operation's id ends it): ordinary traffic before
    costs it nothing; a tools/list result goes to RequiredTaskTools."""
    from mcplint.rules.tasks import RequiredTaskTools, TaskTracker

    committed = []
    for cls in (TaskTracker, RequiredTaskTools):
        commit = cls.commit
        monkeypatch.setattr(cls, "commit", lambda self, record, session, commit=commit, name=cls.__name__:
                            committed.append((name, record.line)) or commit(self, record, session))
    ping = c2s({"id": 4, "method": "ping"}) + s2c({"id": 4, "result": {}})
    reuse = (op(5, "tasks/get", "T1") + c2s({"id": 5, "method": "tools/call", "params": {"name": "echo"}})
             + s2c({"id": 5, "result": {"content": []}}))
    run_transcript(BASE + ping + reuse + ping)
    assert committed == [("RequiredTaskTools", 3), ("TaskTracker", 6), ("TaskTracker", 8), ("TaskTracker", 10)]

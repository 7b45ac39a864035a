"""Multi round-trip request rules (MR001-MR010): edge cases the rule pages do not show, and
property tests: generated MRTR sessions draw no MR finding, targeted mutations do."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.modern_sessions import (
    ANSWERS, ASKS, CC, SAMPLE, Event, error, modern_sessions, render, request, result,
)
from tests.ruledocs import run_transcript

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}
CALL = {"name": "deploy", "arguments": {"env": "prod"}}
DONE = {"content": [{"type": "text", "text": "ok"}]}


def mr(findings):
    return [f for f in findings if f.code.startswith("MR")]


def lint(*events: Event):
    return mr(run_transcript(render(list(events))))


def C(msg):
    return Event("C", msg)


def S(msg):
    return Event("S", msg)


def codes(findings):
    return sorted((f.line, f.code) for f in findings)


def irr(i, inputs=None, state=None):
    body = {}
    if inputs is not None:
        body["inputRequests"] = inputs
    if state is not None:
        body["requestState"] = state
    return result(i, body, "input_required")


def call(i, caps=CAPS, name="deploy", **extra):
    return request(i, "tools/call", {**CALL, "name": name, **extra}, caps=caps)


# -- the InputRequiredResult -------------------------------------------------------------------
def test_mr001_allows_the_three_methods():
    for method, params in (("tools/call", CALL), ("prompts/get", {"name": "p"}),
                           ("resources/read", {"uri": "file:///a"})):
        assert lint(C(request(1, method, params)), S(irr(1, state="s"))) == []


def test_mr003_roots_without_params_is_fine_but_elicitation_needs_them():
    assert lint(C(call(1)), S(irr(1, {"r": {"method": "roots/list"}}))) == []
    found = lint(C(call(1)), S(irr(1, {"e": {"method": "elicitation/create"}, "x": "nope"})))
    assert codes(found) == [(2, "MR003")] and "'e'" in found[0].message and "'x'" in found[0].message
    assert codes(lint(C(call(1)), S(irr(1, ["roots/list"])))) == [(2, "MR003")]


def test_mr004_sampling_tools_and_per_request_caps():
    tools = copy.deepcopy(SAMPLE)
    tools["params"]["tools"] = [{"name": "search", "inputSchema": {"type": "object"}}]
    found = lint(C(call(1, caps={"sampling": {}})), S(irr(1, {"s": tools})))
    assert codes(found) == [(2, "MR004")] and "sampling.tools" in found[0].message
    assert lint(C(call(1, caps={"sampling": {"tools": {}}})), S(irr(1, {"s": tools}))) == []
    # no clientCapabilities at all is MD001's, not MR004's
    bare = call(1)
    del bare["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert lint(C(bare), S(irr(1, {"r": {"method": "roots/list"}}))) == []


def test_mr004_leaves_the_elicitation_mode_to_el001():
    url = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x.example/a"}}
    assert lint(C(call(1, caps={"elicitation": {}})), S(irr(1, {"u": url}))) == []


# -- retries -----------------------------------------------------------------------------------
def test_multi_round_retry_checks_ids_of_the_whole_chain():
    ask = {"a": ASKS["elicitation"]}
    events = [C(call(1)), S(irr(1, ask, "s1")),
              C(call(2, inputResponses={"a": ANSWERS["elicitation"][0]}, requestState="s1")), S(irr(2, state="s2")),
              C(call(1, requestState="s2")), S(result(1, DONE))]
    assert codes(lint(*events)) == [(5, "MR005")]


def test_state_only_retry_without_the_state_is_not_linked():
    # a request without inputResponses and requestState may be a fresh call
    assert lint(C(call(1)), S(irr(1, state="s1")), C(call(2)), S(result(2, DONE))) == []


def test_retry_omitting_the_state():
    ask = {"a": ASKS["roots"]}
    found = lint(C(call(1)), S(irr(1, ask, "s1")), C(call(2, inputResponses={"a": ANSWERS["roots"][0]})),
                 S(result(2, DONE)))
    assert [(f.line, f.code, f.confidence) for f in found] == [(3, "MR006", "high")]
    assert "omits" in found[0].message


def test_retry_adding_a_state_that_was_never_issued():
    ask = {"a": ASKS["roots"]}
    found = lint(C(call(1)), S(irr(1, ask)),
                 C(call(2, inputResponses={"a": ANSWERS["roots"][0]}, requestState="forged")), S(result(2, DONE)))
    assert codes(found) == [(3, "MR006")] and "had none" in found[0].message


def test_wrong_result_types_in_input_responses():
    ask = {"e": ASKS["elicitation"], "s": ASKS["sampling"], "r": ASKS["roots"]}
    responses = {"e": {"action": "ok"}, "s": {"model": "m"}, "r": {"roots": "file:///"}}
    found = lint(C(call(1)), S(irr(1, ask, "s1")), C(call(2, inputResponses=responses, requestState="s1")))
    assert codes(found) == [(3, "MR007")]
    assert all(f"'{k}'" in found[0].message for k in "esr")


def test_server_asking_again_for_missing_input_is_fine():
    ask = {"a": ASKS["elicitation"]}
    found = lint(C(call(1)), S(irr(1, ask, "s1")), C(call(2, inputResponses={}, requestState="s1")),
                 S(irr(2, ask, "s2")), C(call(3, inputResponses={"a": ANSWERS["elicitation"][1]}, requestState="s2")),
                 S(result(3, DONE)))
    assert codes(found) == [(3, "MR007")]  # only the client's incomplete retry


def test_parallel_calls_of_one_tool_stay_apart():
    a, b = {"a": ASKS["elicitation"]}, {"b": ASKS["roots"]}
    events = [C(call(1, arguments={"n": 1})), C(call(2, arguments={"n": 2})), S(irr(2, b)), S(irr(1, a)),
              C(call(3, arguments={"n": 1}, inputResponses={"a": ANSWERS["elicitation"][0]})),
              C(call(4, arguments={"n": 2}, inputResponses={"b": ANSWERS["roots"][0]})),
              S(result(4, DONE)), S(result(3, DONE))]
    assert lint(*events) == []


def test_shared_opaque_state_across_methods():
    # a server may hand out one constant value; the retry of each call finds its own issue
    events = [C(call(1)), S(irr(1, state="v1")), C(request(2, "prompts/get", {"name": "p"})), S(irr(2, state="v1")),
              C(request(3, "prompts/get", {"name": "p", "requestState": "v1"})), S(result(3, {"messages": []})),
              C(call(4, requestState="v1")), S(result(4, DONE))]
    assert lint(*events) == []


def test_cancelled_retry_may_be_repeated():
    events = [C(call(1)), S(irr(1, state="s1")), C(call(2, requestState="s1")),
              C({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
              C(call(3, requestState="s1")), S(result(3, DONE))]
    assert lint(*events) == []


def test_responses_for_another_call():
    ask = {"a": ASKS["elicitation"]}
    found = lint(C(call(1)), S(irr(1, ask)),
                 C(call(2, name="other", inputResponses={"a": ANSWERS["elicitation"][0]})), S(result(2, DONE)))
    assert [(f.line, f.code, f.severity.value) for f in found] == [(3, "MR008", "warning")]


def test_retry_params_changed_ignores_meta():
    events = [C(call(1)), S(irr(1, state="s1")), C(call(2, caps={}, requestState="s1")), S(result(2, DONE))]
    assert lint(*events) == []


def test_parallel_calls_with_one_request_state_are_retried_in_order():
    # two identical calls get the same requestState: the first retry is the first call's, so the
    # second round's retry that takes id 1 again reuses an id of its own call (MR005)
    events = [C(call(1)), S(irr(1, state="same")), C(call(5)), S(irr(5, state="same")),
              C(call(2, requestState="same")), S(irr(2, state="round-2")),
              C(call(1, requestState="round-2")), S(result(1, DONE)),
              C(call(6, requestState="same")), S(result(6, DONE))]
    assert codes(lint(*events)) == [(7, "MR005")]


def test_empty_input_responses_answer_the_call_that_asked_for_input():
    # two open calls of one tool: one asked for input, one only handed out a requestState; a retry
    # with an inputResponses member (here empty) and no requestState is the first call's retry,
    # lacking its answer (MR007), not the second call's without its state (MR006)
    ask = {"a": ASKS["elicitation"]}
    events = [C(call(1)), S(irr(1, ask)), C(call(2)), S(irr(2, state="s2")),
              C(call(3, inputResponses={})), S(irr(3, ask)),
              C(call(4, requestState="s2")), S(result(4, DONE))]
    assert codes(lint(*events)) == [(5, "MR007")]


def test_mr_rules_quiet_in_legacy_sessions():
    text = ('# init 2025-11-25 C={} S={"tools":{}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","requestState":"x"}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","content":[]}}\n')
    assert mr(run_transcript(text)) == []


def test_error_answer_to_a_complete_retry_is_fine():
    assert lint(C(call(1)), S(irr(1, state="s1")), C(call(2, requestState="s1")), S(error(2, -32602, "expired"))) == []


# -- property tests ----------------------------------------------------------------------------
@SETTINGS
@given(modern_sessions())
def test_valid_sessions_draw_no_mr_finding(events):
    assert mr(run_transcript(render(events))) == []


def _pick(events, data, role, where=lambda e: True):
    candidates = [e for e in events if e.role == role and where(e)]
    assume(candidates)
    return data.draw(st.sampled_from(candidates))


def _apply(events, target, change):
    mutated = [copy.deepcopy(e) if e is target else e for e in events]
    index = events.index(target)
    change(mutated[index].msg)
    return mutated, index + 1


def _lint_codes(events):
    return {(f.line, f.code) for f in mr(run_transcript(render(events)))}


def _initial_of(events, retry):
    chain = [e for e in events if e.call == retry.call and e.dir == "C"]
    return chain[0]


@SETTINGS
@given(modern_sessions(), st.sampled_from(["MR002", "MR003"]), st.data())
def test_irr_mutations(events, name, data):
    target = _pick(events, data, "irr")
    if name == "MR002":
        def change(msg):
            msg["result"].pop("inputRequests", None)
            msg["result"].pop("requestState", None)
    else:
        def change(msg):
            msg["result"].setdefault("inputRequests", {})["bogus"] = {"method": "tools/call", "params": {"name": "x"}}
    mutated, line = _apply(events, target, change)
    assert (line, name) in _lint_codes(mutated)


@SETTINGS
@given(modern_sessions(), st.data())
def test_undeclared_capability_mutation(events, data):
    # the request answered with inputRequests declares no capabilities
    target = _pick(events, data, "irr", lambda e: e.info["inputs"])
    index = events.index(target)
    asked = next(e for e in reversed(events[:index]) if e.dir == "C" and e.msg["id"] == target.msg["id"])
    mutated, _ = _apply(events, asked, lambda m: m["params"]["_meta"].__setitem__(CC, {}))
    assert (index + 1, "MR004") in _lint_codes(mutated)


@SETTINGS
@given(modern_sessions(), st.data())
def test_retry_mutations(events, data):
    retry = _pick(events, data, "retry")
    params = retry.info["params"]
    options = ["MR005"]
    if retry.msg["method"] != "resources/read" or "requestState" in params:
        options.append("MR009")  # a new uri without a requestState is another call, not a changed retry
    if "requestState" in params:
        options.append("MR006")
    if params.get("inputResponses"):
        options.append("MR007")
    name = data.draw(st.sampled_from(options))
    if name == "MR005":
        original = _initial_of(events, retry)

        def change(msg):
            msg["id"] = original.msg["id"]
    elif name == "MR006":
        def change(msg):
            msg["params"]["requestState"] += "-tampered"
    elif name == "MR007":
        key = data.draw(st.sampled_from(sorted(params["inputResponses"])))

        def change(msg):
            msg["params"]["inputResponses"].pop(key)
    else:
        def change(msg):
            member = "uri" if msg["method"] == "resources/read" else "arguments"
            msg["params"][member] = "file:///changed" if member == "uri" else {"x": "changed"}
    mutated, line = _apply(events, retry, change)
    assert (line, name) in _lint_codes(mutated), name


@SETTINGS
@given(modern_sessions(), st.data())
def test_foreign_and_unsolicited_mutations(events, data):
    # MR008: a retry's requestState copied onto a request of another method
    retry = _pick(events, data, "retry", lambda e: "requestState" in e.info["params"])
    stolen = {"jsonrpc": "2.0", "id": "x-1", "method": "completion/complete", "params": {
        "ref": {"type": "ref/prompt", "name": "p0"}, "argument": {"name": "a", "value": ""},
        "requestState": retry.info["params"]["requestState"], "_meta": retry.msg["params"]["_meta"]}}
    index = events.index(retry)
    mutated = events[:index] + [Event("C", stolen)] + events[index:]
    found = _lint_codes(mutated)
    assert (index + 1, "MR008") in found
    # MR010: a call carrying a state nobody issued
    forged = Event("C", call("x-2", name="never-called", requestState="forged-state"))
    mutated = [forged] + events
    assert (1, "MR010") in _lint_codes(mutated)

"""Sampling rules (SM001-SM011): generated spec-valid sessions draw nothing, targeted mutations
draw the expected code; plus edge cases the rule pages do not show."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.clientfeatures import ALL, LEGACY, MODERN, Script, findings
from tests.ruledocs import run_transcript

TOOLS_ERA = ("2025-11-25", MODERN)
METHOD = "sampling/createMessage"
TOOL = {"name": "get_weather", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ?.", min_size=1, max_size=20)


def block_types(rev):
    return ["text", "image"] + (["audio"] if rev != "2024-11-05" else [])


@st.composite
def block(draw, rev):
    kind = draw(st.sampled_from(block_types(rev)))
    if kind == "text":
        return {"type": "text", "text": draw(words)}
    return {"type": kind, "data": "AAAA", "mimeType": "image/png" if kind == "image" else "audio/wav"}


@st.composite
def content(draw, rev):
    if rev in TOOLS_ERA and draw(st.booleans()):
        return draw(st.lists(block(rev), min_size=1, max_size=3))
    return draw(block(rev))


@st.composite
def exchange(draw, rev, caps, n):
    """One valid (params, result) pair; ``n`` makes tool-use ids unique."""
    tools = rev in TOOLS_ERA and "tools" in caps["sampling"] and draw(st.booleans())
    messages = [{"role": "user", "content": draw(content(rev))}]
    for i in range(draw(st.integers(0, 2)) if not tools else 0):
        messages.append({"role": draw(st.sampled_from(["user", "assistant"])), "content": draw(content(rev))})
    params = {"messages": messages, "maxTokens": draw(st.integers(1, 4096))}
    result = {"role": "assistant", "content": draw(content(rev)), "model": "m-1"}
    stop = draw(st.sampled_from([None, "endTurn", "maxTokens", "stopSequence"]))
    if tools:
        rounds = draw(st.integers(0, 2))
        for r in range(rounds):
            ids = [f"call_{n}_{r}_{k}" for k in range(draw(st.integers(1, 3)))]
            messages.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": i, "name": "get_weather", "input": {"city": "x"}} for i in ids]})
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "toolUseId": i, "content": [{"type": "text", "text": "18"}]} for i in ids]})
        params["tools"] = [TOOL]
        mode = draw(st.sampled_from([None, "auto", "none", "required"]))
        if mode is not None:
            params["toolChoice"] = {"mode": mode}
        use = mode == "required" and rounds == 0 or mode in (None, "auto") and draw(st.booleans())
        if use:
            result["content"] = [{"type": "tool_use", "id": f"res_{n}", "name": "get_weather", "input": {}}]
            stop = "toolUse"
    if stop is not None:
        result["stopReason"] = stop
    if draw(st.booleans()):
        params["modelPreferences"] = {
            "hints": [{"name": "claude"}],
            **{k: draw(st.floats(0, 1)) for k in draw(st.lists(
                st.sampled_from(["costPriority", "speedPriority", "intelligencePriority"]), unique=True))}}
    contexts = ["none"] + (["thisServer", "allServers"] if rev not in TOOLS_ERA or "context" in caps["sampling"] else [])
    if draw(st.booleans()):
        params["includeContext"] = draw(st.sampled_from(contexts))
    if draw(st.booleans()):
        params["systemPrompt"] = draw(words)
    return params, result


@st.composite
def session(draw, revisions=ALL, tools=None):
    rev = draw(st.sampled_from(revisions))
    sampling = {}
    if rev in TOOLS_ERA:
        if tools if tools is not None else draw(st.booleans()):
            sampling["tools"] = {}
        if draw(st.booleans()):
            sampling["context"] = {}
    caps = {"sampling": sampling}
    pairs = [draw(exchange(rev, caps, n)) for n in range(draw(st.integers(1, 3)))]
    return rev, caps, pairs


def build(rev, caps, pairs, errors=None):
    script = Script(rev, caps)
    lines = []
    for index, (params, result) in enumerate(pairs):
        error = (errors or {}).get(index)
        lines.append(script.exchange(METHOD, params, None if error else result, error=error))
    return script, lines


@SETTINGS
@given(session())
def test_valid_sessions_draw_no_sampling_finding(case):
    script, _ = build(*case)
    assert findings(script, "SM") == []


# -- targeted mutations: (revisions, mutate(params, result, caps) -> code, where) --------------------
def drop_max_tokens(p, r, c):
    del p["maxTokens"]
    return "SM001", "ask"


def system_role(p, r, c):
    p["messages"][0]["role"] = "system"
    return "SM001", "ask"


def resource_block(p, r, c):
    p["messages"][0]["content"] = {"type": "resource_link", "uri": "file:///a", "name": "a"}
    return "SM001", "ask"


def drop_model(p, r, c):
    del r["model"]
    return "SM008", "answer"


def bad_priority(p, r, c):
    p["modelPreferences"] = {"speedPriority": 1.5}
    return "SM011", "ask"


def mixed_results(p, r, c):
    p["messages"] += [{"role": "assistant", "content": [{"type": "tool_use", "id": "m1", "name": "w", "input": {}}]},
                      {"role": "user", "content": [{"type": "text", "text": "here"},
                                                   {"type": "tool_result", "toolUseId": "m1", "content": []}]}]
    return "SM004", "ask"


def missing_result(p, r, c):
    p["messages"] += [{"role": "assistant", "content": [{"type": "tool_use", "id": "m1", "name": "w", "input": {}},
                                                        {"type": "tool_use", "id": "m2", "name": "w", "input": {}}]},
                      {"role": "user", "content": [{"type": "tool_result", "toolUseId": "m1", "content": []}]}]
    return "SM005", "ask"


def unknown_tool_use_id(p, r, c):
    p["messages"].append({"role": "user", "content": [{"type": "tool_result", "toolUseId": "never", "content": []}]})
    return "SM006", "ask"


def choice_none_used(p, r, c):
    p["tools"], p["toolChoice"] = [TOOL], {"mode": "none"}
    r["content"] = [{"type": "tool_use", "id": "x9", "name": "get_weather", "input": {}}]
    r["stopReason"] = "toolUse"
    return "SM007", "answer"


def stop_reason_without_use(p, r, c):
    r["content"], r["stopReason"] = {"type": "text", "text": "hm"}, "toolUse"
    return "SM009", "answer"


def include_context(p, r, c):
    c["sampling"].pop("context", None)
    p["includeContext"] = "thisServer"
    return "SM003", "ask"


MUTATIONS = [
    (ALL, drop_max_tokens), (ALL, system_role), (ALL, resource_block), (ALL, drop_model), (ALL, bad_priority),
    (TOOLS_ERA, mixed_results), (TOOLS_ERA, missing_result), (TOOLS_ERA, unknown_tool_use_id),
    (TOOLS_ERA, choice_none_used), (TOOLS_ERA, stop_reason_without_use), (TOOLS_ERA, include_context),
]


@pytest.mark.parametrize("revisions,mutate", MUTATIONS, ids=[m.__name__ for _, m in MUTATIONS])
@SETTINGS
@given(data=st.data())
def test_mutations_are_reported(revisions, mutate, data):
    rev, caps, pairs = data.draw(session(revisions, tools=True))
    pairs = copy.deepcopy(pairs)
    index = data.draw(st.integers(0, len(pairs) - 1))
    params, result = pairs[index]
    code, where = mutate(params, result, caps)
    script, lines = build(rev, caps, pairs)
    line = lines[index][0 if where == "ask" else 1]
    got = {(f.line, f.code) for f in findings(script, "SM")}
    assert (line, code) in got, (script.text(), got)


def test_tools_without_capability_legacy_only():
    rev, caps = "2025-11-25", {"sampling": {}}
    params = {"messages": [{"role": "user", "content": {"type": "text", "text": "w"}}], "maxTokens": 5, "tools": [TOOL]}
    result = {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}
    script, lines = build(rev, caps, [(params, result)])
    assert {(f.line, f.code) for f in findings(script, "SM")} == {(lines[0][0], "SM002"), (lines[0][1], "SM002")}
    # in 2026-07-28 the same payload is MR004's, not SM002's
    script, _ = build(MODERN, caps, [(params, result)])
    assert [f for f in findings(script, "SM") if f.code == "SM002"] == []


def test_rejection_code():
    params = {"messages": [{"role": "user", "content": {"type": "text", "text": "w"}}], "maxTokens": 5}
    script, lines = build("2025-06-18", {"sampling": {}}, [(params, None)] * 2, errors={
        0: {"code": 1, "message": "User declined"}, 1: {"code": -32603, "message": "Model overloaded"}})
    assert [(f.line, f.code) for f in findings(script, "SM")] == [(lines[0][1], "SM010")]


# -- edge cases ----------------------------------------------------------------------------------
INIT = '# init 2025-11-25 C={"sampling":{"tools":{}}} S={"tools":{}}\n'


def sm(text):
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code.startswith("SM")]


def test_task_augmented_sampling_result_is_not_judged_as_create_message_result():
    text = (INIT.replace('"tools":{}}', '"tools":{}},"tasks":{"requests":{"sampling":{"createMessage":{}}}}', 1)
            + 'S→C {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user",'
              '"content":{"type":"text","text":"hi"}}],"maxTokens":5,"task":{"ttl":60000}}}\n'
              'C→S {"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working",'
              '"createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":60000}}}\n')
    assert sm(text) == []


def test_tool_result_answering_an_earlier_result_is_known():
    text = (INIT
            + 'S→C {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user",'
              '"content":{"type":"text","text":"w"}}],"maxTokens":5,"tools":[{"name":"w","inputSchema":{"type":"object"}}]}}\n'
              'C→S {"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"tool_use","id":"u1",'
              '"name":"w","input":{}},"model":"m","stopReason":"toolUse"}}\n'
              'S→C {"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{"messages":[{"role":"user",'
              '"content":{"type":"tool_result","toolUseId":"u1","content":[]}}],"maxTokens":5}}\n'
              'C→S {"jsonrpc":"2.0","id":2,"result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}\n')
    assert sm(text) == []


def test_required_tool_choice_satisfied_earlier_or_cut_off():
    base = ('S→C {"jsonrpc":"2.0","id":%d,"method":"sampling/createMessage","params":{"messages":%s,"maxTokens":5,'
            '"tools":[{"name":"w","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"required"}}}\n'
            'C→S {"jsonrpc":"2.0","id":%d,"result":{"role":"assistant","content":{"type":"text","text":"x"},'
            '"model":"m","stopReason":"%s"}}\n')
    history = ('[{"role":"user","content":{"type":"text","text":"w"}},{"role":"assistant","content":{"type":"tool_use",'
               '"id":"a","name":"w","input":{}}},{"role":"user","content":{"type":"tool_result","toolUseId":"a","content":[]}}]')
    fresh = '[{"role":"user","content":{"type":"text","text":"w"}}]'
    text = INIT + base % (1, history, 1, "endTurn") + base % (2, fresh, 2, "maxTokens") + base % (3, fresh, 3, "endTurn")
    assert sm(text) == [(7, "SM007", "error")]


def test_unknown_revision_gets_no_version_notes():
    text = ('S→C {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user",'
            '"content":[{"type":"audio","data":"AA","mimeType":"audio/wav"}]}],"maxTokens":5}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}\n')
    assert sm(text) == []


def test_embedded_sampling_without_params_is_reported_once():
    script = Script(MODERN, {"sampling": {}})
    ask, _ = script.exchange(METHOD, None, {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"})
    assert [(f.line, f.code) for f in findings(script, "SM")] == [(ask, "SM001")]


@pytest.mark.parametrize("rev", LEGACY)
def test_legacy_revisions_accept_the_basic_exchange(rev):
    script, _ = build(rev, {"sampling": {}}, [({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                                                "maxTokens": 10}, {"role": "assistant", "content": {"type": "text",
                                                                                                    "text": "hello"},
                                                                   "model": "m"})])
    assert findings(script, "SM") == []

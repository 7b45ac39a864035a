"""Prompt rules (PM001-PM005): edge cases the pages do not show, and property tests."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mcplint import protocol
from mcplint.rules.prompts import block_problems
from tests.feature_sessions import ALL, Script, findings, names, texts
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={} S={"prompts":{"listChanged":true}}\n'
LIST = ('C→S {"jsonrpc":"2.0","id":1,"method":"prompts/list"}\n'
        'S→C {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"review","arguments":[{"name":"code","required":true}]}]}}\n')


def pm(text):
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code.startswith("PM")]


def get(i, name, args=None, messages='[{"role":"user","content":{"type":"text","text":"x"}}]'):
    arguments = f',"arguments":{args}' if args is not None else ""
    return (f'C→S {{"jsonrpc":"2.0","id":{i},"method":"prompts/get","params":{{"name":"{name}"{arguments}}}}}\n'
            f'S→C {{"jsonrpc":"2.0","id":{i},"result":{{"messages":{messages}}}}}\n')


def test_block_types_follow_the_revision():
    audio = {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}
    link = {"type": "resource_link", "uri": "file:///a", "name": "a"}
    assert block_problems(audio, "2024-11-05")[0][1] == "type 'audio' does not exist in 2024-11-05"
    assert block_problems(audio, "2025-03-26") == []
    assert block_problems(link, "2025-03-26") != [] and block_problems(link, "2025-06-18") == []
    assert "sampling" in block_problems({"type": "tool_use", "id": "1", "name": "t", "input": {}}, "2025-11-25")[0][1]
    assert block_problems([{"type": "text", "text": "x"}], "2025-06-18")[0][0] == 2


def test_unknown_name_is_not_judged_after_list_changed():
    text = INIT + LIST + 'S→C {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}\n' + get(2, "new")
    assert pm(text) == []


def test_unknown_name_is_not_judged_on_an_incomplete_list():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"prompts/list"}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"a"}],"nextCursor":"p2"}}\n') + get(2, "b")
    assert pm(text) == []


def test_missing_argument_after_list_changed_is_low_confidence():
    text = INIT + LIST + 'S→C {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}\n' + get(2, "review")
    found = [(f.line, f.code, f.confidence) for f in run_transcript(text) if f.code.startswith("PM")]
    assert found == [(6, "PM002", "low")]


def test_all_required_arguments_given_is_clean():
    assert pm(INIT + LIST + get(2, "review", '{"code":"print(1)","extra":"x"}')) == []


def test_arguments_not_an_object():
    assert pm(INIT + get(1, "review", '["print(1)"]')) == [(2, "PM003", "error")]


def test_modern_input_required_answer_is_not_a_missing_argument_acceptance():
    meta = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{}}')
    text = (f'C→S {{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{{{meta}}}}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[{"name":"review",'
            '"arguments":[{"name":"code","required":true}]}],"ttlMs":0,"cacheScope":"public"}}\n'
            f'C→S {{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{{"name":"review",{meta}}}}}\n'
            'S→C {"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s"}}\n')
    assert pm(text) == []


# -- property tests --------------------------------------------------------------------------
def blocks(version):
    choices = [st.builds(lambda t: {"type": "text", "text": t}, texts),
               st.just({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
               st.builds(lambda n, t: {"type": "resource", "resource": {"uri": f"file:///{n}", "mimeType": "text/plain",
                                                                        "text": t}}, names, texts)]
    if protocol.at_least(version, protocol.V2025_03_26):
        choices.append(st.just({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}))
    if protocol.at_least(version, protocol.V2025_06_18):
        choices.append(st.builds(lambda n: {"type": "resource_link", "uri": f"file:///{n}", "name": n}, names))
    return st.one_of(choices)


@st.composite
def prompt_sessions(draw) -> Script:
    """Sessions that list prompts and get them with every required argument as a string."""
    version = draw(st.sampled_from(ALL))
    script = Script(version, server_caps={"prompts": {}})
    prompts = {}
    for name in draw(st.lists(names, min_size=1, max_size=4, unique=True)):
        args = [{"name": arg, "required": draw(st.booleans())}
                for arg in draw(st.lists(names, max_size=3, unique=True))]
        prompts[name] = {"name": name, "description": draw(texts), "arguments": args}
    script.call("prompts/list", None, {"prompts": list(prompts.values())}, cache=True)
    for _ in range(draw(st.integers(0, 4))):
        prompt = prompts[draw(st.sampled_from(sorted(prompts)))]
        args = {arg["name"]: draw(texts) for arg in prompt["arguments"] if arg["required"] or draw(st.booleans())}
        messages = [{"role": draw(st.sampled_from(["user", "assistant"])), "content": draw(blocks(version))}
                    for _ in range(draw(st.integers(1, 3)))]
        script.call("prompts/get", {"name": prompt["name"], "arguments": args}, {"messages": messages})
    return script


def mutate(script: Script, how: str) -> tuple[Script, int, str]:
    listed = script.messages[1][1]["result"]["prompts"]
    text = [{"role": "user", "content": {"type": "text", "text": "x"}}]
    if how == "unknown":
        _, answer = script.call("prompts/get", {"name": "no_such_prompt"}, {"messages": text})
        return script, script.line(answer), "PM001"
    if how == "missing":
        prompt = next(p for p in listed if any(a["required"] for a in p["arguments"]))
        _, answer = script.call("prompts/get", {"name": prompt["name"], "arguments": {}}, {"messages": text})
        return script, script.line(answer), "PM002"
    if how == "wrong-code":
        index = script.request("prompts/get", {"name": "no_such_prompt"})
        answer = script.error(index, -32603, "Unknown prompt: no_such_prompt")
        return script, script.line(answer), "PM005"
    if how == "not-string":
        index, _ = script.call("prompts/get", {"name": listed[0]["name"], "arguments": {"n": 5}}, {"messages": text})
        return script, script.line(index), "PM003"
    _, answer = script.call("prompts/get", {"name": listed[0]["name"]},
                            {"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]})
    return script, script.line(answer), "PM004"


@settings(max_examples=50, deadline=None)
@given(prompt_sessions())
def test_generated_prompt_sessions_draw_no_prompt_finding(script):
    assert findings(script, "PM") == []


@settings(max_examples=50, deadline=None)
@given(prompt_sessions(), st.sampled_from(["unknown", "missing", "wrong-code", "not-string", "role"]))
def test_targeted_prompt_mutations_are_reported(script, how):
    listed = script.messages[1][1]["result"]["prompts"]
    assume(how != "missing" or any(a["required"] for p in listed for a in p["arguments"]))
    script, line, code = mutate(script, how)
    found = {(line_, code_) for line_, code_, _ in findings(script, "PM")}
    assert (line, code) in found, found


# -- PM005 prompt-error-code -------------------------------------------------------------------
def refused(i, name, code, message, args=None):
    arguments = f',"arguments":{args}' if args is not None else ""
    return (f'C→S {{"jsonrpc":"2.0","id":{i},"method":"prompts/get","params":{{"name":"{name}"{arguments}}}}}\n'
            f'S→C {{"jsonrpc":"2.0","id":{i},"error":{{"code":{code},"message":"{message}"}}}}\n')


def pm005(text):
    return [(f.line, f.severity.value, f.confidence) for f in run_transcript(text) if f.code == "PM005"]


def test_unknown_prompt_from_the_catalog_with_a_wrong_code():
    assert pm005(INIT + LIST + refused(2, "nope", -32603, "Internal error")) == [(5, "warning", "low")]
    assert pm005(INIT + LIST + refused(2, "nope", 0, "Unknown prompt: nope")) == [(5, "warning", "high")]
    assert pm005(INIT + LIST + refused(2, "nope", -32602, "Internal error")) == []


def test_missing_required_argument_from_the_catalog_with_a_wrong_code():
    assert pm005(INIT + LIST + refused(2, "review", -32603, "Template failed")) == [(5, "warning", "high")]
    stale = INIT + LIST + 'S→C {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}\n'
    assert pm005(stale + refused(2, "review", -32603, "Template failed")) == [(6, "warning", "low")]
    # every required argument given: the failure has another cause, -32603 is right for it
    assert pm005(INIT + LIST + refused(2, "review", -32603, "Template failed", '{"code":"x"}')) == []


def test_python_sdk_code_zero_messages_name_the_cause():
    assert pm005(INIT + refused(1, "nope", 0, "Unknown prompt: nope")) == [(3, "warning", "high")]
    assert pm005(INIT + refused(1, "review", 0, "Missing required arguments: {'code'}")) == [(3, "warning", "high")]
    assert pm005(INIT + refused(1, "x", -32001, "Prompt not found")) == [(3, "warning", "low")]


def test_method_not_found_counts_for_a_prompt_of_a_declared_capability():
    assert pm005(INIT + LIST + refused(2, "nope", -32601, "Prompt not found: nope")) == [(5, "warning", "high")]
    bare = INIT + LIST + refused(2, "nope", -32601, "Method not found")
    assert pm005(bare) == [] and [f.code for f in run_transcript(bare) if f.code.startswith("CAP")] == ["CAP008"]
    undeclared = '# init 2025-06-18 C={} S={"tools":{}}\n' + refused(1, "nope", -32601, "Unknown prompt: nope")
    assert pm005(undeclared) == []


def test_invalid_request_for_an_unknown_prompt():
    assert pm005(INIT + refused(1, "nope", -32600, "Prompt 'nope' not found")) == [(3, "warning", "high")]
    assert pm005(INIT + refused(1, "nope", -32600, "Session not initialized")) == []


def test_unknown_cause_judges_only_codes_that_are_never_right():
    assert pm005(INIT + refused(1, "review", 0, "KeyError: 'lang'")) == [(3, "info", "low")]
    assert pm005(INIT + refused(1, "review", 500, "boom")) == [(3, "info", "low")]
    assert pm005(INIT + refused(1, "review", -32601, "Prompt handler crashed")) == [(3, "info", "low")]
    for code, message in ((-32603, "Internal error"), (-32000, "Database unavailable"), (-32002, "Busy"),
                          (-1, "failed"), (-32602, "Invalid params"), (-32700, "Parse error"),
                          (-32600, "Invalid Request")):
        assert pm005(INIT + refused(1, "review", code, message)) == [], (code, message)


def test_modern_prompt_refusals():
    meta = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}')
    get = (f'C→S {{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{{"name":"nope",{meta}}}}}\n'
           'S→C {"jsonrpc":"2.0","id":2,"error":{"code":%d,"message":"Unknown prompt: nope"}}\n')
    assert pm005(get % -32603) == [(2, "warning", "high")]
    assert pm005(get % -32021) == [] and pm005(get % -32602) == []


def test_prompt_error_code_survives_odd_payloads():
    odd = ('C→S {"jsonrpc":"2.0","id":1,"method":"prompts/get","params":["x"]}\n'
           'S→C {"jsonrpc":"2.0","id":1,"error":{"code":0,"message":["no"]}}\n'
           'C→S {"jsonrpc":"2.0","id":2,"method":"prompts/get"}\n'
           'S→C {"jsonrpc":"2.0","id":2,"error":{"code":"0","message":"Unknown prompt"}}\n'
           'C→S {"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":5}}\n'
           'S→C {"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Missing required argument"}}\n'
           'C→S {"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"a"}}\n'
           'S→C {"jsonrpc":"2.0","id":4,"error":null}\n')
    assert [line for line, _, _ in pm005(INIT + odd)] == [3, 7]

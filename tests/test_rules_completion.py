"""Completion rules (CP001-CP004): edge cases the pages do not show, and property tests."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint import protocol
from mcplint.rules.completion import request_problems
from tests.feature_sessions import ALL, Script, findings, names, words
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={} S={"prompts":{},"completions":{}}\n'


def cp(text):
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code.startswith("CP")]


def complete(i, ref='{"type":"ref/prompt","name":"p"}', argument='{"name":"a","value":"x"}', extra=""):
    return (f'C→S {{"jsonrpc":"2.0","id":{i},"method":"completion/complete",'
            f'"params":{{"ref":{ref},"argument":{argument}{extra}}}}}\n')


def test_request_problems():
    good = {"ref": {"type": "ref/resource", "uri": "file:///{p}"}, "argument": {"name": "p", "value": ""}}
    assert request_problems(good, "2025-06-18") == []
    assert request_problems({}, "2025-06-18") == ["ref is missing", "argument is missing"]
    assert request_problems({**good, "context": {"arguments": {"a": 1}}}, "2025-03-26") == []  # no context then
    assert request_problems({**good, "context": {"arguments": {"a": 1}}}, "2025-06-18") == [
        "context.arguments['a'] is a number, not a string"]
    assert request_problems({"ref": {"type": "ref/prompt"}, "argument": {"name": "a", "value": 1}}, None) == [
        "ref/prompt ref has no name", "argument.value is a number"]


def test_missing_params():
    assert cp(INIT + 'C→S {"jsonrpc":"2.0","id":1,"method":"completion/complete"}\n') == [(2, "CP002", "error")]


def test_exactly_100_values_is_fine_and_total_may_exceed_with_has_more():
    values = ",".join(f'"v{i}"' for i in range(100))
    text = INIT + complete(1) + f'S→C {{"jsonrpc":"2.0","id":1,"result":{{"completion":{{"values":[{values}],"total":500}}}}}}\n'
    assert cp(text) == []


def test_error_codes_are_not_judged_in_2024_11_05():
    text = ('# init 2024-11-05 C={} S={"prompts":{}}\n' + complete(1) +
            'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Unknown prompt p"}}\n')
    assert cp(text) == []


def test_error_code_from_the_message_is_low_confidence():
    text = INIT + complete(1) + 'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Unknown prompt p"}}\n'
    found = [(f.line, f.code, f.confidence) for f in run_transcript(text) if f.code.startswith("CP")]
    assert found == [(3, "CP004", "low")]


def test_internal_errors_are_not_judged():
    text = INIT + complete(1) + 'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"backend timeout"}}\n'
    assert cp(text) == []


def test_unknown_argument_of_a_listed_prompt():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"prompts/list"}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"p","arguments":[{"name":"lang"}]}]}}\n'
                   + complete(2) + 'S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"nope"}}\n')
    assert cp(text) == [(5, "CP004", "warning")]


def test_undeclared_capability_refusal_is_cap007s():
    text = '# init 2025-06-18 C={} S={"prompts":{}}\n' + complete(1) + \
        'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"unknown prompt"}}\n'
    codes = {f.code for f in run_transcript(text)}
    assert "CAP007" in codes and "CP004" in codes  # different requirements: -32601 vs -32602
    text = text.replace("-32603", "-32601")
    assert "CP004" not in {f.code for f in run_transcript(text)}


# -- property tests --------------------------------------------------------------------------
@st.composite
def completion_sessions(draw) -> Script:
    """Sessions that complete prompt and resource-template arguments with consistent results."""
    version = draw(st.sampled_from(ALL))
    caps = {"prompts": {}, "resources": {}}
    if protocol.at_least(version, protocol.V2025_03_26):
        caps["completions"] = {}
    script = Script(version, server_caps=caps)
    prompt = draw(names)
    script.call("prompts/list", None, {"prompts": [{"name": prompt, "arguments": [{"name": "lang"}]}]}, cache=True)
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.booleans()):
            params = {"ref": {"type": "ref/prompt", "name": prompt}, "argument": {"name": "lang", "value": draw(words)}}
        else:
            params = {"ref": {"type": "ref/resource", "uri": "file:///{dir}/{name}"},
                      "argument": {"name": "dir", "value": draw(words)[:2]}}
        if protocol.at_least(version, protocol.V2025_06_18) and draw(st.booleans()):
            params["context"] = {"arguments": {"name": draw(words)}}
        values = draw(st.lists(words, max_size=100))
        completion = {"values": values}
        total = draw(st.none() | st.integers(len(values), len(values) + 50))
        if total is not None:
            completion["total"] = total
            if draw(st.booleans()):
                completion["hasMore"] = total > len(values)
        if draw(st.booleans()):
            index = script.request("completion/complete", params)
            if draw(st.booleans()):
                script.error(index, -32602, "Invalid params")
            else:
                script.result(index, {"completion": completion})
        else:
            script.call("completion/complete", params, {"completion": completion})
    return script


def mutate(script: Script, how: str) -> tuple[Script, int, str]:
    params = {"ref": {"type": "ref/prompt", "name": "no_such_prompt"}, "argument": {"name": "lang", "value": "p"}}
    if how == "too-many":
        _, answer = script.call("completion/complete", params, {"completion": {"values": ["v"] * 101}})
        return script, script.line(answer), "CP001"
    if how == "ref":
        index, _ = script.call("completion/complete", {**params, "ref": {"type": "ref/tool", "name": "t"}},
                               {"completion": {"values": []}})
        return script, script.line(index), "CP002"
    if how == "total":
        _, answer = script.call("completion/complete", params, {"completion": {"values": ["a", "b"], "total": 1}})
        return script, script.line(answer), "CP003"
    index = script.request("completion/complete", params)
    answer = script.error(index, -32603, "boom")
    code = "CP004" if script.version != "2024-11-05" else None
    return script, script.line(answer), code


@settings(max_examples=50, deadline=None)
@given(completion_sessions())
def test_generated_completion_sessions_draw_no_completion_finding(script):
    assert findings(script, "CP") == []


@settings(max_examples=50, deadline=None)
@given(completion_sessions(), st.sampled_from(["too-many", "ref", "total", "error-code"]))
def test_targeted_completion_mutations_are_reported(script, how):
    script, line, code = mutate(script, how)
    found = {(line_, code_) for line_, code_, _ in findings(script, "CP")}
    if code is None:  # 2024-11-05 names no completion error codes
        assert found == set()
    else:
        assert (line, code) in found, found

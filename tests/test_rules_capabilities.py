"""Edge cases of the capability gating rules (CAP001-CAP008) that the rule pages do not show."""

from __future__ import annotations

import io

import orjson
import pytest

from mcplint.analysis.engine import Engine
from tests.ruledocs import run_transcript

CAP = ("CAP001", "CAP002", "CAP003", "CAP004", "CAP005", "CAP006", "CAP007", "CAP008")


def cap(text: str, codes=CAP) -> list[tuple[int, str, str]]:
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code in codes]


MODERN_META = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
               '"io.modelcontextprotocol/clientCapabilities":%s}')


def test_clean_session_draws_no_finding_at_all():
    text = """\
# init 2025-06-18 C={"roots":{"listChanged":true}} S={"tools":{"listChanged":true},"logging":{}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"}}]}}
C→S {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}
S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"adding"}}
S→C {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"1"}]}}
C→S {"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}
S→C {"jsonrpc":"2.0","id":3,"result":{}}
S→C {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
C→S {"jsonrpc":"2.0","method":"notifications/roots/list_changed"}
S→C {"jsonrpc":"2.0","id":1,"method":"roots/list"}
C→S {"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file:///tmp"}]}}
"""
    assert [(f.line, f.code) for f in run_transcript(text)] == []


def test_midstream_capture_without_handshake_is_not_judged():
    text = """\
C→S {"jsonrpc":"2.0","id":5,"method":"prompts/list"}
S→C {"jsonrpc":"2.0","id":5,"result":{"prompts":[]}}
S→C {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}
S→C {"jsonrpc":"2.0","id":9,"method":"roots/list"}
C→S {"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"no"}}
"""
    assert cap(text) == []


def test_messages_before_the_initialize_result_are_not_judged():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"starting"}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
"""
    assert cap(text, ("CAP001", "CAP003")) == []


def test_capabilities_of_a_second_handshake_in_one_session_are_judged():
    # the edge of the closed-gate plan fact: a keyed session stays one session through a second
    # handshake, whose result alone closes the tools gate
    def handshake(rid, caps):
        return [("c2s", {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
                ("s2c", {"jsonrpc": "2.0", "id": rid, "result": {
                    "protocolVersion": "2025-06-18", "capabilities": caps, "serverInfo": {"name": "s", "version": "1"}}}),
                ("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"})]
    call = [("c2s", {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "t", "arguments": {}}}),
            ("s2c", {"jsonrpc": "2.0", "id": 9, "result": {"content": []}})]
    entries = handshake(0, {"tools": {}}) + call + handshake(1, {}) + call
    data = b"".join(orjson.dumps({"dir": d, "msg": m, "session": "k"}) + b"\n" for d, m in entries)
    found = [(f.line, f.code) for f in Engine().lint_stream(io.BytesIO(data), "x.jsonl") if f.code in CAP]
    assert found == [(9, "CAP001"), (10, "CAP004")]


def test_modern_sessions_are_skipped():
    meta = MODERN_META % "{}"
    text = f"""\
C→S {{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{{{meta}}}}}
S→C {{"jsonrpc":"2.0","id":"d","result":{{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{{}},"ttlMs":0,"cacheScope":"public"}}}}
C→S {{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{{{meta}}}}}
S→C {{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","prompts":[],"ttlMs":0,"cacheScope":"public"}}}}
C→S {{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{meta}}}}}
S→C {{"jsonrpc":"2.0","id":2,"error":{{"code":-32601,"message":"Method not found"}}}}
"""
    assert cap(text) == []


@pytest.mark.parametrize("version,severity", [
    ("2024-11-05", "warning"), ("2025-03-26", "warning"), ("2025-06-18", "error"), ("2025-11-25", "error"),
])
def test_severity_follows_the_negotiation_level_of_the_version(version, severity):
    text = f"""\
# init {version} C={{}} S={{}}
C→S {{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
S→C {{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"x"}}}}
"""
    assert cap(text) == [(2, "CAP001", severity), (3, "CAP003", "error")]  # logging: MUST always


def test_spec_level_is_cited_per_version():
    text = '# init 2024-11-05 C={} S={}\nC→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
    (finding,) = [f for f in run_transcript(text) if f.code == "CAP001"]
    assert finding.spec.endswith("(SHOULD)") and finding.party == "client"


def test_completion_is_ungated_in_2024_11_05():
    text = """\
# init 2024-11-05 C={} S={"prompts":{}}
C→S {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}}
S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"nope"}}
C→S {"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}}
S→C {"jsonrpc":"2.0","id":2,"result":{"completion":{"values":[]}}}
"""
    assert cap(text) == []


def test_completions_gate_from_2025_03_26():
    text = """\
# init 2025-06-18 C={} S={"completions":{}}
C→S {"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}}
S→C {"jsonrpc":"2.0","id":1,"result":{"completion":{"values":[]}}}
"""
    assert cap(text) == []


def test_capability_declared_as_true_is_shape_only():
    text = """\
# init 2025-06-18 C={} S={"tools":true}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"""
    assert cap(text) == [(1, "CAP006", "error")]


def test_flag_missing_but_feature_declared():
    text = """\
# init 2025-06-18 C={} S={"resources":{}}
C→S {"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///a"}}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
C→S {"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"file:///a"}}
S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}
"""
    # the server refusing an undeclared flag with -32601 is right (no CAP008)
    assert cap(text) == [(2, "CAP001", "error"), (3, "CAP004", "warning"), (4, "CAP001", "error")]


def test_resources_updated_needs_subscribe_and_roots_list_changed_needs_client_flag():
    text = """\
# init 2025-06-18 C={"roots":{}} S={"resources":{"listChanged":true}}
S→C {"jsonrpc":"2.0","method":"notifications/resources/list_changed"}
S→C {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}
C→S {"jsonrpc":"2.0","method":"notifications/roots/list_changed"}
S→C {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}
"""
    assert cap(text) == [(3, "CAP003", "error"), (4, "CAP003", "error"), (5, "CAP003", "error")]


def test_elicitation_gate_and_modes():
    text = """\
# init 2025-06-18 C={"sampling":{}} S={}
S→C {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{}}}}
C→S {"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}
S→C {"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}
C→S {"jsonrpc":"2.0","id":2,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}
"""
    assert cap(text) == [(2, "CAP002", "error"), (3, "CAP005", "error")]


def test_url_elicitation_refused_by_form_only_client_is_not_cap008():
    text = """\
# init 2025-11-25 C={"elicitation":{}} S={}
S→C {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x.example/a","elicitationId":"e1"}}
C→S {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}
S→C {"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}
C→S {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}
"""
    assert cap(text) == [(5, "CAP008", "warning")]


def test_cap008_leaves_unknown_items_to_tl007():
    text = """\
# init 2025-06-18 C={} S={"tools":{},"prompts":{}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}
S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Unknown tool: nope"}}
C→S {"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet"}}
S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"greet"}}
C→S {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}
S→C {"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Not found"}}
C→S {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}
S→C {"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: tools/call"}}
"""
    findings = [(f.line, f.code, f.confidence) for f in run_transcript(text) if f.code in CAP + ("TL007",)]
    assert findings == [(3, "TL007", "high"), (7, "CAP008", "low"), (9, "CAP008", "high")]


def test_cap007_only_judges_undeclared_features_and_ignores_minus_32601():
    text = """\
# init 2025-06-18 C={"roots":{}} S={"completions":{}}
S→C {"jsonrpc":"2.0","id":1,"method":"roots/list"}
C→S {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"disk unavailable"}}
C→S {"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"x"}}}
S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown prompt"}}
"""
    assert cap(text) == []


@pytest.mark.parametrize("caps,expected", [
    ('{"x-vendor":true,"tools":{"listChanged":true,"extra":1}}', []),
    ('{"experimental":{"a":{},"b":true}}', ["experimental.'b' is boolean"]),
    ('{"logging":null}', ["'logging' is null"]),
    ('{"resources":{"subscribe":1,"listChanged":"true"}}', ["listChanged is string", "subscribe is number"]),
    ('{"tasks":true}', []),  # not a capability of 2025-06-18: an allowed extra key
])
def test_capability_shape_details(caps, expected):
    text = f'# init 2025-06-18 C={{}} S={caps}\n'
    messages = [f.message for f in run_transcript(text) if f.code == "CAP006"]
    if not expected:
        assert messages == []
    else:
        (message,) = messages
        assert all(part in message for part in expected)


def test_capability_shape_is_version_aware_and_checks_both_sides():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":true},"tasks":{"list":[]}},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":[],"serverInfo":{"name":"s","version":"1"}}}
"""
    findings = [(f.line, f.party, f.message) for f in run_transcript(text) if f.code == "CAP006"]
    assert [(line, party) for line, party, _ in findings] == [(1, "client"), (2, "server")]
    assert "elicitation.form is boolean" in findings[0][2] and "tasks.list is array" in findings[0][2]
    assert "capabilities is array" in findings[1][2]


def test_capability_shape_walks_a_clean_declaration_once_per_side_and_version(monkeypatch):
    from mcplint.rules import capabilities

    walks = []
    original = capabilities.capability_problems
    monkeypatch.setattr(capabilities, "capability_problems",
                        lambda caps, side, version: walks.append((side, version)) or original(caps, side, version))
    caps = '{"tasks":true,"tools":{"listChanged":true}}'
    old = f"# init 2025-06-18 C={caps} S={caps}\n"  # tasks is no capability of 2025-06-18: clean
    assert cap(old + old) == [] and sorted(walks) == [("client", "2025-06-18"), ("server", "2025-06-18")]
    new = f"# init 2025-11-25 C={caps} S={caps}\n"  # the same text is malformed from 2025-11-25
    assert [code for _, code, _ in cap(new)] == ["CAP006", "CAP006"]


def test_capability_shape_in_modern_requests_reported_once():
    bad = MODERN_META % '{"sampling":true}'
    text = f"""\
C→S {{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{bad}}}}}
C→S {{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{bad}}}}}
C→S {{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{{{bad}}}}}
S→C {{"jsonrpc":"2.0","id":"d","result":{{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{"listChanged":"no"}}}},"ttlMs":0,"cacheScope":"public"}}}}
"""
    assert cap(text) == [(1, "CAP006", "error"), (4, "CAP006", "error")]


def test_duplicate_and_unmatched_responses_are_left_to_jsonrpc_rules():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
S→C {"jsonrpc":"2.0","id":7,"result":{"prompts":[]}}
"""
    assert cap(text) == []

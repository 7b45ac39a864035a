"""Elicitation rules (EL001-EL011): generated spec-valid sessions draw nothing, targeted
mutations draw the expected code; plus edge cases the rule pages do not show."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.clientfeatures import MODERN, Script, dumps, findings
from tests.ruledocs import run_transcript

METHOD = "elicitation/create"
ELICITATION = ("2025-06-18", "2025-11-25", MODERN)
MODES = ("2025-11-25", MODERN)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=12)


@st.composite
def prop(draw, rev):
    """(schema, a valid value for it)."""
    kinds = ["string", "email", "number", "integer", "boolean", "enum", "titled"] + (["multi"] if rev != "2025-06-18" else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "string":
        lo = draw(st.integers(0, 3))
        return {"type": "string", "title": "Name", "minLength": lo, "maxLength": 20}, "x" * max(lo, 1)
    if kind == "email":
        return {"type": "string", "format": "email"}, "user@example.com"
    if kind in ("number", "integer"):
        lo = draw(st.integers(-5, 5))
        value = draw(st.integers(lo, lo + 10))
        return {"type": kind, "minimum": lo, "maximum": lo + 10}, value if kind == "integer" else value + 0.5 * (value < lo + 10)
    if kind == "boolean":
        return {"type": "boolean", "default": False}, draw(st.booleans())
    if kind == "enum":
        return {"type": "string", "enum": ["red", "green", "blue"]}, draw(st.sampled_from(["red", "green", "blue"]))
    if kind == "titled":
        return ({"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
                draw(st.sampled_from(["a", "b"])))
    return ({"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["x", "y", "z"]}},
            draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=1, max_size=2, unique=True)))


NAMES = ("city", "age", "color", "agree", "tags", "nickname", "count")


@st.composite
def form(draw, rev):
    names = draw(st.lists(st.sampled_from(NAMES), min_size=0, max_size=4, unique=True))
    pairs = {name: draw(prop(rev)) for name in names}
    required = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    schema = {"type": "object", "properties": {n: s for n, (s, _) in pairs.items()}}
    if required or draw(st.booleans()):
        schema["required"] = required
    params = {"message": draw(words), "requestedSchema": schema}
    if rev != "2025-06-18" and draw(st.booleans()):
        params["mode"] = "form"
    action = draw(st.sampled_from(["accept", "accept", "decline", "cancel"]))
    answer = {"action": action}
    if action == "accept":
        answer["content"] = {n: v for n, (_, v) in pairs.items() if n in required or draw(st.booleans())}
    return params, answer


@st.composite
def url(draw, rev, n):
    ident = f"el-{n}"
    params = {"mode": "url", "message": draw(words), "url": f"https://mcp.example.com/connect?elicitationId={ident}"}
    if rev != MODERN:
        params["elicitationId"] = ident
    return params, {"action": draw(st.sampled_from(["accept", "decline", "cancel"]))}


@st.composite
def session(draw, revisions=ELICITATION, modes=None):
    rev = draw(st.sampled_from(revisions))
    if rev == "2025-06-18":
        caps = {"elicitation": {}}
    else:
        declared = modes or draw(st.sampled_from([(), ("form",), ("url",), ("form", "url")]))
        caps = {"elicitation": {m: {} for m in declared}}
    usable = {"form", "url"} & set(caps["elicitation"]) or {"form"}
    pairs = []
    for n in range(draw(st.integers(1, 3))):
        mode = draw(st.sampled_from(sorted(usable)))
        pairs.append(draw(form(rev)) if mode == "form" else draw(url(rev, n)))
    return rev, caps, pairs


def build(rev, caps, pairs):
    script = Script(rev, caps)
    lines = [script.exchange(METHOD, params, answer) for params, answer in pairs]
    return script, lines


def complete(script, ident):
    return script.emit("S→C", {"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                               "params": {"elicitationId": ident}})


@SETTINGS
@given(session())
def test_valid_sessions_draw_no_elicitation_finding(case):
    rev, caps, pairs = case
    script, _ = build(rev, caps, pairs)
    if rev == "2025-11-25":  # complete every URL elicitation that was issued
        for params, _ in pairs:
            if params.get("mode") == "url":
                complete(script, params["elicitationId"])
    assert findings(script, "EL") == []


# -- targeted mutations -------------------------------------------------------------------
def nested_property(p, a, c, rev):
    p.pop("mode", None)
    p["requestedSchema"] = {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}
    return "EL003", "ask"


def bad_action(p, a, c, rev):
    a.clear()
    a["action"] = "ok"
    return "EL005", "answer"


def sensitive_field(p, a, c, rev):
    p.pop("mode", None)
    p["requestedSchema"] = {"type": "object", "properties": {"api_key": {"type": "string"}}}
    a.clear()
    a["action"] = "decline"
    return "EL010", "ask"


def missing_required(p, a, c, rev):
    p.pop("mode", None)
    p["requestedSchema"] = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    a.clear()
    a.update({"action": "accept", "content": {}})
    return "EL007", "answer"


def nested_content(p, a, c, rev):
    p.pop("mode", None)
    p["requestedSchema"] = {"type": "object", "properties": {"city": {"type": "string"}}}
    a.clear()
    a.update({"action": "accept", "content": {"city": {"name": "x"}}})
    return "EL006", "answer"


def url_to_form_client(p, a, c, rev):
    c["elicitation"] = {"form": {}}
    p.clear()
    p.update({"mode": "url", "message": "m", "url": "https://x.example/a", "elicitationId": "u1"})
    a.clear()
    a["action"] = "decline"
    return "EL001", "ask"


def invalid_url(p, a, c, rev):
    c["elicitation"] = {"url": {}}
    p.clear()
    p.update({"mode": "url", "message": "m", "url": "not a url", "elicitationId": "u1"})
    a.clear()
    a["action"] = "cancel"
    return "EL004", "ask"


def token_in_url(p, a, c, rev):
    c["elicitation"] = {"url": {}}
    p.clear()
    p.update({"mode": "url", "message": "m", "url": "https://x.example/a?access_token=abc", "elicitationId": "u1"})
    a.clear()
    a["action"] = "accept"
    return "EL011", "ask"


def url_content(p, a, c, rev):
    c["elicitation"] = {"url": {}}
    p.clear()
    p.update({"mode": "url", "message": "m", "url": "https://x.example/a", "elicitationId": "u1"})
    a.clear()
    a.update({"action": "accept", "content": {"key": "v"}})
    return "EL006", "answer"


def accepted_undeclared(p, a, c, rev):
    url_to_form_client(p, a, c, rev)
    a["action"] = "accept"
    return "EL002", "answer"


MUTATIONS = [
    (ELICITATION, nested_property), (ELICITATION, bad_action), (ELICITATION, sensitive_field),
    (ELICITATION, missing_required), (ELICITATION, nested_content), (MODES, url_to_form_client),
    (MODES, invalid_url), (MODES, token_in_url), (MODES, url_content), (("2025-11-25",), accepted_undeclared),
]


@pytest.mark.parametrize("revisions,mutate", MUTATIONS, ids=[m.__name__ for _, m in MUTATIONS])
@SETTINGS
@given(data=st.data())
def test_mutations_are_reported(revisions, mutate, data):
    rev, caps, pairs = data.draw(session(revisions, modes=("form", "url")))
    pairs = copy.deepcopy(pairs)
    index = data.draw(st.integers(0, len(pairs) - 1))
    params, answer = pairs[index]
    caps = copy.deepcopy(caps)
    code, where = mutate(params, answer, caps, rev)
    script, lines = build(rev, caps, pairs)
    line = lines[index][0 if where == "ask" else 1]
    got = {(f.line, f.code) for f in findings(script, "EL")}
    assert (line, code) in got, (script.text(), got)


@SETTINGS
@given(session(("2025-11-25",), modes=("form", "url")), st.sampled_from(["unknown-id", "form-entry"]))
def test_url_elicitation_error_and_completion_mutations(case, mutation):
    rev, caps, pairs = case
    script, _ = build(rev, caps, pairs)
    script.emit("C→S", {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "files"}})
    entry = {"mode": "url", "elicitationId": "req-1", "url": "https://x.example/c?elicitationId=req-1", "message": "m"}
    if mutation == "form-entry":
        entry = {"mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}
    line = script.emit("S→C", {"jsonrpc": "2.0", "id": 99, "error": {"code": -32042, "message": "needed",
                                                                       "data": {"elicitations": [entry]}}})
    if mutation == "unknown-id":
        assert findings(script, "EL") == []  # req-1 is now issued
        line, expected = complete(script, "req-2"), "EL009"
    else:
        expected = "EL008"
    assert (line, expected) in {(f.line, f.code) for f in findings(script, "EL")}


# -- edge cases ------------------------------------------------------------------------------
INIT = '# init 2025-11-25 C={"elicitation":{"form":{},"url":{}}} S={"tools":{}}\n'


def el(text):
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code.startswith("EL")]


def test_completion_for_an_id_from_a_url_required_error_is_known():
    text = (INIT + 'C→S {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"files"}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"auth","data":{"elicitations":[{"mode":"url",'
            '"elicitationId":"e1","url":"https://mcp.example.com/connect?elicitationId=e1","message":"Authorize"}]}}}\n'
            'S→C {"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e1"}}\n')
    assert el(text) == []


def test_completion_on_a_capture_that_starts_mid_session_is_a_low_confidence_warning():
    text = 'S→C {"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e1"}}\n'
    found = [f for f in run_transcript(text) if f.code == "EL009"]
    assert [(f.severity.value, f.confidence) for f in found] == [("warning", "low")]


def test_neutral_fields_mentioning_secrets_are_not_flagged():
    text = (INIT + 'S→C {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Settings",'
            '"requestedSchema":{"type":"object","properties":{"reset_password":{"type":"boolean","title":"Reset your password?"},'
            '"secretary":{"type":"string"},"token_kind":{"type":"string","enum":["a","b"]}}}}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}\n')
    assert el(text) == []


def test_weak_secret_hint_is_low_confidence():
    text = (INIT + 'S→C {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Setup",'
            '"requestedSchema":{"type":"object","properties":{"gh":{"type":"string","description":"Your GitHub token"}}}}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}\n')
    found = [f for f in run_transcript(text) if f.code == "EL010"]
    assert [(f.severity.value, f.confidence) for f in found] == [("warning", "low")]


def test_localhost_http_url_is_development():
    text = (INIT + 'S→C {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"url","message":"m",'
            '"url":"http://localhost:8080/connect","elicitationId":"e1"}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"result":{"action":"accept"}}\n'
            'S→C {"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"mode":"url","message":"m",'
            '"url":"http://mcp.example.com/connect","elicitationId":"e2"}}\n'
            'C→S {"jsonrpc":"2.0","id":2,"result":{"action":"accept"}}\n')
    assert el(text) == [(4, "EL011", "info")]


def test_form_links_are_a_note_and_url_mode_in_2025_06_18_is_info():
    text = ('# init 2025-06-18 C={"elicitation":{}} S={"tools":{}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"url","message":"m",'
            '"url":"https://x.example/a"}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}\n')
    assert el(text) == [(2, "EL001", "info")]
    text = (INIT + 'S→C {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"See https://x.example/docs",'
            '"requestedSchema":{"type":"object","properties":{}}}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{}}}\n')
    assert el(text) == [(2, "EL011", "info")]


def test_modern_url_mode_needs_no_elicitation_id():
    script = Script(MODERN, {"elicitation": {"url": {}}})
    script.exchange(METHOD, {"mode": "url", "message": "m", "url": "https://x.example/a"}, {"action": "accept"})
    assert findings(script, "EL") == []


def test_unanswered_or_unknown_input_response_keys_are_left_to_mrtr():
    script = Script(MODERN, {"elicitation": {}})
    script.exchange(METHOD, {"message": "m", "requestedSchema": {"type": "object", "properties": {}}},
                    {"action": "accept", "content": {}}, key="a")
    script.emit("C→S", {"jsonrpc": "2.0", "id": 50, "method": "tools/call", "params": {
        "name": "work", "inputResponses": {"zzz": {"action": "nope"}}, "_meta": script.meta()}})
    assert findings(script, "EL") == []


def test_description_warning_against_secrets_is_not_a_request_for_them():
    from mcplint.rules.elicitation import sensitive_fields

    params = {"message": "x", "requestedSchema": {"type": "object", "properties": {
        "favorite": {"type": "integer", "description": "Do not give us your phone number, PIN or other sensitive info"},
        "pin": {"type": "string"}}}}
    assert sensitive_fields(params)[0] == ["pin"]


# -- EL011's dispatch: only the records that can carry an elicitation URL ----------------------
_BAD_URL = {"mode": "url", "message": "m", "url": "https://bob:hunter2@x.example/a"}


def test_el011_judges_embedded_requests_whatever_the_result_answers():
    script = Script(MODERN, {"elicitation": {"url": {}}})
    ask = {"resultType": "input_required", "inputRequests": {"k": {"method": METHOD, "params": _BAD_URL}},
           "requestState": "s"}
    script.emit("C→S", {"jsonrpc": "2.0", "id": 1, "method": "custom/thing", "params": {"_meta": script.meta()}})
    script.emit("S→C", {"jsonrpc": "2.0", "id": 1, "result": script.result(ask)})
    script.emit("S→C", {"jsonrpc": "2.0", "id": 99, "result": script.result(ask)})  # answers no known request
    assert [(f.line, f.code) for f in findings(script, "EL011")] == [(2, "EL011"), (3, "EL011")]


def test_el011_judges_a_url_required_error_of_any_request():
    entry = {**_BAD_URL, "elicitationId": "e1"}
    error = {"code": -32042, "message": "auth", "data": {"elicitations": [entry]}}
    text = (INIT + 'C→S {"jsonrpc":"2.0","id":1,"method":"custom/thing"}\n'
            + f'S→C {{"jsonrpc":"2.0","id":1,"error":{dumps(error)}}}\n'
            + f'S→C {{"jsonrpc":"2.0","id":7,"error":{dumps(error)}}}\n')
    assert [(line, code) for line, code, _ in el(text) if code == "EL011"] == [(3, "EL011"), (4, "EL011")]


def test_el011_is_called_only_for_elicitation_requests_modern_results_and_url_era_errors(monkeypatch):
    from mcplint.rules.elicitation import UnsafeElicitationUrl

    seen = []
    check = UnsafeElicitationUrl.check
    monkeypatch.setattr(UnsafeElicitationUrl, "check", lambda self, record, session: (
        seen.append((record.line, record.kind.value)), check(self, record, session))[1])
    legacy = (INIT + 'C→S {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}\n'
              'S→C {"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n'
              f'S→C {{"jsonrpc":"2.0","id":2,"method":"{METHOD}","params":{dumps(_BAD_URL)}}}\n'
              'C→S {"jsonrpc":"2.0","id":2,"result":{"action":"decline"}}\n'
              'C→S {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t"}}\n'
              'S→C {"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"x"}}\n')
    assert [(line, code) for line, code, _ in el(legacy) if code == "EL011"] == [(4, "EL011")]
    assert seen == [(4, "request"), (7, "error")]
    seen.clear()
    script = Script(MODERN, {"elicitation": {"url": {}}})
    script.exchange(METHOD, _BAD_URL, {"action": "decline"})
    assert [f.line for f in findings(script, "EL011")] == [2]
    assert seen == [(2, "result"), (4, "result")]

"""Schema validation (SV001-SV005): edge cases the rule pages do not show, and properties."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint import protocol
from mcplint.rules.schema import OWNED, collapse, fmt_path, surface
from tests.ruledocs import run_transcript
from tests.tool_sessions import tool_sessions

META = {protocol.PROTOCOL_VERSION_META: "2026-07-28", protocol.CLIENT_CAPABILITIES_META: {},
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}
RMETA = {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}


def sv(text: str) -> list[tuple[int, str, str]]:
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code.startswith("SV")]


def messages(sv_text: str) -> list[str]:
    return [f.message for f in run_transcript(sv_text) if f.code.startswith("SV")]


def init(version: str, client: str = "{}", server: str = '{"tools":{},"resources":{},"prompts":{},"logging":{}}') -> str:
    return f"# init {version} C={client} S={server}\n"


def line(direction: str, msg: dict) -> str:
    return f"{direction} {orjson.dumps(msg).decode()}\n"


def req(id_, method, params=None, direction="C→S"):
    msg = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    return line(direction, msg)


def res(id_, result, direction="S→C"):
    return line(direction, {"jsonrpc": "2.0", "id": id_, "result": result})


# -- properties -----------------------------------------------------------------------------
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_sessions())
def test_valid_sessions_draw_no_sv_finding(session):
    assert sv(session.render()) == []


_STRING_OR_INT = st.one_of(st.text(max_size=5), st.integers(-5, 5))
_NOT_NUMBER = st.one_of(st.text(max_size=3), st.booleans(), st.none(), st.lists(st.integers(-9, 9), max_size=1))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(protocol.VERSIONS[:4]), _STRING_OR_INT, _NOT_NUMBER)
def test_progress_value_must_be_a_number(version, token, value):
    text = (init(version) + req(1, "tools/call", {"name": "t", "_meta": {"progressToken": token}})
            + line("S→C", {"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": token, "progress": value}}))
    assert (3, "SV002", "error") in sv(text)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(protocol.VERSIONS[:4]),
       st.dictionaries(st.from_regex(r"\A[a-z]{1,8}\Z"), st.integers(-10**9, 10**9), max_size=3))
def test_unknown_members_are_never_flagged(version, extra):
    params = {"name": "t", "arguments": {}, **{k: v for k, v in extra.items() if k not in ("name", "arguments")}}
    text = init(version) + req(1, "tools/call", params) + res(1, {"content": [], **extra})
    assert sv(text) == []


# -- SV001/SV002/SV003 --------------------------------------------------------------------------
def test_older_revisions_are_not_held_to_later_required_members():
    # 2024-11-05 results lack title/icons/annotations members, elicitation forms use enumNames
    text = (init("2024-11-05") + req(1, "tools/list")
            + res(1, {"tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object"}}]})
            + req(2, "resources/templates/list") + res(2, {"resourceTemplates": [{"uriTemplate": "file:///{p}", "name": "f"}]})
            + req(3, "prompts/list") + res(3, {"prompts": [{"name": "p", "arguments": [{"name": "a"}]}]}))
    assert sv(text) == []
    legacy_enum = {"message": "Pick", "requestedSchema": {"type": "object", "properties": {
        "c": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]}}}}
    text = init("2025-06-18", client='{"elicitation":{}}') + req(1, "elicitation/create", legacy_enum, "S→C") \
        + res(1, {"action": "accept", "content": {"c": "r"}}, "C→S")
    assert sv(text) == []


def test_strict_types():
    text = init("2025-06-18") + req(1, "tools/call", {"name": "t"}) \
        + res(1, {"content": [{"type": "text", "text": "x"}], "isError": "false"})
    assert messages(text) == ["Result of tools/call: result.isError must be a boolean, not a string"]


def test_integer_valued_float_is_an_integer():
    text = init("2025-11-25") + req(1, "tools/call", {"name": "t", "_meta": {"progressToken": 1}}) \
        + line("S→C", {"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": 1, "progress": 1.0, "total": 2}}) \
        + res(1, {"content": []})
    assert sv(text) == []


def test_union_members_report_the_arm_the_value_meant():
    text = init("2025-06-18") + req(1, "tools/call", {"name": "t"}) \
        + res(1, {"content": [{"type": "image", "data": "AAAA", "mimeType": 5}, {"type": "text"}]})
    assert messages(text) == [
        "Result of tools/call: result.content[0].mimeType must be a string, not an integer",
        "Result of tools/call: result.content[1].text is required but missing"]


def test_string_or_integer_unions_read_plainly():
    found = collapse([{"type": "string_type", "loc": ("requestId", "str"), "msg": "", "input": 1.5},
                      {"type": "int_type", "loc": ("requestId", "int"), "msg": "", "input": 1.5}], ("params",))
    assert [i.text for i in found] == ["params.requestId must be a string or an integer, not a number"]


def test_elicitation_url_mode_is_validated_as_url_mode():
    params = {"mode": "url", "message": "Sign in", "elicitationId": "e1"}
    text = init("2025-11-25", client='{"elicitation":{"url":{}}}') + req(1, "elicitation/create", params, "S→C") \
        + res(1, {"action": "accept"}, "C→S")
    found = [(f.code, f.message) for f in run_transcript(text) if f.code in ("SV001", "EL004")]
    assert len(found) == 1  # the missing url is reported once, by whichever rule owns it


def test_params_required_but_absent():
    assert messages(init("2025-06-18") + req(1, "tools/call") + res(1, {"content": []})) == [
        "tools/call: params is required but missing"]
    assert sv(init("2025-06-18") + req(1, "tools/list") + res(1, {"tools": []})) == []


def test_parts_owned_by_other_rules_are_not_repeated():
    text = (init("2025-06-18") + req(1, "tools/call", {"name": "t", "_meta": {"progressToken": None}})
            + res(1, {"content": []})
            + line("C→S", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"reason": "x"}}))
    codes = {f.code for f in run_transcript(text)}
    assert "PR001" in codes and "CN005" in codes and not any(c.startswith("SV") for c in codes)


def test_owned_entries_name_catalog_codes():
    import re

    for entry in OWNED:
        assert entry.owners and all(re.fullmatch(r"[A-Z]{2,4}\d{3}", c) for c in entry.owners)


def test_tasks_are_left_to_the_task_rules():
    text = init("2025-11-25", server='{"tools":{},"tasks":{"list":{},"requests":{"tools":{"call":{}}}}}') \
        + req(1, "tasks/get", {"taskId": 5}) + res(1, {"unexpected": True})
    assert sv(text) == []


def test_modern_results_need_their_own_shapes():
    ok = {"resultType": "complete", "tools": [], "ttlMs": 1, "cacheScope": "public", "_meta": RMETA}
    text = req(1, "tools/list", {"_meta": META}) + res(1, ok)
    assert sv(text) == []
    bad = dict(ok, tools=[{"name": 5, "inputSchema": {"type": "object"}}], nextCursor=3)
    # the tool name is TL001's and nextCursor PA002's once those rules are registered
    assert all(code != "SV003" or "tools" not in msg for code, msg in
               [(f.code, f.message) for f in run_transcript(req(1, "tools/list", {"_meta": META}) + res(1, bad))])


def test_input_required_results_validate_against_their_own_arm():
    irr = {"resultType": "input_required", "requestState": "s1", "_meta": RMETA}
    text = req(1, "tools/call", {"name": "t", "_meta": META}) + res(1, irr)
    assert sv(text) == []


# -- SV004 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("version,method,severity", [
    ("2025-03-26", "notifications/elicitation/complete", "warning"),
    ("2025-06-18", "notifications/tasks/status", "error"),
])
def test_notifications_of_other_revisions(version, method, severity):
    text = init(version) + line("S→C", {"jsonrpc": "2.0", "method": method, "params": {}})
    assert (2, "SV004", severity) in sv(text)


def test_methods_of_the_revision_and_unknown_versions_pass():
    assert "SV004" not in {c for _, c, _ in sv(init("2025-11-25") + req(1, "tasks/list") + res(1, {"tasks": []}))}
    midstream = req(1, "elicitation/create", {"message": "m", "requestedSchema": {"type": "object", "properties": {}}},
                    "S→C")
    assert not [f for f in run_transcript(midstream) if f.code == "SV004"]


def test_custom_methods_are_info_once_per_session():
    text = init("2025-06-18") + req(1, "acme/x") + res(1, {}) + req(2, "acme/x") + res(2, {}) \
        + line("C→S", {"jsonrpc": "2.0", "method": "notifications/acme/y"}) + req(3, "rpc.discover") \
        + line("S→C", {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "no"}})
    assert [x for x in sv(text) if x[1] == "SV004"] == [(2, "SV004", "info"), (6, "SV004", "info")]


def test_custom_notification_is_not_said_to_be_refused():
    text = init("2025-06-18") + line("C→S", {"jsonrpc": "2.0", "method": "notifications/acme/y"})
    (finding,) = [f for f in run_transcript(text) if f.code == "SV004"]
    assert "not an MCP notification" in finding.message and "get no response" in finding.message
    for text in (finding.message, finding.hint):
        assert "refuse" not in text and "-32601" not in text


def test_server_requests_in_modern_sessions_are_md005():
    text = req(1, "tools/list", {"_meta": META}) \
        + res(1, {"resultType": "complete", "tools": [], "ttlMs": 1, "cacheScope": "public", "_meta": RMETA}) \
        + req("s1", "roots/list", None, "S→C")
    found = {f.code for f in run_transcript(text) if f.line == 3}
    assert "MD005" in found and "SV004" not in found


# -- SV005 -------------------------------------------------------------------------------------
def test_typed_errors_only_in_their_revisions():
    legacy = init("2025-06-18") + req(1, "tools/list") \
        + line("S→C", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "custom meaning"}})
    assert sv(legacy) == []
    modern = req(1, "tools/call", {"name": "t", "_meta": META}) \
        + line("S→C", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32021, "message": "need sampling",
                                                             "data": {"requiredCapabilities": []}}})
    assert messages(modern) == [("MissingRequiredClientCapabilityError (-32021): error.data.requiredCapabilities "
                                "must be an object, not an array")]


def test_unsupported_version_data_members():
    modern = req(1, "tools/list", {"_meta": META}) \
        + line("S→C", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "unsupported",
                                                             "data": {"supported": ["2025-11-25", 7]}}})
    assert messages(modern) == [("UnsupportedProtocolVersionError (-32022): error.data.supported must be an array "
                                "of version strings; error.data.requested is required but missing")]


# -- helpers -------------------------------------------------------------------------------------
def test_fmt_path():
    assert fmt_path(("result", "content", 0, "text")) == "result.content[0].text"
    assert fmt_path(("params", "_meta", "io.modelcontextprotocol/protocolVersion")) == \
        'params._meta["io.modelcontextprotocol/protocolVersion"]'
    assert fmt_path(()) == "(root)"


def test_one_adapter_per_method_and_revision():
    first = surface().adapter("request", "tools/call", "2025-06-18")
    assert first is surface().adapter("request", "tools/call", "2025-06-18")
    assert surface().adapter("request", "tasks/get", "2025-11-25") is None


def test_a_catalog_repeated_verbatim_is_validated_once_and_still_reported(monkeypatch):
    from mcplint.rules import schema

    calls = []
    original = schema.validate
    monkeypatch.setattr(schema, "validate", lambda *args: calls.append(args[1]) or original(*args))
    tool = {"name": "verbatim-once", "inputSchema": {"type": "object"}, "annotations": {"title": 5}}
    sessions = "".join(init("2025-11-25") + req(1, "tools/list") + res(1, {"tools": [tool]}) for _ in range(3))
    found = messages(sessions)
    assert found == ["Result of tools/list: result.tools[0].annotations.title must be a string, not an integer"] * 3
    assert len([v for v in calls if "tools" in v]) == 1
    reordered = {"tools": [{"annotations": {"title": 5}, "inputSchema": {"type": "object"}, "name": "verbatim-once"}]}
    assert messages(init("2025-11-25") + req(1, "tools/list") + res(1, reordered)) == found[:1]
    assert len([v for v in calls if "tools" in v]) == 2  # another text: validated again


def test_verbatim_issues_keep_the_order_of_each_text():
    from mcplint.rules import schema

    entry = surface().adapter("result", "prompts/list", "2025-11-25")
    one = {"prompts": [{"name": 1, "description": 2}]}
    two = {"prompts": [{"description": 2, "name": 1}]}
    for value in (one, two, one, two):
        assert schema.validate_verbatim(entry, value, ("result",)) == schema.validate(entry, value, ("result",))


# -- the quick first pass --------------------------------------------------------------------------
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
_BLOCKS = [{"type": "text", "text": "hi"}, {"type": "image", "data": "aGk=", "mimeType": "image/png"},
           {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
           {"type": "resource_link", "uri": "file:///a", "name": "a"},
           {"type": "resource", "resource": {"uri": "file:///a", "text": "hi"}},
           {"type": "resource", "resource": {"uri": "file:///a", "blob": "aGk="}}]
_HAND = [
    ("result", "tools/call", {"content": _BLOCKS, "isError": False, "structuredContent": {"a": 1}}),
    ("result", "prompts/get", {"messages": [{"role": "user", "content": b} for b in _BLOCKS[:3]]}),
    ("result", "resources/read", {"contents": [{"uri": "file:///a", "text": "x", "mimeType": "text/plain"}]}),
    ("notification", "notifications/progress", {"progressToken": "p", "progress": 1, "total": 2, "message": "m"}),
    ("notification", "notifications/message", {"level": "info", "logger": "l", "data": {"a": [1]}}),
    ("request", "tools/call", {"name": "t", "arguments": {"a": 1}, "_meta": {"progressToken": 1}}),
    ("request", "sampling/createMessage", {"messages": [{"role": "user", "content": _BLOCKS[0]}], "maxTokens": 5}),
]


def _sample_values() -> list[tuple[tuple, object]]:
    """(adapter entry, value) of every params/result the schema rules validated in the samples."""
    from mcplint.analysis.engine import Engine
    from mcplint.rules import schema

    seen, original, acceptor = [], schema.validate, schema.acceptor

    def spy(entry, value, base):
        seen.append((entry, value))
        return original(entry, value, base)

    schema.validate = spy
    schema.acceptor = lambda *key: None  # every value to validate(), none to the acceptors
    for table in schema._acceptors.values():
        table.clear()
    schema._verbatim.clear()  # results validated before (other tests) would not pass the spy
    try:
        for path in sorted(SAMPLES.iterdir()):
            if path.suffix in (".mcplog", ".jsonl", ".log", ".json", ".har", ".transcript"):
                list(Engine().lint_stream(io.BytesIO(path.read_bytes()), path.name))
    finally:
        schema.validate, schema.acceptor = original, acceptor
    return seen


def _corpus() -> list[tuple[tuple, object]]:
    hand = [(surface().adapter(kind, method, version), value) for kind, method, value in _HAND
            for version in ("2025-06-18", "2025-11-25")]
    return hand + _sample_values()


def _accepts(validator, value) -> bool:
    try:
        validator.validate_python(value, strict=True, by_name=False)
        return True
    except Exception:  # noqa: BLE001
        return False


def test_quick_pass_accepts_ordinary_messages():
    corpus = _corpus()
    assert len(corpus) > 100
    for entry, value in corpus:
        assert entry.quick is not None
        assert _accepts(entry.quick, value) == _accepts(entry.adapter, value), value


_JUNK = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16),
                  st.sampled_from(["", "text", "image", "resource", "user", "aGk="]), st.just({}), st.just([]),
                  st.just({"type": "text"}), st.just({"type": "text", "text": 1}))


def _mutate(value, data, depth=0):
    """``value`` with one member or element replaced, removed or added somewhere inside."""
    if isinstance(value, dict) and value and depth < 6 and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        return {**value, key: _mutate(value[key], data, depth + 1)}
    if isinstance(value, list) and value and depth < 6 and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(value) - 1))
        return value[:index] + [_mutate(value[index], data, depth + 1)] + value[index + 1:]
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        return {k: v for k, v in value.items() if k != key}
    if isinstance(value, dict) and data.draw(st.booleans()):
        return {**value, data.draw(st.sampled_from(["type", "text", "_meta", "mimeType", "extra"])): data.draw(_JUNK)}
    return data.draw(_JUNK)


_CORPUS: list = []


def corpus() -> list:
    """(Judge, value) of every params and result in the sample corpus (collected once)."""
    if not _CORPUS:
        _CORPUS.extend(_corpus())
    return _CORPUS


def mutated_sample(data) -> tuple:
    """A corpus value of some method, mutated (:func:`_mutate`), with the method's Judge."""
    entry, value = data.draw(st.sampled_from(corpus()))
    return entry, _mutate(value, data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_quick_pass_never_accepts_what_the_wire_type_refuses(data):
    entry, mutated = mutated_sample(data)
    if _accepts(entry.quick, mutated):
        assert _accepts(entry.adapter, mutated), mutated


# -- the compiled acceptors (sure acceptance before any validator) ---------------------------------
def _acceptor(entry):
    from mcplint.rules._shapes import acceptor

    accepts = acceptor(entry.quick_schema)
    assert accepts is not None
    return accepts


def test_every_method_has_an_acceptor():
    for kind, table in surface().maps.items():
        for method, version in table:
            entry = surface().adapter(kind, method, version)
            if entry is not None:
                _acceptor(entry)


def test_acceptors_take_ordinary_messages():
    for entry, value in corpus():
        assert _acceptor(entry)(value) == _accepts(entry.quick, value), value


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_an_acceptor_never_accepts_what_the_quick_pass_refuses(data):
    entry, mutated = mutated_sample(data)
    if _acceptor(entry)(mutated):
        assert _accepts(entry.quick, mutated), mutated


_PROGRESS = {"progressToken": 1, "progress": 1, "total": 2, "message": "m"}
_TEXT = {"content": [{"type": "text", "text": "x"}]}


@pytest.mark.parametrize(("kind", "method", "value", "accepted"), [
    ("notification", "notifications/progress", _PROGRESS, True),
    ("notification", "notifications/progress", {**_PROGRESS, "progress": True}, False),  # bool is no number
    ("notification", "notifications/progress", {**_PROGRESS, "progress": 2**1024}, False),  # no float
    ("notification", "notifications/progress", {**_PROGRESS, "progress": 2**62}, True),
    ("notification", "notifications/progress", {**_PROGRESS, "progressToken": 1.0}, False),
    ("notification", "notifications/progress", {**_PROGRESS, "message": None}, True),
    ("notification", "notifications/progress", {**_PROGRESS, "total": "2"}, False),
    ("notification", "notifications/progress", {"progressToken": 1, "extra": 1}, False),  # progress missing
    ("notification", "notifications/progress", {"progressToken": 1, "progress": 1, "x": []}, True),
    ("notification", "notifications/message", {"level": "info", "data": None}, True),
    ("notification", "notifications/message", {"level": "loud", "data": 1}, False),  # literal
    ("notification", "notifications/message", {"level": "info"}, False),  # data (Any) is required
    ("result", "tools/call", _TEXT, True),
    ("result", "tools/call", {"content": [{"type": "txt", "text": "x"}]}, False),  # unknown tag
    ("result", "tools/call", {"content": [{"type": "text"}]}, False),  # the tagged arm's member
    ("result", "tools/call", {"content": [{"type": "text", "text": "x", "more": 1}]}, True),
    ("result", "tools/call", {"content": [{"type": "image", "data": "x"}]}, False),
    ("result", "tools/call", {"content": [{"type": "text", "text": 1}]}, False),
    ("result", "tools/call", {"content": [{"type": "text", "text": "x",
                                           "annotations": {"priority": 1.5}}]}, False),  # le 1
    ("result", "tools/call", {"content": [{"type": "text", "text": "x",
                                           "annotations": {"priority": float("nan")}}]}, False),
    ("result", "tools/call", {"content": [{"type": "text", "text": "x",
                                           "annotations": {"priority": 1}}]}, True),
    ("result", "tools/call", {**_TEXT, "isError": 0}, False),
    ("result", "completion/complete", {"completion": {"values": ["a"] * 100}, "resultType": "complete"}, True),
    ("result", "completion/complete", {"completion": {"values": ["a"] * 101}, "resultType": "complete"},
     False),  # max_length in 2026-07-28
])
def test_acceptor_edges(kind, method, value, accepted):
    entry = surface().adapter(kind, method, "2026-07-28" if method == "completion/complete" else "2025-11-25")
    assert _acceptor(entry)(value) is accepted
    assert _accepts(entry.quick, value) is accepted


def test_a_recursive_definition_is_accepted_only_so_deep():
    from pydantic_core import SchemaValidator

    from mcplint.rules._shapes import MAX_DEPTH, acceptor

    ref = {"type": "definition-ref", "schema_ref": "J"}
    schema = {"type": "definitions", "schema": {"type": "dict", "keys_schema": {"type": "str"}, "values_schema": ref},
              "definitions": [{"type": "nullable", "ref": "J", "schema": {"type": "union", "choices": [
                  {"type": "list", "items_schema": ref}, {"type": "str"}, {"type": "int"}]}}]}
    accepts, validator = acceptor(schema), SchemaValidator(schema)

    def nested(depth):
        value = 1
        for _ in range(depth):
            value = [value]
        return {"a": value, "b": None}

    for depth in (0, 3, MAX_DEPTH - 1):
        assert accepts(nested(depth)) and _accepts(validator, nested(depth))
    assert not accepts(nested(MAX_DEPTH + 5))  # the validator decides
    assert not accepts({"a": [1.5]}) and not _accepts(validator, {"a": [1.5]})


def test_schema_rules_skip_methods_nothing_judges_but_not_an_unknown_revision():
    from mcplint.analysis.engine import Engine
    from mcplint.model import Kind
    from mcplint.rules.schema import NotificationParamsSchema, RequestParamsSchema, ResultSchema

    assert not RequestParamsSchema.dispatches(Kind.REQUEST, "initialize", "2025-11-25", False)  # LC003
    assert not ResultSchema.dispatches(Kind.RESULT, "initialize", "2025-11-25", False)  # LC004
    assert not RequestParamsSchema.dispatches(Kind.REQUEST, "x/custom", None, False)
    assert not NotificationParamsSchema.dispatches(Kind.NOTIFICATION, "notifications/tasks/status", "2025-11-25",
                                                   False)
    assert RequestParamsSchema.dispatches(Kind.REQUEST, "tools/call", None, False)
    assert Engine  # the edge: no negotiated revision, the era's newest shapes judge the records
    text = (req(1, "tools/call", {"name": 5})
            + line("S→C", {"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": 1, "progress": "x"}})
            + res(1, {"content": [{"type": "text", "text": 1}]}))
    assert messages(text) == ["tools/call: params.name must be a string, not an integer",
                              "notifications/progress: params.progress must be a number, not a string",
                              "Result of tools/call: result.content[0].text must be a string, not an integer"]


_COMMON = [("notification", "notifications/progress", _PROGRESS),
           ("notification", "notifications/message", {"level": "info", "logger": "l", "data": "x"}),
           ("request", "tools/call", {"name": "t", "arguments": {"a": 1}, "_meta": {"progressToken": 7}}),
           ("request", "ping", None),
           ("result", "tools/call", {**_TEXT, "isError": False}),
           ("result", "ping", {})]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_plain_shape_features_skip_only_records_the_rules_pass(data):
    """SV001-SV003 require the features "odd-request-params", "odd-notification-params" and
    "odd-result", and of the messages :data:`~mcplint.rules.schema.FOLDED` names, those of the
    family tests that judge their params or result too: on mutated params and results of common
    methods (a tools/call of a listed tool, whose arguments its acceptor takes), they find what
    they find when they are called on every record."""
    from mcplint.rules.schema import NotificationParamsSchema, RequestParamsSchema, ResultSchema

    kind, method, value = data.draw(st.sampled_from(_COMMON))
    value = _mutate(value, data) if data.draw(st.booleans()) or value is None else value
    version = data.draw(st.sampled_from(["2025-06-18", "2025-11-25"]))
    start = init(version) + req(0, "tools/list") + res(0, {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
    if kind == "notification":
        body = {"jsonrpc": "2.0", "method": method} | ({} if value is None else {"params": value})
        text = start + req(1, "tools/call", {"name": "t", "_meta": {"progressToken": 1}}) + line("S→C", body)
    elif kind == "request":
        text = start + req(1, method, value)
    else:
        text = start + req(1, method, {"name": "t"} if method == "tools/call" else None) + res(1, value)
    pruned = messages(text)
    rules = (RequestParamsSchema, NotificationParamsSchema, ResultSchema)
    needed = [cls.requires for cls in rules]
    try:
        for cls in rules:
            cls.requires = frozenset()
        assert messages(text) == pruned
    finally:
        for cls, requires in zip(rules, needed):
            cls.requires = requires


def test_params_required_but_absent_are_still_reported():
    text = init("2025-11-25") + req(1, "tools/call") + req(2, "resources/read")
    assert messages(text) == ["tools/call: params is required but missing",
                              "resources/read: params is required but missing"]


@pytest.mark.parametrize("value", ["", "a", "ab", "abcd", "\U0001f600\U0001f600", "\U0001f600" * 4, 2, None])
def test_string_lengths_count_characters_as_the_validator_does(value):
    from pydantic_core import SchemaValidator

    from mcplint.rules._shapes import acceptor

    schema = {"type": "str", "min_length": 2, "max_length": 3}
    try:
        SchemaValidator(schema).validate_python(value, strict=True)
        valid = True
    except Exception:  # noqa: BLE001 - any refusal
        valid = False
    assert acceptor(schema)(value) is valid

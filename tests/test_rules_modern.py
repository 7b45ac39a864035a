"""The 2026-07-28 core rules (MD001-MD012): edge cases the rule pages do not show, and a
property test: generated spec-valid sessions draw no MD finding, targeted mutations do."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.modern_sessions import (
    CC, DISCOVER_RESULT, PV, V, Event, cacheable, error, line_of, meta, modern_sessions, render, request, result,
)
from tests.ruledocs import run_transcript

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))


def md(findings):
    return [f for f in findings if f.code.startswith("MD")]


def lint(*events: Event):
    return md(run_transcript(render(list(events))))


def C(msg, role=""):
    return Event("C", msg, role)


def S(msg, role=""):
    return Event("S", msg, role)


def codes(findings):
    return sorted((f.line, f.code) for f in findings)


DISCOVER = [C(request("d", "server/discover")), S(result("d", DISCOVER_RESULT))]
TOOLS = cacheable({"tools": []})


# -- MD001 ---------------------------------------------------------------------------------------
def test_md001_quiet_on_legacy_sessions_and_notifications():
    text = ('# init 2025-11-25 C={} S={"tools":{}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n')
    assert md(run_transcript(text)) == []
    cancel = C({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    assert lint(*DISCOVER, C(request(1, "tools/list")), cancel) == []


def test_md001_type_errors_and_accepted_codes():
    bad = request(1, "tools/list")
    bad["params"]["_meta"][CC] = []
    found = lint(*DISCOVER, C(bad), S(error(1, -32602, "Invalid params")))
    assert codes(found) == [(3, "MD001")] and "not an object" in found[0].message
    bad = request(2, "tools/list")
    del bad["params"]["_meta"][PV]
    # the server may name the unsupported version problem, or refuse an unknown method first
    for code in (-32602, -32601, -32020):
        assert codes(lint(*DISCOVER, C(bad), S(error(2, code)))) == [(3, "MD001")]
    found = lint(*DISCOVER, C(bad), S(error(2, -32603, "boom")))
    assert [(f.line, f.code, f.severity.value) for f in found] == [(3, "MD001", "error"), (4, "MD001", "warning")]


# -- MD002 ---------------------------------------------------------------------------------------
def test_md002_future_and_legacy_versions_are_not_judged_without_a_list():
    for version in ("2027-03-01", "2025-11-25"):
        assert lint(C(request(1, "tools/list", version=version)), S(result(1, TOOLS))) == []


def test_md002_non_date_version_is_a_low_confidence_warning():
    found = lint(C(request(1, "tools/list", version="latest")), S(result(1, TOOLS)))
    assert [(f.code, f.severity.value, f.confidence) for f in found] == [("MD002", "warning", "low")]


def test_md002_typed_error_contents():
    data = {"supported": ["2026-07-28", "1900-01-01"], "requested": "1900-01-02"}
    found = lint(C(request(1, "tools/list", version="1900-01-01")), S(error(1, -32022, "Unsupported", data)))
    assert len(found) == 2 and all(f.code == "MD002" for f in found)


def test_md002_retry_with_a_listed_version_is_fine():
    data = {"supported": ["2026-07-28"], "requested": "1900-01-01"}
    assert lint(C(request(1, "tools/list", version="1900-01-01")), S(error(1, -32022, "Unsupported", data)),
                C(request(2, "tools/list")), S(result(2, TOOLS))) == []


# -- MD003 / MD004 -------------------------------------------------------------------------------
def test_md003_legacy_server_warned_once():
    found = lint(C(request(1, "tools/list")), S({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}),
                 C(request(2, "tools/list")), S({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}))
    assert [(f.line, f.severity.value) for f in found if f.code == "MD003"] == [(2, "warning")]


def test_md003_error_after_modern_evidence_from_an_error_code():
    data = {"supported": ["2026-07-28"], "requested": "1900-01-01"}
    found = lint(C(request(1, "tools/list", version="1900-01-01")), S(error(1, -32022, "Unsupported", data)),
                 C(request(2, "tools/list")), S({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}))
    assert [(f.line, f.code, f.severity.value) for f in found if f.code == "MD003"] == [(4, "MD003", "error")]


def test_md004_non_string_and_unknown_extension():
    found = lint(C(request(1, "tools/list")), S(result(1, TOOLS, result_type=1)))
    assert codes(found) == [(2, "MD004")]
    caps = {"extensions": {"com.example/streams": {}}}
    found = lint(C(request(1, "tools/call", {"name": "t", "arguments": {}}, caps=caps)),
                 S(result(1, {"content": []}, result_type="stream")))
    assert [(f.code, f.severity.value) for f in found] == [("MD004", "info")]


# -- MD005 / MD006 -------------------------------------------------------------------------------
def test_md005_md006_quiet_in_legacy_sessions():
    text = ('# init 2025-06-18 C={"roots":{}} S={}\n'
            'S→C {"jsonrpc":"2.0","id":1,"method":"roots/list"}\n'
            'C→S {"jsonrpc":"2.0","id":1,"result":{"roots":[]}}\n')
    assert md(run_transcript(text)) == []


def test_dual_era_process_legacy_after_failed_probe():
    text = (render([C(request("d", "server/discover")), S(error("d", -32601, "Method not found"))])
            + '# init 2025-06-18 C={"roots":{}} S={"tools":{}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"method":"roots/list"}\n'
            'C→S {"jsonrpc":"2.0","id":1,"result":{"roots":[]}}\n')
    assert md(run_transcript(text)) == []


# -- MD007 ---------------------------------------------------------------------------------------
def test_md007_heuristic_needs_an_undeclared_capability():
    call = request(1, "tools/call", {"name": "t", "arguments": {}}, caps={"sampling": {}})
    assert lint(C(call), S(error(1, -32603, "sampling is not supported by the model"))) == []
    assert lint(C(call), S(error(1, -32603, "Disk full"))) == []
    assert lint(C(call), S(error(1, -32603, "Client capability roots missing"))) == []  # maybe a legacy server
    found = lint(*DISCOVER, C(call), S(error(1, -32603, "Client capability roots missing")))
    assert codes(found) == [(4, "MD007")]


def test_md007_missing_url_mode_is_a_real_gap():
    call = request(1, "tools/call", {"name": "t", "arguments": {}}, caps={"elicitation": {}})
    data = {"requiredCapabilities": {"elicitation": {"url": {}}}}
    assert lint(C(call), S(error(1, -32021, "Missing capability", data))) == []


# -- MD008 ---------------------------------------------------------------------------------------
def test_md008_evidence_after_the_discover_error():
    found = lint(C(request("d", "server/discover")), S(error("d", -32601, "Method not found")),
                 C(request(1, "tools/list")), S(result(1, TOOLS)))
    assert codes(found) == [(2, "MD008")]


def test_md008_other_discover_errors_are_fine():
    data = {"supported": ["2026-07-28"], "requested": "1900-01-01"}
    assert lint(C(request("d", "server/discover", version="1900-01-01")), S(error("d", -32022, "Unsupported", data)),
                C(request(1, "tools/list")), S(result(1, TOOLS))) == []


# -- MD009 ---------------------------------------------------------------------------------------
def test_md009_shapes():
    for body, word in (({"supportedVersions": "2026-07-28", "capabilities": {}}, "not an array"),
                       ({"supportedVersions": [20260728], "capabilities": {}}, "non-string"),
                       ({"supportedVersions": [V]}, "capabilities is missing"),
                       ({"supportedVersions": [V], "capabilities": {}, "instructions": 5}, "instructions")):
        found = lint(C(request("d", "server/discover")), S(result("d", cacheable(body))))
        assert codes(found) == [(2, "MD009")] and word in found[0].message


# -- MD010 ---------------------------------------------------------------------------------------
def test_md010_defined_codes_and_application_codes_are_fine():
    call = request(1, "tools/call", {"name": "t", "arguments": {}})
    for code in (-32700, -32600, -32601, -32602, -32603, -32021, -1, 1001, -31999):
        assert [f for f in lint(C(call), S(error(1, code))) if f.code == "MD010"] == [], code


def test_md010_resource_not_found_is_left_to_rs004():
    read = request(1, "resources/read", {"uri": "file:///nope"})
    assert [f for f in lint(C(read), S(error(1, -32002, "Resource not found"))) if f.code == "MD010"] == []
    call = request(1, "tools/call", {"name": "t", "arguments": {}})
    found = lint(*DISCOVER, C(call), S(error(1, -32002, "Not found")))
    assert codes([f for f in found if f.code == "MD010"]) == [(4, "MD010")]


def test_legacy_server_reached_by_a_modern_client_is_not_judged():
    # no resultType anywhere, legacy error codes: only MD003 says (once) that something is off
    events = [C(request(1, "tools/list", version="1900-01-01", info=False)),
              S({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}),
              C(request(2, "tools/call", {"name": "t", "arguments": {}})),
              S(error(2, -32001, "Client lacks sampling capability")),
              C(request(3, "resources/read", {"uri": "file:///a"})), S(error(3, -32002, "Resource not found"))]
    assert sorted({f.code for f in lint(*events)}) == ["MD003", "MD011"]


# -- MD011 ---------------------------------------------------------------------------------------
def test_md011_once_per_side_with_a_count():
    events = [C(request(i, "tools/list", info=False)) if i % 2 else C(request(i, "tools/list")) for i in range(1, 6)]
    found = lint(*events)
    assert [(f.line, f.code) for f in found] == [(1, "MD011")] and "2 more" in found[0].message


# -- MD012 ---------------------------------------------------------------------------------------
def test_md012_needs_modern_evidence():
    call = request(1, "tools/call", {"name": "t", "arguments": {}})
    assert lint(C(call), S(error(1, -32600, "Server not initialized"))) == []


# -- property test -----------------------------------------------------------------------------
@SETTINGS
@given(modern_sessions())
def test_valid_sessions_draw_no_md_finding(events):
    assert md(run_transcript(render(events))) == []


def _mutate_request(events, data, change):
    candidates = [e for e in events if e.dir == "C"]
    if change is DROP_VERSION and events[0].role != "discover":
        # a capture whose first request has no version is no 2026-07-28 session (see MD001's page)
        candidates = candidates[1:]
        assume(candidates)
    target = data.draw(st.sampled_from(candidates))
    mutated = [copy.deepcopy(e) if e is target else e for e in events]
    index = events.index(target)
    change(mutated[index].msg)
    return mutated, index + 1


def _mutate_result(events, data, change, roles=("result", "final", "irr")):
    candidates = [e for e in events if e.dir == "S" and e.role in roles]
    if change is RETIRED_CODE:
        # errors are judged once the server has shown that it speaks 2026-07-28 (an earlier result)
        candidates = candidates[1:]
        assume(candidates)
    target = data.draw(st.sampled_from(candidates))
    mutated = [copy.deepcopy(e) if e is target else e for e in events]
    index = events.index(target)
    change(mutated[index].msg)
    return mutated, index + 1


def _drop(member):
    return lambda msg: msg["params"]["_meta"].pop(member)


def _result_type(value):
    def change(msg):
        if value is None:
            msg["result"].pop("resultType")
        else:
            msg["result"]["resultType"] = value
    return change


def _to_error(code):
    def change(msg):
        msg.pop("result")
        msg["error"] = {"code": code, "message": "Failed"}
    return change


DROP_VERSION = _drop(PV)
RETIRED_CODE = _to_error(-32042)
MUTATIONS = {
    "MD001-version": (_mutate_request, DROP_VERSION, "MD001"),
    "MD001-caps": (_mutate_request, _drop(CC), "MD001"),
    "MD003": (_mutate_result, _result_type(None), "MD003"),
    "MD004": (_mutate_result, _result_type("partial"), "MD004"),
    "MD010": (_mutate_result, RETIRED_CODE, "MD010"),
}


@SETTINGS
@given(modern_sessions(), st.sampled_from(sorted(MUTATIONS)), st.data())
def test_mutations_are_reported(events, name, data):
    mutate, change, code = MUTATIONS[name]
    mutated, line = mutate(events, data, change)
    found = {(f.line, f.code) for f in md(run_transcript(render(mutated)))}
    assert (line, code) in found, (name, line, found)


@SETTINGS
@given(modern_sessions(), st.data())
def test_inserted_server_request_and_client_response_are_reported(events, data):
    at = data.draw(st.integers(1, len(events)))
    server_request = S({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
    client_response = C({"jsonrpc": "2.0", "id": "srv-1", "result": {}})
    mutated = events[:at] + [server_request, client_response] + events[at:]
    found = {(f.line, f.code) for f in md(run_transcript(render(mutated)))}
    assert (line_of(mutated, server_request), "MD005") in found
    assert (line_of(mutated, client_response), "MD006") in found


def test_meta_builder_defaults():
    assert meta()[PV] == V and request(1, "tools/list")["params"]["_meta"][CC] == {}

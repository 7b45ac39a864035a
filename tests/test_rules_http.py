"""HTTP rules (HT, HS, HM, AU) on edge cases the rule pages do not show: legal traffic stays quiet."""

from __future__ import annotations

import base64
import io

import pytest

from mcplint.engine import Engine
from mcplint.parse import Parser
from mcplint.readers import open_frames
from tests.harbuilder import ACCEPT, dumps, entry, handshake, har, post_headers

ENGINE = Engine()
SID = "s1"
V5, V6, V3, M = "2025-11-25", "2025-06-18", "2025-03-26", "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": M, "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}


def lint(entries):
    for position, item in enumerate(entries):  # one request after the other, 100 ms apart
        if item["startedDateTime"] == "2026-03-02T09:30:00.000Z":
            item["startedDateTime"] = f"2026-03-02T09:30:{position // 10:02d}.{position % 10}00Z"
    _, frames = open_frames(io.BytesIO(dumps(har(entries)).encode()))
    return list(ENGINE.lint_records(Parser("<har>").records(frames), "<har>"))


def found(entries, prefix=("HT", "HS", "HM", "AU")):
    return sorted((f.code, f.severity.value) for f in lint(entries) if f.code.startswith(prefix))


def codes(entries, prefix=("HT", "HS", "HM", "AU")):
    return {code for code, _ in found(entries, prefix)}


def ping(i, version=V5, **kw):
    return entry(request_headers=post_headers(SID, version), body={"jsonrpc": "2.0", "id": i, "method": "ping"}, **kw)


def ok(i):
    return {"jsonrpc": "2.0", "id": i, "result": {}}


def get(**kw):
    headers = {"Accept": "text/event-stream", "Mcp-Session-Id": SID, "MCP-Protocol-Version": V5}
    headers.update(kw.pop("extra", {}))
    return entry("GET", request_headers=headers, **kw)


def delete():
    return entry("DELETE", request_headers={"Mcp-Session-Id": SID, "MCP-Protocol-Version": V5}, status=200)


def test_clean_exchanges_draw_nothing():
    assert codes(handshake(V5, SID) + [ping(1, json_body=ok(1)), get(status=405), delete()]) == set()


@pytest.mark.parametrize("status", [404, 401, 405])
def test_get_refused_with_an_error_status_is_fine(status):
    assert "HT006" not in codes(handshake(V5, SID) + [get(status=status), delete()])


def test_response_on_a_resumed_get_stream_is_allowed():
    entries = handshake(V5, SID) + [
        ping(1, sse=[{"id": "a1", "data": ""}]),
        get(extra={"Last-Event-ID": "a1"}, sse=[{"id": "a2", "event": "message", "data": ok(1)}]), delete()]
    assert codes(entries) == set()


def test_notification_refused_with_an_error_status_is_fine():
    note = entry(request_headers=post_headers(SID, V5), body={"jsonrpc": "2.0", "method": "notifications/initialized"},
                 status=400, text="Bad Request")
    assert "HT004" not in codes(handshake(V5, SID) + [note, delete()])


def test_202_with_a_body_is_reported():
    note = entry(request_headers=post_headers(SID, V5),
                 body={"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}, status=202, text="Accepted")
    assert ("HT004", "error") in found(handshake(V5, SID, {"roots": {"listChanged": True}}) + [note, delete()])


def test_json_body_must_answer_the_request():
    entries = handshake(V5, SID) + [ping(1, json_body=ok(2)), delete()]
    assert "HT005" in codes(entries)


def test_protocol_version_header_rules_per_revision():
    no_header = lambda v: entry(request_headers=post_headers(SID), body={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                json_body=ok(1))
    assert "HT017" not in codes(handshake(V3, SID) + [no_header(V3)])
    assert ("HT017", "error") in found(handshake(V6, SID) + [no_header(V6)])
    other = ping(1, version=V6, json_body=ok(1))
    assert ("HT017", "warning") in found(handshake(V5, SID) + [other])
    bogus = ping(1, version="yesterday", json_body=ok(1))
    assert found(handshake(V5, SID) + [bogus]).count(("HT017", "error")) == 1  # accepted invalid value


def test_redelivered_event_on_resumption_is_not_a_duplicate_id():
    entries = handshake(V5, SID) + [
        ping(1, sse=[{"id": "a1", "data": ""}, {"id": "a2", "event": "message", "data": ok(1)}]),
        get(extra={"Last-Event-ID": "a1"}, sse=[{"id": "a2", "event": "message", "data": ok(1)}]), delete()]
    assert "HT012" not in codes(entries)


def test_origin_rules_only_judge_foreign_origins_on_loopback():
    local = ping(1, json_body=ok(1))
    local["request"]["headers"].append({"name": "Origin", "value": "http://localhost:5173"})
    assert "HT018" not in codes(handshake(V5, SID) + [local])
    remote = entry(url="https://mcp.example.com/mcp", request_headers=dict(post_headers(SID, V5),
                                                                        Origin="https://app.example.org"),
                   body={"jsonrpc": "2.0", "id": 1, "method": "ping"}, json_body=ok(1))
    assert "HT018" not in codes(handshake(V5, SID, url="https://mcp.example.com/mcp") + [remote])
    refused = ping(1, status=400, text="bad origin")
    refused["request"]["headers"].append({"name": "Origin", "value": "https://evil.example"})
    assert ("HT018", "info") in found(handshake(V5, SID) + [refused])


def test_session_left_without_delete_is_info_only():
    assert found(handshake(V5, SID) + [ping(1, json_body=ok(1))]) == [("HT016", "info")]
    assert found(handshake(V5, None) + [entry(request_headers=post_headers(None, V5),
                                              body={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                              json_body=ok(1))]) == []  # no session id, nothing to delete


def test_cancelled_request_stream_without_response_is_fine():
    call = entry(request_headers=post_headers(SID, V5), sse=[{"id": "e1", "data": ""}],
                 body={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}})
    cancel = entry(request_headers=post_headers(SID, V5), status=202,
                   body={"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    assert "HT008" not in codes(handshake(V5, SID, {}, {"tools": {}}) + [call, cancel, delete()])


# -- 2026-07-28 ------------------------------------------------------------------------------------
def modern(i, method, params=None, headers=None, **kw):
    body = {"jsonrpc": "2.0", "id": i, "method": method, "params": dict(params or {}, _meta=META)}
    pairs = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": M, "Mcp-Method": method}
    pairs.update(headers or {})
    return entry(request_headers={k: v for k, v in pairs.items() if v is not None}, body=body, **kw)


def mresult(i, value):
    return {"jsonrpc": "2.0", "id": i, "result": dict(value, resultType="complete")}


TOOL = {"name": "query", "description": "q", "inputSchema": {"type": "object", "properties": {
    "limit": {"type": "integer", "x-mcp-header": "Limit"}, "dry": {"type": "boolean", "x-mcp-header": "Dry"},
    "region": {"type": "string", "x-mcp-header": "Region"}}}}
LISTING = modern(1, "tools/list", json_body=mresult(1, {"tools": [TOOL], "ttlMs": 1000, "cacheScope": "public"}))


def test_modern_rules_stay_off_legacy_sessions_and_legacy_rules_off_modern():
    assert not codes(handshake(V5, SID) + [ping(1, json_body=ok(1)), delete()], ("HM",))
    assert not codes([LISTING], ("HT",))


def test_mcp_name_encoding():
    def call(name, header):
        return modern(2, "tools/call", {"name": name, "arguments": {}}, headers={"Mcp-Name": header},
                      json_body=mresult(2, {"content": [], "isError": False}))

    encoded = "=?base64?" + base64.b64encode("météo".encode()).decode() + "?="
    assert "HM005" not in codes([call("météo", encoded)])
    assert "HM005" in codes([call("météo", "météo")])
    assert "HM005" in codes([call("météo", encoded.replace("base64", "BASE64"))])
    assert "HM005" in codes([call(" padded", " padded")])


def test_mcp_param_headers_compare_typed_values():
    def call(arguments, headers):
        return modern(2, "tools/call", {"name": "query", "arguments": arguments},
                      headers=dict({"Mcp-Name": "query"}, **headers),
                      json_body=mresult(2, {"content": [], "isError": False}))

    good = call({"limit": 42, "dry": True, "region": "eu"},
                {"Mcp-Param-Limit": "42", "Mcp-Param-Dry": "true", "Mcp-Param-Region": "eu"})
    assert "HM006" not in codes([LISTING, good])
    assert "HM006" in codes([LISTING, call({"limit": 42}, {"Mcp-Param-Limit": "41"})])
    assert "HM006" in codes([LISTING, call({}, {"Mcp-Param-Region": "eu"})])  # header without argument
    assert "HM006" not in codes([LISTING, call({"region": None}, {})])  # null counts as absent
    # an unknown tool (no tools/list seen) is not judged
    assert "HM006" not in codes([call({"limit": 1}, {})])


def test_header_mismatch_answered_400_with_32020_is_correct():
    bad = modern(2, "tools/call", {"name": "query", "arguments": {}}, headers={"Mcp-Name": "other"}, status=400,
                 json_body={"jsonrpc": "2.0", "id": 2, "error": {"code": -32020, "message": "mismatch"}})
    assert codes([LISTING, bad]) == {"HM005"}
    served = modern(2, "tools/call", {"name": "query", "arguments": {}}, headers={"Mcp-Name": "other"},
                    json_body=mresult(2, {"content": [], "isError": False}))
    assert codes([LISTING, served]) == {"HM005", "HM007"}


def test_unsupported_version_answer_shape():
    future = modern(1, "tools/list", headers={"MCP-Protocol-Version": "2027-01-01"})
    future["request"]["postData"]["text"] = future["request"]["postData"]["text"].replace(M, "2027-01-01")
    accepted = dict(future, response=entry(json_body=mresult(1, {"tools": []}))["response"])
    assert "HM008" not in codes([accepted])  # a newer version may be supported
    refused = dict(future, response=entry(status=400, json_body={"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32022, "message": "Unsupported", "data": {"supported": [M], "requested": "2027-01-01"}}})["response"])
    assert "HM008" not in codes([refused])


# -- authorization ---------------------------------------------------------------------------------
CHALLENGE = 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="a"'


def unauthorized(version, header=None):
    body = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
    return entry(request_headers=post_headers(), body=body, status=401,
                 response_headers={"WWW-Authenticate": header} if header else None)


def test_401_challenge_per_revision():
    assert "AU003" not in codes([unauthorized(V3)])
    assert ("AU003", "error") in found([unauthorized(V6)])
    assert ("AU003", "warning") in found([unauthorized(V5)])
    assert codes([unauthorized(V5, CHALLENGE)]) == set()


def test_requests_before_the_first_token_are_not_missing_it():
    token = {"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz"}
    entries = handshake(V5, SID)  # no token at all: nothing to say
    assert "AU001" not in codes(entries + [ping(1, json_body=ok(1))])
    authed = ping(1, json_body=ok(1))
    authed["request"]["headers"].append({"name": "Authorization", "value": token["Authorization"]})
    assert "AU001" in codes(entries + [authed, ping(2, json_body=ok(2))])


def test_http_sse_rules_stay_off_streamable_sessions():
    assert not codes(handshake(V5, SID) + [ping(1, json_body=ok(1)), delete()], ("HS",))

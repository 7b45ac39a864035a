"""HTTP rules (HT, HS, HM, AU) on edge cases the rule pages do not show: legal traffic stays quiet."""

from __future__ import annotations

import base64
import io
from datetime import timedelta

import pytest

from mcplint.analysis.engine import Engine
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames
from tests.harbuilder import ACCEPT, START, dumps, entry, handshake, har, post_headers

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


def delete(**kw):
    return entry("DELETE", request_headers={"Mcp-Session-Id": SID, "MCP-Protocol-Version": V5}, status=200, **kw)


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


# -- HT018: DNS rebinding ----------------------------------------------------------------------------
def with_origin(item, origin=None, server_ip=None, host=None):
    """``item`` with an Origin / Host request header and the HAR ``serverIPAddress``."""
    if origin is not None:
        item["request"]["headers"].append({"name": "Origin", "value": origin})
    if host is not None:
        item["request"]["headers"].append({"name": "Host", "value": host})
    if server_ip is not None:
        item["serverIPAddress"] = server_ip
    return item


REBIND = "http://rebind.example:8000/mcp"


def remote_ping(i, url=REBIND, **kw):
    return entry(url=url, request_headers=post_headers(SID, V5), body={"jsonrpc": "2.0", "id": i, "method": "ping"},
                 **kw)


def test_dns_rebinding_name_resolving_to_loopback_is_reported():
    accepted = with_origin(remote_ping(1, json_body=ok(1)), "http://rebind.example:8000", "127.0.0.1")
    assert found(handshake(V5, SID, url=REBIND) + [accepted], ("HT018",)) == [("HT018", "warning")]
    refused = with_origin(remote_ping(1, status=403, text="Forbidden"), "http://rebind.example:8000", "[::1]")
    assert codes(handshake(V5, SID, url=REBIND) + [refused], ("HT018",)) == set()


def test_reverse_proxy_on_loopback_without_origin_is_not_a_finding():
    proxied = with_origin(remote_ping(1, url="https://api.example.com/mcp", json_body=ok(1)), None, "127.0.0.1")
    assert codes(handshake(V5, SID, url="https://api.example.com/mcp") + [proxied], ("HT018",)) == set()
    # a foreign Host alone (no Origin: not a browser page) is not judged either
    hosted = with_origin(ping(1, json_body=ok(1)), None, "127.0.0.1", host="api.example.com")
    assert codes(handshake(V5, SID) + [hosted], ("HT018",)) == set()


@pytest.mark.parametrize("version", [V6, V5])
def test_foreign_origin_accepted_by_a_loopback_address_is_an_error(version):
    accepted = with_origin(ping(1, version=version, json_body=ok(1)), "https://attacker.example")
    assert found(handshake(version, SID) + [accepted], ("HT018",)) == [("HT018", "error")]


def test_foreign_origin_reported_once_per_session():
    first = with_origin(ping(1, json_body=ok(1)), "https://attacker.example")
    second = with_origin(ping(2, json_body=ok(2)), "https://attacker.example")
    assert found(handshake(V5, SID) + [first, second], ("HT018",)) == [("HT018", "error")]


def test_cors_preflight_is_not_judged():
    preflight = with_origin(entry("OPTIONS", request_headers={"Access-Control-Request-Method": "POST"}, status=204),
                            "https://attacker.example")
    assert codes(handshake(V5, SID) + [preflight], ("HT018",)) == set()


@pytest.mark.parametrize("url,server_ip,judged", [
    ("http://127.evil.example:8000/mcp", None, False),  # a name that starts with "127." is no address
    ("http://0.0.0.0:8000/mcp", None, True),  # reaches this machine's services
    ("http://rebind.example:8000/mcp", "::ffff:127.0.0.1", True),
])
def test_what_counts_as_this_machine(url, server_ip, judged):
    accepted = with_origin(remote_ping(1, url=url, json_body=ok(1)), "https://attacker.example", server_ip)
    assert bool(codes(handshake(V5, SID, url=url) + [accepted], ("HT018",))) == judged


def test_refusal_with_another_status_is_info_from_2025_11_25_only():
    refused = lambda v: with_origin(ping(1, version=v, status=400, text="bad origin"), "https://evil.example")
    assert found(handshake(V5, SID) + [refused(V5)], ("HT018",)) == [("HT018", "info")]
    assert codes(handshake(V6, SID) + [refused(V6)], ("HT018",)) == set()


# -- HT010: messages of a running request on the standalone GET stream --------------------------------
def call(i, started, time_ms, events, token=None, **kw):
    params = {"name": "t", "arguments": {}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return entry(request_headers=post_headers(SID, V5), body={"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                                              "params": params},
                 sse=events, started=started, time_ms=time_ms, **kw)


def result(i):
    return {"jsonrpc": "2.0", "id": i, "result": {"content": [], "isError": False}}


def log(text="working"):
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": text}}


def answer(i, started, value=None):
    return entry(request_headers=post_headers(SID, V5), status=202, started=started,
                 body={"jsonrpc": "2.0", "id": i, "result": value if value is not None else {"action": "decline"}})


CAPS = ({"elicitation": {}}, {"tools": {}, "logging": {}})


def ht010(entries):
    return found(handshake(V5, SID, *CAPS) + entries + [delete(started=60.0)], ("HT010",))


def streaming(item):
    """``item`` with browser-like timings: headers after 1 ms, then the stream for the rest."""
    item["timings"].update(wait=1, receive=item["time"] - 1)
    return item


def test_progress_of_a_running_call_on_the_get_stream_is_a_warning():
    # the GET stream is opened first (as SDK clients do) and listed before the call in the HAR
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": 1}}
    stream = streaming(get(sse=[progress], started=0.5, time_ms=10000))
    assert ht010([stream, call(1, 1.0, 5000, [result(1)], token="p")]) == [("HT010", "warning")]
    # progress that surely came after the response is not the running request's (PR rules judge it)
    late = get(sse=[progress], started=7.0, time_ms=1000)
    assert ht010([call(1, 1.0, 5000, [result(1)], token="p"), late]) == []


def test_log_on_the_get_stream_while_one_call_runs_is_info():
    running = call(1, 1.0, 5000, [{"id": "e1", "data": ""}, result(1)])
    stream = get(sse=[log()], started=2.0, time_ms=1000)  # opened and closed while the call ran
    assert ht010([running, stream]) == [("HT010", "info")]


def chunked(item, *seconds):
    """``item`` whose SSE events arrived at ``seconds`` after START, one ``_chunks`` entry each."""
    events = [text + "\n\n" for text in item["response"]["content"]["text"].split("\n\n") if text]
    item["response"]["_chunks"] = [
        {"ts": (START + timedelta(seconds=t)).isoformat(timespec="microseconds").replace("+00:00", "Z"),
         "size": len(text.encode())} for text, t in zip(events, seconds, strict=True)]
    return item


def test_measured_arrival_ties_a_log_on_a_long_lived_get_stream():
    stream = chunked(streaming(get(sse=[log("during"), log("after")], started=0.5, time_ms=20000)), 2.0, 8.0)
    assert ht010([stream, call(1, 1.0, 5000, [{"id": "e1", "data": ""}, result(1)])]) == [("HT010", "info")]


def test_elicitation_on_the_get_stream_while_one_call_runs_is_info():
    running = call(1, 1.0, 5000, [{"id": "e1", "data": ""}, result(1)])
    ask = {"jsonrpc": "2.0", "id": 7, "method": "elicitation/create",
           "params": {"message": "Which city?", "requestedSchema": {"type": "object", "properties": {}}}}
    stream = streaming(get(sse=[ask], started=1.5, time_ms=20000))  # long-lived: the client's answer bounds it
    assert ht010([running, stream, answer(7, 2.0)]) == [("HT010", "info")]


def test_get_stream_messages_without_a_single_running_request_are_fine():
    first = call(1, 1.0, 5000, [result(1)])
    second = call(2, 1.2, 5000, [result(2)])
    stream = get(sse=[log()], started=2.0, time_ms=1000)
    assert ht010([first, second, stream]) == []  # two calls run: which one would it relate to?
    later = get(sse=[log()], started=7.0, time_ms=1000)
    assert ht010([call(1, 1.0, 5000, [result(1)]), later]) == []  # nothing runs any more
    long_lived = streaming(get(sse=[log()], started=0.5, time_ms=20000))
    assert ht010([long_lived, call(1, 1.0, 5000, [result(1)])]) == []  # may have come before the call


def test_task_messages_may_use_the_get_stream():
    running = call(1, 1.0, 5000, [{"id": "e1", "data": ""}, result(1)])
    tagged = dict(log(), params={"level": "info", "data": "x",
                                 "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}})
    assert ht010([running, get(sse=[tagged], started=2.0, time_ms=1000)]) == []


# -- HT008: streams the client ended -------------------------------------------------------------------
def unanswered_call(**kw):
    return call(1, 1.0, 2000, [{"id": "e1", "data": ""}], **kw)


def ht008(entries):
    return codes(handshake(V5, SID, {}, {"tools": {}}) + entries, ("HT008",))


def test_stream_without_response_is_still_reported():
    assert ht008([unanswered_call(), ping(2, json_body=ok(2), started=4.0)]) == {"HT008"}


def test_stream_ended_by_the_session_delete_is_fine():
    assert ht008([unanswered_call(), delete(started=2.5)]) == set()


def test_stream_closed_by_the_client_is_fine():
    assert ht008([unanswered_call(error="net::ERR_ABORTED")]) == set()
    assert ht008([unanswered_call(error="net::ERR_CONNECTION_RESET")]) == {"HT008"}  # not the client's doing


def test_stream_ended_with_the_expired_session_is_fine():
    expired = ping(2, status=404, text="Not Found", started=4.0)
    assert ht008([unanswered_call(), expired]) == set()


def test_odd_values_on_the_get_stream_do_not_crash():
    running = call(1, 1.0, 5000, [{"id": "e1", "data": ""}, result(1)])
    odd = get(sse=[{"event": "message", "data": "42"}, {"event": "message", "data": "not json"},
                   {"event": "message", "data": [log()]}, {"jsonrpc": "2.0", "method": "elicitation/create",
                                                          "id": {"x": 1}}], started=2.0, time_ms=1000)
    ENGINE.take_crashes()
    assert ht010([running, odd]) == [("HT010", "info")]  # the batched log message and the odd-id request
    assert ENGINE.take_crashes() == []


def test_http_sse_transport_cites_its_own_security_warning():
    import json
    from pathlib import Path

    doc = json.loads((Path(__file__).parent.parent / "samples" / "clean-http-sse-transport-2024-11-05.har").read_text())
    entries = doc["log"]["entries"]
    with_origin(entries[3], "https://attacker.example")
    [finding] = [f for f in lint(entries) if f.code == "HT018"]
    assert (finding.severity.value, finding.spec) == (
        "error", "2024-11-05 basic/transports §HTTP with SSE §Security Warning (MUST)")


def test_a_request_sent_again_is_answered_again_on_its_own_post():
    # a client that re-sends id 4 (its own mistake, other rules judge it) gets each copy answered on
    # the POST that carried it: the server broadcast nothing
    assert "HT011" not in codes(handshake(V5, SID) + [ping(4, json_body=ok(4)), ping(4, json_body=ok(4))])


def test_errors_to_unreadable_requests_each_answer_their_own_post():
    def unreadable(body):
        return entry(request_headers=post_headers(SID, V5), body=body, status=400,
                     json_body={"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}})
    assert "HT011" not in codes(handshake(V5, SID) + [unreadable({"jsonrpc": "2.0", "id": 9}),
                                                      unreadable({"jsonrpc": "2.0", "id": 10})])


def test_a_response_broadcast_on_a_get_stream_too_is_still_found():
    answered = ping(5, sse=[ok(5)])
    stream = get(sse=[ok(5)], started=0.5)
    assert "HT011" in codes(handshake(V5, SID) + [answered, stream])

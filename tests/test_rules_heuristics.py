"""Heuristics (HX002, HX004, HX006-HX013) and 2026-07-28 cancellation (CN007, CN009): targeted cases.

The heuristics must be conservative: legal traffic that merely looks busy (polling, parallel
identical reads, answered retries, lists that change with a notification) draws nothing, and the
timing rules stay silent without capture timestamps.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import orjson
import pytest

from mcplint.analysis.engine import Engine
from mcplint.rules.heuristics import (
    NotificationFlood,
    RetryStorm,
    SlowResponse,
    TimeoutWithoutCancel,
    sensitive_key,
    token_kind,
)
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={} S={"tools":{"listChanged":true},"prompts":{}}\n'
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
EPOCH = datetime(2025, 6, 18, 10, 0, tzinfo=UTC)


def line(arrow, msg):
    return f"{arrow} {orjson.dumps(msg).decode()}\n"


def call(i, name="t", arguments=None, modern=False, **extra):
    params = {"name": name, "arguments": arguments or {}, **extra}
    if modern:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}


def tools_list(i, modern=False):
    msg = {"jsonrpc": "2.0", "id": i, "method": "tools/list"}
    if modern:
        msg["params"] = {"_meta": META}
    return msg


def result(i, body=None):
    return {"jsonrpc": "2.0", "id": i, "result": body if body is not None else {"content": []}}


def tools(i, *names):
    return result(i, {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]})


def cancelled(i):
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": i}}


def codes(text, prefix):
    return [(f.line, f.code) for f in run_transcript(text) if f.code.startswith(prefix)]


def handshake():
    return [
        (0, "c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
        (0, "s2c", {"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": "s", "version": "1"}}}),
        (0, "c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]


def lint_capture(events, rules=None, prefix="HX"):
    """``events``: (seconds, dir, msg) triples, written as a canonical capture."""
    lines = [orjson.dumps({"ts": (EPOCH + timedelta(seconds=t)).isoformat(), "dir": d, "msg": m})
             for t, d, m in events]
    engine = Engine(rules) if rules is not None else Engine()
    found = engine.lint_stream(io.BytesIO(b"\n".join(lines) + b"\n"), "<capture>", "capture")
    return [(f.line, f.code) for f in found if f.code.startswith(prefix)]


# -- HX002 slow-response (timing) -------------------------------------------------------------------
def test_slow_response_needs_timestamps_and_respects_progress():
    rules = [SlowResponse()]
    slow = handshake() + [(1, "c2s", tools_list(1)), (46, "s2c", tools(1, "a"))]
    assert lint_capture(slow, rules) == [(5, "HX002")]
    quick = handshake() + [(1, "c2s", tools_list(1)), (2, "s2c", tools(1, "a"))]
    assert lint_capture(quick, rules) == []
    long_call = handshake() + [(1, "c2s", call(1)), (40, "s2c", result(1))]
    assert lint_capture(long_call, rules) == []  # tools/call may take a minute
    with_progress = handshake() + [
        (1, "c2s", call(1, _meta={"progressToken": "p"})),
        (30, "s2c", {"jsonrpc": "2.0", "method": "notifications/progress",
                     "params": {"progressToken": "p", "progress": 1}}),
        (90, "s2c", result(1))]
    assert lint_capture(with_progress, rules) == []
    text = INIT + line("C→S", tools_list(1)) + line("S→C", tools(1, "a"))
    assert [f for f in run_transcript(text, Engine(rules))] == []


# -- HX006 notification-flood (timing) --------------------------------------------------------------
def progress(n):
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": n}}


def test_flood_is_reported_once_and_a_steady_stream_is_not():
    rules = [NotificationFlood()]
    start = handshake() + [(1, "c2s", call(1, _meta={"progressToken": "p"}))]
    flood = start + [(2 + n / 500, "s2c", progress(n)) for n in range(1, 501)]
    found = lint_capture(flood, rules)
    assert len(found) == 1 and found[0][1] == "HX006"
    steady = start + [(2 + n / 20, "s2c", progress(n)) for n in range(1, 501)]  # 20 per second
    assert lint_capture(steady, rules) == []


# -- HX004 / CN009: re-sent without cancelling -------------------------------------------------------
def test_answered_or_cancelled_requests_may_be_sent_again():
    answered = INIT + line("C→S", call(1)) + line("S→C", result(1)) + line("C→S", call(2)) + line("S→C", result(2))
    assert codes(answered, "HX004") == []
    cancelled_first = (INIT + line("C→S", call(1)) + line("C→S", cancelled(1)) + line("C→S", call(2))
                       + line("S→C", result(2)))
    assert codes(cancelled_first, "HX004") == []


def test_parallel_identical_requests_answered_later_are_fine_without_timestamps():
    text = (INIT + line("C→S", tools_list(1)) + line("C→S", tools_list(2))
            + line("S→C", tools(1, "a")) + line("S→C", tools(2, "a")))
    assert codes(text, "HX004") == []


def test_different_arguments_are_a_different_call():
    text = INIT + line("C→S", call(1, arguments={"q": 1})) + line("C→S", call(2, arguments={"q": 2})) \
        + line("S→C", result(2))
    assert codes(text, "HX004") == []


def test_timestamps_catch_a_retry_even_when_the_first_answer_comes_late():
    events = handshake() + [(1, "c2s", call(1)), (31, "c2s", call(2)), (32, "s2c", result(2)), (40, "s2c", result(1))]
    assert lint_capture(events) == [(5, "HX004")]
    quick = handshake() + [(1, "c2s", call(1)), (1.5, "c2s", call(2)), (2, "s2c", result(2)), (3, "s2c", result(1))]
    assert lint_capture(quick) == []


def test_modern_retry_is_cn009_and_mrtr_retries_are_not():
    stuck = line("C→S", call(1, modern=True)) + line("C→S", call(2, modern=True))
    assert codes(stuck, "CN009") == [(2, "CN009")] and codes(stuck, "HX004") == []
    mrtr = (line("C→S", call(1, modern=True))
            + line("S→C", result(1, {"resultType": "input_required", "requestState": "s"}))
            + line("C→S", call(2, modern=True, requestState="s"))
            + line("S→C", result(2, {"resultType": "complete", "content": []})))
    assert codes(mrtr, "CN") == []


def test_long_lived_and_handshake_requests_are_exempt():
    listen = {"jsonrpc": "2.0", "method": "subscriptions/listen",
              "params": {"_meta": META, "notifications": {"toolsListChanged": True}}}
    text = line("C→S", {**listen, "id": 1}) + line("C→S", {**listen, "id": 2})
    assert codes(text, "CN009") == []


# -- CN007 --------------------------------------------------------------------------------------------
def test_server_may_cancel_a_listen_stream():
    listen = {"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen",
              "params": {"_meta": META, "notifications": {"toolsListChanged": True}}}
    text = line("C→S", listen) + line("S→C", cancelled(5))
    assert codes(text, "CN") == []


def test_server_cancel_of_unknown_request_is_cn001_not_cn007():
    text = line("C→S", call(1, modern=True)) + line("S→C", cancelled(9))
    assert codes(text, "CN") == [(2, "CN001")]


# -- HX007 ---------------------------------------------------------------------------------------------
def test_call_unlisted_tool_only_against_a_current_complete_list():
    stale = (INIT + line("C→S", tools_list(1)) + line("S→C", tools(1, "a"))
             + line("S→C", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
             + line("C→S", call(2, name="b")))
    assert codes(stale, "HX007") == []
    paged = (INIT + line("C→S", tools_list(1))
             + line("S→C", result(1, {"tools": [{"name": "a", "inputSchema": {"type": "object"}}],
                                      "nextCursor": "n"}))
             + line("C→S", call(2, name="b")))
    assert codes(paged, "HX007") == []
    never_listed = INIT + line("C→S", call(2, name="b"))
    assert codes(never_listed, "HX007") == []


# -- HX008 ---------------------------------------------------------------------------------------------
def test_list_change_announced_late_or_undeclared_is_not_reported():
    changed = line("C→S", tools_list(1)) + line("S→C", tools(1, "a")) + line("C→S", tools_list(2)) \
        + line("S→C", tools(2, "a", "b"))
    late = INIT + changed + line("S→C", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    assert codes(late, "HX008") == []
    undeclared = '# init 2025-06-18 C={} S={"tools":{}}\n' + changed
    assert codes(undeclared, "HX008") == []
    same = INIT + line("C→S", tools_list(1)) + line("S→C", tools(1, "a", "b")) + line("C→S", tools_list(2)) \
        + line("S→C", tools(2, "b", "a"))
    assert codes(same, "HX008") == []


def test_list_change_is_confirmed_at_the_next_listing():
    text = (INIT + line("C→S", tools_list(1)) + line("S→C", tools(1, "a")) + line("C→S", tools_list(2))
            + line("S→C", tools(2, "a", "b")) + line("C→S", tools_list(3)) + line("S→C", tools(3, "a", "b")))
    assert codes(text, "HX008") == [(5, "HX008")]


def test_paginated_listings_are_compared_whole():
    def page(i, names, nxt=None, cursor=None):
        req = tools_list(i)
        if cursor:
            req["params"] = {"cursor": cursor}
        body = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]}
        if nxt:
            body["nextCursor"] = nxt
        return line("C→S", req) + line("S→C", result(i, body))
    text = INIT + page(1, ["a"], "c1") + page(2, ["b"], cursor="c1") + page(3, ["b"], "c2") + page(4, ["a"], cursor="c2")
    assert codes(text, "HX008") == []


def test_modern_list_change_expected_only_from_a_subscribed_stream():
    sid = "io.modelcontextprotocol/subscriptionId"
    listen = {"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
              "params": {"_meta": META, "notifications": {"toolsListChanged": True}}}
    ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
           "params": {"_meta": {sid: 9}, "notifications": {"toolsListChanged": True}}}
    hints = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
    listing = (line("C→S", tools_list(1, True)) + line("S→C", result(1, {**hints, "tools": []}))
               + line("C→S", tools_list(2, True))
               + line("S→C", result(2, {**hints, "tools": [{"name": "a", "inputSchema": {"type": "object"}}]})))
    assert codes(listing, "HX008") == []
    subscribed = line("C→S", listen) + line("S→C", ack) + listing
    assert codes(subscribed, "HX008") == [(6, "HX008")]


def test_list_state_is_made_once_per_feature_and_session(monkeypatch):
    from mcplint.rules import heuristics

    made = []
    listing = heuristics.Listing
    monkeypatch.setattr(heuristics, "Listing", lambda: made.append(1) or listing())
    text = INIT + "".join(line("C→S", tools_list(i)) + line("S→C", tools(i, "a")) for i in range(1, 6))
    assert codes(text, "HX008") == [] and len(made) == 1


# -- HX009 ---------------------------------------------------------------------------------------------
def test_polling_with_answers_is_no_storm():
    text = INIT + "".join(line("C→S", tools_list(i)) + line("S→C", tools(i, "a")) for i in range(1, 12))
    assert codes(text, "HX009") == []


def test_storm_with_timestamps_counts_failures_within_the_window():
    error = {"code": -32603, "message": "upstream down"}
    events = handshake()
    for i in range(1, 6):
        events += [(i, "c2s", call(i)), (i + 0.1, "s2c", {"jsonrpc": "2.0", "id": i, "error": error})]
    assert (12, "HX009") in lint_capture(events)
    slow = handshake()
    for i in range(1, 6):
        slow += [(i * 30, "c2s", call(i)), (i * 30 + 0.1, "s2c", {"jsonrpc": "2.0", "id": i, "error": error})]
    assert [c for c in lint_capture(slow) if c[1] == "HX009"] == []


def test_a_timed_storm_counts_a_failed_copy_the_analyzer_keeps_compact():
    """A copy answered with an error long enough ago that the analyzer keeps its entry compact
    (Answered, past the recent answers kept whole) still counts within the window."""
    from mcplint.analysis.analyzer import RECENT_ANSWERED

    error = {"code": -32603, "message": "upstream down"}
    events, now = handshake(), 1.0
    for i in [1] + list(range(1000, 1000 + RECENT_ANSWERED + 20)) + [2, 3, 4, 5]:
        now += 0.01
        events += [(now, "c2s", call(i) if i < 1000 else {"jsonrpc": "2.0", "id": i, "method": "ping"}),
                   (now + 0.001, "s2c", {"jsonrpc": "2.0", "id": i, "error": error} if i < 1000 else result(i, {}))]
    lines = [orjson.dumps({"ts": (EPOCH + timedelta(seconds=t)).isoformat(), "dir": d, "msg": m})
             for t, d, m in events]
    found = [f for f in Engine([RetryStorm()]).lint_stream(io.BytesIO(b"\n".join(lines) + b"\n"), "<c>",
                                                             "capture") if f.code == "HX009"]
    assert [(f.line, [r.line for r in f.related]) for f in found] == [(len(events) - 1, [4])]


def test_pings_are_not_a_retry_storm():
    text = INIT + "".join(line("C→S", {"jsonrpc": "2.0", "id": i, "method": "ping"}) for i in range(1, 8))
    assert codes(text, "HX009") == []


def test_storm_of_server_requests_is_reported():
    sampling = {"jsonrpc": "2.0", "method": "sampling/createMessage",
                "params": {"messages": [], "maxTokens": 10}}
    text = INIT + "".join(line("S→C", {**sampling, "id": i}) for i in range(1, 6))
    assert codes(text, "HX009") == [(6, "HX009")]


def test_a_long_storm_is_reported_once_and_its_chain_stays_bounded(monkeypatch):
    from mcplint.rules.heuristics import RetryStorm

    longest = []
    check = RetryStorm.check

    def watched(self, record, session):
        found = check(self, record, session)
        storms = session.state.get(RetryStorm)  # none while requests come alone
        longest.append(max((len(chain) for chain in storms.chains.values()), default=0) if storms else 0)
        return found
    monkeypatch.setattr(RetryStorm, "check", watched)
    text = INIT + "".join(line("C→S", tools_list(i)) for i in range(1, 201))
    assert [(f.line, f.code) for f in run_transcript(text, Engine([RetryStorm()]))] == [(6, "HX009")]
    assert max(longest) == RetryStorm.keep


def test_requests_that_come_alone_are_not_keyed(monkeypatch):
    """A sequential session (each request answered before the next) never serializes params for
    HX004/HX009: a request with no earlier one of its sender open starts no retry."""
    from mcplint.rules import heuristics, unanswered

    keyed = []
    original = unanswered.call_key
    for module in (heuristics, unanswered):  # the rules' module, and the open-request helpers they use
        monkeypatch.setattr(module, "call_key", lambda record: keyed.append(record.line) or original(record))
    text = INIT + "".join(line("C→S", call(i)) + line("S→C", result(i)) for i in range(1, 8))
    assert run_transcript(text, Engine([TimeoutWithoutCancel(), RetryStorm()])) == []
    assert keyed == []


def test_a_retry_of_a_request_that_came_alone_is_still_seen():
    # the first copy comes alone (remembered, not keyed); a server request that comes alone on its
    # side in between must not make the rules forget it; the copies that follow are not alone
    ping_server = {"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
                   "params": {"messages": [], "maxTokens": 10}}
    text = INIT + line("C→S", call(1)) + line("S→C", ping_server) + line("C→S", tools_list(2)) \
        + "".join(line("C→S", call(i)) for i in range(3, 7))
    found = codes(text, "HX")
    assert (5, "HX004") in found and (8, "HX009") in found


def test_reissue_rules_are_not_called_on_requests_that_come_alone(monkeypatch):
    """HX004 and CN009 cost nothing in a sequential session: the engine's "overlap" feature."""
    calls = []
    original = TimeoutWithoutCancel.check
    monkeypatch.setattr(TimeoutWithoutCancel, "check",
                        lambda self, record, session: calls.append(record.line) or original(self, record, session))
    text = INIT + "".join(line("C→S", call(i)) + line("S→C", result(i)) for i in range(1, 5))
    assert run_transcript(text, Engine([TimeoutWithoutCancel()])) == []
    assert calls == []


def test_a_retry_of_the_oldest_open_request_is_seen_past_an_exempt_one():
    # the edge of the "overlap" feature: the first copy came alone (HX004 was not called on it);
    # a ping came while it was open; the second copy is keyed against the client's oldest open request
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    text = INIT + line("C→S", call(1)) + line("C→S", ping) + line("C→S", call(3)) + line("S→C", result(3))
    assert codes(text, "HX004") == [(4, "HX004")]
    # a copy answered before the next one came is no retry, whatever came alone in between
    text = (INIT + line("C→S", call(1)) + line("S→C", result(1)) + line("C→S", tools_list(2))
            + line("C→S", call(3)) + line("S→C", result(3)) + line("S→C", tools(2, "a")))
    assert codes(text, "HX004") == []


def test_retry_rules_are_not_called_for_exempt_methods(monkeypatch):
    from mcplint.rules.heuristics import RetryStorm, TimeoutWithoutCancel

    seen = []
    for cls in (RetryStorm, TimeoutWithoutCancel):
        check = cls.check
        monkeypatch.setattr(cls, "check", lambda self, record, session, check=check: (
            seen.append((self.code, record.method)), check(self, record, session))[1])
    ping = {"jsonrpc": "2.0", "method": "ping"}
    text = INIT + line("C→S", {**ping, "id": 1}) + line("C→S", tools_list(2)) + line("C→S", {**ping, "id": 3})
    run_transcript(text, Engine([RetryStorm(), TimeoutWithoutCancel()]))
    # (the initialize comes alone: neither is called on it; tools/list overlaps the first ping)
    assert sorted(seen) == [("HX004", "tools/list"), ("HX009", "tools/list")]


# -- HX010 ---------------------------------------------------------------------------------------------
def test_capture_truncated_once_per_session_and_not_for_a_full_capture():
    text = (line("S→C", result(14)) + line("C→S", tools_list(15)) + line("S→C", tools(15, "a")))
    assert codes(text, "HX010") == [(1, "HX010")]
    assert codes(INIT + line("C→S", tools_list(1)) + line("S→C", tools(1, "a")), "HX010") == []
    modern = line("C→S", tools_list(1, True))
    assert codes(modern, "HX010") == []


# -- HX011 ---------------------------------------------------------------------------------------------
def test_secret_detection_ignores_look_alikes():
    assert token_kind("Basic authentication is required for this endpoint") is None
    assert token_kind("Authorization: Bearer abc123def456ghi789") == "bearer/basic credential"
    assert token_kind("postgres://app:s3cr3t@db.internal/orders") == "password in URL"
    assert token_kind("ghp_" + "a1" * 18) == "API token"
    for key in ("progressToken", "maxTokens", "token_endpoint", "secretName", "password_file", "nextCursor"):
        assert not sensitive_key(key), key
    for key in ("password", "aws_secret_access_key", "clientSecret", "api_key", "apiKey", "PRIVATE_KEY"):
        assert sensitive_key(key), key


def test_schemas_placeholders_and_logs_are_not_secrets():
    schema = result(1, {"tools": [{"name": "login", "inputSchema": {
        "type": "object", "properties": {"password": {"type": "string"}}, "required": ["password"]}}]})
    text = (INIT + line("C→S", tools_list(1)) + line("S→C", schema)
            + line("C→S", call(2, name="login", arguments={"password": "[REDACTED]"}))
            + line("S→C", result(2))
            + line("S→C", {"jsonrpc": "2.0", "method": "notifications/message",
                           "params": {"level": "info", "data": "token ghp_" + "a1" * 18}}))
    assert codes(text, "HX011") == []


def test_the_same_secret_is_reported_once():
    args = {"api_key": "sk-proj-" + "Ab3" * 10}
    text = INIT + line("C→S", call(1, arguments=args)) + line("S→C", result(1)) \
        + line("C→S", call(2, arguments=args)) + line("S→C", result(2))
    assert codes(text, "HX011") == [(2, "HX011")]


# -- HX012 ---------------------------------------------------------------------------------------------
def test_mrtr_rounds_reset_when_the_call_completes():
    text = ""
    for i in range(1, 5):
        text += line("C→S", call(i, name="deploy", modern=True, requestState=f"s{i - 1}"))
        text += line("S→C", result(i, {"resultType": "input_required", "requestState": f"s{i}"}))
    text += line("C→S", call(5, name="deploy", modern=True, requestState="s4"))
    text += line("S→C", result(5, {"resultType": "complete", "content": []}))
    for i in range(6, 10):
        text += line("C→S", call(i, name="deploy", modern=True))
        text += line("S→C", result(i, {"resultType": "input_required", "requestState": f"t{i}"}))
    assert codes(text, "HX012") == []


# -- HX011 prefilter: the one-pass scan answers as the plain substring tests do ----------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from mcplint.input import literal_scan  # noqa: E402
from mcplint.input.parse import Parser  # noqa: E402
from mcplint.input.readers import open_frames  # noqa: E402
from mcplint.rules import _secrets  # noqa: E402

_PIECES = st.sampled_from([
    "token", "progressToken", "maxTokens", "TOKEN", "Authorization", "api_key", "sk-", "task-x", "ghp_",
    "GHP_", "eyJ", "Bearer", "BASIC", "://", "@", "-----BEGIN", "akia", "AKIA", "xox", " ", "é", "\\n", "a"])


def _substring_reference(data: bytes) -> bool:
    lower = data.lower()
    if any(fragment in lower for fragment in literal_scan.KEY_FRAGMENTS):
        return True
    if lower.count(b"token") > sum(lower.count(h) for h in literal_scan.HARMLESS_TOKENS):
        return True
    return _secrets.has_token_probe(data.decode("utf-8", "replace"))


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_secret_prefilter_matches_the_substring_tests(text):
    data = text.encode()
    assert _secrets.might_hold_secret(data) == _substring_reference(data)


_OVERLAPPING = st.sampled_from(["progresstokens", "maxtokenstoken", "xoxox", "bearerer", "sk-sk-", "://://",
                                "passwdpwd", "apikeyapi_key", "eyjeyj", "hf_hf_", "tokenprogresstoken",
                                "progresstokenpm_", "maxtokensecret", "maxtokensk-", "basicookie", "@@",
                                "mcp-session-id", "\\u0040", ":\\/\\/", "\u017f", "\u212a"])


def _substring_signs(data: bytes) -> int:
    lowered = data.lower()
    bits = literal_scan.CUT if len(data) > literal_scan.MAX_SCAN else 0
    for literal, more, _ in literal_scan._EFFECTS:
        if literal in lowered:
            bits |= more
    if lowered.count(b"token") > sum(lowered.count(h) for h in literal_scan.HARMLESS_TOKENS):
        bits |= literal_scan.TOKEN
    return bits


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_PIECES, _OVERLAPPING, st.integers(1, 300).map(lambda n: "x" * n)), max_size=16)
       .map("".join))
def test_one_pass_finds_what_substring_tests_find(text):
    data = text.encode()
    assert literal_scan.signs(data) == _substring_signs(data)
    assert _secrets.might_hold_secret(data) == _substring_reference(data)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(st.one_of(_PIECES, _OVERLAPPING), max_size=8).map("".join), min_size=1, max_size=6))
def test_a_block_of_lines_is_scanned_as_each_line_alone(lines):
    """Readers tag each line from one scan of a block (Record.signs): same bits as the line's own scan."""
    data = [line.encode() for line in lines]
    assert literal_scan.block_signs(data) == [literal_scan.signs(line) for line in data]


def test_a_line_longer_than_the_scan_is_left_to_the_rule():
    long = b'{"x": "' + b"a" * literal_scan.MAX_SCAN + b'"}'
    assert literal_scan.block_signs([b'{"apikey": 1}', long, b"{}"]) == [literal_scan.KEY, None, 0]


def test_secrets_are_found_in_jsonl_lines_the_reader_tagged(tmp_path):
    """The gate: HX011 runs only on records whose line holds a literal; a planted key still fires,
    in the middle of a block of clean lines, and its line alone is scanned."""
    clean = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}'
    secret = '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"api_key":"sk-abcdef1234567890abcd"}}}'
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([clean] * 300 + [secret] + [clean] * 10) + "\n")
    with path.open("rb") as stream:
        records = list(Parser(str(path)).records(open_frames(stream)[1]))
    assert {r.signs for r in records[:300]} == {0} and records[300].signs
    with path.open("rb") as stream:
        assert [f.line for f in Engine().lint_stream(stream, str(path)) if f.code == "HX011"] == [301]


# -- HX013 tool-failure-as-success ---------------------------------------------------------------------
def answered(text, name="get_weather", is_error=None, structured=None, blocks=None):
    body = {"content": blocks if blocks is not None else [{"type": "text", "text": text}]}
    if is_error is not None:
        body["isError"] = is_error
    if structured is not None:
        body["structuredContent"] = structured
    return INIT + line("C→S", call(1, name=name)) + line("S→C", result(1, body))


FAILURES = [
    "Error: connection refused",
    "error: pathspec 'main.c' did not match any file(s) known to git",
    "ERROR:  relation \"users\" does not exist",
    "Error executing tool get_weather: 401 Unauthorized",
    "An unexpected error occurred. Please try again.",
    "Failed to fetch weather data: API rate limit exceeded",
    "failed: timeout after 30s",
    "Request failed with status code 503",
    "Exception: boom",
    "ValueError: invalid literal for int() with base 10: 'abc'",
    "java.net.ConnectException: Connection refused",
    "Traceback (most recent call last):\n  File \"/srv/app.py\", line 12, in handler\n    return fetch(city)\n"
    "KeyError: 'city'\n" + "  File \"/srv/lib.py\", line 3, in fetch\n" * 60,
    "TypeError: Cannot read properties of undefined (reading 'temp')\n"
    "    at format (/app/dist/weather.js:41:17)\n    at handler (/app/dist/server.js:88:5)\n" * 20,
]


def test_failure_texts_without_is_error_are_noted():
    for text in FAILURES:
        assert codes(answered(text), "HX013") == [(3, "HX013")], text
    assert codes(answered(FAILURES[0], is_error=False), "HX013") == [(3, "HX013")]


def test_failures_flagged_as_errors_or_from_structured_results_are_not_noted():
    assert codes(answered(FAILURES[5], is_error=True), "HX013") == []
    assert codes(answered("Error: upstream timeout", structured={"temperature": 21}), "HX013") == []
    assert codes(answered("Error: upstream timeout", structured={"error": "upstream timeout"}), "HX013") \
        == [(3, "HX013")]



def test_only_a_single_text_block_is_judged_by_the_shared_walk():
    # the gate reads the shared walk of the content blocks (tools.content_kinds)
    failure = {"type": "text", "text": "Error: connection refused"}
    assert codes(answered(None, blocks=[failure]), "HX013") == [(3, "HX013")]
    assert codes(answered(None, blocks=[failure, {"type": "text", "text": "more"}]), "HX013") == []
    assert codes(answered(None, blocks=[failure | {"type": "image"}]), "HX013") == []
    assert codes(answered(None, blocks=[failure | {"text": 3}]), "HX013") == []
    assert codes(answered(None, blocks=["Error: connection refused"]), "HX013") == []


NOT_FAILURES = [
    "Found 3 lines containing 'error'",
    "No errors found.",
    "Errors: 0, warnings: 2",
    "Error rate: 0.2% over the last hour",
    "error: null\nresult: 42",
    "Mirror: https://mirror.example.org/pub",
    "Error handling in Rust\n\nRust groups errors into two categories: recoverable and unrecoverable.",
    "Error: see below\n" + "The deployment finished with warnings that need review. " * 20,  # a long document
    "error: x is unused\nerror: y is unused\nerror: z is unused",  # a list of messages, not one failure
    "3 tests failed, 12 passed",
    "Sunny, 21 °C. Traceback (most recent call last): is what Python prints first.",
]


def test_texts_that_merely_talk_about_errors_are_not_noted():
    for text in NOT_FAILURES:
        assert codes(answered(text), "HX013") == [], text


def test_tools_whose_results_are_about_errors_are_not_noted():
    for name in ("search_logs", "run_command", "lint_file", "run_tests", "get_last_error", "execute_python"):
        assert codes(answered("ERROR: disk full on /var", name=name), "HX013") == [], name


def test_only_a_single_text_block_is_judged():
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    assert codes(answered("", blocks=[{"type": "text", "text": "Error: partial"}, image]), "HX013") == []
    assert codes(answered("", blocks=[]), "HX013") == []
    assert codes(answered("", blocks=[{"type": "text", "text": 5}]), "HX013") == []


def test_large_results_are_skipped_cheaply():
    big = "Error: " + "x" * 5_000_000
    assert codes(answered(big), "HX013") == []


# -- HX004 / HX009 against their eager definitions --------------------------------------------------
# The rules key a request lazily (one that comes alone is keyed at the next that does not, if still
# open) and drop closed copies from a storm's chain only when it is long enough to count; these
# oracles judge and key every request and filter every chain at once, as the rules' docstrings say.
from mcplint.analysis.analyzer import RequestEntry  # noqa: E402
from mcplint.model import Direction  # noqa: E402
from mcplint.rules.heuristics import Retry, seconds  # noqa: E402
from mcplint.rules.unanswered import call_key, label, maybe_answered  # noqa: E402


class EagerReissue(TimeoutWithoutCancel):
    requires = frozenset()

    def check(self, record, session):
        if record.direction is not Direction.C2S or not record.has_id:
            return ()
        latest = session.state.setdefault((EagerReissue, "latest"), {})
        key = call_key(record)
        earlier, latest[key] = latest.get(key), record
        if earlier is None or earlier.parent is not None:
            return ()
        entry = session.find_request(Direction.C2S, earlier.id)
        if type(entry) is not RequestEntry or not entry.pending or entry.cancel is not None \
                or entry.record is not earlier:
            return ()
        retry = Retry(entry, record, seconds(earlier, record))
        if retry.gap is not None and retry.gap >= self.min_wait:
            return [self.describe(retry, "it was still unanswered")]
        session.state.setdefault((EagerReissue, "retries"), []).append(retry)
        return ()

    def finish(self, session):
        return [maybe_answered(self.describe(r, "it was never answered"), r.earlier)
                for r in session.state.get((EagerReissue, "retries"), [])
                if r.earlier.pending and r.earlier.cancel is None]


class EagerStorm(RetryStorm):
    requires_any = frozenset()  # called on every request

    def check(self, record, session):
        if record.direction is None or not record.has_id:
            return ()
        chain = session.state.setdefault((EagerStorm, "chains"), {}).setdefault(
            (record.direction, call_key(record)), [])
        timed = record.t is not None and all(r.t is not None for r in chain)
        chain[:] = [r for r in chain if (not timed or record.t - r.t <= self.window)
                    and self._failed(r, session, strict=not timed)]
        chain.append(record)
        if len(chain) != self.count:
            return ()
        within = (f" within {record.t - chain[0].t:.1f} s" if timed else "")
        return [self.report(record, f"{label(record)} {self.count} {within}", related=[(chain[0], "first")])]


def _storm_findings(found):
    return [(f.line, f.code, [r.line for r in f.related]) for f in found]


_STEPS = st.lists(st.tuples(st.sampled_from(["call", "call", "list", "ping", "answer", "error", "cancel",
                                             "server", "reply"]),
                            st.integers(0, 3), st.sampled_from([0.2, 3.0, 12.0])), max_size=40)


def _events(steps):
    """(seconds, direction, message) of a session made of ``steps``: client calls of two argument
    sets, listings and pings, the server's answers (results or errors) to open client requests, the
    client's cancellations, server requests and the client's replies to them."""
    events, open_client, open_server, now = handshake(), [], [], 1.0
    for ids, (action, pick, gap) in enumerate(steps, 1):
        now += gap
        if action in ("call", "list", "ping"):
            msg = {"call": call(ids, arguments={"q": pick % 2}), "list": tools_list(ids),
                   "ping": {"jsonrpc": "2.0", "id": ids, "method": "ping"}}[action]
            events.append((now, "c2s", msg))
            open_client.append(ids)
        elif action in ("answer", "error", "cancel") and open_client:
            rid = open_client.pop(pick % len(open_client))
            if action == "cancel":
                events.append((now, "c2s", cancelled(rid)))
            else:
                error = {"code": -32603, "message": "down"}
                events.append((now, "s2c", result(rid) if action == "answer" else
                               {"jsonrpc": "2.0", "id": rid, "error": error}))
        elif action == "server":
            events.append((now, "s2c", {"jsonrpc": "2.0", "id": f"s{pick}-{ids}", "method": "sampling/createMessage",
                                        "params": {"messages": [], "maxTokens": 10}}))
            open_server.append(f"s{pick}-{ids}")
        elif action == "reply" and open_server:
            events.append((now, "c2s", result(open_server.pop(pick % len(open_server)), {})))
    return events


@settings(max_examples=300, deadline=None)
@given(_STEPS, st.sampled_from([None, 1, 2, 3]))
def test_retry_rules_find_what_their_eager_definitions_find(steps, timed):
    """``timed``: None, untimed; 1, every message has a timestamp; 2 or 3, every second or third
    message has none (HX009 is not called on a request that comes alone until a timed one came)."""
    events = _events(steps)
    if timed:
        def run(rules):
            lines = [orjson.dumps({**({"ts": (EPOCH + timedelta(seconds=t)).isoformat()}
                                      if timed == 1 or i % timed else {}), "dir": d, "msg": m})
                     for i, (t, d, m) in enumerate(events)]
            return list(Engine(rules).lint_stream(io.BytesIO(b"\n".join(lines) + b"\n"), "<c>", "capture"))
    else:
        text = INIT + "".join(line("C→S" if d == "c2s" else "S→C", m) for _, d, m in events[3:])

        def run(rules):
            return run_transcript(text, Engine(rules))
    assert [(f.line, f.message) for f in run([TimeoutWithoutCancel()])] \
        == [(f.line, f.message) for f in run([EagerReissue()])]
    assert _storm_findings(run([RetryStorm()])) == _storm_findings(run([EagerStorm()]))


@pytest.mark.parametrize("before", [[], [("c2s", "ping")], [("s2c", "server")], [("c2s", "other"), ("s2c", "answer")]])
def test_retry_storm_counts_the_copy_that_came_alone(before):
    """HX009 is not called on an untimed request that comes alone (nothing of its sender open):
    the first of five open copies is found at the next call, as its sender's oldest open request
    (unless an open ping came before: then none comes alone)."""
    messages = {"ping": {"jsonrpc": "2.0", "id": 90, "method": "ping"}, "other": call(91, arguments={"q": 9}),
                "answer": result(91),
                "server": {"jsonrpc": "2.0", "id": "s", "method": "sampling/createMessage",
                           "params": {"messages": [], "maxTokens": 10}}}
    text = INIT + "".join(line("C→S" if d == "c2s" else "S→C", messages[m]) for d, m in before) \
        + "".join(line("C→S", call(i, arguments={"q": 0})) for i in range(1, 6))
    found = _storm_findings(run_transcript(text, Engine([RetryStorm()])))
    assert found == _storm_findings(run_transcript(text, Engine([EagerStorm()])))
    assert len(found) == 1

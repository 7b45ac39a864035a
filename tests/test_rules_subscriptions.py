"""Subscriptions (SB) and caching (CA), 2026-07-28: property tests and edge cases.

A hypothesis generator builds spec-valid stateless sessions (server/discover, listen streams with
acknowledgments and interleaved notifications, paginated cacheable listings, multi round-trip
calls, graceful closures and cancellations); the SB and CA families must stay silent on them, and
each targeted mutation must be reported under its code on the mutated line.
"""

from __future__ import annotations

import copy

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ruledocs import run_transcript

VERSION = "2026-07-28"
SID = "io.modelcontextprotocol/subscriptionId"
FLAGS = {"tools": "toolsListChanged", "prompts": "promptsListChanged", "resources": "resourcesListChanged"}
CHANGED = {"tools": "notifications/tools/list_changed", "prompts": "notifications/prompts/list_changed",
           "resources": "notifications/resources/list_changed"}
URIS = ["file:///project/config.json", "file:///project/src", "weather://stations/KSEA", "db://orders"]
LISTS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
         "resources/templates/list": "resourceTemplates"}


def meta(caps=None):
    return {"io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientCapabilities": caps or {},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}


SERVER_META = {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}


class Script:
    """A session as (arrow, message) pairs plus the positions mutations aim at."""

    def __init__(self):
        self.lines: list[list] = []
        self.marks: dict[str, list[int]] = {}
        self.next_id = 1

    def add(self, arrow, msg, *marks):
        self.lines.append([arrow, msg])
        for mark in marks:
            self.marks.setdefault(mark, []).append(len(self.lines) - 1)
        return len(self.lines) - 1

    def request(self, method, params=None, caps=None, *marks):
        rid = self.next_id
        self.next_id += 1
        body = dict(params or {})
        body["_meta"] = meta(caps)
        self.add("C→S", {"jsonrpc": "2.0", "id": rid, "method": method, "params": body}, *marks)
        return rid

    def result(self, rid, result, *marks):
        return self.add("S→C", {"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete", **result,
                                                                        "_meta": SERVER_META}}, *marks)

    def notify(self, method, params, *marks):
        return self.add("S→C", {"jsonrpc": "2.0", "method": method, "params": params}, *marks)

    def text(self):
        return "".join(f"{arrow} {orjson.dumps(msg).decode()}\n" for arrow, msg in self.lines)


def cache(scope, ttl):
    return {"ttlMs": ttl, "cacheScope": scope}


@st.composite
def sessions(draw):
    s = Script()
    features = draw(st.sets(st.sampled_from(sorted(FLAGS)), min_size=1))
    listed = {f for f in features if draw(st.booleans())}
    subscribe = "resources" in features and draw(st.booleans())
    caps = {f: ({"listChanged": True} if f in listed else {}) for f in features}
    if subscribe:
        caps["resources"]["subscribe"] = True
    rid = s.request("server/discover")
    s.result(rid, {"supportedVersions": [VERSION], "capabilities": caps, **cache("public", 3_600_000)},
             "discover", "cacheable")
    # paginated listings with one cacheScope per listing
    for method in draw(st.lists(st.sampled_from(sorted(LISTS)), max_size=3)):
        scope = draw(st.sampled_from(["public", "private"]))
        pages = draw(st.integers(1, 3))
        cursor = None
        for page in range(pages):
            params = {"cursor": cursor} if cursor else {}
            rid = s.request(method, params)
            body = {LISTS[method]: [], **cache(scope, draw(st.integers(0, 10**7)))}
            if page + 1 < pages:
                cursor = f"{method}-{page + 1}"
                body["nextCursor"] = cursor
            s.result(rid, body, "cacheable", *(["later-page"] if page else []))
    # listen streams, acknowledged with what the server supports, notifications interleaved
    streams = []
    for _ in range(draw(st.integers(0, 3))):
        wanted = {f for f in sorted(FLAGS) if draw(st.booleans())}
        uris = draw(st.lists(st.sampled_from(URIS), unique=True, max_size=2))
        filt = {FLAGS[f]: True for f in sorted(wanted)}
        if uris:
            filt["resourceSubscriptions"] = uris
        lid = s.request("subscriptions/listen", {"notifications": filt})
        honored = {FLAGS[f]: True for f in sorted(wanted & listed)}
        if uris and subscribe:
            honored["resourceSubscriptions"] = uris
        streams.append((lid, honored))
    for lid, honored in streams:
        s.notify("notifications/subscriptions/acknowledged",
                 {"_meta": {SID: lid}, "notifications": honored}, "ack")
    events = []
    for lid, honored in streams:
        for f in sorted(FLAGS):
            if honored.get(FLAGS[f]):
                events += [(lid, CHANGED[f], {})] * draw(st.integers(0, 2))
        for uri in honored.get("resourceSubscriptions", []):
            sub = draw(st.sampled_from(["", "/a.json", "#frag"]))
            events.append((lid, "notifications/resources/updated", {"uri": uri + sub}))
    for lid, method, extra in draw(st.permutations(events)):
        s.notify(method, {"_meta": {SID: lid}, **extra}, "stream-note",
                 *(["updated"] if method.endswith("updated") else []))
    # a tool call with progress and a log message (request-scoped: no subscriptionId)
    rid = s.request("tools/call", {"name": "t", "arguments": {}, "_meta": {"progressToken": "p"}})
    s.lines[-1][1]["params"]["_meta"] = {**meta(), "progressToken": "p", "io.modelcontextprotocol/logLevel": "info"}
    s.notify("notifications/progress", {"progressToken": "p", "progress": 1}, "scoped")
    s.notify("notifications/message", {"level": "info", "data": "working"}, "scoped")
    s.result(rid, {"content": []})
    # a multi round-trip call: an interim result without hints, then the final one
    rid = s.request("resources/read", {"uri": "db://orders"})
    s.result(rid, {"resultType": "input_required", "requestState": "st"}, "interim")
    s.lines[-1][1]["result"].pop("_meta")
    rid = s.request("resources/read", {"uri": "db://orders", "requestState": "st"})
    s.result(rid, {"contents": [], **cache("private", 0)}, "cacheable")
    # each stream ends: graceful result, client cancellation, server cancellation or left open
    for lid, _ in streams:
        end = draw(st.sampled_from(["result", "client", "server", "open"]))
        if end == "result":
            s.add("S→C", {"jsonrpc": "2.0", "id": lid, "result": {"resultType": "complete", "_meta": {SID: lid}}},
                  "close")
        elif end != "open":
            s.add("C→S" if end == "client" else "S→C",
                  {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": lid}})
    return s


def family(findings, prefix):
    return [(f.line, f.code) for f in findings if f.code.startswith(prefix)]


@settings(max_examples=80, deadline=None)
@given(sessions())
def test_valid_sessions_draw_no_sb_or_ca_finding(s):
    found = run_transcript(s.text())
    assert family(found, "SB") == [] and family(found, "CA") == [], s.text()


# -- mutations -----------------------------------------------------------------------------------
def mutated(s: Script, mark: str, data, change):
    """Apply ``change`` to one message marked ``mark``; return (text, 1-based line) or None."""
    if not s.marks.get(mark):
        return None
    index = data.draw(st.sampled_from(s.marks[mark]))
    s = copy.deepcopy(s)
    line = change(s, index)
    return s.text(), (line if line is not None else index) + 1


def expect(text_line, code):
    if text_line is None:
        return
    text, line = text_line
    assert (line, code) in family(run_transcript(text), code[:2]), text


@settings(max_examples=40, deadline=None)
@given(sessions(), st.data())
def test_mutations_are_reported(s, data):
    msg = lambda s, i: s.lines[i][1]

    def drop_sid(s, i):
        msg(s, i)["params"]["_meta"].pop(SID)

    def sid_on_scoped(s, i):
        msg(s, i)["params"]["_meta"] = {SID: 1}

    def far_uri(s, i):
        msg(s, i)["params"]["uri"] = "other://elsewhere/x"

    def close_without_meta(s, i):
        msg(s, i)["result"].pop("_meta")

    def drop_ttl(s, i):
        msg(s, i)["result"].pop("ttlMs")

    def negative_ttl(s, i):
        msg(s, i)["result"]["ttlMs"] = -5

    def bad_scope(s, i):
        msg(s, i)["result"]["cacheScope"] = "shared"

    def flip_scope(s, i):
        result = msg(s, i)["result"]
        result["cacheScope"] = "public" if result["cacheScope"] == "private" else "private"

    def hints_on_interim(s, i):
        msg(s, i)["result"].update(cache("public", 1000))

    expect(mutated(s, "stream-note", data, drop_sid), "SB004")
    expect(mutated(s, "ack", data, drop_sid), "SB004")
    expect(mutated(s, "scoped", data, sid_on_scoped), "SB005")
    expect(mutated(s, "updated", data, far_uri), "SB006")
    expect(mutated(s, "close", data, close_without_meta), "SB007")
    expect(mutated(s, "cacheable", data, drop_ttl), "CA001")
    expect(mutated(s, "cacheable", data, negative_ttl), "CA002")
    expect(mutated(s, "cacheable", data, bad_scope), "CA003")
    expect(mutated(s, "later-page", data, flip_scope), "CA004")
    expect(mutated(s, "interim", data, hints_on_interim), "CA005")


@settings(max_examples=40, deadline=None)
@given(sessions(), st.data())
def test_stream_mutations_are_reported(s, data):
    acks = s.marks.get("ack", [])
    if not acks:
        return
    index = data.draw(st.sampled_from(acks))
    ack = s.lines[index][1]["params"]
    lid = ack["_meta"][SID]
    honored = ack["notifications"]
    missing = [f for f in sorted(FLAGS) if not honored.get(FLAGS[f])]

    # SB002: a notification of the stream moved before its acknowledgment
    s2 = copy.deepcopy(s)
    s2.lines.insert(index, ["S→C", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                                    "params": {"_meta": {SID: lid}}}])
    expect((s2.text(), index + 1), "SB002")

    if missing:
        feature = data.draw(st.sampled_from(missing))
        # SB001: a type the stream did not ask for (or that the server did not acknowledge)
        requested = s.lines[next(i for i, (_, m) in enumerate(s.lines) if m.get("id") == lid
                             and m.get("method") == "subscriptions/listen")][1]["params"]["notifications"]
        s3 = copy.deepcopy(s)
        s3.lines.insert(index + 1, ["S→C", {"jsonrpc": "2.0", "method": CHANGED[feature],
                                            "params": {"_meta": {SID: lid}}}])
        if not requested.get(FLAGS[feature]):
            expect((s3.text(), index + 2), "SB001")
            # SB003: the acknowledgment grants a type the client did not request
            s4 = copy.deepcopy(s)
            s4.lines[index][1]["params"]["notifications"][FLAGS[feature]] = True
            expect((s4.text(), index + 1), "SB003")
        # SB009: the acknowledgment honors a type discovery did not advertise
        s5 = copy.deepcopy(s)
        s5.lines[index][1]["params"]["notifications"][FLAGS[feature]] = True
        discover = s5.lines[s5.marks["discover"][0]][1]["result"]["capabilities"]
        discover.setdefault(feature, {}).pop("listChanged", None)
        expect((s5.text(), index + 1), "SB009")


# -- edge cases the pages do not show -------------------------------------------------------------
M = orjson.dumps(meta()).decode()


def listen(i, filt):
    return (f'C→S {{"jsonrpc":"2.0","id":{orjson.dumps(i).decode()},"method":"subscriptions/listen",'
            f'"params":{{"_meta":{M},"notifications":{orjson.dumps(filt).decode()}}}}}\n')


def note(method, sid=None, **params):
    if sid is not None:
        params["_meta"] = {SID: sid}
    return f'S→C {orjson.dumps({"jsonrpc": "2.0", "method": method, "params": params}).decode()}\n'


def ack(sid, filt):
    return note("notifications/subscriptions/acknowledged", sid, notifications=filt)


def sb(text):
    return family(run_transcript(text), "SB")


def test_stdio_interleaving_of_two_subscriptions_is_allowed():
    text = (listen(1, {"toolsListChanged": True}) + listen("b", {"promptsListChanged": True})
            + ack("b", {"promptsListChanged": True}) + note("notifications/prompts/list_changed", "b")
            + ack(1, {"toolsListChanged": True}) + note("notifications/tools/list_changed", 1))
    assert sb(text) == []


def test_string_subscription_ids_are_type_exact():
    text = listen("7", {"toolsListChanged": True}) + ack(7, {"toolsListChanged": True})
    assert sb(text) == [(2, "SB004")]


def test_resource_update_of_a_sub_resource_is_in_scope():
    text = (listen(1, {"resourceSubscriptions": ["file:///repo/"]})
            + ack(1, {"resourceSubscriptions": ["file:///repo/"]})
            + note("notifications/resources/updated", 1, uri="file:///repo/src/main.py")
            + note("notifications/resources/updated", 1, uri="file:///repository"))
    assert sb(text) == [(4, "SB006")]


def test_notification_racing_the_client_cancellation_is_a_low_warning():
    text = (listen(1, {"toolsListChanged": True}) + ack(1, {"toolsListChanged": True})
            + 'C→S {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n'
            + note("notifications/tools/list_changed", 1))
    found = [f for f in run_transcript(text) if f.code == "SB001"]
    assert [(f.line, f.severity.value, f.confidence) for f in found] == [(4, "warning", "low")]


def test_capture_starting_mid_stream_is_not_an_error():
    text = (note("notifications/tools/list_changed", 3)
            + f'C→S {{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{"_meta":{M}}}}}\n')
    assert sb(text) == []


def test_legacy_list_changed_is_not_judged_by_sb():
    text = ('# init 2025-06-18 C={} S={"tools":{"listChanged":true}}\n'
            'S→C {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n')
    assert sb(text) == []


def test_listen_error_ends_the_stream():
    text = (listen(1, {"toolsListChanged": True})
            + 'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad filter"}}\n'
            + note("notifications/tools/list_changed", 1))
    assert sb(text) == [(3, "SB001")]


def test_close_result_naming_another_subscription():
    text = (listen(1, {"toolsListChanged": True}) + ack(1, {"toolsListChanged": True})
            + f'S→C {{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","_meta":{{"{SID}":"1"}}}}}}\n')
    assert sb(text) == [(3, "SB007")]


def ca(text):
    return family(run_transcript(text), "CA")


def listing(i, result, cursor=None):
    params = {"_meta": meta()} | ({"cursor": cursor} if cursor else {})
    return (f'C→S {orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/list", "params": params}).decode()}\n'
            f'S→C {orjson.dumps({"jsonrpc": "2.0", "id": i, "result": {"resultType": "complete", "tools": [], **result}}).decode()}\n')


def test_integral_float_ttl_is_accepted_and_booleans_are_not():
    assert ca(listing(1, cache("public", 60000.0))) == []
    assert ca(listing(1, cache("public", True))) == [(2, "CA002")]


def test_pages_of_two_listings_do_not_mix():
    text = (listing(1, {**cache("private", 0), "nextCursor": "a"})
            + listing(2, cache("public", 0))  # a new listing, not page 2
            + listing(3, cache("private", 0), cursor="a"))
    assert ca(text) == []


def test_non_cacheable_results_and_legacy_sessions_need_no_hints():
    text = ('C→S {"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","_meta":' + M + '}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","messages":[]}}\n')
    assert ca(text) == []
    legacy = ('# init 2025-06-18 C={} S={"tools":{}}\n'
              'C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
              'S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n')
    assert ca(legacy) == []

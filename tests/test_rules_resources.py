"""Resource rules (RS001-RS007): edge cases the pages do not show, and property tests."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mcplint.rules.resources import annotation_problems, covers, template_problem, uri_problem
from tests.feature_sessions import ALL, LEGACY, MODERN, Script, findings, names, texts
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={} S={"resources":{"subscribe":true}}\n'


def rs(text):
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code.startswith("RS")]


@pytest.mark.parametrize("uri", ["file:///a.txt", "urn:isbn:0451450523", "https://example.com/a?b=c#d",
                                 "file:///C:/Users/dev/a%20b.txt", "git://github.com/x/y.git", "mem:", "db://x/[1]"])
def test_valid_uris(uri):
    assert uri_problem(uri) is None


@pytest.mark.parametrize("uri,rank", [("a.txt", 2), ("/home/a.txt", 2), ("file:///a b", 2), ("http://x/%zz", 2),
                                      ("C:\\x", 2), ("file:///café", 1), ("", 2), (3, 2)])
def test_invalid_uris(uri, rank):
    assert uri_problem(uri)[0] == rank


@pytest.mark.parametrize("template", ["file:///{path}", "file:///{+path}", "db://{schema}/{table}{?limit,offset}",
                                      "x://{a.b}/{c:3}/{d*}", "weather://{city}/{date}"])
def test_valid_templates(template):
    assert template_problem(template) is None


@pytest.mark.parametrize("template,rank", [("x://{a", 2), ("x://a}", 2), ("x://{}", 2), ("x://{=a}", 2),
                                           ("x://{user-id}", 1), ("x://{a:0}", 1), ("x:// {a}", 2)])
def test_invalid_templates(template, rank):
    assert template_problem(template)[0] == rank


def test_sub_resource_containment():
    assert covers("file:///project/", "file:///project/src/a.rs")
    assert covers("file:///project", "file:///project/src/a.rs")
    assert covers("db://t", "db://t?row=1")
    assert not covers("file:///project", "file:///project2/a")


def test_annotation_ranges_per_revision():
    assert annotation_problems({"priority": 1, "audience": ["user"]}, "2024-11-05") == []
    assert annotation_problems({"lastModified": "yesterday"}, "2025-03-26") == []  # unknown member then
    assert annotation_problems({"lastModified": "yesterday"}, "2025-06-18")[0][0] == 1
    assert annotation_problems({"priority": True}, "2025-06-18")[0][0] == 2
    assert annotation_problems({"lastModified": "2025-01-12"}, "2025-11-25") == []


def test_pending_subscription_covers_an_early_update():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///a"}}\n'
                   'S→C {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"result":{}}\n')
    assert rs(text) == []


def test_refused_subscription_does_not_count():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///a"}}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found"}}\n'
                   'S→C {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}\n')
    assert rs(text) == [(4, "RS002", "warning")]


def test_updates_without_subscribe_capability_are_cap003s():
    text = ('# init 2025-06-18 C={} S={"resources":{}}\n'
            'S→C {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}\n')
    codes = [f.code for f in run_transcript(text)]
    assert "CAP003" in codes and "RS002" not in codes


def test_subscribe_after_init_result_is_cap001s():
    text = ('# init 2025-06-18 C={} S={"resources":{}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///a"}}\n')
    codes = [f.code for f in run_transcript(text)]
    assert "CAP001" in codes and "RS001" not in codes


def test_early_subscribe_in_2025_03_26_is_a_warning():
    text = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"resources/unsubscribe","params":{"uri":"file:///a"}}\n'
            'S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{},'
            '"serverInfo":{"name":"s","version":"1"}}}\n')
    assert rs(text) == [(2, "RS001", "warning")]


def test_not_found_code_checks_only_not_found_messages():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a"}}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"disk I/O error"}}\n'
                   'C→S {"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///b"}}\n'
                   'S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"No such file"}}\n')
    assert rs(text) == [(5, "RS004", "info")]


def test_modern_input_required_read_is_not_judged_for_shape():
    meta = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{}}')
    text = (f'C→S {{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"file:///a",{meta}}}}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}\n')
    assert rs(text) == []


# -- property tests --------------------------------------------------------------------------
uris = st.builds(lambda a, b: f"file:///{a}/{b}.txt", names, names)
annotations = st.fixed_dictionaries({}, optional={
    "priority": st.floats(0, 1), "audience": st.lists(st.sampled_from(["user", "assistant"]), max_size=2),
    "lastModified": st.sampled_from(["2025-01-12T15:00:58Z", "2025-01-12", "2025-01-12T15:00:58.123+02:00"])})


@st.composite
def resource_sessions(draw) -> Script:
    """Sessions that list, read and (handshake revisions) subscribe to resources correctly."""
    version = draw(st.sampled_from(ALL))
    script = Script(version, server_caps={"resources": {"subscribe": True, "listChanged": True}})
    listed = draw(st.lists(uris, min_size=1, max_size=4, unique=True))
    resources = []
    for uri in listed:
        resource = {"uri": uri, "name": uri.rsplit("/", 1)[-1]}
        if draw(st.booleans()):
            resource["annotations"] = draw(annotations)
        resources.append(resource)
    script.call("resources/list", None, {"resources": resources}, cache=True)
    script.call("resources/templates/list", None, {"resourceTemplates": [
        {"uriTemplate": "file:///{dir}/{name}.txt", "name": "files"}]}, cache=True)
    subscribed: list[str] = []
    for op in draw(st.lists(st.sampled_from(["read", "blob", "subscribe", "update", "unsubscribe", "missing"]),
                            max_size=10)):
        uri = draw(st.sampled_from(listed))
        if op == "read":
            script.call("resources/read", {"uri": uri}, {"contents": [
                {"uri": uri, "mimeType": "text/plain", "text": draw(texts)}]}, cache=True)
        elif op == "blob":
            script.call("resources/read", {"uri": uri}, {"contents": [
                {"uri": uri, "mimeType": "application/octet-stream", "blob": "aGVsbG8="}]}, cache=True)
        elif op == "missing":
            index = script.request("resources/read", {"uri": uri + ".gone"})
            if version == MODERN:
                script.error(index, -32602, "Resource not found")
            else:
                script.error(index, -32002, "Resource not found")
        elif version == MODERN:
            continue  # subscriptions are subscriptions/listen there (SB)
        elif op == "subscribe":
            script.call("resources/subscribe", {"uri": uri.rsplit("/", 1)[0] + "/"}, {})
            subscribed.append(uri)
        elif op == "update" and subscribed:
            script.notify("notifications/resources/updated", {"uri": draw(st.sampled_from(subscribed))})
        elif op == "unsubscribe" and subscribed:
            gone = subscribed.pop()
            script.call("resources/unsubscribe", {"uri": gone.rsplit("/", 1)[0] + "/"}, {})
            subscribed = [u for u in subscribed if not u.startswith(gone.rsplit("/", 1)[0] + "/")]
    return script


MUTATIONS = ["bad-uri", "priority", "both", "not-found", "updated", "empty"]


def mutate(script: Script, how: str) -> tuple[Script, int, str]:
    if how == "bad-uri":
        _, answer = script.call("resources/list", None, {"resources": [{"uri": "my file.txt", "name": "f"}]},
                                cache=True)
        return script, script.line(answer), "RS006"
    if how == "priority":
        _, answer = script.call("resources/list", None, {"resources": [
            {"uri": "file:///a", "name": "a", "annotations": {"priority": 2}}]}, cache=True)
        return script, script.line(answer), "RS007"
    if how == "both":
        _, answer = script.call("resources/read", {"uri": "file:///a"}, {"contents": [
            {"uri": "file:///a", "text": "x", "blob": "eA=="}]}, cache=True)
        return script, script.line(answer), "RS003"
    if how == "not-found":
        index = script.request("resources/read", {"uri": "file:///nope"})
        answer = script.error(index, -32002 if script.modern else -32603, "Resource not found")
        return script, script.line(answer), "RS004"
    if how == "empty":  # 2026-07-28 only
        _, answer = script.call("resources/read", {"uri": "file:///nope"}, {"contents": []}, cache=True)
        return script, script.line(answer), "RS005"
    index = script.notify("notifications/resources/updated", {"uri": "urn:never:subscribed"})  # handshake only
    return script, script.line(index), "RS002"


@settings(max_examples=50, deadline=None)
@given(resource_sessions())
def test_generated_resource_sessions_draw_no_resource_finding(script):
    assert findings(script, "RS") == []


@settings(max_examples=50, deadline=None)
@given(resource_sessions(), st.sampled_from(MUTATIONS))
def test_targeted_resource_mutations_are_reported(script, how):
    assume(script.modern == (how == "empty") or how not in ("empty", "updated"))
    script, line, code = mutate(script, how)
    found = {(line_, code_) for line_, code_, _ in findings(script, "RS")}
    assert (line, code) in found, found


@pytest.mark.parametrize("version", LEGACY)
def test_early_subscribe_is_reported_in_every_handshake_revision(version):
    text = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"' + version + '",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///a"}}\n'
            'S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"' + version + '","capabilities":'
            '{"resources":{}},"serverInfo":{"name":"s","version":"1"}}}\n')
    severity = "error" if version >= "2025-06-18" else "warning"
    assert rs(text) == [(2, "RS001", severity)]


# -- robustness of all six feature families (PI, LG, PA, RS, PM, CP) ----------------------------
FEATURE_METHODS = ["ping", "logging/setLevel", "notifications/message", "tools/list", "prompts/list",
                   "prompts/get", "resources/list", "resources/templates/list", "resources/read",
                   "resources/subscribe", "resources/unsubscribe", "notifications/resources/updated",
                   "notifications/prompts/list_changed", "completion/complete", "subscriptions/listen",
                   "notifications/cancelled", "roots/list", "server/discover"]
anything = st.recursive(st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.floats(allow_nan=False) | st.text(max_size=8),
                        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(
                            ["uri", "level", "data", "cursor", "nextCursor", "contents", "messages", "name",
                             "arguments", "ref", "argument", "completion", "values", "resources", "prompts",
                             "annotations", "requestId", "_meta", "notifications", "resultType", "text", "blob",
                             "role", "content", "type", "total", "hasMore", "uriTemplate", "resourceTemplates",
                             "io.modelcontextprotocol/logLevel", "capabilities", "logging"]), c, max_size=4),
                        max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ALL), st.lists(st.tuples(st.sampled_from(FEATURE_METHODS), anything, anything,
                                                st.booleans()), max_size=6))
def test_feature_rules_survive_arbitrary_payloads(version, exchanges):
    import orjson

    lines = [] if version == MODERN else [f"# init {version} C={{}} S={{}}"]
    for number, (method, params, result, server_sends) in enumerate(exchanges, 1):
        sender, other = ("S→C", "C→S") if server_sends else ("C→S", "S→C")
        if version == MODERN and not server_sends and isinstance(params, dict):
            meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
            params = {**params, "_meta": {**meta, "io.modelcontextprotocol/protocolVersion": MODERN,
                                          "io.modelcontextprotocol/clientCapabilities": {}}}
        request = {"jsonrpc": "2.0", "id": number, "method": method, "params": params}
        lines.append(f"{sender} {orjson.dumps(request).decode()}")
        if not method.startswith("notifications/"):
            answer = {"jsonrpc": "2.0", "id": number, "result": result}
            if isinstance(result, bool):  # an error answer instead
                answer = {"jsonrpc": "2.0", "id": number, "error": {
                    "code": -32002 if result else -32603, "message": "unknown prompt, cursor not found"}}
            lines.append(f"{other} {orjson.dumps(answer).decode()}")
    run_transcript("\n".join(lines) + "\n")  # must not raise


# -- RS004 and -32601 (issue 13) -------------------------------------------------------------------
MODERN_META = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
               '"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":'
               '{"name":"c","version":"1"}}')


def read_refused(i, code, message, modern=False):
    meta = f",{MODERN_META}" if modern else ""
    return (f'C→S {{"jsonrpc":"2.0","id":{i},"method":"resources/read","params":{{"uri":"file:///nope"{meta}}}}}\n'
            f'S→C {{"jsonrpc":"2.0","id":{i},"error":{{"code":{code},"message":"{message}"}}}}\n')


def test_method_not_found_for_a_missing_resource_counts_when_resources_are_declared():
    text = INIT + read_refused(1, -32601, "Resource not found: file:///nope") + read_refused(2, -32602, "Not found")
    assert rs(text) == [(3, "RS004", "info"), (5, "RS004", "info")]  # like -32602 and 0
    assert rs(text) == rs(INIT + read_refused(1, 0, "Resource not found: file:///nope")
                           + read_refused(2, -32602, "Not found"))


def test_method_not_found_without_the_resource_in_the_message_is_cap008s():
    found = [(f.line, f.code) for f in run_transcript(INIT + read_refused(1, -32601, "Method not found"))
             if f.code in ("RS004", "CAP008")]
    assert found == [(3, "CAP008")]
    found = [(f.line, f.code) for f in run_transcript(INIT + read_refused(1, -32601, "Resource not found"))
             if f.code in ("RS004", "CAP008")]
    assert found == [(3, "RS004")]


def test_method_not_found_is_right_when_resources_are_undeclared():
    assert rs('# init 2025-06-18 C={} S={"tools":{}}\n' + read_refused(1, -32601, "Resource not found")) == []


def test_modern_method_not_found_for_a_missing_resource():
    discover = (f'C→S {{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{{{MODERN_META}}}}}\n'
                'S→C {"jsonrpc":"2.0","id":"d","result":{"resultType":"complete","supportedVersions":["2026-07-28"],'
                '"capabilities":{"resources":{}},"ttlMs":0,"cacheScope":"public",'
                '"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}\n')
    found = [(f.line, f.code, f.severity.value, f.confidence)
             for f in run_transcript(discover + read_refused(1, -32601, "Resource not found", modern=True))
             if f.code == "RS004"]
    assert found == [(4, "RS004", "error", "low")]
    assert rs(read_refused(1, -32601, "Resource not found", modern=True)) == []  # capabilities unknown

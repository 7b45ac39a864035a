"""``_meta`` rules (MT001-MT005): generated spec-valid ``_meta`` draws nothing, targeted
mutations draw the expected code, each revision judged by its own reserved-prefix rule."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.rules.meta import (
    baggage_problem,
    key_problem,
    reserved_prefix,
    traceparent_problem,
    tracestate_problem,
)
from tests.clientfeatures import ALL, MODERN, Script, findings

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEYED = ("2025-06-18", "2025-11-25", MODERN)

label = st.from_regex(r"[a-z]([a-z0-9-]{0,6}[a-z0-9])?", fullmatch=True).filter(lambda s: s not in ("mcp", "modelcontextprotocol"))
name = st.from_regex(r"([A-Za-z0-9]([A-Za-z0-9._-]{0,8}[A-Za-z0-9])?)?", fullmatch=True)


@st.composite
def key(draw, rev):
    extra = {"2025-06-18": ["io.modelcontextprotocol/vendor-flag", "com.example.mcp/x"],
             "2025-11-25": ["mcp.dev/x", "com.example.mcp/x", "io.modelcontextprotocol/related-task"],
             MODERN: ["mcp.dev/x", "com.example.mcp/x", "io.modelcontextprotocol/logLevel"]}.get(rev, [])
    fixed = ["progressToken", "com.example/trace"] + extra
    if draw(st.booleans()):
        return draw(st.sampled_from(fixed))
    labels = draw(st.lists(label, min_size=0, max_size=3))
    return (".".join(labels) + "/" if labels else "") + draw(name)


@st.composite
def meta(draw, rev):
    value = {k: draw(st.integers(0, 9)) for k in draw(st.lists(key(rev), max_size=4, unique=True))}
    if rev == MODERN and draw(st.booleans()):
        value["traceparent"] = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-0" + draw(st.sampled_from("01"))
        value["tracestate"] = draw(st.sampled_from(["", "rojo=00f067aa0ba902b7", "congo=t61rcWkgMzE, rojo=x@y"]))
        value["baggage"] = draw(st.sampled_from(["userId=alice", "a=1,b=2;prop", "k = v ; p=q"]))
    return value


def build(rev, request_meta, result_meta, extensions=None):
    caps = {"extensions": extensions} if extensions is not None else {}
    script = Script(rev, caps)
    params = {"_meta": {**(script.meta() if script.modern else {}), **request_meta}}
    asked = script.emit("C→S", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params})
    answered = script.emit("S→C", {"jsonrpc": "2.0", "id": 1, "result": script.result({"tools": [], "_meta": result_meta})})
    return script, asked, answered


@st.composite
def case(draw, revisions=ALL):
    rev = draw(st.sampled_from(revisions))
    return rev, draw(meta(rev)), draw(meta(rev))


@SETTINGS
@given(case())
def test_valid_meta_draws_no_finding(c):
    script, _, _ = build(*c, extensions={"io.modelcontextprotocol/tasks": {}, "com.example/x": {}})
    assert findings(script, "MT") == []


MUTATIONS = [
    (ALL, {"_meta": "x"}, "MT001"),
    (KEYED, {"-bad": 1}, "MT002"),
    (KEYED, {"1example.com/x": 1}, "MT002"),
    (KEYED, {"a/b/c": 1}, "MT002"),
    (KEYED, {"com.example/two words": 1}, "MT002"),
    (("2025-11-25", MODERN), {"dev.mcp/x": 1}, "MT003"),
    (("2025-11-25", MODERN), {"io.modelcontextprotocol/vendorFlag": 1}, "MT003"),
    (("2025-06-18",), {"mcp.dev/x": 1}, "MT003"),
    (("2025-06-18",), {"api.modelcontextprotocol.org/x": 1}, "MT003"),
    ((MODERN,), {"traceparent": "abc"}, "MT004"),
    ((MODERN,), {"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}, "MT004"),
    ((MODERN,), {"tracestate": "Rojo=1"}, "MT004"),
    ((MODERN,), {"baggage": "novalue"}, "MT004"),
]


@pytest.mark.parametrize("revisions,bad,code", MUTATIONS, ids=[f"{c}-{next(iter(b))}" for _, b, c in MUTATIONS])
@SETTINGS
@given(data=st.data())
def test_mutations_are_reported(revisions, bad, code, data):
    rev, request_meta, result_meta = data.draw(case(revisions))
    on_result = data.draw(st.booleans())
    target = result_meta if on_result else request_meta
    if code == "MT001":
        script, asked, answered = build(rev, request_meta, result_meta)
        line = answered if on_result else asked
        script.lines[line - 1] = script.lines[line - 1].replace('"_meta":{', '"_meta":"x","_unused":{', 1)
    else:
        target.update(bad)
        script, asked, answered = build(rev, request_meta, result_meta)
        line = answered if on_result else asked
    got = {(f.line, f.code) for f in findings(script, "MT")}
    assert (line, code) in got, (script.text(), got)


@SETTINGS
@given(st.sampled_from(["tasks", "-x/y", "com.example/", "com.example/bad name"]))
def test_extension_ids_need_a_prefix(bad):
    script, asked, _ = build(MODERN, {}, {}, extensions={bad: {}})
    expected = [] if bad == "com.example/" else [(asked, "MT005")]
    assert [(f.line, f.code) for f in findings(script, "MT")] == expected


def test_repeated_client_capabilities_report_once():
    script = Script(MODERN, {"extensions": {"tasks": {}}})
    for i in (1, 2):
        script.emit("C→S", {"jsonrpc": "2.0", "id": i, "method": "tools/list", "params": {"_meta": script.meta()}})
    assert [f.code for f in findings(script, "MT")] == ["MT005"]


@pytest.mark.parametrize("rev", ["2024-11-05", "2025-03-26"])
def test_key_rules_start_with_2025_06_18(rev):
    script, _, _ = build(rev, {"-bad": 1, "mcp.dev/x": 2}, {})
    assert findings(script, "MT") == []


def test_reserved_prefix_rules_per_revision():
    assert reserved_prefix("mcp.dev/x", "2025-06-18") and not reserved_prefix("mcp.dev/x", "2025-11-25")
    assert reserved_prefix("dev.mcp/x", "2025-11-25") and not reserved_prefix("dev.mcp/x", "2025-06-18")
    assert reserved_prefix("tools.mcp.com/x", "2025-06-18") and not reserved_prefix("com.example.mcp/x", "2025-11-25")
    assert reserved_prefix("org.modelcontextprotocol.api/x", MODERN)
    assert not reserved_prefix("progressToken", "2025-06-18")


def test_key_syntax_helpers():
    assert key_problem("") is None and key_problem("x/") is None and key_problem("a-1.b/c_d.e-f") is None
    assert key_problem("a-/x") and key_problem("a..b/x") and key_problem("x.") and key_problem("tasks", prefix_required=True)


def test_trace_context_helpers():
    assert traceparent_problem("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01") is None
    assert traceparent_problem("01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-extra") is None
    assert traceparent_problem("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-extra")
    assert traceparent_problem("ff-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01")
    assert traceparent_problem("00-0AF7651916CD43DD8448EB211C80319C-00f067aa0ba902b7-01")
    assert tracestate_problem("") is None and tracestate_problem("a@b=1,c=2 , d=x") is None
    assert tracestate_problem(",".join(f"k{i}=v" for i in range(33)))
    assert baggage_problem("userId=alice,serverNode=DF%2028") is None and baggage_problem("a=b;c")is None
    assert baggage_problem("a b=c") and baggage_problem("a=\"q\"")


def test_several_bad_keys_reported_in_order_after_valid_ones():
    """MT002/MT003 walk the keys once and list only the bad ones, in the object's order."""
    meta = {"ok": 1, "-bad": 1, "dev.mcp/x": 1, "also ok": 1, "dev.mcp/y": 1, "bad-": 1}
    script, _, _ = build("2025-11-25", meta, {})
    messages = {f.code: f.message for f in findings(script, "MT") if f.code in ("MT002", "MT003")}
    rule = " (it must start and end with a letter or digit, with letters, digits, '-', '_' or '.' between)"
    assert messages["MT002"] == ("Invalid params._meta key(s): " + "; ".join(
        f'"{k}" has an invalid name {k!r}{rule}' for k in ("-bad", "also ok", "bad-")))
    assert messages["MT003"].endswith('that the specification does not define: "dev.mcp/x", "dev.mcp/y"')

"""Pagination rules (PA001-PA005): edge cases the pages do not show, and property tests."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.rules.pagination import paginated
from tests.feature_sessions import ALL, Script, cursors, findings, names
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={} S={"tools":{},"prompts":{}}\n'


def pa(text):
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code.startswith("PA")]


def page(i, cursor=None, next_cursor=None, method="tools/list", member="tools"):
    params = f',"params":{{"cursor":"{cursor}"}}' if cursor is not None else ""
    nxt = f',"nextCursor":"{next_cursor}"' if next_cursor is not None else ""
    return (f'C→S {{"jsonrpc":"2.0","id":{i},"method":"{method}"{params}}}\n'
            f'S→C {{"jsonrpc":"2.0","id":{i},"result":{{"{member}":[]{nxt}}}}}\n')


def test_paginated_methods_per_revision():
    assert paginated("tools/list", "2024-11-05")
    assert paginated("tasks/list", "2025-11-25")
    assert not paginated("tasks/list", "2026-07-28")
    assert not paginated("roots/list", "2025-06-18")


def test_cursor_of_another_method_is_named():
    text = INIT + page(1, next_cursor="p2") + page(2, cursor="p2", method="prompts/list", member="prompts")
    found = [f for f in run_transcript(text) if f.code == "PA001"]
    assert [(f.line, f.severity.value) for f in found] == [(4, "error")]
    assert "issued for tools/list" in found[0].message


def test_cursor_reused_in_a_later_session_is_named():
    text = INIT + page(1, next_cursor="p2") + INIT + page(1, cursor="p2")
    found = [f for f in run_transcript(text) if f.code == "PA001"]
    assert len(found) == 1 and "earlier" not in found[0].message and "session 1" in found[0].message


def test_empty_cursor_never_issued_is_info():
    assert pa(INIT + page(1, cursor="")) == [(2, "PA001", "info"), (3, "PA003", "warning")]


def test_modern_empty_string_cursor_is_a_valid_cursor():
    meta = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{}}')
    text = (f'C→S {{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{meta}}}}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"nextCursor":"",'
            '"ttlMs":0,"cacheScope":"public"}}\n'
            f'C→S {{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"cursor":"",{meta}}}}}\n'
            'S→C {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}\n')
    assert pa(text) == []


def test_midstream_cursor_is_low_confidence_and_not_judged_on_the_answer():
    text = page(5, cursor="zz")
    found = [(f.line, f.code, f.confidence) for f in run_transcript(text) if f.code.startswith("PA")]
    assert found == [(1, "PA001", "low")]


def test_expired_cursor_refused_with_other_code_is_info():
    text = INIT + page(1, next_cursor="c1") + (
        'C→S {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c1"}}\n'
        'S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"cursor expired"}}\n')
    assert pa(text) == [(5, "PA003", "info")]


def test_unrelated_errors_on_valid_cursors_are_not_judged():
    text = INIT + page(1, next_cursor="c1") + (
        'C→S {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c1"}}\n'
        'S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"database unavailable"}}\n')
    assert pa(text) == []


def test_cycle_over_two_pages():
    text = INIT + page(1, next_cursor="a") + page(2, cursor="a", next_cursor="b") + page(3, cursor="b", next_cursor="a")
    assert pa(text) == [(7, "PA005", "warning")]


def test_a_new_listing_resets_the_cycle_check():
    text = INIT + page(1, next_cursor="a") + page(2, cursor="a") + page(3, next_cursor="a")
    assert pa(text) == []


def test_custom_methods_with_cursor_are_not_judged():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"acme/search","params":{"cursor":"x"}}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"result":{}}\n')
    assert pa(text) == []


# -- property tests --------------------------------------------------------------------------
LISTS = {
    "tools/list": ("tools", lambda n: {"name": n, "inputSchema": {"type": "object"}}),
    "prompts/list": ("prompts", lambda n: {"name": n}),
    "resources/list": ("resources", lambda n: {"uri": f"file:///{n}", "name": n}),
    "resources/templates/list": ("resourceTemplates", lambda n: {"uriTemplate": f"file:///{n}/{{path}}", "name": n}),
}
CAPS = {"tools": {}, "prompts": {}, "resources": {}}


@st.composite
def paged_sessions(draw) -> Script:
    """Sessions that page through list methods, each cursor passed back as issued."""
    script = Script(draw(st.sampled_from(ALL)), server_caps=CAPS)
    for method in draw(st.lists(st.sampled_from(sorted(LISTS)), max_size=4)):
        member, item = LISTS[method]
        pages = draw(st.lists(cursors, min_size=0, max_size=4, unique=True))
        cursor = None
        for number, next_cursor in enumerate([*pages, None]):
            result = {member: [item(f"{draw(names)}_{number}")]}
            if next_cursor is not None:
                result["nextCursor"] = next_cursor
            script.call(method, {"cursor": cursor} if cursor is not None else None, result, cache=True)
            cursor = next_cursor
    return script


def issue(script: Script, cursor: str) -> None:
    script.call("tools/list", None, {"tools": [], "nextCursor": cursor}, cache=True)


def mutate(script: Script, how: str) -> tuple[Script, int, str]:
    if how == "modified":
        issue(script, "c1")
        index = script.request("tools/list", {"cursor": "c1x"})
        script.error(index, -32602, "Invalid cursor")
        return script, script.line(index), "PA001"
    if how == "null":
        _, answer = script.call("tools/list", None, {"tools": [], "nextCursor": None}, cache=True)
        return script, script.line(answer), "PA002"
    if how == "accepted":
        _, answer = script.call("tools/list", {"cursor": "never-issued"}, {"tools": []}, cache=True)
        return script, script.line(answer), "PA003"
    if how == "non-paginated":
        index, _ = script.call("resources/read", {"uri": "file:///a", "cursor": "x"},
                               {"contents": [{"uri": "file:///a", "text": "a"}]}, cache=True)
        return script, script.line(index), "PA004"
    issue(script, "c1")
    _, answer = script.call("tools/list", {"cursor": "c1"}, {"tools": [], "nextCursor": "c1"}, cache=True)
    return script, script.line(answer), "PA005"


@settings(max_examples=50, deadline=None)
@given(paged_sessions())
def test_generated_paging_draws_no_pagination_finding(script):
    assert findings(script, "PA") == []


@settings(max_examples=50, deadline=None)
@given(paged_sessions(), st.sampled_from(["modified", "null", "accepted", "non-paginated", "loop"]))
def test_targeted_pagination_mutations_are_reported(script, how):
    script, line, code = mutate(script, how)
    found = {(line_, code_) for line_, code_, _ in findings(script, "PA")}
    assert (line, code) in found, found

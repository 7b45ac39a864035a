"""Tool rules (TL001-TL005, TL008-TL015, TL017, TL018): edge cases and hypothesis properties.

Property: generated spec-valid tools sessions of every revision draw no SV or TL finding, and
each targeted mutation of such a session draws the expected code.
"""

from __future__ import annotations

import copy

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint import protocol
from mcplint.analysis.engine import Engine
from mcplint.model import Severity
from mcplint.rules import all_rules
from mcplint.rules.tools import base64_problem, header_annotations, header_problems
from tests.ruledocs import run_transcript
from tests.tool_sessions import ToolSession, at_least, tool_sessions

MODERN_META = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
               '"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":'
               '{"name":"c","version":"1"}}')
RESULT_META = '"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}'


def family(text: str, prefixes=("SV", "TL")) -> list[tuple[int, str, str, str]]:
    return [(f.line, f.code, f.severity.value, f.confidence)
            for f in run_transcript(text) if f.code[:2] in prefixes]


def codes(text: str) -> set[str]:
    return {code for _, code, _, _ in family(text)}


def listing(version: str, tools: list[dict], extra: str = "") -> str:
    return (f'# init {version} C={{}} S={{"tools":{{"listChanged":true}}}}\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
            f'S→C {{"jsonrpc":"2.0","id":1,"result":{{"tools":{orjson.dumps(tools).decode()}}}}}\n' + extra)


def call(id_: int, name: str, arguments: dict, result: dict | str) -> str:
    answer = result if isinstance(result, str) else '"result":' + orjson.dumps(result).decode()
    return (f'C→S {{"jsonrpc":"2.0","id":{id_},"method":"tools/call","params":'
            f'{{"name":"{name}","arguments":{orjson.dumps(arguments).decode()}}}}}\n'
            f'S→C {{"jsonrpc":"2.0","id":{id_},{answer}}}\n')


WEATHER = {"name": "weather", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                                              "required": ["city"]},
           "outputSchema": {"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t"]}}
OK = {"content": [{"type": "text", "text": '{"t":21}'}], "structuredContent": {"t": 21}}


# -- properties -----------------------------------------------------------------------------
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_sessions())
def test_valid_tool_sessions_draw_no_sv_or_tl_finding(session):
    assert family(session.render()) == [], session.render()


def _mutations(session: ToolSession):
    """(name, expected code, mutate) for the mutations that apply to ``session``."""
    v = session.version
    out = []

    def drop_name(s):
        del s.calls[0].request["params"]["name"]
    out.append(("drop tools/call name", "SV001", drop_name))

    def drop_input_schema(s):
        del s.listing["result"]["tools"][0]["inputSchema"]
    out.append(("drop inputSchema", "TL001", drop_input_schema))

    def rename_tools(s):
        s.listing["result"]["items"] = s.listing["result"].pop("tools")
    out.append(("tools/list result without tools", "SV003", rename_tools))

    def bad_base64(s):
        s.calls[0].result["result"]["content"] = [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]
        s.calls[0].result["result"].pop("isError", None)
    out.append(("image data not base64", "TL015", bad_base64))

    def no_mime(s):
        s.calls[0].result["result"]["content"].append({"type": "image", "data": "AAAA"})
    out.append(("image without mimeType", "TL015", no_mime))

    def unknown_block(s):
        s.calls[0].result["result"]["content"].append({"type": "video", "url": "https://x.example/v"})
    out.append(("unknown content block type", "TL014", unknown_block))

    def drop_content(s):
        del s.calls[0].result["result"]["content"]
    out.append(("result without content", "TL014", drop_content))

    def broken_schema(s):
        s.listing["result"]["tools"][0]["inputSchema"]["properties"]["zz"] = {"type": "strng"}
    out.append(("inputSchema with unknown type name", "TL002", broken_schema))

    def progress_without_value(s):
        s.lines.insert(3, ("S", {"jsonrpc": "2.0", "method": "notifications/progress",
                                 "params": {"progressToken": "p0"}}))
        s.calls[0].request["params"].setdefault("_meta", {})["progressToken"] = "p0"
    out.append(("progress without progress", "SV002", progress_without_value))

    required = [c for c in session.calls if c.tool["inputSchema"].get("required")]
    if required:
        def drop_required_argument(s):
            c = next(c for c in s.calls if c.tool["inputSchema"].get("required"))
            c.request["params"]["arguments"].pop(c.tool["inputSchema"]["required"][0], None)
        out.append(("required argument missing", "TL008", drop_required_argument))

    if not at_least(v, protocol.V2025_06_18):
        def structured_early(s):
            s.calls[0].result["result"]["structuredContent"] = {"a": 1}
        out.append(("structuredContent before 2025-06-18", "TL012", structured_early))

        def elicit_early(s):
            s.lines.append(("S", {"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": {
                "message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}))
            s.lines.append(("C", {"jsonrpc": "2.0", "id": "e1", "error": {"code": -32601, "message": "nope"}}))
        out.append(("elicitation/create before 2025-06-18", "SV004", elicit_early))

    if v == protocol.V2024_11_05:
        def audio_early(s):
            s.calls[0].result["result"]["content"].append({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"})
        out.append(("audio block in 2024-11-05", "TL014", audio_early))

    with_output = [c for c in session.calls if "outputSchema" in c.tool and not c.result["result"].get("isError")]
    if with_output:
        def drop_structured(s):
            c = next(c for c in s.calls if "outputSchema" in c.tool and not c.result["result"].get("isError"))
            del c.result["result"]["structuredContent"]
        out.append(("structuredContent missing", "TL010", drop_structured))

        def wrong_structured(s):
            c = next(c for c in s.calls if "outputSchema" in c.tool and not c.result["result"].get("isError"))
            c.tool["outputSchema"]["properties"]["zz"] = {"type": "integer"}
            c.tool["outputSchema"]["required"] = ["zz"]
            c.result["result"]["structuredContent"]["zz"] = "not an integer"
        out.append(("structuredContent against outputSchema", "TL011", wrong_structured))

        def drop_mirror(s):
            c = next(c for c in s.calls if "outputSchema" in c.tool and not c.result["result"].get("isError"))
            c.result["result"]["content"] = [b for b in c.result["result"]["content"] if b["type"] != "text"]
        out.append(("no text mirror", "TL013", drop_mirror))

        if not session.modern:
            def array_structured(s):
                c = next(c for c in s.calls if "outputSchema" in c.tool and not c.result["result"].get("isError"))
                c.result["result"]["structuredContent"] = [1, 2]
            out.append(("structuredContent not an object", "TL012", array_structured))

    if at_least(v, protocol.V2025_11_25):
        def spaced_name(s):
            tool = s.listing["result"]["tools"][0]
            old = tool["name"]
            tool["name"] = old + " x"
            for c in s.calls:
                if c.request["params"]["name"] == old:
                    c.request["params"]["name"] = tool["name"]
        out.append(("tool name with a space", "TL004", spaced_name))

        def duplicate(s):
            s.listing["result"]["tools"].append(copy.deepcopy(s.listing["result"]["tools"][0]))
        out.append(("duplicate tool", "TL005", duplicate))

    if session.modern:
        def ping(s):
            s.lines.append(("C", s.request("ping-1", "ping")))
        out.append(("ping in 2026-07-28", "SV004", ping))

        def header_on_number(s):
            s.listing["result"]["tools"][0]["inputSchema"]["properties"]["n"] = {"type": "number",
                                                                                 "x-mcp-header": "N"}
        out.append(("x-mcp-header on a number", "TL018", header_on_number))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_sessions(), st.data())
def test_each_mutation_draws_its_code(session, data):
    name, expected, mutate = data.draw(st.sampled_from(_mutations(session)), label="mutation")
    mutate(session)
    text = session.render()
    assert expected in codes(text), f"{name}: expected {expected}\n{text}\n{family(text)}"


# -- TL001-TL005 ----------------------------------------------------------------------------
def test_tool_definitions_with_extra_members_are_fine():
    tools = [{"name": "a", "title": "A", "description": "d", "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "additionalProperties": False},
        "annotations": {"readOnlyHint": True}, "icons": [{"src": "https://x.example/i.png"}],
        "execution": {"taskSupport": "optional"}, "x-vendor": 1}]
    for version in protocol.VERSIONS[:4]:
        assert family(listing(version, tools)) == []


def test_tl001_reports_every_problem_of_an_entry_once():
    found = family(listing("2025-06-18", [{"inputSchema": {"type": "array", "properties": [], "required": "a"}},
                                          "t2"]))
    assert [(line, code) for line, code, _, _ in found] == [(3, "TL001"), (3, "TL001")]


def test_tl002_is_a_warning_before_2025_11_25_and_error_after():
    tools = [{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "strng"}}}}]
    assert family(listing("2025-06-18", tools)) == [(3, "TL002", "warning", "high")]
    assert family(listing("2025-11-25", tools)) == [(3, "TL002", "error", "high")]


def test_tl002_honours_declared_dialect():
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"x": {"type": "string"}}, "definitions": {"d": {"type": "integer"}}}
    assert family(listing("2025-11-25", [{"name": "a", "inputSchema": draft7}])) == []


def test_tl003_legacy_versions_and_modern_any_schema():
    tools = [{"name": "a", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}]
    assert family(listing("2025-06-18", tools)) == [(3, "TL003", "error", "high")]
    modern = ('C→S {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{' + MODERN_META + '}}\n'
              'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":' + orjson.dumps(tools).decode()
              + ',"ttlMs":1,"cacheScope":"public",' + RESULT_META + '}}\n')
    assert family(modern) == []


def test_a_listing_found_clean_is_not_judged_again_but_per_revision(monkeypatch):
    from mcplint.rules import tools as module

    tools = [{"name": "uniq-clean-listing", "inputSchema": {"type": "object", "properties": {
        "tags": {"type": "array", "items": [{"type": "string"}]}}}}]  # tuple items: draft-07 only
    judged = []
    monkeypatch.setattr(module, "definition_problems", lambda tool: judged.append(tool) or [])
    assert codes(listing("2025-06-18", tools)) == set()
    assert codes(listing("2025-06-18", tools)) == set()
    assert len(judged) == 1  # TL001 judged the verbatim listing once
    assert codes(listing("2025-11-25", tools)) == {"TL002"}  # 2020-12: items must be a schema
    assert codes(listing("2025-11-25", tools)) == {"TL002"}  # findings are never remembered


def test_tl004_names_within_the_limits_pass():
    tools = [{"name": "a" * 128, "inputSchema": {"type": "object"}},
             {"name": "ns.tool-name_2", "inputSchema": {"type": "object"}}]
    assert family(listing("2025-11-25", tools)) == []
    too_long = [{"name": "a" * 129, "inputSchema": {"type": "object"}}]
    assert family(listing("2025-11-25", too_long)) == [(3, "TL004", "warning", "high")]
    assert family(listing("2025-06-18", [{"name": "get weather", "inputSchema": {"type": "object"}}])) == []


def test_tl005_a_new_traversal_starts_afresh():
    tools = [{"name": "a", "inputSchema": {"type": "object"}}]
    text = listing("2025-11-25", tools) + ('C→S {"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
                                           'S→C {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}\n')
    assert family(text) == []


def page(id_: int, tools: list[dict], cursor: str | None = None, next_cursor: str | None = None) -> str:
    params = f',"params":{{"cursor":"{cursor}"}}' if cursor is not None else ""
    extra = f',"nextCursor":"{next_cursor}"' if next_cursor is not None else ""
    return (f'C→S {{"jsonrpc":"2.0","id":{id_},"method":"tools/list"{params}}}\n'
            f'S→C {{"jsonrpc":"2.0","id":{id_},"result":{{"tools":{orjson.dumps(tools).decode()}{extra}}}}}\n')


INIT_1125 = '# init 2025-11-25 C={} S={"tools":{}}\n'


def test_tl005_a_page_for_a_cursor_never_issued_continues_no_traversal():
    # the corpus case: a fabricated cursor answered with the first page again (PA001/PA003 say so)
    text = INIT_1125 + page(1, [A, B]) + page(2, [A, B], cursor="not-a-cursor")
    assert "TL005" not in codes(text)


def test_tl005_a_page_fetched_twice_is_not_a_duplicate():
    text = INIT_1125 + page(1, [A], next_cursor="p2") + page(2, [B], cursor="p2") + page(3, [B], cursor="p2")
    assert "TL005" not in codes(text)


def test_tl005_the_issued_cursor_continues_the_traversal():
    text = INIT_1125 + page(1, [A], next_cursor="p2") + page(2, [A, B], cursor="p2")
    assert family(text) == [(5, "TL005", "warning", "high")]


def test_tl005_a_continuation_page_is_judged_even_when_its_text_was_clean_as_a_first_page():
    tools = [{**A, "description": "test_tl005_a_continuation_page"}]
    for _ in range(2):  # the text found clean by every listing rule ("new-listing")
        assert codes(INIT_1125 + page(1, tools)) == set()
    text = INIT_1125 + page(1, tools, next_cursor="p2") + page(2, tools, cursor="p2")
    assert family(text) == [(5, "TL005", "warning", "high")]


def test_a_stray_page_neither_completes_nor_replaces_the_catalog():
    # a capture joining a traversal midway: the last page alone is no complete listing, so a call of a
    # tool it lacks is not judged (TL006, HX007)
    unknown = ('C→S {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"c","arguments":{}}}\n'
               'S→C {"jsonrpc":"2.0","id":5,"result":{"content":[],"isError":true}}\n')
    midway = INIT_1125 + page(1, [B], cursor="p2") + unknown
    assert codes(midway) == set()
    assert [f.code for f in run_transcript(midway) if f.code == "HX007"] == []
    # once a complete listing is known, a stray page leaves it current
    listed = INIT_1125 + page(1, [A, B]) + page(2, [A], cursor="bogus") + unknown
    assert "TL006" in {f.code for f in run_transcript(listed)}


# -- TL008/TL009 ----------------------------------------------------------------------------
ADD = {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]}}


def test_no_listing_means_no_argument_checks():
    text = '# init 2025-06-18 C={} S={"tools":{}}\n' + call(1, "add", {}, {"content": []})
    assert family(text) == []


def test_missing_arguments_count_as_empty_object():
    text = listing("2025-06-18", [ADD]) + ('C→S {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add"}}\n'
                                           'S→C {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"a required"}}\n')
    assert family(text) == [(4, "TL008", "warning", "high")]


def test_stale_listing_lowers_confidence():
    text = listing("2025-06-18", [ADD], 'S→C {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n') \
        + call(2, "add", {}, '"error":{"code":-32602,"message":"a required"}')
    assert family(text) == [(5, "TL008", "warning", "low")]


def test_tl009_channel_per_version():
    iserror = {"content": [{"type": "text", "text": "a is required"}], "isError": True}
    assert family(listing("2025-11-25", [ADD]) + call(2, "add", {}, iserror)) == [(4, "TL008", "warning", "high")]
    protocol_error = '"error":{"code":-32602,"message":"a is required"}'
    assert family(listing("2025-06-18", [ADD]) + call(2, "add", {}, protocol_error)) == [(4, "TL008", "warning", "high")]
    internal = '"error":{"code":-32603,"message":"crashed"}'
    assert ("TL009" not in codes(listing("2025-11-25", [ADD]) + call(2, "add", {}, internal)))


def test_tl009_judges_the_arguments_by_the_listing_at_the_answer_even_without_tl008():
    """TL009 reuses TL008's verdict only for the same listed schema ("odd-answer" feature): a new
    listing between call and answer is judged afresh, and without TL008 TL009 judges alone."""
    loose = {"name": "add", "inputSchema": {"type": "object"}}
    relisted = listing("2025-06-18", [loose]) + (
        'C→S {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{}}}\n'
        'C→S {"jsonrpc":"2.0","id":3,"method":"tools/list"}\n'
        f'S→C {{"jsonrpc":"2.0","id":3,"result":{{"tools":[{orjson.dumps(ADD).decode()}]}}}}\n'
        'S→C {"jsonrpc":"2.0","id":2,"result":{"content":[]}}\n')
    assert [code for _, code, _, _ in family(relisted)] == ["TL009"]
    alone = Engine([rule for rule in all_rules() if rule.code == "TL009"])
    found = run_transcript(listing("2025-06-18", [ADD]) + call(2, "add", {}, {"content": []}), alone)
    assert [f.code for f in found] == ["TL009"]


def test_valid_arguments_with_integer_valued_floats_pass():
    tool = {"name": "n", "inputSchema": {"type": "object", "properties": {"k": {"type": "integer"}}}}
    assert family(listing("2025-11-25", [tool]) + call(2, "n", {"k": 3.0}, {"content": []})) == []


# -- TL010-TL013 ----------------------------------------------------------------------------
def test_structured_output_rules_are_quiet_on_iserror_results():
    failed = {"content": [{"type": "text", "text": "boom"}], "isError": True}
    assert family(listing("2025-06-18", [WEATHER]) + call(2, "weather", {"city": "Oslo"}, failed)) == []


def test_invalid_structured_content_on_an_error_result_is_a_warning():
    failed = {"content": [{"type": "text", "text": "{}"}], "structuredContent": {"t": "x"}, "isError": True}
    found = family(listing("2025-06-18", [WEATHER]) + call(2, "weather", {"city": "Oslo"}, failed))
    assert found == [(5, "TL011", "warning", "high")]


def test_task_results_are_left_to_the_task_rules():
    task = {"task": {"taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:00:00Z",
                     "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 60000}}
    text = listing("2025-11-25", [WEATHER]) + call(2, "weather", {"city": "Oslo"}, task)
    assert not {c for c in codes(text) if c in ("SV003", "TL010", "TL014")}


def test_structured_content_of_unlisted_tool_is_not_judged():
    mirrored = {"content": [{"type": "text", "text": '{"t": "x"}'}], "structuredContent": {"t": "x"}}
    text = '# init 2025-06-18 C={} S={"tools":{}}\n' + call(1, "weather", {}, mirrored)
    assert family(text) == []


def mirror(text: str | list[str], structured, version: str = "2025-11-25") -> list:
    texts = [text] if isinstance(text, str) else text
    result = {"content": [{"type": "text", "text": t} for t in texts], "structuredContent": structured}
    return [(f.line, f.code, f.severity.value, f.confidence, f.message)
            for f in run_transcript(listing(version, [WEATHER]) + call(2, "weather", {"city": "Oslo"}, result))
            if f.code == "TL013"]


def test_tl013_the_text_mirror_is_compared_as_parsed_json():
    pretty = '{\n  "unit": "C",\n  "t": 21.0\n}'
    assert mirror(pretty, {"t": 21, "unit": "C"}) == []  # key order, spacing and 21 vs 21.0 are free
    assert mirror(["Oslo: 21 C", '{"t":21}'], {"t": 21}) == []  # any text block may be the mirror
    assert mirror(" [1, 2]", [1, 2], protocol.V2026_07_28) == []


def test_tl013_text_that_is_not_the_serialized_json_is_info():
    # fastmcp and the Python SDK wrap a bare return value in {"result": ...} and send it as text alone
    (found,) = mirror("5", {"result": 5})
    assert found[:4] == (5, "TL013", "info", "low")
    assert found[4].startswith("structuredContent is not serialized in a text block: content[0] holds '5', "
                               "the bare value of structuredContent.result")
    (found,) = mirror(["It is 21 degrees", "in Oslo"], {"t": 21})
    assert "content[0] holds text that is not JSON: 'It is 21 degrees' (and 1 more text blocks)" in found[4]
    (found,) = mirror('{"t": 22}', {"t": 21})
    assert "content[0] holds other JSON" in found[4]


def test_tl013_the_text_note_is_made_once_per_session_but_a_missing_block_every_time():
    bare = {"content": [{"type": "text", "text": "5"}], "structuredContent": {"result": 5}}
    bare_again = {"content": [{"type": "text", "text": "6"}], "structuredContent": {"result": 6}}
    no_text = {"content": [], "structuredContent": {"t": 21}}
    text = (listing("2025-11-25", [WEATHER]) + call(2, "weather", {"city": "Oslo"}, bare)
            + call(3, "weather", {"city": "Rome"}, bare_again) + call(4, "weather", {"city": "Nice"}, no_text)
            + call(5, "weather", {"city": "Bern"}, no_text))
    assert [(f.line, f.severity.value) for f in run_transcript(text) if f.code == "TL013"] == [
        (5, "info"), (9, "warning"), (11, "warning")]


def test_tl013_a_missing_text_block_stays_a_warning():
    assert [f[:4] for f in mirror([], {"t": 21})] == [(5, "TL013", "warning", "high")]


def test_tl013_large_or_many_candidates_give_no_verdict():
    big = '{"t": 21, "pad": "' + "x" * (1 << 20) + '"}'
    assert mirror(big, {"t": 21}) == []
    assert mirror(['{"n": %d}' % i for i in range(9)], {"t": 21}) == []
    assert len(mirror(['{"n": %d}' % i for i in range(8)], {"t": 21})) == 1


def test_modern_structured_content_may_be_any_json_value():
    tool = dict(WEATHER, outputSchema={"type": "array", "items": {"type": "integer"}})
    text = ('C→S {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{' + MODERN_META + '}}\n'
            'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[' + orjson.dumps(tool).decode()
            + '],"ttlMs":1,"cacheScope":"public",' + RESULT_META + '}}\n'
            'C→S {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weather","arguments":{"city":"x"},'
            + MODERN_META + '}}\n'
            'S→C {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"[1,2]"}],'
            '"structuredContent":[1,2],' + RESULT_META + '}}\n')
    assert family(text) == []


# -- TL014/TL015 ----------------------------------------------------------------------------
def test_empty_content_is_valid_and_sampling_blocks_are_not():
    tools = [{"name": "x", "inputSchema": {"type": "object"}}]
    assert family(listing("2025-11-25", tools) + call(2, "x", {}, {"content": []})) == []
    tool_use = {"content": [{"type": "tool_use", "id": "u", "name": "x", "input": {}}]}
    assert family(listing("2025-11-25", tools) + call(2, "x", {}, tool_use)) == [(5, "TL014", "error", "high")]


@pytest.mark.parametrize("data,expected", [
    ("", None), ("AAAA", None), ("iVBORw0KGgo=", None),
    ("iVBORw0KGgo", (Severity.WARNING, "lacks '=' padding")),
    ("iVBO\nRw0K", (Severity.WARNING, "contains whitespace or line breaks")),
    ("ab-_", (Severity.ERROR, "is base64url (with '-' and '_'), not base64")),
    ("not base64!", (Severity.ERROR, "is not valid base64")),
    ("é", (Severity.ERROR, "is not valid base64")),
])
def test_base64_problem(data, expected):
    assert base64_problem(data) == expected


def test_embedded_resource_blob_and_mime_type_format():
    result = {"content": [{"type": "resource", "resource": {"uri": "file:///a", "blob": "%%%"}},
                          {"type": "image", "data": "AAAA", "mimeType": "png"}]}
    text = listing("2025-06-18", [{"name": "x", "inputSchema": {"type": "object"}}]) + call(2, "x", {}, result)
    found = [f for f in run_transcript(text) if f.code == "TL015"]
    assert len(found) == 1 and found[0].severity is Severity.ERROR
    assert "content[0].resource.blob is not valid base64" in found[0].message
    assert "content[1].mimeType 'png'" in found[0].message


def test_content_kinds_lists_each_blocks_type_or_none():
    from mcplint.model import Direction
    from mcplint.rules.tools import content_kinds

    class Rec:  # content_kinds reads the direction and the message only
        def __init__(self, msg, direction=Direction.S2C):
            self.msg, self.direction = msg, direction

    blocks = [{"type": "text", "text": "a"}, "x", {"type": 3}, {"text": "b"}, {"type": "image"}]
    assert content_kinds(Rec({"result": {"content": blocks}})) == ("text", None, None, None, "image")
    from collections import OrderedDict  # readers may hand over dict subclasses: judged alike
    assert content_kinds(Rec({"result": OrderedDict(content=blocks[:1])})) == ("text",)
    assert content_kinds(Rec({"result": {"content": {}}})) is None
    assert content_kinds(Rec({"result": {}})) is None
    assert content_kinds(Rec({"result": {"content": []}}, Direction.C2S)) is None


def test_tl014_tl015_gates_keep_a_bad_block_after_good_ones():
    # gate edges: TL014 skips results whose every block type is defined, TL015 results without
    # image/audio/resource blocks; a bad block behind plain text blocks is still reported
    tools = [{"name": "x", "inputSchema": {"type": "object"}}]
    odd = {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}, ["not", "a", "block"]]}
    assert family(listing("2025-11-25", tools) + call(2, "x", {}, odd)) == [(5, "TL014", "error", "high")]
    early = {"content": [{"type": "text", "text": "a"}, {"type": "resource_link", "uri": "file:///a", "name": "a"}]}
    assert codes(listing("2025-03-26", tools) + call(2, "x", {}, early)) == {"TL014"}
    image = {"content": [{"type": "text", "text": "a"}, {"type": "image", "data": "%%%", "mimeType": "image/png"}]}
    assert family(listing("2025-11-25", tools) + call(2, "x", {}, image)) == [(5, "TL015", "error", "high")]
    plain = {"content": [{"type": "text", "text": "a", "data": "%%%", "blob": "%%%"}]}
    assert family(listing("2025-11-25", tools) + call(2, "x", {}, plain)) == []


# -- TL017/TL018 ----------------------------------------------------------------------------
def modern_list(id_: int, tools: list[dict], cursor: str | None = None, next_cursor: str | None = None) -> str:
    params = '"params":{' + (f'"cursor":"{cursor}",' if cursor else "") + MODERN_META + "}"
    extra = f',"nextCursor":"{next_cursor}"' if next_cursor else ""
    return (f'C→S {{"jsonrpc":"2.0","id":{id_},"method":"tools/list",{params}}}\n'
            f'S→C {{"jsonrpc":"2.0","id":{id_},"result":{{"resultType":"complete","tools":{orjson.dumps(tools).decode()}'
            f'{extra},"ttlMs":1,"cacheScope":"public",{RESULT_META}}}}}\n')


A = {"name": "a", "inputSchema": {"type": "object"}}
B = {"name": "b", "inputSchema": {"type": "object"}}


def test_tl017_list_change_notification_explains_a_new_list():
    notify = 'S→C {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
    assert family(modern_list(1, [A]) + notify + modern_list(2, [A, B])) == []
    assert family(modern_list(1, [A]) + modern_list(2, [A, B])) == [(4, "TL017", "warning", "low")]


def test_tl017_compares_whole_traversals():
    paged = modern_list(1, [A], next_cursor="p2") + modern_list(2, [B], cursor="p2")
    again = modern_list(3, [A, B])
    assert family(paged + again) == []


def test_tl017_a_page_for_a_cursor_never_issued_is_no_listing():
    stray = modern_list(1, [A]) + modern_list(2, [B], cursor="not-a-cursor")
    assert "TL017" not in codes(stray)
    midway = modern_list(1, [A], cursor="p2") + modern_list(2, [A, B])
    assert "TL017" not in codes(midway)


def test_tl017_is_modern_only():
    text = listing("2025-11-25", [A]) + ('C→S {"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
                                         'S→C {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n')
    assert "TL017" not in codes(text)


def test_x_mcp_header_reachability_and_types():
    schema = {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "opts": {"type": "object", "properties": {"flag": {"type": ["boolean", "null"], "x-mcp-header": "Flag"}}},
        "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
        "x-mcp-header": {"type": "string"}}}
    found = {path: reachable for path, _, _, reachable in header_annotations(schema)}
    assert found == {("properties", "region"): True, ("properties", "opts", "properties", "flag"): True,
                     ("properties", "list", "items"): False}
    problems = header_problems(schema)
    assert len(problems) == 1 and "not reachable" in problems[0][1]


@pytest.mark.parametrize("value,fragment", [
    ("", "is empty"), ("A B", "not an HTTP field-name token"), ("A\nB", "control characters"), (7, "not a string"),
])
def test_x_mcp_header_value_rules(value, fragment):
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": value}}}
    assert any(fragment in text for _, text in header_problems(schema))


def test_x_mcp_header_without_type_is_a_warning_and_legacy_ignores_it():
    tool = {"name": "q", "inputSchema": {"type": "object", "properties": {"a": {"enum": ["x"], "x-mcp-header": "A"}}}}
    assert family(modern_list(1, [tool])) == [(2, "TL018", "warning", "high")]
    assert family(listing("2025-11-25", [tool])) == []


def test_equal_schemas_share_their_compiled_validator():
    from mcplint.rules import tools

    schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    same = orjson.loads(orjson.dumps(schema))  # the next session lists the same tool
    reordered = {"properties": schema["properties"], "type": "object"}
    first = tools._cached("validator", schema, "2025-06-18", tools._validator)
    assert first is not None
    assert tools._cached("validator", same, "2025-06-18", tools._validator) is first
    assert tools._cached("validator", reordered, "2025-06-18", tools._validator) is not first
    assert tools._cached("validator", same, "2025-11-25", tools._validator) is not first  # 2020-12
    assert tools.instance_errors(same, {"x": 1}, "2025-06-18") == [(("x",), "1 is not of type 'string'")]
    assert tools.meta_errors({"type": "nope"}, "2025-06-18")
    assert tools.instance_errors({"type": "nope"}, 1, None) is None


def test_a_schema_listed_in_many_sessions_is_meta_validated_once(monkeypatch):
    from mcplint.rules import tools

    builds = []
    original = tools._meta_errors
    monkeypatch.setattr(tools, "_meta_errors", lambda schema, revision: builds.append(1) or original(schema, revision))
    texts = [orjson.dumps({"type": "object", "properties": {"q": {"type": kind, "title": "once-per-text"}}})
             for kind in ("string", "integer", "boolean")]
    for _ in range(1000):  # each session's listing parses new, equal schema objects
        for text in texts:
            assert tools.meta_errors(orjson.loads(text), "2025-11-25") == []
    assert len(builds) == len(texts)


def test_verdicts_keep_the_instances_member_order():
    from mcplint.rules import tools

    schema = {"type": "object", "propertyNames": {"maxLength": 1}}  # errors follow the members
    first = tools.instance_errors(schema, {"bb": 1, "cc": 2}, "2025-11-25")
    second = tools.instance_errors(schema, {"cc": 2, "bb": 1}, "2025-11-25")
    assert [m for _, m in first] == ["'bb' is too long", "'cc' is too long"]
    assert [m for _, m in second] == ["'cc' is too long", "'bb' is too long"]


def test_verdicts_of_large_instances_are_not_kept():
    from mcplint.rules import tools

    schema = {"type": "object", "properties": {"body": {"type": "string", "title": "large-instance"}}}
    for size in (10, tools._VERDICT_TEXT + 1):
        tools.instance_errors(schema, {"body": "x" * size}, "2025-11-25")
    kept = [key[1] for key in tools._VERDICTS if key[0] == tools.schema_key(schema, "2025-11-25")]
    assert kept == [orjson.dumps({"body": "x" * 10})]


def test_plain_call_results_do_not_build_call_result(monkeypatch):
    """A text result of a tool without outputSchema is judged without tools.call_result (TL010
    asks it only for tools with an outputSchema, TL011-TL013 only with structuredContent, TL014
    only for a block type the revision does not define); the gates' edges still report."""
    from mcplint.rules import tools

    built = []
    original = tools.call_result
    monkeypatch.setattr(tools, "call_result", lambda record: built.append(record.line) or original(record))
    plain = {"name": "echo", "inputSchema": {"type": "object"}}
    text = listing("2025-06-18", [plain, WEATHER],
                   call(2, "echo", {}, {"content": [{"type": "text", "text": "hi"}], "isError": False}))
    assert codes(text) == set() and built == []
    edges = listing("2025-06-18", [plain, WEATHER],
                    call(2, "weather", {"city": "Oslo"}, {"content": [{"type": "text", "text": "21"}]})
                    + call(3, "echo", {}, {"content": [{"type": "video"}]})
                    + call(4, "weather", {"city": "Oslo"}, {**OK, "structuredContent": {"t": "warm"}}))
    assert {(line, code) for line, code, _, _ in family(edges)} >= {(5, "TL010"), (7, "TL014"), (9, "TL011")}


# -- the schemas' JSON texts (issue 16) ------------------------------------------------------
def test_a_session_listing_a_known_catalog_serializes_no_schema(monkeypatch):
    """TL008/TL009/TL011 key their verdicts by a schema's JSON text: a session listing a catalog
    that an earlier session listed verbatim takes the texts from there, so its first call of each
    tool does not serialize the tool's schema; the verdicts stay the session's own."""
    from types import SimpleNamespace

    from mcplint.rules import tools

    schema = {"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}},
              "$comment": "test_a_session_listing_a_known_catalog"}
    output = {"type": "object", "properties": {"n": {"type": "integer"}}, "$comment": "output schema"}
    listing = {"tools": [{"name": "find", "inputSchema": schema, "outputSchema": output}]}
    session = "\n".join([
        "# init 2025-06-18 C={} S={\"tools\":{}}",
        'C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        'S→C {"jsonrpc":"2.0","id":1,"result":' + orjson.dumps(listing).decode() + "}",
        'C→S {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find","arguments":{"q":%s}}}',
        'S→C {"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":%s}}}',
    ])
    dumped = []
    real = orjson.dumps
    monkeypatch.setattr(tools, "orjson", SimpleNamespace(
        dumps=lambda value, *a, **k: dumped.append(value) or real(value, *a, **k), loads=orjson.loads))
    codes = ("TL008", "TL009", "TL011")
    first = [(f.line, f.code) for f in run_transcript(session % (1, '"x"')) if f.code in codes]
    assert first == [(4, "TL008"), (5, "TL009"), (5, "TL011")]
    assert schema in dumped and output in dumped
    dumped.clear()
    second = [(f.line, f.code) for f in run_transcript(session % ('"x"', 1)) if f.code in codes]
    assert second == []
    assert schema not in dumped and output not in dumped


def test_arguments_a_simple_schema_accepts_are_not_validated(monkeypatch):
    """TL008: arguments that the listed inputSchema's simple-schema acceptor vouches for draw no
    jsonschema validation; others are validated and reported as before (TL009 on the answer)."""
    from mcplint.rules import tools

    validated = []
    original = tools.instance_errors
    monkeypatch.setattr(tools, "instance_errors",
                        lambda schema, value, *a, **k: validated.append(value) or original(schema, value, *a, **k))
    schema = {"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}}
    session = "\n".join([
        "# init 2025-06-18 C={} S={\"tools\":{}}",
        'C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        'S→C {"jsonrpc":"2.0","id":1,"result":' + orjson.dumps({"tools": [{"name": "find", "inputSchema": schema}]}
                                                               ).decode() + "}",
        'C→S {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find","arguments":{"q":"x","n":2}}}',
        'S→C {"jsonrpc":"2.0","id":2,"result":{"content":[]}}',
        'C→S {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find","arguments":{"q":"x","n":2.0}}}',
        'S→C {"jsonrpc":"2.0","id":3,"result":{"content":[]}}',
        'C→S {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"find","arguments":{"n":"2"}}}',
        'S→C {"jsonrpc":"2.0","id":4,"result":{"content":[]}}',
    ])
    found = [(f.line, f.code) for f in run_transcript(session) if f.code in ("TL008", "TL009")]
    assert found == [(8, "TL008"), (9, "TL009")]
    assert validated == [{"q": "x", "n": 2.0}, {"n": "2"}]  # 2.0 is an integer to jsonschema


def test_a_listing_every_listing_rule_found_clean_is_not_judged_again(monkeypatch):
    """TL001-TL004 judge a listing by its text and revision alone: once each found a text clean,
    none is called on it again ("new-listing"); a text that drew a finding is judged (and
    reported) in every session, and every rule is called on any text while one is not selected."""
    from mcplint.rules import REGISTRY

    calls = []
    for code in ("TL001", "TL002", "TL003", "TL004"):
        cls = REGISTRY[code]
        monkeypatch.setattr(cls, "check", lambda self, record, session, _check=cls.check:
                            calls.append(self.code) or _check(self, record, session))
    tool = {"name": "clean", "inputSchema": {"type": "object"}, "description": "test_a_listing_every_listing"}
    bad = {**tool, "name": "bad name"}  # TL004
    for _ in range(3):
        assert codes(listing("2025-11-25", [tool])) == set()
    assert sorted(calls) == ["TL001", "TL002", "TL003", "TL004"]
    calls.clear()
    assert [codes(listing("2025-11-25", [bad])) for _ in range(3)] == [{"TL004"}] * 3
    assert sorted(calls) == sorted(["TL001", "TL002", "TL003", "TL004"] * 3)  # (the others from their own cache)
    calls.clear()
    selected = Engine(rules=[r for r in all_rules() if r.code != "TL003"])
    text = listing("2025-11-25", [{**tool, "title": "another text"}])
    for _ in range(2):
        assert [f.code for f in run_transcript(text, engine=selected) if f.code.startswith("TL")] == []
    assert sorted(calls) == sorted(["TL001", "TL002", "TL004"] * 2)


def test_plain_answer_is_false_wherever_a_rule_it_gates_reports(feature_verdicts):
    """tools.plain_answer, the "odd-answer" gate of TL006, TL009, TL011-TL015, HX013 and SV003 (the
    engine does not call them on a plain result): every result these rules report on is not plain,
    and the clean ones (one text block, several, none) are."""

    gated = {rule.code for rule in all_rules() if "odd-answer" in rule.requires}
    assert {"TL006", "TL009", "TL011", "TL014", "TL015", "HX013", "SV003"} <= gated
    verdicts = feature_verdicts("odd-answer")  # line -> plain_answer(record), as the engine asks it
    text = lambda value: {"content": [{"type": "text", "text": value}]}  # noqa: E731
    two = {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "Error: b"}]}
    image = {"content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]}
    transcript = listing("2025-06-18", [ADD, WEATHER]) + "".join([
        call(2, "add", {"a": 1}, text("3")),  # plain: line 5
        call(3, "add", {"a": 1}, two),  # plain: line 7
        call(4, "add", {"a": 1}, {"content": []}),  # plain: line 9
        call(5, "add", {"a": 1}, text("Error: connection refused")),  # HX013: line 11
        call(6, "add", {}, text("3")),  # TL009 (and TL008 on line 12): line 13
        call(7, "gone", {}, text("3")),  # TL006: line 15
        call(8, "add", {"a": 1}, image),  # TL015: line 17
        call(9, "add", {"a": 1}, {"content": [{"type": "audio", "data": "", "mimeType": "a"}]}),  # TL014 (06-18 ok)
        call(10, "weather", {"city": "Oslo"}, {"content": [], "structuredContent": {"t": "x"}}),  # TL011: line 21
        call(11, "add", {"a": 1}, {"content": [], "isError": "no"}),  # SV003: line 23
    ])
    found = {(f.line, f.code) for f in run_transcript(transcript) if f.code in gated}
    assert (23, "SV003") in found
    assert {line for line, _ in found} >= {11, 13, 15, 17, 21, 23}
    assert not any(verdicts[line] for line, _ in found)
    assert {line for line, plain in verdicts.items() if plain} == {5, 7, 9}


_CHANGED = 'S→C {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
_RELIST = 'C→S {"jsonrpc":"2.0","id":90,"method":"tools/list"}\nS→C {"jsonrpc":"2.0","id":90,"result":{"tools":%s}}\n'
_PATTERN = {"name": "find", "inputSchema": {"type": "object", "properties": {"q": {"pattern": "^a"}}}}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["add", "find", "gone", 7]),
                          st.sampled_from([{"a": 1}, {}, {"a": "x"}, {"q": "a"}, {"q": "b"}, "none"]),
                          st.sampled_from(["", "changed", "relist", "relist-other"])), min_size=1, max_size=6))
def test_plain_answer_reads_the_kept_verdict_as_argument_errors_would(calls):
    """plain_answer reads the verdict plain_call kept for the request inline (no
    ``argument_errors`` call, ``ToolCatalog.tools`` for its names): on calls of listed, unlisted and
    misnamed tools, with arguments an acceptor takes, refuses or cannot judge, a list change or a
    new listing (the same schema, or another that refuses what the first took) between call and answer, it agrees with TL006's
    :func:`~mcplint.rules.errors.listed` and TL009's ``argument_errors(known_only=True)``."""
    from mcplint.rules import _base, tools
    from mcplint.rules.errors import listed, tool_name

    compared = []
    kind, methods, clean = _base.FAMILY_FEATURES["odd-answer"]

    def both(record):
        verdict = clean(record)
        session, request = record.session, record.request
        reference = listed(session, tool_name(request)) is not False \
            and not tools.argument_errors(session, request, record.revision, known_only=True)[1]
        compared.append((record.line, verdict, reference))
        return verdict
    lines = []
    for id_, (name, arguments, between) in enumerate(calls, start=2):
        params = {"name": name} if arguments == "none" else {"name": name, "arguments": arguments}
        lines.append(f'C→S {{"jsonrpc":"2.0","id":{id_},"method":"tools/call","params":{orjson.dumps(params).decode()}}}\n')
        if between == "changed":
            lines.append(_CHANGED)
        elif between.startswith("relist"):
            catalog = [ADD, _PATTERN] if between == "relist" else [{**ADD, "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}]
            lines.append(_RELIST % orjson.dumps(catalog).decode())
        lines.append(f'S→C {{"jsonrpc":"2.0","id":{id_},"result":{{"content":[{{"type":"text","text":"3"}}]}}}}\n')
    _base.FAMILY_FEATURES["odd-answer"] = (kind, methods, both)
    try:
        run_transcript(listing("2025-06-18", [ADD, _PATTERN], "".join(lines)))
    finally:
        _base.FAMILY_FEATURES["odd-answer"] = (kind, methods, clean)
    # (each answer judged: a lane that makes a plan the first time lets Engine._plan test it again)
    assert len({line for line, _, _ in compared}) == len(calls)
    assert all(verdict == reference for _, verdict, reference in compared), compared


def test_plain_call_is_false_wherever_a_rule_it_gates_reports(feature_verdicts):
    """tools.plain_call, the "odd-call" gate of TL008, HX007 and SV001 (of a tools/call): every
    call these rules report on is not plain, and a call of a listed tool with arguments its
    schema's acceptor takes and well-formed params is."""

    gated = {rule.code for rule in all_rules() if "odd-call" in rule.requires}
    assert gated == {"TL008", "HX007", "SV001"}
    verdicts = feature_verdicts("odd-call")  # line -> plain_call(record), as the engine asks it
    pattern = {"name": "find", "inputSchema": {"type": "object", "properties": {"q": {"pattern": "^a"}}}}
    done = {"content": []}
    transcript = listing("2025-06-18", [ADD, pattern]) + "".join([
        call(2, "add", {"a": 1}, done),  # plain: line 4
        call(3, "add", {}, done),  # TL008: line 6
        call(4, "add", {"a": "x"}, done),  # TL008: line 8
        call(5, "gone", {}, done),  # HX007: line 10
        call(6, "find", {"q": "b"}, done),  # TL008 (no acceptor for a pattern): line 12
        call(7, "find", {"q": "a"}, done),  # no acceptor either: not plain, and no finding: line 14
        call(8, "add", {"a": 1}, done).replace('"arguments"', '"task":5,"arguments"', 1),  # SV001: 16
    ])
    found = {(f.line, f.code) for f in run_transcript(transcript) if f.code in gated}
    assert found == {(6, "TL008"), (8, "TL008"), (10, "HX007"), (12, "TL008"), (16, "SV001")}
    assert {line for line, plain in verdicts.items() if plain} == {4}
    assert set(verdicts) == {4, 6, 8, 10, 12, 14, 16}


def test_kept_argument_verdicts_hold_no_record():
    """The verdicts TL008 keeps for the answer (tools._ARGUMENTS) name a request by its arrival
    number: a record kept there would outlive its session (the garbage collector walked every one
    of them on every collection)."""
    from mcplint.model import Record
    from mcplint.rules import tools

    text = listing("2025-06-18", [ADD]) + call(2, "add", {"a": 1}, {"content": []}) + call(3, "add", {}, {"content": []})
    run_transcript(text)
    kept = [value for entry in tools._ARGUMENTS.values() for value in entry]
    assert kept and not any(isinstance(value, Record) for value in kept)

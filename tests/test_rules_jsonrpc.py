"""Edge cases of the JSON-RPC framing rules (JR) that the rule pages do not show.

Most cases are legal traffic that must draw no JR finding: a linter that cries wolf is useless.
"""

from __future__ import annotations

import json

from tests.ruledocs import run_transcript

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}


def modern(request_id, method, **params):
    """A 2026-07-28 request line (params carry the per-request ``_meta``)."""
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": META}}
    return "C→S " + json.dumps(message)


def jr(text: str, *codes: str) -> list[tuple[int, str]]:
    """(line, code) of the JR findings, restricted to ``codes`` when given."""
    return sorted((f.line, f.code) for f in run_transcript(text)
                  if f.code.startswith("JR") and (not codes or f.code in codes))


def findings(text: str, code: str):
    return [f for f in run_transcript(text) if f.code == code]


# -- correlation: ids, ordering, directions ------------------------------------------------

def test_out_of_order_responses_are_fine():
    text = """\
# init 2025-06-18 C={} S={"tools":{}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
C→S {"jsonrpc":"2.0","id":2,"method":"ping"}
C→S {"jsonrpc":"2.0","id":3,"method":"ping"}
S→C {"jsonrpc":"2.0","id":3,"result":{}}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
S→C {"jsonrpc":"2.0","id":2,"result":{}}
"""
    assert jr(text) == []


def test_client_and_server_may_both_use_id_1():
    text = """\
# init 2025-06-18 C={"roots":{}} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"method":"roots/list"}
C→S {"jsonrpc":"2.0","id":1,"result":{"roots":[]}}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
"""
    assert jr(text) == []


def test_string_and_integer_ids_are_different_ids():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
C→S {"jsonrpc":"2.0","id":"1","method":"ping"}
S→C {"jsonrpc":"2.0","id":"1","result":{}}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
"""
    assert jr(text) == []


def test_stringified_id_is_jr012_not_jr011():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":"1","result":{}}
"""
    assert jr(text) == [(3, "JR012")]


def test_numeric_id_for_string_request_is_jr012():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":"7","method":"ping"}
S→C {"jsonrpc":"2.0","id":7,"result":{}}
"""
    assert jr(text) == [(3, "JR012")]


def test_unknown_id_is_low_confidence_when_capture_starts_midstream():
    text = """\
S→C {"jsonrpc":"2.0","id":14,"result":{"tools":[]}}
C→S {"jsonrpc":"2.0","id":15,"method":"ping"}
S→C {"jsonrpc":"2.0","id":15,"result":{}}
"""
    found = findings(text, "JR011")
    assert [(f.line, f.confidence) for f in found] == [(1, "low")]


def test_error_echoing_id_of_invalid_message_is_not_unknown():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":7,"params":{}}
S→C {"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}
"""
    assert jr(text) == [(2, "JR003")]


def test_duplicate_response_after_error():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
"""
    assert jr(text) == [(4, "JR013")]


# -- id reuse (JR006) -------------------------------------------------------------------------

def test_legacy_reuse_of_initialize_id_is_reported():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":0,"method":"ping"}
S→C {"jsonrpc":"2.0","id":0,"result":{}}
"""
    assert jr(text) == [(2, "JR006")]


def test_ids_start_over_in_a_new_session():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
"""
    assert jr(text) == []


def test_reuse_check_is_type_exact():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
C→S {"jsonrpc":"2.0","id":"1","method":"ping"}
S→C {"jsonrpc":"2.0","id":"1","result":{}}
"""
    assert jr(text) == []


def test_modern_id_may_be_reused_once_answered():
    text = "\n".join([
        modern(1, "tools/list"),
        'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}',
        modern(1, "prompts/list"),
        'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","prompts":[]}}',
    ])
    assert jr(text) == []


def test_modern_id_must_not_equal_an_outstanding_request():
    text = "\n".join([
        modern(1, "tools/list"),
        modern(1, "prompts/list"),
    ])
    found = findings(text, "JR006")
    assert [(f.line, f.severity.value, f.confidence) for f in found] == [(2, "error", "high")]


def test_modern_reuse_of_cancelled_request_is_low_confidence():
    text = "\n".join([
        modern(1, "tools/list"),
        'C→S {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
        modern(1, "prompts/list"),
    ])
    found = findings(text, "JR006")
    assert [(f.line, f.confidence) for f in found] == [(3, "low")]


def test_reuse_inside_one_batch():
    text = """\
# init 2025-03-26 C={} S={}
C→S [{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]
S→C [{"jsonrpc":"2.0","id":1,"result":{}}]
"""
    assert jr(text) == [(2, "JR006")]


def test_reuse_of_an_id_answered_long_ago_is_reported():
    # the edge of the "reused-id" gate: the first request is kept compact by now (an Answered
    # entry, more than RECENT_ANSWERED answers ago) and its id is a string
    lines = ["# init 2025-06-18 C={} S={}",
             'C→S {"jsonrpc":"2.0","id":"a","method":"ping"}', 'S→C {"jsonrpc":"2.0","id":"a","result":{}}']
    for i in range(1, 120):
        lines += [f'C→S {{"jsonrpc":"2.0","id":{i},"method":"ping"}}', f'S→C {{"jsonrpc":"2.0","id":{i},"result":{{}}}}']
    lines.append('C→S {"jsonrpc":"2.0","id":"a","method":"ping"}')
    assert jr("\n".join(lines) + "\n") == [(len(lines), "JR006")]


def test_reuse_of_a_pending_id_by_the_server_is_reported():
    text = """\
# init 2025-06-18 C={"roots":{}} S={}
S→C {"jsonrpc":"2.0","id":7,"method":"roots/list"}
S→C {"jsonrpc":"2.0","id":7,"method":"ping"}
"""
    assert jr(text) == [(3, "JR006")]


# -- request shape ---------------------------------------------------------------------------

def test_integral_float_id_is_a_warning_and_still_correlates():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":3.0,"method":"ping"}
S→C {"jsonrpc":"2.0","id":3.0,"result":{}}
"""
    found = findings(text, "JR005")
    assert [(f.line, f.severity.value) for f in found] == [(2, "warning")]
    assert jr(text, "JR011", "JR012") == []


def test_null_id_request_echoed_with_null_id_is_only_jr004():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":null,"method":"ping"}
S→C {"jsonrpc":"2.0","id":null,"result":{}}
"""
    assert jr(text) == [(2, "JR004")]


def test_unknown_custom_methods_and_extra_fields_are_fine():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"acme/reindex","params":{"index":"docs"},"x-trace":"abc"}
S→C {"jsonrpc":"2.0","id":1,"result":{"ok":true},"x-trace":"abc"}
C→S {"jsonrpc":"2.0","method":"acme/heartbeat"}
"""
    assert jr(text) == []


def test_jsonrpc_member_checked_on_batch_elements():
    text = """\
# init 2025-03-26 C={} S={}
C→S [{"jsonrpc":"2.0","id":1,"method":"ping"},{"id":2,"method":"ping"}]
S→C [{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]
"""
    assert jr(text) == [(2, "JR001")]


def test_nested_array_in_batch_is_jr002():
    text = """\
# init 2025-03-26 C={} S={}
C→S [[{"jsonrpc":"2.0","id":1,"method":"ping"}]]
"""
    found = findings(text, "JR002")
    assert len(found) == 1 and found[0].message.startswith("Batch element is an array")


# -- batches ---------------------------------------------------------------------------------

def test_batches_allowed_in_2025_03_26():
    text = """\
# init 2025-03-26 C={} S={}
C→S [{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]
S→C [{"jsonrpc":"2.0","id":1,"result":{}}]
"""
    assert jr(text) == []


def test_batch_in_unknown_version_uses_nearest_known_revision():
    text = """\
# init 2025-04-01 C={} S={}
C→S [{"jsonrpc":"2.0","id":1,"method":"ping"}]
S→C [{"jsonrpc":"2.0","id":1,"result":{}}]
"""
    assert jr(text, "JR018") == []


def test_batch_before_any_version_is_a_low_confidence_warning():
    text = 'C→S [{"jsonrpc":"2.0","id":1,"method":"ping"}]\n'
    found = findings(text, "JR018")
    assert [(f.severity.value, f.confidence) for f in found] == [("warning", "low")]


def test_batch_in_modern_traffic_is_an_error():
    text = "\n".join([
        modern(1, "tools/list"),
        'S→C {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}',
        "C→S [" + modern(2, "tools/list")[4:] + "]",
    ])
    found = findings(text, "JR018")
    assert [(f.line, f.severity.value) for f in found] == [(3, "error")]


# -- responses and errors --------------------------------------------------------------------

def test_parse_error_with_null_id_is_fine():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"
S→C {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}
S→C {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}
"""
    assert jr(text) == [(2, "JR002")]


def test_null_id_error_after_unreadable_message_is_fine_whatever_the_code():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"
S→C {"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}
S→C {"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}
"""
    assert jr(text) == [(2, "JR002"), (4, "JR017")]


def test_error_null_beside_result_is_only_jr014():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"result":{},"error":null}
C→S {"jsonrpc":"2.0","id":2,"method":"ping"}
S→C {"jsonrpc":"2.0","id":2,"result":null,"error":{"code":-32603,"message":"Internal error"}}
"""
    assert jr(text) == [(3, "JR014"), (5, "JR014")]


def test_result_and_error_without_id_is_still_jr014():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","result":{},"error":{"code":-32603,"message":"Internal error"}}
"""
    assert (3, "JR014") in jr(text)


def test_not_found_error_of_a_custom_method_is_not_jr020():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"acme/reindex","params":{"index":"docs"}}
S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Index not found: docs"}}
"""
    assert jr(text) == []


def test_string_error_code_is_jr016_not_jr020():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"acme/reindex"}
S→C {"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"Method not found"}}
"""
    assert jr(text) == [(3, "JR016")]


def test_refusing_an_mcp_method_of_the_revision_is_not_jr020():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Method tools/list not supported"}}
"""
    assert jr(text, "JR020") == []


def test_long_single_line_error_message_is_jr022():
    message = "x" * 301
    text = ('# init 2025-06-18 C={} S={}\n'
            'C→S {"jsonrpc":"2.0","id":1,"method":"ping"}\n'
            'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"%s"}}\n' % message)
    found = findings(text, "JR022")
    assert [(f.line, f.severity.value) for f in found] == [(3, "info")]


def test_trailing_newline_in_error_message_is_fine():
    text = """\
# init 2025-06-18 C={} S={}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error\\n"}}
"""
    assert jr(text) == []


def test_reuse_of_an_open_id_the_requests_table_forgot_is_reported():
    # the edge of the "reused-id" feature: an open request that fell out of the (tiny) requests
    # table is still found among the pending ones
    import io

    from mcplint.analysis.analyzer import Analyzer, Limits
    from mcplint.analysis.engine import Engine
    from mcplint.input.parse import Parser
    from mcplint.input.readers import open_frames

    lines = ['{"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}']
    for i in (2, 3, 4):
        lines += [f'{{"dir":"c2s","msg":{{"jsonrpc":"2.0","id":{i},"method":"ping"}}}}',
                  f'{{"dir":"s2c","msg":{{"jsonrpc":"2.0","id":{i},"result":{{}}}}}}']
    lines.append('{"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}')
    _, frames = open_frames(io.BytesIO("\n".join(lines).encode() + b"\n"), "auto")
    found = Engine().lint_records(Parser("x.jsonl").records(frames), "x.jsonl",
                                  Analyzer("x.jsonl", None, Limits(answered=2)))
    assert [(f.line, f.code) for f in found if f.code == "JR006"] == [(8, "JR006")]

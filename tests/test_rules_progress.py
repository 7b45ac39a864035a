"""Edge cases of the progress rules (PR001-PR006) that the rule pages do not show."""

from __future__ import annotations

from mcplint.api import lint_lines
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={} S={"tools":{}}\n'
INIT_TASKS = '# init 2025-11-25 C={} S={"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}\n'
META = '"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}'


def call(i, token=None, sender="C→S", extra=""):
    meta = f',"_meta":{{"progressToken":{token}}}' if token is not None else ""
    return (f'{sender} {{"jsonrpc":"2.0","id":{i},"method":"tools/call",'
            f'"params":{{"name":"t","arguments":{{}}{extra}{meta}}}}}\n')


def progress(token, value, total=None, sender="S→C"):
    tot = f',"total":{total}' if total is not None else ""
    return (f'{sender} {{"jsonrpc":"2.0","method":"notifications/progress",'
            f'"params":{{"progressToken":{token},"progress":{value}{tot}}}}}\n')


def result(i, sender="S→C", body='{"content":[]}'):
    return f'{sender} {{"jsonrpc":"2.0","id":{i},"result":{body}}}\n'


def pr(text):
    return [f for f in run_transcript(text) if f.code.startswith("PR")]


def codes(text):
    return [(f.line, f.code) for f in pr(text)]


def test_clean_progress_flow_draws_nothing():
    text = INIT + call(1, '"p"') + progress('"p"', 1, 3) + progress('"p"', 2, 3) + progress('"p"', 3, 3) + result(1)
    assert pr(text) == []


def test_fractional_progress_values_and_missing_total_are_fine():
    text = INIT + call(1, 0) + progress(0, 0.2) + progress(0, 0.5) + progress(0, 1.0, 1.0) + result(1)
    assert pr(text) == []


def test_token_types():
    text = (INIT + call(1, "true") + result(1) + call(2, '{"a":1}') + result(2)
            + call(3, "-4") + result(3) + call(4, '""') + result(4))
    assert codes(text) == [(2, "PR001"), (4, "PR001")]


def test_notification_without_token_is_not_pr001():
    text = INIT + call(1, '"p"') + 'S→C {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n'
    assert [c for c in codes(text) if c[1] == "PR001"] == []


def test_token_free_again_after_response():
    text = INIT + call(1, '"p"') + result(1) + call(2, '"p"') + result(2)
    assert pr(text) == []


def test_same_token_on_both_sides_is_not_reuse():
    text = ('# init 2025-06-18 C={"sampling":{}} S={"tools":{}}\n' + call(1, '"p"')
            + 'S→C {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],'
              '"maxTokens":5,"_meta":{"progressToken":"p"}}}\n'
            + progress('"p"', 1, sender="C→S") + progress('"p"', 1) + result(1, "C→S", '{"role":"assistant",'
              '"content":{"type":"text","text":"x"},"model":"m"}') + result(1))
    assert pr(text) == []


def test_reuse_of_task_token_is_low_confidence():
    task = '{"task":{"taskId":"T","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":null}}'
    text = INIT_TASKS + call(1, '"p"', extra=',"task":{}') + result(1, body=task) + call(2, '"p"')
    found = pr(text)
    assert [(f.line, f.code, f.confidence) for f in found] == [(4, "PR002", "low")]


def test_task_progress_after_create_task_result_is_not_after_completion():
    task = '{"task":{"taskId":"T","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":null}}'
    text = INIT_TASKS + call(1, '"p"', extra=',"task":{}') + result(1, body=task) + progress('"p"', 1)
    assert pr(text) == []


def test_unknown_token_is_low_confidence_midstream():
    text = call(7, '"a"') + progress('"b"', 1)
    found = pr(text)
    assert [(f.code, f.confidence) for f in found] == [("PR003", "low")]


def test_unknown_token_is_type_exact():
    text = INIT + call(1, 1) + progress('"1"', 1) + result(1)
    assert codes(text) == [(3, "PR003")]


def test_wrong_direction_names_own_request():
    text = INIT + call(1, '"p"') + progress('"p"', 1, sender="C→S") + result(1)
    (finding,) = pr(text)
    assert finding.code == "PR003" and finding.party == "client" and "own request" in finding.message


def test_after_completion_is_not_also_unknown_or_not_increasing():
    text = INIT + call(1, '"p"') + progress('"p"', 5) + result(1) + progress('"p"', 1)
    assert codes(text) == [(5, "PR004")]


def test_late_progress_for_reused_token_belongs_to_new_request():
    text = INIT + call(1, '"p"') + result(1) + call(2, '"p"') + progress('"p"', 1) + result(2)
    assert pr(text) == []


def test_not_increasing_compares_with_highest_value():
    text = INIT + call(1, '"p"') + progress('"p"', 1) + progress('"p"', 5) + progress('"p"', 3) + progress('"p"', 6) + result(1)
    assert codes(text) == [(5, "PR005")]


def test_progress_equal_to_total_and_total_appearing_later_are_fine():
    text = INIT + call(1, '"p"') + progress('"p"', 1) + progress('"p"', 2, 4) + progress('"p"', 4, 4) + result(1)
    assert pr(text) == []


def test_exceeds_total_is_info_low():
    text = INIT + call(1, '"p"') + progress('"p"', 3, 2) + result(1)
    (finding,) = pr(text)
    assert (finding.code, finding.severity.value, finding.confidence) == ("PR006", "info", "low")


def test_modern_findings_cite_patterns_page():
    request = ('C→S {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},'
               f'"_meta":{{{META},"progressToken":"p"}}}}}}\n')
    text = request + progress('"p"', 2) + progress('"p"', 1) + result(1)
    (finding,) = pr(text)
    assert finding.code == "PR005"
    assert "basic/patterns/progress" in finding.spec_url and "2026-07-28" in finding.spec


# -- PR003 without directions (plain JSON Lines) -------------------------------------------------
def lint_jsonl(*lines):
    handshake = [
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
        '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
        '"serverInfo":{"name":"s","version":"1"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    ]
    findings = lint_lines([*handshake, *lines], "<jsonl>", input_format="jsonl")
    return [f for f in findings if f.code.startswith("PR")]


PROGRESS = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":1}}'


def test_unknown_token_of_unknown_sender_is_pr003():
    call_ = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":"p1"}}}'
    (finding,) = lint_jsonl(call_, PROGRESS % '"zzz"')
    assert (finding.code, finding.line, finding.direction, finding.party, finding.severity.value) == (
        "PR003", 5, None, None, "error")
    assert finding.confidence == "high" and "either side" in finding.message


def test_unknown_token_without_any_request_token_is_pr003():
    assert [(f.code, f.line) for f in lint_jsonl(PROGRESS % "7")] == [("PR003", 4)]


def test_known_token_of_inferred_sender_is_fine():
    call_ = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":"p1"}}}'
    assert lint_jsonl(call_, PROGRESS % '"p1"') == []


def test_token_of_both_sides_leaves_the_sender_open():
    call_ = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":"p"}}}'
    ask = ('{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5,'
           '"_meta":{"progressToken":"p"}}}')
    assert [f for f in lint_jsonl(call_, ask, PROGRESS % '"p"') if f.code == "PR003"] == []


def test_token_of_a_request_of_unknown_sender_is_known():
    custom = '{"jsonrpc":"2.0","id":1,"method":"acme/reindex","params":{"_meta":{"progressToken":"r"}}}'
    assert [f for f in lint_jsonl(custom, PROGRESS % '"r"') if f.code == "PR003"] == []


def test_answered_request_of_unknown_sender_leaves_room():
    custom = '{"jsonrpc":"2.0","id":1,"method":"acme/reindex","params":{"_meta":{"progressToken":"r"}}}'
    answer = '{"jsonrpc":"2.0","id":1,"result":{}}'
    (finding,) = [f for f in lint_jsonl(custom, answer, PROGRESS % '"zzz"') if f.code == "PR003"]
    assert finding.confidence == "low"


def test_null_token_is_pr001_on_request_and_notification():
    """A present-but-null token is judged (PR001's fast path leaves only on an absent token)."""
    text = INIT + call(1, "null") + progress("null", 1) + result(1)
    assert [c for c in codes(text) if c[1] == "PR001"] == [(2, "PR001"), (3, "PR001")]


def test_plain_progress_is_false_wherever_a_progress_rule_reports(feature_verdicts):
    """progress.plain_progress, the "odd-progress" gate of PR001, PR003-PR006, PR008 and SV002 (the
    engine does not call them on a plain notification): every notification these rules report
    on is not plain, and the well-formed ones are."""

    verdicts = feature_verdicts("odd-progress")  # line -> plain_progress(record), as the engine asks it
    message = ('S→C {"jsonrpc":"2.0","method":"notifications/progress",'
               '"params":{"progressToken":"m","progress":%d,"message":%s}}\n')
    text = (INIT + call(1, '"p"') + progress('"p"', 1, 3) + progress('"p"', 2, 3)  # plain: lines 3, 4
            + progress('"p"', 2, 3) + progress('"p"', 5, 3) + progress('"p"', 6, 7)  # PR005, PR006 x2
            + progress('"q"', 1) + progress("true", 1) + result(1) + progress('"p"', 9)  # PR003, PR001, PR004
            + call(2, '"m"') + message % (1, "7") + message % (2, '"fine"')  # PR008, then plain
            + progress('"m"', 3, '"x"'))  # SV002 (a total that is no number): line 15
    found = {line for line, code in codes(text)}
    assert found == {5, 6, 7, 8, 9, 11, 13}
    assert [(f.line, f.code) for f in run_transcript(text) if f.code == "SV002"] == [(15, "SV002")]
    assert {line for line, plain in verdicts.items() if plain} == {3, 4, 14}

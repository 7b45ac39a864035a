"""Edge cases of the lifecycle rules (LC001-LC015) that the rule pages do not show."""

from __future__ import annotations

import io

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint import protocol
from mcplint.analysis.engine import Engine
from mcplint.input.lines import iter_lines
from mcplint.input.parse import Parser
from mcplint.input.readers import read_capture
from mcplint.rules import capabilities, lifecycle
from mcplint.rules._base import set_plan_facts
from mcplint.rules.capabilities import capability_problems, close_gates
from tests.ruledocs import run_transcript

ENGINE = Engine()
INIT = '# init 2025-06-18 C={"roots":{},"sampling":{}} S={"tools":{},"logging":{},"prompts":{}}\n'


def lc(text, engine=ENGINE):
    """``{(line, code): (severity, confidence)}`` of the LC findings of a transcript."""
    return {(f.line, f.code): (f.severity.value, f.confidence)
            for f in run_transcript(text, engine) if f.code.startswith("LC")}


def lc_capture(entries, path="<capture>"):
    """Lint canonical capture records ``(dir, msg, session)``; same result shape as :func:`lc`."""
    lines = b"\n".join(orjson.dumps({"dir": d, "msg": m, **({"session": s} if s else {})})
                       for d, m, s in entries) + b"\n"
    frames = read_capture(iter_lines(io.BytesIO(lines)))
    findings = Engine().lint_records(Parser(path).records(frames), path)
    return {(f.line, f.code): (f.severity.value, f.confidence) for f in findings if f.code.startswith("LC")}


def init_msgs(session=None, version="2025-06-18", answered=None, rid=0):
    return [
        ("c2s", {"jsonrpc": "2.0", "id": rid, "method": "initialize",
                 "params": {"protocolVersion": version, "capabilities": {},
                            "clientInfo": {"name": "c", "version": "1"}}}, session),
        ("s2c", {"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": answered or version, "capabilities": {"tools": {}},
            "serverInfo": {"name": "s", "version": "1"}}}, session),
        ("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session),
    ]


# -- clean traffic draws nothing -------------------------------------------------------------
def test_clean_session_with_traffic_in_every_legacy_version():
    for version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"):
        text = INIT.replace("2025-06-18", version) + """\
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listing"}}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
S→C {"jsonrpc":"2.0","id":1,"method":"roots/list"}
C→S {"jsonrpc":"2.0","id":1,"result":{"roots":[]}}
C→S {"jsonrpc":"2.0","id":2,"method":"prompts/list"}
S→C {"jsonrpc":"2.0","id":2,"result":{"prompts":[]}}
"""
        assert lc(text) == {}, version


def test_pings_and_logging_during_handshake_are_allowed():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}},"serverInfo":{"name":"s","version":"1"}}}
S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}
S→C {"jsonrpc":"2.0","id":"p1","method":"ping"}
C→S {"jsonrpc":"2.0","id":"p1","result":{}}
C→S {"jsonrpc":"2.0","id":2,"method":"ping"}
S→C {"jsonrpc":"2.0","id":2,"result":{}}
C→S {"jsonrpc":"2.0","method":"notifications/initialized"}
"""
    assert lc(text) == {}


def test_two_handshakes_in_one_stream_are_two_clean_sessions():
    text = INIT + INIT + 'C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}\n' \
        + 'S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n'
    assert lc(text) == {}


def test_retry_after_failed_initialize_is_clean():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2025-06-18"],"requested":"2099-01-01"}}}
# init 2025-06-18 C={} S={"tools":{}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"""
    assert lc(text) == {}


def test_older_version_answer_is_only_info():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
C→S {"jsonrpc":"2.0","method":"notifications/initialized"}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"""
    assert lc(text) == {(2, "LC011"): ("info", "high")}  # no LC012: older than requested is fine


# -- LC001 / LC002 -----------------------------------------------------------------------------
def test_capture_without_handshake_is_low_confidence_once():
    text = """\
C→S {"jsonrpc":"2.0","id":5,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":5,"result":{"tools":[]}}
C→S {"jsonrpc":"2.0","id":6,"method":"tools/list"}
"""
    assert lc(text) == {(1, "LC001"): ("warning", "low")}


def test_protocol_version_option_means_the_capture_joined_a_session():
    from mcplint.analysis.engine import Engine
    from tests.ruledocs import run_transcript

    text = 'C→S {"jsonrpc":"2.0","id":5,"method":"tools/list"}\nS→C {"jsonrpc":"2.0","id":5,"result":{"tools":[]}}\n'
    assert [f.code for f in run_transcript(text, Engine(protocol_version="2025-06-18"))] == []


def test_server_response_first_is_truncation_not_lc002():
    text = 'S→C {"jsonrpc":"2.0","id":9,"result":{}}\n' + INIT
    assert (1, "LC002") not in lc(text)


def test_server_only_capture_without_initialize_is_not_lc002():
    text = 'S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n'
    assert lc(text) == {}


def test_lc002_reported_once_for_several_early_messages():
    text = """\
S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}
S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"b"}}
""" + INIT
    assert lc(text) == {(1, "LC002"): ("error", "high")}


def test_lc002_state_does_not_leak_between_files():
    engine = Engine()
    lc('S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}\n', engine)
    text = 'C→S {"jsonrpc":"2.0","id":1,"method":"ping"}\nS→C {"jsonrpc":"2.0","id":1,"result":{}}\n' + INIT
    assert (1, "LC002") not in lc(text, engine)


def test_keyed_session_server_first_then_initialize():
    entries = [("s2c", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, "A")] + init_msgs("A")
    assert lc_capture(entries) == {(1, "LC002"): ("error", "high")}


def test_keyed_session_without_initialize_is_low_confidence():
    entries = init_msgs() + [("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "abc")]
    assert lc_capture(entries) == {(4, "LC001"): ("warning", "low")}


# -- LC003 / LC004 -----------------------------------------------------------------------------
def test_initialize_params_types():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":20250618,"capabilities":[],"clientInfo":{"name":"c"}}}
C→S {"jsonrpc":"2.0","id":1,"method":"initialize"}
"""
    got = {f.line: f.message for f in run_transcript(text, ENGINE) if f.code == "LC003"}
    assert "protocolVersion is not a string" in got[1]
    assert "capabilities is not an object" in got[1]
    assert "clientInfo.version is missing" in got[1]
    assert "no params" in got[2]


def test_initialize_result_duplicate_not_rechecked():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}
C→S {"jsonrpc":"2.0","method":"notifications/initialized"}
"""
    assert lc(text) == {(2, "LC004"): ("error", "high")}


# -- LC005 .. LC009 ----------------------------------------------------------------------------
def test_server_notifications_before_initialized_not_lc006():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}
S→C {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
C→S {"jsonrpc":"2.0","method":"notifications/initialized"}
"""
    assert lc(text) == {}


def test_initialized_missing_after_long_traffic_is_high_confidence():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
C→S {"jsonrpc":"2.0","id":2,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
"""
    assert lc(text) == {(3, "LC007"): ("error", "high")}  # and no LC009: initialized never came


def test_initialized_missing_short_capture_is_low_confidence():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
"""
    assert lc(text) == {(3, "LC007"): ("error", "low")}


def test_no_initialized_and_only_pings_is_not_lc007():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
"""
    assert lc(text) == {}


def test_operation_before_initialized_counts_requests():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"s","version":"1"}}}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
C→S {"jsonrpc":"2.0","id":2,"method":"prompts/list"}
C→S {"jsonrpc":"2.0","method":"notifications/initialized"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
S→C {"jsonrpc":"2.0","id":2,"result":{"prompts":[]}}
"""
    findings = [f for f in run_transcript(text, ENGINE) if f.code.startswith("LC")]
    assert [(f.line, f.code) for f in findings] == [(3, "LC009")]
    assert "1 more" in findings[0].message


def test_batch_with_initialize_and_request_2025_03_26():
    text = 'C→S [{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26",' \
           '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}},{"jsonrpc":"2.0","id":1,"method":"ping"}]\n'
    assert lc(text) == {(1, "LC013"): ("error", "high")}  # ping in the batch is no LC005


# -- LC010 (named sessions only) --------------------------------------------------------------
def test_reinitialize_in_named_session():
    entries = init_msgs("A") + init_msgs("A", rid=5)
    assert lc_capture(entries) == {(4, "LC010"): ("warning", "low")}


def test_named_sessions_each_with_own_initialize_are_clean():
    entries = init_msgs("A") + init_msgs("B")
    assert lc_capture(entries) == {}


def test_named_session_retry_after_error_is_not_reinitialize():
    entries = [init_msgs("A", version="9999")[0],
               ("s2c", {"jsonrpc": "2.0", "id": 0, "error": {"code": -32602, "message": "Unsupported"}}, "A")]
    entries += init_msgs("A", rid=1)
    assert lc_capture(entries) == {}


# -- LC011 / LC012 -----------------------------------------------------------------------------
def test_version_not_echoed_escalates_with_evidence_from_earlier_session():
    entries = init_msgs() + init_msgs(version="2025-06-18", answered="2024-11-05")
    assert lc_capture(entries) == {(5, "LC011"): ("warning", "low")}


def test_echoed_version_is_kept_where_lc011_is_not_called():
    # a handshake known clean does not call LC011 (lifecycle.plain_initialize_result): the
    # version it echoed is kept all the same (HandshakeVersions)
    lc_capture(init_msgs())  # CAP006 sees these capabilities
    engine = Engine()
    (rule,) = [r for r in engine.rules if r.code == "LC011"]
    calls, check = [], rule.check
    rule.check = lambda record, session: calls.append(record.line) or check(record, session)
    entries = init_msgs() + init_msgs(version="2025-06-18", answered="2024-11-05")
    lines = b"\n".join(orjson.dumps({"dir": d, "msg": m}) for d, m, _ in entries) + b"\n"
    findings = engine.lint_records(Parser("x").records(read_capture(iter_lines(io.BytesIO(lines)))), "x")
    assert [(f.line, f.code, f.confidence) for f in findings if f.code == "LC011"] == [(5, "LC011", "low")]
    assert calls == [5]


def test_version_evidence_does_not_leak_between_files():
    engine = Engine()
    assert lc(INIT, engine) == {}  # the server echoed 2025-06-18 in another file with the same path
    other = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
C→S {"jsonrpc":"2.0","method":"notifications/initialized"}
"""
    assert lc(other, engine) == {(2, "LC011"): ("info", "high")}


def test_client_on_newer_version_reported_once():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
C→S {"jsonrpc":"2.0","method":"notifications/initialized"}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
C→S {"jsonrpc":"2.0","id":2,"method":"tools/list"}
S→C {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
"""
    assert lc(text) == {(2, "LC011"): ("info", "high"), (4, "LC012"): ("warning", "low")}


def test_unsupported_version_of_a_second_handshake_in_one_session_is_reported():
    # the edge of LC012's plan fact: a keyed session stays one session through a second
    # handshake, whose answer alone makes the version unsupported
    tools = ("c2s", {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}, "k")
    entries = (init_msgs("k") + [tools]
               + init_msgs("k", version="2025-03-26", answered="2025-06-18", rid=7) + [tools])
    assert lc_capture(entries).get((len(entries), "LC012")) == ("warning", "low")
    # and the other way round: a supported second handshake ends it
    entries = (init_msgs("k", version="2025-03-26", answered="2025-06-18") + init_msgs("k", rid=7) + [tools])
    assert (len(entries), "LC012") not in lc_capture(entries)


def test_client_on_non_date_version_still_reported():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"latest","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
C→S {"jsonrpc":"2.0","method":"notifications/initialized"}
C→S {"jsonrpc":"2.0","id":1,"method":"tools/list"}
"""
    assert lc(text).get((4, "LC012")) == ("warning", "low")


def test_client_that_disconnects_is_clean():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"1.0.0","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
"""
    assert set(lc(text)) == {(2, "LC011")}


# -- LC014 / LC015 -----------------------------------------------------------------------------
def test_cancel_of_other_request_with_string_id_zero_is_not_lc014():
    text = INIT + """\
C→S {"jsonrpc":"2.0","id":"0","method":"tools/list"}
C→S {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"0"}}
"""
    assert lc(text) == {}


def test_server_cancel_with_initialize_id_is_not_lc014():
    text = INIT + """\
S→C {"jsonrpc":"2.0","id":0,"method":"roots/list"}
S→C {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}
"""
    assert lc(text) == {}


def test_operation_after_init_error_reported_once():
    text = """\
C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
S→C {"jsonrpc":"2.0","id":0,"error":{"code":-32603,"message":"Internal error"}}
C→S {"jsonrpc":"2.0","id":1,"method":"ping"}
S→C {"jsonrpc":"2.0","id":1,"result":{}}
C→S {"jsonrpc":"2.0","id":2,"method":"tools/list"}
C→S {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{}}}
"""
    assert lc(text) == {(5, "LC015"): ("warning", "low")}


# -- HandshakeVersions: its reading of the usual handshake agrees with the plain one ----------
def _plain_handshake_commit(self, record, session):
    """``HandshakeVersions.commit`` without its shortcuts: versions read from the session's
    handshake, both plan-fact families made one after the other, LC011's record by _negotiated."""
    set_plan_facts(session, lifecycle._UNSUPPORTED,
                   lifecycle._YES if lifecycle._unsupported(*lifecycle._versions(session)) else lifecycle._NO)
    close_gates(session)
    known = protocol.nearest_known(record.revision, session.modern)
    if known in protocol.LEGACY if known is not None else not session.modern:
        negotiated = lifecycle._negotiated(record)
        if negotiated is not None and negotiated[0] == negotiated[1]:
            negotiated[2].setdefault(negotiated[0], record)


_HS_VERSIONS = st.sampled_from(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "latest", "2099-01-01", 7, None])
_HS_CAPS = st.sampled_from([{}, {"tools": {}}, {"tools": {"listChanged": True}, "logging": {}},
                            {"prompts": {}, "resources": {"subscribe": True}, "completions": {}}, [], "x"])


@st.composite
def _handshakes(draw):
    """Canonical capture entries: handshakes (keyed or not) with odd versions and capabilities,
    errors, answers to another id, second handshakes in a keyed session, a request after each."""
    entries = []
    for _ in range(draw(st.integers(1, 4))):
        key, rid = draw(st.sampled_from([None, "k"])), draw(st.sampled_from([0, 1, "a"]))
        asked, answered = draw(_HS_VERSIONS), draw(_HS_VERSIONS)
        params = {"capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
        if asked is not None:
            params["protocolVersion"] = asked
        entries.append(("c2s", {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params}, key))
        answer_id = rid if draw(st.booleans()) or draw(st.booleans()) else 99
        if draw(st.integers(0, 5)) == 0:
            entries.append(("s2c", {"jsonrpc": "2.0", "id": answer_id, "error": {"code": -32602, "message": "no"}}, key))
        else:
            result = {"capabilities": draw(_HS_CAPS), "serverInfo": {"name": draw(st.sampled_from(["s", "t"])), "version": "1"}}
            if answered is not None:
                result["protocolVersion"] = answered
            entries.append(("s2c", {"jsonrpc": "2.0", "id": answer_id, "result": result}, key))
        entries.append(("c2s", {"jsonrpc": "2.0", "id": 5, "method": draw(st.sampled_from(["tools/list", "prompts/list"]))}, key))
    return entries


@settings(max_examples=150, deadline=None)
@given(_handshakes())
def test_handshake_versions_shortcut_agrees_with_plain_reading(entries):
    lines = b"\n".join(orjson.dumps({"dir": d, "msg": m, **({"session": s} if s else {})}) for d, m, s in entries) + b"\n"

    def run(commit):
        seen = []

        def watched(self, record, session):
            commit(self, record, session)
            echoed = session.file_state.get(lifecycle._ECHOED, {})
            seen.append((record.line, session.plan_facts,
                         {server: {v: r.line for v, r in by.items()} for server, by in echoed.items()}))

        original = lifecycle.HandshakeVersions.commit
        lifecycle.HandshakeVersions.commit = watched
        try:
            found = Engine().lint_records(Parser("x").records(read_capture(iter_lines(io.BytesIO(lines)))), "x")
            findings = [(f.line, f.code, f.message, f.confidence) for f in found]
        finally:
            lifecycle.HandshakeVersions.commit = original
        return seen, findings

    assert run(lifecycle.HandshakeVersions.commit) == run(_plain_handshake_commit)


_HS_INFO = st.sampled_from([{"name": "c", "version": "1"}, {"name": "c"}, {"name": 1, "version": "1"}, "c"])
_HS_OBJECT = st.fixed_dictionaries({}, optional={
    "protocolVersion": _HS_VERSIONS, "capabilities": st.sampled_from([{}, {"tools": {}}, {"tools": True}, {"roots": []},
                                                                      {"sampling": {}, "roots": {"listChanged": 1}}, []]),
    "clientInfo": _HS_INFO, "serverInfo": _HS_INFO})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_HS_OBJECT, st.sampled_from([("clientInfo", "client"), ("serverInfo", "server")]),
                          st.booleans()), min_size=1, max_size=8))
def test_plain_handshake_verdict_is_the_plain_reading(items):
    # lifecycle._plain keeps a verdict per text of the params (result): it must stay what
    # _well_formed and known_clean say, as CAP006 finds capabilities clean along the way
    known = {"client": set(), "server": set()}
    for obj, (info_key, side), judged in items:
        caps, version = obj.get("capabilities"), obj.get("protocolVersion")
        version = version if isinstance(version, str) else None
        if judged and isinstance(caps, dict) and not capability_problems(caps, side, version):
            capabilities._CLEAN_CAPS.add((side, version, orjson.dumps(caps)))  # as CAP006 keeps a clean verdict
        expected = lifecycle._well_formed(obj, info_key) \
            and capabilities.known_clean(obj["capabilities"], side, obj["protocolVersion"])
        assert lifecycle._plain(obj, info_key, side, known[side]) == expected

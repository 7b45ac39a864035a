"""Logging rules (LG001-LG008): edge cases the pages do not show, and property tests."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.rules.logging import level_problem, secrets_in
from tests.feature_sessions import (
    LEGACY, LEVELS, MODERN, Script, findings, json_data, texts,
)
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={} S={"logging":{},"tools":{}}\n'
META = ('"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},'
        '"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}')


def lg(text):
    return [(f.line, f.code, f.severity.value) for f in run_transcript(text) if f.code.startswith("LG")]


def log(level="info", data='"x"', extra=""):
    return f'S→C {{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"{level}","data":{data}{extra}}}}}\n'


def test_level_problem_suggestions():
    assert level_problem("warning") is None
    assert "use \"warning\"" in level_problem("warn")
    assert "use \"info\"" in level_problem("INFO")
    assert "not one of" in level_problem(3)
    assert level_problem(None, present=False) == "is missing"


def test_cap003_case_is_not_double_reported():
    text = '# init 2025-06-18 C={} S={}\n' + log()
    codes = [f.code for f in run_transcript(text) if f.line == 2]
    assert "CAP003" in codes and "LG001" not in codes


def test_early_log_with_logging_declared_is_clean():
    text = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n' + log() +
            'S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}},'
            '"serverInfo":{"name":"s","version":"1"}}}\n')
    assert lg(text) == []


def test_failed_initialize_does_not_judge_early_logs():
    text = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n' + log() +
            'S→C {"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Unsupported protocol version"}}\n')
    assert lg(text) == []


def test_threshold_needs_a_successful_set_level():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"error"}}\n'
                   + log("debug") +  # before the answer: the old (default) level still applies
                   'S→C {"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"cannot"}}\n' + log("debug"))
    assert lg(text) == []


def test_lowering_the_level_while_pending_is_accepted():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"error"}}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"result":{}}\n'
                   'C→S {"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}\n'
                   + log("debug") + 'S→C {"jsonrpc":"2.0","id":2,"result":{}}\n' + log("debug"))
    assert lg(text) == []


def test_missing_params_and_missing_level():
    text = INIT + ('S→C {"jsonrpc":"2.0","method":"notifications/message"}\n'
                   'S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}\n')
    assert lg(text) == [(2, "LG005", "error"), (3, "LG002", "error")]


def test_secret_scan_kinds_and_masked_values():
    assert secrets_in({"password": "***"}) == []
    assert secrets_in({"password": ""}) == []
    assert secrets_in("token=<redacted>") == []
    assert secrets_in("mail admin@example.com") == []
    assert secrets_in(["ok", {"k": "AKIAABCDEFGHIJKLMNOP"}]) == [(2, "an AWS access key id", "data[1].k")]
    assert secrets_in("postgres://app:s3cret@db:5432/x")[0][:2] == (2, "a password in a URL")
    assert secrets_in("api_key=abcd1234")[0][:2] == (1, "a secret (api_key=...)")
    assert secrets_in({"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz"})[0][:2] == (
        2, "an Authorization credential")


def test_short_strings_skip_the_token_pattern_only_when_it_cannot_match():
    import re._constants as sre
    import re._parser as sre_parse

    from mcplint.excerpt import _TOKEN
    from mcplint.rules.logging import _TOKEN_MIN

    (op, (_, branches)), = sre_parse.parse(_TOKEN.pattern, _TOKEN.flags).data
    assert op is sre.BRANCH
    # every alternative but the URL password (which needs an "@") is at least _TOKEN_MIN long
    widths = [b.getwidth()[0] for b in branches if b.data[0][0] is not sre.ASSERT]
    assert min(widths) == _TOKEN_MIN and len(widths) == len(branches) - 1
    assert secrets_in("xoxb-" + "a" * 10)[0][:2] == (2, "a Slack token")
    assert secrets_in("http://a:b@c")[0][:2] == (2, "a password in a URL")


# -- LG006's gate: a log line without any literal of the patterns is not walked ----------------
_LOG_PIECES = st.sampled_from([
    "password=hunter22", "PASSWD: abcd1234", "pa\u017f\u017fword=abcd1234", "api-key=xyz12345", "pwd=abcd",
    "access_token=abcd1234", "Client_Secret: s3cr3tval", "admin@corp.io", "x@y.org", "AKIAABCDEFGHIJKLMNOP",
    "ghp_" + "a1" * 18, "Bearer abcdefghijklmnop", "BEARER abcdefghijklmnop", "ba\u017fic abcdefghijklmno",
    "postgres://u:pw@h/x", "eyJhbGciOiJI.eyJzdWIiOiIx.c2lnbmF0dXJl", "-----BEGIN RSA PRIVATE KEY-----",
    "sk-" + "b2" * 10, "xoxb-1234567890", "hf_" + "c3" * 15, "rk_live_" + "d4" * 8, "glpat-" + "e5" * 10,
    "progressToken", "maxTokens", "done.", " ", "é", "step 3 of 5", "token", "https://example.org/a"])
_LOG_KEYS = st.sampled_from([
    "password", "Authorization", "mcp-session-id", "MCP-Session-Id", "Cookie", "coo\u212aie", "\u017fecret",
    "refresh_token", "api_key", "credentials", "PRIVATE-KEY", "bearer", "step", "detail", "id_token"])
_LOG_DATA = st.recursive(
    st.lists(_LOG_PIECES, max_size=4).map("".join),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_LOG_KEYS, inner, max_size=3), max_leaves=6)


def _escaped(value) -> str:
    """``value`` as JSON with every character of every string written as a \\u escape."""
    if isinstance(value, str):
        return '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in value) + '"'
    if isinstance(value, list):
        return "[" + ",".join(_escaped(v) for v in value) + "]"
    return "{" + ",".join(f"{_escaped(k)}:{_escaped(v)}" for k, v in value.items()) + "}"


@settings(max_examples=400, deadline=None)
@given(_LOG_DATA, st.sampled_from(["orjson", "ascii", "escaped", "slashes"]))
def test_log_lines_the_gate_skips_hold_nothing_secrets_in_finds(data, encoding):
    import json

    import orjson

    from mcplint.rules._secrets import might_hold_log_secret

    message = {"jsonrpc": "2.0", "method": "notifications/message",
               "params": {"level": "info", "logger": "srv", "data": data}}
    line = {"orjson": lambda: orjson.dumps(message),
            "ascii": lambda: json.dumps(message).encode(),  # non-ASCII as \u escapes
            "escaped": lambda: _escaped(message).encode(),
            "slashes": lambda: orjson.dumps(message).replace(b"/", b"\\/")}[encoding]()
    assert orjson.loads(line) == message
    if secrets_in(data):
        assert might_hold_log_secret(line)


def test_log_secret_gate_edges():
    from mcplint.rules._secrets import MAX_SCAN, might_hold_log_secret

    assert not might_hold_log_secret(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info",'
                                     b'"data":"step 1 of 3 done, progressToken 4 https://example.org/x"}}')
    beyond = '{"a":"' + "x" * (MAX_SCAN - 10) + '","password":"hunter22"}'  # the key lies past the scanned part
    for data in (beyond, '{"MCP-Session-Id":"abc123"}', '"pa\u017f\u017fword=hunter22"', '"user\\u0040corp.io"',
                 '"https://u:pw\\u0040db.internal/x"', '{"coo\u212aie":"abc123"}'):
        text = INIT + log("info", data)
        assert [f.code for f in run_transcript(text) if f.code == "LG006"] == ["LG006"], data


def test_secret_finding_never_prints_the_value():
    text = INIT + log("info", '"key sk-abcdefghijklmnopqrstuvwxyz123456"')
    finding = next(f for f in run_transcript(text) if f.code == "LG006")
    assert "abcdefghijklmnop" not in finding.message and "abcdefghijklmnop" not in (finding.excerpt or "")


def modern_call(i, level=None):
    extra = f',"io.modelcontextprotocol/logLevel":"{level}"' if level else ""
    return (f'C→S {{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"t","arguments":{{}},'
            f'"_meta":{{{META}{extra}}}}}}}\n')


def modern_result(i):
    return (f'S→C {{"jsonrpc":"2.0","id":{i},"result":{{"resultType":"complete","content":[],'
            '"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}\n')


def test_modern_log_for_one_of_several_requests():
    text = modern_call(1) + modern_call(2, "info") + log("info") + modern_result(2) + log("error") + modern_result(1)
    assert lg(text) == [(5, "LG007", "error")]  # after request 2 answered no request opted in


def test_modern_log_on_listen_stream_is_left_to_sb005():
    text = modern_call(1, "debug") + log("info", extra=',"_meta":{"io.modelcontextprotocol/subscriptionId":7}')
    assert [c for _, c, _ in lg(text)] == []


def test_modern_setlevel_rules_stay_silent_in_legacy():
    text = INIT + ('C→S {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":'
                   '{"io.modelcontextprotocol/logLevel":"loud"}}}\n'
                   'S→C {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n')
    assert lg(text) == []


# -- property tests --------------------------------------------------------------------------
@st.composite
def legacy_logging(draw) -> Script:
    """Handshake sessions: setLevel with valid levels, logs at or above the acknowledged level."""
    script = Script(draw(st.sampled_from(LEGACY)), server_caps={"logging": {}, "tools": {}})
    threshold = 0
    for op in draw(st.lists(st.sampled_from(["set", "log", "log", "call"]), max_size=12)):
        if op == "set":
            threshold = draw(st.integers(0, 7))
            script.call("logging/setLevel", {"level": LEVELS[threshold]}, {})
        elif op == "log":
            params = {"level": LEVELS[draw(st.integers(threshold, 7))], "data": draw(json_data)}
            if draw(st.booleans()):
                params["logger"] = draw(texts)
            script.notify("notifications/message", params)
        else:
            script.call("tools/list", None, {"tools": []})
    return script


@st.composite
def modern_logging(draw) -> Script:
    """2026-07-28 sessions: logs only while a request that set a level is in flight, at or above it."""
    script = Script(MODERN, server_caps={"logging": {}, "tools": {}})
    script.call("server/discover", None, {"supportedVersions": [MODERN], "capabilities": script.server_caps},
                cache=True)
    for _ in range(draw(st.integers(0, 5))):
        level = draw(st.sampled_from((None,) + LEVELS))
        meta = {"io.modelcontextprotocol/logLevel": level} if level else None
        index = script.request("tools/call", {"name": "t", "arguments": {}}, meta=meta)
        if level:
            for _ in range(draw(st.integers(0, 3))):
                script.notify("notifications/message", {
                    "level": LEVELS[draw(st.integers(LEVELS.index(level), 7))], "data": draw(json_data)})
        script.result(index, {"content": [{"type": "text", "text": "ok"}]})
    return script


@settings(max_examples=40, deadline=None)
@given(legacy_logging() | modern_logging())
def test_generated_logging_sessions_draw_no_logging_finding(script):
    assert findings(script, "LG") == []


def mutate(script: Script, how: str, draw_level: int) -> tuple[Script, str]:
    """Append a targeted violation; return the script and the expected code."""
    if script.modern:
        if how == "no-loglevel":
            script.request("tools/call", {"name": "t", "arguments": {}})
            script.notify("notifications/message", {"level": "info", "data": "x"})
            return script, "LG007"
        index = script.request("tools/list", None, meta={"io.modelcontextprotocol/logLevel": "loud"})
        script.result(index, {"tools": []}, cache=True)
        return script, "LG008"
    if how == "bad-level":
        script.notify("notifications/message", {"level": "warn", "data": "x"})
        return script, "LG002"
    if how == "accepted":
        script.call("logging/setLevel", {"level": "verbose"}, {})
        return script, "LG003"
    if how == "below":
        script.call("logging/setLevel", {"level": "emergency"}, {})
        script.notify("notifications/message", {"level": LEVELS[draw_level % 7], "data": "x"})
        return script, "LG004"
    if how == "no-data":
        script.notify("notifications/message", {"level": "info", "message": "x"})
        return script, "LG005"
    script.notify("notifications/message", {"level": "debug", "data": {"auth": "Bearer abcdefghijklmnopqrstuvwxyz"}})
    return script, "LG006"


@settings(max_examples=60, deadline=None)
@given(legacy_logging() | modern_logging(),
       st.sampled_from(["bad-level", "accepted", "below", "no-data", "secret", "no-loglevel", "invalid-meta"]),
       st.integers(0, 100))
def test_targeted_logging_mutations_are_reported(script, how, level):
    script, expected = mutate(script, how, level)
    found = findings(script, "LG")
    last = script.line(len(script.messages) - 1)
    assert (last, expected) in {(line, code) for line, code, _ in found}, found


def test_every_early_log_without_capability_is_reported():
    text = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n' + log() + log("debug") +
            'S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},'
            '"serverInfo":{"name":"s","version":"1"}}}\n')
    assert lg(text) == [(2, "LG001", "error"), (3, "LG001", "error")]


def test_log_threshold_is_not_looked_up_without_an_acknowledged_level(monkeypatch):
    """LG004 reads the LoggingTracker facts without making them: a session that never set a
    level pays nothing per log message; once a level is acknowledged it is judged."""
    from mcplint.rules.logging import LoggingTracker
    from tests.ruledocs import run_transcript

    made = []
    original = LoggingTracker.of.__func__
    monkeypatch.setattr(LoggingTracker, "of", classmethod(lambda cls, s: made.append(1) or original(cls, s)))
    log = 'S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"x"}}\n'
    init = '# init 2025-06-18 C={} S={"logging":{}}\n'
    assert [f for f in run_transcript(init + log * 3) if f.code == "LG004"] == [] and made == []
    set_level = ('C→S {"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"error"}}\n'
                 'S→C {"jsonrpc":"2.0","id":1,"result":{}}\n')
    assert [f.line for f in run_transcript(init + set_level + log) if f.code == "LG004"] == [4]


def test_plain_log_is_false_wherever_a_rule_it_gates_reports(feature_verdicts):
    """logging.plain_log, the "odd-log" gate of LG001, LG002, LG005, LG006 and SV002 (the engine
    does not call them on a plain log message): every message they report on is not plain, and
    the well-formed ones past the handshake are."""
    from mcplint.rules import all_rules

    gated = {rule.code for rule in all_rules() if "odd-log" in rule.requires}
    assert gated == {"LG001", "LG002", "LG005", "LG006", "SV002"}
    verdicts = feature_verdicts("odd-log")  # line -> plain_log(record), as the engine asks it
    no_data = 'S→C {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","msg":"x"}}\n'
    text = (INIT + log() + log("debug", '{"n":1}')  # plain: lines 2, 3
            + log("warn") + log(3) + no_data  # LG002 x2, LG005: lines 4-6
            + log("info", '"password=hunter22"') + log("info", '"mail bob@corp.org"')  # LG006: lines 7, 8
            + no_data.replace('"msg":"x"', '"data":"x","logger":5'))  # SV002 (only the acceptor refuses it): 9
    found = {line for line, code, _ in lg(text) if code in ("LG002", "LG005", "LG006")}
    assert found == {4, 5, 6, 7, 8}
    assert [(f.line, f.code) for f in run_transcript(text) if f.code == "SV002"] == [(9, "SV002")]
    assert {line for line, plain in verdicts.items() if plain} == {2, 3}


def test_plain_log_is_false_where_lg001_may_report(feature_verdicts):
    """LG001 is gated by "odd-log" too: a message before the initialize result (kept, then
    reported) and a 2026-07-28 message (judged by the server/discover capabilities) are not plain;
    LG001 is still called on the initialize result, which the feature does not concern."""
    verdicts = feature_verdicts("odd-log")
    initialize = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                  '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n')
    answer = ('S→C {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},'
              '"serverInfo":{"name":"s","version":"1"}}}\n')
    early = initialize + log() + log("debug") + answer + log()  # lines 2, 3 early; line 5 after the answer
    assert [line for line, code, _ in lg(early) if code == "LG001"] == [2, 3]
    assert verdicts == {2: False, 3: False, 5: True}
    discover = ('C→S {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{' + META + '}}}\n'
                'S→C {"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},'
                '"serverInfo":{"name":"s","version":"1"}}}\n')
    verdicts.clear()
    found = [line for line, code, _ in lg(discover + log()) if code == "LG001"]
    assert found == [3] and verdicts == {3: False}

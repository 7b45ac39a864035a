"""Bounded per-session tables: compact answered requests, caps, and IO012 tracking-limit-reached."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from mcplint.analysis import analyzer
from mcplint.analysis.analyzer import Answered, RequestEntry
from mcplint.analysis.engine import Engine
from mcplint.cli import main
from mcplint.config.settings import configure
from mcplint.model import Direction, Kind
from mcplint.rules import all_rules
from mcplint.rules._base import Tracker
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={} S={"tools":{}}'


def c2s(message: dict) -> str:
    return "C→S " + orjson.dumps(message).decode()


def s2c(message: dict) -> str:
    return "S→C " + orjson.dumps(message).decode()


def call(i, token=None) -> str:
    params = {"name": "t", "arguments": {"n": i}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return c2s({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params})


def result(i) -> str:
    return s2c({"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": "x" * 200}]}})


def long_session(calls: int) -> list[str]:
    """A clean session of ``calls`` tool calls, each with a progress token and one progress."""
    lines = [INIT]
    for i in range(1, calls + 1):
        lines += [call(i, f"p{i}"),
                  s2c({"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": f"p{i}", "progress": 1}}),
                  result(i)]
    return lines


def late_trouble() -> list[str]:
    """Problems with requests answered long before (beyond the whole-kept window)."""
    return [
        result(5),  # JR013: duplicate response
        call(7),  # JR006: reused id
        c2s({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}),  # CN002
        s2c({"jsonrpc": "2.0", "method": "notifications/progress",
             "params": {"progressToken": "p11", "progress": 2}}),  # PR004: progress after completion
        s2c({"jsonrpc": "2.0", "id": "13", "result": {"content": []}}),  # JR012: id of the wrong type
    ]


def engine_with(**options) -> Engine:
    return Engine(configure(all_rules(), {"IO012": options}))


def facts(findings):
    return sorted((f.line, f.code, f.severity.value, f.message, tuple((r.line, r.note) for r in f.related))
                  for f in findings)


def test_compact_entries_give_the_findings_of_whole_ones(monkeypatch):
    text = "\n".join(long_session(300) + late_trouble())
    compact = facts(run_transcript(text))
    monkeypatch.setattr(analyzer, "RECENT_ANSWERED", 10**9)
    whole = facts(run_transcript(text))
    assert compact == whole
    assert {code for _, code, *_ in compact} >= {"JR006", "JR012", "JR013", "CN002", "PR004"}


class TableWatch(Tracker):
    """Records the largest request tables and the most whole entries seen during the run."""

    kinds = frozenset(Kind)

    def __init__(self):
        self.largest = self.whole = 0

    def commit(self, record, session):
        table = session.requests[Direction.C2S]
        self.largest = max(self.largest, len(table))
        self.whole = max(self.whole, sum(1 for e in table.values() if type(e) is RequestEntry))


def test_answered_requests_are_kept_compact_and_capped():
    watch = TableWatch()
    engine = Engine(configure(all_rules(), {"IO012": {"max_answered": 500}}), observers=[watch])
    findings = run_transcript("\n".join(long_session(1200)), engine)
    assert watch.largest == 500
    assert watch.whole <= analyzer.RECENT_ANSWERED + 2  # the latest answered ones and the open call
    hits = [f for f in findings if f.code == "IO012"]
    assert len(hits) == 1 and "more than 500 requests" in hits[0].message
    assert hits[0].line == 3 * 499 + 2  # call 500, the 501st request (initialize was the first)
    assert [f.code for f in findings if f.code != "IO012"] == []


def test_no_limit_reached_no_finding():
    assert not [f for f in run_transcript("\n".join(long_session(150))) if f.code == "IO012"]


def test_each_table_is_reported_once_per_session():
    lines = [INIT] + [call(i, f"p{i}") for i in range(1, 8)] + [result(i) for i in range(1, 8)]
    findings = run_transcript("\n".join(lines + lines), engine_with(max_pending=3))  # two sessions
    hits = [(f.session, f.line, f.message.split(";")[0]) for f in findings if f.code == "IO012"]
    assert [(s, line) for s, line, _ in hits] == [("1", 5), ("1", 5), ("2", 20), ("2", 20)]
    assert {m for _, _, m in hits} == {
        "Tracking limit reached: more than 3 requests of the client were open at once",
        "Tracking limit reached: more than 3 progress tokens of the client's requests were live at once"}
    assert not [f for f in findings if f.code in ("JR011", "HX001")]  # late answers to forgotten requests


def test_forgotten_open_request_can_be_cancelled():
    lines = [INIT, call(1), call(2), call(3),
             c2s({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
             c2s({"jsonrpc": "2.0", "id": 1, "method": "ping"})]
    codes = [(f.line, f.code) for f in run_transcript("\n".join(lines), engine_with(max_pending=2))]
    assert (6, "JR006") in codes and not [c for c in codes if c[1] in ("CN001", "CN002")]


def test_forgotten_open_request_answered_twice_is_a_duplicate():
    lines = [INIT, call(1), call(2), call(3), result(1), result(1)]
    codes = [(f.line, f.code) for f in run_transcript("\n".join(lines), engine_with(max_pending=2))]
    assert (6, "JR013") in codes and not [c for c in codes if c[1] == "JR011"]


def test_tool_list_beyond_the_cap_is_incomplete():
    tools = [{"name": f"tool{i}", "inputSchema": {"type": "object"}} for i in range(3)]
    lines = [INIT, c2s({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
             s2c({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}),
             c2s({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "tool2", "arguments": {}}}),
             c2s({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nope", "arguments": {}}})]
    findings = run_transcript("\n".join(lines), engine_with(max_tools=2))
    assert [(f.line, f.code) for f in findings if f.code in ("IO012", "HX007")] == [(3, "IO012")]
    assert "tools/list listed more than 2 tools" in next(f.message for f in findings if f.code == "IO012")
    default = run_transcript("\n".join(lines))
    assert [(f.line, f.code) for f in default if f.code in ("IO012", "HX007")] == [(5, "HX007")]


def test_answered_entry_stand_ins():
    entry = RequestEntry(_record(4, "tools/call", 1.5))
    entry.response = _record(9, None, 2.0, Kind.ERROR)
    compact = Answered(entry, Direction.C2S)
    assert not compact.pending and compact.cancel is None and compact.token is None
    request = compact.record
    assert (request.line, request.method, request.id, request.t) == (4, "tools/call", 7, 1.5)
    assert (compact.response.line, compact.response.kind, compact.response.direction) == (9, Kind.ERROR, Direction.S2C)
    assert compact.record.msg is None and compact.record.params is None


def _record(line, method, t, kind=Kind.REQUEST):
    from mcplint.model import Record

    return Record("<t>", line, kind, b"{}", direction=Direction.C2S, has_id=True, id=7, method=method, t=t,
                  msg={}, params={"big": "x" * 1000})


@pytest.mark.parametrize("value", ["0", "-1", "many"])
def test_bad_option_values_are_configuration_errors(tmp_path, value):
    config = tmp_path / "mcplint.toml"
    config.write_text(f"[rules.tracking-limit-reached]\nmax-pending = {value!r}\n".replace("'", '"'))
    capture = tmp_path / "c.jsonl"
    capture.write_text('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    out = CliRunner().invoke(main, ["check", "--config", str(config), str(capture)])
    assert out.exit_code == 2 and "max-pending" in out.output


def test_cli_option_lowers_the_cap(tmp_path):
    config = tmp_path / "mcplint.toml"
    config.write_text("[rules.tracking-limit-reached]\nmax-answered = 100\n")
    capture = tmp_path / "long.transcript"
    capture.write_text("\n".join(long_session(120)) + "\n")
    out = CliRunner().invoke(main, ["check", "--config", str(config), "--output-format", "json", str(capture)])
    found = orjson.loads(out.output)
    assert [f["code"] for f in found] == ["IO012"] and found[0]["party"] == "capture"
    out = CliRunner().invoke(main, ["check", "--isolated", "--output-format", "json", str(capture)])
    assert orjson.loads(out.output) == []


def test_forgotten_subscriptions_are_reported_not_misjudged(monkeypatch):
    from mcplint.rules import resources

    monkeypatch.setattr(resources, "MAX_SUBSCRIPTIONS", 2)
    lines = ['# init 2025-06-18 C={} S={"resources":{"subscribe":true}}']
    for i in (1, 2, 3):
        lines += [c2s({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe", "params": {"uri": f"file:///{i}"}}),
                  s2c({"jsonrpc": "2.0", "id": i, "result": {}})]
    lines.append(s2c({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///1"}}))
    findings = run_transcript("\n".join(lines))
    assert [(f.line, f.code) for f in findings if f.code in ("IO012", "RS002")] == [(6, "IO012")]
    assert "subscribed to more than" in next(f.message for f in findings if f.code == "IO012")
    monkeypatch.setattr(resources, "MAX_SUBSCRIPTIONS", 10)
    assert [(f.line, f.code) for f in run_transcript("\n".join(lines)) if f.code in ("IO012", "RS002")] == []


# -- sessions named by the capture ------------------------------------------------------------
def _keyed_capture(order: list[str]) -> bytes:
    """A canonical capture of one short session per key, messages in ``order`` of keys."""
    def line(key, direction, message):
        return orjson.dumps({"ts": "2026-01-01T00:00:00Z", "dir": direction, "session": key,
                             "raw": orjson.dumps(message).decode()})
    steps = {}
    for key in dict.fromkeys(order):
        steps[key] = iter([
            ("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
            ("s2c", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                           "serverInfo": {"name": "s", "version": "1"}}}),
            ("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ("c2s", {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            ("s2c", {"jsonrpc": "2.0", "id": 1, "result": {}}),
        ])
    return b"\n".join(line(key, *next(steps[key])) for key in order) + b"\n"


def _lint_keyed(data: bytes, max_sessions: int):
    import io

    rules = configure(all_rules(), {"IO012": {"max_sessions": max_sessions}})
    engine = Engine(rules)
    return [f for f in engine.lint_stream(io.BytesIO(data), "x.mcplog")], engine


def test_named_sessions_beyond_the_cap_are_finished_idle_first_and_said_once():
    order = [key for key in "abcdef" for _ in range(5)]  # one after the other, as in a gateway log
    data = _keyed_capture(order)
    capped, _ = _lint_keyed(data, 2)
    free, _ = _lint_keyed(data, 100)
    assert [f.code for f in free] == []
    assert [(f.code, f.session, f.line) for f in capped] == [("IO012", "a", 5)]  # at a's last message
    assert "sessions named by the capture" in capped[0].message


def test_a_named_session_that_goes_on_after_being_finished_is_a_new_one():
    order = ["a", "a", "a", "b", "c", "a", "a"]  # a is idle longest when c opens, then goes on
    found, _ = _lint_keyed(_keyed_capture(order), 2)
    sessions = {f.session for f in found}
    assert "a (resumed 4)" in sessions  # its later messages start mid-way (HX010/LC001 there)
    assert ("IO012", "a") in {(f.code, f.session) for f in found}

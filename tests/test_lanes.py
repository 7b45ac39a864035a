"""The fast lanes (``mcplint.analysis.lanes``) only save work: a run finds the same with them and
without them, and they do take the usual records."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.analysis.analyzer import Analyzer, Limits
from mcplint.analysis.engine import Engine
from mcplint.config.select import select_rules
from mcplint.model import Kind, Severity
from mcplint.rules._base import Rule
from tests.ruledocs import RULES_DIR, parse_page, run_example

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def findings(data: bytes, name: str, lanes: bool, rules=None) -> list[dict]:
    engine = Engine(rules, lanes=lanes)
    return [f.to_dict() for f in engine.lint_stream(io.BytesIO(data), name)]


def same_with_and_without_lanes(data: bytes, name: str) -> None:
    for rules in (None, select_rules()):  # every rule, and the default selection (fewer checks planned)
        assert findings(data, name, True, rules) == findings(data, name, False, rules)


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in sorted(SAMPLES.iterdir())
                                  if p.suffix in (".mcplog", ".jsonl", ".transcript", ".log", ".json", ".har")])
def test_samples_find_the_same_with_and_without_lanes(path):
    same_with_and_without_lanes(path.read_bytes(), path.name)


def test_rule_examples_find_the_same_with_and_without_lanes():
    for page in sorted(RULES_DIR.glob("*.md")):
        for example in parse_page(page).examples:
            with_lanes = [f.to_dict() for f in run_example(example, Engine(lanes=True))]
            assert with_lanes == [f.to_dict() for f in run_example(example, Engine(lanes=False))], page.name


class Witness(Rule):
    """Notes what the analyzer settled of each record as it is judged (by a lane or by
    ``Analyzer.observe``): a check of every record, so that a lane hands every record it settles
    to the engine with this plan."""

    code, name, severity, level, spec = "ZZ999", "witness", Severity.INFO, "info", ""
    kinds = frozenset(Kind)

    def __init__(self):
        self.seen: list[tuple] = []

    def check(self, record, session):
        ref, request, first = record.target, record.request, session.first_record
        self.seen.append((
            record.line, record.kind, record.direction, record.direction_observed, record.version,
            record.revision, record.answer, request.line if request is not None else None,
            (ref.token, ref.requester, ref.live is not None, ref.finished is not None) if ref is not None else None,
            session.label, session.era, session.phase, session.messages, session.midstream,
            first.line if first is not None else None, sorted((d.value, r.line) for d, r in session.first_message.items())))
        return ()


def settled(data: bytes, name: str, lanes: bool) -> list[tuple]:
    witness = Witness()
    list(Engine([*select_rules(), witness], lanes=lanes).lint_stream(io.BytesIO(data), name))
    return witness.seen


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in sorted(SAMPLES.iterdir())
                                  if p.suffix in (".mcplog", ".jsonl", ".har")])
def test_lanes_settle_records_as_observe_does(path):
    """Each record's facts (direction, version, request, progress target, session and its first
    messages), as the checks see them, are the same whether a lane or the general path settled it;
    the openings of later sessions too (``lanes.opening_lane``)."""
    data = path.read_bytes()
    twice = data if path.suffix == ".har" else data + b"\n" + data  # (a second session opened by a lane)
    assert settled(twice, path.name, True) == settled(twice, path.name, False)


HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
    {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {
        "tools": {}, "logging": {}}, "serverInfo": {"name": "s", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}},
]
_TOKENS = st.one_of(st.just(1), st.sampled_from([1, 2, "a", 1.5, None, True]))  # mostly the usual one
_NUMBERS = st.one_of(st.integers(-1, 5), st.sampled_from([2.5, "3", None]))
_ASIDE = st.sampled_from([
    {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}},
    {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud", "data": 1}},
    {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "data": "Error: boom"}},
    {"jsonrpc": "2.0", "id": 9, "method": "ping"}])


@st.composite
def progress(draw, token) -> dict:
    """A progress notification, mostly for ``token``, mostly well-formed."""
    params = {"progressToken": draw(st.one_of(st.just(token), _TOKENS)), "progress": draw(_NUMBERS)}
    optional = {"total": _NUMBERS, "message": st.sampled_from(["step", 3]), "_meta": st.just({"k": 1})}
    params.update(draw(st.fixed_dictionaries({}, optional=optional)))
    return {"jsonrpc": draw(st.sampled_from(["2.0"] * 5 + ["1.0"])), "method": "notifications/progress",
            "params": params}


@st.composite
def call(draw) -> list[dict]:
    """A tools/call that mostly asks for progress, the progress (in and out of order, for its token
    and others, with and without ``_meta``) and log messages while it runs, its cancellation, no
    answer, one or two, and maybe progress after it."""
    token, rid = draw(_TOKENS), draw(st.one_of(st.just(2), st.integers(2, 5)))
    params = {"name": draw(st.sampled_from(["t", "t", "u"])), "arguments": {}}
    if draw(st.integers(0, 3)):
        params["_meta"] = {"progressToken": token}
    out = [{"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}]
    out += draw(st.lists(st.one_of(progress(token), progress(token), _ASIDE), max_size=8))
    if draw(st.integers(0, 5)) == 0:
        out.append({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
    answers = draw(st.sampled_from([0, 1, 1, 1, 2]))  # unanswered, answered, answered twice
    out += [{"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "ok"}]}}] * answers
    out += draw(st.lists(progress(token), max_size=2))
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(call(), min_size=1, max_size=4), st.booleans(), st.booleans(), st.booleans())
def test_random_sessions_find_the_same_with_and_without_lanes(calls, labelled, timed, two_sessions):
    """JSON Lines without directions (the lane infers a progress notification's sender from its
    token) and captures with them, with and without times, one session or two in a row."""
    messages = [msg for each in calls for msg in each]
    session = HANDSHAKE + messages
    lines = []
    for number, msg in enumerate(session + (HANDSHAKE + messages[::-1] if two_sessions else [])):
        if not labelled:
            lines.append(orjson.dumps(msg))
            continue
        server = "result" in msg or msg.get("method") in ("notifications/progress", "notifications/message")
        line = {"dir": "s2c" if server else "c2s", "msg": msg}
        if timed:
            line["ts"] = f"2026-01-01T00:{number // 60:02d}:{number % 60:02d}Z"
        lines.append(orjson.dumps(line))
    same_with_and_without_lanes(b"\n".join(lines) + b"\n", "x.mcplog" if labelled else "x.jsonl")


CLEAN = b"\n".join(orjson.dumps(m) for m in [
    *HANDSHAKE,
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t", "arguments": {},
                                                                    "_meta": {"progressToken": "p"}}},
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": 1}},
    {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}},
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": 2}},
    {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "done"}]}},
]) + b"\n"


def general_lines(data: bytes, rules=None, lanes: bool = True) -> set[int]:
    """The lines that ``Analyzer.observe`` or ``Engine._plan`` saw (the general path; a lane asks
    ``_plan`` for a plan it does not find made)."""
    seen = set()
    observe, plan = Analyzer.observe, Engine._plan

    def observe_spy(self, record):
        seen.add(record.line)
        return observe(self, record)

    def plan_spy(self, record, session):
        seen.add(record.line)
        return plan(self, record, session)

    Analyzer.observe, Engine._plan = observe_spy, plan_spy
    try:
        assert findings(data, "clean.jsonl", lanes, rules) == []
    finally:
        Analyzer.observe, Engine._plan = observe, plan
    return seen


@pytest.mark.parametrize("rules", [None, select_rules()], ids=["all rules", "default rules"])
def test_the_usual_records_of_a_clean_session_take_the_lanes(rules):
    """The first notifications/initialized, tools/list and its answer, tools/call, progress, log
    message and answer of the file are planned the general way, which makes their plans; the later ones find
    their plans made: in the first session (the second progress, line 9) and in the second (all:
    its initialize, which ends the first session, and the answer to it, the server's first
    message, too)."""
    everything = general_lines(CLEAN + CLEAN, rules, lanes=False)
    assert everything - general_lines(CLEAN + CLEAN, rules) == {9, *range(11, 21)}


def test_an_unusual_progress_notification_takes_the_general_path():
    """Progress that does not grow (PR005) is judged by its rule: the lane's clean test fails, so
    its plan is not the empty one."""
    stalled = CLEAN.replace(b'"progress":2', b'"progress":1')
    codes = [f["code"] for f in findings(stalled + stalled, "x.jsonl", True, select_rules())]
    assert codes == [f["code"] for f in findings(stalled + stalled, "x.jsonl", False, select_rules())]
    assert codes.count("PR005") == 2


def test_an_analyzer_that_commits_its_own_way_takes_no_lane():
    """A lane does what Analyzer.observe and commit do: an analyzer class that overrides them
    sees every record."""
    seen = []

    class Watching(Analyzer):
        def commit(self, record):
            seen.append(record.line)
            super().commit(record)

    engine = Engine(select_rules())
    assert list(engine.lint_stream(io.BytesIO(CLEAN + CLEAN), "clean.jsonl", analyzer=Watching("clean.jsonl"))) == []
    assert seen == list(range(1, 21))


def test_named_sessions_are_active_in_the_same_order_with_and_without_lanes():
    """A record of a named session that takes a lane makes its session the most recently active
    one, as Analyzer._session_for does, also when its plan runs a check (a ping): which session
    is finished as idle when too many are open depends on that order."""
    def lines(label: str, messages: list[dict]) -> list[bytes]:
        return [orjson.dumps({"dir": "s2c" if "result" in m else "c2s", "session": label, "msg": m})
                for m in messages]

    ping = [{"jsonrpc": "2.0", "id": 7, "method": "ping"}]
    data = b"\n".join(lines("a", HANDSHAKE) + lines("b", HANDSHAKE) + lines("a", ping) + lines("c", HANDSHAKE)
                      + lines("a", [{"jsonrpc": "2.0", "id": 7, "result": {}}])) + b"\n"

    def run(lanes: bool) -> list[dict]:
        engine = Engine(lanes=lanes)
        analyzer = Analyzer("x.mcplog", None, Limits(sessions=2))
        return [f.to_dict() for f in engine.lint_stream(io.BytesIO(data), "x.mcplog", analyzer=analyzer)]

    assert run(True) == run(False)

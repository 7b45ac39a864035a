"""The analyzer's per-session tables are made when first used (issue 16: a capture of many short
sessions must not pay for tables a session never touches), and behave as before once made."""

from __future__ import annotations

import io

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.analysis.analyzer import UNWRITTEN, Analyzer, Bounded, Limits, Session, SessionTable, progress_ref
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames
from mcplint.model import Direction

C2S, S2C = Direction.C2S, Direction.S2C


def analyze(*messages: dict) -> Analyzer:
    data = b"".join(orjson.dumps(m) + b"\n" for m in messages)
    analyzer = Analyzer("t.jsonl")
    for record in Parser("t.jsonl").records(open_frames(io.BytesIO(data), "jsonl")[1]):
        analyzer.observe(record)
        analyzer.commit(record)
    return analyzer


def test_a_new_session_has_made_no_table():
    session = Session("t", "1", 1)
    for sides in (session.requests, session.pending, session.tokens, session.finished_tokens, session.recent):
        assert dict(sides) == {}


def test_a_session_writes_no_shared_empty_table():
    """A new session reads its limit notes, unreadable counts and tool catalog from shared empty
    read-only tables; the first write makes the session its own, and another session still reads
    them empty."""
    first, second = Session("t", "1", 1, limits=Limits(answered=1)), Session("t", "2", 2)
    assert not first.limits_hit and not first.unreadable and not first.tools.names and not first.tools.tools
    analyzer = analyze(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "x", "inputSchema": {"type": "object"}}]}},
    )
    assert analyzer.current.tools.names == {"x"} and list(analyzer.current.tools.tools) == ["x"]
    first.last_record = object()
    first.requests[C2S].put("a", 1)
    first.requests[C2S].put("b", 2)
    unread = Analyzer("t.jsonl")
    data = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\n{"jsonrpc": "2.0", "id": 2,\n'
    for record in Parser("t.jsonl").records(open_frames(io.BytesIO(data), "jsonl")[1]):
        unread.observe(record)
        unread.commit(record)
    assert list(first.limits_hit) == ["answered:c2s"] and sum(unread.current.unreadable.values()) == 1
    assert not second.limits_hit and not second.unreadable and not Session("t", "3", 3).tools.names
    for write in (lambda t: t.__setitem__("x", 1), lambda t: t.setdefault("x", 1), lambda t: t.update(x=1)):
        with pytest.raises(TypeError):
            write(second.limits_hit)
    assert second.limits_hit == {} and second.tools.tools.get("x") is None and second.limits_hit is UNWRITTEN


def test_a_table_is_made_on_first_use_with_the_session_limits():
    session = Session("t", "1", 1, limits=Limits(answered=3, pending=2))
    table = session.pending[C2S]
    assert isinstance(table, SessionTable) and table.limit == 2 and session.pending[C2S] is table
    assert session.requests[S2C].limit == 3 and session.undirected.limit == 2
    assert list(session.pending) == [C2S]
    with pytest.raises(KeyError):
        session.pending[None]


def test_a_client_only_session_makes_no_server_side_table():
    analyzer = analyze(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x", "_meta": {"progressToken": 7}}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 7, "progress": 1}},
        {"jsonrpc": "2.0", "id": 2, "result": {"content": []}},
    )
    session = analyzer.current
    assert all(S2C not in sides for sides in (session.requests, session.pending, session.tokens,
                                              session.finished_tokens))
    assert session.find_request(C2S, 2).response is not None
    assert session.find_request(S2C, 2) is None
    assert 7 in session.finished_tokens[C2S]  # an integer token is its own key (model.id_key)


def test_a_lazily_made_table_still_notes_its_limit():
    session = Session("t", "1", 1, limits=Limits(answered=1))
    session.last_record = object()
    session.requests[S2C].put("a", 1)
    session.requests[S2C].put("b", 2)
    assert list(session.requests[S2C]) == ["b"] and session.requests[S2C].evicted == 1
    assert list(session.limits_hit) == ["answered:s2c"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["put", "pop"]), st.integers(0, 12)), max_size=80), st.integers(1, 5))
def test_a_session_table_forgets_as_an_ordered_dict_forgets(steps, limit):
    """A SessionTable is a plain dict until it first overflows, then a FullTable in its place:
    whichever it is, it keeps and forgets the entries (in order) that a Bounded of the same limit
    keeps and forgets, and the session hears of each forgotten one."""
    class Listening(Session):
        def forgot(self, table, sender, key, value):
            heard.append((table, sender, key, value))

    session, heard = Listening("t", "1", 1, limits=Limits(answered=limit)), []
    forgotten, model = [], Bounded(limit, lambda key, value: forgotten.append(("answered", C2S, key, value)))
    for op, key in steps:
        if op == "put":
            session.requests[C2S].put(key, -key)
            model[key] = -key
        else:
            session.requests[C2S].pop(key, None)
            model.pop(key, None)
        assert list(session.requests[C2S].items()) == list(model.items())
    assert heard == forgotten and session.requests[C2S].evicted == model.evicted


def test_a_released_session_leaves_no_progress_cycle():
    """A request's last progress notification refers back to it (record.target): release cuts the
    link, so the session's records are freed at once, not by a garbage collection."""
    import gc

    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        analyzer = analyze(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x", "_meta": {"progressToken": 7}}},
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 7, "progress": 1}},
            {"jsonrpc": "2.0", "id": 2, "result": {"content": []}},
        )
        analyzer.current.release()
        del analyzer
        gc.collect()
        assert not [o for o in gc.garbage if type(o).__name__ in ("Record", "RequestEntry", "ProgressRef")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


# -- progress tokens that tell a notification's direction ---------------------------------------
_TOKENS = st.sampled_from([1, "1", "a", None, 2.5])


def _traffic_message(what: str, number: int, token) -> dict:
    if what == "call":
        return {"jsonrpc": "2.0", "id": number, "method": "tools/call",
                "params": {"name": "t", "_meta": {"progressToken": token}}}
    if what == "sample":  # a server's request: its token is the server's
        return {"jsonrpc": "2.0", "id": number, "method": "sampling/createMessage",
                "params": {"messages": [], "maxTokens": 1, "_meta": {"progressToken": token}}}
    if what == "answer":
        return {"jsonrpc": "2.0", "id": number, "result": {}}
    if what == "bare":  # a progress notification without a token
        return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["call", "sample", "answer", "progress", "progress", "bare"]),
                          st.integers(0, 3), _TOKENS), max_size=30))
def test_a_progress_token_that_tells_the_direction_resolves_as_progress_ref(steps):
    """A progress notification whose direction its token tells (plain JSON Lines) has its
    ``target`` resolved while the direction is inferred: exactly what progress_ref gives."""
    messages = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}},
                {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {}}}]
    messages += [_traffic_message(*step) for step in steps]
    data = b"".join(orjson.dumps(m) + b"\n" for m in messages)
    analyzer = Analyzer("t.jsonl")
    for record in Parser("t.jsonl").records(open_frames(io.BytesIO(data), "jsonl")[1]):
        session = analyzer.observe(record)
        if record.method == "notifications/progress":
            assert record.target == progress_ref(record, session)
        analyzer.commit(record)


def short_sessions(count: int) -> bytes:
    """``count`` short sessions of one client, each with a tool call that draws no finding."""
    lines = []
    for _ in range(count):
        lines += [
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
            {"jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}},
            {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}]}},
        ]
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def sessions_alive_after(count: int) -> tuple[Analyzer, int]:
    """Lint ``count`` short sessions: the analyzer, and how many of its Session objects are still
    alive after a garbage collection."""
    import gc

    from mcplint.analysis.engine import Engine

    path = f"{count}.jsonl"
    engine, analyzer = Engine(), Analyzer(path)
    records = Parser(path).records(open_frames(io.BytesIO(short_sessions(count)), "jsonl")[1])
    list(engine.lint_records(records, path, analyzer))
    del records
    gc.collect()
    return analyzer, sum(1 for o in gc.get_objects() if type(o) is Session and o.path == path)


def test_a_finished_session_is_kept_compact_and_its_session_freed():
    """Issue 16 (peak RSS flat from 100 MB to 1 GB): what a finished session leaves behind is a
    FinishedSession with the facts the summary and whole-file rules read; the Session itself, its
    released tables and dicts, is freed (a rule or cache that kept it would keep every one). A few
    stay alive whatever the count: the current one, and the first to show a server's negotiated
    version (LC011 keeps its record per server and version for the whole file)."""
    from mcplint.analysis.analyzer import FinishedSession

    analyzer, alive = sessions_alive_after(30)
    sessions = analyzer.all_sessions()
    assert len(sessions) == 30 and all(type(s) is FinishedSession and s.finished for s in sessions)
    assert [(s.label, s.version, s.era, s.messages) for s in sessions] == \
        [(str(n), "2025-06-18", "legacy", 5) for n in range(1, 31)]
    assert not any(s.unreadable for s in sessions)
    assert alive <= 2 and sessions_alive_after(90)[1] == alive


_IDS = st.sampled_from([1, 2, 3, "1", "a", 1.5, None, True])
_MESSAGES = st.one_of(
    st.builds(lambda i: {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "t"}}, _IDS),
    st.builds(lambda i: {"jsonrpc": "2.0", "id": i, "method": "sampling/createMessage", "params": {}}, _IDS),
    st.builds(lambda i: {"jsonrpc": "2.0", "id": i, "method": "ping"}, _IDS),
    st.builds(lambda i: {"jsonrpc": "2.0", "id": i, "result": {}}, _IDS),
    st.builds(lambda i: {"jsonrpc": "2.0", "id": i, "error": {"code": -32601, "message": "no"}}, _IDS),
    st.builds(lambda i: {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": i}}, _IDS),
    st.just({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
    st.just({"jsonrpc": "2.0", "result": {}}),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_MESSAGES, max_size=30))
def test_a_response_to_an_open_client_request_is_matched_as_the_general_path_matches_it(messages):
    """observe's shortcut (_open_client_request: an id open on the client's side only) gives a
    response the direction, request and answer that direction inference and _match_response give."""
    import mcplint.analysis.analyzer as analyzer_module

    def facts(shortcut) -> list[tuple]:
        original = analyzer_module._open_client_request
        analyzer_module._open_client_request = shortcut
        try:
            data = b"".join(orjson.dumps(m) + b"\n" for m in messages)
            analyzer, out = Analyzer("t.jsonl"), []
            for record in Parser("t.jsonl").records(open_frames(io.BytesIO(data), "jsonl")[1]):
                analyzer.observe(record)
                out.append((record.line, record.direction, record.answer, record.version, record.revision,
                            record.request.line if record.request is not None else None, record.session.label))
                analyzer.commit(record)
            return out
        finally:
            analyzer_module._open_client_request = original

    assert facts(analyzer_module._open_client_request) == facts(lambda record, session: None)

"""Finishing a session that used no feature costs next to nothing (issue 16: a capture of many
short sessions pays the finishers once per session): the finishers make no state, no HTTP facts
and no tables, and the engine decides once per (version, era) which finishers apply. The gates
keep every finding: each rule still reports at the edge of its gate."""

from __future__ import annotations

from mcplint.analysis.analyzer import Session
from mcplint.analysis.engine import Engine
from mcplint.model import Direction
from mcplint.rules._http import HttpTracker
from tests.ruledocs import run_transcript

INIT = '# init 2025-06-18 C={"roots":{},"sampling":{}} S={"tools":{}}\n'
CALL = 'C→S {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\n'
ANSWER = 'S→C {"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n'
ROOTS = 'S→C {"jsonrpc":"2.0","id":9,"method":"roots/list"}\n'


def finished_states(monkeypatch, text: str) -> list[tuple[dict, dict]]:
    """(state, pending tables) of each session as the engine releases it."""
    seen = []
    release = Session.release

    def snapshot(session):
        seen.append((dict(session.state), dict(session.pending)))
        release(session)

    monkeypatch.setattr(Session, "release", snapshot)
    run_transcript(text)
    return seen


def test_finishers_of_a_clean_session_make_no_state(monkeypatch):
    [(state, pending)] = finished_states(monkeypatch, INIT + CALL + ANSWER)
    assert HttpTracker not in state  # HT008, HT010, HT016 ask without making the HTTP facts
    for name in ("RequestUnanswered", "ServerRequestUnanswered", "DirectionUnknown", "LineLimitReached",
                 "InitializedMissing", "ListChangeWithoutNotification"):
        assert name not in state
    assert Direction.S2C not in pending  # HX001/HX005 read the server's table without making it


def test_hx001_fires_when_only_the_client_has_a_request_open():
    found = run_transcript(INIT + CALL)
    assert [f.code for f in found if f.code in ("HX001", "HX005")] == ["HX001"]


def test_hx005_fires_when_only_the_server_has_a_request_open():
    found = run_transcript(INIT + ROOTS)
    assert [f.code for f in found if f.code in ("HX001", "HX005")] == ["HX005"]


def test_applicable_finishers_are_decided_once_per_version_and_era(monkeypatch):
    def asked(sessions: int) -> int:
        engine, calls = Engine(), []
        applies = engine.applies
        monkeypatch.setattr(engine, "applies", lambda *args: calls.append(args) or applies(*args))
        run_transcript((INIT + CALL + ANSWER) * sessions, engine)
        return len(calls)

    assert asked(3) == asked(1)  # a second session of the same version asks nothing again

"""Finishing a session that used no feature costs next to nothing (issue 16: a capture of many
short sessions pays the finishers once per session): the finishers make no state, no HTTP facts
and no tables, and the engine decides once per (version, era) which finishers apply. The gates
keep every finding: each rule still reports at the edge of its gate."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mcplint.analysis.analyzer import Session
from mcplint.analysis.engine import Engine
from mcplint.model import Direction
from mcplint.rules._http import HttpTracker
from tests.ruledocs import RULES_DIR, parse_page, run_example, run_transcript

INIT = '# init 2025-06-18 C={"roots":{},"sampling":{}} S={"tools":{}}\n'
CALL = 'C→S {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}\n'
ANSWER = 'S→C {"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n'
LIST = 'C→S {"jsonrpc":"2.0","id":7,"method":"tools/list"}\n'
LISTED = 'S→C {"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}\n'
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


# -- finishers planned by what the session holds (Rule.finish_needs) ----------------------------
SAMPLES = Path(__file__).resolve().parent.parent / "samples"


class SkipWatch:
    """Runs, at each session's end, every applicable finisher the engine skips, and holds that
    each finds nothing (what ``Rule.finish_needs`` promises); counts the skips."""

    def __init__(self, engine: Engine):
        self.engine, self.skipped = engine, Counter()
        finish = engine._finish

        def watched(session):
            planned = engine.finishers_of(session)
            for rule in engine._finishers:
                if engine.applies(rule, session.version, session.modern) and rule.finish not in planned:
                    assert list(rule.finish(session)) == [], (rule.code, session.label)
                    self.skipped[rule.code] += 1
            return finish(session)

        engine._finish = watched


def _rule_examples():
    from mcplint.config.settings import configure
    from mcplint.rules import all_rules, load
    from mcplint.rules._base import options_model

    registry = load()
    for page in sorted(RULES_DIR.glob("*.md")):
        code = page.name.partition("-")[0]
        for example in parse_page(page).examples:
            rules = None
            if example.options and code in registry:
                options = options_model(registry[code].Options).model_validate(example.options).model_dump()
                rules = configure(all_rules(), {code: options})
            yield example, rules


def test_skipped_finishers_find_nothing_in_the_rule_examples():
    skipped = Counter()
    for example, rules in _rule_examples():
        watch = SkipWatch(Engine(rules))
        run_example(example, watch.engine)
        skipped += watch.skipped
    assert set(skipped) == {r.code for r in Engine()._finishers}  # each was skipped somewhere


@pytest.mark.parametrize("path", sorted(p for p in SAMPLES.iterdir() if p.suffix not in (".md", ".flow")), ids=lambda p: p.name)
def test_skipped_finishers_find_nothing_in_the_samples(path):
    watch = SkipWatch(Engine())
    with path.open("rb") as stream:
        list(watch.engine.lint_stream(stream, path.name))


def test_a_clean_session_calls_no_finisher(monkeypatch):
    """A session that ended with nothing open, within every table's limit, whose rules noted
    nothing to report at its end (a tools listing that did not change, HX008's only state) costs
    no finisher call."""
    engine = Engine()
    calls = []
    for rule in engine._finishers:
        monkeypatch.setattr(rule, "finish", lambda session, finish=rule.finish: calls.append(session) or finish(session))
    run_transcript(INIT + CALL + ANSWER + LIST + LISTED + LIST.replace("7", "8") + LISTED.replace("7", "8"), engine)
    assert calls == []
    run_transcript(INIT + CALL, engine)  # a request left open: HX001 asked
    assert len(calls) == 1


def test_a_finisher_overridden_without_its_needs_is_always_called():
    """A subclass that judges the end of a session otherwise than its base declares no needs by
    inheritance: its finisher runs at every session's end."""
    from mcplint.analysis.engine import _needs
    from mcplint.rules.lifecycle import InitializedMissing

    class Other(InitializedMissing):
        def finish(self, session):
            return ()

    class Declared(Other):
        finish_needs = frozenset({"limits"})

    assert _needs(InitializedMissing()) == {"InitializedMissing", InitializedMissing}
    assert _needs(Other()) is None
    assert _needs(Declared()) == {"limits"}

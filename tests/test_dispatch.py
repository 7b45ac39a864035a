"""The dispatch table only saves work: pruning by record features (``Rule.requires``) and by
``Rule.dispatches`` never changes what a run finds."""

from __future__ import annotations

import io
from contextlib import contextmanager
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.analysis import features as features_module
from mcplint.analysis.engine import Engine
from mcplint.rules import all_rules
from mcplint.rules._base import FAMILY_FEATURES, TRACKERS

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


#: requirements that are part of a rule's meaning (IO011 is about undirected records), not savings
SEMANTIC = frozenset({"flags", "undirected"})


@contextmanager
def unpruned():
    """Every rule and tracker dispatched on every record of its kinds, methods, revisions and
    phases, and every finisher called at the end of every session of its revisions."""
    always = classmethod(lambda cls, *args: True)
    patched = {(cls, hook): vars(cls)[hook] for cls in {type(r) for r in all_rules()}
               for hook in ("dispatches", "awaits") if hook in vars(cls)}
    requires = {type(r): type(r).requires for r in all_rules()}
    requires_any = {cls: vars(cls)["requires_any"] for cls in {type(r) for r in all_rules()} | set(TRACKERS)
                    if "requires_any" in vars(cls)}
    tracker_requires = {cls: vars(cls)["requires"] for cls in TRACKERS if "requires" in vars(cls)}
    needs = {cls: vars(cls)["finish_needs"] for cls in {type(r) for r in all_rules()} if "finish_needs" in vars(cls)}
    try:
        for cls, hook in patched:
            setattr(cls, hook, always)
        for cls, needed in requires.items():
            cls.requires = needed & SEMANTIC
        for cls in needs:
            cls.finish_needs = None
        for cls in requires_any:
            cls.requires_any = frozenset()
        for cls in tracker_requires:
            cls.requires = frozenset()
        yield
    finally:
        for (cls, hook), value in patched.items():
            setattr(cls, hook, value)
        for cls, value in requires.items():
            cls.requires = value
        for cls, value in needs.items():
            cls.finish_needs = value
        for cls, value in requires_any.items():
            cls.requires_any = value
        for cls, value in tracker_requires.items():
            cls.requires = value


def findings(data: bytes, name: str) -> list[tuple]:
    return [(f.line, f.code, f.message) for f in Engine().lint_stream(io.BytesIO(data), name)]


def same_with_and_without_pruning(data: bytes, name: str) -> None:
    pruned = findings(data, name)
    with unpruned():
        assert findings(data, name) == pruned


def _inputs() -> list:
    out = []
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix in (".mcplog", ".jsonl", ".transcript", ".log", ".json", ".har"):
            out.append(pytest.param(path, id=path.name))
    return out


@pytest.mark.parametrize("path", _inputs())
def test_samples_find_the_same_with_and_without_pruning(path):
    same_with_and_without_pruning(path.read_bytes(), path.name)


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(["2.0", "1.0", "", "x"]),
                    st.just({}), st.just([]), st.just({"_meta": {"progressToken": 1}}))
_META = st.one_of(_VALUES, st.sampled_from([{"progressToken": 1}, {"progressToken": "a"}, {"progressToken": 1.5}]))
_LEVELS = st.one_of(_VALUES, st.sampled_from(["info", "error", "warn"]))
_DATA = st.one_of(_VALUES, st.sampled_from(["connected", "password=hunter22", "mail bob@corp.org"]))
_BLOCKS = st.one_of(_VALUES, st.lists(st.sampled_from(
    [{"type": "text", "text": "ok"}, {"type": "text", "text": "Error: boom"}, {"type": "text", "text": 1},
     {"type": "image", "data": "AAA", "mimeType": "image/png"}, {"type": "resource_link"}, {"type": "bogus"}, 3]),
    max_size=2))
_TOOLS = st.sampled_from([[{"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}],
                          [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}],
                          [{"name": "u", "inputSchema": {"type": "object"}}]])
_METHODS = st.sampled_from(["initialize", "notifications/initialized", "tools/list", "tools/call", "ping",
                            "notifications/progress", "notifications/message", "logging/setLevel",
                            "notifications/cancelled", "rpc.discover", "sampling/createMessage",
                            "server/discover", "custom/thing"])


@st.composite
def messages(draw):
    msg = {}
    if draw(st.booleans()):
        msg["jsonrpc"] = draw(st.sampled_from(["2.0", "2.0", "1.0", 2]))
    if draw(st.booleans()):
        msg["id"] = draw(st.one_of(st.integers(0, 4), st.sampled_from(["a", None, 1.5, True])))
    if draw(st.booleans()):
        msg["method"] = draw(_METHODS)
        if draw(st.booleans()):
            msg["params"] = draw(st.one_of(_VALUES, st.fixed_dictionaries(
                {}, optional={"_meta": _META, "progressToken": _VALUES, "level": _LEVELS, "data": _DATA,
                              "protocolVersion": st.sampled_from(["2025-06-18", "2024-11-05"]),
                              "capabilities": _VALUES, "name": st.one_of(_VALUES, st.sampled_from(["t", "u"])),
                              "arguments": st.sampled_from([{}, {"a": 1}, {"a": "x"}, []]), "cursor": _VALUES})))
    else:
        if draw(st.booleans()):
            msg["result"] = draw(st.one_of(_VALUES, st.fixed_dictionaries(
                {}, optional={"_meta": _VALUES, "content": _BLOCKS, "isError": _VALUES, "tools": _TOOLS,
                              "protocolVersion": st.just("2025-06-18"), "capabilities": _VALUES})))
        if draw(st.booleans()):
            msg["error"] = draw(st.one_of(_VALUES, st.just({"code": -32601, "message": "x"})))
    line = {"dir": draw(st.sampled_from(["c2s", "s2c"])), "msg": msg}
    if draw(st.booleans()):
        line["ts"] = f"2026-01-01T00:00:{draw(st.integers(0, 59)):02d}Z"
    return orjson.dumps(line)


@settings(max_examples=150, deadline=None)
@given(st.lists(messages(), max_size=25))
def test_random_captures_find_the_same_with_and_without_pruning(lines):
    start = [orjson.dumps({"ts": "2026-01-01T00:00:00Z", "dir": "c2s", "msg": {
        "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}})]
    data = b"\n".join(start + lines) + b"\n"
    same_with_and_without_pruning(data, "x.mcplog")


def test_every_feature_a_rule_or_tracker_requires_exists():
    known = set(features_module.FEATURES) | set(FAMILY_FEATURES)
    for who in [*all_rules(), *(cls() for cls in TRACKERS)]:
        assert who.requires | {name for name in who.requires_any if not name.startswith("fact:")} <= known, who


CLEAN = b"""\
{"dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}}
{"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":"p"}}}}
{"dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}}
{"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}}
{"dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"ping"}}
{"dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{}}}
"""


@pytest.mark.parametrize("code", ["JR006", "CAP001", "CAP004", "LC012", "PR001", "PR002", "PA001", "PA004",
                                  "TL006", "TL009", "TL010", "TL014", "TL015", "HX013",
                                  "LG002", "LG004", "LG005", "LG006", "LC008", "LC009", "RS001", "HX010"])
def test_rules_waiting_for_a_session_fact_are_not_called_on_a_clean_session(code):
    """Id reuse, a closed capability gate, an unsupported version, a reused or ill-typed progress
    token, a cursor, an odd tool result or log message, a listed outputSchema, an acknowledged log
    level, a premature notifications/initialized (a phase), an operation before it and an early
    subscription are facts the plan sees: the rules waiting for them cost nothing where they do not
    hold."""
    assert calls_of(code, CLEAN) == []


@pytest.mark.parametrize("code", ["LC002", "LC003", "LC004", "LC010", "LC011", "LC013", "CAP006"])
def test_handshake_rules_are_not_called_on_a_handshake_they_know(code):
    """A handshake whose messages are well-formed, whose capabilities CAP006 found clean before and
    whose version the server echoed costs its rules nothing (lifecycle.plain_initialize,
    plain_initialize_result)."""
    calls_of(code, CLEAN)  # CAP006 sees these capabilities for the first time, perhaps
    assert calls_of(code, CLEAN) == []


def calls_of(code: str, data: bytes) -> list[int]:
    """Lines of ``data`` the rule ``code`` was called on (it reports none of them)."""
    engine = Engine()
    calls = []
    (rule,) = [r for r in engine.rules if r.code == code]
    check = rule.check
    rule.check = lambda record, session: calls.append(record.line) or check(record, session)
    assert [f.code for f in engine.lint_stream(io.BytesIO(data), "clean.jsonl") if f.code == code] == []
    return calls


UNLISTED = b"""\
{"dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}}
{"dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}}}
"""
LISTING = b"""\
{"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}}
"""


@pytest.mark.parametrize("code", ["TL006", "TL008", "TL009", "TL010", "HX007"])
def test_rules_of_listed_tools_are_not_called_in_a_session_that_lists_none(code):
    """A session that calls a tool it never listed (a capture that missed tools/list): the rules
    that judge a call by the listed tool wait for a listing (``errors.after_listing``), and are
    called once one came (TL010: once a listed tool has an outputSchema; TL008, HX007: on a call
    that ``tools.plain_call`` does not find clean, here of a tool whose schema has no acceptor)."""
    assert calls_of(code, UNLISTED) == []
    lines = UNLISTED.splitlines(keepends=True)
    listing = LISTING.replace(b'{"type":"object"}', b'{"type":"object","properties":{"q":{"pattern":"^a"}}}') \
        if code in ("TL008", "HX007") else LISTING
    listed = b"".join(lines[:3]) + listing + b"".join(lines[3:])
    assert calls_of(code, listed) != [] or code == "TL010"


def test_a_crashing_rule_costs_only_its_own_findings(monkeypatch):
    """A rule that raises (a bug of ours) is reported as a crash; what it found before it raised,
    and what the other rules find, are kept, on plain records and on batch elements alike, and
    when a session finishes."""
    from mcplint.model import Finding, Kind, Severity
    from mcplint.rules._base import Rule

    class Half(Rule):
        code, name, severity = "ZZ001", "half", Severity.INFO
        kinds = frozenset({Kind.REQUEST})

        def check(self, record, session):
            yield Finding(self.code, self.name, self.severity, "before", record.path, record.line)
            raise RuntimeError("boom")

        def finish(self, session):
            yield Finding(self.code, self.name, self.severity, "before", session.path, 0)
            raise RuntimeError("boom")

    class Whole(Rule):
        code, name, severity = "ZZ002", "whole", Severity.INFO
        kinds = frozenset({Kind.REQUEST})

        def check(self, record, session):
            return [Finding(self.code, self.name, self.severity, "fine", record.path, record.line)]

        def finish(self, session):
            return [Finding(self.code, self.name, self.severity, "fine", session.path, 0)]

    monkeypatch.delenv("MCPLINT_DEBUG", raising=False)
    engine = Engine([Half(), Whole()])
    data = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n[{"jsonrpc":"2.0","id":2,"method":"ping"}]\n'
    found = [(f.code, f.line) for f in engine.lint_stream(io.BytesIO(data), "<t>")]
    assert found == [("ZZ001", 1), ("ZZ002", 1), ("ZZ001", 2), ("ZZ002", 2), ("ZZ001", 0), ("ZZ002", 0)]
    crashes = engine.take_crashes()
    assert len(crashes) == 3 and all(c.startswith("ZZ001 failed on <t>:") and "boom" in c for c in crashes)

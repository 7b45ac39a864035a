"""ListedSchemas (rules/tools.py): what it keeps of a tools/list result, by a plain reading."""

from __future__ import annotations

from types import SimpleNamespace

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.model import Direction
from mcplint.rules._base import set_plan_facts
from mcplint.rules._simple_schema import acceptor as simple_acceptor
from mcplint.rules.errors import LISTED
from mcplint.rules.tools import (
    _LISTED_FACTS,
    _OUTPUT_FACTS,
    _OUTPUT_SCHEMAS,
    ListedSchemas,
)

_SCHEMAS = st.sampled_from([
    {"type": "object"}, {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}, {"$ref": "#/x"}, {}, "x", None, 3])
_TOOL = st.one_of(
    st.fixed_dictionaries({"name": st.sampled_from(["a", "b"])}, optional={"inputSchema": _SCHEMAS, "outputSchema": _SCHEMAS}),
    st.sampled_from([1, "t", None]))


def _plain_reading(tools: list, known: dict, facts: frozenset, session) -> None:
    """What the tracker keeps, read tool by tool: each inputSchema and outputSchema that is an
    object with its JSON text (and an acceptor or not), and the listing's plan facts."""
    if _OUTPUT_SCHEMAS not in facts:
        if any(isinstance(tool, dict) and "outputSchema" in tool for tool in tools):
            set_plan_facts(session, "tools:", _OUTPUT_FACTS)
        elif LISTED not in facts:
            set_plan_facts(session, "tools:", _LISTED_FACTS)
    for tool in tools:
        if isinstance(tool, dict):
            for member in ("inputSchema", "outputSchema"):
                schema = tool.get(member)
                if isinstance(schema, dict):
                    accepts = member == "inputSchema" and simple_acceptor(schema) is not None
                    known[id(schema)] = (schema, orjson.dumps(schema), accepts)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_TOOL, min_size=1, max_size=5), min_size=1, max_size=3))
def test_listed_schemas_keeps_what_a_plain_reading_keeps(listings):
    session = SimpleNamespace(plan_facts=frozenset(), state={})
    expected = SimpleNamespace(plan_facts=frozenset(), state={})
    tracker, known = ListedSchemas(), {}
    for tools in listings:
        # each listing parsed anew, as sessions list the same catalog in objects of their own
        record = SimpleNamespace(msg=orjson.loads(orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}})),
                                 direction=Direction.S2C)
        tracker.commit(record, session)
        _plain_reading(record.msg["result"]["tools"], known, expected.plan_facts, expected)
        kept = session.state[ListedSchemas]
        assert list(kept) == list(known)
        for key, (schema, text, accepts) in known.items():
            assert kept[key][0] is schema and kept[key][1] == text and (kept[key][2] is not None) == accepts
        assert session.plan_facts == expected.plan_facts

"""The kept explanations of SV001-SV003: a structural fingerprint stands for a value only where
the wire type cannot tell the values apart; owned() by its index agrees with every entry."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.rules import schema
from mcplint.rules._fingerprint import exact, fingerprinter
from tests.test_rules_schema import _mutate, corpus, mutated_sample


def _respelled(value, data):
    """``value`` with strings (some or all, keys kept) replaced by other strings."""
    if isinstance(value, dict):
        return {key: _respelled(item, data) for key, item in value.items()}
    if isinstance(value, list):
        return [_respelled(item, data) for item in value]
    if isinstance(value, str) and data.draw(st.booleans()):
        return data.draw(st.sampled_from(["", "x", value + "!", "text", "image", "user", "file:///b", "aGk="]))
    return value


def _same_fingerprint_same_issues(entry, one, two):
    fingerprint = entry.fingerprint
    assert fingerprint is not None
    if fingerprint(one) == fingerprint(two):
        assert schema.explain(entry, one, ("result",)) == schema.explain(entry, two, ("result",)), (one, two)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_values_with_one_fingerprint_have_the_same_issues(data):
    """Fails for a fingerprint that leaves out a literal, a number, a key or a member's type."""
    entry, value = mutated_sample(data)
    other = _respelled(value, data) if data.draw(st.booleans()) else _mutate(value, data)
    _same_fingerprint_same_issues(entry, value, other)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_kept_issues_are_the_issues(data):
    """Also after the judge refused a value (kept issues are looked up first then)."""
    entry, plain = data.draw(st.sampled_from(corpus()))
    value = _mutate(plain, data)
    other = _respelled(value, data)
    for item in (value, other, plain, _respelled(plain, data), value):
        assert schema.validate(entry, item, ("result",)) == _uncached(entry, item)


def _uncached(entry, value):
    try:
        entry.quick.validate_python(value, strict=True, by_name=False)
        return []
    except Exception:  # noqa: BLE001 - refused: the wire type explains
        return schema.explain(entry, value, ("result",))


def test_free_texts_share_a_fingerprint_and_literals_do_not():
    entry = schema.judge("result", "tools/call", "2025-11-25")
    fp = entry.fingerprint
    one = {"content": [{"type": "text"}], "isError": False}
    assert fp({"content": [{"type": "text", "text": "a"}]}) == fp({"content": [{"type": "text", "text": "b"}]})
    assert fp(one) != fp({"content": [{"type": "texts"}], "isError": False})
    assert fp(one) != fp({"content": [{"type": "text"}], "isError": 0})
    assert fp({"content": [], "isError": 1}) != fp({"content": [], "isError": True})
    assert fp({"content": [], "x": 0.0}) == fp({"content": [], "x": -0.0})  # an ignored member
    assert exact(0.0) != exact(-0.0) and exact(1) != exact(1.0) != exact(True)
    assert exact({"a": [1]}) != exact({"a": 1}) and exact([]) != exact({})
    assert schema.validate(entry, one, ("result",)) == \
        [schema.Issue(("result", "content", 0, "text"), "result.content[0].text is required but missing", "missing")]


def test_a_value_that_is_no_json_data_is_explained_without_the_cache():
    entry = schema.judge("result", "tools/call", "2025-11-25")
    value = {"content": [{"type": "text", "text": ("not", "json")}]}
    with pytest.raises(TypeError):
        entry.fingerprint(value)
    assert schema.validate(entry, value, ("result",)) == schema.explain(entry, value, ("result",))


@pytest.mark.parametrize("node", [{"type": "str", "min_length": 2}, {"type": "union", "choices": []},
                                  {"type": "literal", "expected": ["a"]}, {"type": "int"}, {"type": "url"}])
def test_nodes_that_judge_text_or_numbers_keep_the_value(node):
    fp = fingerprinter({"type": "model-fields", "fields": {"a": {"type": "model-field", "schema": node}}})
    assert fp({"a": "x"}) != fp({"a": "y"}) and fp({"a": 1}) != fp({"a": 2})


def _errors(validator, value):
    from pydantic_core import ValidationError

    try:
        validator.validate_python(value, strict=True, by_name=False)
    except ValidationError as exc:
        return [(e["loc"], e["type"], e["msg"], repr(e.get("input")), repr(e.get("ctx")))
                for e in exc.errors(include_url=False)]
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_explaining_schema_raises_the_errors_of_the_wire_type(data):
    """Its validator (stand-in model classes, no mcp_types) and the adapter agree error for error."""
    entry, value = mutated_sample(data) if data.draw(st.booleans()) else data.draw(st.sampled_from(corpus()))
    explainer = schema.explainer(schema.explain_schema(entry.adapter.core_schema))
    assert explainer is not None
    assert _errors(explainer, value) == _errors(entry.adapter, value)


def test_every_method_has_an_explaining_schema():
    surface = schema.surface()
    judges = [surface.adapter(kind, method, revision) for kind, table in surface.maps.items()
              for method, revision in table]
    assert len(judges) > 100
    assert [judge.key for judge in judges if judge.explain_schema is None or schema.explainer(judge.explain_schema)
            is None] == []


def _owned_by_every_entry(kind, method, issue, modern):
    """owned() as it was: every active entry tested in turn."""
    for entry in schema._owned_entries():
        if entry.kind != kind or (entry.methods is not None and method not in entry.methods):
            continue
        if entry.era is not None and (entry.era == "modern") != modern:
            continue
        if entry.match == "missing" and issue.kind != "missing":
            continue
        if entry.match == "present" and issue.kind == "missing":
            continue
        if schema._path_matches(entry.path, issue.path, entry.match):
            return True
    return False


_STEPS = st.sampled_from(["params", "result", "_meta", "progressToken", "content", "type", "mimeType",
                          "annotations", "priority", "tools", "name", "inputSchema", "uri", "level", "x", 0, 1])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["request", "notification", "result"]),
       st.sampled_from(sorted({m for o in schema.OWNED if o.methods for m in o.methods} | {"ping", "x/y"})),
       st.lists(_STEPS, max_size=6), st.sampled_from(["missing", "string_type", "union", ""]), st.booleans())
def test_owned_by_its_index_is_owned_by_every_entry(kind, method, path, issue_kind, modern):
    import mcplint.rules  # noqa: F401 - the registry decides which entries are active

    issue = schema.Issue(tuple(path), "x", issue_kind)
    for _ in range(2):  # the verdict, then the kept verdict
        assert schema.owned(kind, method, issue, modern) == _owned_by_every_entry(kind, method, issue, modern)

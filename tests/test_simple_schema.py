"""The simple-schema acceptor (rules/_simple_schema.py): it never vouches for what jsonschema refuses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import (
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
)

from mcplint.rules._simple_schema import (
    _META,
    _SCHEMA_MAPS,
    _SUBSCHEMA,
    _SUBSCHEMAS,
    DIALECTS,
    acceptor,
    surely_valid,
)

NAMES = ("a", "b", "c")
TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, 1.5, -2.5]),
                    st.sampled_from(["", "x", "yy", "zzz", "\U0001f600", "\U0001f600\U0001f600"]))
instances = scalars | st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(NAMES + ("d",)), inner, max_size=4)), max_leaves=8)


def _schemas(inner):
    keyword = st.one_of(
        st.tuples(st.just("type"), st.one_of(st.sampled_from(TYPES), st.lists(st.sampled_from(TYPES), min_size=1,
                                                                                max_size=3, unique=True))),
        st.tuples(st.just("enum"), st.lists(scalars, min_size=1, max_size=3)),
        st.tuples(st.just("const"), scalars),
        st.tuples(st.sampled_from(sorted(_SCHEMA_MAPS)), st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)),
        st.tuples(st.sampled_from(sorted(_SUBSCHEMAS)), st.lists(inner, max_size=2)),
        st.tuples(st.just("required"), st.lists(st.sampled_from(NAMES), max_size=3)),
        st.tuples(st.just("additionalProperties"), st.booleans()),
        st.tuples(st.just("items"), inner),
        st.tuples(st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
                  st.sampled_from([0, 1, -1.5, 2.5])),
        st.tuples(st.sampled_from(["minLength", "maxLength", "minItems", "maxItems"]), st.integers(0, 3)),
        st.tuples(st.sampled_from(["title", "description", "format", "default"]), st.sampled_from(["x", 1, "uri"])),
    )
    return st.lists(keyword, max_size=4).map(dict)


schemas = st.recursive(st.just({}) | st.just(True), _schemas, max_leaves=6)
VALIDATORS = (Draft6Validator, Draft7Validator, Draft201909Validator, Draft202012Validator)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, st.lists(instances, min_size=1, max_size=6))
def test_what_it_accepts_every_dialect_accepts(schema, values):
    accepts = acceptor(schema)
    if accepts is None:
        return
    for value in values:
        if accepts(value):
            for cls in VALIDATORS:
                assert list(cls(schema).iter_errors(value)) == [], (cls.__name__, schema, value)


flat_schemas = st.lists(st.one_of(
    st.tuples(st.just("type"), st.sampled_from(TYPES)),
    st.tuples(st.sampled_from(["enum", "const"]), st.one_of(scalars, st.lists(scalars, min_size=1, max_size=3))),
    st.tuples(st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]), st.sampled_from([0, 1, 1.5])),
    st.tuples(st.sampled_from(["minLength", "maxLength", "minItems", "maxItems"]), st.integers(0, 2)),
), max_size=3).map(dict)


@settings(max_examples=400)
@given(flat_schemas, st.lists(scalars | st.lists(scalars, max_size=3), min_size=1, max_size=8))
def test_what_it_accepts_of_scalars_every_dialect_accepts(schema, values):
    accepts = acceptor(schema)
    for value in values if accepts is not None else ():
        if accepts(value):
            for cls in VALIDATORS:
                assert cls(schema).is_valid(value), (cls.__name__, schema, value)


object_schemas = st.fixed_dictionaries({}, optional={
    "type": st.just("object"), "properties": st.dictionaries(st.sampled_from(NAMES), st.sampled_from(
        [{}, {"type": "integer"}, {"type": ["string", "null"]}]), max_size=3),
    "required": st.lists(st.sampled_from(NAMES), max_size=3), "additionalProperties": st.booleans()})


@settings(max_examples=300)
@given(st.data())
def test_what_it_accepts_of_objects_every_dialect_accepts(data):
    schema = data.draw(object_schemas)
    names = sorted({*schema.get("required", ()), *schema.get("properties", ()), "d"})  # members it names, and one more
    accepts = acceptor(schema)
    for value in data.draw(st.lists(st.dictionaries(st.sampled_from(names), scalars, max_size=3), min_size=1,
                                    max_size=8)) if accepts is not None else ():
        if accepts(value):
            for cls in VALIDATORS:
                assert cls(schema).is_valid(value), (cls.__name__, schema, value)


TOOL = {"type": "object", "required": ["query"], "additionalProperties": False,
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"query": {"type": "string", "title": "Query", "minLength": 1},
                       "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                       "order": {"enum": ["asc", "desc"]},
                       "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                       "where": {"type": ["object", "null"], "properties": {"near": {"type": "number"}}}}}


@pytest.mark.parametrize("value,accepted", [
    ({"query": "x"}, True),
    ({"query": "x", "limit": 5, "order": "asc", "tags": ["a"], "where": {"near": 1.5}}, True),
    ({"query": "x", "where": None}, True),
    ({"query": "x", "where": {"near": 2}}, True),  # an integer is a number
    ({}, False),  # required
    ({"query": ""}, False),  # minLength
    ({"query": 1}, False),
    ({"query": "x", "limit": True}, False),  # a boolean is no integer
    ({"query": "x", "limit": 51}, False),
    ({"query": "x", "limit": 5.0}, False),  # jsonschema takes it: the validator decides
    ({"query": "x", "order": "up"}, False),
    ({"query": "x", "tags": ["a", "b", "c"]}, False),
    ({"query": "x", "tags": [1]}, False),
    ({"query": "x", "where": {"near": "here"}}, False),
    ({"query": "x", "other": 1}, False),  # additionalProperties
    (["query"], False),
])
def test_ordinary_arguments(value, accepted):
    assert acceptor(TOOL)(value) is accepted
    if accepted:
        assert Draft7Validator(TOOL).is_valid(value)


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
    {"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}},
    {"allOf": [{"type": "object"}]},
    {"type": "object", "additionalProperties": {"type": "string"}},
    {"type": "object", "properties": {"a": False}},
    {"type": "array", "items": [{"type": "string"}]},  # draft-07 tuple form
    {"type": "widget"},
    {"type": "object", "$schema": "http://json-schema.org/draft-04/schema#"},
    {"type": "number", "exclusiveMinimum": True},  # draft-04 form
    {"enum": [{"a": 1}]},
    {"required": ["a"], "additionalProperties": False},  # "a" would be an additional member
    "not a schema",
])
def test_unsupported_schemas_get_no_acceptor(schema):
    assert acceptor(schema) is None


def test_anything_goes():
    assert acceptor({})(object()) and acceptor({"title": "t"})([1])


# -- surely_valid: a schema jsonschema's meta-schemas need not be asked about -----------------------
wild_values = st.one_of(scalars, st.lists(scalars | st.sampled_from(TYPES), max_size=3),
                        st.dictionaries(st.sampled_from(NAMES), scalars, max_size=2))


def _wild_schemas(inner):
    """Schemas whose keywords (those surely_valid knows, and two it does not) take values of any
    type, valid or not, and subschemas where a keyword wants one."""
    known = sorted({*_META, *_SUBSCHEMA, *_SUBSCHEMAS, *_SCHEMA_MAPS, "patternProperties", "$id"})
    keyword = st.one_of(
        st.tuples(st.sampled_from(known), wild_values | inner),
        st.tuples(st.sampled_from(sorted(_SCHEMA_MAPS)), st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)),
        st.tuples(st.sampled_from(sorted(_SUBSCHEMAS)), st.lists(inner, max_size=2)),
        st.tuples(st.sampled_from(["type", "required"]), st.lists(st.sampled_from((*TYPES, *NAMES)), min_size=1,
                                                                   max_size=3)),
    )
    return st.lists(keyword, max_size=4).map(dict)


wild_schemas = st.recursive(st.just({}) | st.booleans(), _wild_schemas, max_leaves=6)


@settings(max_examples=800, suppress_health_check=[HealthCheck.too_slow])
@given(wild_schemas, st.sampled_from([None, *sorted(DIALECTS), "http://json-schema.org/draft-04/schema#"]))
def test_what_it_finds_surely_valid_every_meta_schema_finds_valid(schema, dialect):
    if dialect is not None and type(schema) is dict:
        schema = {"$schema": dialect, **schema}
    if surely_valid(schema):
        for cls in VALIDATORS:
            assert cls(cls.META_SCHEMA).is_valid(schema), (cls.__name__, schema)


def test_ordinary_tool_schemas_are_surely_valid_and_odd_ones_are_left_to_jsonschema():
    assert surely_valid(TOOL) and surely_valid({"type": "object", "properties": {}}) and surely_valid(True)
    for odd in ({"type": "object", "required": ["a", "a"]}, {"type": ["string", "string"]},
                {"type": "string", "minimum": "1"}, {"properties": {"a": {"title": 1}}}, {"items": [{}]},
                {"type": "object", "properties": {"a": {"$ref": 1}}}, {"maxLength": -1}, {"allOf": []},
                {"multipleOf": 0}, {"type": "object", "properties": {"a": {"$id": "x"}}},
                {"$schema": "http://json-schema.org/draft-04/schema#"}):
        assert not surely_valid(odd), odd


def test_a_clean_session_with_simple_tool_schemas_does_not_import_jsonschema(tmp_path):
    """meta_errors asks jsonschema only about schemas surely_valid cannot vouch for (importing it
    costs about 45 ms of every run), and arguments the acceptor vouches for are not validated."""
    schema = {"type": "object", "properties": {"text": {"type": "string", "description": "what to echo"}},
              "required": ["text"]}
    messages = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
        {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                               "serverInfo": {"name": "s", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "echo", "inputSchema": schema}]}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}},
        {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "hi"}]}},
    ]
    path = tmp_path / "echo.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))
    code = ("import sys; from mcplint.api import lint_paths; findings, _ = lint_paths([sys.argv[1]]); "
            "print(len(findings), 'jsonschema' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert done.stdout.split()[1] == "False", done.stdout

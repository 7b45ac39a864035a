"""Arguments made from a tool's inputSchema (``mcplint probe --call-tools``): the valid ones
validate, the invalid ones do not."""

from __future__ import annotations

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from mcplint.commands.probe.args import arguments_for, invalid_arguments

_names = st.text("abcdefgh_", min_size=1, max_size=6)


def _bounded_number(kind: str):
    low = st.integers(-50, 50)
    return st.builds(lambda lo, width, exclusive: {"type": kind, ("exclusiveMinimum" if exclusive else "minimum"): lo,
                                                    "maximum": lo + width},
                     low, st.integers(2, 20), st.booleans())


_leaf = st.one_of(
    st.just({"type": "string"}), st.just({"type": "boolean"}), st.just({"type": "integer"}),
    st.just({"type": "number"}), _bounded_number("integer"), _bounded_number("number"),
    st.builds(lambda low, extra: {"type": "string", "minLength": low, "maxLength": low + extra},
              st.integers(0, 12), st.integers(0, 5)),
    st.lists(st.sampled_from(["a", "b", 3]), min_size=1, max_size=3, unique=True).map(lambda e: {"enum": e}),
    st.sampled_from(["uri", "email", "date", "date-time", "uuid"]).map(lambda f: {"type": "string", "format": f}),
    st.builds(lambda n: {"type": "array", "items": {"type": "integer"}, "minItems": n}, st.integers(0, 3)),
    st.just({"type": ["string", "null"]}),
    st.just({"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 5}]}),
)


def _object(children):
    return st.dictionaries(_names, children, max_size=4).flatmap(
        lambda props: st.lists(st.sampled_from(sorted(props)) if props else st.nothing(), unique=True).map(
            lambda required: {"type": "object", "properties": props, "required": required}))


schemas = st.recursive(_leaf, _object, max_leaves=8).filter(lambda s: s.get("type") == "object") | _object(_leaf)


@given(schemas)
def test_arguments_for_validate(schema):
    jsonschema.validate(arguments_for(schema), schema, format_checker=jsonschema.FormatChecker())


@given(schemas)
def test_invalid_arguments_do_not_validate(schema):
    wrong = invalid_arguments(schema)
    if wrong is not None:
        assert not jsonschema.Draft202012Validator(schema).is_valid(wrong)
    else:  # nothing required, no typed property: any object passes
        assert not schema["required"] and not any(isinstance(p, dict) and isinstance(p.get("type"), str)
                                                  for p in schema["properties"].values())


def test_defaults_and_consts_win():
    schema = {"type": "object", "required": ["a", "b"],
              "properties": {"a": {"type": "integer", "default": 7}, "b": {"const": "x"}}}
    assert arguments_for(schema) == {"a": 7, "b": "x"}
    assert invalid_arguments(schema) == {"b": "x"}

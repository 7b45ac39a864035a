"""Sure acceptance of instances of simple JSON Schemas, compiled to plain Python.

Most tool ``inputSchema`` objects ask only for types, required members, closed objects and a
few bounds. :func:`acceptor` translates such a schema into the pydantic-core schema nodes that
:mod:`mcplint.rules._shapes` compiles, and returns the compiled ``accepts(instance)``: true only
for instances that ``jsonschema`` validates without an error in every dialect mcplint uses
(draft-07, 2020-12; and 2019-09, draft-06 where ``$schema`` names them); false means "ask the
validator" (it may accept too: an integer written ``1.0``, a float enum member). A call whose
arguments it accepts costs one generated expression instead of a serialization and a lookup.

The keywords it knows: ``type`` (a name or a list of names), ``properties``, ``required``,
``additionalProperties`` (a boolean), ``items`` (one schema), ``minimum``/``maximum``/
``exclusiveMinimum``/``exclusiveMaximum`` (numbers), ``minLength``/``maxLength`` (characters),
``minItems``/``maxItems``, ``enum`` and ``const`` of strings, integers, booleans and null beside
``type`` alone, the annotations (``title``, ``description``, ``default``, ``examples``,
``$comment``, ``deprecated``, ``readOnly``, ``writeOnly``; ``format``, which ``jsonschema``
does not assert without a format checker), and ``$schema`` at the root naming one of the
dialects above. A schema with anything else (``$ref``, ``allOf``, ``pattern``, ``false``...)
gets no acceptor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcplint.rules._shapes import acceptor as compile_acceptor

_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
                          "writeOnly", "format"})
_BOUNDS = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt", "exclusiveMaximum": "lt"}
_ITEMS = {"minItems": "min_length", "maxItems": "max_length"}
_CHARACTERS = {"minLength": "min_length", "maxLength": "max_length"}
_OBJECT = frozenset({"properties", "required", "additionalProperties"})
_KEYWORDS = _ANNOTATIONS | _OBJECT | set(_BOUNDS) | set(_ITEMS) | set(_CHARACTERS) | {"type", "enum", "const", "items"}
_TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")
#: the JSON type names of an enum member's Python type (an integer is a number too)
_MEMBER_TYPES = {str: ("string",), int: ("integer", "number"), bool: ("boolean",), type(None): ("null",)}
_ANY = {"type": "any"}
#: dialects in which every keyword above means the same (no $schema: draft-07 or 2020-12)
DIALECTS = frozenset(f"{scheme}://json-schema.org/{path}" for scheme in ("http", "https") for path in (
    "draft-06/schema", "draft-06/schema#", "draft-07/schema", "draft-07/schema#",
    "draft/2019-09/schema", "draft/2019-09/schema#", "draft/2020-12/schema", "draft/2020-12/schema#"))


def _unique(values: list) -> bool:
    return len(set(values)) == len(values)


def _number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


#: what the meta-schema of each dialect above asks of the value of each keyword: those above (the
#: annotations included) and a few more that only :func:`surely_valid` knows of; the values of
#: ``_SUBSCHEMA`` keywords are schemas, of ``_SUBSCHEMAS`` lists of at least one, of
#: ``_SCHEMA_MAPS`` objects of schemas (tested as such by :func:`surely_valid`)
_META: dict[str, Callable[[Any], bool]] = {
    "type": lambda v: v in _TYPES if type(v) is str else (
        type(v) is list and bool(v) and all(type(n) is str and n in _TYPES for n in v) and _unique(v)),
    "required": lambda v: type(v) is list and all(type(n) is str for n in v) and _unique(v),
    "enum": lambda v: type(v) is list, "examples": lambda v: type(v) is list,
    "const": lambda v: True, "default": lambda v: True,
    **dict.fromkeys(("title", "description", "$comment", "format", "pattern", "$ref"), lambda v: type(v) is str),
    **dict.fromkeys(("deprecated", "readOnly", "writeOnly", "uniqueItems"), lambda v: type(v) is bool),
    **dict.fromkeys(_BOUNDS, _number), "multipleOf": lambda v: _number(v) and v > 0,
    **dict.fromkeys((*_ITEMS, *_CHARACTERS, "minProperties", "maxProperties"), _count),
}
_SUBSCHEMA = frozenset({"items", "additionalProperties", "not"})
_SUBSCHEMAS = frozenset({"allOf", "anyOf", "oneOf"})
_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions"})


def surely_valid(schema: Any) -> bool:
    """Whether ``schema`` is valid against the meta-schema of every dialect above for sure, so that
    ``jsonschema`` need not be asked (nor imported): it uses the keywords of ``_META`` and the
    subschema keywords only, each with a value that meta-schema allows (``$schema`` at the root
    only, naming one of the dialects)."""
    if type(schema) is dict and "$schema" in schema:
        if schema["$schema"] not in DIALECTS:
            return False
        schema = {key: value for key, value in schema.items() if key != "$schema"}
    return _valid_schema(schema)


def _valid_schema(schema: Any) -> bool:
    if type(schema) is bool:
        return True
    if type(schema) is not dict:
        return False
    for key, value in schema.items():
        if key in _SCHEMA_MAPS:
            if type(value) is not dict or not all(_valid_schema(member) for member in value.values()):
                return False
        elif key in _SUBSCHEMA:
            if not _valid_schema(value):
                return False
        elif key in _SUBSCHEMAS:
            if type(value) is not list or not value or not all(_valid_schema(member) for member in value):
                return False
        elif key not in _META or not _META[key](value):
            return False
    return True


class Unsupported(Exception):
    """A keyword or value the translation does not know: no acceptor."""


def acceptor(schema: Any) -> Callable[[Any], bool] | None:
    """``accepts(instance)`` for a simple JSON Schema (see the module docstring), else None."""
    if type(schema) is not dict:
        return None
    if "$schema" in schema:
        if schema["$schema"] not in DIALECTS:
            return None
        schema = {key: value for key, value in schema.items() if key != "$schema"}
    try:
        return compile_acceptor(core_schema(schema))
    except (Unsupported, TypeError, ValueError):
        return None


def core_schema(schema: Any) -> dict:
    """The :mod:`~mcplint.rules._shapes` node accepting what ``schema`` surely accepts."""
    if schema is True:
        return _ANY
    if type(schema) is not dict or not schema.keys() <= _KEYWORDS:
        raise Unsupported(schema)
    names = schema.get("type", _TYPES)
    names = [names] if type(names) is str else names
    if type(names) not in (list, tuple) or not names or not set(names) <= set(_TYPES):
        raise Unsupported(names)
    if "enum" in schema or "const" in schema:
        return _members(schema, names)
    if not schema.keys() - _ANNOTATIONS:
        return _ANY
    # (a number arm takes the integers an integer arm would, but those of 64 bits and more)
    arms = [_arm(schema, name) for name in dict.fromkeys(names) if not ("number" in names and name == "integer")]
    return arms[0] if len(arms) == 1 else {"type": "union", "choices": arms}


def _arm(schema: dict, name: str) -> dict:
    """The node of the values of JSON type ``name`` that the schema accepts."""
    if name in ("integer", "number"):
        bounds = {}
        for key, bound in _BOUNDS.items():
            if key in schema:
                if type(schema[key]) not in (int, float):
                    raise Unsupported(key)  # draft-04's boolean exclusive bounds
                bounds[bound] = schema[key]
        return {"type": "int" if name == "integer" else "float", **bounds}
    if name == "object":
        return _object(schema)
    if name == "array":
        items = core_schema(schema["items"]) if "items" in schema else _ANY  # (a draft-07 array: Unsupported)
        return {"type": "list", "items_schema": items, **_lengths(schema, _ITEMS)}
    if name == "string":
        return {"type": "str", **_lengths(schema, _CHARACTERS)}
    return {"type": {"boolean": "bool", "null": "none"}[name]}


def _lengths(schema: dict, keywords: dict[str, str]) -> dict[str, int]:
    lengths = {}
    for key, bound in keywords.items():
        if key in schema:
            if type(schema[key]) is not int or schema[key] < 0:
                raise Unsupported(key)
            lengths[bound] = schema[key]
    return lengths


def _object(schema: dict) -> dict:
    if not schema.keys() & _OBJECT:
        return {"type": "dict", "keys_schema": {"type": "str"}, "values_schema": _ANY}
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    closed = schema.get("additionalProperties", True)
    if type(properties) is not dict or type(required) is not list or not all(type(r) is str for r in required) \
            or type(closed) is not bool or not closed and not properties.keys() >= set(required):
        raise Unsupported(schema)  # (a required member that is no property of a closed object: never valid)
    fields = {}
    for name in dict.fromkeys([*properties, *required]):
        node = core_schema(properties[name]) if name in properties else _ANY
        fields[name] = {"type": "model-field",
                        "schema": node if name in required else {"type": "default", "schema": node, "default": None}}
    return {"type": "model-fields", "fields": fields, "extra_behavior": "ignore" if closed else "forbid"}


def _members(schema: dict, names: list) -> dict:
    """``enum``/``const`` beside ``type`` alone: a literal per member type the types allow."""
    if schema.keys() - _ANNOTATIONS - {"type", "enum", "const"}:
        raise Unsupported(schema)
    enum = schema.get("enum", [])
    if type(enum) is not list:
        raise Unsupported(enum)
    values = enum if "enum" in schema else [schema["const"]]
    if "enum" in schema and "const" in schema:
        values = [v for v in values if type(v) is type(schema["const"]) and v == schema["const"]]
    by_type: dict[type, list] = {}
    for value in values:
        kind = type(value)
        if kind not in _MEMBER_TYPES:
            raise Unsupported(value)  # floats, arrays, objects: the validator decides
        if set(_MEMBER_TYPES[kind]) & set(names):
            by_type.setdefault(kind, []).append(value)
    arms = [{"type": "none"} if kind is type(None) else {"type": "literal", "expected": list(dict.fromkeys(found))}
            for kind, found in by_type.items()]
    if not arms:
        raise Unsupported(schema)  # nothing is accepted: nothing to vouch for
    return arms[0] if len(arms) == 1 else {"type": "union", "choices": arms}

"""A structural fingerprint of a value under a schema: what validation can tell apart, nothing more.

:func:`fingerprinter` compiles a pydantic-core schema (``schema.quick_schema``: the wire type with
models as plain field sets and content-block unions tagged by ``type``) into ``fp(value)``, a
hashable such that two values with equal fingerprints draw the same errors from the strict
validator of the wire type, in the same order, except for the inputs of errors at objects and
arrays (which ``schema.collapse`` reads only for their JSON type). A broken server sends the same
broken shape over and over with other texts in it: the explanation of one is the explanation of
all, and ``schema.validate`` keeps it under the fingerprint.

What a fingerprint leaves out (everything else is kept exactly, types told apart: ``1``, ``1.0``
and ``true`` differ, and so do ``0.0`` and ``-0.0``):

- the text of a string where the schema asks for any string (a ``str`` node without bounds);
- a value where the schema takes anything (``any``), and a member that a model ignores;
- for a tagged union, nothing: the arm its ``type`` names judges the value (every other arm of
  the wire type's union is refused by that literal, and ``collapse`` drops such arms); a
  ``type`` that names no arm keeps the value exactly.

A node this module does not know (a plain union, a string with bounds or a pattern, a URL...)
keeps its value exactly. A value that cannot be fingerprinted (not JSON data, too deep) raises
``TypeError`` or ``RecursionError``: the caller validates it without the cache.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Fingerprint = Callable[[Any], Any]


class _Tag:
    """A marker in a fingerprint (compared by identity)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


FREE, OBJECT, ARRAY, MODEL, FLOAT, BOOL = (_Tag(name) for name in ("FREE", "OBJECT", "ARRAY", "MODEL", "FLOAT", "BOOL"))

# the keys a node may carry, per node type, for the node to be read here (else: kept exactly)
_META = {"type", "ref", "metadata", "serialization"}
_KEYS = {
    "any": set(), "str": set(), "nullable": {"schema"}, "default": {"schema", "default"},
    "list": {"items_schema", "min_length", "max_length"}, "dict": {"keys_schema", "values_schema"},
    "tagged-union": {"choices", "discriminator"}, "definitions": {"schema", "definitions"},
    "definition-ref": {"schema_ref"}, "model-fields": {"fields", "extra_behavior", "model_name", "computed_fields"},
}
_FIELD_KEYS = {"type", "schema", "validation_alias", "serialization_alias", "metadata"}


def exact(value: Any) -> Any:
    """``value`` itself as a hashable that tells apart every two JSON values (types too)."""
    kind = type(value)
    if kind is str or kind is int or value is None:
        return value
    if kind is dict:
        return (OBJECT, *[part for key, item in value.items() for part in (key, exact(item))])
    if kind is list:
        return (ARRAY, *map(exact, value))
    if kind is float:
        return (FLOAT, value.hex())
    if kind is bool:
        return (BOOL, value)
    raise TypeError(f"not JSON data: {kind.__name__}")


def _free(value: Any) -> Any:
    return FREE


def _free_str(value: Any) -> Any:
    return FREE if type(value) is str else exact(value)


def fingerprinter(schema: Any) -> Fingerprint:
    """The fingerprint function of a core schema (see the module docstring)."""
    return _Compiler().node(schema)


class _Compiler:
    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}
        self.compiled: dict[str, Fingerprint] = {}

    def node(self, node: Any) -> Fingerprint:
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            return exact
        kind = node["type"]
        if kind not in _KEYS or set(node) - _META - _KEYS[kind]:
            return exact
        if kind == "any":
            return _free
        if kind == "str":
            return _free_str
        if kind in ("nullable", "default"):
            inner = self.node(node["schema"])
            if inner is exact:
                return exact
            return inner if kind == "default" else (lambda v: None if v is None else inner(v))
        if kind == "list":
            return self._list(node)
        if kind == "dict":
            return self._dict(node)
        if kind == "tagged-union":
            return self._tagged(node)
        if kind == "model-fields":
            return self._model(node)
        if kind == "definitions":
            for definition in node["definitions"]:
                if isinstance(definition, dict) and isinstance(definition.get("ref"), str):
                    self.defs[definition["ref"]] = definition
            return self.node(node["schema"])
        return self._ref(node["schema_ref"])

    def _ref(self, ref: Any) -> Fingerprint:
        if ref not in self.defs:
            return exact
        if ref not in self.compiled:  # (a recursive definition finds itself through the table)
            table = self.compiled
            table[ref] = lambda v: table[ref](v)
            table[ref] = self.node(self.defs[ref])
        return self.compiled[ref]

    def _list(self, node: dict) -> Fingerprint:
        item = self.node(node.get("items_schema", {"type": "any"}))

        def fp(v):
            return (ARRAY, *map(item, v)) if type(v) is list else exact(v)
        return fp

    def _dict(self, node: dict) -> Fingerprint:
        if node.get("keys_schema", {"type": "str"}) != {"type": "str"}:
            return exact
        item = self.node(node.get("values_schema", {"type": "any"}))

        def fp(v):
            if type(v) is not dict:
                return exact(v)
            return (OBJECT, *[part for key, x in v.items() for part in (key, item(x))])
        return fp

    def _tagged(self, node: dict) -> Fingerprint:
        if node["discriminator"] != "type" or not isinstance(node["choices"], dict):
            return exact
        arms = {tag: self.node(arm) for tag, arm in node["choices"].items()}

        def fp(v):
            if type(v) is dict:
                arm = arms.get(v.get("type")) if type(v.get("type")) is str else None
                if arm is not None:
                    return arm(v)
            return exact(v)
        return fp

    def _model(self, node: dict) -> Fingerprint:
        fields: dict[str, Fingerprint] = {}
        for field in node["fields"].values():
            alias = field.get("validation_alias", None) if isinstance(field, dict) else None
            if not isinstance(field, dict) or field.get("type") != "model-field" or set(field) - _FIELD_KEYS \
                    or (alias is not None and not isinstance(alias, str)):
                return exact
        for name, field in node["fields"].items():
            fields[field.get("validation_alias", name)] = self.node(field["schema"])
        extra = node.get("extra_behavior", "ignore")
        if extra not in ("ignore", "allow", "forbid") or node.get("computed_fields"):
            return exact
        other = exact if extra == "forbid" else _free
        get = fields.get

        def fp(v):
            if type(v) is not dict:
                return exact(v)
            return (MODEL, *[part for key, x in v.items() for part in (key, (get(key) or other)(x))])
        return fp

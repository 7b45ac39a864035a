"""Tool arguments for ``mcplint probe --call-tools``, made from a tool's ``inputSchema``.

:func:`arguments_for` gives a small valid value (required properties only; ``default``,
``const``, ``enum`` and ``examples`` first, then the type's simplest value within its bounds);
:func:`invalid_arguments` gives one that breaks the schema (a required property missing, else
one of a wrong type), or None when the schema accepts anything.
"""

from __future__ import annotations

from typing import Any

_DEPTH = 6


def value_for(schema: Any, depth: int = 0) -> Any:
    """A simple value that ``schema`` accepts (as far as common keywords go)."""
    if not isinstance(schema, dict) or depth > _DEPTH:
        return None
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    for key in ("enum", "examples"):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            typed = [o for o in options if isinstance(o, dict) and o.get("type") != "null"]
            return value_for((typed or options)[0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        return _object(schema, depth)
    if kind == "array":
        items = schema.get("items")
        count = schema.get("minItems") if isinstance(schema.get("minItems"), int) else 0
        return [value_for(items, depth + 1) for _ in range(min(count, 3))]
    if kind in ("integer", "number"):
        return _number(schema, kind)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    if kind == "string":
        return _string(schema)
    return "mcplint"


def _object(schema: dict, depth: int) -> dict:
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [r for r in schema.get("required") or () if isinstance(r, str)]
    return {name: value_for(properties.get(name, {}), depth + 1) for name in required}


def _number(schema: dict, kind: str) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float = 1
    if isinstance(low, (int, float)) and not isinstance(low, bool):
        value = low + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
    if isinstance(high, (int, float)) and not isinstance(high, bool) and value > high:
        value = high
    return int(value) if kind == "integer" else value


def _string(schema: dict) -> str:
    formats = {"uri": "file:///tmp/mcplint-probe", "email": "probe@example.com", "date": "2026-01-01",
               "date-time": "2026-01-01T00:00:00Z", "uuid": "00000000-0000-4000-8000-000000000000"}
    text = formats.get(schema.get("format"), "mcplint")
    low = schema.get("minLength")
    high = schema.get("maxLength")
    if isinstance(low, int) and len(text) < low:
        text = text + "x" * (low - len(text))
    if isinstance(high, int) and len(text) > high:
        text = text[:max(high, 0)]
    return text


def arguments_for(schema: dict) -> dict:
    value = value_for(schema)
    return value if isinstance(value, dict) else {}


def invalid_arguments(schema: dict) -> dict | None:
    """Arguments the schema rejects: the valid ones without a required property, or with the
    first typed property set to a value of another type; None when nothing is checkable."""
    valid = arguments_for(schema)
    required = [r for r in schema.get("required") or () if isinstance(r, str)]
    if required:
        return {k: v for k, v in valid.items() if k != required[0]}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    for name, sub in properties.items():
        kind = sub.get("type") if isinstance(sub, dict) else None
        if isinstance(kind, str) and kind != "null":
            return {**valid, name: [] if kind != "array" else "mcplint"}
    return None

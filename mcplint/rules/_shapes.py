"""A first pass of schema validation compiled to plain Python: sure acceptance of common values.

:func:`acceptor` compiles a pydantic-core schema (as ``schema.quick_validator`` builds it) into a
Python function ``accepts(value)`` that returns True only for values the strict validator
of that schema accepts; False means "ask the validator" (it may accept too). On the small flat
objects of everyday traffic (progress, log messages, tool calls and their text results) this is a
handful of dict lookups and type tests, several times cheaper than a pydantic-core call.

The node types it knows (anything else: :class:`Unsupported`, no acceptor) and how each accepts,
on JSON-decoded values (object keys are strings; ``bool`` is not an ``int``):

- ``any``: anything; ``bool``/``none``: that exact type; ``str``: a ``str`` within its length
  bounds (characters); ``int``: an ``int`` within its bounds; ``float``: a ``float``, or an
  ``int`` below 2**64 (a strict float refuses integers of 2**1024 and up), within its bounds
  (bounded: finite values below 2**53 only, so comparisons are exact); ``literal``: one of the
  expected values, of the same type;
- ``model-fields``: a ``dict`` with every required field, each present field accepted, no key
  beyond the fields when extra members are forbidden (``default`` marks an optional field;
  when the object holds exactly the required members, no optional one is looked up);
- ``list``: a ``list`` within its length bounds whose items are all accepted; ``dict``: a
  ``dict`` whose values are all accepted;
- ``nullable``: None or the inner value; ``union``: any arm; ``tagged-union`` (by ``type``):
  the arm its ``type`` names;
- ``definitions``/``definition-ref``: inlined where referenced, but a recursive definition is a
  function that accepts at most :data:`MAX_DEPTH` levels (the validator has its own recursion
  limit).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

#: levels of a recursive definition (JSON values nested in JSON values) accepted without the validator
MAX_DEPTH = 32
#: bits of the integers a strict ``float`` takes whatever their value (it refuses 2**1024 and up);
#: bounded floats compare exactly below 2**53
_FLOAT_BITS, _EXACT = 64, 2**53
_SCALAR_TYPES = {str: "str", int: "int", bool: "bool"}


class Unsupported(Exception):
    """The schema has a node the compiler does not know: no acceptor."""


class Recursive(Exception):
    """A definition refers to itself: compile again with depth counting."""


class _Missing:
    """An absent member (a type no JSON value has)."""


MISSING = _Missing()

# the keys a node may carry, per node type (anything else: Unsupported)
_META = {"type", "ref", "metadata", "serialization"}
_KEYS = {
    "any": set(), "str": {"min_length", "max_length"}, "bool": set(), "none": set(), "int": {"ge", "le", "gt", "lt"},
    "float": {"ge", "le", "gt", "lt"}, "literal": {"expected"}, "nullable": {"schema"},
    "default": {"schema", "default"}, "list": {"items_schema", "min_length", "max_length"},
    "dict": {"keys_schema", "values_schema"}, "union": {"choices"},
    "tagged-union": {"choices", "discriminator"}, "definitions": {"schema", "definitions"},
    "definition-ref": {"schema_ref"},
    "model-fields": {"fields", "extra_behavior", "model_name", "computed_fields"},
}
_FIELD_KEYS = {"type", "schema", "validation_alias", "serialization_alias", "metadata"}
_BOUNDS = {"ge": ">=", "le": "<=", "gt": ">", "lt": "<"}


class _Compiler:
    """Inline expressions per node; a function per list item, dict value, tagged union and
    definition. With ``depth`` (a definition is recursive) every function is ``f(v, d)``, ``d``
    counting the recursive levels entered; else ``f(v)``."""

    def __init__(self, depth: bool = False) -> None:
        self.depth = depth  # functions take the depth (a definition is recursive)
        self.args = "v, d" if depth else "v"
        self.lines: list[str] = []
        self.names: dict[str, Any] = {"MISSING": MISSING, "repeat": itertools.repeat}
        self.defs: dict[str, dict] = {}
        self.def_fns: dict[str, str] = {}
        self.recursive: set[str] = set()
        self.compiling: list[str] = []
        self.inlining: list[str] = []  # definitions being inlined (met again: recursive)
        self.tagged: tuple[str, str] | None = None  # (variable, tag) a tagged union dispatched on
        self.functions: list[str] = []  # the tagged unions' and definitions' functions
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, value: Any) -> str:
        name = self.fresh("K")
        self.names[name] = value
        return name

    def emit(self, name: str, body: str) -> None:
        self.lines.append(f"def {name}({self.args}):\n    return {body}")

    def call(self, name: str, x: str) -> str:
        return f"{name}({x}, d)" if self.depth else f"{name}({x})"

    def each(self, node: dict, items: str, single: bool = False) -> str | None:
        """An expression true when every item of the iterable ``items`` is accepted by ``node``:
        a type test in C when ``node`` only asks for a type, else a function per item; None
        when ``node`` accepts anything. ``single``: ``items`` is a list, whose only item (the
        usual content array holds one block) is judged without an iterator (``all(map(...))``
        costs about 1k instructions more on one item; the list's type test, which reads it first,
        comes before: :meth:`_lengths`)."""
        types = _types(node)
        if types is not None:
            every = f"all(map({self.const(frozenset(types).__contains__)}, map(type, {items})))"
            if not single:
                return every
            return f"(type({items}[0]) in {self.const(frozenset(types))} if len({items}) == 1 else {every})"
        body = self.expr(node, "v")
        if body == "True":
            return None
        name = next((n for n in self.functions if body == self.call(n, "v")), None)
        if name is None:  # a function of its own, unless body just calls one
            name = self.fresh("f")
            self.emit(name, body)
        every = f"all(map({name}, {items}, repeat(d)))" if self.depth else f"all(map({name}, {items}))"
        if not single:
            return every
        return f"({self.call(name, items + '[0]')} if len({items}) == 1 else {every})"

    def expr(self, node: Any, x: str) -> str:
        """An expression that is true only if the value held by the variable ``x`` is accepted.
        Every expression reads ``x`` first where ``x`` first appears in its text (a model binds
        a member's value there)."""
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            raise Unsupported(node)
        kind = node["type"]
        if kind not in _KEYS or set(node) - _META - _KEYS[kind]:
            raise Unsupported(kind)
        if "ref" in node and kind != "definitions":
            self.defs.setdefault(node["ref"], node)
        if kind == "any":
            return "True"
        types = _types(node) if kind in ("nullable", "union") else None
        if types is not None and len(types) > 1:  # (str or null, str or int...): one test in C
            return f"type({x}) in {self.const(frozenset(types))}"
        if kind == "bool":
            return f"type({x}) is bool"
        if kind == "str":
            return self._lengths(node, x, "str")
        if kind == "none":
            return f"{x} is None"
        if kind in ("int", "float"):
            return self._number(node, x)
        if kind == "literal":
            expected = node["expected"]
            types = {type(value) for value in expected}
            if len(types) != 1 or next(iter(types)) not in _SCALAR_TYPES:
                raise Unsupported(expected)
            return f"(type({x}) is {_SCALAR_TYPES[types.pop()]} and {x} in {self.const(frozenset(expected))})"
        if kind == "nullable":
            return f"({x} is None or {self.expr(node['schema'], x)})"
        if kind == "default":  # outside a model's fields: the value is there, judge it
            return self.expr(node["schema"], x)
        if kind == "definitions":
            for definition in node["definitions"]:
                self.defs[definition["ref"]] = definition
            return self.expr(node["schema"], x)
        if kind == "definition-ref":
            ref = node["schema_ref"]
            if ref in self.inlining or ref in self.def_fns:  # recursive: a function of its own
                return self.call(self.definition(ref), x)
            if ref not in self.defs:
                raise Unsupported(ref)
            self.inlining.append(ref)  # inline: one call less per value (content blocks...)
            judged = self.expr({k: v for k, v in self.defs[ref].items() if k != "ref"}, x)
            self.inlining.pop()
            return judged
        return getattr(self, "_" + kind.replace("-", "_"))(node, x)

    def _number(self, node: dict, x: str) -> str:
        bounds = [(op, node[key]) for key, op in _BOUNDS.items() if key in node]
        if any(type(limit) not in (int, float) for _, limit in bounds):
            raise Unsupported(bounds)
        if node["type"] == "int":
            typed = f"type({x}) is int"
        elif bounds:
            typed = f"(type({x}) is float or type({x}) is int) and -{_EXACT} < {x} < {_EXACT}"
        else:
            typed = f"(type({x}) is float or type({x}) is int and {x}.bit_length() < {_FLOAT_BITS})"
        return "(" + " and ".join([typed] + [f"{x} {op} {limit!r}" for op, limit in bounds]) + ")"

    def definition(self, ref: str) -> str:
        name = self.def_fns.get(ref)
        if name is not None:
            if ref in self.compiling:
                self.recursive.add(ref)
            return name
        if ref not in self.defs:
            raise Unsupported(ref)
        name = self.def_fns[ref] = self.fresh("r")
        self.compiling.append(ref)
        body = self.expr({k: v for k, v in self.defs[ref].items() if k != "ref"}, "v")
        self.compiling.pop()
        if ref in self.recursive and not self.depth:
            raise Recursive(ref)
        if ref in self.recursive:  # one level deeper for everything it calls
            self.lines.append(f"def {name}(v, d):\n    d += 1\n    return d <= {MAX_DEPTH} and {body}")
        else:
            self.emit(name, body)
        self.functions.append(name)
        return name

    def _model_fields(self, node: dict, x: str) -> str:
        extra = node.get("extra_behavior", "ignore")
        if extra not in ("ignore", "allow", "forbid"):
            raise Unsupported(extra)
        known, self.tagged = (self.tagged if self.tagged and self.tagged[0] == x else None), None
        required, optional, keys = ([] if known else [f"type({x}) is dict"]), [], []
        count = 0  # required members
        for name, field in node["fields"].items():
            if field.get("type") != "model-field" or set(field) - _FIELD_KEYS:
                raise Unsupported(field)
            key = field.get("validation_alias", name)
            if not isinstance(key, str):
                raise Unsupported(key)
            keys.append(key)
            schema = field["schema"]
            optional_field = schema.get("type") == "default"
            y = self.fresh("x")
            judged = self.expr(schema["schema"] if optional_field else schema, y)
            if judged != "True":  # the member's value is bound where the expression first reads it
                once = len(re.findall(rf"\b{y}\b", judged)) == 1  # (read only there: no binding)
                judged = re.sub(rf"\b{y}\b", f"{x}[{key!r}]" if once else f"({y} := {x}[{key!r}])", judged, count=1)
            if not optional_field:
                count += 1
                if known and key == "type" and schema == {"type": "literal", "expected": [known[1]]}:
                    continue  # the tag the union dispatched on
                required.append(f"{key!r} in {x}" + ("" if judged == "True" else f" and {judged}"))
            elif judged != "True":
                optional.append(f"({key!r} not in {x} or {judged})")
        if extra == "forbid":
            optional.append(f"{x}.keys() <= {self.const(frozenset(keys))}")
        if optional:  # the required members all there and nothing else: no optional one to judge
            required.append(f"(len({x}) == {count} or {' and '.join(optional)})")
        return "(" + " and ".join(required or ["True"]) + ")"

    def _lengths(self, node: dict, x: str, kind: str, *more: str) -> str:
        """A type test and the node's length bounds (characters of a string, items of a list)."""
        parts = [f"type({x}) is {kind}"]
        if "min_length" in node:
            parts.append(f"len({x}) >= {int(node['min_length'])}")
        if "max_length" in node:
            parts.append(f"len({x}) <= {int(node['max_length'])}")
        return parts[0] if len(parts) == 1 and not more else "(" + " and ".join(parts + list(more)) + ")"

    def _list(self, node: dict, x: str) -> str:
        items = self.each(node["items_schema"], x, single=True)
        return self._lengths(node, x, "list", *([items] if items is not None else []))

    def _dict(self, node: dict, x: str) -> str:
        if node["keys_schema"] != {"type": "str"}:
            raise Unsupported(node)
        values = self.each(node["values_schema"], f"{x}.values()")
        return f"type({x}) is dict" if values is None else f"(type({x}) is dict and {values})"

    def _union(self, node: dict, x: str) -> str:
        arms = [self.expr(c[0] if isinstance(c, (tuple, list)) else c, x) for c in node["choices"]]
        return "True" if "True" in arms else "(" + " or ".join(arms) + ")"

    def _tagged_union(self, node: dict, x: str) -> str:
        if node["discriminator"] != "type" or not all(isinstance(tag, str) for tag in node["choices"]):
            raise Unsupported(node["discriminator"])
        name = self.fresh("t")
        body = ["t = v.get('type')", "if type(t) is not str:", "    return False"]
        for tag, choice in node["choices"].items():
            self.tagged = ("v", tag)  # its model need not test that v is an object with this tag
            body += [f"if t == {tag!r}:", f"    return {self.expr(choice, 'v')}"]
            self.tagged = None
        self.lines.append(f"def {name}({self.args}):\n    if type(v) is not dict:\n        return False\n    "
                          + "\n    ".join(body) + "\n    return False")
        self.functions.append(name)
        return self.call(name, x)


def _types(node: Any) -> set | None:
    """The exact types of the values ``node`` accepts when it asks nothing else of them
    (strings, booleans, unbounded integers, null, any object or array), else None."""
    if not isinstance(node, dict) or set(node) - _META - _KEYS.get(node.get("type"), set()):
        return None
    kind = node["type"]
    if kind in ("str", "bool", "int"):
        return None if set(node) - _META else {{"str": str, "bool": bool, "int": int}[kind]}
    if kind == "none":
        return {type(None)}
    if kind in ("nullable", "default"):
        inner = _types(node["schema"])
        return None if inner is None else inner | {type(None)} if kind == "nullable" else inner
    if kind == "union":
        arms = [_types(c[0] if isinstance(c, (tuple, list)) else c) for c in node["choices"]]
        return None if None in arms else set().union(*arms)
    if kind == "dict" and node["keys_schema"] == {"type": "str"} and node["values_schema"].get("type") == "any":
        return {dict}
    if kind == "list" and set(node) - _META == {"items_schema"} and node["items_schema"].get("type") == "any":
        return {list}
    return None


def acceptor(core_schema: dict):
    """``accepts(value)`` for ``core_schema`` (see the module docstring), or None when the
    schema has a node the compiler does not know."""
    for depth in (False, True):
        compiler = _Compiler(depth)
        try:
            body = compiler.expr(core_schema, "v")
        except Recursive:
            continue
        except (Unsupported, KeyError, TypeError, AttributeError, ValueError):
            return None
        compiler.lines.append(f"def accepts(v):\n    {'d = 0; ' if depth else ''}return {body}")
        namespace = dict(compiler.names)
        exec(compile("\n".join(compiler.lines), "<acceptor>", "exec"), namespace)  # noqa: S102
        return namespace["accepts"]
    return None

"""Schema validation (SV): every known message against the official wire types of its revision.

Params of requests and notifications, and results (against the result type of the request they
answer), are validated with the pydantic surface types of the ``mcp-types`` package
(``mcp_types.methods``), strictly (no ``"5"`` for a number, no ``1`` for a boolean). The package
shares the 2025-11-25 shapes among all handshake-era revisions; those shapes only widen the
older ones (checked against ``shared/spec/*/schema.json``), so an older message never fails for
a field that only exists later. Narrowings of older revisions (a content block type that a
revision does not know yet, ...) are judged by their own rules.

Most values never reach pydantic: a plain-Python acceptor compiled from the same schema
(:mod:`mcplint.rules._shapes`) settles the everyday ones (:func:`acceptor`), and only what it
cannot vouch for is validated (and explained). The engine runs it as the clean test of the
features the rules require (:func:`plain_request`, :func:`plain_notification`,
:func:`plain_result`): a record it vouches for calls no SV rule at all.

The package lacks ``tasks/*`` (2025-11-25): those methods, and task-augmented results, are left
to the task rules. Validation errors that a more specific rule already reports are not repeated:
see :data:`OWNED` (each entry names the rules that own a path; it only applies while one of
them is registered).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded
from mcplint.model import Direction, Kind, Severity
from mcplint.rules import _schema_cache
from mcplint.rules._base import (
    NOTIFICATIONS,
    REGISTRY,
    REQUESTS,
    Rule,
    error_of,
    feature,
    fmt_id,
    result_of,
    rule,
)
from mcplint.rules._fingerprint import fingerprinter
from mcplint.rules._memo import per_record
from mcplint.rules._shapes import acceptor as compile_acceptor

_SCHEMA = "schema"
#: findings per message and rule, beyond which one summary line stands for the rest
MAX_ISSUES = 8


# -- JSON paths -----------------------------------------------------------------------------
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*$")


def fmt_path(path: tuple) -> str:
    """``("result", "content", 0, "text")`` -> ``result.content[0].text``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{fmt_id(part)}]"
    return out or "(root)"


def json_type(value: Any) -> str:
    """The JSON type of a value with its article: "an array", "a string", "null"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    return {dict: "an object", list: "an array", str: "a string"}.get(type(value), type(value).__name__)


# -- the official wire types (mcp_types, imported on first use: ~0.4 s) ----------------------
class _Surface:
    """Per ``(kind, method, revision)`` a pydantic TypeAdapter, built once."""

    def __init__(self) -> None:
        import sys

        from mcp_types import methods
        from pydantic import BaseModel, TypeAdapter, ValidationError

        self.TypeAdapter = TypeAdapter
        self.ValidationError = ValidationError
        self.maps = {
            "request": {**methods.SERVER_REQUESTS, **methods.CLIENT_REQUESTS},
            "notification": {**methods.SERVER_NOTIFICATIONS, **methods.CLIENT_NOTIFICATIONS},
            "result": {**methods.CLIENT_RESULTS, **methods.SERVER_RESULTS},
        }
        # pydantic names union arms by model class: collect the names of the wire models
        modules = {sys.modules[arm.__module__] for table in self.maps.values() for target in table.values()
                   for arm in getattr(target, "__args__", (target,))}
        self.model_names = frozenset(
            name for module in modules for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, BaseModel))
        self.adapters: dict[tuple, tuple | None] = {}
        _schema_cache.put(_NAMES_KEY, [True, "", orjson.dumps(sorted(self.model_names)).decode(), None])

    def adapter(self, kind: str, method: str, revision: str) -> Judge | None:
        """The :class:`Judge` of the method in ``revision``, adapter built; None when the revision
        does not define the method."""
        key = (kind, method, revision)
        if key in self.adapters:
            return self.adapters[key]
        target = self.maps[kind].get((method, revision))
        entry = None
        if target is not None:
            name = getattr(target, "__name__", None) or getattr(target, "__args__", (target,))[0].__name__
            if kind == "result":
                adapter, required = self.TypeAdapter(target), True
            else:  # surface types are whole frames: validate their params member only
                field = target.model_fields["params"]
                adapter, required = self.TypeAdapter(field.annotation), field.is_required()
            entry = Judge(key, required, name, _text(_quick, adapter.core_schema),
                          _text(_named_models, adapter.core_schema), adapter=adapter)
            if entry.quick is None:  # (built now, as it will be needed: a schema it refuses is not kept)
                entry.quick_text = entry._quick_schema = None
        if entry is not None or method in protocol.METHODS:  # custom method names are unbounded
            self.adapters[key] = entry
        return entry


class Judge:
    """What judges one method's params or result in one revision (:func:`judge`): whether params
    are required, the wire type's name, the JSON texts of its quick schema and its explaining
    schema (kept on disk between runs by :mod:`~mcplint.rules._schema_cache`, as texts: a run
    parses only those of the methods it meets) and, each built on first need, those schemas, the
    quick validator, the explainer and the wire type's own adapter (which imports mcp_types:
    traffic the quick pass accepts never needs it, nor does a refusal that the explaining schema
    explains)."""

    __slots__ = ("key", "required", "type_name", "quick_text", "explain_text", "_quick_schema", "_quick",
                 "_adapter", "_fingerprint", "_explainer", "refused")

    def __init__(self, key: tuple[str, str, str], required: bool, type_name: str, quick_text: str | None,
                 explain_text: str | None = None, adapter: Any = None):
        self.key, self.required, self.type_name = key, required, type_name
        self.quick_text, self.explain_text = quick_text, explain_text
        self._quick_schema: Any = _UNBUILT
        self._quick: Any = _UNBUILT
        self._adapter = adapter
        self._fingerprint: Any = _UNBUILT
        self._explainer: Any = _UNBUILT
        self.refused = False  # whether validate() has explained a value (a broken shape may come again)

    @property
    def quick_schema(self) -> Any:
        """The quick schema (:func:`quick_schema`), or None."""
        if self._quick_schema is _UNBUILT:
            self._quick_schema = None if self.quick_text is None else orjson.loads(self.quick_text)
        return self._quick_schema

    @property
    def explain_schema(self) -> Any:
        """The explaining schema (:func:`explain_schema`), or None."""
        return None if self.explain_text is None else orjson.loads(self.explain_text)

    @property
    def quick(self):
        """The quick validator (:func:`quick_validator`), or None."""
        if self._quick is _UNBUILT:
            self._quick = quick_validator(self.quick_schema)
        return self._quick

    @property
    def fingerprint(self):
        """The structural fingerprint of a value (:mod:`~mcplint.rules._fingerprint`) that keys
        its explanation (:func:`validate`), or None without a quick schema."""
        if self._fingerprint is _UNBUILT:
            self._fingerprint = None if self.quick_schema is None else fingerprinter(self.quick_schema)
        return self._fingerprint

    @property
    def adapter(self):
        """The wire type's TypeAdapter (the errors it raises explain a refusal)."""
        if self._adapter is None:
            self._adapter = surface().adapter(*self.key)._adapter
        return self._adapter

    @property
    def explainer(self):
        """What explains a refusal (its errors are the adapter's): the validator of the explaining
        schema (:func:`explainer`) when there is one, else the adapter."""
        if self._explainer is _UNBUILT:
            self._explainer = explainer(self.explain_schema) if self.explain_text is not None else None
            if self._explainer is None:
                self._explainer = self.adapter
        return self._explainer

    def stored(self) -> list:
        """What the disk cache keeps of it."""
        return [self.required, self.type_name, self.quick_text, self.explain_text]


_UNBUILT: Any = object()


# -- a quicker first pass -------------------------------------------------------------------
def quick_schema(core_schema: dict) -> Any:
    """The core schema of a validator that accepts only what the wire type accepts, but faster:
    models are checked as plain field sets (no instances built), and unions of models told apart
    by a literal ``type`` member (content blocks) go straight to the arm that ``type`` names
    instead of trying every arm. Plain JSON data (as read back from the disk cache, so a run
    validates with the same data either way); None when it cannot be had."""
    text = _text(_quick, core_schema)
    return None if text is None else orjson.loads(text)


def _text(transform, core_schema: dict) -> str | None:
    """The JSON text of ``transform(core_schema)``; None when JSON cannot hold it."""
    try:
        return orjson.dumps(transform(core_schema)).decode()
    except (TypeError, orjson.JSONEncodeError):
        return None


def quick_validator(schema: Any):
    """The pydantic-core validator of a :func:`quick_schema`. Errors are not its business: when
    it refuses a value, the wire type's own validator runs and explains. None when there is none."""
    if schema is None:
        return None
    from pydantic_core import SchemaValidator

    try:
        return SchemaValidator(schema)
    except Exception:  # noqa: BLE001 - an unexpected schema shape: no first pass
        return None


def explain_schema(core_schema: dict) -> Any:
    """The wire type's core schema as plain JSON data, for :func:`explainer`: each model's class
    named instead of held, metadata and serialization (which validation does not read) left out.
    None when it cannot be had (a model whose class does work of its own: a custom init, a root
    model, a post-init; a function validator; a value JSON cannot hold)."""
    text = _text(_named_models, core_schema)
    return None if text is None else orjson.loads(text)


def _named_models(node: Any) -> Any:
    if isinstance(node, (list, tuple)):
        return [_named_models(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _named_models(value) for key, value in node.items() if key not in ("metadata", "serialization")}
    if out.get("type") == "model":
        if node.get("custom_init") or node.get("root_model") or node.get("post_init"):
            raise TypeError("a model class that does work of its own")
        out["cls"] = node["cls"].__name__
    return out


def explainer(schema: Any):
    """The validator of an :func:`explain_schema`, each model's class a plain stand-in of the same
    name (the name is all its errors show): the errors of a refused value are those of the wire
    type's adapter, without importing mcp_types. None when the schema does not build."""
    from pydantic_core import SchemaValidator

    classes: dict[str, type] = {}

    def load(node: Any) -> Any:
        if isinstance(node, list):
            return [load(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {key: load(value) for key, value in node.items()}
        if out.get("type") == "model" and isinstance(out.get("cls"), str):
            name = out["cls"]
            out["cls"] = classes.get(name) or classes.setdefault(name, type(name, (), {}))
        return out

    try:
        return SchemaValidator(load(schema))
    except Exception:  # noqa: BLE001 - an unexpected schema shape: the adapter explains
        return None


_PLAIN_CONFIG = frozenset({"title", "validate_by_alias", "validate_by_name", "extra_fields_behavior"})


def _quick(node: Any) -> Any:
    if isinstance(node, (list, tuple)):
        return type(node)(_quick(item) for item in node)
    if not isinstance(node, dict):
        return node
    out = {key: _quick(value) for key, value in node.items()}
    if out.get("type") == "union":
        choices = [c[0] if isinstance(c, tuple) else c for c in node["choices"]]
        tags = [_type_tag(c) for c in choices]
        if None not in tags and len(set(tags)) == len(tags):
            out = {"type": "tagged-union", "choices": dict(zip(tags, _quick(choices))), "discriminator": "type"}
    elif out.get("type") == "model" and _plain_model(out):
        fields = out["schema"]
        extra = out.get("config", {}).get("extra_fields_behavior", "ignore")
        return {**fields, "extra_behavior": extra} | ({"ref": out["ref"]} if "ref" in out else {})
    return out


def _plain_model(model: dict) -> bool:
    """A model whose instances add nothing to its fields' checks (no custom init, root or
    post-init, no config beyond aliases and ignored or allowed extra members)."""
    config, fields = model.get("config", {}), model["schema"]
    return (fields.get("type") == "model-fields" and "extra_behavior" not in fields
            and not (model.get("root_model") or model.get("custom_init") or model.get("post_init"))
            and config.get("extra_fields_behavior", "ignore") in ("ignore", "allow")
            and set(config) <= _PLAIN_CONFIG)


def _type_tag(choice: Any) -> str | None:
    """The one value a model arm's ``type`` member must have (a string literal), else None."""
    if not isinstance(choice, dict) or choice.get("type") != "model":
        return None
    field = choice["schema"].get("fields", {}).get("type")
    if field is None or field.get("validation_alias", "type") != "type":
        return None
    literal = field["schema"]
    expected = literal.get("expected") if literal.get("type") == "literal" else None
    return expected[0] if isinstance(expected, list) and len(expected) == 1 and isinstance(expected[0], str) \
        else None


_surface: _Surface | None = None


def surface() -> _Surface:
    global _surface
    if _surface is None:
        _surface = _Surface()
    return _surface


_NAMES_KEY = ("surface", "model-names", "")  # (a disk cache entry: [True, "", JSON text of the names, None])
_model_names: frozenset[str] | None = None


def model_names() -> frozenset[str]:
    """The names of the wire models (``_Surface.model_names``: union arms are named by them),
    from the disk cache when an earlier run kept them."""
    global _model_names
    if _model_names is None:
        if _surface is None:
            stored = _schema_cache.get(_NAMES_KEY)
            names = orjson.loads(stored[2]) if type(stored) is list and stored[2] is not None else None
            if type(names) is list:
                _model_names = frozenset(names)
                return _model_names
        _model_names = surface().model_names
    return _model_names


def shape_revision(record, session) -> str | None:
    """The revision whose shapes apply: the record's, else its era's newest."""
    if record.revision is not None:
        return record.revision
    return newest(session.modern)


def newest(modern: bool) -> str:
    """The newest revision of an era (whose shapes apply to records of no known revision)."""
    return protocol.V2026_07_28 if modern else protocol.LATEST_LEGACY


# -- pydantic errors -> plain findings ---------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Issue:
    """One validation problem: where (a path into the message) and what, in plain words."""

    path: tuple
    text: str
    kind: str = ""  # the pydantic error type ("missing", "string_type", ...), "" for unions


_EXPECTED = {
    "string_type": "a string", "int_type": "an integer", "float_type": "a number",
    "bool_type": "a boolean", "dict_type": "an object", "model_type": "an object",
    "model_attributes_type": "an object", "list_type": "an array", "none_required": "null",
    "int_from_float": "an integer",
}
_BUILTIN_TAG = re.compile(r"^(str|int|float|bool|none|dict\[.*\]|list\[.*\]|literal\[.*\]|"
                          r"function-\w+\[.*\]|nullable\[.*\]|tagged-union\[.*\]|json-or-python\[.*\])$")
_TAG_WORDS = {"str": "a string", "int": "an integer", "float": "a number", "bool": "a boolean",
              "none": "null"}


def _is_tag(part: Any, names: frozenset[str]) -> bool:
    return isinstance(part, str) and (part in names or bool(_BUILTIN_TAG.match(part)))


def _tag_words(tag: str) -> str:
    if tag in _TAG_WORDS:
        return _TAG_WORDS[tag]
    if tag.startswith("dict["):
        return "an object"
    if tag.startswith("list["):
        return "an array"
    return f"a {tag} object"


def _issue(loc: tuple, err: dict) -> Issue | None:
    kind, value, ctx = err["type"], err.get("input"), err.get("ctx") or {}
    where = fmt_path(loc)
    if kind == "int_type" and isinstance(value, float) and value.is_integer():
        return None  # 1.0 is an integer in JSON Schema
    if kind == "missing":
        text = f"{where} is required but missing"
    elif kind in _EXPECTED:
        text = f"{where} must be {_EXPECTED[kind]}, not {json_type(value)}"
    elif kind == "literal_error":
        text = f"{where} is {fmt_id(value)}; expected {ctx.get('expected')}"
    elif kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=",
                 "less_than": "<"}[kind]
        limit = next(iter(ctx.values()), "?")
        text = f"{where} is {fmt_id(value)}; it must be {bound} {limit}"
    elif kind == "too_long":
        text = f"{where} has {ctx.get('actual_length')} items; at most {ctx.get('max_length')} are allowed"
    else:
        text = f"{where}: {err.get('msg')}"
    return Issue(loc, text, kind)


def collapse(errors: list[dict], base: tuple = ()) -> list[Issue]:
    """Turn pydantic errors into issues, resolving union arms to the one the value meant.

    For a union (content blocks, string-or-integer ids, form-or-URL elicitation) pydantic reports
    every arm's errors; an arm whose discriminator (a literal field) or whose value type does not
    match is out, and the remaining arm with the fewest errors is the one reported. When no arm
    fits, one issue names what was expected.
    """
    names = model_names()
    return _collapse([(base + tuple(e["loc"]), e) for e in errors], len(base), names)


def _collapse(errors: list[tuple[tuple, dict]], start: int, names: frozenset[str]) -> list[Issue]:
    out: list[Issue] = []
    sites: dict[tuple, dict[str, list]] = {}
    for loc, err in errors:
        at = next((i for i in range(start, len(loc)) if _is_tag(loc[i], names)), None)
        if at is None:
            issue = _issue(loc, err)
            if issue is not None:
                out.append(issue)
        else:
            sites.setdefault(loc[:at], {}).setdefault(loc[at], []).append((loc, err))
    for prefix, arms in sites.items():
        out.extend(_union(prefix, arms, names))
    return out


def _union(prefix: tuple, arms: dict[str, list], names: frozenset[str]) -> list[Issue]:
    depth = len(prefix)
    fitting = []
    for tag, errs in arms.items():
        wrong_value = any(len(loc) == depth + 1 for loc, _ in errs)
        wrong_kind = any(e["type"] == "literal_error" and len(loc) == depth + 2 for loc, e in errs)
        if not (wrong_value or wrong_kind):
            fitting.append((len(errs), tag))
    if fitting:
        _, tag = min(fitting, key=lambda item: item[0])  # min() keeps the leftmost on ties
        stripped = [(loc[:depth] + loc[depth + 1:], err) for loc, err in arms[tag]]
        return _collapse(stripped, depth, names)
    # no arm fits: name the discriminator values if the arms share one, else the arm types
    literals: dict[str, list[str]] = {}
    value = None
    for errs in arms.values():
        for loc, err in errs:
            if err["type"] == "literal_error" and len(loc) == depth + 2:
                literals.setdefault(loc[-1], []).append(str((err.get("ctx") or {}).get("expected")))
                value = err.get("input")
    key = next((k for k, v in literals.items() if len(v) == len(arms)), None)
    if key is not None:
        options = ", ".join(dict.fromkeys(literals[key]))
        return [Issue(prefix + (key,), f"{fmt_path(prefix + (key,))} is {fmt_id(value)}; "
                                       f"expected one of {options}", "union")]
    sample = next(iter(arms.values()))[0]
    got = sample[1].get("input") if len(sample[0]) == depth + 1 else ...
    words = " or ".join(dict.fromkeys(_tag_words(tag) for tag in arms))
    tail = f", not {json_type(got)}" if got is not ... else " (no alternative fits)"
    return [Issue(prefix, f"{fmt_path(prefix)} must be {words}{tail}", "union")]


def validate(entry: Judge, value: Any, base: tuple) -> list[Issue]:
    """Validate ``value`` strictly against a :class:`Judge`; the issues found, paths starting
    with ``base``. A refused value's issues are kept under its structural fingerprint (the same
    broken shape with other texts has the same issues: :mod:`~mcplint.rules._fingerprint`); once
    a judge has refused a value, the kept issues are looked up before the quick pass (a value the
    quick pass accepts has the issues of its fingerprint's values: none)."""
    key = _UNBUILT
    if entry.refused:
        key, kept = _kept_issues(entry, value, base)
        if kept is not None:
            return list(kept)
    quick = entry.quick
    if quick is not None:
        try:
            quick.validate_python(value, strict=True, by_name=False)
            return []
        except Exception:  # noqa: BLE001 - refused (or could not tell): the wire type decides
            pass
    if key is _UNBUILT:
        key, kept = _kept_issues(entry, value, base)
        if kept is not None:
            return list(kept)
    entry.refused = True
    issues = explain(entry, value, base)
    if key is not None:
        _explained[key] = tuple(issues)
    return issues


def _kept_issues(entry: Judge, value: Any, base: tuple) -> tuple[tuple | None, tuple[Issue, ...] | None]:
    """The key of ``value``'s issues in ``_explained`` (None without a fingerprint), and the issues
    kept under it (None: none yet)."""
    key = _explained_key(entry, value, base)
    return key, (_explained.get(key) if key is not None else None)


def _explained_key(entry: Judge, value: Any, base: tuple) -> tuple | None:
    """The key of ``value``'s issues in ``_explained``; None without a fingerprint."""
    fingerprint = entry.fingerprint
    if fingerprint is None:
        return None
    try:
        return entry, base, fingerprint(value)
    except (TypeError, RecursionError):  # not JSON data, or too deep: explained each time
        return None


def explain(entry: Judge, value: Any, base: tuple) -> list[Issue]:
    """:func:`validate` by the wire type's errors (``Judge.explainer``), without the quick pass
    or the kept issues."""
    from pydantic_core import ValidationError

    try:
        entry.explainer.validate_python(value, strict=True, by_name=False)
    except ValidationError as exc:
        return collapse(exc.errors(include_url=False), base)
    return []


#: Issues of refused values by (judge, base, fingerprint): a broken server repeats its shapes.
_explained: Bounded = Bounded(256)


# -- sure acceptance, compiled ----------------------------------------------------------------
#: kind -> method -> revision -> what :func:`acceptor` found (nested: cheaper than a tuple key)
_acceptors: dict[str, dict[str, dict[str, tuple | None]]] = {"request": {}, "notification": {}, "result": {}}


def acceptor(kind: str, method: str, revision: str) -> tuple | None:
    """``(accepts, params_required, entry)`` for the entry :func:`judge` finds: ``accepts(value)`` is true
    only for values the quick validator accepts (:mod:`mcplint.rules._shapes`), so that
    :func:`validate` would find nothing. None: nothing to judge, or no acceptor."""
    known = _acceptors[kind].get(method, {})
    if revision in known:
        return known[revision]
    entry, found = judge(kind, method, revision), None
    if entry is not None and entry.quick_schema is not None:
        accepts = compile_acceptor(entry.quick_schema)
        found = None if accepts is None else (accepts, entry.required, entry)
    if method in protocol.METHODS:  # custom method names are unbounded
        _acceptors[kind].setdefault(method, {})[revision] = found
    return found


#: Results of these methods repeat verbatim (each session lists the same catalog) and are the
#: costliest to validate: their issues are kept per exact JSON text, up to VERBATIM_TEXT bytes.
VERBATIM = frozenset({"tools/list", "prompts/list", "resources/list", "resources/templates/list"})
VERBATIM_TEXT = 256 * 1024
_verbatim: Bounded = Bounded(64)
_RESULT = ("result",)


def verbatim_text(value: Any) -> bytes | None:
    """The exact JSON text :func:`validate_verbatim` keeps issues by; None when too long."""
    try:
        text = orjson.dumps(value)
    except TypeError:
        return None
    return text if len(text) <= VERBATIM_TEXT else None


@per_record  # SV003 and the tool rules (tools.listing_text) key catalog verdicts by it
def result_text(record) -> bytes | None:
    """:func:`verbatim_text` of a record's ``result`` when it is an object, else None."""
    msg = record.msg
    result = msg.get("result") if type(msg) is dict else None
    return verbatim_text(result) if type(result) is dict else None


def validate_verbatim(entry: Judge, value: Any, base: tuple, text: bytes | None = ...) -> list[Issue]:
    """:func:`validate`, remembered per exact JSON text of ``value`` (``text``, when the caller
    has it). The issues are a function of the text: it keeps key order (the errors' order), types
    (``1`` vs ``1.0`` vs ``true``) and every value; the parser (orjson) reads no NaN or infinity,
    which orjson would write as null."""
    if text is ...:
        text = verbatim_text(value)
    if not text:
        return validate(entry, value, base)
    key = (id(entry), base, text)  # entries live as long as the surface: ids stay unique
    issues = _verbatim.get(key)
    if issues is None:
        issues = _verbatim[key] = tuple(validate(entry, value, base))
    return list(issues)


# -- paths other rules own ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Owned:
    """Issues at ``path`` (``*`` = any one step, leading ``**`` = any steps) of ``kind`` messages
    of ``methods`` (None = any) are reported by ``owners`` instead. ``match``: "prefix" (the path
    and below), "exact", "missing"/"present" (exact path, only missing / only other errors)."""

    kind: str
    methods: frozenset[str] | None
    path: tuple
    owners: tuple[str, ...]
    match: str = "prefix"
    era: str | None = None  # "modern"/"legacy": only in that era


def _o(kind, methods, path, owners, match="prefix", era=None) -> Owned:
    methods = None if methods is None else frozenset([methods] if isinstance(methods, str) else methods)
    return Owned(kind, methods, tuple(path), tuple(owners.split()), match, era)


_LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
_PV, _CC = protocol.PROTOCOL_VERSION_META, protocol.CLIENT_CAPABILITIES_META

OWNED: tuple[Owned, ...] = (
    # requests
    _o("request", "initialize", (), "LC003"),
    _o("request", None, ("params",), "MD001", "missing", "modern"),
    _o("request", None, ("params", "_meta"), "MT001 MD001", "exact"),
    _o("request", None, ("params", "_meta", "progressToken"), "PR001", "present"),
    _o("request", None, ("params", "_meta", _PV), "MD001"),
    _o("request", None, ("params", "_meta", _CC), "CAP006 MD001"),
    _o("request", None, ("params", "_meta", "io.modelcontextprotocol/clientInfo"), "MD011", "missing"),
    _o("request", None, ("params", "_meta", "io.modelcontextprotocol/logLevel"), "LG002 LG008"),
    _o("request", None, ("params", "inputResponses", "*"), "MR007"),
    _o("request", ("resources/read", "resources/subscribe", "resources/unsubscribe"), ("params", "uri"),
       "RS006", "present"),
    _o("request", "logging/setLevel", ("params", "level"), "LG002"),
    _o("request", "prompts/get", ("params", "arguments"), "PM003"),
    _o("request", "completion/complete", ("params", "ref"), "CP002"),
    _o("request", "completion/complete", ("params", "argument"), "CP002"),
    _o("request", "completion/complete", ("params", "context"), "CP002"),
    _o("request", "sampling/createMessage", ("params", "messages"), "SM001"),
    _o("request", "sampling/createMessage", ("params", "maxTokens"), "SM001"),
    _o("request", "sampling/createMessage", ("params", "modelPreferences"), "SM011"),
    _o("request", "elicitation/create", ("params", "mode"), "EL001", "present"),
    _o("request", "elicitation/create", ("params", "message"), "EL003 EL004"),
    _o("request", "elicitation/create", ("params", "requestedSchema"), "EL003"),
    _o("request", "elicitation/create", ("params", "url"), "EL004"),
    _o("request", "elicitation/create", ("params", "elicitationId"), "EL004"),
    # notifications
    _o("notification", None, ("params", "_meta"), "MT001", "exact"),
    _o("notification", "notifications/cancelled", ("params", "requestId"), "CN005", "missing"),
    _o("notification", "notifications/cancelled", ("params", "requestId"), "CN001", "present"),
    _o("notification", "notifications/progress", ("params", "progressToken"), "PR001", "present"),
    _o("notification", "notifications/progress", ("params", "message"), "PR008"),
    _o("notification", "notifications/message", ("params", "level"), "LG002"),
    _o("notification", "notifications/resources/updated", ("params", "uri"), "RS006", "present"),
    _o("notification", "notifications/message", ("params", "data"), "LG005", "missing"),
    # results
    _o("result", "initialize", (), "LC004"),
    _o("result", "server/discover", (), "MD009"),
    _o("result", "subscriptions/listen", (), "SB007"),
    _o("result", None, ("result", "_meta"), "MT001", "exact"),
    _o("result", None, ("result", "resultType"), "MD003 MD004", era="modern"),
    _o("result", None, ("result", "ttlMs"), "CA001 CA002", era="modern"),
    _o("result", None, ("result", "cacheScope"), "CA001 CA003", era="modern"),
    _o("result", None, ("result", "inputRequests"), "MR003", era="modern"),
    _o("result", None, ("**", "annotations", "priority"), "RS007"),
    _o("result", None, ("**", "annotations", "audience"), "RS007"),
    _o("result", None, ("**", "annotations", "lastModified"), "RS007"),
    _o("result", _LISTS, ("result", "nextCursor"), "PA002"),
    _o("result", "resources/list", ("result", "resources", "*", "uri"), "RS006", "present"),
    _o("result", "resources/templates/list", ("result", "resourceTemplates", "*", "uriTemplate"), "RS006",
       "present"),
    _o("result", "tools/list", ("result", "tools", "*"), "TL001", "exact"),
    _o("result", "tools/list", ("result", "tools", "*", "name"), "TL001"),
    _o("result", "tools/list", ("result", "tools", "*", "inputSchema"), "TL001 TL002"),
    _o("result", "tools/list", ("result", "tools", "*", "outputSchema"), "TL003 TL002"),
    _o("result", "tools/call", ("result", "content"), "TL014", "exact"),
    _o("result", "tools/call", ("result", "content", "*"), "TL014", "exact"),
    _o("result", "tools/call", ("result", "content", "*", "type"), "TL014"),
    _o("result", "tools/call", ("result", "content", "*", "mimeType"), "TL015", "missing"),
    _o("result", "tools/call", ("result", "structuredContent"), "TL012"),
    _o("result", "resources/read", ("result", "contents"), "RS003"),
    _o("result", "prompts/get", ("result", "messages"), "PM004"),
    _o("result", "roots/list", ("result", "roots", "*"), "RT001"),
    _o("result", "completion/complete", ("result", "completion", "values"), "CP001", "present"),
    _o("result", "sampling/createMessage", ("result",), "SM008"),
    _o("result", "elicitation/create", ("result", "action"), "EL005"),
    _o("result", "elicitation/create", ("result", "content"), "EL006"),
)


def _path_matches(pattern: tuple, path: tuple, match: str) -> bool:
    if pattern[:1] == ("**",):
        tail = pattern[1:]
        return any(_path_matches(tail, path[i:], match) for i in range(len(path) - len(tail) + 1))
    if len(path) < len(pattern) or (match != "prefix" and len(path) != len(pattern)):
        return False
    return all(p == "*" or p == q for p, q in zip(pattern, path))


_active: list[Owned] | None = None
_whole: frozenset[tuple[str, str]] = frozenset()


def _owned_entries() -> list[Owned]:
    """The OWNED entries whose owner rules are registered (evaluated once, after loading)."""
    global _active, _whole
    if _active is None:
        _active = [o for o in OWNED if any(code in REGISTRY for code in o.owners)]
        _whole = frozenset((o.kind, m) for o in _active if o.path == () and o.methods for m in o.methods)
    return _active


def owned(kind: str, method: str, issue: Issue, modern: bool) -> bool:
    """Whether a more specific rule reports ``issue`` (see :data:`OWNED`)."""
    key = (kind, method, modern, issue.path, issue.kind == "missing")
    verdict = _owned_verdicts.get(key)
    if verdict is None:
        entries = _owners.get(key[:3])
        if entries is None:
            entries = _owners[key[:3]] = owners_of(kind, method, modern)
        verdict = any(_owns(entry, issue) for entry in entries)
        if len(_owned_verdicts) >= _OWNED_LIMIT:
            _owned_verdicts.clear()
            _owners.clear()
        _owned_verdicts[key] = verdict
    return verdict


_OWNED_LIMIT = 4096
_owned_verdicts: dict[tuple, bool] = {}  # (kind, method, modern, path, missing) -> owned()
_owners: dict[tuple, tuple[Owned, ...]] = {}  # (kind, method, modern) -> owners_of()


def owners_of(kind: str, method: str, modern: bool) -> tuple[Owned, ...]:
    """The active :data:`OWNED` entries that can own an issue of ``kind`` messages of ``method``
    in an era."""
    return tuple(entry for entry in _owned_entries()
                 if entry.kind == kind and (entry.methods is None or method in entry.methods)
                 and (entry.era is None or (entry.era == "modern") == modern))


def _owns(entry: Owned, issue: Issue) -> bool:
    """Whether ``entry`` (of the issue's kind, method and era) owns ``issue``."""
    if entry.match == "missing" and issue.kind != "missing" or entry.match == "present" and issue.kind == "missing":
        return False
    return _path_matches(entry.path, issue.path, entry.match)


def whole_method_owned(kind: str, method: str) -> bool:
    """Whether another rule judges every part of this method's params/result (initialize...)."""
    if _active is None:
        _owned_entries()
    return (kind, method) in _whole


_judges: dict[tuple, tuple | None] = {}


def judge(kind: str, method: str, revision: str) -> Judge | None:
    """The :class:`Judge` of ``method``'s params or result in ``revision`` (from the disk cache
    when an earlier run kept it); None when another rule judges them whole or the surface lacks
    the method."""
    key = (kind, method, revision)
    try:
        return _judges[key]
    except KeyError:
        pass
    if whole_method_owned(kind, method):
        entry = None
    elif method not in protocol.METHODS:  # custom method names are unbounded: never kept
        return surface().adapter(kind, method, revision)
    else:
        stored = _schema_cache.get(key)
        if stored is _schema_cache.MISSING:
            entry = surface().adapter(kind, method, revision)
            _schema_cache.put(key, entry.stored() if entry is not None else None)
        else:
            entry = Judge(key, *stored) if stored is not None else None
    _judges[key] = entry
    return entry


# -- the common case, tested by the engine --------------------------------------------------
#: The everyday messages whose params or result a family's clean test also judges with the
#: acceptor (:class:`Accepting`), in the same call: (kind, method) -> that family's feature. The SV
#: rules require it too, and the params and result features are not tested on these, so the
#: engine makes one clean test of such a record instead of two (each costs a call and reads the
#: same members: issue 16).
FOLDED = {("request", "tools/call"): "odd-call", ("notification", "notifications/progress"): "odd-progress",
          ("notification", "notifications/message"): "odd-log", ("result", "tools/call"): "odd-answer"}


class Accepting:
    """What :func:`acceptor` finds for ``kind`` payloads of one known ``method``, by revision: the
    family clean tests of :data:`FOLDED` ask :meth:`vouches` of the params or result they judge."""

    __slots__ = ("by_revision", "kind", "method")

    def __init__(self, kind: str, method: str):
        self.kind, self.method = kind, method
        self.by_revision: dict[str, tuple | None] = _acceptors[kind].setdefault(method, {})

    def vouches(self, record, value) -> bool:
        """Whether the acceptor of the record's revision surely accepts ``value``, so that the SV
        rule of its kind finds nothing there (as :func:`plain_params` and :func:`plain_result`)."""
        revision = record.revision or newest(record.session.modern)
        try:
            sure = self.by_revision[revision]
        except KeyError:
            sure = acceptor(self.kind, self.method, revision)
        return sure is not None and sure[0](value)


def _shaped(kind: str, methods: frozenset[str]) -> list[str]:
    """The methods whose ``kind`` payloads an SV rule may judge: not judged whole by another rule
    (whatever is registered: a feature may hold needlessly, never wrongly), no task methods (the
    wire types lack them), none whose family's clean test judges them (:data:`FOLDED`)."""
    whole = {m for o in OWNED if o.kind == kind and o.path == () and o.methods for m in o.methods}
    return sorted(m for m in methods if m not in whole and "tasks/" not in m and (kind, m) not in FOLDED)


def plain_params(kind: str):
    """The clean test of the feature of ``kind`` ("request" or "notification") params: params
    that :func:`acceptor` surely accepts, or none where none are due (the message lacks them or
    holds null: JR007). SV001/SV002 find nothing there (:func:`validate` accepts what the acceptor
    accepts), so the engine keeps them out of the plan with one test instead of a rule call."""
    accepting = _acceptors[kind]

    def plain(record) -> bool:
        revision = record.revision or newest(record.session.modern)
        try:
            sure = accepting[record.method][revision]
        except KeyError:
            sure = acceptor(kind, record.method, revision)
        if sure is None:
            return False
        params = record.params
        return sure[0](params) if type(params) is dict else params is None and not sure[1]
    return plain


plain_request = feature("odd-request-params", Kind.REQUEST,
                        *_shaped("request", protocol.REQUEST_METHODS))(plain_params("request"))
plain_notification = feature("odd-notification-params", Kind.NOTIFICATION,
                             *_shaped("notification", protocol.NOTIFICATION_METHODS))(plain_params("notification"))
_ACCEPTING_RESULTS = _acceptors["result"]


@feature("odd-result", Kind.RESULT, *_shaped("result", protocol.REQUEST_METHODS))
def plain_result(record) -> bool:
    """A result object that :func:`acceptor` of its request's method surely accepts (for the
    :data:`VERBATIM` methods: whose exact text was found clean before), where SV003 finds nothing."""
    request, msg = record.request, record.msg
    result = msg.get("result") if type(msg) is dict else None
    if request is None or type(result) is not dict:
        return False
    method = request.method
    revision = record.revision or newest(record.session.modern)
    try:
        sure = _ACCEPTING_RESULTS[method][revision]
    except KeyError:
        sure = acceptor("result", method, revision)
    if sure is None:
        return False
    if method not in VERBATIM:
        return sure[0](result)
    return _verbatim.get((id(sure[2]), _RESULT, result_text(record))) == ()


# -- the rules ------------------------------------------------------------------------------
class SchemaRule(Rule):
    """Shared reporting of SV001-SV003: one finding per issue, capped per message.

    Findings cite the schema page of the revision at the type's anchor (``schema#calltoolrequest``).
    """

    severity, level = Severity.ERROR, "SCHEMA"
    surface_kind: str

    def issues_of(self, record, session) -> tuple[str, str, list[Issue]] | None:
        raise NotImplementedError

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        # every finding needs an entry of judge() for the method (see issues_of): records of
        # custom methods, tasks/*, methods the revision lacks or another rule judges whole
        # (initialize...) cannot draw one
        return method is not None and judge(cls.surface_kind, method, revision or newest(modern)) is not None

    def check(self, record, session):
        """Findings of the issues :meth:`issues_of` finds."""
        found = self.issues_of(record, session)
        if not found or not found[2]:
            return ()
        method, type_name, issues = found
        issues = [i for i in issues if not owned(self.surface_kind, method, i, session.modern)]
        spec = f"schema §{type_name}"
        out = [self.report(record, self.describe(method, issue.text), spec=spec, related=self.related(record))
               for issue in issues[:MAX_ISSUES]]
        if len(issues) > MAX_ISSUES:
            out.append(self.report(record, f"{len(issues) - MAX_ISSUES} more schema problems in this "
                                           f"{self.surface_kind} of {method!r}", spec=spec))
        return out

    def describe(self, method: str, text: str) -> str:
        return f"{method}: {text}"

    def related(self, record):
        return ()


class ParamsSchemaRule(SchemaRule):
    """SV001/SV002: params of a request or notification."""

    def issues_of(self, record, session) -> tuple[str, str, list[Issue]] | None:
        method = record.method
        if method is None or "params" in record.msg and not isinstance(record.params, dict):
            return None  # a non-object params is JR007
        entry = judge(self.surface_kind, method, record.revision or shape_revision(record, session))
        if entry is None:
            return None  # custom method, tasks/*, a method the revision lacks (SV004), initialize
        required, type_name = entry.required, entry.type_name
        if "params" not in record.msg:
            return (method, type_name, [Issue(("params",), "params is required but missing", "missing")]) \
                if required else None
        return method, type_name, validate(entry, record.params, ("params",))


@rule
class RequestParamsSchema(ParamsSchemaRule):
    """Checks request params against the method's definition in the revision in effect."""

    code, name = "SV001", "request-params-schema"
    spec = _SCHEMA
    kinds = REQUESTS
    surface_kind = "request"
    # not called where plain_request() holds, nor on a tools/call tools.plain_call() finds clean
    requires = frozenset({"odd-request-params", FOLDED["request", "tools/call"]})
    hint = "Send the params the method's definition requires, with the types it names."


@rule
class NotificationParamsSchema(ParamsSchemaRule):
    """Checks notification params against the notification's definition in the revision in effect."""

    code, name = "SV002", "notification-params-schema"
    spec = _SCHEMA
    kinds = NOTIFICATIONS
    surface_kind = "notification"
    # not called where plain_notification() holds, nor on progress or a log message that
    # progress.plain_progress() or logging.plain_log() finds clean
    requires = frozenset({"odd-notification-params",
                          *(name for (kind, _), name in FOLDED.items() if kind == "notification")})
    hint = "Send the params the notification's definition requires, with the types it names."


def is_task_result(result: dict, request, revision: str | None) -> bool:
    """A CreateTaskResult of 2025-11-25 (judged by the task rules), not the method's result."""
    return revision == protocol.V2025_11_25 and isinstance(result.get("task"), dict)


@rule
class ResultSchema(SchemaRule):
    """Checks results against the result type of the request they answer."""

    code, name = "SV003", "result-schema"
    spec = _SCHEMA
    kinds = frozenset({Kind.RESULT})
    surface_kind = "result"
    # not called where plain_result() holds, nor on a tools/call result tools.plain_answer() finds clean
    requires = frozenset({"odd-result", FOLDED["result", "tools/call"]})
    hint = "Return the result the request's method defines (see the schema of the revision in effect)."

    def issues_of(self, record, session):
        request = record.request
        result = result_of(record)
        if request is None or request.method is None or not isinstance(result, dict):
            return None  # unmatched responses: JR011; a non-object result: JR015
        method = request.method
        revision = record.revision or shape_revision(record, session)
        entry = judge("result", method, revision)
        if entry is None or is_task_result(result, request, revision):
            return None
        if session.modern and result.get("resultType") not in ("complete", "input_required"):
            return None  # missing or extension result types: MD003/MD004
        if method in VERBATIM:
            return method, entry.type_name, validate_verbatim(entry, result, _RESULT, result_text(record))
        return method, entry.type_name, validate(entry, result, _RESULT)

    def describe(self, method, text):
        return f"Result of {method}: {text}"

    def related(self, record):
        return [(record.request, "request")]


_CUSTOM_LIMIT = 64


@rule
class MethodFromOtherVersion(Rule):
    """Checks for MCP methods that do not exist in the protocol revision in effect."""

    code, name = "SV004", "method-from-other-version"
    severity, level, spec = Severity.ERROR, "MUST", "basic/lifecycle §Operation"
    kinds = REQUESTS | NOTIFICATIONS
    hint = "Use only the methods of the negotiated protocol revision (or negotiate a newer one)."

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        spec = protocol.METHODS.get(method)
        return spec is None or (revision is not None and revision not in spec.versions)

    def check(self, record, session):
        method = record.method
        spec = protocol.METHODS.get(method)
        if spec is None:
            yield from self._custom(record, session, method)
            return
        revision = record.revision
        if revision is None or revision in spec.versions:
            return
        if session.modern and record.kind is Kind.REQUEST and record.direction is Direction.S2C \
                and "MD005" in REGISTRY:
            return  # a server-initiated request in 2026-07-28: MD005
        known = ", ".join(v for v in protocol.VERSIONS if v in spec.versions)
        what = "notification" if spec.notification else "method"
        must = protocol.at_least(revision, protocol.V2025_06_18)
        yield self.report(record, f"{what.capitalize()} {method!r} does not exist in protocol revision "
                                  f"{revision} (it is defined in {known})",
                          severity=Severity.ERROR if must else Severity.WARNING,
                          level="MUST" if must else "SHOULD",
                          spec="basic/versioning §Protocol Version Negotiation" if session.modern else None)

    def _custom(self, record, session, method):
        if not isinstance(method, str) or method.startswith("rpc."):
            return  # reserved names: JR021
        seen = session.state_for(self).setdefault("custom", set())
        if method in seen or len(seen) >= _CUSTOM_LIMIT:
            return
        seen.add(method)
        if record.kind is Kind.NOTIFICATION:  # no response: a peer without it drops it silently
            yield self.report(record, f"{method!r} is not an MCP notification; custom notifications are "
                                      "allowed, but a peer that does not implement it ignores it "
                                      "(notifications get no response)",
                              severity=Severity.INFO, level="info",
                              hint="Nothing to fix if both peers implement this extension; otherwise "
                                   "the peer drops it without a word.")
            return
        yield self.report(record, f"{method!r} is not an MCP method; custom methods are allowed, "
                                  "but a peer that does not implement it will refuse it",
                          severity=Severity.INFO, level="info",
                          hint="Nothing to fix if both peers implement this extension; "
                               "otherwise expect -32601 (Method not found).")


# -- SV005: typed error data ------------------------------------------------------------------
def _url_elicitations_problems(data: dict) -> list[str]:
    items = data.get("elicitations")
    if "elicitations" not in data:
        return ["error.data.elicitations is required but missing"]
    if not isinstance(items, list):
        return [f"error.data.elicitations must be an array, not {json_type(items)}"]
    problems = []
    for i, item in enumerate(items):
        where = f"error.data.elicitations[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where} must be an object, not {json_type(item)}")
            continue
        if item.get("mode") != "url":
            problems.append(f"{where}.mode is {fmt_id(item.get('mode'))}; expected 'url'")
        for key in ("message", "url", "elicitationId"):
            if not isinstance(item.get(key), str):
                state = "missing" if key not in item else f"{json_type(item[key])}, not a string"
                problems.append(f"{where}.{key} is {state}")
    return problems


def _unsupported_version_problems(data: dict) -> list[str]:
    problems = []
    supported = data.get("supported")
    if "supported" not in data:
        problems.append("error.data.supported is required but missing")
    elif not isinstance(supported, list) or not all(isinstance(v, str) for v in supported):
        problems.append("error.data.supported must be an array of version strings")
    if "requested" not in data:
        problems.append("error.data.requested is required but missing")
    elif not isinstance(data["requested"], str):
        problems.append(f"error.data.requested must be a string, not {json_type(data['requested'])}")
    return problems


def _missing_capability_problems(data: dict) -> list[str]:
    if "requiredCapabilities" not in data:
        return ["error.data.requiredCapabilities is required but missing"]
    if not isinstance(data["requiredCapabilities"], dict):
        return [(f"error.data.requiredCapabilities must be an object, not "
                f"{json_type(data['requiredCapabilities'])}")]
    return []


@dataclass(frozen=True)
class TypedError:
    name: str
    versions: frozenset[str]
    check: Any
    shape: str
    spec: str
    owners: tuple[str, ...] = ()  # a more specific rule that reports this code's data


TYPED_ERRORS: dict[int, TypedError] = {
    -32042: TypedError("URLElicitationRequiredError", frozenset({protocol.V2025_11_25}),
                       _url_elicitations_problems,
                       '{"elicitations": [{"mode": "url", "message": ..., "url": ..., "elicitationId": ...}]}',
                       "client/elicitation §URL Elicitation Required Error", ("EL008",)),
    -32022: TypedError("UnsupportedProtocolVersionError", protocol.MODERN, _unsupported_version_problems,
                       '{"supported": ["2026-07-28", ...], "requested": "<version>"}',
                       "basic/versioning §Protocol Version Negotiation"),
    -32021: TypedError("MissingRequiredClientCapabilityError", protocol.MODERN,
                       _missing_capability_problems, '{"requiredCapabilities": {...}}',
                       "basic §Error Codes"),
}


@rule
class TypedErrorData(Rule):
    """Checks that errors with a typed MCP error code carry the ``data`` their type requires."""

    code, name = "SV005", "typed-error-data"
    severity, level, spec = Severity.ERROR, "SCHEMA", "basic §Error Codes"
    kinds = frozenset({Kind.ERROR})
    versions = frozenset({protocol.V2025_11_25}) | protocol.MODERN
    hint = "Send the error's data member in the shape its error type defines."

    def check(self, record, session):
        error = error_of(record)
        code = error.get("code") if isinstance(error, dict) else None
        typed = TYPED_ERRORS.get(code) if type(code) is int else None
        if typed is None or record.revision not in typed.versions:
            return
        if any(owner in REGISTRY for owner in typed.owners):
            return
        data = error.get("data")
        if data is None:
            problems = ["error.data is required but missing" if "data" not in error
                        else "error.data is null"]
        elif not isinstance(data, dict):
            problems = [f"error.data must be an object, not {json_type(data)}"]
        else:
            problems = typed.check(data)
        if problems:
            yield self.report(record, f"{typed.name} ({code}): " + "; ".join(problems),
                              spec=typed.spec, hint=f"Send error.data = {typed.shape}.",
                              related=[(record.request, "request")] if record.request else ())

"""Tools (TL): tool definitions, arguments, structured output and content blocks.

What a tool accepts and returns is known from the server's ``tools/list`` results, which the
analyzer keeps in ``session.tools`` (``tools``: name -> definition; ``current``: complete and no
``list_changed`` since). JSON Schema checks use the ``jsonschema`` package (imported on first
use) with one compiled validator per distinct schema; the dialect is the schema's ``$schema`` or
the revision's default (2020-12 from 2025-11-25; draft-07, warning only, before). A schema that
``_simple_schema.surely_valid`` vouches for is not meta-validated, and arguments that its acceptor
vouches for are not validated, so a session whose tools have simple schemas never imports it. The error
channel rules (TL006, TL007, TL019) live in ``errors.py``.

``jsonschema-rs`` is not used: its messages differ from ``jsonschema``'s (``"x" is not of type
"integer"``, ``"bb" is longer than 1 character``), so findings would change, and with verdicts
cached the generated captures validate a few dozen distinct instances per 20 MB (measured for
issue 16: 18 µs a valid instance here, 0.13 µs its ``is_valid``).
"""

from __future__ import annotations

import binascii
import functools
import re
from functools import lru_cache
from typing import Any

import orjson

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded
from mcplint.excerpt import mask_text, shorten
from mcplint.model import Direction, Kind, Severity
from mcplint.rules._base import (
    REGISTRY,
    Rule,
    Tracker,
    feature,
    fmt_id,
    params_of,
    result_of,
    rule,
    set_plan_facts,
    tracker,
)
from mcplint.rules._memo import per_record
from mcplint.rules._simple_schema import acceptor as simple_acceptor
from mcplint.rules._simple_schema import surely_valid
from mcplint.rules.errors import LISTED, after_listing, listed, tool_name
from mcplint.rules.schema import FOLDED, Accepting, fmt_path, is_task_result, json_type, result_text

_TOOLS = "server/tools §Data Types"
_NAMES = "server/tools §Tool Names"
_OUTPUT = "server/tools §Output Schema"
_STRUCTURED = "server/tools §Structured Content"
_LIST = frozenset({"tools/list"})
_CALL = frozenset({"tools/call"})
_RESULTS = frozenset({Kind.RESULT})
_ANSWERED = frozenset({"ok", "after-cancel"})
_NEW_LISTING = frozenset({"new-listing"})  # not called on a listing all of them found clean (known_listing)
_C2S = Direction.C2S  # (a module name: ``Direction.C2S`` is a class-attribute lookup, ~0.9k instructions)
_V0618 = protocol.V2025_06_18
_V1125 = protocol.V2025_11_25
_STRUCTURED_VERSIONS = protocol.since(_V0618)
MAX_ERRORS = 3  # schema errors quoted per finding


# -- tool catalog helpers ----------------------------------------------------------------------
def listed_tools(record) -> list | None:
    """The ``tools`` array of a tools/list result sent by the server, else None."""
    if record.direction is _C2S:
        return None
    result = result_of(record)
    tools = result.get("tools") if isinstance(result, dict) else None
    return tools if isinstance(tools, list) else None


def tool_label(tool: Any, index: int) -> str:
    name = tool.get("name") if isinstance(tool, dict) else None
    return f"tools[{index}] ({name!r})" if isinstance(name, str) else f"tools[{index}]"


def called_tool(session, request) -> tuple[str | None, dict | None]:
    """``(name, definition)`` of the tool a tools/call request names, from the last listing."""
    name = params_of(request).get("name") if request is not None else None
    if not isinstance(name, str):
        return None, None
    tool = session.tools.tools.get(name)
    return name, tool if isinstance(tool, dict) else None


def catalog_confidence(session) -> str | None:
    """None (the rule's own) while the listing is current, "low" once it may be outdated."""
    return None if session.tools.current else "low"


@per_record  # most TL rules ask about every tools/call result
def call_result(record) -> dict | None:
    """The CallToolResult of a server's answer to tools/call (not a task, not input_required)."""
    if record.direction is _C2S:
        return None
    result = result_of(record)
    if not isinstance(result, dict) or is_task_result(result, record.request, record.revision):
        return None
    if result.get("resultType", "complete") != "complete":
        return None  # 2026-07-28 input_required (MRTR) or extension result types
    return result


def structured(record) -> bool:
    """Whether a result carries ``structuredContent`` (what TL011-TL013 judge; most have none)."""
    result = result_of(record)
    return isinstance(result, dict) and "structuredContent" in result


# -- JSON Schema (jsonschema, imported on first use) ---------------------------------------------
_js: dict[str, Any] = {}


#: Meta-schema verdicts and compiled validators, keyed by the schema's JSON text (key order kept:
#: it orders the errors) and dialect: the next session listing the same tool reuses them.
_WORK = Bounded(512)
#: schema object -> its JSON text, for the objects of live tool catalogs (pinned, so ids stay
#: unique): a call of a listed tool does not serialize its schema again.
_TEXTS = Bounded(512)
#: (schema key, instance JSON text) -> verdict: clients repeat calls. Instance key order is kept
#: too: jsonschema's messages quote the instance and walk its members in order.
_VERDICTS = Bounded(2048)
_VERDICT_TEXT = 4096  # bytes: larger instances are validated each time (and rarely repeat)


def _jsonschema() -> dict[str, Any]:
    if not _js:
        from jsonschema import Draft7Validator, Draft202012Validator, validators

        _js.update(validator_for=validators.validator_for, draft7=Draft7Validator,
                   draft2020=Draft202012Validator, meta={})
    return _js


@lru_cache(maxsize=64)
def default_dialect(revision: str | None) -> str:
    """The dialect of a schema without ``$schema``: 2020-12 from 2025-11-25, draft-07 before."""
    return "draft2020" if revision is None or protocol.at_least(revision, _V1125) else "draft7"


def schema_key(schema: dict, revision: str | None, session=None) -> tuple | None:
    """``(JSON text, default dialect)``: all that meta-validation and compiling ``schema`` depend
    on; None when it cannot be serialized. ``session``: a schema its tools/list listed has its text
    from :class:`ListedSchemas`."""
    listed = ListedSchemas.peek(session) if session is not None else None
    seen = listed.get(id(schema)) if listed else None
    if seen is None:
        seen = _TEXTS.get(id(schema))
    if seen is not None and seen[0] is schema:
        text = seen[1]
    else:
        try:
            text = orjson.dumps(schema)
        except TypeError:
            text = None
        _TEXTS[id(schema)] = (schema, text)
    return None if text is None else (text, default_dialect(revision))


def _cached(kind: str, schema: dict, revision: str | None, build, key: tuple | None = ...):
    """``build(schema, revision)``, computed once per distinct schema text and dialect (``key``:
    the :func:`schema_key`, when the caller has it)."""
    if key is ...:
        key = schema_key(schema, revision)
    if key is None:
        return build(schema, revision)
    entry = _WORK.get((kind, key))
    if entry is None:
        entry = _WORK[kind, key] = (build(schema, revision),)  # a 1-tuple: None is worth keeping
    else:  # least recently used goes first: these are costly to rebuild
        try:
            _WORK.move_to_end((kind, key))
        except KeyError:  # another thread's insertion evicted it meanwhile
            pass
    return entry[0]


def _validator_class(schema: dict, revision: str | None):
    js = _jsonschema()
    default = js[default_dialect(revision)]
    if not isinstance(schema.get("$schema", ""), str):
        return default  # the meta-schema reports the bad $schema
    return js["validator_for"](schema, default=default)


def meta_errors(schema: dict, revision: str | None) -> list[tuple[tuple, str]]:
    """``(path, message)`` of what makes ``schema`` invalid against its dialect's meta-schema."""
    return _cached("meta", schema, revision, _meta_errors)


def _meta_errors(schema: dict, revision: str | None) -> list[tuple[tuple, str]]:
    if surely_valid(schema):
        return []  # (the usual schema: no need to import jsonschema, about 45 ms, to say so)
    cls = _validator_class(schema, revision)
    meta = _jsonschema()["meta"]
    checker = meta.get(cls)
    if checker is None:
        checker = meta[cls] = cls(cls.META_SCHEMA)
    try:
        return [(tuple(e.absolute_path), e.message) for e in checker.iter_errors(schema)]
    except Exception:  # noqa: BLE001 - a meta-schema that cannot be evaluated: no verdict
        return []


def _validator(schema: dict, revision: str | None):
    """A compiled validator of a valid schema; None when it is invalid or cannot be loaded."""
    if meta_errors(schema, revision):
        return None  # an invalid schema (TL002) says nothing about instances
    try:
        return _validator_class(schema, revision)(schema)
    except Exception:  # noqa: BLE001 - a schema jsonschema cannot load: no verdict
        return None


def instance_errors(schema: dict, instance: Any, revision: str | None, session=None) -> list[tuple[tuple, str]] | None:
    """``(path, message)`` of ``instance`` against ``schema`` (listed in ``session``'s tools/list,
    when given); None when the schema is unusable."""
    schema_id = schema_key(schema, revision, session)
    try:
        text = orjson.dumps(instance)
    except TypeError:
        text = None
    key = (schema_id, text) if schema_id is not None and text is not None and len(text) <= _VERDICT_TEXT else None
    hit = _VERDICTS.get(key) if key is not None else None
    if hit is not None:
        return hit[0]
    validator = _cached("validator", schema, revision, _validator, schema_id)
    errors: list | None = None
    if validator is not None:
        try:
            errors = []
            for error in validator.iter_errors(instance):
                errors.append((tuple(error.absolute_path), error.message))
                if len(errors) >= MAX_ERRORS + 1:
                    break
        except Exception:  # noqa: BLE001 - unresolvable $ref, unknown type name: no verdict
            errors = None
    if key is not None:
        _VERDICTS[key] = (errors,)
    return errors


def quote_errors(errors: list[tuple[tuple, str]], base: tuple) -> str:
    shown = [f"{fmt_path(base + path)}: {message}" for path, message in errors[:MAX_ERRORS]]
    more = f" (and {len(errors) - MAX_ERRORS} more)" if len(errors) > MAX_ERRORS else ""
    return "; ".join(shown) + more


#: arrival number (``Record.seq``) of a tools/call request -> (inputSchema, dialect, errors): the
#: verdict TL008 found, which TL009 (and the "odd-answer" feature) reuse while the listed schema is
#: the same object (dialect None: arguments its acceptor vouched for); emptied when full (answers
#: follow their calls closely: a verdict forgotten is only made again). Keyed by the number, not the
#: record: a request kept here would outlive its session, and the garbage collector would walk all
#: of them, and their messages, again and again (about 4.7k instructions per record on the small
#: shape); not by the record's address either, which a later request reuses, so that when the
#: table empties would depend on memory addresses (and with it the cost of a run)
_ARGUMENTS: dict[int, tuple] = {}
_ARGUMENTS_KEPT = 256
_NO_ARGUMENTS: dict = {}


def vouched(session, request, params: dict, tool: Any, keep: bool = True) -> bool:
    """Whether the acceptor of the listed inputSchema of ``tool`` (the session's definition of the
    tool ``params`` names, a tools/call ``request``'s) vouches for the arguments in ``params``, or
    did for this request and schema; ``keep``: the verdict is kept for the answer
    (:func:`argument_errors`)."""
    if type(tool) is not dict:
        return False
    schema = tool.get("inputSchema")
    kept = _ARGUMENTS.get(request.seq)
    if kept is not None and kept[0] is schema and kept[1] is None:
        return True  # (accepted by TL008 or plain_call: the answer's rules ask again)
    listed = session.state.get(ListedSchemas)  # (ListedSchemas.peek inline)
    seen = listed.get(id(schema)) if listed else None
    if seen is None or seen[0] is not schema or seen[2] is None \
            or not seen[2](params.get("arguments", _NO_ARGUMENTS)):
        return False
    if keep:
        if len(_ARGUMENTS) >= _ARGUMENTS_KEPT:
            _ARGUMENTS.clear()
        _ARGUMENTS[request.seq] = (schema, None, [])  # None: whatever the dialect
    return True


def argument_errors(session, request, revision, known_only: bool = False) -> tuple[str | None, Any]:
    """``(tool name, errors)`` of a tools/call's arguments against the listed inputSchema.

    errors is None when nothing can be judged (tool not listed, no usable schema, arguments
    not an object: SV001). ``known_only``: errors is ``...`` unless they are known without
    validating (no verdict to make, or the one kept for this request, schema and dialect).
    """
    params = request.params if request is not None else None
    name = params.get("name") if type(params) is dict else None
    if type(name) is str and vouched(session, request, params, session.tools.tools.get(name), not known_only):
        return name, []  # the usual call: arguments the listed schema's acceptor vouches for
    name, tool = called_tool(session, request)
    schema = tool.get("inputSchema") if tool is not None else None
    params = params_of(request)
    arguments = params.get("arguments", {})
    if not isinstance(schema, dict) or not isinstance(arguments, dict):
        return name, None
    dialect = default_dialect(revision)  # all the verdict takes of the revision (schema_key)
    kept = _ARGUMENTS.get(request.seq)
    if kept is not None and kept[0] is schema and kept[1] == dialect:
        return name, kept[2]
    if known_only:
        return name, ...
    errors = instance_errors(schema, arguments, revision, session)
    if len(_ARGUMENTS) >= _ARGUMENTS_KEPT:
        _ARGUMENTS.clear()
    _ARGUMENTS[request.seq] = (schema, dialect, errors)
    return name, errors


_CALL_PARAMS = Accepting("request", "tools/call")
_CALL_RESULTS = Accepting("result", "tools/call")


@feature(FOLDED["request", "tools/call"], Kind.REQUEST, "tools/call")
def plain_call(record) -> bool:
    """A client's tools/call that neither TL008 nor HX007 nor SV001 (which require the feature
    "odd-call") can report: it names a tool of the session's list (HX007: ``ToolCatalog.tools``
    has a key for each of its ``names``) whose listed inputSchema's acceptor vouches for its
    arguments (TL008: :func:`vouched`, the verdict kept for the answer as TL008 keeps it), and
    the acceptor of its params vouches for them (SV001: as ``schema.plain_request``, which the
    engine does not ask of a tools/call: ``schema.FOLDED``)."""
    params = record.params
    if type(params) is not dict or record.direction is not _C2S:
        return False
    name = params.get("name")
    if type(name) is not str:
        return False
    session = record.session
    if not vouched(session, record, params, session.tools.tools.get(name)):
        return False
    return _CALL_PARAMS.vouches(record, params)


# -- TL001-TL005: definitions in tools/list ---------------------------------------------------
#: Sessions list the same catalog verbatim: (revision, listing text) -> the codes of the rules
#: (:func:`per_listing`) that found it clean, so that they do not judge it again. Texts up to
#: CLEAN_TEXT bytes.
_CLEAN = Bounded(256)
CLEAN_TEXT = 64 * 1024


@per_record  # shared by the rules that judge a listing by its tools alone
def listing_text(record) -> bytes | None:
    """The exact JSON text of a server's tools/list result that lists tools (:func:`result_text`:
    SV003 keys its verdict by the same text); None when it is too long."""
    msg = record.msg  # (listed_tools inline)
    result = msg.get("result") if type(msg) is dict else None
    if type(result) is not dict or record.direction is Direction.C2S:
        return None
    tools = result.get("tools")
    if type(tools) is not list or not tools:
        return None
    text = result_text(record)
    return text if text is not None and len(text) <= CLEAN_TEXT else None


#: listing text (up to CLEAN_TEXT bytes) -> ((inputSchema, outputSchema) texts and inputSchema
#: acceptor of each tool, by position; whether a tool declares an outputSchema)
_SCHEMA_TEXTS = Bounded(64)


def _text(schema: Any) -> bytes | None:
    if not isinstance(schema, dict):
        return None
    try:
        return orjson.dumps(schema)
    except TypeError:
        return None


_OUTPUT_SCHEMAS = "tools:output-schema"
_LISTED_FACTS, _OUTPUT_FACTS = frozenset({LISTED}), frozenset({LISTED, _OUTPUT_SCHEMAS})


def _declares_output(tools: Any) -> bool:
    return isinstance(tools, list) and any(isinstance(tool, dict) and "outputSchema" in tool for tool in tools)


def _schema_texts(tools: list) -> tuple[tuple[tuple[int, str, bytes, Any], ...], bool]:
    """What :class:`ListedSchemas` keeps of a listing's ``tools``: ``(index, "inputSchema" or
    "outputSchema", its JSON text, the inputSchema's acceptor or None)`` of each schema that is an
    object it can serialize, in listing order; and whether a tool declares an outputSchema."""
    schemas = []
    for index, tool in enumerate(tools):
        if isinstance(tool, dict):
            text = _text(tool.get("inputSchema"))
            if text is not None:
                schemas.append((index, "inputSchema", text, simple_acceptor(tool["inputSchema"])))
            text = _text(tool.get("outputSchema"))
            if text is not None:
                schemas.append((index, "outputSchema", text, None))
    return tuple(schemas), _declares_output(tools)


@tracker
class ListedSchemas(Tracker):
    """The JSON texts of the schemas a session's tools/list listed (schema object id -> (schema,
    text, the :mod:`~mcplint.rules._simple_schema` acceptor of an inputSchema or None)), so that
    the first call of each tool in the session does not serialize its schema (:func:`schema_key`)
    and a call whose arguments the acceptor vouches for is not validated (:func:`argument_errors`).
    Sessions list the same catalog verbatim: the texts are those of an earlier listing with the
    same text, by position (equal JSON texts of two arrays are equal texts of their elements); a
    new listing's schemas are serialized and compiled once.

    It also makes the session's tool listings plan facts (each once for all): LISTED when a
    tools/list result holds an object (the analyzer lists tools from those only), so that TL006,
    TL008, TL009 and HX007 (:func:`after_listing`) are not called in a session that lists none; "a
    listed tool declares an outputSchema", so that TL010, which needs the called tool's, is not
    called in a session without one."""

    kinds = _RESULTS
    methods = _LIST
    facts = dict

    def commit(self, record, session):
        text = listing_text(record)
        if text is None:
            msg = record.msg
            result = msg.get("result") if type(msg) is dict else None
            if type(result) is dict:
                self._facts(session, _declares_output(result.get("tools")))
            return
        tools = record.msg["result"]["tools"]  # (listing_text found them)
        entry = _SCHEMA_TEXTS.get(text)
        if entry is None:
            entry = _SCHEMA_TEXTS[text] = _schema_texts(tools)
        schemas, outputs = entry
        facts = session.plan_facts  # (_facts inline)
        if _OUTPUT_SCHEMAS not in facts:
            if outputs:
                set_plan_facts(session, "tools:", _OUTPUT_FACTS)
            elif LISTED not in facts:
                set_plan_facts(session, "tools:", _LISTED_FACTS)
        known = session.state.get(ListedSchemas)  # (Tracker.of inline)
        if known is None:
            known = session.state[ListedSchemas] = {}
        elif len(known) > 4096:  # a long session that listed many catalogs: keep the latest ones
            known.clear()
        for index, member, schema_text, accepts in schemas:
            schema = tools[index][member]
            known[id(schema)] = (schema, schema_text, accepts)

    @staticmethod
    def _facts(session, outputs: bool) -> None:
        """The plan facts of a tools/list result that is an object (``outputs``: a tool declares an
        outputSchema)."""
        facts = session.plan_facts
        if _OUTPUT_SCHEMAS in facts:
            return
        if outputs:
            set_plan_facts(session, "tools:", _OUTPUT_FACTS)
        elif LISTED not in facts:
            set_plan_facts(session, "tools:", _LISTED_FACTS)


def per_listing(check):
    """For a check whose findings are a function of the listed tools and the revision only
    (no session state): a listing text it found clean before is not judged again (and once all
    such rules found it clean, they are not called: :func:`known_listing`)."""
    @functools.wraps(check)
    def judged(self, record, session):
        text = listing_text(record)
        if text is None:
            return list(check(self, record, session))
        key = (record.revision, text)
        clean = _CLEAN.get(key)
        if clean is not None and self.code in clean:
            return ()
        found = list(check(self, record, session))
        if not found:
            if clean is None:
                clean = _CLEAN[key] = set()
            clean.add(self.code)
        return found
    return judged


@feature("new-listing", Kind.RESULT, "tools/list")
def known_listing(record) -> bool:
    """A tools/list result answering a request without a cursor whose text every rule of its
    revision that requires the feature "new-listing" found clean before (each is a
    :func:`per_listing` check): as their findings on such a page are a function of the text and
    the revision, none of them can report (TL005 judges a page that continues a traversal by the
    earlier pages too). A rule that is not selected never finds a text clean, so with one
    deselected no listing is known and the others run."""
    text = listing_text(record)
    if text is None:
        return False
    request = record.request
    params = request.params if request is not None else None
    if type(params) is dict and params.get("cursor") is not None:
        return False
    clean = _CLEAN.get((record.revision, text))
    return clean is not None and clean.issuperset(_listing_rules(record.revision, len(REGISTRY)))


@lru_cache(maxsize=64)
def _listing_rules(revision: str | None, registered: int) -> frozenset[str]:
    """The codes of the rules requiring "new-listing" that judge listings of ``revision`` (all of
    them when it is unknown); ``registered``: the registry's size, as rules may be added."""
    return frozenset(code for code, cls in REGISTRY.items() if "new-listing" in cls.requires
                     and (revision is None or revision in cls.versions))


def definition_problems(tool: Any) -> list[str]:
    """What makes one tools/list entry malformed (the MCP ``Tool`` type, TL001)."""
    if not isinstance(tool, dict):
        return [f"the entry is {json_type(tool)}, not an object"]
    problems = []
    if "name" not in tool:
        problems.append("name is missing")
    elif not isinstance(tool["name"], str):
        problems.append(f"name is {json_type(tool['name'])}, not a string")
    if "inputSchema" not in tool:
        problems.append("inputSchema is missing")
        return problems
    schema = tool["inputSchema"]
    if not isinstance(schema, dict):
        problems.append(f"inputSchema is {json_type(schema)}, not a JSON Schema object")
        return problems
    if schema.get("type") != "object":
        shown = "missing" if "type" not in schema else fmt_id(schema["type"])
        problems.append(f'inputSchema.type is {shown}; it must be "object"')
    if "properties" in schema and not isinstance(schema["properties"], dict):
        problems.append(f"inputSchema.properties is {json_type(schema['properties'])}, not an object")
    required = schema.get("required")
    if "required" in schema and not (isinstance(required, list) and all(isinstance(r, str) for r in required)):
        problems.append("inputSchema.required is not an array of strings")
    return problems


@rule
class ToolDefinitionShape(Rule):
    """Checks that every listed tool has a string ``name`` and an object ``inputSchema`` of type object."""

    code, name = "TL001", "tool-definition-shape"
    severity, level, spec = Severity.ERROR, "SCHEMA", _TOOLS
    party = "server"
    kinds = _RESULTS
    methods = _LIST
    answers = _ANSWERED
    requires = _NEW_LISTING
    hint = 'Give every tool a "name" and an "inputSchema" like {"type": "object", "properties": {...}}.'

    @per_listing
    def check(self, record, session):
        for index, tool in enumerate(listed_tools(record) or ()):
            problems = definition_problems(tool)
            if problems:
                yield self.report(record, f"Malformed tool definition {tool_label(tool, index)}: "
                                          + "; ".join(problems))


#: meta-schema errors at these paths are TL001's (inputSchema root, type, properties, required)
#: and TL003's (outputSchema type in the revisions that require an object schema)
_SHAPE_PATHS = frozenset({(), ("type",), ("properties",), ("required",)})
_OUTPUT_ROOT = frozenset({(), ("type",)})


@rule
class SchemaNotValidJsonSchema(Rule):
    """Checks that tool input and output schemas are valid JSON Schema in their dialect."""

    code, name = "TL002", "schema-not-valid-json-schema"
    severity, level, spec = Severity.ERROR, "MUST", "basic §JSON Schema Usage"
    party = "server"
    kinds = _RESULTS
    methods = _LIST
    answers = _ANSWERED
    requires = _NEW_LISTING
    hint = "Fix the schema so that it validates against its dialect's meta-schema (default 2020-12)."

    @per_listing
    def check(self, record, session):
        revision = record.revision
        strict = revision is None or protocol.at_least(revision, _V1125)
        for index, tool in enumerate(listed_tools(record) or ()):
            if not isinstance(tool, dict):
                continue
            for key in ("inputSchema", "outputSchema"):
                schema = tool.get(key)
                if not isinstance(schema, dict):
                    continue  # TL001 / TL003
                problems = meta_errors(schema, revision)
                if not problems:
                    continue
                skip = _SHAPE_PATHS if key == "inputSchema" else \
                    _OUTPUT_ROOT if revision in (_V0618, _V1125) else frozenset({()})
                errors = [(p, m) for p, m in problems if p not in skip]
                if not errors:
                    continue
                declared = schema.get("$schema")
                dialect = declared if isinstance(declared, str) and declared else \
                    "JSON Schema 2020-12" if strict else "draft-07"
                yield self.report(
                    record, f"{tool_label(tool, index)}: {key} is not valid {dialect}: "
                            + quote_errors(errors, (key,)),
                    severity=None if strict else Severity.WARNING, level=None if strict else "derived")


@rule
class OutputSchemaRoot(Rule):
    """Checks that a tool's ``outputSchema`` is an object schema where the revision requires it."""

    code, name = "TL003", "output-schema-root"
    severity, level, spec = Severity.ERROR, "SCHEMA", _OUTPUT
    party = "server"
    kinds = _RESULTS
    methods = _LIST
    answers = _ANSWERED
    requires = _NEW_LISTING
    hint = 'Describe structured output with {"type": "object", "properties": {...}}.'

    @per_listing
    def check(self, record, session):
        revision = record.revision
        for index, tool in enumerate(listed_tools(record) or ()):
            if not isinstance(tool, dict) or "outputSchema" not in tool:
                continue
            schema = tool["outputSchema"]
            label = tool_label(tool, index)
            if revision is not None and not protocol.at_least(revision, _V0618):
                yield self.report(record, f"{label} has an outputSchema, which protocol revision {revision} "
                                          "does not define (added in 2025-06-18); peers may ignore it",
                                  severity=Severity.INFO, level="info")
            elif not isinstance(schema, dict):
                yield self.report(record, f"{label}.outputSchema is {json_type(schema)}, "
                                          "not a JSON Schema object")
            elif revision in (_V0618, _V1125) and schema.get("type") != "object":
                shown = "missing" if "type" not in schema else fmt_id(schema["type"])
                yield self.report(record, f'{label}.outputSchema.type is {shown}; revision {revision} '
                                          'requires an object schema ("type": "object")')


_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@rule
class ToolNameFormat(Rule):
    """Checks that tool names are 1-128 characters of ``A-Z a-z 0-9 _ - .``."""

    code, name = "TL004", "tool-name-format"
    severity, level, spec = Severity.WARNING, "SHOULD", _NAMES
    party = "server"
    kinds = _RESULTS
    methods = _LIST
    answers = _ANSWERED
    requires = _NEW_LISTING
    versions = protocol.since(_V1125)
    hint = "Use 1-128 characters from A-Z, a-z, 0-9, underscore, hyphen and dot (no spaces)."

    @per_listing
    def check(self, record, session):
        for index, tool in enumerate(listed_tools(record) or ()):
            name = tool.get("name") if isinstance(tool, dict) else None
            if not isinstance(name, str) or _TOOL_NAME.match(name):
                continue
            if not name:
                why = "is empty"
            elif len(name) > 128:
                why = f"is {len(name)} characters long (at most 128)"
            else:
                bad = "".join(dict.fromkeys(c for c in name if not re.match(r"[A-Za-z0-9_.-]", c)))
                why = f"contains {fmt_id(bad)}" if bad.strip() else "contains spaces"
            yield self.report(record, f"Tool name {name!r} (tools[{index}]) {why}")


@rule
class ToolNameDuplicate(Rule):
    """Checks that a tool name appears only once across the pages of one tools/list traversal."""

    code, name = "TL005", "tool-name-duplicate"
    severity, level, spec = Severity.WARNING, "SHOULD", _NAMES
    party = "server"
    kinds = _RESULTS
    methods = _LIST
    answers = _ANSWERED
    requires = _NEW_LISTING
    versions = protocol.since(_V1125)
    hint = "Give every tool of a server its own name; clients call tools by name."

    def check(self, record, session):
        if session.tools.page_kind(params_of(record.request)) == "next":
            return list(self._judge(record, session, session.tools.names))
        return self._page(record, session)

    @per_listing  # a page that starts a traversal (or a stray one) is judged by its text alone
    def _page(self, record, session):
        return self._judge(record, session, ())

    def _judge(self, record, session, earlier):
        tools = listed_tools(record)
        if not tools:
            return
        seen: set[str] = set()
        for index, tool in enumerate(tools):
            name = tool.get("name") if isinstance(tool, dict) else None
            if not isinstance(name, str):
                continue
            if name in seen:
                yield self.report(record, f"Tool name {name!r} is listed twice on this page (tools[{index}])")
            elif name in earlier:
                yield self.report(record, f"Tool name {name!r} (tools[{index}]) was already listed on an "
                                          "earlier page of this tools/list traversal",
                                  confidence="low" if session.tools.stale else None)
            seen.add(name)


# -- TL008/TL009: arguments against inputSchema ----------------------------------------------
@rule
class ArgumentsViolateInputSchema(Rule):
    """Checks ``tools/call`` arguments against the listed tool's ``inputSchema``."""

    code, name = "TL008", "arguments-violate-input-schema"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "derived", _TOOLS
    party = "client"
    kinds = frozenset({Kind.REQUEST})
    methods = _CALL
    requires = frozenset({"odd-call"})  # not called on a call plain_call() finds clean
    awaits = classmethod(after_listing)
    hint = "Send arguments that validate against the tool's inputSchema from tools/list."

    def check(self, record, session):
        if record.direction is Direction.S2C:
            return ()
        name, errors = argument_errors(session, record, record.revision)
        if not errors:
            return ()
        return [self.report(record, f"Arguments of tool {name!r} do not match its inputSchema: "
                                    + quote_errors(errors, ("arguments",)),
                            confidence=catalog_confidence(session))]


@rule
class InvalidArgumentsAccepted(Rule):
    """Checks for tool calls with schema-invalid arguments that the server answered as a success."""

    code, name = "TL009", "invalid-arguments-accepted"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "MUST", "server/tools §Security Considerations"
    party = "server"
    confidence = "low"
    kinds = frozenset({Kind.RESULT, Kind.ERROR})
    methods = _CALL
    answers = frozenset({"ok"})
    requires = frozenset({"odd-answer"})  # not called on a plain_answer() result
    awaits = classmethod(after_listing)
    hint = ("Validate tool inputs; reject invalid arguments (2025-11-25 on: an isError result, "
            "before: a -32602 JSON-RPC error).")

    def check(self, record, session):
        if record.direction is _C2S:
            return ()
        name, errors = argument_errors(session, record.request, record.revision)
        if not errors:
            return ()
        related = [(record.request, "call with invalid arguments")]
        execution_channel = protocol.at_least(record.revision, _V1125)
        if record.kind is Kind.ERROR:
            error = record.msg.get("error")
            code = error.get("code") if isinstance(error, dict) else None
            if not (execution_channel and code == -32602):
                return ()
            return [self._wrong_channel(record, f"Invalid arguments of tool {name!r} were refused with a "
                                                f"JSON-RPC error; from {_V1125} input validation errors are "
                                                "tool execution errors (a result with isError: true)", related)]
        result = call_result(record)
        if result is None:
            return ()
        if result.get("isError") is True:
            if execution_channel or record.revision is None:
                return ()
            return [self._wrong_channel(record, f"Invalid arguments of tool {name!r} were reported as a tool "
                                                f"error; revision {record.revision} lists invalid arguments as "
                                                "protocol errors (a JSON-RPC error, -32602)", related)]
        return [self.report(record, f"Server answered a call of {name!r} with success although its arguments "
                                    "violate the tool's inputSchema (" + quote_errors(errors, ("arguments",)) + ")",
                            related=related)]

    def _wrong_channel(self, record, message: str, related):
        """Refused, but on the error channel the revision does not name (a SHOULD, info)."""
        return self.report(record, message, severity=Severity.INFO, level="SHOULD",
                           spec="server/tools §Error Handling", related=related)


# -- TL010-TL013: structured content -------------------------------------------------------------
def output_schema(session, record) -> tuple[str | None, Any]:
    """``(tool name, outputSchema)`` of the called tool, ``...`` as schema when it has none."""
    name, tool = called_tool(session, record.request)
    if tool is None:
        return name, None  # not listed: nothing known
    return name, tool.get("outputSchema", ...)


@rule
class StructuredContentMissing(Rule):
    """Checks that results of tools with an ``outputSchema`` carry ``structuredContent``."""

    code, name = "TL010", "structured-content-missing"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _OUTPUT
    party = "server"
    kinds = _RESULTS
    methods = _CALL
    answers = _ANSWERED
    versions = _STRUCTURED_VERSIONS
    hint = "Return structuredContent conforming to the outputSchema (and the same JSON as text)."

    @classmethod
    def awaits(cls, facts, kind, method):
        return _OUTPUT_SCHEMAS in facts  # output_schema() finds none where no listed tool declares one

    def check(self, record, session):
        result = result_of(record)  # call_result() last: most called tools declare no outputSchema
        if isinstance(result, dict) and ("structuredContent" in result or result.get("isError") is True):
            return ()  # isError results are exempt (as the reference SDK clients do)
        name, schema = output_schema(session, record)
        if schema is None or schema is ... or call_result(record) is None:
            return ()
        return [self.report(record, f"Tool {name!r} declares an outputSchema, but its result has no "
                                    "structuredContent", confidence=catalog_confidence(session),
                            related=[(record.request, "call")])]


@rule
class StructuredContentInvalid(Rule):
    """Checks ``structuredContent`` against the tool's ``outputSchema``."""

    code, name = "TL011", "structured-content-invalid"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _OUTPUT
    requires = frozenset({"odd-answer"})  # not called on a plain_answer() result (no structuredContent)
    party = "server"
    kinds = _RESULTS
    methods = _CALL
    answers = _ANSWERED
    versions = _STRUCTURED_VERSIONS
    hint = "Make structuredContent conform to the tool's outputSchema."

    def check(self, record, session):
        if not structured(record):
            return ()
        result = call_result(record)
        if result is None:
            return ()
        content = result["structuredContent"]
        if session.legacy and not isinstance(content, dict):
            return ()  # TL012
        name, schema = output_schema(session, record)
        if not isinstance(schema, dict):
            return ()
        errors = instance_errors(schema, content, record.revision, session)
        if not errors:
            return ()
        failed = result.get("isError") is True
        return [self.report(record, f"structuredContent of tool {name!r} does not match its outputSchema: "
                                    + quote_errors(errors, ("structuredContent",)),
                            severity=Severity.WARNING if failed else None,
                            confidence=catalog_confidence(session), related=[(record.request, "call")])]


@rule
class StructuredContentType(Rule):
    """Checks that ``structuredContent`` is an object where the revision requires one."""

    code, name = "TL012", "structured-content-type"
    severity, level, spec = Severity.ERROR, "SCHEMA", _STRUCTURED
    requires = frozenset({"odd-answer"})  # not called on a plain_answer() result (no structuredContent)
    party = "server"
    kinds = _RESULTS
    methods = _CALL
    answers = _ANSWERED
    hint = "Send structuredContent as a JSON object (2026-07-28 allows any JSON value)."

    def check(self, record, session):
        if not structured(record):
            return ()
        result = call_result(record)
        if result is None:
            return ()
        revision = record.revision
        if revision is not None and not protocol.at_least(revision, _V0618):
            return [self.report(record, f"structuredContent is not defined in protocol revision {revision} "
                                        "(added in 2025-06-18); peers may ignore it",
                                severity=Severity.INFO, level="info")]
        if revision in (_V0618, _V1125) and not isinstance(result["structuredContent"], dict):
            return [self.report(record, f"structuredContent is {json_type(result['structuredContent'])}; "
                                        f"revision {revision} requires an object")]
        return ()


#: Text blocks longer than this (characters) are not parsed: a large one that could be the
#: mirror gives no verdict. At most MIRROR_PARSES blocks of a result are parsed.
MIRROR_MAX = 1 << 20
MIRROR_PARSES = 8
_JSON_STARTS = {dict: "{", list: "[", str: '"', bool: "tf", type(None): "n"}
_NUMBER_START = "-0123456789"


def _starts_like(text: str, value: Any) -> bool:
    """Whether ``text`` could be ``value`` serialized as JSON, by its first character."""
    head = text[:64].lstrip()[:1]
    return bool(head) and head in _JSON_STARTS.get(type(value), _NUMBER_START)


def _parsed(text: str) -> Any:
    try:
        return orjson.loads(text)
    except ValueError:
        return ...


def mirror_problem(content: list, structured: Any) -> str | None:
    """What the text blocks of ``content`` hold instead of ``structured`` serialized as JSON;
    None when one of them is its JSON (equal as parsed: key order and spacing are free), when
    there is no text block, or when that cannot be told cheaply. Only blocks that start like
    that JSON are parsed."""
    texts = [(i, b["text"]) for i, b in enumerate(content)
             if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
    parses = 0
    for _, text in texts:
        if not _starts_like(text, structured):
            continue
        if len(text) > MIRROR_MAX or parses >= MIRROR_PARSES:
            return None  # too much to compare: no verdict
        parses += 1
        if _parsed(text) == structured:
            return None
    if not texts:
        return None
    index, text = texts[0]
    quoted = "'" + shorten(mask_text(text[:200]), 40) + "'"
    more = f" (and {len(texts) - 1} more text blocks)" if len(texts) > 1 else ""
    value = _parsed(text) if len(text) <= MIRROR_MAX else ...
    if isinstance(structured, dict) and len(structured) == 1:
        key, member = next(iter(structured.items()))
        if member == text or value is not ... and member == value:
            return f"content[{index}] holds {quoted}{more}, the bare value of structuredContent.{key}"
    what = "text that is not JSON" if value is ... else "other JSON"
    return f"content[{index}] holds {what}: {quoted}{more}"


@rule
class StructuredContentNoTextMirror(Rule):
    """Checks that results with ``structuredContent`` also carry its serialized JSON in a text block."""

    code, name = "TL013", "structured-content-no-text-mirror"
    severity, level, spec = Severity.WARNING, "SHOULD", _STRUCTURED
    requires = frozenset({"odd-answer"})  # not called on a plain_answer() result (no structuredContent)
    party = "server"
    kinds = _RESULTS
    methods = _CALL
    answers = _ANSWERED
    versions = _STRUCTURED_VERSIONS
    hint = "Also return the serialized JSON in a text content block, for clients without structured output."

    def check(self, record, session):
        if not structured(record):
            return ()
        result = call_result(record)
        if result is None:
            return ()
        content = result.get("content")
        if not isinstance(content, list):
            return ()  # TL014
        if not any(isinstance(b, dict) and b.get("type") == "text" for b in content):
            return [self.report(record, "structuredContent is not mirrored in a text content block")]
        if result.get("isError") is True:
            return ()  # an error's text is the model-facing message; its JSON is not asked for here
        problem = mirror_problem(content, result["structuredContent"])
        if problem is None:
            return ()
        state = session.state_for(self)
        if state:
            return ()  # a server shapes all its results alike: one note per session
        state["noted"] = True
        return [self.report(record, f"structuredContent is not serialized in a text block: {problem} "
                                    "(noted once per session)",
                            severity=Severity.INFO, confidence="low")]


# -- TL014/TL015: content blocks ----------------------------------------------------------------
BLOCK_TYPES: dict[str, str] = {
    "text": protocol.V2024_11_05, "image": protocol.V2024_11_05, "resource": protocol.V2024_11_05,
    "audio": protocol.V2025_03_26, "resource_link": _V0618,
}
SAMPLING_ONLY = frozenset({"tool_use", "tool_result"})


BINARY_BLOCKS = frozenset({"image", "audio", "resource"})


@per_record  # TL014, TL015 and HX013 look at the same blocks of every tools/call result
def content_kinds(record) -> tuple | None:
    """The ``type`` of each content block of a server's result, in order (None for a block that
    is not an object or has no string type); None when the result has no content array."""
    if record.direction is _C2S:
        return None
    result = result_of(record)
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, list):  # as TL014 judges (a None here would fail its superset test)
        return None
    kinds = []
    for block in content:  # a plain loop: twice as fast as a generator on the usual one block
        kind = block.get("type") if isinstance(block, dict) else None
        kinds.append(kind if isinstance(kind, str) else None)
    return tuple(kinds)


@lru_cache(maxsize=16)
def defined_blocks(revision: str | None) -> frozenset[str]:
    """The content block types ``revision`` defines (every known one when it is unknown)."""
    return frozenset(kind for kind, since in BLOCK_TYPES.items()
                     if revision is None or protocol.at_least(revision, since))


@lru_cache(maxsize=16)
def plain_blocks(revision: str | None) -> frozenset[str]:
    """The block types of ``revision`` that neither TL014 nor TL015 judges further (no binary data)."""
    return defined_blocks(revision) - BINARY_BLOCKS


#: the revisions whose tool results may hold text blocks (all: :func:`plain_blocks`), and None
_TEXT_BLOCKS = frozenset(revision for revision in protocol.ALL if "text" in plain_blocks(revision)) | {None}


@feature(FOLDED["result", "tools/call"], Kind.RESULT, "tools/call")
def plain_answer(record) -> bool:
    """A tools/call result that none of TL006, TL009-TL015 but TL010, HX013 and SV003 (which
    require the feature "odd-answer") can report, by each one's first tests: no
    ``structuredContent`` (TL011-TL013: :func:`structured`); a result the acceptor of its type
    vouches for (SV003: as ``schema.plain_result``, which the engine does not ask of a tools/call
    result: ``schema.FOLDED``); content blocks all of types the revision defines, none image, audio
    or resource (TL014, TL015); not one text block whose text :func:`looks_failed` (HX013); the
    called tool not missing from a current tool list (TL006: :func:`listed`); arguments known to
    draw no error against the listed inputSchema (TL009: the verdict TL008 kept,
    :func:`argument_errors`). One walk of the usual answer, one text block, answers all."""
    result = record.msg["result"]
    content = result.get("content") if type(result) is dict else None
    if type(content) is not list or "structuredContent" in result or record.direction is _C2S:
        return False  # (content_kinds() is None, or structured())
    if not _CALL_RESULTS.vouches(record, result):
        return False
    block = content[0] if len(content) == 1 else None
    if type(block) is dict and block.get("type") == "text":  # (content_kinds() is ("text",))
        if record.revision not in _TEXT_BLOCKS:
            return False
        text = block.get("text")
        if type(text) is str:
            head = text[:FAILURE_PROBE]  # (the probe of looks_failed lies within: most texts leave here)
            if ("rror" in head or "ailed" in head or "xception" in head or "RROR" in head
                    or "Traceback" in head) and looks_failed(text):
                return False
    elif not plain_blocks(record.revision).issuperset(content_kinds(record)):
        return False
    request = record.request
    params = request.params if request is not None else None
    name = params.get("name") if type(params) is dict else None
    if type(name) is not str:
        return True  # neither listed (TL006) nor arguments (TL009) to judge: argument_errors finds None
    tools = record.session.tools
    tool = tools.tools.get(name)  # (its keys are the catalog's names)
    if tool is None:  # listed(session, name) inline; argument_errors finds None
        return not (tools.listed and tools.complete and not tools.stale)
    kept = _ARGUMENTS.get(request.seq)  # (the usual answer: vouched() inline, the verdict kept at the call)
    if kept is not None and kept[0] is tool.get("inputSchema") and kept[1] is None:
        return True
    return not argument_errors(record.session, request, record.revision, known_only=True)[1]


#: :func:`looks_failed` finds a failure's key word in the first line within this many characters
#: of a text, and in no text longer than FAILURE_STACK characters
FAILURE_PROBE = 160
FAILURE_STACK = 20_000


def looks_failed(text: str) -> bool:
    """The cheap look of HX013's ``failure_text`` (most results are no failure): a text not too
    long whose first line shows a failure's key word."""
    if len(text) > FAILURE_STACK:
        return False
    probe = text[:FAILURE_PROBE].lstrip().partition("\n")[0]
    return "rror" in probe or "ailed" in probe or "xception" in probe or "RROR" in probe \
        or probe.startswith("Traceback")


@rule
class ContentBlockTypeForVersion(Rule):
    """Checks that a tool result's ``content`` is an array of block types the revision defines."""

    code, name = "TL014", "content-block-type-for-version"
    severity, level, spec = Severity.ERROR, "SCHEMA", "server/tools §Tool Result"
    party = "server"
    kinds = _RESULTS
    methods = _CALL
    answers = _ANSWERED
    requires = frozenset({"odd-answer"})  # not called on a plain_answer() result
    hint = "Send content as an array of text, image, audio, resource_link or resource blocks the revision knows."

    def check(self, record, session):
        kinds = content_kinds(record)  # shared with HX013, TL015: blocks of a server's result
        if kinds is not None and defined_blocks(record.revision).issuperset(kinds):
            return ()  # the common case: every block an object of a type the revision defines
        result = call_result(record)
        if result is None:
            return ()
        if "content" not in result:
            return [self.report(record, "Tool result has no content array (required, may be empty)")]
        content = result["content"]
        if not isinstance(content, list):
            return [self.report(record, f"Tool result content is {json_type(content)}, not an array")]
        revision = record.revision
        defined = defined_blocks(revision)
        problems = []
        for index, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if type(kind) is str and kind in defined:
                continue  # the common case: a block type the revision defines
            where = f"content[{index}]"
            if not isinstance(block, dict):
                problems.append(f"{where} is {json_type(block)}, not a content block object")
            elif not isinstance(kind, str):
                problems.append(f"{where} has no string type")
            elif kind in SAMPLING_ONLY:
                problems.append(f"{where} is a {kind} block, which only sampling messages may carry")
            elif kind not in BLOCK_TYPES:
                problems.append(f"{where} has unknown type {kind!r}")
            elif revision is not None and not protocol.at_least(revision, BLOCK_TYPES[kind]):
                problems.append(f"{where} is a {kind!r} block, which revision {revision} does not define "
                                f"(added in {BLOCK_TYPES[kind]})")
        return [self.report(record, "Invalid tool result content: " + "; ".join(problems))] if problems else ()


_MIME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;.*)?$")
_SPACE = re.compile(r"\s+")


def base64_problem(data: str) -> tuple[Severity, str] | None:
    """Why ``data`` is not strict RFC 4648 base64 (severity, reason), or None when it is."""
    try:
        binascii.a2b_base64(data, strict_mode=True)
        return None
    except (binascii.Error, ValueError):
        pass

    def decodes(text: str) -> bool:
        try:
            binascii.a2b_base64(text, strict_mode=True)
            return True
        except (binascii.Error, ValueError):
            return False

    compact = _SPACE.sub("", data)
    if compact != data and decodes(compact):
        return Severity.WARNING, "contains whitespace or line breaks"
    padded = compact + "=" * (-len(compact) % 4)
    if padded != compact and decodes(padded):
        return Severity.WARNING, "lacks '=' padding"
    if ("-" in compact or "_" in compact) and decodes(padded.translate(str.maketrans("-_", "+/"))):
        return Severity.ERROR, "is base64url (with '-' and '_'), not base64"
    return Severity.ERROR, "is not valid base64"


def binary_problems(blocks: Any, base: str, resource_items: bool = False) -> list[tuple[Severity, str]]:
    """Encoding problems of image/audio blocks and resource blobs in a content list."""
    problems: list[tuple[Severity, str]] = []
    if not isinstance(blocks, list):
        return problems
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if not resource_items and kind not in ("image", "audio", "resource"):
            continue  # text blocks and resource links carry no binary data
        where = f"{base}[{index}]"
        if kind in ("image", "audio") and not resource_items:
            data = block.get("data")
            if isinstance(data, str):
                bad = base64_problem(data)
                if bad:
                    problems.append((bad[0], f"{where}.data {bad[1]}"))
            mime = block.get("mimeType")
            if "mimeType" not in block:
                problems.append((Severity.ERROR, f"{where} ({kind}) has no mimeType"))
            elif isinstance(mime, str) and not _MIME.match(mime):
                problems.append((Severity.WARNING, f"{where}.mimeType {mime!r} is not a type/subtype MIME type"))
        item = block if resource_items else (block.get("resource") if kind == "resource" else None)
        if isinstance(item, dict) and isinstance(item.get("blob"), str):
            bad = base64_problem(item["blob"])
            if bad:
                path = f"{where}.blob" if resource_items else f"{where}.resource.blob"
                problems.append((bad[0], f"{path} {bad[1]}"))
    return problems


@rule
class BinaryContentEncoding(Rule):
    """Checks that image/audio data and resource blobs are base64 and image/audio have a MIME type."""

    code, name = "TL015", "binary-content-encoding"
    severity, level, spec = Severity.ERROR, "MUST", "server/tools §Tool Result"
    party = "server"
    kinds = _RESULTS
    methods = frozenset({"tools/call", "resources/read"})
    answers = _ANSWERED
    requires = frozenset({"odd-answer"})  # not called on a plain_answer() result
    hint = "Encode binary data as standard base64 (RFC 4648, with padding) and name its MIME type."

    def check(self, record, session):
        if record.direction is _C2S:
            return ()
        result = result_of(record)
        if not isinstance(result, dict):
            return ()
        if record.request.method == "tools/call" and BINARY_BLOCKS.isdisjoint(content_kinds(record) or ()):
            return ()  # binary_problems judges image, audio and resource blocks only
        if record.request.method == "resources/read":
            problems = binary_problems(result.get("contents"), "contents", resource_items=True)
        else:
            problems = binary_problems(result.get("content"), "content")
        if not problems:
            return ()
        worst = Severity.ERROR if any(s is Severity.ERROR for s, _ in problems) else Severity.WARNING
        return [self.report(record, "Binary content is not properly encoded: "
                                    + "; ".join(text for _, text in problems), severity=worst)]


# -- TL017/TL018: 2026-07-28 ------------------------------------------------------------------
_STABLE = "TL017"


@rule
class ListVariesPerConnection(Rule):
    """Checks that successive complete tool lists only differ after a list-change notification."""

    code, name = "TL017", "list-varies-per-connection"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "MUST NOT", "server/tools §Capabilities"
    party = "server"
    confidence = "low"
    kinds = frozenset({Kind.RESULT, Kind.NOTIFICATION})
    methods = frozenset({"tools/list", "notifications/tools/list_changed"})
    versions = protocol.MODERN
    hint = ("Serve the same tool list to every connection with the same credentials; send "
            "notifications/tools/list_changed when it really changes.")

    def check(self, record, session):
        state = session.file_state.setdefault(_STABLE, {})
        if record.kind is Kind.NOTIFICATION:
            state["changed"] = True
            return
        if record.answer not in _ANSWERED:
            return
        tools = listed_tools(record)
        result = result_of(record)
        if tools is None or result.get("nextCursor") is not None:
            return  # not the last page of a traversal
        kind = session.tools.page_kind(params_of(record.request))
        if kind == "stray" or kind == "next" and not session.tools.started:
            return  # not the end of a whole traversal
        listing = list(session.tools.tools.values()) if kind == "next" else []
        listing += [t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
        current = {t["name"]: orjson.dumps(t, option=orjson.OPT_SORT_KEYS) for t in listing}
        before, changed = state.get("last"), state.get("changed", False)
        state.update(last=(current, record), changed=False)
        if before is None or changed:
            return
        previous, line = before
        if previous != current:
            added = sorted(current.keys() - previous.keys())
            removed = sorted(previous.keys() - current.keys())
            edited = sorted(n for n in current.keys() & previous.keys() if current[n] != previous[n])
            parts = [f"{label} {', '.join(map(repr, names))}" for label, names in
                     (("added", added), ("removed", removed), ("changed", edited)) if names]
            yield self.report(record, "The tool list differs from the previous complete listing ("
                                      + "; ".join(parts) + ") without a notifications/tools/list_changed",
                              related=[(line, "previous listing")])
        elif list(previous) != list(current):
            yield self.report(record, "The tool list has the same tools as the previous listing in a "
                                      "different order (ordering SHOULD be deterministic)",
                              severity=Severity.INFO, level="SHOULD", related=[(line, "previous listing")])


_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HEADER_TYPES = frozenset({"string", "integer", "boolean"})
_NOT_SCHEMAS = frozenset({"x-mcp-header", "const", "enum", "default", "examples", "required"})


def header_annotations(schema: Any) -> list[tuple[tuple, Any, dict, bool]]:
    """Every ``x-mcp-header`` in a schema: ``(path, value, property schema, reachable)``;
    reachable means the path consists of ``properties`` steps only."""
    found: list[tuple[tuple, Any, dict, bool]] = []

    def walk(node: Any, path: tuple, reachable: bool) -> None:
        if isinstance(node, dict):
            if "x-mcp-header" in node:
                found.append((path, node["x-mcp-header"], node, reachable))
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    for prop, sub in value.items():
                        walk(sub, path + ("properties", prop), reachable)
                elif key not in _NOT_SCHEMAS:
                    walk(value, path + (key,), False)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, path + (index,), False)

    try:
        walk(schema, (), True)
    except RecursionError:
        pass  # absurdly deep schemas: judge what was found
    return found


def header_problems(schema: Any) -> list[tuple[Severity, str]]:
    problems: list[tuple[Severity, str]] = []
    seen: dict[str, tuple] = {}
    for path, value, node, reachable in header_annotations(schema):
        where = fmt_path(("inputSchema",) + path)
        if not isinstance(value, str):
            problems.append((Severity.ERROR, f"{where} x-mcp-header is {json_type(value)}, not a string"))
            continue
        if not value:
            problems.append((Severity.ERROR, f"{where} x-mcp-header is empty"))
        elif _CONTROL.search(value):
            problems.append((Severity.ERROR, f"{where} x-mcp-header {value!r} contains control characters"))
        elif not _TOKEN.match(value):
            problems.append((Severity.ERROR, f"{where} x-mcp-header {value!r} is not an HTTP field-name token"))
        folded = value.casefold()
        if value and folded in seen:
            problems.append((Severity.ERROR, (f"{where} x-mcp-header {value!r} duplicates "
                                             f"{fmt_path(('inputSchema',) + seen[folded])} (case-insensitively)")))
        seen.setdefault(folded, path)
        if not reachable:
            problems.append((Severity.ERROR, (f"{where} x-mcp-header is not reachable from the root "
                                             "through properties alone")))
        kind = node.get("type")
        kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
        if kinds is None:
            problems.append((Severity.WARNING, (f"{where} x-mcp-header is on a property that declares no "
                                               "type (string, integer or boolean required)")))
        elif not [k for k in kinds if k != "null"] or any(k not in _HEADER_TYPES | {"null"} for k in kinds):
            problems.append((Severity.ERROR, (f"{where} x-mcp-header is on a property of type "
                                             f"{fmt_id(kind)}; only string, integer and boolean are allowed")))
    return problems


@rule
class XMcpHeaderInvalid(Rule):
    """Checks ``x-mcp-header`` annotations in tool input schemas (2026-07-28)."""

    code, name = "TL018", "x-mcp-header-invalid"
    severity, level, spec = Severity.ERROR, "MUST", "server/tools §x-mcp-header"
    party = "server"
    kinds = _RESULTS
    methods = _LIST
    answers = _ANSWERED
    versions = protocol.MODERN
    hint = ("Put x-mcp-header only on string/integer/boolean properties reachable through "
            "properties, with a unique RFC 9110 token as value; HTTP clients drop invalid tools.")

    def check(self, record, session):
        for index, tool in enumerate(listed_tools(record) or ()):
            if not isinstance(tool, dict) or not isinstance(tool.get("inputSchema"), dict):
                continue
            problems = header_problems(tool["inputSchema"])
            if problems:
                worst = Severity.ERROR if any(s is Severity.ERROR for s, _ in problems) else Severity.WARNING
                yield self.report(record, f"Tool {tool_label(tool, index)} has invalid x-mcp-header "
                                          "annotations: " + "; ".join(t for _, t in problems), severity=worst)

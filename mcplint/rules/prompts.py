"""Prompts (PM): ``prompts/list``, ``prompts/get`` and the messages a prompt expands to.

Sources: server/prompts of each revision; schema ``Prompt``, ``PromptArgument``,
``GetPromptRequest``, ``PromptMessage``. :class:`PromptTracker` keeps the prompt catalog of the
last ``prompts/list`` traversal (complete when its last page was seen, stale after
``notifications/prompts/list_changed``), the way the analyzer keeps the tool catalog. Base64 of
image/audio ``data`` and resource ``blob`` is TL015's; the capability gate is CAP001's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplint import protocol
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import (
    NOTIFICATIONS, REQUESTS, Rule, Tracker, params_of, rule, tracker,
)
from mcplint.rules._feature_helpers import a, final_result, listing, shown
from mcplint.rules.resources import resource_contents_problems

_ERRORS = "server/prompts §Error Handling"
_GET = frozenset({"prompts/get"})
_LIST = "prompts/list"
_CHANGED = "notifications/prompts/list_changed"


# -- tracker ---------------------------------------------------------------------------------
@dataclass(slots=True)
class PromptCatalog:
    prompts: dict = field(default_factory=dict)  # name -> Prompt definition
    complete: bool = False  # the last page of a traversal was seen
    stale: bool = False  # a list_changed notification arrived since
    listed: bool = False

    @property
    def current(self) -> bool:
        return self.listed and self.complete and not self.stale


@tracker
class PromptTracker(Tracker):
    """The server's prompts as the client last listed them."""

    kinds = NOTIFICATIONS | frozenset({Kind.RESULT})
    methods = frozenset({_LIST, _CHANGED})
    facts = PromptCatalog

    def commit(self, record, session):
        catalog = self.of(session)
        if record.kind is Kind.NOTIFICATION:
            catalog.stale = True
            return
        result = final_result(record)
        if result is None or record.answer not in ("ok", "after-cancel") or record.request is None:
            return
        if "cursor" not in params_of(record.request):
            catalog.prompts, catalog.stale = {}, False
        prompts = result.get("prompts")
        for prompt in prompts if isinstance(prompts, list) else ():
            if isinstance(prompt, dict) and isinstance(prompt.get("name"), str):
                catalog.prompts[prompt["name"]] = prompt
        catalog.listed = True
        catalog.complete = "nextCursor" not in result


def prompt_name(request: Record | None) -> str | None:
    name = params_of(request).get("name") if request is not None else None
    return name if isinstance(name, str) else None


def required_arguments(prompt: dict) -> list[str]:
    arguments = prompt.get("arguments")
    return [arg["name"] for arg in arguments if isinstance(arg, dict) and isinstance(arg.get("name"), str)
            and arg.get("required") is True] if isinstance(arguments, list) else []


# -- PM001 -----------------------------------------------------------------------------------
@rule
class PromptUnknownNameAccepted(Rule):
    """Checks for `prompts/get` of a name absent from the complete prompt list answered with success."""

    code, name = "PM001", "prompt-unknown-name-accepted"
    severity, level, spec = Severity.WARNING, "SHOULD", _ERRORS
    party = "server"
    confidence = "low"
    kinds = frozenset({Kind.RESULT})
    methods = _GET
    answers = frozenset({"ok"})
    hint = "Refuse prompts/get for a prompt name you do not offer with -32602 (Invalid params)."

    def check(self, record, session):
        name = prompt_name(record.request)
        catalog = PromptTracker.of(session)
        if record.direction is not Direction.S2C or name is None or not catalog.current or name in catalog.prompts:
            return
        yield self.report(record, f"prompts/get of {shown(name)}, which is not in the complete prompt list, "
                                  "was answered with success instead of a -32602 error",
                          related=[(record.request, "request")])


# -- PM002 -----------------------------------------------------------------------------------
@rule
class PromptMissingRequiredArgument(Rule):
    """Checks for `prompts/get` without a required argument that was answered with success."""

    code, name = "PM002", "prompt-missing-required-argument"
    severity, level, spec = Severity.WARNING, "SHOULD", _ERRORS
    party = "server"
    kinds = frozenset({Kind.RESULT})
    methods = _GET
    answers = frozenset({"ok"})
    hint = "Refuse prompts/get that lacks a required argument with -32602 (Invalid params)."

    def check(self, record, session):
        request = record.request
        catalog = PromptTracker.of(session)
        prompt = catalog.prompts.get(prompt_name(request))
        if record.direction is not Direction.S2C or prompt is None or final_result(record) is None:
            return  # unknown prompt, or a 2026-07-28 input_required answer that may ask for the argument
        given = params_of(request).get("arguments")
        given = given if isinstance(given, dict) else {}
        missing = [name for name in required_arguments(prompt) if name not in given]
        if missing:
            yield self.report(record, f"prompts/get of {shown(prompt['name'])} lacks the required "
                                      f"argument{'s' if len(missing) > 1 else ''} "
                                      f"{', '.join(map(repr, missing))} but was answered with success",
                              confidence="low" if catalog.stale else None,
                              related=[(request, "request")])


# -- PM003 -----------------------------------------------------------------------------------
@rule
class PromptArgumentNotString(Rule):
    """Checks that `prompts/get` arguments are an object of string values."""

    code, name = "PM003", "prompt-argument-not-string"
    severity, level, spec = Severity.ERROR, "SCHEMA", "server/prompts §Getting a Prompt"
    kinds = REQUESTS
    methods = _GET
    hint = 'Send every prompt argument as a string: "arguments": {"lines": "5"}.'

    def check(self, record, session):
        params = params_of(record)
        if "arguments" not in params:
            return
        arguments = params["arguments"]
        if not isinstance(arguments, dict):
            yield self.report(record, f"prompts/get arguments is {a(arguments)}, not an object of strings")
            return
        wrong = [f"{key!r} is {a(value)}" for key, value in arguments.items() if not isinstance(value, str)]
        if wrong:
            yield self.report(record, f"prompts/get argument values must be strings: {listing(wrong)}")


# -- PM004 -----------------------------------------------------------------------------------
BLOCK_TYPES = {
    "text": protocol.ALL,
    "image": protocol.ALL,
    "resource": protocol.ALL,
    "audio": protocol.since(protocol.V2025_03_26),
    "resource_link": protocol.since(protocol.V2025_06_18),
}
_SAMPLING_ONLY = ("tool_use", "tool_result")
_ROLES = ("user", "assistant")


def block_problems(block: Any, revision: str | None) -> list[tuple[int, str]]:
    """``(rank, problem)`` of one content block of a prompt message (2 error, 0 note)."""
    if isinstance(block, list):
        return [(2, "is an array; a prompt message holds exactly one content block")]
    if not isinstance(block, dict):
        return [(2, "is missing" if block is ... else f"is {a(block)}, not a content block")]
    kind = block.get("type")
    if not isinstance(kind, str):
        return [(2, "has no type" if "type" not in block else f"type is {a(kind)}")]
    versions = BLOCK_TYPES.get(kind)
    if versions is None or (revision is not None and revision not in versions):
        why = ("is for sampling messages only" if kind in _SAMPLING_ONLY else
               f"does not exist in {revision}" if versions is not None else "is unknown")
        return [(2, f"type {kind!r} {why}")]
    required = {"text": ("text",), "image": ("data", "mimeType"), "audio": ("data", "mimeType"),
                "resource_link": ("uri", "name"), "resource": ()}[kind]
    problems = [(2, f"{kind} block " + (f"has no {key}" if key not in block else f"{key} is {a(block[key])}"))
                for key in required if not isinstance(block.get(key), str)]
    if kind == "resource":
        resource = block.get("resource", ...)
        if not isinstance(resource, dict):
            problems.append((2, "resource block has no resource object" if resource is ... else
                             f"resource block's resource is {a(resource)}"))
        else:
            problems += [(2, f"resource {p}") for p in resource_contents_problems(resource)]
            if "mimeType" not in resource:
                problems.append((0, "embedded resource has no mimeType (the prompts page asks for it)"))
    return problems


def message_problems(messages: Any, revision: str | None) -> list[tuple[int, str]]:
    if not isinstance(messages, list):
        return [(2, "messages is missing" if messages is ... else f"messages is {a(messages)}, not an array")]
    problems = []
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            problems.append((2, f"{where} is {a(message)}, not an object"))
            continue
        role = message.get("role", ...)
        if role not in _ROLES:
            problems.append((2, f"{where} has no role" if role is ... else
                             f"{where}.role {shown(role)} is not \"user\" or \"assistant\""))
        problems += [(rank, f"{where}.content {text}")
                     for rank, text in block_problems(message.get("content", ...), revision)]
    return problems


@rule
class PromptMessageContent(Rule):
    """Checks the messages of `prompts/get` results: role user/assistant and well-formed content blocks."""

    code, name = "PM004", "prompt-message-content"
    severity, level, spec = Severity.ERROR, "SCHEMA", "server/prompts §PromptMessage"
    kinds = frozenset({Kind.RESULT})
    methods = _GET
    answers = frozenset({"ok"})
    hint = ('Return {"messages": [{"role": "user", "content": {"type": "text", "text": "..."}}]}; '
            "put system instructions in a user message.")

    def check(self, record, session):
        result = final_result(record)
        if result is None or record.direction is not Direction.S2C:
            return
        problems = message_problems(result.get("messages", ...), record.revision)
        if not problems:
            return
        worst = max(rank for rank, _ in problems)
        yield self.report(record, f"Malformed prompt messages: {listing([text for _, text in problems])}",
                          severity=Severity.ERROR if worst == 2 else Severity.INFO,
                          level=None if worst == 2 else "MUST",
                          related=[(record.request, "request")])


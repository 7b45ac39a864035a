"""Prompts (PM): ``prompts/list``, ``prompts/get`` and the messages a prompt expands to.

Sources: server/prompts of each revision; schema ``Prompt``, ``PromptArgument``,
``GetPromptRequest``, ``PromptMessage``. :class:`PromptTracker` keeps the prompt catalog of the
last ``prompts/list`` traversal (complete when its last page was seen, stale after
``notifications/prompts/list_changed``), the way the analyzer keeps the tool catalog. Base64 of
image/audio ``data`` and resource ``blob`` is TL015's; the capability gate is CAP001's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mcplint import protocol
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import (
    NOTIFICATIONS, REQUESTS, Rule, Tracker, fmt_id, params_of, rule, tracker,
)
from mcplint.rules._feature_helpers import (
    a, error_message, final_result, item_error_code, listing, says_not_found, shown,
)
from mcplint.rules.capabilities import about_item
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


def missing_arguments(prompt: dict, request: Record | None) -> list[str]:
    """The prompt's required arguments that ``request`` does not give."""
    given = params_of(request).get("arguments") if request is not None else None
    given = given if isinstance(given, dict) else {}
    return [name for name in required_arguments(prompt) if name not in given]


def argument_list(missing: list[str]) -> str:
    return f"argument{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}"


# -- PM001 -----------------------------------------------------------------------------------
@rule
class PromptUnknownNameAccepted(Rule):
    """Checks for `prompts/get` of a name absent from the complete prompt list answered with success."""

    code, name = "PM001", "prompt-unknown-name-accepted"
    order_sensitive = True
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
        missing = missing_arguments(prompt, request)
        if missing:
            yield self.report(record, f"prompts/get of {shown(prompt['name'])} lacks the required "
                                      f"{argument_list(missing)} but was answered with success",
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



# -- PM005 -----------------------------------------------------------------------------------
_UNKNOWN_PROMPT = re.compile(
    r"(?i)\b(unknown|invalid|no such|nonexistent|non-existent|unrecognized|undefined|unregistered)"
    r"[ _-]prompt\b(?![ _-]*(arguments?|args?|params?|parameters?|input|template|content|messages?))"
    r"|\bprompt[ _-](not[ _-]found|does ?n[o']t exist)"
    r"|\bprompt\s+(named\s+)?['\"`]?[\w./:-]+['\"`]?\s+(was\s+)?(not found|does ?n[o']t exist"
    r"|is not (registered|defined|available))"
    r"|\bno prompt (named|called|with (the )?name)\b"
    r"|\b(could not|couldn't|cannot|can't|unable to) find (the )?prompt\b")
_MISSING_ARGUMENTS = re.compile(
    r"(?i)\bmissing\b[^.;\n]{0,30}?\b(arguments?|args?|params?|parameters?)\b"
    r"|\b(arguments?|args?|parameters?)\b[^.;\n]{0,40}?\b(is|are) (required|missing)\b"
    r"|\brequired (arguments?|args?|params?|parameters?)\b[^.;\n]{0,40}?"
    r"\b(missing|not (provided|given|supplied|set))\b")


def refusal_cause(record: Record, session) -> tuple[str, bool] | None:
    """Why a ``prompts/get`` was refused, when that is an unknown prompt or missing arguments:
    ``(phrase, certain)`` from the prompt list, else from the error message; None when unknown.
    The phrase follows the prompt's name in a finding's message."""
    request, message = record.request, error_message(record)
    name = prompt_name(request)
    catalog = PromptTracker.of(session)
    prompt = catalog.prompts.get(name) if name is not None else None
    if name is not None and prompt is None and catalog.current:
        named = bool(_UNKNOWN_PROMPT.search(message)) or (name in message and says_not_found(message))
        return ", which is not in the complete prompt list,", named
    missing = missing_arguments(prompt, request) if prompt is not None else []
    if missing:
        return f" without the required {argument_list(missing)}", not catalog.stale
    if _MISSING_ARGUMENTS.search(message):
        return f", which lacks arguments by the error message ({shown(message, 60)}),", True
    if _UNKNOWN_PROMPT.search(message):
        return f", which the error message calls unknown ({shown(message, 60)}),", bool(name) and name in message
    return None


@rule
class PromptErrorCode(Rule):
    """Checks that `prompts/get` of an unknown prompt or without required arguments is refused with -32602."""

    code, name = "PM005", "prompt-error-code"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD", _ERRORS
    party = "server"
    kinds = frozenset({Kind.ERROR})
    methods = _GET
    answers = frozenset({"ok"})
    hint = ("Refuse prompts/get of an unknown prompt or without a required argument with -32602 "
            "(Invalid params); keep -32603 for internal errors.")
    #: the request never reached the prompt lookup (parse error, 2026-07-28 envelope errors)
    _skip = frozenset({-32700, -32020, -32021, -32022})

    def check(self, record, session):
        code = item_error_code(record, session, self._skip)
        if code is None or code == -32602 or record.request is None:
            return
        name = prompt_name(record.request)
        label = shown(name) if name is not None else "a prompt"
        related = [(record.request, "request")]
        cause = refusal_cause(record, session)
        if cause is not None:
            phrase, certain = cause
            yield self.report(record, f"prompts/get of {label}{phrase} was refused with code {fmt_id(code)} "
                                      "instead of -32602 (Invalid params)",
                              confidence=None if certain else "low", related=related)
        elif code >= 0 or (code == -32600 and about_item(record.request, error_message(record))) \
                or code == -32601:  # -32601 reaches here only about the prompt of a declared capability
            what = ("not a standard JSON-RPC error code" if code >= 0 else
                    "although the message is about the prompt, not the request or the method")
            yield self.report(record, f"prompts/get of {label} failed with code {fmt_id(code)}, {what}: "
                                      "an unknown prompt or a missing argument is -32602, an internal "
                                      "error -32603", severity=Severity.INFO, confidence="low",
                              related=related, hint="Answer prompts/get failures with standard JSON-RPC "
                                                    "codes: -32602 (Invalid params), -32603 (Internal error).")

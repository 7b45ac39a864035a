"""Completion (CP): argument autocompletion with ``completion/complete``.

Sources: server/utilities/completion of each revision; schema ``CompleteRequest``,
``CompleteResult``. The ``completions`` capability gates the method from 2025-03-26 (2024-11-05
has the method but no capability): CAP001/CAP004 judge the gate and CAP007 the -32601 refusal
of an undeclared feature; CP004 covers the other error codes the page names.
"""

from __future__ import annotations

import re

from mcplint import protocol
from mcplint.model import Direction, Kind, Severity
from mcplint.rules._base import REQUESTS, Rule, fmt_id, params_of, rule
from mcplint.rules._feature_helpers import (
    ENVELOPE_CODES, a, error_code, error_message, final_result, is_number, listing, says_not_found, shown,
)
from mcplint.rules.prompts import PromptTracker

_COMPLETE = frozenset({"completion/complete"})
_PAGE = "server/utilities/completion"
MAX_VALUES = 100


def completion_of(record) -> dict | None:
    """``result.completion`` of a final completion result when it is an object."""
    result = final_result(record)
    completion = result.get("completion") if result is not None else None
    return completion if isinstance(completion, dict) else None


# -- CP001 -----------------------------------------------------------------------------------
@rule
class CompletionTooManyValues(Rule):
    """Checks that a completion result carries at most 100 values."""

    code, name = "CP001", "completion-too-many-values"
    severity, level, spec = Severity.ERROR, "MUST", f"{_PAGE} §Completion Results"
    party = "server"
    kinds = frozenset({Kind.RESULT})
    methods = _COMPLETE
    answers = frozenset({"ok"})
    hint = 'Return the best 100 values and signal the rest with "total" and "hasMore": true.'

    def check(self, record, session):
        completion = completion_of(record)
        values = completion.get("values") if completion is not None else None
        if isinstance(values, list) and len(values) > MAX_VALUES:
            yield self.report(record, f"Completion result carries {len(values)} values; at most {MAX_VALUES} "
                                      "are allowed per response")


# -- CP002 -----------------------------------------------------------------------------------
def request_problems(params: dict, revision: str | None) -> list[str]:
    """Shape problems of ``CompleteRequestParams``."""
    problems = []
    ref = params.get("ref", ...)
    if not isinstance(ref, dict):
        problems.append("ref is missing" if ref is ... else f"ref is {a(ref)}, not an object")
    else:
        kind = ref.get("type")
        member = {"ref/prompt": "name", "ref/resource": "uri"}.get(kind) if isinstance(kind, str) else None
        if member is None:
            problems.append("ref has no type" if "type" not in ref else
                            f'ref.type {shown(kind)} is not "ref/prompt" or "ref/resource"')
        elif not isinstance(ref.get(member), str):
            problems.append(f"{kind} ref has no {member}" if member not in ref else
                            f"ref.{member} is {a(ref[member])}, not a string")
    argument = params.get("argument", ...)
    if not isinstance(argument, dict):
        problems.append("argument is missing" if argument is ... else f"argument is {a(argument)}, not an object")
    else:
        problems += [f"argument has no {key}" if key not in argument else f"argument.{key} is {a(argument[key])}"
                     for key in ("name", "value") if not isinstance(argument.get(key), str)]
    if "context" in params and protocol.at_least(revision, protocol.V2025_06_18):
        context = params["context"]
        arguments = context.get("arguments", {}) if isinstance(context, dict) else ...
        if arguments is ...:
            problems.append(f"context is {a(context)}, not an object")
        elif not isinstance(arguments, dict):
            problems.append(f"context.arguments is {a(arguments)}, not an object")
        else:
            problems += [f"context.arguments[{key!r}] is {a(value)}, not a string"
                         for key, value in arguments.items() if not isinstance(value, str)]
    return problems


@rule
class CompletionRefShape(Rule):
    """Checks `completion/complete` params: a prompt or resource-template ref, argument name/value strings."""

    code, name = "CP002", "completion-ref-shape"
    severity, level, spec = Severity.ERROR, "SCHEMA", f"{_PAGE} §Requesting Completions"
    kinds = REQUESTS
    methods = _COMPLETE
    hint = ('Send {"ref": {"type": "ref/prompt", "name": ...} or {"type": "ref/resource", "uri": ...}, '
            '"argument": {"name": ..., "value": ...}} with string values.')

    def check(self, record, session):
        if not isinstance(record.params, dict):
            if record.params is None:
                yield self.report(record, "completion/complete has no params (ref and argument are required)")
            return  # params of another type: JR007
        problems = request_problems(record.params, record.revision)
        if problems:
            yield self.report(record, f"Malformed completion/complete params: {listing(problems)}")


# -- CP003 -----------------------------------------------------------------------------------
@rule
class CompletionTotalInconsistent(Rule):
    """Checks that `total` and `hasMore` of a completion result agree with the values returned."""

    code, name = "CP003", "completion-total-inconsistent"
    severity, level, spec = Severity.INFO, "heuristic", f"{_PAGE} §Completion Results"
    party = "server"
    confidence = "low"
    kinds = frozenset({Kind.RESULT})
    methods = _COMPLETE
    answers = frozenset({"ok"})
    hint = "Set total to the number of all matches (at least the values returned) and hasMore when total exceeds them."

    def check(self, record, session):
        completion = completion_of(record)
        values = completion.get("values") if completion is not None else None
        if not isinstance(values, list):
            return
        total, more = completion.get("total"), completion.get("hasMore")
        count = len(values)
        if is_number(total) and total < count:
            yield self.report(record, f"Completion total {shown(total)} is smaller than the {count} values returned")
        elif is_number(total) and total > count and more is False:
            yield self.report(record, f"Completion says hasMore: false although total {shown(total)} exceeds the "
                                      f"{count} values returned")


# -- CP004 -----------------------------------------------------------------------------------
_ABOUT = re.compile(r"(?i)\b(prompt|argument|arg|template|ref(erence)?|param(eter)?s?)\b")
_INVALID = re.compile(r"(?i)\b(invalid|missing|required|unknown|not[ _-]?found|no such|does ?n[o']t exist)\b")


def invalid_reason(request, session) -> tuple[str | None, bool]:
    """Why a completion request is invalid params, and whether that is certain."""
    params = params_of(request)
    ref, argument = params.get("ref"), params.get("argument")
    if not isinstance(argument, dict) or not isinstance(argument.get("name"), str) \
            or not isinstance(argument.get("value"), str):
        return "lacks a well-formed argument", True
    if isinstance(ref, dict) and ref.get("type") == "ref/prompt" and isinstance(ref.get("name"), str):
        catalog = PromptTracker.of(session)
        prompt = catalog.prompts.get(ref["name"])
        if prompt is None and catalog.current:
            return f"names the unknown prompt {shown(ref['name'])}", True
        arguments = prompt.get("arguments") if isinstance(prompt, dict) else None
        if isinstance(arguments, list) and not catalog.stale and argument["name"] not in {
                arg.get("name") for arg in arguments if isinstance(arg, dict) and isinstance(arg.get("name"), str)}:
            return f"names {shown(argument['name'])}, which is no argument of prompt {shown(ref['name'])}", True
    return None, False


@rule
class CompletionErrorCodes(Rule):
    """Checks that completion requests with an unknown prompt or bad arguments are refused with -32602."""

    code, name = "CP004", "completion-error-codes"
    order_sensitive = True
    severity, level, spec = Severity.WARNING, "SHOULD", f"{_PAGE} §Error Handling"
    party = "server"
    versions = protocol.since(protocol.V2025_03_26)
    kinds = frozenset({Kind.ERROR})
    methods = _COMPLETE
    answers = frozenset({"ok"})
    hint = "Refuse a completion for an unknown prompt or with missing arguments with -32602 (Invalid params)."

    def check(self, record, session):
        code = error_code(record)
        if record.direction is not Direction.S2C or type(code) is not int \
                or code in ENVELOPE_CODES or code in (-32602, -32601):
            return  # -32601 for an undeclared capability: CAP007/CAP008
        reason, certain = invalid_reason(record.request, session)
        message = error_message(record)
        if reason is None:
            if not (_ABOUT.search(message) and (_INVALID.search(message) or says_not_found(message))):
                return
            reason = f"was refused as invalid ({shown(message, 60)})"
        yield self.report(record, f"Completion request that {reason} was refused with code {fmt_id(code)} "
                                  "instead of -32602 (Invalid params)",
                          confidence=None if certain else "low", related=[(record.request, "request")])


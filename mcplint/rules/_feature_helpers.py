"""Small helpers shared by the server-feature families (PI, LG, PA, RS, PM, CP).

Kept apart from ``_base`` so that these families can grow without touching the shared rule
contract: JSON type names for messages, the error code of a response, the 2026-07-28 request
``_meta`` and ``resultType`` facts, and the message-text heuristics the error-code rules use.
"""

from __future__ import annotations

import re
from typing import Any

from mcplint import protocol
from mcplint.model import Direction, Record
from mcplint.rules._base import error_of, params_of, result_of
from mcplint.rules.capabilities import about_item

#: JSON-RPC codes that describe the envelope (parse error, invalid request) or the 2026-07-28
#: header/capability/version errors: when a server answers with one of them, the request never
#: reached the feature, so the feature's own error-code rules stay silent.
ENVELOPE_CODES = frozenset({-32700, -32600, -32020, -32021, -32022})


def item_error_code(record: Record, session, skip: frozenset[int] = ENVELOPE_CODES) -> int | None:
    """The code of a server's error answer to an item request (``resources/read``,
    ``prompts/get``) that the item's error-code rule judges, or None.

    Codes in ``skip`` never reached the item lookup. -32601 (Method not found) counts only as a
    wrong code for a missing item: when the server declared the method's capability (undeclared,
    -32601 is the right refusal) and the message is about the requested item (else the server
    denies the method itself, which is CAP008's).
    """
    code = error_code(record)
    if record.direction is not Direction.S2C or type(code) is not int or code in skip:
        return None
    if code == -32601:
        request, caps = record.request, session.server_caps
        gate = protocol.GATES.get(request.method) if request is not None else None
        if gate is None or not isinstance(caps, dict) or not protocol.gate_open(gate, caps) \
                or not about_item(request, error_message(record)):
            return None
    return code


def json_type(value: Any) -> str:
    """The JSON name of a value's type ("null", "boolean", "number", "string", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {dict: "object", list: "array", str: "string"}.get(type(value), type(value).__name__)


def a(value: Any) -> str:
    """``json_type`` with an article: "an array", "a string", "null"."""
    kind = json_type(value)
    return kind if kind == "null" else ("an " if kind[0] in "aeiou" else "a ") + kind


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def error_code(record: Record) -> Any:
    """The ``error.code`` of an error response (None when absent)."""
    error = error_of(record)
    return error.get("code") if isinstance(error, dict) else None


def error_message(record: Record) -> str:
    error = error_of(record)
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else ""


def request_meta(record: Record | None) -> dict:
    """``params._meta`` of a request when it is an object, else an empty dict."""
    if record is None:
        return {}
    meta = params_of(record).get("_meta")
    return meta if isinstance(meta, dict) else {}


def final_result(record: Record) -> dict | None:
    """The result object of a success response when it is the final answer.

    In 2026-07-28 a result with ``resultType`` other than ``"complete"`` (``input_required``)
    is an interim answer that carries none of the method's own members; those, and results
    that are no object (JR015), give None.
    """
    result = result_of(record)
    if not isinstance(result, dict):
        return None
    if record.revision in protocol.MODERN and result.get("resultType", "complete") != "complete":
        return None
    return result


def shown(value: Any, limit: int = 40) -> str:
    """A short JSON rendering of a value for a message."""
    import orjson

    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def listing(problems: list[str], limit: int = 4) -> str:
    """``a; b; c`` with ``(+N more)`` past ``limit`` items."""
    text = "; ".join(problems[:limit])
    if len(problems) > limit:
        text += f" (+{len(problems) - limit} more)"
    return text


_NOT_FOUND = re.compile(
    r"(?i)\b(not[ _-]?found|no such|does ?n[o']t exist|doesn't exist|unknown|nonexistent|non-existent"
    r"|could not (?:be )?find|couldn't find|cannot find|can't find)\b")


def says_not_found(message: str) -> bool:
    """Whether an error message says that the thing asked for does not exist."""
    return bool(_NOT_FOUND.search(message))

"""The Python SDK's (``mcp``) debug logging: messages printed as pydantic reprs.

::

    DEBUG:mcp.client.streamable_http:Sending client message: root=JSONRPCRequest(method='tools/list', params=None, jsonrpc='2.0', id=1)
    DEBUG:mcp.client.streamable_http:SSE message: root=JSONRPCResponse(jsonrpc='2.0', id=1, result={'tools': []})
    DEBUG:mcp.client.sse:Sending client message: message=JSONRPCMessage(root=JSONRPCNotification(...)) metadata=None
    2025-06-13 10:59:30,123 - mcp.client.sse - DEBUG - Received server message: root=JSONRPCResponse(...)
    INFO:mcp.server.lowlevel.server:Processing request of type CallToolRequest

``Sending client message`` (and a server's ``Validated client message``) is client to server;
``Received server message``, ``SSE message`` and a server's ``Sending message via SSE`` the
reverse. The repr (1.x ``root=...``, 2.x ``jsonrpc='2.0' id=1 ...`` or ``SessionMessage(...)``)
is turned back into the message: model fields by name, ``None`` fields left out (the SDK sends
them unset); params and results are plain dicts, so ``_meta`` survives. A repr that is not Python
literal syntax is reported as unreadable, never guessed. Everything else is a comment, except the
``input_value='...'`` of a pydantic ``json_invalid`` error (the stdio client's ``Failed to parse
JSONRPC message from server``), which is the server's stdout line (IO001).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from mcplint.input.formats._common import Starts, comment, oversized, stdout_fragment, timestamp, unreadable
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction

NAME = "python-sdk-log"
_MARKERS = re.compile(r"(Sending client message|Validated client message|Received server message|SSE message"
                      r"|Sending message via SSE): ")
_C2S = frozenset({"Sending client message", "Validated client message"})
_TIME = re.compile(r"^\[?(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)(?:[,.](\d{1,6}))?")
_FIELD = re.compile(r"[A-Za-z_]\w*=(?!=)")
_WRAPPERS = frozenset({"root", "message"})


def split_fields(text: str) -> str:
    """A pydantic ``__str__`` (``a=1 b='x y'``) with commas between its top-level fields."""
    out, depth, quote, escaped = [], 0, "", False
    for index, char in enumerate(text):
        if quote:
            escaped = not escaped and char == "\\"
            if char == quote and not escaped:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == " " and depth == 0 and _FIELD.match(text, index + 1):
            out.append(",")
        out.append(char)
    return "".join(out)


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Call):  # a model: its fields by name, unset (None) ones left out
        return {k.arg: _value(k.value) for k in node.keywords if k.arg is not None
                and not (isinstance(k.value, ast.Constant) and k.value.value is None and k.arg != "id")}
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.Constant) and not isinstance(node.value, (bytes, complex)):
        return node.value
    raise ValueError(f"not a literal: {type(node).__name__}")


def message_of(text: str) -> dict | None:
    """The JSON-RPC message of a logged repr, or None when it is not one."""
    try:
        tree = ast.parse(f"_({split_fields(text.strip())})", mode="eval").body
        value = _value(tree) if isinstance(tree, ast.Call) and not tree.args else None
        if isinstance(tree, ast.Call) and len(tree.args) == 1 and not tree.keywords:
            value = _value(tree.args[0])  # SessionMessage(...) printed whole
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None
    while isinstance(value, dict) and len(value.keys() & _WRAPPERS) == 1 and "jsonrpc" not in value:
        value = value[next(iter(value.keys() & _WRAPPERS))]  # root=..., message=... metadata=None
    return value if isinstance(value, dict) and value.get("jsonrpc") == "2.0" else None


def logged_message(text: str) -> tuple[int, dict] | None:
    """``(where its repr starts, message)`` of a line logging a message, or None."""
    found = _MARKERS.search(text)
    if found is None:
        return None
    message = message_of(text[found.end():])
    return None if message is None else (found.end(), message)


def read_python_sdk(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    starts = Starts()
    for number, (data, too_long) in enumerate(lines, 1):
        if too_long:
            yield oversized(number, data, too_long)
            continue
        text, _ = decode_line(data)
        stamp = _TIME.match(text)
        ts = f"{stamp.group(1).replace(' ', 'T')}.{stamp.group(2) or '0'}" if stamp else None
        found = _MARKERS.search(text)
        if found is None:
            fragment = stdout_fragment(text) if "json_invalid" in text else None
            if fragment is not None:  # the stdio client could not parse a line of the server's stdout
                if not starts.count.get(NAME):
                    starts.start(NAME)
                yield Frame(number, fragment, direction=Direction.S2C, ts=ts, t=timestamp(ts),
                            session=starts.current(NAME))
            else:
                yield comment(number, text, ts=ts, t=timestamp(ts), session=starts.peek(NAME))
            continue
        message = message_of(text[found.end():])
        if message is None:
            yield unreadable(number, text, "logged message is not a pydantic repr of a JSON-RPC message")
            continue
        try:
            raw = orjson.dumps(message).decode()
        except TypeError:  # an integer beyond 64 bits: no JSON reader would have taken it either
            yield unreadable(number, text, "logged message holds a number JSON cannot carry")
            continue
        direction = Direction.C2S if found.group(1) in _C2S else Direction.S2C
        yield Frame(number, raw, direction=direction, msg=message, ts=ts, t=timestamp(ts),
                    session=starts.message(NAME, direction, raw))


#: A record of the SDK's loggers (``logging``'s default format, or ``%(asctime)s - %(name)s - ...``).
_SDK_LOGGER = re.compile(r"^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):mcp\.|^\S+ \S+ - mcp\.[\w.]+ - [A-Z]+ - ")


def sniff_python_sdk(head: list[str]) -> int:
    if any(_MARKERS.search(text) and ("JSONRPC" in text or "jsonrpc=" in text) for text in head):
        return 84
    return 70 if any(_SDK_LOGGER.match(text) for text in head) else 0


FORMAT = register_format(InputFormat(
    NAME, read_python_sdk, sniff_python_sdk,
    "Python SDK debug logging (Sending client message / Received server message / SSE message reprs)"))

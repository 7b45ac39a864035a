"""The Go SDK's ``mcp.LoggingTransport`` lines (``read: {...}`` / ``write: {...}``).

::

    read: {"jsonrpc":"2.0","id":1,"method":"initialize","params":{...}}
    write: {"jsonrpc":"2.0","id":1,"result":{...}}
    read error: EOF
    2026/01/15 12:34:56.123456 write: {...}        (when the writer is a log.Logger)

The direction is relative to the process that logged: ``read`` is what it received, ``write``
what it sent. Which side logged is decided from the traffic itself, before any frame is
given out (the first lines are held back until then, at most :data:`DECIDE_WITHIN` lines):

1. an ``initialize`` (or ``server/discover``) request: only a client sends it, so when it is
   ``write`` the client logged, when it is ``read`` the server did. Directions are then
   marked observed.
2. otherwise, methods only one side may send (``tools/call`` is a client's,
   ``notifications/message`` a server's): when they all point at the same side, that side
   logged; the directions are given but marked not observed (``observed=False``), since they
   rest on the messages being correct.
3. when nothing decides it, or the evidence conflicts, no direction is given (``observed=False``)
   and mcplint infers each message's direction as for plain JSON Lines.

``read error:`` / ``write error:`` lines and the process's other output are comments. ``read
error: EOF`` says the other side closed the logging side's input (the client ended the session
when the server logged it); it carries that as ``msg`` (see :func:`mcplint.input.formats._common.ended`). Old SDK
versions wrote ``read error: ...`` without a newline, so a message can follow it on the same line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import orjson

from mcplint import protocol
from mcplint.input.formats._common import comment, ended, oversized, timestamp
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction

NAME = "go-sdk-log"
DECIDE_WITHIN = 2000

_LINE = re.compile(r"(?:(\d{4})/(\d\d)/(\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?) )?(read|write): (?=[\[{])")
_ERROR = re.compile(r"(?:\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)? )?(?:(?:read|write) error: |LoggingTransport: failed)")
_EOF = re.compile(r"(?:\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)? )?read error: EOF\s*$")
_GLUED = re.compile(r"(read|write): (?=[\[{])")
_STARTERS = frozenset({"initialize", "server/discover"})
_WIRE_FLAGS = frozenset({"invalid_utf8"})


def _message(text: str) -> tuple[str | None, str, str] | None:
    """``(ts, "read"|"write", message)`` of a logged message line, or None."""
    match = _LINE.match(text)
    if match is not None:
        ts = f"{match.group(1)}-{match.group(2)}-{match.group(3)}T{match.group(4)}" if match.group(1) else None
        return ts, match.group(5), text[match.end():]
    if _ERROR.match(text):
        glued = _GLUED.search(text, 1)
        if glued is not None:
            return None, glued.group(1), text[glued.end():]
    return None


def _vote(verb: str, text: str) -> tuple[str | None, bool]:
    """Which side logged a message, by its method: ``("client"|"server"|None, decisive)``."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None, False
    if not isinstance(value, dict) or not isinstance(value.get("method"), str):
        return None, False
    method = value["method"]
    if method in _STARTERS and "id" in value:  # only a client sends it
        return ("client" if verb == "write" else "server"), True
    senders = protocol.method_senders(method)
    if len(senders) != 1:
        return None, False
    sender = next(iter(senders))
    sent_by_logger = verb == "write"
    client_sent = sender is Direction.C2S
    return ("client" if client_sent == sent_by_logger else "server"), False


def _direction(verb: str, logger: str | None) -> Direction | None:
    if logger is None:
        return None
    if logger == "client":
        return Direction.C2S if verb == "write" else Direction.S2C
    return Direction.C2S if verb == "read" else Direction.S2C


def read_go_sdk(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    held: list[tuple[str, Frame]] = []  # frames waiting for the decision (verb, frame)
    logger: str | None = None
    observed = False
    decided = False
    votes: set[str] = set()
    for number, (data, too_long) in enumerate(lines, 1):
        if too_long:
            frame, verb = oversized(number, data, too_long), ""
        else:
            text, flags = decode_line(data)
            found = _message(text)
            if found is None and _EOF.match(text):
                frame, verb = ended(number, text, "closed", "Go SDK log"), "eof"
            elif found is None:
                frame, verb = comment(number, text), ""
            else:
                ts, verb, body = found
                frame = Frame(number, body, ts=ts, t=timestamp(ts), flags=flags & _WIRE_FLAGS, observed=False)
                if not decided:
                    side, decisive = _vote(verb, body)
                    if decisive:
                        logger, observed, decided = side, True, True
                    elif side is not None:
                        votes.add(side)
        if decided:
            for held_verb, held_frame in held:
                yield _directed(held_verb, held_frame, logger, observed)
            held.clear()
            yield _directed(verb, frame, logger, observed)
            continue
        held.append((verb, frame))
        if len(held) >= DECIDE_WITHIN:
            logger, decided = (next(iter(votes)) if len(votes) == 1 else None), True
            for held_verb, held_frame in held:
                yield _directed(held_verb, held_frame, logger, observed)
            held.clear()
    logger = next(iter(votes)) if len(votes) == 1 and not decided else logger
    for held_verb, held_frame in held:
        yield _directed(held_verb, held_frame, logger, observed)


def _directed(verb: str, frame: Frame, logger: str | None, observed: bool) -> Frame:
    if verb == "eof":  # the logging side's input ended: the other side closed it
        frame.msg["by"] = {"server": "client", "client": "server"}.get(logger)
        return frame
    if verb and frame.kind is None:
        frame.direction = _direction(verb, logger)
        frame.observed = observed and frame.direction is not None
    return frame


def sniff_go_sdk(head: list[str]) -> int:
    messages = errors = other = 0
    for text in head:
        if not text:
            continue
        if _LINE.match(text):
            messages += 1
        elif _ERROR.match(text):
            errors += 1
        else:
            other += 1
    return 80 if messages and (messages + errors) * 2 >= other else 0


FORMAT = register_format(InputFormat(
    NAME, read_go_sdk, sniff_go_sdk,
    "Go SDK LoggingTransport lines (read: / write:, direction relative to the logging side)"))

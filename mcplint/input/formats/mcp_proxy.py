"""punkpeye's ``mcp-proxy`` (TypeScript) run with ``--debug``: its transport events and warnings.

::

    transport event { chunk: '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\\n', type: 'data' }
    transport event {
      chunk: '{"jsonrpc":"2.0","method":"notifications/message","params":{...}}\\n' +
        '{"jsonrpc":"2.0","id":2,"result":{...}}\\n',
      type: 'data'
    }
    transport event { message: { jsonrpc: '2.0', id: 1, result: { tools: [Array] } }, type: 'message' }
    transport event { type: 'close' }
    [mcp-proxy] ignoring non-JSON output [ 'Weather server starting...' ]
    [mcp-proxy] stripped non-JSON prefix from output: WARNING:root:

The proxy's stdio transport logs what the server wrote to stdout, after its filter: a ``data``
event's ``chunk`` (a JavaScript string as Node's ``util.inspect`` prints it, one literal per
line of the chunk) holds the server's messages as they were sent, so each becomes a message from
the server. The proxy does not log what it sends to the server: these logs have one side only.
``message`` events repeat the chunk's messages with nested values elided (``[Array]``): they are
comments. The lines the filter dropped (``ignoring non-JSON output``, one literal per line when
the array is printed over several lines; a one-line array gives its first) and the prefix it
stripped are the server's stdout pollution (IO001). ``{ type: 'close' }`` is the end of the
connection (a later chunk starts a new session); a string cut by ``util.inspect``'s length limit
is reported as unreadable. Other lines are the server's stderr, which the proxy passes through.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from mcplint.input.formats._common import Starts, comment, ended, js_depth, oversized, unreadable
from mcplint.input.parse import Frame, decode_line
from mcplint.input.registry import InputFormat, register_format
from mcplint.model import Direction, Kind

NAME = "mcp-proxy"
SOURCE = "mcp-proxy --debug log"
_EVENT = "transport event {"
_IGNORED = "[mcp-proxy] ignoring non-JSON output"
_STRIPPED = "[mcp-proxy] stripped non-JSON prefix from output: "
#: A JavaScript string literal as util.inspect prints it (single, double or backtick quotes).
_LITERAL = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`""")
_CUT = re.compile(r"\.\.\. \d+ more characters?")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)")
#: An event spread over lines is not followed further than this.
MAX_EVENT_LINES = 2000


def js_string(literal: str) -> str:
    """The value of a JavaScript string literal (with its quotes)."""
    def one(found: re.Match) -> str:
        code = found.group(1)
        if code[0] in "xu" and len(code) > 1:
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, code)
    return _ESCAPE.sub(one, literal[1:-1])


def read_mcp_proxy(lines: Iterable[tuple[bytes, bool]]) -> Iterator[Frame]:
    starts = Starts()
    starts.start(NAME)
    event: str | None = None  # what is spread over lines: "object" (an event), "data" (its chunk), "ignored"
    depth = held = 0
    closed = False
    for number, (data, too_long) in enumerate(lines, 1):
        if too_long:
            yield oversized(number, data, too_long)
            continue
        text, _ = decode_line(data)
        if event is not None:  # inside an object or array printed over several lines
            body = text.strip()
            if event == "object" and body.startswith("chunk: "):
                event = "data"
            elif event == "data" and not body.startswith(("'", '"', "`")):
                event = "object"  # the chunk's literals ended
            kind = event
            depth += js_depth(text)
            held += 1
            if depth <= 0 or held > MAX_EVENT_LINES:
                event = None
            if kind == "ignored" and body.startswith(("'", '"', "`")):
                yield from _stray(number, text, starts)
            elif kind == "data":
                yield from _chunk(number, text, starts)
            else:
                yield comment(number, text, session=starts.peek(NAME))
            continue
        stripped = text.strip()
        if stripped.startswith(_EVENT):
            depth, held = js_depth(stripped), 0
            if closed:  # the connection closed before: a new one
                starts.start(NAME)
                closed = False
            if "type: 'close'" in stripped:
                closed = True
                yield ended(number, text, "closed", SOURCE, session=starts.peek(NAME))
                continue
            if depth > 0:
                event = "object"
            if _is_chunk_line(stripped):
                yield from _chunk(number, stripped, starts)
            else:
                yield comment(number, text, session=starts.peek(NAME))
        elif stripped.startswith(_IGNORED):
            depth, held = js_depth(stripped), 0
            if depth > 0:
                event = "ignored"
                yield comment(number, text, session=starts.peek(NAME))
            else:
                yield from _stray(number, stripped[len(_IGNORED):], starts, whole=text)
        elif stripped.startswith(_STRIPPED):
            yield Frame(number, stripped[len(_STRIPPED):], direction=Direction.S2C, session=starts.current(NAME))
        elif not stripped:
            yield comment(number, text)
        else:  # the server's stderr, which the proxy passes on
            yield Frame(number, text, kind=Kind.STDERR, observed=False, session=starts.current(NAME))


def _is_chunk_line(text: str) -> bool:
    """A one-line ``data`` event: ``transport event { chunk: '...', type: 'data' }``."""
    return text.startswith(_EVENT + " chunk: ")


def _chunk(number: int, text: str, starts: Starts) -> Iterator[Frame]:
    """The server's message(s) in the string literal of a ``chunk`` line."""
    found = _LITERAL.search(text)
    if found is None:
        yield comment(number, text, session=starts.peek(NAME))
        return
    if _CUT.match(text, found.end()):
        yield unreadable(number, text, "message cut by the log (util.inspect's string length limit)")
        return
    message = js_string(found.group(0)).strip("\n")
    yield Frame(number, message, direction=Direction.S2C, session=starts.current(NAME))


def _stray(number: int, text: str, starts: Starts, whole: str | None = None) -> Iterator[Frame]:
    """A line of the server's stdout that the proxy's filter dropped (quoted in its warning)."""
    found = _LITERAL.search(text)
    if found is None:
        yield comment(number, whole or text, session=starts.peek(NAME))
        return
    yield Frame(number, js_string(found.group(0)), direction=Direction.S2C, session=starts.current(NAME))


def sniff_mcp_proxy(head: list[str]) -> int:
    found = sum(1 for text in head if text.startswith((_EVENT, _IGNORED, _STRIPPED)))
    return 82 if found else 0


FORMAT = register_format(InputFormat(
    NAME, read_mcp_proxy, sniff_mcp_proxy,
    "punkpeye mcp-proxy --debug output (transport event chunks: the server's side only; ignored non-JSON output)"))

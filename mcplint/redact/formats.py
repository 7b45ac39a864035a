"""Redaction of whole inputs, format by format.

Every reader of :data:`mcplint.input.readers.READERS` has an entry in :data:`HANDLERS` (a test fails
when one is missing, so a new input format cannot ship without redaction). A handler receives
the decoded lines of the input in order and gives back their redacted text in the same order;
the stream writes the original bytes of every line that did not change, so line count, line
endings (CRLF), byte order marks and undecodable bytes survive exactly.
"""

from __future__ import annotations

import ast
import io
import itertools
import re
import tokenize
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

import orjson

from mcplint.input.formats import python_sdk
from mcplint.input.parse import _utf16
from mcplint.input.readers import SNIFF_BYTES, SNIFF_LINES, sniff
from mcplint.input.registry import binary_reason
from mcplint.redact._rx import rx
from mcplint.redact.engine import _CUT_TEXT_MEMBERS, JSON_START, LONG_LINE, Redactor, _splice
from mcplint.redact.layers import STRING_LITERAL_RE, decode_literal, splice_literal
from mcplint.redact.spans import Span

#: A pretty-printed JSON value is reassembled over at most this many lines / bytes.
MAX_GROUP_LINES = 100_000
MAX_GROUP_BYTES = 64 << 20
#: Bytes read at a time after the head.
BLOCK_BYTES = 1 << 20

_PEM_BEGIN = rx("pem-begin", r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")


class UnsupportedFormat(ValueError):
    """An input format without redaction support."""


class _Held:
    """A text line waiting for the next line (a secret may be cut between them)."""

    __slots__ = ("free", "line", "spans", "text")

    def __init__(self, text: str, free: str, line: int):
        self.text, self.free, self.line = text, free, line
        self.spans: list[Span] = []


def redact_lines(redactor: Redactor, text: str) -> str:
    """A multi-line text, line by line as a line-based format is (line count and line endings kept)."""
    handler = LineHandler(redactor)
    out = [new for line in text.split("\n") for new in handler.feed(line)]
    out.extend(handler.flush())
    return "\n".join(out)


class LineHandler:
    """Formats where each physical line stands alone (canonical capture, transcript).

    A private key printed line by line (stderr, a log) is a block: a text line that opens a PEM
    key (``-----BEGIN ... PRIVATE KEY-----``) or a PuTTY key without closing it makes the next
    lines part of the key while they look like one (base64, or ``Name: value`` headers), up to
    the ``-----END`` or ``Private-MAC:`` line; they are redacted whole.

    A text line (stderr, a plain log line: no JSON in it) is held until the next line is known:
    a credential cut between two consecutive text lines (``auth: ghp_`` then the body) is found
    in their concatenation and redacted in both (:meth:`Redactor.split_spans`). The text of a
    line is what follows :attr:`TEXT_PREFIX` (a time stamp, a comment mark).
    """

    TEXT_PREFIX: re.Pattern[str] | None = None

    def __init__(self, redactor: Redactor):
        self.redactor = redactor
        self._pem = False
        self._held: _Held | None = None

    def feed(self, text: str) -> list[str]:
        return self._join(text)

    def flush(self) -> list[str]:
        return self.release()

    def release(self) -> list[str]:
        """The output of the held text line, if any (the next line will not be joined to it)."""
        held, self._held = self._held, None
        return [] if held is None else [self._finish(held)]

    def idle(self) -> bool:
        """Whether lines in which the prefilter finds nothing may be written as they are, without
        :meth:`feed` (nothing pending that they could belong to but a held text line, which
        :meth:`release` gives back first), except those of :meth:`to_feed`."""
        return not self._pem

    def to_feed(self, lines: list[bytes], block: bytes = b"", starts: Sequence[int] = ()) -> Iterable[int]:
        """Indices of ``lines`` (raw, without newline; ``block[starts[i]:]`` starts line ``i``) to
        feed even when the prefilter finds nothing in them: both text lines of a pair whose
        concatenation it fires on (the held line before the block counts), and the last line
        when it is text (the next block may continue it)."""
        out = []
        prev_i, prev = (-1, self._held.free) if self._held is not None else (-2, None)
        for i in self._maybe_text(lines, block, starts):
            free = self._free_bytes(lines[i])
            if free is None:
                continue
            if prev_i == i - 1 and self._may_join(prev, free):
                out.extend((i - 1, i) if i else (i,))
            prev_i, prev = i, free
        if prev_i == len(lines) - 1 >= 0:
            out.append(prev_i)
        return out

    def _maybe_text(self, lines: list[bytes], block: bytes, starts: Sequence[int]) -> Iterable[int]:
        """Indices of the lines of a block that may be text lines, in order."""
        return range(len(lines))

    # -- text lines --------------------------------------------------------------------------------
    def _join(self, text: str) -> list[str]:
        free = None if self._pem else self._free(text)
        if free is None:
            out = self.release()
            out.append(self._line(text))
            return out
        new = _Held(text, free, self.redactor.line)
        held = self._held
        if held is not None and not _opens_key(held.free):
            pieces = self.redactor.split_spans((held.free, free))
            if pieces is not None:
                held.spans.extend(pieces[0])
                new.spans.extend(pieces[1])
        out = self.release()
        self._held = new
        return out

    def _finish(self, held: _Held) -> str:
        line, self.redactor.line = self.redactor.line, held.line
        try:
            text = held.text
            if held.spans:
                text = self._with_free(text, held.free, self.redactor.force(held.free, held.spans))
            return self._line(text)
        finally:
            self.redactor.line = line

    def _may_join(self, a: str, b: str) -> bool:
        """Whether :meth:`Redactor.split_spans` could find something in ``a + b``."""
        joined = a + b
        return len(joined) >= 4 and self.redactor.prefilter(joined.encode("utf-8", "surrogatepass"))

    def _free(self, text: str) -> str | None:
        """The free text of a line (after :attr:`TEXT_PREFIX`), None for a line that is not text."""
        if len(text) > LONG_LINE:
            return None
        if self.TEXT_PREFIX is not None:
            m = self.TEXT_PREFIX.match(text)
            if m is not None:
                text = text[m.end():]
        return _plain(text)

    def _free_bytes(self, raw: bytes) -> str | None:
        """:meth:`_free` of a raw line of a block (UTF-8, maybe ending in CR)."""
        return self._free(raw.removesuffix(b"\r").decode("utf-8", "surrogateescape"))

    def _with_free(self, text: str, free: str, new: str) -> str:
        """``text`` with its free text ``free`` replaced by ``new``."""
        return text[:len(text) - len(free)] + new

    def _line(self, text: str) -> str:
        m = self.TEXT_PREFIX.match(text) if self.TEXT_PREFIX is not None else None
        head, body = (text[:m.end()], text[m.end():]) if m is not None else ("", text)
        if self._pem:
            if _key_line(body):
                return head + self._pem_line(body)
            self._pem = False
        out = self.redactor.redact_line(text)
        self._pem = _opens_key(body) and JSON_START.search(body) is None
        return out

    def _pem_line(self, text: str) -> str:
        end = text.find("-----END")
        if end >= 0 or text.startswith("Private-MAC:"):
            self._pem = False
            close = text.find("-----", end + 8) if end >= 0 else -1
            cut = len(text) if close < 0 else close + 5
            return self._placeholder(text[:cut]) + self.redactor.redact_line(text[cut:])
        if not text.strip():
            return text
        return self._placeholder(text)

    def _placeholder(self, secret: str) -> str:
        self.redactor._emit("private-key", secret)
        return self.redactor.tagger.placeholder("private-key", secret)


_KEY_LINE = rx("key-line", r"[ \t]{0,8}(?:[A-Za-z0-9+/=]{1,4096}|[A-Za-z][A-Za-z-]{0,40}: [^\r\n]{0,4096}"
                           r"|-----END [A-Z0-9 ]{0,40}-----[^\r\n]{0,4096})\r?")


def _lines_with(literal: bytes, lines: list[bytes], block: bytes, starts: Sequence[int]) -> list[int]:
    """Indices of the lines that hold ``literal``, in order (one search of the block when given)."""
    if not starts:
        return [i for i, line in enumerate(lines) if literal in line]
    out: list[int] = []
    pos = block.find(literal)
    while pos >= 0:
        i = bisect_right(starts, pos) - 1
        out.append(i)
        pos = block.find(literal, starts[i + 1])
    return out


def _plain(text: str | None) -> str | None:
    """``text`` when it is free text worth joining (not blank, no JSON in it), else None."""
    if text is None or not text.strip() or JSON_START.search(text):
        return None
    return text


def _set_member(text: str, key: str, old: str, new: str) -> str:
    """A JSON object ``text`` whose string member ``key`` (now ``old``) becomes ``new``: only that
    literal changes (the object is written again when the literal cannot be found)."""
    literals = STRING_LITERAL_RE.finditer(text)
    for m in literals:
        if decode_literal(m.group()) == key and _COLON.match(text, m.end()):
            value = next(literals, None)
            if value is not None and decode_literal(value.group()) == old:
                return text[:value.start()] + splice_literal(value.group(), old, new) + text[value.end():]
            break
    envelope = orjson.loads(text)
    envelope[key] = new
    return orjson.dumps(envelope).decode("utf-8")


_COLON = rx("member-colon", r"\s{0,64}:")


def _key_line(text: str) -> bool:
    """A line that may belong to a key block: base64, a ``Name: value`` header (PuTTY, encrypted
    PEM), the END line, or blank (the line after the headers of an encrypted PEM key)."""
    return not text.strip() or (_KEY_LINE.fullmatch(text) is not None and JSON_START.search(text) is None)


def _opens_key(text: str) -> bool:
    """A PEM or PuTTY private key starts on this line and does not end on it."""
    m = _PEM_BEGIN.search(text)
    if m is not None:
        return "-----END" not in text[m.end():]
    return "PuTTY-User-Key-File-" in text and "Private-MAC:" not in text


class _StderrEnvelopeHandler(LineHandler):
    """A JSON envelope per line whose ``stderr`` records carry free text in ``TEXT_MEMBER``."""

    TEXT_MEMBER = "raw"

    def _free_bytes(self, raw: bytes) -> str | None:
        return super()._free_bytes(raw) if b'"stderr"' in raw else None

    def _maybe_text(self, lines: list[bytes], block: bytes, starts: Sequence[int]) -> Iterable[int]:
        return _lines_with(b'"stderr"', lines, block, starts)

    def _with_free(self, text: str, free: str, new: str) -> str:
        return _set_member(text, self.TEXT_MEMBER, free, new)


class CaptureHandler(_StderrEnvelopeHandler):
    """The canonical capture format: one JSON envelope per line (``raw``/``msg``/stderr text);
    the text of a ``stderr`` record is its ``raw``."""

    def _free(self, text: str) -> str | None:
        if '"stderr"' not in text or len(text) > LONG_LINE:
            return None
        return _plain(_stderr_raw(text))

    def _line(self, text: str) -> str:
        if self._pem:
            raw = _stderr_raw(text)
            if raw is not None and _key_line(raw):
                new = self._pem_line(raw)
                if new == raw:
                    return text
                envelope = orjson.loads(text)
                envelope["raw"] = new
                return orjson.dumps(envelope).decode("utf-8")
            self._pem = False
        out = self.redactor.redact_line(text)
        if "PRIVATE KEY" in text or "PuTTY-User-Key-File-" in text:
            raw = _stderr_raw(text)
            self._pem = raw is not None and _opens_key(raw)
        return out


def _stderr_raw(text: str) -> str | None:
    try:
        envelope = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(envelope, dict) and envelope.get("dir") == "stderr" and isinstance(envelope.get("raw"), str):
        return envelope["raw"]
    return None


def _depth(text: str) -> int:
    """Opened minus closed brackets outside string literals."""
    bare = STRING_LITERAL_RE.sub("", text) if '"' in text else text
    return bare.count("{") + bare.count("[") - bare.count("}") - bare.count("]")


class JsonLinesHandler(LineHandler):
    """Plain JSON Lines, which may hold pretty-printed messages spread over several lines.

    A line that opens more brackets than it closes starts a group; the group is redacted as
    one JSON document (so ``"password": "..."`` on its own line is still judged by its key)
    and split back into its lines (string literals never contain a newline, so the line
    count cannot change). A group that does not parse is redacted line by line.
    """

    def __init__(self, redactor: Redactor):
        super().__init__(redactor)
        self._group: list[str] = []
        self._open = 0
        self._bytes = 0
        self._first = 0

    def feed(self, text: str) -> list[str]:
        if self._group:
            self._group.append(text)
            self._open += _depth(text)
            self._bytes += len(text)
            if self._open <= 0 or len(self._group) >= MAX_GROUP_LINES or self._bytes >= MAX_GROUP_BYTES:
                return self._close()
            return []
        if text.lstrip()[:1] in ("{", "[") and not self._pem:
            opened = _depth(text)
            if opened > 0:
                out = self.release()
                self._group, self._open, self._bytes = [text], opened, len(text)
                self._first = self.redactor.line
                return out
        return self._join(text)

    def flush(self) -> list[str]:
        return self._close() if self._group else self.release()

    def idle(self) -> bool:
        return not self._group and not self._pem

    def to_feed(self, lines: list[bytes], block: bytes = b"", starts: Sequence[int] = ()) -> Iterable[int]:
        opening = [i for i, line in enumerate(lines) if line.lstrip()[:1] in (b"{", b"[")]  # may open a group
        return opening + list(super().to_feed(lines, block, starts))

    def _close(self) -> list[str]:
        group, self._group = self._group, []
        line, self.redactor.line = self.redactor.line, self._first
        try:
            joined = "\n".join(group)
            out = self.redactor._json_text(joined, 0)
            if out is not None and out.count("\n") == len(group) - 1:
                return out.split("\n")
            return [self._line(text) for text in group]
        finally:
            self.redactor.line = line


_VSCODE_STDERR = rx("vscode-stderr", r"^(.*?\[server stderr\] ?)(.*)$")
_VSCODE_ENTRY = rx("vscode-entry", r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? \[[a-z]{1,10}\] ")


class VscodeHandler(LineHandler):
    """VS Code's MCP output channel: a private key the server prints to stderr line by line is
    redacted after each line's ``... [warning] [server stderr] `` prefix, which stays; the text
    of a stderr line follows that prefix. A key in a host entry (``[error] Error starting server
    x: -----BEGIN ...``) continues on the entry's lines without a time stamp."""

    def _free(self, text: str) -> str | None:
        m = _VSCODE_STDERR.match(text) if "[server stderr]" in text else None
        return super()._free(text if m is None else m.group(2))

    def _line(self, text: str) -> str:
        m = _VSCODE_STDERR.match(text)
        if m is None:
            if _VSCODE_ENTRY.match(text):
                self._pem = False  # a key block ends with the entry that carries it
            return super()._line(text)
        return m.group(1) + super()._line(m.group(2))


def _snoop_stderr(text: str) -> str | None:
    """The ``text`` of an mcpsnoop stderr record, or None."""
    if '"stderr"' not in text:
        return None
    try:
        envelope = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(envelope, dict) and envelope.get("direction") == "stderr" and isinstance(envelope.get("text"), str):
        return envelope["text"]
    return None


_SNOOP_SESSION = rx("mcpsnoop-session", r'^\{"session_id":"[^"\\]{0,200}",')


class McpsnoopHandler(_StderrEnvelopeHandler):
    """mcpsnoop session logs: JSON envelopes; a private key printed to stderr spans records.

    The leading ``session_id`` names the shim process (``server.py-48213-7f3a1c9e2b04``), not an
    ``Mcp-Session-Id``: it is kept, so sessions stay apart after redaction.
    """

    TEXT_MEMBER = "text"

    def _free(self, text: str) -> str | None:
        return _plain(_snoop_stderr(text)) if len(text) <= LONG_LINE else None

    def _envelope(self, text: str) -> str:
        m = _SNOOP_SESSION.match(text)
        if m is None:
            return self.redactor.redact_line(text)
        return text[:m.end()] + self.redactor.redact_line("{" + text[m.end():])[1:]

    def _line(self, text: str) -> str:
        stderr = _snoop_stderr(text) if (self._pem or "PRIVATE KEY" in text or "PuTTY-User-Key-File-" in text) else None
        if self._pem:
            if stderr is None or not _key_line(stderr):
                self._pem = False
                return self._envelope(text)
            new = self._pem_line(stderr)
            if new == stderr:
                return text
            envelope = orjson.loads(text)
            envelope["text"] = new
            return self._envelope(orjson.dumps(envelope).decode("utf-8"))  # the other members too
        out = self._envelope(text)
        self._pem = stderr is not None and _opens_key(stderr)
        return out


class HarHandler(JsonLinesHandler):
    """HAR 1.2 documents, redacted as one JSON value whatever their size: header name/value pairs
    (``Authorization``, ``Cookie``, ``Mcp-Session-Id``...), URLs and query strings, request and
    response bodies (JSON inside JSON, SSE text); every value of the ``cookies`` arrays is a secret.
    A document that is not JSON is redacted line by line.
    """

    def __init__(self, redactor: Redactor):
        super().__init__(redactor)
        self._doc: list[str] = []

    def feed(self, text: str) -> list[str]:
        self._doc.append(text)
        return []

    def idle(self) -> bool:
        return False

    def flush(self) -> list[str]:
        group, self._doc = self._doc, []
        if not group:
            return []
        line, self.redactor.line = self.redactor.line, 1
        try:
            out = self.redactor._json_text("\n".join(group), 0)
            if out is None or out.count("\n") != len(group) - 1:
                return [self._line(text) for text in group]
            return _har_cookies(out, self.redactor).split("\n")
        finally:
            self.redactor.line = line


_HAR_COOKIES = rx("har-cookies", r'"cookies"\s*:\s*\[\s*\{')


def _har_cookies(text: str, redactor: Redactor) -> str:
    """``text`` with the values of the HAR ``cookies`` arrays replaced by placeholders."""
    if "cookie" in redactor.keep or not _HAR_COOKIES.search(text):
        return text
    import json
    import json.scanner

    class _Literal(str):
        start = end = 0

    def parse_string(source, end, strict=True):
        value, after = json.decoder.scanstring(source, end, strict)
        literal = _Literal(value)
        literal.start, literal.end = end - 1, after
        return literal, after

    decoder = json.JSONDecoder()
    decoder.parse_string = parse_string
    try:
        doc, _ = json.scanner.py_make_scanner(decoder)(text, text.index("{"))
    except (ValueError, StopIteration, RecursionError):
        return text
    log = doc.get("log") if isinstance(doc, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    edits = []
    for entry in entries if isinstance(entries, list) else ():
        for part in (entry.get("request"), entry.get("response")) if isinstance(entry, dict) else ():
            cookies = part.get("cookies") if isinstance(part, dict) else None
            for cookie in cookies if isinstance(cookies, list) else ():
                value = cookie.get("value") if isinstance(cookie, dict) else None
                if isinstance(value, _Literal) and value and "[REDACTED" not in value \
                        and not redactor._allowed(str(value)):
                    redactor._emit("cookie", str(value))
                    new = "[REDACTED]" if redactor.tagger.plain else redactor.tagger.placeholder("cookie", str(value))
                    edits.append((value.start, value.end, json.dumps(new)))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


class TranscriptHandler(LineHandler):
    """The transcript notation: the text of a comment line (``# stderr: ...``) follows its mark."""

    TEXT_PREFIX = rx("transcript-comment", r"#[ \t]{0,8}(?:stderr:[ \t]?)?")


class GoSdkHandler(LineHandler):
    """The Go SDK's logging transport: the text of a log line follows its time stamp."""

    TEXT_PREFIX = rx("go-log-stamp", r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? ")


class PythonSdkHandler(LineHandler):
    """The Python SDK's debug logging: a message is a pydantic repr (``root=JSONRPCRequest(method='x',
    params={'token': '...'}, ...)``), not JSON. Its message is read back, redacted as JSON would
    be, and each changed string literal of the repr rewritten (``repr`` of the new value); the rest
    of the line keeps its bytes. A repr that cannot be read back or rewritten exactly is redacted as
    a text line."""

    def _free(self, text: str) -> str | None:
        return None if python_sdk.logged_message(text) is not None else super()._free(text)

    def to_feed(self, lines: list[bytes], block: bytes = b"", starts: Sequence[int] = ()) -> Iterable[int]:
        # a credential cut between two text blocks of a result is found in the message as a whole
        # (as the engine's prefilter lets JSON lines with several "text members through)
        cut = [i for i, line in enumerate(lines) if line.count(b"'text") >= _CUT_TEXT_MEMBERS]
        return sorted(set(super().to_feed(lines, block, starts)) | set(cut))

    def _line(self, text: str) -> str:
        found = python_sdk.logged_message(text)
        if found is not None and _json_able(found[1]):
            start, message = found
            new = self.redactor.redact_value(message)
            if new == message:
                return text
            body = _rewrite_repr(text[start:], message, new)
            if body is not None:
                return text[:start] + body
        return super()._line(text)


def _json_able(value: Any) -> bool:
    """Whether ``value`` can be written as JSON (redact_value leaves a value it cannot write alone)."""
    try:
        orjson.dumps(value)
    except TypeError:
        return False
    return True


def _rewrite_repr(body: str, old: Any, new: Any) -> str | None:
    """``body`` (a Python repr of ``old``) with the string literals that changed in ``new`` written
    anew; None when other values changed or the result does not read back as ``new``."""
    changes: dict[str, str] = {}
    if not _changed_strings(old, new, changes):
        return None
    edits: list[tuple[int, int, str]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(body).readline):
            if token.type == tokenize.STRING and token.start[0] == 1:
                value = ast.literal_eval(token.string)
                if isinstance(value, str) and value in changes:
                    edits.append((token.start[1], token.end[1], repr(changes[value])))
    except (tokenize.TokenError, SyntaxError, ValueError, IndentationError):
        return None
    out = _splice(body, edits)
    return out if python_sdk.message_of(out) == new else None


def _changed_strings(old: Any, new: Any, changes: dict[str, str]) -> bool:
    """Collect ``old string -> new string`` for every string (key or value) that differs; False when
    anything else differs (the shape, a number)."""
    if isinstance(old, str) and isinstance(new, str):
        if old != new:
            if changes.setdefault(old, new) != new:
                return False
        return True
    if isinstance(old, dict) and isinstance(new, dict) and len(old) == len(new):
        return all(_changed_strings(ka, kb, changes) and _changed_strings(va, vb, changes)
                   for (ka, va), (kb, vb) in zip(old.items(), new.items(), strict=True))
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return all(_changed_strings(a, b, changes) for a, b in zip(old, new, strict=True))
    return type(old) is type(new) and old == new


#: One entry per reader in ``mcplint.input.readers.READERS``.
HANDLERS: dict[str, type[LineHandler]] = {
    "jsonl": JsonLinesHandler,
    "capture": CaptureHandler,
    "transcript": TranscriptHandler,
    # host logs: text lines with JSON inside; raw stderr lines (a PEM key spans them)
    "claude-desktop": LineHandler,
    "vscode": VscodeHandler,
    "go-sdk-log": GoSdkHandler,
    "claude-code-debug": LineHandler,
    "cursor": LineHandler,
    "python-sdk-log": PythonSdkHandler,
    "mcp-proxy": LineHandler,
    # one JSON record per line (Claude Code's mcp-logs, MCPSpy's "raw" string is JSON inside JSON)
    "claude-code-mcp-logs": LineHandler,
    # a pretty-printed JSON document, redacted as one value
    "inspector": JsonLinesHandler,
    # one JSON record per line (MCPSpy's "raw" string is JSON inside JSON, redacted as such)
    "mcpspy": LineHandler,
    "mcpsnoop": McpsnoopHandler,
    # HTTP archives: one JSON document (headers, cookies, bodies, SSE text)
    "har": HarHandler,
}


def _decode(body: bytes) -> tuple[str, str]:
    """(text, codec) of one line without its line ending."""
    if b"\x00" in body or body[:2] in (b"\xff\xfe", b"\xfe\xff"):
        text = _utf16(body)
        if text is not None:
            if body[:2] == b"\xff\xfe":
                return text, "bom-le"
            if body[:2] == b"\xfe\xff":
                return text, "bom-be"
            return text, "utf-16-le" if body[1:2] == b"\x00" else "utf-16-be"
    return body.decode("utf-8", "surrogateescape"), "utf-8"


def _encode(text: str, codec: str) -> bytes:
    if codec == "utf-8":
        return text.encode("utf-8", "surrogateescape")
    if codec == "bom-le":
        return b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass")
    if codec == "bom-be":
        return b"\xfe\xff" + text.encode("utf-16-be", "surrogatepass")
    return text.encode(codec, "surrogatepass")


def _lines(stream: IO[bytes]) -> Iterator[bytes]:
    while True:
        line = stream.readline()
        if not line:
            return
        yield line


def _blocks(stream: IO[bytes]) -> Iterator[bytes]:
    """Whole lines, about :data:`BLOCK_BYTES` at a time (at most what a pipe has ready)."""
    read = getattr(stream, "read1", stream.read)
    carry: list[bytes] = []  # the start of a line not yet ended
    while True:
        chunk = read(BLOCK_BYTES)
        if not chunk:
            if carry:
                yield b"".join(carry)
            return
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            carry.append(chunk)
            continue
        carry.append(chunk[:cut])
        yield b"".join(carry)
        carry = [chunk[cut:]] if cut < len(chunk) else []


def redact_stream(src: IO[bytes], dst: IO[bytes] | None, redactor: Redactor, input_format: str = "auto",
                  strict: bool = False) -> str:
    """Redact ``src`` into ``dst`` (None: only fill ``redactor.report``); returns the format.
    With ``strict`` (``mcplint redact``), binary input raises :class:`UnsupportedFormat`.

    After the head (read line by line to sniff the format), the input is read in blocks; the
    engine's prefilter scans a whole block at once, and the lines in which it finds nothing are
    written as they are while the handler is idle (no key block or JSON value over several
    lines pending)."""
    head: list[bytes] = []
    size = 0
    more = False  # the head stopped before the end of the input
    for line in _lines(src):
        head.append(line)
        size += len(line)
        if len(head) >= SNIFF_LINES or size >= SNIFF_BYTES:
            more = True
            break
    binary = binary_reason(b"".join(head)[:8192]) if strict else None
    if binary is not None:
        raise UnsupportedFormat(f"binary file ({binary}), not an MCP capture")
    fmt = input_format if input_format != "auto" else sniff([h.rstrip(b"\n") for h in head])
    handler_type = HANDLERS.get(fmt)
    if handler_type is None:
        raise UnsupportedFormat(f"no redaction support for input format {fmt!r}")
    handler = handler_type(redactor)
    pending: deque[tuple[bytes, str, str, bytes]] = deque()
    report = redactor.report

    def write(texts: list[str]) -> None:
        for new in texts:
            raw, text, codec, ending = pending.popleft()
            report.lines += 1
            if new == text:
                if dst is not None:
                    dst.write(raw)
                continue
            report.changed_lines += 1
            if dst is not None:
                bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
                dst.write(_encode(bom + new, codec) + ending)

    def feed(number: int, raw: bytes) -> None:
        redactor.line = number
        body = raw[:-1] if raw.endswith(b"\n") else raw
        ending = raw[len(body):]
        if body.endswith(b"\r"):
            body, ending = body[:-1], b"\r" + ending
        text, codec = _decode(body)
        if codec == "utf-8" and text.startswith("\ufeff"):
            text = text[1:]
        pending.append((raw, text, codec, ending))
        write(handler.feed(text))

    number = 0
    for raw in head:
        number += 1
        feed(number, raw)
    for block in _blocks(src) if more else ():
        parts = block.split(b"\n")
        if parts[-1] == b"":
            parts.pop()
        starts = list(itertools.accumulate((len(part) + 1 for part in parts), initial=0))
        changing = None if b"\x00" in block or b"\xff\xfe" in block or b"\xfe\xff" in block \
            else redactor.candidate_lines(block, starts)
        if changing is None:
            todo: Iterable[int] = range(len(parts))
        else:
            todo = set(changing).union(handler.to_feed(parts, block, starts))
            if max(map(len, parts), default=0) > LONG_LINE:
                todo.update(i for i, part in enumerate(parts) if len(part) > LONG_LINE)
            todo = sorted(todo)
        line = 0  # the next line of the block to write
        for i in itertools.chain(todo, (len(parts),)):
            while line < i:
                if pending and handler.idle():
                    write(handler.release())  # a held text line: the next one is not joined to it
                if pending or not handler.idle():
                    feed(number + line + 1, block[starts[line]:starts[line + 1]])
                    line += 1
                    continue
                # nothing can fire in the lines up to i: written as they are, in one piece
                if dst is not None:
                    dst.write(block[starts[line]:starts[i]])
                report.lines += i - line
                line = i
            if i < len(parts):
                redactor.scanned = changing is not None and i in changing
                feed(number + i + 1, block[starts[i]:starts[i + 1]])
                redactor.scanned = False
                line = i + 1
        number += len(parts)
    write(handler.flush())
    return fmt

"""Redaction of whole inputs, format by format.

Every reader of :data:`mcplint.readers.READERS` has an entry in :data:`HANDLERS` (a test fails
when one is missing, so a new input format cannot ship without redaction). A handler receives
the decoded lines of the input in order and gives back their redacted text in the same order;
the stream writes the original bytes of every line that did not change, so line count, line
endings (CRLF), byte order marks and undecodable bytes survive exactly.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator
from typing import IO

import orjson

from mcplint.parse import _utf16
from mcplint.readers import SNIFF_BYTES, SNIFF_LINES, sniff
from mcplint.redact._rx import rx
from mcplint.redact.engine import Redactor
from mcplint.redact.layers import STRING_LITERAL_RE

#: A pretty-printed JSON value is reassembled over at most this many lines / bytes.
MAX_GROUP_LINES = 100_000
MAX_GROUP_BYTES = 64 << 20

_PEM_BEGIN = rx("pem-begin", r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")


class UnsupportedFormat(ValueError):
    """An input format without redaction support."""


class LineHandler:
    """Formats where each physical line stands alone (canonical capture, transcript).

    Text lines that open a PEM private key without closing it start a block: the following
    lines, up to the ``-----END`` line, are redacted whole (a key printed line by line to stderr).
    """

    def __init__(self, redactor: Redactor):
        self.redactor = redactor
        self._pem = False

    def feed(self, text: str) -> list[str]:
        return [self._line(text)]

    def flush(self) -> list[str]:
        return []

    def _line(self, text: str) -> str:
        if self._pem:
            return self._pem_line(text)
        out = self.redactor.redact_line(text)
        m = _PEM_BEGIN.search(text)
        if m is not None and "-----END" not in text[m.end():] and text.lstrip()[:1] not in ("{", "["):
            self._pem = True
        return out

    def _pem_line(self, text: str) -> str:
        end = text.find("-----END")
        if end >= 0:
            self._pem = False
            close = text.find("-----", end + 8)
            cut = len(text) if close < 0 else close + 5
            key_part = text[:cut]
            return self._placeholder(key_part) + self.redactor.redact_line(text[cut:])
        if not text.strip():
            return text
        return self._placeholder(text)

    def _placeholder(self, secret: str) -> str:
        self.redactor._emit("private-key", secret)
        return self.redactor.tagger.placeholder("private-key", secret)


class CaptureHandler(LineHandler):
    """The canonical capture format: one JSON envelope per line (``raw``/``msg``/stderr text)."""

    def _line(self, text: str) -> str:
        if self._pem:
            return self._stderr_pem(text)
        out = self.redactor.redact_line(text)
        if "PRIVATE KEY" in text:
            raw = _stderr_raw(text)
            if raw is not None:
                m = _PEM_BEGIN.search(raw)
                self._pem = m is not None and "-----END" not in raw[m.end():]
        return out

    def _stderr_pem(self, text: str) -> str:
        raw = _stderr_raw(text)
        if raw is None:
            self._pem = False
            return self.redactor.redact_line(text)
        new = self._pem_line(raw)
        if new == raw:
            return text
        envelope = orjson.loads(text)
        envelope["raw"] = new
        return orjson.dumps(envelope).decode("utf-8")


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
                self._group, self._open, self._bytes = [text], opened, len(text)
                self._first = self.redactor.line
                return []
        return [self._line(text)]

    def flush(self) -> list[str]:
        return self._close() if self._group else []

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


#: One entry per reader in ``mcplint.readers.READERS``.
HANDLERS: dict[str, type[LineHandler]] = {
    "jsonl": JsonLinesHandler,
    "capture": CaptureHandler,
    "transcript": LineHandler,
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


def redact_stream(src: IO[bytes], dst: IO[bytes] | None, redactor: Redactor, input_format: str = "auto") -> str:
    """Redact ``src`` into ``dst`` (None: only fill ``redactor.report``); returns the format."""
    lines = _lines(src)
    head: list[bytes] = []
    size = 0
    for line in lines:
        head.append(line)
        size += len(line)
        if len(head) >= SNIFF_LINES or size >= SNIFF_BYTES:
            break
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

    for number, raw in enumerate(itertools.chain(head, lines), 1):
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
    write(handler.flush())
    return fmt

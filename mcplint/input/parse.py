"""Turn framed input lines into typed records. Never raises on content.

Classification follows the rule catalog's linter model (§0.1): an object with ``method`` and
``id`` is a request, ``method`` without ``id`` a notification, ``id`` with ``result`` or
``error`` a response, an array a batch; anything else is invalid. Payloads are not validated
here: rules do that, so that a bad payload becomes a finding and not a lost line.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import orjson

from mcplint.model import Direction, Kind, Record, record_maker

#: A message spread over more lines than this is not re-assembled (IO003 detection bound).
MAX_CONTINUATION_LINES = 200
MAX_CONTINUATION_BYTES = 1 << 20
#: How many values on one line are split out before the rest is reported as malformed.
MAX_VALUES_PER_LINE = 1000

# Enum members as module names: ``Kind.REQUEST`` is a class-attribute lookup (about 55 ns in
# Python 3.11) and this module reads them several times per record.
_REQUEST, _NOTIFICATION, _RESULT, _ERROR = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT, Kind.ERROR
_INVALID, _MALFORMED, _BATCH, _MULTI = Kind.INVALID, Kind.MALFORMED, Kind.BATCH, Kind.MULTI
_TEXT, _CONTINUATION = Kind.TEXT, Kind.CONTINUATION


_UNSET: Any = object()
_CRLF = frozenset({"crlf"})
_BLANK = frozenset({"blank"})


@dataclass(slots=True)
class Frame:
    """One input line as a reader delivers it, before JSON parsing."""

    line: int
    data: bytes | str
    observed: bool = True  # JSON Lines frames pass ``observed`` and ``signs`` by position (cheaper)
    signs: int | None = None  # the line's secret-scan literals (literal_scan.signs), when the reader scanned it
    direction: Direction | None = None
    ts: str | None = None
    t: float | None = None
    session: str | None = None
    kind: Kind | None = None  # preset by readers for STDERR, COMMENT and reader errors
    msg: Any = _UNSET  # already parsed value (canonical ``msg`` field)
    flags: frozenset[str] = frozenset()
    error: str | None = None
    transport: str | None = None  # "stdio" | "http" when the format knows
    http: Any = None  # HTTP facts of the exchange that carried the message (HAR readers)


def _utf16(data: bytes) -> str | None:
    """Decode ``data`` when it is UTF-16 text (BOM, or every other byte NUL), else None."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        codec = "utf-16"
    else:
        body = data.strip(b"\x00") if len(data) % 2 else data
        if len(body) < 2 or len(body) % 2:
            return None
        if body[1::2].count(0) == len(body) // 2:
            codec, data = "utf-16-le", body
        elif body[0::2].count(0) == len(body) // 2:
            codec, data = "utf-16-be", body
        else:
            return None
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        return None


def decode_line(data: bytes) -> tuple[str, frozenset[str]]:
    """Decode one line, flagging what a strict UTF-8 reader would reject (IO005/IO006)."""
    flags: set[str] = set()
    if data.endswith(b"\r"):
        data = data[:-1]
        flags.add("crlf")
    text = _utf16(data) if (b"\x00" in data or data[:2] in (b"\xff\xfe", b"\xfe\xff")) else None
    if text is not None:
        flags.add("utf16")
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("utf-8", "replace")
            flags.add("invalid_utf8")
    if text.startswith("\ufeff"):
        text = text[1:]
        flags.add("bom")
    if "\x00" in text:
        flags.add("nul")
    return text, frozenset(flags)


#: :func:`classify`'s reading of the common shapes: a request or notification (a string method, no
#: result or error), a result or an error response (an id, no method), with the fewest member
#: lookups; any other value is left to :func:`_classify_other`. (Source: the record is made in the
#: same function, see :func:`mcplint.model.record_maker`.)
_CLASSIFY_COMMON = """\
    if type(value) is not dict:
        return _classify_other(path, line, data, value)
    method = value.get("method", _UNSET)
    id = value.get("id", _UNSET)
    if type(method) is str:
        if "result" in value or "error" in value:
            return _classify_other(path, line, data, value)
        params = value.get("params")
        if id is _UNSET:
            kind, has_id, id = _NOTIFICATION, False, None
        else:
            kind, has_id = _REQUEST, True
    elif method is _UNSET and id is not _UNSET:
        if "result" in value:
            kind = _RESULT
        elif "error" in value:
            kind = _ERROR
        else:
            return _classify_other(path, line, data, value)
        has_id, method, params = True, None, None
    else:
        return _classify_other(path, line, data, value)
    msg = value
"""


def _classify_other(path: str, line: int, data: bytes | str, value: Any) -> Record:
    """:func:`classify` of a value in none of the common shapes."""
    if type(value) is dict:
        method = value.get("method")
        has_method = "method" in value
        has_id = "id" in value
        if has_method and type(method) is not str:
            return Record(path, line, _INVALID, data, msg=value, has_id=has_id,
                          id=value.get("id"), error="method is not a string")
        has_result = "result" in value
        has_error = "error" in value
        if has_method and not (has_result or has_error):
            kind = _REQUEST if has_id else _NOTIFICATION
            return Record(path, line, kind, data, value, has_id, value.get("id"), method, value.get("params"))
        if has_id and (has_result or has_error) and not has_method:
            kind = _RESULT if has_result else _ERROR
            return Record(path, line, kind, data, value, True, value["id"])
        if has_error and not has_method:
            # an error response without any id: shape is still recognisable (JR017)
            return Record(path, line, _ERROR, data, msg=value)
        if has_result and not has_method:
            return Record(path, line, _RESULT, data, msg=value)
        why = "method together with result/error" if has_method else "neither method nor result/error"
        return Record(path, line, _INVALID, data, msg=value, has_id=has_id,
                      id=value.get("id"), method=method if has_method else None, error=why)
    if type(value) is list:
        record = Record(path, line, _BATCH, data, msg=value)
        record.children = tuple(_child(path, line, data, element, record) for element in value)
        return record
    name = "null" if value is None else type(value).__name__
    return Record(path, line, _INVALID, data, msg=value, error=f"a JSON {name} is not a message")


#: ``classify(path, line, data, value)``
classify: Callable[[str, int, bytes | str, Any], Record] = record_maker(
    "classify", "path, line, data, value, /", _CLASSIFY_COMMON,
    {"_UNSET": _UNSET, "_classify_other": _classify_other, "_REQUEST": _REQUEST, "_NOTIFICATION": _NOTIFICATION,
     "_RESULT": _RESULT, "_ERROR": _ERROR})
classify.__doc__ = "Classify one parsed JSON value as a record (batch elements included)."


def _child(path: str, line: int, data: bytes | str, value: Any, parent: Record) -> Record:
    if type(value) is list:  # nested arrays are not messages
        child = Record(path, line, _INVALID, data, msg=value, error="nested array")
    else:
        child = classify(path, line, data, value)
    child.parent = parent
    return child


def _stamp(record: Record, frame: Frame, flags: frozenset[str]) -> Record:
    """Copy what the reader knows (direction, time, session) onto a record and its children."""
    record.direction = frame.direction
    record.direction_observed = frame.observed
    record.ts = frame.ts
    record.t = frame.t
    record.flags = flags
    record.session_key = frame.session
    record.transport = frame.transport
    record.http = frame.http
    record.signs = frame.signs
    for child in record.children:
        _stamp(child, frame, flags)
    return record


def _loads(text: str) -> tuple[Any, str | None, int]:
    try:
        return orjson.loads(text), None, -1
    except orjson.JSONDecodeError as exc:
        return _UNSET, exc.msg, exc.pos
    except RecursionError:  # pragma: no cover - orjson reports depth itself
        return _UNSET, "nesting too deep", -1


def _split_values(text: str, first_end: int) -> list[Any] | None:
    """Split ``{..}{..}`` (several values on one line). None when the tail is not JSON."""
    values = []
    rest = text
    end = first_end
    while len(values) < MAX_VALUES_PER_LINE:
        head = rest[:end]
        value, err, _ = _loads(head)
        if err is not None:
            return None
        values.append(value)
        rest = rest[end:].lstrip()
        if not rest:
            return values
        value, err, pos = _loads(rest)
        if err is None:
            values.append(value)
            return values
        if err != "unexpected content after document":
            return None
        end = pos
    return None


_JSON_SECOND = frozenset('{["-0123456789tfn]} \t')


def _looks_like_json(text: str) -> bool:
    """A line that starts like a JSON object or array (``[INFO] x`` and ``{x}`` do not)."""
    stripped = text.lstrip()
    if stripped[:1] == "{":
        rest = stripped[1:].lstrip()
        return not rest or rest[0] in '"}\''
    if stripped[:1] == "[":
        return len(stripped) == 1 or stripped[1] in _JSON_SECOND
    return False


class LineFrames:
    """The frames of a reader that reads its input a line at a time, iterable as frames and
    holding the lines themselves: :meth:`Parser.records` decodes those directly, so the common
    line costs no :class:`Frame`.

    ``batches`` yields the lines a block at a time, as columns ``(lines, cuts, signs)``
    (:meth:`mcplint.input.lines.Lines.batches`; ``signs`` None when the block was not scanned);
    ``frame(number, data, cut, signs)`` is the frame the reader gives for a line. ``record`` is
    None when the messages are the lines themselves (plain JSON Lines); otherwise
    ``record(path, number, data, signs)`` is the record of a line the reader knows the common
    shape of (exactly what :meth:`Parser.records` makes of its frame, but for ``Record.signs``,
    which the frame may leave unknown), or None to take the frame. ``first_line`` is the number
    of the first line (a part of a file read on its own: :mod:`mcplint.analysis.parallel`).
    """

    __slots__ = ("batches", "frame", "record", "first_line", "_frames")

    def __init__(self, batches: Iterator[tuple[list[bytes], list | None, list[int | None] | None]],
                 frame: Callable[[int, bytes, Any, int | None], Frame],
                 record: Callable[[str, int, bytes, int | None], Record | None] | None = None):
        self.batches, self.frame, self.record, self._frames = batches, frame, record, None
        self.first_line = 1

    def __iter__(self) -> LineFrames:
        return self

    def __next__(self) -> Frame:
        if self._frames is None:
            self._frames = self.frames_from(iter(()), self.first_line - 1)
        return next(self._frames)

    def frames_from(self, rows: Iterator[tuple[bytes, Any, int | None]], number: int) -> Iterator[Frame]:
        """The frames of ``rows`` (the lines left of a batch, as ``(data, cut, signs)``) and of
        the batches after it, numbered on from ``number``."""
        frame = self.frame
        for data, cut, signs in rows:
            number += 1
            yield frame(number, data, cut, signs)
        for batch in self.batches:
            for data, cut, signs in _rows(batch):
                number += 1
                yield frame(number, data, cut, signs)


def _rows(batch: tuple[list[bytes], list | None, list[int | None] | None]) -> Iterator[tuple[bytes, Any, int | None]]:
    """``(data, cut, signs)`` of each line of a :class:`LineFrames` batch."""
    lines, cuts, found = batch
    return zip(lines, cuts if cuts is not None else repeat(False), found if found is not None else repeat(None))


class Parser:
    """Frames in, records out: one record per frame, in input order."""

    def __init__(self, path: str):
        self.path = path

    def records(self, frames: Iterable[Frame]) -> Iterator[Record]:
        if type(frames) is LineFrames:
            return self._lines(frames)
        return self._frames(iter(frames), deque())

    def _lines(self, frames: LineFrames) -> Iterator[Record]:
        """Records of a line reader's lines: a line the reader's ``record`` makes a record of, or
        (plain JSON Lines) a line holding one JSON object (no CR, not cut), becomes its record at
        once, as :meth:`_one` would make it of its frame; any other line goes through
        :meth:`_one`, and from the first message spread over several lines on, the rest of the
        input goes the way of every other format (:meth:`_frames`)."""
        path, loads, bad_json, made = self.path, orjson.loads, orjson.JSONDecodeError, frames.record
        number = frames.first_line - 1
        for batch in frames.batches:
            rows = _rows(batch)
            for data, cut, signs in rows:
                number += 1
                if made is not None:  # the reader knows the line's shape
                    if cut is False:
                        record = made(path, number, data, signs)
                        if record is not None:
                            yield record
                            continue
                elif cut is False and 13 not in data:  # plain JSON Lines: the line (no CR) is the message
                    try:
                        value = loads(data)
                    except bad_json:
                        pass
                    else:
                        if type(value) is dict:
                            record = classify(path, number, data, value)
                            record.direction_observed = False
                            record.signs = signs
                            yield record
                            continue
                frame = frames.frame(number, data, cut, signs)
                record, need_more = self._one(frame)
                if not need_more:
                    yield record
                    continue
                pending: deque[Frame] = deque()
                rest = frames.frames_from(rows, number)
                joined = self._join(frame, pending, rest)
                if joined is None:
                    yield record
                else:
                    yield from joined
                yield from self._frames(rest, pending)
                return

    def _frames(self, source: Iterator[Frame], pending: deque[Frame]) -> Iterator[Record]:
        while True:
            if pending:
                frame = pending.popleft()
            else:
                frame = next(source, None)
                if frame is None:
                    return
            record, need_more = self._one(frame)
            if not need_more:
                yield record
                continue
            joined = self._join(frame, pending, source)
            if joined is None:
                yield record
            else:
                yield from joined

    # -- one frame ------------------------------------------------------------------
    def _one(self, frame: Frame) -> tuple[Record, bool]:
        """Parse a frame. The flag says the line is an incomplete JSON prefix (IO003)."""
        data = frame.data
        path, line = self.path, frame.line
        if frame.kind is not None:  # a reader's own note may carry facts as ``msg`` (an exit, see readers)
            msg = None if frame.msg is _UNSET else frame.msg
            return _stamp(Record(path, line, frame.kind, data, msg=msg, error=frame.error), frame, frame.flags), False
        if frame.msg is not _UNSET:
            return _stamp(classify(path, line, data, frame.msg), frame, frame.flags), False
        if type(data) is bytes:
            # fast path: orjson validates UTF-8 itself, so a line that parses needs no decoding
            flags = frame.flags
            if data.endswith(b"\r"):
                data = data[:-1]
                flags = flags | _CRLF
            try:
                value = orjson.loads(data)
            except orjson.JSONDecodeError:
                pass
            else:
                return _stamp(classify(path, line, data, value), frame, flags), False
            text, decoded = decode_line(frame.data)
            flags = decoded | frame.flags
        else:
            text, flags = data, frame.flags
        if not text.strip():
            return _stamp(Record(path, line, _TEXT, text), frame, flags | _BLANK), False
        value, err, pos = _loads(text)
        if err is None:
            return _stamp(classify(path, line, text, value), frame, flags), False
        if err == "unexpected content after document":
            values = _split_values(text, pos)
            if values is not None:
                record = Record(path, line, _MULTI, text, msg=values)
                record.children = tuple(_child(path, line, text, v, record) for v in values)
                return _stamp(record, frame, flags), False
        if not _looks_like_json(text):
            return _stamp(Record(path, line, _TEXT, text), frame, flags), False
        record = Record(path, line, _MALFORMED, text, error=f"{err} at character {pos}")
        incomplete = err == "unexpected end of data" and pos >= len(text.rstrip())
        return _stamp(record, frame, flags), incomplete

    def _join(self, first: Frame, pending: deque[Frame], source: Iterator[Frame]) -> list[Record] | None:
        """Re-assemble a message spread over several lines, or None when it is not one."""
        taken: list[Frame] = []
        parts = [first.data.decode("utf-8", "replace") if isinstance(first.data, bytes) else first.data]
        size = len(parts[0])
        while len(taken) < MAX_CONTINUATION_LINES and size < MAX_CONTINUATION_BYTES:
            frame = pending.popleft() if pending else next(source, None)
            if frame is None:
                break
            taken.append(frame)
            if frame.kind is not None or frame.msg is not _UNSET or frame.direction != first.direction:
                break
            part = frame.data.decode("utf-8", "replace") if isinstance(frame.data, bytes) else frame.data
            parts.append(part)
            size += len(part)
            value, err, pos = _loads("\n".join(parts))
            if err is None:
                head, _ = self._one(first)
                joined = _stamp(classify(self.path, first.line, "\n".join(parts), value), first,
                                head.flags | {"multiline"})
                joined.span = len(parts)
                for target in (joined, *joined.children):
                    target.signs = None  # the first line's scan says nothing of the others
                out = [joined]
                for cont in taken:
                    rec, _ = self._one(cont)
                    rec.kind = _CONTINUATION
                    rec.continues = first.line
                    rec.msg = None
                    rec.error = None
                    out.append(rec)
                return out
            if err != "unexpected end of data":
                break
        pending.extendleft(reversed(taken))
        return None

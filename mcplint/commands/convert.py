"""``mcplint convert``: any input format to the canonical capture format, or to plain JSON Lines.

The input is read by its reader (sniffed or named), parsed and routed through the analyzer
(with no rules), so a message whose direction the input does not state gets the direction
mcplint infers, as ``check`` would. Then, in the order mcplint analyses them:

- ``--to capture``: one ``{"ts", "dir", "raw"}`` record per message line (``dir`` ``c2s`` or
  ``s2c``), plus ``"session"`` when the input names sessions, ``"transport"`` and ``"http"``
  when it knows them; the server's stderr is kept as ``"dir": "stderr"``. Lines that were on
  the wire but are not JSON (stdout pollution) are kept too, so ``check`` reports them again.
  CRLF line ends and byte order marks of a message are kept in ``raw``.
- ``--to jsonl``: each message (or other wire line) as it was sent, one per line.

Notes a reader made of a line (an exit, a host log's event: ``msg`` with ``"dir": "meta"``) are
kept as ``meta`` records with their facts; other comments and log decoration are dropped. A line the reader could not interpret, and a message
whose direction is unknown (``--to capture`` needs one), are not written: each is reported as a
warning with its line number, and the conversion goes on.

What is written is redacted as ``mcplint redact`` would redact the converted file (the same
engine, kinds and placeholders; pass a :class:`~mcplint.redact.Redactor` to choose its key), and
the warnings are masked as reports are (:mod:`mcplint.excerpt`): a conversion never copies a
secret or personal data.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import orjson

from mcplint.analysis.engine import Engine
from mcplint.commands.common import OutputFile, fail, one_input, warn
from mcplint.excerpt import mask_text
from mcplint.input.formats.har import http_summary
from mcplint.input.parse import Frame, Parser
from mcplint.input.readers import UnknownFormat, open_frames
from mcplint.model import Direction, Kind, Record
from mcplint.redact import HANDLERS, RedactOptions, Redactor
from mcplint.rules._base import Tracker

TARGETS = ("capture", "jsonl")
_DIR = {Direction.C2S: "c2s", Direction.S2C: "s2c"}
_SKIPPED = frozenset({Kind.COMMENT, Kind.CONTINUATION})


@dataclass
class Converted:
    """What a conversion did."""

    input_format: str = ""
    written: int = 0
    warnings: list[tuple[int, str]] = field(default_factory=list)


class _Writer(Tracker):
    """Watches every record after analysis and writes it out."""

    kinds = frozenset(Kind)
    methods = None

    def __init__(self, out: IO[str], to: str, result: Converted, warn: Callable[[int, str], None],
                 redactor: Redactor):
        self.to, self.result, self.warn = to, result, warn
        self.out = _Redacting(out, HANDLERS[to](redactor))

    def commit(self, record: Record, session: Any) -> None:
        if record.kind is Kind.COMMENT and self.to == "capture" and type(record.msg) is dict \
                and record.msg.get("dir") == "meta":
            self._note(record)
            return
        if record.parent is not None or record.kind in _SKIPPED:
            return
        if record.kind is Kind.TEXT and "blank" in record.flags:
            return
        if record.kind is Kind.STDERR:
            if self.to == "capture":
                self._emit(record, "stderr", record.text)
            return
        raw = _wire_text(record)
        if self.to == "jsonl":
            self.out.write(raw + "\n")
            self.result.written += 1
            return
        direction = _DIR.get(record.direction) if record.direction is not None else None
        if direction is None:
            self.warn(record.line, "direction unknown (neither stated by the input nor inferable); not converted")
            return
        self._emit(record, direction, raw)

    def _note(self, record: Record) -> None:
        """A reader's note carrying facts (an exit, a host log's event) as a ``meta`` record, so
        ``diagnose`` and ``show`` read the converted capture as they read the input."""
        out: dict[str, Any] = {"ts": record.ts if record.ts is not None else record.t, **record.msg}
        if "events-only" in record.flags:
            out["events_only"] = True
        if record.session_key is not None:
            out["session"] = record.session_key
        self.out.write(orjson.dumps(out, option=orjson.OPT_NON_STR_KEYS, default=str).decode("utf-8") + "\n")
        self.result.written += 1

    def _emit(self, record: Record, direction: str, raw: str) -> None:
        out: dict[str, Any] = {"ts": record.ts if record.ts is not None else record.t, "dir": direction, "raw": raw}
        if record.session_key is not None:
            out["session"] = record.session_key
        if record.transport is not None:
            out["transport"] = record.transport
        if record.http is not None:  # entry, method, URL, status, event id: no headers or bodies (secrets)
            out["http"] = http_summary(record.http)
        self.out.write(orjson.dumps(out, option=orjson.OPT_NON_STR_KEYS).decode("utf-8") + "\n")
        self.result.written += 1


class _Redacting:
    """Writes lines through a redaction handler of the target format (a private key printed line
    by line on stderr is one block, as ``mcplint redact`` sees it)."""

    def __init__(self, out: IO[str], handler):
        self.out, self.handler = out, handler

    def write(self, line: str) -> None:
        for text in self.handler.feed(line.removesuffix("\n")):
            self.out.write(text + "\n")

    def close(self) -> None:
        for text in self.handler.flush():
            self.out.write(text + "\n")


def _wire_text(record: Record) -> str:
    """The message as it was on the wire (one line; CRLF and BOM kept)."""
    text = record.text
    if "\n" in text:  # a message re-assembled from several lines: one compact line instead
        text = orjson.dumps(record.msg).decode("utf-8") if record.msg is not None else text.replace("\n", " ")
    if "bom" in record.flags:
        text = "\ufeff" + text
    if "crlf" in record.flags:
        text += "\r"
    return text


def _interpretable(frames: Iterator[Frame], warn: Callable[[int, str], None]) -> Iterator[Frame]:
    """Frames the reader could read; the others become warnings."""
    for frame in frames:
        if frame.kind in (Kind.MALFORMED, Kind.TEXT) and frame.error is not None:
            text = frame.data.decode("utf-8", "replace") if isinstance(frame.data, bytes) else frame.data
            snippet = mask_text(text.strip())  # before it is cut: a cut token may no longer look like one
            snippet = snippet if len(snippet) <= 60 else snippet[:57] + "..."
            warn(frame.line, f"{frame.error}{f' ({snippet!r})' if snippet else ''}; not converted")
            continue
        yield frame


def convert_stream(stream: IO[bytes], out: IO[str], to: str = "capture", input_format: str = "auto",
                   path: str = "-", warn: Callable[[int, str], None] | None = None,
                   protocol_version: str | None = None, redactor: Redactor | None = None) -> Converted:
    """Convert one input stream, writing to ``out``; ``warn(line, message)`` hears what was skipped.

    ``redactor`` redacts what is written (default: ``mcplint redact``'s defaults, a random key).
    Raises :class:`mcplint.input.readers.UnknownFormat` when the input is in no known format.
    """
    if to not in TARGETS:
        raise ValueError(f"unknown target {to!r} (one of {', '.join(TARGETS)})")
    result = Converted()

    def note(line: int, message: str) -> None:
        message = mask_text(message)  # a reader's reason may quote the line
        result.warnings.append((line, message))
        if warn is not None:
            warn(line, message)

    redactor = redactor or Redactor()
    result.input_format, frames = open_frames(stream, input_format, strict=True)
    writer = _Writer(out, to, result, note, redactor)
    engine = Engine([], protocol_version, observers=[writer])
    for _ in engine.lint_records(Parser(path).records(_interpretable(frames, note)), path):
        pass
    writer.out.close()
    return result


def run_convert(path, output, output_alias, target, input_format, protocol_version) -> None:
    """``mcplint convert`` (see ``mcplint convert --help``): one input to stdout or ``-o``, warnings on stderr."""
    path = one_input(path)
    name = "-" if path == "-" else path

    def note(line: int, message: str) -> None:
        warn(f"{name}:{line}: {message}")

    try:
        source = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        fail(f"{exc.filename}: {exc.strerror}")
    with source, OutputFile(output or output_alias) as out:
        try:
            convert_stream(source, out.stream, target, input_format, name, note, protocol_version,
                           Redactor(RedactOptions(key=os.environ.get("MCPLINT_REDACT_KEY") or None)))
        except UnknownFormat as exc:
            fail(f"{name}: {exc}")

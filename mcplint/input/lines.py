"""An input's lines: read by blocks, bounded in length (a longer line is cut, and becomes an
oversized frame that IO013 reports), and the timestamps their envelopes carry."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from io import BytesIO
from operator import itemgetter
from typing import IO, Any

from mcplint.input.literal_scan import MAX_SCAN, block_signs, signs
from mcplint.input.parse import Frame
from mcplint.model import Kind

#: Lines longer than this are not parsed (IO013); memory stays bounded. ``max_line_bytes`` of
#: :func:`open_frames` (``LintOptions.max_line_bytes``) overrides it.
MAX_LINE_BYTES = 64 << 20
#: How much of a line over the limit is kept (IO013 and the analyzer read its start).
CUT_HEAD_BYTES = 4096


@dataclass(frozen=True, slots=True)
class Cut:
    """What :func:`iter_lines` says of a line it cut: its whole size and the limit it exceeded."""

    size: int
    limit: int


#: Bytes asked of the stream at a time (``read1``: a pipe hands over what it has, without waiting).
#: A block is split, joined, lowered and scanned (``block_signs``) before its lines are parsed: at
#: 128 KiB all of that stays in the CPU's L2 cache; 1 MiB blocks cost 0.3 µs more per record.
BLOCK_BYTES = 1 << 17


class Lines:
    """The lines of a binary stream, without their newlines, read by blocks.

    Iterating yields ``(line, cut)``: ``cut`` is False, or for a line longer than ``max_bytes`` a
    :class:`Cut`, the line being cut to its first ``CUT_HEAD_BYTES`` and the rest skipped (memory
    stays bounded). :meth:`batches` gives the same lines a block at a time, as columns, with each
    line's secret-scan literals (:func:`~mcplint.input.literal_scan.signs`, found with one scan per
    block), for a reader whose messages are the lines themselves (``Frame.signs``). :meth:`head`
    looks at the first lines without taking them (format sniffing).
    """

    def __init__(self, stream: IO[bytes], max_bytes: int = MAX_LINE_BYTES):
        self._read = getattr(stream, "read1", None) or stream.read
        self.max_bytes = max_bytes
        self._read_on = self._read_batches()
        self._kept: list[_Read] = []  # blocks read by head(), not yet iterated

    def head(self, lines: int, size: int) -> list[tuple[bytes, Cut | bool]]:
        """The first ``lines`` lines, or as many as reach ``size`` bytes (fewer at the end)."""
        out: list[tuple[bytes, Cut | bool]] = []
        total = 0
        for batch in self._peeked():
            for item in _pairs(batch):
                out.append(item)
                total += len(item[0])
                if len(out) >= lines or total >= size:
                    return out
        return out

    def _peeked(self) -> Iterator[_Read]:
        """The blocks read so far, then new ones, each kept for iteration."""
        yield from self._kept
        for batch in self._read_on:
            self._kept.append(batch)
            yield batch

    def __iter__(self) -> Iterator[tuple[bytes, Cut | bool]]:
        for batch in self.blocks():
            yield from _pairs(batch)

    def tagged(self) -> Iterator[tuple[tuple[bytes, Cut | bool], int | None]]:
        """``((line, cut), signs)`` per line: its secret-scan literals too (None for a cut line)."""
        for batch in self.batches():
            yield from zip(_pairs(batch), batch[2])

    def batches(self) -> Iterator[Batch]:
        """The lines not yet taken, a block at a time: ``(lines, cuts, signs)``, where ``cuts`` is
        None when no line of the block was cut (else each line's ``cut``) and ``signs`` holds each
        line's secret-scan literals (None for a cut line), found with one scan of the block."""
        for lines, cuts, joined in self._blocks():
            if joined is None:
                found = block_signs(lines)
            else:  # the lines after the first as read, joined: no need to join them again
                found = block_signs(lines[1:], joined)
                found.insert(0, None if len(lines[0]) > MAX_SCAN else signs(lines[0]))
            if cuts is not None:
                for i, cut in enumerate(cuts):
                    if cut:
                        found[i] = None
            yield lines, cuts, found

    def blocks(self) -> Iterator[Batch]:
        """The lines not yet taken, a block at a time, without their signs (``(lines, cuts, None)``):
        for a reader whose messages are not the lines themselves."""
        for lines, cuts, _ in self._blocks():
            yield lines, cuts, None

    def _blocks(self) -> Iterator[_Read]:
        kept, self._kept = self._kept, []
        yield from kept
        yield from self._read_on

    def _read_batches(self) -> Iterator[_Read]:
        """The blocks of lines as read: ``(lines, cuts, joined)``, ``joined`` being the lines after
        the first joined by newlines (a slice of the block) when the reader has them, else None."""
        read, limit = self._read, self.max_bytes
        parts: list[bytes] = []  # the start of a line that goes on beyond the blocks read so far
        size = 0  # its length so far
        cut_head: bytes | None = None  # its first bytes, once it is longer than the limit
        by_search = False  # the block before had lines of SEARCH_FROM bytes or more on average
        while block := read(BLOCK_BYTES):
            first = block.find(b"\n")
            if first < 0:  # the whole block goes on with the unfinished line
                size += len(block)
                if cut_head is None:
                    parts.append(block)
                    if size > limit:
                        cut_head, parts = b"".join(parts)[:CUT_HEAD_BYTES], []
                elif len(cut_head) < CUT_HEAD_BYTES:
                    cut_head += block[:CUT_HEAD_BYTES - len(cut_head)]
                continue
            # the line begun before ends at the first newline
            if cut_head is not None:
                cut_head += block[:min(first, CUT_HEAD_BYTES - len(cut_head))]
                lines, cuts = [cut_head], [Cut(size + first, limit)]
            else:
                line = b"".join(parts) + block[:first] if parts else block[:first]
                line, cut = self._line(line)
                lines, cuts = [line], [cut] if cut else None
            last = block.rfind(b"\n")
            joined = None  # the lines after the first, joined by newlines
            if last > first:
                body = block[first + 1:last]
                if len(body) > limit:  # a line of it may be over the limit
                    more = body.split(b"\n")
                    cuts = cuts or [False]
                    for line in more:
                        line, cut = self._line(line)
                        lines.append(line)
                        cuts.append(cut)
                    if not any(cuts):
                        cuts = None
                else:
                    if by_search:
                        lines += map(_NO_NEWLINE, BytesIO(block[first + 1:last + 1]).readlines())
                    else:
                        lines += body.split(b"\n")
                    by_search = len(body) >= SEARCH_FROM * (len(lines) - 1)
                    joined = body
                    if cuts is not None:
                        cuts += [False] * (len(lines) - 1)
            rest = block[last + 1:]
            parts, size, cut_head = [rest] if rest else [], len(rest), None
            if size > limit:
                cut_head, parts = rest[:CUT_HEAD_BYTES], []
            yield lines, cuts, joined
        if cut_head is not None:  # the last line, without a newline
            yield [cut_head], [Cut(size, limit)], None
        elif parts:
            yield [b"".join(parts)], None, None

    def _line(self, line: bytes) -> tuple[bytes, Cut | bool]:
        if len(line) > self.max_bytes:
            return line[:CUT_HEAD_BYTES], Cut(len(line), self.max_bytes)
        return line, False


#: A block of :class:`Lines`: its lines, their cuts (None: none cut) and their secret-scan literals
#: (None until :meth:`Lines.batches` scans the block: readers of other formats never need them)
Batch = tuple[list[bytes], "list[Cut | bool] | None", list[int | None]]
#: A block as :class:`Lines` reads it: its lines, their cuts, and the lines after the first joined
#: by newlines, when the block had them so (for :func:`block_signs`), else None
_Read = tuple[list[bytes], "list[Cut | bool] | None", bytes | None]


#: Lines of this many bytes on average or more are split off a block by ``readlines``, which finds
#: newlines with ``memchr``, each line then copied without its newline (``_NO_NEWLINE``): about
#: 760 instructions a line and 0.7 a byte, where ``bytes.split``, which tests every byte, costs 170
#: and 5.3 (a block of short lines is split the latter way). The average is the block before's.
SEARCH_FROM = 128
_NO_NEWLINE = itemgetter(slice(None, -1))


def _pairs(batch: Batch | _Read) -> Iterator[tuple[bytes, Cut | bool]]:
    lines, cuts = batch[0], batch[1]
    return zip(lines, cuts if cuts is not None else itertools.repeat(False))


def iter_lines(stream: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Lines:
    """The lines of ``stream`` (see :class:`Lines`)."""
    return Lines(stream, max_bytes)


_OVERSIZED = frozenset({"oversized"})


def oversized_frame(line: int, data: bytes | str, cut: Cut, **facts: Any) -> Frame:
    """The frame of a line longer than the limit: not parsed, its start kept, the :class:`Cut` as
    its ``msg`` (IO013 reports it; the analyzer reads what the start says it answers)."""
    return Frame(line, data, kind=Kind.MALFORMED, flags=_OVERSIZED, msg=cut,
                 error=f"line of {cut.size:,} bytes is longer than mcplint's limit of {cut.limit:,} bytes; "
                       "not parsed", **facts)


_fromisoformat = datetime.fromisoformat


def parse_ts(ts: Any) -> float | None:
    """Seconds since the epoch of a timestamp as captures give it: an ISO 8601 string, or a number
    of seconds; None for anything else. (A string is tested first, and by its exact type: the
    canonical capture's every record has one.)"""
    if type(ts) is str or isinstance(ts, str):
        try:
            return _fromisoformat(ts).timestamp()
        except ValueError:
            return None
    return float(ts) if isinstance(ts, (int, float)) and not isinstance(ts, bool) else None

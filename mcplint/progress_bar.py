"""A progress line on stderr while a long input is linted, only when stderr is a terminal.

``label  42%  120.3/286.1 MB  35.2 MB/s  ETA 0:05  1,234,567 records``: it appears once the run
has taken a second (short runs never flash one), is redrawn at most twice a second, is cut to
the terminal's width (a long path loses its middle) so it never wraps, and is erased when the
run ends. ``--jobs`` runs draw the same line from the bytes their workers finished.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, TypeVar

T = TypeVar("T")

#: Inputs smaller than this finish in well under a second: no progress line.
MIN_BYTES = 4 << 20
CHECK_EVERY = 1024  # records between clock checks
DELAY = 1.0  # seconds before the first draw
INTERVAL = 0.5  # seconds between redraws
ERASE = "\r\x1b[K"


def wanted(handle: IO[bytes], stream: IO[str] | None = None) -> bool:
    """A terminal to draw on and a regular file large enough to take a while."""
    stream = stream or sys.stderr
    try:
        return stream.isatty() and os.fstat(handle.fileno()).st_size >= MIN_BYTES
    except (OSError, ValueError, AttributeError):
        return False


class Progress:
    """Draws the line for ``total`` bytes; call :meth:`update` often, it redraws when due."""

    def __init__(self, label: str, total: int, stream: IO[str] | None = None):
        self.label, self.total = label, max(total, 1)
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.next_draw = self.start + DELAY
        self.drawn = False

    def update(self, done: int, records: int | None = None) -> None:
        now = time.monotonic()
        if now < self.next_draw:
            return
        self.next_draw = now + INTERVAL
        width = shutil.get_terminal_size((80, 24)).columns
        self.stream.write(ERASE + render(self.label, done, self.total, now - self.start, width, records))
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write(ERASE)
            self.stream.flush()


def track(items: Iterable[T], handle: IO[bytes], label: str, stream: IO[str] | None = None) -> Iterator[T]:
    """Yield ``items`` while drawing progress from the file position of ``handle``."""
    progress = Progress(label, os.fstat(handle.fileno()).st_size, stream)
    count = 0
    try:
        for item in items:
            count += 1
            if count % CHECK_EVERY == 0:
                progress.update(handle.tell(), count)
            yield item
    finally:
        progress.close()


def render(label: str, done: int, total: int, elapsed: float, width: int, records: int | None = None) -> str:
    """The progress line, at most ``width - 1`` characters (the last column would wrap on some
    terminals); the label is shortened in the middle first, then the optional parts dropped."""
    done = min(done, total)
    rate = done / elapsed if elapsed > 0 else 0.0
    parts = [f"{done * 100 // max(total, 1):3d}%", f"{done / 1e6:.1f}/{total / 1e6:.1f} MB"]
    optional = [f"{rate / 1e6:.1f} MB/s", f"ETA {_clock((total - done) / rate) if rate else '--:--'}"]
    if records is not None:
        optional.append(f"{records:,} records")
    room = width - 1
    while True:
        tail = "  " + "  ".join(parts + optional)
        if len(tail) + 24 <= room or not optional:
            break
        optional.pop()
    label_room = max(room - len(tail), 0)
    return (_middle(label, label_room) + tail)[:room]


def _middle(text: str, room: int) -> str:
    if len(text) <= room:
        return text
    if room < 5:
        return text[:room]
    keep = room - 1
    return text[: keep // 2] + "…" + text[len(text) - (keep - keep // 2):]


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"

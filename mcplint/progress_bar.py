"""A progress line on stderr for long inputs, only when stderr is a terminal."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, TypeVar

T = TypeVar("T")

#: Files smaller than this finish too fast to need a progress line.
MIN_BYTES = 20 << 20
CHECK_EVERY = 4096  # records between clock checks
INTERVAL = 0.5  # seconds between redraws


def wanted(handle: IO[bytes], stream: IO[str] | None = None) -> bool:
    stream = stream or sys.stderr
    try:
        return stream.isatty() and os.fstat(handle.fileno()).st_size >= MIN_BYTES
    except (OSError, ValueError, AttributeError):
        return False


def track(items: Iterable[T], handle: IO[bytes], label: str, stream: IO[str] | None = None) -> Iterator[T]:
    """Yield ``items`` while drawing ``label  42%  120.3/286.1 MB`` from the file position."""
    stream = stream or sys.stderr
    total = os.fstat(handle.fileno()).st_size
    last = time.monotonic()
    count = 0
    for item in items:
        count += 1
        if count % CHECK_EVERY == 0:
            now = time.monotonic()
            if now - last >= INTERVAL:
                last = now
                draw(label, handle.tell(), total, f"  {count:,} records", stream)
        yield item
    clear(stream)


def draw(label: str, done: int, total: int, note: str = "", stream: IO[str] | None = None) -> None:
    """Redraw ``label  42%  120.3/286.1 MB`` (and ``note``) in place."""
    stream = stream or sys.stderr
    stream.write(f"\r{label}  {done * 100 // max(total, 1):3d}%  {done / 1e6:.1f}/{total / 1e6:.1f} MB{note}")
    stream.flush()


def clear(stream: IO[str] | None = None) -> None:
    stream = stream or sys.stderr
    stream.write("\r" + " " * 79 + "\r")
    stream.flush()

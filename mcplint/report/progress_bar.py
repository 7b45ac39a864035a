"""A progress line on stderr while a long input is linted, only when stderr is a terminal.

``label  42%  120.3/286.1 MB  35.2 MB/s  ETA 0:05  1,234,567 records``: it appears once the run
has taken a second (short runs never flash one), is redrawn at most twice a second, is cut to
the width of the terminal it is drawn on (a long path loses its middle; wide and control
characters are counted and escaped) so it never wraps, and is erased when the run ends, also on
Ctrl-C. ``--jobs`` runs draw the same line in the parent: workers add the bytes they read to a
counter in shared memory (:func:`share`, :func:`report`), each task exactly its size in the end.

Why not tqdm: ``python bench/bench_progress.py --repeat 7`` (105 MB capture, 178,640 records,
byte updates every ``CHECK_EVERY`` items for both) measured, per item over a bare loop, on raw
lines :func:`track` +34 to +58 ns and tqdm 4.70 +64 to +66 ns (tqdm wrapping the iterator: +110
ns); on parsed records (~5 µs each) both within noise, tqdm's iterator +260 ns; ``check`` spends
~30 µs a record. tqdm is no faster and would need this module around it all the same: for a long
path it cuts the end of the line (percentage, rate and ETA go), fills the last column (``^C``
then wraps), and has no ``--jobs`` counter. rich was not installed (the bench runs it if it is).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import unicodedata
from collections.abc import Iterable, Iterator
from typing import IO, Any, Protocol, TypeVar

from mcplint.untrusted import shown

T = TypeVar("T")

#: Inputs smaller than this finish in well under a second: no progress line.
MIN_BYTES = 4 << 20
CHECK_EVERY = 1024  # records between clock checks
DELAY = 1.0  # seconds before the first draw
INTERVAL = 0.5  # seconds between redraws
ERASE = "\r\x1b[K"
ECHOED = "^C"  # what the terminal prints after the line when Ctrl-C is pressed
LABEL_MIN = 22  # columns the label keeps before the rate, ETA and record count give way

#: The byte counter of a ``--jobs`` run that draws a line: set by the parent before its pool
#: starts, so that forked workers inherit it (other start methods: progress per finished task).
_shared: Any = None


def wanted(handle: IO[bytes], stream: IO[str] | None = None) -> bool:
    """A terminal to draw on and a regular file large enough to take a while."""
    stream = stream or sys.stderr
    try:
        return stream.isatty() and os.fstat(handle.fileno()).st_size >= MIN_BYTES
    except (OSError, ValueError, AttributeError):
        return False


class _Sink(Protocol):
    def update(self, done: int, records: int | None = None) -> None: ...
    def close(self) -> None: ...


class Progress:
    """Draws the line for ``total`` bytes; call :meth:`update` often, it redraws when due.
    ``start`` (a ``time.monotonic()``) is when the work began, if before this object."""

    def __init__(self, label: str, total: int, stream: IO[str] | None = None, start: float | None = None):
        self.label, self.total = label, max(total, 1)
        self.stream = stream or sys.stderr
        self.start = time.monotonic() if start is None else start
        self.next_draw = self.start + DELAY
        self.drawn = False

    def due(self) -> float:
        """Seconds until the next draw (for a caller that sleeps in between)."""
        return max(self.next_draw - time.monotonic(), 0.01)

    def update(self, done: int, records: int | None = None) -> None:
        now = time.monotonic()
        if now < self.next_draw:
            return
        self.next_draw = now + INTERVAL
        encoding = getattr(self.stream, "encoding", None) or "utf-8"
        line = render(self.label, done, self.total, now - self.start, _columns(self.stream), records, encoding)
        self.stream.write(ERASE + line)
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.drawn = False
            self.stream.write(ERASE)
            self.stream.flush()


class _Share:
    """One task of a ``--jobs`` worker: adds the bytes it read of ``start..start + size`` to the
    shared counter as it goes, and the rest of ``size`` when it ends."""

    def __init__(self, counter: Any, start: int, size: int):
        self.counter, self.start, self.size, self.sent = counter, start, size, 0

    def update(self, position: int, records: int | None = None) -> None:
        self._add(min(position - self.start, self.size) - self.sent)

    def close(self) -> None:
        self._add(self.size - self.sent)

    def _add(self, count: int) -> None:
        if count > 0:
            with self.counter.get_lock():
                self.counter.value += count
            self.sent += count


def _tracked(items: Iterable[T], handle: IO[bytes], sink: _Sink) -> Iterator[T]:
    """Yield ``items``, telling ``sink`` the file position of ``handle`` every CHECK_EVERY items."""
    count = 0
    try:
        for item in items:
            count += 1
            if count % CHECK_EVERY == 0:
                sink.update(handle.tell(), count)
            yield item
    finally:
        sink.close()


def track(items: Iterable[T], handle: IO[bytes], label: str, stream: IO[str] | None = None) -> Iterator[T]:
    """Yield ``items`` while drawing progress from the file position of ``handle``."""
    return _tracked(items, handle, Progress(label, os.fstat(handle.fileno()).st_size, stream))


def follow(items: Iterable[T], handle: IO[bytes], label: str) -> Iterator[T]:
    """``items`` with progress from ``handle``: in a ``--jobs`` worker added to the parent's
    line (:func:`report`), else drawn when :func:`wanted`. Close it to erase the line at once."""
    # a --jobs worker has multiprocessing imported; the main process need not import it (~9 ms)
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None and multiprocessing.parent_process() is not None:
        return report(items, handle)
    return track(items, handle, label) if wanted(handle) else iter(items)


def share() -> Any:
    """In the parent of a ``--jobs`` run, before its workers start: the counter they add to."""
    global _shared
    import multiprocessing

    _shared = multiprocessing.Value("q", 0)
    return _shared


def unshare() -> None:
    global _shared
    _shared = None


def report(items: Iterable[T], handle: IO[bytes], start: int = 0, end: int | None = None) -> Iterator[T]:
    """In a worker: ``items``, adding the bytes read of ``handle`` (``start..end``, default the
    whole file) to the parent's counter; unchanged when the parent draws no line."""
    counter = _shared
    if counter is None:
        return iter(items)
    try:
        size = (os.fstat(handle.fileno()).st_size if end is None else end) - start
    except (OSError, ValueError, AttributeError):
        return iter(items)
    return _tracked(items, handle, _Share(counter, start, size))


def _columns(stream: IO[str]) -> int:
    """Columns of the terminal ``stream`` is on (not stdout's: that may be redirected)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):
        return shutil.get_terminal_size((80, 24)).columns


def render(label: str, done: int, total: int, elapsed: float, width: int, records: int | None = None,
           encoding: str = "utf-8") -> str:
    """The progress line, at most ``width - 3`` columns: the last column would wrap on some
    terminals, and the ``^C`` a terminal echoes on Ctrl-C must fit in the row that the line's
    erasure clears. The label is shortened in the middle first, then the optional parts dropped;
    ``encoding`` is the stream's: what it cannot encode is escaped before it is measured."""
    done = min(done, total)
    rate = done / elapsed if elapsed > 0 else 0.0
    parts = [f"{done * 100 // max(total, 1):3d}%", f"{done / 1e6:.1f}/{total / 1e6:.1f} MB"]
    optional = [f"{rate / 1e6:.1f} MB/s", f"ETA {_clock((total - done) / rate) if rate else '--:--'}"]
    if records is not None:
        optional.append(f"{records:,} records")
    room = width - 1 - len(ECHOED)
    while True:
        tail = "  " + "  ".join(parts + optional)
        if len(tail) + LABEL_MIN <= room or not optional:
            break
        optional.pop()
    label = _shown(label, encoding)
    ellipsis = "…" if _shown("…", encoding) == "…" else "~"
    return _cut(_middle(label, max(room - len(tail), 0), ellipsis) + tail, room)


def _shown(text: str, encoding: str) -> str:
    """``text`` as it reaches the terminal: control characters and what ``encoding`` lacks escaped."""
    text = shown(text)
    try:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:
        return text.encode("ascii", "backslashreplace").decode("ascii")


def _cells(text: str) -> int:
    """Terminal columns of ``text``: wide (East Asian) characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _cut(text: str, room: int) -> str:
    """The longest head of ``text`` that fits in ``room`` columns."""
    used = 0
    for index, ch in enumerate(text):
        used += _cells(ch)
        if used > room:
            return text[:index]
    return text


def _middle(text: str, room: int, ellipsis: str = "…") -> str:
    if _cells(text) <= room:
        return text
    if room < 5:
        return _cut(text, room)
    keep = room - 1
    return _cut(text, keep // 2) + ellipsis + _cut(text[::-1], keep - keep // 2)[::-1]


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"

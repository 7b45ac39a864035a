"""``--jobs``: lint files, and the sessions of one large file, in several processes.

Files are linted in a process pool. A large file in a line-oriented format (plain JSON Lines,
the canonical capture without ``session`` keys, transcripts) is also cut into *parts* at lines
that open a new session (a client ``initialize`` request), and the parts are linted in
parallel. The result must equal a single process's, byte for byte, so each part runs
speculatively and is checked afterwards:

* Session numbers: the parent predicts the ordinal of each part's first session from a fast
  scan for ``initialize`` lines; every part reports how many sessions it opened, and a part
  whose prediction was wrong (a file with 2026-07-28 traffic between handshakes, for example)
  is linted again with the right number.
* Facts shared by the sessions of a file: rules keep them in ``Session.file_state`` (LC011's
  echoed versions, cursors issued in other sessions, ...). In a part that dict records the
  paths every rule reads and writes (:class:`TrackedDict`); when a part read something an
  earlier part wrote, its findings may depend on that part, and the whole file is linted again
  in one process. The analyzer's ``server_requests_seen`` is handled like a session number.
* A part reads its own bytes only (no record is tested for where the part ends); a message
  spread over several lines (IO003) still open where they end, a ``session`` key in the capture,
  or a cut after a session without messages also sends the file back to one process.

So a file costs at most one extra pass, and only when its sessions really depend on each other.
"""

from __future__ import annotations

import contextlib
import gc
import io
import itertools
import mmap
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import IO, Any

import orjson

from mcplint.analysis.analyzer import Analyzer, Session, SessionKey
from mcplint.analysis.engine import Engine
from mcplint.analysis.lint import LintOptions, lint_file, lint_stream
from mcplint.input.lines import iter_lines
from mcplint.input.parse import Frame, LineFrames, Parser, classify
from mcplint.input.readers import READERS, UnknownFormat, _capture_record, open_frames
from mcplint.model import Direction, Finding, Kind, Record
from mcplint.report import progress_bar
from mcplint.report.summary import RunSummary, SessionList
from mcplint.rules import all_rules
from mcplint.rules import load as load_rules
from mcplint.rules._base import Rule

#: Formats whose readers treat every line on its own, so a part can start at any line.
SPLITTABLE = ("jsonl", "capture", "transcript")
#: Files smaller than this are linted whole.
SPLIT_BYTES = 8 << 20
#: Parts are at least this large (a part costs a process task and a scan).
MIN_PART_BYTES = 4 << 20
#: Parts per process, so that uneven sessions still keep every process busy.
PARTS_PER_JOB = 4
#: The lines before a file's first ``initialize`` are analysed in the parent up to this size, to
#: number the sessions exactly; beyond it the numbering is guessed (and checked).
PREFIX_PROBE_BYTES = 1 << 20
MAX_CRASHES = 100  # as Engine keeps per file


# -- the shared facts of a part, recorded ------------------------------------------------------
class StateLog:
    """Paths of ``file_state`` one part read and wrote.

    A *full* read saw a value (or its absence); a *shape* read only relied on a container being
    there. A *leaf* write stored a value (or replaced a subtree); a *shape* write created an
    empty container. Reads during the finish of the part's last session, and writes while its
    first record was judged, are also kept apart: one process runs those two the other way
    round (the next part's first record closes the session). Reads of a ``SessionKey`` of one of
    the part's own sessions (``own_from`` on) are not kept: no earlier part can have written it.
    """

    def __init__(self) -> None:
        self.reads: set[tuple] = set()
        self.shape_reads: set[tuple] = set()
        self.writes: set[tuple] = set()
        self.shape_writes: set[tuple] = set()
        self.final_reads: set[tuple] = set()
        self.final_shape_reads: set[tuple] = set()
        self.first_writes: set[tuple] = set()
        self.first_shape_writes: set[tuple] = set()
        self.phase = "first"  # "first" record, the "body", the "final" finish
        self.own_from: int | None = None  # the part's first session: its SessionKey reads are not kept

    def read(self, path: tuple, shape: bool = False) -> None:
        if path and type(path[0]) is SessionKey and self.own_from is not None \
                and path[0].ordinal >= self.own_from:
            return  # only this part's sessions write it
        (self.shape_reads if shape else self.reads).add(path)
        if self.phase == "final":
            (self.final_shape_reads if shape else self.final_reads).add(path)

    def write(self, path: tuple, shape: bool = False) -> None:
        (self.shape_writes if shape else self.writes).add(path)
        if self.phase == "first":
            (self.first_shape_writes if shape else self.first_writes).add(path)


def _tracked(log: StateLog, path: tuple, value: Any) -> Any:
    """``value`` with plain dicts and sets (at any depth) replaced by tracked ones."""
    if type(value) is dict:
        out = TrackedDict(log, path)
        for key, item in value.items():
            dict.__setitem__(out, key, _tracked(log, path + (key,), item))
        return out
    if type(value) is set:
        out = TrackedSet(log, path)
        set.update(out, value)
        return out
    return value


def _is_container(value: Any) -> bool:
    return type(value) is TrackedDict or type(value) is TrackedSet


class TrackedDict(dict):
    """``Session.file_state`` of a part: a dict that logs which paths rules read and write.

    ``setdefault(key, value)`` with a value that is not a plain dict or set counts as a write
    only: rules use it to keep the first value seen (LC011), not to learn whether an earlier
    session stored one; a rule that needs to know reads with ``get``, ``[]`` or ``in``.
    """

    __slots__ = ("_log", "_path")

    def __init__(self, log: StateLog, path: tuple = ()):
        super().__init__()
        self._log = log
        self._path = path

    def _read(self, key: Any, value: Any) -> None:
        self._log.read(self._path + (key,), shape=_is_container(value))

    def __getitem__(self, key):
        value = dict.get(self, key, _MISSING)
        self._read(key, value)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def get(self, key, default=None):
        value = dict.get(self, key, _MISSING)
        self._read(key, value)
        return default if value is _MISSING else value

    def __contains__(self, key):
        value = dict.get(self, key, _MISSING)
        self._read(key, value)
        return value is not _MISSING

    def __setitem__(self, key, value):
        path = self._path + (key,)
        self._log.write(path)
        dict.__setitem__(self, key, _tracked(self._log, path, value))

    def setdefault(self, key, default=None):
        path = self._path + (key,)
        value = dict.get(self, key, _MISSING)
        if value is not _MISSING:
            if _is_container(value):
                self._log.read(path, shape=True)
            elif type(default) is dict or type(default) is set:
                self._log.read(path)  # a value where the rule expected a container
            return value
        value = _tracked(self._log, path, default)
        if _is_container(value):
            self._log.read(path, shape=True)
            self._log.write(path, shape=not (dict.__len__(value) if type(value) is TrackedDict
                                             else set.__len__(value)))
        else:
            self._log.write(path)
        dict.__setitem__(self, key, value)
        return value

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def pop(self, key, *default):
        path = self._path + (key,)
        self._log.read(path)
        self._log.write(path)
        return dict.pop(self, key, *default)

    def __delitem__(self, key):
        self.pop(key)


class TrackedSet(set):
    """A set inside ``file_state`` of a part, logging its members read and written."""

    __slots__ = ("_log", "_path")

    def __init__(self, log: StateLog, path: tuple):
        super().__init__()
        self._log = log
        self._path = path

    def __contains__(self, item):
        self._log.read(self._path + (item,))
        return set.__contains__(self, item)

    def add(self, item):
        self._log.write(self._path + (item,))
        set.add(self, item)

    def discard(self, item):
        self._log.read(self._path + (item,))
        self._log.write(self._path + (item,))
        set.discard(self, item)

    def remove(self, item):
        self._log.read(self._path + (item,))
        self._log.write(self._path + (item,))
        set.remove(self, item)


_MISSING = object()


def _whole_read(base: type, name: str):
    """A method that reads the whole container (iteration, size, copies, set algebra)."""
    method = getattr(base, name)

    def reading(self, *args, **kwargs):
        self._log.read(self._path)
        return method(self, *args, **kwargs)
    reading.__name__ = name
    return reading


def _whole_write(base: type, name: str):
    """A method that reads and changes the whole container (clear, popitem, in-place algebra)."""
    method = getattr(base, name)

    def writing(self, *args, **kwargs):
        self._log.read(self._path)
        self._log.write(self._path)
        return method(self, *args, **kwargs)
    writing.__name__ = name
    return writing


for _name in ("__iter__", "__len__", "__reversed__", "__eq__", "__ne__", "__or__", "__ror__", "keys", "values",
              "items", "copy", "__repr__"):
    setattr(TrackedDict, _name, _whole_read(dict, _name))
for _name in ("clear", "popitem", "__ior__"):
    setattr(TrackedDict, _name, _whole_write(dict, _name))
for _name in ("__iter__", "__len__", "__eq__", "__ne__", "__and__", "__rand__", "__or__", "__ror__", "__sub__",
              "__rsub__", "__xor__", "__rxor__", "__le__", "__lt__", "__ge__", "__gt__", "copy", "difference",
              "intersection", "union", "symmetric_difference", "issubset", "issuperset", "isdisjoint", "__repr__"):
    setattr(TrackedSet, _name, _whole_read(set, _name))
for _name in ("clear", "pop", "update", "difference_update", "intersection_update", "symmetric_difference_update",
              "__iand__", "__ior__", "__isub__", "__ixor__"):
    setattr(TrackedSet, _name, _whole_write(set, _name))


def _prefixes(paths: Iterable[tuple]) -> set[tuple]:
    return {path[:end] for path in paths for end in range(1, len(path) + 1)}


class _Written:
    """Paths written by the parts before the one being checked."""

    def __init__(self) -> None:
        self.leaves: set[tuple] = set()
        self.below: set[tuple] = set()  # every prefix of a written path (leaf or shape)

    def add(self, leaves: Iterable[tuple], shapes: Iterable[tuple]) -> None:
        leaves, shapes = list(leaves), list(shapes)
        self.leaves.update(leaves)
        self.below.update(_prefixes(leaves))
        self.below.update(_prefixes(shapes))

    def seen_by(self, reads: Iterable[tuple], shape_reads: Iterable[tuple]) -> bool:
        """Whether any of these reads could have seen one of the writes."""
        leaves = self.leaves
        for path in reads:  # the value read is, contains, or lies inside something written
            if path in self.below or any(path[:end] in leaves for end in range(1, len(path))):
                return True
        for path in shape_reads:  # only a value stored where the container is matters
            if any(path[:end] in leaves for end in range(1, len(path) + 1)):
                return True
        return False


def depends_on_earlier(logs: Sequence[StateLog]) -> bool:
    """Whether one part's findings may depend on the shared facts of the parts before it."""
    written = _Written()
    for index, log in enumerate(logs):
        if index and written.seen_by(log.reads, log.shape_reads):
            return True
        if index + 1 < len(logs):
            later = _Written()  # the next part's first record runs before this part's last finish
            later.add(logs[index + 1].first_writes, logs[index + 1].first_shape_writes)
            if later.seen_by(log.final_reads, log.final_shape_reads):
                return True
        written.add(log.writes, log.shape_writes)
    return False


class _PartAnalyzer(Analyzer):
    """The analyzer of one part: numbers sessions from ``ordinal``, starts from the part's
    ``server_requests_seen`` and records whether the part relied on it being False."""

    def __init__(self, path: str, engine: Engine, ordinal: int, server_requests: bool, log: StateLog):
        self._server_requests = server_requests
        self.server_requests_set = False
        self.server_requests_read = False
        super().__init__(path, engine.protocol_version, engine.limits)
        self.ordinal = ordinal - 1
        self.file_state = TrackedDict(log)
        log.own_from = ordinal
        self.named_sessions = False  # a record named its session (files that do are not cut)

    def _session_for(self, record: Record) -> Session:
        if record.session_key is not None:
            self.named_sessions = True
        return super()._session_for(record)

    @property
    def server_requests_seen(self) -> bool:
        if not self._server_requests:
            self.server_requests_read = True
        return self._server_requests

    @server_requests_seen.setter
    def server_requests_seen(self, value: bool) -> None:
        if value:  # Analyzer.__init__ assigns False: the part's starting value stays
            self._server_requests = self.server_requests_set = True


# -- planning: where to cut ----------------------------------------------------------------
@dataclass(frozen=True)
class Part:
    """A byte range of a file, linted on its own, and what it assumes about what came before."""

    path: str
    fmt: str
    start: int  # byte offset of its first line
    end: int  # byte offset where the next part starts (the file size for the last)
    first_line: int
    ordinal: int  # number of its first session
    last: bool = False  # the file's last part
    server_requests: bool = False  # a server request was seen before it


def _starts_session(line: bytes, fmt: str) -> bool:
    """Whether this input line, alone, is a client ``initialize`` request that opens a session
    (read by the format's own reader and parser, so exactly as a whole run reads it)."""
    record = _common_record(line, fmt)
    if record is None:
        frames = READERS[fmt]([(line, False)])
        first = next(iter(frames), None)
        if first is None:
            return False
        record = next(Parser("").records([first]), None)
    return (record is not None and record.kind is Kind.REQUEST and record.method == "initialize"
            and record.direction is not Direction.S2C and record.session_key is None)


def _common_record(line: bytes, fmt: str) -> Record | None:
    """The record of a line in its format's common shape, made as the parser makes it of such a
    line (:meth:`Parser._lines`: a JSON Lines object without CR, a message in the capture
    envelope), for a fraction of the reader's and parser's cost; None for any other line."""
    if fmt == "jsonl":
        if 13 in line:  # (a CR: the parser reads the line's frame)
            return None
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        return classify("", 0, line, value) if type(value) is dict else None
    if fmt == "capture":
        return _capture_record("", 0, line)  # (the capture reader's own fast path)
    return None


class _Window:
    """Gives the pages of a scanned mapping back as the scan moves on, so the parent's RSS stays
    small however large the file (the pages stay in the page cache for the workers)."""

    STEP = 4 << 20

    def __init__(self, data: mmap.mmap):
        self.data = data
        self.released = 0

    def passed(self, offset: int) -> None:
        """Nothing before ``offset`` is read again."""
        upto = offset - offset % mmap.PAGESIZE
        if upto - self.released >= self.STEP and hasattr(self.data, "madvise"):
            try:
                self.data.madvise(mmap.MADV_DONTNEED, self.released, upto - self.released)
            except (OSError, ValueError, AttributeError):
                return
            self.released = upto


def _hits(data: mmap.mmap, fmt: str, position: int, end: int) -> Iterator[tuple[int, int, int]]:
    """``(hit, line start, line end)`` of each line in ``position..end`` that holds the method name
    ``initialize`` (its first such place), in order, found with a byte search."""
    # transcripts: "# init V" too; elsewhere the method's string value ends right after the name (a
    # JSON string's quote, escaped in a capture's raw text), so "notifications/initialized" lines
    # are not read; a JSON Lines session start holds the name unescaped, as its method
    needle = b"init" if fmt == "transcript" else b'initialize"' if fmt == "jsonl" else b"initialize"
    ends = (b'"', b"\\") if fmt == "capture" else None
    after = len(needle)
    window = _Window(data)
    window.released = position - position % mmap.PAGESIZE
    position = data.find(needle, position, end)
    while position >= 0:
        if ends is not None and data[position + after:position + after + 1] not in ends:
            position = data.find(needle, position + 1, end)
            continue
        start = data.rfind(b"\n", 0, position) + 1
        line_end = data.find(b"\n", position)
        line_end = len(data) if line_end < 0 else line_end
        yield position, start, line_end
        window.passed(start)
        position = data.find(needle, line_end, end)


def _next_start(data: mmap.mmap, fmt: str, position: int, max_line_bytes: int) -> int | None:
    """Offset of the first line at or after ``position`` that opens a session (exactly as a whole
    run reads it: :func:`_starts_session`); a line longer than the limit is not read, so opens nothing."""
    for _, start, end in _hits(data, fmt, position, len(data)):
        if start >= position and end - start <= max_line_bytes and _starts_session(data[start:end], fmt):
            return start
    return None


def _count_starts(data: mmap.mmap, fmt: str, start: int, end: int, max_line_bytes: int) -> int:
    """The number of lines in ``start..end`` that open a session (read as :func:`_next_start` reads them)."""
    return sum(1 for _, line_start, line_end in _hits(data, fmt, start, end)
               if line_end - line_start <= max_line_bytes and _starts_session(data[line_start:line_end], fmt))


def _count_lines(data: mmap.mmap, start: int, end: int) -> int:
    count = 0
    window = _Window(data)
    window.released = start - start % mmap.PAGESIZE
    for block in range(start, end, COUNT_STEP):  # (each slice is a copy: small ones)
        count += data[block:min(end, block + COUNT_STEP)].count(b"\n")
        window.passed(min(end, block + COUNT_STEP))
    return count


#: Bytes of the mapping counted at a time (a slice of an mmap is a copy in memory)
COUNT_STEP = 1 << 20


def _first_ordinal(data: mmap.mmap, first: int, fmt: str, options: LintOptions) -> int:
    """The number of the session that the file's first ``initialize`` line belongs to."""
    if first == 0:
        return 1
    if first > PREFIX_PROBE_BYTES:
        return 2  # a guess (a session before the first handshake); parts check it
    analyzer = Analyzer("", options.protocol_version)
    frames = READERS[fmt](iter_lines(io.BytesIO(data[:first]), options.max_line_bytes))
    for _ in Engine([], options.protocol_version).lint_records(Parser("").records(frames), "", analyzer):
        pass
    current = analyzer.current
    return 1 if current is None else analyzer.ordinal + (1 if current.messages else 0)


def plan(path: str, options: LintOptions, jobs: int) -> list[Part] | None:
    """Cut a file into parts that start at session boundaries; None when it stays whole."""
    return list(iter_parts(path, options, jobs)) or None


def iter_parts(path: str, options: LintOptions, jobs: int) -> Iterator[Part]:
    """The parts of :func:`plan`, each as soon as its end is found (so the first parts are linted
    while the rest of the file is planned); nothing when the file stays whole. The scan stops at
    the last cut."""
    try:
        size = os.path.getsize(path)
        if jobs < 2 or size < SPLIT_BYTES:
            return
        handle = open(path, "rb")
    except OSError:
        return
    with handle:
        try:
            fmt, frames = open_frames(handle, options.input_format, strict=True, max_line_bytes=options.max_line_bytes)
        except UnknownFormat:
            return
        if fmt not in SPLITTABLE or any(f.session is not None for f, _ in zip(frames, range(50))):
            return
        try:
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # not a regular file after all: read it whole
            return
        with data:
            yield from _cut(path, fmt, data, options, min(PARTS_PER_JOB * jobs, max(2, size // MIN_PART_BYTES)))


def _cut(path: str, fmt: str, data: mmap.mmap, options: LintOptions, count: int) -> Iterator[Part]:
    """The parts of a mapped file cut ``count`` ways: each cut at the first session start after
    an even share of the bytes (not the file's first start). A part is handed out as soon as its
    end is found; the lines and session starts before the cut, which number the next part, are
    counted after."""
    size, limit = len(data), options.max_line_bytes
    first = _next_start(data, fmt, 0, limit)
    if first is None:
        return
    targets = [size * i // count for i in range(1, count)]
    start, line, ordinal, target, starts_before = 0, 1, 1, 0, 0
    first_ordinal = None
    while target < len(targets):
        at = _next_start(data, fmt, max(targets[target], first + 1), limit)
        if at is None:
            break
        while target < len(targets) and targets[target] <= at:
            target += 1
        yield Part(path, fmt, start, at, line, ordinal)
        if first_ordinal is None:
            first_ordinal = _first_ordinal(data, first, fmt, options)
        line += _count_lines(data, start, at)
        starts_before += _count_starts(data, fmt, start, at, limit)
        start, ordinal = at, first_ordinal + starts_before
    if start:
        yield Part(path, fmt, start, size, line, ordinal, last=True)


# -- a part, in a worker -------------------------------------------------------------------------
@dataclass
class PartResult:
    findings: list[Finding]
    records: int
    sessions: SessionList
    crashes: list[str]
    opened: int  # sessions the part opened
    log: StateLog
    server_requests_set: bool
    server_requests_read: bool  # relied on no server request having been seen
    trouble: str | None = None  # why the file must be linted in one process after all


_ENGINES: dict[bytes, Engine] = {}
#: Bytes of the first input linted in the parent before the pool starts (see :func:`_warm_up`).
WARM_UP_BYTES = 256 << 10


def _engine_key(codes: list[str], options: LintOptions) -> bytes:
    return pickle.dumps((codes, options.protocol_version, options.rule_options))


def _engine(codes: list[str], options: LintOptions) -> Engine:
    """The engine for these rules and options, built once per worker process (or inherited)."""
    from mcplint.config.settings import configure

    key = _engine_key(codes, options)
    engine = _ENGINES.get(key)
    if engine is None:
        registry = load_rules()
        rules = configure([registry[code]() for code in codes], options.rule_options)
        engine = _ENGINES[key] = Engine(rules, options.protocol_version)
    return engine


def lint_file_in_worker(name: str, codes: list[str], options: LintOptions) -> tuple[list[Finding], RunSummary]:
    return lint_file(name, None, options, _engine(codes, options))  # progress: to the parent's line


def _numbered_from(frames: Iterable[Frame], first_line: int) -> Iterable[Frame]:
    """``frames`` numbered from ``first_line`` on (a line reader's numbers them itself, so that
    the parser keeps its fast path: :class:`LineFrames`)."""
    if type(frames) is LineFrames:
        frames.first_line = first_line
        return frames
    return _shifted(frames, first_line - 1)


def _shifted(frames: Iterable[Frame], offset: int) -> Iterator[Frame]:
    for frame in frames:
        frame.line += offset
        yield frame


class _Capped:
    """The bytes of a part: a file's ``start..end``, read by ``read1`` (:class:`Lines`)."""

    def __init__(self, handle: IO[bytes], size: int):
        self._read1 = handle.read1
        self.left = size

    def read1(self, size: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        data = self._read1(self.left if size < 0 else min(size, self.left))
        self.left -= len(data)
        return data


class _PartParser(Parser):
    """A part's parser: notes a message spread over lines that is still open where the part's
    bytes end (one process would read on into the next part)."""

    open_at_end = False

    def _join(self, first: Frame, pending, source: Iterator[Frame]) -> list[Record] | None:
        return super()._join(first, pending, self._noting_the_end(source))

    def _noting_the_end(self, source: Iterator[Frame]) -> Iterator[Frame]:
        # (not ``yield from``: closing this generator, which the join leaves suspended, would close the source)
        for frame in source:  # noqa: UP028
            yield frame
        self.open_at_end = True


def _phased(records: Iterator[Record], log: StateLog) -> Iterator[Record]:
    """``records``, with the log's phase moved on after the first record and after the last (a
    plain chain: no work per record in between)."""
    return itertools.chain(_first_of(records, log), records, _ended(log))


def _first_of(records: Iterator[Record], log: StateLog) -> Iterator[Record]:
    for record in records:
        yield record
        break
    log.phase = "body"


def _ended(log: StateLog) -> Iterator[Record]:
    log.phase = "final"
    return
    yield


def lint_part(part: Part, codes: list[str], options: LintOptions) -> PartResult:
    """Lint one part of a file (in a worker process): its bytes only, so that no record costs a
    test of where the part ends."""
    engine = _engine(codes, options)
    log = StateLog()
    analyzer = _PartAnalyzer(part.path, engine, part.ordinal, part.server_requests, log)
    result = PartResult([], 0, [], [], 0, log, False, False)
    taken = engine.taken  # (the worker's engine lints every part it is given)
    parser = _PartParser(part.path)
    with open(part.path, "rb") as handle:
        handle.seek(part.start)
        frames = READERS[part.fmt](iter_lines(_Capped(handle, part.end - part.start), options.max_line_bytes))
        if part.first_line != 1:
            frames = _numbered_from(frames, part.first_line)
        records = _phased(iter(parser.records(frames)), log)
        records = progress_bar.report(records, handle, part.start, part.end)
        result.findings = list(engine.lint_records(records, part.path, analyzer, whole_file=False))
        result.records = engine.taken - taken
    current = analyzer.current
    if analyzer.named_sessions:
        result.trouble = "the capture names its sessions"
    elif not part.last and parser.open_at_end:
        result.trouble = f"a message spread over lines may run across the cut at byte {part.end}"
    elif not part.last and (current is None or not current.messages):
        result.trouble = f"the session before the cut at byte {part.end} has no messages"
    result.crashes = engine.take_crashes()
    result.sessions = SessionList(s for s in analyzer.release_sessions() if s.messages)
    result.opened = analyzer.ordinal - (part.ordinal - 1)
    result.server_requests_set = analyzer.server_requests_set
    result.server_requests_read = analyzer.server_requests_read
    return result


# -- the parent: check, schedule, merge ---------------------------------------------------------
def renumbered(parts: list[Part], results: list[PartResult]) -> tuple[list[Part], list[int]]:
    """The parts with the first session number and server-request state that the parts before
    them turned out to leave, and the indexes of the parts that assumed otherwise."""
    out, redo = [], []
    ordinal, server_requests = 1, False
    for index, (part, result) in enumerate(zip(parts, results)):
        if part.ordinal != ordinal or (server_requests and not part.server_requests and result.server_requests_read):
            part = replace(part, ordinal=ordinal, server_requests=server_requests)
            redo.append(index)
        out.append(part)
        ordinal += result.opened
        server_requests = server_requests or result.server_requests_set
    return out, redo


def trouble(results: list[PartResult]) -> str | None:
    """Why parts that are numbered right still differ from one process's run, if they may."""
    for result in results:
        if result.trouble:
            return result.trouble
    if depends_on_earlier([r.log for r in results]):
        return "sessions share facts across parts"
    return None


class _Whole:
    """A file linted by one worker."""

    error: Exception | None = None

    def __init__(self, name: str, size: int):
        self.name = name
        self.size = size
        self.result: tuple[list[Finding], RunSummary] | None = None

    def start(self, run) -> None:
        run.submit(self, self.size, lint_file_in_worker, self.name, run.codes, run.options)

    def done(self, run, future: Future, tag: Any) -> None:
        self.result = future.result()


class _Split:
    """A file linted in parts; checked and merged when every part is back."""

    error: Exception | None = None

    def __init__(self, name: str):
        self.name = name
        self.parts: list[Part] = []
        self.results: list[PartResult | None] = []
        self.waiting = 0
        self.rerun = False
        self.result: tuple[list[Finding], RunSummary] | None = None
        self.fell_back = False  # linted again in one process

    def add(self, run, part: Part) -> None:
        """Lint the next part of the file (every part is added before any is done)."""
        self.parts.append(part)
        self.results.append(None)
        self._submit(run, len(self.parts) - 1, part)

    def _submit(self, run, index: int, part: Part) -> None:
        self.waiting += 1
        run.submit(self, part.end - part.start, lint_part, part, run.codes, run.options, tag=index)

    def done(self, run, future: Future, tag: Any) -> None:
        if tag == "whole":
            self.result = future.result()
            return
        self.results[tag] = future.result()
        self.waiting -= 1
        if self.waiting:
            return
        redo: list[int] = []
        if not any(result.trouble for result in self.results):
            self.parts, redo = renumbered(self.parts, self.results)
            if redo and not self.rerun:
                self.rerun = True
                for index in redo:
                    self._submit(run, index, self.parts[index])
                return
            if not redo and not trouble(self.results):
                self.result = self._merged()
                return
        self.fell_back = True
        run.submit(self, self.parts[-1].end, lint_file_in_worker, self.name, run.codes, run.options, tag="whole")

    def _merged(self) -> tuple[list[Finding], RunSummary]:
        summary = RunSummary(files=1)
        summary.formats[self.name] = self.parts[0].fmt
        sessions = SessionList()
        findings: list[Finding] = []
        for result in self.results:
            findings.extend(result.findings)
            summary.records += result.records
            sessions.extend(result.sessions)
            summary.crashes.extend(result.crashes)
        del summary.crashes[MAX_CRASHES:]
        summary.sessions[self.name] = sessions
        return findings, summary


class _Run:
    """One ``lint_paths`` call's pool, its tasks, and a progress line over all of them."""

    def __init__(self, pool: ProcessPoolExecutor, codes: list[str], options: LintOptions, total: int,
                 progress: str | None, began: float | None = None):
        self.pool = pool
        self.codes = codes
        self.options = options
        self.owners: dict[Future, tuple[Any, Any, int]] = {}
        self.total = total
        self.done_bytes = 0  # of finished tasks; the workers also add what they read to ``shared``
        # the progress line over every task's bytes, if one is drawn
        self.progress = progress_bar.Progress(progress, total, start=began) if progress else None
        self.shared = progress_bar.share() if progress else None  # before the first task forks a worker
        self.started = False  # every input's first tasks are submitted

    def submit(self, owner, size: int, fn, *args, tag: Any = None) -> None:
        if self.started:  # a part linted again, or a file linted again whole: more to do
            self.total += size
        self.owners[self.pool.submit(fn, *args)] = (owner, tag, size)

    def wait(self) -> None:
        try:
            self._wait()
        finally:  # also on Ctrl-C: the line goes before anything else is printed
            if self.progress:
                self.progress.close()
                progress_bar.unshare()

    def _wait(self) -> None:
        while self.owners:
            done, _ = wait(list(self.owners), timeout=self.progress.due() if self.progress else None,
                           return_when=FIRST_COMPLETED)
            for future in done:
                owner, tag, size = self.owners.pop(future)
                self.done_bytes += size
                if owner.error is None:
                    try:
                        owner.done(self, future, tag)
                    except Exception as exc:  # raised in file order once every task is back
                        owner.error = exc
            if self.progress:
                self.progress.total = self.total
                self.progress.update(max(self.done_bytes, self.shared.value))


def _warm_up(engine: Engine, path: str, options: LintOptions) -> None:
    """Lint the head of an input in this process and forget the result: rules import and build
    what they need on first use (JSON Schema models, ...), and forked workers inherit it
    instead of each paying for it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(WARM_UP_BYTES)
        head = head[:head.rfind(b"\n") + 1]
        for _ in lint_stream(io.BytesIO(head), path, None, options, RunSummary(), engine, progress=False):
            pass
    except Exception:  # noqa: BLE001 - only a head start; the real run reports any problem
        pass
    engine.take_crashes()


def lint_in_processes(names: Sequence[str], rules: Sequence[Rule] | None, options: LintOptions,
                      jobs: int) -> list[tuple[list[Finding], RunSummary]] | None:
    """Lint expanded input names (no stdin) in ``jobs`` processes, one result per name in order;
    None when one process is the better choice (a single file that is not cut).

    A file's parts are handed to the pool as the plan finds them: the first worker starts on
    the first part while a forked process (:class:`_Planner`), or else this one, plans the rest
    (:func:`iter_parts`)."""
    began = time.monotonic()  # the progress line counts the planning too
    paths = [name[1:] if name.startswith("?") else name for name in names]  # "?": see expand_paths
    plans: list[Iterator[Part]] = [iter_parts(path, options, jobs) for path in paths]
    first_part = next(plans[0], None)
    if len(names) == 1 and first_part is None:
        return None
    planner = _Planner.start(plans, paths, options, jobs, first_part) if first_part is not None else None
    if planner is not None:
        plans = [planner.parts(index) for index in range(len(paths))]
    try:
        return _lint_planned(names, paths, plans, first_part, rules, options, jobs, began)
    finally:
        if planner is not None:
            planner.close()


def _lint_planned(names: Sequence[str], paths: list[str], plans: list[Iterator[Part]], first_part: Part | None,
                  rules: Sequence[Rule] | None, options: LintOptions, jobs: int,
                  began: float) -> list[tuple[list[Finding], RunSummary]]:
    """:func:`lint_in_processes` once the plans are under way: the pool, its tasks, the results."""
    rules = list(rules if rules is not None else all_rules())
    codes = [r.code for r in rules]
    engine = Engine(rules, options.protocol_version)
    _ENGINES.clear()  # the workers forked below inherit this call's rules, as configured
    _ENGINES[_engine_key(codes, options)] = engine
    _warm_up(engine, paths[0], options)
    sizes = [_size(path) for path in paths]
    progress = None
    if sys.stderr.isatty() and sum(sizes) >= progress_bar.MIN_BYTES:
        progress = paths[0] if len(names) == 1 else f"{len(names)} files"
    owners: list[_Whole | _Split] = []
    with _frozen():
        pool = ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_sigint)
        try:
            run = _Run(pool, codes, options, sum(sizes), progress, began)
            for index, (name, path, parts, size) in enumerate(zip(names, paths, plans, sizes)):
                first = first_part if index == 0 else next(parts, None)
                if first is None:
                    owner: _Whole | _Split = _Whole(name, size)
                    owner.start(run)
                else:
                    owner = _Split(path)
                    for part in itertools.chain((first,), parts):
                        owner.add(run, part)
                owners.append(owner)
            run.started = True
            run.wait()
        except BaseException:  # Ctrl-C (or an error): stop now, not after the tasks already queued
            _stop(pool)
            raise
    pool.shutdown()
    for owner in owners:
        if owner.error is not None:
            raise owner.error
    return [owner.result for owner in owners]


@contextlib.contextmanager
def _frozen() -> Iterator[None]:
    """This process's objects frozen (``gc.freeze``) while the block runs: the workers fork from it
    as they start, and no garbage collection of theirs walks (and so writes, one page copied at a
    time) what they inherited. Not where the program froze objects of its own: thawing ours would
    thaw those too."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class _Planner:
    """Plans files in a forked process, on a core that is otherwise idle while the parent builds
    its engine and warms up (:func:`_warm_up`): the scan for session starts, about 0.15 s of CPU
    on 141 MB, no longer competes with the workers. The child sends ``(file index, part)`` for each
    part in order and ``(file index, None)`` at each file's end; where it stops early (killed, or a
    failure), the parent plans the rest of the file itself."""

    def __init__(self, pid: int, stream: IO[bytes], paths: list[str], options: LintOptions, jobs: int,
                 first_part: Part):
        self.pid = pid
        self.stream: IO[bytes] | None = stream
        self.paths, self.options, self.jobs = paths, options, jobs
        self.first_part = first_part

    @classmethod
    def start(cls, plans: list[Iterator[Part]], paths: list[str], options: LintOptions, jobs: int,
              first_part: Part) -> _Planner | None:
        """The planner of the rest of ``plans`` (the first file's first part taken); None where
        processes do not start by forking this one (the pool's workers would not either), or where
        other threads run (a lock one of them holds could stay locked in the child for good)."""
        if not hasattr(os, "fork") or multiprocessing.get_start_method() != "fork" or threading.active_count() > 1:
            return None
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return None
        if pid == 0:  # the child: plan, send, and leave without running the parent's exit hooks
            os.close(read)
            code = 0
            try:
                with os.fdopen(write, "wb") as out:
                    for index, parts in enumerate(plans):
                        for part in itertools.chain(parts, (None,)):
                            pickle.dump((index, part), out)
                            out.flush()
            except BaseException:  # noqa: BLE001 - the parent plans what is missing
                code = 1
            os._exit(code)
        os.close(write)
        for parts in plans:
            parts.close()  # (the child goes on with them)
        return cls(pid, os.fdopen(read, "rb"), paths, options, jobs, first_part)

    def parts(self, index: int) -> Iterator[Part]:
        """The parts of file ``index`` after those taken (files are asked for in order)."""
        end = self.first_part.end if index == 0 else None  # where the parts given so far end
        while self.stream is not None:
            try:
                got, part = pickle.load(self.stream)
            except Exception:  # noqa: BLE001 - the child stopped early (EOFError, a cut record)
                self.close()
                break
            if got != index:
                self.close()
                break
            if part is None:
                return
            yield part
            end = part.end
        for part in iter_parts(self.paths[index], self.options, self.jobs):
            if end is None or part.start >= end:
                yield part

    def close(self) -> None:
        """Stop the child if it is still planning, and reap it."""
        if self.stream is None:
            return
        self.stream.close()
        self.stream = None
        try:
            if os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                os.kill(self.pid, signal.SIGTERM)
                os.waitpid(self.pid, 0)
        except OSError:  # already reaped
            pass


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (no traceback from each worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what is queued and end the workers without waiting for their tasks; then let the
    pool's manager thread finish, which closes its wake-up pipe: left running, it may close the
    pipe while the interpreter's exit hook (``concurrent.futures.process._python_exit``) writes
    to it, and an OSError traceback follows "mcplint: interrupted"."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # (shutdown forgets it)
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(5)
    if manager is not None:
        manager.join(5)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0

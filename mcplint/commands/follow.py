"""``--follow``: lint (``check``) or show (``show``) a capture or host log as it grows, like ``tail -F``.

:class:`Tail` yields the lines of the file as they are written, polling every :data:`POLL`
seconds (no new dependency). It reads the file in *generations*: a generation ends when the file
is truncated (it shrank: read again from the start) or replaced (its inode changed: rotation;
reopened, waiting for it to reappear), and on Ctrl-C. Each generation goes through the streaming
path that ``capture --lint`` uses (reader → :class:`~mcplint.input.parse.Parser` →
:meth:`~mcplint.analysis.engine.Engine.lint_records`), so the end-of-session rules run when a session
ends (a new ``initialize``), when the generation ends, and on exit. The format is sniffed from
the first lines once they exist. Capture-derived text reaches output through
:mod:`mcplint.untrusted` (and the check reporters).
"""

from __future__ import annotations

import io
import itertools
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from typing import IO

from mcplint.commands.common import EXIT_ERROR, EXIT_FINDINGS, fail, say
from mcplint.excerpt import mask_text
from mcplint.input.lines import CUT_HEAD_BYTES, MAX_LINE_BYTES, Cut
from mcplint.input.readers import READERS, SNIFF_LINES, _sniff_jsonl, scored
from mcplint.untrusted import shown

#: Seconds between looks at a file that has not grown.
POLL = 0.2
#: Seconds to wait for more lines when the first ones are in no particular format (a banner).
SNIFF_WAIT = 2.0
#: Formats that are one JSON document (read only when complete): not followable.
WHOLE_DOCUMENT_FORMATS = frozenset({"har", "inspector"})
_BLOCK = 1 << 16


class Stop:
    """Set by the first SIGINT or SIGTERM: the tail ends its generation and the command its
    summary. A second SIGINT interrupts at once (``mcplint: interrupted``, exit 130)."""

    def __init__(self) -> None:
        self.requested = False

    def __enter__(self) -> Stop:
        self._old = {sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self._old.items():
            signal.signal(sig, handler)

    def _handle(self, number: int, _frame) -> None:
        if self.requested and number == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True


class Tail:
    """The lines of a growing file, one generation at a time (see the module docstring).

    :meth:`generation` yields ``(line, cut)`` like :class:`~mcplint.input.lines.Lines` and ``None``
    whenever it has read all there is and is about to wait (so a caller can flush what it has).
    """

    def __init__(self, path: str, stop: Stop, note: Callable[[str], None] = say, poll: float = POLL,
                 max_bytes: int = MAX_LINE_BYTES):
        self.path, self.stop, self.note, self.poll, self.max_bytes = path, stop, note, poll, max_bytes
        self.generations = 0

    def _open(self) -> IO[bytes] | None:
        """The file, waiting while it is missing (between a rotation's rename and create); None on stop."""
        waited = False
        while not self.stop.requested:
            try:
                return open(self.path, "rb")
            except FileNotFoundError:
                if not waited:
                    self.note(f"mcplint: {shown(self.path)} is gone; waiting for it to come back")
                    waited = True
                time.sleep(self.poll)
        return None

    def generation(self) -> Iterator[tuple[bytes, Cut | bool] | None]:
        handle = self._open()
        if handle is None:
            return
        self.generations += 1
        with handle:
            identity = _identity(os.fstat(handle.fileno()))
            position = 0
            line = _Line(self.max_bytes)  # the unfinished last line
            while True:
                block = handle.read(_BLOCK)
                if block:
                    position += len(block)
                    pieces = block.split(b"\n")
                    for piece in pieces[:-1]:
                        line.add(piece)
                        yield line.take()
                    if pieces[-1]:
                        line.add(pieces[-1])
                    continue
                if self.stop.requested:
                    break
                if os.fstat(handle.fileno()).st_size < position:
                    self.note(f"mcplint: {shown(self.path)} was truncated; reading it again from the start "
                              "(line numbers restart)")
                    return
                try:
                    replaced = _identity(os.stat(self.path)) != identity
                except FileNotFoundError:
                    replaced = True
                if replaced:
                    self.note(f"mcplint: {shown(self.path)} was replaced (rotated); reading the new file "
                              "(line numbers restart)")
                    return
                yield None
                time.sleep(self.poll)
            if line.size:  # stopped in the middle of a line: what there is of it
                yield line.take()


class _Line:
    """A line read in pieces: its first ``max_bytes + 1`` bytes are kept, the rest only counted
    (a longer line is cut as :class:`~mcplint.input.lines.Lines` cuts it)."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.parts: list[bytes] = []
        self.kept = self.size = 0

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        room = self.max_bytes + 1 - self.kept
        if room > 0:
            self.parts.append(piece[:room])
            self.kept += min(room, len(piece))

    def take(self) -> tuple[bytes, Cut | bool]:
        data, size = b"".join(self.parts), self.size
        self.parts, self.kept, self.size = [], 0, 0
        if size > self.max_bytes:
            return data[:CUT_HEAD_BYTES], Cut(size, self.max_bytes)
        return data, False


def _identity(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def followed_path(paths: list[str]) -> str:
    """The one file ``--follow`` can follow (exit 2 otherwise)."""
    if len(paths) != 1:
        fail("--follow follows exactly one file")
    path = paths[0]
    if path == "-":
        fail("--follow needs a file: stdin cannot be followed (pipe it through `mcplint check -` instead)")
    if os.path.isdir(path):
        fail(f"--follow follows one file, not a directory: {path}")
    if not os.path.exists(path):
        fail(f"{path}: no such file")
    return path


def records(tail: Tail, input_format: str, on_idle: Callable[[], None]):
    """The parsed records of one generation of ``tail``, the format sniffed from its first lines
    once they exist (or ``input_format``). ``on_idle`` runs whenever the tail waits, and before
    each new line is taken (what came before it has been handled by then)."""
    from mcplint.input.parse import Parser

    raw = tail.generation()
    head: list[tuple[bytes, Cut | bool]] = []
    if input_format == "auto":
        first: float | None = None  # when the first content came
        for item in raw:
            if item is not None:
                head.append(item)
                if len(head) >= SNIFF_LINES:
                    break
                continue
            if first is None and any(data.strip() for data, _ in head):
                first = time.monotonic()
            if first is not None and _sniffed(head, time.monotonic() - first):
                break  # all there is for now, and enough to tell
        input_format = scored([data for data, _ in head])[0]
    if input_format in WHOLE_DOCUMENT_FORMATS:
        fail(f"{tail.path}: --follow reads line-based captures and logs; a {input_format} file is one JSON document")

    def lines():
        for item in itertools.chain(head, raw):
            on_idle()
            if item is not None:
                yield item

    return input_format, Parser(tail.path).records(READERS[input_format](lines()))


def _sniffed(head: list[tuple[bytes, Cut | bool]], waited: float) -> bool:
    """Whether the first lines tell the format: a format claims them, or they are plain JSON
    lines; else (banners, comments) more lines are awaited for :data:`SNIFF_WAIT` seconds."""
    if waited >= SNIFF_WAIT or scored([data for data, _ in head])[1] > _sniff_jsonl([]):
        return True
    content = [data.strip() for data, _ in head if data.strip() and not data.strip().startswith(b"#")]
    return bool(content) and content[0][:1] in (b"{", b"[")


def lint_generations(path: str, engine, stop: Stop, input_format: str, protocol_version: str | None,
                     max_line_bytes: int, on_idle: Callable[[], None], sessions: list, poll: float = POLL):
    """Findings of every generation of ``path`` until stopped; the sessions seen go to ``sessions``."""
    from mcplint.analysis.analyzer import Analyzer

    tail = Tail(path, stop, poll=poll, max_bytes=max_line_bytes)
    while not stop.requested:
        _, found = records(tail, input_format, on_idle)
        analyzer = Analyzer(path, protocol_version, engine.limits)
        yield from engine.lint_records(found, path, analyzer)
        sessions.extend(s for s in analyzer.all_sessions() if s.messages)


def follow_check(paths: list[str], settings, input_format: str, color: str, quiet: bool, exit_zero: bool) -> None:
    """``mcplint check --follow``: findings in the ``concise`` or ``full`` format as they are
    found; on Ctrl-C the summary line and check's exit status."""
    from mcplint.analysis.engine import Engine
    from mcplint.api import exceeds
    from mcplint.config.settings import apply as apply_settings
    from mcplint.model import Severity
    from mcplint.report import REPORTERS
    from mcplint.report.summary import RunSummary, SessionInfo
    from mcplint.report.terminal import color_wanted, styler
    from mcplint.report.text import summary_line

    path = followed_path(paths)
    fmt = settings.output_format
    if fmt not in ("full", "concise"):
        fail(f"--follow prints the concise or full format, not {fmt}")
    out = sys.stdout
    use_color = color_wanted(color, out)
    engine = Engine(settings.rules, settings.protocol_version)
    summary = RunSummary(files=1, fail_on=settings.fail_on)
    reported, visible, seen = [], [], []
    last_group: list = [None]

    def emit(finding) -> None:
        if fmt == "concise":
            REPORTERS["concise"]([finding], summary, out, color=use_color, quiet=True)
        else:  # the full format's block; its session header only when the session changes
            buffer = io.StringIO()
            REPORTERS["full"]([finding], summary, buffer, color=use_color, quiet=True)
            text = buffer.getvalue()
            group = (finding.path, finding.session)
            if group == last_group[0]:
                text = text.split("\n", 1)[1]
            last_group[0] = group
            out.write(text)
        out.flush()

    if not quiet:
        say(f"mcplint: following {shown(path)} (Ctrl-C ends with the summary)")
    with Stop() as stop:
        for finding in lint_generations(path, engine, stop, input_format, settings.protocol_version,
                                         settings.max_line_bytes, lambda: None, seen):
            kept = apply_settings([finding], settings, min_severity=Severity.INFO)
            if not kept:
                continue
            reported.append(kept[0])
            if kept[0].severity.rank >= settings.min_severity.rank:
                visible.append(kept[0])
                emit(kept[0])
            else:
                summary.hidden[kept[0].severity] = summary.hidden.get(kept[0].severity, 0) + 1
    summary.records = engine.taken
    summary.sessions[path] = [SessionInfo(s.label, s.version, s.era) for s in seen]
    if not quiet:
        out.write(styler(use_color)(summary_line(visible, summary), bold=True) + "\n")
        out.flush()
    crashes = engine.take_crashes()
    for crash in crashes[:5]:
        say(f"mcplint: internal error: {shown(mask_text(crash))}")
    if crashes:
        sys.exit(EXIT_ERROR)
    if not exit_zero and exceeds(reported, settings.fail_on):
        sys.exit(EXIT_FINDINGS)


def follow_show(paths: list[str], settings, input_format: str, color: str, keep) -> None:
    """``mcplint show --follow``: traffic rows (and the findings on them) as they are written;
    ``keep`` is the command's :class:`~mcplint.commands.show.timeline.RowFilter`."""
    from mcplint.analysis.engine import Engine
    from mcplint.commands.show.timeline import TimelineCollector
    from mcplint.report.terminal import color_wanted

    path = followed_path(paths)
    out = sys.stdout
    printer = RowPrinter(out, color_wanted(color, out), keep)
    collector = TimelineCollector()
    engine = Engine(None, settings.protocol_version, observers=[collector])
    say(f"mcplint: following {shown(path)} (Ctrl-C ends)")

    def flush() -> None:
        printer.rows(collector.rows)
        collector.rows.clear()
        out.flush()

    with Stop() as stop:
        for finding in lint_generations(path, engine, stop, input_format, settings.protocol_version,
                                         settings.max_line_bytes, flush, []):
            printer.finding(finding, collector.rows)
        flush()
    say(f"mcplint: {printer.count} row(s), {printer.findings} finding(s)")


class RowPrinter:
    """One fixed-width line per row (a table's columns cannot be sized before the rows are known),
    the findings of a row under it; what comes from the capture through :func:`shown`."""

    def __init__(self, out, color: bool, keep) -> None:
        from mcplint.report.terminal import SEVERITY_COLORS, styler

        self.out, self.keep, self.style, self.colors = out, keep, styler(color), SEVERITY_COLORS
        self.start: float | None = None
        self.session: str | None = None  # of the row printed last
        self.count = self.findings = 0
        self._waiting: dict[tuple[str, int], list] = {}  # findings of rows not printed yet

    def finding(self, finding, unprinted) -> None:
        """A finding: printed under its row when that row is still to come, else on its own."""
        self.findings += 1
        if any(row.path == finding.path and row.line == finding.line for row in unprinted):
            self._waiting.setdefault((finding.path, finding.line), []).append(finding)
        else:
            self.out.write(self._finding_line(finding) + "\n")

    def rows(self, rows) -> None:
        from mcplint.commands.show.mermaid import _clock
        from mcplint.commands.show.timeline import fmt_latency

        for row in rows:
            findings = self._waiting.pop((row.path, row.line), [])
            if self.start is None and row.t is not None:
                self.start = row.t
            if not self.keep.keep(row, self.start):
                continue
            self.count += 1
            if row.session != self.session and row.session:  # one file: a session says where we are
                self.out.write(self.style(f"── session {shown(row.session)}", bold=True) + "\n")
            self.session = row.session
            arrow = getattr(row, "arrow", None)
            if arrow is None:  # before Row.arrow existed
                arrow = {"c2s": "C→S", "s2c": "S→C"}.get(row.direction, "") + ("?" if getattr(row, "inferred", False) else "")
            label = getattr(row, "label", "") or row.method or row.kind
            outcome = getattr(row, "detail", "") or row.status
            codes = ",".join(self.style(f.code, fg=self.colors[f.severity.value], bold=True) for f in findings)
            self.out.write(f"{row.line:>6}  {_clock(row.t):<12}  {arrow:<4}  {shown(row.id_text)[:10]:>6}  "
                           f"{shown(label)[:48]:<48}  {shown(outcome)[:40]:<12}  {fmt_latency(row.latency):>8}  "
                           f"{codes}".rstrip() + "\n")
            for finding in findings:
                self.out.write(self._finding_line(finding) + "\n")

    def _finding_line(self, finding) -> str:
        severity = self.style(f"{finding.severity.value} {finding.code}", fg=self.colors[finding.severity.value],
                              bold=True)
        return f"{'':>6}  └ {severity} line {finding.line}: {shown(finding.message)}"

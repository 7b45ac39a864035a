"""Lint one input in this process: a binary stream, or a file (``-`` is stdin), into findings
and what the run saw (:class:`~mcplint.report.summary.RunSummary`)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from mcplint.analysis.analyzer import Analyzer
from mcplint.analysis.engine import Engine
from mcplint.input.lines import MAX_LINE_BYTES
from mcplint.input.parse import Parser
from mcplint.input.readers import UnknownFormat, open_frames
from mcplint.model import Finding
from mcplint.report import progress_bar
from mcplint.report.summary import RunSummary, SessionList
from mcplint.rules._base import Rule


class InputError(Exception):
    """An input that cannot be read at all (missing file, directory without captures)."""


class UnknownInput(InputError):
    """An input in no known format."""


@dataclass
class LintOptions:
    input_format: str = "auto"
    protocol_version: str | None = None
    stdin_filename: str = "-"
    rule_options: dict = field(default_factory=dict)  # code -> validated per-rule options
    max_line_bytes: int = MAX_LINE_BYTES  # longer lines are not parsed (IO013)


def lint_stream(stream, path: str, rules: Sequence[Rule] | None, options: LintOptions,
                summary: RunSummary, engine: Engine | None = None, progress: bool = True) -> Iterator[Finding]:
    """Lint one binary stream, adding what it saw to ``summary`` (with a progress line on a
    terminal unless ``progress`` is False)."""
    engine = engine or Engine(rules, options.protocol_version)
    try:
        fmt, frames = open_frames(stream, options.input_format, strict=True, max_line_bytes=options.max_line_bytes)
    except UnknownFormat as exc:
        raise UnknownInput(f"{path}: {exc}") from exc
    summary.files += 1
    summary.formats[path] = fmt
    analyzer = Analyzer(path, options.protocol_version, engine.limits)
    records = Parser(path).records(frames)
    if progress:
        records = progress_bar.follow(records, stream, path)
    taken = engine.taken
    with contextlib.closing(records):  # erases the line now, also on Ctrl-C (not when collected)
        yield from engine.lint_records(records, path, analyzer)
    summary.records += engine.taken - taken
    summary.crashes.extend(engine.take_crashes())
    summary.sessions[path] = SessionList(s for s in analyzer.release_sessions() if s.messages)


def lint_file(name: str, rules: Sequence[Rule] | None, options: LintOptions,
               engine: Engine | None = None, progress: bool = True) -> tuple[list[Finding], RunSummary]:
    summary = RunSummary()
    if name == "-":
        return list(lint_stream(sys.stdin.buffer, options.stdin_filename, rules, options, summary, engine)), summary
    optional = name.startswith("?")  # found under a directory with a generic suffix
    name = name[1:] if optional else name
    try:
        handle = open(name, "rb")
    except OSError as exc:
        raise InputError(f"{name}: {exc.strerror}") from exc
    with handle:
        try:
            return list(lint_stream(handle, name, rules, options, summary, engine, progress)), summary
        except UnknownInput:
            if not optional:
                raise
            summary.skipped.append((name, "in no known capture format"))
            return [], summary

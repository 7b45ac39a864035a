"""Library API: lint files, streams or records and get findings plus a run summary."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from mcplint import progress_bar
from mcplint.analyzer import Analyzer
from mcplint.discovery import Discovery, Finder
from mcplint.engine import Engine
from mcplint.model import Finding, Severity
from mcplint.parse import Parser
from mcplint.readers import MAX_LINE_BYTES, UnknownFormat, open_frames
from mcplint.report.summary import RunSummary, SessionInfo
from mcplint.rules._base import Rule

class InputError(Exception):
    """An input that cannot be read at all (missing file, directory without captures)."""


class UnknownInput(InputError):
    """An input in no known format."""


def discover(paths: Sequence[str], finder: Finder | None = None) -> Discovery:
    """What a run lints for ``paths`` (none: stdin), see :mod:`mcplint.discovery`.

    Raises :class:`InputError` for a path that does not exist, or a directory without captures.
    """
    finder = finder or Finder()
    for name in paths:
        if name != "-" and not os.path.exists(name):
            raise InputError(f"{name}: no such file or directory")
    found = finder.discover(list(paths) or ["-"])
    for name in paths:
        if os.path.isdir(name) and not any(_under(f, name) for f in found.files):
            raise InputError(f"{name}: no MCP captures in directory "
                             f"({len(found.not_captures)} candidate files were not captures)")
    return found


def _under(file: str, folder: str) -> bool:
    return os.path.abspath(file).startswith(os.path.join(os.path.abspath(folder), ""))


def expand_paths(paths: Sequence[str], finder: Finder | None = None) -> list[str]:
    """Files named directly, captures found under directories, ``-`` for stdin.

    Files found under a directory are prefixed with ``?`` (see :func:`_lint_file`): discovery
    sniffed them as captures, and one that a full read still finds in no known format is skipped
    with a note instead of failing the run.
    """
    return _names(discover(paths, finder))


def _names(found: Discovery) -> list[str]:
    named = {d.path for d in found.decisions if d.named}
    return [name if name in named else "?" + name for name in found.files]


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
    summary.sessions[path] = [
        SessionInfo(s.label, s.version, s.era) for s in analyzer.all_sessions() if s.messages
    ]


def _lint_file(name: str, rules: Sequence[Rule] | None, options: LintOptions,
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


#: ``check`` without ``--jobs`` starts a process pool from this much input on (below it, the
#: pool's start-up costs more than it saves).
AUTO_JOBS_BYTES = 8 << 20


def auto_jobs(files: Sequence[str]) -> int:
    """Processes for ``files`` when the caller did not say: one per CPU from
    :data:`AUTO_JOBS_BYTES` of input on, else one (stdin counts as nothing)."""
    total = 0
    for name in files:
        try:
            total += os.path.getsize(name) if name != "-" else 0
        except OSError:
            pass
    return (os.cpu_count() or 1) if total >= AUTO_JOBS_BYTES else 1


def lint_paths(paths: Sequence[str], rules: Sequence[Rule] | None = None,
               options: LintOptions | None = None, jobs: int | None = 1,
               observers: Sequence = (), finder: Finder | None = None) -> tuple[list[Finding], RunSummary]:
    """Lint files (``-`` is stdin); findings come back sorted by path, line and code.

    With ``jobs > 1`` files, and the sessions of large files, are linted in that many processes
    (see :mod:`mcplint.parallel`); the result is the same as with one process, in the same order.
    ``jobs=None`` decides by the size of the files found (:func:`auto_jobs`).
    Stdin and ``observers`` (trackers that watch every record, as ``mcplint stats`` uses) need a
    single process.
    """
    options = options or LintOptions()
    found = discover(paths, finder)
    names = _names(found)
    if jobs is None:
        jobs = auto_jobs(found.files)
    parts: list[tuple[list[Finding], RunSummary]] | None = None
    if jobs > 1 and "-" not in names and not observers:
        from concurrent.futures.process import BrokenProcessPool

        from mcplint.parallel import lint_in_processes

        try:
            parts = lint_in_processes(names, rules, options, jobs)
        except (OSError, NotImplementedError, BrokenProcessPool):
            parts = None  # no process pool here (no /dev/shm, a worker killed): one process, same result
    if parts is None:
        engine = Engine(rules, options.protocol_version, observers)
        parts = [_lint_file(name, rules, options, engine) for name in names]
    findings: list[Finding] = []
    summary = RunSummary(skipped=[(d.path, d.reason) for d in found.not_captures])
    for part_findings, part in parts:
        findings.extend(part_findings)
        summary.merge(part)
    findings.sort(key=Finding.sort_key)
    return findings, summary


def exceeds(findings: Iterable[Finding], fail_on: Severity) -> bool:
    return any(f.severity.rank >= fail_on.rank for f in findings)


def lint_lines(lines: Iterable[bytes | str], path: str = "-", *, input_format: str = "auto",
               rules: Sequence[Rule] | None = None, protocol_version: str | None = None,
               first_line: int = 1) -> list[Finding]:
    """Lint captured lines held in memory (e.g. one partition of a distributed job).

    ``first_line`` is the input line number of the first item, so that findings of a chunk cut
    from a larger file point at the right lines.
    """
    import io

    data = b"".join((line.encode("utf-8") if isinstance(line, str) else line).rstrip(b"\n") + b"\n"
                    for line in lines)
    findings = list(lint_stream(io.BytesIO(data), path, rules, LintOptions(input_format, protocol_version),
                                RunSummary()))
    if first_line != 1:
        shift = first_line - 1
        for finding in findings:
            finding.line += shift
            for index, related in enumerate(finding.related):
                finding.related[index] = type(related)(related.line + shift, related.note)
    return findings


_INITIALIZE = b'"method":"initialize"'


def split_sessions(lines: Iterable[bytes]) -> Iterator[tuple[int, list[bytes]]]:
    """Cut a handshake-era capture into sessions: ``(first_line, lines)`` per session.

    A session starts at each client ``initialize`` request (the rule mcplint itself uses), so
    the pieces can be linted independently, e.g. as partitions of a Dask bag or Spark RDD.
    """
    import orjson

    chunk: list[bytes] = []
    start = 1
    for number, line in enumerate(lines, 1):
        if _INITIALIZE in line.replace(b" ", b"") and chunk:
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                value = None
            if isinstance(value, dict) and isinstance(value.get("raw"), str):  # canonical capture line
                value = orjson.loads(value["raw"]) if value.get("dir") == "c2s" else None
            if isinstance(value, dict) and value.get("method") == "initialize" and "id" in value:
                yield start, chunk
                chunk, start = [], number
        chunk.append(line)
    if chunk:
        yield start, chunk

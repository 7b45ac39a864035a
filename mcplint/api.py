"""Library API: lint files, streams or records and get findings plus a run summary."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence

from mcplint.analysis.engine import Engine
from mcplint.analysis.lint import InputError, LintOptions, UnknownInput, lint_file, lint_stream
from mcplint.input.discovery import Discovery, Finder
from mcplint.model import Finding, Severity
from mcplint.report.summary import RunSummary
from mcplint.rules._base import Rule

__all__ = [
    "InputError", "LintOptions", "UnknownInput", "auto_jobs", "discover", "exceeds", "expand_paths",
    "lint_lines", "lint_paths", "lint_stream", "split_sessions",
]


def discover(paths: Sequence[str], finder: Finder | None = None) -> Discovery:
    """What a run lints for ``paths`` (none: stdin), see :mod:`mcplint.input.discovery`.

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

    Files found under a directory are prefixed with ``?`` (see :func:`~mcplint.analysis.lint.lint_file`): discovery
    sniffed them as captures, and one that a full read still finds in no known format is skipped
    with a note instead of failing the run.
    """
    return _names(discover(paths, finder))


def _names(found: Discovery) -> list[str]:
    named = {d.path for d in found.decisions if d.named}
    return [name if name in named else "?" + name for name in found.files]


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
    (see :mod:`mcplint.analysis.parallel`); the result is the same as with one process, in the same order.
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

        from mcplint.analysis.parallel import lint_in_processes

        try:
            parts = lint_in_processes(names, rules, options, jobs)
        except (OSError, NotImplementedError, BrokenProcessPool):
            parts = None  # no process pool here (no /dev/shm, a worker killed): one process, same result
    if parts is None:
        engine = Engine(rules, options.protocol_version, observers)
        parts = [lint_file(name, rules, options, engine) for name in names]
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

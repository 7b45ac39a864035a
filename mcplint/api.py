"""Library API: lint files, streams or records and get findings plus a run summary."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcplint.analyzer import Analyzer
from mcplint.engine import Engine
from mcplint.model import Finding, Record, Severity
from mcplint.parse import Parser
from mcplint.readers import open_frames
from mcplint.report.summary import RunSummary, SessionInfo
from mcplint.rules._base import Rule

INPUT_SUFFIXES = (".jsonl", ".ndjson", ".mcplog", ".transcript")


class InputError(Exception):
    """An input that cannot be read at all (missing file, directory without captures)."""


def expand_paths(paths: Sequence[str]) -> list[str]:
    """Files named directly, captures found under directories, ``-`` for stdin."""
    out: list[str] = []
    for name in paths or ["-"]:
        if name == "-":
            out.append(name)
            continue
        path = Path(name)
        if path.is_dir():
            found = sorted(str(p) for p in path.rglob("*") if p.is_file() and p.suffix in INPUT_SUFFIXES)
            if not found:
                raise InputError(f"{name}: no capture files ({', '.join(INPUT_SUFFIXES)}) in directory")
            out.extend(found)
        elif path.is_file():
            out.append(name)
        else:
            raise InputError(f"{name}: no such file or directory")
    return out


@dataclass
class LintOptions:
    input_format: str = "auto"
    protocol_version: str | None = None
    stdin_filename: str = "-"


def _counted(records: Iterable[Record], summary: RunSummary) -> Iterator[Record]:
    for record in records:
        summary.records += 1
        yield record


def lint_stream(stream, path: str, rules: Sequence[Rule] | None, options: LintOptions,
                summary: RunSummary, engine: Engine | None = None) -> Iterator[Finding]:
    engine = engine or Engine(rules, options.protocol_version)
    fmt, frames = open_frames(stream, options.input_format)
    summary.files += 1
    summary.formats[path] = fmt
    analyzer = Analyzer(path, options.protocol_version)
    yield from engine.lint_records(_counted(Parser(path).records(frames), summary), path, analyzer)
    summary.sessions[path] = [
        SessionInfo(s.label, s.version, s.era) for s in analyzer.all_sessions() if s.messages
    ]


def lint_paths(paths: Sequence[str], rules: Sequence[Rule] | None = None,
               options: LintOptions | None = None) -> tuple[list[Finding], RunSummary]:
    """Lint files (``-`` is stdin); findings come back sorted by path, line and code."""
    options = options or LintOptions()
    summary = RunSummary()
    engine = Engine(rules, options.protocol_version)
    findings: list[Finding] = []
    for name in expand_paths(paths):
        if name == "-":
            findings.extend(lint_stream(sys.stdin.buffer, options.stdin_filename, rules, options, summary, engine))
            continue
        try:
            handle = open(name, "rb")
        except OSError as exc:
            raise InputError(f"{name}: {exc.strerror}") from exc
        with handle:
            findings.extend(lint_stream(handle, name, rules, options, summary, engine))
    findings.sort(key=Finding.sort_key)
    return findings, summary


def exceeds(findings: Iterable[Finding], fail_on: Severity) -> bool:
    return any(f.severity.rank >= fail_on.rank for f in findings)

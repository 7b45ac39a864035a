"""Helpers for the input-format tests (tests/test_formats_*.py)."""

from __future__ import annotations

import io
from pathlib import Path

from mcplint.analysis.engine import Engine
from mcplint.api import LintOptions, lint_stream
from mcplint.input.lines import iter_lines
from mcplint.input.parse import Parser
from mcplint.input.readers import SNIFF_LINES, open_frames, sniff
from mcplint.model import Kind
from mcplint.report.summary import RunSummary

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
ENGINE = Engine()


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def frames_of(data: bytes, fmt: str = "auto"):
    return open_frames(io.BytesIO(data), fmt)


def records_of(data: bytes, fmt: str = "auto"):
    _, frames = frames_of(data, fmt)
    return [r for r in Parser("<t>").records(frames)]


def messages_of(data: bytes, fmt: str = "auto"):
    """Top-level message records (requests, notifications, responses), in analysis order."""
    return [r for r in records_of(data, fmt) if r.kind in (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT, Kind.ERROR)]


def line_count(data: bytes) -> int:
    return len(data.split(b"\n")) - (1 if data.endswith(b"\n") else 0) if data else 0


def sniffed(data: bytes) -> str:
    head = [line for line, _ in iter_lines(io.BytesIO(data))][:SNIFF_LINES]
    return sniff(head)


def lint(data: bytes, fmt: str = "auto"):
    """Findings of ``data`` (all rules), as ``check`` reports them (unknown formats raise)."""
    return list(lint_stream(io.BytesIO(data), "<t>", None, LintOptions(fmt), RunSummary()))


def lint_engine(data: bytes, fmt: str):
    return list(ENGINE.lint_stream(io.BytesIO(data), "<t>", fmt))


def assert_one_record_per_line(data: bytes, fmt: str) -> list:
    records = records_of(data, fmt)
    assert len(records) == line_count(data), (len(records), line_count(data))
    assert sorted(r.line for r in records) == list(range(1, line_count(data) + 1))
    return records

"""The library API: lint lines in memory, cut captures into sessions, run under Dask."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from mcplint.api import lint_lines, lint_paths, split_sessions

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def key(f):
    return (f["path"] if isinstance(f, dict) else f.path, f["line"] if isinstance(f, dict) else f.line,
            f["code"] if isinstance(f, dict) else f.code)


def test_lint_lines_matches_lint_paths():
    path = SAMPLES / "reused-ids.jsonl"
    expected = {key(f) for f in lint_paths([str(path)])[0]}
    got = {key(f) for f in lint_lines(path.read_bytes().splitlines(), str(path))}
    assert got == expected


def test_sessions_linted_apart_give_the_same_findings():
    path = SAMPLES / "reused-ids.jsonl"
    text = path.read_bytes()
    doubled = text + text  # two sessions in one capture
    lines = doubled.splitlines()
    whole = {(f.line, f.code) for f in lint_lines(lines, "x")}
    pieces = list(split_sessions(lines))
    assert [first for first, _ in pieces] == [1, len(text.splitlines()) + 1]
    apart = {(f.line, f.code) for first, chunk in pieces for f in lint_lines(chunk, "x", first_line=first)}
    assert apart == whole


@pytest.mark.skipif(importlib.util.find_spec("dask") is None, reason="dask not installed")
def test_dask_example_on_the_local_scheduler():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import dask_lint
    finally:
        sys.path.pop(0)
    import dask

    with dask.config.set(scheduler="threads"):  # local mode; workers share this interpreter
        got = {key(f) for f in dask_lint.lint_directory(str(SAMPLES))}
    paths = sorted(str(p) for p in SAMPLES.rglob("*") if p.suffix in (".jsonl", ".mcplog"))
    expected = {key(f) for f in lint_paths(paths)[0]}
    assert got == expected


def test_dask_example_fails_loudly_on_a_missing_path(tmp_path):
    import subprocess

    run = subprocess.run([sys.executable, str(ROOT / "examples" / "dask_lint.py"), str(tmp_path / "nope")],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "no such file or directory" in run.stderr and not run.stdout

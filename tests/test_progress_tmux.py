"""The progress line in a real terminal: ``mcplint check`` of a ~120 MB capture under a 100+
character folder, in detached tmux panes (80 columns; 50 for Ctrl-C), ``--jobs 1`` and ``2``.

Only the progress line draws on the pane (stdout goes to a file). The pane is captured every
0.1 s: the line must show a percentage, a rate and an ETA about a second after the start, never
take more than one row or reach the last column, and leave nothing behind when the run ends or
is interrupted (the terminal's own ``^C`` echo included).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

ROOT = Path(__file__).resolve().parent.parent
SHELL = shutil.which("bash") or "sh"
LINE = re.compile(r"\d+%\s+[\d.]+/[\d.]+ MB\s+[\d.]+ MB/s\s+ETA \d+:\d\d")  # percentage, rate, ETA
FIRST_LINE_BY = 2.5  # seconds from the start: Python's start-up, one second of work, a poll


@pytest.fixture(scope="module")
def first_line_by() -> float:
    """FIRST_LINE_BY, or more on a machine so busy that ``mcplint --version`` takes long."""
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "mcplint", "--version"], capture_output=True, check=True, cwd=ROOT)
    return max(FIRST_LINE_BY, time.monotonic() - start + 2.0)


@pytest.fixture(scope="module")
def capture(tmp_path_factory) -> Path:
    """A ~120 MB generated capture (bench/bench_check.py) under a folder with a 124-character name:
    large enough that ``--jobs 2`` runs for a few seconds (at ~50 MB/s), well past the first draw."""
    spec = importlib.util.spec_from_file_location("bench_check", ROOT / "bench" / "bench_check.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    folder = tmp_path_factory.mktemp("progress") / ("a-folder-with-a-rather-long-name-" * 4)[:124]
    folder.mkdir()
    path = folder / "session-capture.mcplog"
    bench.generate(path, 120, "capture", 2.0)
    return path


class Pane:
    """One command in a detached tmux session on a private server."""

    def __init__(self, socket: Path, width: int, command: str):
        self.tmux = ["tmux", "-u", "-f", os.devnull, "-S", str(socket)]
        self.width = width
        script = f"{command}; echo __END__ $?; sleep 60"
        env = {**os.environ, "LC_ALL": "C.UTF-8"}
        env.pop("TMUX", None)
        subprocess.run([*self.tmux, "new-session", "-d", "-x", str(width), "-y", "24", "-c", str(ROOT),
                        shlex.join([SHELL, "-c", script])], check=True, env=env)
        self.start = time.monotonic()
        self.frames: list[tuple[float, list[str]]] = []  # (seconds since start, non-empty rows)

    def rows(self) -> list[str]:
        out = subprocess.run([*self.tmux, "capture-pane", "-p"], capture_output=True, text=True, check=True)
        rows = [row.rstrip() for row in out.stdout.splitlines()]
        self.frames.append((time.monotonic() - self.start, [row for row in rows if row]))
        return self.frames[-1][1]

    def until(self, seen, timeout: float) -> list[str]:
        """Poll until ``seen(rows)``; the rows then (fails after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = self.rows()
            if seen(rows):
                return rows
            time.sleep(0.1)
        pytest.fail(f"not seen in {timeout} s; last rows: {self.frames[-1][1] if self.frames else None}")

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


@pytest.fixture
def pane(tmp_path):
    opened: list[Pane] = []

    def start(width: int, jobs: int, path: Path) -> Pane:
        command = shlex.join([sys.executable, "-m", "mcplint", "check", "--exit-zero", "--jobs", str(jobs),
                              str(path)]) + f" > {shlex.quote(str(tmp_path / 'out.txt'))}"
        opened.append(Pane(tmp_path / f"tmux-{len(opened)}", width, command))
        return opened[-1]

    yield start
    for one in opened:
        one.close()


def ended(rows: list[str]) -> bool:
    return any(row.startswith("__END__") for row in rows)


def drawn(rows: list[str]) -> bool:
    return any("%" in row for row in rows)


def check_frames(pane: Pane) -> list[tuple[float, str]]:
    """Every frame before the end: at most one row, the progress line, short of the last
    column, its long path cut in the middle. The (time, line) of the frames that show it."""
    lines = []
    for at, rows in pane.frames:
        if ended(rows):
            break
        assert len(rows) <= 1, f"the line took {len(rows)} rows at {at:.1f} s: {rows}"
        if rows:
            assert len(rows[0]) <= pane.width - 1, rows[0]
            assert "%" in rows[0] and "…" in rows[0], rows[0]
            lines.append((at, rows[0]))
    return lines


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_line_shows_fits_and_goes(capture, pane, first_line_by, jobs):
    run = pane(80, jobs, capture)
    rows = run.until(ended, 30)
    assert rows == ["__END__ 0"], "the progress line stayed behind"
    lines = check_frames(run)
    first = next(((at, line) for at, line in lines if LINE.search(line)), None)
    assert first is not None, f"no line with a percentage, a rate and an ETA: {lines}"
    assert first[0] <= first_line_by, f"first complete line only after {first[0]:.1f} s: {lines[:3]}"


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_leaves_no_line_behind(capture, pane, jobs):
    run = pane(50, jobs, capture)
    run.until(drawn, 10)
    check_frames(run)
    subprocess.run([*run.tmux, "send-keys", "C-c"], check=True)
    rows = run.until(ended, 20)
    assert rows == ["mcplint: interrupted", "__END__ 130"]

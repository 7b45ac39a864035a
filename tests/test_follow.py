"""check --follow and show --follow on a file that another thread appends to, truncates and
rotates while mcplint runs as a subprocess (bounded: every wait has a deadline, the process is
killed after 20 s)."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcplint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
LIMIT = 20.0

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals and inodes")


class Follow:
    """``mcplint ARGS`` as a subprocess; its stdout and stderr lines as they come."""

    def __init__(self, *args: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "mcplint", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, encoding="utf-8", errors="surrogateescape",
                                     env={**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"})
        self.started = time.monotonic()
        self.lines: dict[str, queue.Queue] = {"out": queue.Queue(), "err": queue.Queue()}
        self.seen: dict[str, list[tuple[float, str]]] = {"out": [], "err": []}
        for name, stream in (("out", self.proc.stdout), ("err", self.proc.stderr)):
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()

    def _read(self, name: str, stream) -> None:
        for line in stream:
            self.lines[name].put((time.monotonic(), line.rstrip("\n")))

    def wait_for(self, pattern: str, stream: str = "out", timeout: float = 10.0) -> float:
        """When a line matching ``pattern`` came (it may have come already)."""
        for at, line in self.seen[stream]:
            if re.search(pattern, line):
                return at
        deadline = min(time.monotonic() + timeout, self.started + LIMIT)
        while time.monotonic() < deadline:
            try:
                at, line = self.lines[stream].get(timeout=0.05)
            except queue.Empty:
                continue
            self.seen[stream].append((at, line))
            if re.search(pattern, line):
                return at
        self.kill()
        raise AssertionError(f"no line matching {pattern!r} on std{stream}; saw {self.text(stream)!r}")

    def text(self, stream: str = "out") -> str:
        while not self.lines[stream].empty():
            self.seen[stream].append(self.lines[stream].get())
        return "\n".join(line for _, line in self.seen[stream])

    def interrupt(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=max(1.0, self.started + LIMIT - time.monotonic()))
        finally:
            self.kill()
            time.sleep(0.1)  # let the reader threads take the last lines

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Writer(threading.Thread):
    """Appends ``lines`` to ``path`` one by one, ``pause`` seconds apart; ``done`` is when it finished."""

    def __init__(self, path: Path, lines: list[str], pause: float):
        super().__init__(daemon=True)
        self.path, self.todo, self.pause, self.done = path, lines, pause, float("inf")
        self.start()

    def run(self) -> None:
        for line in self.todo:
            with self.path.open("a") as handle:
                handle.write(line + "\n")
            time.sleep(self.pause)
        self.done = time.monotonic()


def _lines(name: str) -> list[str]:
    return (SAMPLES / name).read_text().splitlines()


UNANSWERED = json.dumps({"ts": "2026-11-30T09:41:20.000Z", "dir": "c2s", "msg": {
    "jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "get_alerts", "arguments": {"state": "NY"}}}})


def test_check_follow_reports_as_written_survives_truncation_and_rotation_and_ends_with_the_summary(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_text("")
    run = Follow("check", "--follow", "--output-format", "concise", str(path))
    try:
        run.wait_for("following", "err")
        # 1. lines appended over ~2 s: the first finding (line 8) comes while the writer still writes
        writer = Writer(path, _lines("reused-ids.jsonl"), 0.15)
        found = run.wait_for(r"live\.jsonl:8: JR006 \[error\]")
        writer.join(timeout=LIMIT)
        assert found < writer.done, "the finding came after the writer finished"
        run.wait_for(r"live\.jsonl:13: JR012 \[error\]")  # the last line was read: truncate now
        # 2. truncated, then a capture whose tool call is never answered: the end of the generation
        #    (here the rotation below) runs the end-of-session rules
        path.write_text("")
        run.wait_for("was truncated; reading it again from the start", "err")
        with path.open("a") as handle:
            handle.write("\n".join(_lines("stall-tool-call.mcplog")) + "\n")
        time.sleep(0.5)
        assert "HX001" not in run.text()  # the session of the new content is still open
        # 3. rotated: the old file renamed, a new one written at the path
        path.rename(tmp_path / "live.jsonl.1")
        path.write_text("\n".join(_lines("unknown-tool-iserror.mcplog")) + "\n")
        run.wait_for("was replaced", "err")
        run.wait_for(r"live\.jsonl:6: HX001 \[warning\] tools/call #2 was never answered")
        run.wait_for(r"live\.jsonl:9: TL006 \[warning\]")
        # 4. a request left unanswered when Ctrl-C comes: HX001 on exit, then the summary, exit 1
        with path.open("a") as handle:
            handle.write(UNANSWERED + "\n")
        time.sleep(0.6)
        assert "#99" not in run.text()
        status = run.interrupt()
        out = run.text()
        assert re.search(r"live\.jsonl:13: HX001 \[warning\] tools/call #99 was never answered", out), out
        assert out.splitlines()[-1].startswith("Found ") and "in 1 file" in out.splitlines()[-1], out
        assert status == 1, (status, out, run.text("err"))
    finally:
        run.kill()


def test_check_follow_exit_status_follows_check_rules(tmp_path):
    path = tmp_path / "clean.mcplog"
    path.write_text((SAMPLES / "clean-2025-06-18.mcplog").read_text())
    run = Follow("check", "--follow", str(path))
    run.wait_for("following", "err")
    time.sleep(0.5)
    assert run.interrupt() == 0
    assert run.text().splitlines()[-1].startswith("All checks passed: 1 file, 1 session")
    noisy = tmp_path / "noisy.jsonl"
    noisy.write_text((SAMPLES / "reused-ids.jsonl").read_text())
    run = Follow("check", "--follow", "--exit-zero", "-q", str(noisy))
    run.wait_for("JR006")
    assert run.interrupt() == 0
    assert "Found" not in run.text()  # -q: findings only


def test_show_follow_prints_rows_as_written(tmp_path):
    path = tmp_path / "live.mcplog"
    path.write_text("")
    run = Follow("show", "--follow", str(path))
    try:
        run.wait_for("following", "err")
        writer = Writer(path, _lines("unknown-tool-iserror.mcplog"), 0.15)
        row = run.wait_for(r"^\s+7\s.*C→S\s+2\s+tools/call get_weather")
        run.wait_for(r"└ info HX007 line 7")
        writer.join(timeout=LIMIT)
        assert row < writer.done, "the row came after the writer finished"
        with path.open("w") as handle:  # truncated, and shorter than before (else no tail can tell)
            handle.write(_lines("clean-2025-06-18.mcplog")[0] + "\n")
        run.wait_for("was truncated", "err")
        run.wait_for(r"^\s+1\s.*C→S\s+0\s+initialize")
        assert run.interrupt() == 0
        assert re.search(r"\d+ row\(s\), \d+ finding\(s\)", run.text("err"))
    finally:
        run.kill()


@pytest.mark.parametrize("args, message", [
    (["check", "--follow", "-"], "stdin cannot be followed"),
    (["check", "--follow", "a.jsonl", "b.jsonl"], "exactly one file"),
    (["check", "--follow", "--output-format", "json", "FILE"], "concise or full format"),
    (["check", "--follow", "--statistics", "FILE"], "--follow prints findings to stdout"),
    (["show", "--follow", "--output-format", "html", "FILE"], "--follow prints table rows"),
    (["show", "--follow", "DIR"], "not a directory"),
    (["check", "--follow", str(SAMPLES / "http-auth-mistakes-2025-11-25.har")], "one JSON document"),
])
def test_follow_errors(tmp_path, args, message):
    capture = tmp_path / "c.jsonl"
    capture.write_text("")
    args = [str(capture) if a == "FILE" else str(tmp_path) if a == "DIR" else a for a in args]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert message in result.output


# -- output safety (issue 22) and redaction (issue 14) ----------------------------------------

FOLLOWERS = [["check", "--follow", "--output-format", "full"], ["check", "--follow", "--output-format", "concise"],
             ["show", "--follow"]]


def _settled(args: list[str], path: Path) -> tuple[str, str]:
    """stdout and stderr of following ``path`` until Ctrl-C, once the file has been read."""
    run = Follow(*args, str(path))
    try:
        run.wait_for("following", "err")
        time.sleep(1.0)
        assert run.interrupt() in (0, 1)
        return run.text(), run.text("err")
    finally:
        run.kill()


@pytest.mark.parametrize("args", FOLLOWERS, ids=" ".join)
def test_follow_shows_hostile_captures_escaped(tmp_path, args):
    from tests.hostile import NAMES, unsafe_characters, write_corpus

    for path in write_corpus(tmp_path):
        if path.name == NAMES[2]:
            continue  # a HAR is not followable
        out, err = _settled(args, path)
        assert unsafe_characters(out) == set() and unsafe_characters(err) == set(), (path.name, out, err)
        assert "\\x1b[2J" in out, out  # the hostile text is there, escaped


@pytest.mark.parametrize("args", FOLLOWERS, ids=" ".join)
@pytest.mark.parametrize("fmt", ["jsonl", "capture"])
def test_follow_prints_no_planted_secret(tmp_path, args, fmt):
    from tests.test_redact_outputs import PLANTS, WRITERS, leaks

    write, name = WRITERS[fmt]
    write(tmp_path / name)
    out, err = _settled(args, tmp_path / name)
    assert "HX001" in out  # the planted records drew findings, and they were printed
    assert leaks(out + err, list(PLANTS)) == {}


# -- the same findings as check -------------------------------------------------------------

def _followed_once(path: Path, max_line_bytes: int = 64 << 20) -> list[tuple[int, str]]:
    """The findings of following ``path`` in-process until it has been read (Ctrl-C at the first wait)."""
    from mcplint.analysis.engine import Engine
    from mcplint.commands.follow import Stop, lint_generations

    stop = Stop()

    def idle() -> None:
        stop.requested = True

    found = lint_generations(str(path), Engine(), stop, "auto", None, max_line_bytes, idle, [], poll=0.01)
    return sorted((f.line, f.code) for f in found)


LINE_BASED = [p for p in sorted(SAMPLES.iterdir()) if p.suffix not in (".md", ".har", ".flow") and "inspector" not in p.name]


@pytest.mark.parametrize("sample", LINE_BASED, ids=lambda p: p.name)
def test_following_a_finished_file_finds_what_check_finds(sample):
    from mcplint.api import lint_paths

    findings, _ = lint_paths([str(sample)])
    assert _followed_once(sample) == sorted((f.line, f.code) for f in findings)


def test_a_line_over_the_limit_is_cut_as_check_cuts_it(tmp_path):
    from mcplint.api import LintOptions, lint_paths

    path = tmp_path / "long.jsonl"
    lines = _lines("reused-ids.jsonl")
    lines.insert(3, json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                "params": {"level": "info", "data": "x" * 300_000}}))
    path.write_text("\n".join(lines) + "\n")
    findings, _ = lint_paths([str(path)], options=LintOptions(max_line_bytes=100_000))
    expected = sorted((f.line, f.code) for f in findings)
    assert (4, "IO013") in expected
    assert _followed_once(path, max_line_bytes=100_000) == expected


def test_a_banner_alone_does_not_decide_the_format(tmp_path):
    """A Go SDK log's first line is a plain banner (any format); the next lines tell it is a go-sdk-log."""
    from mcplint.api import lint_paths

    sample = SAMPLES / "go-sdk-logging-transport-server.log"
    path = tmp_path / "server.log"
    unanswered = ('read: {"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"get_forecast",'
                  '"arguments":{"city":"Oslo"}}}')
    lines = [*_lines(sample.name), unanswered]  # HX001 read as a go-sdk-log; IO001s read as JSON Lines
    path.write_text(lines[0] + "\n")
    run = Follow("check", "--follow", "--output-format", "concise", str(path))
    try:
        run.wait_for("following", "err")
        time.sleep(0.6)
        Writer(path, lines[1:], 0.02).join(timeout=LIMIT)
        time.sleep(0.6)
        assert run.interrupt() in (0, 1)
    finally:
        run.kill()
    findings, _ = lint_paths([str(path)])
    expected = sorted(f"{path}:{f.line}: {f.code}" for f in findings)
    assert expected and sorted(re.sub(r" \[.*", "", line) for line in run.text().splitlines()[:-1]) == expected

"""The progress line: what it shows, that it fits the terminal, when it appears."""

from __future__ import annotations

import io

from mcplint import progress_bar
from mcplint.progress_bar import Progress, render

LONG = "/home/runner/work/project/captures/" + "very-long-folder-name/" * 6 + "session.mcplog"


def test_the_line_shows_percentage_rate_and_eta():
    line = render("a.mcplog", 50_000_000, 200_000_000, 2.0, 120, records=123_456)
    assert line.startswith("a.mcplog   25%  50.0/200.0 MB  25.0 MB/s  ETA 0:06  123,456 records")


def test_the_line_never_reaches_the_last_column():
    for width in (20, 40, 80, 200):
        for label in ("x", LONG):
            line = render(label, 10, 1_000_000_000, 3.0, width, records=10**9)
            assert len(line) <= width - 1, (width, line)
    line = render(LONG, 10, 100, 1.0, 80)
    assert "…" in line and line.split("  ")[0].endswith("session.mcplog")


def test_the_line_waits_a_second_and_is_erased_at_the_end(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress_bar.time, "monotonic", lambda: clock[0])
    out = io.StringIO()
    progress = Progress("x", 1000, out)
    progress.update(10)
    assert out.getvalue() == ""  # a short run never flashes a line
    clock[0] += 1.1
    progress.update(500)
    assert " 50%" in out.getvalue() and out.getvalue().startswith(progress_bar.ERASE)
    progress.close()
    assert out.getvalue().endswith(progress_bar.ERASE)


def test_no_line_without_a_terminal(tmp_path):
    data = tmp_path / "big.jsonl"
    data.write_bytes(b"{}\n" * (progress_bar.MIN_BYTES // 3 + 1))
    with open(data, "rb") as handle:
        assert not progress_bar.wanted(handle, io.StringIO())

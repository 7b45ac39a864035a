"""The progress line: what it shows, that it fits the terminal, when it appears."""

from __future__ import annotations

import io
import time

from mcplint.report import progress_bar
from mcplint.report.progress_bar import Progress, render

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


def test_wide_and_control_characters_are_measured_and_escaped():
    label = "/data/キャプチャ/" * 8 + "line\nbreak\x1b[31m.mcplog"
    for width in (30, 80, 120):
        line = render(label, 10, 100, 1.0, width)
        assert progress_bar._cells(line) <= width - 3, (width, line)
        assert "\n" not in line and "\x1b" not in line
    assert "\\n" in render("a\nb", 1, 2, 1.0, 80)


def test_the_ctrl_c_echo_fits_in_the_row_the_erasure_clears():
    for width in (20, 50, 80, 200):
        line = render(LONG, 10, 1_000_000_000, 3.0, width, records=10**9)
        assert len(line) + len(progress_bar.ECHOED) <= width - 1, (width, line)


def test_what_the_stream_cannot_encode_is_escaped_before_it_is_measured():
    line = render("/données/" * 12 + "é.mcplog", 10, 100, 1.0, 60, encoding="ascii")
    assert line.isascii() and len(line) <= 57 and "~" in line


def test_the_width_is_the_terminal_drawn_on_not_stdout(monkeypatch):
    import fcntl
    import os
    import pty
    import struct
    import termios

    monkeypatch.setattr(progress_bar, "DELAY", 0.0)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 50, 0, 0))
    with open(slave, "w", encoding="utf-8") as tty:  # stdout stays as it is (not this terminal)
        progress = Progress(LONG, 1000, tty)
        progress.update(500, 123)
        drawn = os.read(master, 4096).decode().split(progress_bar.ERASE)[-1]
    os.close(master)
    assert " 50%" in drawn and len(drawn) <= 47, drawn


def _lines(tmp_path, count: int):
    data = tmp_path / "big.jsonl"
    data.write_bytes(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n' * count)
    return data


def test_ctrl_c_erases_the_line_before_the_interrupt_reaches_the_caller(tmp_path, monkeypatch):
    from mcplint.analysis.engine import Engine
    from mcplint.api import LintOptions, lint_stream
    from mcplint.report.summary import RunSummary

    class Tty(io.StringIO):
        def isatty(self):
            return True

    class Interrupted(Engine):
        def lint_records(self, records, path, analyzer, **kwargs):
            for count, _ in enumerate(records):
                if count == 3000:
                    raise KeyboardInterrupt
            yield from ()

    tty = Tty()
    monkeypatch.setattr(progress_bar, "MIN_BYTES", 0)
    monkeypatch.setattr(progress_bar, "DELAY", 0.0)
    monkeypatch.setattr(progress_bar.sys, "stderr", tty)
    with open(_lines(tmp_path, 5000), "rb") as handle:
        try:
            list(lint_stream(handle, "big", None, LintOptions(), RunSummary(), Interrupted([])))
        except KeyboardInterrupt:
            assert "%" in tty.getvalue() and tty.getvalue().endswith(progress_bar.ERASE)
        else:
            raise AssertionError("not interrupted")


def test_a_task_adds_its_bytes_as_it_reads_and_exactly_its_size_in_the_end(tmp_path):
    counter = progress_bar.share()
    try:
        data = _lines(tmp_path, 5000)
        with open(data, "rb") as handle:
            handle.seek(1000)
            items = progress_bar.report(iter(handle.readline, b""), handle, 1000, 200_000)
            seen = []
            for count, _ in enumerate(items):
                if count % 1000 == 0:
                    seen.append(counter.value)
                if count == 3000:
                    break
            items.close()  # stopped early (a part ends at the next part's first line): all the same
        assert 0 < max(seen) < 199_000 and counter.value == 199_000
    finally:
        progress_bar.unshare()
    with open(data, "rb") as handle:  # no --jobs line drawn: nothing to add to
        assert list(progress_bar.report([1, 2], handle)) == [1, 2]


def test_jobs_workers_report_bytes_before_their_task_is_done(tmp_path):
    from concurrent.futures import ProcessPoolExecutor

    from mcplint.analysis.parallel import lint_file_in_worker
    from mcplint.api import LintOptions

    data = _lines(tmp_path, 200_000)  # 11 MB
    counter = progress_bar.share()  # before the pool forks its worker, as parallel._Run does
    try:
        with ProcessPoolExecutor(max_workers=1) as pool:
            future = pool.submit(lint_file_in_worker, str(data), ["JR001"], LintOptions())
            during = set()
            while not future.done():
                during.add(counter.value)
                time.sleep(0.005)
            future.result()
        assert any(0 < value < data.stat().st_size for value in during), sorted(during)[:5]
        assert counter.value == data.stat().st_size
    finally:
        progress_bar.unshare()

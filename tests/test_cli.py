"""The command line: exit codes, stdin, output contract, selection, rule pages."""

from __future__ import annotations

import orjson
from click.testing import CliRunner

from mcplint.cli import main

CLEAN = (
    '# init 2025-06-18 C={} S={}\n'
    'C→S {"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    'S→C {"jsonrpc":"2.0","id":1,"result":{}}\n'
)
BROKEN = CLEAN + 'C→S {"jsonrpc":"2.0","id":null,"method":"ping"}\nS→C {"jsonrpc":"2.0","id":1,"result":{}}\n'
CONTRACT = {"code", "name", "severity", "confidence", "message", "path", "line", "session", "direction",
            "id", "method", "party", "spec", "hint", "related"}


def run(args, stdin=None):
    return CliRunner().invoke(main, args, input=stdin)


def test_clean_input_exits_zero():
    result = run(["check", "-"], CLEAN)
    assert result.exit_code == 0, result.output
    assert "All checks passed" in result.output


def test_findings_exit_one_and_exit_zero_overrides():
    assert run(["check", "-"], BROKEN).exit_code == 1
    assert run(["check", "--exit-zero", "-"], BROKEN).exit_code == 0


def test_missing_file_exits_two():
    result = run(["check", "does-not-exist.jsonl"])
    assert result.exit_code == 2
    assert "no such file" in result.output


def test_bad_selector_exits_two():
    assert run(["check", "--select", "NOPE999", "-"], CLEAN).exit_code == 2


def test_json_output_contract():
    result = run(["check", "--output-format", "json", "--stdin-filename", "cap.transcript", "-"], BROKEN)
    findings = orjson.loads(result.output)
    assert findings and CONTRACT <= set(findings[0])
    jr004 = next(f for f in findings if f["code"] == "JR004")
    assert jr004["path"] == "cap.transcript" and jr004["line"] == 4
    assert jr004["direction"] == "c2s" and jr004["party"] == "client" and jr004["method"] == "ping"
    assert jr004["spec"].startswith("2025-06-18")


def test_json_lines_and_select_ignore():
    result = run(["check", "--output-format", "json-lines", "--select", "JR", "--ignore", "JR013", "-"], BROKEN)
    codes = {orjson.loads(line)["code"] for line in result.output.splitlines()}
    assert "JR004" in codes and "JR013" not in codes and all(c.startswith("JR") for c in codes)


def test_fail_on_and_min_severity():
    info_only = CLEAN + 'S→C {"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"' + "x" * 400 + '"}}\n'
    assert run(["check", "--select", "JR022", "-"], info_only).exit_code == 0
    assert run(["check", "--select", "JR022", "--fail-on", "info", "-"], info_only).exit_code == 1
    hidden = run(["check", "--select", "JR022", "--min-severity", "warning", "--fail-on", "info", "-"], info_only)
    assert hidden.exit_code == 1  # --fail-on still counts what --min-severity hides, and the summary says so
    assert "All checks passed" not in hidden.output and "JR022" not in hidden.output
    assert "1 finding (1 info) hidden by --min-severity, 1 of them at or above --fail-on info" in hidden.output
    shown_elsewhere = run(["check", "--select", "JR022", "--min-severity", "warning", "-"], info_only)
    assert shown_elsewhere.exit_code == 0 and "All checks passed" in shown_elsewhere.output


def test_rule_pages():
    page = run(["rule", "JR004"])
    assert page.exit_code == 0 and page.output.startswith("# request-id-null (JR004)")
    assert run(["rule", "request-id-null"]).output == page.output
    listing = run(["rule", "--all", "--output-format", "json"])
    assert any(r["code"] == "JR004" for r in orjson.loads(listing.output))
    assert run(["rule", "XX999"]).exit_code == 2


def test_python_dash_m_and_stdin_pipe():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "mcplint", "check", "--output-format", "concise", "-"],
                          input=BROKEN.encode(), capture_output=True, timeout=60)
    assert proc.returncode == 1
    assert b"JR004" in proc.stdout and not proc.stderr


def test_baseline_hides_known_findings_and_reports_stale(tmp_path):
    capture = tmp_path / "cap.transcript"
    capture.write_text(BROKEN, encoding="utf-8")
    base = tmp_path / "baseline.json"
    assert run(["check", str(capture), "--write-baseline", str(base)]).exit_code == 0
    hidden = CliRunner().invoke(main, ["check", str(capture), "--baseline", str(base)])
    assert hidden.exit_code == 0 and "All checks passed" in hidden.stdout
    capture.write_text("# edited above the findings\n" + CLEAN, encoding="utf-8")
    stale = CliRunner().invoke(main, ["check", str(capture), "--baseline", str(base)])
    assert stale.exit_code == 0 and "no longer match" in stale.stderr
    base.write_text("not json")
    assert run(["check", str(capture), "--baseline", str(base)]).exit_code == 2


def test_jobs_give_the_same_findings_in_the_same_order():
    import os

    samples = os.path.join(os.path.dirname(__file__), "..", "samples")
    one = run(["check", samples, "--output-format", "json"])
    two = run(["check", samples, "--output-format", "json", "--jobs", "2"])
    assert one.exit_code == two.exit_code == 1
    assert one.output == two.output and orjson.loads(one.output)


def test_progress_line_only_for_terminals(tmp_path):
    import io

    from mcplint.report import progress_bar

    class Tty(io.StringIO):
        def isatty(self):
            return True

    data = tmp_path / "big.jsonl"
    data.write_bytes(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n' * 20000)
    out = Tty()
    with open(data, "rb") as handle:
        old = progress_bar.MIN_BYTES, progress_bar.INTERVAL, progress_bar.DELAY
        progress_bar.MIN_BYTES, progress_bar.INTERVAL, progress_bar.DELAY = 0, 0.0, 0.0
        try:
            assert progress_bar.wanted(handle, out)
            assert sum(1 for _ in progress_bar.track(iter(handle.readline, b""), handle, "big", out)) == 20000
        finally:
            progress_bar.MIN_BYTES, progress_bar.INTERVAL, progress_bar.DELAY = old
        assert not progress_bar.wanted(handle, io.StringIO())
    assert "%" in out.getvalue() and "records" in out.getvalue()


def test_a_crashing_rule_costs_only_its_own_checks(monkeypatch):
    from mcplint.rules.jsonrpc import RequestIdNull

    def boom(self, record, session):
        raise TypeError("unhashable type: 'list'")

    monkeypatch.delenv("MCPLINT_DEBUG", raising=False)
    monkeypatch.setattr(RequestIdNull, "check", boom)
    result = CliRunner().invoke(main, ["check", "--output-format", "concise", "-"], input=BROKEN)
    assert result.exit_code == 2
    assert "JR013" in result.stdout or "JR011" in result.stdout or "Found" in result.stdout
    assert "internal error: JR004 failed on -:" in result.stderr


def test_output_to_a_device_or_fifo_is_written_in_place(tmp_path):
    """``-o /dev/null`` (or a named pipe) is written, not replaced by a renamed regular file."""
    import os
    import stat
    import threading

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    result = run(["check", "--exit-zero", "--output-format", "concise", "-o", str(fifo), "-"], BROKEN)
    if reader.is_alive():  # the old behaviour never opened the FIFO: unblock the reader
        try:  # (without blocking: the reader may have finished since, and a FIFO without one blocks)
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    reader.join(5)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert "JR" in got[0]


def test_output_through_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    result = run(["check", "--exit-zero", "--output-format", "concise", "-o", str(link), "-"], BROKEN)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and "JR" in real.read_text()

"""mcplint show: timeline table with pairing and latency, filters, Mermaid, HTML in a real browser."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcplint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "samples" / "progress-after-cancel.mcplog")


def show(*args):
    result = CliRunner().invoke(main, ["show", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_table_pairs_requests_and_shows_latency_and_findings():
    text = show(SAMPLE)
    call = next(line for line in text.splitlines() if line.split()[:1] == ["7"])
    assert "tools/call" in call and "→15" in call and "59.00 s" in call
    late = next(line for line in text.splitlines() if line.split()[:1] == ["15"])
    assert "←7" in late and "CN006" in late


def test_filters():
    text = show(SAMPLE, "--method", "tools/call", "--direction", "s2c")
    body = text.splitlines()[2:]
    assert body and all("S→C" in line and "tools/call" in line for line in body)
    assert len(show(SAMPLE, "--id", "2").splitlines()) == 2 + 2
    assert "initialize" not in show(SAMPLE, "--since", "5")


def test_mermaid():
    text = show(str(ROOT / "samples" / "reused-ids.jsonl"), "--format", "mermaid")
    assert text.startswith("sequenceDiagram")
    assert "C->>S: tools/call #35;1" in text and "Note over C,S: error JR006" in text


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def test_html_report_opens_in_a_headless_browser(tmp_path):
    report = tmp_path / "report.html"
    show(str(ROOT / "samples" / "reused-ids.jsonl"), "--format", "html", "-o", str(report))
    text = report.read_text()
    assert "<svg" in text and 'id="F0"' in text and 'href="#L8"' in text and "http://" not in text.replace(
        "http://www.w3.org/2000/svg", "")
    browser = _browser()
    if browser is None:
        pytest.skip("no chromium installed")
    profile = tmp_path / "profile"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0"]
    dom = subprocess.run([browser, *flags, "--dump-dom", report.as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<svg" in dom.stdout and "JR006" in dom.stdout and "Sequence diagram" in dom.stdout
    console_errors = [line for line in dom.stderr.splitlines() if "CONSOLE" in line and "rror" in line]
    assert not console_errors, console_errors
    shot = tmp_path / "shot.png"
    subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1000,1400", report.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 5000

"""The HTML page of ``mcplint show``: every finding ``check`` reports is on it, at its row; anchors
are file-qualified and unique; rows expand to the whole message; the page is self-contained and
reads at 1400 px and on a narrow window (tested in headless Chromium, screenshots kept)."""

from __future__ import annotations

import html
import importlib.util
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcplint.cli import main
from mcplint.input.discovery import CAPTURE_SUFFIXES

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
#: (mitmproxy flow files only where the optional extra that reads them is installed)
SAMPLE_FILES = sorted(p.name for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md"
                      and (p.suffix != ".flow" or importlib.util.find_spec("mitmproxy") is not None))

#: one sample per input format
BY_FORMAT = {
    "capture": "real-sdk-weather-2025-11-25.mcplog",
    "jsonl": "reused-ids.jsonl",
    "transcript": "clean-transcript-2025-06-18.transcript",
    "har": "http-auth-mistakes-2025-11-25.har",
    "claude-desktop": "claude-desktop-mcp.log",
    "vscode": "vscode-mcp-output-weather.log",
    "inspector": "inspector-history-weather-2026-05-27T10-01-03.120Z.json",
    "mcpspy": "mcpspy-weather.jsonl",
    "mcpsnoop": "mcpsnoop-weather.jsonl",
    "go-sdk-log": "go-sdk-logging-transport-server.log",
}

_FINDING = re.compile(r'<li class="finding [a-z]+" id="([^"]+)" data-code="([^"]*)" data-path="([^"]*)" '
                      r'data-line="(\d+)"')


def run(*args: str, ok=(0,)) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code in ok, (result.exit_code, result.output[-2000:])
    return result.stdout


def page_of(*paths: str) -> str:
    return run("show", "--output-format", "html", *paths)


def findings_on(page: str) -> Counter:
    return Counter((code, html.unescape(path), int(line)) for _, code, path, line in _FINDING.findall(page))


def findings_of_check(*paths: str) -> Counter:
    found = json.loads(run("check", "--output-format", "json", *paths, ok=(0, 1)))
    return Counter((f["code"], f["path"], f["line"]) for f in found)


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_every_finding_of_check_is_on_the_page(name):
    path = str(SAMPLES / name)
    page = page_of(path)
    assert findings_on(page) == findings_of_check(path)


def test_a_directory_page_has_a_section_per_file_and_unique_file_qualified_anchors():
    page = page_of(str(SAMPLES))
    ids = re.findall(r'\sid="([^"]+)"', page)
    repeated = [i for i, n in Counter(ids).items() if n > 1]
    assert not repeated, repeated[:10]
    targets = set(re.findall(r'href="#([^"]+)"', page))
    assert targets <= set(ids), sorted(targets - set(ids))[:10]
    assert findings_on(page) == findings_of_check(str(SAMPLES))
    sections = re.findall(r'<section class="file" id="(file-\d+)"><h2>([^<]*)</h2>', page)
    walked = [n for n in SAMPLE_FILES if n.endswith(CAPTURE_SUFFIXES)]  # what a directory walk reads (no .flow, .txt)
    assert sorted(html.unescape(name) for _, name in sections) == sorted(str(SAMPLES / n) for n in walked)
    # the contents link every file and every session
    toc = page.split('<nav class="toc">')[1].split("</nav>")[0]
    assert all(f'href="#{fid}"' in toc for fid, _ in sections)
    assert toc.count("-s0\"") == len(sections)
    # a finding names its file, and its id and row are in that file's section
    for section in page.split('<section class="file"')[1:]:
        fid = section.split('"')[1]
        name = html.unescape(re.search(r"<h2>([^<]*)</h2>", section).group(1))
        for finding_id, _, path, _ in _FINDING.findall(section):
            assert finding_id.startswith(fid + "-F") and html.unescape(path) == name


def test_rows_say_what_happened_and_expand_to_the_whole_message():
    page = page_of(str(SAMPLES / "unknown-tool-iserror.mcplog"))
    row = re.search(r'<div class="row k-request[^"]*" id="(f\d+-L\d+)"><details><summary class="cells" role="row">'
                    r'(.*?)</summary><pre class="json">(.*?)</pre></details>', page, re.S)
    assert row, page[:2000]
    message = json.loads(html.unescape(row.group(3)))
    assert message["jsonrpc"] == "2.0" and "method" in message
    assert "\n  " in row.group(3)  # pretty-printed
    calls = re.findall(r'<span class="label">(tools/call [^<]+)</span>', page)
    assert calls, "tools/call rows name their tool"
    assert 'class="lat"><a href="#f' in page  # a request links to its response, with the latency


def test_inferred_direction_is_marked(tmp_path):
    capture = tmp_path / "plain.jsonl"  # a JSON Lines file without directions: the analyzer infers them
    capture.write_text("\n".join(json.dumps(m) for m in [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
        {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {},
                                               "serverInfo": {"name": "s", "version": "1"}}},
    ]) + "\n")
    page = page_of(str(capture))
    assert '<span class="dir">C→S?</span>' in page and '<span class="dir">S→C?</span>' in page


def test_session_card_says_who_talked():
    page = page_of(str(SAMPLES / "real-sdk-weather-2025-11-25.mcplog"))
    card = page.split('<div class="card">')[1].split("</div></dl></div>")[0]
    for fact in ("client → server", "revision", "messages", "findings", "server capabilities"):
        assert f"<dt>{fact}</dt>" in card, fact
    assert "2025-11-25" in card


def test_page_is_self_contained_and_needs_no_script():
    page = page_of(str(SAMPLES))
    assert "<script" not in page and "<link" not in page and "<img" not in page and "@import" not in page
    assert not re.search(r"\ssrc=", page) and "url(" not in page
    external = {u for u in re.findall(r'href="([^"#][^"]*)"', page)}
    assert all(u.startswith("https://modelcontextprotocol.io/") for u in external), external
    assert "prefers-color-scheme:dark" in page and "overflow-wrap:anywhere" in page


# -- in a real browser ---------------------------------------------------------------------------

def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


#: run by the test's copy of the page only (the page itself holds no script): open the first row
#: with a message, read it back, and measure the page
PROBE = """<script>
const out = {};
const first = document.querySelector('.row > details');
first.open = true;
const pre = first.querySelector('pre.json');
out.json = pre.textContent;
out.rendered = pre.getClientRects().length > 0 && pre.offsetHeight > 0;
out.opened = document.querySelectorAll('details[open] > pre.json').length;
out.scrollWidth = document.documentElement.scrollWidth;
out.width = document.documentElement.clientWidth;
const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
out.ids = ids.length;
out.unique = new Set(ids).size;
out.findings = [...document.querySelectorAll('li.finding')].map(e => [e.id, e.dataset.code, e.dataset.line]);
out.dangling = [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href').slice(1))
  .filter(h => !document.getElementById(h));
out.resources = performance.getEntriesByType('resource').length;
out.dark = matchMedia('(prefers-color-scheme: dark)').matches;
out.background = getComputedStyle(document.body).backgroundColor;
document.body.setAttribute('data-probe', JSON.stringify(out));
</script>"""


@pytest.mark.parametrize("fmt", list(BY_FORMAT))
def test_page_in_a_headless_browser(fmt, tmp_path):
    browser = _browser()
    if browser is None:
        pytest.skip("no chromium installed")
    sample = str(SAMPLES / BY_FORMAT[fmt])
    page = page_of(sample)
    probed = tmp_path / f"{fmt}.html"
    probed.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    expected = findings_of_check(sample)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0"]
    runs = [(1400, ""), (420, "")] + ([(1400, "--force-dark-mode")] if fmt == "capture" else [])
    for width, scheme in runs:
        shot = tmp_path / f"{fmt}-{width}{scheme and '-dark'}.png"
        done = subprocess.run([browser, *flags, *([scheme] if scheme else []), f"--window-size={width},1600",
                               f"--screenshot={shot}", "--dump-dom", probed.as_uri()],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        assert shot.is_file() and shot.stat().st_size > 5000
        probe = json.loads(html.unescape(re.search(r'data-probe="([^"]*)"', done.stdout).group(1)))
        assert probe["rendered"] and probe["opened"] == 1
        message = json.loads(probe["json"])
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", probe["json"][:500]
        assert probe["ids"] == probe["unique"] and not probe["dangling"], probe["dangling"][:10]
        assert Counter((code, int(line)) for _, code, line in probe["findings"]) == Counter(
            (code, line) for code, _, line in expected.elements())
        assert probe["resources"] == 0
        assert "<svg" in done.stdout and "Sequence diagram" in done.stdout
        console_errors = [line for line in done.stderr.splitlines() if "CONSOLE" in line and "rror" in line]
        assert not console_errors, console_errors
        # no horizontal scroll (headless Chromium lays out at least 500 px wide)
        assert probe["scrollWidth"] <= probe["width"], (width, probe["scrollWidth"], probe["width"])
        assert probe["dark"] == bool(scheme) and (probe["background"] == "rgb(255, 255, 255)") != bool(scheme)


def test_a_hostile_capture_stays_text_in_cards_rows_and_whole_messages(tmp_path):
    """What the page adds (session cards, labels, details, whole messages) escapes the capture too."""
    from tests.hostile import NAMES, unsafe_characters, write_corpus

    write_corpus(tmp_path)
    page = page_of(str(tmp_path / NAMES[0]))
    assert unsafe_characters(page) == set()
    assert "<script" not in page and "<img" not in page
    card = page.split('<div class="card">')[1].split("</div></dl></div>")[0]
    assert "client\\x1b[2J" in card and "&lt;script&gt;" in card  # client name, instructions
    messages = re.findall(r'<pre class="json">(.*?)</pre>', page, re.S)
    call = next(m for m in messages if "tools/call" in m and "arguments" in m)
    assert "\\u001b[2J" in call and "&lt;script&gt;document.title=\\&quot;pwned\\&quot;" in call
    assert "safe\\u202etxt.exe" in call and "\n" in call  # pretty-printed JSON, escapes written out
    labels = re.findall(r'<span class="label">([^<]*)</span>', page)
    assert any(label.startswith("tools/call get") and "\\u202e" in label for label in labels), labels


def test_findings_without_a_row_still_get_a_place_and_an_empty_page_renders():
    from mcplint.commands.show.html import html_report
    from mcplint.model import Finding, Related, Severity

    assert "0 rows; <span class=\"none\">no findings</span>" in html_report([], [], "empty")
    loose = Finding("HX001", "request-unanswered", Severity.WARNING, "never answered", "a<b>.log", 7,
                    related=[Related(3, "asked here")], spec_url="javascript:alert(1)")
    page = html_report([], [loose], "a<b>.log")
    assert findings_on(page) == Counter({("HX001", "a<b>.log", 7): 1})
    assert "Findings without a row on this page" in page and "<b>" not in page
    assert "javascript:" not in page and "line 3 asked here" in page  # no row for line 3: plain text

"""Issue 22: a hostile capture cannot drive the user's terminal or break a report, through
``show``, ``diagnose``, ``stats``, ``convert``, ``redact`` and ``rule`` (``check`` and its
reporters are tested elsewhere).

Every command and output format runs over each file of the hostile corpus (``tests/hostile.py``)
and over its directory. Text outputs hold no unprintable character but line feeds (with
``--color always`` none but our own SGR colour sequences), and show the escape as ``\\x1b[2J``;
Markdown renders capture text literally; every Mermaid line is one statement of ours; the HTML
page runs no injected script; JSON stays lossless (unprintable characters as ``\\u`` escapes).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import cmarkgfm
import pytest
from click.testing import CliRunner

from mcplint.cli import main
from tests.hostile import BIDI, CLEAR, LINK, MARKUP, NAMES, unsafe_characters, write_corpus

#: our own colour sequences, the only escapes allowed with --color always
SGR = re.compile(r"\x1b\[[0-9;]*m")
#: what a reader must see where the capture held the clear-screen escape
VISIBLE_ESCAPE = "\\x1b[2J"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    write_corpus(folder)
    return folder


def _targets(corpus: Path) -> list[str]:
    return [str(corpus / name) for name in NAMES] + [str(corpus)]


TARGET_IDS = ["mcplog", "jsonl", "har", "evil-name", "directory"]


@pytest.fixture(params=range(len(TARGET_IDS)), ids=TARGET_IDS)
def target(request, corpus) -> str:
    return _targets(corpus)[request.param]


def run(*args: str, ok=(0,)):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code in ok, (result.exit_code, result.stderr[-2000:])
    return result


def assert_safe(text: str, color: bool = False) -> None:
    """No unprintable character but a line feed; with ``color`` only our SGR sequences hold ESC."""
    if color:
        text = SGR.sub("", text)
    assert unsafe_characters(text) == set(), sorted(unsafe_characters(text))


# -- text outputs ---------------------------------------------------------------------------

TEXT_COMMANDS = {
    "show-table": ("show", "--output-format", "table"),
    "diagnose-text": ("diagnose", "--output-format", "text"),
    "stats-table": ("stats", "--output-format", "table"),
}


@pytest.mark.parametrize("color", ["never", "always"])
@pytest.mark.parametrize("command", list(TEXT_COMMANDS))
def test_text_outputs_show_escapes_escaped(command, color, target):
    result = run(*TEXT_COMMANDS[command], "--color", color, "-v", target)
    assert_safe(result.stdout, color == "always")
    assert_safe(result.stderr)
    if not (command == "show-table" and target.endswith(".har")):  # its rows quote nothing hostile
        assert VISIBLE_ESCAPE in result.stdout
    if color == "always":
        assert SGR.search(result.stdout)  # colour is still on


def test_show_table_cells_hold_the_escaped_capture_text(corpus):
    text = run("show", "--color", "never", str(corpus / "hostile.mcplog")).stdout
    assert "tools/\\x1b[2J\\x1b[H\\x1b[32mAll checks passe…" in text  # cells cut after escaping
    assert '"id\\u001b[2J' in text  # a string id, as JSON writes it
    assert "notifications/\\x1b]8;;https://evil.example/…" in text
    assert "client\\x1b[2J\\x1b[H\\x1b[32mAll checks passed" in text  # the session header


@pytest.mark.parametrize("args", [("--line", "12"), ("--id", "5"), ("--line", "16")], ids=["line", "id", "malformed"])
def test_show_whole_messages_are_escaped(corpus, args):
    result = run("show", "--color", "always", *args, str(corpus / "hostile.mcplog"))
    assert_safe(result.stdout, color=True)
    assert "tools/\\x1b[2J\\x1b[H\\x1b[32mAll checks passed\\x1b[0msafe\\u202etxt.exe" in result.stdout \
        or "\\x1b[2J" in result.stdout


def test_diagnose_text_names_the_hostile_file_on_one_line(corpus):
    text = run("diagnose", "--color", "never", str(corpus / NAMES[3])).stdout
    header = text.splitlines()[0]
    assert header.startswith(str(corpus / "evil\\x1b[31mname\\u202e\\n.mcplog")) and "session 1" in header
    assert "Last stderr lines:" in text and "log \\x1b[2J" in text


# -- Markdown -------------------------------------------------------------------------------

def _rendered(markdown: str) -> str:
    # unsafe: raw HTML is kept, so that the test sees what GitHub's sanitiser would have to catch
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)


def test_diagnose_markdown_renders_the_capture_literally(target):
    result = run("diagnose", "--output-format", "markdown", target)
    assert_safe(result.stdout)
    assert_safe(result.stderr)
    page = _rendered(result.stdout)
    assert "<img" not in page and "<script" not in page
    assert 'href="https://evil.example' not in page and "<a " not in page
    assert VISIBLE_ESCAPE in page
    assert_safe(page)
    assert "<h3>" in page and "Suspect:" in page  # our own structure still renders
    if not target.endswith(".har"):
        assert "\\x1b[2J\\x1b[H\\x1b[32mAll checks passed" in page  # the banner, as text


@pytest.mark.parametrize("whole", [(), ("--line", "12")], ids=["table", "line"])
def test_show_markdown_renders_the_capture_literally(corpus, target, whole):
    if whole and target == str(corpus):
        whole = ("--id", "5")  # --line needs one file
    result = run("show", "--output-format", "markdown", *whole, target, ok=(0, 2))
    if result.exit_code == 2:  # no line 12 in this capture
        assert whole and "no " in result.stderr
        return
    assert_safe(result.stdout)
    assert_safe(result.stderr)
    page = _rendered(result.stdout)
    assert "<img" not in page and "<script" not in page
    links = re.findall(r"<a [^>]*>", page)  # only our spec links
    assert all(re.fullmatch(r'<a href="https://modelcontextprotocol\.io/[^"]*">', link) for link in links), links
    assert_safe(page)
    if not target.endswith(".har"):
        assert VISIBLE_ESCAPE in page
    assert ("<h3>" in page and "<table>" in page) if not whole else "<pre" in page


def test_markdown_fence_holds_any_text():
    from mcplint.untrusted import markdown_fence

    text = "```\n</code></pre><script>x</script>\n````` \n\x1b[2J"
    page = _rendered(markdown_fence(text, "json") + "\n\nafter")
    assert page.count("<pre") == 1 and "<script>" not in page and "<p>after</p>" in page
    assert "&lt;script&gt;" in page and VISIBLE_ESCAPE in page


# -- Mermaid --------------------------------------------------------------------------------

_STATEMENT = re.compile(r"sequenceDiagram|    participant [CS] as (Client|Server)|    rect rgb\(238, 238, 238\)|    end"
                        r"|    (C->>S|S->>C|S-->>C|C-->>S|C-\)S|S-\)C|Note (over (C|S|C,S)|left of C|right of S)): "
                        r"(?P<text>.*)")


def test_mermaid_lines_are_our_statements(target):
    result = run("show", "--output-format", "mermaid", target)
    assert_safe(result.stdout)
    assert_safe(result.stderr)
    lines = result.stdout.rstrip("\n").split("\n")
    assert lines[0] == "sequenceDiagram" and len(lines) > 5
    for line in lines:
        match = _STATEMENT.fullmatch(line)
        assert match, line
        text = re.sub(r"#\w+;|<br/>", "", match.group("text") or "")  # Mermaid entity codes, our line breaks
        assert not set(text) & set(";#<>&\"'`"), line
    assert "<" not in result.stdout.replace("<br/>", "")
    if not target.endswith(".har"):  # its diagram quotes nothing hostile
        assert VISIBLE_ESCAPE in result.stdout


# -- HTML -----------------------------------------------------------------------------------

def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def _markup_capture(folder: Path) -> Path:
    """A capture whose method, id, stderr line and error message start with markup (the corpus puts
    escapes first, and a row's excerpt is cut before its markup)."""
    lines = [
        {"dir": "c2s", "msg": {"jsonrpc": "2.0", "id": MARKUP, "method": MARKUP + CLEAR, "params": {}}},
        {"dir": "stderr", "raw": MARKUP + CLEAR},
        {"dir": "s2c", "msg": {"jsonrpc": "2.0", "id": MARKUP, "error": {"code": MARKUP, "message": MARKUP}}},
    ]
    path = folder / "markup<b>.mcplog"
    path.write_text("".join(json.dumps({"ts": f"2026-11-30T09:12:0{i}.000Z", **line}) + "\n"
                            for i, line in enumerate(lines)), encoding="utf-8")
    return path


def test_html_page_escapes_the_capture_and_runs_no_injected_script(corpus, tmp_path):
    result = run("show", "--output-format", "html", str(corpus))
    assert_safe(result.stderr)
    assert_safe(result.stdout)
    assert "<script" not in result.stdout and "<img" not in result.stdout
    assert VISIBLE_ESCAPE in result.stdout and "safe\\u202etxt.exe" in result.stdout

    report = tmp_path / "report.html"
    markup = _markup_capture(tmp_path)
    result = run("show", "--output-format", "html", "-o", str(report), str(markup), str(corpus / NAMES[3]))
    assert_safe(result.stderr)
    page = report.read_text(encoding="utf-8")
    assert_safe(page)
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "&lt;script&gt;document.title=&quot;pwned&quot;" in page and "&lt;img src=x" in page
    title = page.split("<title>")[1].split("</title>")[0]  # the file names
    assert "markup&lt;b&gt;.mcplog" in title and "evil\\x1b[31mname\\u202e\\n.mcplog" in title
    browser = _browser()
    if browser is None:
        pytest.skip("no chromium installed")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=2000"]
    dom = subprocess.run([browser, *flags, "--dump-dom", report.as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    title = re.search(r"<title>(.*?)</title>", dom.stdout, re.S)
    assert title and title.group(1).startswith("mcplint: ") and "pwned" not in title.group(1)
    assert "Sequence diagram" in dom.stdout and "<script" not in dom.stdout and "<img" not in dom.stdout


# -- JSON stays lossless --------------------------------------------------------------------

def test_stats_json_is_lossless_and_escaped(corpus):
    text = run("stats", "--output-format", "json", str(corpus / "hostile.mcplog")).stdout
    assert_safe(text)  # JSON \u escapes, no raw character
    document = json.loads(text)
    methods = {row["method"] for row in document["overall"]["methods"]}
    assert "tools/" + CLEAR + BIDI in methods and "notifications/" + LINK in methods
    assert document["overall"]["unanswered"] == {"notifications/" + LINK: 1}
    (name,) = document["sessions"]
    assert name == str(corpus / "hostile.mcplog") + " session 1"


def test_diagnose_json_is_lossless_and_escaped(corpus):
    text = run("diagnose", "--output-format", "json", str(corpus / NAMES[3])).stdout
    assert_safe(text)
    (diagnosis,) = json.loads(text)
    assert diagnosis["path"] == str(corpus / NAMES[3])
    assert diagnosis["open_requests"][0]["method"] == "notifications/" + LINK
    assert diagnosis["stdout_pollution"][0]["text"] == "Starting server " + CLEAR
    assert any(line.startswith("5: log " + CLEAR + LINK + BIDI + MARKUP[:20]) for line in diagnosis["stderr_tail"])


# -- convert, redact, rule: messages on stderr ----------------------------------------------

@pytest.mark.parametrize("to", ["capture", "jsonl"])
def test_convert_messages_show_escapes_escaped(corpus, tmp_path, to):
    for name in NAMES:
        result = run("convert", "--to", to, str(corpus / name))
        assert_safe(result.stderr)
    # a capture without directions under a hostile name: each warning names the file
    tee = tmp_path / f"tee{CLEAR}\u202e\n.jsonl"
    tee.write_bytes((corpus / "hostile.jsonl").read_bytes())
    result = run("convert", "--to", "capture", str(tee))
    assert_safe(result.stderr)
    assert "tee\\x1b[2J\\x1b[H\\x1b[32mAll checks passed\\x1b[0m\\u202e\\n.jsonl:4: direction unknown" in result.stderr


def test_convert_error_names_a_hostile_file_on_one_line(tmp_path):
    path = tmp_path / f"not a capture{CLEAR}\u202e\n.bin"
    path.write_bytes(b"\x00\x01 nothing mcplint reads " + CLEAR.encode())
    result = run("convert", str(path), ok=(2,))
    assert_safe(result.stderr)
    assert result.stderr.count("\n") == 1 and VISIBLE_ESCAPE in result.stderr


def test_convert_output_is_the_capture_itself(corpus):
    # stdout is data, like cat: the converted capture keeps the hostile text as JSON escapes or raw
    out = run("convert", "--to", "jsonl", str(corpus / "hostile.mcplog")).stdout
    assert any(json.loads(line).get("method") == "tools/" + CLEAR + BIDI for line in out.splitlines()
               if line.startswith("{") and line.endswith("}"))


@pytest.mark.parametrize("args", [(), ("--check",), ("--report", "json")], ids=["redact", "check", "json"])
def test_redact_messages_show_escapes_escaped(corpus, args):
    for name in NAMES:
        result = run("redact", *args, str(corpus / name), ok=(0, 1))
        assert_safe(result.stderr)
        if args == ("--report", "json"):  # JSON on stderr: lossless, and on one line
            assert json.loads(result.stderr)["path"] == str(corpus / name)
            assert result.stderr.count("\n") == 1
            continue
        if args == ("--check",):  # the hits are listed on stdout
            assert_safe(result.stdout)
        if name == NAMES[3]:
            assert "evil\\x1b[31mname\\u202e\\n.mcplog: " in result.stderr


def test_redact_check_lists_hostile_json_paths_escaped(tmp_path):
    key = "k" + CLEAR + "\u202e"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" + "k1L2m3N4o5P6q7R8"  # a made-up GitHub token
    capture = tmp_path / "keys.mcplog"
    capture.write_text(json.dumps({"ts": "2026-11-30T09:12:00.000Z", "dir": "c2s", "msg": {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "t", "arguments": {key: token}}}}) + "\n")
    result = run("redact", "--check", str(capture), ok=(1,))
    assert_safe(result.stdout)
    assert "github-pat at $.msg.params.arguments.k\\x1b[2J\\x1b[H" in result.stdout


def test_rule_error_shows_a_hostile_selector_escaped():
    result = run("rule", "x" + CLEAR + BIDI + "\n", ok=(2,))
    assert_safe(result.stderr)
    assert result.stderr.count("\n") == 1 and VISIBLE_ESCAPE in result.stderr

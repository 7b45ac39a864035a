"""``mcplint probe`` end to end over stdio: the CLI against real server processes.

The plain server of ``tests/e2e/servers/probe_server.py`` is spec-correct, so every finding a
probe of it gives comes from a fault planted with ``--fault``; the SDK servers are probed as they
are. On every server the probe's own traffic must draw no finding against the client.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcplint.api import lint_paths

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the probe's stdio child handling is POSIX-only")

SERVERS = Path(__file__).resolve().parent / "e2e" / "servers"
PLAIN = [sys.executable, str(SERVERS / "probe_server.py")]


def probe(tmp_path: Path, server: list[str], *options: str, timeout: float = 2.0):
    """Run the CLI; returns (exit status, findings as dicts, stderr, the kept capture)."""
    capture = tmp_path / "probe.mcplog"
    done = subprocess.run([sys.executable, "-m", "mcplint", "probe", "--isolated", "--output-format", "json",
                           "--timeout", str(timeout), "--grace", "1", "-o", str(capture), *options, "--", *server],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    findings = json.loads(done.stdout) if done.stdout.strip() else []
    return done.returncode, findings, done.stderr, capture


def codes(findings: list[dict], party: str | None = "server") -> set[tuple[str, str]]:
    """(code, session name without its number) of the findings against ``party``."""
    return {(f["code"], f["session"].split(" ", 2)[-1]) for f in findings if f["party"] == party}


def no_client_findings(findings: list[dict]) -> None:
    assert [f for f in findings if f["party"] == "client"] == []


def test_clean_server_gives_no_finding(tmp_path):
    status, findings, stderr, capture = probe(tmp_path, PLAIN, "--call-tools", "-y")
    assert (status, findings) == (0, []), stderr
    assert "7 sessions" in stderr and "deliberate violations not shown" in stderr
    # the kept capture is an ordinary capture: check finds the client side of the deliberate steps there
    raw, _ = lint_paths([str(capture)])
    assert {f.code for f in raw if f.party == "client"} >= {"JR003", "JR006", "JR018", "PA001", "HX007", "TL008"}
    sessions = {json.loads(line).get("session") for line in capture.read_text().splitlines()}
    assert {"probe 1 main", "probe 5 version-future", "probe 6 malformed", "probe 7 discover"} <= sessions


@pytest.mark.parametrize(("fault", "status", "expected", "event"), [
    ("unknown-tool-iserror", 0, {("TL006", "main")}, None),
    ("undeclared-prompts", 1, {("CAP004", "main")}, None),
    ("ignore-cursor", 0, {("PA003", "main"), ("PA005", "main"), ("TL005", "main")}, "stopped following it"),
    ("log-undeclared", 1, {("CAP003", s) for s in ("main", "version-2024-11-05", "version-2025-03-26",
                                                     "version-2025-06-18", "version-future", "malformed")}, None),
    ("echo-version", 1, set(), "version-future: the server echoed the unknown revision '2099-01-01'"),
    ("banner", 1, {("IO001", s) for s in ("main", "version-2024-11-05", "version-2025-03-26", "version-2025-06-18",
                                           "version-future", "malformed", "discover")}, None),
])
def test_planted_fault_gives_its_codes(tmp_path, fault, status, expected, event):
    got_status, findings, stderr, _ = probe(tmp_path, [*PLAIN, "--fault", fault])
    assert codes(findings) == expected, stderr
    assert got_status == status, stderr
    no_client_findings(findings)
    if event:
        assert event in stderr


def test_server_of_2026_07_28_only(tmp_path):
    """A server that refuses initialize and answers server/discover is probed in stateless requests."""
    status, findings, stderr, capture = probe(tmp_path, [*PLAIN, "--fault", "modern-only"], "--call-tools", "-y")
    assert (status, findings) == (0, []), stderr
    assert "note: probe 1 main: initialize with 2025-11-25 was refused" in stderr
    sent = [json.loads(json.loads(line)["raw"]) for line in capture.read_text().splitlines()
            if json.loads(line)["dir"] == "c2s" and json.loads(line).get("session") == "probe 2 discover"]
    assert {m.get("method") for m in sent} >= {"server/discover", "tools/list", "tools/call", "resources/read"}
    assert all(m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28" for m in sent
               if "method" in m)


def test_tool_that_never_answers_is_a_hang_at_tool_called(tmp_path):
    status, findings, stderr, capture = probe(tmp_path, [*PLAIN, "--fault", "hang-tool"], "--call-tools", "-y",
                                              "--tool", "slow", timeout=1.0)
    assert status == 1
    assert "probe 1 main: tools/call slow (id" in stderr and "not answered within 1s (stage: tool called)" in stderr
    no_client_findings(findings)
    # the probe cancelled it (the spec's timeout behaviour) and went on: the version sessions ran
    text = capture.read_text()
    assert "notifications/cancelled" in text and "probe 7 discover" in text


def test_frozen_server_is_reported_and_the_probe_goes_on_in_a_new_session(tmp_path):
    status, findings, stderr, capture = probe(tmp_path, [*PLAIN, "--fault", "freeze-list"], timeout=1.0)
    assert status == 1
    assert "probe 1 main: prompts/list (id 6) was not answered within 1s (stage: tools listed)" in stderr
    assert codes(findings) == {("PI003", "main")}  # nor did it answer the ping that followed
    no_client_findings(findings)
    records = [json.loads(line) for line in capture.read_text().splitlines()]
    again = [json.loads(r["raw"]).get("method") for r in records if r.get("session") == "probe 2 main+"
             and r["dir"] == "c2s"]
    # the rest of the script, in a new session: the lists not yet fetched, then the error paths
    assert again[:5] == ["initialize", "notifications/initialized", "resources/list", "resources/templates/list",
                         "tools/list"]
    assert "prompts/list" not in again and "resources/read" in again
    assert any(r.get("event") == "exit" and r.get("signal") == "SIGTERM" and r["session"] == "probe 1 main"
               for r in records)


def test_tool_that_never_answers_is_cancelled_with_cancel_after(tmp_path):
    status, findings, stderr, _ = probe(tmp_path, [*PLAIN, "--fault", "hang-tool"], "--call-tools", "-y",
                                        "--cancel-after", "0.5")
    assert (status, findings) == (0, []), stderr
    assert "tools/call slow cancelled after 0.5s" in stderr


def test_server_that_crashes_on_start(tmp_path):
    status, findings, stderr, _ = probe(tmp_path, [*PLAIN, "--fault", "crash"])
    assert status == 1
    assert codes(findings) == {("HX001", "main")}  # the initialize it never answered
    assert "exited with status 1 on its own while stdin was open" in stderr
    assert "RuntimeError: missing API_KEY (stage: initialize sent)" in stderr
    assert "1 session" in stderr  # no point starting it again


def test_server_that_never_answers_initialize(tmp_path):
    status, findings, stderr, _ = probe(tmp_path, [*PLAIN, "--fault", "no-init"], timeout=1.0)
    assert status == 1
    assert codes(findings) == {("HX001", "main")}
    assert "initialize (id 1) was not answered within 1s (stage: initialize sent)" in stderr


def test_command_that_cannot_start_is_one_line_exit_2(tmp_path):
    status, findings, stderr, _ = probe(tmp_path, [str(tmp_path / "no-such-server")])
    assert status == 2 and findings == []
    assert stderr.strip().splitlines() == [f"mcplint: error: could not start '{tmp_path / 'no-such-server'}': "
                                           "No such file or directory"]


def test_call_tools_without_a_terminal_needs_yes(tmp_path):
    status, findings, stderr, capture = probe(tmp_path, PLAIN, "--call-tools")
    assert status == 0 and "pass -y to run them; no tool was called" in stderr
    calls = [json.loads(json.loads(line)["raw"]) for line in capture.read_text().splitlines()
             if '"tools/call' in line and json.loads(line)["dir"] == "c2s"]
    assert [c["params"]["name"] for c in calls] == ["mcplint-probe-missing"]  # only the error-layer step


def test_github_output_and_exit_zero(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcplint", "probe", "--isolated", "--output-format", "github",
                           "--exit-zero", "--timeout", "2", "--grace", "1", "--", *PLAIN, "--fault", "log-undeclared"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0
    assert "::error " in done.stdout and "CAP003" in done.stdout


def test_github_output_annotates_a_hang(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcplint", "probe", "--isolated", "--output-format", "github",
                           "--timeout", "1", "--grace", "1", "--", *PLAIN, "--fault", "no-init"],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert ("::error title=mcplint probe::probe 1 main: initialize (id 1) was not answered within 1s "
            "(stage: initialize sent)") in done.stdout.splitlines()


def test_options_that_need_call_tools(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcplint", "probe", "--tool", "x", "--", *PLAIN],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--tool and --cancel-after need --call-tools" in done.stderr


# -- the official Python SDK ------------------------------------------------------------------------------
@pytest.mark.parametrize(("server", "expected"), [
    ("probe_lowlevel.py", set()),
    # MCPServer's own behaviour (mcp 2.3.0): an unknown tool is an isError result, a fabricated cursor
    # gets the first page, prompt errors carry code 0 (-32603 on 2026-07-28), a missing resource -32602
    # (right on 2026-07-28 only); a string result is not serialized JSON in its text block
    ("probe_highlevel.py", {("TL006", "main"), ("PA003", "main"), ("PM005", "main"), ("RS004", "main"),
                            ("TL013", "main"), ("TL006", "discover"), ("PA003", "discover"), ("PM005", "discover"),
                            ("TL013", "discover")}),
])
def test_sdk_servers(tmp_path, server, expected):
    pytest.importorskip("mcp", reason="the official MCP Python SDK (the 'mcp' package of the test extra)")
    status, findings, stderr, capture = probe(tmp_path, [sys.executable, str(SERVERS / server)], "--call-tools",
                                              "-y", "--cancel-after", "1", timeout=10.0)
    assert codes(findings) == expected, stderr
    no_client_findings(findings)
    assert status == 0, stderr
    assert '"method":"server/discover"' in capture.read_text().replace('\\"', '"')


@pytest.fixture(scope="module")
def sdk1(tmp_path_factory):
    """The 1.x line of the official Python SDK (``mcp==1.30.0``, with its dependencies) installed
    aside from the suite's 2.x, from the package registry; skipped where it cannot be reached."""
    target = tmp_path_factory.mktemp("mcp1")
    try:
        done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               "--target", str(target), "mcp==1.30.0"], capture_output=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.skip("installing mcp==1.30.0 took too long")
    if done.returncode != 0:
        pytest.skip("mcp==1.30.0 could not be installed (no package registry?)")
    return target


@pytest.mark.parametrize(("server", "expected"), [
    # Server (mcp 1.30.0): an unknown tool is an isError result, a fabricated cursor gets the first page,
    # and a request without a method makes the SDK send notifications/message (level error) although
    # it declared no logging capability
    ("probe_sdk1_lowlevel.py", {("PA003", "main"), ("TL006", "main"), ("CAP003", "malformed")}),
    # FastMCP (mcp 1.30.0): the same, and prompt and resource errors with code 0, a bare value as the
    # text of structured content
    ("probe_sdk1_highlevel.py", {("PA003", "main"), ("TL006", "main"), ("PM005", "main"), ("RS004", "main"),
                                 ("TL013", "main"), ("CAP003", "malformed")}),
])
def test_sdk1_servers(tmp_path, sdk1, server, expected):
    command = ["env", f"PYTHONPATH={sdk1}", sys.executable, str(SERVERS / server)]
    status, findings, stderr, capture = probe(tmp_path, command, "--call-tools", "-y", "--cancel-after", "1",
                                              timeout=10.0)
    assert codes(findings) == expected, stderr
    no_client_findings(findings)
    assert status == 1, stderr  # CAP003 is an error
    assert "1.30.0" in capture.read_text()  # the serverInfo of the 1.x SDK


# -- Streamable HTTP (--url) ------------------------------------------------------------------------------
def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _url_once_listening(proc: subprocess.Popen, port: int) -> str:
    """The server's MCP URL once ``proc`` accepts connections on ``port`` (within 30 s)."""
    import socket
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    pytest.fail("the HTTP test server did not start")


@pytest.fixture
def http_server():
    """Start an SDK server over HTTP on loopback; yields a function (answers, state) -> URL."""
    pytest.importorskip("uvicorn", reason="the 'http' extra")
    pytest.importorskip("mcp", reason="the official MCP Python SDK")
    started = []

    def start(answers: str, state: str) -> str:
        port = _free_port()
        proc = subprocess.Popen([sys.executable, str(SERVERS / "serve_http.py"), str(SERVERS / "probe_highlevel.py"),
                                 str(port), answers, state], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(proc)
        return _url_once_listening(proc, port)

    yield start
    for proc in started:
        proc.terminate()
        proc.wait(10)


#: MCPServer over HTTP: its stdio deviations, and the transport's answer to a request without method
#: and to a batch (-32602 with a null id and a multi-line pydantic message)
HTTP_SDK = {("TL006", "main"), ("PA003", "main"), ("PM005", "main"), ("RS004", "main"),
            ("JR017", "malformed"), ("JR022", "malformed"), ("TL006", "discover"), ("PA003", "discover"),
            ("PM005", "discover")}


@pytest.mark.parametrize(("answers", "state", "options", "expected"), [
    # its SSE streams start with a message, not a priming event (HT019, a 2025-11-25 SHOULD): the
    # exchanges' http notes let the HTTP rules judge them
    ("sse", "stateful", ("--call-tools", "-y", "--cancel-after", "1"),
     HTTP_SDK | {("TL013", "main"), ("TL013", "discover"),
                 ("HT019", "main"), ("HT019", "malformed"), ("HT019", "version-future")}),
    ("json", "stateless", (), HTTP_SDK),
])
def test_sdk_server_over_http(tmp_path, http_server, answers, state, options, expected):
    url = http_server(answers, state)
    done = subprocess.run([sys.executable, "-m", "mcplint", "probe", "--isolated", "--output-format", "json",
                           "--timeout", "10", "-o", str(tmp_path / "h.mcplog"), *options, "--url", url],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    findings = json.loads(done.stdout)
    assert codes(findings) == expected, done.stderr
    no_client_findings(findings)
    assert done.returncode == 1  # JR017 is an error
    records = [json.loads(line) for line in (tmp_path / "h.mcplog").read_text().splitlines()]
    assert all(r.get("transport") == "http" for r in records if r["dir"] in ("c2s", "s2c"))
    assert sum(r.get("event") == "closed" for r in records) == 7
    notes = [r for r in records if r.get("event") == "http"]  # one per exchange, written when it ends
    entries = [n["http"]["entry"] for n in notes]
    assert entries and len(set(entries)) == len(entries)  # numbered across the sessions
    assert {n["har"]["request"]["method"] for n in notes} >= {"POST"}
    assert all(n["har"]["response"]["status"] for n in notes)


def test_url_that_cannot_be_reached_is_one_line_exit_2(tmp_path):
    pytest.importorskip("httpx2", reason="the 'http' extra")
    url = f"http://127.0.0.1:{_free_port()}/mcp"
    done = subprocess.run([sys.executable, "-m", "mcplint", "probe", "--url", url],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and f"could not connect to {url}" in done.stderr


@pytest.mark.parametrize("args", [["--url", "ftp://example.com/mcp"], ["--url", "http://x/mcp", "--", "python"],
                                  ["--insecure", "--", "python"]])
def test_bad_url_options(args):
    done = subprocess.run([sys.executable, "-m", "mcplint", "probe", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith("mcplint: error: ")


# -- the TypeScript reference server ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def everything_server(tmp_path_factory):
    """``@modelcontextprotocol/server-everything`` installed from the npm cache only (no network):
    skipped where npm or the cached package is missing."""
    import shutil

    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed")
    prefix = tmp_path_factory.mktemp("npm")
    try:
        done = subprocess.run([npm, "install", "--offline", "--no-audit", "--no-fund", "--prefix", str(prefix),
                               "@modelcontextprotocol/server-everything"], capture_output=True, timeout=90)
    except subprocess.TimeoutExpired:
        pytest.skip("npm install --offline took too long")
    binary = prefix / "node_modules" / ".bin" / "mcp-server-everything"
    if done.returncode != 0 or not binary.exists():
        pytest.skip("@modelcontextprotocol/server-everything is not in the npm cache")
    return [str(binary)]


def test_typescript_everything_server(tmp_path, everything_server):
    status, findings, stderr, _ = probe(tmp_path, everything_server, timeout=10.0)
    # its deviations (2026.8.31): the first page for a fabricated cursor, an isError result for an
    # unknown tool, -32602 for a missing resource where 2025-11-25 asks -32002
    assert codes(findings) == {("PA003", "main"), ("TL006", "main"), ("RS004", "main")}, stderr
    no_client_findings(findings)
    assert status == 0, stderr


def test_typescript_everything_server_over_http(tmp_path, everything_server):
    pytest.importorskip("httpx2", reason="the 'http' extra")
    import os

    port = _free_port()
    server = subprocess.Popen([*everything_server, "streamableHttp"], env={**os.environ, "PORT": str(port)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = _url_once_listening(server, port)
        done = subprocess.run([sys.executable, "-m", "mcplint", "probe", "--isolated", "--output-format", "json",
                               "--timeout", "10", "-o", str(tmp_path / "ts.mcplog"), "--url", url],
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    finally:
        server.terminate()
        server.wait(10)
    findings = json.loads(done.stdout)
    # as over stdio, and its transport's refusal of server/discover in a session it never initialized:
    # HTTP 400 with a JSON-RPC error whose id is null although the request's id (1) was readable
    assert codes(findings) == {("PA003", "main"), ("TL006", "main"), ("RS004", "main"), ("JR017", "discover")}, \
        done.stderr
    no_client_findings(findings)
    assert done.returncode == 1, done.stderr  # JR017 is an error


def test_url_without_the_http_extra_is_one_line_exit_2(monkeypatch):
    from click.testing import CliRunner

    from mcplint.cli import main
    from mcplint.commands.capture.http import MISSING, ProxyError
    from mcplint.commands.probe import http as probe_http

    def missing():
        raise ProxyError(MISSING)

    monkeypatch.setattr(probe_http, "http_stack", missing)
    result = CliRunner().invoke(main, ["probe", "--url", "http://127.0.0.1:9/mcp"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"mcplint: error: {MISSING}"]


def test_hostile_server_output_reaches_the_terminal_safely(tmp_path):
    """A crashing server's stderr is quoted: escapes neutralised, secrets masked."""
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    script = ("import sys; sys.stderr.write('boom \\x1b]0;pwned\\x07\\x1b[2J key=%s\\n' % sys.argv[1]); sys.exit(3)")
    status, _, stderr, _ = probe(tmp_path, [sys.executable, "-c", script, secret])
    assert status == 1
    assert "exited with status 3" in stderr
    assert "\x1b" not in stderr and "\x07" not in stderr
    assert secret not in stderr and "boom" in stderr

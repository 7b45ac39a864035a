"""mcplint diagnose names the stage a session reached and what to suspect."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcplint.cli import main
from tests import harbuilder


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parent.parent)


def diagnose(path):
    result = CliRunner().invoke(main, ["diagnose", "--output-format", "json", path])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.output)


def test_stalled_initialize():
    (d,) = diagnose("samples/stalled-initialize.mcplog")
    assert d["last_stage"] == "initialize_sent"
    assert "still busy" in d["suspect"]
    assert d["open_requests"][0]["method"] == "initialize" and d["open_requests"][0]["owed_by"] == "server"
    assert d["stderr_tail"]


def test_stdout_pollution_origin():
    (d,) = diagnose("samples/stdout-banner.mcplog")
    assert d["last_stage"] == "tool_returned"
    assert d["stdout_pollution"][0]["origin"].startswith("a start-up banner")


def test_late_response_after_cancel_and_missing_initialized():
    (d,) = diagnose("samples/progress-after-cancel.mcplog")
    assert d["late_responses"] and d["late_responses"][0]["method"] == "tools/call"
    (d,) = diagnose("samples/missing-initialized.mcplog")
    assert any("notifications/initialized" in note for note in d["notes"])


def test_modern_session_outcomes():
    (d,) = diagnose("samples/clean-2026-07-28.mcplog")
    assert d["era"] == "modern" and d["suspect"] == "Every request was answered."
    assert all(r["outcome"] == "answered" for r in d["modern_requests"])


def test_markdown_and_text():
    text = CliRunner().invoke(main, ["diagnose", "samples/stalled-initialize.mcplog"]).output
    assert "Suspect:" in text and "✘ initialize answered" in text
    markdown = CliRunner().invoke(main, ["diagnose", "--output-format", "markdown",
                                         "samples/stalled-initialize.mcplog"]).output
    assert markdown.startswith("## mcplint diagnose")


STALLS = {
    "stall-server-crash.mcplog": ("transport", "crashed with a Python traceback (ModuleNotFoundError"),
    "stalled-initialize.mcplog": ("initialize_sent", "still busy"),
    "stall-version-rejected.mcplog": ("initialize_answered", "never sent notifications/initialized"),
    "stall-no-tools-capability.mcplog": ("initialized_sent", "did not declare the tools capability"),
    "stall-tools-next-page.mcplog": ("tools_listed", "listed but never called"),
    "stall-tool-call.mcplog": ("tool_called", "never answered"),
    "stall-progress-only.mcplog": ("tool_called", "kept sending progress"),
}


@pytest.mark.parametrize("name", sorted(STALLS))
def test_each_stall_kind(name):
    stage, suspect = STALLS[name]
    (d,) = diagnose(f"samples/{name}")
    assert d["last_stage"] == stage
    assert suspect in d["suspect"]


@pytest.mark.parametrize("name", sorted(STALLS) + ["stall-server-crash.mcplog", "stalled-initialize.mcplog"])
def test_fail_on_stall_fails_on_every_stall_sample(name):
    result = CliRunner().invoke(main, ["diagnose", "--fail-on-stall", f"samples/{name}"])
    assert result.exit_code == 1 and "1 session stalled" in result.output
    assert CliRunner().invoke(main, ["diagnose", f"samples/{name}"]).exit_code == 0  # only on request


@pytest.mark.parametrize("name", ["clean-2025-06-18.mcplog", "clean-full-2026-07-28.mcplog",
                                  "real-sdk-weather-2026-07-28.mcplog", "reused-ids.jsonl"])
def test_sessions_that_got_their_answers_do_not_stall(name):
    """The 2026-07-28 listen stream stays open by design, a cancelled request is no longer owed,
    and a response whose id has the wrong type ("3" for 3, JR012) still answers."""
    assert CliRunner().invoke(main, ["diagnose", "--fail-on-stall", f"samples/{name}"]).exit_code == 0


def test_modern_listen_stream_and_cancelled_request_outcomes():
    (d,) = diagnose("samples/clean-full-2026-07-28.mcplog")
    outcomes = {r["method"]: r["outcome"] for r in d["modern_requests"] if r["method"] == "subscriptions/listen"}
    assert outcomes == {"subscriptions/listen": "open (stays open by design)"}
    assert any(r["outcome"] == "cancelled" for r in d["modern_requests"])
    assert d["suspect"].startswith("Every request was answered or cancelled")


def test_answer_with_wrong_id_type_is_not_open():
    (d,) = diagnose("samples/reused-ids.jsonl")
    assert d["open_requests"] == [] and d["last_stage"] == "tool_returned"


def test_stall_details():
    (d,) = diagnose("samples/stall-server-crash.mcplog")
    assert "ModuleNotFoundError" in d["stderr_tail"][-1]
    (d,) = diagnose("samples/stall-tools-next-page.mcplog")
    assert any("nextCursor" in note for note in d["notes"])
    (d,) = diagnose("samples/stall-tool-call.mcplog")
    assert d["open_requests"][0]["age"] > 40
    (d,) = diagnose("samples/stall-progress-only.mcplog")
    assert d["timeouts"][0]["signature"].startswith("cancelled with reason")


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_every_format_masks_personal_data(fmt):
    output = CliRunner().invoke(main, ["diagnose", "--output-format", fmt,
                                       "samples/stalled-initialize.mcplog"]).output
    assert "/Users/sam/" not in output and "/Users/[REDACTED]/" in output


def test_healthy_sessions_beyond_the_limit_are_counted_not_kept(monkeypatch, tmp_path):
    import mcplint.commands.diagnose.collect

    monkeypatch.setattr(mcplint.commands.diagnose.collect, "MAX_SESSIONS", 1)
    healthy = open("samples/stdout-banner.mcplog").read().splitlines()
    healthy = [line for line in healthy if '"raw":"{' in line]  # without the banner
    stalled = open("samples/stalled-initialize.mcplog").read()
    path = tmp_path / "many.mcplog"
    path.write_text("\n".join(healthy * 3) + "\n" + stalled)
    result = CliRunner().invoke(main, ["diagnose", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.count(" — session ") == 2  # the first session, and the stalled one
    assert "2 more session(s) not listed: 2 with nothing to report" in result.output


def test_lists_are_capped_with_a_count(monkeypatch):
    import mcplint.commands.diagnose.collect

    monkeypatch.setattr(mcplint.commands.diagnose.collect, "MAX_ITEMS", 1)
    d = mcplint.commands.diagnose.collect.Diagnosis("p", "1")
    for line in (1, 2, 3):
        d.add("timeouts", {"line": line, "signature": "x"})
    assert d.timeouts == [{"line": 1, "signature": "x"}] and d.omitted["timeouts"] == 2 and not d.healthy


def test_sessions_with_problems_beyond_the_cap_are_counted_too(monkeypatch, tmp_path):
    import mcplint.commands.diagnose.collect

    monkeypatch.setattr(mcplint.commands.diagnose.collect, "MAX_SESSIONS", 1)
    monkeypatch.setattr(mcplint.commands.diagnose.collect, "MAX_KEPT", 1)
    healthy = [line for line in open("samples/stdout-banner.mcplog").read().splitlines() if '"raw":"{' in line]
    path = tmp_path / "many.mcplog"
    path.write_text("\n".join(healthy * 3) + "\n" + open("samples/stalled-initialize.mcplog").read())
    result = CliRunner().invoke(main, ["diagnose", str(path)])
    assert result.output.count(" — session ") == 1
    assert "3 more session(s) not listed: 2 with nothing to report, 1 stopped after 'initialize sent'" \
        in result.output


# -- how the server ended ----------------------------------------------------------------------
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
INIT_OK = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                                 "serverInfo": {"name": "s", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
LIST_OK = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
CALL_OK = {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "ok"}]}}
STAGES = ("initialize", "tools/list", "tools/call")
PYTHON_CRASH = ["Traceback (most recent call last):", '  File "/srv/app/server.py", line 9, in handle',
                "    raise ValueError('boom')", "ValueError: boom"]
NODE_CRASH = ["/srv/app/index.js:12", "    throw new Error('boom');", "    ^", "",
              "TypeError: Cannot read properties of undefined (reading 'city')",
              "    at handle (/srv/app/index.js:12:11)", "    at process.processTicksAndRejections (node:internal)",
              "", "Node.js v20.11.0"]
GO_CRASH = ["panic: runtime error: invalid memory address or nil pointer dereference",
            "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]", "",
            "goroutine 7 [running]:", "main.handle(...)", "\t/srv/app/main.go:42 +0x1c", "exit status 2"]


def exchange(stage):
    """(dir, message) pairs of a session that waits for the server's answer to ``stage``."""
    steps = [("c2s", INIT)]
    if stage != "initialize":
        steps += [("s2c", INIT_OK), ("c2s", INITIALIZED), ("c2s", LIST)]
    if stage == "tools/call":
        steps += [("s2c", LIST_OK), ("c2s", CALL)]
    if stage == "answered":
        steps += [("s2c", LIST_OK), ("c2s", CALL), ("s2c", CALL_OK)]
    return steps


def write_capture(tmp_path, steps, stderr=(), meta=()):
    """A canonical capture: the messages, then stderr, then ``meta`` records (mcplint capture's end)."""
    lines = [{"dir": d, "raw": orjson.dumps(m).decode()} for d, m in steps]
    lines += [{"dir": "stderr", "raw": text} for text in stderr]
    lines += [{"dir": "meta", **fields} for fields in meta]
    for n, line in enumerate(lines):
        line["ts"] = f"2026-12-02T10:00:{n:02d}.000Z"
    path = tmp_path / "end.mcplog"
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return str(path)


def write_lines(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def exit_meta(text, status=None, signal=None):
    return {"event": "exit", "raw": text, "status": status, "signal": signal, "steps": []}


def pending_line(steps):
    return len(steps)  # the unanswered request is the last message, one per line from line 1


@pytest.mark.parametrize("stage", STAGES)
def test_capture_exit_status_before_an_answer(tmp_path, stage):
    steps = exchange(stage)
    path = write_capture(tmp_path, steps, ["fatal: config file missing"],
                         [exit_meta("server exited with status 3 on its own while stdin was open", status=3)])
    (d,) = diagnose(path)
    assert d["suspect"] == f"The server exited (status 3) before answering {stage} (line {pending_line(steps)})."
    assert "still busy" not in d["suspect"] and "never answered" not in d["suspect"]
    end = d["exit"]
    assert (end["status"], end["signal"], end["line"], end["source"], end["by"]) == \
        (3, None, len(steps) + 2, "capture meta", None)
    assert end["verdict"] == d["suspect"] and "read its stderr" in d["fix"]


@pytest.mark.parametrize("stage", STAGES)
def test_capture_killed_by_signal_before_an_answer(tmp_path, stage):
    steps = exchange(stage)
    killed = exit_meta("server was killed by SIGKILL on its own while stdin was open", signal="SIGKILL")
    path = write_capture(tmp_path, steps, meta=[killed])
    (d,) = diagnose(path)
    assert d["suspect"] == f"The server was killed by SIGKILL before answering {stage} (line {pending_line(steps)})."
    assert d["exit"]["signal"] == "SIGKILL" and d["exit"]["status"] is None
    assert "OOM killer" in d["fix"]


@pytest.mark.parametrize("text, signal", [
    ("server exited with status 0 after stdin closed", None),
    ("server was killed by SIGTERM after stdin closed (no exit within 2s, sent SIGTERM)", "SIGTERM"),
    ("server exited with status 0 after mcplint capture received SIGINT (forwarded SIGINT)", None),
])
def test_client_ended_the_session_is_no_crash(tmp_path, text, signal):
    steps = exchange("tools/call")
    path = write_capture(tmp_path, steps, meta=[exit_meta(text, status=None if signal else 0, signal=signal)])
    (d,) = diagnose(path)
    assert d["suspect"].startswith("A tool call was never answered.")
    assert f"The client ended the session (line {len(steps) + 1}: {text}) while tools/call (line 6) was still open: " \
           "a stall, not a crash." in d["suspect"]
    assert d["exit"]["by"] == "client" and "exited (status" not in d["suspect"]


@pytest.mark.parametrize("text", ["server exited with status 0 after stdin closed",
                                  "server exited with status 0 on its own while stdin was open"])
def test_normal_exit_after_everything_was_answered_changes_nothing(tmp_path, text):
    path = write_capture(tmp_path, exchange("answered"), meta=[exit_meta(text, status=0)])
    (d,) = diagnose(path)
    assert d["suspect"] == "The session reached tool results; nothing in the lifecycle is stuck."
    assert not d["notes"] and not d["open_requests"]
    assert d["exit"]["status"] == 0 and d["exit"]["verdict"] is None
    output = CliRunner().invoke(main, ["diagnose", path]).output
    assert "Ended:" not in output and "Last stderr lines" not in output


def test_crash_with_nothing_left_to_answer_is_a_note(tmp_path):
    path = write_capture(tmp_path, exchange("answered"), PYTHON_CRASH,
                         [exit_meta("server exited with status 1 on its own while stdin was open", status=1)])
    (d,) = diagnose(path)
    assert d["suspect"] == "The session reached tool results; nothing in the lifecycle is stuck."
    assert d["notes"] == ["line 12: The server exited (status 1) with nothing left to answer; its stderr ends in a "
                          "Python traceback (ValueError: boom)."]


def test_exit_after_an_answered_stage_stops_the_session(tmp_path):
    path = write_capture(tmp_path, [("c2s", INIT), ("s2c", INIT_OK)],
                         meta=[exit_meta("server exited with status 1 on its own while stdin was open", status=1)])
    (d,) = diagnose(path)
    assert d["last_stage"] == "initialize_answered"
    assert d["suspect"] == ("The server exited (status 1) after 'initialize answered', with nothing left to answer: "
                            "the session could not go on.")


def test_capture_could_not_start_the_server(tmp_path):
    path = write_capture(tmp_path, [], meta=[{"event": "error", "raw": "could not start 'weather-mcp': No such file "
                                                                       "or directory", "command": ["weather-mcp"]}])
    (d,) = diagnose(path)
    assert d["suspect"] == ("The server never started (line 1: could not start 'weather-mcp': No such file or "
                            "directory).")
    assert d["exit"]["event"] == "never started" and "PATH" in d["fix"]


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("crash, report", [
    (PYTHON_CRASH, "a Python traceback (ValueError: boom)"),
    (NODE_CRASH, "a Node.js error (TypeError: Cannot read properties of undefined (reading 'city'))"),
    (GO_CRASH, "a Go panic (runtime error: invalid memory address or nil pointer dereference)"),
])
def test_stderr_ending_in_a_crash_report(tmp_path, stage, crash, report):
    steps = exchange(stage)
    (d,) = diagnose(write_capture(tmp_path, steps, ["INFO:app:handling request", *crash]))
    assert d["suspect"] == f"The server crashed with {report} before answering {stage} (line {pending_line(steps)})."
    assert d["exit"]["event"] == "crash" and d["exit"]["source"] == "stderr"
    assert d["exit"]["traceback"]["runtime"] in report and "crash report" in d["fix"]


def test_crash_report_and_exit_status_together(tmp_path):
    steps = exchange("tools/call")
    path = write_capture(tmp_path, steps, PYTHON_CRASH,
                         [exit_meta("server exited with status 1 on its own while stdin was open", status=1)])
    (d,) = diagnose(path)
    assert d["suspect"] == ("The server exited (status 1) before answering tools/call (line 6); its stderr ends in a "
                            "Python traceback (ValueError: boom).")
    assert d["exit"]["traceback"] == {"runtime": "Python", "line": 10, "exception": "ValueError: boom"}
    output = CliRunner().invoke(main, ["diagnose", path]).output
    assert "Ended: line 11 (capture meta): server exited with status 1 on its own while stdin was open" in output
    assert "Crash report: line 10 (Python): ValueError: boom" in output
    assert "Last stderr lines:\n  7: Traceback (most recent call last):" in output


@pytest.mark.parametrize("after", [
    [("s2c", LIST_OK)],  # the server answered after the traceback: it was alive
])
def test_a_traceback_followed_by_server_traffic_is_no_crash(tmp_path, after):
    lines = [orjson.dumps({"ts": "2026-12-02T10:00:00Z", "dir": d, "raw": orjson.dumps(m).decode()}).decode()
             for d, m in exchange("tools/list")]
    lines += [orjson.dumps({"ts": "2026-12-02T10:00:01Z", "dir": "stderr", "raw": t}).decode() for t in PYTHON_CRASH]
    lines += [orjson.dumps({"ts": "2026-12-02T10:00:02Z", "dir": d, "raw": orjson.dumps(m).decode()}).decode()
              for d, m in after + [("c2s", CALL)]]
    (d,) = diagnose(write_lines(tmp_path, "alive.mcplog", lines))
    assert d["exit"] is None and d["suspect"] == "A tool call was never answered."


def test_a_traceback_followed_by_log_lines_is_no_crash(tmp_path):
    (d,) = diagnose(write_capture(tmp_path, exchange("tools/call"), [*PYTHON_CRASH, "INFO:app:retrying in 5 s"]))
    assert d["exit"] is None and d["suspect"] == "A tool call was never answered."


@pytest.mark.parametrize("lines, exception", [
    (PYTHON_CRASH, "ValueError: boom"),
    (["Traceback (most recent call last):", '  File "a.py", line 1, in <module>', "KeyError: 'x'", "",
      "During handling of the above exception, another exception occurred:", "",
      "Traceback (most recent call last):", '  File "a.py", line 3, in <module>', "RuntimeError: config"],
     "RuntimeError: config"),
    (["  + Exception Group Traceback (most recent call last):", '  |   File "a.py", line 1, in <module>',
      "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
      "  +-+---------------- 1 ----------------",
      "    | Traceback (most recent call last):", '    |   File "a.py", line 5, in run',
      "    | ConnectionError: upstream refused", "    +------------------------------------"],
     "ConnectionError: upstream refused"),
    (['  File "/srv/app/server.py", line 3', "    def f(", "         ^", "SyntaxError: '(' was never closed"],
     "SyntaxError: '(' was never closed"),
    (["Traceback (most recent call last):", '  File "a.py", line 1, in <module>',
      "pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings", "api_key",
      "  Field required [type=missing, input_value={}, input_type=dict]"],
     "pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings"),
    (NODE_CRASH, "TypeError: Cannot read properties of undefined (reading 'city')"),
    (["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/app/index.js",
      "    at packageResolve (node:internal/modules/esm/resolve:854:9) {", "  code: 'ERR_MODULE_NOT_FOUND'", "}", "",
      "Node.js v20.11.0"], "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/app/index.js"),
    (["fatal error: all goroutines are asleep - deadlock!", "", "goroutine 1 [chan receive]:"],
     "fatal error: all goroutines are asleep - deadlock!"),
    (["Error: could not reach api.example.com", "INFO server ready"], None),  # no stack: not a crash report
    (["Traceback (most recent call last):", '  File "a.py", line 1', "ValueError: x", "2026-12-02 10:00:01 INFO ok"],
     None),
    (["ERROR:app:request failed", "WARNING:app:retrying"], None),
])
def test_crash_reports_are_read_to_their_last_exception(lines, exception):
    from mcplint.commands.diagnose.collect import CrashWatch

    watch = CrashWatch()
    for number, text in enumerate(lines, 1):
        watch.feed(number, text)
    assert (watch.crash or {}).get("exception") == exception


def test_crash_report_is_masked(tmp_path):
    secret = "sk-ant-api03-" + "A" * 40
    (d,) = diagnose(write_capture(tmp_path, exchange("tools/call"),
                                  ["Traceback (most recent call last):", '  File "/Users/sam/app/server.py", line 9',
                                   f"PermissionError: token {secret} rejected for /Users/sam/notes"]))
    assert secret not in orjson.dumps(d).decode() and "PermissionError" in d["suspect"]
    path = str(tmp_path / "end.mcplog")
    markdown = CliRunner().invoke(main, ["diagnose", "--output-format", "markdown", path]).output
    assert secret not in markdown and "/Users/sam/" not in markdown and "Crash report:" in markdown


def test_modern_session_request_owed_at_exit(tmp_path):
    discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}
    path = write_capture(tmp_path, [("c2s", discover)],
                         meta=[exit_meta("server exited with status 1 on its own while stdin was open", status=1)])
    (d,) = diagnose(path)
    assert d["era"] == "modern"
    assert d["suspect"] == "The server exited (status 1) before answering server/discover (line 1)."


# host logs: each host's exit line, at each stage
def vscode_log(steps, tail):
    marker = {"c2s": "[editor -> server]", "s2c": "[server -> editor]"}
    return ["2026-01-06 14:50:03.120 [info] Starting server weather",
            *(f"2026-01-06 14:50:03.{n:03d} [debug] {marker[d]} {orjson.dumps(m).decode()}"
              for n, (d, m) in enumerate(steps)),
            *(f"2026-01-06 14:50:04.000 [{level}] {text}" for level, text in tail)]


def claude_log(steps, tail):
    who = {"c2s": "client", "s2c": "server"}
    return ["2025-06-23T03:35:12.004Z [weather] [info] Initializing server...",
            *(f"2025-06-23T03:35:12.{n:03d}Z [weather] [info] Message from {who[d]}: {orjson.dumps(m).decode()}"
              for n, (d, m) in enumerate(steps)),
            *(f"2025-06-23T03:35:13.000Z [weather] [info] {text}" for text in tail)]


def go_server_log(steps, tail):
    verb = {"c2s": "read", "s2c": "write"}  # the server logged: it reads what the client sends
    return [f"{verb[d]}: {orjson.dumps(m).decode()}" for d, m in steps] + tail


@pytest.mark.parametrize("stage", STAGES)
def test_vscode_exit_lines(tmp_path, stage):
    steps = exchange(stage)
    request = pending_line(steps) + 1  # after "Starting server"
    stderr = [("warning", f"[server stderr] {line}") for line in PYTHON_CRASH]
    (d,) = diagnose(write_lines(tmp_path, "exit.log", vscode_log(steps, [
        *stderr, ("info", "Connection state: Error Process exited with code 1")])))
    assert d["suspect"] == (f"The server exited (status 1) before answering {stage} (line {request}); its stderr ends "
                            "in a Python traceback (ValueError: boom).")
    assert (d["exit"]["source"], d["exit"]["status"], d["exit"]["line"]) == ("VS Code log", 1, request + 5)

    (d,) = diagnose(write_lines(tmp_path, "killed.log", vscode_log(steps, [
        ("info", "Connection state: Error Process exited with code null"),
        ("error", "Server exited before responding to `initialize` request.")])))
    assert d["suspect"] == f"The server was killed by a signal before answering {stage} (line {request})."

    (d,) = diagnose(write_lines(tmp_path, "stopped.log", vscode_log(steps, [
        ("info", "Stopping server weather"), ("info", "Connection state: Stopped")])))
    assert "The client ended the session" in d["suspect"] and d["exit"]["by"] == "client"

    (d,) = diagnose(write_lines(tmp_path, "disposed.log", vscode_log(steps, [("info", "Connection state: Stopped")])))
    assert "the log does not say which side closed it" in d["suspect"]  # exit code 0, or VS Code let go


@pytest.mark.parametrize("stage", STAGES)
def test_claude_desktop_exit_lines(tmp_path, stage):
    steps = exchange(stage)
    request = pending_line(steps) + 1  # after "Initializing server..."
    (d,) = diagnose(write_lines(tmp_path, "mcp-server-weather.log", claude_log(steps, [
        "Server transport closed unexpectedly, this is likely due to the process exiting early. If you are "
        "developing this MCP server you can add output to stderr", "Server disconnected.", "Client transport closed"])))
    assert d["suspect"] == (f"The server closed the connection (it probably exited) before answering {stage} "
                            f"(line {request}).")
    assert d["exit"]["source"] == "Claude Desktop log" and d["exit"]["by"] == "server"

    (d,) = diagnose(write_lines(tmp_path, "shutdown.log", claude_log(steps, [
        "Shutting down server...", "Client transport closed", "Server transport closed unexpectedly, this is likely "
                                                              "due to the process exiting early."])))
    assert "The client ended the session" in d["suspect"]

    (d,) = diagnose(write_lines(tmp_path, "closed.log", claude_log(steps, ["Client transport closed",
                                                                           "Server transport closed"])))
    assert f"The connection then closed (line {request + 1}: " in d["suspect"]
    assert "the log does not say which side closed it" in d["suspect"]


@pytest.mark.parametrize("stage", STAGES)
def test_go_sdk_read_eof(tmp_path, stage):
    steps = exchange(stage)
    (d,) = diagnose(write_lines(tmp_path, "server.log", go_server_log(steps, ["read error: EOF"])))
    assert f"The client ended the session (line {len(steps) + 1}: read error: EOF) while {stage} " \
           f"(line {len(steps)}) was still open" in d["suspect"]
    assert d["exit"]["source"] == "Go SDK log"


def test_markdown_and_text_show_the_end(tmp_path):
    steps = exchange("tools/list")
    path = write_capture(tmp_path, steps, PYTHON_CRASH,
                         [exit_meta("server exited with status 1 on its own while stdin was open", status=1)])
    markdown = CliRunner().invoke(main, ["diagnose", "--output-format", "markdown", path]).output
    assert "Suspect: The server exited (status 1) before answering tools/list (line 4)" in markdown
    assert "Ended: line 9 (capture meta): `server exited with status 1 on its own while stdin was open`" in markdown


def test_unanswered_tools_list_is_named(tmp_path):
    (d,) = diagnose(write_capture(tmp_path, exchange("tools/list")))
    assert d["last_stage"] == "initialized_sent"
    assert d["suspect"] == "tools/list (line 4) was never answered; the server owes the answer."


def test_odd_exit_records_never_crash(tmp_path):
    path = write_capture(tmp_path, exchange("initialize"), meta=[
        {"event": "exit", "raw": 5, "status": "1", "signal": 9, "by": ["x"]},
        {"event": "start", "raw": "mcplint capture started"}, {"event": None}])
    (d,) = diagnose(path)
    assert d["suspect"] == "The server exited before answering initialize (line 1)."
    assert (d["exit"]["status"], d["exit"]["signal"], d["exit"]["by"], d["exit"]["text"]) == (None, None, None, None)


# -- HAR input: places are entries, facts are kept per request (issue 13) -----------------------
ROOT = Path(__file__).resolve().parent.parent
HAR_FILES = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("samples/*.har"), *ROOT.glob("tests/corpus/*.har")])
V = "2025-11-25"


def located(d):
    """The located items of a diagnosis (JSON)."""
    return [s for s in d["stages"] if s["reached"]] + d["open_requests"] + d["timeouts"] + d["late_responses"] \
        + d["stdout_pollution"] + d["modern_requests"]


@pytest.mark.parametrize("path", HAR_FILES)
def test_har_input_is_located_by_entry(path):
    found = diagnose(path)
    assert any(located(d) for d in found)
    for d in found:
        assert all(type(item["line"]) is int and item["entry"] >= 1 for item in located(d))
    for fmt in ("text", "markdown"):
        output = CliRunner().invoke(main, ["diagnose", "--output-format", fmt, path]).output
        assert "entry " in output and not re.search(r"\bline \d", output)


def test_har_sample_suspect_and_stages_name_entries():
    (d,) = diagnose("samples/clean-streamable-http-sse-2025-11-25.har")
    assert d["suspect"].endswith("(tools/call in entry 7: 2 progress notification(s), then cancelled)")
    text = CliRunner().invoke(main, ["diagnose", "samples/clean-streamable-http-sse-2025-11-25.har"]).output
    assert "✔ notifications/initialized sent (entry 2)\n" in text


def sampling_request(id_, token):
    return {"jsonrpc": "2.0", "id": id_, "method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10,
        "_meta": {"progressToken": token}}}


def test_har_server_requests_on_one_get_stream_are_listed_apart(tmp_path):
    """Both requests arrive on the GET stream (entry 3, one line); the client reports progress on
    each (entries 4-6) and answers neither."""
    def progress(token, value, at):
        return harbuilder.entry(request_headers=harbuilder.post_headers("s1", V), status=202, started=at, time_ms=2,
                                body={"jsonrpc": "2.0", "method": "notifications/progress",
                                      "params": {"progressToken": token, "progress": value}})

    stream = harbuilder.entry("GET", request_headers={"Accept": "text/event-stream", "Mcp-Session-Id": "s1",
                                                      "MCP-Protocol-Version": V},
                              sse=[sampling_request(1, "a"), sampling_request(2, "b")], arrivals=[0.5, 0.6],
                              started=0.1, time_ms=5000, wait_ms=20)
    path = tmp_path / "two-asks.har"
    path.write_text(harbuilder.dumps(harbuilder.har([*harbuilder.handshake(V, "s1", {"sampling": {}}, {"tools": {}}),
                                                     stream, progress("a", 1, 1.0), progress("b", 1, 1.5),
                                                     progress("a", 2, 2.0)])))
    (d,) = diagnose(str(path))
    assert [(o["entry"], o["method"], o["id"], o["owed_by"], round(o["age"], 1), o["progress"])
            for o in d["open_requests"]] == [(3, "sampling/createMessage", 1, "client", 1.5, 2),
                                             (3, "sampling/createMessage", 2, "client", 1.4, 1)]
    text = CliRunner().invoke(main, ["diagnose", str(path)]).output
    assert ("  entry 3: sampling/createMessage #1, open for 1.5 s; the client owes the answer, 2 progress "
            "notification(s)\n  entry 3: sampling/createMessage #2, open for 1.4 s; the client owes the answer, "
            "1 progress notification(s)\n") in text


def test_progress_of_requests_on_one_batch_line_is_counted_apart(tmp_path):
    """A batch puts several requests on one line: progress is counted per request."""
    call = [{**CALL, "id": n, "params": {**CALL["params"], "_meta": {"progressToken": token}}}
            for n, token in ((1, "a"), (2, "b"))]
    tick = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "a", "progress": 1}}
    init = {**INIT, "params": {**INIT["params"], "protocolVersion": "2025-03-26"}}
    init_ok = {**INIT_OK, "result": {**INIT_OK["result"], "protocolVersion": "2025-03-26"}}
    (d,) = diagnose(write_capture(tmp_path, [("c2s", init), ("s2c", init_ok), ("c2s", INITIALIZED),
                                             ("c2s", call), ("s2c", tick), ("s2c", tick)]))
    assert [(o["line"], o["id"], o["progress"]) for o in d["open_requests"]] == [(4, 1, 2), (4, 2, 0)]
    assert all("entry" not in o for o in d["open_requests"])  # no HAR, no entry


def test_outcomes_of_modern_requests_on_one_batch_line_are_kept_apart(tmp_path):
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": meta},
             {"jsonrpc": "2.0", "id": 2, "method": "prompts/list", "params": meta}]
    answers = [{"jsonrpc": "2.0", "id": 1, "result": {"tools": []}},
               {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}}]
    (d,) = diagnose(write_capture(tmp_path, [("c2s", batch), *(("s2c", answer) for answer in answers)]))
    assert [(r["line"], r["method"], r["outcome"]) for r in d["modern_requests"]] == [
        (1, "tools/list", "answered"), (1, "prompts/list", "error -32601 Method not found")]


def test_har_call_open_when_the_client_deletes_the_session_is_a_stall_the_client_ended(tmp_path):
    """The client DELETEs the session (accepted) while its tools/call runs: the client ended it."""
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "slow", "arguments": {}}}
    calling = harbuilder.entry(request_headers=harbuilder.post_headers("s1", V), body=call, sse=[],
                               started=1.0, time_ms=900, error="net::ERR_ABORTED")
    delete = harbuilder.entry("DELETE", request_headers={"Mcp-Session-Id": "s1", "MCP-Protocol-Version": V},
                              status=200, started=1.5, time_ms=2)
    path = tmp_path / "deleted.har"
    path.write_text(harbuilder.dumps(harbuilder.har([*harbuilder.handshake(V, "s1", None, {"tools": {}}),
                                                     calling, delete])))
    (d,) = diagnose(str(path))
    assert (d["exit"]["by"], d["exit"]["source"], d["exit"]["entry"]) == ("client", "HTTP DELETE", 4)
    assert d["suspect"].endswith("The client ended the session (entry 4: DELETE of the session) while tools/call "
                                 "(entry 3) was still open: a stall, not a crash.")

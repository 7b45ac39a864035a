"""``mcplint capture``: a transparent, recording stdio proxy."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest

from mcplint.api import lint_paths
from mcplint.commands.capture.stdio import encode_record, exit_status, format_ts, mask_line
from mcplint.input.lines import iter_lines
from mcplint.input.parse import Parser
from mcplint.input.readers import read_capture, sniff
from mcplint.model import Kind

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the capture proxy is POSIX-only")

TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

ECHO = """
import sys
sys.stderr.write("echo server starting\\n"); sys.stderr.flush()
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(line); sys.stdout.buffer.flush()
sys.stderr.write("bye\\n")
"""


def server(tmp_path: Path, source: str, name: str = "server.py") -> list[str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return [sys.executable, str(path)]


def capture(tmp_path: Path, command: list[str], stdin: bytes = b"", *options: str, timeout: float = 60,
            out: str = "cap.mcplog") -> tuple[subprocess.CompletedProcess, Path]:
    path = tmp_path / out
    args = [sys.executable, "-m", "mcplint", "capture", "-o", str(path), *options, "--", *command]
    proc = subprocess.run(args, input=stdin, capture_output=True, timeout=timeout)
    return proc, path


def records(path: Path) -> list[dict]:
    return [json.loads(line.decode("utf-8", "surrogateescape")) for line in path.read_bytes().splitlines()]


def test_bytes_pass_unchanged_and_every_line_is_recorded(tmp_path):
    sent = (b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
            b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\r\n'
            b'bad \xff\xfe bytes\n'
            b'\n'
            b'last line without newline')
    proc, path = capture(tmp_path, server(tmp_path, ECHO), sent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == sent  # identical bytes, CR, invalid UTF-8 and the missing final newline included
    assert b"echo server starting\n" in proc.stderr and b"bye\n" in proc.stderr
    got = records(path)
    assert got[0]["dir"] == "meta" and got[0]["event"] == "start"
    assert got[-1]["dir"] == "meta" and got[-1]["event"] == "exit" and got[-1]["status"] == 0
    assert "after stdin closed" in got[-1]["raw"]
    assert all(TS.match(r["ts"]) for r in got)
    c2s = [r["raw"] for r in got if r["dir"] == "c2s"]
    s2c = [r["raw"] for r in got if r["dir"] == "s2c"]
    expected = ['{"jsonrpc":"2.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\r',
                "bad \udcff\udcfe bytes", "", "last line without newline"]
    assert c2s == expected and s2c == expected
    assert [r["raw"] for r in got if r["dir"] == "stderr"] == ["echo server starting", "bye"]


def test_a_line_is_recorded_before_the_answer_to_it(tmp_path):
    sent = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i for i in range(200))
    proc, path = capture(tmp_path, server(tmp_path, ECHO), sent)
    assert proc.returncode == 0
    seen: set[str] = set()
    for record in records(path):
        if record["dir"] == "c2s":
            seen.add(record["raw"])
        elif record["dir"] == "s2c":
            assert record["raw"] in seen, "an echo was recorded before the line it echoes"


def test_capture_reads_back_with_the_right_flags_and_kinds(tmp_path):
    sent = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\nnot json \xff\n'
    _, path = capture(tmp_path, server(tmp_path, ECHO), sent)
    with open(path, "rb") as handle:
        lines = list(iter_lines(handle))
    assert sniff([data for data, _ in lines[:5]]) == "capture"
    recs = list(Parser(str(path)).records(read_capture(lines)))
    kinds = [r.kind for r in recs]
    assert kinds[0] is Kind.COMMENT and kinds[-1] is Kind.COMMENT  # the meta records
    assert Kind.STDERR in kinds
    flagged = [r for r in recs if "invalid_utf8" in r.flags]
    assert len(flagged) == 2  # the invalid line, once per direction, and nothing else
    findings, _ = lint_paths([str(path)])
    assert {f.code for f in findings if f.line in {r.line for r in flagged}} >= {"IO005"}


#: A tools server that answers a slow call only when its stdin closes, with the SDKs' shutdown
#: error (the TS and Python SDKs answer calls in flight with -32000 "Connection closed").
SHUTDOWN_ANSWER = """
import json, sys, time
tools = [{"name": "sleep", "inputSchema": {"type": "object"}}]
pending = []
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "s", "version": "1"}}
    elif msg.get("method") == "tools/list":
        result = {"tools": tools}
    elif msg.get("method") == "tools/call":
        pending.append(msg["id"])
        continue
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
time.sleep(0.05)
for id_ in pending:
    error = {"code": -32000, "message": "Connection closed"}
    print(json.dumps({"jsonrpc": "2.0", "id": id_, "error": error}), flush=True)
"""
SLOW_CALL = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
             b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n'
             b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
             b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'
             b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{}}}\n')


def test_the_host_closing_stdin_is_recorded_in_order_with_its_time(tmp_path):
    proc, path = capture(tmp_path, server(tmp_path, SHUTDOWN_ANSWER), SLOW_CALL)
    assert proc.returncode == 0, proc.stderr
    got = records(path)
    closed = [i for i, r in enumerate(got) if r["dir"] == "meta" and r["event"] == "stdin-closed"]
    assert len(closed) == 1
    at = closed[0]
    note = got[at]
    assert TS.match(note["ts"]) and note["by"] == "client"
    last_c2s = max(i for i, r in enumerate(got) if r["dir"] == "c2s")
    last_s2c = max(i for i, r in enumerate(got) if r["dir"] == "s2c")
    assert last_c2s < at < last_s2c < len(got) - 1  # after the host's last line, before the answer and the exit
    assert note["ts"] <= got[last_s2c]["ts"]
    assert "Connection closed" in got[last_s2c]["raw"]
    # read back: a comment the analyzer keeps as the moment the client ended the session
    from mcplint.analysis.analyzer import Analyzer

    with open(path, "rb") as handle:
        recs = list(Parser(str(path)).records(read_capture(iter_lines(handle))))
    analyzer = Analyzer(str(path))
    for record in recs:
        analyzer.observe(record)
        analyzer.commit(record)
    (session,) = analyzer.all_sessions()
    assert session.client_closed is not None and session.client_closed.line == at + 1
    assert session.client_closed.kind is Kind.COMMENT
    # the answer sent after the close is a shutdown artefact, not a tool failure (TL019)
    findings, _ = lint_paths([str(path)])
    assert "TL019" not in {f.code for f in findings}


def test_exit_status_of_the_server_is_passed_on(tmp_path):
    proc, path = capture(tmp_path, server(tmp_path, "import sys; print('oops', file=sys.stderr); sys.exit(3)"))
    assert proc.returncode == 3
    last = records(path)[-1]
    assert last["status"] == 3 and b"oops" in proc.stderr


def test_missing_command_exits_127_and_says_so_in_the_capture(tmp_path):
    proc, path = capture(tmp_path, [str(tmp_path / "no-such-server")])
    assert proc.returncode == 127
    assert b"could not start" in proc.stderr
    assert records(path)[-1]["event"] == "error"


def test_shutdown_escalates_from_stdin_close_to_sigterm_to_sigkill(tmp_path):
    stubborn = server(tmp_path, """
        import signal, sys, time
        signal.signal(signal.SIGTERM, lambda *a: (sys.stderr.write("ignoring SIGTERM\\n"), sys.stderr.flush()))
        sys.stdin.read()
        while True:
            time.sleep(0.05)
    """)
    start = time.monotonic()
    proc, path = capture(tmp_path, stubborn, b"", "--grace", "0.3")
    assert time.monotonic() - start < 20
    assert proc.returncode == 128 + signal.SIGKILL
    last = records(path)[-1]
    assert last["signal"] == "SIGKILL"
    assert last["steps"] == ["no exit within 0.3s, sent SIGTERM", "no exit within 0.3s, sent SIGKILL"]
    assert any(r["raw"] == "ignoring SIGTERM" for r in records(path))


def test_server_that_exits_on_sigterm_after_stdin_close(tmp_path):
    lingering = server(tmp_path, """
        import sys, time
        sys.stdin.read()
        time.sleep(30)
    """)
    proc, path = capture(tmp_path, lingering, b"", "--grace", "0.3")
    assert proc.returncode == 128 + signal.SIGTERM
    assert records(path)[-1]["raw"].startswith("server was killed by SIGTERM after stdin closed")


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_signals_are_forwarded_to_the_server(tmp_path, signame):
    waiting = server(tmp_path, """
        import signal, sys, time
        def stop(number, frame):
            sys.stderr.write(f"got {signal.Signals(number).name}\\n"); sys.stderr.flush(); sys.exit(42)
        signal.signal(signal.SIGINT, stop); signal.signal(signal.SIGTERM, stop)
        print("ready", file=sys.stderr, flush=True)
        while True:
            time.sleep(0.05)
    """)
    path = tmp_path / "cap.mcplog"
    proc = subprocess.Popen([sys.executable, "-m", "mcplint", "capture", "-o", str(path), "--", *waiting],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = proc.stderr.readline()
        assert line == b"ready\n"
        proc.send_signal(getattr(signal, signame))
        assert proc.wait(20) == 42
    finally:
        proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    last = records(path)[-1]
    assert last["status"] == 42
    assert f"forwarded {signame}" in last["steps"]
    assert f"after mcplint capture received {signame}" in last["raw"]


def test_no_deadlock_with_big_messages_and_a_stderr_flood(tmp_path):
    flood = server(tmp_path, """
        import sys, threading
        def flood():
            for i in range(50000):
                sys.stderr.write(f"log line {i} " + "x" * 80 + "\\n")
            sys.stderr.flush()
        t = threading.Thread(target=flood)
        t.start()
        for line in sys.stdin.buffer:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.write(b'{"big":"' + b"y" * (6 << 20) + b'"}\\n')
            sys.stdout.buffer.flush()
        t.join()
    """)
    big = b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"d":"' + b"z" * (5 << 20) + b'"}}\n'
    proc, path = capture(tmp_path, flood, big * 2, timeout=120)
    assert proc.returncode == 0
    assert proc.stdout == (big + b'{"big":"' + b"y" * (6 << 20) + b'"}\n') * 2
    assert proc.stderr.count(b"\n") == 50000
    got = records(path)
    assert sum(r["dir"] == "stderr" for r in got) == 50000
    assert [len(r["raw"]) for r in got if r["dir"] == "c2s"] == [len(big) - 1] * 2


def test_redact_masks_the_file_never_the_relay(tmp_path):
    secret = "ghp_" + "a" * 36
    sent = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login",'
            b'"arguments":{"password":"hunter22","token":"' + secret.encode() + b'"}}}\n'
            b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
    proc, path = capture(tmp_path, server(tmp_path, ECHO), sent, "--redact")
    assert proc.stdout == sent
    text = path.read_text()
    assert "hunter22" not in text and secret not in text
    c2s = [r["raw"] for r in records(path) if r["dir"] == "c2s"]
    assert orjson.loads(c2s[0])["params"]["arguments"]["password"].startswith("[REDACTED")
    assert c2s[1] == '{"jsonrpc":"2.0","id":2,"method":"ping"}'  # clean lines stay byte-exact


def test_redact_keeps_undecodable_bytes(tmp_path):
    sent = b'token ghp_' + b"c" * 36 + b' and \xff\n'
    proc, path = capture(tmp_path, server(tmp_path, ECHO), sent, "--redact")
    assert proc.stdout == sent
    c2s = [r["raw"] for r in records(path) if r["dir"] == "c2s"]
    assert c2s[0].startswith("token [REDACTED") and c2s[0].endswith(" and \udcff")


def test_lint_prints_findings_to_stderr_as_they_happen(tmp_path):
    sent = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n'
            b'{"jsonrpc":"2.0","id":null,"method":"ping"}\n')
    answer = server(tmp_path, """
        import json, sys
        for line in sys.stdin:
            msg = json.loads(line)
            if msg.get("method") == "initialize":
                result = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}
                print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
    """)
    proc, path = capture(tmp_path, answer, sent, "--lint")
    assert proc.returncode == 0
    lines = [line for line in proc.stderr.decode().splitlines() if line.startswith("mcplint: ")]
    assert any(f"{path}:3: JR004 [error]" in line for line in lines), lines
    findings, _ = lint_paths([str(path)])
    assert {(f.line, f.code) for f in findings} >= {(3, "JR004")}


@pytest.mark.parametrize("target", ["existing", "new/"])
def test_output_directory_gets_a_timestamped_file(tmp_path, target):
    directory = tmp_path / "existing" if target == "existing" else tmp_path / "new"
    if target == "existing":
        directory.mkdir()
    proc = subprocess.run([sys.executable, "-m", "mcplint", "capture", "-o", f"{tmp_path}/{target}", "--",
                           *server(tmp_path, ECHO)], input=b"{}\n", capture_output=True, timeout=60)
    assert proc.returncode == 0
    made = list(directory.glob("mcplint-capture-*.mcplog"))
    assert len(made) == 1 and b"recording to" in proc.stderr


def test_default_output_is_in_the_working_directory(tmp_path):
    command = server(tmp_path, ECHO)
    workdir = tmp_path / "work"
    workdir.mkdir()
    proc = subprocess.run([sys.executable, "-m", "mcplint", "capture", "--", *command], input=b"",
                          capture_output=True, timeout=60, cwd=workdir)
    assert proc.returncode == 0
    assert len(list(workdir.glob("mcplint-capture-*.mcplog"))) == 1


def test_command_is_required():
    proc = subprocess.run([sys.executable, "-m", "mcplint", "capture", "-o", os.devnull], capture_output=True,
                          timeout=60)
    assert proc.returncode == 2


# -- pieces ------------------------------------------------------------------------------------------
def test_format_ts():
    assert format_ts(0.5) == "1970-01-01T00:00:00.500Z"
    assert format_ts(1_764_000_000.123) == "2025-11-24T16:00:00.123Z"


def test_encode_record_keeps_invalid_bytes_verbatim():
    line = encode_record("t", "s2c", b'{"a":"\xff"}')
    assert b"\xff" in line and line.endswith(b"\n")
    with pytest.raises(UnicodeDecodeError):
        line.decode("utf-8")
    assert json.loads(line.decode("utf-8", "surrogateescape"))["raw"] == '{"a":"\udcff"}'
    assert orjson.loads(encode_record("t", "c2s", b'{"a":1}')) == {"ts": "t", "dir": "c2s", "raw": '{"a":1}'}


def test_mask_line():
    assert mask_line('{"b": 1,  "a":2}', "c2s") == '{"b": 1,  "a":2}'  # untouched, spacing and all
    assert "[REDACTED]" in mask_line('{"apiKey":"abc"}', "c2s")
    assert mask_line("token ghp_" + "b" * 36, "stderr") == "token [REDACTED]"


def test_exit_status():
    assert exit_status(0) == 0 and exit_status(3) == 3 and exit_status(-15) == 143

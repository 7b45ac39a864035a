"""``mcplint capture --http`` against hand-made upstreams on loopback: pass-through (statuses,
headers, DELETE, 202, 401, Last-Event-ID), no buffering of SSE, an upstream that is down or that
closes mid-stream, a 50 MB answer, 100 concurrent streams, redaction, the CLI. Every wait is
bounded by a timeout; no test asserts on a duration."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.commands.capture.http import ProxyError, SseEvents, is_loopback, parse_listen
from mcplint.input.formats.har import parse_sse

uvicorn = pytest.importorskip("uvicorn", reason="the 'http' extra")
httpx2 = pytest.importorskip("httpx2", reason="the 'http' extra")

import anyio

from mcplint.api import lint_paths
from mcplint.commands.capture.http import HttpCapture
from tests.e2e.har_proxy import serve

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="loopback servers in threads are POSIX-tested only")

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
HOSTILE = (b"data: not json\n\n" b"data: \xff\xfe{\n\n" b'data: {"jsonrpc":"2.0","id":1,"result":{"t":"\x1b[31mred"}}\n\n'
           b"event: \x00odd\ndata: {}\r\n\r\n" b"data: cut off")


async def _body(receive) -> bytes:
    data = b""
    while True:
        message = await receive()
        data += message.get("body", b"")
        if not message.get("more_body"):
            return data


async def _respond(send, status: int, headers: list[tuple[bytes, bytes]], body: bytes = b"") -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _sse(value: dict, event_id: str | None = None) -> bytes:
    return (f"id: {event_id}\n" if event_id else "").encode() + b"data: " + json.dumps(value).encode() + b"\n\n"


def _answer(request_id, text: str = "ok") -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": {"text": text}}


class Upstream:
    """An ASGI server with one behaviour per path; remembers the headers each request came with."""

    def __init__(self):
        self.seen: list[tuple[str, str, dict[str, str], bytes]] = []
        self.gate = threading.Event()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        body = await _body(receive)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.seen.append((scope["method"], scope["path"], headers, body))
        path = scope["path"]
        sse = [(b"content-type", b"text/event-stream")]
        if path == "/mcp" and scope["method"] == "DELETE":
            await _respond(send, 200, [])
        elif path == "/mcp" and scope["method"] == "GET":
            start = int(headers.get("last-event-id", "0"))
            await send({"type": "http.response.start", "status": 200, "headers": sse})
            for n in range(start + 1, start + 3):
                await send({"type": "http.response.body", "more_body": True,
                            "body": _sse({"jsonrpc": "2.0", "method": "notifications/message",
                                          "params": {"level": "info", "data": n}}, str(n))})
            await send({"type": "http.response.body", "body": b""})
        elif path == "/mcp":
            value = json.loads(body)
            if "id" not in value:
                await _respond(send, 202, [])
                return
            await _respond(send, 200, [(b"content-type", b"application/json"), (b"mcp-session-id", b"sess-1234567")],
                           json.dumps(_answer(value["id"])).encode())
        elif path == "/auth":
            await _respond(send, 401, [(b"www-authenticate", b'Bearer resource_metadata="http://x/.well-known"')])
        elif path == "/gated":  # one event, then nothing until the test says the client saw it
            await send({"type": "http.response.start", "status": 200, "headers": sse})
            await send({"type": "http.response.body", "body": _sse(_answer(1, "first")), "more_body": True})
            with anyio.fail_after(20):
                while not self.gate.is_set():
                    await anyio.sleep(0.005)
            await send({"type": "http.response.body", "body": _sse(_answer(2, "second")), "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        elif path == "/cut":  # a stream the server breaks off after one event
            await send({"type": "http.response.start", "status": 200, "headers": sse})
            await send({"type": "http.response.body", "body": _sse(_answer(1)), "more_body": True})
            raise RuntimeError("server crashed mid-stream")
        elif path == "/hostile":  # what a broken or hostile server may send: relayed as is, recorded readably
            await _respond(send, 200, [(b"content-type", b"text/event-stream")], HOSTILE)
        elif path == "/big":
            chunk = b"x" * (1 << 20)
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/octet-stream")]})
            for _ in range(50):
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        elif path == "/many":
            await send({"type": "http.response.start", "status": 200, "headers": sse})
            for n in range(5):
                await send({"type": "http.response.body", "body": _sse(_answer(n)), "more_body": True})
                await anyio.sleep(0.01)
            await send({"type": "http.response.body", "body": b""})
        else:
            await _respond(send, 404, [])


@pytest.fixture
def upstream():
    app = Upstream()
    with serve(app) as url:
        yield app, url


def _proxy(url: str, out: Path, **options) -> HttpCapture:
    capture = HttpCapture("127.0.0.1:0", url, str(out), **options)
    capture.start()
    return capture


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_requests_and_answers_pass_through_unchanged(upstream, tmp_path):
    app, url = upstream
    capture = _proxy(url + "/mcp", tmp_path / "x.mcplog")
    try:
        with httpx2.Client(base_url=capture.url, timeout=10) as client:
            first = client.post("/", json=INIT, headers={"authorization": "Bearer t0k"})
            accepted = client.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                                   headers={"mcp-session-id": "sess-1234567"})
            stream = client.get("/mcp", headers={"mcp-session-id": "sess-1234567", "last-event-id": "4"})
            refused = client.post("/auth?x=1", json={"jsonrpc": "2.0", "id": 9, "method": "ping"})
            deleted = client.delete("/mcp", headers={"mcp-session-id": "sess-1234567"})
    finally:
        assert capture.stop() == 0
    assert (first.status_code, first.headers["mcp-session-id"], first.json()) == (200, "sess-1234567", _answer(1))
    assert (accepted.status_code, accepted.content) == (202, b"")
    assert stream.text == "".join(_sse({"jsonrpc": "2.0", "method": "notifications/message",
                                        "params": {"level": "info", "data": n}}, str(n)).decode() for n in (5, 6))
    assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer resource_metadata")
    assert deleted.status_code == 200
    methods = [(m, p) for m, p, _, _ in app.seen]
    assert methods == [("POST", "/mcp"), ("POST", "/mcp"), ("GET", "/mcp"), ("POST", "/auth"), ("DELETE", "/mcp")]
    assert app.seen[0][2]["authorization"] == "Bearer t0k" and app.seen[2][2]["last-event-id"] == "4"
    records = _records(tmp_path / "x.mcplog")
    notes = [r for r in records if r.get("event") == "http"]
    assert [(n["http"]["method"], n["http"].get("status")) for n in notes] == [
        ("POST", 200), ("POST", 202), ("GET", 200), ("POST", 401), ("DELETE", 200)]
    messages = [(r["dir"], json.loads(r["raw"]).get("method") or json.loads(r["raw"]).get("id")) for r in records
                if r["dir"] in ("c2s", "s2c")]
    # the ping refused with 401 was never processed: a note, not a message (as a HAR reader decides)
    assert messages == [("c2s", "initialize"), ("s2c", 1), ("c2s", "notifications/initialized"),
                        ("s2c", "notifications/message"), ("s2c", "notifications/message")]
    assert any(r.get("event") == "http-refused" for r in records)


def test_sse_events_reach_the_client_before_the_stream_ends(upstream, tmp_path):
    app, url = upstream
    capture = _proxy(url, tmp_path / "x.har")
    got = b""
    try:
        with httpx2.Client(timeout=20) as client, client.stream("POST", capture.url + "/gated", json=INIT) as answer:
            for chunk in answer.iter_raw():
                got += chunk
                if b"first" in got:
                    app.gate.set()  # the upstream sends the second event only now
    finally:
        capture.stop()
    assert got == _sse(_answer(1, "first")) + _sse(_answer(2, "second"))
    entry = json.loads((tmp_path / "x.har").read_text(encoding="utf-8"))["log"]["entries"][0]
    chunks = entry["response"]["_chunks"]
    assert len(chunks) >= 2 and sum(c["size"] for c in chunks) == len(got)
    assert [c["ts"] for c in chunks] == sorted(c["ts"] for c in chunks)


def test_an_upstream_that_is_down_gets_the_host_a_recorded_502(tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    for out in (tmp_path / "x.mcplog", tmp_path / "x.har"):
        capture = _proxy(f"http://127.0.0.1:{port}/mcp", out)
        try:
            with httpx2.Client(timeout=20) as client:
                answer = client.post(capture.url + "/mcp", json=INIT)
        finally:
            capture.stop()
        assert answer.status_code == 502 and "upstream unreachable: ConnectError" in answer.text
        text = out.read_text(encoding="utf-8")
        if out.suffix == ".har":
            response = json.loads(text)["log"]["entries"][0]["response"]
            assert response["status"] == 502 and "upstream unreachable" in response["_error"]
        else:
            note = next(r for r in _records(out) if r.get("event") == "http")
            assert note["http"]["status"] == 502 and "upstream unreachable" in note["raw"]
        lint_paths([str(out)])  # reads without error


def test_a_stream_the_server_breaks_off_is_broken_for_the_host_too(upstream, tmp_path):
    _, url = upstream
    capture = _proxy(url, tmp_path / "x.mcplog")
    got = b""
    try:
        with httpx2.Client(timeout=20) as client:
            with pytest.raises(httpx2.RemoteProtocolError), client.stream("POST", capture.url + "/cut",
                                                                          json=INIT) as answer:
                for chunk in answer.iter_raw():
                    got += chunk
            after = client.post(capture.url + "/mcp", json=INIT)  # the proxy goes on
    finally:
        capture.stop()
    assert got == _sse(_answer(1)) and after.status_code == 200
    records = _records(tmp_path / "x.mcplog")
    cut = next(r for r in records if r.get("event") == "http" and r["http"]["url"].endswith("/cut"))
    assert "upstream closed the stream" in cut["raw"]
    assert sum(1 for r in records if r["dir"] == "s2c") == 2  # the event before the break, and the answer after


def test_a_50_mb_answer_arrives_whole(upstream, tmp_path):
    _, url = upstream
    capture = _proxy(url, tmp_path / "x.har")
    digest, size = hashlib.sha256(), 0
    try:
        with httpx2.Client(timeout=60) as client, client.stream("GET", capture.url + "/big") as answer:
            for chunk in answer.iter_raw():
                digest.update(chunk)
                size += len(chunk)
    finally:
        capture.stop()
    assert size == 50 << 20 and digest.hexdigest() == hashlib.sha256(b"x" * (50 << 20)).hexdigest()
    response = json.loads((tmp_path / "x.har").read_text(encoding="utf-8"))["log"]["entries"][0]["response"]
    assert response["content"]["size"] == 50 << 20 and sum(c["size"] for c in response["_chunks"]) == 50 << 20


def test_100_concurrent_streams_lose_nothing(upstream, tmp_path):
    _, url = upstream
    capture = _proxy(url, tmp_path / "x.mcplog")
    bodies: list[bytes] = []

    async def one(client) -> None:
        bodies.append((await client.post(capture.url + "/many", json=INIT)).content)

    async def main() -> None:
        limits = httpx2.Limits(max_connections=200)
        with anyio.fail_after(120):
            async with httpx2.AsyncClient(timeout=60, limits=limits) as client, anyio.create_task_group() as group:
                for _ in range(100):
                    group.start_soon(one, client)

    try:
        anyio.run(main)
    finally:
        capture.stop()
    want = b"".join(_sse(_answer(n)) for n in range(5))
    assert bodies == [want] * 100
    records = _records(tmp_path / "x.mcplog")
    assert sum(1 for r in records if r["dir"] == "s2c") == 500
    assert sum(1 for r in records if r.get("event") == "http") == 100


def test_redact_masks_the_file_and_relays_the_originals(upstream, tmp_path):
    app, url = upstream
    for out in (tmp_path / "x.mcplog", tmp_path / "x.har"):
        capture = _proxy(url + "/mcp", out, redact=True)
        try:
            with httpx2.Client(base_url=capture.url, timeout=10) as client:
                params = {**INIT["params"], "clientInfo": {"name": "t", "version": "1", "token": SECRET}}
                answer = client.post(f"/?access_token={SECRET}", json={**INIT, "params": params},
                                     headers={"authorization": f"Bearer {SECRET}", "cookie": f"sid={SECRET}"})
        finally:
            capture.stop()
        assert answer.headers["mcp-session-id"] == "sess-1234567"
        method, _, headers, body = app.seen[-1]
        assert headers["authorization"] == f"Bearer {SECRET}" and SECRET.encode() in body
        text = out.read_text(encoding="utf-8")
        assert SECRET not in text and "sess-1234567" not in text and "REDACTED" in text
        lint_paths([str(out)])


def test_only_loopback_is_quiet():
    assert parse_listen("8080") == ("127.0.0.1", 8080)
    assert parse_listen("[::1]:0") == ("::1", 0)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2")
    for bad in ("host", "1.2.3.4:99999", ":x"):
        with pytest.raises(ProxyError):
            parse_listen(bad)
    said: list[str] = []
    capture = HttpCapture("0.0.0.0:0", "http://127.0.0.1:9/mcp", os.devnull + ".har", say=said.append)
    capture._announce()
    capture.sock.close()
    assert "not loopback" in said[0]


def test_a_directory_output_gets_a_new_file(upstream, tmp_path):
    _, url = upstream
    capture = _proxy(url + "/mcp", f"{tmp_path / 'new'}/")
    try:
        with httpx2.Client(timeout=10) as client:
            client.post(capture.url + "/", json=INIT)
    finally:
        capture.stop()
    (made,) = (tmp_path / "new").iterdir()
    assert made.name.startswith("mcplint-capture-") and made.suffix == ".mcplog"
    assert any(r.get("event") == "http" for r in _records(made))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "7", "a b"]), st.text(alphabet="ab{}\"é €", max_size=8),
                          st.sampled_from(["\n", "\r\n", "\r"])), max_size=6),
       st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=12))
def test_sse_events_as_they_complete_are_those_of_the_whole_stream(events, cuts):
    text = "".join((f"id: {i}{end}" if i else "") + f"data: {d}{end}{end}" for i, d, end in events)
    data = text.encode()
    parser, got, pos = SseEvents(), [], 0
    for size in cuts * (len(data) // max(sum(cuts), 1) + 1):
        got += parser.feed(data[pos:pos + size])
        pos += size
        if pos >= len(data):
            break
    got += parser.feed(b"", final=True)
    keep = ("id", "event", "data")
    assert [{k: e[k] for k in keep} for e in got if e["complete"]] == \
           [{k: e[k] for k in keep} for e in parse_sse(text) if e["complete"]]


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_cli_records_until_stopped(upstream, tmp_path, stop):
    _, url = upstream
    out = tmp_path / "cli.har"
    proc = subprocess.Popen([sys.executable, "-m", "mcplint", "capture", "--http", "--upstream", url + "/mcp",
                             "-o", str(out), "--lint"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        match = re.search(r"proxying (http://\S+)", line)
        assert match, line
        with httpx2.Client(timeout=10) as client:
            assert client.post(match.group(1) + "/", json=INIT).json() == _answer(1)
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    entries = json.loads(out.read_text(encoding="utf-8"))["log"]["entries"]
    assert [e["request"]["method"] for e in entries] == ["POST"]


@pytest.mark.parametrize("args, says", [
    (["--http"], "--upstream"),
    (["--http", "--upstream", "ftp://x"], "http:// or https://"),
    (["--http", "--upstream", "http://x", "--listen", "nope"], "HOST:PORT"),
    (["--http", "--upstream", "http://x", "--", "cmd"], "no command"),
    (["--upstream", "http://x", "--", "cmd"], "need --http"),
])
def test_cli_bad_input_is_one_line_and_exit_2(args, says):
    done = subprocess.run([sys.executable, "-m", "mcplint", "capture", *args], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and says in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.fixture
def self_signed(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl makes the test certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return key, cert


def test_an_https_upstream_is_verified_unless_insecure(self_signed, tmp_path):
    key, cert = self_signed
    with serve(Upstream(), ssl_keyfile=str(key), ssl_certfile=str(cert)) as url:
        assert url.startswith("https://")
        statuses = []
        for insecure in (False, True):
            capture = _proxy(url + "/mcp", tmp_path / f"{insecure}.har", insecure=insecure)
            try:
                with httpx2.Client(timeout=20) as client:
                    answer = client.post(capture.url + "/", json=INIT)
            finally:
                capture.stop()
            statuses.append(answer.status_code)
            if not insecure:
                assert "certificate" in answer.text.lower()
    assert statuses == [502, 200]


def test_stopping_with_a_stream_open_records_its_end_once(upstream, tmp_path):
    app, url = upstream
    out = tmp_path / "x.mcplog"
    capture = _proxy(url, out)
    reading = threading.Event()

    def hold() -> None:
        try:
            with httpx2.Client(timeout=30) as client, client.stream("POST", capture.url + "/gated", json=INIT) as answer:
                for _ in answer.iter_raw():
                    reading.set()
        except httpx2.HTTPError:
            pass  # the proxy closed the stream when it stopped

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert reading.wait(20)
        assert capture.stop() == 0
    finally:
        app.gate.set()
        thread.join(30)
    records = _records(out)
    notes = [r for r in records if r["dir"] == "meta" and r["event"].startswith("http")]
    assert len(notes) == 1 and "stopped before the answer ended" in notes[0]["raw"]
    assert records[-1]["event"] == "exit"


def test_a_hostile_answer_is_relayed_as_is_and_both_outputs_read(upstream, tmp_path):
    _, url = upstream
    codes = []
    for out in (tmp_path / "x.mcplog", tmp_path / "x.har"):
        capture = _proxy(url, out)
        try:
            with httpx2.Client(timeout=10) as client:
                got = client.post(capture.url + "/hostile", json=INIT).content
        finally:
            capture.stop()
        assert got == HOSTILE
        codes.append(sorted(f.code for f in lint_paths([str(out)])[0]))
    # both report each broken event (the one cut off by the end of the stream too) as a broken message
    assert codes[0] == codes[1] and codes[0].count("JR002") == 4

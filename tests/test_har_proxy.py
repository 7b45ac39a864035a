"""The test recorder's HAR contract: ``response._chunks`` lists each body chunk as it came from
upstream (``ts`` ISO-8601 UTC with microseconds, ``size`` raw bytes), in arrival order."""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime

import pytest

pytest.importorskip("uvicorn", reason="uvicorn runs the loopback servers")
httpx2 = pytest.importorskip("httpx2", reason="the recorder's upstream client")

import anyio

from tests.e2e.har_proxy import Recorder, serve

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="loopback servers in threads are POSIX-tested only")

PARTS = [b"event: message\ndata: {\"a\": \"\xc3\xa9\"}\n\n", b"data: 2\n\n", b"data: \xe2\x82\xac\n\n"]


async def _streaming(scope, receive, send) -> None:
    """Upstream: three SSE events 50 ms apart (multi-byte UTF-8 included); an empty answer on /empty;
    no answer at all on /hang."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/hang":
        await anyio.sleep(30)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream")]})
    for part in [] if scope["path"] == "/empty" else PARTS:
        await send({"type": "http.response.body", "body": part, "more_body": True})
        await anyio.sleep(0.05)
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def test_chunks_are_timed_in_arrival_order(tmp_path):
    with serve(_streaming) as upstream:
        recorder = Recorder(upstream)
        with serve(recorder) as proxy:
            with httpx2.Client(timeout=10) as client:
                got = client.get(proxy + "/mcp").content
                client.get(proxy + "/empty")
    har = json.loads(recorder.write(tmp_path / "x.har").read_text(encoding="utf-8"))
    stream, empty = har["log"]["entries"]
    assert got == b"".join(PARTS)
    chunks = stream["response"]["_chunks"]
    assert sum(c["size"] for c in chunks) == len(b"".join(PARTS)) == len(stream["response"]["content"]["text"]
                                                                          .encode("utf-8"))
    assert 2 <= len(chunks) <= len(PARTS)  # 50 ms apart: one chunk per event (two may merge on a busy machine)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", c["ts"]) for c in chunks)
    times = [datetime.fromisoformat(c["ts"].replace("Z", "+00:00")) for c in chunks]
    assert times == sorted(times) and (times[-1] - times[0]).total_seconds() >= 0.04
    assert empty["response"]["_chunks"] == []


def test_request_left_unanswered_is_recorded(tmp_path):
    """A client that gives up before the upstream sends headers, and one still waiting at shutdown:
    both exchanges are entries with status 0 and an error, as devtools record them."""
    import threading

    with serve(_streaming) as upstream:
        recorder = Recorder(upstream)
        with serve(recorder) as proxy:
            with httpx2.Client(timeout=0.3) as client, pytest.raises(httpx2.TimeoutException):
                client.get(proxy + "/hang")
            waiting = threading.Thread(target=lambda: httpx2.get(proxy + "/hang?at=shutdown", timeout=10),
                                       daemon=True)
            waiting.start()
            anyio.run(anyio.sleep, 0.5)
    har = json.loads(recorder.write(tmp_path / "x.har").read_text(encoding="utf-8"))
    gave_up, at_shutdown = har["log"]["entries"]
    assert at_shutdown["request"]["url"].endswith("/hang?at=shutdown")
    for entry in (gave_up, at_shutdown):
        assert entry["response"]["status"] == 0 and entry["response"]["_error"].startswith("net::ERR_ABORTED")
        assert entry["response"]["_chunks"] == []

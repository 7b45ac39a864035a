"""``mcplint capture --http`` end to end over loopback: the official Python SDK's Streamable HTTP
client and server (Streamable HTTP, and the 2024-11-05 HTTP+SSE transport) talk through two proxies in a row, ``capture --http -o x.har`` then ``capture
--http`` (canonical), with the independent test recorder of ``tests/e2e/har_proxy.py`` in front.
Every proxy sees the same traffic, so:

- the client got exactly the bytes the server sent (the front recorder's bodies are the HAR's);
- the HAR and the canonical capture lint to exactly the findings of the independent HAR.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the official MCP Python SDK (the 'mcp' package of the test extra)")
pytest.importorskip("uvicorn", reason="the 'http' extra")
pytest.importorskip("httpx2", reason="the 'http' extra")

import anyio

from mcplint.api import lint_paths
from mcplint.commands.capture.http import HttpCapture
from tests.e2e import scenarios
from tests.e2e.har_proxy import Recorder, serve
from tests.e2e.harness import RUNS, describe, pinned_handshake_version, summarize
from tests.e2e.http_harness import _run, weather_server, weather_without_back_channel

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="loopback servers in threads are POSIX-tested only")

def sdk_app(json_response: bool, stateless: bool, legacy: bool = False):
    if legacy:
        return weather_server().sse_app()
    return weather_server().streamable_http_app(json_response=json_response, stateless_http=stateless)


def record_chain(tmp_path: Path, app, body, run: str, transport: str = "streamable") -> tuple[Path, Path, Path, dict]:
    """Run ``body`` through reference recorder -> capture .har -> capture .mcplog -> server."""
    options = dict(RUNS[run])
    version = options.pop("version", None)
    har, canonical, reference = tmp_path / "proxy.har", tmp_path / "proxy.mcplog", tmp_path / "reference.har"
    facts: dict = {}
    with serve(app) as upstream:
        inner = HttpCapture("127.0.0.1:0", upstream + "/mcp", str(canonical))
        outer = HttpCapture("127.0.0.1:0", inner.start() + "/mcp", str(har))
        front = Recorder(outer.start())
        try:
            with serve(front) as url, pinned_handshake_version(version):
                anyio.run(lambda: _run(url, transport, lambda client: body(client, facts), **options))
                anyio.run(anyio.sleep, 0.3)  # the last streams (GET, DELETE) end
        finally:
            assert outer.stop() == 0 and inner.stop() == 0
            front.write(reference)
    return har, canonical, reference, facts


def _bodies(path: Path) -> list[tuple[str, int, str]]:
    entries = json.loads(path.read_text(encoding="utf-8"))["log"]["entries"]
    return sorted((e["request"]["method"], e["response"]["status"], e["response"]["content"].get("text", ""))
                  for e in entries)


CASES = {
    "sse-2025-11-25": (False, False, "2025-11-25"),
    "sse-2026-07-28": (False, False, "2026-07-28"),
    "json-2025-11-25": (True, False, "2025-11-25"),
    "stateless-sse-2025-11-25": (False, True, "2025-11-25"),
    "stateless-json-2026-07-28": (True, True, "2026-07-28"),
    "http+sse-2024-11-05": (False, False, "2024-11-05"),  # the 2024-11-05 transport: GET /sse, POST /messages/
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_sdk_through_the_proxy_lints_like_an_independent_har(tmp_path, case):
    json_response, stateless, run = CASES[case]
    body = weather_without_back_channel if (json_response or stateless) and run != "2026-07-28" else scenarios.weather
    legacy = case.startswith("http+sse")
    har, canonical, reference, facts = record_chain(tmp_path, sdk_app(json_response, stateless, legacy), body, run,
                                                    "http+sse" if legacy else "streamable")
    assert facts["version"] == run
    assert _bodies(har) == _bodies(reference)  # what the server sent is what the client got
    want = set(summarize(lint_paths([str(reference)])[0]))
    findings = lint_paths([str(har)])[0]
    assert set(summarize(findings)) == want, describe(findings)
    findings = lint_paths([str(canonical)])[0]
    assert set(summarize(findings)) == want, describe(findings)
    records = [json.loads(line) for line in canonical.read_text(encoding="utf-8").splitlines()]
    assert {r["transport"] for r in records if r["dir"] in ("c2s", "s2c")} == {"http"}
    assert records[0]["event"] == "start" and records[-1]["event"] == "exit"

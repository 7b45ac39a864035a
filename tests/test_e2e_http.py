"""End to end over HTTP: the official Python SDK's client and the SDK-built weather server talk
Streamable HTTP (SSE and JSON answers, handshake revisions and 2026-07-28) or the 2024-11-05
HTTP+SSE transport on loopback, through a recording proxy that writes a HAR, as a devtools or
mitmproxy export would. The HAR is linted and its findings held to a reviewed list: the SDK's real
deviations (the same as over stdio) and the scenario's deliberate mistakes, nothing else.
"""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("mcp", reason="the official MCP Python SDK (the 'mcp' package of the test extra)")
pytest.importorskip("uvicorn", reason="uvicorn (a dependency of the SDK's HTTP server)")
pytest.importorskip("httpx2", reason="the SDK's HTTP client")

from mcplint.api import lint_paths
from tests.e2e import scenarios
from tests.e2e.harness import RUNS, describe, summarize
from tests.e2e.http_harness import record, weather_without_back_channel

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="loopback servers in threads are POSIX-tested only")

MSG, CALL, LIST, PROGRESS = "notifications/message", "tools/call", "tools/list", "notifications/progress"

#: As over stdio (tests/test_e2e_sdk.py): the SDK's server sends log messages without declaring
#: `logging`, answers an unknown tool with an isError result (TL006; HX007 is the scenario's
#: mistake), and sends 2025-06-18 fields whatever revision was negotiated.
COMMON = {("TL006", CALL), ("HX007", CALL)}
HANDSHAKE = COMMON | {("CAP003", MSG)}
BEFORE_2025_06_18 = {("TL003", LIST), ("TL012", CALL)}
WRAPPED = {("TL013", CALL)}  # from 2025-06-18: string results' text blocks are not the serialized JSON
#: Over HTTP, 2025-11-25 only: the SDK's server (without an event store) starts its SSE streams
#: with the message instead of a priming event (HT019 info, once per session).
NO_PRIMING = {("HT019", None)}
#: Over Streamable HTTP in the handshake revisions the SDK's server answers the cancelled call
#: with {"code": 0, "message": "Request cancelled"}: an answer caused by the cancellation (CN006).
CANCEL_ANSWERED = {("CN006", CALL)}

RUN_HTTP = {
    "sse-2024-11-05": ("http+sse", RUNS["2024-11-05"], HANDSHAKE | BEFORE_2025_06_18 | {("PR008", PROGRESS)}),
    "sse-2025-03-26": ("sse", RUNS["2025-03-26"], HANDSHAKE | BEFORE_2025_06_18 | CANCEL_ANSWERED),
    "sse-2025-06-18": ("sse", RUNS["2025-06-18"], HANDSHAKE | WRAPPED | CANCEL_ANSWERED),
    "sse-2025-11-25": ("sse", RUNS["2025-11-25"], HANDSHAKE | WRAPPED | NO_PRIMING | CANCEL_ANSWERED),
    "sse-auto": ("sse", RUNS["auto"], COMMON | WRAPPED | {("LG001", MSG)}),
    "sse-2026-07-28": ("sse", RUNS["2026-07-28"], COMMON | WRAPPED),
    # JSON answers cannot carry server requests (sampling, elicitation) nor progress: a shorter
    # scenario, and no log message reaches the client
    "json-2025-11-25": ("json", RUNS["2025-11-25"], COMMON | WRAPPED),
}
NEGOTIATED = {"sse-auto": "2026-07-28"}


@pytest.mark.parametrize("run", sorted(RUN_HTTP))
def test_sdk_over_http_recorded_to_har(tmp_path, run):
    transport, options, expected = RUN_HTTP[run]
    har = tmp_path / f"sdk-weather-{run}.har"
    body = weather_without_back_channel if transport == "json" else scenarios.weather
    facts = record(har, transport, body, **options)
    assert facts["version"] == NEGOTIATED.get(run, run.split("-", 1)[1])
    doc = json.loads(har.read_text(encoding="utf-8"))
    methods = {entry["request"]["method"] for entry in doc["log"]["entries"]}
    assert "POST" in methods and ("GET" in methods or transport != "http+sse")
    findings, summary = lint_paths([str(har)])
    got = set(summarize(findings))
    assert got == expected, (f"{har.name}: unexpected {sorted(got - expected, key=str)}, missing "
                             f"{sorted(expected - got, key=str)}\nmcplint reported:\n{describe(findings)}")
    assert summary.records > len(har.read_text(encoding="utf-8").splitlines())  # lines + messages

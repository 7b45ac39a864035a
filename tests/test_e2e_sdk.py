"""End to end: the official Python SDK's client against a server built with the SDK's own
server API, through ``mcplint capture``, at every protocol revision the SDK speaks.

The capture of each run is linted, and the findings are held to a reviewed list: the real
deviations of the SDK (mcp 2.3.0) and the scenario's own deliberate mistakes, nothing else.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("mcp", reason="the official MCP Python SDK (the 'mcp' package of the test extra)")

from tests.e2e import scenarios
from tests.e2e.harness import (
    RUNS,
    SERVERS,
    capture_params,
    check_capture_shape,
    check_findings,
    drive,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the capture proxy is POSIX-only")

MSG, CALL, LIST = "notifications/message", "tools/call", "tools/list"
PROGRESS = "notifications/progress"

#: Findings every run shows. The SDK's MCPServer never declares the `logging` capability (and
#: answers `logging/setLevel` with -32601), yet `ctx.info()` sends `notifications/message`; it
#: answers a call of an unknown tool with an `isError` result ("Unknown tool: no_such_tool")
#: instead of a JSON-RPC error. HX007 is the client side of the scenario's deliberate mistake.
COMMON = {("TL006", CALL), ("HX007", CALL)}
HANDSHAKE = COMMON | {("CAP003", MSG)}
#: The SDK sends what later revisions added whatever revision was negotiated: outputSchema in
#: tools/list, structuredContent in results (2025-06-18), `message` in progress (2025-03-26).
BEFORE_2025_06_18 = {("TL003", LIST), ("TL012", CALL)}
#: From 2025-06-18: a tool returning a string gets structuredContent {"result": <the string>}
#: but the bare string as its text block, not the serialized JSON (TL013, info).
WRAPPED = {("TL013", CALL)}

EXPECTED = {
    "2024-11-05": HANDSHAKE | BEFORE_2025_06_18 | {("PR008", PROGRESS)},
    "2025-03-26": HANDSHAKE | BEFORE_2025_06_18,
    "2025-06-18": HANDSHAKE | WRAPPED,
    "2025-11-25": HANDSHAKE | WRAPPED,
    # 2026-07-28 over stdio (server/discover, then stateless requests; sampling and elicitation
    # come back as InputRequiredResult rounds): log messages without `logging` are LG001 there.
    "auto": COMMON | WRAPPED | {("LG001", MSG)},
    # pinned without a probe: the same log messages, but no discover result says what the
    # server declared, so mcplint cannot tell (and says nothing)
    "2026-07-28": COMMON | WRAPPED,
}
NEGOTIATED = {"auto": "2026-07-28", "2026-07-28": "2026-07-28"}


@pytest.mark.parametrize("run", sorted(RUNS))
def test_sdk_server_through_capture(tmp_path, run):
    capture = tmp_path / f"sdk-weather-{run}.mcplog"
    params = capture_params(capture, [sys.executable, str(SERVERS / "weather_server.py")])
    facts = drive(params, scenarios.weather, errlog_path=tmp_path / "stderr.txt", **RUNS[run])
    assert facts["version"] == NEGOTIATED.get(run, run)
    check_capture_shape(capture)
    check_findings(capture, EXPECTED[run])

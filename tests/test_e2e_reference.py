"""End to end: the official Python SDK's client against the reference servers of the MCP project
(`@modelcontextprotocol/server-everything` and `@modelcontextprotocol/server-filesystem`, from the
npm registry, pinned), through ``mcplint capture``.

The servers are installed once into a cache directory (``MCPLINT_E2E_CACHE``, default
``~/.cache/mcplint/e2e``); the tests skip, saying why, when node/npm or the registry is missing.
They run over stdio only. Each capture is linted and the findings are held to a reviewed list:
the real deviations of these servers and of the scenario's deliberate mistakes, nothing else.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("mcp", reason="the official MCP Python SDK (the 'mcp' package of the test extra)")

from tests.e2e import scenarios
from tests.e2e.harness import (
    RUNS,
    capture_params,
    check_capture_shape,
    check_findings,
    drive,
    install_node_servers,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the capture proxy is POSIX-only")

CALL, LIST = "tools/call", "tools/list"
ELICIT = "elicitation/create"


@pytest.fixture(scope="module")
def node_servers():
    scope, reason = install_node_servers()
    if scope is None:
        pytest.skip(f"reference servers unavailable: {reason}")
    return scope


#: Both servers answer a call of an unknown tool with an `isError` result ("MCP error -32602:
#: Tool no_such_tool not found") instead of the JSON-RPC error -32602; HX007 is the client side
#: of the scenario's deliberate mistake.
COMMON = {("TL006", CALL), ("HX007", CALL)}
#: Both send outputSchema and structuredContent whatever revision was negotiated.
STRUCTURED_BEFORE_2025_06_18 = {("TL003", LIST), ("TL012", CALL)}

EVERYTHING = {
    # ... and `resource_link` content blocks, which 2024-11-05 does not have.
    "2024-11-05": COMMON | STRUCTURED_BEFORE_2025_06_18 | {("TL014", CALL)},
    # Multi-select enums (2025-11-25) in a 2025-06-18 form; the client's answer to that form
    # (string arrays) is reported on the client side, as info.
    "2025-06-18": COMMON | {("EL003", ELICIT), ("EL006", ELICIT)},
    # `server/discover` answered with -32601, then initialize at 2025-11-25: nothing to report.
    "auto": COMMON,
}
#: Known false positives of mcplint on these servers (none today: EL010 once read "do not give us
#: your phone number, pin, or other sensitive info" in a field description as asking for them).
EVERYTHING_FALSE_POSITIVES = {
    "2024-11-05": set(),
    "2025-06-18": set(),
    "auto": set(),
}
#: From 2025-06-18 the filesystem server's structuredContent is {"content": <the text>} while its
#: text block holds the bare text, not that object serialized (TL013, info).
FILESYSTEM = {
    "2024-11-05": COMMON | STRUCTURED_BEFORE_2025_06_18,
    "2025-06-18": COMMON | {("TL013", CALL)},
    "auto": COMMON | {("TL013", CALL)},
}
NEGOTIATED = {"auto": "2025-11-25"}  # the TypeScript SDK 1.32 has no 2026-07-28


@pytest.mark.parametrize("run", sorted(EVERYTHING))
def test_server_everything(node_servers, tmp_path, run):
    capture = tmp_path / f"everything-{run}.mcplog"
    command = ["node", str(node_servers / "server-everything" / "dist" / "index.js"), "stdio"]
    facts = drive(capture_params(capture, command), scenarios.everything, errlog_path=tmp_path / "stderr.txt",
                  **RUNS[run])
    assert facts["version"] == NEGOTIATED.get(run, run)
    check_capture_shape(capture)
    check_findings(capture, EVERYTHING[run], EVERYTHING_FALSE_POSITIVES[run])


@pytest.mark.parametrize("run", sorted(FILESYSTEM))
def test_server_filesystem(node_servers, tmp_path, run):
    workspace = scenarios.make_workspace(tmp_path)
    capture = tmp_path / f"filesystem-{run}.mcplog"
    command = ["node", str(node_servers / "server-filesystem" / "dist" / "index.js"), str(workspace)]
    roots = scenarios.RootsCallback(workspace)
    facts = drive(capture_params(capture, command), scenarios.filesystem(workspace, roots),
                  errlog_path=tmp_path / "stderr.txt", roots=roots,
                  sampling=False, elicitation=False, **{k: v for k, v in RUNS[run].items() if k != "elicitation"})
    assert facts["version"] == NEGOTIATED.get(run, run)
    check_capture_shape(capture)
    check_findings(capture, FILESYSTEM[run])

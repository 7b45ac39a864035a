"""Drive the official Python SDK client against stdio servers through ``mcplint capture``.

Each scenario launches ``python -m mcplint capture -o FILE -- <server command>`` as the SDK's
stdio server process (exactly how a host would be configured), runs a scripted conversation
with the SDK's ``Client`` and returns the capture file, which the tests then lint.

Only stdio pipes are used: no traffic leaves the machine.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio

from mcplint.api import lint_paths

warnings.filterwarnings("ignore", module=r"mcp(\.|$)")
warnings.filterwarnings("ignore", message=r".*deprecated as of 2026-07-28.*")

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
CLIENT_INFO = {"name": "mcplint-e2e", "version": "1.0.0"}


def capture_params(capture: Path, server: list[str], *, env: dict[str, str] | None = None,
                   cwd: str | None = None):
    """``StdioServerParameters`` that launch ``server`` behind ``mcplint capture``."""
    from mcp import StdioServerParameters

    command = [sys.executable, "-m", "mcplint", "capture", "--grace", "3", "-o", str(capture), "--", *server]
    environment = {"PYTHONWARNINGS": "ignore", "PYTHONUNBUFFERED": "1"}
    for key in ("PYTHONPATH", "VIRTUAL_ENV", "NODE_OPTIONS", "LANG", "LC_ALL"):
        if key in os.environ:
            environment[key] = os.environ[key]
    environment.update(env or {})
    return StdioServerParameters(command=command[0], args=command[1:], env=environment, cwd=cwd)


@contextlib.contextmanager
def pinned_handshake_version(version: str | None) -> Iterator[None]:
    """Make the SDK client offer ``version`` in ``initialize`` (it always offers its newest)."""
    if version is None:
        yield
        return
    import mcp.client.session as session_module

    saved = session_module.LATEST_HANDSHAKE_VERSION
    session_module.LATEST_HANDSHAKE_VERSION = version
    try:
        yield
    finally:
        session_module.LATEST_HANDSHAKE_VERSION = saved


async def run_client(params, body: Callable[[Any], Awaitable[None]], *, mode: str, errlog,
                     sampling: bool = True, elicitation: bool = True, roots=None, log_level: str | None = None,
                     timeout: float = 60) -> None:
    """Connect the SDK ``Client`` through the proxy and run ``body(client)``."""
    import mcp_types as types
    from mcp import Client, MCPDeprecationWarning
    from mcp.client.stdio import stdio_client

    async def on_sampling(context, params):
        text = "Mild and dry, 14 to 17 °C."
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=text),
                                         model="e2e-model", stop_reason="endTurn")

    async def on_elicitation(context, params):
        if getattr(params, "mode", "form") == "url":
            return types.ElicitResult(action="decline")
        schema = getattr(params, "requested_schema", None) or {}
        content = {name: _answer(prop) for name, prop in (schema.get("properties") or {}).items()}
        return types.ElicitResult(action="accept", content=content)

    async def on_log(params):
        pass

    client = Client(
        stdio_client(params, errlog=errlog),
        mode=mode,
        client_info=types.Implementation(**CLIENT_INFO),
        sampling_callback=on_sampling if sampling else None,
        elicitation_callback=on_elicitation if elicitation else None,
        logging_callback=on_log,
        list_roots_callback=roots,
        log_level=log_level,
        read_timeout_seconds=30,
    )
    with warnings.catch_warnings(), anyio.fail_after(timeout):
        # the SDK flags logging, sampling and ping as deprecated in 2026-07-28; they are what we test
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        async with client:
            await body(client)


def _answer(prop: dict) -> Any:
    """What a user who accepts every default (or the first choice) would answer to one field."""
    if "default" in prop:
        return prop["default"]
    choices = prop.get("enum") or [option["const"] for option in prop.get("oneOf") or prop.get("anyOf") or []
                                    if "const" in option]
    if choices:
        return choices[0]
    kind = prop.get("type")
    if kind == "array":
        return [_answer(prop.get("items") or {})]
    if kind == "boolean":
        return True
    if kind in ("number", "integer"):
        return prop.get("minimum", 1)
    return {"email": "user@example.com", "uri": "https://example.com", "date": "2026-01-01",
            "date-time": "2026-01-01T00:00:00Z"}.get(prop.get("format"), "ok")


def drive(params, body, *, mode: str = "legacy", version: str | None = None, errlog_path: Path,
          **options) -> dict:
    """Run one client session synchronously (pytest tests are sync); ``body(client, facts)``
    may note what it saw in ``facts``, which is returned."""
    facts: dict = {}
    try:
        with pinned_handshake_version(version), open(errlog_path, "w") as errlog:
            anyio.run(lambda: run_client(params, lambda client: body(client, facts), mode=mode, errlog=errlog,
                                         **options))
    except Exception as exc:  # say what the server and the capture saw, not just the client's error
        capture = Path(params.args[params.args.index("-o") + 1])
        tail = capture.read_text(encoding="utf-8", errors="replace").splitlines()[-8:] if capture.exists() else []
        log = errlog_path.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise AssertionError(f"the session failed: {exc!r}\nstderr of proxy and server:\n{log}\n"
                             "last capture records:\n" + "\n".join(tail)) from exc
    return facts


def findings_of(capture: Path) -> list:
    findings, _ = lint_paths([str(capture)])
    return findings


def summarize(findings) -> Counter:
    """``Counter((code, method))``: what a reviewed expectation list is compared with."""
    return Counter((f.code, f.method) for f in findings)


def describe(findings) -> str:
    return "\n".join(f"  {f.code}@{f.line} [{f.severity.value}] {f.method}: {f.message}" for f in findings) or "  nothing"


# -- reference servers from the npm registry ------------------------------------------------------
#: Pinned so that the reviewed expectations stay about one known build of each server.
NODE_PACKAGES = {
    "@modelcontextprotocol/server-everything": "2026.8.31",
    "@modelcontextprotocol/server-filesystem": "2026.8.31",
}
NODE_OVERRIDES = {"@modelcontextprotocol/sdk": "1.32.2"}  # the TypeScript SDK both are built on
NPM_TIMEOUT = 240


def node_cache_dir() -> Path:
    base = os.environ.get("MCPLINT_E2E_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mcplint", "e2e")
    tag = "-".join(f"{name.rsplit('/', 1)[-1]}@{version}" for name, version in sorted(NODE_PACKAGES.items()))
    return Path(base) / tag


def install_node_servers() -> tuple[Path | None, str]:
    """``(node_modules/@modelcontextprotocol, "")`` once installed (cached), else ``(None, reason)``."""
    import json
    import shutil
    import subprocess

    if not shutil.which("node") or not shutil.which("npm"):
        return None, "node/npm not installed"
    root = node_cache_dir()
    scope = root / "node_modules" / "@modelcontextprotocol"
    if all((scope / name.split("/")[1] / "package.json").is_file() for name in NODE_PACKAGES):
        return scope, ""
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({
        "name": "mcplint-e2e-servers", "private": True, "dependencies": NODE_PACKAGES,
        "overrides": NODE_OVERRIDES}, indent=2))
    try:
        proc = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--fetch-retries=1",
             "--fetch-timeout=60000", "--loglevel=error"],
            cwd=root, capture_output=True, text=True, timeout=NPM_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"npm install did not finish within {NPM_TIMEOUT}s (registry unreachable?)"
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return None, "npm install failed (registry unreachable?): " + " | ".join(tail)
    return scope, ""


# -- runs and checks ----------------------------------------------------------------------------------
#: How the SDK client is made to speak each revision: the handshake revisions below its newest are
#: offered by pinning ``initialize``; its newest handshake revision is its default in ``legacy``
#: mode; 2026-07-28 comes from ``auto`` mode, which probes ``server/discover`` first (and falls back
#: to ``initialize`` when the server does not know it, as the TypeScript servers do), or from
#: pinning it, when the client starts with stateless requests and sends no probe at all.
RUNS = {
    "2024-11-05": {"mode": "legacy", "version": "2024-11-05", "elicitation": False},
    "2025-03-26": {"mode": "legacy", "version": "2025-03-26", "elicitation": False},
    "2025-06-18": {"mode": "legacy", "version": "2025-06-18"},
    "2025-11-25": {"mode": "legacy"},
    "auto": {"mode": "auto", "log_level": "info"},
    "2026-07-28": {"mode": "2026-07-28", "log_level": "info"},  # adopted without a discover probe
}


def check_findings(capture: Path, expected: set, known_false_positives: set = frozenset()) -> list:
    """Lint ``capture`` and hold its findings, as ``(code, method)`` pairs, to the reviewed list.

    ``expected`` holds the real deviations of the implementations (and of the scenario's own
    deliberate mistakes); ``known_false_positives`` what mcplint reports wrongly today, so that
    a fix shows up here as a pair to remove.
    """
    findings = findings_of(capture)
    got = set(summarize(findings))
    wanted = set(expected) | set(known_false_positives)
    assert got == wanted, (
        f"{capture.name}: unexpected {sorted(got - wanted, key=str)}, "
        f"missing {sorted(wanted - got, key=str)}\nmcplint reported:\n{describe(findings)}")
    return findings


def check_capture_shape(capture: Path) -> None:
    """The proxy's own records: a start, and an exit after the client closed stdin."""
    import json

    records = [json.loads(line) for line in capture.read_text(encoding="utf-8").splitlines()]
    assert records[0]["dir"] == "meta" and records[0]["event"] == "start"
    end = records[-1]
    assert end["dir"] == "meta" and end["event"] == "exit", end
    assert "after stdin closed" in end["raw"], end["raw"]
    assert any(r["dir"] == "c2s" for r in records) and any(r["dir"] == "s2c" for r in records)

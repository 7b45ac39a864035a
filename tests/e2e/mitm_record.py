"""Record a mitmproxy flow file of the official SDK's client and server talking Streamable HTTP
on loopback, as ``mitmdump -w`` writes it (reverse-proxy mode in front of the server, with
mcplint's addon, which streams SSE responses and keeps their bodies).

    python -m tests.e2e.mitm_record samples/mitmproxy-streamable-2025-11-25.flow [--version V]

Needs mitmproxy (``pip install 'mcplint[mitmproxy]'``) and the SDK (the test extra).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio

from mcplint.commands.capture import mitm_addon
from tests.e2e import scenarios
from tests.e2e.har_proxy import serve
from tests.e2e.harness import pinned_handshake_version
from tests.e2e.http_harness import _run, server_app


def mitmdump() -> str | None:
    """The ``mitmdump`` beside this Python, else on PATH."""
    beside = Path(sys.executable).with_name("mitmdump")
    return str(beside) if beside.exists() else shutil.which("mitmdump")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def record(flow_path: Path, *, transport: str = "sse", mode: str = "legacy", version: str | None = "2025-11-25",
           body=scenarios.weather, timeout: float = 30) -> dict:
    """Run ``body(client, facts)`` through ``mitmdump -w flow_path``; return ``facts``."""
    command = mitmdump()
    if command is None:
        raise RuntimeError("mitmdump not found: pip install 'mcplint[mitmproxy]'")
    facts: dict = {}
    with serve(server_app(transport)) as upstream:
        port = _free_port()
        confdir = flow_path.parent / f".mitmproxy-{os.getpid()}"
        proc = subprocess.Popen(
            [command, "-s", mitm_addon.__file__, "--mode", f"reverse:{upstream}", "--listen-host", "127.0.0.1", "--listen-port", str(port),
             "--set", f"confdir={confdir}", "--set", "termlog_verbosity=error", "--set", "flow_detail=0",
             "-w", str(flow_path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.time() + timeout
            while True:  # wait until it listens
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    if proc.poll() is not None or time.time() > deadline:
                        raise RuntimeError("mitmdump did not start: " + proc.stderr.read().decode()[-2000:]) from None
                    time.sleep(0.1)
            with pinned_handshake_version(version):
                anyio.run(lambda: _run(f"http://127.0.0.1:{port}", transport, lambda client: body(client, facts),
                                       mode=mode))
            time.sleep(0.5)  # the last exchanges (DELETE) reach the file
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            shutil.rmtree(confdir, ignore_errors=True)
    return facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--version", default="2025-11-25", help="handshake revision the client offers")
    parser.add_argument("--transport", default="sse", choices=["sse", "json"])
    args = parser.parse_args()
    facts = record(args.output, transport=args.transport, version=args.version)
    print(f"wrote {args.output} ({args.output.stat().st_size} bytes, {facts.get('version')})")


if __name__ == "__main__":
    main()

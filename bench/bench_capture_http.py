"""Latency that ``mcplint capture --http`` adds to each SSE event, against reading the server directly.

    python bench/bench_capture_http.py                  # 5 streams of 200 progress events, per mode
    python bench/bench_capture_http.py --streams 2 --events 100

An upstream (uvicorn, its own process) answers each POST with an SSE stream of
``notifications/progress`` events, one every 2 ms, each stamped with the time it was sent. A
client in this process reads the stream, directly and through ``mcplint capture --http`` (its own
process; canonical output, ``-o x.har``, and canonical with ``--lint``), and takes each event's
latency from its stamp to the moment its blank line arrived. The same upstream serves every mode in
the same run, and the modes take turns stream by stream, so a slower moment of the machine hits all.
Reported: median and 99th percentile per mode, and the proxy's addition (mode minus direct).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

UPSTREAM = r"""
import json, sys, time, anyio, uvicorn

async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    count = int(scope["query_string"].decode() or 200)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
    for n in range(count):
        event = {"jsonrpc": "2.0", "method": "notifications/progress",
                 "params": {"progressToken": 1, "progress": n, "message": str(time.time_ns())}}
        await send({"type": "http.response.body", "body": b"data: " + json.dumps(event).encode() + b"\n\n",
                    "more_body": True})
        await anyio.sleep(0.002)
    await send({"type": "http.response.body", "body": b"", "more_body": False})

uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="critical")
"""

CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":1}}}'


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def start_proxy(upstream: str, output: str, lint: bool) -> tuple[subprocess.Popen, str]:
    command = [sys.executable, "-m", "mcplint", "capture", "--http", "--upstream", upstream, "-o", output]
    proc = subprocess.Popen(command + (["--lint"] if lint else []), cwd=ROOT, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    match = re.search(r"proxying (http://\S+)", line)
    if not match:
        proc.kill()
        raise RuntimeError(f"the proxy did not start: {line}")
    return proc, match.group(1)


def latencies(client, url: str, events: int) -> list[float]:
    """Milliseconds from each event's stamp to the arrival of its end."""
    got: list[float] = []
    buffer = b""
    with client.stream("POST", f"{url}/mcp?{events}", content=CALL,
                       headers={"content-type": "application/json",
                                "accept": "application/json, text/event-stream"}) as answer:
        for chunk in answer.iter_raw():
            now = time.time_ns()
            buffer += chunk
            while b"\n\n" in buffer:
                event, buffer = buffer.split(b"\n\n", 1)
                sent = int(re.search(rb'"message": "(\d+)"', event).group(1))
                got.append((now - sent) / 1e6)
    if len(got) != events:
        raise RuntimeError(f"{len(got)} of {events} events arrived")
    return got


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=5)
    parser.add_argument("--events", type=int, default=200)
    args = parser.parse_args()
    import httpx2

    port = free_port()
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM, str(port)])
    procs: list[subprocess.Popen] = [upstream]
    try:
        wait_listening(port)
        direct = f"http://127.0.0.1:{port}"
        with tempfile.TemporaryDirectory() as folder:
            modes = {"direct": direct}
            for name, output, lint in (("capture", "x.mcplog", False), ("capture -o x.har", "x.har", False),
                                       ("capture --lint", "l.mcplog", True)):
                proc, url = start_proxy(direct + "/mcp", os.path.join(folder, output), lint)
                procs.append(proc)
                modes[name] = url
            results: dict[str, list[float]] = {name: [] for name in modes}
            with httpx2.Client(timeout=60) as client:
                for name, url in modes.items():  # warm-up: connections, imports, first-request paths
                    latencies(client, url, 20)
                for _ in range(args.streams):
                    for name, url in modes.items():
                        results[name] += latencies(client, url, args.events)
        base = results["direct"]
        print(f"{args.streams} streams x {args.events} SSE events per mode, one event every 2 ms")
        print(f"{'mode':<20} {'median ms':>10} {'p99 ms':>8} {'added median':>13} {'added p99':>10}")
        for name, values in results.items():
            added = "" if name == "direct" else (f"{statistics.median(values) - statistics.median(base):>13.3f} "
                                                 f"{p99(values) - p99(base):>10.3f}")
            print(f"{name:<20} {statistics.median(values):>10.3f} {p99(values):>8.3f} {added}")
    finally:
        for proc in reversed(procs):
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    main()

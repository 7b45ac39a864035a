"""Latency that ``mcplint capture`` adds to each message, against talking to the server directly.

    python bench/bench_capture.py                   # 2000 round trips per size, with and without --lint
    python bench/bench_capture.py --rounds 500 --sizes 200,100000

A minimal server (it answers ``initialize`` and answers each ``tools/call`` with a result that
carries the call's text back, so the traffic is a clean session) is driven in lock step: send one
request, wait for its response, repeat. The same loop runs against the bare server and against the
server behind ``mcplint capture`` (optionally with ``--lint``). A round trip through the proxy
crosses it twice (client→server and back), so the added latency per message is half the
difference of the round-trip times. Medians and 99th percentiles are reported.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent

SERVER = r"""
import json, sys
read, write, flush = sys.stdin.buffer.readline, sys.stdout.buffer.write, sys.stdout.buffer.flush
while True:
    line = read()
    if not line:
        break
    msg = json.loads(line)
    if "id" not in msg:
        continue  # notifications/initialized
    if msg["method"] == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "echo", "version": "1"}}
    else:
        result = {"content": [{"type": "text", "text": msg["params"]["arguments"]["text"]}]}
    write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode() + b"\n")
    flush()
"""

HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def message(i: int, size: int) -> bytes:
    """A ``tools/call`` request of about ``size`` bytes."""
    body = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": ""}}}
    pad = max(0, size - len(orjson.dumps(body)))
    body["params"]["arguments"]["text"] = "x" * pad
    return orjson.dumps(body) + b"\n"


def read_line(stream) -> bytes:
    line = stream.readline()
    if not line:
        raise RuntimeError("server closed its stdout")
    return line


def round_trips(command: list[str], rounds: int, size: int) -> list[float]:
    """Seconds per round trip (after a warm-up), in lock step with the server."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            bufsize=0, cwd=ROOT)
    out = io.BufferedReader(proc.stdout, 1 << 20)
    times = []
    try:
        proc.stdin.write(b"".join(orjson.dumps(m) + b"\n" for m in HANDSHAKE))
        read_line(out)
        for i in range(1, rounds + 51):
            data = message(i, size)
            start = time.perf_counter()
            proc.stdin.write(data)
            got = read_line(out)
            elapsed = time.perf_counter() - start
            if orjson.loads(got)["id"] != i:
                raise RuntimeError("response for another request")
            if i > 50:
                times.append(elapsed)
    finally:
        proc.stdin.close()
        proc.wait(60)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--sizes", default="200,10000,1000000", help="message sizes in bytes, comma-separated")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = os.path.join(tmp, "server.py")
        Path(server).write_text(SERVER)
        direct = [sys.executable, server]
        capture = [sys.executable, "-m", "mcplint", "capture", "-o", os.path.join(tmp, "bench.mcplog"), "--"]
        lint = capture[:4] + ["--lint"] + capture[4:]
        setups = [("direct", direct), ("capture", capture + direct), ("capture --lint", lint + direct)]
        print(f"{args.rounds} lock-step round trips per row; added = (proxy RTT - direct RTT) / 2 per message")
        print(f"{'size':>9}  {'setup':<15} {'median RTT':>11} {'p99 RTT':>10} {'added/msg (median)':>19} "
              f"{'added/msg (p99)':>16}")
        for size in (int(s) for s in args.sizes.split(",")):
            rounds = args.rounds if size < 100_000 else max(50, args.rounds // 10)
            base = None
            for name, command in setups:
                times = sorted(round_trips(command, rounds, size))
                median = statistics.median(times)
                p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
                if base is None:
                    base = (median, p99)
                    added = ""
                else:
                    added = f"{(median - base[0]) / 2 * 1e3:>16.3f} ms {(p99 - base[1]) / 2 * 1e3:>13.3f} ms"
                print(f"{size:>9}  {name:<15} {median * 1e3:>8.3f} ms {p99 * 1e3:>7.3f} ms {added}")


if __name__ == "__main__":
    main()

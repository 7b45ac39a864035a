"""Throughput of ``mcplint check`` against a bare ``orjson.loads`` loop over the same file.

    python bench/bench_check.py                  # 100 MB generated capture, both formats
    python bench/bench_check.py --size-mb 20 --format jsonl

The generated capture holds realistic, clean 2025-06-18 sessions (handshake, tools/list, tool
calls with progress and logging, a few pings). Both measurements run in the same process on the
same file; the report gives records per second and the ratio.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcplint.api import LintOptions, lint_stream  # noqa: E402
from mcplint.engine import Engine  # noqa: E402
from mcplint.report.summary import RunSummary  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
VERSION = "2025-06-18"


def session_lines(n: int) -> list[tuple[str, dict]]:
    """One clean session with ``n`` tool calls, as (direction, message) pairs."""
    out = [
        ("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "bench-client", "version": "1.0.0"}}}),
        ("s2c", {"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": VERSION, "capabilities": {"tools": {"listChanged": True}, "logging": {}},
            "serverInfo": {"name": "bench-server", "version": "1.0.0"}}}),
        ("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "get_forecast", "description": "Get the weather forecast for a city",
             "inputSchema": {"type": "object", "properties": {"city": {"type": "string"},
                                                              "days": {"type": "integer"}},
                             "required": ["city"]}}]}}),
    ]
    for i in range(2, n + 2):
        token = f"p{i}"
        out.append(("c2s", {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "name": "get_forecast", "arguments": {"city": "Lisbon", "days": 3},
            "_meta": {"progressToken": token}}}))
        for step in (1, 2):
            out.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/progress",
                                "params": {"progressToken": token, "progress": step, "total": 2}}))
        out.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/message",
                            "params": {"level": "info", "logger": "weather", "data": f"fetched {i}"}}))
        out.append(("s2c", {"jsonrpc": "2.0", "id": i, "result": {"content": [
            {"type": "text", "text": "Sunny, 24°C; light wind from the north-west. " * 3}], "isError": False}}))
        if i % 50 == 0:
            out.append(("c2s", {"jsonrpc": "2.0", "id": f"ping-{i}", "method": "ping"}))
            out.append(("s2c", {"jsonrpc": "2.0", "id": f"ping-{i}", "result": {}}))
    return out


def generate(path: Path, size_mb: int, fmt: str) -> None:
    target = size_mb << 20
    template = session_lines(200)
    written = 0
    second = 0
    with open(path, "wb") as out:
        while written < target:
            for direction, message in template:
                raw = orjson.dumps(message)
                if fmt == "capture":
                    second += 1
                    ts = f"2026-11-30T10:{(second // 60000) % 60:02d}:{(second // 1000) % 60:02d}.{second % 1000:03d}Z"
                    line = orjson.dumps({"ts": ts, "dir": direction, "raw": raw.decode()})
                else:
                    line = raw
                out.write(line + b"\n")
                written += len(line) + 1


def bare_loop(path: Path) -> tuple[int, float]:
    start = time.perf_counter()
    count = 0
    with open(path, "rb") as handle:
        for line in handle:
            orjson.loads(line)
            count += 1
    return count, time.perf_counter() - start


def mcplint_run(path: Path) -> tuple[int, int, float]:
    summary = RunSummary()
    engine = Engine()
    start = time.perf_counter()
    with open(path, "rb") as handle:
        findings = sum(1 for _ in lint_stream(handle, str(path), None, LintOptions(), summary, engine))
    return summary.records, findings, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--format", choices=["jsonl", "capture", "both"], default="both")
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    for fmt in (["jsonl", "capture"] if args.format == "both" else [args.format]):
        path = DATA / f"generated-{args.size_mb}mb.{'jsonl' if fmt == 'jsonl' else 'mcplog'}"
        if not path.exists() or path.stat().st_size < (args.size_mb << 20):
            generate(path, args.size_mb, fmt)
        size = os.path.getsize(path) / (1 << 20)
        gc.collect()
        lines, bare = bare_loop(path)
        gc.collect()
        records, findings, ours = mcplint_run(path)
        print(f"{fmt:8} {size:7.1f} MB  {lines:>9} lines")
        print(f"  orjson.loads loop : {bare:7.2f} s  {lines / bare:>10,.0f} lines/s")
        print(f"  mcplint check     : {ours:7.2f} s  {records / ours:>10,.0f} records/s  ({findings} findings)")
        print(f"  ratio             : {ours / bare:7.1f}x the bare parse loop")


if __name__ == "__main__":
    main()

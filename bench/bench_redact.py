"""Throughput of ``mcplint redact`` against a bare ``orjson.loads`` + ``orjson.dumps`` loop.

    python bench/bench_redact.py                      # 100 MB generated capture
    python bench/bench_redact.py --size-mb 20 --no-images
    python bench/bench_redact.py --size-mb 50 --repeat 3   # best of 3 (a shared, noisy machine)

The generated capture (canonical format, ``.mcplog``) holds realistic sessions: handshake,
``tools/list`` with schemas, tool calls with paths, queries and connection strings, results
with prose, code, JSON printed inside text and ``.env`` files, screenshots (random base64 of
20-120 KB, about 3 % of the messages and most of the bytes), progress and log notifications
(some with ``Authorization`` headers or URLs with tokens), errors with connection strings,
stderr lines of a host log, elicitation answers, and provider tokens of many kinds planted in
about 5 % of the calls. ``--no-images`` leaves the screenshots out (text-only traffic, the
harder case for the engine). Both loops read the same file in the same process; the report
gives MB/s and the share of the bare loop's speed.
"""

from __future__ import annotations

import argparse
import base64
import functools
import gc
import os
import random
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcplint.redact import RedactOptions, Redactor, redact_stream
from mcplint.redact.providers import RULES

DATA = Path(__file__).resolve().parent / "data"
VERSION = "2025-06-18"
WORDS = ["the", "forecast", "for", "the", "coming", "days", "shows", "light", "wind", "from", "the", "north", "west", "with", "scattered", "showers", "in", "the", "afternoon", "and", "temperatures", "between", "twelve", "and", "nineteen", "degrees", "the", "repository", "contains", "three", "packages", "a", "parser", "a", "linter", "and", "a", "small", "command", "line", "interface", "that", "reads", "captures"]
CODE = '''def handler(event, context):
    """Return the order with its line items."""
    order = db.orders.get(event["id"])
    return {"id": order.id, "items": [item.sku for item in order.items], "total": order.total}
'''


class Session:
    def __init__(self, rnd: random.Random, images: bool):
        self.rnd = rnd
        self.images = images
        self.next_id = 0
        self.user = rnd.choice(["alice", "maya", "sam", "jordan", "priya"])

    def prose(self, n: int) -> str:
        return " ".join(self.rnd.choice(WORDS) for _ in range(n)).capitalize() + "."

    def token(self) -> str:
        rule = self.rnd.choice(RULES)
        return rule.sample(self.rnd)

    def messages(self) -> list[tuple[str, dict | str]]:
        out: list[tuple[str, dict | str]] = [
            ("stderr", f"INFO  server 2.1.0 starting (transport=stdio, cwd=/Users/{self.user}/work/app)"),
            ("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": VERSION, "capabilities": {"roots": {"listChanged": True}, "elicitation": {}},
                "clientInfo": {"name": "claude-ai", "version": "0.1.0"}}}),
            ("s2c", {"jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": VERSION, "capabilities": {"tools": {"listChanged": True}, "logging": {}},
                "serverInfo": {"name": "workspace", "version": "2.1.0"}}}),
            ("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            ("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
                {"name": "read_file", "description": "Read a file of the workspace",
                 "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
                {"name": "query_db", "description": "Run a read-only SQL query",
                 "inputSchema": {"type": "object", "properties": {"sql": {"type": "string"},
                                                                  "password": {"type": "string"}}}},
                {"name": "screenshot", "description": "Capture the screen", "inputSchema": {"type": "object"}}]}}),
        ]
        self.next_id = 2
        for _ in range(200):
            out.extend(self.exchange())
        return out

    def exchange(self) -> list[tuple[str, dict | str]]:
        r = self.rnd
        i = self.next_id
        self.next_id += 1
        token = f"p{i}"
        roll = r.random()
        msgs: list[tuple[str, dict | str]] = []
        if roll < 0.03 and self.images:
            size = r.randint(20_000, 120_000)
            data = base64.b64encode(r.randbytes(size)).decode()
            msgs.append(("c2s", {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                 "params": {"name": "screenshot", "arguments": {}}}))
            msgs.append(("s2c", {"jsonrpc": "2.0", "id": i, "result": {"content": [
                {"type": "image", "data": data, "mimeType": "image/png"}]}}))
            return msgs
        if roll < 0.08:
            secret = self.token()
            msgs.append(("c2s", {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": "query_db", "arguments": {"sql": "select * from orders limit 5", "note": f"auth with {secret}"}}}))
        elif roll < 0.10:
            msgs.append(("c2s", {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": "read_file", "arguments": {"path": f"/Users/{self.user}/work/app/.env"}}}))
            env = (f"DATABASE_URL=postgres://app:{r.randbytes(9).hex()}@db.internal:5432/app\n"
                   f"STRIPE_SECRET_KEY=sk_live_{r.randbytes(12).hex()}\nDEBUG=false\nSUPPORT_EMAIL=help@acme-corp.io\n")
            msgs.append(("s2c", {"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": env}]}}))
            return msgs
        else:
            path = f"/Users/{self.user}/work/app/src/module_{r.randint(1, 400)}.py"
            msgs.append(("c2s", {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": "read_file", "arguments": {"path": path}, "_meta": {"progressToken": token}}}))
        for step in (1, 2):
            msgs.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/progress",
                                 "params": {"progressToken": token, "progress": step, "total": 2}}))
        if r.random() < 0.07:
            bearer = "ey" + "J" + base64.urlsafe_b64encode(r.randbytes(24)).decode().rstrip("=") + ".eyJ" + \
                base64.urlsafe_b64encode(r.randbytes(48)).decode().rstrip("=") + "." + \
                base64.urlsafe_b64encode(r.randbytes(32)).decode().rstrip("=")
            msgs.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/message", "params": {
                "level": "debug", "logger": "http",
                "data": f"GET https://api.example.com/v1/items?page=2&access_token={r.randbytes(16).hex()} "
                        f"Authorization: Bearer {bearer}"}}))
        else:
            msgs.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/message", "params": {
                "level": "info", "logger": "fs", "data": f"read {i} in {r.randint(1, 90)} ms"}}))
        if r.random() < 0.05:
            msgs.append(("s2c", {"jsonrpc": "2.0", "id": i, "error": {
                "code": -32603, "message": "could not connect to postgres://app:hunter2@10.0.3.7:5432/app"}}))
        elif r.random() < 0.3:
            inner = orjson.dumps({"rows": [{"id": n, "sku": f"SKU-{r.randint(10000, 99999)}",
                                            "customer": f"cust-{r.randint(1, 999)}"} for n in range(5)]}).decode()
            msgs.append(("s2c", {"jsonrpc": "2.0", "id": i, "result": {
                "content": [{"type": "text", "text": inner}], "structuredContent": orjson.loads(inner)}}))
        else:
            text = CODE * r.randint(1, 4) if r.random() < 0.5 else self.prose(r.randint(40, 400))
            msgs.append(("s2c", {"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": text}]}}))
        if r.random() < 0.05:
            msgs.append(("stderr", f"2026-05-01T12:00:00.000Z [debug] fetched https://cdn.example.com/a/{i}.json"))
        return msgs


def generate(path: Path, size_mb: int, images: bool) -> None:
    rnd = random.Random(5)
    target = size_mb << 20
    written = 0
    second = 0
    with open(path, "wb") as out:
        while written < target:
            for direction, message in Session(rnd, images).messages():
                second += 1
                ts = f"2026-11-30T10:{(second // 60000) % 60:02d}:{(second // 1000) % 60:02d}.{second % 1000:03d}Z"
                raw = message if isinstance(message, str) else orjson.dumps(message).decode()
                line = orjson.dumps({"ts": ts, "dir": direction, "raw": raw}) + b"\n"
                out.write(line)
                written += len(line)
                if written >= target:
                    break


def _timed(run) -> tuple[float, float]:
    """(wall, CPU) seconds of ``run()``; CPU time is what a shared machine disturbs least."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def bare_loop(path: Path) -> None:
    with open(path, "rb") as handle:
        for line in handle:
            orjson.dumps(orjson.loads(line))


class _Null:
    def write(self, data: bytes) -> int:
        return len(data)


def redact_run(path: Path, redactor: Redactor) -> None:
    with open(path, "rb") as handle:
        redact_stream(handle, _Null(), redactor)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--no-images", action="store_true", help="text-only traffic")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each loop; the fastest counts")
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    path = DATA / f"redact-{args.size_mb}mb{'-text' if args.no_images else ''}.mcplog"
    if not path.exists() or path.stat().st_size < (args.size_mb << 20):
        generate(path, args.size_mb, not args.no_images)
    size = os.path.getsize(path) / 1e6
    bare = ours = (float("inf"), float("inf"))
    for _ in range(max(1, args.repeat)):
        bare = min(bare, _timed(lambda: bare_loop(path)))
        redactor = Redactor(RedactOptions(key=b"bench"))
        ours = min(ours, _timed(functools.partial(redact_run, path, redactor)))
    report = redactor.report
    print(f"{path.name}: {size:.1f} MB, {report.lines} lines, {report.changed_lines} changed, "
          f"{report.total} redactions in {len(report.counts)} kinds")
    for name, (wall, cpu), share in (("orjson.loads+dumps loop", bare, ""),
                                     ("mcplint redact", ours, f"  ({bare[0] / ours[0]:.0%} of the bare loop)")):
        print(f"  {name:24s}: {wall:7.2f} s  {size / wall:8.1f} MB/s   cpu {cpu:6.2f} s  {size / cpu:8.1f} MB/s{share}")


if __name__ == "__main__":
    main()

"""Throughput of ``mcplint check`` against a bare ``orjson.loads`` loop over the same file.

    python bench/bench_check.py                  # 100 MB generated capture, both formats
    python bench/bench_check.py --size-mb 1024 --format capture --rss --record

The generated capture holds realistic, clean 2025-06-18 sessions: handshake, tools/list, tool
calls with payloads of a few KB (``--payload-kb``), four calls in flight at once answered out of
order, progress and logging, a few pings. Both measurements run in the same process on the same
file; the report gives records/s and MB/s and the share of the bare loop's speed. ``--rss``
also runs ``mcplint check --jobs 1`` as a separate process and reports its peak RSS; ``--cli``
times the ``mcplint check`` command as users run it (its default ``--jobs`` uses every CPU on
inputs this large); ``--record`` appends the figures to ``bench/trend.tsv`` (date, commit,
figures) so that regressions show.
"""

from __future__ import annotations

import argparse
import gc
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


def session_lines(n: int, payload_kb: float = 2.0) -> list[tuple[str, dict]]:
    """One clean session with ``n`` tool calls, as (direction, message) pairs."""
    sentence = "Sunny, 24°C; light wind from the north-west, humidity 41%, UV index 6. "
    payload = sentence * max(1, int(payload_kb * 1024 / len(sentence.encode())))
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
    for batch in range(2, n + 2, 4):  # four calls in flight, answered in reverse order
        ids = list(range(batch, min(batch + 4, n + 2)))
        for i in ids:
            out.append(("c2s", {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                "name": "get_forecast", "arguments": {"city": "Lisbon", "days": 3},
                "_meta": {"progressToken": f"p{i}"}}}))
        for step in (1, 2):
            for i in ids:
                out.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/progress",
                                    "params": {"progressToken": f"p{i}", "progress": step, "total": 2}}))
        for i in reversed(ids):
            out.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/message",
                                "params": {"level": "info", "logger": "weather", "data": f"fetched {i}"}}))
            out.append(("s2c", {"jsonrpc": "2.0", "id": i, "result": {"content": [
                {"type": "text", "text": payload}], "isError": False}}))
        if batch % 48 == 2:
            out.append(("c2s", {"jsonrpc": "2.0", "id": f"ping-{batch}", "method": "ping"}))
            out.append(("s2c", {"jsonrpc": "2.0", "id": f"ping-{batch}", "result": {}}))
    return out


def renumbered(template: list[tuple[str, dict]], round_: int) -> list[tuple[str, dict]]:
    """The template's calls (no handshake) with ids and progress tokens unique to ``round_``."""
    out = []
    for direction, message in template[5:]:
        message = {**message}
        if isinstance(message.get("id"), int):
            message["id"] += round_ * 1_000_000
        elif "id" in message:
            message["id"] = f"{message['id']}-{round_}"
        params = message.get("params")
        if isinstance(params, dict):
            params = message["params"] = {**params}
            if "progressToken" in params:
                params["progressToken"] = f"{params['progressToken']}-{round_}"
            if "_meta" in params:
                params["_meta"] = {"progressToken": f"{params['_meta']['progressToken']}-{round_}"}
        out.append((direction, message))
    return out


def generate(path: Path, size_mb: int, fmt: str, payload_kb: float, long_session: bool = False) -> None:
    """Write ``size_mb`` of sessions of 200 calls each, or one session (``long_session``) that
    goes on calling after a single handshake."""
    target = size_mb << 20
    template = base = session_lines(200, payload_kb)
    written = 0
    second = 0
    rounds = 0
    with open(path, "wb") as out:
        while written < target:
            if long_session and rounds:
                template = renumbered(base, rounds)
            rounds += 1
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


def warm_cache(path: Path) -> None:
    """Read ``path`` once so that both loops find it in the page cache (the first to read a
    fresh file would otherwise pay for the disk)."""
    with open(path, "rb") as handle:
        while handle.read(1 << 24):
            pass


def bare_loop(path: Path, clock=time.perf_counter) -> tuple[int, float]:
    """Lines of ``path`` and the seconds (by ``clock``) a bare ``orjson.loads`` loop takes."""
    start = clock()
    count = 0
    with open(path, "rb") as handle:
        for line in handle:
            orjson.loads(line)
            count += 1
    return count, clock() - start


def mcplint_run(path: Path) -> tuple[int, int, float]:
    summary = RunSummary()
    engine = Engine()
    start = time.perf_counter()
    with open(path, "rb") as handle:
        findings = sum(1 for _ in lint_stream(handle, str(path), None, LintOptions(), summary, engine))
    return summary.records, findings, time.perf_counter() - start


def run_mcplint(arguments: list[str], path: Path) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, lines of output) of one ``mcplint`` run as its own process.

    The peak comes from the kernel's resource usage of that one child (``os.wait4``); with
    ``--jobs`` above 1 it is the parent's, not the sum over the workers.
    """
    import subprocess

    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "mcplint", *arguments, str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = sum(1 for _ in child.stdout)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"mcplint {' '.join(arguments)} {path} exited {child.returncode}")
    return usage.ru_maxrss / 1024, time.perf_counter() - start, lines


CHECK = ["check", "--output-format", "concise", "--exit-zero"]


#: Columns of bench/trend.tsv after date and commit (figures a run did not take stay empty).
TREND_COLUMNS = ("format", "size_mb", "payload_kb", "lines", "bare_s", "mcplint_s", "records_per_s", "share",
                 "peak_rss_mb", "cli_s", "cli_share")


def record_trend(fields: dict) -> None:
    """Append one line to bench/trend.tsv (the header grows when columns were added)."""
    import datetime
    import subprocess

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip() or "unknown"
    trend = Path(__file__).resolve().parent / "trend.tsv"
    header = "\t".join(("date", "commit", *TREND_COLUMNS)) + "\n"
    lines = trend.read_text().splitlines(keepends=True) if trend.exists() else []
    if not lines or lines[0] != header:
        trend.write_text(header + "".join(lines[1:]))
    row = [datetime.date.today().isoformat(), commit, *(str(fields.get(name, "")) for name in TREND_COLUMNS)]
    with open(trend, "a") as out:
        out.write("\t".join(row) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--format", choices=["jsonl", "capture", "both"], default="both")
    parser.add_argument("--payload-kb", type=float, default=2.0)
    parser.add_argument("--rss", action="store_true", help="also measure peak RSS of a separate mcplint process")
    parser.add_argument("--cli", action="store_true",
                        help="also time the mcplint check command as users run it (default --jobs)")
    parser.add_argument("--record", action="store_true", help="append the figures to bench/trend.tsv")
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    for fmt in (["jsonl", "capture"] if args.format == "both" else [args.format]):
        path = DATA / f"generated-{args.size_mb}mb-{args.payload_kb:g}kb.{'jsonl' if fmt == 'jsonl' else 'mcplog'}"
        if not path.exists() or path.stat().st_size < (args.size_mb << 20):
            generate(path, args.size_mb, fmt, args.payload_kb)
        size = os.path.getsize(path) / (1 << 20)
        warm_cache(path)
        gc.collect()
        lines, bare = bare_loop(path)
        gc.collect()
        records, findings, ours = mcplint_run(path)
        print(f"{fmt:8} {size:7.1f} MB  {lines:>9} lines  payload {args.payload_kb:g} KB")
        print(f"  orjson.loads loop : {bare:7.2f} s  {lines / bare:>10,.0f} lines/s  {size / bare:7.1f} MB/s")
        print(f"  mcplint check     : {ours:7.2f} s  {records / ours:>10,.0f} records/s  {size / ours:7.1f} MB/s"
              f"  ({findings} findings)")
        print(f"  share             : {bare / ours:7.1%} of the bare parse loop's speed")
        fields = {"format": fmt, "size_mb": round(size, 1), "payload_kb": args.payload_kb, "lines": lines,
                  "bare_s": round(bare, 2), "mcplint_s": round(ours, 2),
                  "records_per_s": round(records / ours), "share": round(bare / ours, 3)}
        if args.rss:
            rss, _, _ = run_mcplint([*CHECK, "--jobs", "1"], path)
            fields["peak_rss_mb"] = round(rss, 1)
            print(f"  peak RSS          : {rss:7.1f} MB (separate mcplint check --jobs 1 process)")
        if args.cli:
            _, wall, _ = run_mcplint(CHECK, path)
            fields["cli_s"], fields["cli_share"] = round(wall, 2), round(bare / wall, 3)
            print(f"  mcplint check CLI : {wall:7.2f} s  {records / wall:>10,.0f} records/s  {size / wall:7.1f} MB/s"
                  f"  ({bare / wall:.1%} of the bare loop; default --jobs: {os.cpu_count()} processes"
                  " from 8 MB on, start-up included)")
        if args.record:
            record_trend(fields)


if __name__ == "__main__":
    main()

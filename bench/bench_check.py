"""Throughput of ``mcplint check`` against a bare ``orjson.loads`` loop over the same file.

    python bench/bench_check.py                  # 100 MB generated capture, both formats
    python bench/bench_check.py --size-mb 1024 --format capture --rss --record
    python bench/bench_check.py --shape small --size-mb 141 --format jsonl   # issue 16's first row

Two shapes of generated traffic. ``realistic`` (the default): clean 2025-06-18 sessions of 200
tool calls each (handshake, tools/list, tool calls with payloads of a few KB (``--payload-kb``),
four calls in flight at once answered out of order, progress and logging, a few pings).
``small``: what a ``tee`` of many short 2025-11-25 stdio sessions holds, about 270 bytes a
line: handshake, tools/list, 2-7 tool calls with 1-3 progress notifications each, short text
results, log messages, an occasional ping (plain JSON Lines cannot say who sent it: IO011, the
only findings) and now and then a call the user cancels; ids start again in every session.
``--format`` chooses plain JSON Lines (``jsonl``, no direction) or the canonical capture
format (``capture``, with direction and time) for either shape.

Both measurements run in the same process on the same file; the report gives records/s and
MB/s and the share of the bare loop's speed. ``--rss`` also runs ``mcplint check --jobs 1`` as a
separate process and reports its peak RSS; ``--cli`` times the ``mcplint check`` command as
users run it (its default ``--jobs`` uses every CPU on inputs this large); ``--record`` appends
the figures to ``bench/trend.tsv`` (date, commit, figures) so that regressions show (rows
without a ``shape`` are of the realistic shape).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcplint.analysis.engine import Engine  # noqa: E402
from mcplint.api import LintOptions, lint_stream  # noqa: E402
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


SHAPES = ("realistic", "small")

#: Servers of the small shape: name, version, whether it logs, and its tools as (name,
#: description, argument properties, required arguments, argument values to call with, result
#: texts). Each server lists the same tools in every session.
SMALL_SERVERS = (
    ("weather", "1.4.2", True, (
        ("get_forecast", "Weather forecast for a city, one line per day",
         {"city": "string", "days": "integer"}, ["city"],
         ({"city": "Lisbon", "days": 2}, {"city": "Oslo"}, {"city": "Lyon", "days": 5}),
         ("Lisbon: 24°C, sunny; tomorrow 22°C, light wind.", "Oslo: 3°C, sleet by evening.",
          "Lyon: 18°C, showers on Thursday, dry after.")),
        ("get_alerts", "Active weather alerts for a region", {"region": "string"}, ["region"],
         ({"region": "Algarve"}, {"region": "Vestland"}), ("No active alerts.", "Wind warning until 18:00 local time.")),
        ("get_observation", "Latest observation of a weather station", {"station": "string"}, ["station"],
         ({"station": "LPPT"}, {"station": "ENGM"}), ("LPPT 10:20Z: 21°C, wind 320/08kt, few clouds.",
                                                      "ENGM 10:20Z: 2°C, wind 010/12kt, light snow.")),
        ("get_radar", "Precipitation radar summary for an area", {"lat": "number", "lon": "number"}, ["lat", "lon"],
         ({"lat": 38.7, "lon": -9.1}, {"lat": 59.9, "lon": 10.7}), ("No precipitation within 50 km.",
                                                                     "Light snow moving east at 20 km/h.")),
    )),
    ("files", "0.9.0", True, (
        ("read_file", "Read a text file of the workspace", {"path": "string"}, ["path"],
         ({"path": "src/main.py"}, {"path": "README.md"}, {"path": "docs/setup.md"}),
         ("import sys\n\nprint(sys.argv[1:])\n", "# Demo\n\nRun make test.\n", "1. Install\n2. Configure\n")),
        ("search", "Search the workspace for text", {"query": "string", "limit": "integer"}, ["query"],
         ({"query": "TODO", "limit": 5}, {"query": "def main"}), ("3 matches: a.py:4, b.py:10, c.py:2",
                                                                  "1 match: cli.py:12")),
        ("list_dir", "List the entries of a directory", {"path": "string"}, ["path"],
         ({"path": "."}, {"path": "src"}), ("README.md\nsrc/\ntests/", "main.py\nutil.py")),
        ("write_file", "Write a text file, replacing its content", {"path": "string", "content": "string"},
         ["path", "content"], ({"path": "notes.txt", "content": "call the vendor"},), ("Wrote 15 bytes to notes.txt.",)),
    )),
    ("tickets", "2.1.0", False, (
        ("get_ticket", "Fetch a ticket by its key", {"key": "string"}, ["key"],
         ({"key": "OPS-1042"}, {"key": "WEB-77"}), ("OPS-1042 (open): disk alert on db-2", "WEB-77 (done): fix footer")),
        ("add_comment", "Comment on a ticket", {"key": "string", "body": "string"}, ["key", "body"],
         ({"key": "OPS-1042", "body": "Looking into it."},), ("Comment added.",)),
        ("search_tickets", "Search tickets by text and status", {"text": "string", "open": "boolean"}, ["text"],
         ({"text": "disk", "open": True}, {"text": "footer"}), ("2 tickets: OPS-1042, OPS-988", "1 ticket: WEB-77")),
    )),
)
#: Sentences that pad descriptions, results and log lines to the small shape's ~270 bytes per line.
SMALL_FILLER = (
    "Data refreshed 4 minutes ago from the primary source.",
    "Figures are rounded; see the full report for exact values.",
    "Two related items were skipped because they are archived.",
    "The next scheduled update runs at the top of the hour.",
    "Results are cached for five minutes per workspace.",
    "Ask again with a narrower query for more detail.",
    "Use this when the user asks about current conditions.",
    "Returns plain text; nothing is changed on the server.",
)
SMALL_CLIENTS = (("claude-code", "2.0.14"), ("cursor", "1.7.2"), ("mcp-inspector", "0.17.0"), ("vscode", "1.105.0"))
SMALL_VERSION = "2025-11-25"


def small_tool(name: str, text: str, properties: dict[str, str], required: list[str]) -> dict:
    """A listed tool of the small shape, described at the length real servers use."""
    filler = " ".join(SMALL_FILLER[(len(name) + i) % len(SMALL_FILLER)] for i in range(5))
    return {"name": name, "description": f"{text}. {filler}", "inputSchema": {
        "type": "object", "required": required, "properties": {
            key: {"type": kind, "title": key.title(), "description": f"The {key} to use"}
            for key, kind in properties.items()}}}


def small_session(rng: random.Random) -> list[tuple[str, dict]]:
    """One short, clean session of the small shape: handshake, tools/list and a few calls with
    progress (ids from 0 in each session, the request id as progress token), some log
    messages, an occasional ping and now and then a call the user cancels."""
    server, server_version, logs, tools = rng.choice(SMALL_SERVERS)
    client, client_version = rng.choice(SMALL_CLIENTS)
    caps = {"tools": {"listChanged": True}, **({"logging": {}} if logs else {})}
    out = [
        ("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": SMALL_VERSION, "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": client, "version": client_version}}}),
        ("s2c", {"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": SMALL_VERSION, "capabilities": caps,
            "serverInfo": {"name": server, "version": server_version}}}),
        ("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"tools": [small_tool(*tool[:4]) for tool in tools]}}),
    ]
    next_id = 2
    for _ in range(rng.randint(2, 7)):
        if rng.random() < 0.03:  # an occasional keep-alive (either side may ping: IO011 in a tee)
            out.append(("c2s", {"jsonrpc": "2.0", "id": next_id, "method": "ping"}))
            out.append(("s2c", {"jsonrpc": "2.0", "id": next_id, "result": {}}))
            next_id += 1
        name, _, _, _, arguments, texts = rng.choice(tools)
        call_id, next_id = next_id, next_id + 1
        params: dict = {"name": name, "arguments": rng.choice(arguments)}
        steps = rng.randint(1, 3) if rng.random() < 0.85 else 0
        if steps:
            params["_meta"] = {"progressToken": call_id}
        out.append(("c2s", {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": params}))
        cancelled = steps and rng.random() < 0.04
        for step in range(1, steps + 1):
            out.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                "progressToken": call_id, "progress": step, "total": steps, "message": f"{name}: finished step {step} of {steps}"}}))
            if logs and rng.random() < 0.3:
                out.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/message", "params": {
                    "level": rng.choice(("info", "debug")), "logger": server,
                    "data": f"{name}: step {step} of {steps} done. {rng.choice(SMALL_FILLER)}"}}))
            if cancelled:
                break
        if cancelled:  # the user gave up: the server stops and does not answer
            out.append(("c2s", {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
                "requestId": call_id, "reason": "User cancelled"}}))
            continue
        text = " ".join([rng.choice(texts), *rng.sample(SMALL_FILLER, rng.randint(3, 8))])
        out.append(("s2c", {"jsonrpc": "2.0", "id": call_id, "result": {
            "content": [{"type": "text", "text": text}], "isError": False}}))
    return out


def generate(path: Path, size_mb: int, fmt: str, payload_kb: float, long_session: bool = False,
             shape: str = "realistic", seed: int = 16, size_bytes: int | None = None) -> None:
    """Write ``size_mb`` (or ``size_bytes``) of traffic: realistic sessions of 200 calls each, or
    one session (``long_session``) that goes on calling after a single handshake; or with
    ``shape="small"`` many short sessions of small messages (drawn with ``seed``)."""
    target = size_bytes if size_bytes is not None else size_mb << 20
    rng = random.Random(seed)
    template = base = session_lines(200, payload_kb) if shape == "realistic" else []
    written = 0
    second = 0
    rounds = 0
    with open(path, "wb") as out:
        while written < target:
            if shape == "small":
                template = small_session(rng)
            elif long_session and rounds:
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


def generated(shape: str, size_mb: int, fmt: str, payload_kb: float = 2.0) -> Path:
    """The generated file of this shape, size and format in bench/data (written if missing)."""
    DATA.mkdir(exist_ok=True)
    suffix = "jsonl" if fmt == "jsonl" else "mcplog"
    name = f"generated-{size_mb}mb-{payload_kb:g}kb" if shape == "realistic" else f"generated-{shape}-{size_mb}mb"
    path = DATA / f"{name}.{suffix}"
    if not path.exists() or path.stat().st_size < (size_mb << 20):
        generate(path, size_mb, fmt, payload_kb, shape=shape)
    return path


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
                 "peak_rss_mb", "cli_s", "cli_share", "shape")


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
    parser.add_argument("--shape", choices=SHAPES, default="realistic",
                        help="generated traffic: realistic sessions (default) or many short sessions of small messages")
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--format", choices=["jsonl", "capture", "both"], default="both")
    parser.add_argument("--payload-kb", type=float, default=2.0)
    parser.add_argument("--rss", action="store_true", help="also measure peak RSS of a separate mcplint process")
    parser.add_argument("--cli", action="store_true",
                        help="also time the mcplint check command as users run it (default --jobs)")
    parser.add_argument("--record", action="store_true", help="append the figures to bench/trend.tsv")
    args = parser.parse_args()
    for fmt in (["jsonl", "capture"] if args.format == "both" else [args.format]):
        path = generated(args.shape, args.size_mb, fmt, args.payload_kb)
        size = os.path.getsize(path) / (1 << 20)
        warm_cache(path)
        gc.collect()
        lines, bare = bare_loop(path)
        gc.collect()
        records, findings, ours = mcplint_run(path)
        shape = f"payload {args.payload_kb:g} KB" if args.shape == "realistic" else "small messages"
        print(f"{fmt:8} {size:7.1f} MB  {lines:>9} lines  {shape}")
        print(f"  orjson.loads loop : {bare:7.2f} s  {lines / bare:>10,.0f} lines/s  {size / bare:7.1f} MB/s")
        print(f"  mcplint check     : {ours:7.2f} s  {records / ours:>10,.0f} records/s  {size / ours:7.1f} MB/s"
              f"  ({findings} findings)")
        print(f"  share             : {bare / ours:7.1%} of the bare parse loop's speed")
        fields = {"format": fmt, "size_mb": round(size, 1), "lines": lines, "shape": args.shape,
                  "payload_kb": args.payload_kb if args.shape == "realistic" else "",
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

"""CPU each rule's ``check`` costs per record of a generated capture, most expensive first.

    python bench/profile_rules.py                          # 10 MB capture (.mcplog), generated if missing
    python bench/profile_rules.py --format jsonl --top 20
    python bench/profile_rules.py --shape small --format jsonl   # many short sessions (bench_check --shape)
    python bench/profile_rules.py bench/data/some.mcplog   # any file mcplint reads
    python bench/profile_rules.py --prof                   # cProfile table of a run without wrappers

Every rule's ``check`` is wrapped with a timer (``rule_timing.py``; the wrapper adds about
0.2 µs per call, so the figures are upper bounds); the table gives µs per record (of all
records), calls, and µs per call. The run before the timed one warms caches (schema adapters, dispatch tables). The total
CPU per record of an unwrapped run and of a bare ``orjson.loads`` loop over the same file are
printed above the table, so that the rules' share of the whole shows. Files come from the
generator of ``bench_check.py`` (same paths, so both scripts share them).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_check  # noqa: E402
from bench_check import SHAPES, bare_loop, generated, mcplint_run  # noqa: E402
from rule_timing import timed_rules  # noqa: E402


def cpu_per_record(path: Path, runs: int) -> tuple[float, float, int]:
    """Best-of-``runs`` CPU µs per record of mcplint, CPU µs per line of the bare loop, findings."""
    best, found, records = float("inf"), 0, 1
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        records, found, _ = mcplint_run(path)
        best = min(best, time.process_time() - start)
    gc.collect()
    lines, bare = bare_loop(path, time.process_time)
    return best / records * 1e6, bare / max(lines, 1) * 1e6, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", type=Path, help="a file to lint (default: a generated capture)")
    parser.add_argument("--shape", choices=SHAPES, default="realistic", help="generated traffic (see bench_check.py)")
    parser.add_argument("--size-mb", type=int, default=10)
    parser.add_argument("--format", choices=["jsonl", "capture"], default="capture")
    parser.add_argument("--payload-kb", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=3, help="unwrapped runs; the best counts (default 3)")
    parser.add_argument("--top", type=int, default=40, help="rules shown (default 40)")
    parser.add_argument("--prof", action="store_true", help="print a cProfile table instead of the rule table")
    args = parser.parse_args()
    path = args.path or generated(args.shape, args.size_mb, args.format, args.payload_kb)
    if args.prof:
        mcplint_run(path)
        profile = cProfile.Profile()
        profile.runcall(bench_check.mcplint_run, path)
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)
        return
    mcplint_run(path)  # warm-up
    ours, bare, found = cpu_per_record(path, args.runs)
    times = timed_rules(lambda: mcplint_run(path)[0])
    records, total = times.records, times.checks_spent()
    other = sum(times.spent.values()) - total
    print(f"{path.name}: {records} records, {found} findings")
    print(f"  mcplint check : {ours:6.1f} µs CPU per record (best of {args.runs})")
    print(f"  orjson.loads  : {bare:6.2f} µs CPU per line ({bare / ours:.1%} of mcplint's)")
    print(f"  rule checks   : {total / records * 1e6:6.1f} µs per record (timed), "
          f"{times.total_calls / records:.1f} calls per record")
    print(f"  other family code: {other / records * 1e6:6.1f} µs per record (feature clean tests, tracker commits, "
          "finishes; timed)")
    print()
    print("\n".join(times.table(args.top)))


if __name__ == "__main__":
    main()

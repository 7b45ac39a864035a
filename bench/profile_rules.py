"""CPU each rule's ``check`` costs per record of a generated capture, most expensive first.

    python bench/profile_rules.py                          # 10 MB capture (.mcplog), generated if missing
    python bench/profile_rules.py --format jsonl --top 20
    python bench/profile_rules.py bench/data/some.mcplog   # any file mcplint reads
    python bench/profile_rules.py --prof                   # cProfile table of a run without wrappers

Every rule's ``check`` is wrapped with a timer (the wrapper adds about 0.2 µs per call, so the
figures are upper bounds); the table gives µs per record (of all records), calls, and µs per
call. The run before the timed one warms caches (schema adapters, dispatch tables). The total
CPU per record of an unwrapped run and of a bare ``orjson.loads`` loop over the same file are
printed above the table, so that the rules' share of the whole shows. Files come from the
generator of ``bench_check.py`` (same paths, so both scripts share them).
"""

from __future__ import annotations

import argparse
import cProfile
import collections
import gc
import pstats
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_check  # noqa: E402
from bench_check import DATA, bare_loop, generate, mcplint_run  # noqa: E402

from mcplint import engine as engine_module  # noqa: E402


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


def timed_rules(path: Path) -> tuple[int, dict[str, float], dict[str, int]]:
    """Records of one run with every rule's ``check`` timed: (records, seconds by code, calls by code)."""
    spent: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    original = engine_module.Engine.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        for rule in self.rules:
            rule.check = wrap(rule.check, rule.code)

    def wrap(check, code):
        def timed(record, session):
            start = time.perf_counter()
            out = check(record, session)
            if not isinstance(out, (list, tuple)):
                out = list(out)  # generators do their work here
            spent[code] += time.perf_counter() - start
            calls[code] += 1
            return out
        return timed

    engine_module.Engine.__init__ = init
    try:
        mcplint_run(path)  # warm-up
        spent.clear()
        calls.clear()
        gc.collect()  # a full collection left over from earlier runs would land on one rule
        records, _, _ = mcplint_run(path)
    finally:
        engine_module.Engine.__init__ = original
    return records, spent, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", type=Path, help="a file to lint (default: a generated capture)")
    parser.add_argument("--size-mb", type=int, default=10)
    parser.add_argument("--format", choices=["jsonl", "capture"], default="capture")
    parser.add_argument("--payload-kb", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=3, help="unwrapped runs; the best counts (default 3)")
    parser.add_argument("--top", type=int, default=40, help="rules shown (default 40)")
    parser.add_argument("--prof", action="store_true", help="print a cProfile table instead of the rule table")
    args = parser.parse_args()
    path = args.path
    if path is None:
        DATA.mkdir(exist_ok=True)
        suffix = "jsonl" if args.format == "jsonl" else "mcplog"
        path = DATA / f"generated-{args.size_mb}mb-{args.payload_kb:g}kb.{suffix}"
        if not path.exists() or path.stat().st_size < (args.size_mb << 20):
            generate(path, args.size_mb, args.format, args.payload_kb)
    if args.prof:
        mcplint_run(path)
        profile = cProfile.Profile()
        profile.runcall(bench_check.mcplint_run, path)
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)
        return
    mcplint_run(path)  # warm-up
    ours, bare, found = cpu_per_record(path, args.runs)
    records, spent, calls = timed_rules(path)
    total = sum(spent.values())
    print(f"{path.name}: {records} records, {found} findings")
    print(f"  mcplint check : {ours:6.1f} µs CPU per record (best of {args.runs})")
    print(f"  orjson.loads  : {bare:6.2f} µs CPU per line ({bare / ours:.1%} of mcplint's)")
    print(f"  rule checks   : {total / records * 1e6:6.1f} µs per record (timed), "
          f"{sum(calls.values()) / records:.1f} calls per record")
    print(f"\n{'rule':8} {'µs/record':>10} {'calls':>8} {'µs/call':>8}")
    for code, seconds in sorted(spent.items(), key=lambda item: -item[1])[:args.top]:
        print(f"{code:8} {seconds / records * 1e6:10.2f} {calls[code]:8} {seconds / calls[code] * 1e6:8.2f}")


if __name__ == "__main__":
    main()

"""CPU per record of each stage of ``mcplint check``, stage by stage, against a bare ``orjson.loads`` loop.

    python bench/bench_stages.py                       # small-shape and realistic 20 MB files
    python bench/bench_stages.py bench/data/some.jsonl --runs 5 --top 20

Each stage adds one layer to the one before, as ``mcplint check --jobs 1`` stacks them
(``api.lint_stream``): (a) read: ``readers.open_frames`` (format sniffing, line splitting,
envelopes); (b) + parse: ``parse.Parser.records``; (c) + analyze: ``Analyzer.observe`` and
``commit`` of every record and its batch children, closed sessions released, as
``Engine._record`` does; (d) + engine without rules: ``Engine([])`` through ``lint_stream``
(record numbering, trackers, dispatch keys, session finishing); (e) check: the engine with the
default rule selection, as ``mcplint check`` runs it. Every figure is the best of ``--runs`` of
CPU time (``time.process_time``) in this one process, and the bare loop over the same file is
measured in the same run. A separate wrapped pass (``rule_timing.py``) then counts rule
``check`` calls per record and gives the costliest rules.

Default inputs are generated once in bench/data by ``bench_check.py``'s generator: 20 MB of the
small shape (a tee of many short sessions) and 20 MB of the realistic shape, both JSON Lines.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_check import bare_loop, generated, warm_cache  # noqa: E402
from rule_timing import timed_rules  # noqa: E402

from mcplint.analyzer import Analyzer, Limits  # noqa: E402
from mcplint.api import LintOptions, lint_stream  # noqa: E402
from mcplint.engine import Engine  # noqa: E402
from mcplint.parse import Parser  # noqa: E402
from mcplint.readers import open_frames  # noqa: E402
from mcplint.report.summary import RunSummary  # noqa: E402
from mcplint.select import select_rules  # noqa: E402

OPTIONS = LintOptions()


def frames(handle):
    """The frames of ``handle`` as ``lint_stream`` opens them."""
    return open_frames(handle, OPTIONS.input_format, strict=True, max_line_bytes=OPTIONS.max_line_bytes)[1]


def read(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in frames(handle))


def parse(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in Parser(str(path)).records(frames(handle)))


def analyze(path: Path) -> int:
    count = 0
    analyzer = Analyzer(str(path), OPTIONS.protocol_version, Limits())
    observe, commit = analyzer.observe, analyzer.commit
    with open(path, "rb") as handle:
        for record in Parser(str(path)).records(frames(handle)):
            count += 1
            observe(record)
            for child in record.children:
                observe(child)
                commit(child)
            commit(record)
            if analyzer.closed:
                for session in analyzer.take_closed():
                    session.release()
    return count


def engine_run(rules: Callable[[], list]) -> Callable[[Path], int]:
    """A stage that lints ``path`` through ``api.lint_stream`` with an engine of ``rules()``."""
    def run(path: Path) -> int:
        summary = RunSummary()
        with open(path, "rb") as handle:
            for _ in lint_stream(handle, str(path), None, OPTIONS, summary, Engine(rules()), progress=False):
                pass
        return summary.records
    return run


STAGES: tuple[tuple[str, Callable[[Path], int]], ...] = (
    ("read", read),
    ("+ parse", parse),
    ("+ analyzer", analyze),
    ("+ engine, no rules", engine_run(list)),
    ("check (default rules)", engine_run(select_rules)),
)


def best_cpu(stage: Callable[[Path], int], path: Path, runs: int) -> tuple[float, int]:
    """Fewest CPU seconds of ``runs`` calls of ``stage`` on ``path``, and what it counted."""
    best, count = float("inf"), 0
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        count = stage(path)
        best = min(best, time.process_time() - start)
    return best, count


def report(path: Path, runs: int, top: int) -> None:
    warm_cache(path)
    select_rules()  # imports every rule family once, outside the measured runs
    engine_run(select_rules)(path)  # warm-up: schema adapters, dispatch caches
    bare, lines = float("inf"), 0
    for _ in range(runs):
        gc.collect()
        lines, seconds = bare_loop(path, time.process_time)
        bare = min(bare, seconds)
    measured = [(name, *best_cpu(stage, path, runs)) for name, stage in STAGES]
    records = measured[-1][2]
    total = measured[-1][1]
    size = path.stat().st_size / (1 << 20)
    print(f"{path.name}: {size:.1f} MB, {lines} lines, {records} records (CPU, best of {runs})")
    print(f"  {'stage':24} {'µs/record':>10} {'delta':>8} {'share':>7}")
    previous = 0.0
    for name, seconds, _ in measured:
        per_record = seconds / records * 1e6
        delta = per_record - previous
        print(f"  {name:24} {per_record:10.2f} {delta:8.2f} {delta / (total / records * 1e6):7.1%}")
        previous = per_record
    print(f"  {'bare orjson.loads loop':24} {bare / lines * 1e6:10.2f} µs/line; "
          f"check runs at {bare / total:.3f} of the bare loop's speed")
    times = timed_rules(lambda: engine_run(select_rules)(path))
    none, fewest, median, most = times.calls_spread()
    print(f"  rule checks (wrapped)    {sum(times.spent.values()) / records * 1e6:10.2f} µs/record, "
          f"{times.total_calls / records:.1f} calls per record (median {median}, "
          f"fewest {fewest} where any, most {most}; {none:.1%} of records call no rule)")
    print()
    print("\n".join("  " + line for line in times.table(top)))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, help="files to measure (default: generated ones)")
    parser.add_argument("--size-mb", type=int, default=20, help="size of the generated default inputs")
    parser.add_argument("--runs", type=int, default=3, help="runs of each stage; the best counts (default 3)")
    parser.add_argument("--top", type=int, default=15, help="rules shown (default 15)")
    args = parser.parse_args()
    paths = args.paths or [generated("small", args.size_mb, "jsonl"), generated("realistic", args.size_mb, "jsonl")]
    for path in paths:
        report(path, args.runs, args.top)


if __name__ == "__main__":
    main()

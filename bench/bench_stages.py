"""CPU per record of each stage of ``mcplint check``, stage by stage, against a bare ``orjson.loads`` loop.

    python bench/bench_stages.py                       # small-shape and realistic 20 MB files
    python bench/bench_stages.py bench/data/some.jsonl --runs 5 --top 20
    python bench/bench_stages.py --instructions        # instructions per record (valgrind), 1 MB files

Each stage adds one layer to the one before, as ``mcplint check --jobs 1`` stacks them
(``analysis.lint.lint_stream``): (a) read: ``input.readers.open_frames`` (format sniffing, line
splitting, the secret-literal scan; a line reader's blocks of lines, as the parser takes them, else frames); (b) + parse: ``input.parse.Parser.records``; (c) + analyze: ``Analyzer.observe`` and
``commit`` of every record and its batch children, closed sessions released, as
``Engine._record`` does; (d) + engine without rules: ``Engine([])`` through ``lint_stream``
(record numbering, trackers, dispatch keys, session finishing); (e) check: the engine with the
default rule selection, as ``mcplint check`` runs it. Every figure is the best of ``--runs`` of
CPU time (``time.process_time``) in this one process, and the bare loop over the same file is
measured in the same run. A separate wrapped pass (``rule_timing.py``) then counts rule
``check`` calls per record and gives the costliest rules.

Default inputs are generated once in bench/data by ``bench_check.py``'s generator: 20 MB of the
small shape (a tee of many short sessions) and 20 MB of the realistic shape, both JSON Lines.

``--instructions`` counts instructions instead of CPU time (valgrind's cachegrind, ``Ir``): each
stage runs once in a child process after a warm-up lint of the same file, and a child that only
warms up is subtracted. The count does not move when other processes load the machine (CPU time
on 2 shared cores does, by 20-40%), so it judges small changes; it runs 1 MB heads of the default
inputs (about 40x slower than a plain run).
"""

from __future__ import annotations

import argparse
import gc
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_check import bare_loop, generated, warm_cache  # noqa: E402
from rule_timing import timed_rules  # noqa: E402

from mcplint.analysis.analyzer import Analyzer, Limits  # noqa: E402
from mcplint.analysis.engine import Engine  # noqa: E402
from mcplint.analysis.lint import LintOptions, lint_stream  # noqa: E402
from mcplint.config.select import select_rules  # noqa: E402
from mcplint.input.parse import LineFrames, Parser  # noqa: E402
from mcplint.input.readers import open_frames  # noqa: E402
from mcplint.report.summary import RunSummary  # noqa: E402

OPTIONS = LintOptions()


def frames(handle):
    """The frames of ``handle`` as ``lint_stream`` opens them."""
    return open_frames(handle, OPTIONS.input_format, strict=True, max_line_bytes=OPTIONS.max_line_bytes)[1]


def read(path: Path) -> int:
    """The lines as the parser takes them: a line reader's blocks of lines (``LineFrames.batches``:
    the parser makes no :class:`Frame` of a common line), any other reader's frames."""
    with open(path, "rb") as handle:
        source = frames(handle)
        if type(source) is LineFrames:
            return sum(len(lines) for lines, _, _ in source.batches)
        return sum(1 for _ in source)


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
    """A stage that lints ``path`` through ``lint_stream`` with an engine of ``rules()``."""
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
    print(f"  rule checks (wrapped)    {times.checks_spent() / records * 1e6:10.2f} µs/record, "
          f"{times.total_calls / records:.1f} calls per record (median {median}, "
          f"fewest {fewest} where any, most {most}; {none:.1%} of records call no rule)")
    print(f"  + features, trackers,    {(sum(times.spent.values()) - times.checks_spent()) / records * 1e6:10.2f} "
          "µs/record (family clean tests, tracker commits, finishes)")
    print()
    print("\n".join("  " + line for line in times.table(top)))
    print()


def bare(path: Path) -> int:
    return bare_loop(path, time.process_time)[0]


def child(stage: str, path: Path) -> None:
    """What one valgrind child runs: imports and a warm-up lint, then ``stage`` ("none": nothing)."""
    select_rules()
    engine_run(select_rules)(path)
    stages = {name: stage for name, stage in STAGES} | {"bare": bare}
    if stage != "none":
        stages[stage](path)


def instructions(stage: str, path: Path) -> int:
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          sys.executable, __file__, "--child", stage, str(path)], capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode or found is None:
        raise SystemExit(f"valgrind run of {stage!r} failed:\n{out.stderr[-3000:]}")
    return int(found.group(1).replace(",", ""))


def head_of(path: Path, size: int) -> Path:
    """The first ``size`` bytes of ``path`` (whole lines), as bench/data/<name>-head<size>.jsonl."""
    target = path.with_name(f"{path.stem}-head{size >> 10}k{path.suffix}")
    if not target.exists():
        with open(path, "rb") as handle:
            data = handle.read(size)
        target.write_bytes(data[:data.rfind(b"\n") + 1])
    return target


def report_instructions(path: Path) -> None:
    lines = sum(1 for _ in open(path, "rb"))
    instructions("none", path)  # (a first run fills the wire-schema cache the others read)
    base = instructions("none", path)
    bare_count = (instructions("bare", path) - base) / lines
    print(f"{path.name}: {lines} lines (instructions per record, valgrind)")
    print(f"  {'stage':24} {'Ir/record':>10} {'delta':>8}")
    previous = total = 0.0
    for name, _ in STAGES:
        total = (instructions(name, path) - base) / lines
        print(f"  {name:24} {total:10,.0f} {total - previous:8,.0f}")
        previous = total
    print(f"  {'bare orjson.loads loop':24} {bare_count:10,.0f} per line; check at {bare_count / total:.3f} of the bare loop")
    print()


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        return child(sys.argv[2], Path(sys.argv[3]))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, help="files to measure (default: generated ones)")
    parser.add_argument("--size-mb", type=int, default=20, help="size of the generated default inputs")
    parser.add_argument("--runs", type=int, default=3, help="runs of each stage; the best counts (default 3)")
    parser.add_argument("--top", type=int, default=15, help="rules shown (default 15)")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions per record with valgrind (1 MB heads of the default inputs)")
    args = parser.parse_args()
    paths = args.paths or [generated("small", args.size_mb, "jsonl"), generated("realistic", args.size_mb, "jsonl")]
    for path in paths:
        if args.instructions:
            report_instructions(path if args.paths else head_of(path, 1 << 20))
        else:
            report(path, args.runs, args.top)


if __name__ == "__main__":
    main()

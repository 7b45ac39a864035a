"""What each layer of ``mcplint check`` costs in place, measured by checking without it.

    python bench/bench_floors.py                       # small-shape and realistic 20 MB files
    python bench/bench_floors.py bench/data/generated-20mb-2kb.mcplog --runs 5

A layer's cost in place is not the sum of its functions timed apart (a function timed in a loop
runs five to ten times faster than among the others: ``bytecodes.py``). So each layer is measured
the other way round: the same check in the same process with that layer made free, and the
difference to the whole check is what the layer costs. Each line also says what share of the
bare ``orjson.loads`` loop a check would reach if the layer cost nothing, and the last line what
a record may cost at a share of 0.25 (issue 16's target) beyond reading and parsing it, the one
part no rule selection changes.

The layers:

- **read and parse only**: the records, made as a check makes them, and nothing else: the ceiling
  of any engine;
- **any rule**: an engine of no rules: sessions followed (directions, requests and answers,
  progress tokens, the handshake) and nothing judged;
- **clean tests**: the rule families' clean tests (``Engine._clean_tests``: a plain tool call or
  answer, a plain progress or log notification, a schema acceptor for other messages) all pass
  without being run, as on clean traffic they do;
- **schema acceptors**: ``schema.Accepting.vouches``, the acceptors of the four everyday payloads
  that the clean tests above ask, answers yes at once (what a decoder that validated shapes in C
  could save at most);
- **HX004 and HX009**: the two heuristics a call that overlaps another is handed to return at once;
- **timestamps**: a capture's timestamps are not parsed (every record gets the same time).

Made free, a layer no longer judges, so the checks without it may find less: the figures are
costs, not results. Every figure is the best of ``--runs`` of CPU time (``time.process_time``).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_check import bare_loop, generated, warm_cache  # noqa: E402
from bench_stages import parse  # noqa: E402

from mcplint.analysis.engine import Engine  # noqa: E402
from mcplint.analysis.lint import LintOptions, lint_stream  # noqa: E402
from mcplint.config.select import select_rules  # noqa: E402
from mcplint.input import readers  # noqa: E402
from mcplint.report.summary import RunSummary  # noqa: E402
from mcplint.rules import heuristics, schema  # noqa: E402

TARGET = 0.25  # issue 16: check --jobs 1 at a quarter of the bare loop's speed
OPTIONS = LintOptions()


def check(path: Path, engine: Callable[[], Engine] = lambda: Engine(select_rules())) -> int:
    """Records of ``path``, linted as ``mcplint check --jobs 1`` lints them (default rules)."""
    summary = RunSummary()
    with open(path, "rb") as handle:
        for _ in lint_stream(handle, str(path), None, OPTIONS, summary, engine(), progress=False):
            pass
    return summary.records


def _passing(record) -> bool:
    return True


def without_clean_tests() -> Engine:
    engine = Engine(select_rules())
    for key, tests in engine._clean_tests.items():
        engine._clean_tests[key] = [(bit, _passing) for bit, _ in tests]
    return engine


@contextlib.contextmanager
def patched(owner, name: str, value) -> Iterator[None]:
    """``owner.name`` is ``value`` while the block runs."""
    before = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, before)


def _nothing(self, record, session):
    return ()


@contextlib.contextmanager
def without_heuristics() -> Iterator[None]:
    with patched(heuristics.TimeoutWithoutCancel, "check", _nothing), \
            patched(heuristics.RetryStorm, "check", _nothing):
        yield


def layer_runs() -> list[tuple[str, Callable[[Path], int]]]:
    """(what is made free, a check of a file without it)"""
    def under(context: Callable[[], contextlib.AbstractContextManager]) -> Callable[[Path], int]:
        def run(path: Path) -> int:
            with context():
                return check(path)
        return run

    return [
        ("any rule", lambda path: check(path, lambda: Engine([]))),
        ("clean tests", lambda path: check(path, without_clean_tests)),
        ("schema acceptors", under(lambda: patched(schema.Accepting, "vouches", lambda self, record, value: True))),
        ("HX004 and HX009", under(without_heuristics)),
        ("timestamps", under(lambda: patched(readers, "parse_ts", lambda ts: 0.0))),
    ]


def best_cpu(run: Callable[[Path], int], path: Path, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        run(path)
        best = min(best, time.process_time() - start)
    return best


def report(path: Path, runs: int) -> None:
    warm_cache(path)
    records = check(path)  # (and a warm-up: lazy imports, schema adapters, dispatch caches)
    lines, bare = 0, float("inf")
    for _ in range(runs):
        gc.collect()
        lines, seconds = bare_loop(path, time.process_time)
        bare = min(bare, seconds)
    whole = best_cpu(check, path, runs)
    parsed = best_cpu(parse, path, runs)
    us = 1e6 / records
    print(f"{path.name}: {records} records; bare orjson.loads loop {bare / lines * 1e6:.2f} µs/line "
          f"(CPU, best of {runs})")
    print(f"  {'':28} {'µs/record':>9} {'saves':>6} {'share':>6}")
    print(f"  {'check (default rules)':28} {whole * us:9.2f} {'':6} {bare / whole:6.3f}")
    print(f"  {'read and parse only':28} {parsed * us:9.2f} {'':6} {bare / parsed:6.3f}  (the ceiling of any engine)")
    alone = whole  # the check without any rule: the sessions followed, nothing judged
    for name, run in layer_runs():
        seconds = best_cpu(run, path, runs)
        if name == "any rule":
            alone = seconds
        print(f"  {'without ' + name:28} {seconds * us:9.2f} {(whole - seconds) * us:6.2f} {bare / seconds:6.3f}")
    print(f"  the rules cost {(whole - alone) * us:.2f} µs a record: the check runs at {alone / whole:.2f} of the speed "
          "of following the sessions alone")
    budget = bare / lines / TARGET * 1e6
    print(f"  at a share of {TARGET} a record may cost {budget:.2f} µs: {budget - parsed * us:.2f} µs beyond "
          f"reading and parsing it (now {(whole - parsed) * us:.2f})")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="files to measure (default: generated ones)")
    parser.add_argument("--size-mb", type=int, default=20, help="size of the generated default inputs")
    parser.add_argument("--runs", type=int, default=3, help="runs of each; the best counts (default 3)")
    args = parser.parse_args()
    paths = args.paths or [generated("small", args.size_mb, "jsonl"), generated("realistic", args.size_mb, "jsonl"),
                           generated("realistic", args.size_mb, "capture")]
    for path in paths:
        report(path, args.runs)


if __name__ == "__main__":
    main()

"""Peak memory of ``mcplint check``, ``stats`` and ``diagnose`` as the input grows.

    python bench/bench_memory.py                              # 100 MB and 1 GB, both shapes
    python bench/bench_memory.py --sizes 20,100 --commands check

Three capture shapes are generated with ``bench_check``'s generator (canonical capture format,
kept under ``bench/data`` and reused): ``short`` is many sessions of 200 tool calls each, ``long``
is one session that goes on calling after a single handshake (a gateway log; the one that finds
per-session tables growing with the input), ``small`` is ``bench_check``'s small shape, many short
sessions of small messages (about 23 records each: the one that finds what every session leaves
behind, about 160,000 sessions in 1 GB). Each command runs as its own process and its peak
RSS is read from the kernel's resource usage of that child (``os.wait4``, the ``ru_maxrss`` that
``resource.getrusage(RUSAGE_CHILDREN)`` reports, but for that one child only). The table ends
with the largest/smallest size ratio per command and shape: memory that does not grow with the
input keeps it near 1.0. Runs of ``check`` on the largest size go last.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check import DATA, generate, run_mcplint  # noqa: E402

COMMANDS = {
    # one process: the memory target is per process (the default --jobs forks workers on large input)
    "check": ["check", "--output-format", "concise", "--exit-zero", "--isolated", "--jobs", "1"],
    "stats": ["stats", "--output-format", "json"],
    "diagnose": ["diagnose", "--output-format", "json"],
}


def capture(size_mb: int, shape: str, payload_kb: float) -> Path:
    """The generated capture of this size and shape (made on first use)."""
    DATA.mkdir(exist_ok=True)
    path = DATA / f"memory-{shape}-{size_mb}mb-{payload_kb:g}kb.mcplog"
    if not path.exists() or path.stat().st_size < (size_mb << 20):
        start = time.perf_counter()
        generate(path, size_mb, "capture", payload_kb, long_session=shape == "long",
                 shape="small" if shape == "small" else "realistic")
        print(f"generated {path.name} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return path


def measure(command: str, path: Path) -> tuple[float, float, int]:
    """(peak RSS in MB, seconds, lines of output) of one mcplint run as a child process."""
    return run_mcplint(COMMANDS[command], path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1024", help="capture sizes in MB, comma-separated")
    parser.add_argument("--shapes", default="short,long", help="short (many sessions), long (one session), small (many short sessions)")
    parser.add_argument("--commands", default="check,stats,diagnose")
    parser.add_argument("--payload-kb", type=float, default=2.0)
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    shapes = args.shapes.split(",")
    commands = args.commands.split(",")
    paths = {(size, shape): capture(size, shape, args.payload_kb) for size in sizes for shape in shapes}
    # smallest sizes first; the largest size's check runs (the slowest) last
    plan = [(size, shape, command) for size in sizes for command in commands for shape in shapes
            if not (size == sizes[-1] and command == "check")]
    plan += [(sizes[-1], shape, "check") for shape in shapes if "check" in commands]
    results: dict[tuple[int, str, str], tuple[float, float, int]] = {}
    print(f"{'command':9} {'shape':6} {'size':>8} {'peak RSS':>10} {'time':>8} {'output lines':>13}")
    for size, shape, command in plan:
        rss, seconds, lines = results[(size, shape, command)] = measure(command, paths[(size, shape)])
        print(f"{command:9} {shape:6} {size:>5} MB {rss:>7.1f} MB {seconds:>7.1f}s {lines:>13}", flush=True)
    if len(sizes) > 1:
        print(f"\npeak RSS ratio {sizes[-1]} MB / {sizes[0]} MB:")
        for command in commands:
            for shape in shapes:
                ratio = results[(sizes[-1], shape, command)][0] / results[(sizes[0], shape, command)][0]
                print(f"  {command:9} {shape:6} {ratio:5.2f}")


if __name__ == "__main__":
    main()

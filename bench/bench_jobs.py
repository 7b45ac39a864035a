"""Wall time of ``mcplint check --jobs 1`` against ``--jobs 2`` (and more) on many files and on
one large file, next to a bare ``orjson.loads`` loop over the same bytes.

    python bench/bench_jobs.py                          # 40 files of 1 MB, one 40 MB file
    python bench/bench_jobs.py --files 100 --large-mb 100 --jobs 1,2,4 --repeat 3
    python bench/bench_jobs.py --shape small --large-mb 141 --inputs sessions   # issue 16's tee

The captures come from ``bench_check.generate`` (clean 2025-06-18 sessions of 200 tool calls,
about 0.5 MB each). Three inputs: a directory of many small files (spread over processes file by
file), one large file of many sessions (cut into parts at session starts), and one large file
that is a single session (cannot be cut: shows what ``--jobs`` costs when it cannot help).
Every run is the real command line in its own process (start-up included); the best of
``--repeat`` runs is reported with the CPU time it used, and the output of every ``--jobs``
value is checked to be byte-identical to ``--jobs 1``.

Wall time needs idle cores. On a shared machine the *CPU path* says what it would be: the CPU
seconds of the main process (start-up, planning, merging) plus those of the busiest worker,
measured by running the same ``lint_paths`` call in a fresh process with every pool task
timed; ``path speed-up`` compares it with ``--jobs 1``'s.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check import DATA, generate  # noqa: E402


def prepare(args) -> list[tuple[str, Path, int]]:
    """(label, path, number of files) of each input asked for, generated once and reused."""
    root = DATA / "jobs"
    root.mkdir(parents=True, exist_ok=True)
    out = []
    for name in args.inputs.split(","):
        if name == "files":
            many = root / f"many-{args.files}x{args.file_mb}mb"
            many.mkdir(parents=True, exist_ok=True)
            for index in range(args.files):
                path = many / f"capture-{index:04d}.{'mcplog' if index % 2 else 'jsonl'}"
                if not path.exists():
                    generate(path, args.file_mb, "capture" if index % 2 else "jsonl", args.payload_kb)
            out.append((f"{args.files} files of {args.file_mb} MB", many, args.files))
        elif name == "sessions":
            large = root / (f"large-{args.large_mb}mb.jsonl" if args.shape == "realistic"
                            else f"large-{args.shape}-{args.large_mb}mb.jsonl")
            if not large.exists():
                generate(large, args.large_mb, "jsonl", args.payload_kb, shape=args.shape)
            out.append((f"1 file, {args.large_mb} MB, many sessions ({args.shape})", large, 1))
        elif name == "single":
            single = root / f"single-session-{args.large_mb}mb.jsonl"
            if not single.exists():
                generate(single, args.large_mb, "jsonl", args.payload_kb, long_session=True)
            out.append((f"1 file, {args.large_mb} MB, one session", single, 1))
        else:
            raise SystemExit(f"--inputs: unknown input {name!r} (files, sessions, single)")
    return out


def bare_loop(path: Path) -> float:
    files = sorted(p for p in path.iterdir()) if path.is_dir() else [path]
    start = time.perf_counter()
    for name in files:
        with open(name, "rb") as handle:
            for line in handle:
                orjson.loads(line)
    return time.perf_counter() - start


def check(path: Path, jobs: int) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one ``mcplint check`` process (its workers included), and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # bench/data is gitignored: the directory's files are linted only when gitignore is not respected
    done = subprocess.run([sys.executable, "-m", "mcplint", "check", "--output-format", "json", "--exit-zero",
                           "--no-respect-gitignore", "--jobs", str(jobs), str(path)], capture_output=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def cpu_path(path: Path, jobs: int) -> float:
    """CPU seconds on the critical path of one cold run (see the module docstring)."""
    done = subprocess.run([sys.executable, __file__, "--cpu-path-of", str(path), str(jobs)],
                          capture_output=True, check=True, text=True)
    return float(done.stdout)


_ORIGINAL: dict = {}  # pool task functions of mcplint.analysis.parallel, before timing (inherited by forked workers)
_TASK_LOG = Path(os.devnull)


class _Timed:
    """A pool task that appends its worker's pid and CPU seconds to ``_TASK_LOG``."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args):
        start = time.process_time()
        result = _ORIGINAL[self.name](*args)
        with open(_TASK_LOG, "a") as out:
            out.write(f"{os.getpid()}\t{time.process_time() - start}\n")
        return result


def measure_cpu_path(path: str, jobs: int) -> None:
    """Run ``lint_paths`` here, timing each pool task in its worker; print the CPU path."""
    global _TASK_LOG
    import tempfile

    from mcplint.analysis import parallel
    from mcplint.api import LintOptions, lint_paths
    from mcplint.input.discovery import Finder

    with tempfile.TemporaryDirectory() as tmp:
        _TASK_LOG = Path(tmp) / "tasks.tsv"
        for name in ("lint_part", "lint_file_in_worker"):
            _ORIGINAL[name] = getattr(parallel, name)
            setattr(parallel, name, _Timed(name))
        lint_paths([path], None, LintOptions(), jobs=jobs, finder=Finder(respect_gitignore=False))
        busy: dict[str, float] = {}
        if _TASK_LOG.exists():
            for line in _TASK_LOG.read_text().splitlines():
                pid, seconds = line.split("\t")
                busy[pid] = busy.get(pid, 0.0) + float(seconds)
    print(time.process_time() + max(busy.values(), default=0.0))


def _spin(count: int) -> int:
    total = 0
    for i in range(count):
        total += i * i
    return total


def machine_scaling(processes: int, count: int = 20_000_000) -> float:
    """How much faster ``processes`` copies of a pure Python loop finish together than one after
    another: the most any ``--jobs`` can gain here (a shared VM's cores may give less than one each)."""
    from multiprocessing import Pool

    start = time.perf_counter()
    _spin(count)
    one = time.perf_counter() - start
    with Pool(processes) as pool:
        start = time.perf_counter()
        pool.map(_spin, [count] * processes)
        together = time.perf_counter() - start
    return processes * one / together


def size_mb(path: Path) -> float:
    files = list(path.iterdir()) if path.is_dir() else [path]
    return sum(p.stat().st_size for p in files) / (1 << 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=40, help="number of small files")
    parser.add_argument("--file-mb", type=int, default=1, help="size of each small file")
    parser.add_argument("--large-mb", type=int, default=40, help="size of the large files")
    parser.add_argument("--payload-kb", type=float, default=2.0)
    parser.add_argument("--jobs", default="1,2", help="comma-separated --jobs values (the first is the base)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts")
    parser.add_argument("--shape", choices=["realistic", "small"], default="realistic",
                        help="sessions of the many-sessions file: 200 calls each, or many short ones of small "
                             "messages (the tee of bench_check.py --shape small)")
    parser.add_argument("--inputs", default="files,sessions,single",
                        help="comma-separated inputs to measure: files, sessions, single")
    parser.add_argument("--cpu-path-of", nargs=2, metavar=("PATH", "JOBS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cpu_path_of:
        measure_cpu_path(args.cpu_path_of[0], int(args.cpu_path_of[1]))
        return
    jobs_values = [int(j) for j in args.jobs.split(",")]
    print(f"{os.cpu_count()} CPUs; best of {args.repeat} runs; load average "
          + " ".join(f"{v:.2f}" for v in os.getloadavg()))
    widest = max(jobs_values)
    print(f"machine: {widest} copies of a pure Python loop run {machine_scaling(widest):.2f}x as fast as one "
          "after another (the ceiling of any speed-up below)")
    for label, path, count in prepare(args):
        megabytes = size_mb(path)
        bare = bare_loop(path)
        print(f"\n{label} ({megabytes:.1f} MB)")
        print(f"  orjson.loads loop : {bare:7.2f} s  {megabytes / bare:8.1f} MB/s")
        runs: dict[int, list] = {jobs: [] for jobs in jobs_values}
        paths: dict[int, list[float]] = {jobs: [] for jobs in jobs_values}
        for _ in range(args.repeat):  # interleaved, so that a burst of load on the machine hits every value
            for jobs in jobs_values:
                runs[jobs].append(check(path, jobs))
                paths[jobs].append(cpu_path(path, jobs))
        base_wall, _, base_output = min(runs[jobs_values[0]], key=lambda run: run[0])
        base_path = min(paths[jobs_values[0]])
        for jobs in jobs_values:
            wall, cpu, _ = min(runs[jobs], key=lambda run: run[0])
            same = "same output" if all(run[2] == base_output for run in runs[jobs]) else "OUTPUT DIFFERS"
            print(f"  --jobs {jobs:<3}       : {wall:6.2f} s  {megabytes / wall:5.1f} MB/s  {count / wall:5.1f} files/s"
                  f"  speed-up {base_wall / wall:4.2f}x  cpu {cpu:5.2f} s  | cpu path {min(paths[jobs]):5.2f} s"
                  f"  path speed-up {base_path / min(paths[jobs]):4.2f}x  {same}")


if __name__ == "__main__":
    main()

"""Start-up cost of ``mcplint check``: wall time on a 3-line file, import time, costliest imports.

    python bench/bench_startup.py
    python bench/bench_startup.py --runs 9 --top 25

Median of ``--runs`` wall times of each command, each a fresh interpreter (``sys.executable``)
run in a temporary folder (no configuration file found): ``python -c pass`` (the interpreter
alone), ``python -c "import mcplint.cli"`` and ``python -m mcplint check`` on a 3-line
handshake, as an installed mcplint starts: bytecode written (``PYTHONDONTWRITEBYTECODE`` is
dropped from the children's environment) and a warm-up run first, so the wire-schema cache
(``rules/_schema_cache.py``) is in place; ``check, cold cache`` gives each run an empty cache
directory (the first run after an install or upgrade). Then ``python -X importtime -m mcplint
check`` on the same file, and the modules with the largest cumulative import time in ms
(indentation of a name shows who imported it).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HANDSHAKE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}\n'
    b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},'
    b'"serverInfo":{"name":"bench","version":"1.0.0"}}}\n'
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
)


def wall(command: list[str], folder: str, runs: int, cold: bool = False) -> float:
    """Median wall seconds of ``runs`` runs of ``command`` in ``folder`` after a warm-up run (exit
    status 0 required); ``cold``: each run with an empty wire-schema cache."""
    times = []
    for run in range(runs + 1):
        env = ENV | {"MCPLINT_CACHE_DIR": tempfile.mkdtemp(dir=folder)} if cold else ENV
        start = time.perf_counter()
        subprocess.run(command, cwd=folder, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=env)
        if run:
            times.append(time.perf_counter() - start)
    return statistics.median(times)


#: the children's environment: an installed package's bytecode is written once and then read
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def import_times(command: list[str], folder: str) -> list[tuple[int, int, str]]:
    """(cumulative µs, self µs, module) of every import ``-X importtime`` reports for ``command``."""
    done = subprocess.run([sys.executable, "-X", "importtime", *command[1:]], cwd=folder, check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, cumulative, name = line[len("import time:"):].split("|", 2)
        rows.append((int(cumulative), int(own), name.rstrip()))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs of each command; the median counts (default 5)")
    parser.add_argument("--top", type=int, default=15, help="imports shown (default 15)")
    args = parser.parse_args()
    source = Path(importlib.util.find_spec("mcplint").origin).parent  # what the children import too
    with tempfile.TemporaryDirectory() as folder:
        capture = Path(folder, "handshake.jsonl")
        capture.write_bytes(HANDSHAKE)
        check = [sys.executable, "-m", "mcplint", "check", str(capture)]
        env_note = f"(in {folder}; mcplint from {source})"
        commands = (("python -c pass", [sys.executable, "-c", "pass"]),
                    ('python -c "import mcplint.cli"', [sys.executable, "-c", "import mcplint.cli"]),
                    ("python -m mcplint check <3 lines>", check))
        print(f"wall time, median of {args.runs} {env_note}")
        print(f"  {'command':36} {'seconds':>8}")
        for label, command in commands:
            print(f"  {label:36} {wall(command, folder, args.runs):8.3f}")
        print(f"  {'python -m mcplint check, cold cache':36} {wall(check, folder, args.runs, cold=True):8.3f}")
        rows = sorted(import_times(check, folder), reverse=True)[:args.top]
    print("\nlargest cumulative import times of mcplint check (python -X importtime, one run)")
    print(f"  {'cumulative ms':>13} {'self ms':>8}  module")
    for cumulative, own, name in rows:
        print(f"  {cumulative / 1000:13.1f} {own / 1000:8.1f}  {name}")


if __name__ == "__main__":
    main()

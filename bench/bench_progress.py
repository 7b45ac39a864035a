"""Per-record cost of the progress line: a bare loop, mcplint's ``track``, tqdm (and rich, if
installed), in one run over the same file.

    python bench/bench_progress.py                 # 100 MB generated capture, best of 5
    python bench/bench_progress.py --size-mb 200 --repeat 9

The hot loop that ``progress_bar.track`` wraps yields parsed records; the wrapper's cost is per
record, so it is measured twice: over the file's raw lines (``readline``: the cheapest items
there are, which shows the overhead plainly) and over the parser's records (what ``mcplint
check`` really wraps). Every contender gets the same update policy as ``track``: every
``CHECK_EVERY`` items it is told the byte position ``stream.tell()`` (a byte total gives the
percentage and ETA; a record total is not known in advance), waits one second before the first
draw and redraws at most twice a second; output goes to ``/dev/null``. ``tqdm (iterable)`` wraps
the iterator itself (tqdm's own per-item loop, counting items: no percentage, no ETA), for
reference. Figures: items per second (best of ``--repeat``) and the cost per item over the bare
loop in nanoseconds.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check import DATA, generate, warm_cache  # noqa: E402

from mcplint.input.parse import Parser  # noqa: E402
from mcplint.input.readers import open_frames  # noqa: E402
from mcplint.report import progress_bar  # noqa: E402

EVERY = progress_bar.CHECK_EVERY


def bare(items: Iterable, handle, out) -> Iterator:
    return iter(items)


def mcplint_track(items: Iterable, handle, out) -> Iterator:
    return progress_bar.track(items, handle, "capture.mcplog", out)


def tqdm_bytes(items: Iterable, handle, out) -> Iterator:
    from tqdm import tqdm

    bar = tqdm(total=os.fstat(handle.fileno()).st_size, unit="B", unit_scale=True, file=out, delay=1.0,
               mininterval=0.5, leave=False, disable=False, desc="capture.mcplog")
    last = count = 0
    try:
        for item in items:
            count += 1
            if count % EVERY == 0:
                position = handle.tell()
                bar.update(position - last)
                last = position
            yield item
    finally:
        bar.close()


def tqdm_iterable(items: Iterable, handle, out) -> Iterator:
    from tqdm import tqdm

    return iter(tqdm(items, file=out, delay=1.0, mininterval=0.5, leave=False, disable=False))


def rich_bytes(items: Iterable, handle, out) -> Iterator:
    from rich.console import Console
    from rich.progress import Progress

    console = Console(file=out, force_terminal=True, width=80)
    with Progress(console=console, transient=True, refresh_per_second=2) as bar:
        task = bar.add_task("capture.mcplog", total=os.fstat(handle.fileno()).st_size)
        count = 0
        for item in items:
            count += 1
            if count % EVERY == 0:
                bar.update(task, completed=handle.tell())
            yield item


def available() -> list[tuple[str, Callable]]:
    out = [("bare loop", bare), ("mcplint track", mcplint_track)]
    try:
        import tqdm  # noqa: F401

        out += [("tqdm (bytes)", tqdm_bytes), ("tqdm (iterable)", tqdm_iterable)]
    except ImportError:
        print("tqdm is not installed: pip install tqdm", file=sys.stderr)
    try:
        import rich.progress  # noqa: F401

        out.append(("rich.progress (bytes)", rich_bytes))
    except ImportError:
        print("rich is not installed: rich.progress skipped", file=sys.stderr)
    return out


def lines(handle) -> Iterator:
    return iter(handle.readline, b"")


def records(handle) -> Iterator:
    _, frames = open_frames(handle, "auto", strict=True)
    return Parser("capture.mcplog").records(frames)


def timed(path: Path, source: Callable, wrap: Callable, out) -> tuple[int, float]:
    gc.collect()
    with open(path, "rb") as handle:
        start = time.perf_counter()
        count = sum(1 for _ in wrap(source(handle), handle, out))
        return count, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    path = DATA / f"generated-{args.size_mb}mb-2kb.mcplog"
    if not path.exists() or path.stat().st_size < (args.size_mb << 20):
        generate(path, args.size_mb, "capture", 2.0)
    warm_cache(path)
    contenders = available()
    with open(os.devnull, "w") as out:
        for name, source in (("raw lines", lines), ("parsed records", records)):
            best: dict[str, tuple[int, float]] = {}
            for _ in range(args.repeat):  # interleaved, so that a busy moment hits every contender
                for label, wrap in contenders:
                    count, seconds = timed(path, source, wrap, out)
                    if label not in best or seconds < best[label][1]:
                        best[label] = (count, seconds)
            count, base = best["bare loop"]
            print(f"{name}: {count:,} items, {path.stat().st_size / 1e6:.0f} MB, best of {args.repeat}")
            for label, _ in contenders:
                seconds = best[label][1]
                extra = (seconds - base) / count * 1e9
                print(f"  {label:22} {count / seconds:>12,.0f} items/s  {extra:+7.1f} ns/item")


if __name__ == "__main__":
    main()

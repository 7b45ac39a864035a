"""JSON decoders side by side on mcplint's generated JSON Lines: CPU per line, in one process.

    python bench/bench_decoders.py                  # both 20 MB shapes (generated if missing)
    python bench/bench_decoders.py bench/data/generated-small-20mb.jsonl

Issue 16 asks for "a decoder that measures fastest (orjson today; msgspec if it wins on the
bench)". Four loops over the same lines, best of ``--runs``:

- ``orjson.loads``: what the parser calls; every value of a line is built;
- ``msgspec.json.decode``: the same values;
- msgspec into a typed JSON-RPC envelope whose params, result and error stay raw bytes
  (``msgspec.Raw``): what a front end could do that decodes a payload only where something reads
  it (every record's payload is read today: by the analyzer, or by a family's clean test);
- the same envelope, and the params of each progress notification decoded into a typed struct
  (validated while decoded: the work ``progress.plain_progress`` does with an acceptor today).

msgspec is not a dependency of mcplint; its loops are skipped when it is not installed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check import generated

try:
    import msgspec
except ImportError:  # the orjson loop alone
    msgspec = None

if msgspec is not None:
    from msgspec import UNSET, Raw, Struct, UnsetType

    class Envelope(Struct):
        """A JSON-RPC message with its payloads left undecoded."""

        jsonrpc: str
        id: int | str | None | UnsetType = UNSET
        method: str | UnsetType = UNSET
        params: Raw | UnsetType = UNSET
        result: Raw | UnsetType = UNSET
        error: Raw | UnsetType = UNSET

    class ProgressParams(Struct):
        """The params of notifications/progress (2025-03-26 on)."""

        progressToken: int | str
        progress: float
        total: float | None | UnsetType = UNSET
        message: str | None | UnsetType = UNSET


def each(decode: Callable[[bytes], object], lines: list[bytes]) -> Callable[[], None]:
    """A loop that decodes every line and keeps nothing (as the bare loop of bench_check)."""
    def loop() -> None:
        for line in lines:
            decode(line)
    return loop


def loops(lines: list[bytes]) -> dict[str, Callable[[], None]]:
    """The decoding loops over ``lines``, by name."""
    out = {"orjson.loads": each(orjson.loads, lines)}
    if msgspec is None:
        return out
    envelope = msgspec.json.Decoder(Envelope)
    progress = msgspec.json.Decoder(ProgressParams)

    def typed_progress() -> None:
        for line in lines:
            message = envelope.decode(line)
            if message.method == "notifications/progress":
                progress.decode(message.params)

    out["msgspec.json.decode"] = each(msgspec.json.Decoder().decode, lines)
    out["msgspec envelope, raw payloads"] = each(envelope.decode, lines)
    out["  + typed progress params"] = typed_progress
    return out


def best(loop: Callable[[], None], runs: int) -> float:
    fewest = float("inf")
    for _ in range(runs):
        start = time.process_time()
        loop()
        fewest = min(fewest, time.process_time() - start)
    return fewest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="JSON Lines files (default: the 20 MB bench files)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    paths = args.paths or [generated("small", 20, "jsonl"), generated("realistic", 20, "jsonl")]
    if msgspec is None:
        print("msgspec is not installed: orjson only (pip install msgspec)")
    for path in paths:
        lines = path.read_bytes().splitlines()
        print(f"{path.name}: {len(lines)} lines, {path.stat().st_size / len(lines):.0f} bytes a line")
        base = None
        for name, loop in loops(lines).items():
            seconds = best(loop, args.runs)
            base = base or seconds
            print(f"  {name:32} {seconds / len(lines) * 1e6:6.3f} µs/line  {base / seconds:5.2f}x")


if __name__ == "__main__":
    main()

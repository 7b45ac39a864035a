"""Python bytecodes executed per record by ``mcplint check``'s engine, by record type and function.

    python bench/bytecodes.py                                   # 4000 lines of both default inputs
    python bench/bytecodes.py bench/data/some.jsonl --lines 2000 --top 20
    python bench/bytecodes.py --type RESULT:tools/call --top 25 # where one record type's bytecodes go
    python bench/bytecodes.py --no-lanes                        # the general path only

In place, a Python bytecode of the hot path costs about 5 ns on this machine; the same code
timed in a loop over one record (``timeit``) runs five to ten times faster, because the branch
predictor and the caches learn the loop. Per-record CPU follows the count of bytecodes executed
closely, and the count does not move with the machine's load, so it judges small changes to the
engine, the analyzer, the lanes and the rules' clean tests (it leaves out the C work of decoding,
which ``bench_stages.py`` measures).

The file's first ``--lines`` lines are parsed once, linted once to warm up (lazy imports and
compiled patterns), parsed again and linted under a tracer that counts each bytecode
(``f_trace_opcodes``), attributed to the record the engine is working on (the effective method of
a response: its request's) and to the function it runs in.
"""

from __future__ import annotations

import argparse
import collections
import io
import sys
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcplint.analysis.engine import Engine
from mcplint.config.select import select_rules
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames

DATA = Path(__file__).resolve().parent / "data"
DEFAULT_INPUTS = [DATA / "generated-small-20mb.jsonl", DATA / "generated-20mb-2kb.jsonl"]


def records(path: Path, lines: int) -> list:
    """The records of the first ``lines`` lines of ``path``."""
    with open(path, "rb") as handle:
        head = b"".join(islice(handle, lines))
    _, frames = open_frames(io.BytesIO(head), "auto")
    return list(Parser(str(path)).records(frames))


def count(path: Path, lines: int, lanes: bool) -> tuple[collections.Counter, collections.Counter, dict]:
    """Bytecodes by record type, record counts by type, and bytecodes by function per type."""
    for _ in Engine(select_rules(), lanes=lanes).lint_records(records(path, lines), str(path)):
        pass  # warm-up
    by_type: collections.Counter = collections.Counter()
    seen: collections.Counter = collections.Counter()
    by_function: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    current = [None]

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode" and current[0] is not None:
            code = frame.f_code
            by_type[current[0]] += 1
            by_function[current[0]][f"{Path(code.co_filename).name}:{code.co_firstlineno} {code.co_name}"] += 1
        return tracer

    def typed(parsed):
        methods = {}  # request id -> method, to name responses by their request's method
        for record in parsed:
            if record.kind.name == "REQUEST":
                methods[repr(record.id)] = record.method
            method = record.method if record.method is not None else methods.get(repr(record.id))
            current[0] = f"{record.kind.name}:{method}"
            seen[current[0]] += 1
            yield record
            current[0] = None

    parsed = records(path, lines)
    engine = Engine(select_rules(), lanes=lanes)
    sys.settrace(tracer)
    try:
        for _ in engine.lint_records(typed(parsed), str(path)):
            pass
    finally:
        sys.settrace(None)
    return by_type, seen, by_function


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--lines", type=int, default=4000)
    parser.add_argument("--top", type=int, default=12, help="record types (or functions with --type) shown")
    parser.add_argument("--type", help="KIND:method whose bytecodes are shown by function")
    parser.add_argument("--no-lanes", action="store_true", help="the general path only (Engine(lanes=False))")
    args = parser.parse_args()
    for path in args.files or DEFAULT_INPUTS:
        by_type, seen, by_function = count(path, args.lines, not args.no_lanes)
        total, number = sum(by_type.values()), sum(seen.values())
        print(f"{path.name}: {number} records, {total / number:.0f} bytecodes per record")
        if args.type:
            n = seen[args.type] or 1
            print(f"  {args.type}: {seen[args.type]} records, {sum(by_function[args.type].values()) / n:.0f} each")
            for function, value in by_function[args.type].most_common(args.top):
                print(f"  {value / n:8.0f}  {function}")
            continue
        for name, value in by_type.most_common(args.top):
            print(f"  {name:45} {seen[name]:6} records {value / seen[name]:7.0f} each {value / total:6.1%}")


if __name__ == "__main__":
    main()

"""Mutated real-looking traffic never crashes a rule.

Every sample is mutated at random JSON paths (a member removed, or replaced by a value of another
JSON type: null, number, string, boolean, array, object) and linted with every rule. Rules must
treat odd shapes as findings, never as exceptions (the engine would report them as internal errors).
"""

from __future__ import annotations

import copy
import io
import random
from pathlib import Path

import orjson
import pytest

from mcplint.analysis.engine import Engine
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames

SAMPLES = sorted(p for p in (Path(__file__).resolve().parent.parent / "samples").iterdir()
                 if p.suffix in (".jsonl", ".mcplog"))
VALUES = [None, 1, -1, 1.5, "x", True, [], {}, [1, "a"], {"a": [1]}]
ENGINE = Engine()


def paths(value, prefix=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield prefix + (key,)
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield prefix + (index,)
            yield from paths(item, prefix + (index,))


def mutated(message, rnd):
    candidates = [p for p in paths(message) if p[0] in ("params", "result", "error")]
    if not candidates:
        return None
    path = rnd.choice(candidates)
    copy_ = copy.deepcopy(message)
    node = copy_
    for key in path[:-1]:
        node = node[key]
    if isinstance(node, dict) and rnd.random() < 0.3:
        del node[path[-1]]
    else:
        node[path[-1]] = copy.deepcopy(rnd.choice(VALUES))
    return copy_


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_mutations_never_crash(sample):
    rnd = random.Random(sample.name)
    lines = sample.read_bytes().splitlines()
    for _ in range(12):
        index = rnd.randrange(len(lines))
        try:
            outer = orjson.loads(lines[index])
            wrapped = isinstance(outer, dict) and isinstance(outer.get("raw"), str)
            message = orjson.loads(outer["raw"]) if wrapped else outer
        except orjson.JSONDecodeError:
            continue
        if not isinstance(message, dict):
            continue
        changed = mutated(message, rnd)
        if changed is None:
            continue
        copy_ = list(lines)
        if wrapped:
            outer["raw"] = orjson.dumps(changed).decode()
            copy_[index] = orjson.dumps(outer)
        else:
            copy_[index] = orjson.dumps(changed)
        _, frames = open_frames(io.BytesIO(b"\n".join(copy_) + b"\n"))
        list(ENGINE.lint_records(Parser(sample.name).records(frames), sample.name))

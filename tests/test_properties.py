"""Engine invariants under hypothesis: legal reorderings and id overlaps add no finding."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ruledocs import run_transcript

HANDSHAKE = '# init 2025-06-18 C={"roots":{}} S={"tools":{},"logging":{}}\n'
TOOLS = ('C→S {"jsonrpc":"2.0","id":"list","method":"tools/list"}\n'
         'S→C {"jsonrpc":"2.0","id":"list","result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}\n')


def call(i):
    return 'C→S ' + orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                  "params": {"name": "echo", "arguments": {"n": i}}}).decode()


def answer(i):
    return 'S→C ' + orjson.dumps({"jsonrpc": "2.0", "id": i, "result": {
        "content": [{"type": "text", "text": str(i)}]}}).decode()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 10_000), min_size=1, max_size=12, unique=True), st.randoms())
def test_out_of_order_responses_add_no_finding(ids, rnd):
    answers = [answer(i) for i in ids]
    rnd.shuffle(answers)
    text = HANDSHAKE + TOOLS + "\n".join([call(i) for i in ids] + answers) + "\n"
    assert run_transcript(text) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 50), min_size=1, max_size=8, unique=True))
def test_server_may_use_the_same_ids_as_the_client(ids):
    lines = []
    for i in ids:
        lines.append(call(i))
        lines.append(f'S→C {{"jsonrpc":"2.0","id":{i},"method":"ping"}}')
        lines.append(f'C→S {{"jsonrpc":"2.0","id":{i},"result":{{}}}}')
        lines.append(answer(i))
    assert run_transcript(HANDSHAKE + TOOLS + "\n".join(lines) + "\n") == []

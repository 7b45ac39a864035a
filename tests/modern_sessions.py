"""Builders and a hypothesis strategy for spec-valid 2026-07-28 sessions (MD and MR tests).

A session is a list of :class:`Event` (direction, message, role); :func:`render` turns it into
transcript notation. The strategy builds ``server/discover``, list requests and multi round-trip
calls (``tools/call``, ``prompts/get``, ``resources/read`` answered ``input_required`` zero or more
times, each retry with a fresh id, the exact ``requestState`` and every requested input), and
interleaves the logical calls the way concurrent requests interleave on one connection.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import orjson
from hypothesis import strategies as st

V = "2026-07-28"
PV = "io.modelcontextprotocol/protocolVersion"
CC = "io.modelcontextprotocol/clientCapabilities"
CI = "io.modelcontextprotocol/clientInfo"
SI = "io.modelcontextprotocol/serverInfo"
CLIENT = {"name": "agent", "version": "1.0.0"}
SERVER = {"name": "srv", "version": "2.0.0"}


def meta(caps: dict | None = None, version: str | None = V, info: bool = True, **extra) -> dict:
    out: dict[str, Any] = {}
    if version is not None:
        out[PV] = version
    out[CC] = {} if caps is None else caps
    if info:
        out[CI] = CLIENT
    out.update(extra)
    return out


def request(id_: Any, method: str, params: dict | None = None, caps: dict | None = None,
            version: str | None = V, info: bool = True) -> dict:
    body = dict(params or {})
    body["_meta"] = meta(caps, version, info)
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": body}


def result(id_: Any, body: dict | None = None, result_type: str | None = "complete", info: bool = True) -> dict:
    out = dict(body or {})
    if result_type is not None:
        out["resultType"] = result_type
    if info:
        out["_meta"] = {SI: SERVER}
    return {"jsonrpc": "2.0", "id": id_, "result": out}


def error(id_: Any, code: int, message: str = "Failed", data: Any = None) -> dict:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": err}


def cacheable(body: dict, ttl: int = 60_000, scope: str = "public") -> dict:
    return {**body, "ttlMs": ttl, "cacheScope": scope}


DISCOVER_RESULT = cacheable({"supportedVersions": [V], "capabilities": {"tools": {}, "prompts": {}, "resources": {}}})


@dataclass
class Event:
    dir: str  # "C" or "S"
    msg: Any
    role: str = ""  # discover, request, result, initial, irr, retry, final
    call: int = -1
    round: int = 0
    info: dict = field(default_factory=dict)


def render(events: list[Event]) -> str:
    arrow = {"C": "C→S", "S": "S→C"}
    return "".join(f"{arrow[e.dir]} {orjson.dumps(e.msg).decode()}\n" for e in events)


def line_of(events: list[Event], event: Event) -> int:
    return next(i for i, e in enumerate(events, 1) if e is event)


# -- the strategy ------------------------------------------------------------------------------
ELICIT = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Confirm?",
    "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}}
SAMPLE = {"method": "sampling/createMessage", "params": {
    "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}], "maxTokens": 50}}
ROOTS = {"method": "roots/list"}
ANSWERS = {
    "elicitation": [{"action": "accept", "content": {"confirm": True}}, {"action": "decline"}, {"action": "cancel"}],
    "sampling": [{"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m-1",
                  "stopReason": "endTurn"}],
    "roots": [{"roots": [{"uri": "file:///home/u/project", "name": "project"}]}],
}
ASKS = {"elicitation": ELICIT, "sampling": SAMPLE, "roots": ROOTS}

MRTR = ("tools/call", "prompts/get", "resources/read")
LISTS = ("tools/list", "prompts/list", "resources/list")


def final_body(method: str, params: dict) -> dict:
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "done"}], "isError": False}
    if method == "prompts/get":
        return {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}]}
    if method == "resources/read":
        return cacheable({"contents": [{"uri": params["uri"], "mimeType": "text/plain", "text": "x"}]})
    if method == "tools/list":
        return cacheable({"tools": [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(3)]})
    if method == "prompts/list":
        return cacheable({"prompts": [{"name": f"p{i}"} for i in range(3)]})
    return cacheable({"resources": [{"uri": f"file:///r{i}", "name": f"r{i}"} for i in range(3)]})


@st.composite
def modern_sessions(draw) -> list[Event]:
    """A spec-valid 2026-07-28 exchange (see the module docstring)."""
    caps = draw(st.fixed_dictionaries({}, optional={
        "elicitation": st.sampled_from([{}, {"form": {}}]), "sampling": st.just({}), "roots": st.just({})}))
    string_ids = draw(st.booleans())
    counter = iter(range(1, 10_000))

    def new_id():
        n = next(counter)
        return f"req-{n}" if string_ids else n

    calls: list[list[Event]] = []
    prefix: list[Event] = []
    if draw(st.booleans()):
        i = new_id()
        prefix = [Event("C", request(i, "server/discover", caps=caps), "discover"),
                  Event("S", result(i, DISCOVER_RESULT), "result")]
    for c in range(draw(st.integers(1, 5))):
        method = draw(st.sampled_from(MRTR + LISTS))
        if method in LISTS:
            i = new_id()
            calls.append([Event("C", request(i, method, caps=caps), "request", c),
                          Event("S", result(i, final_body(method, {})), "result", c)])
            continue
        if method == "resources/read":
            params: dict = {"uri": f"file:///r{draw(st.integers(0, 2))}"}
        else:
            params = {"name": f"{'t' if method == 'tools/call' else 'p'}{draw(st.integers(0, 2))}",
                      "arguments": {"x": str(draw(st.integers(0, 9)))}}
        events: list[Event] = []
        carried: dict = {}
        rounds = draw(st.integers(0, 3))  # how many times the server answers input_required
        kinds = [k for k in ASKS if k in caps]
        for r in range(rounds + 1):
            i = new_id()
            sent = {**copy.deepcopy(params), **carried}
            events.append(Event("C", request(i, method, sent, caps=caps), "initial" if r == 0 else "retry",
                                c, r, {"params": sent}))
            if r == rounds:
                events.append(Event("S", result(i, final_body(method, params)), "final", c, r))
                break
            asked = draw(st.lists(st.sampled_from(kinds), unique=True)) if kinds else []
            # a server may also hand out one opaque value for every call
            state = draw(st.sampled_from([f"state-{c}-{r}", "opaque-blob"] + ([None] if asked else [])))
            inputs = {f"{kind}-{c}-{r}": copy.deepcopy(ASKS[kind]) for kind in asked}
            body: dict = {}
            if inputs:
                body["inputRequests"] = inputs
            if state is not None:
                body["requestState"] = state
            events.append(Event("S", result(i, body, "input_required"), "irr", c, r,
                                {"state": state, "inputs": inputs}))
            carried = {}
            if inputs:
                carried["inputResponses"] = {key: draw(st.sampled_from(ANSWERS[key.split("-")[0]]))
                                             for key in inputs}
            if state is not None:
                carried["requestState"] = state
        calls.append(events)
    # interleave the logical calls, keeping each call's own order
    out = list(prefix)
    queues = [list(call) for call in calls]
    while any(queues):
        live = [q for q in queues if q]
        queue = live[draw(st.integers(0, len(live) - 1))]
        out.append(queue.pop(0))
    return out

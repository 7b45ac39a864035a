"""A hypothesis strategy for spec-valid tools sessions of every revision (SV and TL tests).

A :class:`ToolSession` keeps the messages it renders (``lines``: direction, message) and handles
on the parts mutations change: the ``tools/list`` result, each tool call with its tool, request
and result. Tool names, input schemas (with matching arguments), output schemas (with matching
``structuredContent`` and its text mirror from 2025-06-18), content blocks of the revision,
base64 payloads and progress notifications are drawn.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import orjson
from hypothesis import strategies as st

from mcplint import protocol

V = protocol.VERSIONS
MODERN = protocol.V2026_07_28
PV, CC, CI, SI = (protocol.PROTOCOL_VERSION_META, protocol.CLIENT_CAPABILITIES_META,
                  "io.modelcontextprotocol/clientInfo", "io.modelcontextprotocol/serverInfo")
TYPES = ("string", "integer", "number", "boolean")


@dataclass
class Call:
    tool: dict
    request: dict
    result: dict


@dataclass
class ToolSession:
    version: str
    lines: list[tuple[str, Any]] = field(default_factory=list)
    listing: dict | None = None  # the tools/list result message
    calls: list[Call] = field(default_factory=list)

    @property
    def modern(self) -> bool:
        return self.version == MODERN

    def render(self) -> str:
        head = "" if self.modern else f'# init {self.version} C={{}} S={{"tools":{{"listChanged":true}}}}\n'
        arrow = {"C": "C→S", "S": "S→C"}
        return head + "".join(f"{arrow[d]} {orjson.dumps(m).decode()}\n" for d, m in self.lines)

    def request(self, id_: Any, method: str, params: dict | None = None) -> dict:
        body = dict(params or {})
        if self.modern:
            body["_meta"] = {**body.get("_meta", {}), PV: MODERN, CC: {}, CI: {"name": "c", "version": "1"}}
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
        if body:
            msg["params"] = body
        return msg

    def result(self, id_: Any, body: dict, cacheable: bool = False) -> dict:
        body = dict(body)
        if self.modern:
            body["resultType"] = "complete"
            body["_meta"] = {SI: {"name": "s", "version": "1"}}
            if cacheable:
                body.update(ttlMs=60_000, cacheScope="public")
        return {"jsonrpc": "2.0", "id": id_, "result": body}


def at_least(version: str, floor: str) -> bool:
    return protocol.at_least(version, floor)


names = st.from_regex(r"\A[a-z][a-z0-9_]{0,11}\Z")
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=20)
values = {
    "string": texts,
    "integer": st.integers(-10**6, 10**6),
    "number": st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False)),
    "boolean": st.booleans(),
}


@st.composite
def object_schemas(draw) -> dict:
    props = draw(st.dictionaries(names, st.sampled_from(TYPES), max_size=4))
    schema: dict[str, Any] = {"type": "object", "properties": {k: {"type": t} for k, t in props.items()}}
    required = draw(st.lists(st.sampled_from(sorted(props)), unique=True)) if props else []
    if required:
        schema["required"] = required
    return schema


@st.composite
def instances(draw, schema: dict) -> dict:
    out = {}
    required = set(schema.get("required", ()))
    for key, sub in schema["properties"].items():
        if key in required or draw(st.booleans()):
            out[key] = draw(values[sub["type"]])
    return out


def blocks_for(version: str) -> list[str]:
    kinds = ["text", "image", "resource"]
    if at_least(version, protocol.V2025_03_26):
        kinds.append("audio")
    if at_least(version, protocol.V2025_06_18):
        kinds.append("resource_link")
    return kinds


@st.composite
def blocks(draw, version: str) -> dict:
    kind = draw(st.sampled_from(blocks_for(version)))
    data = base64.b64encode(draw(st.binary(max_size=24))).decode()
    if kind == "text":
        return {"type": "text", "text": draw(texts)}
    if kind == "image":
        return {"type": "image", "data": data, "mimeType": draw(st.sampled_from(["image/png", "image/jpeg"]))}
    if kind == "audio":
        return {"type": "audio", "data": data, "mimeType": "audio/wav"}
    if kind == "resource_link":
        return {"type": "resource_link", "uri": "file:///data/report.csv", "name": "report.csv"}
    if draw(st.booleans()):
        return {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": draw(texts)}}
    return {"type": "resource", "resource": {"uri": "file:///a.bin", "mimeType": "application/octet-stream",
                                             "blob": data}}


@st.composite
def tool_sessions(draw, versions=V) -> ToolSession:
    """A spec-valid session: tools/list, then calls of the listed tools (see module docstring)."""
    version = draw(st.sampled_from(versions))
    session = ToolSession(version)
    structured = at_least(version, protocol.V2025_06_18)
    tool_names = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    tools = []
    for name in tool_names:
        tool: dict[str, Any] = {"name": name, "description": f"The {name} tool", "inputSchema": draw(object_schemas())}
        if structured and draw(st.booleans()):
            tool["outputSchema"] = draw(object_schemas())
        tools.append(tool)
    session.lines.append(("C", session.request("list", "tools/list")))
    session.listing = session.result("list", {"tools": tools}, cacheable=True)
    session.lines.append(("S", session.listing))
    for n in range(draw(st.integers(1, 4))):
        tool = draw(st.sampled_from(tools))
        arguments = draw(instances(tool["inputSchema"]))
        params: dict[str, Any] = {"name": tool["name"], "arguments": arguments}
        progress = draw(st.booleans())
        if progress:
            params["_meta"] = {"progressToken": f"p{n}"}
        request = session.request(n + 1, "tools/call", params)
        session.lines.append(("C", request))
        if progress:
            for step in range(1, draw(st.integers(1, 3)) + 1):
                session.lines.append(("S", {"jsonrpc": "2.0", "method": "notifications/progress",
                                            "params": {"progressToken": f"p{n}", "progress": step}}))
        failed = draw(st.integers(0, 5)) == 0
        if failed:
            body: dict[str, Any] = {"content": [{"type": "text", "text": "the tool failed"}], "isError": True}
        else:
            body = {"content": draw(st.lists(blocks(version), max_size=3))}
            if "outputSchema" in tool:
                value = draw(instances(tool["outputSchema"]))
                body["structuredContent"] = value
                body["content"].append({"type": "text", "text": orjson.dumps(value).decode()})
        result = session.result(n + 1, body)
        session.lines.append(("S", result))
        session.calls.append(Call(tool, request, result))
    return session

"""Builders and hypothesis strategies of spec-valid sessions for the server-feature families
(PI, LG, PA, RS, PM, CP), and the helpers their property tests share.

A session is a :class:`Script`: the revision, both sides' capabilities and a list of messages.
Rendered as transcript notation it starts with the ``# init`` macro (handshake revisions) or
with nothing (2026-07-28, where every client request carries the per-request ``_meta`` and
every result a ``resultType``), so message ``i`` sits on line ``script.line(i)``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import orjson
from hypothesis import strategies as st

from mcplint import protocol
from tests.ruledocs import run_transcript

LEGACY = sorted(protocol.LEGACY)
ALL = list(protocol.VERSIONS)
MODERN = protocol.V2026_07_28
C2S, S2C = "C→S", "S→C"
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
WORDS = ("alpha", "beta", "gamma", "delta", "index", "cache", "query", "report", "build", "deploy")


@dataclass
class Script:
    version: str
    client_caps: dict = field(default_factory=dict)
    server_caps: dict = field(default_factory=dict)
    messages: list[tuple[str, dict]] = field(default_factory=list)
    next_id: int = 1

    @property
    def modern(self) -> bool:
        return self.version == MODERN

    # -- building ------------------------------------------------------------------------
    def meta(self, **extra) -> dict:
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": self.client_caps,
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}
        meta.update(extra)
        return meta

    def request(self, method: str, params: dict | None = None, sender: str = C2S, meta: dict | None = None) -> int:
        """Append a request; returns its index. Client requests of 2026-07-28 get the ``_meta``."""
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        self.next_id += 1
        params = dict(params or {})
        if self.modern and sender == C2S:
            params["_meta"] = {**self.meta(), **(meta or {})}
        elif meta:
            params["_meta"] = meta
        if params:
            msg["params"] = params
        self.messages.append((sender, msg))
        return len(self.messages) - 1

    def result(self, index: int, result: dict, cache: bool = False) -> int:
        """Append the success answer to request ``index``; returns its index."""
        sender, request = self.messages[index]
        result = dict(result)
        if self.modern and sender == C2S:
            result = {"resultType": "complete",
                      "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}, **result}
            if cache:
                result.update(ttlMs=0, cacheScope="public")
        other = S2C if sender == C2S else C2S
        self.messages.append((other, {"jsonrpc": "2.0", "id": request["id"], "result": result}))
        return len(self.messages) - 1

    def error(self, index: int, code: int, message: str) -> int:
        sender, request = self.messages[index]
        other = S2C if sender == C2S else C2S
        self.messages.append((other, {"jsonrpc": "2.0", "id": request["id"],
                                      "error": {"code": code, "message": message}}))
        return len(self.messages) - 1

    def notify(self, method: str, params: dict | None = None, sender: str = S2C) -> int:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.messages.append((sender, msg))
        return len(self.messages) - 1

    def call(self, method: str, params: dict | None, result: dict, cache: bool = False, **kw) -> tuple[int, int]:
        index = self.request(method, params, **kw)
        return index, self.result(index, result, cache)

    # -- rendering -----------------------------------------------------------------------
    @property
    def offset(self) -> int:
        return 1 if self.modern else 2

    def line(self, index: int) -> int:
        return index + self.offset

    def text(self) -> str:
        caps = f"C={orjson.dumps(self.client_caps).decode()} S={orjson.dumps(self.server_caps).decode()}"
        lines = [] if self.modern else [f"# init {self.version} {caps}"]
        lines += [f"{arrow} {orjson.dumps(msg).decode()}" for arrow, msg in self.messages]
        return "\n".join(lines) + "\n"

    def copy(self) -> Script:
        return copy.deepcopy(self)


def findings(script: Script, prefix: str) -> list[tuple[int, str, str]]:
    """``(line, code, severity)`` of the findings of one family (code prefix) on a script."""
    return [(f.line, f.code, f.severity.value) for f in run_transcript(script.text()) if f.code.startswith(prefix)]


def codes_at(script: Script, prefix: str) -> set[tuple[int, str]]:
    return {(line, code) for line, code, _ in findings(script, prefix)}


# -- shared strategies -------------------------------------------------------------------------
words = st.sampled_from(WORDS)
names = st.builds(lambda a, b: f"{a}_{b}", words, words)
texts = st.lists(words, min_size=1, max_size=6).map(" ".join)
json_data = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | texts,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(words, children, max_size=3),
    max_leaves=8)
cursors = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789=-_", min_size=1, max_size=16)

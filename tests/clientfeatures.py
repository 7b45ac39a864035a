"""Transcript builder for client-feature tests (sampling, elicitation, roots, ``_meta``).

A :class:`Script` writes a session in either era: in a handshake revision the server asks with a
JSON-RPC request and the client answers it; in 2026-07-28 a ``tools/call`` draws an
InputRequiredResult whose ``inputRequests`` hold the ask, and the retried call carries the answer
in ``inputResponses``. Each exchange records the line numbers of the ask and the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from tests.ruledocs import run_transcript

MODERN = "2026-07-28"
LEGACY = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
ALL = LEGACY + (MODERN,)


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


@dataclass
class Script:
    revision: str
    client_caps: dict
    server_caps: dict = field(default_factory=lambda: {"tools": {}})
    lines: list[str] = field(default_factory=list)
    next_id: int = 1

    def __post_init__(self):
        if self.revision != MODERN:
            self.lines.append(f"# init {self.revision} C={dumps(self.client_caps)} S={dumps(self.server_caps)}")

    @property
    def modern(self) -> bool:
        return self.revision == MODERN

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def emit(self, arrow: str, message: dict) -> int:
        self.lines.append(f"{arrow} {dumps(message)}")
        return len(self.lines)

    def meta(self, extra: dict | None = None) -> dict:
        meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": self.client_caps,
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}
        return {**meta, **(extra or {})}

    def result(self, body: dict) -> dict:
        if self.modern:
            meta = {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}, **body.get("_meta", {})}
            return {"resultType": "complete", **body, "_meta": meta}
        return body

    def exchange(self, method: str, params: Any, answer: dict | None = None, error: dict | None = None,
                 key: str = "k") -> tuple[int, int]:
        """Server asks ``method`` with ``params``, client answers; returns (ask line, answer line)."""
        ask: dict = {"method": method}
        if params is not None:
            ask["params"] = params
        if not self.modern:
            i = self._id()
            asked = self.emit("S→C", {"jsonrpc": "2.0", "id": i, **ask})
            reply = {"error": error} if error is not None else {"result": answer}
            answered = self.emit("C→S", {"jsonrpc": "2.0", "id": i, **reply})
            return asked, answered
        call = {"name": "work", "arguments": {}}
        i = self._id()
        self.emit("C→S", {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {**call, "_meta": self.meta()}})
        state = f"state-{i}"
        asked = self.emit("S→C", {"jsonrpc": "2.0", "id": i, "result": self.result(
            {"resultType": "input_required", "inputRequests": {key: ask}, "requestState": state})})
        j = self._id()
        answered = self.emit("C→S", {"jsonrpc": "2.0", "id": j, "method": "tools/call", "params": {
            **call, "inputResponses": {key: answer}, "requestState": state, "_meta": self.meta()}})
        self.emit("S→C", {"jsonrpc": "2.0", "id": j, "result": self.result(
            {"content": [{"type": "text", "text": "done"}]})})
        return asked, answered

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def findings(script: Script, prefix: str):
    return [f for f in run_transcript(script.text()) if f.code.startswith(prefix)]

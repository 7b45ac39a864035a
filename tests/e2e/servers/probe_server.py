"""A small stdio MCP server in plain Python for ``mcplint probe`` tests: spec-correct by default,
with faults planted by name (``--fault NAME``, repeatable).

Faults: ``unknown-tool-iserror`` (a call of an unknown tool gets an isError result),
``echo-version`` (initialize echoes whatever revision was asked), ``undeclared-prompts`` (prompts
served without the capability), ``ignore-cursor`` (list pages ignore the cursor), ``log-undeclared``
(log messages without ``logging``), ``hang-tool`` (tools/call of ``slow`` never answers),
``freeze-list`` (prompts/list stops the whole server), ``modern-only`` (not a fault: a
2026-07-28 server that refuses ``initialize`` and answers ``server/discover``), ``crash`` (exits at start), ``banner`` (a banner on stdout), ``no-init`` (initialize never answered).

    python tests/e2e/servers/probe_server.py [--fault NAME]...
"""

from __future__ import annotations

import json
import sys
import time

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
FAULTS = set(sys.argv[i + 1] for i, arg in enumerate(sys.argv[:-1]) if arg == "--fault")

TOOLS = [
    {"name": "echo", "description": "Echo text back.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "add", "description": "Add two integers.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                     "required": ["a", "b"]}},
    {"name": "slow", "description": "Answers after a while.", "inputSchema": {"type": "object"}},
]
PROMPTS = [{"name": "greet", "description": "Greet someone.",
            "arguments": [{"name": "name", "description": "Who", "required": True}]}]
RESOURCES = [{"uri": "file:///hello.txt", "name": "hello", "mimeType": "text/plain"}]
PAGE = 2  # tools/list pages of two: the probe has a cursor to follow


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def error(rid, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def capabilities() -> dict:
    caps = {"tools": {}, "resources": {}}
    if "undeclared-prompts" not in FAULTS:
        caps["prompts"] = {}
    return caps


class Server:
    def __init__(self):
        self.version = None
        self.modern = False

    def handle(self, message):
        if isinstance(message, list):
            return error(None, -32600, "batches are not supported")
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            rid = message.get("id") if isinstance(message, dict) else None
            return None if isinstance(message, dict) and ("result" in message or "error" in message) \
                else error(rid, -32600, "Invalid Request")
        method, rid, params = message["method"], message.get("id"), message.get("params") or {}
        meta = params.get("_meta") if isinstance(params, dict) else None
        self.modern = isinstance(meta, dict) and meta.get("io.modelcontextprotocol/protocolVersion") == "2026-07-28"
        if "id" not in message:
            if method == "notifications/initialized" and "log-undeclared" in FAULTS:
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "ready"}})
            return None
        handler = getattr(self, "do_" + method.replace("/", "_"), None)
        if handler is None:
            return error(rid, -32601, f"Method not found: {method}")
        return handler(rid, params)

    def ok(self, rid, result: dict) -> dict:
        if self.modern:  # 2026-07-28: every result says its type; lists and reads give caching hints
            result = {**result, "resultType": "complete",
                      "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "probe-test", "version": "1.0.0"}}}
            if any(key in result for key in ("tools", "prompts", "resources", "resourceTemplates", "contents")):
                result.update(ttlMs=0, cacheScope="private")
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    def do_server_discover(self, rid, params):
        if "modern-only" not in FAULTS:
            return error(rid, -32601, "Method not found: server/discover")
        return self.ok(rid, {"supportedVersions": ["2026-07-28"], "capabilities": capabilities(),
                             "ttlMs": 0, "cacheScope": "private"})

    def do_initialize(self, rid, params):
        if "modern-only" in FAULTS:
            return error(rid, -32601, "Method not found: this server speaks 2026-07-28 only (server/discover)")
        if "no-init" in FAULTS:
            return None
        asked = params.get("protocolVersion")
        self.version = asked if asked in VERSIONS or "echo-version" in FAULTS else VERSIONS[-1]
        return self.ok(rid, {"protocolVersion": self.version, "capabilities": capabilities(),
                             "serverInfo": {"name": "probe-test", "version": "1.0.0"}})

    def do_ping(self, rid, params):
        return self.ok(rid, {})

    def page(self, rid, params, items, member):
        cursor = params.get("cursor")
        if "ignore-cursor" in FAULTS or cursor is None:
            start = 0
        elif isinstance(cursor, str) and cursor.startswith("page-") and cursor[5:].isdigit():
            start = int(cursor[5:])
        else:
            return error(rid, -32602, "Invalid cursor")
        result = {member: items[start:start + PAGE]}
        if start + PAGE < len(items):
            result["nextCursor"] = f"page-{start + PAGE}"
        return self.ok(rid, result)

    def do_tools_list(self, rid, params):
        return self.page(rid, params, TOOLS, "tools")

    def do_tools_call(self, rid, params):
        name, args = params.get("name"), params.get("arguments") or {}
        if name not in {t["name"] for t in TOOLS}:
            if "unknown-tool-iserror" in FAULTS:
                return self.ok(rid, {"content": [{"type": "text", "text": f"Unknown tool: {name}"}], "isError": True})
            return error(rid, -32602, f"Unknown tool: {name}")
        if name == "slow" and "hang-tool" in FAULTS:
            return None
        tool = next(t for t in TOOLS if t["name"] == name)
        missing = [k for k in tool["inputSchema"].get("required", []) if k not in args]
        wrong = [k for k, v in args.items() if k in ("a", "b") and not isinstance(v, int)]
        if missing or wrong:
            return self.ok(rid, {"content": [{"type": "text", "text": f"Invalid arguments: {missing or wrong}"}],
                                 "isError": True})
        text = str(args["a"] + args["b"]) if name == "add" else str(args.get("text", "done"))
        return self.ok(rid, {"content": [{"type": "text", "text": text}]})

    def do_prompts_list(self, rid, params):
        if "freeze-list" in FAULTS:
            time.sleep(3600)  # the whole server stops: nothing more is read or answered
        return self.page(rid, params, PROMPTS, "prompts")

    def do_prompts_get(self, rid, params):
        if params.get("name") != "greet":
            return error(rid, -32602, f"Unknown prompt: {params.get('name')}")
        name = (params.get("arguments") or {}).get("name")
        if not isinstance(name, str):
            return error(rid, -32602, "Missing required argument: name")
        return self.ok(rid, {"messages": [{"role": "user", "content": {"type": "text", "text": f"Hello {name}"}}]})

    def do_resources_list(self, rid, params):
        return self.page(rid, params, RESOURCES, "resources")

    def do_resources_templates_list(self, rid, params):
        return self.page(rid, params, [], "resourceTemplates")

    def do_resources_read(self, rid, params):
        if params.get("uri") != "file:///hello.txt":  # -32602 on 2026-07-28, which forbids -32002
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602 if self.modern else -32002,
                                                           "message": "Resource not found",
                                                           "data": {"uri": params.get("uri")}}}
        return self.ok(rid, {"contents": [{"uri": "file:///hello.txt", "mimeType": "text/plain", "text": "hello"}]})


def main() -> None:
    if "crash" in FAULTS:
        sys.stderr.write("Traceback (most recent call last):\nRuntimeError: missing API_KEY\n")
        sys.exit(1)
    if "banner" in FAULTS:
        print("Starting probe-test server v1.0.0 on stdio", flush=True)
    server = Server()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            send(error(None, -32700, "Parse error"))
            continue
        answer = server.handle(message)
        if answer is not None:
            send(answer)


if __name__ == "__main__":
    main()

"""Record a stdio session: the PyPI fastmcp ``Client`` drives the TypeScript SDK server
``ts_slow_server.cjs`` started behind ``mcplint capture``, with the corpus scenario's deliberate
client errors.

Run from the repository root (fastmcp==4.1.6 in /work/rec/venv-fastmcp, the npm packages in
/work/rec/npm):
    /work/rec/venv-fastmcp/bin/python tests/corpus/recorders/fastmcp_client.py tests/corpus/fastmcp-client--ts-sdk-server.mcplog
"""

import os
import sys

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

MCPLINT = "/work/venv/bin/mcplint"
SERVER = ["node", "tests/corpus/recorders/ts_slow_server.cjs"]


async def step(label, action):
    try:
        result = await action()
        print(f"{label}: ok {str(result)[:160]}", file=sys.stderr)
    except Exception as exc:  # the deliberate errors end up here
        print(f"{label}: {type(exc).__name__} {str(exc)[:160]}", file=sys.stderr)


async def main(out: str) -> None:
    env = {"PATH": os.environ["PATH"], "NODE_PATH": "/work/rec/npm/node_modules"}
    transport = StdioTransport(MCPLINT, ["capture", "-o", out, "--", *SERVER], env=env, cwd=os.getcwd())
    async with Client(transport) as client:
        print("negotiated", client.protocol_version, file=sys.stderr)
        await step("tools/list", client.list_tools)
        await step("add", lambda: client.call_tool("add", {"a": 2, "b": 3}))
        await step("prompts/list", client.list_prompts)
        await step("prompts/get", lambda: client.get_prompt("greeting", {"name": "Ada"}))
        await step("resources/list", client.list_resources)
        await step("resources/read", lambda: client.read_resource("note://readme"))
        await step("unknown tool", lambda: client.call_tool("multiply", {"a": 2, "b": 3}, raise_on_error=False))
        await step("bad arguments: wrong type", lambda: client.call_tool("add", {"a": "two", "b": 3}, raise_on_error=False))
        await step("bad arguments: missing required", lambda: client.call_tool("add", {"a": 1}, raise_on_error=False))
        await step("fabricated cursor", lambda: client.list_tools_mcp(cursor="not-a-cursor"))

        async def progress(value, total, message):
            print(f"  progress {value}/{total}", file=sys.stderr)

        # cancelled call: the user stops a slow call (the task is cancelled)
        with anyio.move_on_after(2.5):
            await step("cancelled call", lambda: client.call_tool("sleep", {"seconds": 8}, progress_handler=progress))
        # abandoned call: the client gives up waiting (its own timeout) without cancelling
        await step("abandoned call", lambda: client.call_tool("sleep", {"seconds": 8}, timeout=1.5))
        await anyio.sleep(0.5)


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])

"""Record a stdio session: the official Python SDK 1.x ``ClientSession`` (PyPI ``mcp<2``) drives
a server started behind ``mcplint capture``, offering an older revision, with the corpus
scenario's deliberate client errors.

Run from the repository root (mcp==1.30.0 in /work/rec/venv-mcp1; the servers in /work/rec):
    /work/rec/venv-mcp1/bin/python tests/corpus/recorders/py_sdk1_client.py memory tests/corpus/py-sdk1-client--server-memory.mcplog
    /work/rec/venv-mcp1/bin/python tests/corpus/recorders/py_sdk1_client.py git tests/corpus/py-sdk1-client--mcp-server-git.mcplog
    /work/rec/venv-mcp1/bin/python tests/corpus/recorders/py_sdk1_client.py fetch tests/corpus/py-sdk1-client--mcp-server-fetch.mcplog
"""

import os
import socket
import subprocess
import sys
import tempfile
import threading
from datetime import timedelta

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REC = "/work/rec"
MCPLINT = "/work/venv/bin/mcplint"
WORK = tempfile.mkdtemp(prefix="corpus-")  # the servers' files; the capture is redacted to <tmp>


async def step(label, action):
    try:
        result = await action()
        print(f"{label}: ok {str(result)[:160]}", file=sys.stderr)
        return result
    except Exception as exc:  # the deliberate errors end up here
        print(f"{label}: {type(exc).__name__} {str(exc)[:160]}", file=sys.stderr)


async def cursor_and_mistakes(session, unknown, bad_args):
    await step("unknown tool", lambda: session.call_tool(unknown, {}))
    for arguments in bad_args:
        await step("bad arguments", lambda: session.call_tool(arguments[0], arguments[1]))
    await step("fabricated cursor", lambda: session.list_tools(cursor="not-a-cursor"))


async def memory(session):
    entities = [{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}]
    await step("create_entities", lambda: session.call_tool("create_entities", {"entities": entities}))
    await step("search_nodes", lambda: session.call_tool("search_nodes", {"query": "program"}))
    await step("read_graph", lambda: session.call_tool("read_graph", {}))
    await cursor_and_mistakes(session, "delete_everything",
                              [("create_entities", {"entities": "Ada"}), ("search_nodes", {})])
    await step("resources/list", session.list_resources)
    await step("resources/read", lambda: session.read_resource("memory://knowledge-graph"))
    await step("resources/subscribe", lambda: session.subscribe_resource("memory://knowledge-graph"))


async def git(session):
    repo = os.path.join(WORK, "repo")
    await step("git_status", lambda: session.call_tool("git_status", {"repo_path": repo}))
    await step("git_log", lambda: session.call_tool("git_log", {"repo_path": repo, "max_count": 5}))
    await step("git_branch", lambda: session.call_tool("git_branch", {"repo_path": repo, "branch_type": "local"}))
    await cursor_and_mistakes(session, "git_push",
                              [("git_log", {"repo_path": repo, "max_count": "ten"}), ("git_status", {})])


async def fetch(session):
    tarpit = start_tarpit()  # a loopback HTTP server that never answers: fetches hang
    await step("prompts/list", session.list_prompts)
    await step("prompts/get without its required argument", lambda: session.get_prompt("fetch", {}))
    await cursor_and_mistakes(session, "fetch_page", [("fetch", {"url": tarpit, "max_length": "a lot"}), ("fetch", {})])
    # cancelled call: the Python SDK 1.x does not send notifications/cancelled when a task is
    # cancelled, so the application sends it for the in-flight request, as a host would
    async with anyio.create_task_group() as tg:
        tg.start_soon(step, "cancelled call", lambda: session.call_tool("fetch", {"url": tarpit}))
        await anyio.sleep(2)
        request_id = session._request_id - 1
        await session.send_notification(types.ClientNotification(types.CancelledNotification(
            params=types.CancelledNotificationParams(requestId=request_id, reason="user pressed stop"))))
        await anyio.sleep(1)
        tg.cancel_scope.cancel()
    # abandoned call: the client's read timeout expires; the SDK sends no cancellation
    await step("abandoned call", lambda: session.call_tool("fetch", {"url": tarpit},
                                                           read_timeout_seconds=timedelta(seconds=2)))


def start_tarpit() -> str:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held = []
    threading.Thread(target=lambda: [held.append(server.accept()) for _ in range(8)], daemon=True).start()
    return f"http://127.0.0.1:{server.getsockname()[1]}/slow-page"


def prepare_git_repo() -> None:
    repo = os.path.join(WORK, "repo")
    run = lambda *args: subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)
    os.makedirs(repo)
    run("init", "-q", "-b", "main")
    with open(os.path.join(repo, "README.md"), "w") as f:
        f.write("corpus repository\n")
    run("add", "README.md")
    run("-c", "user.name=Corpus", "-c", "user.email=corpus@example.com", "commit", "-q", "-m", "first commit")


TARGETS = {
    # (revision the client offers, server command, scenario)
    "memory": ("2024-11-05", ["node", "/work/rec/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js"], memory),
    "git": ("2025-03-26", [f"{REC}/venv-git/bin/mcp-server-git"], git),
    "fetch": ("2025-06-18", [f"{REC}/venv-fetch/bin/mcp-server-fetch", "--allow-private-ips"], fetch),
}


async def main(name: str, out: str) -> None:
    offer, server, scenario = TARGETS[name]
    types.LATEST_PROTOCOL_VERSION = offer  # ClientSession.initialize reads it per call
    if name == "git":
        prepare_git_repo()
    env = {"PATH": os.environ["PATH"], "HOME": WORK, "MEMORY_FILE_PATH": os.path.join(WORK, "memory.jsonl")}
    params = StdioServerParameters(command=MCPLINT, args=["capture", "-o", out, "--", *server], env=env, cwd=WORK)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        result = await session.initialize()
        print("negotiated", result.protocolVersion, result.serverInfo, file=sys.stderr)
        await step("tools/list", session.list_tools)
        await scenario(session)


if __name__ == "__main__":
    out = os.path.abspath(sys.argv[2])
    anyio.run(main, sys.argv[1], out)

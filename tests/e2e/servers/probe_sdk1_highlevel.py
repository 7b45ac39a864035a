"""A server on the 1.x line of the official Python SDK, high-level API (``FastMCP``), for
``mcplint probe`` tests: a tool, a prompt with a required argument and a resource, nothing
planted. Run with the 1.x SDK on ``PYTHONPATH`` (the suite installs ``mcp==1.30.0`` aside).

    PYTHONPATH=<mcp 1.x> python tests/e2e/servers/probe_sdk1_highlevel.py
"""

from mcp.server.fastmcp import FastMCP

server = FastMCP("probe-sdk1-highlevel", log_level="WARNING")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.prompt()
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


@server.resource("note://readme")
def readme() -> str:
    """A short note."""
    return "Read me."


if __name__ == "__main__":
    server.run()

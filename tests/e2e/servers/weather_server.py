"""A weather server written with the official Python SDK's own server API (``MCPServer``).

It exercises what the end-to-end tests drive through ``mcplint capture``: tools with and
without ``outputSchema``, a tool that fails (``ToolError`` → ``isError``), progress and logging
from inside a tool, a slow tool that the client cancels, resources (static and templated),
prompts, sampling and elicitation (through the SDK's ``Resolve`` markers, which send
``sampling/createMessage``/``elicitation/create`` mid-call on handshake revisions and return an
``InputRequiredResult`` on 2026-07-28). No network: every answer is made up locally.

    python tests/e2e/servers/weather_server.py      # speaks MCP on stdio
"""

from __future__ import annotations

import json
import warnings
from typing import Annotated

import anyio
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve, Sample
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CreateMessageResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field

warnings.simplefilter("ignore")  # the SDK flags logging/sampling as deprecated in 2026-07-28

server = MCPServer(
    "e2e-weather",
    version="1.0.0",
    instructions="Use get_forecast for multi-day forecasts; station observations are resources.",
    log_level="WARNING",
)

STATIONS = {"KSEA": "Seattle-Tacoma International Airport", "KPDX": "Portland International Airport"}


class Forecast(BaseModel):
    city: str
    days: int
    high_c: list[float] = Field(description="Daily highs in °C")
    summary: str


class Confirmation(BaseModel):
    confirm: bool = Field(description="Overwrite the existing report?")


@server.tool(description="Multi-day forecast for a city (structured output).")
def get_forecast(city: str, days: int = 3) -> Forecast:
    highs = [round(14.0 + 1.5 * day, 1) for day in range(days)]
    return Forecast(city=city, days=days, high_c=highs, summary=f"Mild and dry in {city}")


@server.tool(description="Echo text back (unstructured output, no outputSchema).", structured_output=False)
def echo(text: str) -> str:
    return text


@server.tool(description="Active weather alerts for a US state.")
def get_alerts(state: str) -> str:
    raise ToolError(f"Alert feed unavailable for state {state!r}")


@server.tool(description="Index the station archive, reporting progress and log messages.")
async def index_archive(files: int, ctx: Context) -> str:
    for done in range(1, files + 1):
        await ctx.report_progress(done, files, f"indexed {done}/{files} files")
        await ctx.info(f"indexed file {done}")
    return f"indexed {files} files"


@server.tool(description="A search that takes a long time; clients usually cancel it.")
async def slow_search(query: str, ctx: Context) -> str:
    await ctx.report_progress(0, 100, "searching")
    await anyio.sleep(30)
    return f"no results for {query}"


def ask_overwrite(path: str) -> Elicit[Confirmation]:
    return Elicit(f"Overwrite the report at {path}?", Confirmation)


@server.tool(description="Write a report after asking the user for confirmation (elicitation).")
async def write_report(path: str, answer: Annotated[Confirmation, Resolve(ask_overwrite)]) -> str:
    return f"wrote {path}" if answer.confirm else f"left {path} untouched"


def draft_summary(text: str) -> Sample:
    prompt = SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))
    return Sample([prompt], max_tokens=64, system_prompt="You are a terse meteorologist.")


@server.tool(description="Summarize a bulletin with the client's model (sampling).")
async def summarize(text: str, draft: Annotated[CreateMessageResult, Resolve(draft_summary)]) -> str:
    content = draft.content
    return content.text if isinstance(content, TextContent) else "(no text)"


@server.resource("weather://stations", name="stations", mime_type="application/json")
def stations() -> str:
    return json.dumps(STATIONS)


@server.resource("weather://stations/{station_id}/latest", name="latest-observation", mime_type="application/json")
def latest(station_id: str) -> str:
    return json.dumps({"station": station_id, "temperature_c": 12.5, "wind_kts": 8})


@server.prompt(description="Plan a trip around the weather.")
def plan_trip(city: str, days: str = "3") -> str:
    return f"Plan a {days}-day trip to {city}. Check get_forecast first."


if __name__ == "__main__":
    server.run("stdio")

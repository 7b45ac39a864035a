"""The pytest plugin (``mcp_wire``, ``--mcplint``), tested from the outside with pytester against
small servers written with the official SDK, run in process."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("mcp", reason="the official MCP Python SDK (the 'mcp' package of the test extra)")

from mcplint.testing.wire import Wire  # noqa: E402

pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "test_inventory_wire.py"

#: A server built with the SDK; ``shout`` logs with ctx.info(), which MCPServer sends as
#: notifications/message without declaring the logging capability (CAP003, an error).
SERVER = '''
import warnings
import anyio
from mcp.server.mcpserver import Context, MCPServer

warnings.filterwarnings("ignore")
server = MCPServer("demo", version="1.0.0")


@server.tool(description="Echo text back.", structured_output=False)
def echo(text: str) -> str:
    return text


@server.tool(description="Echo text back, loudly, and log it.", structured_output=False)
async def shout(text: str, ctx: Context) -> str:
    await ctx.info("shouting")
    return text.upper()


def run(mcp_wire, tool, mode="legacy"):
    async def main():
        async with mcp_wire.client(server, mode=mode) as client:
            await client.list_tools()
            await client.call_tool(tool, {"text": "hi"})
    anyio.run(main)
'''


@pytest.fixture
def project(pytester):
    pytester.makepyfile(demo_server=SERVER)
    pytester.syspathinsert()
    return pytester


def test_clean_session_passes(project):
    project.makepyfile(test_it='''
        import pytest
        from demo_server import run

        @pytest.mark.parametrize("mode", ["legacy", "auto"])
        def test_echo(mcp_wire, mode):
            run(mcp_wire, "echo", mode)
            assert [r["dir"] for r in mcp_wire.records][:2] == ["c2s", "s2c"]
            mcp_wire.assert_clean(select=["ALL"])
    ''')
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_planted_violation_fails_with_its_code(project):
    project.makepyfile(test_it='''
        from demo_server import run

        def test_shout(mcp_wire):
            run(mcp_wire, "shout")
            mcp_wire.assert_clean()
    ''')
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*mcplint: 1 finding at or above error in the recorded MCP traffic*",
        "*mcp-wire.mcplog — session 1 (2025-11-25)",
        "*S→C   error   CAP003 *notifications/message*",
        "*spec: 2025-11-25 * fault: server",
        "*Found 1 finding (1 error) in 1 file, 1 session.*",
    ])


def test_select_ignore_and_fail_on(project):
    project.makepyfile(test_it='''
        import pytest
        from demo_server import run

        def test_ignored(mcp_wire):
            run(mcp_wire, "shout")
            mcp_wire.assert_clean(ignore=["CAP003"])
            mcp_wire.assert_clean(select="JR,LC")
            assert [f.code for f in mcp_wire.findings()] == ["CAP003"]

        def test_fail_on_info(mcp_wire):
            run(mcp_wire, "echo")
            mcp_wire.assert_clean(fail_on="info")

        def test_nothing_recorded(mcp_wire):
            with pytest.raises(AssertionError, match="recorded no MCP traffic"):
                mcp_wire.assert_clean()
    ''')
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=3)


def test_project_settings_apply(project):
    project.makefile(".toml", pyproject='[tool.mcplint]\nignore = ["CAP003"]\n')
    project.makepyfile(test_it='''
        from demo_server import run

        def test_shout(mcp_wire):
            run(mcp_wire, "shout")
            mcp_wire.assert_clean()
    ''')
    project.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_mcplint_option_lints_every_session_and_writes_reports(project):
    project.makepyfile(test_it='''
        from demo_server import run

        def test_echo(mcp_wire):
            run(mcp_wire, "echo")

        def test_shout(mcp_wire):
            run(mcp_wire, "shout")
    ''')
    sarif, junit = project.path / "out.sarif", project.path / "out.xml"
    result = project.runpytest("-p", "no:cacheprovider", "--mcplint", f"--mcplint-report=sarif={sarif}",
                               "--mcplint-report", f"junit={junit}")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the tests pass, the traffic does not
    result.stdout.fnmatch_lines(["*= mcplint =*", "*CAP003*", "Found 1 finding (1 error) in 2 files, 2 sessions.",
                                 f"mcplint: wrote sarif report to {sarif}"])
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["CAP003"]
    assert ET.parse(junit).getroot().get("failures") == "1"


def test_mcplint_option_passes_clean_traffic(project):
    project.makepyfile(test_it='''
        from demo_server import run

        def test_echo(mcp_wire):
            run(mcp_wire, "echo")
    ''')
    result = project.runpytest("-p", "no:cacheprovider", "--mcplint")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["All checks passed: 1 file, 1 session, *"])


@pytest.mark.parametrize("args, message", [
    (["--mcplint-report", "sarif"], "*expected FORMAT=PATH*"),
    (["--mcplint-report", "sarif=x.sarif"], "*--mcplint-report needs --mcplint*"),
])
def test_bad_options_are_usage_errors(pytester, args, message):
    pytester.makepyfile(test_it="def test_x(): pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_unknown_report_format_is_a_usage_error(project):
    project.makepyfile(test_it='''
        from demo_server import run

        def test_echo(mcp_wire):
            run(mcp_wire, "echo")
    ''')
    result = project.runpytest("-p", "no:cacheprovider", "--mcplint", "--mcplint-report", "pdf=x.pdf")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["mcplint: --mcplint-report 'pdf': unknown format*"])


def test_no_import_cost_without_the_fixture(pytester):
    """A run that uses neither the fixture nor --mcplint loads the plugin and nothing heavy."""
    pytester.makepyfile(test_it='''
        import sys

        def test_modules():
            assert "mcplint.testing.plugin" in sys.modules
            heavy = [name for name in ("mcplint.analysis.engine", "mcplint.api", "mcplint.testing.wire", "pydantic", "mcp",
                                       "mcp_types", "orjson") if name in sys.modules]
            assert heavy == []
    ''')
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_the_example_passes(pytester):
    """examples/test_inventory_wire.py: in process (both eras) and over stdio (mcplint capture)."""
    shutil.copy(EXAMPLE, pytester.path / EXAMPLE.name)
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcplint")
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["Found 3 findings (3 info) in 3 files, 3 sessions."])


@given(st.text(), st.sampled_from(["c2s", "s2c"]), st.integers(1, 10**6))
def test_recorded_line_is_a_capture_record(tmp_path_factory, text, direction, session):
    """Any text the SDK could send is recorded as one capture line holding it exactly."""
    wire = Wire(tmp_path_factory.getbasetemp() / "w.mcplog")
    wire.record(direction, text, str(session))
    [line] = wire._lines
    assert line.endswith(b"}\n") and line.count(b"\n") == 1
    record = orjson.loads(line)
    assert (record["dir"], record["raw"], record["session"]) == (direction, text, str(session))


def test_the_readme_example_passes(pytester):
    readme = (EXAMPLE.parent.parent / "README.md").read_text(encoding="utf-8")
    code = readme.split("\n## In pytest\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    pytester.makepyfile(test_readme_example=code)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_streams_record_a_server_side_pair(tmp_path):
    """``side="server"``: what the server writes is s2c, what it reads c2s; a transport error is
    a meta note, not traffic; closing the write side notes that the server ended the connection."""
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    wire = Wire(tmp_path / "w.mcplog")

    async def main():
        send, receive = anyio.create_memory_object_stream(10)
        read, write = wire.streams(receive, send, side="server")
        note = types.JSONRPCNotification(jsonrpc="2.0", method="notifications/tools/list_changed")
        await write.send(SessionMessage(note))
        await send.send(ValueError("bad line"))
        assert (await read.receive()).message == note
        assert isinstance(await read.receive(), ValueError)
        await write.aclose()

    anyio.run(main)
    records = wire.records
    assert [(r["dir"], r.get("event")) for r in records] == [("s2c", None), ("c2s", None), ("meta", "error"),
                                                             ("meta", "closed")]
    assert records[0]["raw"] == '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'
    assert records[3]["by"] == "server" and {r["session"] for r in records} == {"1"}


def test_streamable_http_url_is_recorded(mcp_wire):
    """A URL: the SDK's Streamable HTTP client to an SDK server on loopback, the messages recorded
    (this suite uses the plugin's own fixture)."""
    pytest.importorskip("uvicorn", reason="the SDK's HTTP server")
    import anyio
    from mcp.server.mcpserver import MCPServer

    from tests.e2e.har_proxy import serve

    server = MCPServer("http-demo", version="1.0.0")

    @server.tool(description="Echo text back.", structured_output=False)
    def echo(text: str) -> str:
        return text

    async def main(url):
        async with mcp_wire.client(url + "/mcp", mode="legacy") as client:
            await client.call_tool("echo", {"text": "over http"})

    with serve(server.streamable_http_app()) as url:
        anyio.run(main, url)
    methods = [json.loads(r["raw"]).get("method") for r in mcp_wire.records if r["dir"] == "c2s"]
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/call"]
    mcp_wire.assert_clean(fail_on="warning")

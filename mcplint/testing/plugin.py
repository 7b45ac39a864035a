"""pytest plugin (entry point ``pytest11``): the ``mcp_wire`` fixture and ``--mcplint``.

``mcp_wire`` records the MCP traffic of the test (:class:`mcplint.testing.wire.Wire`);
``mcp_wire.assert_clean()`` lints it. ``--mcplint`` lints every session recorded during the run
at its end, prints the findings, fails the run on findings at or above ``fail-on``, and
``--mcplint-report FORMAT=PATH`` writes them in a ``check`` output format (``sarif``, ``junit``, ...).

This module imports nothing of mcplint's engine, pydantic or the SDK: pytest runs that use neither
the fixture nor ``--mcplint`` pay nothing for it.
"""

from __future__ import annotations

import pytest

_WIRES = pytest.StashKey[list]()
_RESULT = pytest.StashKey[tuple]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcplint", "MCP traffic linting (mcplint)")
    group.addoption("--mcplint", action="store_true", default=False,
                    help="lint the MCP traffic every mcp_wire fixture recorded, at the end of the run")
    group.addoption("--mcplint-report", action="append", default=[], metavar="FORMAT=PATH",
                    help="with --mcplint, also write the findings as FORMAT (sarif, junit, json, ...) to PATH")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_WIRES] = []
    for spec in config.getoption("mcplint_report"):
        fmt, sep, path = spec.partition("=")
        if not sep or not fmt or not path:
            raise pytest.UsageError(f"--mcplint-report {spec!r}: expected FORMAT=PATH, e.g. sarif=mcplint.sarif")
    if config.getoption("mcplint_report") and not config.getoption("mcplint"):
        raise pytest.UsageError("--mcplint-report needs --mcplint")


@pytest.fixture
def mcp_wire(request: pytest.FixtureRequest, tmp_path):
    """Records the MCP traffic of this test; ``mcp_wire.assert_clean()`` lints it.

    Connect with ``mcp_wire.client(server)`` (an ``mcp.Client``), ``mcp_wire.transport(server)``,
    ``mcp_wire.stdio(params)`` or ``mcp_wire.streams(read, write)``.
    """
    from mcplint.testing.wire import Wire

    wire = Wire(tmp_path / "mcp-wire.mcplog", root=request.config.rootpath)
    request.config.stash[_WIRES].append(wire)
    return wire


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    wires = [wire for wire in config.stash.get(_WIRES, []) if wire.recorded]
    if not config.getoption("mcplint") or not wires:
        return
    from mcplint.report import REPORTERS
    from mcplint.testing.wire import lint_many, render

    try:
        findings, summary, settings = lint_many(wires)
    except Exception as exc:  # a bad [tool.mcplint]: say it, as check would
        config.stash[_RESULT] = (f"mcplint: {exc}", [])
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
        return
    notes = []
    for spec in config.getoption("mcplint_report"):
        fmt, _, path = spec.partition("=")
        if fmt not in REPORTERS:
            notes.append(f"mcplint: --mcplint-report {fmt!r}: unknown format (one of {', '.join(sorted(REPORTERS))})")
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            continue
        try:
            with open(path, "w", encoding="utf-8") as out:
                out.write(render(findings, summary, fmt))
        except OSError as exc:
            notes.append(f"mcplint: cannot write {path}: {exc.strerror}")
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            continue
        notes.append(f"mcplint: wrote {fmt} report to {path}")
    config.stash[_RESULT] = (render(findings, summary), notes)
    if any(f.severity.rank >= settings.fail_on.rank for f in findings) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    result = config.stash.get(_RESULT, None)
    if result is None:
        return
    text, notes = result
    terminalreporter.section("mcplint")
    terminalreporter.write(text if text.endswith("\n") else text + "\n")
    for note in notes:
        terminalreporter.write_line(note)

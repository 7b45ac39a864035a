"""Record the traffic of MCP sessions run with the official Python SDK, and lint it.

:class:`Wire` is what the ``mcp_wire`` pytest fixture (:mod:`mcplint.testing.plugin`) hands a
test. It records sessions in the canonical capture format (``{"ts", "dir", "raw"}`` per line)
in one file:

- in process and over any SDK transport: :meth:`Wire.transport` wraps an ``MCPServer`` or
  low-level ``Server`` (the SDK's in-memory transport), a URL (Streamable HTTP) or any SDK
  ``Transport``; the streams the client reads and writes are recorded, each message as the SDK
  would put it on the wire (``model_dump_json(by_alias=True, exclude_unset=True)``);
  :meth:`Wire.streams` wraps a stream pair you made yourself;
- a stdio server: :meth:`Wire.stdio` runs it behind ``mcplint capture``, which records the exact
  lines and the server's stderr.

:meth:`Wire.assert_clean` lints what was recorded with the project's ``[tool.mcplint]``
settings and fails the test with the findings in ``check``'s full format.
"""

from __future__ import annotations

import io
import itertools
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcplint.commands.capture.stdio import encode_meta, encode_record, format_ts


class WireError(AssertionError):
    """The recorded traffic has findings at or above the failing severity."""


class Wire:
    """The recorded MCP traffic of one test, stored at ``path`` (canonical capture format)."""

    def __init__(self, path: str | os.PathLike, root: str | os.PathLike | None = None) -> None:
        self.path = Path(path)
        self.root = Path(root) if root is not None else None  # where [tool.mcplint] is looked for
        self._lock = threading.Lock()
        self._lines: list[bytes] = []
        self._sessions = itertools.count(1)
        self._captures: list[Path] = []  # files written by `mcplint capture` (stdio sessions)

    # -- recording ---------------------------------------------------------------------------
    def transport(self, server: Any, *, raise_exceptions: bool = False):
        """An SDK ``Transport`` to ``server`` whose traffic is recorded: pass it to ``mcp.Client``.

        ``server`` is an ``MCPServer`` or ``Server`` (run in process), a Streamable HTTP URL, or
        any ``Transport`` (an async context manager yielding ``(read_stream, write_stream)``).
        For a ``StdioServerParameters`` use :meth:`stdio`, which records the exact bytes.
        """
        from mcp.client._memory import InMemoryTransport
        from mcp.server import Server
        from mcp.server.mcpserver import MCPServer

        if isinstance(server, (Server, MCPServer)):
            inner = InMemoryTransport(server, raise_exceptions=raise_exceptions)
        elif isinstance(server, str):
            from mcp.client.streamable_http import streamable_http_client

            inner = streamable_http_client(server)
        elif type(server).__name__ == "StdioServerParameters":
            raise TypeError("record a stdio server with mcp_wire.stdio(params): it runs behind "
                            "`mcplint capture` and keeps the exact bytes and stderr")
        elif hasattr(server, "__aenter__"):
            inner = server
        else:
            raise TypeError(f"cannot record a session with {type(server).__name__}: expected an MCPServer, "
                            "Server, URL or SDK Transport")
        return _RecordedTransport(self, inner)

    def client(self, server: Any, **options: Any):
        """``mcp.Client`` connected to ``server`` with its traffic recorded (``options`` go to
        ``Client``). A ``StdioServerParameters`` is run behind ``mcplint capture``."""
        from mcp import Client, StdioServerParameters

        if isinstance(server, StdioServerParameters):
            return Client(self.stdio(server), **options)
        return Client(self.transport(server, raise_exceptions=options.get("raise_exceptions", False)), **options)

    def streams(self, read_stream: Any, write_stream: Any, *, side: str = "client") -> tuple[Any, Any]:
        """Recording wrappers of one session's stream pair as ``side`` (client or server) holds
        it: what ``side`` writes and reads is recorded in its direction."""
        if side not in ("client", "server"):
            raise ValueError("side must be 'client' or 'server'")
        session = self._new_session()
        sent, got = ("c2s", "s2c") if side == "client" else ("s2c", "c2s")
        return _RecordedRead(self, read_stream, got, session), _RecordedWrite(self, write_stream, sent, session, side)

    def stdio(self, params: Any):
        """``StdioServerParameters`` that run ``params``' server behind ``mcplint capture``,
        which records every line both ways and the server's stderr."""
        from mcp import StdioServerParameters

        capture = self.path.with_name(f"{self.path.stem}-stdio{len(self._captures) + 1}{self.path.suffix}")
        self._captures.append(capture)
        args = ["-m", "mcplint", "capture", "-o", str(capture), "--", params.command, *params.args]
        return StdioServerParameters(command=sys.executable, args=args, env=params.env, cwd=params.cwd,
                                     encoding=params.encoding,
                                     encoding_error_handler=params.encoding_error_handler)

    def _new_session(self) -> str:
        return str(next(self._sessions))

    def _add(self, line: bytes) -> None:
        with self._lock:
            self._lines.append(line)

    def record(self, direction: str, message: Any, session: str) -> None:
        """Record one message (an SDK ``SessionMessage``, a pydantic message or JSON text)."""
        inner = message if isinstance(message, Exception) else getattr(message, "message", message)
        if isinstance(inner, Exception):  # what a transport hands the session when it cannot read a message
            self._add(encode_meta(format_ts(time.time()), "error", f"transport error: {inner!r}", session=session))
            return
        if hasattr(inner, "model_dump_json"):
            raw = inner.model_dump_json(by_alias=True, exclude_unset=True)
        else:
            raw = inner if isinstance(inner, str) else str(inner)
        self._add(_with_session(encode_record(format_ts(time.time()), direction, raw.encode("utf-8")), session))

    def closed(self, session: str, by: str) -> None:
        """Note that ``by`` (client or server) closed the session's connection."""
        self._add(encode_meta(format_ts(time.time()), "stdin-closed" if by == "client" else "closed",
                              f"the {by} closed the connection", by=by, session=session))

    # -- reading and linting ------------------------------------------------------------------
    @property
    def records(self) -> list[dict]:
        """The recorded records (in-process sessions), parsed."""
        import orjson

        with self._lock:
            return [orjson.loads(line) for line in self._lines]

    @property
    def recorded(self) -> bool:
        """Whether anything was recorded."""
        return bool(self._lines) or any(path.exists() for path in self._captures)

    def files(self) -> list[Path]:
        """The capture files holding this test's traffic (writes the in-process records first)."""
        out = []
        with self._lock:
            if self._lines:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.path.write_bytes(b"".join(self._lines))
                out.append(self.path)
        out.extend(path for path in self._captures if path.exists())
        return out

    def lint(self, select: Sequence[str] = (), ignore: Sequence[str] = (), fail_on: str | None = None):
        """``(findings, summary, settings)`` for the recorded traffic, with the project's
        ``[tool.mcplint]`` settings (found from ``root``) and these selectors on top."""
        return lint_files(self.files(), self.root, select, ignore, fail_on)

    def findings(self, select: Sequence[str] = (), ignore: Sequence[str] = ()) -> list:
        """The findings of the recorded traffic (see :meth:`lint`)."""
        return self.lint(select, ignore)[0]

    def assert_clean(self, select: Sequence[str] = (), ignore: Sequence[str] = (), fail_on: str | None = None) -> None:
        """Fail (``AssertionError``) when the recorded traffic has findings at or above ``fail_on``
        (default: the project's ``fail-on``, else ``error``), listing every finding as
        ``mcplint check`` does. Also fails when nothing was recorded."""
        if not self.recorded:
            raise WireError("mcp_wire recorded no MCP traffic: connect through mcp_wire.client(...), "
                            "mcp_wire.transport(...), mcp_wire.stdio(...) or mcp_wire.streams(...)")
        findings, summary, settings = self.lint(select, ignore, fail_on)
        failing = [f for f in findings if f.severity.rank >= settings.fail_on.rank]
        if failing:
            raise WireError(f"mcplint: {len(failing)} finding{'s' if len(failing) != 1 else ''} at or above "
                            f"{settings.fail_on.value} in the recorded MCP traffic\n" + render(findings, summary))


def lint_many(wires: Sequence[Wire]):
    """``(findings, summary, settings)`` of the traffic of several tests (``pytest --mcplint``)."""
    return lint_files([path for wire in wires for path in wire.files()], wires[0].root if wires else None)


def lint_files(files: Sequence[Path], root: Path | None, select: Sequence[str] = (), ignore: Sequence[str] = (),
               fail_on: str | None = None):
    """Lint capture ``files`` with the ``[tool.mcplint]`` settings found from ``root`` and these
    selectors on top: ``(findings, summary, settings)``."""
    from mcplint.api import LintOptions, lint_paths
    from mcplint.config.files import load
    from mcplint.config.settings import apply, resolve_settings
    from mcplint.report import RunSummary

    settings = resolve_settings(load(start=root), select=_listed(select), ignore=_listed(ignore), fail_on=fail_on)
    if not files:
        return [], RunSummary(), settings
    options = LintOptions(input_format="capture", protocol_version=settings.protocol_version,
                          rule_options=settings.rule_options, max_line_bytes=settings.max_line_bytes)
    findings, summary = lint_paths([str(path) for path in files], settings.rules, options)
    findings = apply(findings, settings)
    summary.fail_on = settings.fail_on
    return findings, summary, settings


def render(findings, summary, fmt: str = "full") -> str:
    """``findings`` as ``mcplint check`` prints them in ``fmt`` (no colour)."""
    from mcplint.report import COLORED, REPORTERS

    out = io.StringIO()
    if fmt in COLORED:
        REPORTERS[fmt](findings, summary, out, color=False)
    else:
        REPORTERS[fmt](findings, summary, out)
    return out.getvalue()


def _listed(selectors: Sequence[str] | str) -> list[str]:
    if isinstance(selectors, str):
        selectors = [selectors]
    return [part.strip() for item in selectors for part in item.split(",") if part.strip()]


def _with_session(line: bytes, session: str) -> bytes:
    """A capture line with a ``session`` member (sessions of one file stay apart)."""
    return line[:-2] + b',"session":"' + session.encode() + b'"}\n'


class _RecordedTransport:
    """An SDK ``Transport`` whose streams are recorded as the client's."""

    def __init__(self, wire: Wire, inner: Any) -> None:
        self._wire, self._inner = wire, inner

    async def __aenter__(self):
        read_stream, write_stream = await self._inner.__aenter__()
        read_stream, self._write = self._wire.streams(read_stream, write_stream, side="client")
        return read_stream, self._write

    async def __aexit__(self, *exc_info):
        self._write.note_close()  # the transport closes the inner stream itself: the client ends the session
        return await self._inner.__aexit__(*exc_info)


class _Delegating:
    def __init__(self, wire: Wire, inner: Any, direction: str, session: str) -> None:
        self._wire, self._inner, self._direction, self._session = wire, inner, direction, session

    def __getattr__(self, name: str) -> Any:  # last_context, statistics(), ...
        return getattr(self._inner, name)

    async def __aenter__(self):
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info):
        await self.aclose()
        return None


class _RecordedRead(_Delegating):
    """A read stream that records what it yields."""

    async def receive(self):
        item = await self._inner.receive()
        self._wire.record(self._direction, item, self._session)
        return item

    def __aiter__(self):
        return self

    async def __anext__(self):
        item = await self._inner.__anext__()
        self._wire.record(self._direction, item, self._session)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()


class _RecordedWrite(_Delegating):
    """A write stream that records what is sent (before it is sent, so a reply never precedes
    its request) and notes when its holder closes it."""

    def __init__(self, wire: Wire, inner: Any, direction: str, session: str, side: str) -> None:
        super().__init__(wire, inner, direction, session)
        self._side = side
        self._closed = False

    async def send(self, item) -> None:
        self._wire.record(self._direction, item, self._session)
        await self._inner.send(item)

    def close(self) -> None:
        self.note_close()
        self._inner.close()

    async def aclose(self) -> None:
        self.note_close()
        await self._inner.aclose()

    def note_close(self) -> None:
        if not self._closed:
            self._closed = True
            self._wire.closed(self._session, self._side)

"""``mcplint probe``: drive a scripted client session against a server and record it.

The script (each step safe: no tool runs unless ``call_tools``), in sessions of their own:

- ``main``: ``initialize`` with the newest handshake revision, ``ping`` before and after
  ``notifications/initialized``, every list method the server declared (every page, up to
  ``page_limit``), a fabricated cursor, the list methods it did not declare, then the error layers
  (unknown tool, unknown prompt, prompt without its required arguments, missing resource, unknown
  method) and, with ``call_tools``, tool calls with generated arguments;
- ``version-*``: ``initialize`` with each older revision and with an unknown future one;
- ``malformed``: a request without ``method``, a reused id and a batch, each followed by a ping;
- ``discover``: 2026-07-28 ``server/discover``; when the server lists 2026-07-28, the discovery,
  error and tool steps of ``main`` again as stateless requests.

The sessions after ``main`` run side by side (:data:`PARALLEL_SESSIONS`), each with its own
server process (stdio) or connection (HTTP, :mod:`mcplint.commands.probe.http`).

Deliberate violations of the probe itself carry a ``probe`` member in their record, so that the
findings they provoke on the client's side can be told from real ones. A request that is not
answered within ``timeout`` is a hang: reported at its lifecycle stage (the stage names of
``mcplint diagnose``), cancelled where the spec allows, and the script goes on in a new session.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from mcplint import __version__, protocol
from mcplint.commands.capture.stdio import Recorder
from mcplint.commands.diagnose.collect import STAGES
from mcplint.commands.probe.args import arguments_for, invalid_arguments
from mcplint.commands.probe.stdio import Reply, StartError, StdioLink
from mcplint.excerpt import mask_text

if TYPE_CHECKING:
    from mcplint.commands.probe.http import HttpLink

Link = Union[StdioLink, "HttpLink"]
FUTURE_VERSION = "2099-01-01"
#: sessions after the main one that run side by side
PARALLEL_SESSIONS = 3
CLIENT_INFO = {"name": "mcplint-probe", "version": __version__}
MODERN_META = {protocol.PROTOCOL_VERSION_META: protocol.V2026_07_28, protocol.CLIENT_CAPABILITIES_META: {},
               "io.modelcontextprotocol/clientInfo": CLIENT_INFO}
MISSING = "mcplint-probe-missing"
#: list methods per server capability, with the member holding the items
LISTS = {"tools": [("tools/list", "tools")], "prompts": [("prompts/list", "prompts")],
         "resources": [("resources/list", "resources"), ("resources/templates/list", "resourceTemplates")]}
_STAGE_LABELS = dict(STAGES)


@dataclass
class ProbeOptions:
    timeout: float = 10.0
    grace: float = 2.0
    call_tools: bool = False
    tools: tuple[str, ...] = ()  # only these tools (empty: all)
    cancel_after: float | None = None
    page_limit: int = 20
    env: dict[str, str] | None = None
    insecure: bool = False  # --url: do not verify the TLS certificate


@dataclass
class Event:
    """Something the probe observed itself: a hang, a crash, a refused handshake."""

    session: str
    text: str
    stage: str | None = None
    fatal: bool = True  # the server failed (exit status 1 unless --exit-zero)
    refusal: bool = False  # an initialize answered with an error

    def line(self) -> str:
        where = f" (stage: {_STAGE_LABELS.get(self.stage, self.stage)})" if self.stage else ""
        return f"{self.session}: {mask_text(self.text)}{where}"  # the server's words may hold a secret


@dataclass
class Session:
    """One probe session: its link, the negotiated revision, what the server declared."""

    link: StdioLink
    name: str
    version: str | None = None
    capabilities: dict = field(default_factory=dict)
    stage: str = "transport"
    listed: dict[str, list] = field(default_factory=dict)  # list method -> items
    stuck: bool = False

    @property
    def modern(self) -> bool:
        return self.version in protocol.MODERN


class Probe:
    """Runs the script against a server (``connect`` opens one session's link), recording into
    ``recorder``; ``events`` say what happened."""

    def __init__(self, connect: Callable[[str], Link], recorder: Recorder, options: ProbeOptions,
                 confirm_tools: Callable[[list[str]], bool] = lambda names: True):
        self.connect = connect
        self.recorder = recorder
        self.options = options
        self.confirm_tools = confirm_tools
        self.events: list[Event] = []
        self.steps: list[str] = []  # what ran, for the summary
        self._lock = threading.Lock()
        self._links: list[Link] = []

    # -- the script ------------------------------------------------------------------------------
    def run(self) -> None:
        main = self._open("main", protocol.LATEST_LEGACY, ping_early=True)
        if main is None:
            refusal = next((e for e in self.events if e.refusal), None)
            if refusal is not None and self._discover(self._label("discover")):
                refusal.fatal = False  # a server of 2026-07-28 only: the handshake is not its way
            return  # else no handshake at all: every other session would fail the same way
        self._steps(main, [self._ping, self._discovery, self._fabricated_cursor, self._undeclared_lists,
                           self._error_layers, self._tool_calls, self._ping])
        versions = [v for v in protocol.VERSIONS if v in protocol.LEGACY and v != protocol.LATEST_LEGACY]
        jobs = [functools.partial(self._version, self._label(f"version-{v}"), v) for v in versions]
        jobs.append(functools.partial(self._version, self._label("version-future"), FUTURE_VERSION))
        malformed = self._label("malformed")
        jobs.append(lambda: self._steps(self._open("malformed", protocol.LATEST_LEGACY, label=malformed),
                                        [self._malformed, self._reused_id, self._batch]))
        jobs.append(functools.partial(self._discover, self._label("discover")))
        # independent sessions, each with its own server: side by side (a server's start-up is most of a session)
        with ThreadPoolExecutor(PARALLEL_SESSIONS, thread_name_prefix="mcplint-probe-session") as pool:
            futures = [pool.submit(job) for job in jobs]
            try:
                for future in futures:
                    future.result()
            except BaseException:  # Ctrl-C, or a bug: stop the servers, so the other sessions end now
                self.abort()
                raise

    def _link(self, label: str) -> Link:
        link = self.connect(label)
        self._links.append(link)
        return link

    def abort(self) -> None:
        """Stop every server and connection still open (their sessions end as closed)."""
        for link in list(self._links):
            link.abort()

    def _label(self, name: str) -> str:
        with self._lock:
            label = f"probe {len(self.steps) + 1} {name}"
            self.steps.append(label)
        return label

    def _version(self, label: str, version: str) -> None:
        self._close(self._open(label.split(" ", 2)[2], version, ping_late=True, label=label))

    def _steps(self, session: Session | None, steps: list[Callable[[Session], None]]) -> None:
        """Run ``steps``; after a hang, go on in a new session of the same revision."""
        for step in steps:
            if session is None:
                return
            if session.stuck or not session.link.alive:
                session = self._reopen(session)
                if session is None:
                    return
            step(session)
            if step == self._discovery and session.stuck:  # list the rest in a new session
                session = self._reopen(session)
                if session is None:
                    return
                step(session)
        self._close(session)

    def _reopen(self, old: Session) -> Session | None:
        """A new session to go on in (the old one closed): a new handshake, or on 2026-07-28
        (stateless) a new connection. What was listed is known in the new one."""
        self._close(old)
        if not old.modern:
            session = self._open(old.name + "+", old.version or protocol.LATEST_LEGACY)
            if session is not None:
                session.listed.update(old.listed)
            return session
        label = self._label(old.name + "+")
        session = Session(self._link(label), old.name + "+", old.version, old.capabilities, old.stage,
                          dict(old.listed))
        try:
            session.link.start()
        except StartError as exc:
            self.events.append(Event(label, str(exc)))
            return None
        session.link.negotiated(old.version)
        return session

    # -- sessions --------------------------------------------------------------------------------
    def _open(self, name: str, version: str, ping_early: bool = False, ping_late: bool = False,
              label: str | None = None) -> Session | None:
        label = label or self._label(name)
        link = self._link(label)
        session = Session(link, name)
        try:
            link.start()
            _, reply = self._request(session, "initialize", {
                "protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}, stage="initialize_sent",
                **({"probe": "future-version"} if version == FUTURE_VERSION else {}))
        except StartError as exc:
            if label == self.steps[0]:  # the very first start: the command or URL is wrong
                raise
            self.events.append(Event(label, str(exc)))
            return None
        if not reply.ok:
            if reply.kind == "error":
                self.events.append(Event(label, f"initialize with {version} was refused: "
                                                f"{_error_text(reply.value)}", "initialize_sent",
                                         fatal=version == protocol.LATEST_LEGACY, refusal=True))
            self._close(session)
            return None
        session.stage = "initialize_answered"
        result = reply.value if isinstance(reply.value, dict) else {}
        answered = result.get("protocolVersion")
        caps = result.get("capabilities")
        session.capabilities = caps if isinstance(caps, dict) else {}
        if answered not in protocol.LEGACY:  # a client that cannot speak it disconnects
            if answered == version == FUTURE_VERSION:
                self.events.append(Event(label, f"the server echoed the unknown revision {version!r}: a server "
                                                "must answer with a revision it supports", "initialize_answered"))
            else:
                self.events.append(Event(label, f"initialize with {version} was answered with protocolVersion "
                                                f"{answered!r}, which mcplint cannot speak; session ended",
                                         fatal=False))
            self._close(session)
            return None
        session.version = answered
        link.negotiated(answered)
        if ping_early:
            self._ping(session)
        session.link.notify("notifications/initialized")
        session.stage = "initialized_sent"
        if ping_late:
            self._ping(session)
        return session

    def _close(self, session: Session | None) -> None:
        if session is None:
            return
        link = session.link
        crashed = link.ended is None and not link.alive
        ended = link.close()
        if crashed:  # it ended, or closed stdout, before the probe was done
            last = "; ".join(link.last_stderr)
            self.events.append(Event(link.session, f"the server ended before the probe closed the session: "
                                                   f"{ended}" + (f"; its last stderr: {last}" if last else ""),
                                     session.stage))

    def _request(self, session: Session, method: str, params: dict | None, stage: str | None = None,
                 timeout: float | None = None, **marks: Any) -> tuple[Any, Reply]:
        """A request with the probe's timeout; a hang is reported at the session's stage and the
        request cancelled (never ``initialize``)."""
        if stage is not None:
            session.stage = stage
        rid, reply = session.link.request(method, self._params(session, params), timeout or self.options.timeout,
                                          **marks)
        if reply.kind == "timeout":
            self._hang(session, rid, method, reply)
        elif reply.kind == "closed":
            session.stuck = True
        return rid, reply

    def _hang(self, session: Session, rid: Any, method: str, reply: Reply) -> None:
        self.events.append(Event(session.link.session, f"{method} (id {rid}) was not answered within "
                                                       f"{reply.seconds:g}s", session.stage))
        if method == "initialize":
            return
        self._cancel(session, rid, "mcplint probe: timeout")
        if session.modern:
            return  # no ping in 2026-07-28: the next request tells
        self._alive(session)

    def _alive(self, session: Session, timeout: float | None = None) -> None:
        """After a timeout: does the server still answer a ping? If not, the session is stuck (and
        the ping given up as well)."""
        rid, alive = session.link.request("ping", None, timeout or min(self.options.timeout, 2.0))
        session.stuck = not alive.ok
        if alive.kind == "timeout":
            self._cancel(session, rid, "mcplint probe: timeout")

    def _cancel(self, session: Session, rid: Any, reason: str) -> None:
        """Give up a request: notifications/cancelled (on 2026-07-28 HTTP, closing its stream is the
        cancellation, and the link has closed it)."""
        if not (session.modern and getattr(session.link, "extra", {}).get("transport") == "http"):
            session.link.notify("notifications/cancelled", {"requestId": rid, "reason": reason})

    def _params(self, session: Session, params: dict | None) -> dict | None:
        """``params`` with the request ``_meta`` every 2026-07-28 request carries."""
        if not session.modern:
            return params
        params = dict(params or {})
        params["_meta"] = {**MODERN_META, **(params.get("_meta") or {})}
        return params

    # -- steps -----------------------------------------------------------------------------------
    def _ping(self, session: Session) -> None:
        if not session.modern:  # 2026-07-28 has no ping
            self._request(session, "ping", None)

    def _declared(self, session: Session) -> list[tuple[str, str]]:
        return [entry for cap, entries in LISTS.items() if cap in session.capabilities for entry in entries]

    def _discovery(self, session: Session) -> None:
        for method, member in self._declared(session):
            if method in session.listed or session.stuck:
                continue  # listed (or given up) in an earlier session; or this one is stuck
            items: list = []
            cursor = None
            followed: set[str] = set()
            for _ in range(self.options.page_limit):
                _, reply = self._request(session, method, {"cursor": cursor} if cursor is not None else None)
                if not reply.ok or not isinstance(reply.value, dict):
                    break
                page = reply.value.get(member)
                items.extend(page if isinstance(page, list) else [])
                cursor = reply.value.get("nextCursor")
                if not isinstance(cursor, str) or session.stuck:
                    break
                if cursor in followed:  # the pages form a cycle (the linter says so): stop here
                    self.events.append(Event(session.link.session, f"{method} gave nextCursor {cursor!r} again; "
                                                                   "stopped following it", fatal=False))
                    break
                followed.add(cursor)
            else:
                self.events.append(Event(session.link.session, f"{method} still had a nextCursor after "
                                                               f"{self.options.page_limit} pages", fatal=False))
            session.listed[method] = items
            if method == "tools/list":
                session.stage = "tools_listed"

    def _fabricated_cursor(self, session: Session) -> None:
        declared = self._declared(session)
        if declared:
            self._request(session, declared[0][0], {"cursor": "mcplint-probe-fabricated-cursor"}, probe="cursor")

    def _undeclared_lists(self, session: Session) -> None:
        for capability, entries in LISTS.items():
            if capability not in session.capabilities:
                self._request(session, entries[0][0], None, probe="undeclared")

    def _error_layers(self, session: Session) -> None:
        caps = session.capabilities
        if "tools" in caps:
            self._request(session, "tools/call", {"name": MISSING, "arguments": {}}, probe="unknown-tool")
        if "prompts" in caps:
            self._request(session, "prompts/get", {"name": MISSING}, probe="unknown-prompt")
            needy = next((p for p in session.listed.get("prompts/list", []) if isinstance(p, dict)
                          and isinstance(p.get("name"), str) and _required_arguments(p)), None)
            if needy is not None:
                self._request(session, "prompts/get", {"name": needy["name"]}, probe="missing-arguments")
        if "resources" in caps:
            self._request(session, "resources/read", {"uri": f"file:///{MISSING}"}, probe="missing-resource")
        self._request(session, "mcplint/probe-unknown-method", None, probe="unknown-method")

    def _tool_calls(self, session: Session) -> None:
        if not self.options.call_tools or "tools" not in session.capabilities:
            return
        tools = [t for t in session.listed.get("tools/list", []) if isinstance(t, dict) and isinstance(t.get("name"), str)
                 and (not self.options.tools or t["name"] in self.options.tools)]
        if not tools or not self.confirm_tools([t["name"] for t in tools]):
            return
        for tool in tools:
            schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
            self._call(session, tool["name"], arguments_for(schema))
            if session.stuck:
                return
            wrong = invalid_arguments(schema)
            if wrong is not None:
                self._call(session, tool["name"], wrong, probe="invalid-arguments")
            if session.stuck:
                return

    def _call(self, session: Session, name: str, arguments: dict, **marks: Any) -> None:
        link = session.link
        rid = link.new_id()
        params = {"name": name, "arguments": arguments, "_meta": {"progressToken": f"mcplint-probe-{rid}"}}
        session.stage = "tool_called"
        limit = self.options.cancel_after
        _, reply = link.request("tools/call", self._params(session, params), limit or self.options.timeout,
                                request_id=rid, **marks)
        if reply.kind == "timeout" and limit is not None:  # a slow tool: cancel it, as a user would
            self._cancel(session, rid, "mcplint probe: --cancel-after")
            self.events.append(Event(link.session, f"tools/call {name} cancelled after {limit:g}s", fatal=False))
            if not session.modern:
                self._alive(session, self.options.timeout)
        elif reply.kind == "timeout":
            self._hang(session, rid, f"tools/call {name}", reply)
        elif reply.kind == "closed":
            session.stuck = True
        else:
            session.stage = "tool_returned"

    def _malformed(self, session: Session) -> None:
        session.link.send({"jsonrpc": "2.0", "id": session.link.new_id(), "params": {}}, probe="no-method")
        self._ping(session)

    def _reused_id(self, session: Session) -> None:
        rid, reply = self._request(session, "ping", None)
        if reply.ok:
            self._request(session, "ping", None, request_id=rid, probe="reused-id")

    def _batch(self, session: Session) -> None:
        if not protocol.at_least(session.version, protocol.V2025_06_18):
            return  # batches are allowed before 2025-06-18: nothing to provoke
        link = session.link
        link.send([{"jsonrpc": "2.0", "id": link.new_id(), "method": "ping"} for _ in range(2)], probe="batch")
        self._ping(session)

    def _discover(self, label: str) -> bool:
        """2026-07-28 ``server/discover`` in a session of its own, then the 2026-07-28 steps if the
        server lists that revision (whether it did is returned)."""
        link = self._link(label)
        session = Session(link, "discover", protocol.V2026_07_28, stage="initialized_sent")
        try:
            link.start()
            _, reply = self._request(session, "server/discover", None)
        except StartError as exc:
            self.events.append(Event(label, str(exc)))
            return False
        result = reply.value if reply.ok and isinstance(reply.value, dict) else {}
        versions = result.get("supportedVersions")
        if isinstance(versions, list) and protocol.V2026_07_28 in versions:
            caps = result.get("capabilities")
            session.capabilities = caps if isinstance(caps, dict) else {}
            link.negotiated(protocol.V2026_07_28)
            self._steps(session, [self._discovery, self._fabricated_cursor, self._undeclared_lists,
                                  self._error_layers, self._tool_calls])
            return True
        self._close(session)
        return False


def _required_arguments(prompt: dict) -> bool:
    arguments = prompt.get("arguments")
    return isinstance(arguments, list) and any(isinstance(a, dict) and a.get("required") is True for a in arguments)


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return f"{error.get('code')} {error.get('message')}"
    return repr(error)


# -- a whole run -------------------------------------------------------------------------------------
#: Server findings that are the right reaction to a deliberate step (by its ``probe`` mark): a server
#: answering an unknown revision with one it supports is what the negotiation asks (LC011 notes any
#: answer other than the requested revision); one that refuses a batch as a whole (an error with id
#: null, as revisions without batches expect) answers none of its requests (HX001).
EXPECTED_REACTIONS = {"future-version": frozenset({"LC011"}), "batch": frozenset({"HX001"})}


@dataclass
class Provocations:
    """Where the probe's deliberate violations are in the capture: lines, and (session, id) of requests."""

    lines: dict[int, str] = field(default_factory=dict)
    requests: dict[tuple[str | None, Any], str] = field(default_factory=dict)


@dataclass
class ProbeRun:
    """The recorded capture of a probe and what the probe observed."""

    path: str
    events: list[Event]
    sessions: list[str]
    provocations: Provocations

    @property
    def failed(self) -> bool:
        return any(e.fatal for e in self.events)


def _connector(target: list[str] | str, recorder: Recorder, options: ProbeOptions) -> Callable[[str], Link]:
    entries = itertools.count(1)  # one capture: HTTP exchanges numbered across the sessions

    def connect(label: str) -> Link:
        if isinstance(target, str):
            from mcplint.commands.probe.http import HttpLink

            return HttpLink(target, recorder, label, options.insecure, entries)
        return StdioLink(target, recorder, label, options.grace, options.env)
    return connect


def run_probe(target: list[str] | str, path: str, options: ProbeOptions,
              confirm_tools: Callable[[list[str]], bool] = lambda names: True) -> ProbeRun:
    """Probe a server, recording to ``path`` (canonical capture): ``target`` is the command of a
    stdio server, or the URL of a Streamable HTTP one."""
    with open(path, "wb") as out:
        recorder = Recorder(out)
        probe = Probe(_connector(target, recorder, options), recorder, options, confirm_tools)
        try:
            probe.run()
        except BaseException:
            probe.abort()
            raise
        finally:
            recorder.close()
    if recorder.error:
        raise OSError(f"could not write {path}: {recorder.error}")
    events = sorted(probe.events, key=lambda e: probe.steps.index(e.session) if e.session in probe.steps else 0)
    return ProbeRun(path, events, probe.steps, provocations(path))


def provocations(path: str) -> Provocations:
    """The records the probe marked as its own deliberate violations (a ``probe`` member)."""
    import orjson

    found = Provocations()
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if b'"probe":' not in line:
                continue
            try:
                record = orjson.loads(line)
                message = orjson.loads(record["raw"])
            except (orjson.JSONDecodeError, KeyError, TypeError):
                continue
            found.lines[number] = record["probe"]
            for item in message if isinstance(message, list) else [message]:
                if isinstance(item, dict) and "id" in item:
                    found.requests[(record.get("session"), item["id"])] = record["probe"]
    return found


def provoked(findings: list, run: ProbeRun) -> tuple[list, int]:
    """Findings without those the probe's deliberate violations provoke by design: the client's
    side of them, and the expected reactions of the server; and how many were left out."""
    marks = run.provocations

    def deliberate(f) -> bool:
        if f.party == "client" and f.line in marks.lines:
            return True
        mark = marks.requests.get((f.session, f.id))
        return mark is not None and f.code in EXPECTED_REACTIONS.get(mark, ())

    kept = [f for f in findings if not deliberate(f)]
    return kept, len(findings) - len(kept)


def github_notes(events: list[Event], out) -> None:
    """The probe's own observations as GitHub workflow commands (a hang fails the job: an error)."""
    from mcplint.untrusted import github_data, github_property

    title = github_property("mcplint probe")
    for event in events:
        out.write(f"::{'error' if event.fatal else 'notice'} title={title}::{github_data(event.line())}\n")

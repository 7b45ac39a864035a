"""One server process that ``mcplint probe`` talks to over stdio, every line recorded.

The server is started as ``mcplint capture`` starts it, and its stdout and stderr go through
the same pumps into the same :class:`~mcplint.commands.capture.stdio.Recorder`; what the probe writes is
recorded before it is written. Every record carries the probe session's label (``session``).
Answers are matched to requests by id; a request from the server is answered as a client that
declared no capabilities answers it (``ping`` with an empty result, anything else -32601).
Shutdown follows the stdio transport: stdin closed, grace, SIGTERM, grace, SIGKILL.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import orjson

from mcplint import __version__
from mcplint.commands.capture.stdio import Recorder, _reader, pump, record_exit, stop_server
from mcplint.excerpt import mask_text, shorten


@dataclass
class Reply:
    """What became of a request: ``result``, ``error``, ``timeout`` or ``closed`` (the server
    ended or closed stdout before answering)."""

    kind: str
    value: Any = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.kind == "result"


class StartError(Exception):
    """The server could not be started at all."""


class StdioLink:
    """A server child process, driven line by line; one link is one probe session."""

    def __init__(self, command: list[str], recorder: Recorder, session: str, grace: float,
                 env: dict[str, str] | None = None):
        self.command = command
        self.recorder = recorder
        self.session = session
        self.grace = grace
        self.env = env
        self.extra = {"session": session}
        self.ended: str | None = None  # how the server ended, once it has
        self._replies: dict[Any, dict] = {}
        self._cond = threading.Condition()
        self._write = threading.Lock()
        self._eof = False
        self._next_id = 0
        self._proc: subprocess.Popen | None = None
        self._threads: list[threading.Thread] = []
        self.last_stderr: deque[str] = deque(maxlen=2)  # masked: what a crash report may quote

    # -- life ------------------------------------------------------------------------------------
    def start(self) -> None:
        try:
            self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, bufsize=0, env=self.env, start_new_session=True)
        except OSError as exc:
            message = f"could not start {self.command[0]!r}: {exc.strerror or exc}"
            self.recorder.meta("error", message, command=self.command, session=self.session)
            raise StartError(message) from exc
        self.recorder.meta("start", f"mcplint {__version__} probe started {' '.join(self.command)} "
                           f"(pid {self._proc.pid})", command=self.command, pid=self._proc.pid,
                           mcplint=__version__, session=self.session)
        proc = self._proc
        self._threads = [
            threading.Thread(target=self._stdout, args=(proc,), daemon=True, name="mcplint-probe-stdout"),
            threading.Thread(target=pump, args=(_reader(proc.stderr.fileno()), "stderr", self.recorder, None,
                                                self.extra, self._stderr), daemon=True, name="mcplint-probe-stderr"),
        ]
        for thread in self._threads:
            thread.start()

    def negotiated(self, version: str) -> None:
        """The revision the handshake settled on (stdio sends it nowhere)."""

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and not self._eof

    def close(self) -> str:
        """End the session (stdin closed, then the signals) and record how the server ended."""
        proc = self._proc
        if proc is None or self.ended is not None:
            return self.ended or ""
        if self._eof:  # it closed stdout first: it is exiting (or hung without stdout) on its own
            try:
                proc.wait(self.grace)
            except subprocess.TimeoutExpired:
                pass
        how = "on its own while stdin was open" if proc.poll() is not None else "after stdin closed"
        if proc.poll() is None:
            self.recorder.meta("stdin-closed", "the probe closed stdin; closing the server's stdin",
                               by="client", session=self.session)
        try:
            proc.stdin.close()
        except OSError:
            pass
        steps = stop_server(proc, self.grace)
        for thread in self._threads:
            thread.join(self.grace)
        _kill_group(proc)  # a child the server left behind would hold the pipes open
        self.ended = record_exit(self.recorder, proc.returncode, how, steps, session=self.session)
        return self.ended

    def abort(self) -> None:
        """Kill the server (and what it started) now: the probe was interrupted."""
        if self._proc is not None:
            _kill_group(self._proc)

    # -- traffic ---------------------------------------------------------------------------------
    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def send(self, message: Any, **marks: Any) -> bool:
        """Record and write one message (a dict, a list for a batch, or raw bytes); ``marks`` are
        extra record members (``probe`` names a deliberate protocol violation of the probe)."""
        line = message if isinstance(message, bytes) else orjson.dumps(message)
        with self._write:
            self.recorder.record("c2s", line, {**self.extra, **marks})
            if self._proc is None:
                return False
            try:
                os.write(self._proc.stdin.fileno(), line + b"\n")  # lines are small: one write
            except (OSError, ValueError):
                return False
        return True

    def notify(self, method: str, params: dict | None = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def request(self, method: str, params: dict | None, timeout: float, *, request_id: Any = None,
                **marks: Any) -> tuple[Any, Reply]:
        """Send a request and wait for its answer; returns (its id, the reply)."""
        rid = self.new_id() if request_id is None else request_id
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        started = time.monotonic()
        if not self.send(message, **marks):
            return rid, Reply("closed")
        return rid, self.wait(rid, timeout, started)

    def wait(self, rid: Any, timeout: float, started: float | None = None) -> Reply:
        started = time.monotonic() if started is None else started
        deadline = started + timeout
        with self._cond:
            while True:
                answer = self._replies.pop(_key(rid), None)
                if answer is not None:
                    kind = "error" if "error" in answer else "result"
                    return Reply(kind, answer.get(kind), time.monotonic() - started)
                if self._eof:
                    return Reply("closed", None, time.monotonic() - started)
                left = deadline - time.monotonic()
                if left <= 0:
                    return Reply("timeout", None, timeout)
                self._cond.wait(min(left, 0.1))

    # -- the server's side -------------------------------------------------------------------------
    def _stdout(self, proc: subprocess.Popen) -> None:
        pump(_reader(proc.stdout.fileno()), "s2c", self.recorder, None, self.extra, self._observe)
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def _stderr(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").strip()
        if text:
            self.last_stderr.append(shorten(mask_text(text), 200))

    def _observe(self, raw: bytes) -> None:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return  # not a message: the linter reports it (IO001)
        for message in value if isinstance(value, list) else [value]:
            if not isinstance(message, dict):
                continue
            if "method" in message:
                if "id" in message:
                    self._answer(message)
                continue
            if "id" in message and ("result" in message or "error" in message):
                with self._cond:
                    self._replies[_key(message["id"])] = message
                    self._cond.notify_all()

    def _answer(self, request: dict) -> None:
        """A request from the server: the probe declared no client capabilities."""
        if request.get("method") == "ping":
            self.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
        else:
            self.send({"jsonrpc": "2.0", "id": request["id"],
                       "error": {"code": -32601, "message": "Method not found"}})


def _key(rid: Any) -> Any:
    """Ids compare by type as well as value (1 and "1" are different requests)."""
    return (type(rid).__name__, rid)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, 9)
    except OSError:
        pass

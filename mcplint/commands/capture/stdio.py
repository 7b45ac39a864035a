"""``mcplint capture``: a transparent stdio proxy that records MCP traffic.

The host launches ``mcplint capture -o FILE -- COMMAND ARGS...`` where it would launch the
server. Every line passes through unchanged, in both directions, and is recorded in the
canonical capture format (``{"ts", "dir", "raw"}``) before it is forwarded: a record is
queued, with its timestamp, before the bytes are written to the other side, and one writer
thread drains the queue into the file. So the file's order is the order in which the proxy
saw the lines, and a response can never precede its request. The server's stderr is passed
through and recorded as ``stderr`` records.

One thread per stream (host→server, server→host, server stderr), so a server that floods
stderr or writes a message of many megabytes never blocks the other direction. Shutdown
follows the stdio transport of the spec: when the host closes our stdin, the server's stdin
is closed; if the server has not exited after a grace period it gets SIGTERM, then SIGKILL.
SIGINT, SIGTERM and SIGHUP sent to the proxy are forwarded to the server. The proxy exits
with the server's status (128+N when the server died of signal N). ``--lint`` lints the
capture in a child process as it is written and prints findings to stderr.

The proxy's own notes are ``meta`` records (``event``, ``raw`` text; read back as comments, never
as traffic), in the same queue as the traffic: ``start`` (command, pid), ``stdin-closed`` (the
host closed the server's stdin: the client ended the session; ``by: "client"``; what the server
sends after it answers a closed connection), ``exit`` (how the server ended: status, signal,
shutdown steps; the last record) and ``error`` (the server could not be started, or a record
could not be encoded).

POSIX only (signals and process groups).
"""

from __future__ import annotations

import io
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import orjson

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

from mcplint import __version__
from mcplint.excerpt import mask_text, mask_value
from mcplint.untrusted import shown, shown_lines

DEFAULT_GRACE = 2.0
#: Signals that mean "stop": forwarded to the server, then the shutdown escalates.
FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
_READ_BUFFER = 1 << 20
_PIPE_SIZE = 1 << 20
_POLL = 0.05

Redactor = Callable[[str, str], str]


# -- record encoding ---------------------------------------------------------------------------
_ts_cache: list[Any] = [None, ""]


def format_ts(t: float) -> str:
    """ISO-8601 UTC with milliseconds and ``Z``: ``2026-11-30T10:15:02.123Z``."""
    sec, ms = divmod(round(t * 1000), 1000)
    if _ts_cache[0] != sec:
        _ts_cache[0], _ts_cache[1] = sec, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec))
    return f"{_ts_cache[1]}.{ms:03d}Z"


def encode_record(ts: str, direction: str, raw: bytes | memoryview, redact: Redactor | None = None,
                  extra: dict[str, Any] | None = None) -> bytes:
    """One capture line (with newline) for ``raw``, the exact bytes of a line without its newline;
    ``extra`` adds members after ``raw`` (``session``, ``transport``, ``http`` of an HTTP capture).

    Valid UTF-8 is stored as a JSON string. A line that is not valid UTF-8 keeps its invalid
    bytes verbatim inside the JSON string (decoded with ``surrogateescape`` and re-encoded), so
    the capture line itself is not valid UTF-8 either and the reader flags exactly that record
    (IO005) instead of silently showing replacement characters.
    """
    try:
        text = str(raw, "utf-8")
    except UnicodeDecodeError:
        text = str(raw, "utf-8", "surrogateescape")
        if redact is not None:
            text = redact(text, direction)
        body = json.dumps({"ts": ts, "dir": direction, "raw": text, **_redacted(extra, redact, direction)},
                          ensure_ascii=False, separators=(",", ":"))
        return body.encode("utf-8", "surrogateescape") + b"\n"
    if redact is not None:
        text = redact(text, direction)
    if extra:
        return orjson.dumps({"ts": ts, "dir": direction, "raw": text, **_redacted(extra, redact, direction)}) + b"\n"
    return orjson.dumps({"ts": ts, "dir": direction, "raw": text}) + b"\n"


def _redacted(extra: dict[str, Any] | None, redact: Redactor | None, direction: str) -> dict[str, Any]:
    """``extra`` with the URL of its ``http`` facts redacted (a token may ride in a query)."""
    if not extra:
        return {}
    http = extra.get("http")
    if redact is None or not isinstance(http, dict) or not isinstance(http.get("url"), str):
        return extra
    return {**extra, "http": {**http, "url": redact(http["url"], direction)}}


def encode_meta(ts: str, event: str, text: str, **fields: Any) -> bytes:
    """A ``meta`` record: the recorder's own note (start, end of the server), not traffic."""
    return orjson.dumps({"ts": ts, "dir": "meta", "event": event, "raw": text, **fields}) + b"\n"


# -- redaction (swappable: the full engine lives in mcplint.redact when present) ------------------
def mask_line(text: str, direction: str) -> str:
    """Mask secrets in one recorded line; returns ``text`` itself when nothing is masked.

    A JSON line is parsed and masked value by value (sensitive keys, token-shaped strings);
    it is re-serialized only when something changed, so clean lines stay byte-exact. Other
    lines (stderr, banners, invalid JSON) get the free-text masks.
    """
    if direction != "stderr":
        try:
            value = orjson.loads(text)
        except (orjson.JSONDecodeError, TypeError):
            value = None
        else:
            masked = mask_value(value)
            return text if masked == value else orjson.dumps(masked).decode()
    return mask_text(text)


_SURROGATES = {0xDC80 + b: 0xF0000 + b for b in range(128)}  # undecodable bytes <-> private-use
_UNSURROGATES = {v: k for k, v in _SURROGATES.items()}


def redactor() -> Redactor:
    """The redaction applied by ``--redact`` to what is written (never to what is relayed).

    The redaction engine of ``mcplint redact`` (one engine per recording, so a secret gets the
    same tag on every line); :func:`mask_line` where that engine is not available. Undecodable
    bytes of a line survive redaction, so the capture still shows that the line was not UTF-8.
    """
    try:
        from mcplint.redact import line_redactor
    except ImportError:  # pragma: no cover - the engine ships with mcplint
        return mask_line
    engine = line_redactor()

    def redact(text: str, direction: str) -> str:
        if text.isascii() or not any(0xDC80 <= ord(c) <= 0xDCFF for c in text):
            return engine(text, direction)
        return engine(text.translate(_SURROGATES), direction).translate(_UNSURROGATES)

    return redact


# -- live linting ------------------------------------------------------------------------------
def lint_findings(lines: Iterator[tuple[bytes, bool]], path: str) -> Iterator[str]:
    """Lint capture lines as they come; one printable line per finding, as soon as it is found."""
    from mcplint.analysis.engine import Engine
    from mcplint.input.parse import Parser
    from mcplint.input.readers import read_capture

    records = Parser(path).records(read_capture(lines))
    for f in Engine().lint_records(records, path):
        yield f"mcplint: {shown(path)}:{f.line}: {f.code} [{f.severity.value}] {shown(f.message)}\n"


def lint_stdin(path: str) -> None:
    """The live linter's process: capture lines on stdin, findings on stdout, as they happen."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the proxy decides when linting ends (stdin EOF)
    from mcplint.input.lines import iter_lines

    out = sys.stdout
    try:
        for text in lint_findings(iter_lines(sys.stdin.buffer), path):
            out.write(text)
            out.flush()
    except BrokenPipeError:
        pass
    except Exception as exc:  # say so once; the capture itself is unaffected
        out.write(f"mcplint: --lint stopped after an internal error: {type(exc).__name__}: "
                  f"{shown(mask_text(str(exc)))}\n")
        out.flush()


class LiveLinter:
    """Lints the capture as it is written and prints findings to stderr as they happen.

    The linter runs in a child process fed with the exact bytes of the capture file (so line
    numbers match the file), through a feeder thread: parsing a message of many megabytes never
    holds the proxy's GIL, and a failure of the linter stops the linting, never the proxy.
    """

    def __init__(self, path: str, stderr_fd: int = 2):
        self.path = path
        self.stderr_fd = stderr_fd
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._proc: subprocess.Popen | None = None
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", "import sys; from mcplint.commands.capture.stdio import lint_stdin; lint_stdin(sys.argv[1])",
                 path], stdin=subprocess.PIPE, stdout=stderr_fd, stderr=stderr_fd, bufsize=0)
        except OSError as exc:
            _say(stderr_fd, f"mcplint: --lint unavailable: {exc}\n")
            return
        self._thread = threading.Thread(target=self._feed, name="mcplint-capture-lint-feeder", daemon=True)
        self._thread.start()

    def feed(self, line: bytes) -> None:
        if self._proc is not None:
            self._queue.put(line)

    def close(self, timeout: float = 10.0, stop: Callable[[], bool] = lambda: False) -> None:
        """Let the linter finish the capture. One still busy after ``timeout``, or when ``stop()``
        turns true (the host signalled us), is stopped: ``mcplint check`` on the file gives the rest."""
        if self._proc is None:
            return
        self._queue.put(None)
        deadline = time.monotonic() + timeout
        while self._proc.poll() is None and time.monotonic() < deadline and not stop():
            time.sleep(0.02)
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
            _say(self.stderr_fd, f"mcplint: --lint stopped before the end; run: mcplint check {self.path}\n")

    def _feed(self) -> None:
        fd = self._proc.stdin.fileno()
        try:
            for line in iter(self._queue.get, None):
                _write_all(fd, line)
        except OSError:  # the linter died: drop the rest
            pass
        finally:
            try:
                self._proc.stdin.close()
            except OSError:
                pass


# -- the recorder --------------------------------------------------------------------------------
class Recorder:
    """Orders records (one queue) and writes them from one thread; feeds the live linter."""

    def __init__(self, out: IO[bytes], redact: Redactor | None = None, linter: LiveLinter | None = None):
        self.out = out
        self.redact = redact
        self.linter = linter
        self.records = 0
        self.error: str | None = None
        self._queue: queue.SimpleQueue[tuple | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="mcplint-capture-writer", daemon=True)
        self._thread.start()

    def record(self, direction: str, raw: bytes, extra: dict[str, Any] | None = None) -> None:
        """Queue one line (called by the pumps *before* they forward it)."""
        self._queue.put((time.time(), direction, raw, extra))

    def meta(self, event: str, text: str, **fields: Any) -> None:
        self._queue.put((time.time(), "meta", (event, text, fields), None))

    def close(self, stop: Callable[[], bool] = lambda: False) -> None:
        self._queue.put(None)
        self._thread.join()
        if self.linter is not None:
            self.linter.close(stop=stop)

    def _encode(self, item: tuple) -> bytes:
        t, direction, payload, extra = item
        ts = format_ts(t)
        if direction == "meta":
            event, text, fields = payload
            if self.redact is not None and fields.get("http"):  # an HTTP exchange's note: path, headers, bodies
                line = encode_meta(ts, event, self.redact(text, "meta"), **fields)
                return self.redact(line[:-1].decode("utf-8", "surrogateescape"), "meta").encode(
                    "utf-8", "surrogateescape") + b"\n"
            return encode_meta(ts, event, text, **fields)
        return encode_record(ts, direction, payload, self.redact, extra)

    def _run(self) -> None:
        get, write, flush = self._queue.get, self.out.write, self.out.flush
        linter = self.linter
        empty = self._queue.empty
        while True:
            item = get()
            if item is None:
                break
            try:
                line = self._encode(item)
            except Exception as exc:  # keep every line accounted for, even if encoding failed
                line = encode_meta(format_ts(item[0]), "error", f"record could not be encoded: {exc}")
            if self.error is None:
                try:
                    write(line)
                    if empty():  # flush at the end of every burst: the file stays current
                        flush()
                except OSError as exc:
                    self.error = str(exc)
            self.records += 1
            if linter is not None:
                linter.feed(line)
        try:
            self.out.flush()
        except OSError as exc:
            self.error = self.error or str(exc)


# -- pumps ---------------------------------------------------------------------------------------
def _say(fd: int, text: str) -> None:
    try:
        _write_all(fd, shown_lines(text).encode("utf-8", "replace"))
    except OSError:
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _reader(fd: int) -> io.BufferedReader:
    return io.BufferedReader(io.FileIO(fd, "rb", closefd=False), _READ_BUFFER)


def _widen_pipe(fd: int) -> None:
    """Grow a pipe to 1 MiB (Linux): large messages cross it in fewer reads and GIL hand-offs."""
    setsize = getattr(fcntl, "F_SETPIPE_SZ", 1031) if fcntl is not None else None
    if setsize is None or not sys.platform.startswith("linux"):
        return
    try:
        fcntl.fcntl(fd, setsize, _PIPE_SIZE)
    except OSError:  # not a pipe, or above /proc/sys/fs/pipe-max-size
        pass


def pump(source: io.BufferedReader, direction: str, recorder: Recorder, dest_fd: int | None,
         extra: dict[str, Any] | None = None, observe: Callable[[bytes], None] | None = None) -> None:
    """Copy ``source`` to ``dest_fd`` line by line, recording each line (with ``extra`` members)
    before forwarding it; ``observe`` gets each recorded line (``mcplint probe`` reads the answers)."""
    readline = source.readline
    record = recorder.record
    while True:
        try:
            line = readline()
        except (OSError, ValueError):
            return
        if not line:
            return
        raw = memoryview(line)[:-1] if line[-1:] == b"\n" else line  # no copy of big lines
        record(direction, raw, extra)
        if observe is not None:
            observe(bytes(raw))
        if dest_fd is not None:
            try:
                _write_all(dest_fd, line)
            except OSError:
                dest_fd = None  # the reader is gone: keep recording, stop relaying


# -- the proxy -----------------------------------------------------------------------------------
def default_output(directory: str | None = None) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return os.path.join(directory or os.getcwd(), f"mcplint-capture-{stamp}-{os.getpid()}.mcplog")


def open_output(path: str | None, announce: Callable[[str], None]) -> tuple[IO[bytes], str]:
    """Open the capture file: ``path``, a new file in ``path`` when it is a directory, or a
    timestamped file in the working directory (the temporary directory if that is not writable)."""
    if path and path.endswith(("/", os.sep)):
        os.makedirs(path, exist_ok=True)  # a directory the host config names: create it
    if path and not os.path.isdir(path):
        return open(path, "wb"), path
    candidate = default_output(path)
    try:
        handle = open(candidate, "wb")
    except OSError:
        if path:
            raise
        candidate = default_output(tempfile.gettempdir())
        handle = open(candidate, "wb")
    announce(f"mcplint capture: recording to {candidate}\n")
    return handle, candidate


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def exit_status(returncode: int) -> int:
    """The proxy's own exit status for the server's ``returncode`` (shell convention)."""
    return 128 - returncode if returncode < 0 else returncode


def record_exit(recorder: Recorder, returncode: int, how: str, steps: list[str], **fields: Any) -> str:
    """Record how the server ended (the ``exit`` meta record, the last of its run); returns the text."""
    ended = f"exited with status {returncode}" if returncode >= 0 else f"was killed by {_signal_name(-returncode)}"
    text = f"server {ended} {how}" + (f" ({'; '.join(steps)})" if steps else "")
    recorder.meta("exit", text, status=returncode if returncode >= 0 else None,
                  signal=_signal_name(-returncode) if returncode < 0 else None, steps=steps, **fields)
    return text


def stop_server(proc: subprocess.Popen, grace: float) -> list[str]:
    """End a server whose stdin the client has just closed, as the stdio transport says: wait
    ``grace``, then SIGTERM, ``grace`` again, then SIGKILL. Returns the steps taken."""
    steps: list[str] = []
    for number in (signal.SIGTERM, signal.SIGKILL):
        try:
            proc.wait(grace)
            break
        except subprocess.TimeoutExpired:
            try:
                proc.send_signal(number)
            except OSError:
                break
            steps.append(f"no exit within {grace:g}s, sent {_signal_name(number)}")
    proc.wait()
    return steps


class Capture:
    """Run ``command`` behind the proxy; ``run()`` returns the exit status to use."""

    def __init__(self, command: Sequence[str], out: IO[bytes], path: str, *, redact: bool = False,
                 lint: bool = False, grace: float = DEFAULT_GRACE,
                 stdin_fd: int = 0, stdout_fd: int = 1, stderr_fd: int = 2):
        self.command = list(command)
        self.path = path
        self.grace = grace
        self.stdin_fd, self.stdout_fd, self.stderr_fd = stdin_fd, stdout_fd, stderr_fd
        linter = LiveLinter(path, stderr_fd) if lint else None
        self.recorder = Recorder(out, redactor() if redact else None, linter)
        self._redact = redact
        self._wake = threading.Event()
        self._stdin_closed_at: float | None = None
        self._exited_at: float | None = None
        self._signals: list[int] = []
        self.steps: list[str] = []

    def _say(self, text: str) -> None:
        _say(self.stderr_fd, text)

    # -- threads -------------------------------------------------------------------------------
    def _host_to_server(self, proc: subprocess.Popen) -> None:
        pump(_reader(self.stdin_fd), "c2s", self.recorder, proc.stdin.fileno())
        # queued before the server can see the end of its stdin: what it sends next comes after
        self.recorder.meta("stdin-closed", "the host closed stdin; closing the server's stdin", by="client")
        self._stdin_closed_at = time.monotonic()
        try:
            proc.stdin.close()
        except OSError:
            pass
        self._wake.set()

    def _server_to_host(self, proc: subprocess.Popen) -> None:
        pump(_reader(proc.stdout.fileno()), "s2c", self.recorder, self.stdout_fd)
        # the server closed its stdout: let the host see end-of-file too (dup2 keeps fd 1 taken)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stdout_fd)
            os.close(devnull)
        except OSError:
            pass

    def _stderr(self, proc: subprocess.Popen) -> None:
        pump(_reader(proc.stderr.fileno()), "stderr", self.recorder, self.stderr_fd)

    def _waiter(self, proc: subprocess.Popen) -> None:
        proc.wait()
        self._exited_at = time.monotonic()
        self._wake.set()

    def _on_signal(self, number: int, _frame: Any) -> None:
        self._signals.append(number)  # no locks in a handler: the supervisor loop acts on it

    # -- main ----------------------------------------------------------------------------------
    def run(self) -> int:
        command = [mask_text(arg) for arg in self.command] if self._redact else self.command
        try:
            proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, bufsize=0)
        except OSError as exc:
            message = f"could not start {command[0]!r}: {exc.strerror or exc}"
            self.recorder.meta("error", message, command=command)
            self.recorder.close()
            self._say(f"mcplint capture: {message}\n")
            return 127 if isinstance(exc, FileNotFoundError) else 126
        self.recorder.meta("start", f"mcplint {__version__} capture started {' '.join(command)} (pid {proc.pid})",
                           command=command, pid=proc.pid, mcplint=__version__)
        previous = {}
        for name in FORWARDED_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None:
                try:
                    previous[number] = signal.signal(number, self._on_signal)
                except (ValueError, OSError):  # not the main thread: no forwarding
                    pass
        for fd in (self.stdin_fd, self.stdout_fd, proc.stdin.fileno(), proc.stdout.fileno(), proc.stderr.fileno()):
            _widen_pipe(fd)
        threads = [threading.Thread(target=fn, args=(proc,), name=f"mcplint-capture-{fn.__name__}", daemon=True)
                   for fn in (self._host_to_server, self._server_to_host, self._stderr, self._waiter)]
        for thread in threads:
            thread.start()
        try:
            how = self._supervise(proc)
            # let the pumps record the server's last lines before the final record
            for thread in threads[1:3]:
                thread.join(self.grace)
            returncode = proc.returncode
            record_exit(self.recorder, returncode, how, self.steps)
            # a late signal from the host must not cut the file short; it does cut --lint short
            self.recorder.close(stop=lambda: bool(self._signals))
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        if self.recorder.error:
            self._say(f"mcplint capture: could not write {self.path}: {self.recorder.error}\n")
        return exit_status(returncode)

    def _supervise(self, proc: subprocess.Popen) -> str:
        """Wait for the server to end, escalating after stdin EOF or a signal; say why it ended."""
        step = 0  # 0 running, 1 asked to stop (stdin closed / signal), 2 SIGTERM sent, 3 SIGKILL sent
        deadline = None
        reason = "on its own while stdin was open"
        while proc.returncode is None:
            self._wake.wait(_POLL)
            self._wake.clear()
            if proc.returncode is not None:
                break
            now = time.monotonic()
            while self._signals:
                number = self._signals.pop(0)
                name = _signal_name(number)
                self._send(proc, number, f"forwarded {name}")
                if step == 0:
                    reason = f"after mcplint capture received {name}"
                if number == signal.SIGTERM:
                    step, deadline = max(step, 2), now + self.grace
                elif step < 1:
                    step, deadline = 1, now + self.grace
            if step == 0 and self._stdin_closed_at is not None:
                step, deadline = 1, self._stdin_closed_at + self.grace
                reason = "after stdin closed"
            if deadline is not None and now >= deadline:
                if step == 1:
                    self._send(proc, signal.SIGTERM, f"no exit within {self.grace:g}s, sent SIGTERM")
                    step, deadline = 2, now + self.grace
                elif step == 2:
                    self._send(proc, signal.SIGKILL, f"no exit within {self.grace:g}s, sent SIGKILL")
                    step, deadline = 3, None
        if step == 0 and self._stdin_closed_at is not None and (
                self._exited_at is None or self._stdin_closed_at <= self._exited_at):
            reason = "after stdin closed"  # it exited before the loop noticed the end of stdin
        return reason

    def _send(self, proc: subprocess.Popen, number: int, step: str) -> None:
        try:
            proc.send_signal(number)
        except OSError:
            return
        self.steps.append(step)


def run_capture(command: Sequence[str], output: str | None = None, *, redact: bool = False, lint: bool = False,
                grace: float = DEFAULT_GRACE) -> int:
    """Entry point of ``mcplint capture``: proxy ``command`` on this process's stdio."""
    sys.setswitchinterval(0.0005)  # a pump woken by I/O gets the GIL back quickly (latency)

    def announce(text: str) -> None:
        try:
            _write_all(2, text.encode())
        except OSError:
            pass

    out, path = open_output(output, announce)
    with out:
        return Capture(command, out, path, redact=redact, lint=lint, grace=grace).run()

"""``mcplint diagnose``: where did a session stall, and what to suspect.

Reads a capture the way an expert reads a wire log: which lifecycle stages were reached, the last
one that completed, what should have come next, and the likely culprit with a fix. Also lists
requests still open at the end (with age, who owes whom and progress seen), host timeout
signatures, late responses after cancellation and the probable origin of stdout pollution.

How the server ended counts too: an exit the capture records (``mcplint capture``'s exit ``meta``
record, a host log's exit line: readers hand both over as a comment whose ``msg`` holds the facts,
see :func:`mcplint.input.formats._common.ended`), or stderr ending in a crash report (Python traceback,
Node.js stack, Go panic) with nothing from the server after it. A server that ended while it
owed an answer gets that verdict instead of "never answered"; one the client stopped is said to
have been stopped, not to have crashed.

Places are input lines; on HAR input, where all the messages of an entry share the entry's first
line, they are entries (``place``), and facts about a request are kept per request, never per line.

Memory stays bounded: progress is counted for open requests only, each list of a diagnosis keeps
its first ``MAX_ITEMS`` entries (and counts the rest), and beyond ``MAX_SESSIONS`` sessions only
the ones with something to report are kept (``MAX_KEPT`` in all); the others are counted by outcome.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from dataclasses import dataclass, field, fields, replace
from typing import Any

from mcplint.analysis.analyzer import answered_request
from mcplint.excerpt import mask_field, mask_id, mask_session, mask_text, mask_tree, shorten
from mcplint.input import pollution
from mcplint.input.formats._common import ended_by
from mcplint.model import Direction, Kind, Record, id_key
from mcplint.protocol import LONG_LIVED
from mcplint.rules._base import Tracker

#: Lifecycle stages of a handshake-era session, in order.
STAGES = (
    ("transport", "transport up (something was captured)"),
    ("initialize_sent", "initialize sent"),
    ("initialize_answered", "initialize answered"),
    ("initialized_sent", "notifications/initialized sent"),
    ("tools_listed", "tools listed"),
    ("tool_called", "tool called"),
    ("tool_returned", "tool result returned"),
)

_STAGE_NAMES = frozenset(name for name, _ in STAGES)

#: What to suspect after the last completed stage (the table of the issue, in words).
SUSPECTS = {
    "transport": (
        "The server never got (or never answered) a handshake: only process output was captured.",
        "Check that the server starts at all (the stderr lines below), that it reads newline-delimited "
        "JSON on stdin and writes only JSON-RPC to stdout, and that the host really launched it."),
    "initialize_sent": (
        "initialize was never answered: the server does not support the requested protocol version, "
        "could not parse the request, or crashed handling it.",
        "Look at the server's stderr around the initialize line; make sure it answers every initialize, "
        "with an error naming its supported versions if it cannot accept the requested one."),
    "initialize_answered": (
        "The server answered initialize but the client never sent notifications/initialized: the client "
        "rejected the negotiated version or the server's answer.",
        "Compare the requested and answered protocolVersion; check the client's log for a version or "
        "schema error about the initialize result."),
    "initialized_sent": (
        "The handshake completed but the client never listed tools.",
        "Check that the server declared the tools capability in its initialize result, and the client's "
        "logic that decides whether to list tools."),
    "tools_listed": (
        "Tools were listed but never called.",
        "Check that the host registered the tools (names and inputSchema valid for the host), that all "
        "pages were fetched (nextCursor), and that the model was offered them."),
    "tool_called": (
        "A tool call was never answered.",
        "Look for argument validation that hangs, slow or unreachable external APIs, file permissions, "
        "and a missing timeout in the tool; the server must answer every call (isError results for failures)."),
    "progress_only": (
        "A tool call kept sending progress but never returned a result.",
        "Give long tools a maximum duration, make the host's timeout not rely on progress alone, and stop "
        "the work (and its progress) when notifications/cancelled arrives."),
    "tool_returned": (
        "The session reached tool results; nothing in the lifecycle is stuck.",
        "If something still looks hung, see the open requests and timeouts below."),
}

MAX_MODERN_REQUESTS = 10_000
#: Timeouts, late responses and notes listed per session; further ones are only counted.
MAX_ITEMS = 100
#: Sessions diagnosed in full; beyond this only sessions with something to report are kept, up to
#: MAX_KEPT diagnoses in all, and the others are counted by outcome (``DiagnoseCollector.unlisted``).
MAX_SESSIONS = 200
MAX_KEPT = 1_000
_TIMEOUT_REASON = re.compile(r"(?i)time(d)? ?out|deadline|took too long")

# -- crash reports on stderr ---------------------------------------------------------------------
_PY_TRACEBACK = re.compile(r"^[\s|+]*(?:Exception Group )?Traceback \(most recent call last\):")
_PY_FILE = re.compile(r'^  File "[^"]*", line \d+')  # a SyntaxError of the main script has no header
_PY_CHAINING = ("During handling of the above exception", "The above exception was the direct cause")
_PY_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(?::|$)")
_NODE_ERROR = re.compile(r"^(?:Uncaught )?[\w$.]*(?:Error|Exception)(?: \[[\w-]+\])?: ")
_NODE_FRAME = re.compile(r"^\s+at ")
_GO_PANIC = re.compile(r"^(?:panic|fatal error): ")
#: A fresh log line after a crash report: the process was still alive.
_LOG_LINE = re.compile(r"^\[?(?:\d{4}[-/]\d\d[-/]\d\d|\d\d/\d\d/\d\d|\d\d:\d\d:\d\d)"
                       r"|^\[?(?:INFO|DEBUG|WARN|WARNING|ERROR|CRITICAL|TRACE|FATAL)\b")
_RUNTIME_REPORT = {"Python": "a Python traceback", "Node.js": "a Node.js error", "Go": "a Go panic"}


class CrashWatch:
    """Reads one session's stderr for a crash report at its end: a Python traceback (its last
    exception line), a Node.js error followed by its ``at`` frames, a Go ``panic:`` or ``fatal
    error:``. A later log line, or a message from the server (:meth:`clear`), means the process
    was still alive."""

    __slots__ = ("runtime", "line", "exception", "_error")

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.runtime: str | None = None
        self.line = 0
        self.exception: str | None = None
        self._error: tuple[int, str] | None = None  # a Node.js error line waiting for its first frame

    @property
    def crash(self) -> dict | None:
        """``{"runtime", "line", "exception"}`` when stderr ends in a crash report."""
        if self.runtime is None or self.exception is None:
            return None
        return {"runtime": self.runtime, "line": self.line, "exception": shorten(mask_text(self.exception), 160)}

    def feed(self, line: int, text: str) -> None:
        error, self._error = self._error, None
        if _PY_TRACEBACK.match(text) or (self.runtime != "Python" and _PY_FILE.match(text)):
            self.runtime, self.line, self.exception = "Python", line, None
        elif _GO_PANIC.match(text):
            self.runtime, self.line, self.exception = "Go", line, text.strip()
        elif error is not None and _NODE_FRAME.match(text):
            self.runtime, (self.line, self.exception) = "Node.js", error
        elif self.runtime == "Python":
            self._python(line, text)
        elif self.runtime == "Go":
            if _LOG_LINE.match(text):  # a goroutine dump is free-form: only a log line ends it
                self.clear()
        elif self.runtime == "Node.js" and (not text.strip() or text[0].isspace()
                                            or text.startswith(("Node.js v", "}"))):
            pass  # frames, the error's own properties, the runtime's version line
        elif _NODE_ERROR.match(text):
            self._error = (line, text.strip())
        elif self.runtime is not None:
            self.clear()

    def _python(self, line: int, text: str) -> None:
        body = text
        while True:  # the "|" margins and "+---" separators of an exception group
            stripped = body.lstrip()
            if stripped.startswith("+-"):
                return
            if not stripped.startswith("|"):
                break
            body = stripped[2:] if stripped.startswith("| ") else stripped[1:]
        if not body.strip() or body[0].isspace() or body.startswith(_PY_CHAINING):
            return  # frames and source lines, blank lines, chained exceptions (a new traceback follows)
        if self.exception is None and _PY_EXCEPTION.match(body):
            self.line, self.exception = line, body.strip()
        elif _LOG_LINE.match(body) or self.exception is None:
            self.clear()
        # else: a message spread over several lines (pydantic's ValidationError, ...)


def at(record: Record) -> dict[str, int]:
    """Where ``record`` is, as diagnose items hold it: ``{"line": 12}``, plus ``"entry": 4`` on HAR
    input (all the messages of a HAR entry share its first line)."""
    http = record.http
    entry = http.get("entry") if type(http) is dict else None
    return {"line": record.line} if entry is None else {"line": record.line, "entry": entry}


def place(item: dict, preposition: bool = False) -> str:
    """``line 12`` (``at line 12``), or ``entry 4`` (``in entry 4``) for an item located by :func:`at`."""
    entry = item.get("entry")
    if entry is None:
        return f"at line {item['line']}" if preposition else f"line {item['line']}"
    return f"in entry {entry}" if preposition else f"entry {entry}"


@dataclass
class OpenRequest:
    line: int
    entry: int | None  # the HAR entry, when the input is a HAR
    method: str | None
    id: Any
    owed_by: str  # the side that owes the answer
    age: float | None  # seconds from the request to the end of the capture
    progress: int

    def as_dict(self) -> dict[str, Any]:
        out = vars(self).copy()
        if self.entry is None:
            del out["entry"]
        return out


@dataclass
class Diagnosis:
    """What diagnose found for one session."""

    path: str
    session: str
    era: str | None = None
    version: str | None = None
    stages: dict[str, dict] = field(default_factory=dict)  # stage -> where it was reached (``at``)
    last_stage: str | None = None
    suspect: str | None = None
    fix: str | None = None
    open_requests: list[OpenRequest] = field(default_factory=list)
    timeouts: list[dict] = field(default_factory=list)
    late_responses: list[dict] = field(default_factory=list)
    pollution: list[dict] = field(default_factory=list)
    stderr_tail: list[str] = field(default_factory=list)
    modern_requests: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    exit: dict | None = None  # how the server ended, when the capture tells (see DiagnoseCollector._ending)
    omitted: Counter = field(default_factory=Counter)  # list name -> entries beyond MAX_ITEMS

    def add(self, name: str, item: Any) -> None:
        """Append to the list ``name`` (timeouts, late_responses, notes) up to MAX_ITEMS."""
        items = getattr(self, name)
        if len(items) < MAX_ITEMS:
            items.append(item)
        else:
            self.omitted[name] += 1

    @property
    def healthy(self) -> bool:
        """Tool results reached (2026-07-28: every request answered), nothing open, nothing odd:
        nothing to tell about the session."""
        if self.open_requests or self.timeouts or self.late_responses or self.pollution or self.notes \
                or self.omitted:
            return False
        if self.era == "modern":
            return bool(self.modern_requests) and all(r["outcome"] in ("answered", "cancelled")
                                                      or r["method"] in LONG_LIVED for r in self.modern_requests)
        return self.last_stage == "tool_returned"

    @property
    def stalled(self) -> bool:
        """The session did not get where a host session goes (a tool result; 2026-07-28: every
        request answered), a request was left open or timed out (``diagnose --fail-on-stall``).
        A session of which nothing was captured is no stall."""
        if self.open_requests or self.timeouts:
            return True
        if self.era == "modern":
            return any(r["outcome"] == "pending" for r in self.modern_requests)
        return self.last_stage not in (None, "tool_returned")

    @property
    def outcome(self) -> str:
        """In a few words, for sessions counted but not listed."""
        if self.healthy:
            return "with nothing to report"
        if self.era == "modern":
            return "stateless, with problems"
        return f"stopped after '{dict(STAGES).get(self.last_stage, 'nothing')}'"

    def masked(self) -> Diagnosis:
        """A copy for output: what it holds from the capture (session label, version, methods,
        ids, error texts, stderr lines, reasons...) masked by the output policy (``mcplint.excerpt``);
        the path stays as the user gave it."""
        out = replace(self, **{f.name: mask_tree(getattr(self, f.name)) for f in fields(self)
                               if f.name not in ("path", "session", "open_requests", "omitted")})
        out.session = mask_session(self.session)
        out.open_requests = [replace(o, method=mask_field(o.method), id=mask_id(o.id)) for o in self.open_requests]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "session": self.session, "era": self.era, "version": self.version,
            "stages": [{"stage": s, "reached": s in self.stages, **self.stages.get(s, {"line": None})}
                       for s, _ in STAGES],
            "last_stage": self.last_stage, "suspect": self.suspect, "fix": self.fix,
            "open_requests": [o.as_dict() for o in self.open_requests], "timeouts": self.timeouts,
            "late_responses": self.late_responses, "stdout_pollution": self.pollution,
            "stderr_tail": self.stderr_tail, "modern_requests": self.modern_requests, "notes": self.notes,
            "exit": self.exit,
        }


class DiagnoseCollector(Tracker):
    """Watches a capture and builds one :class:`Diagnosis` per session."""

    kinds = frozenset(Kind)
    methods = None

    def __init__(self) -> None:
        self.diagnoses: dict[tuple[str, str], Diagnosis] = {}
        self.unlisted: Counter = Counter()  # outcome -> sessions beyond MAX_SESSIONS not kept
        self.stalled = 0  # sessions that stalled (Diagnosis.stalled), listed or not
        self.finished = 0
        self._stderr: dict[tuple[str, str], deque] = {}
        self._progress: dict[tuple[str, str], dict] = {}  # request Record -> progress count (open requests)
        self._mismatched: dict[tuple[str, str], set] = {}  # requests answered with an id of the wrong type
        self._last_t: dict[tuple[str, str], float] = {}
        # (direction, id key) of a request -> its modern_requests item; a reused id replaces the
        # earlier request, as in the analyzer's tables
        self._modern: dict[tuple[str, str], dict] = {}
        self._end: dict[tuple[str, str], dict] = {}  # how the server ended, as the capture says
        self._crash: dict[tuple[str, str], CrashWatch] = {}

    def _key(self, session) -> tuple[str, str]:
        return (session.path, session.label)

    def diagnosis(self, session) -> Diagnosis:
        key = self._key(session)
        found = self.diagnoses.get(key)
        if found is None:
            found = self.diagnoses[key] = Diagnosis(session.path, session.label)
            self._stderr[key] = deque(maxlen=8)
            self._progress[key] = {}
            self._crash[key] = CrashWatch()
        return found

    def _reach(self, diagnosis: Diagnosis, stage: str, record: Record) -> None:
        if stage not in diagnosis.stages:
            diagnosis.stages[stage] = at(record)

    def commit(self, record: Record, session) -> None:
        d = self.diagnosis(session)
        key = self._key(session)
        if record.t is not None:
            self._last_t[key] = record.t
        if record.kind is Kind.COMMENT:
            end = _ending(record) if record is not session.client_closed else _client_end(record)
            if end is not None:
                self._ended(key, end)
            self._host_event(d, record)
            return
        self._reach(d, "transport", record)
        if record.kind is Kind.STDERR:
            self._stderr[key].append(f"{record.line}: {shorten(mask_text(record.text), 200)}")
            for text in record.text.split("\n"):  # a host log may keep several lines of stderr in one entry
                self._crash[key].feed(record.line, text)
            return
        if record.kind is Kind.TEXT and record.text.strip() and record.direction is not Direction.C2S:
            self._pollution(d, record)
            return
        if not record.is_message:
            return
        if record.direction is Direction.S2C:  # the server is alive: an earlier end or crash report is stale
            self._end.pop(key, None)
            self._crash[key].clear()
        method = record.effective_method
        kind = record.kind
        if kind is Kind.REQUEST and method == "initialize":
            self._reach(d, "initialize_sent", record)
        elif kind is Kind.RESULT and method == "initialize" and record.answer == "ok":
            self._reach(d, "initialize_answered", record)
        elif kind is Kind.ERROR and method == "initialize":
            d.add("notes", f"{place(at(record))}: initialize was refused: {self._error_text(record)}")
        elif kind is Kind.NOTIFICATION and method == "notifications/initialized":
            self._reach(d, "initialized_sent", record)
        elif record.is_response and method == "tools/list" and record.answer == "ok":
            self._reach(d, "tools_listed", record)
            result = record.msg.get("result") if kind is Kind.RESULT else None
            if isinstance(result, dict) and result.get("nextCursor") is not None:
                d.add("notes", f"{place(at(record))}: tools/list returned a nextCursor; the host must fetch "
                               "the next page or it misses tools")
        elif kind is Kind.REQUEST and method == "tools/call":
            self._reach(d, "tool_called", record)
        elif record.is_response and method == "tools/call" and record.answer == "ok":
            self._reach(d, "tool_returned", record)
        if kind is Kind.NOTIFICATION and method == "notifications/progress" and record.target is not None \
                and record.target.live is not None:
            counts = self._progress[key]
            request = record.target.live.record
            counts[request] = counts.get(request, 0) + 1
        if record.is_response and record.request is not None and record.answer in ("ok", "after-cancel"):
            self._progress[key].pop(record.request, None)  # counted for requests left open only
        if record.answer == "type-mismatch" and record.request is not None:  # "3" for 3 still answers (JR012)
            self._progress[key].pop(record.request, None)
            self._mismatched.setdefault(key, set()).add(record.request)
        if kind is Kind.NOTIFICATION and method == "notifications/cancelled":
            params = record.params if isinstance(record.params, dict) else {}
            if session.modern and record.direction is not None:
                cancelled = self._modern.get(key, {}).get((record.direction, id_key(params.get("requestId"))))
                if cancelled is not None and cancelled["outcome"] == "pending":
                    cancelled["outcome"] = "cancelled"
            reason = str(params.get("reason") or "")
            if _TIMEOUT_REASON.search(reason):
                d.add("timeouts", {**at(record), "signature": f"cancelled with reason {reason!r}"})
            else:
                entry = session.find_request(record.direction, params.get("requestId")) if record.direction else None
                if entry is not None and entry.record.t is not None and record.t is not None:
                    waited = record.t - entry.record.t
                    if any(abs(waited - limit) < 1.5 for limit in (10, 30, 60, 120, 300)):
                        d.add("timeouts", {**at(record), "signature":
                                           f"cancelled after {waited:.1f} s, a typical host timeout"})
        if kind is Kind.ERROR:
            error = record.msg.get("error")
            if isinstance(error, dict) and error.get("code") == -32001:
                d.add("timeouts", {**at(record), "signature": "error -32001 (request timed out)"})
        if record.answer == "after-cancel" and record.is_response:
            d.add("late_responses", {**at(record), "method": method, "id": record.id})
        if session.modern and kind is Kind.REQUEST and len(d.modern_requests) < MAX_MODERN_REQUESTS:
            item = {**at(record), "method": method, "id": record.id,
                    "outcome": "open (stays open by design)" if method in LONG_LIVED else "pending"}
            d.modern_requests.append(item)
            self._modern.setdefault(key, {})[_request_key(record)] = item
        elif session.modern and record.is_response and (request := answered_request(record, session)) is not None:
            item = self._modern.get(key, {}).get(_request_key(request))
            if item is not None:
                item["outcome"] = "error " + self._error_text(record) if kind is Kind.ERROR else "answered"

    @staticmethod
    def _error_text(record: Record) -> str:
        error = record.msg.get("error")
        if isinstance(error, dict):
            return f"{error.get('code')} {shorten(mask_text(str(error.get('message', ''))), 120)}"
        return "malformed error"

    def _host_event(self, d: Diagnosis, record: Record) -> None:
        """What a host log's event tells (a reader's note, Claude Code's log holds events, not
        messages): the ``stages`` it shows were reached, a ``timeout`` it reports, a ``host_note``."""
        msg = record.msg
        if type(msg) is not dict or msg.get("dir") != "meta":
            return
        stages = [s for s in msg.get("stages") or () if s in _STAGE_NAMES]
        if stages:
            self._reach(d, "transport", record)
        for stage in stages:
            self._reach(d, stage, record)
        if msg.get("timeout") is True:
            d.add("timeouts", {**at(record), "signature": shorten(mask_text(str(msg.get("raw", ""))), 160)})
        if isinstance(msg.get("host_note"), str):
            d.add("notes", f"{place(at(record))}: {msg['host_note']}")

    def _pollution(self, d: Diagnosis, record: Record) -> None:
        text = record.text.strip()
        origin, fix = pollution.origin(text)
        if len(d.pollution) < 20:
            d.pollution.append({**at(record), "text": shorten(mask_text(text), 120), "origin": origin,
                                "fix": fix})

    def _ended(self, key: tuple[str, str], end: dict) -> None:
        """Keep the first word on how the server ended (it tells who ended it); later ones add a
        status or signal it lacked."""
        known = self._end.get(key)
        if known is None:
            self._end[key] = end
            return
        for name in ("status", "signal"):
            if known[name] is None and end[name] is not None:
                known[name] = end[name]
                known["event"] = "exit" if known["event"] == "closed" else known["event"]

    def finish(self, session) -> None:
        d = self.diagnosis(session)
        key = self._key(session)
        self._judge(session, d, key)
        self._judge_end(d, key)
        for name, count in d.omitted.items():
            d.notes.append(f"{count} more {name.replace('_', ' ')} not listed")
        for table in (self._stderr, self._progress, self._mismatched, self._last_t, self._modern, self._end,
                      self._crash):
            table.pop(key, None)
        self.finished += 1
        self.stalled += d.stalled
        if self.finished > MAX_SESSIONS and (d.healthy or len(self.diagnoses) > MAX_KEPT):
            del self.diagnoses[key]
            self.unlisted[d.outcome] += 1

    def _judge(self, session, d: Diagnosis, key: tuple[str, str]) -> None:
        d.era = session.era
        d.version = session.version or (f"{session.requested_version} requested" if session.requested_version else None)
        d.stderr_tail = list(self._stderr.get(key, ()))
        end = self._last_t.get(key)
        for entry in session.pending_requests():
            if entry.cancel is not None or entry.record.method in LONG_LIVED \
                    or entry.record in self._mismatched.get(key, ()):  # cancelled, open by design, answered
                continue
            record = entry.record
            age = end - record.t if end is not None and record.t is not None else None
            owed_by = record.direction.other.sender if record.direction else "unknown"
            where = at(record)
            d.open_requests.append(OpenRequest(where["line"], where.get("entry"), record.method, record.id, owed_by,
                                               age, self._progress.get(key, {}).get(record, 0)))
        if session.modern:
            d.last_stage = None
            d.suspect = self._modern_suspect(d)
            return
        reached = [s for s, _ in STAGES if s in d.stages]
        d.last_stage = reached[-1] if reached else None
        if d.last_stage is not None:
            d.suspect, d.fix = SUSPECTS[d.last_stage]
        skipped = [label for stage, label in STAGES[:STAGES.index((d.last_stage, dict(STAGES)[d.last_stage]))]
                   if stage not in d.stages] if d.last_stage else []
        for label in skipped:
            d.add("notes", f"'{label}' never happened although later stages did")
        init = d.stages.get("initialize_sent")
        if d.last_stage == "initialize_sent" and init is not None and any(
                int(line.split(":", 1)[0]) > init["line"] for line in d.stderr_tail):
            d.suspect = ("initialize was never answered while the server kept writing to stderr: it was still "
                         "busy (slow start-up work before answering?) or stuck.")
            d.fix = ("Answer initialize first and do slow start-up work (downloads, indexing) afterwards or in "
                     "the background; hosts time out after 30-60 s.")
        if d.last_stage == "initialized_sent" and isinstance(session.server_caps, dict) and not _declares_tools(session):
            d.suspect = "The handshake completed but the server did not declare the tools capability."
            d.fix = "Declare \"tools\": {} in the initialize result if the server has tools."
        listing = [o for o in d.open_requests if o.method == "tools/list"] if d.last_stage == "initialized_sent" else []
        if (d.last_stage == "tool_returned" and d.open_requests) or listing:  # a request left open is the stall
            first = (listing or d.open_requests)[0]
            d.suspect = (f"{first.method} ({place(vars(first))}) was never answered; the {first.owed_by} owes "
                         "the answer.")
            d.fix = SUSPECTS["tool_called"][1] if first.method == "tools/call" else (
                "Make sure every request is answered (an error is an answer) and that the waiting side times "
                "out and sends notifications/cancelled.")
        if d.pollution and d.last_stage != "tool_returned" and not d.open_requests:
            first = d.pollution[0]
            d.suspect = (f"The server wrote text that is not JSON to stdout ({place(first)}: {first['origin']}); the "
                         "host cannot parse it and may drop the connection.")
            d.fix = first["fix"]
        unfinished = [entry for entry in session.pending[Direction.C2S].values()
                      if entry.record.method == "tools/call"]
        progressing = [e for e in unfinished if self._progress.get(key, {}).get(e.record)]
        if d.last_stage in ("tool_called", "tool_returned") and progressing:
            entry = progressing[-1]
            count = self._progress[key][entry.record]
            d.suspect, d.fix = SUSPECTS["progress_only"]
            d.suspect += (f" (tools/call {place(at(entry.record), True)}: {count} progress notification(s)"
                          + (", then cancelled" if entry.cancel is not None else "") + ")")

    def _judge_end(self, d: Diagnosis, key: tuple[str, str]) -> None:
        """How the server ended, and the verdict when that explains the stall: it ended while it owed
        an answer (every stage), or before the session could go on; the client ending the session
        is a stall, not a crash; a crash with nothing left to answer is a note."""
        end, watch = self._end.get(key), self._crash.get(key)
        crash = watch.crash if watch is not None else None
        if end is None and crash is None:
            return
        end = dict(end) if end is not None else {"line": crash["line"], "event": "crash", "status": None,
                                                 "signal": None, "by": None, "source": "stderr", "text": None}
        end["traceback"], end["verdict"] = crash, None
        d.exit = end
        owed = [o for o in d.open_requests if o.owed_by == "server"]
        pending = f"{owed[0].method} ({place(vars(owed[0]))})" + (
            f" and {len(owed) - 1} more request(s)" if len(owed) > 1 else "") if owed else ""
        where = place(end) + (f": {end['text']}" if end["text"] else "")
        legacy = d.era != "modern"
        if end["by"] == "client" or (end["event"] == "closed" and end["by"] is None and crash is None):
            if owed:  # the stage's suspect stands; the end was the client's doing, or nobody's known
                end["verdict"] = (f"The client ended the session ({where}) while {pending} was still open: a stall, "
                                  "not a crash." if end["by"] == "client" else
                                  f"The connection then closed ({where}) with {pending} still open; the log does "
                                  "not say which side closed it.")
                d.suspect = f"{d.suspect} {end['verdict']}" if d.suspect else end["verdict"]
            return
        if end["event"] == "never started":
            end["verdict"] = f"The server never started ({where})."
        elif owed:
            end["verdict"] = _verdict(end, f"before answering {pending}")
        elif legacy and d.last_stage in (None, "transport"):
            end["verdict"] = _verdict(end, "before any request reached it")
        elif legacy and d.last_stage != "tool_returned":
            end["verdict"] = _verdict(end, f"after '{dict(STAGES)[d.last_stage]}', with nothing left to answer: the "
                                           "session could not go on")
        elif crash is not None or end["signal"] or end["status"] not in (None, 0):
            end["verdict"] = f"{place(end)}: " + _verdict(end, "with nothing left to answer")
            d.add("notes", end["verdict"])
            return
        else:
            return
        d.suspect, d.fix = end["verdict"], _end_fix(end)

    @staticmethod
    def _modern_suspect(d: Diagnosis) -> str:
        pending = [r for r in d.modern_requests if r["outcome"] == "pending"]
        if not d.modern_requests:
            return "No 2026-07-28 request was captured."
        if pending:
            first = pending[0]
            return f"{first['method']} ({place(first)}) was never answered by the server."
        failed = [r for r in d.modern_requests if r["outcome"].startswith("error")]
        if failed:
            return f"{len(failed)} request(s) failed; first: {failed[0]['method']} ({place(failed[0])}): " \
                   f"{failed[0]['outcome']}"
        cancelled = sum(r["outcome"] == "cancelled" for r in d.modern_requests)
        return f"Every request was answered or cancelled ({cancelled} cancelled)." if cancelled \
            else "Every request was answered."


def _ending(record: Record) -> dict | None:
    """How the server ended, from a reader's note: ``mcplint capture``'s exit (or could-not-start
    error) ``meta`` record, or a host log's exit line in the same shape; None for other comments."""
    msg = record.msg
    if type(msg) is not dict or msg.get("dir") != "meta":
        return None
    raw = msg.get("raw") if isinstance(msg.get("raw"), str) else ""
    event = msg.get("event")
    if event == "error" and raw.startswith("could not start"):
        event = "never started"
    elif event not in ("exit", "closed"):
        return None
    status, signal = msg.get("status"), msg.get("signal")
    return {**at(record), "event": event, "status": status if type(status) is int else None,
            "signal": signal if isinstance(signal, str) and signal else None,
            "by": ended_by(msg), "source": str(msg.get("source") or "capture meta"),
            "text": shorten(mask_text(raw), 200) or None}


def _client_end(record: Record) -> dict:
    """The analyzer's ``client_closed`` note as an ending: a reader's note by the client, or an
    accepted HTTP ``DELETE`` of the session."""
    end = _ending(record)
    if end is not None:
        return end
    return {**at(record), "event": "closed", "status": None, "signal": None, "by": "client",
            "source": "HTTP DELETE", "text": "DELETE of the session"}


def _request_key(request: Record) -> tuple:
    return (request.direction, id_key(request.id))


def _verdict(end: dict, when: str) -> str:
    """``The server exited (status 1) <when>; its stderr ends in a Python traceback (...).``"""
    signal, status, crash = end["signal"], end["status"], end["traceback"]
    if signal:
        ended = "was killed by a signal" if signal == "unknown" else f"was killed by {signal}"
    elif status is not None:
        ended = f"exited (status {status})"
    else:
        ended = {"exit": "exited", "closed": "closed the connection (it probably exited)"}.get(end["event"], "")
    report = crash and f"{_RUNTIME_REPORT[crash['runtime']]} ({crash['exception'].removeprefix('panic: ')})"
    if not ended:
        return f"The server crashed with {report} {when}."
    return f"The server {ended} {when}" + (f"; its stderr ends in {report}." if report else ".")


def _end_fix(end: dict) -> str:
    if end["event"] == "never started":
        return "Check the command, its arguments and PATH as the host starts it: the process could not be started."
    if end["traceback"] is not None:
        return ("Fix the error the crash report ends with (a missing module or package usually means the host runs "
                "another interpreter, virtualenv or Node.js than your shell); catch errors in handlers and answer "
                "them with an error instead of dying.")
    if end["signal"]:
        return ("Something killed the server: the host (look for a timeout in its log), a supervisor, the OS when "
                "memory ran out (the OOM killer: see dmesg), or a native crash (SIGSEGV, SIGABRT).")
    return ("Run the server's command by hand, with the host's arguments and environment, and read its stderr to see "
            "why it exits; a stdio server must keep running until its stdin closes.")


def _declares_tools(session) -> bool:
    caps = session.server_caps
    return isinstance(caps, dict) and isinstance(caps.get("tools"), dict)

"""Tasks (TK, 2025-11-25, experimental): task-augmented requests and the ``tasks/*`` methods.

A *requestor* (client or server) adds ``params.task`` to ``tools/call``,
``sampling/createMessage`` or ``elicitation/create``; a *receiver* that declared
``tasks.requests.<...>`` answers with a ``CreateTaskResult`` (``result.task``) and the requestor
then polls ``tasks/get``, fetches the payload with ``tasks/result`` and may ``tasks/cancel`` or
``tasks/list``. The analyzer marks ``RequestEntry.task`` and keeps the request's progress token
live; everything else about a task (status history, terminal state, poll interval, the original
request, the payload) lives in :class:`TaskTracker`, keyed by the requestor's direction and the
task id, because task ids are unique per receiver.

Tasks exist only in 2025-11-25 (2026-07-28 moved them to an extension): a ``tasks/*`` method in
another revision is SV004's finding, not ours. Progress for tasks is PR007, cancelling a task
with ``notifications/cancelled`` is CN004.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded, progress_token
from mcplint.model import Direction, Kind, Record, Severity, id_key
from mcplint.rules._base import (
    NOTIFICATIONS,
    REQUESTS,
    RESPONSES,
    Rule,
    Tracker,
    error_of,
    fmt_id,
    params_of,
    result_of,
    rule,
    set_plan_facts,
    tracker,
)
from mcplint.rules.capabilities import caps_source, error_code, known_caps

V = frozenset({protocol.V2025_11_25})
RELATED = "io.modelcontextprotocol/related-task"
STATUSES = frozenset({"working", "input_required", "completed", "failed", "cancelled"})
TERMINAL = frozenset({"completed", "failed", "cancelled"})
TASK_OPS = frozenset({"tasks/get", "tasks/result", "tasks/cancel"})
TASK_METHODS = TASK_OPS | {"tasks/list"}
STATUS_NOTIFICATION = "notifications/tasks/status"
_OBSERVED = TASK_METHODS | {STATUS_NOTIFICATION}  # requests and notifications the tracker commits
PROGRESS = "notifications/progress"
#: request type -> (side whose capabilities count, path under ``capabilities.tasks.requests``)
AUGMENTABLE = {
    "tools/call": ("server", ("tools", "call")),
    "sampling/createMessage": ("client", ("sampling", "createMessage")),
    "elicitation/create": ("client", ("elicitation", "create")),
}
#: required members of each augmentable request's own result (what ``tasks/result`` returns)
RESULT_KEYS = {
    "tools/call": ("content",),
    "sampling/createMessage": ("role", "content", "model"),
    "elicitation/create": ("action",),
}
#: requests a task receiver sends to get the input a task waits for (``input_required``)
INPUT_REQUESTS = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})
#: error messages that say the task does not exist (TK010), unless they speak of the method
_NOT_FOUND = re.compile(r"(?i)not.?found|unknown|no such|does not exist|doesn't exist|expired")
_METHOD = re.compile(r"(?i)\bmethod\b")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$")
#: a poll counts as too fast below this share of the advertised pollInterval (capture jitter)
POLL_TOLERANCE = 0.9

_PAGE = "basic/utilities/tasks"
_CAPS = f"{_PAGE} §Capability Negotiation"
_TOOL_LEVEL = f"{_PAGE} §Tool-Level Negotiation"
_HANDLING = f"{_PAGE} §Task Support and Handling"
_RETRIEVAL = f"{_PAGE} §Result Retrieval"
_IDS = f"{_PAGE} §Task ID Requirements"
_TTL = f"{_PAGE} §TTL and Resource Management"
_LIFECYCLE = f"{_PAGE} §Task Status Lifecycle"
_ERRORS = f"{_PAGE} §Protocol Errors"
_CANCEL = f"{_PAGE} §Task Cancellation"
_LISTING = f"{_PAGE} §Task Listing"
_ASSOCIATE = f"{_PAGE} §Associating Task-Related Messages"
_INPUT = f"{_PAGE} §Input Required Status"
_EXEC_ERRORS = f"{_PAGE} §Task Execution Errors"
_GETTING = f"{_PAGE} §Getting Tasks"


# -- task facts --------------------------------------------------------------------------------
@dataclass(slots=True, eq=False)
class TaskState:
    """What the capture showed of one task so far."""

    task_id: str
    requestor: Direction  # direction of the task-augmented request (and of tasks/* about it)
    request: Record | None = None  # the task-augmented request, when the capture has it
    created: Record | None = None  # the CreateTaskResult
    status: str | None = None  # last observed status
    status_record: Record | None = None  # where it was observed
    terminal: Record | None = None  # first observation of a terminal status
    history: list = field(default_factory=list)  # (status, line), capped
    ttl: Any = None
    poll_interval: float | None = None  # milliseconds, last advertised
    last_poll: Record | None = None  # last tasks/get request for this task
    payload: Record | None = None  # the tasks/result response
    reported: set = field(default_factory=set)  # once-only findings already made


@dataclass(slots=True, eq=False)
class TaskOp:
    """A ``tasks/*`` request as it stood when it was sent (for judging its response)."""

    task_id: Any
    state: TaskState | None  # None: the task was unknown at that point
    status: str | None  # the task's status when the request was sent


@dataclass(slots=True, eq=False)
class Listing:
    """One ``tasks/list`` traversal (first page without cursor to last page)."""

    start: Record
    ids: set = field(default_factory=set)


@dataclass(slots=True, eq=False)
class TaskFacts:
    tasks: Bounded = field(default_factory=lambda: Bounded(10_000))  # (requestor, taskId) -> TaskState
    by_request: Bounded = field(default_factory=lambda: Bounded(10_000))  # (requestor, id_key) -> TaskState
    ops: Bounded = field(default_factory=lambda: Bounded(10_000))  # (requestor, id_key) -> TaskOp
    overlaps: Bounded = field(default_factory=lambda: Bounded(1_000))  # (dir, key of earlier poll) -> later poll
    listings: dict = field(default_factory=dict)  # requestor -> Listing in progress
    unlisted: dict = field(default_factory=dict)  # (requestor, taskId) -> last page of a listing without it
    required_tools: bool = False  # a tools/list result listed a tool with execution.taskSupport "required"

    def get(self, requestor: Direction | None, task_id: Any) -> TaskState | None:
        if requestor is None or not isinstance(task_id, str):
            return None
        return self.tasks.get((requestor, task_id))


# -- helpers shared by the rules and the tracker ------------------------------------------
def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def shows_task(record: Record) -> bool:
    """A result with a ``task`` member (a CreateTaskResult when it answers a task-augmented request)."""
    result = result_of(record)
    return isinstance(result, dict) and "task" in result


def requires_task(tool: Any) -> bool:
    """A listed tool whose ``execution.taskSupport`` is ``"required"``."""
    execution = tool.get("execution") if isinstance(tool, dict) else None
    return isinstance(execution, dict) and execution.get("taskSupport") == "required"


def is_augmented(request: Record | None) -> bool:
    """A request carrying ``params.task`` (a task-augmentation attempt)."""
    return request is not None and isinstance(params_of(request).get("task"), dict)


def related_task(container: Any) -> tuple[bool, Any]:
    """``(present, taskId)`` of ``_meta["io.modelcontextprotocol/related-task"]`` in ``container``."""
    meta = container.get("_meta") if isinstance(container, dict) else None
    if not isinstance(meta, dict) or RELATED not in meta:
        return False, None
    value = meta[RELATED]
    return True, value.get("taskId") if isinstance(value, dict) else None


def requested_task_id(request: Record | None) -> Any:
    return params_of(request).get("taskId") if request is not None else None


def created_task(record: Record) -> tuple[bool, Any]:
    """``(present, task)``: the ``task`` member of a response that creates a task.

    Counted for responses to a task-augmented request, and to an augmentable request type whose
    result is a bare ``{"task": {...}}`` (a task nobody asked for); elsewhere a ``task`` member is
    just an extra field.
    """
    request = record.request
    if record.kind is not Kind.RESULT or request is None or request.method in TASK_METHODS:
        return False, None
    result = result_of(record)
    if not isinstance(result, dict) or "task" not in result:
        return False, None
    task = result["task"]
    if is_augmented(request):
        return True, task
    if request.method in AUGMENTABLE and isinstance(task, dict) and \
            not any(k in result for k in RESULT_KEYS[request.method]):
        return True, task
    return False, None


def observations(record: Record) -> list[tuple[Direction, Any, str]]:
    """Task objects a record shows: ``(requestor, task, where)``, in message order."""
    direction = record.direction
    if direction is None:
        return []
    requestor = direction.other
    if record.kind is Kind.NOTIFICATION:
        if record.method == STATUS_NOTIFICATION:
            return [(requestor, record.params, "notifications/tasks/status")]
        return []
    if record.kind is not Kind.RESULT or record.answer not in ("ok", "after-cancel"):
        return []
    method = record.effective_method
    result = result_of(record)
    if method in ("tasks/get", "tasks/cancel"):
        return [(requestor, result, f"{method} result")]
    if method == "tasks/list":
        tasks = result.get("tasks") if isinstance(result, dict) else None
        return [(requestor, t, "tasks/list result") for t in tasks] if isinstance(tasks, list) else []
    present, task = created_task(record)
    return [(requestor, task, "CreateTaskResult")] if present else []


def status_of(task: Any) -> str | None:
    status = task.get("status") if isinstance(task, dict) else None
    return status if status in STATUSES else None


def task_id_of(task: Any) -> Any:
    return task.get("taskId") if isinstance(task, dict) else None


def concurrent(record: Record, earlier: Record | None) -> bool:
    """Whether ``record`` (a response) may describe a state older than ``earlier``.

    A response to a request sent before ``earlier`` was seen may have been computed before it.
    """
    if earlier is None or record.kind is Kind.NOTIFICATION:
        return False
    request = record.request
    return request is not None and request.seq < earlier.seq


def task_capable(caps: dict, method: str) -> bool:
    """Whether ``caps`` declare ``tasks.requests.<...>`` for ``method``."""
    spec = AUGMENTABLE.get(method)
    if spec is None:
        return False
    node: Any = caps.get("tasks")
    for key in ("requests", *spec[1]):
        if not isinstance(node, dict) or node.get(key) is None:
            return False
        node = node[key]
    return True


def receiver_caps(session, request: Record) -> dict | None:
    """The capabilities the receiver of ``request`` declared (None while unknown)."""
    if request.direction is None:
        return None
    return known_caps(session, request.direction.other.sender)


def receiver_side(request: Record) -> str | None:
    return request.direction.other.sender if request.direction is not None else None


def tool_support(session, request: Record) -> tuple[str | None, dict | None]:
    """``(taskSupport, tool)`` of the tool a ``tools/call`` names, from the listed catalog.

    ``taskSupport`` defaults to ``"forbidden"``; ``(None, None)`` when the tool is unknown.
    """
    name = params_of(request).get("name")
    tool = session.tools.tools.get(name) if isinstance(name, str) else None
    if not isinstance(tool, dict):
        return None, None
    execution = tool.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return (support if isinstance(support, str) else "forbidden"), tool


def tools_gate_open(session, request: Record) -> bool:
    """The server declared ``tasks.requests.tools.call`` (tool-level negotiation applies)."""
    caps = known_caps(session, "server")
    return caps is not None and task_capable(caps, "tools/call")


def valid_timestamp(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if _ISO.match(value):
        return True
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def task_problems(task: Any) -> list[str]:
    """What is wrong with a ``Task`` object (schema and the TTL section's MUSTs)."""
    if not isinstance(task, dict):
        return [f"the task is {type(task).__name__ if task is not None else 'null'}, not an object"]
    problems = []
    if "taskId" not in task:
        problems.append("taskId is missing")
    elif not isinstance(task["taskId"], str):
        problems.append(f"taskId {fmt_id(task['taskId'])} is not a string")
    if "status" not in task:
        problems.append("status is missing")
    elif not isinstance(task["status"], str) or task["status"] not in STATUSES:
        problems.append(f"status {fmt_id(task['status'])} is not one of working, input_required, "
                        "completed, failed, cancelled")
    for key in ("createdAt", "lastUpdatedAt"):
        if key not in task:
            problems.append(f"{key} is missing")
        elif not valid_timestamp(task[key]):
            problems.append(f"{key} {fmt_id(task[key])} is not an ISO 8601 timestamp")
    if "ttl" not in task:
        problems.append("ttl is missing (a number, or null for unlimited)")
    elif task["ttl"] is not None and not is_number(task["ttl"]):
        problems.append(f"ttl {fmt_id(task['ttl'])} is neither a number nor null")
    if "pollInterval" in task and not is_number(task["pollInterval"]):
        problems.append(f"pollInterval {fmt_id(task['pollInterval'])} is not a number")
    if "statusMessage" in task and not isinstance(task["statusMessage"], str):
        problems.append(f"statusMessage {fmt_id(task['statusMessage'])} is not a string")
    return problems


def op_of(record: Record, session) -> TaskOp | None:
    """The :class:`TaskOp` of the ``tasks/*`` request a response answers."""
    request = record.request
    if request is None or record.direction is None or not request.has_id:
        return None
    return TaskTracker.of(session).ops.get((record.direction.other, id_key(request.id)))


def answered(record: Record) -> bool:
    return record.answer in ("ok", "after-cancel") and record.request is not None


def state_for_payload(record: Record, session) -> TaskState | None:
    op = op_of(record, session)
    return op.state if op is not None else None


# -- the tracker --------------------------------------------------------------------------------
#: plan fact: a tools/list result of the session listed a tool whose taskSupport is "required" (TK003)
_REQUIRED_TOOLS = "tasks-required-tool"
_REQUIRED_TOOLS_FACTS = frozenset({_REQUIRED_TOOLS})
#: the plan fact of a session whose task requests made an operation (``TaskFacts.ops``; once made,
#: kept): a later response with the id of one may end it, whatever it answers (the engine's
#: "task-ops" feature)
OPS_FACT = "tasks-ops"
_OPS_FACTS = frozenset({OPS_FACT})


@tracker
class TaskTracker(Tracker):
    """Per session: every task's status history, poll interval, original request and payload."""

    kinds = frozenset({Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT, Kind.ERROR})
    methods = frozenset({*TASK_METHODS, STATUS_NOTIFICATION, *AUGMENTABLE}) | protocol.REQUEST_METHODS
    # (commit changes nothing else: a response that is not a task record ends an operation only
    # in a session with OPS_FACT)
    requires_any = frozenset({"task", "task-ops"})
    facts = TaskFacts

    @classmethod
    def known(cls, session) -> TaskFacts | None:
        """The session's task facts, or None while nothing about tasks happened in it."""
        return session.state.get(cls)

    @classmethod
    def dispatches(cls, kind, method, revision, modern):
        # as commit's first tests (outside 2025-11-25 it returns before changing anything)
        return revision == protocol.V2025_11_25 and (kind is Kind.RESULT or kind is Kind.ERROR
                                                     or method in _OBSERVED)

    def commit(self, record: Record, session) -> None:
        # Only tasks/* requests, status notifications, responses to tasks/* and results with a
        # task member change the facts; any other response only ends the ops and overlaps of a
        # reused id (when there are any). Only responses have a ``request``.
        request = record.request
        if request is None:
            if record.method not in _OBSERVED:
                return
        else:
            method = request.method
            if method not in TASK_METHODS:
                msg = record.msg
                result = msg.get("result") if type(msg) is dict else None
                if type(result) is not dict or "task" not in result:  # (not shows_task(record), inline)
                    facts = session.state.get(TaskTracker)
                    if facts is None or not (facts.ops or facts.overlaps):
                        return
        if record.revision != protocol.V2025_11_25 or record.direction is None:
            return
        facts: TaskFacts = self.of(session)
        if record.kind is Kind.REQUEST:
            if record.method in TASK_METHODS and record.has_id:
                self._request(record, session, facts)
            return
        if record.kind is Kind.NOTIFICATION:
            for requestor, task, _ in observations(record):
                self._observe(facts, requestor, task, record, session)
            return
        request = record.request
        if request is None or not request.has_id:
            return
        key = (record.direction.other, id_key(request.id))
        op = facts.ops.pop(key, None) if answered(record) else facts.ops.get(key)
        facts.overlaps.pop(key, None)
        if not answered(record):
            return
        present, task = created_task(record)
        if present and isinstance(task_id_of(task), str):
            state = TaskState(task_id_of(task), record.direction.other, request=request, created=record)
            facts.tasks[(state.requestor, state.task_id)] = state
            facts.by_request[key] = state
            session.file_state.setdefault("tasks.ids", set()).add((record.direction.other, state.task_id))
            self._observe(facts, state.requestor, task, record, session)
            return
        method = request.method
        if method == "tasks/result" and op is not None and op.state is not None:
            op.state.payload = record
        elif method == "tasks/cancel" and op is not None and op.status in TERMINAL:
            return  # a terminal task cannot be cancelled (TK011): keep its status
        for requestor, item, _ in observations(record):
            self._observe(facts, requestor, item, record, session)
        if method == "tasks/list" and record.kind is Kind.RESULT:
            self._list_page(record, facts)

    @staticmethod
    def _request(record: Record, session, facts: TaskFacts) -> None:
        direction = record.direction
        task_id = params_of(record).get("taskId")
        state = facts.get(direction, task_id)
        facts.ops[(direction, id_key(record.id))] = TaskOp(task_id, state, state.status if state else None)
        if OPS_FACT not in session.plan_facts:
            set_plan_facts(session, OPS_FACT, _OPS_FACTS)
        if record.method == "tasks/list" and params_of(record).get("cursor") is None:
            facts.listings[direction] = Listing(record)
        if record.method != "tasks/get" or state is None:
            return
        previous = state.last_poll
        if previous is not None and state.poll_interval and (previous.t is None or record.t is None):
            entry = session.find_request(direction, previous.id)
            if entry is not None and entry.pending:
                facts.overlaps.setdefault((direction, id_key(previous.id)), record)
        state.last_poll = record

    @staticmethod
    def _observe(facts: TaskFacts, requestor: Direction, task: Any, record: Record, session) -> None:
        task_id = task_id_of(task)
        if not isinstance(task_id, str):
            return
        state = facts.get(requestor, task_id)
        if state is None:
            state = facts.tasks[(requestor, task_id)] = TaskState(task_id, requestor)
        if is_number(task.get("pollInterval")):
            state.poll_interval = task["pollInterval"]
        if "ttl" in task:
            state.ttl = task["ttl"]
        status = status_of(task)
        if status is None:
            return
        if state.status in TERMINAL and status != state.status:
            return  # terminal states never change (TK008); keep the first
        if concurrent(record, state.status_record) and state.status is not None and status != state.status:
            return  # possibly older than what we know
        state.status, state.status_record = status, record
        if len(state.history) < 50:
            state.history.append((status, record.line))
        if status in TERMINAL and state.terminal is None:
            state.terminal = record
            if state.request is not None:
                session.retire_token(requestor, state.request)  # progress for the task ends here

    @staticmethod
    def _list_page(record: Record, facts: TaskFacts) -> None:
        requestor = record.direction.other
        listing = facts.listings.get(requestor)
        if listing is None:
            return
        result = result_of(record)
        for task in result.get("tasks") or () if isinstance(result, dict) else ():
            if isinstance(task_id_of(task), str):
                listing.ids.add(task_id_of(task))
        if isinstance(result, dict) and result.get("nextCursor") is None:
            del facts.listings[requestor]
            for task_id in listing.ids:
                facts.unlisted.pop((requestor, task_id), None)
            for (side, task_id), state in list(facts.tasks.items()):
                if side is requestor and task_id not in listing.ids and state.created is not None \
                        and state.created.seq < listing.start.seq and state.status != "cancelled":
                    facts.unlisted[(side, task_id)] = record


@tracker
class RequiredTaskTools(Tracker):
    """Notes a listed tool that requires tasks (TK003 judges calls only in such sessions), in
    ``TaskFacts.required_tools`` and a plan fact; any tools/list result counts, as the analyzer's
    catalog only takes tools from those (in any revision: a tools/list result is no task record)."""

    kinds = frozenset({Kind.RESULT})
    methods = frozenset({"tools/list"})

    def commit(self, record: Record, session) -> None:
        result = result_of(record)
        tools = result.get("tools") if isinstance(result, dict) else None
        if isinstance(tools, list) and any(requires_task(tool) for tool in tools):
            TaskTracker.of(session).required_tools = True
            set_plan_facts(session, _REQUIRED_TOOLS, _REQUIRED_TOOLS_FACTS)


def facts_of(session) -> TaskFacts:
    return TaskTracker.of(session)


class TaskRule(Rule):
    """Base of the task rules: 2025-11-25 only, on records with the engine's "task" feature
    (``features.record_features``), so that traffic without tasks costs them nothing.

    The gate drops no finding, as every rule reports only on such a record: a task method's
    request, response or notification (TK010-TK016, TK018, TK019, TK021 by their ``methods``; the
    ``tasks/*`` and status paths of TK006, TK008, TK015, TK020); a request with ``params.task``
    (``is_augmented``: TK001, TK002) or a response to one (TK002, TK005); a result with a ``task``
    member (``created_task``: TK004, TK006-TK009, TK015, TK020); progress whose request was
    answered with a task (``RequestEntry.task``) or that names one in ``_meta`` (PR007). Every
    response path starts from ``record.request`` (no request, nothing to judge). TK003 and TK017
    judge records that show no task: they run by method and return at once while the session's
    :class:`TaskFacts` say nothing can be found.
    """

    versions = V
    requires = frozenset({"task"})


# -- TK001-TK005: negotiation ------------------------------------------------------------
@rule
class TaskAugmentationUndeclared(TaskRule):
    """Checks for task-augmented requests the receiver did not declare task support for."""

    code, name = "TK001", "task-augmentation-undeclared"
    severity, level, spec = Severity.ERROR, "MUST NOT", _TOOL_LEVEL
    kinds = REQUESTS
    methods = protocol.REQUEST_METHODS - TASK_METHODS - {"initialize"}
    hint = ("Augment a request with params.task only when the receiver declared "
            "capabilities.tasks.requests for that request type; otherwise send it as a normal request.")

    def check(self, record, session):
        if not is_augmented(record) or record.direction is None:
            return
        caps = receiver_caps(session, record)
        if caps is None:
            return
        side = receiver_side(record)
        spec = AUGMENTABLE.get(record.method)
        if spec is not None and spec[0] != side:
            return  # sent in a direction the method does not have: another rule's finding
        if spec is not None and task_capable(caps, record.method):
            return
        path = "tasks.requests." + ".".join(spec[1]) if spec else None
        related = caps_source(session, side)
        if record.method == "tools/call":
            yield self.report(record, f"Client augmented tools/call with a task although the server did not "
                                      f"declare {path!r}", related=related)
        elif spec is not None:
            yield self.report(record, f"{record.direction.sender.capitalize()} augmented {record.method} with a "
                                      f"task although the {side} did not declare {path!r}",
                              severity=Severity.WARNING, level="SHOULD", spec=_CAPS, related=related)
        else:
            yield self.report(record, f"{record.method} carries params.task, but no capability lets a receiver "
                                      "accept tasks for this request type",
                              severity=Severity.WARNING, level="SHOULD", spec=_CAPS, confidence="low")


@rule
class ForbiddenToolInvokedAsTask(TaskRule):
    """Checks for task-augmented calls of tools whose ``execution.taskSupport`` forbids tasks."""

    code, name = "TK002", "forbidden-tool-invoked-as-task"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST NOT", _TOOL_LEVEL
    kinds = REQUESTS | RESPONSES
    methods = frozenset({"tools/call"})
    hint = ('Call a tool as a task only when its execution.taskSupport is "optional" or "required"; '
            "a server answers such calls with -32601.")

    def check(self, record, session):
        request = record if record.kind is Kind.REQUEST else record.request
        if request is None or not is_augmented(request) or not tools_gate_open(session, request):
            return
        support, tool = tool_support(session, request)
        if support != "forbidden":
            return
        low = "low" if session.tools.stale else None
        execution = tool.get("execution")
        what = ('has execution.taskSupport "forbidden"' if isinstance(execution, dict)
                and execution.get("taskSupport") == "forbidden"
                else 'declares no execution.taskSupport (default "forbidden")')
        if record.kind is Kind.REQUEST:
            yield self.report(record, f"Client called tool {tool.get('name')!r} as a task, but the tool {what}",
                              confidence=low)
            return
        if record.kind is Kind.ERROR or not answered(record):
            return
        accepted = created_task(record)[0]
        yield self.report(
            record, f"Server {'accepted a task for' if accepted else 'answered'} the task-augmented call of tool "
                    f"{tool.get('name')!r}, which {what}; it should refuse with -32601",
            severity=Severity.WARNING, level="SHOULD", confidence=low, related=[(request, "request")])


@rule
class RequiredToolInvokedWithoutTask(TaskRule):
    """Checks for plain calls of tools whose ``execution.taskSupport`` is ``"required"``."""

    code, name = "TK003", "required-tool-invoked-without-task"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _TOOL_LEVEL
    kinds = REQUESTS | RESPONSES
    methods = frozenset({"tools/call"})
    hint = ('Call a tool with execution.taskSupport "required" as a task (params.task); a server '
            "refuses plain calls of it with -32601.")
    requires = frozenset()  # plain calls show no task: judged only once a listed tool required one

    @classmethod
    def awaits(cls, facts, kind, method):
        return _REQUIRED_TOOLS in facts  # TaskTracker, at a tools/list result listing such a tool

    def check(self, record, session):
        facts = session.state.get(TaskTracker)
        if facts is None or not facts.required_tools:
            return ()  # the catalog has only tools from tools/list results, and none required tasks
        return self._judge(record, session)  # (a generator only where one may be needed)

    def _judge(self, record, session):
        request = record if record.kind is Kind.REQUEST else record.request
        if request is None or is_augmented(request) or not tools_gate_open(session, request):
            return
        support, tool = tool_support(session, request)
        if support != "required":
            return
        low = "low" if session.tools.stale else None
        if record.kind is Kind.REQUEST:
            yield self.report(record, f"Client called tool {tool.get('name')!r} without a task, but the tool "
                                      'has execution.taskSupport "required"', confidence=low)
            return
        if not answered(record):
            return
        code = error_code(record)
        if record.kind is Kind.RESULT:
            yield self.report(record, f"Server answered a plain call of tool {tool.get('name')!r}, whose "
                                      'taskSupport is "required", with a result instead of -32601',
                              confidence=low, related=[(request, "request")])
        elif code not in (-32601, -32600):
            yield self.report(record, f"Server refused a plain call of task-required tool {tool.get('name')!r} "
                                      f"with {fmt_id(code)}; the tasks page asks for -32601 (-32600 tolerated)",
                              severity=Severity.WARNING, confidence=low, related=[(request, "request")])


@rule
class UndeclaredReceiverReturnedTask(TaskRule):
    """Checks for ``CreateTaskResult`` answers from receivers that did not declare tasks for the request."""

    code, name = "TK004", "undeclared-receiver-returned-task"
    severity, level, spec = Severity.ERROR, "MUST", _HANDLING
    kinds = frozenset({Kind.RESULT})
    hint = ("Without capabilities.tasks.requests for a request type, process such requests normally "
            "and return the plain result, ignoring params.task.")

    def check(self, record, session):
        present, task = created_task(record)
        if not present or not isinstance(task, dict) or not answered(record):
            return
        request = record.request
        if not is_augmented(request):
            yield self.report(record, f"{record.direction.sender.capitalize()} created a task for "
                                      f"{request.method} request {fmt_id(request.id)}, which was not "
                                      "task-augmented", severity=Severity.WARNING, level="derived",
                              related=[(request, "request without params.task")])
            return
        caps = receiver_caps(session, request)
        if caps is None or task_capable(caps, request.method):
            return
        side = receiver_side(request)
        spec = AUGMENTABLE.get(request.method)
        declared = f"'tasks.requests.{'.'.join(spec[1])}'" if spec else "task support (none exists for it)"
        yield self.report(record, f"{side.capitalize()} returned a CreateTaskResult for {request.method} "
                                  f"without declaring {declared}",
                          related=[(request, "task-augmented request"), *caps_source(session, side)])


@rule
class AcceptedTaskMustReturnCreateTaskResult(TaskRule):
    """Checks that a receiver that declared task support answers task-augmented requests with a task."""

    code, name = "TK005", "accepted-task-must-return-create-task-result"
    severity, level, spec = Severity.WARNING, "MUST", _RETRIEVAL
    kinds = frozenset({Kind.RESULT})
    methods = frozenset(AUGMENTABLE)
    hint = ("Having declared tasks.requests for this request type, answer a task-augmented request with a "
            "CreateTaskResult (or a JSON-RPC error), and deliver the result through tasks/result.")

    def check(self, record, session):
        request = record.request
        if not answered(record) or not is_augmented(request) or created_task(record)[0]:
            return
        caps = receiver_caps(session, request)
        if caps is None or not task_capable(caps, request.method) or receiver_side(request) != AUGMENTABLE[
                request.method][0]:
            return
        if request.method == "tools/call" and tool_support(session, request)[0] == "forbidden":
            return  # the server should have refused with -32601: TK002
        yield self.report(record, f"{record.direction.sender.capitalize()} declared task support for "
                                  f"{request.method} but answered task-augmented request {fmt_id(request.id)} "
                                  "with a plain result instead of a CreateTaskResult",
                          related=[(request, "task-augmented request")])


# -- TK006-TK009: the task object and its lifecycle --------------------------------------
@rule
class TaskObjectFields(TaskRule):
    """Checks that every task object has a string ``taskId``, a known ``status``, timestamps and ``ttl``."""

    code, name = "TK006", "task-object-fields"
    severity, level, spec = Severity.ERROR, "SCHEMA", _TTL
    kinds = frozenset({Kind.RESULT, Kind.NOTIFICATION})
    hint = ("Send the full Task: taskId (string), status, createdAt and lastUpdatedAt (ISO 8601), "
            "ttl (milliseconds or null), optional pollInterval (number).")

    def check(self, record, session):
        if record.kind is Kind.NOTIFICATION and record.method != STATUS_NOTIFICATION:
            return
        for _, task, where in observations(record):
            problems = task_problems(task)
            if problems:
                label = f" {fmt_id(task_id_of(task))}" if isinstance(task_id_of(task), str) else ""
                yield self.report(record, f"Task{label} in the {where}: " + "; ".join(problems))


@rule
class TaskInitialStatus(TaskRule):
    """Checks that a newly created task starts in the ``working`` status."""

    code, name = "TK007", "task-initial-status"
    severity, level, spec = Severity.ERROR, "MUST", _LIFECYCLE
    kinds = frozenset({Kind.RESULT})
    hint = 'Create every task in status "working"; move it on afterwards.'

    def check(self, record, session):
        present, task = created_task(record)
        status = status_of(task) if present else None
        if status is not None and status != "working":
            yield self.report(record, f"Task {fmt_id(task_id_of(task))} was created in status {status!r}, "
                                      'not "working"')


@rule
class TaskStatusTransition(TaskRule):
    """Checks that a task that reached a terminal status never shows another status."""

    code, name = "TK008", "task-status-transition"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _LIFECYCLE
    kinds = frozenset({Kind.RESULT, Kind.NOTIFICATION})
    hint = "Never change a task after completed, failed or cancelled; keep reporting that status."

    def check(self, record, session):
        if record.kind is Kind.NOTIFICATION and record.method != STATUS_NOTIFICATION:
            return
        facts = facts_of(session)
        if record.effective_method == "tasks/cancel":
            op = op_of(record, session)
            if op is not None and op.status in TERMINAL:
                return  # cancelling a finished task: TK011
        for requestor, task, where in observations(record):
            state = facts.get(requestor, task_id_of(task))
            status = status_of(task)
            if state is None or status is None or state.status not in TERMINAL or status == state.status:
                continue
            if concurrent(record, state.terminal) or (where == "CreateTaskResult"):
                continue  # may predate the terminal status; a new task with the id is TK009
            yield self.report(record, f"Task {fmt_id(state.task_id)} moved from terminal status "
                                      f"{state.status!r} to {status!r} ({where})",
                              related=[(state.terminal, f"task reached {state.status!r}")])


@rule
class TaskIdUniqueness(TaskRule):
    """Checks that a receiver does not create two tasks with the same ``taskId``."""

    code, name = "TK009", "task-id-uniqueness"
    severity, level, spec = Severity.ERROR, "MUST", _IDS
    kinds = frozenset({Kind.RESULT})
    hint = "Generate a fresh, unguessable task id (e.g. a UUID) for every task."

    def check(self, record, session):
        present, task = created_task(record)
        if not present or not isinstance(task_id_of(task), str) or record.direction is None:
            return
        earlier = facts_of(session).get(record.direction.other, task_id_of(task))
        if earlier is None or earlier.created is None or earlier.request is record.request:
            return
        yield self.report(record, f"Task id {fmt_id(earlier.task_id)} was already given to the task of request "
                                  f"{fmt_id(earlier.request.id)}",
                          related=[(earlier.created, "first task with this id")])


# -- TK010-TK014: tasks/get, tasks/cancel, tasks/list -----------------------------------
def _not_found_message(record: Record) -> bool:
    """The error message says the task does not exist (not that the method is missing)."""
    error = error_of(record)
    message = error.get("message") if isinstance(error, dict) else None
    return isinstance(message, str) and bool(_NOT_FOUND.search(message)) and not _METHOD.search(message)


@rule
class TaskUnknownIdNotRejected(TaskRule):
    """Checks that ``tasks/get|result|cancel`` for a nonexistent task is refused with -32602."""

    code, name = "TK010", "task-unknown-id-not-rejected"
    severity, level, spec = Severity.ERROR, "MUST", _ERRORS
    kinds = RESPONSES
    methods = TASK_OPS
    hint = "Answer tasks/get, tasks/result and tasks/cancel for an unknown or expired taskId with -32602."

    def check(self, record, session):
        op = op_of(record, session)
        if op is None or not answered(record):
            return
        request = record.request
        if record.kind is Kind.ERROR:
            code = error_code(record)
            if code != -32602 and _not_found_message(record):
                yield self.report(record, f"{request.method} for task {fmt_id(op.task_id)} was refused as "
                                          f"nonexistent with {fmt_id(code)} instead of -32602 (Invalid params)",
                                  related=[(request, "request")])
            return
        known = session.file_state.get("tasks.ids", ())
        if op.state is not None or not isinstance(op.task_id, str) or session.midstream \
                or (record.direction.other, op.task_id) in known:
            return
        yield self.report(record, f"{request.method} for task {fmt_id(op.task_id)}, which this receiver never "
                                  "created in the capture, was answered with success instead of -32602",
                          severity=Severity.WARNING, confidence="low", related=[(request, "request")])


@rule
class CancelTerminalTask(TaskRule):
    """Checks that ``tasks/cancel`` of a task in a terminal status is refused with -32602."""

    code, name = "TK011", "cancel-terminal-task"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _CANCEL
    kinds = RESPONSES
    methods = frozenset({"tasks/cancel"})
    hint = "Refuse to cancel a completed, failed or cancelled task with error -32602 (Invalid params)."

    def check(self, record, session):
        op = op_of(record, session)
        if op is None or op.status not in TERMINAL or not answered(record):
            return
        related = [(record.request, "tasks/cancel"), (op.state.terminal, f"task reached {op.status!r}")]
        if record.kind is Kind.RESULT:
            yield self.report(record, f"tasks/cancel of task {fmt_id(op.task_id)}, already {op.status!r}, "
                                      "succeeded instead of failing with -32602", related=related)
        elif error_code(record) != -32602:
            yield self.report(record, f"tasks/cancel of task {fmt_id(op.task_id)}, already {op.status!r}, was "
                                      f"refused with {fmt_id(error_code(record))} instead of -32602",
                              related=related)


@rule
class CancelResultNotCancelled(TaskRule):
    """Checks that a successful ``tasks/cancel`` returns the task in status ``cancelled``."""

    code, name = "TK012", "cancel-result-not-cancelled"
    severity, level, spec = Severity.ERROR, "MUST", _CANCEL
    kinds = frozenset({Kind.RESULT})
    methods = frozenset({"tasks/cancel"})
    hint = 'Move the task to "cancelled" before answering tasks/cancel, and return it in that status.'

    def check(self, record, session):
        op = op_of(record, session)
        if not answered(record) or (op is not None and op.status in TERMINAL):
            return  # cancelling a finished task is TK011
        status = status_of(result_of(record))
        if status is not None and status != "cancelled":
            yield self.report(record, f"tasks/cancel succeeded but returned the task in status {status!r}, "
                                      'not "cancelled"', related=[(record.request, "tasks/cancel")])


def _gate_check(rule_: Rule, record: Record, session, member: str):
    if record.direction is None:
        return
    side = record.direction.other.sender
    caps = known_caps(session, side)
    if caps is None:
        return
    tasks = caps.get("tasks")
    if isinstance(tasks, dict) and tasks.get(member) is not None:
        return
    yield rule_.report(record, f"{record.direction.sender.capitalize()} sent {record.method} although the "
                               f"{side} did not declare 'tasks.{member}'", related=caps_source(session, side))


@rule
class TasksListRules(TaskRule):
    """Checks ``tasks/list``: sent only to receivers declaring ``tasks.list``, and listing every task."""

    code, name = "TK013", "tasks-list-rules"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "derived", _LISTING
    kinds = REQUESTS | frozenset({Kind.RESULT})
    methods = frozenset({"tasks/list", "tasks/get"})
    hint = ("Send tasks/list only when the receiver declared capabilities.tasks.list; as a receiver, "
            "list every task that tasks/get can return.")

    def check(self, record, session):
        if record.kind is Kind.REQUEST:
            if record.method == "tasks/list":
                yield from _gate_check(self, record, session, "list")
            return
        if record.effective_method != "tasks/get" or not answered(record):
            return
        op = op_of(record, session)
        key = (record.direction.other, op.task_id) if op is not None and isinstance(op.task_id, str) else None
        page = facts_of(session).unlisted.get(key) if key else None
        seen = session.state_for(self)
        if page is None or record.request.seq < page.seq or (page.seq, op.task_id) in seen:
            return
        seen[(page.seq, op.task_id)] = True
        yield self.report(page, f"tasks/list did not list task {fmt_id(op.task_id)}, which existed before the "
                                "listing and is still returned by tasks/get", severity=Severity.WARNING,
                          level="MUST", confidence="low",
                          related=[(record, "tasks/get still returns the task")])


@rule
class TasksCancelUndeclared(TaskRule):
    """Checks for ``tasks/cancel`` sent to a receiver that did not declare ``tasks.cancel``."""

    code, name = "TK014", "tasks-cancel-undeclared"
    severity, level, spec = Severity.ERROR, "derived", _CAPS
    kinds = REQUESTS
    methods = frozenset({"tasks/cancel"})
    hint = "Send tasks/cancel only when the receiver declared capabilities.tasks.cancel."

    def check(self, record, session):
        yield from _gate_check(self, record, session, "cancel")


# -- TK015-TK016, TK020: tasks/result ------------------------------------------------------
def _payload_vs_status(state: TaskState, payload: Record) -> tuple[str, str] | None:
    """(code, message) when a success payload contradicts the task's terminal status."""
    result = result_of(payload)
    request = state.request
    if payload.kind is not Kind.RESULT or not isinstance(result, dict) or request is None:
        return None
    is_error = result.get("isError") is True
    if state.status == "failed" and not (request.method == "tools/call" and is_error):
        what = "a CallToolResult without isError: true" if request.method == "tools/call" else "a success result"
        return "TK015", f"Task {fmt_id(state.task_id)} failed, but tasks/result returned {what}"
    if state.status == "completed" and request.method == "tools/call" and is_error:
        return "TK020", (f"Task {fmt_id(state.task_id)} is 'completed' although its tool result has "
                         "isError: true (it should be 'failed')")
    return None


@rule
class TasksResultSemantics(TaskRule):
    """Checks that ``tasks/result`` returns the original request's result, and only for finished tasks."""

    code, name = "TK015", "tasks-result-semantics"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", _RETRIEVAL
    kinds = frozenset({Kind.RESULT, Kind.NOTIFICATION})
    hint = ("Block tasks/result until the task is terminal, then return exactly what the original request "
            "would have returned (e.g. a CallToolResult for tools/call, or its JSON-RPC error).")

    def check(self, record, session):
        if record.kind is Kind.RESULT and record.effective_method == "tasks/result":
            yield from self._payload(record, session)
            return
        if record.kind is Kind.NOTIFICATION and record.method != STATUS_NOTIFICATION:
            return
        facts = facts_of(session)
        for requestor, task, _ in observations(record):
            state = facts.get(requestor, task_id_of(task))
            status = status_of(task)
            if state is None or state.payload is None or state.payload.kind is not Kind.RESULT \
                    or status is None or "early" in state.reported:
                continue
            if status not in TERMINAL and not concurrent(record, state.payload) and record.seq > state.payload.seq:
                state.reported.add("early")
                yield self.report(state.payload, f"tasks/result for task {fmt_id(state.task_id)} was answered "
                                                 f"while the task was still running (later shown {status!r})",
                                  confidence="low", related=[(record, f"task shown {status!r}")])

    def _payload(self, record, session):
        state = state_for_payload(record, session)
        if state is None or state.request is None or not answered(record):
            return
        result = result_of(record)
        method = state.request.method
        missing = [k for k in RESULT_KEYS.get(method, ()) if not isinstance(result, dict) or k not in result]
        if missing:
            looks = " (it looks like a Task)" if isinstance(result, dict) and "status" in result else ""
            yield self.report(record, f"tasks/result for {method} task {fmt_id(state.task_id)} lacks "
                                      f"{', '.join(missing)} of the {method} result{looks}",
                              related=[(state.request, "original request")])
            return
        found = _payload_vs_status(state, record) if state.status in TERMINAL else None
        if found is not None and found[0] == self.code:
            yield self.report(record, found[1], confidence="low", related=[(state.status_record, "status")])


@rule
class TasksResultMissingRelatedTask(TaskRule):
    """Checks that a ``tasks/result`` result carries the ``related-task`` metadata of its task."""

    code, name = "TK016", "tasks-result-missing-related-task"
    severity, level, spec = Severity.ERROR, "MUST", f"{_PAGE} §Related Task Metadata"
    kinds = frozenset({Kind.RESULT})
    methods = frozenset({"tasks/result"})
    hint = ('Add "_meta": {"io.modelcontextprotocol/related-task": {"taskId": <the task id>}} to the '
            "tasks/result result.")

    def check(self, record, session):
        if not answered(record):
            return
        wanted = requested_task_id(record.request)
        present, task_id = related_task(result_of(record))
        if not present:
            yield self.report(record, f"tasks/result result for task {fmt_id(wanted)} has no _meta "
                                      f"{RELATED!r}")
        elif task_id != wanted:
            yield self.report(record, f"tasks/result result names related task {fmt_id(task_id)}, "
                                      f"not the requested {fmt_id(wanted)}")


@rule
class FailedToolTaskStatus(TaskRule):
    """Checks that a tool task whose result has ``isError: true`` ends ``failed``, not ``completed``."""

    code, name = "TK020", "failed-tool-task-status"
    severity, level, spec = Severity.WARNING, "SHOULD", _EXEC_ERRORS
    kinds = frozenset({Kind.RESULT, Kind.NOTIFICATION})
    hint = 'Put a tool task whose CallToolResult has isError: true into status "failed".'

    def check(self, record, session):
        if record.kind is Kind.RESULT and record.effective_method == "tasks/result":
            state = state_for_payload(record, session)
            if state is not None and answered(record) and state.status == "completed":
                found = _payload_vs_status(state, record)
                if found is not None and found[0] == self.code:
                    state.reported.add(self.code)
                    yield self.report(record, found[1], related=[(state.status_record, "status 'completed'")])
            return
        if record.kind is Kind.NOTIFICATION and record.method != STATUS_NOTIFICATION:
            return
        facts = facts_of(session)
        for requestor, task, _ in observations(record):
            state = facts.get(requestor, task_id_of(task))
            if state is None or state.payload is None or state.status == "completed" or self.code in state.reported:
                continue
            result = result_of(state.payload)
            if status_of(task) == "completed" and state.request is not None and \
                    state.request.method == "tools/call" and isinstance(result, dict) and result.get("isError") is True:
                state.reported.add(self.code)
                yield self.report(record, f"Task {fmt_id(state.task_id)} is 'completed' although its tool result "
                                          "has isError: true (it should be 'failed')",
                                  related=[(state.payload, "tasks/result with isError")])


# -- TK017-TK019: related-task metadata and task ids --------------------------------------
@rule
class TaskMessageMissingRelatedTask(TaskRule):
    """Checks for input requests of a task receiver, while a task waits for input, without ``related-task``."""

    code, name = "TK017", "task-message-missing-related-task"
    severity, level, spec = Severity.WARNING, "MUST", _INPUT
    confidence = "low"
    kinds = REQUESTS
    methods = INPUT_REQUESTS
    hint = ('Tag requests made on behalf of a task with "_meta": {"io.modelcontextprotocol/related-task": '
            '{"taskId": ...}}.')
    requires = frozenset()  # input requests show no task: judged only in sessions that have tasks

    def check(self, record, session):
        facts = TaskTracker.known(session)
        if facts is None or not facts.tasks:
            return  # a waiting or blocked task is a known one (facts.tasks never empties)
        if record.direction is None or related_task(record.params)[0]:
            return
        requestor = record.direction.other
        if any(not e.record.method or e.record.method not in TASK_METHODS
               for e in session.pending[requestor].values()):
            return  # an ordinary request of the peer is open: the input may be for it
        waiting = [s for (side, _), s in facts.tasks.items() if side is requestor and s.status == "input_required"]
        blocked = [op.state for (side, _), op in facts.ops.items()
                   if side is requestor and op.state is not None and op.state.status not in TERMINAL
                   and op.state.payload is None and _is_result_op(session, side, op)]
        candidates = waiting or blocked
        if not candidates:
            return
        ids = ", ".join(fmt_id(s.task_id) for s in candidates[:3])
        shown = candidates[0].status_record or candidates[0].created
        yield self.report(record, f"{record.method} sent while task {ids} waits for input, without "
                                  f"_meta {RELATED!r}", related=[(shown, "task status")] if shown else [])


def _is_result_op(session, side: Direction, op: TaskOp) -> bool:
    return any(e.record.method == "tasks/result" and params_of(e.record).get("taskId") == op.task_id
               for e in session.pending[side].values())


@rule
class RelatedTaskOnTaskOps(TaskRule):
    """Checks for ``related-task`` metadata on ``tasks/*`` requests, their results and status notifications."""

    code, name = "TK018", "related-task-on-task-ops"
    severity, level, spec = Severity.WARNING, "SHOULD NOT", _ASSOCIATE
    kinds = REQUESTS | frozenset({Kind.RESULT, Kind.NOTIFICATION})
    methods = TASK_METHODS | {STATUS_NOTIFICATION}
    hint = "Drop io.modelcontextprotocol/related-task here: the taskId is already in the message."

    def check(self, record, session):
        if record.kind is Kind.REQUEST:
            if record.method in TASK_OPS and related_task(record.params)[0]:
                yield self.report(record, f"{record.method} request carries _meta {RELATED!r}; the taskId "
                                          "parameter identifies the task")
            return
        if record.kind is Kind.NOTIFICATION:
            if record.method == STATUS_NOTIFICATION and related_task(record.params)[0]:
                yield self.report(record, f"notifications/tasks/status carries _meta {RELATED!r}")
            return
        method = record.effective_method
        if method in ("tasks/get", "tasks/list", "tasks/cancel") and related_task(result_of(record))[0]:
            yield self.report(record, f"{method} result carries _meta {RELATED!r}")


@rule
class TaskIdMismatch(TaskRule):
    """Checks that ``tasks/get`` and ``tasks/cancel`` return the task that was asked for."""

    code, name = "TK019", "task-id-mismatch"
    severity, level, spec = Severity.ERROR, "derived", _ASSOCIATE
    kinds = frozenset({Kind.RESULT})
    methods = frozenset({"tasks/get", "tasks/cancel"})
    hint = "Return the task named by params.taskId, with that taskId."

    def check(self, record, session):
        if not answered(record):
            return
        wanted = requested_task_id(record.request)
        got = task_id_of(result_of(record))
        if isinstance(wanted, str) and isinstance(got, str) and got != wanted:
            yield self.report(record, f"{record.effective_method} for task {fmt_id(wanted)} returned task "
                                      f"{fmt_id(got)}", related=[(record.request, "request")])


# -- TK021: polling --------------------------------------------------------------------------
@rule
class PollFasterThanInterval(TaskRule):
    """Checks for ``tasks/get`` polls sent faster than the task's advertised ``pollInterval``."""

    code, name = "TK021", "poll-faster-than-interval"
    severity, level, spec = Severity.WARNING, "SHOULD", _GETTING
    confidence = "low"
    kinds = REQUESTS | RESPONSES
    methods = frozenset({"tasks/get"})
    hint = "Wait at least pollInterval milliseconds between two tasks/get polls of a task."

    def check(self, record, session):
        facts = facts_of(session)
        if record.kind is Kind.REQUEST:
            state = facts.get(record.direction, params_of(record).get("taskId"))
            previous = state.last_poll if state is not None else None
            if previous is None or previous.t is None or record.t is None or not state.poll_interval:
                return
            gap = (record.t - previous.t) * 1000
            if gap < POLL_TOLERANCE * state.poll_interval:
                yield self.report(record, f"Polled task {fmt_id(state.task_id)} {gap:.0f} ms after the previous "
                                          f"tasks/get; pollInterval is {fmt_id(state.poll_interval)} ms",
                                  related=[(previous, "previous poll")])
            return
        request = record.request
        if request is None or record.direction is None:
            return
        later = facts.overlaps.get((record.direction.other, id_key(request.id)))
        if later is None:
            return
        state = facts.get(later.direction, params_of(later).get("taskId"))
        interval = fmt_id(state.poll_interval) if state is not None else "?"
        yield self.report(later, f"Polled task {fmt_id(params_of(later).get('taskId'))} again before the previous "
                                 f"tasks/get was answered, although a pollInterval of {interval} ms was "
                                 "advertised (no timestamps to measure the gap)",
                          severity=Severity.INFO, related=[(request, "previous poll"), (record, "its answer")])


# -- PR007: progress of tasks ---------------------------------------------------------------
@rule
class TaskProgressToken(TaskRule):
    """Checks that task progress uses the original request's token and stops when the task ends."""

    code, name = "PR007", "task-progress-token"
    order_sensitive = True
    severity, level, spec = Severity.ERROR, "MUST", "basic/utilities/progress §Behavior Requirements"
    kinds = NOTIFICATIONS
    methods = frozenset({PROGRESS})
    hint = ("Send task progress with the progressToken of the task-augmented request, and only until the "
            "task is completed, failed or cancelled.")

    def check(self, record, session):
        if record.direction is None:
            return
        facts = facts_of(session)
        ref = record.target
        entry = (ref.live or ref.finished) if ref is not None else None
        if entry is not None and entry.task and entry.record.has_id:
            state = facts.by_request.get((ref.requester, id_key(entry.record.id)))
            if state is not None and state.terminal is not None and state.terminal.seq < record.seq:
                yield self.report(record, f"Progress for token {fmt_id(ref.token)} after task "
                                          f"{fmt_id(state.task_id)} reached {state.status!r}",
                                  related=[(entry.record, "task-augmented request"),
                                           (state.terminal, f"task reached {state.status!r}")])
            return
        present, task_id = related_task(record.params)
        state = facts.get(record.direction.other, task_id) if present else None
        if state is None or state.request is None:
            return
        has_token, token = progress_token(state.request)
        sent = params_of(record).get("progressToken")
        if not has_token or id_key(token) != id_key(sent):
            original = f"token {fmt_id(token)}" if has_token else "no progress token"
            yield self.report(record, f"Progress for task {fmt_id(task_id)} uses token {fmt_id(sent)}, but the "
                                      f"task-augmented request had {original}",
                              related=[(state.request, "task-augmented request")])

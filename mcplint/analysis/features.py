"""The record features of the dispatch key: cheap facts of a record that rules may require
(``Rule.requires``), so that the engine plans only the rules that can say something about it."""

from __future__ import annotations

from mcplint import protocol
from mcplint.analysis.analyzer import EMPTY, Session
from mcplint.model import Kind, Record
from mcplint.rules.tasks import OPS_FACT

#: Record features rules may require (``Rule.requires``), as bits of the dispatch key.
FEATURES = {"flags": 1, "undirected": 2, "timed": 4, "http": 8, "meta": 16, "first": 32, "envelope": 64,
            "task": 128, "signs": 256, "reused-id": 512, "overlap": 1024, "token": 2048, "cursor": 4096,
            "task-ops": 8192}

#: the 2025-11-25 task utility's methods: ``tasks/*`` and ``notifications/tasks/status``
TASK_METHODS = frozenset(name for name in protocol.METHODS if "tasks/" in name)

# the kinds as plain names: ``Kind.RESULT`` costs a descriptor call (about 50 ns in Python 3.11)
_REQUEST, _NOTIFICATION, _RESULT, _ERROR = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT, Kind.ERROR


def record_features(record: Record, session: Session) -> int:
    """The ``FEATURES`` bits that hold for ``record`` (cheap attribute and dict tests).

    "envelope" (64) holds where the JSON-RPC envelope leaves the common, well-formed shape:
    "jsonrpc" not "2.0", params or result not an object, a request id neither integer nor string,
    result beside error, or an error response (the envelope rules run on these only).
    "token" (2048) holds for every record but a request whose params carry no
    ``_meta.progressToken``, or a string or integer one that is not among its sender's live tokens
    (what PR001 and PR002 judge of a request: ``rules/progress.py``). "cursor" (4096): a request's
    params hold a ``cursor`` (PA001, PA004). "task" (128), in 2025-11-25 and where no revision is
    known, holds where a record can show or affect a task: a task method; a request with
    ``params.task``; a result with a ``task`` member (a CreateTaskResult); a response to a task
    method or to a request with ``params.task``; progress for a request answered with a task
    (``RequestEntry.task``) or with ``_meta`` (which may name a related task). Why this covers every
    task rule: ``rules/tasks.py``. "task-ops" (8192): a response to a request the analyzer found,
    in a session whose task requests made the ``tasks.OPS_FACT`` plan fact (it may end the operation of
    a task request whose id it shares: ``TaskTracker``)."""
    kind = record.kind
    msg = record.msg
    direction = record.direction
    if kind is _NOTIFICATION:
        holder = record.params  # (msg's "params": an object, or params absent, is the common shape)
        bits = 2048 if (type(msg) is dict and msg.get("jsonrpc") == "2.0"
                        and (type(holder) is dict or "params" not in msg)) else 2112
        has_meta = type(holder) is dict and "_meta" in holder
        if has_meta:
            bits |= _meta_bit(holder["_meta"])
        method = record.method
        if method == "notifications/progress":
            ref = record.target
            entry = (ref.live or ref.finished) if ref is not None else None
            task = (entry is not None and entry.task) or has_meta
        else:
            task = method in TASK_METHODS
    elif kind is _RESULT:
        holder = msg.get("result") if type(msg) is dict else None
        bits = 2048 if (type(holder) is dict and msg.get("jsonrpc") == "2.0" and "error" not in msg) else 2112
        if type(holder) is dict and "_meta" in holder:
            bits |= _meta_bit(holder["_meta"])
        request = record.request  # (_answers_task inline)
        if request is None:
            task = False
        elif type(holder) is dict and "task" in holder:
            task = True
        else:
            params = request.params
            task = request.method in TASK_METHODS or (type(params) is dict and "task" in params)
            if OPS_FACT in session.plan_facts:
                bits |= 8192
    elif kind is _REQUEST:
        holder = record.params
        bits = 0 if (type(msg) is dict and msg.get("jsonrpc") == "2.0"
                     and (type(holder) is dict or "params" not in msg)) else 64
        if direction is not None:
            rid, limits_hit = record.id, session.limits_hit
            if type(rid) is int or type(rid) is str:
                # "reused-id": Session.find_request inline; an open request is also among the
                # requests unless a table forgot one (limits_hit)
                if rid in session.requests.get(direction, EMPTY) \
                        or (limits_hit and rid in session.pending.get(direction, EMPTY)):
                    bits |= 512
            else:
                bits = 64
            if limits_hit or session.pending.get(direction):
                bits |= 1024  # "overlap": its sender may have a request open (not heuristics.alone)
        elif type(record.id) is not int and type(record.id) is not str:
            bits = 64
        if type(holder) is dict:
            if "cursor" in holder:
                bits |= 4096
            if "_meta" in holder:
                meta = holder["_meta"]
                bits |= _meta_bit(meta)
                if type(meta) is dict and "progressToken" in meta:
                    token = meta["progressToken"]
                    if type(token) is not int and type(token) is not str:
                        bits |= 2048  # PR001
                    elif direction is not None and session.tokens.get(direction, EMPTY).get(token) is not None:
                        bits |= 2048  # PR002 (an integer or string token is its own id_key)
            task = record.method in TASK_METHODS or "task" in holder
        else:
            task = record.method in TASK_METHODS
    else:
        holder = record.params
        bits = 2112 if kind is _ERROR else 2048
        if type(holder) is dict and "_meta" in holder:
            bits |= _meta_bit(holder["_meta"])
        task = kind is _ERROR and _answers_task(record, kind, holder)
        if kind is _ERROR and record.request is not None and OPS_FACT in session.plan_facts:
            bits |= 8192
    if record.flags:
        bits |= 1
    if direction is None:
        bits |= 2
    if record.t is not None:
        bits |= 4
    if record.http is not None:
        bits |= 8
    if not session.messages:
        bits |= 32
    if record.signs != 0:
        bits |= 256
    if task:
        revision = record.revision
        if revision == protocol.V2025_11_25 or revision is None:
            bits |= 128  # the task rules apply to 2025-11-25 and to records of no known revision
    return bits


def _meta_bit(meta) -> int:
    """The "meta" bit (16) of a ``_meta`` member: set unless it is a lone progress token (the usual
    ``_meta``, which no MT rule judges)."""
    return 0 if type(meta) is dict and len(meta) == 1 and "progressToken" in meta else 16


def _answers_task(record: Record, kind: Kind, holder) -> bool:
    """Whether a response can show or affect a task (``holder``: its result, when it is a result):
    see "task" at :func:`record_features`."""
    request = record.request
    if request is None:
        return False
    if kind is _RESULT and type(holder) is dict and "task" in holder:
        return True
    params = request.params
    return request.method in TASK_METHODS or (type(params) is dict and "task" in params)

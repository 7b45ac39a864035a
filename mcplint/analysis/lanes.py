"""Fast lanes: the usual records of a running session, observed and planned in one step, and
committed too when nothing is to run.

Most records of a capture are the everyday messages of a session under way: progress, log
messages, tool calls and their answers, well-formed and in order. For such a record the general
path (``Analyzer.observe``, ``features.record_features``, the families' clean tests, ``Engine._plan``,
the checks, ``Analyzer.commit``, the trackers) costs a dozen calls, most often to find that no
rule and no tracker has anything to do. A lane of a record kind does the same work for the usual
case only, straight through:

1. it settles the record as ``Analyzer.observe`` would (session, direction, progress target or
   request answered, version and revision), where that needs no inference beyond the usual one;
2. it computes the record's dispatch key as ``Engine._plan`` would (the feature bits of the usual
   shape, then the same clean tests) and looks the plan up in the engine's cache (planned by
   ``Engine._plan`` the first time);
3. if the plan runs no check and no tracker, it commits the record as ``Analyzer.commit`` would.

A lane returns None when the record is not of the usual kind (it left the record as it came: the
engine takes the general path), True when it did all three steps, else the plan, which the engine
runs on the settled record as it would on an observed one. So a lane only saves work: what a run
finds is the same with lanes and without (``Engine(lanes=False)``; ``tests/test_lanes.py``
compares both on the samples, the rule examples and random sessions).
"""

from __future__ import annotations

from collections.abc import Callable

from mcplint.analysis.analyzer import (
    _COMMITTED_NOTIFICATIONS,
    _KNOWN_VERSIONS,
    _ONLY_SENDER,
    ANSWERS_READ,
    EMPTY,
    Analyzer,
    RequestEntry,
    Session,
    _open_client_request,
    _progress_ref,
    note_progress,
    progress_ref,
)
from mcplint.analysis.features import FEATURES, TASK_METHODS
from mcplint.model import Direction, Kind, Record
from mcplint.rules.tasks import OPS_FACT

PROGRESS = "notifications/progress"
_REQUEST, _NOTIFICATION, _RESULT = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT
_C2S, _S2C = Direction.C2S, Direction.S2C
_NO_PLAN: tuple = ((), ())
#: the methods of ``Analyzer`` whose work the lanes do (or call)
_ANALYZER_STEPS = ("observe", "commit", "_commit_request", "_answer", "_commit_answer_read", "_commit_notification",
                   "_progress_sender", "_first_message")
#: what a lane returns: None (the general path), True (done) or the plan to run
Lane = None | bool | tuple
#: requests that may start a session (the general path: ``Analyzer._session_for``)
_OPENING_METHODS = frozenset({"initialize", "server/discover"})


def lanes_for(engine, analyzer: Analyzer) -> dict[Kind, Callable[[Record], Lane]]:
    """The lanes of ``engine`` (an ``Engine``) for the records of ``analyzer``, by record kind: each
    takes a record and returns None, True or a plan (see above). None for an analyzer of a class
    that observes or commits its own way: a lane does what ``Analyzer``'s methods do."""
    if any(getattr(type(analyzer), name) is not getattr(Analyzer, name) for name in _ANALYZER_STEPS):
        return {}
    return {_NOTIFICATION: notification_lane(engine, analyzer), _REQUEST: request_lane(engine, analyzer),
            _RESULT: result_lane(engine, analyzer)}


def _runner(analyzer: Analyzer) -> Callable[[Record], Session | None]:
    """``running(record)``: the session under way that ``record`` joins as ``Analyzer.observe``
    would see it (the current one, or the one the capture names), if it holds a message already;
    None for a session just started, a batch element or a record with reader flags (a feature
    of its own)."""
    keyed = analyzer.keyed

    def running(record: Record) -> Session | None:
        key = record.session_key
        session = analyzer.current if key is None else keyed.get(key)
        if session is None or not session.messages or record.parent is not None or record.flags or record.children:
            return None
        return session

    return running


def _settler(engine, analyzer: Analyzer) -> Callable[..., tuple | None]:
    """``settle(record, session, told, direction, version, kind, method, features, answer,
    opening=False)``: what every lane does once it knows a record is of the usual kind. It settles
    the record as ``Analyzer.observe`` would (``told``: the direction the capture gave, else None)
    and finds its plan as ``Engine._plan`` would (``method``: its own or its request's;
    ``features``: the bits of its usual shape, to which it adds those of its time, HTTP facts and
    secret-rule literals and from which it takes those its clean tests clear), making it the first
    time. It returns the plan when the plan runs something (or, ``opening``, whatever it runs: the
    engine commits a session's opening request, and finishes the session it ended); else it notes
    the record in its session as ``Analyzer.commit`` does for every message and returns None, and
    the lane commits what is its kind's own."""
    dispatch, clean_tests, plan_anew, keyed = engine._dispatch, engine._clean_tests, engine._plan, analyzer.keyed
    timed, http, signs = FEATURES["timed"], FEATURES["http"], FEATURES["signs"]

    def settle(record: Record, session, told: Direction | None, direction: Direction, version: str | None,
               kind: Kind, method: str, features: int, answer: str | None, opening: bool = False) -> tuple | None:
        record.direction, record.session, record.version, record.revision = direction, session, version, version
        if told is None:
            record.direction_observed = False
        key = record.session_key
        if key is not None:
            keyed.move_to_end(key)  # (Analyzer._session_for: the named session was active last)
        if record.t is not None:
            features |= timed
        if record.http is not None:
            features |= http
        if record.signs != 0:  # (literals of the secret rules, or None: not scanned by the reader)
            features |= signs
        tests = clean_tests.get((kind, method))
        if tests is not None:
            for bit, clean in tests:
                if clean(record):
                    features &= ~bit
        plan = dispatch.get((kind, method, version, session.modern, session.phase, features, answer,
                             session.plan_facts)) or plan_anew(record, session)
        if opening or plan != _NO_PLAN:
            return plan
        session.last_record = record
        session.messages += 1
        return None

    return settle


def notification_lane(engine, analyzer: Analyzer) -> Callable[[Record], Lane]:
    """The lane of a usual notification of ``analyzer``'s sessions: progress for a live request of
    the peer (no ``_meta``, no task, not cancelled), or a notification whose sender the capture
    or its method tells (``notifications/message``, ``notifications/initialized``, ...), for
    ``engine`` (an ``Engine``: its plans, clean tests and family feature bits)."""
    settle, running = _settler(engine, analyzer), _runner(analyzer)
    well_formed = FEATURES["token"] | engine._family_bits  # the features of every usual notification
    only_sender, committed, task_methods = _ONLY_SENDER, _COMMITTED_NOTIFICATIONS, TASK_METHODS
    commit_notification = Analyzer._commit_notification

    def lane(record: Record) -> Lane:
        session = running(record)
        if session is None:
            return None
        params = record.params
        msg = record.msg
        if type(params) is not dict:
            if params is not None or "params" in msg:
                return None
        elif "_meta" in params:
            return None
        if msg.get("jsonrpc") != "2.0":
            return None
        method = record.method
        told = record.direction
        if method == PROGRESS:
            if params is None:
                return None
            token = params.get("progressToken")
            if type(token) is not int and type(token) is not str:
                return None
            if told is None and not session.server_asked:  # (Analyzer._progress_sender's usual case)
                table = session.tokens.get(_C2S)
                live = table.get(token) if table is not None else None
                if live is None:
                    return None
                direction = _S2C
                ref = record.target = _progress_ref(token, token, _C2S, live, None)
            elif told is None:
                direction = Analyzer._progress_sender(record, session, params)  # (sets record.target)
                if direction is None:
                    return None
                ref = record.target
            else:
                direction = told
                ref = record.target = progress_ref(record, session)
            entry = ref.live
            if entry is None or entry.cancel is not None or entry.task:
                record.target = None
                return None
        else:
            if method in task_methods:
                return None
            direction = told if told is not None else only_sender.get(method)
            if direction is None:
                return None
            entry = None
        if direction not in session.first_message:
            record.target = None
            return None
        version = session.version or session.requested_version or analyzer.protocol_version
        if version not in _KNOWN_VERSIONS:
            record.target = None
            return None
        plan = settle(record, session, told, direction, version, _NOTIFICATION, method, well_formed, None)
        if plan is not None:
            return plan
        if entry is not None:
            note_progress(entry, params, record)
        elif method in committed:
            commit_notification(record, session, direction)
        return True

    return lane


def request_lane(engine, analyzer: Analyzer) -> Callable[[Record], Lane]:
    """The lane of a client's usual request in a handshake session: a new integer or string id, no
    ``_meta`` but a fresh integer or string progress token, no task; and of an ``initialize`` that
    ends the session under way and opens the next one (:func:`opening_lane`)."""
    settle, running, family_bits = _settler(engine, analyzer), _runner(analyzer), engine._family_bits
    overlap, cursor = FEATURES["overlap"], FEATURES["cursor"]
    commit_request = analyzer._commit_request
    only_sender, task_methods, opening_methods = _ONLY_SENDER, TASK_METHODS, _OPENING_METHODS
    opening = opening_lane(engine, analyzer, settle, running)

    def lane(record: Record) -> Lane:
        method = record.method
        if method in opening_methods:
            return opening(record) if method == "initialize" else None
        if method in task_methods:
            return None
        session = running(record)
        if session is None or session.era != "legacy" or session.limits_hit:
            return None
        rid = record.id
        if type(rid) is not int and type(rid) is not str:
            return None
        params = record.params
        msg = record.msg
        features = family_bits
        if type(params) is dict:
            if "task" in params:
                return None
            if "cursor" in params:
                features |= cursor
            if "_meta" in params:
                meta = params["_meta"]  # (only a lone progress token: no "meta" feature, no modern request)
                if type(meta) is not dict or len(meta) != 1 or "progressToken" not in meta:
                    return None
                token = meta["progressToken"]
                if type(token) is not int and type(token) is not str \
                        or session.tokens.get(_C2S, EMPTY).get(token) is not None:
                    return None
        elif params is not None or "params" in msg:
            return None
        if msg.get("jsonrpc") != "2.0":
            return None
        told = record.direction
        direction = told if told is not None else only_sender.get(method)
        if direction is not _C2S or rid in session.requests.get(_C2S, EMPTY) or _C2S not in session.first_message:
            return None
        version = session.version or session.requested_version or analyzer.protocol_version
        if version not in _KNOWN_VERSIONS:
            return None
        if session.pending.get(_C2S):
            features |= overlap
        plan = settle(record, session, told, direction, version, _REQUEST, method, features, None)
        if plan is not None:
            return plan
        commit_request(record, session, _C2S)
        return True

    return lane


def opening_lane(engine, analyzer: Analyzer, settle, running) -> Callable[[Record], Lane]:
    """The lane of the request that opens most sessions of a tee of many: an ``initialize`` (integer
    or string id, params without ``_meta`` or task) of the client after the session under way
    (unnamed) has messages. It ends that session and opens the next (``Analyzer._session_for``,
    as ``observe`` asks it), settles the record as the new session's first message and returns
    its plan, even one that runs nothing: the engine commits the record and finishes the session
    that ended, as it would have after ``observe``."""
    family_bits = engine._family_bits | FEATURES["first"]  # (the first message of its session)
    cursor, first_message = FEATURES["cursor"], Analyzer._first_message

    def lane(record: Record) -> Lane:
        if record.session_key is not None or running(record) is None:
            return None  # (a named session, the file's first, or a record with reader flags)
        rid, params, told = record.id, record.params, record.direction
        if type(rid) is not int and type(rid) is not str or type(params) is not dict or "_meta" in params \
                or "task" in params or told is _S2C or record.msg.get("jsonrpc") != "2.0":
            return None
        version = analyzer.protocol_version  # (a new session's: no version requested yet)
        if version is not None and version not in _KNOWN_VERSIONS:
            return None
        session = record.session = analyzer._session_for(record)
        session.first_record = record
        session.set_era("legacy")
        first_message(record, session, _C2S)
        features = family_bits | cursor if "cursor" in params else family_bits
        return settle(record, session, told, _C2S, version, _REQUEST, "initialize", features, None, True)

    return lane


def result_lane(engine, analyzer: Analyzer) -> Callable[[Record], Lane]:
    """The lane of the usual result: an object (no ``_meta``, no task) answering the open,
    uncancelled request of its integer or string id; the answer to initialize too, the server's
    first message, noted as such (``Analyzer._first_message``)."""
    settle, running, answer = _settler(engine, analyzer), _runner(analyzer), Analyzer._answer
    well_formed, task_ops = FEATURES["token"] | engine._family_bits, FEATURES["task-ops"]
    task_methods, answers_read, commit_answer_read = TASK_METHODS, ANSWERS_READ, analyzer._commit_answer_read
    first_message = Analyzer._first_message

    def lane(record: Record) -> Lane:
        session = running(record)
        if session is None:
            return None
        msg = record.msg
        result = msg.get("result")
        if type(result) is not dict or "_meta" in result or "task" in result or "error" in msg \
                or msg.get("jsonrpc") != "2.0":
            return None
        rid = record.id
        if type(rid) is not int and type(rid) is not str:
            return None
        told = record.direction
        direction = _S2C if told is None else told
        if told is None:
            if record.session_key is not None:
                return None
            entry = _open_client_request(record, session)  # (as Analyzer.observe finds it)
        else:
            asker = told.other
            entry = session.requests.get(asker, EMPTY).get(rid) or session.pending.get(asker, EMPTY).get(rid)
            if type(entry) is not RequestEntry or entry.response is not None:
                return None
        if entry is None or entry.cancel is not None:
            return None
        request = entry.record
        method = request.method
        params = request.params
        if method in task_methods or type(params) is dict and "task" in params:
            return None
        version = request.version or session.version or session.requested_version or analyzer.protocol_version
        if version not in _KNOWN_VERSIONS:
            return None
        if direction not in session.first_message:  # (the answer to initialize, as a rule)
            first_message(record, session, direction)
        record.request, record.answer = request, "ok"
        plan = settle(record, session, told, direction, version, _RESULT, method,
                      well_formed | task_ops if OPS_FACT in session.plan_facts else well_formed, "ok")
        if plan is not None:
            return plan
        answer(session, direction.other, rid, record)
        if method in answers_read:
            commit_answer_read(record, session, request)
        return True

    return lane

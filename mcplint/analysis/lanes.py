"""Fast lanes: the usual records of a running session, observed, planned and committed in one step.

Most records of a capture are the everyday messages of a session under way: progress, log
messages, tool calls and their answers, well-formed and in order. For such a record the general
path (``Analyzer.observe``, ``features.record_features``, the families' clean tests, the plan, the
checks, ``Analyzer.commit``, the trackers) finds that no rule and no tracker has anything to do,
at the cost of a dozen calls. A lane does the same work for the usual case only, straight through:

1. it settles the record as ``Analyzer.observe`` would (session, direction, progress target,
   version and revision), where that needs no inference beyond the usual one;
2. it computes the record's dispatch key as ``Engine._plan`` would (the feature bits of the usual
   shape, then the same clean tests) and looks the plan up in the engine's cache;
3. if the cached plan runs no check and no tracker, it commits the record as ``Analyzer.commit``
   would, and the record is done.

Anything else (an unusual shape, a session fact a lane does not know, a plan not cached yet or
not empty) puts the record back as it came, and the engine takes the general path. So a lane
only ever saves work: what a run finds is the same with lanes and without (``Engine(lanes=False)``;
``tests/test_lanes.py`` compares both on the samples, the rule examples and random captures).
"""

from __future__ import annotations

from collections.abc import Callable

from mcplint.analysis.analyzer import (
    _COMMITTED_NOTIFICATIONS,
    _KNOWN_VERSIONS,
    _ONLY_SENDER,
    Analyzer,
    note_progress,
    progress_ref,
)
from mcplint.analysis.features import FEATURES, TASK_METHODS
from mcplint.model import Kind, Record

PROGRESS = "notifications/progress"
_NOTIFICATION = Kind.NOTIFICATION
_NO_PLAN: tuple = ((), ())


def notification_lane(engine, analyzer: Analyzer) -> Callable[[Record], bool]:
    """The lane of a usual notification of ``analyzer``'s sessions: progress for a live request of
    the peer (no ``_meta``, no task, not cancelled), or a notification only one side sends that
    the analyzer does not commit (``notifications/message``, ...), for ``engine`` (an
    ``Engine``: its plans, clean tests and family feature bits). The lane returns whether it took
    the record."""
    dispatch, family_bits, clean_tests = engine._dispatch, engine._family_bits, engine._clean_tests
    well_formed = FEATURES["token"] | family_bits  # the features of every usual notification
    timed, http = FEATURES["timed"], FEATURES["http"]
    keyed = analyzer.keyed
    only_sender, committed, task_methods = _ONLY_SENDER, _COMMITTED_NOTIFICATIONS, TASK_METHODS

    def lane(record: Record) -> bool:
        key = record.session_key
        if key is None:
            session = analyzer.current
        else:
            session = keyed.get(key)
        if session is None or not session.messages or record.parent is not None or record.flags \
                or record.signs != 0 or record.children:
            return False
        params = record.params
        msg = record.msg
        if type(params) is not dict:
            if params is not None or "params" in msg:
                return False
        elif "_meta" in params:
            return False
        if msg.get("jsonrpc") != "2.0":
            return False
        method = record.method
        told = record.direction
        if method == PROGRESS:
            if params is None:
                return False
            token = params.get("progressToken")
            if type(token) is not int and type(token) is not str:
                return False
            if told is None:
                direction = Analyzer._progress_sender(record, session, params)  # (sets record.target)
                if direction is None:
                    return False
                ref = record.target
            else:
                direction = told
                ref = record.target = progress_ref(record, session)
            entry = ref.live
            if entry is None or entry.cancel is not None or entry.task:
                record.target = None
                return False
        else:
            if method in committed or method in task_methods:
                return False
            direction = told if told is not None else only_sender.get(method)
            if direction is None:
                return False
            entry = None
        if direction not in session.first_message:
            record.target = None
            return False
        version = session.version or session.requested_version or analyzer.protocol_version
        if version not in _KNOWN_VERSIONS:
            record.target = None
            return False
        record.direction, record.session, record.version, record.revision = direction, session, version, version
        if told is None:
            record.direction_observed = False
        features = well_formed | (timed if record.t is not None else 0) | (http if record.http is not None else 0)
        tests = clean_tests.get((_NOTIFICATION, method))
        if tests is not None:
            for bit, clean in tests:
                if clean(record):
                    features &= ~bit
        plan = dispatch.get((_NOTIFICATION, method, version, session.modern, session.phase, features, None,
                             session.plan_facts))
        if plan != _NO_PLAN:  # (not planned yet, or a check or tracker to run: the general path)
            record.direction, record.target = told, None
            if told is None:
                record.direction_observed = True
            return False
        if key is not None:
            keyed.move_to_end(key)
        session.last_record = record
        session.messages += 1
        if entry is not None:
            note_progress(entry, params, record)
        return True

    return lane


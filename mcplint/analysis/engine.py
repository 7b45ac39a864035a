"""The lint engine: records in, findings out, dispatching each record to relevant rules only."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import IO

from mcplint import protocol
from mcplint.analysis.analyzer import Analyzer, Limits, Session
from mcplint.analysis.features import FEATURES, record_features
from mcplint.analysis.lanes import lanes_for
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames
from mcplint.model import Direction, Finding, Kind, Record
from mcplint.rules import all_rules
from mcplint.rules._base import FAMILY_FEATURES, TRACKERS, Rule, Tracker

_C2S, _S2C = Direction.C2S, Direction.S2C

#: the needs of a finisher (``Rule.finish_needs``) that are no key of ``Session.state``
SESSION_NEEDS = frozenset({"pending:c2s", "pending:s2c", "limits"})


def _needs(rule: Rule) -> frozenset | None:
    """``rule.finish_needs`` with "state" as the keys of the rule's own state (its class's name,
    which ``Session.state_for`` uses, and its class); None (called at every session's end) where
    a class overrides ``finish`` without declaring its needs anew."""
    for cls in type(rule).__mro__:
        if "finish_needs" in vars(cls):
            needs = cls.finish_needs
            if needs is None or "state" not in needs:
                return needs
            return needs - {"state"} | {type(rule).__name__, type(rule)}
        if "finish" in vars(cls):
            return None
    return None


def _state_needs(rule: Rule) -> frozenset:
    """The keys of ``Session.state`` among the needs of ``rule``'s finisher."""
    return (_needs(rule) or frozenset()) - SESSION_NEEDS


class Engine:
    """Runs a fixed set of rules over record streams.

    Each record gets a plan, cached per dispatch key (kind, method, revision, era, phase, answer,
    feature bits and the session's plan facts: :meth:`_plan`): the checks of the rules that declared interest in it and
    the trackers that commit it, so a record costs only the rules that can say something about it.
    ``observers`` are trackers that see every record they ask for after it was judged (the
    ``stats`` and ``show`` commands use them). ``lanes``: the usual records whose plan is known to
    run nothing take a fast lane (:mod:`mcplint.analysis.lanes`); False only to compare.
    """

    def __init__(self, rules: Sequence[Rule] | None = None, protocol_version: str | None = None,
                 observers: Sequence[Tracker] = (), lanes: bool = True):
        self.rules = sorted(rules if rules is not None else all_rules(), key=lambda r: r.code)
        self.protocol_version = protocol_version
        self._any_method: dict[Kind, list[Rule]] = {}
        self._by_method: dict[tuple[Kind, str], list[Rule]] = {}
        for rule in self.rules:
            for kind in rule.kinds:
                if rule.methods is None:
                    self._any_method.setdefault(kind, []).append(rule)
                else:
                    for method in rule.methods:
                        self._by_method.setdefault((kind, method), []).append(rule)
        self._dispatch: dict[tuple, tuple] = {}  # dispatch key -> (bound check methods, trackers): see _plan
        # the families' features take the bits above the built-in ones; each holds unless its
        # clean test passes on a record of its kind and method (tested only when a rule of this
        # engine requires the feature)
        features = FEATURES | {name: 1 << (16 + i) for i, name in enumerate(sorted(FAMILY_FEATURES))}
        self._family_bits = sum(features[name] for name in FAMILY_FEATURES)
        self._clean_tests: dict[tuple[Kind, str], list[tuple[int, object]]] = {}
        # family trackers, then observers (stats, timelines) that watch the same records
        self.trackers = [cls() for cls in TRACKERS] + list(observers)
        # id of a rule or tracker -> (features that must all hold, features and plan facts of which
        # one must hold), where it names any
        requiring = [(r, r.requires, r.requires_any) for r in self.rules if r.requires or r.requires_any]
        requiring += [(t, t.requires, t.requires_any) for t in self.trackers  # (observers may not say)
                      if getattr(t, "requires", None) or getattr(t, "requires_any", None)]
        self._requires = {
            id(who): (sum(features[name] for name in every),
                      sum(features[name] for name in one if not name.startswith("fact:")),
                      frozenset(name[5:] for name in one if name.startswith("fact:")))
            for who, every, one in requiring}
        required = {name for _, every, one in requiring for name in (*every, *one)}
        for name, (kind, methods, clean) in FAMILY_FEATURES.items():
            for method in methods if name in required else ():
                self._clean_tests.setdefault((kind, method), []).append((features[name], clean))
        self._finishers = [r for r in self.rules if type(r).finish is not Rule.finish]
        # the Session.state keys some finisher needs (Rule.finish_needs)
        self._finish_keys = frozenset(key for r in self._finishers for key in _state_needs(r))
        self._finishers_for: dict[tuple, tuple] = {}  # _finish's key -> bound finish methods to call
        self._file_finishers = [r for r in self.rules if type(r).finish_file is not Rule.finish_file]
        self._tracker_finishers = [t for t in self.trackers if getattr(type(t), "finish", None) is not Tracker.finish]
        self.lanes = lanes  # the usual records take a fast lane (:mod:`mcplint.analysis.lanes`)
        self.crashes: list[str] = []
        self._seq = 0  # the next record's arrival number (Record.seq)
        self.taken = 0  # records taken from the streams (batches count once)
        self._tracker_dispatch: dict[tuple, tuple[Tracker, ...]] = {}

    def _trackers_for(self, record: Record, session: Session) -> tuple[Tracker, ...]:
        kind, method, revision, modern = record.kind, record.effective_method, record.revision, session.modern
        key = (kind, method, revision, modern)
        trackers = self._tracker_dispatch.get(key)
        if trackers is None:
            if len(self._tracker_dispatch) > 4096:
                self._tracker_dispatch.clear()
            trackers = self._tracker_dispatch[key] = tuple(
                t for t in self.trackers
                if kind in t.kinds and (t.methods is None or method in t.methods)
                and t.dispatches(kind, method, revision, modern))
        return trackers

    @property
    def limits(self) -> Limits:
        """Caps of the per-session tables: IO012's options when it runs, else the defaults."""
        for rule in self.rules:
            if hasattr(rule, "table_limits"):
                return rule.table_limits()
        return Limits()

    # -- public API ------------------------------------------------------------------------
    def lint_stream(self, stream: IO[bytes], path: str, input_format: str = "auto",
                    analyzer: Analyzer | None = None) -> Iterator[Finding]:
        """Lint one binary stream (a file or stdin)."""
        _, frames = open_frames(stream, input_format)
        return self.lint_records(Parser(path).records(frames), path, analyzer)

    def lint_records(self, records: Iterable[Record], path: str,
                     analyzer: Analyzer | None = None, whole_file: bool = True) -> Iterator[Finding]:
        """Lint an iterable of parsed records of one file (the library entry point).

        ``whole_file`` False: the records are one part of a file (:mod:`mcplint.analysis.parallel`), so
        the rules that judge a file as a whole (``Rule.finish_file``) are not asked.
        """
        analyzer = analyzer or Analyzer(path, self.protocol_version, self.limits)
        observe, commit, plan = analyzer.observe, analyzer.commit, self._plan
        lanes = lanes_for(self, analyzer) if self.lanes else {}
        # the arrival number and the count of records taken live in locals, and in self._seq
        # around the calls that read it
        seq, taken = self._seq, 0
        try:
            for record in records:
                # (the loop runs once per record of the input: _run and _commit are inline)
                record.seq = seq
                seq += 1
                taken += 1
                lane = lanes.get(record.kind)
                planned = lane(record) if lane is not None else None
                if planned is None:
                    session = observe(record)
                    checks, trackers = plan(record, session)
                elif planned is True:
                    continue  # a usual record: observed, planned (nothing to run) and committed
                else:  # a usual record with something to run: observed and planned
                    session = record.session
                    checks, trackers = planned
                revision, modern = record.revision, session.modern
                found: list[Finding] | tuple[()] = ()
                for check in checks:
                    try:
                        out = check(record, session)
                        if out:  # (an empty list or tuple: nothing found; a generator is always run)
                            if not found:
                                found = []
                            found.extend(out)
                    except Exception as exc:  # a bug of ours must not cost the user the other findings
                        self._crashed(check.__self__.code, record.path, record.line, exc)
                if record.children:  # each element judged and committed before the batch
                    self._seq = seq
                    for child in record.children:
                        found = [*found, *self._element(child, analyzer, session)]
                    seq = self._seq
                commit(record)
                if record.revision is not revision or session.modern is not modern:
                    trackers = self._trackers_for(record, session)  # the commit changed what applies
                for tracker in trackers:
                    try:
                        tracker.commit(record, session)
                    except Exception as exc:
                        self._crashed(type(tracker).__name__, record.path, record.line, exc)
                if found:
                    yield from found
                if analyzer.closed:
                    for session in analyzer.take_closed():
                        out = self._finish(session)
                        analyzer.retire(session)
                        if out:
                            yield from out
        finally:
            self._seq = seq
            self.taken += taken
        for session in analyzer.all_sessions():
            if not session.finished:
                out = self._finish(session)
                analyzer.retire(session)
                if out:
                    yield from out
        if whole_file:
            for rule in self._file_finishers:
                try:
                    yield from rule.finish_file(path, analyzer)
                except Exception as exc:
                    self._crashed(rule.code, path, 0, exc)

    # -- internals -------------------------------------------------------------------------
    def _plan(self, record: Record, session: Session) -> tuple[tuple, tuple[Tracker, ...]]:
        """The bound ``check`` methods of the rules interested in this record's kind, method,
        phase, features and session plan facts that apply to its revision, and the trackers that commit it (as the
        session stands before it: see :meth:`_commit`), cached per combination."""
        kind, method, version, modern = record.kind, record.method, record.revision, session.modern
        if method is None and record.request is not None:
            method = record.request.method  # (Record.effective_method inline)
        features = record_features(record, session) | self._family_bits
        if self._clean_tests:
            tests = self._clean_tests.get((kind, method))
            if tests is not None:
                for bit, clean in tests:
                    if clean(record):
                        features &= ~bit
        phase, answer, facts = session.phase, record.answer, session.plan_facts
        key = (kind, method, version, modern, phase, features, answer, facts)
        plan = self._dispatch.get(key)
        if plan is None:
            if len(self._dispatch) > 4096:  # custom methods and odd versions: keep the cache bounded
                self._dispatch.clear()
            chosen = set(self._any_method.get(kind, ()))
            if method is not None:
                chosen.update(self._by_method.get((kind, method), ()))
            checks = tuple(rule.check for rule in sorted(
                (r for r in chosen if self.applies(r, version, modern)
                 and (r.phases is None or phase in r.phases)
                 and (r.answers is None or answer in r.answers)
                 and self._wants(r, features, facts)
                 and r.dispatches(kind, method, version, modern)
                 and r.awaits(facts, kind, method)),
                key=lambda r: r.code))
            trackers = tuple(t for t in self._trackers_for(record, session) if self._wants(t, features, facts))
            plan = self._dispatch[key] = (checks, trackers)
        return plan

    def _wants(self, who: Rule | Tracker, features: int, facts: frozenset[str]) -> bool:
        """Whether the record ``features`` and the session's plan ``facts`` hold what the rule or
        tracker ``who`` requires (all of ``requires``, one of ``requires_any`` if it names any)."""
        required = self._requires.get(id(who))
        if required is None:
            return True
        every, one, one_fact = required
        return features & every == every and (not (one or one_fact) or bool(features & one)
                                              or not one_fact.isdisjoint(facts))

    def applies(self, rule: Rule, version: str | None, modern: bool) -> bool:
        """Whether ``rule`` covers ``version`` (unknown versions: the session's era)."""
        known = protocol.nearest_known(version, modern)
        if known is None:
            return bool(rule.versions & (protocol.MODERN if modern else protocol.LEGACY))
        return known in rule.versions

    def _element(self, child: Record, analyzer: Analyzer, session: Session) -> list[Finding] | tuple[()]:
        child.seq = self._seq
        self._seq += 1
        analyzer.observe(child)
        revision, modern = child.revision, session.modern
        checks, trackers = self._plan(child, session)
        found = self._run(checks, child, session) if checks else ()
        analyzer.commit(child)
        self._commit(child, session, trackers, revision, modern)
        return found

    def _run(self, checks: tuple, record: Record, session: Session) -> list[Finding]:
        found: list[Finding] = []
        for check in checks:
            try:
                found.extend(check(record, session))
            except Exception as exc:  # a bug of ours must not cost the user the other findings
                self._crashed(check.__self__.code, record.path, record.line, exc)
        return found

    def _commit(self, record: Record, session: Session, trackers: tuple[Tracker, ...],
                revision: str | None, modern: bool) -> None:
        """Let ``trackers`` (planned before the analyzer committed the record, when its revision
        and the session's era were ``revision`` and ``modern``) commit ``record``; planned anew
        if the commit changed either."""
        if record.revision is not revision or session.modern is not modern:
            trackers = self._trackers_for(record, session)
        for tracker in trackers:
            try:
                tracker.commit(record, session)
            except Exception as exc:
                self._crashed(type(tracker).__name__, record.path, record.line, exc)

    def _finish(self, session: Session) -> list[Finding]:
        """The findings of the rules that judge ``session`` as a whole, now that it ended; its
        trackers finish, and its tables are released."""
        found: list[Finding] = []
        for finish in self.finishers_of(session):
            try:
                out = finish(session)
                if out:  # (most finishers return an empty tuple; a generator is always run)
                    found.extend(out)
            except Exception as exc:  # (what a generator yielded before it failed is kept)
                self._crashed(finish.__self__.code, session.path, 0, exc)
        for tracker in self._tracker_finishers:
            try:
                tracker.finish(session)
            except Exception as exc:
                self._crashed(type(tracker).__name__, session.path, 0, exc)
        session.release()
        return found

    def finishers_of(self, session: Session) -> tuple:
        """The bound finish methods to call as ``session`` ends: those that apply to its version
        and era and whose ``Rule.finish_needs`` one holds, decided once per combination of those
        and of the needs that hold (cheap tests of the session's state and tables)."""
        pending = session.pending
        key = (session.version, session.modern, self._finish_keys.intersection(session.state),
               bool(pending.get(_C2S)), bool(pending.get(_S2C)), bool(session.limits_hit))
        finishers = self._finishers_for.get(key)
        if finishers is None:
            if len(self._finishers_for) > 256:  # odd versions and states: keep the cache bounded
                self._finishers_for.clear()
            finishers = self._finishers_for[key] = self._plan_finish(*key)
        return finishers

    def _plan_finish(self, version: str | None, modern: bool, keys: frozenset, client_waits: bool,
                     server_waits: bool, forgot: bool) -> tuple:
        """The bound finish methods to call at the end of a session of ``version`` and era whose
        state holds ``keys`` (of the finishers' needs), whose client and server do or do not
        have requests open and whose tables did or did not forget: those that apply and whose
        ``finish_needs`` one holds."""
        held = keys | {need for need, holds in (("pending:c2s", client_waits), ("pending:s2c", server_waits),
                                                ("limits", forgot)) if holds}
        return tuple(rule.finish for rule in self._finishers if self.applies(rule, version, modern)
                     and ((needs := _needs(rule)) is None or not held.isdisjoint(needs)))

    def _crashed(self, who: str, path: str, line: int, exc: Exception) -> None:
        if os.environ.get("MCPLINT_DEBUG"):
            raise exc
        if len(self.crashes) < 100:
            self.crashes.append(f"{who} failed on {path}:{line}: {type(exc).__name__}: {exc}")

    def take_crashes(self) -> list[str]:
        """Internal errors of rules since the last call (the run goes on without them)."""
        crashes, self.crashes = self.crashes, []
        return crashes

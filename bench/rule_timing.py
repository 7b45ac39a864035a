"""Timing of each rule's ``check`` by wrapping it (shared by ``profile_rules.py`` and ``bench_stages.py``).

Every engine created while :func:`timed_rules` runs gets its rules' ``check`` wrapped with a
timer and a call counter (the wrapper adds about 0.2 µs per call, so the times are upper bounds).
The rule families' other per-record code is timed too, under its own names: each family
feature's clean test (``feature:odd-answer``: the engine runs it while planning a record), each
tracker's ``commit`` (``tracker:TaskTracker``) and each rule's ``finish`` (``TL001 finish``, once
per session). Only ``check`` calls count as rule calls per record.
"""

from __future__ import annotations

import collections
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mcplint.analysis import engine as engine_module
from mcplint.rules._base import FAMILY_FEATURES


@dataclass
class RuleTimes:
    """One wrapped run: records linted, seconds and calls per rule code, calls per record (by ``seq``)."""

    records: int = 0
    spent: collections.Counter = field(default_factory=collections.Counter)
    calls: collections.Counter = field(default_factory=collections.Counter)
    per_record: collections.Counter = field(default_factory=collections.Counter)

    def clear(self) -> None:
        self.spent.clear()
        self.calls.clear()
        self.per_record.clear()

    def checks_spent(self) -> float:
        """Seconds in rule ``check`` calls alone."""
        return sum(seconds for code, seconds in self.spent.items() if code.isalnum())

    @property
    def total_calls(self) -> int:
        """Rule ``check`` calls (not clean tests, tracker commits or finishes)."""
        return sum(count for code, count in self.calls.items() if code.isalnum())

    def calls_spread(self) -> tuple[float, int, int, int]:
        """(share of records no rule was called for, fewest calls of a record that had any,
        median calls per record, most calls of a record)."""
        counts = sorted(self.per_record.values())
        none = max(self.records - len(counts), 0)
        everyone = [0] * none + counts
        median = everyone[len(everyone) // 2] if everyone else 0
        return none / max(self.records, 1), counts[0] if counts else 0, median, counts[-1] if counts else 0

    def table(self, top: int) -> list[str]:
        """Lines of the most expensive rules: µs per record (of all records), calls, µs per call."""
        records = max(self.records, 1)
        lines = [f"{'rule':24} {'µs/record':>10} {'calls':>8} {'µs/call':>8}"]
        for code, seconds in sorted(self.spent.items(), key=lambda item: -item[1])[:top]:
            lines.append(f"{code:24} {seconds / records * 1e6:10.2f} {self.calls[code]:8} "
                         f"{seconds / self.calls[code] * 1e6:8.2f}")
        return lines


def timed_rules(run: Callable[[], int]) -> RuleTimes:
    """Call ``run`` (it lints with engines it creates and returns the records it linted) twice,
    a warm-up then a measured run, with every rule's ``check`` timed and counted."""
    times = RuleTimes()
    original = engine_module.Engine.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        for rule in self.rules:
            rule.check = wrap(rule.check, rule.code)
            if rule in self._finishers:
                rule.finish = wrap_once(rule.finish, f"{rule.code} finish")
        for tracker in self.trackers:
            tracker.commit = wrap(tracker.commit, f"tracker:{type(tracker).__name__}", counted=False)
        names = {clean: name for name, (_, _, clean) in FAMILY_FEATURES.items()}
        for tests in self._clean_tests.values():
            tests[:] = [(bit, wrap_once(clean, f"feature:{names[clean]}")) for bit, clean in tests]

    def wrap(check, code, counted=True):
        spent, calls, per_record = times.spent, times.calls, times.per_record

        def timed(record, session):
            start = time.perf_counter()
            out = check(record, session)
            if out is not None and not isinstance(out, (list, tuple)):
                out = list(out)  # generators do their work here
            spent[code] += time.perf_counter() - start
            calls[code] += 1
            if counted:
                per_record[record.seq] += 1
            return out
        return timed

    def wrap_once(function, code):
        """``function`` of one argument (a feature's clean test, a rule's finish) timed and counted."""
        spent, calls = times.spent, times.calls

        def timed(argument):
            start = time.perf_counter()
            out = function(argument)
            if out is not None and not isinstance(out, (bool, list, tuple)):
                out = list(out)
            spent[code] += time.perf_counter() - start
            calls[code] += 1
            return out
        return timed

    engine_module.Engine.__init__ = init
    try:
        run()  # warm-up
        times.clear()
        gc.collect()  # a full collection left over from earlier runs would land on one rule
        times.records = run()
    finally:
        engine_module.Engine.__init__ = original
    return times

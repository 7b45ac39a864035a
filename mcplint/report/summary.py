"""What a run looked at, for summary lines."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from mcplint.model import Finding, Severity


@dataclass(slots=True)
class SessionInfo:
    label: str
    version: str | None
    era: str | None
    records: int = 0


class SessionList:
    """The sessions of one file as a run's summary keeps them: reads as a list of
    :class:`SessionInfo`, kept in columns. A label that is the decimal text of a number (as the
    analyzer numbers the sessions a capture does not name) is kept as that number; the (version,
    era) of a session as its index among the file's few. 160,000 short sessions of a 1 GB tee
    take about 2 MB, where a SessionInfo and a label text each took 20 MB."""

    __slots__ = ("_numbers", "_names", "_facts", "_fact_index", "_which")

    def __init__(self, sessions: Iterable[SessionInfo] = ()):
        self._numbers = array("q")  # per session: its label as a number, or -1 (the label is in _names)
        self._names: dict[int, str] = {}  # position -> a label that is no number
        self._facts: list[tuple[str | None, str | None]] = []  # the distinct (version, era)
        self._fact_index: dict[tuple[str | None, str | None], int] = {}
        self._which = array("I")  # per session: its index into _facts
        self.extend(sessions)

    def append(self, label: str, version: str | None, era: str | None) -> None:
        if label.isascii() and label.isdigit() and len(label) < 19 and (label == "0" or label[0] != "0"):
            self._numbers.append(int(label))  # (the same text again from str())
        else:
            self._names[len(self._numbers)] = label
            self._numbers.append(-1)
        facts = (version, era)
        index = self._fact_index.get(facts)
        if index is None:
            index = self._fact_index[facts] = len(self._facts)
            self._facts.append(facts)
        self._which.append(index)

    def extend(self, sessions: Iterable[SessionInfo]) -> None:
        if type(sessions) is SessionList:  # a part's sessions (--jobs): column by column
            self._extend_columns(sessions)
            return
        for session in sessions:
            self.append(session.label, session.version, session.era)

    def _extend_columns(self, other: SessionList) -> None:
        offset = len(self._numbers)
        self._numbers.extend(other._numbers)
        for position, label in other._names.items():
            self._names[offset + position] = label
        index = []  # other's fact index -> ours
        for facts in other._facts:
            if facts not in self._fact_index:
                self._fact_index[facts] = len(self._facts)
                self._facts.append(facts)
            index.append(self._fact_index[facts])
        if index == list(range(len(index))):
            self._which.extend(other._which)
        else:
            self._which.extend(index[which] for which in other._which)

    def __len__(self) -> int:
        return len(self._numbers)

    def __iter__(self) -> Iterator[SessionInfo]:
        names, facts = self._names, self._facts
        for position, (number, which) in enumerate(zip(self._numbers, self._which)):
            yield SessionInfo(str(number) if number >= 0 else names[position], *facts[which])


@dataclass(slots=True)
class RunSummary:
    files: int = 0
    records: int = 0
    sessions: dict[str, SessionList | list[SessionInfo]] = field(default_factory=dict)  # path -> sessions
    formats: dict[str, str] = field(default_factory=dict)  # path -> input format
    crashes: list[str] = field(default_factory=list)  # internal errors of rules (bugs to report)
    #: files found under directories that are not MCP captures: (path, why)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: findings hidden by --min-severity, per severity, and the --fail-on threshold that still
    #: counts them (set by the command after filtering)
    hidden: dict[Severity, int] = field(default_factory=dict)
    fail_on: Severity | None = None

    @staticmethod
    def counts(findings: list[Finding]) -> dict[Severity, int]:
        out = {s: 0 for s in Severity}
        for finding in findings:
            out[finding.severity] += 1
        return out

    def merge(self, other: RunSummary) -> None:
        """Add another run's counts (files linted in another process)."""
        self.files += other.files
        self.records += other.records
        self.sessions.update(other.sessions)
        self.formats.update(other.formats)
        self.crashes.extend(other.crashes)
        self.skipped.extend(other.skipped)

    def hidden_failing(self) -> int:
        """Hidden findings at or above ``fail_on``: they fail the run though none is shown."""
        if self.fail_on is None:
            return 0
        return sum(n for severity, n in self.hidden.items() if severity.rank >= self.fail_on.rank)

    def session_count(self) -> int:
        return sum(len(v) for v in self.sessions.values())

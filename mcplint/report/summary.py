"""What a run looked at, for summary lines."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcplint.model import Finding, Severity


@dataclass(slots=True)
class SessionInfo:
    label: str
    version: str | None
    era: str | None
    records: int = 0


@dataclass(slots=True)
class RunSummary:
    files: int = 0
    records: int = 0
    sessions: dict[str, list[SessionInfo]] = field(default_factory=dict)  # path -> sessions
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

"""What a redaction run found: counts per kind, distinct secrets, and (for ``--check``) each hit.

Reports never hold a value, not even a prefix: only the kind, the tag (meaningless without
the run key), the line and the JSON path.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

#: Hits kept for ``--check`` before the list is cut (counts stay exact).
MAX_HITS = 100_000


class Hit(NamedTuple):
    line: int
    path: str
    kind: str


@dataclass
class Report:
    counts: Counter = field(default_factory=Counter)
    distinct: dict[str, set[str]] = field(default_factory=dict)
    hits: list[Hit] = field(default_factory=list)
    lines: int = 0
    changed_lines: int = 0
    truncated: bool = False

    def add(self, kind: str, tag: str, line: int, path: str | None) -> None:
        self.counts[kind] += 1
        self.distinct.setdefault(kind, set()).add(tag)
        if path is not None:
            if len(self.hits) < MAX_HITS:
                self.hits.append(Hit(line, path, kind))
            else:
                self.truncated = True

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> str:
        if not self.counts:
            return f"nothing to redact in {self.lines} lines"
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])))
        values = "value" if self.total == 1 else "values"
        return f"{self.total} {values} in {self.changed_lines} of {self.lines} lines ({kinds})"

    def as_json(self, path: str) -> dict:
        return {
            "path": path,
            "lines": self.lines,
            "changed_lines": self.changed_lines,
            "redactions": self.total,
            "kinds": {kind: {"count": n, "distinct": len(self.distinct.get(kind, ()))}
                      for kind, n in sorted(self.counts.items())},
        }

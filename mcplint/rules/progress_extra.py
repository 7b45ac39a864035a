"""Progress (PR), continued: the ``message`` field of ``notifications/progress`` (PR008).

Task progress (PR007) lives with the task rules in :mod:`mcplint.rules.tasks`, which keep the
task states it needs.
"""

from __future__ import annotations

from mcplint import protocol
from mcplint.model import Severity
from mcplint.rules._base import NOTIFICATIONS, Rule, fmt_id, params_of, rule


@rule
class ProgressMessageField(Rule):
    """Checks that a progress ``message`` is a string, and notes it in 2024-11-05, which lacks it."""

    code, name = "PR008", "progress-message-field"
    severity, level, spec = Severity.ERROR, "SCHEMA", "basic/utilities/progress §Progress Flow"
    requires = frozenset({"odd-progress"})  # not called on a plain_progress() notification
    kinds = NOTIFICATIONS
    methods = frozenset({"notifications/progress"})
    hint = "Send message as a human-readable string (2025-03-26 and later); 2024-11-05 defines no message."

    def check(self, record, session):
        params = params_of(record)
        if "message" not in params:
            return ()
        message = params["message"]
        if record.revision == protocol.V2024_11_05:
            return [self.report(record, "notifications/progress carries message, which the 2024-11-05 schema "
                                        "does not define (added in 2025-03-26); older peers ignore it",
                                severity=Severity.INFO, level="info")]
        if not isinstance(message, str):
            return [self.report(record, f"Progress message {fmt_id(message)} is not a string")]
        return ()

"""Every rule's default severity follows the README's policy, or says here why it does not.

README: "Severity follows the spec keyword: MUST/MUST NOT/schema → `error`, SHOULD → `warning`,
heuristics and notes → `info`". Rules with a ``derived`` level have no keyword of their own and
always need a reason: the requirement they derive from. Findings may vary per case (a rule's
page documents that); this test holds the *default* severity, the one in the rule's metadata,
its page and the rule index.
"""

from __future__ import annotations

import pytest

from mcplint.rules import load
from tests.ruledocs import RULES_DIR

REGISTRY = load()

POLICY = {
    "MUST": "error", "MUST NOT": "error", "SCHEMA": "error",
    "SHOULD": "warning", "SHOULD NOT": "warning",
    "heuristic": "info", "info": "info",
}
DERIVED = "derived"  # no keyword of its own: the severity of the requirement it derives from

#: Rules whose default severity departs from ``POLICY`` (and every ``derived`` rule), with the
#: reason. The rule's page argues it, except for AU007, HM017 and HX008, whose pages do not say
#: yet why they stay info. "Guess": the capture can only suggest the violation (error-message
#: wording, names, timing, which request a message belongs to), so the finding is one step
#: softer and has low confidence, as the standards ask where the capture leaves room.
DEVIATIONS = {
    # -- MUST / MUST NOT / SCHEMA, softer ------------------------------------------------------
    "CN002": "the cancellation page allows the race ('MAY arrive after the request has already finished'); "
             "a warning once the response was there more than a second before",
    "CN009": "guess: a re-sent identical call is taken as abandoned (two awaited copies are legal)",
    "EL006": "its main case (content with an accepted URL-mode elicitation) is a schema comment, not a type; "
             "malformed values are errors",
    "EL010": "guess: secrets are recognised by words in property names and descriptions",
    "EL011": "guess: credential-like URL parameters are recognised by name; credentials in the URL are errors",
    "HM016": "guess: a HAR cannot tell who closed the stream",
    "HT013": "guess: which stream a replayed response belonged to is inferred",
    "HT020": "guess: HAR times are the client's and approximate the wait",
    "LC011": "the MUST applies only if the server supports the requested version, which a capture rarely shows; "
             "a warning when an earlier session proves it",
    "MD007": "guess: the missing capability is recognised from the error message",
    "MD012": "guess: reliance on connection state is recognised from the error message",
    "MR008": "guess: which parallel call inputResponses belong to is matched by keys; a requestState on "
             "another method is an error",
    "MT003": "the revisions' reservations contradict each other (mcp.dev/ vs dev.mcp/) and official extensions "
             "may define keys under the reserved prefixes",
    "RS005": "guess: an empty contents array may be an existing, empty resource",
    "SB006": "guess: 'sub-resource' is not defined by the spec; the rule's reading of it may be too narrow",
    "TK005": "the spec does not say whether a plain result means the receiver did not accept the task; many "
             "requestors cope with either shape",
    "TK017": "guess: which task an untagged input request belongs to is inferred from timing",
    "TL009": "guess: the server may validate against a newer tool definition than the capture shows",
    "TL017": "guess: the capture does not show credentials; users may legitimately see different tools",
    # -- SHOULD, softer ----------------------------------------------------------------------
    "AU007": "a resource that needs no particular scope has none to name; clients fall back to the "
             "metadata's scopes_supported",
    "HM017": "the advice matters only behind a buffering reverse proxy, which the capture cannot see",
    "HT019": "the priming event serves resumption, which servers need not support (event ids are optional)",
    "HX008": "a server may have no channel for the notification (a stateless HTTP server without a stream)",
    "JR020": "guess: an unknown method is recognised from the error message",
    "JR022": "the spec's 'concise single sentence' has no measure; the 300-character limit is mcplint's own",
    "MD011": "the spec allows leaving the identity out 'when specifically configured not to', which the "
             "capture cannot see",
    "RS004": "guess: before 2026-07-28 a missing resource is recognised from the error message; 2026-07-28's "
             "MUST is an error",
    "SM010": "guess: a user's rejection is recognised from the error message",
    # -- heuristic, stricter: the page quotes the requirement the heuristic points at --------
    "IO014": "not a spec requirement: an input without MCP traffic must not pass as clean; a warning, so "
             "that `--fail-on warning` can fail a CI step whose capture came out empty",
    "HX001": "a request left unanswered breaks JSON-RPC's 'the Server MUST reply with a Response' (low "
             "confidence: the capture may end early)",
    "HX005": "a server request left unanswered breaks JSON-RPC's 'MUST reply' (low confidence)",
    "LC010": "the lifecycle has one initialization phase per connection; a second one is undefined and servers "
             "reject it or reset negotiated state",
    "PA005": "clients page 'until nextCursor is absent': a cursor loop hangs every conforming client",
    "PI003": "the ping page's 'The receiver MUST respond promptly'; promptness is judged from the sender's "
             "reactions (low confidence)",
    # -- derived -----------------------------------------------------------------------------
    "CAP008": "contradicts the peer's own declaration; no sentence forbids it outright",
    "LC009": "no keyword forbids requests between the initialize result and notifications/initialized; servers "
             "that enforce the lifecycle reject them",
    "LC015": "after a failed initialize no session exists; the lifecycle names no keyword for requests sent anyway",
    "MR009": "the spec says only implicitly that a retry repeats the original params",
    "SB003": "the acknowledgment is defined as 'the subset of requested notification types'; sending beyond "
             "the request is a MUST NOT (SB001)",
    "TK013": "the lifecycle's MUST to use only negotiated capabilities, and 'MUST be retrievable via tasks/list'",
    "TK014": "the lifecycle's MUST to use only negotiated capabilities (tasks.cancel)",
    "TK019": "'the taskId parameter in the request MUST be used as the source of truth'",
    "TL006": "the tools page lists unknown tools under protocol errors without a keyword; the schema's "
             "'should' is lower case: a warning",
    "TL008": "the client's arguments must fit the tool's inputSchema; the spec's MUST binds the server's "
             "validation, not the client",
}

SEVERITIES = ("info", "warning", "error")


def _page_row(code: str) -> dict[str, str]:
    cls = REGISTRY[code]
    lines = (RULES_DIR / f"{code}-{cls.name}.md").read_text(encoding="utf-8").splitlines()
    header = [cell.strip() for cell in lines[2].strip("|").split("|")]
    row = [cell.strip() for cell in lines[4].strip("|").split("|")]
    return dict(zip(header, row))


@pytest.mark.parametrize("code", sorted(REGISTRY))
def test_severity_follows_the_spec_keyword(code):
    cls = REGISTRY[code]
    severity = cls.severity.value
    assert cls.level in POLICY or cls.level == DERIVED, (
        f"{code}: level {cls.level!r} has no severity policy (README); add it to POLICY with a reason")
    if cls.level == DERIVED:
        assert code in DEVIATIONS, f"{code}: a derived rule needs a reason in DEVIATIONS (what it derives from)"
    elif severity != POLICY[cls.level]:
        assert code in DEVIATIONS, (
            f"{code}: {cls.level} → {severity}, but the policy says {POLICY[cls.level]}: fix the severity "
            "(metadata, page table, rules/README.md) or add the page's reason to DEVIATIONS")


def test_every_deviation_is_still_one():
    stale = [code for code in DEVIATIONS if code not in REGISTRY
             or (REGISTRY[code].level != DERIVED and REGISTRY[code].severity.value == POLICY.get(REGISTRY[code].level))]
    assert not stale, f"listed in DEVIATIONS but following the policy (or gone): {stale}"


def test_deviations_that_guess_have_low_confidence():
    """A finding softened because the capture can only suggest it says so by its confidence."""
    guesses = [code for code, reason in DEVIATIONS.items() if reason.startswith("guess:")]
    assert guesses
    confident = [code for code in guesses
                 if REGISTRY[code].confidence != "low" and "low" not in _page_row(code).get("Confidence", "")]
    assert not confident, f"softened as guesses, yet high confidence: {confident}"


@pytest.mark.parametrize("code", sorted(REGISTRY))
def test_page_table_states_the_default_severity_and_level(code):
    cls = REGISTRY[code]
    row = _page_row(code)
    stated = row.get("Default severity", "").split(" ")[0].strip(",;")
    assert stated in SEVERITIES and stated == cls.severity.value, (
        f"{code}: page says default severity {row.get('Default severity')!r}, the rule {cls.severity.value}")
    level = row.get("Spec level", "")
    assert level == cls.level or level.startswith((f"{cls.level} ", f"{cls.level};", f"{cls.level},")), (
        f"{code}: page says spec level {level!r}, the rule {cls.level!r}")

"""Caching (CA), 2026-07-28: the ``ttlMs``/``cacheScope`` hints of cacheable results.

The results of ``server/discover``, the four list methods and ``resources/read`` are
``CacheableResult``s: a complete result carries ``ttlMs`` (how long the client may reuse it) and
``cacheScope`` (``"public"`` or ``"private"``); all pages of one paginated listing share one
scope; an interim ``input_required`` result is not cacheable and carries no hints.
"""

from __future__ import annotations

import math
from typing import Any

from mcplint import protocol
from mcplint.analysis.analyzer import Bounded
from mcplint.model import Direction, Kind, Record, Severity
from mcplint.rules._base import Rule, fmt_id, params_of, result_of, rule

_PAGE = "server/utilities/caching"
PAGINATED = frozenset({"tools/list", "prompts/list", "resources/list", "resources/templates/list"})
CACHEABLE = PAGINATED | {"server/discover", "resources/read"}
SCOPES = ("public", "private")
HINTS = ("ttlMs", "cacheScope")


def server_result(record: Record) -> dict | None:
    """The result object of a server response, else None."""
    result = result_of(record)
    if record.direction is Direction.C2S or not isinstance(result, dict):
        return None
    return result


def complete_result(record: Record) -> dict | None:
    """A server result that is (or, without ``resultType``, is read as) final."""
    result = server_result(record)
    if result is None or result.get("resultType", "complete") != "complete":
        return None
    return result


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _CacheRule(Rule):
    versions = protocol.MODERN
    kinds = frozenset({Kind.RESULT})
    methods = CACHEABLE
    answers = frozenset({"ok", "after-cancel"})
    party = "server"


@rule
class CacheHintsMissing(_CacheRule):
    """Checks that complete cacheable results carry ``ttlMs`` and ``cacheScope``."""

    code, name = "CA001", "cache-hints-missing"
    severity, level, spec = Severity.ERROR, "MUST", f"{_PAGE} §Cacheable Results"
    hint = 'Add "ttlMs" (0 = do not reuse) and "cacheScope" ("public" or "private") to the result.'

    def check(self, record, session):
        result = complete_result(record)
        if result is None:
            return
        missing = [hint for hint in HINTS if hint not in result]
        if missing:
            yield self.report(record, f"{record.effective_method} result lacks {' and '.join(missing)}")


@rule
class TtlInvalid(_CacheRule):
    """Checks that ``ttlMs`` is a non-negative integer number of milliseconds."""

    code, name = "CA002", "ttl-invalid"
    severity, level, spec = Severity.ERROR, "MUST", f"{_PAGE} §Time-to-Live"
    hint = "Send ttlMs as a whole number of milliseconds, 0 or more."

    def check(self, record, session):
        result = complete_result(record)
        if result is None or "ttlMs" not in result:
            return
        ttl = result["ttlMs"]
        if not is_number(ttl) or not math.isfinite(ttl):
            yield self.report(record, f"ttlMs is {fmt_id(ttl)}, not a number of milliseconds")
        elif ttl < 0:
            yield self.report(record, f"ttlMs is negative ({fmt_id(ttl)})")
        elif isinstance(ttl, float) and not ttl.is_integer():
            # the schema types ttlMs as a number with minimum 0; the prose asks for an integer
            yield self.report(record, f"ttlMs is fractional ({fmt_id(ttl)}); give whole milliseconds",
                              severity=Severity.WARNING)


@rule
class CacheScopeInvalid(_CacheRule):
    """Checks that ``cacheScope`` is ``"public"`` or ``"private"``."""

    code, name = "CA003", "cache-scope-invalid"
    severity, level, spec = Severity.ERROR, "SCHEMA", f"{_PAGE} §Cache Scope Field"
    hint = 'Use "public" (no user-specific data) or "private" (one authorization context).'

    def check(self, record, session):
        result = complete_result(record)
        if result is None or "cacheScope" not in result:
            return
        scope = result["cacheScope"]
        if scope not in SCOPES:
            yield self.report(record, f'cacheScope is {fmt_id(scope)}; it must be "public" or "private"')


@rule
class CacheScopeVariesAcrossPages(_CacheRule):
    """Checks that every page of one paginated listing has the same ``cacheScope``."""

    code, name = "CA004", "cache-scope-varies-across-pages"
    severity, level, spec = Severity.ERROR, "MUST", f"{_PAGE} §Interaction with Pagination"
    methods = PAGINATED
    hint = "Give all pages of a listing the cacheScope of its first page."

    def check(self, record, session):
        result = complete_result(record)
        if result is None or record.request is None:
            return
        # (method, cursor) -> (scope, first page) of listings with more pages to come
        open_listings = session.state_for(self).setdefault("cursors", Bounded(10_000))
        method = record.effective_method
        scope = result.get("cacheScope")
        cursor = params_of(record.request).get("cursor")
        first = open_listings.pop((method, cursor), None) if isinstance(cursor, str) else None
        if first is not None:
            first_scope, first_page = first
            if first_scope in SCOPES and scope in SCOPES and scope != first_scope:
                yield self.report(record, f'This page of {method} has cacheScope "{scope}", the first '
                                          f'page "{first_scope}"',
                                  related=[(first_page, "first page")])
        else:
            first_scope, first_page = scope, record
        next_cursor = result.get("nextCursor")
        if isinstance(next_cursor, str):
            open_listings[(method, next_cursor)] = (first_scope, first_page)


@rule
class HintsOnInputRequired(Rule):
    """Checks for caching hints on interim ``input_required`` results."""

    code, name = "CA005", "hints-on-input-required"
    severity, level, spec = Severity.INFO, "info", f"{_PAGE} §Cacheable Results"
    versions = protocol.MODERN
    kinds = frozenset({Kind.RESULT})
    party = "server"
    hint = "Leave ttlMs and cacheScope off input_required results; they are not cacheable."

    def check(self, record, session):
        result = server_result(record)
        if result is None or result.get("resultType") != "input_required":
            return
        present = [hint for hint in HINTS if hint in result]
        if present:
            yield self.report(record, f"input_required result carries {' and '.join(present)}; interim "
                                      "results are not cacheable and carry no caching hints")

"""Roots (RT): the client's ``roots/list`` answers.

Up to 2025-11-25 ``roots/list`` is a server→client request; in 2026-07-28 it travels inside
InputRequiredResult.inputRequests and is answered in ``inputResponses`` (see ``_embedded``).
The catalog's RT002 (``notifications/roots/list_changed`` without ``roots.listChanged``) is
CAP003 and RT003 (refusing an undeclared roots capability with -32601) is CAP007.
"""

from __future__ import annotations

from mcplint.model import Severity
from mcplint.rules._base import fmt_id, rule
from mcplint.rules._embedded import ClientFeatureRule, answers_to, json_type, methods_for

METHOD = "roots/list"


def root_problems(result: dict) -> list[str]:
    """Roots whose uri is not a ``file://`` URI (a missing or malformed list is SV003's)."""
    roots = result.get("roots")
    problems = []
    for index, root in enumerate(roots if isinstance(roots, list) else ()):
        if not isinstance(root, dict):
            problems.append(f"roots[{index}] is {json_type(root)}, not a root")
            continue
        uri = root.get("uri")
        if not isinstance(uri, str):
            problems.append(f"roots[{index}].uri is {'missing' if 'uri' not in root else json_type(uri)}")
        elif uri[:7].lower() != "file://":
            scheme = uri.partition(":")[0] if ":" in uri else ""
            shown = f"a {scheme}: URI" if scheme and scheme.isascii() and scheme.replace("+", "").isalnum() \
                else f"{fmt_id(uri[:40])}"
            problems.append(f"roots[{index}].uri is {shown}, not file://")
    return problems


@rule
class RootUriNotFile(ClientFeatureRule):
    """Checks that every root the client lists has a file:// URI."""

    code, name = "RT001", "root-uri-not-file"
    severity, level, spec = Severity.ERROR, "MUST", "client/roots §Root"
    party = "client"
    methods = methods_for(METHOD)
    hint = 'List roots as {"uri": "file:///absolute/path", "name": "..."}; other schemes are not allowed yet.'

    def check(self, record, session):
        for answer in answers_to(record, session, METHOD):
            problems = root_problems(answer.result) if isinstance(answer.result, dict) else []
            if problems:
                yield self.report(record, answer.at("Root URIs must start with file://: " + "; ".join(problems)),
                                  related=answer.related)

"""Rule modules, imported in this explicit order; importing them fills the registry."""

from __future__ import annotations

import importlib

from mcplint.rules._base import REGISTRY, Rule

RULE_MODULES = (
    "mcplint.rules.jsonrpc",
    "mcplint.rules.lifecycle",
    "mcplint.rules.capabilities",
    "mcplint.rules.errors",
    "mcplint.rules.progress",
    "mcplint.rules.cancellation",
    "mcplint.rules.stdio",
    "mcplint.rules.inputs",
    "mcplint.rules.limits",
    "mcplint.rules.unanswered",
    "mcplint.rules.ping", "mcplint.rules.logging", "mcplint.rules.pagination", "mcplint.rules.resources", "mcplint.rules.prompts", "mcplint.rules.completion",
    "mcplint.rules.subscriptions", "mcplint.rules.caching", "mcplint.rules.heuristics", "mcplint.rules.cancellation_modern",
    "mcplint.rules.tasks",
    "mcplint.rules.progress_extra",
    "mcplint.rules.modern",
    "mcplint.rules.mrtr",
    "mcplint.rules.sampling",
    "mcplint.rules.elicitation",
    "mcplint.rules.roots",
    "mcplint.rules.meta",
    "mcplint.rules.schema", "mcplint.rules.tools",
    "mcplint.rules.http_legacy", "mcplint.rules.http_sse", "mcplint.rules.http_modern", "mcplint.rules.auth",
)

_loaded = False


def load() -> dict[str, type[Rule]]:
    """Import every rule module once and return the registry (code -> class)."""
    global _loaded
    if not _loaded:
        for module in RULE_MODULES:
            importlib.import_module(module)
        _loaded = True
    return REGISTRY


def all_rules() -> list[Rule]:
    """One instance of every registered rule, ordered by code."""
    return [cls() for _, cls in sorted(load().items())]

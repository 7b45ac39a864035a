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
    "mcplint.rules.unanswered",
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

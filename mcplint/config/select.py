"""Rule selection: codes, prefixes, names and ``ALL``."""

from __future__ import annotations

from collections.abc import Iterable

from mcplint.rules import load
from mcplint.rules._base import Rule


class SelectionError(ValueError):
    pass


def resolve(selector: str) -> set[str]:
    """Codes matched by one selector: ``JR004``, ``JR``, ``CAP0``, ``request-id-null``, a category
    (``lifecycle``) or ``ALL``."""
    registry = load()
    selector = selector.strip()
    if selector.upper() == "ALL":
        return set(registry)
    by_name = {cls.name: code for code, cls in registry.items()}
    if selector in by_name:
        return {by_name[selector]}
    by_category = {code for code, cls in registry.items() if cls.category() == selector.lower()}
    if by_category:
        return by_category
    matched = {code for code in registry if code.startswith(selector.upper())}
    if not matched:
        raise SelectionError(f"unknown rule selector {selector!r}")
    return matched


def select_rules(select: Iterable[str] = (), ignore: Iterable[str] = (), extend: Iterable[str] = ()) -> list[Rule]:
    """Rule instances: ``select`` replaces the default set, ``extend`` adds, ``ignore`` removes."""
    registry = load()
    select = list(select)
    if select:
        chosen = set().union(*(resolve(item) for item in select))
    else:
        chosen = {code for code, cls in registry.items() if cls.default}
    for item in extend:
        chosen |= resolve(item)
    for item in ignore:
        chosen -= resolve(item)
    return [registry[code]() for code in sorted(chosen)]

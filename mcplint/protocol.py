"""Facts of the MCP specification per revision: versions, methods, directions, gates.

Kept as plain tables so that startup stays fast; ``tests/test_protocol_tables.py`` checks them
against the official ``mcp-types`` surface maps and the schemas in ``../shared/spec``.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcplint.model import Direction

V2024_11_05 = "2024-11-05"
V2025_03_26 = "2025-03-26"
V2025_06_18 = "2025-06-18"
V2025_11_25 = "2025-11-25"
V2026_07_28 = "2026-07-28"

VERSIONS: tuple[str, ...] = (V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28)
_RANK = {version: rank for rank, version in enumerate(VERSIONS)}
LEGACY: frozenset[str] = frozenset(VERSIONS[:4])  # initialize handshake
MODERN: frozenset[str] = frozenset(VERSIONS[4:])  # stateless, per-request _meta
ALL: frozenset[str] = frozenset(VERSIONS)
LATEST_LEGACY = V2025_11_25

PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
#: ``_meta`` keys that only 2026-07-28 requests carry (the stateless envelope)
MODERN_REQUEST_META = frozenset({PROTOCOL_VERSION_META, CLIENT_CAPABILITIES_META,
                                 "io.modelcontextprotocol/clientInfo", "io.modelcontextprotocol/logLevel"})


def since(version: str) -> frozenset[str]:
    """Revisions from ``version`` on (handshake and stateless alike)."""
    return frozenset(VERSIONS[VERSIONS.index(version):])


def legacy_since(version: str) -> frozenset[str]:
    return since(version) & LEGACY


def at_least(version: str | None, floor: str) -> bool:
    """True when a known ``version`` is ``floor`` or newer; unknown versions are not."""
    rank = _RANK.get(version)  # type: ignore[arg-type]
    return rank is not None and rank >= _RANK[floor]


def nearest_known(version: str | None, modern: bool | None = None) -> str | None:
    """Map a version string to the revision to analyse it as.

    Known revisions map to themselves. An unknown string maps to the newest known revision not
    newer than it, within the session's era when ``modern`` is given (a handshake that settles on
    ``"latest"`` is still a handshake-era session).
    """
    if version in VERSIONS or version is None:
        return version
    era = VERSIONS if modern is None else [v for v in VERSIONS if (v in MODERN) == modern]
    older = [v for v in era if v <= version]
    return older[-1] if older else era[0]


C = Direction.C2S
S = Direction.S2C
BOTH = frozenset({C, S})


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """A request or notification: who may send it and in which revisions it exists."""

    name: str
    notification: bool
    senders: frozenset[Direction]
    versions: frozenset[str]


def _m(name: str, senders, versions, notification: bool = False) -> MethodSpec:
    if isinstance(senders, Direction):
        senders = frozenset({senders})
    return MethodSpec(name, notification, frozenset(senders), frozenset(versions))


_L = LEGACY
_25C = frozenset({V2025_11_25})

METHODS: dict[str, MethodSpec] = {m.name: m for m in (
    # requests (spec-methods.md §1); server->client requests are embedded in 2026-07-28
    _m("initialize", C, _L),
    _m("ping", BOTH, _L),
    _m("completion/complete", C, ALL),
    _m("logging/setLevel", C, _L),
    _m("prompts/list", C, ALL),
    _m("prompts/get", C, ALL),
    _m("resources/list", C, ALL),
    _m("resources/templates/list", C, ALL),
    _m("resources/read", C, ALL),
    _m("resources/subscribe", C, _L),
    _m("resources/unsubscribe", C, _L),
    _m("tools/list", C, ALL),
    _m("tools/call", C, ALL),
    _m("sampling/createMessage", S, _L),
    _m("roots/list", S, _L),
    _m("elicitation/create", S, legacy_since(V2025_06_18)),
    _m("tasks/get", BOTH, _25C),
    _m("tasks/result", BOTH, _25C),
    _m("tasks/list", BOTH, _25C),
    _m("tasks/cancel", BOTH, _25C),
    _m("server/discover", C, MODERN),
    _m("subscriptions/listen", C, MODERN),
    # notifications (spec-methods.md §2)
    _m("notifications/initialized", C, _L, True),
    _m("notifications/cancelled", BOTH, ALL, True),
    _m("notifications/progress", BOTH, ALL, True),
    _m("notifications/message", S, ALL, True),
    _m("notifications/resources/updated", S, ALL, True),
    _m("notifications/resources/list_changed", S, ALL, True),
    _m("notifications/tools/list_changed", S, ALL, True),
    _m("notifications/prompts/list_changed", S, ALL, True),
    _m("notifications/roots/list_changed", C, _L, True),
    _m("notifications/elicitation/complete", S, _25C, True),
    _m("notifications/tasks/status", BOTH, _25C, True),
    _m("notifications/subscriptions/acknowledged", S, MODERN, True),
)}

REQUEST_METHODS = frozenset(n for n, m in METHODS.items() if not m.notification)
NOTIFICATION_METHODS = frozenset(n for n, m in METHODS.items() if m.notification)


def method_senders(method: str | None) -> frozenset[Direction]:
    """Who may send ``method`` in any revision (empty for unknown/custom methods)."""
    spec = METHODS.get(method) if method else None
    return spec.senders if spec else frozenset()


# -- capability gates (spec-rules.md §4) ----------------------------------------------------
@dataclass(frozen=True, slots=True)
class Gate:
    """A capability that must be declared before a message may be sent.

    ``side`` is whose declaration counts ("server" or "client"); ``path`` the keys into that
    side's capabilities; ``flag`` a boolean member that must be true (``listChanged``).
    """

    side: str
    path: tuple[str, ...]
    flag: str | None = None
    versions: frozenset[str] = LEGACY

    def describe(self) -> str:
        text = ".".join(self.path)
        return f"{text}.{self.flag}" if self.flag else text


GATES: dict[str, Gate] = {
    "tools/list": Gate("server", ("tools",)),
    "tools/call": Gate("server", ("tools",)),
    "prompts/list": Gate("server", ("prompts",)),
    "prompts/get": Gate("server", ("prompts",)),
    "resources/list": Gate("server", ("resources",)),
    "resources/templates/list": Gate("server", ("resources",)),
    "resources/read": Gate("server", ("resources",)),
    "resources/subscribe": Gate("server", ("resources",), "subscribe"),
    "resources/unsubscribe": Gate("server", ("resources",), "subscribe"),
    "logging/setLevel": Gate("server", ("logging",)),
    "completion/complete": Gate("server", ("completions",), versions=legacy_since(V2025_03_26)),
    "sampling/createMessage": Gate("client", ("sampling",)),
    "roots/list": Gate("client", ("roots",)),
    "elicitation/create": Gate("client", ("elicitation",), versions=legacy_since(V2025_06_18)),
    "notifications/message": Gate("server", ("logging",)),
    "notifications/tools/list_changed": Gate("server", ("tools",), "listChanged"),
    "notifications/prompts/list_changed": Gate("server", ("prompts",), "listChanged"),
    "notifications/resources/list_changed": Gate("server", ("resources",), "listChanged"),
    "notifications/resources/updated": Gate("server", ("resources",), "subscribe"),
    "notifications/roots/list_changed": Gate("client", ("roots",), "listChanged"),
}


def gate_open(gate: Gate, capabilities: object) -> bool:
    """Whether ``capabilities`` (one side's declaration) satisfies ``gate``."""
    node = capabilities
    for key in gate.path:
        if not isinstance(node, dict) or key not in node or node[key] is None:
            return False
        node = node[key]
    if gate.flag is None:
        return True
    return isinstance(node, dict) and node.get(gate.flag) is True


#: Names of the error codes JSON-RPC and any MCP revision define (the schemas' constants; -32002
#: from server/resources §Error Handling). Retired codes keep their names: they are never reused.
ERROR_NAMES: dict[int, str] = {
    -32700: "parse error", -32600: "invalid request", -32601: "method not found",
    -32602: "invalid params", -32603: "internal error",
    -32002: "resource not found",  # 2025-11-25 and earlier
    -32042: "URL elicitation required",  # 2025-11-25 only
    -32020: "header mismatch", -32021: "missing required client capability",
    -32022: "unsupported protocol version",  # 2026-07-28 on
}


# -- spec citations -------------------------------------------------------------------------
SPEC_BASE_URL = "https://modelcontextprotocol.io/specification"


#: Pages that 2026-07-28 moved (``basic/utilities/*`` became ``basic/patterns/*``).
_MODERN_PAGES = (("basic/utilities/", "basic/patterns/"), ("basic/transports ", "basic/transports/stdio "))


def spec_page(version: str | None, citation: str) -> str:
    """A ``"<page> §<Section>"`` citation adjusted to the page layout of ``version``."""
    if version in MODERN:
        for old, new in _MODERN_PAGES:
            if citation.startswith(old):
                return new + citation[len(old):]
    return citation


def spec_url(version: str | None, page: str) -> str:
    """URL of a spec page (``basic/lifecycle#initialization``) in ``version`` (default latest)."""
    return f"{SPEC_BASE_URL}/{version if version in VERSIONS else LATEST_LEGACY}/{page}"


#: Requests that stay open by design: the 2026-07-28 listen stream, the blocking 2025-11-25 task
#: result. Not "unanswered" at the end of a capture, and no stall.
LONG_LIVED = frozenset({"subscriptions/listen", "tasks/result"})

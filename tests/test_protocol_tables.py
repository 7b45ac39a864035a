"""mcplint's fast method tables agree with the official mcp-types surface maps and schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcplint import protocol
from mcplint.protocol import Direction

methods = pytest.importorskip("mcp_types.methods")

SHARED_SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec"
# mcp-types does not model these 2025-11-25 task methods; the catalog (spec-methods.md) lists them.
NOT_IN_MCP_TYPES = {"tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "notifications/tasks/status"}


def _surface(table):
    out = {}
    for method, version in table:
        out.setdefault(method, set()).add(version)
    return out


@pytest.mark.parametrize("table,sender,notification", [
    ("CLIENT_REQUESTS", Direction.C2S, False),
    ("SERVER_REQUESTS", Direction.S2C, False),
    ("CLIENT_NOTIFICATIONS", Direction.C2S, True),
    ("SERVER_NOTIFICATIONS", Direction.S2C, True),
])
def test_tables_match_mcp_types(table, sender, notification):
    for method, versions in _surface(getattr(methods, table)).items():
        spec = protocol.METHODS[method]
        assert spec.notification is notification, method
        assert sender in spec.senders, method
        if sender in spec.senders and len(spec.senders) == 1:
            assert set(versions) == set(spec.versions), method
        else:
            assert set(versions) <= set(spec.versions), method


def test_every_table_entry_is_known_to_mcp_types_or_listed():
    known = set()
    for table in ("CLIENT_REQUESTS", "SERVER_REQUESTS", "CLIENT_NOTIFICATIONS", "SERVER_NOTIFICATIONS"):
        known |= set(_surface(getattr(methods, table)))
    assert set(protocol.METHODS) - known == NOT_IN_MCP_TYPES


# In 2026-07-28 these are no longer JSON-RPC messages but embedded input requests (MRTR).
EMBEDDED_2026 = {"sampling/createMessage", "roots/list", "elicitation/create"}


@pytest.mark.skipif(not SHARED_SPEC.is_dir(), reason="../shared/spec not present")
@pytest.mark.parametrize("version", protocol.VERSIONS)
def test_methods_match_official_schema(version):
    schema = json.loads((SHARED_SPEC / version / "schema.json").read_text())
    definitions = schema.get("definitions") or schema.get("$defs") or {}
    consts = {d.get("properties", {}).get("method", {}).get("const")
              for d in definitions.values() if isinstance(d, dict)} - {None}
    ours = {name for name, spec in protocol.METHODS.items() if version in spec.versions}
    if version == protocol.V2026_07_28:
        consts -= EMBEDDED_2026
    assert ours == consts

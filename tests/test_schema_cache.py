"""The wire-schema disk cache (rules/_schema_cache): a later run validates clean traffic without
importing mcp_types, and finds what a run without the cache finds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

_RUN = r'''
import json, sys
from mcplint.api import LintOptions, lint_paths
findings, _ = lint_paths([sys.argv[1]], None, LintOptions(), jobs=1)
print(json.dumps({"mcp_types": "mcp_types" in sys.modules,
                  "findings": [[f.line, f.code, f.message] for f in findings]}))
'''


def run(path: Path, cache: str) -> dict:
    env = dict(os.environ, MCPLINT_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", _RUN, str(path)], capture_output=True, text=True, env=env,
                         cwd=ROOT, check=True)
    return json.loads(out.stdout)


BROKEN = "\n".join([
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
    '"clientInfo":{"name":"c","version":"1"}}}',
    '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
    '"serverInfo":{"name":"s","version":"1"}}}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}',
    '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text"}]}}',
]) + "\n"


def test_a_warm_cache_spares_mcp_types_and_finds_the_same(tmp_path):
    clean, broken = SAMPLES / "clean-2025-06-18.mcplog", tmp_path / "broken.jsonl"
    broken.write_text(BROKEN)
    cache = tmp_path / "cache"
    cold = run(clean, str(cache))
    assert cold["mcp_types"] and list(cache.glob("wire-schemas-*.json"))
    warm = run(clean, str(cache))
    assert not warm["mcp_types"] and warm["findings"] == cold["findings"]
    # a refusal is explained by the kept explaining schemas: the same findings as with no cache
    run(broken, str(cache))
    warm = run(broken, str(cache))
    found = warm["findings"]
    assert {code for _, code, _ in found} >= {"SV001", "SV003"}
    assert not warm["mcp_types"]
    assert found == run(broken, "")["findings"]


def test_an_unreadable_cache_is_rebuilt(tmp_path):
    clean = SAMPLES / "clean-2025-06-18.mcplog"
    run(clean, str(tmp_path))
    for file in tmp_path.glob("wire-schemas-*.json"):
        file.write_text("{not json")
    again = run(clean, str(tmp_path))
    assert again["mcp_types"]
    assert json.loads(next(tmp_path.glob("wire-schemas-*.json")).read_text())


def test_an_empty_directory_setting_turns_it_off(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run(SAMPLES / "clean-2025-06-18.mcplog", "")
    assert not any(tmp_path.rglob("wire-schemas-*"))


def test_entries_of_the_wrong_shape_are_not_used(tmp_path, monkeypatch):
    """A damaged file that still parses: its odd entries are dropped, the sound ones kept."""
    from mcplint.rules import _schema_cache

    monkeypatch.setenv("MCPLINT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_schema_cache, "_entries", None)
    path = _schema_cache._file()
    path.write_text(json.dumps([["request", "ping", "2025-06-18", [True]], ["abcd"],
                                ["result", "ping", "2025-06-18", [True, "EmptyResult", '{"type":"any"}', None]],
                                ["result", "x/y", "2025-06-18", [True, "EmptyResult", {"type": "any"}, None]],
                                ["request", "x", "2025-06-18", None]]))
    assert _schema_cache.get(("request", "ping", "2025-06-18")) is _schema_cache.MISSING
    assert _schema_cache.get(("result", "ping", "2025-06-18")) == [True, "EmptyResult", '{"type":"any"}', None]
    assert _schema_cache.get(("result", "x/y", "2025-06-18")) is _schema_cache.MISSING  # (schemas are texts)
    assert _schema_cache.get(("request", "x", "2025-06-18")) is None

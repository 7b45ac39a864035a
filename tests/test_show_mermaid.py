"""mcplint show --output-format mermaid: wrapped notes, findings and stderr told apart, inferred
directions marked; every sample's diagram parses with Mermaid's own parser when it is installed
(MCPLINT_MERMAID_DIR: a directory holding node_modules/mermaid and node_modules/jsdom)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcplint.cli import main
from mcplint.commands.show.mermaid import NOTE_LINES, NOTE_WIDTH, _mermaid_note

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "samples").iterdir() if p.suffix != ".md" and p.is_file())


def mermaid(path) -> str:
    result = CliRunner().invoke(main, ["show", "--output-format", "mermaid", str(path)])
    assert result.exit_code == 0, result.output
    return result.output


def _capture(tmp_path: Path, records: list[dict]) -> Path:
    path = tmp_path / "c.mcplog"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _init() -> list[dict]:
    return [
        {"ts": "2026-01-01T00:00:00.000Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "c", "version": "1"}}}},
        {"ts": "2026-01-01T00:00:00.010Z", "dir": "s2c", "msg": {"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}},
        {"ts": "2026-01-01T00:00:00.020Z", "dir": "c2s", "msg": {"jsonrpc": "2.0", "method": "notifications/initialized"}},
    ]


def test_long_notes_wrap_and_stderr_is_a_grey_block_beside_the_server(tmp_path):
    words = " ".join(f"word{i}" for i in range(200))
    path = _capture(tmp_path, [*_init(), {"ts": "2026-01-01T00:00:01.000Z", "dir": "stderr", "raw": words},
                               {"ts": "2026-01-01T00:00:01.100Z", "dir": "stderr", "raw": "second line"}])
    lines = mermaid(path).splitlines()
    start = lines.index("    rect rgb(238, 238, 238)")
    assert lines[start + 1].startswith("    Note right of S: stderr: word0 ")
    assert lines[start + 2] == "    Note right of S: stderr: second line"  # one block for consecutive lines
    assert lines[start + 3] == "    end"
    pieces = lines[start + 1].split(": ", 1)[1].split("<br/>")
    assert len(pieces) >= 2 and all(len(p) <= NOTE_WIDTH for p in pieces)


def test_notes_are_cut_after_some_lines_and_escape_each_piece():
    note = _mermaid_note("a;b " * 200)
    pieces = note.split("<br/>")
    assert len(pieces) == NOTE_LINES and pieces[-1].endswith("…")
    assert "<" not in note.replace("<br/>", "") and ";b" not in note.replace("#59;", "")


def test_findings_are_marked_notes_over_both_sides():
    text = mermaid(ROOT / "samples" / "reused-ids.jsonl")
    assert "    Note over C,S: ⛔ error JR006 line 8: Client reused request id 1" in text
    assert not re.search(r"Note (left|right) of .*JR006", text)


def test_inferred_directions_are_marked(tmp_path):
    # every direction inferred (JSON Lines): one note says so instead of a mark on every arrow
    text = mermaid(ROOT / "samples" / "reused-ids.jsonl")
    assert "Note over C,S: directions inferred" in text and "(direction?)" not in text
    # recorded directions: nothing said
    clean = mermaid(ROOT / "samples" / "clean-2025-06-18.mcplog")
    assert "inferred" not in clean and "(direction?)" not in clean


def test_tool_calls_are_named(tmp_path):
    call = {"ts": "2026-01-01T00:00:01.000Z", "dir": "c2s", "msg": {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather", "arguments": {}}}}
    path = _capture(tmp_path, [*_init(), call])
    assert "    C->>S: tools/call get_weather #35;1" in mermaid(path)


def _parser_dir() -> Path | None:
    folder = os.environ.get("MCPLINT_MERMAID_DIR")
    if not folder or not shutil.which("node"):
        return None
    folder = Path(folder)
    return folder if (folder / "node_modules" / "mermaid").is_dir() and (folder / "node_modules" / "jsdom").is_dir() \
        else None


_PARSE = """
import { createRequire } from 'module';
import { pathToFileURL } from 'url';
import fs from 'fs';
const require = createRequire(process.argv[2] + '/');
const { JSDOM } = require('jsdom');
const dom = new JSDOM('<!DOCTYPE html><body></body>');
globalThis.window = dom.window; globalThis.document = dom.window.document;
globalThis.DOMParser = dom.window.DOMParser; globalThis.Element = dom.window.Element;
const mermaid = (await import(pathToFileURL(require.resolve('mermaid')).href)).default;
mermaid.initialize({ startOnLoad: false });
let failed = 0;
for (const file of process.argv.slice(3)) {
  try { await mermaid.parse(fs.readFileSync(file, 'utf8')); }
  catch (e) { failed++; console.log(file + ': ' + (e.message || e)); }
}
process.exit(failed ? 1 : 0);
"""


def test_every_sample_diagram_parses_with_mermaid(tmp_path):
    folder = _parser_dir()
    if folder is None:
        pytest.skip("set MCPLINT_MERMAID_DIR to a directory with `npm install mermaid jsdom` done")
    files = []
    for sample in SAMPLES:
        out = tmp_path / (sample.name + ".mmd")
        out.write_text(mermaid(sample))
        files.append(str(out))
    script = tmp_path / "parse.mjs"
    script.write_text(_PARSE)
    done = subprocess.run(["node", str(script), str(folder), *files], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr

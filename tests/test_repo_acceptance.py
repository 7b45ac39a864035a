"""Issue 15's acceptance test: ``mcplint check .`` in an ordinary repository lints its captures only.

The repository holds what real projects hold (``package.json``, ``tsconfig.json``,
``node_modules/``, ``.venv/``, images, a ``.gitignore``d folder of logs) next to one broken
capture; only that capture's findings are reported, and the rest is skipped and counted.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcplint.cli import main

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
NULL_ID = '{"jsonrpc":"2.0","id":null,"method":"ping"}\n'  # JR004 wherever it is linted
BAD = "".join(line + "\n" for line in (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},'
    '"clientInfo":{"name":"c","version":"1"}}}',
    '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
    '"serverInfo":{"name":"s","version":"1"}}}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}',
)) + NULL_ID  # line 6
NOT_CAPTURE = "(no format claims it and no JSON-RPC message in its head)"


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    files: dict[str, str | bytes] = {
        "package.json": '{"name": "demo", "version": "1.0.0", "scripts": {"test": "jest"}}\n',
        "tsconfig.json": '{\n  "compilerOptions": {"strict": true, "outDir": "dist"}\n}\n',
        "node_modules/x/package.json": '{"name": "x", "version": "0.1.0"}\n',
        "node_modules/x/trace.jsonl": NULL_ID,  # a capture, but under an excluded folder
        ".venv/lib/site.json": NULL_ID,
        ".gitignore": "logs/\n",
        "logs/broken.jsonl": NULL_ID,
        "pic.png": PNG,
        "fake.json": PNG,
        "captures/bad.jsonl": BAD,
    }
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_check_dot_reports_only_the_capture_and_the_skip_count(repo):
    proc = subprocess.run([sys.executable, "-m", "mcplint", "check", "."], cwd=repo, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert not proc.stderr
    assert proc.stdout.startswith("captures/bad.jsonl")
    assert proc.stdout.rstrip().endswith(
        "in 1 file, 1 session. Skipped 3 files that are not MCP captures.")  # package, tsconfig, fake.json
    findings = orjson.loads(run("check", "--output-format", "json", ".").stdout)
    assert {f["path"] for f in findings} == {"captures/bad.jsonl"}
    assert ("JR004", 6) in {(f["code"], f["line"]) for f in findings}


def test_check_without_a_path_in_ci_lints_the_repository(repo):
    proc = subprocess.run([sys.executable, "-m", "mcplint", "check", "--output-format", "concise"], cwd=repo,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert {line.split(":")[0] for line in proc.stdout.splitlines()[:-1]} == {"captures/bad.jsonl"}


def test_show_files_lists_every_decision(repo):
    result = run("check", "--show-files", ".")
    assert result.exit_code == 0, result.output
    expected = [
        "lint  captures/bad.jsonl  (found under a directory (jsonl))",
        *(["skip  .git/  (excluded)"] if (repo / ".git").is_dir() else []),
        "skip  .venv/  (excluded)",
        "skip  fake.json  (binary file (PNG image))",
        "skip  logs/  (ignored by .gitignore)",
        "skip  node_modules/  (excluded)",
        f"skip  package.json  {NOT_CAPTURE}",
        f"skip  tsconfig.json  {NOT_CAPTURE}",
    ]
    assert result.stdout.splitlines() == expected  # pic.png: no capture suffix, never looked at
    assert result.stderr == f"1 file to lint, {len(expected) - 1} skipped.\n"
    assert "JR004" not in result.output


def test_the_other_reading_commands_work_there(repo):
    stats = run("stats", "--output-format", "json", ".")
    assert stats.exit_code == 0, stats.output
    document = orjson.loads(stats.stdout)
    assert (document["files"], document["records"], list(document["sessions"])) == (
        1, 6, ["captures/bad.jsonl session 1"])
    diagnose = run("diagnose", "--output-format", "json", ".")
    assert diagnose.exit_code == 0, diagnose.output
    assert [d["path"] for d in orjson.loads(diagnose.stdout)] == ["captures/bad.jsonl"]
    show = run("show", ".")
    assert show.exit_code == 0, show.output
    assert show.stdout.startswith("captures/bad.jsonl · session 1\n")  # its header, then its table
    assert len(show.stdout.split("-----\n")[-1].splitlines()) == 6 and "JR004" in show.stdout.splitlines()[-1]
    for result in (run("stats", "."), run("diagnose", ".")):
        assert result.exit_code == 0, result.output
        assert "captures/bad.jsonl" in result.stdout
        for elsewhere in ("logs/", "node_modules", ".venv", "package.json", "fake.json"):
            assert elsewhere not in result.stdout

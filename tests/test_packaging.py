"""The wheel ships the rule pages; the pre-commit hook and the GitHub Action are well-formed."""

from __future__ import annotations

import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from mcplint.input.discovery import CAPTURE_SUFFIXES

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_in_fresh_venv_prints_a_rule_page(tmp_path):
    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr.strip().splitlines()[-1:]}")
    wheel = next(dist.glob("mcplint-*.whl"))
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)],
                             timeout=600, capture_output=True, text=True)
    if install.returncode != 0:
        pytest.skip(f"cannot install the wheel's dependencies here: {install.stderr.strip()[-300:]}")
    page = subprocess.run([str(env / "bin" / "mcplint"), "rule", "JR004"], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert page.returncode == 0, page.stderr
    assert page.stdout.startswith("# request-id-null (JR004)")
    assert "## Why is this bad?" in page.stdout


def test_pre_commit_hook():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert re.search(r"^- id: mcplint$", text, re.M)
    entry = re.search(r"^  entry: (.+)$", text, re.M).group(1)
    assert entry.startswith("mcplint check") and "--skip-non-captures" in entry and "--force-exclude" in entry
    files = re.search(r"^  files: (.+)$", text, re.M).group(1)
    for suffix in CAPTURE_SUFFIXES:  # every file a directory walk would look at
        assert re.search(files, "capture" + suffix), suffix
    assert not re.search(files, "e.py")


def test_pre_commit_entry_skips_named_files_that_are_not_captures(tmp_path, monkeypatch):
    """pre-commit names package.json and build logs too: the hook's entry lints only captures."""
    from click.testing import CliRunner

    from mcplint.cli import main

    (tmp_path / "package.json").write_text('{"name": "x", "version": "1.0.0"}\n')
    (tmp_path / "build.log").write_text("compiling...\ndone\n")
    (tmp_path / "ok.jsonl").write_text('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    monkeypatch.chdir(tmp_path)
    entry = re.search(r"^  entry: mcplint (.+)$", (ROOT / ".pre-commit-hooks.yaml").read_text(), re.M).group(1)
    args = [*entry.split(), "--output-format", "concise", "package.json", "build.log", "ok.jsonl"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "package.json" not in result.output.replace("Skipped 2 files", "")
    assert "in 1 file" in result.output and "Skipped 2 files that are not MCP captures" in result.output
    without = CliRunner().invoke(main, ["check", "--output-format", "concise", "package.json", "ok.jsonl"])
    assert without.exit_code == 1 and "package.json:1: JR003" in without.output  # named: linted as JSON Lines


def test_action_lints_and_uploads_sarif():
    text = (ROOT / "action.yml").read_text()
    assert "using: composite" in text
    assert "--report \"sarif=" in text and "upload-sarif" in text


def _action_step(name: str) -> dict:
    import yaml

    steps = yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]
    return next(step for step in steps if step["name"] == name)


def test_action_never_pastes_inputs_into_scripts():
    import yaml

    for step in yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]


def test_action_lint_step_splits_paths_like_a_shell_without_running_one(tmp_path):
    """Paths with spaces work, an argument cannot run code, SARIF is flagged only when written."""
    import os
    import shutil
    import subprocess

    folder = tmp_path / "my captures"
    folder.mkdir()
    shutil.copy(ROOT / "samples" / "clean-2025-06-18.mcplog", folder / "a b.mcplog")
    output = tmp_path / "github_output"
    env = dict(os.environ, GITHUB_OUTPUT=str(output), SARIF_FILE=str(tmp_path / "out.sarif"),
               MCPLINT_PATHS=f'"{folder / "a b.mcplog"}"', MCPLINT_ARGS="--fail-on error $(touch pwned) ;touch pwned2")
    run = subprocess.run(["bash", "-c", _action_step("Lint captures")["run"]], env=env, cwd=tmp_path,
                         capture_output=True, text=True)
    outputs = dict(line.split("=", 1) for line in output.read_text().split())
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()
    assert outputs["status"] == "2", run.stderr  # the injected words reach mcplint as paths: not found
    env["MCPLINT_ARGS"] = "--fail-on error"
    output.write_text("")
    run = subprocess.run(["bash", "-c", _action_step("Lint captures")["run"]], env=env, cwd=tmp_path,
                         capture_output=True, text=True)
    outputs = dict(line.split("=", 1) for line in output.read_text().split())
    assert outputs == {"status": "0", "sarif": "true"}, run.stderr


def test_action_lint_step_fails_on_unbalanced_quotes(tmp_path):
    import os
    import subprocess

    output = tmp_path / "github_output"
    env = dict(os.environ, GITHUB_OUTPUT=str(output), SARIF_FILE=str(tmp_path / "out.sarif"),
               MCPLINT_PATHS='"unbalanced', MCPLINT_ARGS="")
    subprocess.run(["bash", "-c", _action_step("Lint captures")["run"]], env=env, cwd=tmp_path,
                   capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert output.read_text().split() == ["status=2"]

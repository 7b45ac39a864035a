"""The wheel ships the rule pages; the pre-commit hook and the GitHub Action are well-formed."""

from __future__ import annotations

import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

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
    assert "entry: mcplint check" in text
    files = re.search(r"^  files: (.+)$", text, re.M).group(1)
    for name in ("a.jsonl", "b.mcplog", "c.har", "d.transcript"):
        assert re.search(files, name)
    assert not re.search(files, "e.py")


def test_action_lints_and_uploads_sarif():
    text = (ROOT / "action.yml").read_text()
    assert "using: composite" in text
    assert "--report \"sarif=" in text and "upload-sarif" in text

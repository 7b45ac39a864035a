"""README and the rule index say what the tool really does."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from mcplint.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_readme_console_examples_match_real_output():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n\$ (mcplint [^\n]+)\n(.*?)```", readme, re.S)
    assert blocks
    for command, shown in blocks:
        result = CliRunner().invoke(main, command.split()[1:], catch_exceptions=False)
        assert result.output == shown, f"README example out of date: {command}"


def test_quickstart_has_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- quickstart:begin -->")[1].split("<!-- quickstart:end -->")[0]
    commands = [line for line in block.splitlines() if re.match(r"^(pip|python|mcplint) ", line)]
    assert len(commands) == 2


def test_rule_index_is_generated():
    index = (ROOT / "rules" / "README.md").read_text(encoding="utf-8")
    table = CliRunner().invoke(main, ["rule", "--all", "--output-format", "markdown"]).output
    assert table in index, "rules/README.md is stale: regenerate with mcplint rule --all --output-format markdown"

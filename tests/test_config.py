"""Configuration: discovery, validation errors naming the key path, and every setting's effect."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcplint.cli import main
from mcplint.config.files import ConfigError, find, load

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


@pytest.fixture
def project(tmp_path, monkeypatch):
    for name in ("reused-ids.jsonl", "stdout-banner.mcplog", "stalled-initialize.mcplog"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes(*args):
    result = CliRunner().invoke(main, ["check", ".", "--output-format", "json", *args])
    return result.exit_code, sorted((f["path"], f["code"], f["severity"]) for f in orjson.loads(result.output or "[]"))


def test_discovery_order_and_upwards(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname='x'\n")  # no [tool.mcplint]: skipped
    assert find(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text("[tool.mcplint]\nignore=['IO']\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert find(sub) == tmp_path / "pyproject.toml"
    (tmp_path / "mcplint.toml").write_text("ignore=['JR']\n")
    assert find(sub) == tmp_path / "mcplint.toml"


def test_settings_take_effect(project):
    (project / "mcplint.toml").write_text(
        'ignore = ["IO"]\nfail-on = "warning"\n'
        '[severity]\n"request-id-reused" = "info"\n'
        '[rules.request-unanswered]\nignore-methods = ["initialize"]\n'
        '[per-file-ignores]\n"*reused*" = ["JR012"]\n')
    status, found = codes()
    assert status == 0
    assert found == [("reused-ids.jsonl", "JR006", "info"), ("reused-ids.jsonl", "JR006", "info")]


def test_cli_overrides_the_file(project):
    (project / "mcplint.toml").write_text('select = ["JR"]\n')
    _, found = codes()
    assert {c for _, c, _ in found} == {"JR006", "JR012"}
    _, found = codes("--extend-select", "IO001")
    assert {c for _, c, _ in found} == {"JR006", "JR012", "IO001"}
    _, found = codes("--select", "IO")
    assert {c for _, c, _ in found} == {"IO001"}
    _, isolated = codes("--isolated")
    assert "HX001" in {c for _, c, _ in isolated}


@pytest.mark.parametrize("text,where", [
    ("fail_onn = 1\n", "fail_onn: unknown key"),
    ('fail-on = "loud"\n', "fail-on"),
    ('protocol-version = "2099-01-01"\n', "protocol-version"),
    ('select = ["NOPE9"]\n', "unknown rule selector"),
    ('[rules.HX002]\nthreshhold = 1\n', "rules.HX002.threshhold: unknown option"),
    ('[rules.JR004]\nx = 1\n', "rule JR004 has no options"),
    ('[severity]\n"no-such-rule" = "info"\n', "unknown rule"),
    ('[redact]\nkep = ["email"]\n', "redact.kep: unknown key"),
])
def test_bad_configuration_exits_2_naming_the_key(project, text, where):
    (project / "mcplint.toml").write_text(text)
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 2
    assert where in result.stderr


def test_pyproject_key_paths_have_the_tool_prefix(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.mcplint]\nfail_onn = 1\n")
    with pytest.raises(ConfigError, match="tool.mcplint.fail_onn"):
        load(path)


def test_config_flag_and_protocol_version(project):
    other = project / "strict.toml"
    other.write_text('protocol-version = "2025-06-18"\noutput-format = "concise"\n')
    capture = project / "mid.transcript"
    capture.write_text('C→S {"jsonrpc":"2.0","id":5,"method":"tools/list"}\nS→C {"jsonrpc":"2.0","id":5,"result":{"tools":[]}}\n')
    result = CliRunner().invoke(main, ["check", "--config", str(other), str(capture)])
    assert result.exit_code == 0 and result.output.startswith("All checks passed")


def test_the_defaults_without_a_file_are_the_models_defaults():
    """A run that finds no file reads ``files.Defaults`` (pydantic is not imported for it): the same
    keys, in the same order, with the same values as an empty file's ``models.Config()``."""
    from mcplint.config.files import SETTING_KEYS, Defaults
    from mcplint.config.models import Config

    assert SETTING_KEYS == tuple(key for key in Config.model_fields if key != "redact")
    defaults, empty = Defaults(), Config()
    assert {key: getattr(defaults, key) for key in SETTING_KEYS} == {key: getattr(empty, key) for key in SETTING_KEYS}
    assert defaults.redact == empty.redact and defaults.model_fields_set == empty.model_fields_set


_IMPORTS = r'''
import sys
from mcplint.cli import main
sys.argv = ["mcplint", "check", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("pydantic" in sys.modules)
'''


def test_check_without_a_configuration_does_not_import_pydantic(tmp_path):
    """Start-up (issue 16): pydantic costs about a third of ``check``'s start; it is imported only
    to validate a configuration file (or rule options), or by the wire types a cold cache builds."""
    import os
    import subprocess
    import sys

    capture = tmp_path / "a.jsonl"
    capture.write_text('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":1,"result":{}}\n')
    env = dict(os.environ, MCPLINT_CACHE_DIR=str(tmp_path / "cache"))

    def imported(*args: str) -> bool:
        out = subprocess.run([sys.executable, "-c", _IMPORTS, *args], capture_output=True, text=True, env=env,
                             cwd=tmp_path, check=True)
        return out.stdout.splitlines()[-1] == "True"

    imported(str(capture))  # warms the wire-schema cache
    assert not imported(str(capture))
    (tmp_path / "mcplint.toml").write_text('[rules.JR022]\nmax-length = 10\n')
    assert imported(str(capture))

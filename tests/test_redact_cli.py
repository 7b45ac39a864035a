"""``mcplint redact``: files and stdin, --check, reports, options, configuration."""

from __future__ import annotations

import json

import orjson
from click.testing import CliRunner

from mcplint.cli import main

GH = "gh" + "p_" + "A1b2C3d4" * 4 + "E5f6"
CAPTURE = "".join(json.dumps({"ts": f"2026-01-01T00:00:0{i}.000Z", "dir": d, "raw": r}) + "\n" for i, (d, r) in enumerate([
    ("c2s", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "arguments": {
        "password": "hunter2", "path": "/Users/alice/notes.txt"}}})),
    ("stderr", f"token {GH}"),
    ("s2c", json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}]}})),
]))


def run(args, stdin=None, env=None):
    return CliRunner().invoke(main, ["redact", *args], input=stdin, env=env)


def test_stdin_to_stdout_with_a_summary_on_stderr():
    result = run(["-"], CAPTURE)
    assert result.exit_code == 0
    assert "hunter2" not in result.stdout and GH not in result.stdout and "alice" not in result.stdout
    assert result.stdout.count("\n") == 3
    assert "redacted 3 values in 2 of 3 lines" in result.stderr and "github-pat 1" in result.stderr


def test_output_file_may_be_the_input(tmp_path):
    path = tmp_path / "cap.mcplog"
    path.write_text(CAPTURE)
    assert run([str(path), "-o", str(path)]).exit_code == 0
    redacted = path.read_text()
    assert "hunter2" not in redacted and redacted.count("\n") == 3
    assert run([str(path), "--check"]).exit_code == 0  # nothing left


def test_check_lists_kind_line_and_path_never_the_value(tmp_path):
    path = tmp_path / "cap.mcplog"
    path.write_text(CAPTURE)
    result = run([str(path), "--check"])
    assert result.exit_code == 1
    assert f"{path}:1: password at $.raw > $.params.arguments.password" in result.stdout
    assert f"{path}:1: home-user at $.raw > $.params.arguments.path" in result.stdout
    assert f"{path}:2: github-pat at $.raw" in result.stdout
    assert "hunter2" not in result.output and GH not in result.output and "alice" not in result.output
    assert "would redact 3 values" in result.stderr


def test_report_json():
    result = run(["--check", "--report", "json", "-"], CAPTURE)
    assert result.exit_code == 1
    report = orjson.loads(result.stderr)
    assert report["redactions"] == 3 and report["kinds"]["password"] == {"count": 1, "distinct": 1}
    assert {"line": 2, "path": "$.raw", "kind": "github-pat"} in report["hits"]


def test_keep_keep_blobs_and_unknown_kinds():
    result = run(["--keep", "home-user,email", "-"], CAPTURE)
    assert "/Users/alice/notes.txt" in result.stdout and "hunter2" not in result.stdout
    bad = run(["--keep", "nope", "-"], CAPTURE)
    assert bad.exit_code == 2 and "unknown kind 'nope'" in bad.stderr
    assert "github-pat" in run(["--list-kinds"]).stdout


def test_key_option_and_environment_give_stable_tags():
    a = run(["--key", "team-secret", "-"], CAPTURE).stdout
    b = run(["-"], CAPTURE, env={"MCPLINT_REDACT_KEY": "team-secret"}).stdout
    c = run(["-"], CAPTURE).stdout
    assert a == b and a != c


def test_secrets_from_a_host_config(tmp_path):
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"x": {"command": "srv", "env": {"DB_PASS": "plainword"}}}}))
    capture = json.dumps({"ts": "2026-01-01T00:00:00Z", "dir": "stderr", "raw": "connected as app/plainword"}) + "\n"
    result = run(["--secrets-from", str(config), "-"], capture)
    assert "plainword" not in result.stdout and "known-secret" in result.stdout
    missing = run(["--secrets-from", str(tmp_path / "nope.json"), "-"], capture)
    assert missing.exit_code == 2


def test_missing_input_exits_two():
    result = run(["does-not-exist.jsonl"])
    assert result.exit_code == 2 and "does-not-exist.jsonl" in result.stderr


def test_user_rules_from_the_configuration(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mcplint.redact]\n"
        'keys = ["tenant"]\n'
        'keep_keys = ["password"]\n'
        'allow = ["hunter[0-9]"]\n'
        "[[tool.mcplint.redact.patterns]]\n"
        'kind = "acme-key"\n'
        'regex = "ACME-[A-Z0-9]{12}"\n'
        'triggers = ["ACME-"]\n')
    capture = json.dumps({"ts": "2026-01-01T00:00:00Z", "dir": "c2s", "raw": json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "x", "params": {"tenant": "blue-lake", "password": "hunter2",
                                                          "note": "key ACME-ABCDEF123456 here"}})}) + "\n"
    result = run(["-"], capture)
    assert result.exit_code == 0, result.output
    assert "blue-lake" not in result.stdout and "hunter2" in result.stdout
    assert "[REDACTED:acme-key:" in result.stdout and "ACME-ABCDEF123456" not in result.stdout


def test_configuration_errors_name_the_key_and_exit_two(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mcplint.toml").write_text("[redact]\nkep = ['email']\n")
    result = run(["-"], CAPTURE)
    assert result.exit_code == 2 and "redact.kep: unknown key" in result.stderr
    (tmp_path / "mcplint.toml").write_text("[[redact.patterns]]\nkind='x'\nregex='(a+)+b'\ntriggers=['a']\n")
    result = run(["-"], CAPTURE)
    assert result.exit_code == 2 and "redact.patterns[0].regex" in result.stderr and "nested quantifiers" in result.stderr
    (tmp_path / "mcplint.toml").write_text("[redact]\nkeep = ['no-such-kind']\n")
    assert run(["-"], CAPTURE).exit_code == 2


def test_every_input_format_is_accepted():
    transcript = 'C→S {"jsonrpc":"2.0","id":1,"method":"x","params":{"password":"hunter2"}}\n'
    jsonl = '{"jsonrpc":"2.0","id":1,"method":"x","params":{"password":"hunter2"}}\n'
    for text in (transcript, jsonl, CAPTURE):
        result = run(["-"], text)
        assert result.exit_code == 0 and "hunter2" not in result.stdout
    forced = run(["--input-format", "transcript", "-"], transcript)
    assert forced.exit_code == 0 and forced.stdout.startswith("C→S ")

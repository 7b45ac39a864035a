"""Issue 15's CLI promises: where input comes from, outputs that cannot be written, Ctrl-C, config
errors, exit codes, --statistics, -q, colour, empty inputs, the line limit, option spellings.

Most tests run the command in this process (click's CliRunner); a few need a real process:
stdin that is a pipe, /dev/null or a terminal, and signals.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcplint.cli import main
from mcplint.commands import common as cli_common
from mcplint.config.models import Config

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
ONE_ERROR = SAMPLES / "notification-with-id.mcplog"  # JR008 at line 10, nothing else
CLEAN = SAMPLES / "clean-2025-06-18.mcplog"
TWO_SEVERITIES = SAMPLES / "progress-after-cancel.mcplog"  # CN006 as 1 warning and 3 info
HANDSHAKE = (
    '# init 2025-06-18 C={} S={}\n'
    'C→S {"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    'S→C {"jsonrpc":"2.0","id":1,"result":{}}\n'
)
INFO_ONLY = HANDSHAKE + 'S→C {"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"' + "x" * 400 + '"}}\n'
ANSI = "\x1b["
LINUX = sys.platform.startswith("linux")


def run(args, stdin=None, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin, env=env)


def mcplint(args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcplint", *map(str, args)], capture_output=True, timeout=60,
                          **kwargs)


def tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def one_error_line(result) -> str:
    """The command failed as mcplint says it should: exit 2 and one line, no traceback."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcplint: error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """A working directory holding one capture with one error."""
    shutil.copy(ONE_ERROR, tmp_path / "cap.mcplog")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- no path: stdin when piped, else the working directory ------------------------------------
def test_input_paths_follow_what_stdin_is(tmp_path, monkeypatch):
    read, write = os.pipe()
    os.close(write)
    regular = tmp_path / "in.txt"
    regular.write_text("")
    for stdin, expected in ((os.fdopen(read), ["-"]), (open(regular), ["-"]), (open(os.devnull), ["."])):
        with stdin:
            monkeypatch.setattr(sys, "stdin", stdin)
            assert cli_common.input_paths(()) == expected
    assert cli_common.input_paths(("a.jsonl",)) == ["a.jsonl"]


def test_no_path_reads_piped_stdin(here):
    proc = mcplint(["check", "--output-format", "concise"], input=HANDSHAKE.encode(), cwd=here)
    assert proc.returncode == 0, proc.stderr
    assert b"All checks passed: 1 file" in proc.stdout and b"cap.mcplog" not in proc.stdout


def test_no_path_with_stdin_on_dev_null_lints_the_working_directory(here):
    proc = mcplint(["check", "--output-format", "concise"], stdin=subprocess.DEVNULL, cwd=here)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith(b"cap.mcplog:10: JR008")


@pytest.mark.skipif(not (LINUX and shutil.which("script")), reason="needs util-linux script for a terminal")
def test_no_path_at_a_terminal_lints_the_working_directory(here):
    command = shlex.join([sys.executable, "-m", "mcplint", "check", "--output-format", "concise", "--color", "never"])
    proc = subprocess.run(["script", "-qec", command, "/dev/null"], stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=60, cwd=here)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert b"cap.mcplog:10: JR008" in proc.stdout


# -- --show-files, --show-settings ------------------------------------------------------------
def test_show_files_lists_decisions_and_lints_nothing(here):
    (here / "node_modules" / "x").mkdir(parents=True)
    (here / "node_modules" / "x" / "trace.jsonl").write_text('{"jsonrpc":"2.0","id":null,"method":"ping"}\n')
    (here / ".gitignore").write_text("private/\n")
    (here / "private").mkdir()
    (here / "private" / "broken.jsonl").write_text('{"jsonrpc":"2.0","id":null,"method":"ping"}\n')
    (here / "fake.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (here / "package.json").write_text('{"name": "x"}\n')
    result = run(["check", "--show-files", "."])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "lint  cap.mcplog  (found under a directory (capture))",
        "skip  fake.json  (binary file (PNG image))",
        "skip  node_modules/  (excluded)",
        "skip  package.json  (no format claims it and no JSON-RPC message in its head)",
        "skip  private/  (ignored by .gitignore)",
    ]
    assert result.stderr == "1 file to lint, 4 skipped.\n"


def test_show_files_explains_a_directory_without_captures(tmp_path, monkeypatch):
    (tmp_path / "package.json").write_text('{"name": "x"}\n')
    monkeypatch.chdir(tmp_path)
    result = run(["check", "--show-files"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "skip  package.json  (no format claims it and no JSON-RPC message in its head)\n"
    assert "a run would fail: .: no MCP captures in directory" in result.stderr
    assert one_error_line(run(["check", "--show-files", "missing.jsonl"])).endswith("no such file or directory")


def test_show_settings_names_the_source_of_every_key(here):
    config = here / "pyproject.toml"
    config.write_text('[tool.mcplint]\nfail-on = "warning"\nextend-exclude = ["logs/"]\n')
    result = run(["check", "--show-settings", "--min-severity", "warning", "--extend-exclude", "tmp/"],
                 env={"MCPLINT_OUTPUT_FORMAT": "concise"})
    assert result.exit_code == 0, result.output
    lines = {line.split(" = ")[0]: line for line in result.stdout.splitlines() if not line.startswith("#")}
    keys = {name.replace("_", "-") for name in Config.model_fields} - {"redact"}
    assert set(lines) == keys
    assert lines["fail-on"] == f'fail-on = "warning"  # {config}: tool.mcplint.fail-on'
    assert lines["min-severity"] == 'min-severity = "warning"  # command line'
    assert lines["output-format"] == 'output-format = "concise"  # environment MCPLINT_OUTPUT_FORMAT'
    assert lines["extend-exclude"] == (f'extend-exclude = ["logs/", "tmp/"]  '
                                       f'# {config}: tool.mcplint.extend-exclude + command line')
    assert lines["ignore"] == "ignore = []  # default"
    assert "JR008" not in result.output  # nothing linted


# -- outputs that cannot be written -----------------------------------------------------------
WRITERS = {
    "check -o": ["check", "{cap}", "-o", "{out}"],
    "check --report": ["check", "{cap}", "--report", "json={out}"],
    "check --report after -o": ["check", "{cap}", "-o", "ok.txt", "--report", "json={out}"],
    "check --write-baseline": ["check", "{cap}", "--write-baseline", "{out}"],
    "check --write-baseline after -o": ["check", "{cap}", "-o", "ok.txt", "--write-baseline", "{out}"],
    "stats -o": ["stats", "{cap}", "-o", "{out}"],
    "diagnose -o": ["diagnose", "{cap}", "-o", "{out}"],
    "show -o": ["show", "{cap}", "-o", "{out}"],
    "rule -o": ["rule", "JR004", "-o", "{out}"],
    "rule --all -o": ["rule", "--all", "-o", "{out}"],
    "convert -o": ["convert", "{cap}", "-o", "{out}"],
    "redact -o": ["redact", "{cap}", "-o", "{out}"],
}


def _unwritable(root: Path, case: str) -> str:
    if case == "missing directory":
        return str(root / "nowhere" / "out.txt")
    if case == "directory":
        (root / "folder").mkdir()
        return str(root / "folder")
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only directories")
    (root / "locked").mkdir(mode=0o555)
    return str(root / "locked" / "out.txt")


@pytest.mark.parametrize("case", ["missing directory", "directory", "read-only directory"])
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_an_unwritable_output_is_one_line_and_leaves_nothing(here, command, case):
    out = _unwritable(here, case)
    before = tree(here)
    result = run([arg.format(cap="cap.mcplog", out=out) for arg in WRITERS[command]])
    line = one_error_line(result)
    assert out in line
    assert tree(here) == before  # no output, no .*.part


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_failed_run_keeps_the_old_output_and_leaves_no_temporary_file(here, command):
    (here / "pic.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (here / "out.txt").write_text("before\n")
    args = [arg.format(cap="pic.jsonl", out="out.txt") for arg in WRITERS[command]]
    before = tree(here)
    if command.startswith("rule"):
        args[1] = "XX999"  # no such rule
    assert "mcplint: error: " in one_error_line(run(args))
    assert tree(here) == before and (here / "out.txt").read_text() == "before\n"


@pytest.mark.parametrize("args,expected", [
    (["--config", "missing.toml"], "--config missing.toml: no such file"),
    (["--baseline", "missing.json"], "--baseline missing.json: no such file"),
    (["--report", "xml=out.xml"], "--report 'xml=out.xml': expected FORMAT=PATH"),
    (["--report", "json"], "--report 'json': expected FORMAT=PATH"),
])
def test_missing_config_baseline_and_bad_report_are_one_line(here, args, expected):
    before = tree(here)
    line = one_error_line(run(["check", "cap.mcplog", "-o", "out.txt", *args]))
    assert line.startswith(f"mcplint: error: {expected}")
    assert tree(here) == before


# -- Ctrl-C -----------------------------------------------------------------------------------
def _children(pid: int) -> list[str]:
    out = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            out += Path(f"/proc/{pid}/task/{task}/children").read_text().split()
        except OSError:
            pass
    return out


def _interrupt(proc: subprocess.Popen, ready) -> tuple[bytes, bytes]:
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) once ``ready()``."""
    try:
        deadline = time.monotonic() + 30
        while not ready():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        time.sleep(0.3)  # let the process get to its blocking read
        os.killpg(proc.pid, signal.SIGINT)
        return proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def _spawn(args, cwd: Path, **kwargs) -> subprocess.Popen:
    # SIGINT back to its default in the child: a suite started in the background of a shell without
    # job control inherits it ignored, and Python then installs no KeyboardInterrupt handler
    return subprocess.Popen([sys.executable, "-m", "mcplint", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kwargs)


@pytest.mark.skipif(not LINUX, reason="process groups and /proc")
def test_ctrl_c_on_a_slow_stdin_exits_130_and_leaves_no_output(tmp_path):
    proc = _spawn(["check", "-o", "out.txt"], tmp_path, stdin=subprocess.PIPE)
    proc.stdin.write(HANDSHAKE.encode())
    proc.stdin.flush()  # and never closed: the run waits for more
    _, err = _interrupt(proc, lambda: any(tmp_path.glob(".out.txt.*.part")))
    assert proc.returncode == 130, err
    assert err.decode().splitlines() == ["mcplint: interrupted"]
    assert tree(tmp_path) == set()


@pytest.mark.skipif(not (LINUX and hasattr(os, "mkfifo")), reason="process groups, /proc and FIFOs")
def test_ctrl_c_with_jobs_stops_the_workers_quietly(tmp_path):
    shutil.copy(CLEAN, tmp_path / "cap.mcplog")
    os.mkfifo(tmp_path / "slow.jsonl")  # a worker blocks opening it: nobody writes
    proc = _spawn(["check", "--jobs", "2", "-o", "out.txt", "cap.mcplog", "slow.jsonl"], tmp_path,
                  stdin=subprocess.DEVNULL)
    workers: list[str] = []

    def ready() -> bool:
        workers[:] = _children(proc.pid)
        return bool(workers) and any(tmp_path.glob(".out.txt.*.part"))

    _, err = _interrupt(proc, ready)
    assert proc.returncode == 130, err
    assert err.decode().splitlines() == ["mcplint: interrupted"]  # no traceback from any worker
    assert tree(tmp_path) == {"cap.mcplog", "slow.jsonl"}
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}")]


# -- config errors name the key path ----------------------------------------------------------
@pytest.mark.parametrize("body,expected", [
    ('select = ["JR", "LC", "XX1"]', "tool.mcplint.select[2]: unknown rule selector 'XX1'"),
    ('extend-select = ["XX1"]', "tool.mcplint.extend-select[0]: unknown rule selector 'XX1'"),
    ('fail-on = "fatal"', "tool.mcplint.fail-on: Input should be 'error', 'warning' or 'info'"),
    ('per-file-ignores = {"*.jsonl" = ["JR004", "XX1"]}',
     "tool.mcplint.per-file-ignores.'*.jsonl'[1]: unknown rule selector 'XX1'"),
    ('severity = {XX1 = "info"}', "tool.mcplint.severity.XX1: unknown rule 'XX1'"),
    ('severity = {JR004 = "fatal"}', "tool.mcplint.severity.JR004: Input should be"),
    ('rules = {JR022 = {max_length = "x"}}', "tool.mcplint.rules.JR022.max_length: Input should be a valid integer"),
    ('rules = {error-message-concise = {nope = 1}}', "tool.mcplint.rules.error-message-concise.nope: unknown option"),
    ("rules = {JR004 = {x = 1}}", "tool.mcplint.rules.JR004: rule JR004 has no options"),
    ("max-line-bytes = 10", "tool.mcplint.max-line-bytes: Input should be greater than or equal to 1024"),
    ("bogus = 1", "tool.mcplint.bogus: unknown key"),
])
@pytest.mark.parametrize("given", [True, False], ids=["--config", "found"])
def test_config_errors_name_the_file_and_key_path(here, body, expected, given):
    config = here / "pyproject.toml"
    config.write_text(f"[tool.mcplint]\n{body}\n")
    line = one_error_line(run(["check", *(["--config", config] if given else []), "cap.mcplog"]))
    assert line.startswith(f"mcplint: error: {config}: {expected}")
    assert re.findall(r"/[^\s:']+", line) == [str(config)]  # no other file (a temporary copy) named


@pytest.mark.parametrize("option", ["--select", "--extend-select", "--ignore"])
def test_bad_selectors_on_the_command_line_name_the_option(here, option):
    line = one_error_line(run(["check", option, "JR,XX1", "cap.mcplog"]))
    assert line == f"mcplint: error: {option}: unknown rule selector 'XX1'"


# -- exit statuses ----------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["full", "concise", "grouped"])
def test_findings_hidden_by_min_severity_still_fail_the_run(fmt):
    args = ["check", "--select", "JR022", "--output-format", fmt, "--min-severity", "warning", "-"]
    hidden = run([*args, "--fail-on", "info"], INFO_ONLY)
    assert hidden.exit_code == 1, hidden.output
    assert "All checks passed" not in hidden.stdout and "JR022" not in hidden.stdout
    assert hidden.stdout.rstrip().endswith("1 of them at or above --fail-on info: the run fails.")
    assert run(["check", "--statistics", *args[1:], "--fail-on", "info"], INFO_ONLY).exit_code == 1
    assert run(args, INFO_ONLY).exit_code == 0


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("stall-*.mcplog")))
def test_diagnose_fail_on_stall(sample):
    stalled = run(["diagnose", "--fail-on-stall", SAMPLES / sample])
    assert stalled.exit_code == 1 and stalled.stderr == "mcplint: 1 session stalled\n", stalled.output
    assert run(["diagnose", SAMPLES / sample]).exit_code == 0


def test_diagnose_fail_on_stall_passes_a_clean_session():
    result = run(["diagnose", "--fail-on-stall", CLEAN])
    assert result.exit_code == 0 and not result.stderr, result.output


# -- --statistics, -q -------------------------------------------------------------------------
def test_statistics_count_per_rule_and_severity():
    table = run(["check", "--statistics", TWO_SEVERITIES])
    assert table.exit_code == 0, table.output
    rows = [line.split() for line in table.stdout.splitlines()[2:-1]]
    assert rows == [["3", "CN006", "response-after-cancel", "info"], ["1", "CN006", "response-after-cancel", "warning"]]
    assert table.stdout.splitlines()[-1].startswith("Found 4 findings (1 warning, 3 info)")
    as_json = run(["check", "--statistics", "--output-format", "json", TWO_SEVERITIES])
    assert orjson.loads(as_json.stdout) == [
        {"code": "CN006", "name": "response-after-cancel", "severity": "info", "count": 3},
        {"code": "CN006", "name": "response-after-cancel", "severity": "warning", "count": 1}]


def test_statistics_count_severities_as_reported(tmp_path):
    config = tmp_path / "mcplint.toml"
    config.write_text('severity = {CN006 = "error"}\n')
    result = run(["check", "--statistics", "--output-format", "json", "--config", config, TWO_SEVERITIES])
    assert result.exit_code == 1
    assert orjson.loads(result.stdout) == [
        {"code": "CN006", "name": "response-after-cancel", "severity": "error", "count": 4}]


@pytest.mark.parametrize("fmt", ["full", "concise", "grouped", "statistics"])
def test_quiet_prints_findings_without_the_summary(fmt):
    args = ["check", ONE_ERROR] + (["--statistics"] if fmt == "statistics" else ["--output-format", fmt])
    loud, quiet = run(args), run([*args, "-q"])
    assert loud.exit_code == quiet.exit_code == 1
    assert "Found 1 finding" in loud.stdout and "Found" not in quiet.stdout
    assert "JR008" in quiet.stdout and quiet.stdout.strip() == loud.stdout.replace(
        "Found 1 finding (1 error) in 1 file, 1 session.", "").strip()


# -- colour -----------------------------------------------------------------------------------
COLOURED = {
    "full": ["check", "--output-format", "full", TWO_SEVERITIES],
    "concise": ["check", "--output-format", "concise", TWO_SEVERITIES],
    "grouped": ["check", "--output-format", "grouped", TWO_SEVERITIES],
    "statistics": ["check", "--statistics", TWO_SEVERITIES],
    "show-settings": ["check", "--show-settings", "--isolated"],
    "show-files": ["check", "--show-files", TWO_SEVERITIES],
    "diagnose": ["diagnose", TWO_SEVERITIES],
    "show": ["show", TWO_SEVERITIES],
    "stats": ["stats", TWO_SEVERITIES],
    "rule --all": ["rule", "--all"],
}
NO_ENV = {"NO_COLOR": None, "FORCE_COLOR": None}


@pytest.mark.parametrize("name", sorted(COLOURED))
def test_color_choices_and_environment(name):
    args = COLOURED[name]

    def coloured(extra, **env) -> bool:
        result = run([*args, *extra], env={**NO_ENV, **env})
        assert result.exit_code in (0, 1), result.output
        return ANSI in result.stdout

    assert coloured(["--color", "always"])
    assert not coloured(["--color", "never"], FORCE_COLOR="1")
    assert not coloured([])  # auto, not a terminal
    assert not coloured([], NO_COLOR="1", FORCE_COLOR="1")
    assert coloured([], FORCE_COLOR="1")


# -- empty inputs, the line limit -------------------------------------------------------------
def test_empty_file_and_empty_stdin_say_no_mcp_traffic(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    for args, stdin, where in (([empty], None, str(empty)), (["-"], "", "standard input")):
        result = run(["check", "--output-format", "concise", *args], stdin)
        assert result.exit_code == 0, result.output
        assert f"IO014 [warning] No MCP traffic found in {where}: the input is empty" in result.stdout
        assert "All checks passed" not in result.stdout
        assert run(["check", "--fail-on", "warning", *args], stdin).exit_code == 1


def test_max_line_bytes_from_the_command_line_and_the_config(tmp_path):
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x", "arguments": {}}}
    answer = {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "b" * 2048}]}}
    capture = tmp_path / "long.transcript"
    header = '# init 2025-06-18 C={} S={"tools":{}}\n'
    capture.write_text(f"{header}C→S {orjson.dumps(call).decode()}\nS→C {orjson.dumps(answer).decode()}\n",
                       encoding="utf-8")
    config = tmp_path / "mcplint.toml"
    config.write_text("max-line-bytes = 1024\n")
    assert run(["check", "--isolated", capture]).exit_code == 0  # under the default limit
    for args in (["--isolated", "--max-line-bytes", "1024"], ["--config", config]):
        result = run(["check", "--output-format", "json", *args, capture])
        assert result.exit_code == 0, result.output
        findings = orjson.loads(result.stdout)
        assert [f["code"] for f in findings] == ["IO013"] and findings[0]["line"] == 3
        message = findings[0]["message"]
        assert "--max-line-bytes" in message and "max-line-bytes in [tool.mcplint]" in message


# -- one spelling across commands -------------------------------------------------------------
@pytest.mark.parametrize("args,fmt", [
    (["check", ONE_ERROR], "json"), (["stats", ONE_ERROR], "json"), (["diagnose", ONE_ERROR], "json"),
    (["show", ONE_ERROR], "mermaid"), (["rule", "JR008"], "json"),
])
def test_output_format_and_output_file_on_every_command(tmp_path, args, fmt):
    printed = run([*args, "--output-format", fmt])
    assert printed.exit_code in (0, 1), printed.output
    for spelling in ("-o", "--output-file"):
        out = tmp_path / f"out{spelling}"
        written = run([*args, "--output-format", fmt, spelling, out])
        assert written.exit_code == printed.exit_code and written.stdout == ""
        assert out.read_text(encoding="utf-8") == printed.stdout
    if fmt == "json":
        orjson.loads(printed.stdout)


def test_show_format_is_a_hidden_alias():
    assert run(["show", "--format", "mermaid", ONE_ERROR]).stdout == run(
        ["show", "--output-format", "mermaid", ONE_ERROR]).stdout
    assert "--format" not in run(["show", "--help"]).stdout.replace("--output-format", "")


@pytest.mark.parametrize("command", [["convert", ONE_ERROR], ["redact", ONE_ERROR]])
def test_convert_and_redact_write_with_o_output_file_and_the_hidden_output(tmp_path, command):
    key = {"MCPLINT_REDACT_KEY": "test"}  # the same pseudonyms every run
    printed = run(command, env=key).stdout
    assert printed
    for spelling in ("-o", "--output-file", "--output"):
        out = tmp_path / f"out{spelling}"
        assert run([*command, spelling, out], env=key).exit_code == 0
        assert out.read_text(encoding="utf-8") == printed
    assert "--output " not in run([command[0], "--help"]).stdout


def test_capture_output_is_a_hidden_alias(tmp_path):
    proc = mcplint(["capture", "--output", "rec.mcplog", "--", sys.executable, "-c", "pass"], cwd=tmp_path,
                   stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "rec.mcplog").is_file()
    assert "--output " not in run(["capture", "--help"]).stdout


# -- the same file twice ----------------------------------------------------------------------
def test_a_file_named_twice_or_reached_twice_is_linted_once(here):
    (here / "sub").mkdir()
    shutil.copy(ONE_ERROR, here / "sub" / "other.mcplog")
    result = run(["check", "--output-format", "concise", "cap.mcplog", "./cap.mcplog", ".", here / "cap.mcplog",
                  "sub", "sub/other.mcplog"])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "cap.mcplog:10: JR008 [error] Notification 'notifications/roots/list_changed' was sent with id 3, "
        "making it a request",
        "sub/other.mcplog:10: JR008 [error] Notification 'notifications/roots/list_changed' was sent with id 3, "
        "making it a request",
        "Found 2 findings (2 errors) in 2 files, 2 sessions."]

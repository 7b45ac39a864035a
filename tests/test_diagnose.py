"""mcplint diagnose names the stage a session reached and what to suspect."""

from __future__ import annotations

import orjson
from click.testing import CliRunner

from mcplint.cli import main

import pytest


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parent.parent)


def diagnose(path):
    result = CliRunner().invoke(main, ["diagnose", "--output-format", "json", path])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.output)


def test_stalled_initialize():
    (d,) = diagnose("samples/stalled-initialize.mcplog")
    assert d["last_stage"] == "initialize_sent"
    assert "still busy" in d["suspect"]
    assert d["open_requests"][0]["method"] == "initialize" and d["open_requests"][0]["owed_by"] == "server"
    assert d["stderr_tail"]


def test_stdout_pollution_origin():
    (d,) = diagnose("samples/stdout-banner.mcplog")
    assert d["last_stage"] == "tool_returned"
    assert d["stdout_pollution"][0]["origin"].startswith("a start-up banner")


def test_late_response_after_cancel_and_missing_initialized():
    (d,) = diagnose("samples/progress-after-cancel.mcplog")
    assert d["late_responses"] and d["late_responses"][0]["method"] == "tools/call"
    (d,) = diagnose("samples/missing-initialized.mcplog")
    assert any("notifications/initialized" in note for note in d["notes"])


def test_modern_session_outcomes():
    (d,) = diagnose("samples/clean-2026-07-28.mcplog")
    assert d["era"] == "modern" and d["suspect"] == "Every request was answered."
    assert all(r["outcome"] == "answered" for r in d["modern_requests"])


def test_markdown_and_text():
    text = CliRunner().invoke(main, ["diagnose", "samples/stalled-initialize.mcplog"]).output
    assert "Suspect:" in text and "✘ initialize answered" in text
    markdown = CliRunner().invoke(main, ["diagnose", "--output-format", "markdown",
                                         "samples/stalled-initialize.mcplog"]).output
    assert markdown.startswith("## mcplint diagnose")


STALLS = {
    "stall-server-crash.mcplog": ("transport", "crashed with a Python traceback (ModuleNotFoundError"),
    "stalled-initialize.mcplog": ("initialize_sent", "still busy"),
    "stall-version-rejected.mcplog": ("initialize_answered", "never sent notifications/initialized"),
    "stall-no-tools-capability.mcplog": ("initialized_sent", "did not declare the tools capability"),
    "stall-tools-next-page.mcplog": ("tools_listed", "listed but never called"),
    "stall-tool-call.mcplog": ("tool_called", "never answered"),
    "stall-progress-only.mcplog": ("tool_called", "kept sending progress"),
}


@pytest.mark.parametrize("name", sorted(STALLS))
def test_each_stall_kind(name):
    stage, suspect = STALLS[name]
    (d,) = diagnose(f"samples/{name}")
    assert d["last_stage"] == stage
    assert suspect in d["suspect"]


def test_stall_details():
    (d,) = diagnose("samples/stall-server-crash.mcplog")
    assert "ModuleNotFoundError" in d["stderr_tail"][-1]
    (d,) = diagnose("samples/stall-tools-next-page.mcplog")
    assert any("nextCursor" in note for note in d["notes"])
    (d,) = diagnose("samples/stall-tool-call.mcplog")
    assert d["open_requests"][0]["age"] > 40
    (d,) = diagnose("samples/stall-progress-only.mcplog")
    assert d["timeouts"][0]["signature"].startswith("cancelled with reason")


def test_markdown_redacts_personal_data():
    markdown = CliRunner().invoke(main, ["diagnose", "--output-format", "markdown",
                                         "samples/stalled-initialize.mcplog"]).output
    assert "/Users/sam/" not in markdown and "/Users/user-" in markdown


def test_healthy_sessions_beyond_the_limit_are_counted_not_kept(monkeypatch, tmp_path):
    import mcplint.diagnose

    monkeypatch.setattr(mcplint.diagnose, "MAX_SESSIONS", 1)
    healthy = open("samples/stdout-banner.mcplog").read().splitlines()
    healthy = [line for line in healthy if '"raw":"{' in line]  # without the banner
    stalled = open("samples/stalled-initialize.mcplog").read()
    path = tmp_path / "many.mcplog"
    path.write_text("\n".join(healthy * 3) + "\n" + stalled)
    result = CliRunner().invoke(main, ["diagnose", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.count(" — session ") == 2  # the first session, and the stalled one
    assert "2 more session(s) not listed: 2 with nothing to report" in result.output


def test_lists_are_capped_with_a_count(monkeypatch):
    import mcplint.diagnose

    monkeypatch.setattr(mcplint.diagnose, "MAX_ITEMS", 1)
    d = mcplint.diagnose.Diagnosis("p", "1")
    for line in (1, 2, 3):
        d.add("timeouts", {"line": line, "signature": "x"})
    assert d.timeouts == [{"line": 1, "signature": "x"}] and d.omitted["timeouts"] == 2 and not d.healthy


def test_sessions_with_problems_beyond_the_cap_are_counted_too(monkeypatch, tmp_path):
    import mcplint.diagnose

    monkeypatch.setattr(mcplint.diagnose, "MAX_SESSIONS", 1)
    monkeypatch.setattr(mcplint.diagnose, "MAX_KEPT", 1)
    healthy = [line for line in open("samples/stdout-banner.mcplog").read().splitlines() if '"raw":"{' in line]
    path = tmp_path / "many.mcplog"
    path.write_text("\n".join(healthy * 3) + "\n" + open("samples/stalled-initialize.mcplog").read())
    result = CliRunner().invoke(main, ["diagnose", str(path)])
    assert result.output.count(" — session ") == 1
    assert "3 more session(s) not listed: 2 with nothing to report, 1 stopped after 'initialize sent'" \
        in result.output

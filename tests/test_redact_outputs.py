"""One redaction policy for every output (issue 14): nothing planted in a capture appears in
anything mcplint prints or writes.

One session, written as JSON Lines, as a canonical capture and as a HAR, carries generated values
(``tests/redact_plants.py``: a GitHub token in tool arguments and on stderr, tokens as a tool name,
a method and a request id, a key in an error message, an email, a phone number, a home-folder user
name, a password under its key, a Bearer header, a session id as the session label and the HTTP
session) on the very records that draw findings (unknown tool answered with isError, a tool error
as a JSON-RPC error, a custom method, a request left unanswered, a credential in a log message).
Every command runs in every output format through click's CliRunner; no fragment of a planted
value may appear in any decoded layer of what it printed or wrote (``tests/redact_helpers.leaked``).
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcplint.cli import main
from mcplint.report import REPORTERS
from tests import harbuilder
from tests.redact_helpers import leaked
from tests.redact_plants import make_plant

VERSION = "2025-06-18"
#: name -> plant kind (tests/redact_plants.py)
PLANTS = {
    "token": "token:github-pat",
    "tool": "token:stripe-secret-key",
    "method": "token:slack-token",
    "id": "token:gitlab-token",
    "error": "token:aws-access-key-id",
    "email": "email",
    "phone": "phone",
    "home": "home-mac",
    "password": "sensitive-key",
    "bearer": "bearer",
    "session": "session-uuid",
}
INPUTS = ("jsonl", "capture", "har")

COMMANDS = [
    *(["check", "--exit-zero", "--output-format", fmt] for fmt in sorted(REPORTERS)),
    ["check", "--exit-zero", "--statistics"],
    ["check", "--write-baseline", "{out}"],
    *(["show", "--format", fmt] for fmt in ("table", "markdown", "mermaid", "html")),
    *(["show", "--id", rid, "--format", fmt] for rid in ("2", "3", "4") for fmt in ("table", "markdown")),
    ["show", "--format", "html", "-o", "{out}"],
    *(["diagnose", "--output-format", fmt] for fmt in ("text", "json", "markdown")),
    *(["stats", "--output-format", fmt] for fmt in ("table", "json")),
    ["stats", "--overall"],
    *(["convert", "--to", target] for target in ("capture", "jsonl")),
    ["convert", "--to", "capture", "-o", "{out}"],
    ["redact"],
]


@functools.cache
def planted() -> dict:
    rnd = random.Random(14)
    return {name: make_plant(kind, rnd) for name, kind in PLANTS.items()}


def _value(name: str) -> str:
    plant = planted()[name]
    return plant.member[1] if plant.member else plant.text


def session() -> list[tuple[str, dict]]:
    """(direction, message) pairs; each planted value sits on a record that draws a finding."""
    v = _value
    home = v("home")
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": v("tool"), "arguments": {
        "password": v("password"), "note": f"mail {v('email')} or call {v('phone')}", "path": home,
        "query": "use " + v("token")}}}
    return [
        ("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
        ("s2c", {"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": VERSION, "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": "s", "version": "1"}}}),
        ("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "notes", "description": "Reads notes", "inputSchema": {"type": "object"}}]}}),
        ("c2s", call),  # a tool that was never listed (HX007), with secrets in its arguments (HX011)
        ("s2c", {"jsonrpc": "2.0", "id": 2, "result": {"isError": True, "content": [  # TL006
            {"type": "text", "text": f"unknown tool; key {v('error')} rejected for {home}"}]}}),
        ("c2s", {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "notes", "arguments": {}}}),
        ("s2c", {"jsonrpc": "2.0", "method": "notifications/message", "params": {  # LG006
            "level": "info", "data": f"Authorization: {v('bearer')}"}}),
        ("s2c", {"jsonrpc": "2.0", "id": 3, "error": {  # a tool failure as a JSON-RPC error (TL019)
            "code": -32603, "message": f"backend refused key {v('error')} for {v('email')}"}}),
        ("c2s", {"jsonrpc": "2.0", "id": 4, "method": v("method"), "params": {}}),  # a custom method (SV004)
        ("s2c", {"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": f"Method not found: {v('method')}"}}),
        ("c2s", {"jsonrpc": "2.0", "id": v("id"), "method": "tools/call",  # never answered (HX001)
                 "params": {"name": "notes", "arguments": {"who": v("email")}}}),
    ]


def _j(value) -> str:
    return json.dumps(value, separators=(",", ":"))


def write_jsonl(path: Path) -> None:
    path.write_text("".join(_j(message) + "\n" for _, message in session()))


def write_capture(path: Path) -> None:
    label = planted()["session"].secrets[0]  # a session id as the capture's session label
    lines = [_j({"ts": f"2026-05-01T12:00:{i:02d}.000Z", "dir": direction, "raw": _j(message), "session": label})
             for i, (direction, message) in enumerate(session())]
    lines.insert(6, _j({"ts": "2026-05-01T12:00:05.500Z", "dir": "stderr", "session": label,
                        "raw": f"retrying as {_value('email')} with {_value('token')} in {_value('home')}"}))
    path.write_text("\n".join(lines) + "\n")


def write_har(path: Path) -> None:
    sid = planted()["session"].secrets[0]
    auth = {"Authorization": _value("bearer")}
    url = harbuilder.URL + "?access_token=" + planted()["token"].text
    messages = session()
    entries = harbuilder.handshake(VERSION, session=sid)
    pairs = [(3, [4]), (5, [6]), (7, [8, 9]), (10, [11])]
    for request, answers in pairs:
        body = messages[request][1]
        replies = [messages[i][1] for i in answers]
        entries.append(harbuilder.entry(url=url, request_headers=harbuilder.post_headers(sid, VERSION, **auth),
                                        body=body, sse=replies))
    entries.append(harbuilder.entry(url=url, request_headers=harbuilder.post_headers(sid, VERSION, **auth),
                                    body=messages[12][1], sse=[]))  # the stream ends unanswered
    path.write_text(harbuilder.dumps(harbuilder.har(harbuilder.in_sequence(entries))))


WRITERS = {"jsonl": (write_jsonl, "p.jsonl"), "capture": (write_capture, "p.mcplog"), "har": (write_har, "p.har")}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("planted")
    out = {}
    for fmt, (write, name) in WRITERS.items():
        write(root / name)
        out[fmt] = root / name
    return out


def run(args: list[str], path: Path, tmp_path: Path) -> str:
    """What the command printed (stdout and stderr) and wrote to ``{out}``."""
    target = tmp_path / "out.txt"
    args = [str(target) if arg == "{out}" else arg for arg in args] + [str(path)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output + (target.read_text() if target.exists() else "")


def leaks(text: str, names) -> dict[str, str]:
    """The planted values (by name) of which a fragment survives in ``text``."""
    out = {}
    for name in names:
        for fragment in planted()[name].secrets:
            layer = leaked(fragment, text)
            if layer is not None:
                out[name] = layer[:200]
    return out


def _label(args: list[str]) -> str:
    return " ".join(a for a in args if a != "{out}" and not a.startswith("--exit"))


#: Outputs written by the redaction engine itself (``redact``, ``convert``), not by reports.
ENGINE_WRITTEN = ("redact", "convert")


def _gap(fmt: str, args: list[str]) -> set[str]:
    """The canonical capture's ``session`` member holding a session id (a UUID): reports mask it
    (they show it as "session <uuid>"), the engine keeps a UUID under that member."""
    return {"session"} if fmt == "capture" and args[0] in ENGINE_WRITTEN else set()


@pytest.mark.parametrize("args", COMMANDS, ids=_label)
@pytest.mark.parametrize("fmt", INPUTS)
def test_no_planted_value_appears_in_any_output(inputs, tmp_path, fmt, args):
    names = [name for name in PLANTS if name not in _gap(fmt, args)]
    assert leaks(run(args, inputs[fmt], tmp_path), names) == {}


@pytest.mark.parametrize("command", ENGINE_WRITTEN)
def test_engine_written_outputs_mask_a_session_id_label(inputs, tmp_path, command):
    assert leaks(run([command], inputs["capture"], tmp_path), ["session"]) == {}


@pytest.mark.parametrize("fmt", INPUTS)
def test_the_planted_records_draw_findings(inputs, fmt):
    """The findings on the planted records exist, with their id, method and session masked."""
    result = CliRunner().invoke(main, ["check", "--output-format", "json", str(inputs[fmt])])
    findings = orjson.loads(result.output)
    codes = {f["code"] for f in findings}
    assert {"HX007", "HX011", "TL006", "TL019", "LG006", "SV004", "HX001"} <= codes, codes
    unanswered = next(f for f in findings if f["code"] == "HX001")
    assert unanswered["id"] == "[REDACTED]" and unanswered["method"] == "tools/call"
    custom = next(f for f in findings if f["code"] == "SV004")
    assert custom["method"] == "[REDACTED]" and custom["id"] == 4
    if fmt == "capture":
        assert {f["session"] for f in findings} == {"[REDACTED]"}


def test_reports_are_deterministic(inputs, tmp_path):
    """Plain masks (no per-run key): the same capture gives the same report, run after run."""
    for args in (["check", "--exit-zero", "--output-format", "json"], ["show", "--format", "html"],
                 ["diagnose", "--output-format", "json"], ["stats", "--output-format", "json"]):
        first, second = (run(args, inputs["capture"], tmp_path) for _ in range(2))
        assert first == second and "[REDACTED]" in first, args


def test_capture_redact_uses_the_full_engine():
    """``mcplint capture --redact`` writes through the engine of ``mcplint redact``, personal data included."""
    from mcplint.commands.capture.stdio import redactor

    redact = redactor()
    line = _j({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "notes", "arguments": {
        "note": f"{_value('email')} {_value('phone')} {_value('home')} {_value('token')}"}}})
    assert leaks(redact(line, "c2s"), ["email", "phone", "home", "token"]) == {}


def test_masked_session_labels_still_group_and_count(inputs, tmp_path):
    """Reports look sessions up by their masked label: the header keeps its version, stats keep
    the session's findings."""
    full = run(["check", "--exit-zero"], inputs["capture"], tmp_path)
    assert f"{inputs['capture']} — session [REDACTED] ({VERSION})" in full
    stats = orjson.loads(run(["stats", "--output-format", "json"], inputs["capture"], tmp_path))
    (figures,) = stats["sessions"].values()
    assert list(stats["sessions"]) == [f"{inputs['capture']} session [REDACTED]"]
    assert figures["findings"] == {"error": 1, "warning": 3, "info": 6}
    assert {row["method"] for row in figures["methods"]} >= {"[REDACTED]", "tools/call", "initialize"}


def test_mcplint_own_text_is_not_masked(inputs, tmp_path):
    """Rule hints are mcplint's advice ("Send Authorization: Bearer <token> ..." stays), and messages
    that name what was found keep the kind and the place."""
    from mcplint.rules import load

    findings = orjson.loads(run(["check", "--output-format", "json"],
                                Path("samples/http-auth-mistakes-2025-11-25.har"), tmp_path))
    (au001,) = [f for f in findings if f["code"] == "AU001"]
    assert au001["hint"] == load()["AU001"].hint and "Bearer <token>" in au001["hint"]
    findings = orjson.loads(run(["check", "--exit-zero", "--output-format", "json"], inputs["jsonl"], tmp_path))
    messages = [f["message"] for f in findings if f["code"] == "HX011"]
    shown = "API token at params.name; value of 'password' at params.arguments.password"
    assert any(shown in message for message in messages), messages


def test_findings_on_the_samples_are_unchanged_but_for_secrets(monkeypatch):
    """Masking changes no finding of the samples (their fingerprints, baselines, messages), except
    where the sample holds a session id as its session label (mcpsnoop's session_id)."""
    import glob

    import mcplint.rules._base
    from mcplint.api import lint_paths
    from mcplint.report.fingerprint import fingerprints

    def facts(path: str):
        findings, _ = lint_paths([path])
        return list(zip(fingerprints(findings), [(f.message, f.hint, f.related) for f in findings]))

    import importlib.util

    paths = sorted(p for p in glob.glob("samples/*.*") if not p.endswith(".md")
                   and (not p.endswith(".flow") or importlib.util.find_spec("mitmproxy") is not None))
    masked = {path: facts(path) for path in paths}
    monkeypatch.setattr(mcplint.rules._base, "redact_finding", lambda finding, hint=True: finding)
    changed = [path for path in paths if facts(path) != masked[path]]
    assert changed == ["samples/mcpsnoop-weather.jsonl"]


def test_warnings_and_internal_errors_are_masked(inputs, tmp_path, monkeypatch):
    """What ``check`` and ``convert`` say on stderr: a reader's reason quoting a line, a stale
    baseline entry, the exception text of a rule that failed."""
    from mcplint.rules import load

    token = planted()["token"].text
    bad = tmp_path / "bad.mcplog"
    bad.write_text(inputs["capture"].read_text() + f"failed with {token} and {_value('email')}\n")
    assert leaks(run(["convert"], bad, tmp_path), ["token", "email"]) == {}
    baseline = tmp_path / "baseline.json"
    baseline.write_text(_j({"tool": "mcplint", "version": "0", "format": 1, "findings": [
        {"fingerprint": "0" * 32, "code": "HX011", "path": "x", "line": 1, "message": f"saw {token}"}]}))
    result = CliRunner().invoke(main, ["check", "--baseline", str(baseline), "samples/clean-2025-06-18.mcplog"])
    assert "no longer match" in result.output and leaks(result.output, ["token"]) == {}

    def fail(self, record, session):
        raise ValueError(f"cannot read {token} for {_value('email')}")

    monkeypatch.setattr(load()["SV004"], "check", fail)
    monkeypatch.delenv("MCPLINT_DEBUG")  # rule failures are reported, not raised
    result = CliRunner().invoke(main, ["check", str(inputs["jsonl"])])
    assert result.exit_code == 2 and "SV004 failed on" in result.output, result.output
    assert leaks(result.output, ["token", "email"]) == {}

"""``--jobs``: files and the sessions of one large file in several processes, exactly as one.

The size thresholds are lowered so that small files are cut into many parts; every test
compares ``--jobs 2`` with ``--jobs 1`` and checks, by running the parts in this process, that
the file really was cut (and, where the input asks for it, that a part was renumbered or the
file went back to one process).
"""

from __future__ import annotations

import gc
import itertools
import os
import re
import threading
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from mcplint.analysis import parallel
from mcplint.analysis.analyzer import Analyzer, SessionKey
from mcplint.api import LintOptions, lint_paths
from mcplint.cli import main
from mcplint.model import Finding
from mcplint.report import REPORTERS
from mcplint.report.fingerprint import fingerprints
from mcplint.rules import all_rules

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
RULES = SAMPLES.parent / "rules"
TRANSCRIPT = re.compile(r"^```transcript[^\n]*\n(.*?)^```", re.S | re.M)  # an example on a rule page
V = "2025-06-18"


@pytest.fixture(autouse=True)
def small_parts(monkeypatch):
    monkeypatch.setattr(parallel, "SPLIT_BYTES", 1)
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 1)
    monkeypatch.setattr(parallel, "PARTS_PER_JOB", 8)


# -- inputs ------------------------------------------------------------------------------------
def handshake(base: int, version: str = V, answered: str | None = None, server: str = "srv") -> list[dict]:
    return [
        {"jsonrpc": "2.0", "id": base, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
        {"jsonrpc": "2.0", "id": base, "result": {
            "protocolVersion": answered or version, "capabilities": {"tools": {}},
            "serverInfo": {"name": server, "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


def session(base: int, calls: int = 3, **kw) -> list[dict]:
    out = handshake(base, **kw)
    for i in range(base + 1, base + 1 + calls):
        out.append({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": f"call {i}"}}})
        out.append({"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": f"{i}"}]}})
    return out


def jsonl(messages: list) -> bytes:
    return b"".join((m if isinstance(m, bytes) else orjson.dumps(m)) + b"\n" for m in messages)


def capture(messages: list[dict]) -> bytes:
    lines = []
    for n, message in enumerate(messages):
        c2s = "method" in message and (message.get("method") in ("initialize", "tools/call", "ping")
                                       or message["method"].startswith("notifications/initialized"))
        lines.append({"ts": f"2026-01-01T00:00:{n % 60:02d}.{n:06d}Z", "dir": "c2s" if c2s else "s2c",
                      "raw": orjson.dumps(message).decode()})
    return jsonl(lines)


def many_sessions(count: int = 12) -> list[dict]:
    out: list[dict] = []
    for s in range(count):
        out += session(s * 100, calls=2 + s % 3)
        if s % 4 == 1:  # a fault now and then
            out.append({"jsonrpc": "2.0", "id": s * 100 + 1, "result": {}})  # duplicate response
        if s % 5 == 2:
            out.append({"jsonrpc": "2.0", "id": s * 100 + 50, "method": "tools/call"})  # never answered
    return out


# -- comparing ----------------------------------------------------------------------------------
def view(result):
    findings, summary = result
    return ([f.to_dict() for f in findings], fingerprints(findings), summary.files, summary.records,
            {p: [(s.label, s.version, s.era, s.records) for s in ss] for p, ss in summary.sessions.items()},
            summary.formats, summary.crashes, summary.skipped)


def same(paths: list[str], options: LintOptions | None = None):
    one = lint_paths(paths, None, options, jobs=1)
    two = lint_paths(paths, None, options, jobs=2)
    assert view(two) == view(one)
    return one


def in_parts(path: Path, options: LintOptions | None = None):
    """Plan and lint the parts here: (parts, results, parts renumbered, why one process)."""
    options = options or LintOptions()
    parts = parallel.plan(str(path), options, 2)
    assert parts and len(parts) > 1, "the file was not cut"
    codes = [r.code for r in all_rules()]
    results = [parallel.lint_part(p, codes, options) for p in parts]
    fixed, redo = parallel.renumbered(parts, results)
    if redo:
        results = [parallel.lint_part(p, codes, options) if i in redo else r
                   for i, (p, r) in enumerate(zip(fixed, results))]
        assert parallel.renumbered(fixed, results)[1] == []
    return fixed, results, redo, parallel.trouble(results)


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# -- cut files give the same run ------------------------------------------------------------------
def test_generated_sessions_are_cut_and_give_the_same_findings(tmp_path):
    path = write(tmp_path, "many.jsonl", jsonl(many_sessions()))
    parts, results, redo, why = in_parts(path)
    assert len(parts) >= 8 and redo == [] and why is None
    findings, summary = same([str(path)])
    assert findings and len(summary.sessions[str(path)]) == 12
    assert [r.line for r in findings] == sorted(r.line for r in findings)


def test_canonical_capture_is_cut(tmp_path):
    path = write(tmp_path, "many.mcplog", capture(many_sessions()))
    parts, _, redo, why = in_parts(path)
    assert parts[0].fmt == "capture" and redo == [] and why is None
    same([str(path)])


def test_the_first_part_is_planned_before_the_rest_of_the_file_is_scanned(tmp_path, monkeypatch):
    """The parent hands the first part to a worker as soon as the scan has passed its end, and
    the scan stops at the last cut: neither waits for a read of the whole file."""
    monkeypatch.setattr(parallel, "PARTS_PER_JOB", 2)  # 4 parts of 24 sessions
    path = write(tmp_path, "many.jsonl", jsonl(many_sessions(24)))
    read: list[bytes] = []
    real = parallel._starts_session
    monkeypatch.setattr(parallel, "_starts_session", lambda line, fmt: read.append(line) or real(line, fmt))
    parts = parallel.iter_parts(str(path), LintOptions(), 2)
    first = next(parts)
    assert first.start == 0 and len(read) <= 24 // 4 + 2
    rest = list(parts)
    assert len(rest) == 3 and len(read) < 24
    assert [first, *rest] == parallel.plan(str(path), LintOptions(), 2)


@pytest.fixture
def alone(monkeypatch):
    """The planner forks as in the command, where no other thread runs (threads that earlier tests
    of the session left behind are idle: they hold no lock the child could need)."""
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)


def test_the_rest_of_the_plan_is_made_in_a_forked_process(tmp_path, alone):
    """While the parent builds its engine and warms up, a child plans the rest of the files."""
    paths = [str(write(tmp_path, f"many{n}.jsonl", jsonl(many_sessions(12 + n)))) for n in range(2)]
    plans = [parallel.iter_parts(path, LintOptions(), 2) for path in paths]
    first = next(plans[0])
    planner = parallel._Planner.start(plans, paths, LintOptions(), 2, first)
    assert planner is not None and planner.pid != os.getpid()
    try:
        assert [first, *planner.parts(0)] == parallel.plan(paths[0], LintOptions(), 2)
        assert list(planner.parts(1)) == parallel.plan(paths[1], LintOptions(), 2)
    finally:
        planner.close()
    assert planner.stream is None


def test_no_planner_is_forked_beside_other_threads(tmp_path):
    """A lock another thread holds at the fork would stay locked in the child: the parent plans."""
    path = str(write(tmp_path, "many.jsonl", jsonl(many_sessions(12))))
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        plans = [parallel.iter_parts(path, LintOptions(), 2)]
        assert parallel._Planner.start(plans, [path], LintOptions(), 2, next(plans[0])) is None
        same([path])
    finally:
        stop.set()
        thread.join()


def test_a_planner_that_stops_early_leaves_the_rest_to_the_parent(tmp_path, monkeypatch, alone):
    path = write(tmp_path, "many.jsonl", jsonl(many_sessions(24)))
    parent, planned_here = os.getpid(), []
    real = parallel.iter_parts

    def failing(*args):
        planned_here.append(os.getpid())  # (a child's appends stay in the child)
        for number, part in enumerate(real(*args)):
            if number == 3 and os.getpid() != parent:
                raise RuntimeError("the planner fails")
            yield part

    monkeypatch.setattr(parallel, "iter_parts", failing)
    same([str(path)])
    assert planned_here == [parent, parent]  # the plan begun, then the rest of it after the child failed


@pytest.mark.parametrize("fmt", ["jsonl", "mcplog"])
def test_a_part_is_read_the_fast_way_with_the_files_line_numbers(tmp_path, monkeypatch, fmt):
    """A part of a line-by-line file starts its line numbers where the part starts, and its
    lines still take the parser's fast path (no Frame per line)."""
    messages = many_sessions()
    path = write(tmp_path, f"many.{fmt}", jsonl(messages) if fmt == "jsonl" else capture(messages))
    parts = parallel.plan(str(path), LintOptions(), 2)
    part = parts[3]
    monkeypatch.setattr(parallel.Parser, "_one", lambda *a: pytest.fail("a common line took the slow path"))
    seen: list[tuple[int, dict]] = []
    real = parallel._phased

    def watched(records, log):
        for record in real(records, log):
            seen.append((record.line, record.msg))
            yield record

    monkeypatch.setattr(parallel, "_phased", watched)
    parallel.lint_part(part, [r.code for r in all_rules()], LintOptions())
    lines = path.read_bytes().splitlines()
    assert seen[0][0] == part.first_line and len(seen) == parts[4].first_line - part.first_line
    for number, msg in seen:
        line = orjson.loads(lines[number - 1])
        assert msg == (line if fmt == "jsonl" else orjson.loads(line["raw"]))


def test_trailing_partial_session(tmp_path):
    tail = handshake(9000)[:1] + [{"jsonrpc": "2.0", "id": 9001, "method": "tools/list"}]
    data = jsonl(many_sessions(6) + tail) + b'{"jsonrpc":"2.0","id":9001,"res'  # cut off mid-line
    path = write(tmp_path, "partial.jsonl", data)
    _, results, _, why = in_parts(path)
    assert why is None and results[-1].findings
    findings, _ = same([str(path)])
    assert any(f.line == data.count(b"\n") + 1 for f in findings)


def test_a_file_without_a_second_session_is_not_cut(tmp_path):
    path = write(tmp_path, "one.jsonl", jsonl(session(0, calls=40)))
    assert parallel.plan(str(path), LintOptions(), 2) is None
    same([str(path)])


def test_stateless_traffic_has_no_cut(tmp_path):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    calls = [{"jsonrpc": "2.0", "id": i, "method": "tools/list", "params": {"_meta": meta}} for i in range(30)]
    path = write(tmp_path, "modern.jsonl", jsonl(calls))
    assert parallel.plan(str(path), LintOptions(), 2) is None
    same([str(path)])


def test_concatenated_samples(tmp_path):
    """Every canonical capture sample, one after another: many sessions, many faults,
    2026-07-28 sessions opened without initialize (numbered by a second pass)."""
    data = b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in sorted(SAMPLES.glob("*.mcplog")))
    path = write(tmp_path, "all.mcplog", data)
    assert len(in_parts(path)[0]) > 8
    findings, _ = same([str(path)])
    assert len(findings) > 20


def rule_examples(skip: tuple[str, ...] = ()) -> bytes:
    return "".join(block for page in sorted(RULES.glob("*.md")) if not page.name.startswith(skip)
                   for block in TRANSCRIPT.findall(page.read_text())
                   if not any(word in block for word in skip)).encode()


def test_concatenated_rule_examples(tmp_path):
    """Every transcript example of every rule page, one after another: a finding of nearly
    every rule, session starts written as ``# init`` and as initialize lines."""
    path = write(tmp_path, "examples.transcript", rule_examples())
    parts, _, _, why = in_parts(path)
    assert len(parts) > 8 and parts[0].fmt == "transcript" and why  # pages share facts on purpose
    findings, _ = same([str(path)])
    assert len({f.code for f in findings}) > 150


def test_rule_examples_cut_at_nearly_every_session(tmp_path, monkeypatch):
    """The examples of rules that keep no facts across sessions, cut at (nearly) every session
    start: merged without a second pass, as one process finds them."""
    monkeypatch.setattr(parallel, "PARTS_PER_JOB", 1000)
    # pages and examples about cross-session facts (echoed versions, cursors and tasks from other
    # sessions, tool lists of stateless sessions)
    shared = ("LC011", "PA0", "TL017", "TK0", "2026-07-28", '"protocolVersion":"1.0.0"')
    path = write(tmp_path, "independent.transcript", rule_examples(shared))
    parts, results, redo, why = in_parts(path)
    assert len(parts) > 200 and redo == [] and why is None
    findings, _ = same([str(path)])
    merged = sorted((f for r in results for f in r.findings), key=Finding.sort_key)
    assert [f.to_dict() for f in merged] == [f.to_dict() for f in findings]
    assert len({f.code for f in findings}) > 120


def test_reporters_write_the_same_bytes(tmp_path):
    path = write(tmp_path, "many.mcplog", capture(many_sessions()))
    runner = CliRunner()
    for fmt in sorted(REPORTERS):
        one = runner.invoke(main, ["check", str(path), "--output-format", fmt])
        two = runner.invoke(main, ["check", str(path), "--output-format", fmt, "--jobs", "2"])
        assert (two.exit_code, two.output) == (one.exit_code, one.output), fmt
        assert one.exit_code == 1
    one = runner.invoke(main, ["check", str(path), "--statistics"])
    assert runner.invoke(main, ["check", str(path), "--statistics", "-j", "0"]).output == one.output


def test_files_and_parts_together(tmp_path):
    write(tmp_path, "big.jsonl", jsonl(many_sessions()))
    write(tmp_path, "b.mcplog", (SAMPLES / "reused-ids.jsonl").read_bytes())
    write(tmp_path, "notes.log", b"no capture here\n")  # skipped with a note, as with one process
    for sample in ("stdout-banner.mcplog", "clean-transcript-2025-06-18.transcript", "pretty-printed.jsonl"):
        write(tmp_path, sample, (SAMPLES / sample).read_bytes())
    _, summary = same([str(tmp_path)])
    assert summary.files == 5 and summary.skipped
    assert in_parts(tmp_path / "big.jsonl")[3] is None


def test_stdin_is_read_in_one_process():
    data = jsonl(many_sessions(4)).decode()
    runner = CliRunner()
    one = runner.invoke(main, ["check", "-", "--output-format", "json"], input=data)
    two = runner.invoke(main, ["check", "-", "--output-format", "json", "-j", "2"], input=data)
    assert (two.exit_code, two.output) == (one.exit_code, one.output) and one.exit_code == 1


def test_formats_that_are_not_line_by_line_are_not_cut():
    for name in ("clean-streamable-http-json-2025-06-18.har", "vscode-mcp-output-weather.log", "mcpspy-weather.jsonl"):
        assert parallel.plan(str(SAMPLES / name), LintOptions(), 2) is None, name


# -- when parts depend on each other -----------------------------------------------------------------
def test_facts_shared_across_parts_send_the_file_back_to_one_process(tmp_path):
    """LC011: the server echoed 2025-06-18 in the first session, refuses it in the last one and
    the finding names the line of the first; only one process knows that line."""
    messages = many_sessions(8) + session(5000, answered="2025-03-26")
    path = write(tmp_path, "echo.jsonl", jsonl(messages))
    _, _, _, why = in_parts(path)
    assert why == "sessions share facts across parts"
    findings, _ = same([str(path)])
    assert any(f.code == "LC011" and "although it accepted" in f.message for f in findings)


def test_a_fact_each_session_keeps_for_itself_does_not(tmp_path):
    messages = []
    for s in range(8):
        messages += session(s * 100, answered="2025-03-26")  # never echoed: nothing shared
    path = write(tmp_path, "noecho.jsonl", jsonl(messages))
    assert in_parts(path)[3] is None
    findings, _ = same([str(path)])
    assert sum(f.code == "LC011" for f in findings) == 8


def test_server_first_file_start_does_not_tie_the_parts(tmp_path):
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "up"}}
    path = write(tmp_path, "server-first.jsonl", jsonl([note] + many_sessions()))
    assert in_parts(path)[3] is None
    findings, _ = same([str(path)])
    assert any(f.code == "LC002" for f in findings)


def test_a_part_does_not_log_reads_of_its_own_sessions_keys(tmp_path):
    """LC002 looks up the session before each client initialize (a SessionKey): the parent
    keeps a part's log, so it holds at most the read of the session before the part."""
    path = write(tmp_path, "many.jsonl", jsonl(many_sessions(48)))
    parts, results, _, why = in_parts(path)
    assert why is None and len(results) < 24  # (parts of two sessions or more)
    for result in results:
        assert sum(type(read[0]) is SessionKey for read in result.log.reads) <= 1


_INITIALIZE_LIKE = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
    {"jsonrpc": "2.0", "method": "initialize"},  # no id: a notification
    {"jsonrpc": "2.0", "id": 0, "method": "initialize", "result": {}},
    {"jsonrpc": "2.0", "id": 0, "result": {"text": "initialize"}},
    [{"jsonrpc": "2.0", "id": 0, "method": "initialize"}],
    {"jsonrpc": "2.0", "id": 0, "method": "initialized"}, "initialize", None,
]


def _as_line(message, fmt: str, direction: str, session, raw: bool, tail: bytes) -> bytes:
    text = orjson.dumps(message)
    if fmt == "jsonl":
        return text + tail
    envelope = {"ts": "2026-01-01T00:00:00Z", "dir": direction,
                **({"raw": text.decode() + tail.decode("latin-1")} if raw else {"msg": message})}
    if session is not None:
        envelope["session"] = session
    return orjson.dumps(envelope) + (tail if not raw else b"")


def _starts_session_plainly(line: bytes, fmt: str) -> bool:
    """parallel._starts_session before its fast path: the reader and the parser, line by line."""
    first = next(iter(parallel.READERS[fmt]([(line, False)])), None)
    record = next(parallel.Parser("").records([first]), None) if first is not None else None
    return (record is not None and record.kind.value == "request" and record.method == "initialize"
            and record.direction is not parallel.Direction.S2C and record.session_key is None)


def test_a_session_start_is_found_as_a_whole_run_reads_the_line():
    """The planner's fast reading of a candidate line (a JSON Lines object, a capture message)
    decides as the format's reader and the parser do, for every combination of these shapes."""
    for message, fmt, direction, session, raw, tail in itertools.product(
            _INITIALIZE_LIKE, ["jsonl", "capture"], ["c2s", "s2c"], [None, "a"], [True, False],
            [b"", b"\r", b" ", b"\xef\xbb\xbf"]):
        line = _as_line(message, fmt, direction, session, raw, tail)
        assert parallel._starts_session(line, fmt) == _starts_session_plainly(line, fmt), line


def test_sessions_opened_without_initialize_are_renumbered(tmp_path):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    messages = []
    for s in range(8):
        messages += session(s * 100)
        messages.append({"jsonrpc": "2.0", "id": s * 100 + 99, "method": "tools/list", "params": {"_meta": meta}})
    path = write(tmp_path, "mixed.jsonl", jsonl(messages))
    parts, _, redo, why = in_parts(path)
    assert redo and why is None
    _, summary = same([str(path)])
    assert [s.label for s in summary.sessions[str(path)]] == [str(n) for n in range(1, 17)]


def test_a_guessed_first_session_number_is_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "PREFIX_PROBE_BYTES", 0)  # guess instead of reading the prefix
    path = write(tmp_path, "banner.jsonl", b"starting server\n" + jsonl(many_sessions()))
    _, _, redo, why = in_parts(path)
    assert redo and why is None
    same([str(path)])


def test_server_requests_seen_before_a_part_are_carried_into_it(tmp_path):
    messages = many_sessions(6)
    messages[5:5] = [{"jsonrpc": "2.0", "id": "r1", "method": "roots/list"},
                     {"jsonrpc": "2.0", "id": "r1", "result": {"roots": []}}]
    messages.append({"jsonrpc": "2.0", "id": 4242, "result": {}})  # answers nothing: direction unknown
    path = write(tmp_path, "roots.jsonl", jsonl(messages))
    parts, results, redo, why = in_parts(path)
    assert redo == [len(parts) - 1] and parts[-1].server_requests and why is None
    same([str(path)])


def test_a_message_spread_over_the_cut_sends_the_file_back(tmp_path):
    head = jsonl(many_sessions(4))
    init = jsonl(handshake(7000)[:1])
    # the initialize line completes an earlier line's JSON: one process reads it as a continuation
    data = head + b'{"jsonrpc":"2.0","id":399,"result":\n' + init + b"}\n" + jsonl(many_sessions(4)[3:])
    path = write(tmp_path, "spread.jsonl", data)
    assert "across the cut" in in_parts(path)[3]
    same([str(path)])


def test_a_line_cut_short_before_a_session_start_gives_the_same_findings(tmp_path):
    """A part's bytes end at the cut, so a JSON prefix on its last line (which one process tries to
    complete with the next line, and cannot) sends the file back too: the part cannot tell."""
    head = jsonl(many_sessions(4))
    path = write(tmp_path, "short.jsonl", head + b'{"jsonrpc":"2.0","id":399,"res\n' + jsonl(many_sessions(4)))
    assert "across the cut" in in_parts(path)[3]
    findings, _ = same([str(path)])
    assert any(f.line == head.count(b"\n") + 1 for f in findings)


def test_named_sessions_send_the_file_back(tmp_path):
    lines = [orjson.loads(line) for line in capture(many_sessions()).splitlines()]
    for line in lines[60:]:
        line["session"] = "s1"
    path = write(tmp_path, "named.mcplog", jsonl(lines))
    assert in_parts(path)[3] == "the capture names its sessions"
    same([str(path)])


# -- the recording of shared facts -----------------------------------------------------------------------
def test_tracked_file_state_logs_paths():
    log = parallel.StateLog()
    state = parallel.TrackedDict(log)
    state.setdefault("echo", {}).setdefault("srv", {}).setdefault("v1", "line 3")
    assert "other" not in state.setdefault("ids", set())
    state["last"] = {"a": 1}
    assert log.writes == {("echo", "srv", "v1"), ("last",)}
    assert log.shape_writes == {("echo",), ("echo", "srv"), ("ids",)}
    assert log.reads == {("ids", "other")}
    later = parallel.StateLog()
    later.phase = "body"
    table = parallel.TrackedDict(later).setdefault("echo", {}).setdefault("srv", {})
    table.setdefault("v1", "line 9")  # keeps the first: a write only
    assert table.get("v2") is None
    assert not parallel.depends_on_earlier([log, later])
    table.get("v1")  # what an earlier session stored
    assert parallel.depends_on_earlier([log, later])


def test_the_next_parts_first_record_is_judged_before_the_last_session_finishes():
    """One process judges the initialize that opens a part before it finishes the session that
    ended the part before: a finish that reads what that record writes depends on it."""
    def logs(phase: str) -> list:
        before, after = parallel.StateLog(), parallel.StateLog()
        before.phase = "final"
        assert parallel.TrackedDict(before).get("seen") is None
        after.phase = phase
        parallel.TrackedDict(after)["seen"] = True
        return [before, after]
    assert parallel.depends_on_earlier(logs("first"))
    assert not parallel.depends_on_earlier(logs("body"))


def test_parts_know_every_fact_the_analyzer_keeps_per_file():
    """Parts carry the session number, ``server_requests_seen`` and ``file_state`` across cuts; a
    new fact of the whole file needs the same (mcplint.analysis.parallel), or --jobs would differ."""
    per_file = {"path", "protocol_version", "limits", "sessions", "current", "closed", "ordinal",
                "server_requests_seen", "file_state",
                "keyed", "sessions_finished_idle"}  # named sessions: such files are never cut
    assert set(vars(Analyzer("x"))) == per_file


def test_check_uses_every_cpu_by_default_only_for_large_inputs(tmp_path, monkeypatch):
    from mcplint import api
    from mcplint.api import AUTO_JOBS_BYTES, auto_jobs
    from mcplint.commands import options

    monkeypatch.setattr(api.os, "cpu_count", lambda: 4)
    small = tmp_path / "small.jsonl"
    small.write_bytes(b'{"jsonrpc":"2.0","method":"ping","id":1}\n')
    large = tmp_path / "large.jsonl"
    large.write_bytes(small.read_bytes() * (AUTO_JOBS_BYTES // len(small.read_bytes()) + 1))
    assert auto_jobs([str(small)]) == 1 and auto_jobs(["-"]) == 1
    assert auto_jobs([str(small), str(large)]) == 4
    chosen = []
    real = parallel.lint_in_processes
    monkeypatch.setattr(parallel, "lint_in_processes", lambda names, r, o, jobs: chosen.append(jobs) or real(names, r, o, jobs))
    lint_paths([str(tmp_path)], jobs=None)  # a directory counts what it holds, found once
    assert chosen == [4]
    monkeypatch.setattr(options.os, "cpu_count", lambda: 4)
    assert options.jobs_wanted(None) is None and options.jobs_wanted(3) == 3 and options.jobs_wanted(0) == 4


def test_a_process_pool_that_cannot_start_falls_back_to_one_process(monkeypatch):
    paths = [str(p) for p in sorted(SAMPLES.glob("*.mcplog"))[:3]]
    expected = lint_paths(paths, jobs=1)

    class NoPool:
        def __init__(self, *args, **kwargs):
            raise OSError(38, "Function not implemented")  # as on a system without sem_open

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", NoPool)
    findings, summary = lint_paths(paths, jobs=2)
    assert [f.to_dict() for f in findings] == [f.to_dict() for f in expected[0]]
    assert summary.records == expected[1].records
    assert gc.get_freeze_count() == 0  # (frozen for the workers that did not start, and thawed)


def test_stopping_the_pool_leaves_no_manager_thread_behind():
    """After Ctrl-C (parallel._stop) the pool's manager thread has ended, so the interpreter's exit
    hook finds its wake-up pipe closed instead of racing the thread that closes it."""
    import time
    from concurrent.futures import ProcessPoolExecutor

    from mcplint.analysis.parallel import _stop

    pool = ProcessPoolExecutor(max_workers=2)
    futures = [pool.submit(time.sleep, 5) for _ in range(4)]
    time.sleep(0.5)
    manager = pool._executor_manager_thread
    _stop(pool)
    assert not manager.is_alive()
    assert all(f.cancelled() or f.done() for f in futures[2:])


@pytest.mark.parametrize("frozen_before", [False, True], ids=["nothing frozen", "the program froze objects"])
def test_the_parent_freezes_its_objects_for_the_workers_and_thaws_them(tmp_path, monkeypatch, frozen_before):
    """The workers fork while the parent's objects are frozen (``gc.freeze``: no collection of a
    worker copies the pages it inherited); afterwards the parent's objects are as they were, also
    where the program had frozen objects of its own (then nothing more is frozen, nor thawed: the
    count only drops by the frozen objects freed meanwhile)."""
    seen = []
    submit = parallel._Run.submit

    def watching(self, *args, **kwargs):
        seen.append(gc.get_freeze_count())
        return submit(self, *args, **kwargs)

    monkeypatch.setattr(parallel._Run, "submit", watching)
    paths = [str(write(tmp_path, f"{n}.jsonl", jsonl(session(n * 10, calls=2)))) for n in range(2)]
    if frozen_before:
        gc.freeze()
    try:
        before = gc.get_freeze_count()
        same(paths)
        after = gc.get_freeze_count()
        assert 0 < after <= before if frozen_before else after == 0
    finally:
        gc.unfreeze()
    assert seen and all(0 < count <= before if frozen_before else count > 0 for count in seen)

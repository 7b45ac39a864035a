"""The line limit (``LintOptions.max_line_bytes``) is mcplint's own: a longer line is reported once
per file as IO013, not as a broken message, and the request it answered is not left unanswered."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest

from mcplint.analysis import parallel
from mcplint.analysis.analyzer import UNSEEN, head_answers, read_head
from mcplint.api import LintOptions, lint_paths
from mcplint.commands.diagnose.collect import DiagnoseCollector
from mcplint.input.lines import MAX_LINE_BYTES, Cut
from mcplint.input.readers import open_frames

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
LIMIT = 1024
UNANSWERED = {"HX001", "HX004", "HX005"}


def handshake(base: int = 0) -> list[dict]:
    return [
        {"jsonrpc": "2.0", "id": base, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}},
        {"jsonrpc": "2.0", "id": base, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


def call(request_id: int) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "shot", "arguments": {}}}


def big_result(request_id: int, result_first: bool = False) -> dict:
    result = {"content": [{"type": "image", "mimeType": "image/png", "data": "A" * 2048}]}
    if result_first:  # as the TypeScript SDK writes it: the id comes after the (huge) result
        return {"result": result, "jsonrpc": "2.0", "id": request_id}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def session(base: int = 0, result_first: bool = False, big: int = 1) -> list[dict]:
    """A handshake, ``big`` tools/calls answered with a 2 KB result each, then a ping whose answer
    breaks the envelope (JR001: the lines after a long one are still read)."""
    out = handshake(base)
    for n in range(base + 1, base + 1 + big):
        out += [call(n), big_result(n, result_first)]
    ping = base + big + 1
    return out + [{"jsonrpc": "2.0", "id": ping, "method": "ping"}, {"jsonrpc": "1.0", "id": ping, "result": {}}]


def jsonl(messages: list[dict]) -> bytes:
    return b"".join(orjson.dumps(m) + b"\n" for m in messages)


def lint(path: Path, limit: int = LIMIT, jobs: int = 1, **options):
    return lint_paths([str(path)], options=LintOptions(max_line_bytes=limit, **options), jobs=jobs)


def codes(findings, code: str) -> list:
    return [f for f in findings if f.code == code]


def test_a_long_response_is_io013_only_and_answers_its_request(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(jsonl(session()))
    findings, _ = lint(path)
    (io013,) = codes(findings, "IO013")
    assert io013.line == 5 and io013.severity.value == "info" and io013.confidence == "high"
    assert "--max-line-bytes" in io013.message and "max-line-bytes in [tool.mcplint]" in io013.message
    assert "1 KiB (1,024 bytes)" in io013.message and "tools/call #1 on line 4" in io013.message
    assert [f for f in findings if f.line == 5] == [io013]  # no parse error (JR002) for it
    assert not [f for f in findings if f.code in UNANSWERED]
    assert [f.line for f in codes(findings, "JR001")] == [7]  # the lines after it are read as usual


def test_default_limit_reads_the_line(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(jsonl(session()))
    findings, _ = lint(path, MAX_LINE_BYTES)
    assert not codes(findings, "IO013") and not [f for f in findings if f.line == 5]
    assert LintOptions().max_line_bytes == MAX_LINE_BYTES


def test_reported_once_per_file_with_the_count(tmp_path):
    path = tmp_path / "two.jsonl"
    path.write_bytes(jsonl(session(big=3)))
    findings, _ = lint(path)
    (io013,) = codes(findings, "IO013")
    assert io013.line == 5 and "2 more lines of this session were not read either" in io013.message
    assert not [f for f in findings if f.code in UNANSWERED or f.code == "JR002"]


def test_once_per_file_across_sessions(tmp_path):
    path = tmp_path / "sessions.jsonl"
    path.write_bytes(jsonl(session(0) + session(100)))
    findings, _ = lint(path)
    assert [f.line for f in codes(findings, "IO013")] == [5]
    assert not [f for f in findings if f.code in UNANSWERED or f.code == "JR002"]


def test_an_id_out_of_sight_lowers_the_unanswered_finding(tmp_path):
    path = tmp_path / "ts.jsonl"
    path.write_bytes(jsonl(session(result_first=True)))
    findings, _ = lint(path)
    (hx001,) = codes(findings, "HX001")
    assert hx001.line == 4 and hx001.severity.value == "info" and hx001.confidence == "low"
    assert "line 5 was too long for mcplint to read (IO013)" in hx001.message
    assert [r.line for r in hx001.related] == [5]
    (io013,) = codes(findings, "IO013")
    assert "response to" not in io013.message


def test_a_long_request_answers_nothing(tmp_path):
    messages = handshake() + [call(1), {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                        "params": {"name": "x", "arguments": {"blob": "A" * 2048}}}]
    path = tmp_path / "request.jsonl"
    path.write_bytes(jsonl(messages))
    findings, _ = lint(path)
    (hx001,) = codes(findings, "HX001")
    assert hx001.line == 4 and hx001.severity.value == "warning" and "IO013" not in hx001.message


def long_call(request_id, **members) -> dict:
    """A tools/call with a 2 KB argument, its id before its params (as SDKs write it)."""
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "x", "arguments": {"blob": "A" * 2048}}, **members}


def text_result(request_id, version: str = "2.0") -> dict:
    return {"jsonrpc": version, "id": request_id, "result": {"content": [{"type": "text", "text": "ok"}]}}


def test_the_response_of_a_long_request_is_not_unknown(tmp_path):
    """The request was too long for mcplint to read, not missing: its response is no JR011, while
    checks of the response alone (its envelope, JR001) still run; an id never sent is still JR011."""
    messages = handshake() + [long_call(1), text_result(1), long_call(2), text_result(2, version="1.0"),
                              text_result(9)]
    path = tmp_path / "request.jsonl"
    path.write_bytes(jsonl(messages))
    findings, _ = lint(path)
    assert [(f.line, f.code) for f in findings] == [(4, "IO013"), (7, "JR001"), (8, "JR011")]
    assert "more line of this session was not read" in codes(findings, "IO013")[0].message


def test_a_long_request_excuses_one_response(tmp_path):
    messages = handshake() + [long_call(1), text_result(1), text_result(1)]
    path = tmp_path / "twice.jsonl"
    path.write_bytes(jsonl(messages))
    findings, _ = lint(path)
    assert [(f.line, f.code) for f in findings] == [(4, "IO013"), (6, "JR011")]


def test_a_long_request_whose_id_is_out_of_sight_changes_nothing(tmp_path):
    request = long_call(1)
    request["id"] = request.pop("id")  # the id after the params, as the TypeScript SDK writes it
    path = tmp_path / "ts-request.jsonl"
    path.write_bytes(jsonl(handshake() + [request, text_result(1)]))
    findings, _ = lint(path)
    assert [(f.line, f.code) for f in findings] == [(4, "IO013"), (5, "JR011")]


def test_a_long_request_is_answered_from_the_other_side_only(tmp_path):
    """The capture says who sent the long request (a server's sampling request, id 1, while the
    client's own request 1 is open): the client's response is its answer, not a response to the
    client's own id (JR011); a second response with id 1 from the server answers the client's
    request; a third, from the server again, is no answer to the server's own request."""
    sampling = {"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage",
                "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "A" * 2048}}],
                           "maxTokens": 10}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "model": "m",
                                                      "content": {"type": "text", "text": "hi"}}}
    messages = handshake()
    messages[0]["params"]["capabilities"] = {"sampling": {}}
    flow = [("c2s", m) for m in messages[:1]] + [("s2c", messages[1]), ("c2s", messages[2])] + [
        ("c2s", call(1)), ("s2c", sampling), ("c2s", answer), ("s2c", text_result(1)), ("s2c", text_result(1))]
    lines = [{"ts": f"2026-01-01T00:00:{n:02d}Z", "dir": d, "raw": orjson.dumps(m).decode()}
             for n, (d, m) in enumerate(flow)]
    path = tmp_path / "sampling.mcplog"
    path.write_bytes(jsonl(lines))
    findings, _ = lint(path)
    assert [(f.line, f.code) for f in findings] == [(5, "IO013"), (8, "JR013")]


def test_canonical_capture_gives_direction_and_session(tmp_path):
    senders = {"initialize": "c2s", "tools/call": "c2s", "ping": "c2s", "notifications/initialized": "c2s"}
    lines = [{"ts": f"2026-01-01T00:00:{n:02d}Z", "dir": senders.get(m.get("method"), "s2c"), "session": "A",
              "raw": orjson.dumps(m).decode()} for n, m in enumerate(session(big=2))]
    path = tmp_path / "big.mcplog"
    path.write_bytes(jsonl(lines))
    findings, summary = lint(path)
    (io013,) = codes(findings, "IO013")
    assert (io013.line, io013.session, io013.direction) == (5, "A", "s2c")
    assert "1 more line of this session was not read either" in io013.message
    assert not [f for f in findings if f.code in UNANSWERED or f.code == "JR002"]
    assert [s.label for s in summary.sessions[str(path)]] == ["A"]


def test_diagnose_sees_no_stall(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(jsonl(session()[:5]))  # the capture ends with the long response
    collector = DiagnoseCollector()
    lint_paths([str(path)], options=LintOptions(max_line_bytes=LIMIT), observers=[collector])
    (diagnosis,) = collector.diagnoses.values()
    assert diagnosis.open_requests == []


@pytest.mark.parametrize("head,expected", [
    ('{"jsonrpc":"2.0","id":7,"result":{"content":[{"id":9', (True, 7)),
    ('{"id": "a\\"b", "jsonrpc": "2.0", "error": {"code": -32603', (True, 'a"b')),
    ('{"result":{"content":[{"type":"text","text":"{\\"id\\":3', (True, UNSEEN)),
    ('{"jsonrpc":"2.0","id":null,"error":{"code":-32700', (True, None)),
    ('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"result":1', (False, None)),
    ('{"jsonrpc":"2.0","params":{"id":5,"result":', (False, None)),
    ('{"ts":"2026-01-01T00:00:00Z","dir":"s2c","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":\\"x\\",\\"result\\":{',
     (True, "x")),
    ('{"timestamp":1,"type":"response","id":12,"result":{"tools":[', (True, 12)),
    ("2026-01-01 [info] Message from server: " + '{"jsonrpc":"2.0","id":3,"result":', (True, 3)),
    ("AAAAAAAAAAAAAAAA", (False, None)),
])
def test_head_answers(head, expected):
    assert head_answers(head) == expected


@pytest.mark.parametrize("head,expected", [
    ('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{"blob":"AAA', ("request", 4, "tools/call")),
    ('{"method":"ping","id":"a\\"b","jsonrpc":"2.0"', ("request", 'a"b', "ping")),
    ('{"ts":"2026-01-01T00:00:00Z","dir":"s2c","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":7,\\"method\\":'
     '\\"sampling/createMessage\\",\\"params\\":{', ("request", 7, "sampling/createMessage")),
    ('{"method":"tools/call","params":{"id":5,"arguments":{"blob":"AAA', (None, UNSEEN, UNSEEN)),
    ('{"jsonrpc":"2.0","method":"notifications/message","params":{"id":5', (None, UNSEEN, UNSEEN)),
    ('{"jsonrpc":"2.0","id":null,"method":"ping","params":{', (None, UNSEEN, UNSEEN)),
    ('{"jsonrpc":"2.0","id":{"a":1},"method":"ping","params":{', (None, UNSEEN, UNSEEN)),
    ('{"jsonrpc":"2.0","id":2,"method":17,"params":{', ("request", 2, None)),
    ('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":',
     ("request", 1, "ping")),
    ('{"jsonrpc":"2.0","id":3,"result":{"method":"x"', ("response", 3, UNSEEN)),
    ('{"jsonrpc":"2.0","id":1e999,"method":"ping","params":{', (None, UNSEEN, UNSEEN)),
    ('{"jsonrpc":"2.0","id":"\\ud800","method":"\\', (None, UNSEEN, UNSEEN)),
    ("\x00\udcff\"id\":\"\udcff\",\"method\":\"\x00\"", (None, UNSEEN, UNSEEN)),
    ('{"id":"\\ud800","method":"ping","params":', (None, UNSEEN, UNSEEN)),
])
def test_read_head(head, expected):
    assert read_head(head) == expected


# -- every reader, and --jobs ------------------------------------------------------------------------
FORMAT_SAMPLES = {
    "jsonl": "reused-ids.jsonl",
    "capture": "clean-2025-06-18.mcplog",
    "transcript": "clean-transcript-2025-06-18.transcript",
    "claude-desktop": "claude-desktop-mcp.log",
    "vscode": "vscode-mcp-output-weather.log",
    "mcpspy": "mcpspy-weather.jsonl",
    "mcpsnoop": "mcpsnoop-weather.jsonl",
    "go-sdk-log": "go-sdk-logging-transport-server.log",
    "inspector": "inspector-history-weather-2026-05-27T10-01-03.120Z.json",
    "har": "clean-streamable-http-json-2025-06-18.har",
}


def longest_lines(data: bytes) -> tuple[list[int], int]:
    """The numbers of the longest lines, and their length."""
    lengths = [len(line) for line in data.split(b"\n")]
    longest = max(lengths)
    return [n for n, length in enumerate(lengths, 1) if length == longest], longest


@pytest.mark.parametrize("fmt", sorted(FORMAT_SAMPLES))
def test_every_reader_honours_the_limit(fmt):
    path = SAMPLES / FORMAT_SAMPLES[fmt]
    data = path.read_bytes()
    lines, length = longest_lines(data)
    _, frames = open_frames(io.BytesIO(data), fmt, max_line_bytes=length - 1)
    cut = [f for f in frames if "oversized" in f.flags]
    assert [(f.line, f.msg) for f in cut] == [(line, Cut(length, length - 1)) for line in lines]
    findings, _ = lint(path, length - 1, input_format=fmt)
    assert [f.line for f in codes(findings, "IO013")] == lines[:1]
    assert not [f for f in findings if f.line in lines and f.code != "IO013" and f.severity.value == "error"]
    default, _ = lint(path, MAX_LINE_BYTES, input_format=fmt)
    assert not codes(default, "IO013")


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(parallel, "SPLIT_BYTES", 1)
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 1)
    monkeypatch.setattr(parallel, "PARTS_PER_JOB", 8)


def same_with_jobs(paths: list[str]):
    options = LintOptions(max_line_bytes=LIMIT)
    one = lint_paths(paths, options=options, jobs=1)
    two = lint_paths(paths, options=options, jobs=2)
    assert [f.to_dict() for f in two[0]] == [f.to_dict() for f in one[0]]
    return one[0]


def test_jobs_split_a_file_and_still_report_once(tmp_path, small_parts):
    path = tmp_path / "many.jsonl"
    path.write_bytes(jsonl([m for s in range(6) for m in session(s * 100, big=1 + s % 2)]))
    parts = parallel.plan(str(path), LintOptions(max_line_bytes=LIMIT), 2)
    assert parts and len(parts) > 1
    findings = same_with_jobs([str(path)])
    assert [f.line for f in codes(findings, "IO013")] == [5]
    assert not [f for f in findings if f.code in UNANSWERED or f.code == "JR002"]


def test_jobs_over_files(tmp_path):
    names = []
    for n in range(2):
        path = tmp_path / f"f{n}.jsonl"
        path.write_bytes(jsonl(session(big=2)))
        names.append(str(path))
    findings = same_with_jobs(names)
    assert [(f.path, f.line) for f in codes(findings, "IO013")] == [(names[0], 5), (names[1], 5)]


def test_the_splitter_does_not_cut_at_a_line_over_the_limit(tmp_path, small_parts):
    """An initialize too long to read opens no session, in a part as in one process."""
    long_init = handshake(100)
    long_init[0]["params"]["clientInfo"]["title"] = "A" * 2048
    path = tmp_path / "long-init.jsonl"
    path.write_bytes(jsonl(session(0) + long_init + session(200)))
    parts = parallel.plan(str(path), LintOptions(max_line_bytes=LIMIT), 2)
    assert [p.first_line for p in parts] == [1, 11]  # not at line 8
    same_with_jobs([str(path)])


def test_jobs_split_a_file_with_long_requests(tmp_path, small_parts):
    def requests(base: int) -> list[dict]:
        return handshake(base) + [long_call(base + 1), text_result(base + 1), text_result(base + 9)]

    path = tmp_path / "requests.jsonl"
    path.write_bytes(jsonl([m for s in range(4) for m in requests(s * 100)]))
    assert len(parallel.plan(str(path), LintOptions(max_line_bytes=LIMIT), 2)) > 1
    findings = same_with_jobs([str(path)])
    assert [f.line for f in codes(findings, "IO013")] == [4]
    assert [f.line for f in codes(findings, "JR011")] == [6, 12, 18, 24]

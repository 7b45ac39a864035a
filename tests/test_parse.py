"""The parser is total: every line becomes exactly one record, and nothing raises."""

from __future__ import annotations

import dataclasses
import io

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.analysis.engine import Engine
from mcplint.input import literal_scan
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames
from mcplint.model import Kind, Record

ENGINE = Engine()


def records_of(data: bytes, fmt: str = "auto"):
    _, frames = open_frames(io.BytesIO(data), fmt)
    return list(Parser("<t>").records(frames))


def lint(data: bytes, fmt: str = "auto"):
    return list(ENGINE.lint_stream(io.BytesIO(data), "<t>", fmt))


def line_count(data: bytes) -> int:
    return len(data.split(b"\n")) - (1 if data.endswith(b"\n") else 0) if data else 0


def test_classification():
    lines = [
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'{"jsonrpc":"2.0","id":1,"result":{}}',
        b'{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}',
        b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
        b'{"jsonrpc":"2.0","id":3}',
        b'{"jsonrpc":"2.0","id":3,"method":"ping"',
        b"Server running on stdio",
        b'{"jsonrpc":"2.0","id":4,"result":{}}{"jsonrpc":"2.0","id":5,"result":{}}',
        b"42",
    ]
    kinds = [r.kind for r in records_of(b"\n".join(lines))]
    assert kinds == [Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT, Kind.ERROR, Kind.BATCH, Kind.INVALID,
                     Kind.MALFORMED, Kind.TEXT, Kind.MULTI, Kind.INVALID]


def test_pretty_printed_message_is_reassembled():
    data = b'{\n  "jsonrpc": "2.0",\n  "id": 1,\n  "result": {}\n}\n'
    records = records_of(data)
    assert [r.kind for r in records] == [Kind.RESULT] + [Kind.CONTINUATION] * 4
    assert records[0].span == 5 and "multiline" in records[0].flags
    assert all(r.continues == 1 for r in records[1:])


def test_encodings_are_flagged_not_fatal():
    records = records_of(b'{"jsonrpc":"2.0","id":1,"result":{"t":"caf\xe9"}}\r\n\xef\xbb\xbf{"a":1}\n')
    assert "invalid_utf8" in records[0].flags and "crlf" in records[0].flags
    assert records[0].kind is Kind.RESULT
    assert "bom" in records[1].flags


def test_capture_format_and_transcript_are_sniffed():
    capture = b'{"ts":"2026-01-01T00:00:00Z","dir":"c2s","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"ping\\"}"}\n'
    fmt, _ = open_frames(io.BytesIO(capture))
    assert fmt == "capture"
    fmt, _ = open_frames(io.BytesIO(b'# x\nC->S {"jsonrpc":"2.0","id":1,"method":"ping"}\n'))
    assert fmt == "transcript"
    record = records_of(capture)[0]
    assert record.direction.value == "c2s" and record.direction_observed and record.t is not None


def test_deep_nesting_and_huge_values_do_not_crash():
    deep = b"[" * 100_000 + b"]" * 100_000
    records = records_of(deep + b"\n" + b'{"a":"' + b"x" * 5_000_000 + b'"}\n')
    assert len(records) == 2


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "code", "message",
                         "_meta", "progressToken", "requestId", "capabilities", "protocolVersion", "x"]),
        children, max_size=6),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=200), max_size=20))
def test_arbitrary_bytes_never_crash_and_keep_line_count(chunks):
    data = b"\n".join(c.replace(b"\n", b"") for c in chunks)
    assert len(records_of(data, "jsonl")) == line_count(data)
    lint(data)
    lint(data, "transcript")
    lint(data, "capture")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(json_values, max_size=15), st.lists(st.sampled_from(["", "C→S ", "S→C "]), min_size=15, max_size=15))
def test_arbitrary_json_never_crashes_the_engine(values, arrows):
    lines = [orjson.dumps(v) for v in values]
    data = b"\n".join(lines)
    assert len(records_of(data, "jsonl")) == line_count(data)
    lint(data, "jsonl")
    transcript = b"\n".join(a.encode() + line for a, line in zip(arrows, lines))
    lint(transcript, "transcript")
    capture = b"\n".join(orjson.dumps({"dir": "c2s" if a.startswith("C") else "s2c", "msg": v})
                         for a, v in zip(arrows, values))
    lint(capture, "capture")


# -- the JSON Lines fast path -------------------------------------------------------------------
_JSONL_LINES = st.sampled_from([
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","apikey":"k"}}',
    b'{"jsonrpc":"2.0","id":1,"result":{}}',
    b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\r',
    b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    b'{"jsonrpc":"2.0","id":3}{"jsonrpc":"2.0","id":4,"result":{}}',
    b'{', b'  "jsonrpc": "2.0", "id": 5,', b'  "method": "ping"', b'}',
    b'', b'   ', b'Starting server...', b'{"a":', b'null', b'"\xff\xfe"', b'\xff\xfe{\x00}\x00',
    b'{"jsonrpc":"2.0","id":6,"result":{"text":"' + b"x" * 300 + b'"}}',
    b'{"jsonrpc":"2.0",\r"id":7,"method":"ping"}', b'{"jsonrpc":"2.0","method":"ping"}\r\r',
])


def _facts(record):
    return (record.line, record.kind, record.data if isinstance(record.data, bytes) else record.data.encode(),
            orjson.dumps(record.msg, option=orjson.OPT_PASSTHROUGH_DATACLASS, default=repr), record.has_id,
            record.id, record.method, record.direction, record.direction_observed, record.flags, record.signs,
            record.span, record.continues, record.error, [_facts(child) for child in record.children])


def assert_fast_path_equals_frame_path(lines: list[bytes], fmt: str, limit: int, facts) -> None:
    """The records Parser.records makes from the reader's batches (LineFrames) are the records of
    the same lines' frames one by one: ``facts`` of each, one record per line."""
    data = b"\n".join(lines) + b"\n"
    _, fast = open_frames(io.BytesIO(data), fmt, max_line_bytes=limit)
    _, slow = open_frames(io.BytesIO(data), fmt, max_line_bytes=limit)
    assert type(fast).__name__ == "LineFrames"
    got = [facts(r) for r in Parser("<t>").records(fast)]
    assert got == [facts(r) for r in Parser("<t>").records(list(slow))]
    assert len(got) == max(1, len(lines))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_JSONL_LINES, max_size=40), st.sampled_from([64, 200, 1 << 20]))
def test_json_lines_fast_path_gives_the_records_of_the_frame_path(lines, limit):
    """Parser.records decodes plain JSON Lines straight from the reader's batches (LineFrames);
    it gives exactly the records it gives for the same frames one by one, across cut lines, CR
    endings, batches and messages spread over several lines (after which it reads on by frames)."""
    assert_fast_path_equals_frame_path(lines, "jsonl", limit, _facts)


# -- the canonical capture fast path ----------------------------------------------------------
_ABSENT = object()
_RAW = st.sampled_from([
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}', '{"jsonrpc":"2.0","id":1,"result":{}}',
    ' {"jsonrpc":"2.0","method":"notifications/initialized"} ', '{"jsonrpc":"2.0","id":2,"result":{}}\r',
    '\ufeff{"jsonrpc":"2.0","id":3,"method":"ping"}', '[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    '{"jsonrpc":"2.0","id":3}{"jsonrpc":"2.0","id":4,"result":{}}', '{', '"jsonrpc": "2.0", "id": 5}', '}',
    '{"jsonrpc":"2.0",\r"id":7,"method":"ping"}', '{"jsonrpc":"2.0","method":"ping"}\r\r',
    '', '  ', 'Starting server...', 'null', '{"a":"\x00"}', '{"a":1}\x00', 5, None, ["x"],
    # objects in no common shape (classify's other reading)
    '{"jsonrpc":"2.0","id":8,"method":"ping","result":{}}', '{"jsonrpc":"2.0","error":{"code":-1}}', '{"id":9}',
    '{"method":3,"id":1}', '{"jsonrpc":"2.0","result":{}}',
    # secret-scan literals (Record.signs), with escapes around them in the capture line
    '{"jsonrpc":"2.0","id":5,"result":{"api_key":"sk-abc123def456ghi789","url":"https://u:p@h/\\"x"}}',
    '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"_meta":{"progressToken":"t"},"a":"Bearer \\"q1"}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"token\\nmcp-session-id: AKIA"}}',
])


def _capture_line(dir_, raw, ts, session, transport, msg) -> bytes:
    envelope = {name: value for name, value in (("ts", ts), ("dir", dir_), ("session", session), ("raw", raw),
                                                  ("transport", transport), ("msg", msg)) if value is not _ABSENT}
    return orjson.dumps(envelope)


_CAPTURE_LINES = st.one_of(
    st.builds(_capture_line,
              st.sampled_from(["c2s", "s2c", "c2s", "s2c", "meta", "stderr", "x", _ABSENT, 1, ["c2s"]]), _RAW,
              st.sampled_from(["2026-11-30T10:00:00.001Z", "2026-11-30T10:00:00", "late", 12.5, 3, True, None,
                               _ABSENT]),
              st.sampled_from([_ABSENT, _ABSENT, "s1", "s2", 7, None, {"a": 1}]),
              st.sampled_from([_ABSENT, _ABSENT, "stdio", "http", "tcp", ["http"], None]),
              st.sampled_from([_ABSENT, _ABSENT, {"jsonrpc": "2.0", "id": 9, "result": {}}])),
    st.sampled_from([b"", b"  ", b"not json", b"[1]", b'{"dir":"c2s","raw":"{}"}\r', b'"\xff\xfe"',
                     # a message in the common envelope, the capture line ending in CR or opening with a BOM
                     orjson.dumps({"ts": "2026-11-30T10:00:00.001Z", "dir": "s2c",
                                   "raw": '{"jsonrpc":"2.0","id":1,"result":{}}'}) + b"\r",
                     b"\xef\xbb\xbf" + orjson.dumps({"dir": "c2s", "raw": '{"jsonrpc":"2.0","method":"ping"}'}),
                     b'{"dir":"meta","event":"start","raw":"mcplint capture"}']),
)


def _capture_facts(record):
    """The facts of :func:`_facts`, but for ``signs``: the fast path gives the capture line's, which
    must hold every bit of the message's own (the frame path leaves them unknown)."""
    facts = _facts(record)
    return (*facts[:10], _signs_cover(record), *facts[11:], record.ts, record.t, record.session_key,
            record.transport, record.http, record.params)


def _signs_cover(record) -> bool:
    """``Record.signs`` is unknown, or holds every bit of an exact scan of the record's text."""
    if record.signs is None:
        return True
    data = record.data if isinstance(record.data, bytes) else record.data.encode()
    return literal_scan.signs(data) & ~record.signs == 0


def test_a_capture_line_longer_than_the_scan_leaves_the_signs_unknown():
    """Escapes lengthen the message in its line: past the scan, the message's scanned head may reach
    beyond the line's, so the line's signs say nothing of it."""
    raw = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"pad": '"' * (literal_scan.MAX_SCAN // 3),
                                                               "password": "hunter2hunter2"}}).decode()
    assert raw.index("password") < literal_scan.MAX_SCAN
    line = orjson.dumps({"ts": "2026-11-30T10:00:00Z", "dir": "s2c", "raw": raw})
    _, frames = open_frames(io.BytesIO(line + b"\n"), "capture")
    (record,) = Parser("<t>").records(frames)
    assert record.signs is None and _signs_cover(record)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_CAPTURE_LINES, max_size=40), st.sampled_from([64, 200, 1 << 20]))
def test_capture_fast_path_gives_the_records_of_the_frame_path(lines, limit):
    """Parser.records makes the records of canonical capture lines in the common envelope straight
    from the reader's batches; they are exactly the records of the same lines' frames, for odd
    envelopes, meta and stderr records, cut lines and messages spread over several records too."""
    assert_fast_path_equals_frame_path(lines, "capture", limit, _capture_facts)


def _classified_plainly(value: dict) -> tuple:
    """The catalog's linter model (§0.1) read literally: what classify must make of an object."""
    has = {name: name in value for name in ("method", "id", "result", "error")}
    if has["method"] and not isinstance(value["method"], str):
        return Kind.INVALID, has["id"], value.get("id"), None
    if has["method"] and not (has["result"] or has["error"]):
        return (Kind.REQUEST if has["id"] else Kind.NOTIFICATION), has["id"], value.get("id"), value["method"]
    if has["id"] and (has["result"] or has["error"]) and not has["method"]:
        return (Kind.RESULT if has["result"] else Kind.ERROR), True, value["id"], None
    if (has["result"] or has["error"]) and not has["method"]:
        return (Kind.ERROR if has["error"] else Kind.RESULT), False, None, None
    return Kind.INVALID, has["id"], value.get("id"), value.get("method") if has["method"] else None


_MEMBER_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from(["ping", "", "1"]),
                           st.just({}), st.just([]))


@given(st.dictionaries(st.sampled_from(["jsonrpc", "method", "id", "result", "error", "params"]), _MEMBER_VALUES))
def test_classify_follows_the_linter_model(value):
    from mcplint.input.parse import classify

    record = classify("<t>", 1, b"", value)
    assert (record.kind, record.has_id, record.id, record.method) == _classified_plainly(value)
    assert record.params is (value.get("params") if record.kind in (Kind.REQUEST, Kind.NOTIFICATION) else None)
    # every other field as Record(...) leaves it (classify makes its record itself: model.record_maker)
    plain = Record("<t>", 1, record.kind, b"", value, record.has_id, record.id, record.method, record.params,
                   error=record.error)
    assert type(record) is Record
    for field in dataclasses.fields(Record):
        assert getattr(record, field.name) is getattr(plain, field.name), field.name

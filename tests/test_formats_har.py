"""The HAR reader: every line accounted for, SSE events as records, sessions, ordering, redaction."""

from __future__ import annotations

import io
import json

from click.testing import CliRunner

from mcplint.analysis.engine import Engine
from mcplint.cli import main
from mcplint.input.lines import iter_lines
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames
from mcplint.model import Kind
from mcplint.redact import Redactor, redact_stream
from mcplint.redact.engine import RedactOptions
from tests.formats_helpers import SAMPLES, line_count
from tests.harbuilder import (
    URL,
    dumps,
    entry,
    handshake,
    har,
    in_sequence,
    initialize_request,
    initialize_result,
    one_per_line,
    post_headers,
)

ENGINE = Engine()
SID = "5d0c2b6e9f8a4c1d"


def lint_text(text: str):
    fmt, frames = open_frames(io.BytesIO(text.encode("utf-8")))
    assert fmt == "har"
    return list(ENGINE.lint_records(Parser("<har>").records(frames), "<har>"))


def records(text: str):
    fmt, frames = open_frames(io.BytesIO(text.encode("utf-8")))
    assert fmt == "har"
    return list(Parser("<har>").records(frames))


def label(sid: str) -> str:
    """Session ids longer than 12 characters are shortened in session labels (never printed whole)."""
    return f"mcp-session {sid[:6]}…"


def codes(findings):
    return sorted({f.code for f in findings})


def session(*more, version="2025-11-25", sse=False):
    return in_sequence(handshake(version, SID, {}, {"tools": {}}, sse=sse) + list(more))


def post(body, **kw):
    return entry(request_headers=post_headers(SID, "2025-11-25"), body=body, **kw)


def test_every_line_is_accounted_for_and_sse_events_are_records():
    text = dumps(har(session(post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                  sse=[{"id": "e1", "data": ""},
                                       {"id": "e2", "event": "message",
                                        "data": {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}}]))))
    recs = records(text)
    lines = line_count(text.encode())
    messages = [r for r in recs if r.kind in (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT, Kind.ERROR)]
    assert len(recs) == lines + len(messages)  # one exchange record per entry line, messages extra
    assert {r.line for r in recs} == set(range(1, lines + 1))
    result = next(r for r in messages if r.kind is Kind.RESULT and r.id == 1)
    assert result.http["sse_event_id"] == "e2" and result.http["entry"] == 3
    assert result.transport == "http" and result.session_key == label(SID)
    exchange = next(r for r in recs if r.http is not None and r.http["role"] == "exchange" and r.http["entry"] == 3)
    assert exchange.kind is Kind.COMMENT and exchange.line == result.line
    assert [e["id"] for e in exchange.http["events"]] == ["e1", "e2"]


def test_sniffs_pretty_and_single_line_documents_only():
    doc = har(session())
    for text in (dumps(doc), json.dumps(doc), one_per_line(session())):
        fmt, _ = open_frames(io.BytesIO(text.encode()))
        assert fmt == "har"
    fmt, _ = open_frames(io.BytesIO(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'))
    assert fmt != "har"


def test_several_entries_on_one_line_share_it():
    text = json.dumps(har(session())) + "\n"  # minified: every entry on line 1
    recs = records(text)
    messages = [r for r in recs if r.kind in (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT)]
    assert len(messages) == 3 and {r.line for r in recs} == {1}
    assert len(recs) == 1 + 1 + len(messages)  # the line, the second entry's exchange, the messages
    assert "LC008" not in codes(lint_text(text))  # initialize answered before initialized


def test_batch_post_is_one_batch_record_and_allowed_in_2025_03_26():
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
    text = dumps(har(in_sequence(handshake("2025-03-26", SID) + [
        entry(request_headers=post_headers(SID), body=batch,
              json_body=[{"jsonrpc": "2.0", "id": 1, "result": {}}, {"jsonrpc": "2.0", "id": 2, "result": {}}])])))
    kinds = [r.kind for r in records(text) if r.kind is Kind.BATCH]
    assert len(kinds) == 2  # the request batch and the response batch
    assert "HT001" not in codes(lint_text(text)) and "JR018" not in codes(lint_text(text))


def test_base64_bodies_are_decoded():
    import base64

    item = post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, json_body={"jsonrpc": "2.0", "id": 1, "result": {}})
    content = item["response"]["content"]
    content["text"] = base64.b64encode(content["text"].encode()).decode()
    content["encoding"] = "base64"
    results = [r for r in records(dumps(har(session(item)))) if r.kind is Kind.RESULT and r.id == 1]
    assert len(results) == 1


def test_truncated_document_reports_the_break_and_keeps_earlier_entries():
    text = dumps(har(session(post({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                  json_body={"jsonrpc": "2.0", "id": 1, "result": {}}))))
    cut = text[: int(len(text) * 0.8)]
    findings = lint_text(cut)
    broken = [f for f in findings if f.code == "JR002"]
    assert len(broken) == 1 and "unreadable HAR document" in broken[0].message
    assert any(r.kind is Kind.REQUEST and r.method == "initialize" for r in records(cut))
    assert len(records(cut)) >= line_count(cut.encode())


def test_not_a_har_read_as_har_is_one_finding(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"entries": []}\n')
    result = CliRunner().invoke(main, ["check", "--input-format", "har", "--output-format", "concise", str(path)])
    assert "JR002" in result.output and "not a HAR document" in result.output


def test_sessions_follow_mcp_session_id_and_missing_header_stays_in_its_session():
    other = "0aa1bb2cc3dd4ee5"
    text = dumps(har(session(
        entry(request_headers={"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                               "MCP-Protocol-Version": "2025-11-25"},
              body={"jsonrpc": "2.0", "id": 1, "method": "ping"}, json_body={"jsonrpc": "2.0", "id": 1, "result": {}}),
    ) + handshake("2025-11-25", other, started=1.0)))
    recs = [r for r in records(text) if r.kind in (Kind.REQUEST, Kind.RESULT)]
    keys = {r.session_key for r in recs}
    assert keys == {label(SID), label(other)}
    ping = next(r for r in recs if r.method == "ping")
    assert ping.session_key == label(SID)
    found = codes(lint_text(text))
    assert "HT014" in found and "LC001" not in found and "LC010" not in found


def test_http_sse_transport_responses_follow_their_requests():
    text = (SAMPLES / "clean-http-sse-transport-2024-11-05.har").read_text()
    order = [(r.direction.value, r.method or r.kind.value, r.id) for r in records(text)
             if r.kind in (Kind.REQUEST, Kind.RESULT)]
    for position, (direction, what, ident) in enumerate(order):
        if what == "result":
            assert ("c2s", ident) in {(d, i) for d, w, i in order[:position] if w != "result"}


def test_request_refused_at_http_level_is_not_analysed():
    text = dumps(har([entry(request_headers=post_headers(), status=401,
                            body={"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                  "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                             "clientInfo": {"name": "c", "version": "1"}}},
                            response_headers={"WWW-Authenticate": 'Bearer resource_metadata="https://x/.well-known/'
                                                                  'oauth-protected-resource", scope="a"'})]))
    assert not [r for r in records(text) if r.kind is Kind.REQUEST]
    assert codes(lint_text(text)) == []


def test_findings_name_the_entry_and_header():
    result = CliRunner().invoke(main, ["check", "--output-format", "concise",
                                       str(SAMPLES / "http-session-mistakes-2025-11-25.har")])
    assert "entry 4 (POST /mcp → 200)" in result.output and "MCP-Protocol-Version" in result.output
    assert "entry 3" in result.output and "Accept" in result.output


def test_finding_messages_name_entries_not_har_lines():
    """RS001 names the initialize result by its entry (a HAR's lines say nothing); stdio keeps lines."""
    init = entry(request_headers=post_headers(), body=initialize_request("2025-11-25"),
                 response_headers={"Mcp-Session-Id": SID}, json_body=initialize_result("2025-11-25", {"resources": {}}),
                 time_ms=50)
    early = entry(request_headers=post_headers(SID), json_body={"jsonrpc": "2.0", "id": 1, "result": {}},
                  body={"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": "file:///a"}},
                  started=0.01, time_ms=60)
    (finding,) = [f for f in lint_text(dumps(har([init, early]))) if f.code == "RS001"]
    assert finding.message.endswith("without subscribe: true (entry 1)")


def test_findings_never_print_tokens_or_session_ids():
    path = SAMPLES / "http-auth-mistakes-2025-11-25.har"
    doc = json.loads(path.read_text())
    secrets = set()
    for item in doc["log"]["entries"]:
        for header in item["request"]["headers"]:
            if header["name"].lower() in ("authorization", "mcp-session-id"):
                secrets.add(header["value"].split()[-1])
        if "?" in item["request"]["url"]:
            secrets.add(item["request"]["url"].split("=", 1)[1])
    result = CliRunner().invoke(main, ["check", "--output-format", "json", str(path)])
    assert result.output and not any(secret in result.output for secret in secrets)


def test_redaction_covers_headers_cookies_query_and_bodies():
    text = dumps(har(session(post(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "deploy", "arguments": {"api_key": "sk-proj-abcdefghijklmnopqrstuvwx1234"}}},
        json_body={"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": False}}))))
    doc = json.loads(text)
    first = doc["log"]["entries"][0]
    first["request"]["headers"].append({"name": "Authorization", "value": "Bearer abcdefghijklmnop0123456789"})
    first["request"]["headers"].append({"name": "Cookie", "value": "sid=s%3Aabcdef0123456789abcdef"})
    first["request"]["cookies"] = [{"name": "sid", "value": "s%3Aabcdef0123456789abcdef"}]
    first["request"]["url"] = URL + "?access_token=mF9B5f41JqMxyz123456"
    text = dumps(doc)
    out = io.BytesIO()
    redactor = Redactor(RedactOptions())
    assert redact_stream(io.BytesIO(text.encode()), out, redactor) == "har"
    redacted = out.getvalue().decode()
    assert redacted.count("\n") == text.count("\n")
    for secret in ("abcdefghijklmnop0123456789", "s%3Aabcdef0123456789abcdef", "mF9B5f41JqMxyz123456",
                   "sk-proj-abcdefghijklmnopqrstuvwx1234", SID):
        assert secret not in redacted, secret
    assert {"authorization", "cookie", "session-id", "api-key"} <= set(redactor.report.counts)
    # the redacted capture still reads the same way
    hx011 = {"HX011"}  # the secret in the tool arguments, which redaction removed
    assert set(codes(lint_text(redacted))) == set(codes(lint_text(text))) - hx011


def test_redacted_samples_keep_their_findings():
    for name in ("clean-streamable-http-sse-2025-11-25.har", "http-session-mistakes-2025-11-25.har"):
        data = (SAMPLES / name).read_bytes()
        out = io.BytesIO()
        redact_stream(io.BytesIO(data), out, Redactor(RedactOptions()))
        assert len(out.getvalue().split(b"\n")) == len(data.split(b"\n"))
        assert codes(lint_text(out.getvalue().decode())) == codes(lint_text(data.decode()))


def test_iter_lines_reader_accepts_minified_har_with_crlf():
    text = json.dumps(har(session())).replace("\n", "") + "\r\n"
    from mcplint.input.formats.har import read_har

    frames = list(read_har(iter_lines(io.BytesIO(text.encode()))))
    assert frames and all(f.line == 1 for f in frames)

"""Python SDK debug logging: pydantic reprs of the messages turned back into JSON-RPC."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.input.formats.python_sdk import message_of
from mcplint.model import Direction, Kind
from mcplint.redact import Redactor, redact_stream
from mcplint.redact.engine import RedactOptions
from tests.formats_helpers import (
    assert_one_record_per_line,
    lint,
    lint_engine,
    messages_of,
    records_of,
    sample,
    sniffed,
)

FMT, NAME = "python-sdk-log", "python-sdk-client-debug.log"
STDIO_FAILURE = b"""ERROR:mcp.client.stdio:Failed to parse JSONRPC message from server
Traceback (most recent call last):
  File "/home/ana/.venv/lib/python3.12/site-packages/mcp/client/stdio/__init__.py", line 155, in stdout_reader
    message = types.JSONRPCMessage.model_validate_json(line)
pydantic_core._pydantic_core.ValidationError: 1 validation error for JSONRPCMessage
  Invalid JSON: expected value at line 1 column 1 [type=json_invalid, input_value='Starting weather server on stdio', input_type=str]
    For further information visit https://errors.pydantic.dev/2.11/v/json_invalid
"""


def test_sample_sniffs_accounts_for_every_line_and_is_clean():
    data = sample(NAME)
    assert sniffed(data) == FMT
    assert_one_record_per_line(data, FMT)
    assert lint(data) == []


def test_directions_and_messages_as_sent():
    messages = messages_of(sample(NAME), FMT)
    assert [(m.method, m.kind, m.direction) for m in messages[:3]] == [
        ("initialize", Kind.REQUEST, Direction.C2S), (None, Kind.RESULT, Direction.S2C),
        ("notifications/initialized", Kind.NOTIFICATION, Direction.C2S)]
    call = next(m for m in messages if m.method == "tools/call")
    assert call.msg["params"]["_meta"] == {"progressToken": 2}  # params stay a dict: _meta survives
    assert "params" not in messages[2].msg  # an unset field (None in the repr) is not sent
    quoted = [m for m in messages if m.method == "tools/call"][1]
    assert quoted.msg["params"]["arguments"]["city"] == "Ta' Xbiex"


def test_reprs_of_the_installed_sdk_are_read():
    types = pytest.importorskip("mcp.types")
    request = types.JSONRPCRequest(jsonrpc="2.0", id=7, method="tools/call",
                                   params={"name": "x", "arguments": {"on": True, "n": None}})
    assert message_of(str(request)) == {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                        "params": {"name": "x", "arguments": {"on": True, "n": None}}}
    message = pytest.importorskip("mcp.shared.message")
    assert message_of(str(message.SessionMessage(request)))["id"] == 7


def test_stdio_client_parse_failure_quotes_the_stdout_line():
    assert sniffed(STDIO_FAILURE) == FMT
    records = assert_one_record_per_line(STDIO_FAILURE, FMT)
    polluted = [r for r in records if r.kind is Kind.TEXT]
    assert [(r.line, r.text, r.direction) for r in polluted] == [(6, "Starting weather server on stdio", Direction.S2C)]
    assert "IO001" in {f.code for f in lint(STDIO_FAILURE)}


def test_a_repr_that_is_not_a_message_is_unreadable_not_guessed():
    data = b"DEBUG:mcp.client.sse:Received server message: root=JSONRPCResponse(jsonrpc='2.0', id=1, result=<object>)\n"
    (record,) = records_of(data, FMT)
    assert record.kind is Kind.MALFORMED


_garbage = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=80)
_prefixes = st.sampled_from(["", "DEBUG:mcp.client.sse:Sending client message: ", "SSE message: root=JSONRPCRequest(",
                             "Received server message: jsonrpc='2.0' id=", "[type=json_invalid, input_value='"])


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(_prefixes, _garbage), max_size=10))
def test_garbage_never_crashes_and_keeps_line_count(pairs):
    data = sample(NAME) + "".join(p + g + "\n" for p, g in pairs).encode()
    assert_one_record_per_line(data, FMT)
    lint_engine(data, FMT)


def test_redaction_rewrites_only_the_changed_literals_of_a_repr():
    line = ("DEBUG:mcp.client.sse:Sending client message: root=JSONRPCRequest(method='tools/call', params={'name': "
            "'deploy', 'arguments': {'password': \"it's-hunter2-xyz\", 'token': 'ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
            "'}}, jsonrpc='2.0', id=4)\n")
    out = io.BytesIO()
    redact_stream(io.BytesIO(line.encode()), out, Redactor(RedactOptions(key=b"t")), FMT)
    text = out.getvalue().decode()
    assert "hunter2" not in text and "ghp_a1B2" not in text
    assert text.startswith("DEBUG:mcp.client.sse:Sending client message: root=JSONRPCRequest(method='tools/call', "
                           "params={'name': 'deploy', 'arguments': {'password': '[REDACTED:")
    (record,) = messages_of(text.encode(), FMT)
    assert record.method == "tools/call" and record.id == 4


def test_a_repr_json_cannot_carry_is_still_redacted():
    line = (b"DEBUG:x:Received server message: jsonrpc='2.0' id=20000000000000000000 "
            b"result={'a': 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}\n")
    out = io.BytesIO()
    redact_stream(io.BytesIO(line), out, Redactor(RedactOptions(key=b"t")), FMT)
    assert b"ghp_a1B2" not in out.getvalue() and out.getvalue().count(b"\n") == 1
    (record,) = records_of(line, FMT)
    assert record.kind is Kind.MALFORMED

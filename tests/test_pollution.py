"""Stray stdout text, as captured or as a host's parse error quotes it, named with its fix."""

from __future__ import annotations

import pytest

from mcplint.input.formats._common import stdout_fragment
from mcplint.input.pollution import UNKNOWN, origin
from tests.formats_helpers import lint

HOST_ERRORS = [  # (a host's error text, the stdout start it quotes, the writer it points to)
    ("""Unexpected token 'C', "Content-Le"... is not valid JSON""", "Content-Le...", "LSP-style Content-Length framing"),
    ("""Unexpected token 'n', "npm warn e"... is not valid JSON""", "npm warn e...", "npm/npx install output or warnings"),
    ("""Connection error: JSON Parse error: Unexpected identifier "INFO\"""", "INFO...", None),
    ("""Unexpected token 'I', "INFO:mcp.s"... is not valid JSON""", "INFO:mcp.s...", "Python logging on stdout"),
    ("""  Invalid JSON: expected value at line 1 column 1 [type=json_invalid, input_value='Weather server """
     """running on stdio', input_type=str]""", "Weather server running on stdio",
     "a start-up banner printed with print/console.log"),
    ("""Unexpected token 'W', "Weather se"... is not valid JSON""", "Weather se...", None),
]


@pytest.mark.parametrize("error,quoted,writer", HOST_ERRORS)
def test_host_errors_map_back_to_the_text_and_its_writer(error, quoted, writer):
    assert stdout_fragment(error) == quoted
    assert origin(quoted)[0] == (writer or UNKNOWN[0])


def test_other_errors_quote_nothing():
    assert stdout_fragment("Unexpected non-whitespace character after JSON at position 4") is None
    assert stdout_fragment("Connection error: MCP error -32000: Connection closed") is None


def test_io001_names_the_writer_and_hints_its_fix():
    data = ('C→S {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            '"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n'
            "S→C INFO:weather:starting\nS→C something else\n").encode()
    found = {f.line: f for f in lint(data) if f.code == "IO001"}
    assert found[2].message.endswith("; likely Python logging on stdout")
    assert "sys.stderr" in found[2].hint
    assert "likely" not in found[3].message and found[3].hint.startswith("Write logs to stderr")

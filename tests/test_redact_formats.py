"""Every input format mcplint reads is covered by ``mcplint redact``.

``EXAMPLES`` holds one document per reader of ``mcplint.input.readers.READERS``, built from messages
with planted secrets. A reader added without a redaction handler (``HANDLERS``) or without an
example here makes these tests fail: a new format cannot ship without redaction.
"""

from __future__ import annotations

import base64
import io
import random
from pathlib import Path

import orjson
import pytest

from mcplint.api import LintOptions, lint_stream
from mcplint.input.lines import iter_lines
from mcplint.input.parse import Parser
from mcplint.input.readers import INPUT_FORMATS, READERS, open_frames
from mcplint.redact import HANDLERS, RedactOptions, Redactor, redact_stream
from mcplint.redact.providers import RULES
from mcplint.report.summary import RunSummary
from tests.redact_helpers import assert_same_reading, block_and_line_reading, leaked

SECRET = RULES[0].sample(random.Random(3))
PASSWORD = "Pw-" + "x7Q" * 4


def _messages() -> list[tuple[str, dict | str]]:
    return [
        ("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
                 "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
        ("s2c", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                 "serverInfo": {"name": "s", "version": "1"}}}),
        ("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "login", "arguments": {
            "user": "bob", "password": PASSWORD, "token": SECRET}}}),
        ("stderr", f"debug: GITHUB_TOKEN={SECRET} password={PASSWORD}"),
        ("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": f"logged in with {SECRET}"}]}}),
    ]


def _jsonl() -> str:
    lines = []
    for direction, message in _messages():
        lines.append(message if isinstance(message, str) else orjson.dumps(message).decode())
    lines.append(orjson.dumps({"jsonrpc": "2.0", "id": 2, "result": {"password": PASSWORD}},
                              option=orjson.OPT_INDENT_2).decode())  # pretty-printed over several lines
    return "\n".join(lines) + "\n"


def _capture() -> str:
    return "".join(orjson.dumps({"ts": f"2026-01-01T00:00:0{i}.000Z", "dir": d,
                                 "raw": m if isinstance(m, str) else orjson.dumps(m).decode()}).decode() + "\n"
                   for i, (d, m) in enumerate(_messages()))


def _transcript() -> str:
    lines = ["# a session", "# init 2025-06-18 C={} S={\"tools\":{}}"]
    for direction, message in _messages()[3:]:
        if isinstance(message, str):
            lines.append("# stderr: " + message)
        else:
            arrow = "C→S" if direction == "c2s" else "S→C"
            lines.append(f"{arrow} {orjson.dumps(message).decode()}  # error: [XX000]")
    return "\n".join(lines) + "\n"


#: Documents with planted secrets for the formats of this issue; the other readers are covered
#: by their samples (below) and by their own tests.
EXAMPLES = {"jsonl": _jsonl, "capture": _capture, "transcript": _transcript}
SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SECRET_RULES = {"HX011", "LG006"}


def _samples_by_format() -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix in (".md", ".flow") or not path.is_file():  # redact reads text, not mitmproxy's binary flows
            continue
        with open(path, "rb") as handle:
            fmt, _ = open_frames(handle)
        out.setdefault(fmt, []).append(path)
    return out


BY_FORMAT = _samples_by_format()


def test_every_reader_has_a_redaction_handler_and_a_test_document():
    binary = {name for name, fmt in INPUT_FORMATS.items() if fmt.binary}  # mitmproxy flows: convert redacts them
    missing = sorted(set(READERS) - set(HANDLERS) - binary)
    assert not missing, f"readers without redaction (add them to mcplint.redact.formats.HANDLERS): {missing}"
    untested = sorted(set(READERS) - set(EXAMPLES) - set(BY_FORMAT) - binary)
    assert not untested, f"readers with neither a redaction example here nor a sample in samples/: {untested}"


def _findings(path: str, data: bytes) -> list[tuple]:
    """Findings other than the secret rules; sessions numbered by first appearance (a session
    named by its Mcp-Session-Id is named by the placeholder after redaction)."""
    found = [f for f in lint_stream(io.BytesIO(data), path, None, LintOptions(), RunSummary())
             if f.code not in SECRET_RULES]
    sessions: dict = {}
    return sorted((f.code, f.line, sessions.setdefault(f.session, len(sessions)), f.direction, repr(f.id), f.method,
                   f.severity.value) for f in found)


@pytest.mark.parametrize("path", [p for paths in BY_FORMAT.values() for p in paths], ids=lambda p: p.name)
def test_samples_keep_their_lines_and_findings(path):
    data = path.read_bytes()
    out = io.BytesIO()
    fmt = redact_stream(io.BytesIO(data), out, Redactor(RedactOptions(key=b"k")))
    result = out.getvalue()
    assert result.count(b"\n") == data.count(b"\n")
    assert _findings(path.name, result) == _findings(path.name, data)
    again = io.BytesIO()
    redact_stream(io.BytesIO(result), again, Redactor(RedactOptions(key=b"other")), fmt)
    assert again.getvalue() == result


@pytest.mark.parametrize("fmt", sorted(EXAMPLES))
def test_format_round_trip_removes_secrets_and_keeps_everything_else(fmt):
    data = EXAMPLES[fmt]().encode()
    out = io.BytesIO()
    redactor = Redactor(RedactOptions(key=b"k"))
    assert redact_stream(io.BytesIO(data), out, redactor, "auto") == fmt  # sniffed as itself
    result = out.getvalue()
    text = result.decode()
    assert leaked(SECRET, text) is None and leaked(PASSWORD, text) is None, text
    assert result.count(b"\n") == data.count(b"\n")
    before, after = _frames(fmt, data), _frames(fmt, result)
    assert [(r.line, r.kind, r.direction, repr(r.id), r.method) for r in after] == \
           [(r.line, r.kind, r.direction, repr(r.id), r.method) for r in before]
    assert all(a.ts == b.ts for a, b in zip(after, before))
    for a, b in zip(data.split(b"\n"), result.split(b"\n")):
        if SECRET.encode() not in a and PASSWORD.encode() not in a:
            assert a == b  # lines without secrets keep their bytes
    second = io.BytesIO()
    redact_stream(io.BytesIO(result), second, Redactor(RedactOptions(key=b"other")), fmt)
    assert second.getvalue() == result  # idempotent


def _frames(fmt: str, data: bytes):
    return list(Parser("x").records(READERS[fmt](iter_lines(io.BytesIO(data)))))


def test_line_endings_bom_and_invalid_bytes_survive():
    data = (b"\xef\xbb\xbf" + orjson.dumps({"jsonrpc": "2.0", "id": 1, "params": {"password": "x1"}}) + b"\r\n"
            + b"plain \xff\xfe text\r\n" + b"{\"a\":1}\n" + b"no newline at end")
    out = io.BytesIO()
    redact_stream(io.BytesIO(data), out, Redactor(RedactOptions(key=b"k")), "jsonl")
    lines = out.getvalue().split(b"\n")
    assert lines[0].startswith(b"\xef\xbb\xbf{") and lines[0].endswith(b"}\r") and b"x1" not in lines[0]
    assert lines[1:] == data.split(b"\n")[1:]


def test_a_private_key_printed_line_by_line_is_redacted_whole():
    rule = next(r for r in RULES if r.prefixes == ("-----BEGIN ",))
    key = rule.sample(random.Random(1))
    capture = "".join(orjson.dumps({"ts": "2026-01-01T00:00:00Z", "dir": "stderr", "raw": line}).decode() + "\n"
                      for line in key.split("\n")) + '{"ts":"2026-01-01T00:00:01Z","dir":"stderr","raw":"done"}\n'
    plain = key + "\ndone\n"
    for fmt, data in (("capture", capture), ("jsonl", plain)):
        out = io.BytesIO()
        redact_stream(io.BytesIO(data.encode()), out, Redactor(RedactOptions(key=b"k")), fmt)
        text = out.getvalue().decode()
        assert leaked(key, text) is None and not any(line in text for line in key.split("\n")[1:-1]), text
        assert text.rstrip("\n").endswith("done\"}" if fmt == "capture" else "done")


def test_a_format_without_a_handler_is_an_error(monkeypatch):
    from mcplint.redact import UnsupportedFormat, formats

    monkeypatch.delitem(formats.HANDLERS, "jsonl")
    with pytest.raises(UnsupportedFormat):
        redact_stream(io.BytesIO(b"{}\n"), io.BytesIO(), Redactor(), "jsonl")


def _long_documents() -> dict[str, tuple[str, bytes]]:
    """Documents longer than the sniffed head, with what makes reading by blocks tricky: key
    blocks over lines, pretty-printed JSON over lines, CRLF, invalid bytes, image lines, a
    last line without newline."""
    key = next(r for r in RULES if r.prefixes == ("-----BEGIN ",)).sample(random.Random(2))
    key += "\n" + next(r for r in RULES if "PuTTY-User-Key-File-" in r.prefixes).sample(random.Random(2))
    image = base64.b64encode(random.Random(4).randbytes(9000)).decode()
    quiet = [orjson.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": f"p{i}", "progress": i}}).decode() for i in range(30)]
    picture = orjson.dumps({"jsonrpc": "2.0", "id": 9, "result": {"content": [
        {"type": "image", "data": image, "mimeType": "image/png"}]}}).decode()

    def capture(lines: list[str]) -> str:
        return "".join(orjson.dumps({"ts": "2026-01-01T00:00:00Z", "dir": "s2c" if line.startswith("{") else "stderr",
                                     "raw": line}).decode() + "\n" for line in lines)

    out = {}
    for fmt, build in EXAMPLES.items():
        out[fmt] = (fmt, build().encode() * 3)
    out["capture-mixed"] = ("capture", (capture(quiet + key.split("\n") + quiet[:3] + [picture] + quiet)
                                        + _capture() * 2).encode() + b'{"ts":"x","dir":"stderr","raw":"no newline"}')
    jsonl = ("\n".join(quiet) + "\n" + _jsonl() + "plain \udcff text\r\n" + key + "\n" + "\r\n".join(quiet) + "\r\n"
             + picture + "\n" + _jsonl())
    out["jsonl-mixed"] = ("jsonl", jsonl.encode("utf-8", "surrogateescape"))  # with an invalid byte
    out["jsonl-utf16"] = ("jsonl", ("\n".join(quiet) + "\n" + _jsonl()).encode("utf-16-le"))
    out["transcript-mixed"] = ("transcript", (_transcript() + "\n".join("# note " + q for q in quiet) + "\n"
                                              + "\n".join(key.split("\n")) + "\n" + _transcript()).encode())
    for fmt, paths in BY_FORMAT.items():
        for path in paths:
            out[path.name] = (fmt, path.read_bytes())
    return out


LONG_DOCUMENTS = _long_documents()


@pytest.mark.parametrize("name", sorted(LONG_DOCUMENTS))
@pytest.mark.parametrize("block", [1, 61, 4096])
def test_reading_by_blocks_gives_what_reading_line_by_line_gives(name, block, monkeypatch):
    """The stream reads a short head line by line, then blocks that the prefilter scans at once;
    the output and the report must be those of reading every line on its own."""
    fmt, data = LONG_DOCUMENTS[name]

    assert_same_reading(*block_and_line_reading(monkeypatch, data, fmt, block))

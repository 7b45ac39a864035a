"""Helpers for the redaction tests: carriers, decoded layers, and a leak oracle.

Secrets are always built at run time from a prefix and a random body (the repository never
holds a contiguous token literal; GitHub push protection would reject it).
"""

from __future__ import annotations

import base64
import json
import urllib.parse

from mcplint.redact import BASE64_RUN_RE, STRING_LITERAL_RE


def j(o) -> str:
    return json.dumps(o, separators=(",", ":"))


def u_escape_some(s: str, rnd) -> str:
    """JSON string content for ``s`` with about a third of the characters as ``\\uXXXX``."""
    return "".join(f"\\u{ord(c):04x}" if rnd.random() < 0.3 else json.dumps(c)[1:-1] for c in s)


def carriers(secret: str, rnd) -> list[str]:
    """The secret planted in many positions and encodings (one document per line shape)."""
    b64 = base64.b64encode(f"A=1\nTOKEN={secret}\n".encode()).decode()
    return [
        j({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
           "params": {"name": "deploy", "arguments": {"note": f"use {secret} now"}}}),           # value in text
        j({"jsonrpc": "2.0", "id": 8, "result": {"content": [
            {"type": "text", "text": j({"cfg": {"material": secret}})}]}}),                       # JSON in JSON
        j({"jsonrpc": "2.0", "id": 9, "result": {"content": [
            {"type": "text", "text": j({"inner": j({"deep": secret})})}]}}),                      # 3 levels
        j({"jsonrpc": "2.0", "id": 10, "params": {"q": "X"}}).replace(
            '"X"', '"' + u_escape_some(secret, rnd) + '"'),                                      # \u escapes
        j({"jsonrpc": "2.0", "id": 11, "result": {"contents": [{"uri": "file:///app/.env", "blob": b64}]}}),
        j({"jsonrpc": "2.0", "id": 12, "result": {"content": [{"type": "text", "text": b64}]}}),  # base64 text
        "POST /mcp HTTP/1.1\r\nAuthorization: Bearer " + secret + "\r\nMcp-Session-Id: abc",    # headers
        j({"jsonrpc": "2.0", "id": 13, "params": {
            "url": "https://api.example.com/v1?x=1&apiKey=" + urllib.parse.quote(secret, safe="")}}),  # URL query
        j({"headers": [["Authorization", "Bearer " + secret]]}),                                 # header pairs
        j({"request": {"headers": [{"name": "X-Api-Key", "value": secret}]}}),                  # HAR pair
        j({"env": {secret: "secret-in-key-position"}}),                                          # secret as a key
        ("2026-05-01T12:00:00.000Z [info] [github] Message from client: "
         + j({"jsonrpc": "2.0", "id": 14, "params": {"t": secret}})),                            # host log line
        j({"ts": "2026-05-01T12:00:00.000Z", "dir": "stderr", "raw": f"warn: retrying with {secret}"}),  # stderr
        j({"ts": "2026-05-01T12:00:00.000Z", "dir": "c2s",
           "raw": j({"jsonrpc": "2.0", "id": 15, "method": "tools/call",
                     "params": {"name": "x", "arguments": {"k": secret}}})}),                     # capture raw
        "data: " + j({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "debug", "data": "token=" + secret}}),                  # SSE data line
        "C→S " + j({"jsonrpc": "2.0", "id": 16, "method": "tools/call",
                    "params": {"name": "x", "arguments": {"url": f"https://u:{urllib.parse.quote(secret, safe='')}@h.io/"}}}),
    ]


def decoded_layers(text: str, depth: int = 0):
    """Every form a reader could recover from ``text``: raw, percent-decoded, JSON strings
    decoded recursively, base64 runs decoded."""
    yield text
    yield urllib.parse.unquote(text)
    if depth > 4:
        return
    for m in STRING_LITERAL_RE.finditer(text):
        try:
            s = json.loads(m.group())
        except ValueError:
            continue
        if s != m.group()[1:-1] or s[:1] in "{[":
            yield from decoded_layers(s, depth + 1)
    for m in BASE64_RUN_RE.finditer(text):
        run = m.group()
        try:
            raw = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if ("-" in run or "_" in run) else None)
            yield from decoded_layers(raw.decode("utf-8"), depth + 1)
        except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
            pass


def leaked(secret: str, out: str, skeleton: str = "") -> str | None:
    """The layer of ``out`` where the secret (or a long window of it) survives, else None."""
    w = max(8, min(16, len(secret) // 2))
    grams = {secret[i:i + w] for i in range(len(secret) - w + 1)}
    grams = {g for g in grams if g not in skeleton}
    for layer in decoded_layers(out):
        if secret in layer or any(g in layer for g in grams):
            return layer
    return None


def assert_structure(doc: str, out: str) -> None:
    """Same lines; a line that was JSON stays JSON with the same ids and methods."""
    assert out.count("\n") == doc.count("\n")
    for a, b in zip(doc.split("\n"), out.split("\n")):
        i = a.find("{")
        if i < 0:
            continue
        try:
            orig = json.loads(a[i:])
        except ValueError:
            continue
        new = json.loads(b[b.find("{"):])
        if isinstance(orig, dict):
            assert new.get("id") == orig.get("id")
            assert new.get("method") == orig.get("method")
            assert list(new)[:len(orig)] == list(orig) or len(new) == len(orig)


def block_and_line_reading(monkeypatch, data: bytes, fmt: str, block: int, key: bytes = b"k"):
    """Redact ``data`` reading by blocks of ``block`` bytes after a one-line head, and reading
    every line on its own; returns both ``(output, report)`` pairs (block first)."""
    import io

    from mcplint.redact import RedactOptions, Redactor, formats, redact_stream

    def run(head_lines: int):
        monkeypatch.setattr(formats, "SNIFF_LINES", head_lines)
        monkeypatch.setattr(formats, "SNIFF_BYTES", 1 << 40)
        monkeypatch.setattr(formats, "BLOCK_BYTES", block)
        out = io.BytesIO()
        redactor = Redactor(RedactOptions(key=key, record_hits=True))
        redact_stream(io.BytesIO(data), out, redactor, fmt)
        return out.getvalue(), redactor.report

    by_line = run(1 << 30)
    return run(1), by_line


def assert_same_reading(by_block, by_line) -> None:
    (out, report), (expected_out, expected) = by_block, by_line
    assert out == expected_out
    assert (report.lines, report.changed_lines, report.counts, report.hits) == \
           (expected.lines, expected.changed_lines, expected.counts, expected.hits)

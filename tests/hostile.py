"""A corpus of hostile captures: terminal escapes, bidi overrides and markup in every field a
capture controls (method names, ids, tool names, error messages, stdout banners, stderr lines, HAR
headers) and in file names. Used by the tests that run every command and output format over it.
"""

from __future__ import annotations

import json
from pathlib import Path

ESC = "\x1b"
#: clear the screen, home the cursor, and print a green "All checks passed"
CLEAR = f"{ESC}[2J{ESC}[H{ESC}[32mAll checks passed{ESC}[0m"
#: an OSC 8 hyperlink to evil.example (BEL- and ST-terminated), and a C1 CSI (U+009B)
LINK = f"{ESC}]8;;https://evil.example/bel\x07click me{ESC}]8;;\x07 {ESC}]8;;https://evil.example/st{ESC}\\x{ESC}]8;;{ESC}\\ \x9b31mred"
#: right-to-left override and isolates that reorder what a reader sees
BIDI = "safe\u202etxt.exe\u202c \u2066isolated\u2069 \u2067x\u2069\u200f"
#: markup for HTML, Markdown and XML reports
MARKUP = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script> [link](https://evil.example/md) ]]> &amp;'
#: characters XML 1.0 forbids, a NUL among them
XML_BREAKERS = "\x00\x01\x08\x0b\x0c\x1f\ufffe"

HOSTILE = CLEAR + LINK + BIDI + MARKUP + XML_BREAKERS


def _msg(**message) -> dict:
    return {"jsonrpc": "2.0", **message}


def _capture_lines() -> list[dict]:
    """A stdio session in the canonical capture format with a hostile string in every field."""
    tool = "get" + BIDI + CLEAR
    lines = [
        ("c2s", _msg(id=1, method="initialize", params={
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "client" + CLEAR, "version": LINK}})),
        ("s2c", _msg(id=1, result={
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "server" + BIDI, "version": "1" + LINK},
            "instructions": HOSTILE})),
        ("c2s", _msg(method="notifications/initialized")),
        ("c2s", _msg(id="id" + CLEAR, method="tools/list")),
        ("s2c", _msg(id="id" + CLEAR, result={"tools": [
            {"name": tool, "description": HOSTILE, "inputSchema": {"type": "object"}}]})),
        ("c2s", _msg(id=3, method="tools/call", params={"name": tool, "arguments": {"q": HOSTILE}})),
        ("s2c", _msg(id=3, result={"content": [{"type": "text", "text": HOSTILE}], "isError": CLEAR})),
        ("c2s", _msg(id=4, method="tools/call", params={"name": "missing" + LINK, "arguments": {}})),
        ("s2c", _msg(id=4, error={"code": -32602, "message": "unknown tool " + HOSTILE})),
        ("c2s", _msg(id=5, method="tools/" + CLEAR + BIDI, params={})),
        ("s2c", _msg(id=5, error={"code": -32601, "message": LINK})),
        ("c2s", _msg(id=6, method="notifications/" + LINK)),
        ("s2c", _msg(method="notifications/message", params={"level": "warning", "data": HOSTILE})),
    ]
    records = [{"ts": f"2026-11-30T09:12:{i:02d}.000Z", "dir": d, "msg": m} for i, (d, m) in enumerate(lines)]
    records.insert(3, {"ts": "2026-11-30T09:12:02.500Z", "dir": "s2c", "raw": "Starting server " + CLEAR})
    records.insert(4, {"ts": "2026-11-30T09:12:02.600Z", "dir": "stderr", "raw": "log " + HOSTILE})
    records.append({"ts": "2026-11-30T09:13:00.000Z", "dir": "s2c", "raw": '{"jsonrpc":"2.0","id":' + CLEAR})
    return records


def _tee_lines() -> list[str]:
    """A tee capture without directions: raw JSON Lines and a banner on stdout."""
    out = [json.dumps(record["msg"], ensure_ascii=False) for record in _capture_lines() if "msg" in record]
    out.insert(3, "Starting server " + CLEAR)
    return out


def _har() -> dict:
    """A Streamable HTTP capture with hostile headers, status text and bodies."""
    def entry(body: dict, status: int, headers: list[dict], text: str = "", mime: str = "application/json") -> dict:
        return {
            "startedDateTime": "2026-03-02T09:30:00.000Z", "time": 5.0,
            "request": {"method": "POST", "url": "https://mcp.example.com/mcp" + "?q=" + ESC + "[2J",
                        "httpVersion": "HTTP/1.1",
                        "headers": [{"name": "Accept", "value": "application/json, text/event-stream"},
                                    {"name": "Content-Type", "value": "application/json"},
                                    {"name": "Mcp-Session-Id", "value": "s" + CLEAR},
                                    {"name": "X-" + BIDI, "value": LINK}],
                        "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
                        "postData": {"mimeType": "application/json", "text": json.dumps(body)}},
            "response": {"status": status, "statusText": "Nope " + CLEAR, "httpVersion": "HTTP/1.1",
                         "headers": headers, "cookies": [],
                         "content": {"size": len(text), "mimeType": mime, "text": text},
                         "redirectURL": "", "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 0, "wait": 4.0, "receive": 1},
        }

    initialize = _msg(id=0, method="initialize", params={
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c" + CLEAR, "version": "1"}})
    return {"log": {"version": "1.2", "creator": {"name": "hostile" + CLEAR, "version": LINK}, "entries": [
        entry(initialize, 401, [{"name": "WWW-Authenticate", "value": 'Bearer realm="' + CLEAR + '"'}]),
        entry(initialize, 200, [{"name": "Content-Type", "value": "application/json"},
                                {"name": "Mcp-Session-Id", "value": "x" + LINK}],
              json.dumps(_msg(id=0, result={"protocolVersion": "2025-11-25", "capabilities": {},
                                            "serverInfo": {"name": "s" + BIDI, "version": "1"}}))),
        entry(_msg(id=1, method="tools/" + CLEAR), 500, [{"name": "Content-Type", "value": "text/html"}],
              MARKUP + CLEAR, "text/html"),
    ]}}


#: file names of the corpus; the last one holds an escape sequence, a bidi override and a newline
NAMES = ("hostile.mcplog", "hostile.jsonl", "hostile.har", f"evil{ESC}[31mname\u202e\n.mcplog")


def write_corpus(folder: Path) -> list[Path]:
    """Write the hostile captures into ``folder``; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    capture = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _capture_lines())
    files = {
        NAMES[0]: capture,
        NAMES[1]: "".join(line + "\n" for line in _tee_lines()),
        NAMES[2]: json.dumps(_har(), ensure_ascii=False, indent=1),
        NAMES[3]: capture,
    }
    paths = []
    for name, text in files.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def unsafe_characters(text: str, allowed: str = "\n") -> set[str]:
    """The characters of ``text`` that must never reach a terminal or a report raw."""
    return {ch for ch in text if not ch.isprintable() and ch not in allowed}

"""The places that used to be left alone: ids, methods, and values cut between blocks or lines.

- An id, method, progress token, cancelled request id or task id that holds a secret becomes one
  keyed pseudonym, the same in every place the value stands, so ``mcplint check`` still pairs the
  request with its response, its progress and its cancellation (same findings after redaction).
  Ids and methods without a secret keep their bytes.
- A secret cut between two adjacent text blocks of one message, or between two consecutive
  stderr lines, is found in their concatenation and redacted in both pieces; a whole secret at
  the end of a block does not swallow the next block's first word.

Secrets are built at run time (prefix + random body).
"""

from __future__ import annotations

import io
import random
import string
from collections import Counter

import orjson
import pytest

from mcplint.api import LintOptions, lint_stream
from mcplint.input.lines import iter_lines
from mcplint.input.parse import Parser
from mcplint.input.readers import INPUT_FORMATS, READERS
from mcplint.redact import PLACEHOLDER_RE, RedactOptions, Redactor, redact_stream, redact_text
from mcplint.redact.providers import RULES
from mcplint.report.summary import RunSummary
from tests.redact_helpers import assert_same_reading, block_and_line_reading, j, leaked
from tests.redact_plants import STDERR_FORMATS, UNPLANTABLE, Msg, Stderr, handshake, luhn_digit, render

#: the formats redact rewrites (not mitmproxy's binary flow files: convert redacts those) whose documents
#: can hold the planted traffic (redact_plants.UNPLANTABLE: why not the others; their samples are checked)
TEXT_FORMATS = sorted(name for name in READERS if not INPUT_FORMATS[name].binary and name not in UNPLANTABLE)

KEY = b"places"
ALNUM = string.ascii_letters + string.digits
GITHUB = next(r for r in RULES if r.kind == "github-pat")
SECRET_RULES = {"HX011", "LG006"}


def token(seed: int) -> str:
    return GITHUB.sample(random.Random(seed))


def red(text: str) -> str:
    return redact_text(text, key=KEY)


def redact_doc(text: str, fmt: str) -> str:
    out = io.BytesIO()
    redact_stream(io.BytesIO(text.encode()), out, Redactor(RedactOptions(key=KEY)), fmt)
    return out.getvalue().decode()


def findings(text: str, tokens: tuple[str, ...]) -> list[tuple]:
    """Findings other than the secret rules, an id or method holding a secret (or its
    pseudonym) written as ``<secret>``."""

    def norm(value):
        if isinstance(value, str) and (PLACEHOLDER_RE.search(value) or any(t in value for t in tokens)):
            return "<secret>"
        return repr(value)

    sessions: dict = {}
    found = lint_stream(io.BytesIO(text.encode()), "x", None, LintOptions(), RunSummary(), progress=False)
    return sorted((f.code, f.line, sessions.setdefault(f.session, len(sessions)), f.direction, norm(f.id),
                   norm(f.method), f.severity.value) for f in found if f.code not in SECRET_RULES)


# -- ids and methods --------------------------------------------------------------------------------
def _session(tokens: tuple[str, ...]) -> list[list]:
    call, other, method = "call-" + tokens[0], "other-" + tokens[1], "acme/" + tokens[2]
    tools = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    listed = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "slow", "inputSchema": {"type": "object"}}]}}
    return [handshake(), [
        Msg("c2s", tools), Msg("s2c", listed),
        Msg("c2s", {"jsonrpc": "2.0", "id": call, "method": "tools/call",
                    "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": call}}}),
        Msg("s2c", {"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": call, "progress": 1, "total": 2}}),
        Msg("s2c", {"jsonrpc": "2.0", "id": call, "result": {"content": [{"type": "text", "text": "ok"}]}}),
        Msg("c2s", {"jsonrpc": "2.0", "id": other, "method": "tools/call", "params": {"name": "slow", "arguments": {}}}),
        Msg("c2s", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": other, "reason": "user"}}),
        Msg("c2s", {"jsonrpc": "2.0", "id": 7, "method": method, "params": {}}),
        Msg("s2c", {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found"}}),
    ]]


def _references(text: str, fmt: str) -> Counter:
    """How often each string id, progress token, cancelled request id and custom method occurs."""
    out: Counter = Counter()
    for record in Parser("x").records(READERS[fmt](iter_lines(io.BytesIO(text.encode())))):
        msg = record.msg if isinstance(record.msg, dict) else {}
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        method = msg.get("method")
        values = [msg.get("id"), params.get("requestId"), params.get("progressToken"), meta.get("progressToken")]
        if isinstance(method, str) and not method.startswith(("tools/", "notifications/", "initialize")):
            values.append(method)
        out.update(v for v in values if isinstance(v, str))
    return out


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_check_gives_the_same_findings_after_ids_and_methods_are_pseudonymised(fmt):
    tokens = (token(1), token(2), token(3))
    doc = render(fmt, _session(tokens)).text
    out = redact_doc(doc, fmt)
    assert out.count("\n") == doc.count("\n")
    for secret in tokens:
        assert leaked(secret, out) is None, out
    before, after = _references(doc, fmt), _references(out, fmt)
    assert sorted(after.values()) == sorted(before.values()) == [1, 2, 4], (before, after)  # one pseudonym each
    assert all(PLACEHOLDER_RE.fullmatch(value) for value in after), after
    assert findings(out, tokens) == findings(doc, tokens)
    assert redact_doc(out, fmt) == out  # idempotent


def test_every_place_of_a_request_id_gets_the_same_pseudonym():
    rid = "req-" + token(4)
    lines = [
        {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"_meta": {"progressToken": rid}}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": rid, "progress": 1}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}},
        {"jsonrpc": "2.0", "id": rid, "result": {"task": {"taskId": rid}}},
        {"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {"_meta": {
            "io.modelcontextprotocol/related-task": {"taskId": rid}}, "relatedRequestId": rid}},
        {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"_meta": {
            "io.modelcontextprotocol/subscriptionId": rid}}},
        {"id": rid, "result": {}},  # a response without "jsonrpc" (a sloppy peer, an mcpspy envelope)
    ]
    text = "\n".join(j(m) for m in lines)
    out = red(text)
    placeholders = set(PLACEHOLDER_RE.findall(out))
    assert len(placeholders) == 1 and next(iter(placeholders)).startswith("[REDACTED:github-pat:")
    assert out.count(next(iter(placeholders))) == 10 and leaked(rid, out) is None
    # a line that does not parse (duplicate keys) and a cut line go literal by literal: same answer
    assert red('{"jsonrpc":"2.0","id":"%s","id":"%s"}' % (rid, rid)).count(next(iter(placeholders))) == 2
    assert next(iter(placeholders)) in red('{"jsonrpc":"2.0","id":"%s","method":"tools/c' % rid)
    # numbers stay, and a finding excerpt (plain placeholders) hides the value
    assert red(j({"jsonrpc": "2.0", "id": 12345, "params": {"progressToken": 7}})) == \
        j({"jsonrpc": "2.0", "id": 12345, "params": {"progressToken": 7}})
    plain = Redactor(RedactOptions(plain=True)).redact_line(j(lines[0]))
    assert orjson.loads(plain)["id"] == "[REDACTED]"


@pytest.mark.parametrize("value", [
    "req-1", "42", "3f2c9a8b-7e6d-4c5b-8a49-1e2f3a4b5c6d", "01HV6Z1X6G7Q2W3E4R5T6Y7U8I", "1767225600123",
    "2026-05-01T12:00:00.000Z", "e83c5163316f89bfbde7d9ab23ca2e25604af290", "v1.2.3", "tools/call",
    "notifications/progress", "x-acme/token-refresh", "auth/password", "progress-token-7", "task_9f8e7d",
])
def test_ids_methods_and_tokens_without_a_secret_keep_their_bytes(value):
    line = j({"jsonrpc": "2.0", "id": value, "method": value, "params": {"_meta": {"progressToken": value},
                                                                         "requestId": value, "taskId": value}})
    assert red(line) == line


# -- values cut between text blocks -----------------------------------------------------------------
def _blocks(*texts: str) -> str:
    return j({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": t} for t in texts]}})


def _texts(line: str) -> list[str]:
    return [block.get("text") for block in orjson.loads(line)["result"]["content"]]


def _card(rnd: random.Random) -> str:
    partial = "4" + "".join(rnd.choice(string.digits) for _ in range(14))
    return partial + luhn_digit(partial)


def _cuts():
    rnd = random.Random(5)
    gh = token(6)
    secret = "".join(rnd.choice(ALNUM) for _ in range(12)) + "7!"
    card = _card(rnd)
    return [
        ("prefix", ("tool says: " + gh[:4], gh[4:] + " done"), gh),
        ("middle", ("tool says: " + gh[:17], gh[17:]), gh),
        ("three blocks", ("use " + gh[:2], gh[2:20], gh[20:] + " ok"), gh),
        ("name then value", ("DB_PASSWORD=", secret + " (set)"), secret),
        ("prose", ("the password is ", secret), secret),
        ("card", ("card on file: " + card[:8], card[8:]), card),
        ("email", ("mail alice.smith", "@acme-corp.io today"), "alice.smith@acme-corp.io"),
    ]


@pytest.mark.parametrize(("name", "parts", "secret"), _cuts(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_secret_cut_between_adjacent_text_blocks_is_redacted_in_every_piece(name, parts, secret):
    line = _blocks(*parts)
    out = red(line)
    texts = _texts(out)
    assert leaked(secret, out) is None, out
    bare = [PLACEHOLDER_RE.sub("", text) for text in texts]
    assert not any(secret[i:i + 6] in text for text in bare for i in range(len(secret) - 5)), texts
    tags = {m.group() for t in texts for m in PLACEHOLDER_RE.finditer(t)}
    assert len(tags) == 1 or name == "email", texts  # every piece shows the placeholder of the whole
    assert red(out) == out
    # the same text in one block was always redacted; in a capture, in HAR, in a log line too
    for wrapped in (j({"ts": "2026-01-01T00:00:00Z", "dir": "s2c", "raw": line}),
                    "2026-01-06 14:49:58.470 [debug] [server -> editor] " + line,
                    "data: " + line):
        assert leaked(secret, red(wrapped)) is None


def test_blocks_that_only_sit_side_by_side_are_left_as_they_are():
    gh = token(7)
    cases = [
        (("token " + gh, "Done."), ("token [REDACTED:github-pat:", "Done.")),  # a whole token, then a word
        (("DB_PASSWORD=hunter2x", "Starting server"), ("DB_PASSWORD=[REDACTED:password:", "Starting server")),
        (("built at 2026-05-01", "T12:00:00Z by ci"), ("built at 2026-05-01", "T12:00:00Z by ci")),
        (("commit e83c5163316f", "89bfbde7d9ab23ca2e25604af290"), ("commit e83c5163316f", "89bfbde7d9ab23ca2e25604af290")),
        (("Total: 1234", "5678 items"), ("Total: 1234", "5678 items")),
        (('{"ok": true}', '{"count": 3}'), ('{"ok": true}', '{"count": 3}')),
        (("see the session", " log for details"), ("see the session", " log for details")),
    ]
    for parts, expected in cases:
        texts = _texts(red(_blocks(*parts)))
        for text, want in zip(texts, expected, strict=True):
            assert text.startswith(want), (parts, texts)
        if parts == expected:
            assert red(_blocks(*parts)) == _blocks(*parts)


def test_only_adjacent_text_blocks_are_joined():
    gh = token(8)
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    line = j({"jsonrpc": "2.0", "id": 3, "result": {"content": [
        {"type": "text", "text": "key " + gh[:4]}, image, {"type": "text", "text": gh[4:]}]}})
    assert orjson.loads(red(line))["result"]["content"][2]["text"] == gh[4:]


# -- values cut between stderr lines ----------------------------------------------------------------
def _stderr_doc(fmt: str, lines: list[str]) -> str:
    return render(fmt, [handshake(), [Stderr(lines)]]).text


@pytest.mark.parametrize("fmt", sorted(STDERR_FORMATS))
def test_a_secret_cut_between_consecutive_stderr_lines_is_redacted_in_both(fmt):
    gh, other = token(9), token(10)
    lines = ["starting", "auth: " + gh[:4], gh[4:] + " (retrying)", "key " + other[:15], other[15:], "done"]
    doc = _stderr_doc(fmt, lines)
    out = redact_doc(doc, fmt)
    assert out.count("\n") == doc.count("\n")
    for secret in (gh, other):
        for piece in (secret[4:], secret[15:], secret[:15]):
            assert piece not in out, out
    assert "starting" in out and "done" in out and " (retrying)" in out
    assert redact_doc(out, fmt) == out


@pytest.mark.parametrize("fmt", sorted(STDERR_FORMATS))
def test_ordinary_consecutive_stderr_lines_keep_their_bytes(fmt):
    lines = ["INFO:weather:server 1.5.0 ready", "Traceback (most recent call last):",
             '  File "/srv/app/server.py", line 3, in <module>', "ModuleNotFoundError: No module named 'yaml'",
             "2026-05-01 12:00:01,123 retry 3 of 5", "request 3f2c9a8b-7e6d-4c5b-8a49-1e2f3a4b5c6d took 12 ms",
             "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "ok",
             "Connection state: Starting", "2026-01-06 14:49:58.462 [info] Connection state: Running",
             "Enter password:", "INFO login ok", "token refresh in", "30s", "mode: Starting", "Run2 of 3"]
    doc = _stderr_doc(fmt, lines)
    assert redact_doc(doc, fmt) == doc


@pytest.mark.parametrize("block", [1, 61, 4096])
@pytest.mark.parametrize("fmt", sorted(STDERR_FORMATS))
def test_reading_by_blocks_joins_the_lines_reading_line_by_line_joins(fmt, block, monkeypatch):
    """The stream feeds the handler only some lines of a block: both lines of a pair whose
    concatenation may hold something, and a block's last text line (the next block may cut a
    secret there) must be among them."""
    rnd = random.Random(11)
    lines: list[str] = []
    for i in range(60):
        gh = token(100 + i)
        cut = rnd.randint(1, 3) if i % 2 else rnd.randint(0, len(gh))  # "note: gh" alone shows nothing
        lines += [f"step {i} ok", ("note: " if i % 2 else "auth: ") + gh[:cut], gh[cut:] + " (retrying)",
                  "plain text " * rnd.randint(0, 9)]
    doc = _stderr_doc(fmt, lines).encode()

    by_block, by_line = block_and_line_reading(monkeypatch, doc, fmt, block, KEY)
    assert_same_reading(by_block, by_line)
    report = by_block[1]
    assert report.changed_lines >= 60


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_reading_by_blocks_finds_secrets_cut_between_text_blocks(fmt, monkeypatch):
    """Neither block of a cut secret may hold anything the prefilter sees: a line (or string)
    with two text blocks takes the full path, in the block scan too."""
    from mcplint.redact import formats

    monkeypatch.setattr(formats, "SNIFF_LINES", 1)
    monkeypatch.setattr(formats, "SNIFF_BYTES", 1 << 40)
    tokens = [token(200 + i) for i in range(20)]
    events = []
    for i, gh in enumerate(tokens):
        call = {"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": "x", "arguments": {}}}
        events += [Msg("c2s", call), Msg("s2c", {"jsonrpc": "2.0", "id": 10 + i, "result": {"content": [
            {"type": "text", "text": piece} for piece in ("see g", gh[1:15], gh[15:28], gh[28:])]}})]  # < 20 each
    doc = render(fmt, [handshake(), events]).text
    out = redact_doc(doc, fmt)
    assert out.count("\n") == doc.count("\n")
    for gh in tokens:
        assert gh[1:15] not in out and gh[15:28] not in out and gh[28:] not in out, fmt

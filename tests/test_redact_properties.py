"""Property tests of ``mcplint redact`` (hypothesis): planted secrets never survive, in any decoded
layer; structure, ids and methods are kept; redaction is idempotent; findings of every rule
other than the secret rules are the same before and after redaction."""

from __future__ import annotations

import io
import random
import string

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.api import LintOptions, lint_stream
from mcplint.redact import RedactOptions, Redactor, redact_stream, redact_text
from mcplint.redact.providers import RULES
from mcplint.report.summary import RunSummary
from tests.redact_helpers import assert_structure, carriers, j, leaked

ALNUM = string.ascii_letters + string.digits
PROFILE = settings(max_examples=80, deadline=None, derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow])


def body(n, alphabet=ALNUM):
    return st.text(alphabet=alphabet, min_size=n, max_size=n)


#: One generated token per provider rule (prefix + random body, built at run time).
TOKENS = st.builds(lambda rule, seed: rule.sample(random.Random(seed)),
                   st.sampled_from([r for r in RULES if r.kind != "private-key"]), st.integers(0, 2**32))
PASSWORDS = body(14, ALNUM + "!#%*+,-.:;<>?@^_~")  # shapeless: only context can catch it
SENSITIVE_KEYS = st.sampled_from(["password", "Password", "db_password", "x-api-key", "X-Api-Key", "apiKey",
                                  "client_secret", "GITHUB_TOKEN", "access_token", "Authorization"])


@PROFILE
@given(TOKENS, st.randoms(use_true_random=False))
def test_no_planted_token_survives_in_any_layer(secret, rnd):
    for doc in carriers(secret, rnd):
        out = redact_text(doc, key=b"k")
        assert leaked(secret, out) is None, (doc[:200], out[:400])
        assert_structure(doc, out)
        assert redact_text(out, key=b"k") == out  # idempotent (same key)
        assert redact_text(out, key=b"other") == out  # ... and with another key


@PROFILE
@given(PASSWORDS, SENSITIVE_KEYS)
def test_shapeless_secrets_are_caught_by_context(pw, key):
    docs = [
        j({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "login",
           "arguments": {key: pw, "progressToken": 5, "maxTokens": 100}}}),
        j({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": j({key: pw})}]}}),
        j({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": j({"a": j({key: pw})})}]}}),
        j({"request": {"headers": [{"name": key, "value": pw}]}}),
        "export " + key.upper().replace("-", "_") + '="' + pw + '"',
        j({"ts": "2026-01-01T00:00:00Z", "dir": "stderr", "raw": f"{key}={pw!r}"}),
    ]
    for doc in docs:
        out = redact_text(doc, key=b"k")
        skeleton = redact_text(doc.replace(pw, "\u2400" * len(pw)), key=b"k")
        assert leaked(pw, out, skeleton) is None, (doc, out)
        assert redact_text(out, key=b"k") == out
    kept = orjson.loads(redact_text(docs[0], key=b"k"))["params"]["arguments"]
    assert kept["progressToken"] == 5 and kept["maxTokens"] == 100


@PROFILE
@given(st.integers(4, 30), body(36))
def test_truncated_prefix_tokens_are_caught(n, b):
    frag = "gh" + "p_" + b[:n]
    doc = j({"jsonrpc": "2.0", "method": "notifications/message",
             "params": {"level": "info", "data": "auth with " + frag + "…[truncated]"}})
    assert frag not in redact_text(doc)


@PROFILE
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises_and_is_idempotent(text):
    line = text.replace("\n", " ")
    out = redact_text(line, key=b"k")
    assert out.count("\n") == 0
    assert redact_text(out, key=b"k") == out


@PROFILE
@given(st.binary(max_size=400))
def test_arbitrary_bytes_round_trip_outside_redactions(data):
    out = io.BytesIO()
    redactor = Redactor(RedactOptions(key=b"k"))
    redact_stream(io.BytesIO(data), out, redactor, "jsonl")
    if redactor.report.total == 0:
        assert out.getvalue() == data
    assert out.getvalue().count(b"\n") == data.count(b"\n")


def test_same_secret_same_placeholder_everywhere():
    s = "gh" + "p_" + "A1b2C3d4" * 4 + "E5f6"
    import base64
    doc = "\n".join([j({"id": 1, "params": {"t": s}}), "Authorization: Bearer " + s,
                     j({"blob": base64.b64encode(("TOKEN=" + s).encode()).decode()})])
    out = redact_text(doc).split("\n")
    start = out[0].index("[REDACTED:")
    placeholder = out[0][start:out[0].index("]", start) + 1]
    assert out[1].endswith(placeholder)
    blob = orjson.loads(out[2])["blob"]
    assert base64.b64decode(blob).decode() == "TOKEN=" + placeholder


# -- lint invariance ------------------------------------------------------------------------------
SECRET_RULES = {"HX011", "LG006"}
VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


def _findings(data: bytes) -> list[tuple]:
    summary = RunSummary()
    return sorted((f.code, f.line, f.session, f.direction, repr(f.id), f.method, f.severity.value)
                  for f in lint_stream(io.BytesIO(data), "x.mcplog", None, LintOptions(), summary)
                  if f.code not in SECRET_RULES)


def _session(version: str, secret: str, user: str, rnd: random.Random) -> bytes:
    msgs = [
        ("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "client", "version": "1.0.0"}}}),
        ("s2c", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": version, "capabilities": {
            "tools": {}, "logging": {}}, "serverInfo": {"name": "server", "version": "2.0.0"}}}),
        ("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ("stderr", f"starting in /Users/{user}/project with {secret}"),
        ("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "read", "inputSchema": {
            "type": "object", "properties": {"path": {"type": "string"}, "password": {"type": "string"}}}}]}}),
    ]
    for i in range(2, 2 + rnd.randint(1, 6)):
        msgs.append(("c2s", {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
            "name": "read", "arguments": {"path": f"/Users/{user}/project/f{i}.txt", "password": secret},
            "_meta": {"progressToken": f"t{i}"}}}))
        msgs.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/progress",
                             "params": {"progressToken": f"t{i}", "progress": 1}}))
        msgs.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/message",
                             "params": {"level": "info", "data": f"read by {user}@corp-mail.io using {secret}"}}))
        if rnd.random() < 0.5:
            msgs.append(("s2c", {"jsonrpc": "2.0", "id": i, "result": {"content": [
                {"type": "text", "text": f"TOKEN={secret}\nDB=postgres://app:{secret}@10.0.0.7/db"}]}}))
        else:
            msgs.append(("s2c", {"jsonrpc": "2.0", "id": i, "error": {"code": -32602, "message": f"bad {secret}"}}))
    # deliberate violations, so that there are findings to compare
    msgs.append(("c2s", {"jsonrpc": "2.0", "id": 1, "method": "ping"}))  # a reused id
    msgs.append(("s2c", {"jsonrpc": "2.0", "id": 999, "result": {}}))  # answers nothing
    msgs.append(("s2c", {"jsonrpc": "2.0", "method": "notifications/progress",
                         "params": {"progressToken": f"{user}-{secret}", "progress": 1}}))  # unknown token
    lines = [orjson.dumps({"ts": f"2026-01-01T00:00:{n:02d}.000Z", "dir": d,
                           "raw": m if isinstance(m, str) else orjson.dumps(m).decode()})
             for n, (d, m) in enumerate(msgs)]
    return b"\n".join(lines) + b"\n"


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VERSIONS), TOKENS, st.sampled_from(["alice", "maya", "jordan"]), st.randoms(use_true_random=False))
def test_findings_other_than_secret_rules_are_unchanged(version, secret, user, rnd):
    data = _session(version, secret, user, random.Random(rnd.random()))
    out = io.BytesIO()
    redact_stream(io.BytesIO(data), out, Redactor(RedactOptions(key=b"k")), "capture")
    assert secret.encode() not in out.getvalue()
    before = _findings(data)
    assert before and _findings(out.getvalue()) == before


def test_the_oracle_sees_every_unredacted_carrier():
    """Test the test: without redaction, every carrier leaks the planted secret."""
    rnd = random.Random(2)
    secret = RULES[0].sample(rnd)
    for doc in carriers(secret, rnd):
        assert leaked(secret, doc) is not None, doc

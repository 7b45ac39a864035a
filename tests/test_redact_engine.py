"""The redaction engine, kind by kind: what must go, what must stay, and how it is replaced.

Token-shaped values are built at run time (prefix + body) so that no contiguous secret sits in
the repository.
"""

from __future__ import annotations

import base64
import json
import random
import urllib.parse

import orjson
import pytest

from mcplint.excerpt import excerpt_of, mask_text, mask_value, secret_kinds
from mcplint.model import Kind, Record
from mcplint.redact import KINDS, PLACEHOLDER_RE, RedactOptions, Redactor, redact_text
from mcplint.redact.providers import RULES
from tests.redact_helpers import carriers, j, leaked

GH = "gh" + "p_" + "A1b2C3d4" * 4 + "E5f6"
KEY = b"test-key"


def red(text: str, **options) -> str:
    return Redactor(RedactOptions(key=KEY, **options)).redact_line(text)


def value(line: str, *path):
    node = orjson.loads(line)
    for p in path:
        node = node[p]
    return node


# -- provider tokens --------------------------------------------------------------------------------
def test_at_least_forty_provider_kinds():
    provider_kinds = {rule.kind for rule in RULES}
    assert len(provider_kinds) >= 40
    for kind in ("github-pat", "github-fine-grained-pat", "github-app-token", "gitlab-token", "slack-token",
                 "stripe-secret-key", "aws-access-key-id", "google-api-key", "openai-key", "anthropic-api-key",
                 "huggingface-token", "npm-token", "pypi-token", "twilio-api-key", "sendgrid-key",
                 "azure-client-secret", "jwt", "private-key"):
        assert kind in provider_kinds


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.kind}:{r.prefixes[:1] or r.quick}")
def test_each_provider_token_is_redacted_whole_with_its_kind(rule):
    secret = rule.sample(random.Random(7))
    for text in (f"use {secret} now", j({"jsonrpc": "2.0", "id": 1, "params": {"v": secret}})):
        out = red(text)
        assert leaked(secret, out) is None, out
        if rule.kind != "private-key":
            assert f"[REDACTED:{rule.kind}:" in out, out


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.kind}:{r.prefixes[:1] or r.quick}")
def test_each_provider_token_in_every_carrier(rule):
    rnd = random.Random(11)
    secret = rule.sample(rnd)
    for doc in carriers(secret, rnd):
        out = redact_text(doc, key=KEY)
        assert leaked(secret, out) is None, (doc[:120], out[:300])


def test_longer_and_newer_formats_leave_no_tail():
    long_app_token = "gh" + "s_1234567_eyJ" + "x" * 200 + ".eyJ" + "y" * 200 + "." + "z" * 80
    out = red(f"token {long_app_token} end")
    assert out == f"token [REDACTED:github-app-token:{Redactor(RedactOptions(key=KEY)).tagger.tag(long_app_token)}] end"


def test_documented_examples_and_publishable_keys_are_kept():
    example = "AK" + "IAIOSFODNN7EXAMPLE"
    publishable = "pk" + "_live_" + "a" * 24
    text = f"aws {example} stripe {publishable}"
    assert red(text) == text


# -- sensitive keys and headers ------------------------------------------------------------------------
@pytest.mark.parametrize("key,kind", [
    ("password", "password"), ("Password", "password"), ("db_password", "password"), ("secret", "secret"),
    ("api_key", "api-key"), ("apiKey", "api-key"), ("x-api-key", "api-key"), ("access_token", "token"),
    ("client_secret", "secret"), ("GITHUB_TOKEN", "token"), ("Mcp-Session-Id", "session-id"), ("cookie", "cookie"),
    ("authorization", "authorization"), ("refresh_token", "token"), ("private_key", "private-key"),
])
def test_values_under_sensitive_keys(key, kind):
    out = red(j({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {key: "hunter2"}}}))
    assert value(out, "params", "arguments", key).startswith(f"[REDACTED:{kind}:") or kind == "cookie"
    assert "hunter2" not in out


@pytest.mark.parametrize("key,val", [
    ("progressToken", "p-123"), ("maxTokens", 1000), ("nextCursor", "eyJwYWdlIjoyfQ=="), ("token_endpoint", "https://a.io/t"),
    ("authorization_endpoint", "https://a.io/auth"), ("token_endpoint_auth_methods_supported", ["none"]),
    ("code_challenge", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"), ("key", "Enter"), ("publicKey", "ssh-ed25519 AAAA"),
    ("kid", "key-2026-01"), ("tokenizer", "cl100k"), ("token_type", "Bearer"), ("secretName", "prod/db"),
    ("author", "Jane"), ("keywords", "a,b"), ("expires_in", 3600), ("password_required", True),
])
def test_look_alike_keys_are_kept(key, val):
    line = j({"jsonrpc": "2.0", "id": 1, "result": {key: val, "usage": {"input_tokens": 12, "output_tokens": 30}}})
    assert red(line) == line


def test_schemas_describe_fields_they_do_not_hold_them():
    line = j({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "login", "inputSchema": {
        "type": "object", "properties": {"password": {"type": "string", "description": "the user's password"},
                                         "token": {"type": "string"}}, "required": ["password", "token"]}}]}})
    assert red(line) == line


def test_authorization_keeps_its_scheme_and_cookies_keep_their_names():
    out = red(j({"headers": {"Authorization": "Bearer abc123def456", "Cookie": "theme=dark; sid=s3cr3tvalue",
                             "Set-Cookie": "sid=s3cr3tvalue; Path=/; HttpOnly"}}))
    headers = value(out, "headers")
    assert headers["Authorization"].startswith("Bearer [REDACTED:authorization:")
    assert headers["Cookie"].startswith("theme=[REDACTED:cookie:") and "; sid=[REDACTED:cookie:" in headers["Cookie"]
    assert headers["Set-Cookie"].startswith("sid=[REDACTED:cookie:") and headers["Set-Cookie"].endswith("; Path=/; HttpOnly")
    assert "s3cr3tvalue" not in out


def test_header_pairs_har_pairs_raw_headers_and_args():
    pw = "pw-" + "Zq9" * 4
    out = red(j({"a": [["Authorization", "Bearer " + pw]], "b": [{"name": "X-Api-Key", "value": pw}],
                 "c": ["Host", "x.io", "Authorization", "Basic " + pw], "args": ["--api-key", pw, "--verbose"],
                 "d": ["--token=" + pw]}))
    assert pw not in out
    assert value(out, "args")[2] == "--verbose" and value(out, "c")[:2] == ["Host", "x.io"]


def test_session_ids_get_the_same_placeholder_in_request_and_response():
    sid = "a1b2c3d4-" + "e5f6" * 6
    out = redact_text(j({"headers": {"Mcp-Session-Id": sid}}) + "\n" + "Mcp-Session-Id: " + sid, key=KEY)
    first, second = out.split("\n")
    placeholder = value(first, "headers", "Mcp-Session-Id")
    assert second == "Mcp-Session-Id: " + placeholder


def test_numbers_under_sensitive_keys_become_zero_and_stay_json():
    out = red('{"jsonrpc":"2.0","id":1,"params":{"pin":  4711,"cvv":123,"count":5}}')
    assert out == '{"jsonrpc":"2.0","id":1,"params":{"pin":  0,"cvv":0,"count":5}}'


# -- text: assignments, flags, URLs ----------------------------------------------------------------
@pytest.mark.parametrize("text,secret", [
    ('export DB_PASSWORD="p#ss word"', "p#ss word"),
    ("TOKEN='abc123def", "abc123def"),
    ("API_KEY=abc123;OTHER=1", "abc123"),
    ("password: correct horse battery", "correct horse battery"),
    ('{"password": "hunter2", "user": "x"', "hunter2"),
    ("Server=db;Database=app;User Id=sa;Password=Pa55word;", "Pa55word"),
    ("run --api-key abc123xyz --verbose", "abc123xyz"),
    ("run --token=abc123xyz", "abc123xyz"),
    ("curl -H 'Authorization: Bearer abc.def.123'", "abc.def.123"),
    ("my api key is 8f3Kq9xZ2mN7vB4cL1", "8f3Kq9xZ2mN7vB4cL1"),
    ("Cookie: a=1; session=s3cr3tCookieValue", "s3cr3tCookieValue"),
])
def test_credentials_found_by_context_in_text(text, secret):
    out = red(text)
    assert secret not in out and "[REDACTED:" in out
    assert red(out) == out


@pytest.mark.parametrize("text", [
    "Bearer authentication is described in RFC 6750.",
    "The token expired; ask for a new one.",
    "press the key to continue",
    "git commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "request 123e4567-e89b-12d3-a456-426614174000 done",
    "version 1.2.3.4 on 127.0.0.1 and ::1 at localhost",
    "ts 1735689600000 id 4111111111111111",
    "mail admin@example.com or user@test.example",
    "url: https://example.com/docs/getting-started",
])
def test_ordinary_text_is_kept(text):
    assert red(text) == text


def test_url_credentials():
    secret = "S3cr3tPassw0rd"
    out = red(j({"url": f"postgres://app:{secret}@db.internal:5432/app?sslmode=require",
                 "q": "https://api.example.com/v1?page=2&exaApiKey=abc123def&sig=xyz987&code=Zq9Zq9Zq9",
                 "frag": "https://app.example.com/cb#access_token=tok123abc&state=s"}))
    assert secret not in out and "abc123def" not in out and "xyz987" not in out and "tok123abc" not in out
    assert "postgres://app:[REDACTED:url-password:" in out and "@db.internal:5432/app?sslmode=require" in out
    assert "page=2&exaApiKey=[REDACTED:" in out


def test_secret_url_path_segments_and_webhooks():
    segment = "k9X2mQ7vB4cL1zN8pR5tY3wE6"
    out = red(f"POST https://mcp.example.com/mcp/{segment}/sse and https://example.com/docs/getting-started-guide")
    assert segment not in out and "/mcp/[REDACTED:url-path-secret:" in out
    assert "https://example.com/docs/getting-started-guide" in out


# -- personal data ------------------------------------------------------------------------------------
def test_personal_data_defaults():
    out = red(j({"text": "mail bob.smith@acme-corp.io, call +1 415 555 0100 or (555) 123-4567, "
                         "card 4111 1111 1111 1111, from 93.184.216.34 and 2001:4860:4860::8888, "
                         "file /Users/alice/work/x.txt C:\\Users\\carol\\x /home/bob/y"}))
    text = value(out, "text")
    for gone in ("bob.smith", "415 555", "123-4567", "4111 1111", "93.184.216.34", "4860::8888", "alice", "carol",
                 "/home/bob/"):
        assert gone not in text, gone
    assert "@example.invalid" in text and "/Users/user-" in text and "[REDACTED:card:" in text


def test_personal_data_look_alikes_are_kept():
    text = ("card 4111 1111 1111 1112 is invalid, 10.0.0.1 and 192.168.1.1 are private, 203.0.113.5 is "
            "documentation, runner home /home/runner/x, icon@2x.png, ts 2025-06-18T10:00:00+00:00")
    assert red(text) == text


def test_keep_kinds():
    text = "bob@acme-corp.io from 93.184.216.34 with " + GH
    out = red(text, keep=["email", "ip-address"])
    assert "bob@acme-corp.io" in out and "93.184.216.34" in out and GH not in out
    assert red(text, keep=["pii"]) == f"bob@acme-corp.io from 93.184.216.34 with {red(GH)}"
    with pytest.raises(ValueError):
        Redactor(RedactOptions(keep=["no-such-kind"]))


def test_elicitation_answers_are_redacted_enums_kept():
    request = j({"jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": {
        "message": "Who are you?", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string"}, "email": {"type": "string", "format": "email"},
            "plan": {"type": "string", "enum": ["free", "pro"]}, "age": {"type": "integer"}}}}})
    response = j({"jsonrpc": "2.0", "id": 5, "result": {"action": "accept", "content": {
        "name": "Ada Lovelace", "email": "ada@analytical.engine", "plan": "pro", "age": 36}}})
    out = redact_text(request + "\n" + response, key=KEY).split("\n")
    assert out[0] == request
    content = value(out[1], "result", "content")
    assert content["name"].startswith("[REDACTED:elicitation-answer:") and content["plan"] == "pro"
    assert content["email"].endswith("@example.invalid") and content["age"] == 36


# -- blobs ------------------------------------------------------------------------------------------
def test_images_become_placeholders_that_keep_type_and_size():
    data = base64.b64encode(random.Random(1).randbytes(3000)).decode()
    line = j({"jsonrpc": "2.0", "id": 3, "result": {"content": [
        {"type": "image", "data": data, "mimeType": "image/png"},
        {"type": "audio", "data": data, "mimeType": "audio/wav"}]}})
    out = red(line)
    image, audio = value(out, "result", "content")
    assert image["mimeType"] == "image/png" and audio["mimeType"] == "audio/wav"
    text = base64.b64decode(image["data"], validate=True).decode()
    assert text.startswith("[REDACTED:image:") and text.endswith("image/png 3000 bytes")
    assert base64.b64decode(audio["data"]).decode().startswith("[REDACTED:audio:")
    assert red(out) == out
    assert red(line, keep_blobs=True) == line


def test_text_blobs_and_data_uris():
    env = base64.b64encode(f"A=1\nGITHUB_TOKEN={GH}\n".encode()).decode()
    line = j({"jsonrpc": "2.0", "id": 4, "result": {"contents": [
        {"uri": "file:///app/.env", "mimeType": "text/plain", "blob": env}]},
        "note": "see data:image/png;base64," + base64.b64encode(b"\x89PNG" * 20).decode()})
    out = red(line)
    assert base64.b64decode(value(out, "result", "contents", 0, "blob")).decode().startswith("[REDACTED:blob:")
    assert "data:image/png;base64,W1JFREFDVEVE" in out
    kept = red(line, keep_blobs=True)
    decoded = base64.b64decode(value(kept, "result", "contents", 0, "blob")).decode()
    assert decoded.startswith("A=1\nGITHUB_TOKEN=[REDACTED:") and GH not in decoded


# -- layers -----------------------------------------------------------------------------------------
def test_nested_and_encoded_layers():
    inner = j({"jsonrpc": "2.0", "id": 2, "params": {"password": "hunter2"}})
    lines = [
        "2026-05-01T12:00:00Z [info] [fs] Message from server: " + inner,
        "data: " + inner,
        j({"log": "called with " + json.dumps(inner)}),  # escaped JSON inside text
        j({"u": "https%3A%2F%2Fbob%3Ahunter2%40h.io%2F"}),
        j({"b": base64.urlsafe_b64encode(b'{"password":"hunter2"}').decode().rstrip("=")}),
    ]
    for line in lines:
        out = red(line)
        assert leaked("hunter2", out) is None, out
        assert red(out) == out


def test_base64_layers_stay_valid_and_decode_to_the_same_placeholder():
    plain = f"TOKEN={GH}\n"
    for encoded in (base64.b64encode(plain.encode()).decode(), base64.urlsafe_b64encode(plain.encode()).decode().rstrip("=")):
        out = value(red(j({"v": encoded})), "v")
        padded = out + "=" * (-len(out) % 4)
        decoded = base64.b64decode(padded, altchars=b"-_" if "-" in out or "_" in out else None, validate=True).decode()
        assert decoded == f"TOKEN={red(GH)}\n"
        assert out.endswith("=") == encoded.endswith("=")


def test_escapes_are_kept_outside_the_change():
    line = '{"a":"caf\\u00e9 \\/ ok","t":"use \\u0067hp_' + "A1b2C3d4" * 4 + 'E5f6 now"}'
    out = red(line)
    assert out.startswith('{"a":"caf\\u00e9 \\/ ok","t":"use [REDACTED:github-pat:')
    assert json.loads(out)["t"].endswith(" now")


# -- placeholders and tags ----------------------------------------------------------------------------
def test_tags_are_keyed_stable_and_distinct():
    other = "gh" + "p_" + "Z9y8X7w6" * 4 + "V5u4"
    a = red(f"{GH} {other} {GH}")
    first, second, third = PLACEHOLDER_RE.findall(a)
    assert first == third and first != second
    assert red(GH) == Redactor(RedactOptions(key=KEY)).redact_line(GH)  # same key, same tag across runs
    assert Redactor(RedactOptions()).redact_line(GH) != Redactor(RedactOptions()).redact_line(GH)  # random keys


def test_tag_collisions_get_longer_tags():
    redactor = Redactor(RedactOptions(key=KEY))
    tagger = redactor.tagger
    tags = {tagger.tag(f"secret-{i}") for i in range(70_000)}
    assert len(tags) == 70_000
    assert all(len(t) in (8, 12) for t in tags)


def test_placeholders_hold_no_trigger_of_any_rule():
    for kind in KINDS:
        placeholder = f"[REDACTED:{kind}:0123abcd]"
        line = j({"password": placeholder, "note": f"{kind}: {placeholder}", "url": f"https://u:{placeholder}@h.io"})
        assert red(line) == line, kind


# -- known values ----------------------------------------------------------------------------------
def test_known_values_from_a_host_config_and_a_dotenv(tmp_path):
    from mcplint.redact import load_secrets

    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"db": {
        "command": "npx", "args": ["-y", "server-postgres", "postgresql://app:Sh4pel3ss@db/x", "--token", "tok-opaque-77"],
        "env": {"NODE_ENV": "production", "DB_PASS": "plainword", "CUSTOM": "q8Zr2Lm9Xw4Tn7Ks"}}}}))
    dotenv = tmp_path / ".env"
    dotenv.write_text('export SERVICE_PASSPHRASE="correct horse"\nDEBUG=true\n')
    values = load_secrets([str(config), str(dotenv)])
    assert {"Sh4pel3ss", "tok-opaque-77", "plainword", "q8Zr2Lm9Xw4Tn7Ks", "correct horse"} <= set(values)
    assert "production" not in values and "true" not in values
    redactor = Redactor(RedactOptions(key=KEY, secrets=values))
    out = redactor.redact_line(j({"text": "connected with plainword and correct%20horse and "
                                          + b"q8Zr2Lm9Xw4Tn7Ks".hex()}))
    assert "plainword" not in out and "correct%20horse" not in out and "[REDACTED:known-secret:" in out


# -- structure ------------------------------------------------------------------------------------
def test_everything_but_the_secret_keeps_its_bytes():
    line = '{ "jsonrpc" : "2.0", "id" : 1.0, "method":"tools/call", "params" : {"big": 12345678901234567890, ' \
           '"z": 1, "a": 2, "password" : "x", "t": "caf\\u00e9"} }'
    out = red(line)
    assert out == line.replace('"password" : "x"', f'"password" : "{red(j({"password": "x"}))[13:-2]}"')


def test_duplicate_keys_and_cut_lines_are_still_redacted():
    dup = '{"password":"a1","password":"b2","n":1}'
    out = red(dup)
    assert "a1" not in out and "b2" not in out and json.loads(out)
    cut = '{"jsonrpc":"2.0","id":1,"params":{"user":"x","password":"hunter2'
    assert "hunter2" not in red(cut)


def test_ids_and_methods_without_secrets_are_never_touched():
    for rid in ("req-42", "3f2c9a8b-7e6d-4c5b-8a49-1e2f3a4b5c6d", "1767225600123", "2026-05-01T12:00:00Z",
                "e83c5163316f89bfbde7d9ab23ca2e25604af290", "01HV6Z1X6G7Q2W3E4R5T6Y7U8I", 7, 0, None):
        for method in ("auth/password", "tools/call", "notifications/progress", "x-acme/token-refresh"):
            line = j({"jsonrpc": "2.0", "id": rid, "method": method, "params": {"_meta": {"progressToken": rid}}})
            assert red(line) == line


def test_an_id_or_method_holding_a_secret_becomes_one_pseudonym_everywhere():
    rid = "req-" + GH[:10]
    lines = [j({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"_meta": {"progressToken": rid}}}),
             j({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": rid, "progress": 1}}),
             j({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}}),
             j({"jsonrpc": "2.0", "id": rid, "result": {"task": {"taskId": rid}}}),
             j({"jsonrpc": "2.0", "id": 9, "method": "auth/" + GH, "params": {}})]
    out = [orjson.loads(line) for line in redact_text("\n".join(lines), key=KEY).split("\n")]
    pseudonym = out[0]["id"]
    assert PLACEHOLDER_RE.fullmatch(pseudonym) and pseudonym.startswith("[REDACTED:github-pat:")
    assert pseudonym == out[0]["params"]["_meta"]["progressToken"] == out[1]["params"]["progressToken"] \
        == out[2]["params"]["requestId"] == out[3]["id"] == out[3]["result"]["task"]["taskId"]
    assert PLACEHOLDER_RE.fullmatch(out[4]["method"]) and out[4]["id"] == 9


# -- excerpts of findings use the same engine ----------------------------------------------------------
def test_excerpts_and_masks_never_show_a_secret():
    msg = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {
        "password": "hunter2", "note": "use " + GH, "email": "bob@acme-corp.io"}}}
    record = Record("x", 1, Kind.REQUEST, json.dumps(msg), msg=msg)
    excerpt = excerpt_of(record, limit=400)
    assert "hunter2" not in excerpt and GH not in excerpt and "[REDACTED]" in excerpt
    assert "bob@acme-corp.io" not in excerpt  # one policy for every output: personal data too
    assert mask_text(f"token {GH} ok") == "token [REDACTED] ok"
    assert mask_value({"password": "x", "list": ["Bearer abc123def456"]}) == {
        "password": "[REDACTED]", "list": ["Bearer [REDACTED]"]}
    assert secret_kinds(f"{GH} password=hunter2 bob@acme-corp.io") == {"github-pat": 1, "password": 1}


def test_check_mode_records_line_and_path_never_values():
    redactor = Redactor(RedactOptions(key=KEY, record_hits=True))
    redactor.line = 7
    redactor.redact_line(j({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": j({"k": GH})}]}}))
    (hit,) = redactor.report.hits
    assert hit.line == 7 and hit.kind == "github-pat" and hit.path == "$.result.content[0].text > $.k"
    assert GH not in repr(redactor.report)


# -- shortcuts that must not change a result ----------------------------------------------------
def test_rewriting_with_orjson_gives_the_bytes_splicing_gives(monkeypatch):
    """A compact document is written again by orjson; the literal-by-literal splice must agree."""
    from mcplint.redact.engine import _Walk

    rnd = random.Random(11)
    lines = [line for rule in RULES for line in carriers(rule.sample(rnd), rnd) if "\n" not in line]
    doc = {"jsonrpc": "2.0", "id": 1, "params": {"password": 12345, "list": ["--token", "x9", 7],
                                                  "t": "tab\there", "u": "café " + GH}}
    lines += [j(doc), orjson.dumps(doc).decode(), orjson.dumps({"c": "\x01", "k": GH}).decode(),
              '{"a":"\\u00e9 ' + GH + '"}', '"' + GH + '"']
    fast = [red(line) for line in lines]
    original = _Walk.rewrite
    rewritten = []
    monkeypatch.setattr(_Walk, "rewrite", lambda self, value, text: rewritten.append(original(self, value, text)))
    red(orjson.dumps(doc).decode())
    assert rewritten[0] is not None  # the orjson path is taken (and agrees, below)
    monkeypatch.setattr(_Walk, "rewrite", lambda self, value, text: None)
    assert [red(line) for line in lines] == fast


def test_a_repeated_string_reports_each_occurrence():
    line = j({"ts": "2026-01-01T00:00:00Z", "dir": "c2s", "raw": j({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"arguments": {"path": "/Users/maya/app/.env", "note": "use " + GH}}})})
    redactor = Redactor(RedactOptions(key=KEY))
    outs = {redactor.redact_line(line) for _ in range(3)}
    assert len(outs) == 1 and GH not in outs.pop()
    assert redactor.report.counts == {"home-user": 3, "github-pat": 3}


def test_a_remembered_result_never_skips_what_an_elicitation_request_changes():
    """A log line that holds an answer reads differently once its request has been seen."""
    plan = {"type": "string", "enum": ["free", "pro"]}
    request = j({"jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": {"message": "Plan?",
                 "requestedSchema": {"type": "object", "properties": {"plan": plan}}}})
    answer = j({"jsonrpc": "2.0", "id": 5, "result": {"action": "accept", "content": {"plan": "pro"}}})
    log = j({"ts": "2026-05-01T12:00:00.000Z", "dir": "stderr", "raw": "message from client: " + answer})
    redactor = Redactor(RedactOptions(key=KEY))
    before = redactor.redact_line(log)
    redactor.redact_line(j({"ts": "2026-05-01T12:00:01.000Z", "dir": "s2c", "raw": request}))
    after = redactor.redact_line(log)
    assert "elicitation-answer" in before and after == log  # the enum value is kept once the schema is known


# -- query strings, nested URLs, context prefixes ----------------------------------------------------------
def test_form_encoded_queries_are_read_with_plus_as_space():
    out = red(j({"url": "https://x.io/cb?q=Bearer+" + GH + "&note=the+password+is+hunter2&page=2"}))
    assert GH not in out and "hunter2" not in out and "&note=the+password+is+[REDACTED:password:" in out
    assert out.endswith('&page=2"}')
    kept = j({"url": "https://example.com/search?q=c%2B%2B+tutorial&page=2&tags=a+b"})
    assert red(kept) == kept


def test_a_url_inside_a_query_has_its_password_redacted():
    for inner in ("https://app:S3cretPw9@db.example.io/", "https%3A%2F%2Fapp%3AS3cretPw9%40db.example.io%2F"):
        out = red(j({"url": "https://auth.example.com/login?next=" + inner}))
        assert "S3cretPw9" not in out and "db.example.io" in out


def test_a_context_word_that_is_not_a_key_does_not_hide_what_follows():
    for text in ("auth: the password is hunter2", "auth: session 3f2c8a1e-1b2c-4d5e-8f90-1234567890ab opened"):
        out = red(text)
        assert "hunter2" not in out and "3f2c8a1e" not in out, out


def test_a_secret_redacted_inside_a_larger_one_does_not_shield_the_rest():
    key = "-----BEGIN " + "RSA PRIVATE KEY-----\n" + GH + "\nMIIEow" + "A" * 60 + "\n-----END RSA PRIVATE KEY-----"
    out = red(j({"url": "https://x.io/?k=" + urllib.parse.quote_plus(key)}))
    assert "MIIEow" not in out and GH not in out


def test_a_uuid_under_a_session_member_is_a_session_id():
    line = j({"ts": "2026-01-01T00:00:00Z", "dir": "c2s", "session": "3f2c8a1e-1b2c-4d5e-8f90-1234567890ab",
              "raw": "{}"})
    assert "3f2c8a1e" not in red(line) and "[REDACTED:session-id:" in red(line)
    plain = j({"session": "weather#2", "state": "ready"})
    assert red(plain) == plain

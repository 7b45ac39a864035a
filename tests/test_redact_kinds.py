"""Kinds with validators (issue 14): card numbers without a keyword, IBANs, US SSNs, Google OAuth
refresh tokens, JWTs with kilobyte ``x5c`` headers, passwords and secrets written in prose,
session ids in free text, ``Bearer``/``Basic`` in every field.

Values are generated (hypothesis), with valid check digits computed here (Luhn, ISO 13616
mod-97, SSN area/group/serial rules); tokens are built from a split prefix and a random body so
that the repository holds no real-looking literal. Each value is planted in JSON string values,
keys, prose, nested JSON, errors, log notifications, stderr lines, host log lines, headers,
base64 and a URL query, and must be gone from every decoded layer of the output. The
over-redaction half lists what must stay byte-identical: ids, timestamps, hashes, versions,
dates, digit groups that are not SSNs, numbers that fail Luhn, IBAN look-alikes with a wrong
check, and ordinary prose about passwords, tokens and sessions.
"""

from __future__ import annotations

import base64
import json
import random
import string
import time
import urllib.parse
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.redact import RedactOptions, Redactor, redact_text
from mcplint.redact.credentials import PROSE_STOP
from mcplint.redact.personal import IBAN_LENGTHS, is_card_number
from mcplint.redact.providers import jwt_x5c_sample
from tests.redact_helpers import j, leaked
from tests.redact_plants import luhn_digit

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
DIGITS = string.digits
PROFILE = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
KEY = b"kinds"


def red(text: str) -> str:
    return redact_text(text, key=KEY)


# -- generators (check digits computed here) ------------------------------------------------------------
def luhn_complete(partial: str) -> str:
    """``partial`` and the check digit that makes it Luhn-valid."""
    return partial + luhn_digit(partial)


#: (issuer prefix, card length): every issuer and length the detector accepts
CARD_SHAPES = ([("4", n) for n in (13, 16, 19)] + [(str(p), 16) for p in range(51, 56)]
               + [(str(p), 16) for p in (2221, 2300, 2500, 2720)] + [("34", 15), ("37", 15)]
               + [(p, n) for p in ("6011", "644", "649", "65") for n in range(16, 20)]
               + [(p, 14) for p in ("36", "38", "300", "305")]
               + [(str(p), n) for p in (3528, 3560, 3589) for n in (16, 19)]
               + [("62", n) for n in range(16, 20)])


@st.composite
def card_digits(draw) -> str:
    prefix, length = draw(st.sampled_from(CARD_SHAPES))
    middle = draw(st.text(DIGITS, min_size=length - 1 - len(prefix), max_size=length - 1 - len(prefix)))
    return luhn_complete(prefix + middle)


def group(digits: str, sep: str, sizes: tuple[int, ...] = ()) -> str:
    """Groups of four (the last one shorter), or the given sizes (Amex 4-6-5, Diners 4-6-4)."""
    sizes = sizes or tuple(4 for _ in range(0, len(digits), 4))
    out, at = [], 0
    for n in sizes:
        out.append(digits[at:at + n])
        at += n
    return sep.join(part for part in out if part)


@st.composite
def cards(draw) -> tuple[str, str]:
    """(the card as written, its digits)."""
    digits = draw(card_digits())
    style = draw(st.sampled_from(["compact", "spaced", "dashed", "amex-style"]))
    if style == "compact":
        return digits, digits
    sep = "-" if style == "dashed" else " "
    if style == "amex-style" and len(digits) in (14, 15):
        return group(digits, " ", (4, 6, len(digits) - 10)), digits
    return group(digits, sep), digits


def iban_check(country: str, bban: str) -> str:
    number = int("".join(str(int(c, 36)) for c in bban + country + "00"))
    return f"{98 - number % 97:02d}"


@st.composite
def ibans(draw) -> str:
    country = draw(st.sampled_from(sorted(IBAN_LENGTHS)))
    n = IBAN_LENGTHS[country] - 4
    letters = draw(st.integers(0, min(4, n)))  # many BBANs start with a bank code in letters
    bban = (draw(st.text(string.ascii_uppercase, min_size=letters, max_size=letters))
            + draw(st.text(DIGITS + string.ascii_uppercase[:6], min_size=n - letters, max_size=n - letters)))
    iban = country + iban_check(country, bban) + bban
    if draw(st.booleans()):
        return " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))
    return iban


@st.composite
def ssns(draw) -> str:
    area = draw(st.integers(1, 899).filter(lambda a: a != 666))
    g, serial = draw(st.integers(1, 99)), draw(st.integers(1, 9999))
    sep = draw(st.sampled_from(["-", " "]))
    return f"{area:03d}{sep}{g:02d}{sep}{serial:04d}"


def with_digit(draw, alphabet: str, lo: int, hi: int) -> str:
    """A random value with at least one letter and one digit (what real credentials hold)."""
    core = draw(st.text(alphabet, min_size=lo, max_size=hi))
    return draw(st.sampled_from(string.ascii_letters)) + core + draw(st.sampled_from(DIGITS))


@st.composite
def passwords(draw) -> str:
    return with_digit(draw, ALNUM + "!#%*+@^_~-", 6, 18)


@st.composite
def refresh_tokens(draw) -> str:
    return "1/" + "/0" + with_digit(draw, URLSAFE, 20, 100)


@st.composite
def prose(draw) -> tuple[str, str]:
    """(sentence, the secret in it): passwords, secrets, tokens, API keys and session ids in prose."""
    value = draw(passwords())
    template = draw(st.sampled_from([
        "the password is {}", "Password was: {}", "my password is now {}", "passwd {}", "the passwd is '{}'",
        "my secret is {}", "The secret was {}", "the token is {}", "token: {} (expires soon)", "api key: {}",
        "API key is {}", "the access key is {}", "Password is \"{}\"", "pwd is {}",
    ]))
    if draw(st.booleans()) and template.startswith(("the password is", "Password was")):
        # a weak password of plain letters is still a password after "password is"
        value = draw(st.text(string.ascii_lowercase, min_size=5, max_size=12).filter(
            lambda w: w not in PROSE_STOP and not w.endswith(("ed", "ing"))))
    return template.format(value), value


@st.composite
def sessions(draw) -> tuple[str, str]:
    sid = str(draw(st.uuids()))
    template = draw(st.sampled_from(["session {} opened", "Session ID: {}", "session: {}", "session id {} closed",
                                     "resuming session {}", "new session={}"]))
    return template.format(sid), sid


@st.composite
def auth_headers(draw) -> tuple[str, str]:
    token = with_digit(draw, URLSAFE, 20, 60)
    if draw(st.booleans()):
        return "Bearer " + token, token
    basic = base64.b64encode(f"svc-{token[:6].lower()}:{token}".encode()).decode()
    return "Basic " + basic, basic


@st.composite
def x5c_jwts(draw) -> str:
    return jwt_x5c_sample(random.Random(draw(st.integers(0, 2**32))), certs=draw(st.integers(1, 4)))


#: (kind name, strategy of (text to plant, secret that must not survive), expected placeholder kind)
KINDS = {
    "card": (cards(), "card"),
    "iban": (ibans().map(lambda v: (v, v)), "iban"),
    "ssn": (ssns().map(lambda v: (v, v)), "national-id"),
    "ssn-compact": (st.tuples(st.sampled_from(["SSN ", "ssn: ", "social security number "]), ssns()).map(
        lambda t: (t[0] + t[1].replace("-", "").replace(" ", ""), t[1].replace("-", "").replace(" ", ""))),
        "national-id"),
    "google-refresh-token": (refresh_tokens().map(lambda v: (v, v)), "google-refresh-token"),
    "jwt-x5c": (x5c_jwts().map(lambda v: (v, v)), "jwt"),
    "prose": (prose(), None),
    "session": (sessions(), "session-id"),
    "auth-header": (auth_headers(), None),
}


# -- places --------------------------------------------------------------------------------------------
def places(text: str) -> list[str]:
    """``text`` planted in every text field a capture has (one document per place)."""
    msg = {"jsonrpc": "2.0", "id": 3, "method": "notifications/message",
           "params": {"level": "warning", "logger": "billing", "data": f"retrying: {text}"}}
    b64 = base64.b64encode(f"note: {text}\n".encode()).decode()
    return [
        j({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "pay", "arguments": {"note": f"use {text} now"}}}),           # argument prose
        j({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "pay", "arguments": {"input": text}}}),                          # whole value
        j({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": f"Done.\n{text}\nBye"}]}}),
        j({"jsonrpc": "2.0", "id": 2, "result": {"content": [
            {"type": "text", "text": j({"detail": {"note": f"x {text} y"}})}]}}),             # JSON in JSON
        j({"jsonrpc": "2.0", "id": 2, "result": {"structuredContent": {text: 1}}}),          # a key
        j({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": f"failed: {text}",
                                                "data": {"trace": f"at pay() {text}"}}}),  # error
        j(msg),                                                                              # log notification
        j({"ts": "2026-05-01T12:00:00.000Z", "dir": "stderr", "raw": f"[warn] {text}"}),  # capture stderr
        f"2026-05-01 12:00:00,000 ERROR server stderr: {text}",                            # plain stderr line
        "2026-05-01T12:00:00.000Z [billing] [info] Message from server: " + j(msg),       # host log line
        j({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "fetch", "arguments": {
            "url": "https://api.example.com/v1/pay?ref=" + urllib.parse.quote(text, safe="")}}}),  # URL query
        "X-Debug-Note: " + text,                                                            # a header
        j({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": b64}]}}),  # base64 text
    ]


def assert_gone(text: str, secret: str, kind: str | None) -> None:
    for doc in places(text):
        out = red(doc)
        skeleton = red(doc.replace(secret, "\u2400" * len(secret)))
        assert leaked(secret, out, skeleton) is None, (doc[:300], out[:600])
        if kind is not None and secret in doc:
            assert f"[REDACTED:{kind}:" in urllib.parse.unquote(out), out[:300]
        assert out.count("\n") == doc.count("\n")
        if doc.startswith("{"):
            assert json.loads(out).get("id") == json.loads(doc).get("id")
        assert red(out) == out  # idempotent


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_kind_is_gone_from_every_place(name):
    strategy, kind = KINDS[name]

    @PROFILE
    @given(strategy)
    def check(planted):
        text, secret = planted
        assert_gone(text, secret, kind)

    check()


@PROFILE
@given(cards())
def test_card_numbers_are_redacted_whole_with_their_kind(card):
    text, digits = card
    assert is_card_number(digits)
    out = red(j({"note": f"charged {text} today"}))
    assert json.loads(out)["note"].startswith("charged [REDACTED:card:") and digits[-4:] not in out
    compact = red(f"card on file {digits}")
    assert compact == red(f"card on file {digits}") and digits not in compact


@PROFILE
@given(ibans())
def test_ibans_are_redacted_with_their_kind(iban):
    out = red(j({"note": f"wire to {iban} by Friday"}))
    note = json.loads(out)["note"]
    assert note.startswith("wire to [REDACTED:iban:") and note.endswith(" by Friday")


def test_kinds_of_the_prose_and_session_rules():
    secret = "Tr0ub4dor" + "&3x"
    cases = {
        f"the password is {secret}": "password", f"password was: {secret}": "password", f"passwd {secret}": "password",
        f"my secret is {secret}": "secret", f"the token is {secret}": "token", f"api key: {secret}": "api-key",
        f"API key is {secret}": "api-key", f"session {uuid.UUID(int=7)} opened": "session-id",
        "resuming session " + "k9X2mQ7vB4cL1zN8pR5t": "session-id",
    }
    for text, kind in cases.items():
        assert f"[REDACTED:{kind}:" in red(text), (text, red(text))


def test_password_in_prose_keeps_the_sentence():
    assert red("the password is hunter2, then log in").startswith("the password is [REDACTED:password:")
    assert red("the password is hunter2, then log in").endswith(", then log in")
    assert red("the password is 'p#ss word' now").endswith("' now")  # quoted: spaces inside the value
    assert "p#ss" not in red("the password is 'p#ss word' now")


def test_long_jwt_header_is_redacted_whole():
    token = jwt_x5c_sample(random.Random(4), certs=4)
    assert len(token.split(".")[0]) > 4096
    for doc in ["Authorization: Bearer " + token, j({"id_token": token}), j({"note": "jwt=" + token + " end"}),
                j({"note": "x-" + token})]:
        out = red(doc)
        assert leaked(token, out) is None and "[REDACTED:" in out, out[:200]


def test_refresh_token_variants():
    body = "Ab3" + "x_Y-9" * 8
    for head in ("1//0", "1//04", "1//06", "1//3"):
        token = head + body
        assert "[REDACTED:google-refresh-token:" in red(f'"refresh" {token}'), head
    # a shell substitution and a short path are not tokens
    for text in ["${1//[0-9]/}", "echo ${1//x/y}", "a 1//0 b", "see 1//0abc"]:
        assert red(text) == text


def test_compact_card_digits_under_id_time_and_count_names_are_kept():
    digits = luhn_complete("411111111111111")
    assert is_card_number(digits)
    for doc in [j({"id": digits}), j({"orderId": digits}), j({"created_ts": digits}), j({"eventTime": digits}),
                j({"nonce": digits}), j({"seq": digits}), j({"user_ids": digits}),
                f"request id {digits} done", f"ts={digits}", f"orderId: {digits}", f"count {digits}",
                f"snowflake #{digits}"]:
        assert red(doc) == doc, doc
    for doc in [j({"note": digits}), f"paid with {digits}", j({"payment": {"pan": digits}})]:
        assert digits not in red(doc), doc


@pytest.mark.parametrize("text", [
    "Bearer abc123def456ghi789", "Basic " + base64.b64encode(b"svc:s3cr3t-pw!").decode(),
    "bearer  abc123def456ghi789", "Authorization: Bearer abc123def456ghi789",
])
def test_bearer_and_basic_in_every_field(text):
    credential = text.split()[-1]
    for doc in places(text) + [text, f"curl -H '{text}' https://api.example.com"]:
        out = red(doc)
        assert leaked(credential, out) is None, (doc, out)


# -- over-redaction: all of these stay byte-identical -----------------------------------------------
def _uuid(n: int) -> str:
    return str(uuid.UUID(int=n * 0x9E3779B97F4A7C15_F39CC0605CEDC834 % 2**128, version=4))


KEPT = [
    # ids, timestamps, hashes, versions, dates
    j({"jsonrpc": "2.0", "id": 4111111111111111, "method": "tools/call", "params": {"name": "x"}}),
    j({"jsonrpc": "2.0", "id": _uuid(1),
       "result": {"content": [{"type": "text", "text": f"request {_uuid(2)} done"}]}}),
    j({"requestId": _uuid(3), "traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7"}),
    "ts 1735689600000 id 4111111111111111 at 1735689600 (1735689600123456 us, 1735689600123456789 ns)",
    j({"ts": 1735689600000, "t": "1735689600000", "at": "2026-05-01T12:00:00.000Z", "date": "2026-05-01"}),
    "message 1234567890123456789 from user 123456789012345678 in guild 1098765432109876543",
    "git commit 9fceb02d0ae598e95dc970b74767f19372d61af8 sha256 "
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "version 1.2.3.4, v2.10.0, node v20.11.1, build 20240115.3, python 3.12.1",
    "dates 2024-01-15, 01-15-2024, 15.01.2024, 2024/01/15, 20240115, 2024-01-15T10:00:00+02:00",
    # digit groups that are not SSNs
    "codes 12-345-6789, 1234-56-789, 123-456-78, 000-12-3456, 666-12-3456, 900-12-3456, 987-65-4321",
    "codes 123-00-4567, 123-45-0000, 123-45-67890, 1123-45-6789, 123-45-6789-01, 9-123-45-6789",
    "bare 123456789 and 123 456 789 and 1 123 45 6789 2 and part 12-123-45-6789",
    # numbers that fail Luhn or the issuer table, and IBAN look-alikes
    "order 4111111111111112 and 5500000000000005 and 1234567812345678 and 9111111111111111",
    "numbers 4111 1111 1111 1112, 7111-1111-1111-1114, 3111111111111117, 6111111111111116",
    "iban XX89 3704 0044 0532 0130 00, DE00 3704 0044 0532 0130 00, DE8937040044053201300",
    "model GB82-WEST, ticket AB12 CDEF, sku FR76XY, build US12345678901234567890",
    # ordinary prose about passwords, tokens, keys, sessions
    "The password is incorrect. Password is required. The password is too short.",
    "password is invalid; the password was reset; the password is not set; password is expired",
    "The password is 8 characters long. Your password is case-sensitive. The password is hashed with bcrypt.",
    "the password is being changed; the password is stored in the keychain; password was sent",
    "The token expired. The token is expired. The token is invalid. token is missing",
    "API key is missing. The API key is used to authenticate requests. api key: required",
    "my secret is safe; the secret is out; secret is not set",
    "session started; session 42 closed; session ended after 30s; session: active; new session created",
    "passwd alice; password reset link sent; password manager; token count is 1234; the token is v2.1.0",
    "Bearer authentication is described in RFC 6750. Basic auth is supported.",
    j({"jsonrpc": "2.0", "id": 5, "result": {"tools": [{"name": "login", "description": "The password is required.",
       "inputSchema": {"type": "object", "properties": {"password": {
           "type": "string", "description": "The password is case-sensitive and at least 8 characters long"}}}}]}}),
    j({"jsonrpc": "2.0", "id": 6, "result": {"content": [{"type": "text",
       "text": "Session ID is a UUID; the token is in the header; see token.json"}]}}),
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_stay_byte_identical(text):
    assert red(text) == text


@st.composite
def invalid_cards(draw) -> str:
    digits = draw(card_digits())
    bump = draw(st.integers(1, 9))
    return digits[:-1] + str((int(digits[-1]) + bump) % 10)


@st.composite
def wrong_ibans(draw) -> str:
    iban = draw(ibans()).replace(" ", "")
    i = draw(st.integers(4, len(iban) - 1).filter(lambda k: iban[k].isdigit()))
    wrong = iban[:i] + str((int(iban[i]) + draw(st.integers(1, 9))) % 10) + iban[i + 1:]
    return " ".join(wrong[k:k + 4] for k in range(0, len(wrong), 4)) if draw(st.booleans()) else wrong


@PROFILE
@given(invalid_cards(), wrong_ibans(), st.integers(10**12, 2 * 10**12 - 1), st.integers(10**18, 2 * 10**18 - 1),
       st.uuids(), st.sampled_from(sorted(PROSE_STOP)))
def test_generated_look_alikes_are_kept(card, iban, epoch_ms, snowflake, rid, stop):
    docs = [
        f"order {card} shipped", j({"note": card}), f"to {iban} today", j({"ref": iban}),
        f"at {epoch_ms} ms", j({"t": str(epoch_ms), "n": str(snowflake)}), f"user {snowflake} joined",
        f"request {rid} done", j({"jsonrpc": "2.0", "id": str(rid), "result": {"text": f"trace {rid}"}}),
        f"the password is {stop}", f"The token is {stop}",
    ]
    for doc in docs:
        assert red(doc) == doc, doc


@PROFILE
@given(card_digits(), st.sampled_from(["id", "orderId", "user_id", "ts", "timestamp", "createdTime", "count",
                                       "size", "nonce", "seq", "offsetMs"]))
def test_luhn_valid_numbers_under_id_keys_are_kept(digits, key):
    doc = j({"jsonrpc": "2.0", "id": 1, "result": {key: digits, "note": f"{key} {digits}"}})
    assert red(doc) == doc


# -- the prefilter sees every new kind -----------------------------------------------------------------
class _NoPrefilter(Redactor):
    def __init__(self, options):
        super().__init__(options)
        self.prefilter = lambda data, string=True: True


@PROFILE
@given(st.sampled_from(sorted(KINDS)).flatmap(lambda name: KINDS[name][0]))
def test_prefilter_and_block_scan_see_the_new_kinds(planted):
    text, _ = planted
    lines = [line for doc in places(text) for line in doc.split("\n")]
    fast, full = Redactor(RedactOptions(key=KEY)), _NoPrefilter(RedactOptions(key=KEY))
    for line in lines:
        assert fast.redact_line(line) == full.redact_line(line), line[:200]
    raw = [line.encode() for line in lines]
    starts = [0]
    for line in raw:
        starts.append(starts[-1] + len(line) + 1)
    picked = Redactor(RedactOptions(key=KEY)).candidate_lines(b"\n".join(raw) + b"\n", starts)
    for i, line in enumerate(lines):
        if len(raw[i]) <= 8192 and full.redact_line(line) != line:
            assert i in picked, line[:200]


# -- linear time on adversarial runs ---------------------------------------------------------------------
def _seconds(text: str) -> float:
    redactor = Redactor(RedactOptions(key=KEY))
    start = time.perf_counter()
    redactor.redact_line(text)
    return time.perf_counter() - start


@pytest.mark.parametrize("piece", ["eyJ", "eyJ-", "x-eyJ-", "-eyJ", "eyJ.", "eyJ_a.", "1//0", "4111 ", "DE89 ",
                                   "123-45-", "session ", "password is "])
def test_adversarial_runs_take_linear_time(piece):
    """1 MB takes about 4 times as long as 256 KB (a quadratic scan: 16 times); the best of three
    interleaved runs each, so that a busy machine does not decide."""
    small, large = ((piece * (n // len(piece) + 1))[:n] for n in (256 * 1024, 1024 * 1024))
    t_small = t_large = float("inf")
    for _ in range(3):
        t_small = min(t_small, _seconds(small))
        t_large = min(t_large, _seconds(large))
    assert t_large < max(8.0 * t_small, 0.25), (piece, t_small, t_large)


def test_session_sentences_keep_their_punctuation():
    sid = str(uuid.UUID(int=11, version=4))
    assert red(f"The session ID is {sid}.").endswith("].")
    assert red(f"The session ID was {sid}, then closed").endswith("], then closed")
    assert sid not in red(f"The session ID is {sid}.")
    assert red("the password is 1 character too short") == "the password is 1 character too short"


def test_a_percent_encoded_token_is_redacted_whole_with_the_tag_of_its_plain_copy():
    """``%2F``, ``%2B``, ``%3D`` inside a token in a query string do not cut it short."""
    token = "gh" + "p_" + "A1b2/C3d4+E5f6=G7h8/I9j0+K1l2=M3n4"
    doc = j({"plain": token, "url": "https://api.example.com/v1?t=" + urllib.parse.quote(token, safe="") + "&page=2"})
    out = json.loads(red(doc))
    assert leaked(token, red(doc)) is None
    assert out["url"] == "https://api.example.com/v1?t=" + out["plain"] + "&page=2"

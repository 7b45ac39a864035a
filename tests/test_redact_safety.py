"""Safety of the redaction engine: no pattern backtracks catastrophically, adversarial lines finish
in bounded time, and the prefilter never changes a result (it may only skip work)."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplint.redact import RedactOptions, Redactor
from mcplint.redact._rx import REGISTRY
from mcplint.redact.providers import RULES
from tests.redact_helpers import carriers, j

SIZE = 100_000
PATTERN_BUDGET = 1.0  # seconds for one pattern over one 100 KB input (generous: shared CI machines)
LINE_BUDGET = 3.0


def _adversarial() -> dict[str, str]:
    pieces = {
        "a": "a", "space": " ", "equals": "=", "key=": "key=", "scheme": "://", "jwt-dots": "eyJ.", "jwt": "eyJ",
        "pem": "-----BEGIN ", "query": "?a=", "json-token-key": '"token":', "backslash": "\\", "quote": '"',
        "brace": "{", "bracket": "[", "at": "a@", "dotted": "1.", "zeros": "0", "dashes": "1-", "plus": "+1",
        "colons": "::", "home": "/Users/", "percent": "%41", "u-escape": "\\u0041", "bearer": "Bearer ",
        "gh": "ghp_", "sk": "sk-", "token-word": "token ", "password-assign": "password=", "flag": "--token ",
        "email-ish": "a.b@c.", "card-ish": "4111 ", "ipv6-ish": "a:b:", "data-uri": "data:image/png;base64,",
        "cookie": "Cookie: a=1; ", "url-user": "https://u:p@", "base64": "QUJD", "hex": "deadbeef",
    }
    out = {name: (piece * (SIZE // len(piece) + 1))[:SIZE] for name, piece in pieces.items()}
    out["long-word-then-bang"] = "x" * (SIZE - 1) + "!"
    out["unterminated-string"] = '{"token":"' + "a" * SIZE
    out["escaped-quotes"] = '\\"' * (SIZE // 2)
    out["random"] = "".join(random.Random(1).choice("aA0:=/-_.@% \"'\\{}[]") for _ in range(SIZE))
    return out


ADVERSARIAL = _adversarial()


@pytest.mark.parametrize("name,pattern", REGISTRY, ids=[name for name, _ in REGISTRY])
def test_every_pattern_is_linear_on_adversarial_inputs(name, pattern):
    for label, text in ADVERSARIAL.items():
        start = time.perf_counter()
        for _ in pattern.finditer(text):
            pass
        elapsed = time.perf_counter() - start
        assert elapsed < PATTERN_BUDGET, f"{name} took {elapsed:.2f}s on {label!r}"


def test_registry_holds_every_built_in_pattern():
    names = {name for name, _ in REGISTRY}
    assert len(REGISTRY) > 100
    assert {"email", "phone", "card", "ipv4", "url", "json-string", "base64-run", "assign-sep"} <= names
    assert all(f"provider:{rule.kind}" in names for rule in RULES)


@pytest.mark.parametrize("label", sorted(ADVERSARIAL))
def test_adversarial_lines_finish_in_bounded_time(label):
    redactor = Redactor(RedactOptions(key=b"k"))
    text = ADVERSARIAL[label]
    for line in (text, j({"jsonrpc": "2.0", "id": 1, "result": {"text": text}})):
        start = time.perf_counter()
        out = redactor.redact_line(line)
        elapsed = time.perf_counter() - start
        assert elapsed < LINE_BUDGET, f"{label}: {elapsed:.2f}s"
        assert "\n" not in out


def test_deep_nesting_and_huge_lines_do_not_crash():
    redactor = Redactor(RedactOptions(key=b"k"))
    deep = "[" * 100_000
    assert redactor.redact_line(deep) == deep
    deep_obj = '{"a":' * 5000 + '"x"' + "}" * 5000
    assert redactor.redact_line(deep_obj) == deep_obj
    secret = "gh" + "p_" + "a" * 36
    big = j({"jsonrpc": "2.0", "id": 1, "result": {"text": "x " * 2_000_000 + secret}})
    start = time.perf_counter()
    out = redactor.redact_line(big)
    assert time.perf_counter() - start < 10 and secret not in out


class _NoPrefilter(Redactor):
    """The same engine with the prefilter switched off: every line takes the full path."""

    def __init__(self, options):
        super().__init__(options)
        self.prefilter = lambda data, string=True: True


FRAGMENTS = [
    "progressToken", "maxTokens", "token_endpoint", "keyboard", "author", "path", "passed", "publicKey",
    "password", "apiKey", "GITHUB_TOKEN", "x-api-key", "Authorization", "Bearer ", "Basic ", "Cookie",
    "session_id", "client_secret", "code", "state", "pin", "card", "visa", "=", ": ", '"', "'", ",", " ", "\n",
    "\\n", '\\"', "{", "}", "[", "]", "://", "https://", "user:", "@", "example.com", "corp.io", "/Users/",
    "/home/", "C:\\Users\\", "%40", "%2F", "\\u0067", "+1 415 555 0100", "(555) 123-4567", "4111 1111 1111 1111",
    "93.184.216.34", "10.0.0.1", "2001:4860:4860::8888", "::1", "data:image/png;base64,", "QUJDREVGR0hJSktMTU5PUFFS",
    "eyJhbGciOiJIUzI1NiJ9", ".", "-", "_", "--token", "export ", "SK", "AKIA", "key-", "Q~", ":AA", "12345678",
    "4111111111111111", "1735689600000", "id ", "DE89 3704 0044 0532 0130 00", "DE89370400440532013000",
    "123-45-6789", "SSN ", "the password is ", " is ", "api key: ", "session ", "Session ID: ",
    "3f2c8a1e-1b2c-4d5e-8f90-123456789abc", "1//0", "abc123xyz",
]


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS) | st.text(alphabet="abcXYZ019_-.", max_size=12), max_size=25),
       st.sampled_from([r for r in RULES if r.kind != "private-key"]), st.booleans(), st.integers(0, 2**32))
def test_prefilter_never_changes_a_result(parts, rule, plant, seed):
    rnd = random.Random(seed)
    if plant:
        parts.insert(rnd.randint(0, len(parts)), rule.sample(rnd))
    text = "".join(parts)
    fast = Redactor(RedactOptions(key=b"k"))
    full = _NoPrefilter(RedactOptions(key=b"k"))
    for line in [text.replace("\n", " "), j({"jsonrpc": "2.0", "id": 1, "params": {"v": text}}),
                 j({"jsonrpc": "2.0", "id": 1, "params": {text[:40]: "value-" + text[-20:]}})]:
        assert fast.redact_line(line) == full.redact_line(line), line


def test_prefilter_never_changes_a_result_on_carriers():
    rnd = random.Random(5)
    for rule in RULES:
        secret = rule.sample(rnd)
        for doc in carriers(secret, rnd):
            for line in doc.split("\n"):
                fast = Redactor(RedactOptions(key=b"k"))
                full = _NoPrefilter(RedactOptions(key=b"k"))
                assert fast.redact_line(line) == full.redact_line(line), (rule.kind, line)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from(FRAGMENTS) | st.text(alphabet="abcXYZ019_-.@%+:", max_size=12), max_size=12),
                min_size=1, max_size=30),
       st.sampled_from([r for r in RULES if r.kind != "private-key"]), st.integers(0, 2**32),
       st.sampled_from([b"\n", b"\r\n"]))
def test_the_block_scan_finds_what_the_line_prefilter_finds(lines, rule, seed, ending):
    """``mcplint redact`` scans blocks of lines at once: the lines it picks must be exactly those
    in which the prefilter of one line finds something (a line it missed would not be redacted)."""
    rnd = random.Random(seed)
    raw = ["".join(parts).replace("\n", " ").encode() for parts in lines]
    for _ in range(rnd.randint(0, 3)):
        i = rnd.randrange(len(raw))
        raw[i] += rule.sample(rnd).replace("\n", " ").encode()
    block = b"".join(line + ending for line in raw)
    starts = [0]
    for line in raw:
        starts.append(starts[-1] + len(line) + len(ending))
    redactor = Redactor(RedactOptions(key=b"k"))
    expected = {i for i, line in enumerate(raw) if redactor.prefilter(line, string=False)}
    assert redactor.candidate_lines(block, starts) == expected
    limit = 40  # lines longer than the limit are left out
    short = {i for i in expected if len(raw[i]) + len(ending) <= limit + 1}
    assert redactor.prefilter.lines(block, starts, limit) == short


def test_the_block_scan_judges_each_line_on_its_own():
    lines = [b"order 4111111111111112 shipped", b"pay by card", b"x@", b"@y", b"pin", b"tokens", b"xghp_"]
    block = b"\n".join(lines) + b"\n"
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    redactor = Redactor(RedactOptions(key=b"k"))
    assert [redactor.prefilter(line, string=False) for line in lines] == [False, True, False, False, True, False, False]
    assert redactor.candidate_lines(block, starts) == {1, 4}


@pytest.mark.parametrize("rule", [r for r in RULES if r.prefixes and r.kind != "private-key"], ids=lambda r: r.kind)
def test_prefilter_sees_a_token_after_an_escape_and_odd_emails(rule):
    """A token right after ``\\n`` starts a line once decoded; an email may end its name with ``_``."""
    secret = rule.sample(random.Random(3))
    for line in ["logs\\n" + secret + " end", j({"text": "x\\t" + secret}), "write to jane_@acme-corp.io",
                 j({"jsonrpc": "2.0", "id": 1, "params": {"cc": "ops.@acme-corp.io"}})]:
        fast = Redactor(RedactOptions(key=b"k"))
        full = _NoPrefilter(RedactOptions(key=b"k"))
        assert fast.redact_line(line) == full.redact_line(line), line

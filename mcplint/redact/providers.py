"""Provider tokens recognised by prefix and shape (high confidence, kind per provider).

How a rule runs: one alternation of literal prefixes finds candidate positions; at each one
(not preceded by a letter or digit) the rules of that prefix are tried with ``match`` in a
bounded window; the first that confirms wins and its span is **extended over the token run**
``[A-Za-z0-9_.~+/=-]*`` so that longer or newer formats (GitHub's 520-character ``ghs_`` JWTs)
never leave a tail. Bodies have short minimum lengths so that truncated tokens in logs are
still caught; precision comes from the prefix. Rules without a usable prefix (``Q~`` Azure
secrets, Telegram bot tokens) are "scan" rules: a literal must occur, then the regex scans.

JWTs are the one family whose first part has no useful bound: a header carrying an ``x5c``
certificate chain is kilobytes long. Their rule starts where a token run starts, or after
``-``/``_`` with a header that stops at the next ``-eyJ``/``_eyJ``; :func:`find` skips the
``eyJ`` positions inside a run it has already judged from its start. Each character is read a
bounded number of times, so 1 MB of ``eyJeyJ...`` or ``x-eyJ-eyJ...`` stays linear.

Every rule carries a ``sample`` generator for the tests: tokens are built at run time from a
prefix and a random body, so the repository never holds a contiguous token literal.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

import ahocorasick_rs

from mcplint.redact._rx import rx, trie_pattern
from mcplint.redact.spans import PROVIDER, Span

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
#: Characters a token run is extended over (never ``[ ] : " ' \\`` or whitespace), and the
#: percent-escapes of its own characters (``%2F``, ``%2B``, ``%3D``, ``%7E``: a token in a query string).
EXTEND = rx("token-run", r"(?:[A-Za-z0-9_.~+/=-]|%(?:2[BbFf]|3[Dd]|7[Ee]))*+")
_URLSAFE_RUN = rx("urlsafe-run", r"[A-Za-z0-9_-]*+")


def body(r: random.Random, alphabet: str, n: int) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


@dataclass(frozen=True)
class TokenRule:
    kind: str
    prefixes: tuple[str, ...]
    pattern: str
    sample: Callable[[random.Random], str]
    extend: bool = True
    quick: str | None = None  # scan rules: a literal that must occur in the text
    finish: Callable[[str, int], int] | None = None  # computes the end (PEM blocks)
    window: int | None = 4096  # characters a match may span (None: the rule's pattern bounds itself)

    @property
    def scan(self) -> bool:
        return not self.prefixes


def _simple(kind: str, prefixes: str | tuple[str, ...], body_re: str, alphabet: str, n: int,
            extend: bool = True, middle: str = "") -> TokenRule:
    """A prefix + body rule; the sample is the first prefix, ``middle`` and a random body."""
    if isinstance(prefixes, str):
        prefixes = (prefixes,)
    head = "(?:" + "|".join(re.escape(p) for p in prefixes) + ")"
    first = prefixes[0]
    return TokenRule(kind, prefixes, head + body_re, lambda r: first + middle + body(r, alphabet, n), extend)


def _pem_end(text: str, start: int) -> int:
    """A private key block runs to its END line, or to the end of the text when cut."""
    end = text.find("-----END", start)
    if end < 0:
        return len(text)
    close = text.find("-----", end + 8)
    return len(text) if close < 0 else close + 5


def _pem_sample(r: random.Random) -> str:
    lines = "\n".join(body(r, B64, 64) for _ in range(4))
    return "-----BEGIN " + "RSA PRIVATE KEY-----\n" + lines + "\n-----END RSA PRIVATE KEY-----"


def _jwt_sample(r: random.Random) -> str:
    return ("ey" + "J" + body(r, URLSAFE, 30) + ".ey" + "J" + body(r, URLSAFE, 60) + "."
            + body(r, URLSAFE, 43))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt_x5c_sample(r: random.Random, certs: int = 3) -> str:
    """A JWS whose header carries an ``x5c`` chain (base64 DER certificates): kilobytes of header."""
    chain = [base64.b64encode(r.randbytes(r.randint(700, 1400))).decode() for _ in range(certs)]
    header = json.dumps({"alg": "RS256", "typ": "JWT", "x5c": chain}, separators=(",", ":")).encode()
    payload = json.dumps({"sub": body(r, ALNUM, 12), "iat": r.randint(10**9, 2 * 10**9)}).encode()
    return b64url(header) + "." + b64url(payload) + "." + b64url(r.randbytes(256))


RULES: tuple[TokenRule, ...] = (
    # source forges
    _simple("github-pat", "ghp_", r"[A-Za-z0-9_]{4,}", ALNUM, 36),
    _simple("github-oauth-token", "gho_", r"[A-Za-z0-9_]{4,}", ALNUM, 36),
    _simple("github-user-token", "ghu_", r"[A-Za-z0-9_]{4,}", ALNUM, 36),
    TokenRule("github-app-token", ("ghs_",), r"ghs_[A-Za-z0-9_]{4,}",
              lambda r: "gh" + f"s_{r.randint(1, 10**7)}_ey" + "J" + body(r, URLSAFE, 60) + ".eyJ"
              + body(r, URLSAFE, 80) + "." + body(r, URLSAFE, 60)),
    _simple("github-refresh-token", "ghr_", r"[A-Za-z0-9_]{4,}", ALNUM, 76),
    _simple("github-fine-grained-pat", "github_pat_", r"[A-Za-z0-9_]{8,}", ALNUM + "_", 82),
    _simple("gitlab-token", ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glimt-", "glft-", "glsoat-",
                             "gloas-", "glagent-"), r"[A-Za-z0-9_.-]{8,}", URLSAFE, 20),
    _simple("gitlab-runner-token", "GR1348941", r"[A-Za-z0-9_-]{8,}", URLSAFE, 20),
    _simple("bitbucket-app-password", "ATBB", r"[A-Za-z0-9_=.-]{16,}", ALNUM, 32),
    _simple("atlassian-token", "ATATT3", r"[A-Za-z0-9_=.-]{16,}", URLSAFE + "=", 180),
    # chat
    TokenRule("slack-token", ("xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxe-", "xoxr-", "xoxd-", "xoxe."),
              r"xox[abposerd](?:\.xox[a-z])?-[A-Za-z0-9%-]{8,}",
              lambda r: "xo" + "xb-" + body(r, string.digits, 12) + "-" + body(r, string.digits, 12) + "-"
              + body(r, ALNUM, 24)),
    _simple("slack-app-token", "xapp-", r"\d-[A-Za-z0-9-]{8,}", ALNUM, 40, middle="1-"),
    _simple("slack-webhook", "hooks.slack.com/", r"(?:services|workflows|triggers)/[A-Za-z0-9/_+-]{12,}",
            ALNUM, 24, middle="services/T0123ABCD/B0456EFGH/"),
    TokenRule("discord-webhook", ("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"),
              r"discord(?:app)?\.com/api/webhooks/\d{5,30}/[A-Za-z0-9_-]{16,}",
              lambda r: "discord.com/api/" + "webhooks/" + body(r, string.digits, 18) + "/" + body(r, URLSAFE, 68)),
    TokenRule("telegram-bot-token", (), r"(?<![0-9])\d{6,12}:AA[A-Za-z0-9_-]{30,}",
              lambda r: body(r, string.digits, 10) + ":A" + "A" + body(r, URLSAFE, 33), quick=":AA"),
    # payments
    _simple("stripe-secret-key", ("sk_live_", "sk_test_", "sk_prod_"), r"[A-Za-z0-9]{8,}", ALNUM, 24),
    _simple("stripe-restricted-key", ("rk_live_", "rk_test_", "rk_prod_"), r"[A-Za-z0-9]{8,}", ALNUM, 24),
    _simple("stripe-webhook-secret", "whsec_", r"[A-Za-z0-9+/=]{16,}", ALNUM, 32),
    _simple("square-token", ("sq0atp-", "sq0csp-"), r"[A-Za-z0-9_-]{16,}", URLSAFE, 22),
    _simple("shippo-token", ("shippo_live_", "shippo_test_"), r"[a-f0-9]{16,}", HEX, 40),
    # clouds
    TokenRule("aws-access-key-id", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
              r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}(?![A-Za-z0-9])",
              lambda r: "AK" + "IA" + body(r, string.ascii_uppercase + "234567", 16), extend=False),
    _simple("aws-bedrock-key", "ABSK", r"[A-Za-z0-9+/]{40,}={0,2}", B64, 120),
    _simple("google-api-key", "AIza", r"[A-Za-z0-9_-]{20,}", URLSAFE, 35),
    _simple("google-oauth-token", "ya29.", r"[A-Za-z0-9_-]{10,}", URLSAFE, 120),
    _simple("google-oauth-client-secret", "GOCSPX-", r"[A-Za-z0-9_-]{10,}", URLSAFE, 28),
    # OAuth refresh tokens (gcloud credentials, token responses) start with "1//0"; other digits
    # after "1//" need a longer body ("1//" alone is a shell substitution, ${1//x/y}). A scan
    # rule: a digit as the first character of a prefix would make every digit a trigger.
    TokenRule("google-refresh-token", (), r"(?<![A-Za-z0-9])1//(?:0[A-Za-z0-9_-]{20,}|[1-9][A-Za-z0-9_-]{30,})",
              lambda r: "1//" + "0" + body(r, URLSAFE, 100), quick="1//"),
    TokenRule("azure-client-secret", (), r"(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",
              lambda r: body(r, ALNUM, 3) + "8Q" + "~" + body(r, ALNUM + "_~.-", 34), quick="Q~"),
    _simple("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"), r"[a-f0-9]{16,}", HEX, 64),
    _simple("heroku-key", "HRKU-", r"[A-Za-z0-9_-]{16,}", URLSAFE, 60),
    _simple("flyio-token", ("fo1_", "fm1r_", "fm2_"), r"[A-Za-z0-9_+/=-]{16,}", URLSAFE, 43),
    _simple("vercel-token", ("vcp_", "vck_", "vci_"), r"[A-Za-z0-9]{16,}", ALNUM, 56),
    _simple("supabase-token", ("sbp_", "sb_secret_"), r"[A-Za-z0-9_-]{16,}", HEX, 40),
    _simple("neon-key", "napi_", r"[a-z0-9]{16,}", LOWER_ALNUM, 64),
    _simple("planetscale-token", ("pscale_tkn_", "pscale_pw_", "pscale_oauth_"), r"[A-Za-z0-9_=.-]{16,}",
            ALNUM, 43),
    _simple("databricks-token", "dapi", r"[0-9a-f]{32}(?:-\d)?(?![A-Za-z0-9])", HEX, 32, extend=False),
    _simple("tailscale-key", "tskey-", r"[A-Za-z0-9-]{16,}", ALNUM, 40),
    _simple("vault-token", ("hvs.", "hvb.", "hvr."), r"[A-Za-z0-9_-]{16,}", URLSAFE, 90),
    _simple("doppler-token", ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
            r"[A-Za-z0-9]{16,}", ALNUM, 43),
    _simple("pulumi-token", "pul-", r"[a-f0-9]{16,}", HEX, 40),
    TokenRule(
        "terraform-cloud-token", (), r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{30,}",
        lambda r: body(r, ALNUM, 14) + ".atlas" + "v1." + body(r, URLSAFE, 67), quick=".atlasv1."),
    _simple("onepassword-token", "ops_eyJ", r"[A-Za-z0-9+/=_-]{16,}", B64, 250),
    _simple("age-secret-key", "AGE-SECRET-KEY-1", r"[02-9AC-HJ-NP-Z]{20,}", "023456789ACDEFGHJKLMNPQRSTUVWXYZ", 58),
    # AI vendors
    _simple("anthropic-api-key", "sk-ant-api", r"\d{2}-[A-Za-z0-9_-]{8,}", URLSAFE, 93, middle="03-"),
    _simple("anthropic-admin-key", "sk-ant-admin", r"\d{2}-[A-Za-z0-9_-]{8,}", URLSAFE, 93, middle="01-"),
    _simple("anthropic-oauth-token", ("sk-ant-oat", "sk-ant-ort"), r"\d{2}-[A-Za-z0-9_-]{8,}", URLSAFE, 80,
            middle="01-"),
    _simple("anthropic-key", "sk-ant-", r"[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{8,}", URLSAFE, 60, middle="sid01-"),
    _simple("openrouter-key", "sk-or-v1-", r"[0-9a-f]{16,}", HEX, 64),
    _simple("openai-key", ("sk-proj-", "sk-svcacct-", "sk-admin-"), r"[A-Za-z0-9_-]{16,}", URLSAFE, 156),
    TokenRule("openai-key", ("sk-",), r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}",
              lambda r: "sk-" + body(r, ALNUM, 20) + "T3Blbk" + "FJ" + body(r, ALNUM, 20)),
    _simple("sk-api-key", "sk-", r"[A-Za-z0-9]{32,}", ALNUM, 48),
    _simple("groq-key", "gsk_", r"[A-Za-z0-9]{16,}", ALNUM, 52),
    _simple("xai-key", "xai-", r"[A-Za-z0-9_-]{20,}", ALNUM, 80),
    _simple("perplexity-key", "pplx-", r"[A-Za-z0-9]{16,}", ALNUM, 48),
    _simple("huggingface-token", "hf_", r"[A-Za-z0-9]{16,}", ALNUM, 34),
    _simple("huggingface-org-token", "api_org_", r"[A-Za-z0-9]{16,}", ALNUM, 34),
    _simple("replicate-token", "r8_", r"[A-Za-z0-9]{16,}", ALNUM, 37),
    _simple("together-key", "tgp_v1_", r"[A-Za-z0-9_-]{16,}", URLSAFE, 43),
    _simple("cerebras-key", "csk-", r"[a-z0-9]{16,}", LOWER_ALNUM, 48),
    _simple("nvidia-key", "nvapi-", r"[A-Za-z0-9_-]{16,}", URLSAFE, 64),
    _simple("langsmith-key", ("lsv2_pt_", "lsv2_sk_"), r"[a-f0-9]{16,}", HEX, 32),
    _simple("tavily-key", "tvly-", r"[A-Za-z0-9_-]{16,}", ALNUM, 32),
    # package registries, developer SaaS
    _simple("npm-token", "npm_", r"[A-Za-z0-9]{16,}", ALNUM, 36),
    _simple("pypi-token", "pypi-AgEIcHlwaS5vcmc", r"[A-Za-z0-9_-]{8,}", URLSAFE, 150),
    _simple("rubygems-key", "rubygems_", r"[a-f0-9]{16,}", HEX, 48),
    _simple("dockerhub-pat", "dckr_pat_", r"[A-Za-z0-9_-]{16,}", URLSAFE, 27),
    _simple("linear-key", "lin_api_", r"[A-Za-z0-9]{16,}", ALNUM, 40),
    _simple("notion-token", "ntn_", r"[A-Za-z0-9]{16,}", ALNUM, 46),
    _simple("postman-key", "PMAK-", r"[A-Za-z0-9-]{16,}", ALNUM, 59),
    _simple("sentry-token", ("sntrys_", "sntryu_"), r"[A-Za-z0-9_=+/-]{16,}", B64, 64),
    _simple("grafana-token", ("glsa_", "glc_"), r"[A-Za-z0-9_=+/-]{16,}", ALNUM, 40),
    _simple("figma-token", "figd_", r"[A-Za-z0-9_-]{16,}", URLSAFE, 40),
    _simple("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"), r"[a-fA-F0-9]{16,}", HEX, 32),
    _simple("circleci-token", "CCIPAT_", r"[A-Za-z0-9_]{16,}", ALNUM, 40),
    _simple("buildkite-token", "bkua_", r"[a-f0-9]{16,}", HEX, 40),
    _simple("newrelic-key", ("NRAK-", "NRII-"), r"[A-Z0-9]{16,}", UPPER_ALNUM, 27),
    _simple("dynatrace-token", "dt0c01.", r"[A-Za-z0-9.]{16,}", UPPER_ALNUM, 90),
    _simple("contentful-token", "CFPAT-", r"[A-Za-z0-9_-]{16,}", URLSAFE, 43),
    _simple("mapbox-secret-token", "sk.eyJ", r"[A-Za-z0-9_.-]{16,}", URLSAFE, 80),
    TokenRule(
        "sendgrid-key", ("SG.",), r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,50}",
        lambda r: "SG." + body(r, URLSAFE, 22) + "." + body(r, URLSAFE, 43)),
    TokenRule("twilio-api-key", (), r"(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])",
              lambda r: "S" + "K" + body(r, HEX, 32), extend=False, quick="SK"),
    TokenRule("mailgun-key", (), r"(?<![A-Za-z0-9])key-[0-9a-f]{32}(?![A-Za-z0-9])",
              lambda r: "ke" + "y-" + body(r, HEX, 32), extend=False, quick="key-"),
    # generic shapes with a fixed signature
    TokenRule("jwt", ("eyJ",), r"(?:(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}+"
                               r"|(?<=[_-])eyJ(?:[A-Za-z0-9]|[_-](?!eyJ)){8,}+)\.(?:eyJ)?[A-Za-z0-9_-]{2,}",
              _jwt_sample, window=None),
    TokenRule("private-key", ("-----BEGIN ",), r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
              _pem_sample, extend=False, finish=_pem_end),
    TokenRule("private-key", ("PuTTY-User-Key-File-",), r"PuTTY-User-Key-File-\d: ",
              lambda r: "PuTTY-User-Key-File-" + "3: ssh-rsa\nEncryption: none\nPublic-Lines: 1\n" + body(r, B64, 64)
              + "\nPrivate-Lines: 1\n" + body(r, B64, 64) + "\nPrivate-MAC: " + body(r, HEX, 64),
              extend=False, finish=lambda text, start: len(text)),
)

KINDS: frozenset[str] = frozenset(rule.kind for rule in RULES)

_PREFIXED = [(p, rule) for rule in RULES for p in rule.prefixes]
_PREFIXED.sort(key=lambda pr: -len(pr[0]))
TRIGGER = rx("provider-trigger", trie_pattern([p for p, _ in _PREFIXED], as_bytes=False))
#: Whether any prefix occurs at all (one pass in Rust; the regular expression tries every position)
_ANY_PREFIX = ahocorasick_rs.BytesAhoCorasick([p.encode() for p, _ in _PREFIXED])
_BY_HEAD: dict[str, list[tuple[str, TokenRule, re.Pattern[str]]]] = {}
for _prefix, _rule in _PREFIXED:
    _BY_HEAD.setdefault(_prefix[:2], []).append((_prefix, _rule, rx(f"provider:{_rule.kind}", _rule.pattern)))
_SCANS = [(rule, rx(f"provider:{rule.kind}", rule.pattern)) for rule in RULES if rule.scan]

def find(text: str) -> list[Span]:
    """Spans of provider tokens in ``text``."""
    spans: list[Span] = []
    done = 0
    judged = 0  # JWT: end of the last run judged from its start (no ``eyJ`` inside it can match)
    # (UTF-8 finds a text's substrings as they are; surrogatepass keeps a capture's undecodable bytes)
    for m in TRIGGER.finditer(text) if _ANY_PREFIX.find_matches_as_indexes(text.encode("utf-8", "surrogatepass")) \
            else ():
        p = m.start()
        if p < done or (p and text[p - 1].isalnum()):
            continue
        for prefix, rule, regex in _BY_HEAD[text[p:p + 2]]:
            if not text.startswith(prefix, p):
                continue
            if rule.window is None:
                if p < judged:
                    continue
                hit = regex.match(text, p)
                if hit is None:
                    if not p or text[p - 1] not in "-_":
                        judged = _URLSAFE_RUN.match(text, p).end()  # every later start fails the same way
                    continue
            else:
                hit = regex.match(text, p, p + rule.window)
            if hit is None:
                continue
            end = hit.end()
            if rule.finish is not None:
                end = rule.finish(text, end)
            elif rule.extend:
                end = EXTEND.match(text, end).end()
            secret = _decoded(text[p:end])
            if not _example(rule, secret):
                spans.append(Span(p, end, rule.kind, secret, PROVIDER))
            done = end
            break
    for rule, regex in _SCANS:
        if rule.quick in text:
            for hit in regex.finditer(text):
                end = EXTEND.match(text, hit.end()).end() if rule.extend else hit.end()
                spans.append(Span(hit.start(), end, rule.kind, _decoded(text[hit.start():end]), PROVIDER))
    return spans


def _decoded(token: str) -> str:
    """A token as tagged: percent-escapes decoded, so that a copy in a query string gets the tag
    of the plain copy."""
    return unquote(token) if "%" in token else token


def _example(rule: TokenRule, secret: str) -> bool:
    """Not a secret after all: documented examples (AWS ``...EXAMPLE`` keys), and ``eyJ...``
    values whose first part decodes to a JSON object that is not a JOSE header (opaque state
    handles and cursors such as ``base64({"step": 2}).tag``)."""
    if rule.kind == "aws-access-key-id":
        return secret.endswith("EXAMPLE")
    if rule.kind == "jwt":
        head = secret.split(".", 1)[0]
        try:
            header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
        except ValueError:
            return False  # cut or unusual: keep treating it as a token
        return isinstance(header, dict) and not ({"alg", "enc", "typ", "kid"} & set(header))
    return False

"""Might a message hold a secret? One cheap pass over its line, shared by HX011 and LG006.

:func:`signs` finds every trigger literal of the secret rules in the lowered line with one
Aho-Corasick pass and says, as bits, which kinds it found. A clean line costs that one scan; the
rules walk a message's JSON only when a bit they care about is set. The answer is not kept for
another rule: HX011 leaves log messages to LG006, so no record is scanned twice.
"""

from __future__ import annotations

import re

import ahocorasick_rs

#: Literals of the provider token shapes of the excerpt masker: a string without any of them holds
#: no such token and is not run through the (slow) token pattern.
TOKEN_PROBES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "k_live_", "k_test_",
                "AKIA", "AIza", "hf_", "npm_", "eyJ", "-----BEGIN")
AUTH_PROBES = ("earer", "asic", "EARER", "ASIC")
MAX_SCAN = 1 << 18  # characters of one line (and of one string) scanned for tokens at most

#: Bits of :func:`signs`
KEY = 1  # a member-name fragment of credentials (HX011's ``sensitive_key``)
TOKEN = 2  # "token" outside progressToken and maxTokens
PROBE = 4  # a token-shape literal, in any case (the exact-case test is :func:`has_token_probe`)
URL = 8  # "://"
SESSION_ID = 16  # "mcp-session-id" (a sensitive key to LG006)
CUT = 32  # the line is longer than the part scanned

#: Member-name fragments of credentials; a line with none of them and no token probe holds
#: nothing HX011 reports, so its JSON is not walked at all.
KEY_FRAGMENTS = (b"authoriz", b"cookie", b"apikey", b"api_key", b"api-key", b"passw", b"pwd", b"secret",
                 b"bearer", b"private", b"credential", b"access_key", b"accesskey")
HARMLESS_TOKENS = (b"progresstoken", b"maxtokens")
_PROBES = tuple(dict.fromkeys(probe.lower().encode() for probe in TOKEN_PROBES + AUTH_PROBES)) + (b"sk-",)
#: Every literal, with its bits and what it adds to the count of "token"s that are no harmless name
_EFFECTS = ([(fragment, KEY, 0) for fragment in KEY_FRAGMENTS] + [(b"token", 0, 1)]
            + [(harmless, 0, -1) for harmless in HARMLESS_TOKENS] + [(probe, PROBE, 0) for probe in _PROBES]
            + [(b"://", URL, 0), (b"mcp-session-id", SESSION_ID, 0)])
LITERALS = tuple(literal for literal, _, _ in _EFFECTS)
#: A leftmost-longest pass (SIMD-accelerated, a few GB/s: a line may carry KBs of tool output)
#: reports no occurrence that overlaps one it reported; each one it skips starts inside a reported
#: one (or at its start, shorter). Those wholly inside are there whenever the outer one is: their
#: effect is the outer literal's (``_SELF``); those that go on beyond its end are tested at each
#: reported occurrence (``_BEYOND``: offset, literal, bits).
_LEFTMOST = ahocorasick_rs.BytesAhoCorasick(LITERALS, matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_LONGEST)


def _effects(i: int, outer: bytes) -> tuple[int, tuple]:
    """The bits of literal ``i`` with the literals wholly inside it, and its ``_BEYOND``."""
    bits, count, beyond = _EFFECTS[i][1], _EFFECTS[i][2], []
    for offset in range(len(outer)):
        for literal, more, add in _EFFECTS:
            if outer[offset:].startswith(literal) and (offset or literal != outer):
                bits, count = bits | more, count + add
            elif offset and literal.startswith(outer[offset:]):
                assert add >= 0  # (no harmless name starts inside another literal)
                beyond.append((offset, literal, more | (TOKEN if add else 0)))
    # a harmless name holds its "token" (net 0), "token" is +1 and no other literal holds one:
    # the count is a sum of non-negative effects, so "count > 0" is "some effect says TOKEN"
    assert count >= 0
    return bits | (TOKEN if count else 0), tuple(beyond)


_SELF, _BEYOND = zip(*(_effects(i, literal) for i, literal in enumerate(LITERALS)))
_FIND = _LEFTMOST.find_matches_as_indexes


def head(data: bytes | str) -> bytes:
    """The scanned part of a line, as bytes."""
    return data[:MAX_SCAN] if isinstance(data, bytes) else data[:MAX_SCAN].encode("utf-8", "replace")


def signs(data: bytes | str) -> int:
    """The bits of the literals found in (the first ``MAX_SCAN`` characters of) a line, in any
    ASCII case; ``CUT`` when the line goes on beyond."""
    bits = 0
    if type(data) is not bytes or len(data) > MAX_SCAN:
        bits = CUT if len(data) > MAX_SCAN else 0
        data = head(data)
    lowered = data.lower()
    for index, start, _ in _FIND(lowered):
        bits |= _SELF[index]
        for offset, literal, more in _BEYOND[index]:
            if lowered.startswith(literal, start + offset):
                bits |= more
    return bits


def might_hold_secret(data: bytes | str) -> bool:
    """HX011's test of a line: a credential-like member name, a "token" that is no progressToken
    or maxTokens, or a token-shaped literal."""
    bits = signs(data)
    if bits & _NAMED:
        return True
    # a probe matched in lower case: the exact, case-sensitive test decides
    return bool(bits & _PROBED) and has_token_probe(head(data).decode("utf-8", "replace"))


_NAMED, _PROBED = KEY | TOKEN, PROBE | URL


#: What LG006's patterns may match beyond the literals of :func:`signs`: "@" (e-mail addresses,
#: URL passwords), JSON escapes that may spell any literal (``\u0040``, ``:\/\/``), and the
#: non-ASCII letters that Python's case-insensitive patterns equate with i and s and k (İ ı ſ K).
#: Searched on log lines only: in the shared scan a one-byte literal would double its cost.
_LOG_EXTRA = re.compile(rb"@|\\[u/]|\xc4[\xb0\xb1]|\xc5\xbf|\xe2\x84\xaa")


def might_hold_log_secret(data: bytes | str) -> bool:
    """LG006's test of a log line: any literal of ``logging.secrets_in``'s patterns and sensitive
    keys (those of :func:`signs` but "://", which needs an "@" there), or a line too long to scan."""
    return bool(signs(data) & ~URL) or _LOG_EXTRA.search(head(data)) is not None


def has_token_probe(text: str) -> bool:
    """Whether ``text`` may hold a token at all (cheap substring tests)."""
    text = text[:MAX_SCAN]
    return (any(probe in text for probe in TOKEN_PROBES) or has_sk(text)
            or any(probe in text for probe in AUTH_PROBES) or ("://" in text and "@" in text))


def has_sk(text: str) -> bool:
    """``sk-`` at the start of a word (OpenAI/Anthropic keys), not inside ``task-``."""
    at = text.find("sk-")
    while at >= 0:
        if at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_"):
            return True
        at = text.find("sk-", at + 3)
    return False

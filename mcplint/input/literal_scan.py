"""Which secret-scan literals a line holds: one Aho-Corasick pass, per line or per block of lines.

:func:`signs` finds every trigger literal of the secret rules (HX011, LG006) in the lowered line
and says, as bits, which kinds it found; :func:`block_signs` gives the same answer for many lines
from one pass over all of them, so a reader can tag each line as it reads and a clean line costs
the rules nothing. The module knows nothing of rules (readers import it).
"""

from __future__ import annotations

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
#: Literals joined where one begins inside another and goes on beyond it, looked for as literals of
#: their own: progressToken followed by "pm_" (a "npm_" from its last letter on). Nearly every line
#: of a session with progress holds a progressToken, whose match says nothing (its "token" is no
#: token) and so needs no test at all (``_BEYOND`` is empty) when "npm_" has a pattern of its own
#: there. (Blanking progressToken's head before the pass instead, a replace over every block,
#: cost 0.2 µs more per line of the small shape, 0.1 µs of the 2 KB and capture ones.)
_JOINED = (b"progresstokenpm_",)
_PATTERNS = LITERALS + _JOINED
#: A leftmost-longest pass (SIMD-accelerated, a few GB/s: a line may carry KBs of tool output)
#: reports no occurrence that overlaps one it reported; each one it skips starts inside a reported
#: one (or at its start, shorter). Those wholly inside are there whenever the outer one is: their
#: effect is the outer pattern's (``_SELF``); those that go on beyond its end are tested at each
#: reported occurrence (``_BEYOND``: offset, literal, bits), but where the outer pattern's head and
#: that literal are a longer pattern, which the pass would have reported instead.
_LEFTMOST = ahocorasick_rs.BytesAhoCorasick(_PATTERNS, matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_LONGEST)


def _effects(outer: bytes) -> tuple[int, tuple]:
    """The bits of pattern ``outer`` with the literals wholly inside it, and its ``_BEYOND``."""
    bits = count = 0
    beyond = []
    for offset in range(len(outer)):
        for literal, more, add in _EFFECTS:
            if outer[offset:].startswith(literal):
                bits, count = bits | more, count + add
            elif offset and literal.startswith(outer[offset:]) and outer[:offset] + literal not in _PATTERNS:
                assert add >= 0  # (no harmless name starts inside another literal)
                beyond.append((offset, literal, more | (TOKEN if add else 0)))
    # a harmless name holds its "token" (net 0), "token" is +1 and no other literal holds one:
    # the count is a sum of non-negative effects, so "count > 0" is "some effect says TOKEN"
    assert count >= 0
    return bits | (TOKEN if count else 0), tuple(beyond)


_SELF, _BEYOND = zip(*map(_effects, _PATTERNS))
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
        bits |= _match_bits(lowered, index, start)
    return bits


def _match_bits(lowered: bytes, index: int, start: int) -> int:
    """The bits of a match of literal ``index`` at ``start``: its own, and those of the literals
    that begin inside it and go on beyond its end (the pass reported none of them)."""
    bits = _SELF[index]
    for offset, literal, more in _BEYOND[index]:
        if lowered.startswith(literal, start + offset):
            bits |= more
    return bits


def block_signs(lines: list[bytes], joined: bytes | None = None) -> list[int | None]:
    """:func:`signs` of each line, from one pass over them all (``joined``: the lines joined by
    newlines, when the caller has them); None for a line longer than ``MAX_SCAN`` (its own call
    says ``CUT``). No literal holds a newline, so a match never spans two lines, and the
    leftmost-longest matches within a line are those of the line alone."""
    joined = (b"\n".join(lines) if joined is None else joined).lower()
    out: list[int | None] = [0] * len(lines)
    line, at = 0, 0  # the line of the match before, and where it started
    for index, start, _ in _FIND(joined):  # in order of start
        bits = _SELF[index]
        for offset, literal, more in _BEYOND[index]:  # (_match_bits, without a call per match)
            if joined.startswith(literal, start + offset):
                bits |= more
        if bits:  # (a harmless name such as progressToken has none: its line need not be known)
            line += joined.count(b"\n", at, start)
            at = start
            out[line] |= bits
    if len(joined) > MAX_SCAN and max(map(len, lines)) > MAX_SCAN:
        for i, text in enumerate(lines):
            if len(text) > MAX_SCAN:
                out[i] = None
    return out

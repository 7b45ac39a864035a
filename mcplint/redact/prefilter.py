"""The cheap test that lets most of a capture through untouched.

Before any JSON parsing or detector runs, a line (or a decoded string) is asked: could any rule
fire here? The answer must never be "no" when a detector would find something (tests plant
every kind of secret and check), and should be "no" for ordinary traffic. A regular expression
that tries many alternatives at every position is slow in Python, so the test is one
Aho-Corasick scan (``ahocorasick_rs``, in Rust) of the UTF-8 bytes folded to lower case with
every digit as ``0``, and a base64-run pass in C; each hit of the scan is then judged in
Python (few per line):

- sensitive words: what comes before ``token``/``key`` keeps ordinary names out
  (``progressToken``, ``publicKey``), a lookahead keeps ordinary vocabulary out (``maxTokens``,
  ``keyboard``, ``author``, ``passed``), and ``code``/``state``/``pin`` must be whole words;
- provider prefixes must start a token in their exact case (``ghp_``, ``AKIA``, ``PMAK-``); the
  letter of an escape (``\\n``) does not join a word to what comes before;
- ``@`` where an email could hold it, ``%`` and two hex digits, ``+`` and a phone number;
- escapes (``\\u`` and ``\\/`` in a raw line, any JSON escape in a decoded string);
- phone, card, SSN and IPv4 shapes (``000-000-0000``, ``0000 0000 0000``, ``000-00-0000``,
  ``0.00.0.0``) and ``::``; 13 digits in a row only when the run is a valid card number
  (issuer, length, Luhn: the detector's own test); an IBAN head (a country code in upper case
  and two digits, ``DE89``, starting a word, then four more characters of the number);
- base64 characters mapped to one letter to find runs of 20 or more, then only those runs are
  checked (plain lower-case words, paths and hex are not base64 worth decoding); tokens
  without a prefix (Twilio's ``SK`` and 32 hex digits) are such runs.

:meth:`Prefilter.lines` runs the same tests on a block of many lines with one scan.
"""

from __future__ import annotations

import functools
import operator
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence

import ahocorasick_rs

from mcplint.redact import personal, providers

#: Lower case, every digit ``0``: one byte for one byte, so offsets stay those of the input.
_FOLD = bytes.maketrans(bytes(range(65, 91)) + b"0123456789", bytes(range(97, 123)) + b"0" * 10)
_DIGIT_SHAPES = (b"000-000-0000", b"000.000.0000", b"(000)", b"0000 0000 0000", b"0000-0000-0000",
                 b"0000 000000 0000", b"0000-000000-0000", b"::")
#: A dotted quad holds one of these (the outer groups may be longer, the inner ones are 1-3 digits).
_QUADS = tuple(b"0." + b"0" * a + b"." + b"0" * b + b".0" for a in (1, 2, 3) for b in (1, 2, 3))
#: Escapes that make a raw line worth a look (JSON escaped inside a JSON string is ``\\"``: too common).
_LINE_ESCAPES = (b"\\u", b"\\/")
_STRING_ESCAPES = (b'\\"', b"\\\\", b"\\b", b"\\f", b"\\n", b"\\r", b"\\t")
_CARD_DIGITS = b"0000000000000"
#: SSN shapes (credentials: in the automaton with or without personal data).
_SSN_SHAPES = (b"000-00-0000", b"000 00 0000")
_IBAN_HEADS = tuple(country.lower().encode() + b"00" for country in personal.IBAN_LENGTHS)
_B64 = bytes((0x62 if (chr(c).isalnum() and c < 128) or c in b"+_" else 0x20) for c in range(256))
_B64_WINDOW = b"b" * 20  # 20 base64 characters in a row, once mapped by _B64
#: What may stand just before and just after the ``@`` of an email (see ``personal.EMAIL``).
_EMAIL_LOCAL = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_EMAIL_DOMAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")

PROVIDER, WHOLE, CONTEXT, PLAIN, EXTRA, CARD, EMAIL, PERCENT, PHONE, IBAN = range(10)
#: Whole words (lower case) that trigger: non-alphanumeric on both sides.
WHOLE_WORDS = ("code", "state", "nonce", "salt", "hmac", "pin", "cvv", "cvc", "ssn", "dsn", "accept", "basic",
               "negotiate", "dpop", "totp", "mfacode", "creds", "secrets", "pwd")
#: Words that trigger anywhere (inside compound names too) and longer literals.
PLAIN_WORDS = (
    "secret", "passw", "passphrase", "passcode", "cred", "cookie", "bearer", "sessionid", "session_id",
    "session-id", "sessiontoken", "session_token", "sessionkey", "session_key", "connstr", "connectionstring",
    "connection_string", "authorization", "assertion", "verifier", "card", "privatekey", "private_key",
    "private-key", "/users/", "/home/", "\\users\\", "data:", "-----begin", "putty-user-key-file-", "github_pat_",
    "hooks.slack.com/", "discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "sb_secret_", "api_org_",
    "age-secret-key-1", "lin_api_", "q~", ":aa", ".atlasv1.", "://", ":\\/\\/", "_pwd", "_pass", "_pat",
    'sig"', "sig\\", "sig=", "elicitation/create", "social security", "1//",
)
#: Words that must not be followed by these (``tokens``, ``keyboard``, ``author``, ``path``).
CONTEXT_WORDS = {
    b"token": rb"(?!s|iz|type|_type|endpoint|_endpoint|url|_url|count)",
    b"key": rb"(?!s|board|word|down|up|press|frame|code|stroke|id|_id|name|_name|note|chain)",
    b"auth": rb"(?!or)",
    b"signature": rb"(?!help)",
    b"pass": rb"(?![a-z])",
    b"pat": rb"(?![a-z])",
    b"otp": rb"(?![a-z])",
    # "session <uuid>", "session id: <token>" in prose (see ``credentials``); "session": "<uuid>"
    b"session": rb"(?:[ \t]{1,4}id)?(?:[ \t]{1,4}(?:is|was))?[ \t:=#\"\\]{1,8}[a-z0-9_.~+/=-]{16}",
}
#: Ordinary names that end with a word of ``CONTEXT_WORDS`` (``progressToken``, ``publicKey``).
BENIGN_WORDS = (
    "progresstoken", "nexttoken", "pagetoken", "nextpagetoken", "cursortoken", "publickey", "primarykey", "sortkey",
    "cachekey", "hotkey", "monkey", "turkey", "donkey", "whiskey", "jockey", "idempotencykey", "foreignkey",
    "partitionkey",
)


def _provider_prefixes() -> dict[bytes, tuple[bytes, ...]]:
    """Folded provider prefix -> the exact prefixes it stands for (``pmak-`` -> ``PMAK-``)."""
    out: dict[bytes, set[bytes]] = {}
    for prefix, _ in providers._PREFIXED:
        exact = prefix.strip().encode()
        out.setdefault(exact.translate(_FOLD), set()).add(exact)
    return {low: tuple(sorted(exact)) for low, exact in out.items()}


def _benign_heads() -> dict[bytes, tuple[bytes, ...]]:
    """Context word -> what before it makes an ordinary name (``token`` -> ``progress``...)."""
    out: dict[bytes, list[bytes]] = {word: [] for word in CONTEXT_WORDS}
    for name in BENIGN_WORDS:
        word = next(w for w in CONTEXT_WORDS if name.encode().endswith(w))
        out[word].append(name.encode()[:-len(word)])
    return {word: tuple(heads) for word, heads in out.items()}


@functools.lru_cache(maxsize=32)
def _build(extra: tuple[str, ...], personal: bool):
    """(line automaton, string automaton, kind, exact prefixes, (lookahead, benign heads)) for
    each pattern index."""
    kinds: dict[bytes, int] = {}
    exact = _provider_prefixes()
    for prefix in exact:
        kinds[prefix] = PROVIDER
    for word in WHOLE_WORDS:
        kinds[word.encode()] = WHOLE
    for word in PLAIN_WORDS:
        kinds[word.encode().translate(_FOLD)] = PLAIN
    kinds.update((word, CONTEXT) for word in CONTEXT_WORDS)
    kinds.update({b"@": EMAIL, b"%": PERCENT})
    kinds.update((escape, PLAIN) for escape in _LINE_ESCAPES)
    kinds.update((shape, PLAIN) for shape in _SSN_SHAPES)
    if personal:
        kinds.update((shape, PLAIN) for shape in _DIGIT_SHAPES + _QUADS)
        kinds[_CARD_DIGITS] = CARD
        kinds[b"+0"] = PHONE
        kinds.update((head, IBAN) for head in _IBAN_HEADS)
    for word in extra:
        if word:  # user triggers and known values: no context needed
            kinds[word.encode("utf-8", "surrogatepass").translate(_FOLD)] = EXTRA
    # the escapes only decoded strings look for come last: the line automaton stops before them
    words = sorted(kinds) + [escape for escape in _STRING_ESCAPES if escape not in kinds]
    kind = [kinds.get(w, PLAIN) for w in words]
    dfa = ahocorasick_rs.Implementation.DFA
    line = ahocorasick_rs.BytesAhoCorasick(words[:len(kinds)], implementation=dfa)
    string = ahocorasick_rs.BytesAhoCorasick(words, implementation=dfa)
    heads = _benign_heads()
    context = [(re.compile(CONTEXT_WORDS[w]), heads[w], _bounded(heads[w]), frozenset(heads[w])) if k == CONTEXT
               else None for w, k in zip(words, kind, strict=True)]
    return line, string, kind, [exact.get(w, ()) for w in words], context


class Prefilter:
    """``prefilter(data, string=...)``: may a rule fire in these UTF-8 bytes?"""

    def __init__(self, extra: Iterable[str] = (), personal: bool = True):
        self.line, self.string, self.kinds, self.exact, self.context = _build(tuple(extra), personal)
        self.personal = personal

    def __call__(self, data: bytes, string: bool = True) -> bool:
        folded = data.translate(_FOLD)
        hits = (self.string if string else self.line).find_matches_as_indexes(folded, overlapping=True)
        if hits and self._any_real(data, folded, hits):
            return True
        return _base64_run(data)

    def lines(self, block: bytes, starts: Sequence[int], limit: int) -> set[int]:
        """Indices of the lines of ``block`` (line ``i`` is ``block[starts[i]:starts[i + 1]]`` with
        its newline) for which ``self(line, string=False)`` may be true, lines longer than
        ``limit`` left out: the same tests, one scan for many lines."""
        out: set[int] = set()
        sizes = list(map(operator.sub, starts[1:], starts))
        if not sizes:
            return out
        if max(sizes) <= limit + 1:
            self._scan(block, starts, 0, len(sizes), out)
            return out
        first = 0
        for i in [i for i, size in enumerate(sizes) if size > limit + 1] + [len(sizes)]:
            if first < i:
                self._scan(block[starts[first]:starts[i]], starts, first, i, out)
            first = i + 1
        return out

    def _scan(self, data: bytes, starts: Sequence[int], first: int, end: int, out: set[int]) -> None:
        """Adds to ``out`` the lines ``first..end-1`` (``data`` holds them) that may hold something."""
        base = starts[first]

        def line(pos: int) -> int:
            return bisect_right(starts, base + pos, first, end) - 1

        folded = data.translate(_FOLD)
        # hits come in the order of their ends, so line by line (no pattern holds a newline)
        hits: list[tuple[int, int, int]] = []
        current, line_start, line_end = -1, -1, -1
        for hit in self.line.find_matches_as_indexes(folded, overlapping=True):
            if not line_start <= hit[1] < line_end:
                if hits and self._any_real(data, folded, hits, line_start, line_end):
                    out.add(current)
                current = line(hit[1])
                line_start, line_end = starts[current] - base, starts[current + 1] - base
                hits = []
            hits.append(hit)
        if hits and self._any_real(data, folded, hits, line_start, line_end):
            out.add(current)
        runs = data.translate(_B64)
        pos = runs.find(_B64_WINDOW)
        while pos >= 0:
            m = _RUN.match(data, pos)
            if not _BORING.fullmatch(m.group()):
                out.add(line(pos))
            pos = runs.find(_B64_WINDOW, m.end())

    def _any_real(self, data: bytes, folded: bytes, hits: list[tuple[int, int, int]], lo: int = 0,
                  hi: int | None = None) -> bool:
        """Whether one of ``hits`` (all in ``data[lo:hi]``, one line) is a real trigger."""
        kinds = self.kinds
        for index, start, end in hits:
            kind = kinds[index]
            if kind == PLAIN or kind == EXTRA:
                return True
            if kind == CONTEXT:
                after, heads, bounded, whole = self.context[index]
                # an ordinary name (``progressToken``) is the whole name: what stands before its
                # head is one of _BOUNDARIES, or nothing
                if after.match(folded, end) and not (folded.endswith(heads, lo, start) and (
                        folded.endswith(bounded, lo, start) or folded[lo:start] in whole)):
                    return True
            elif kind == PROVIDER:
                if _starts_word(folded, start) and data.startswith(self.exact[index], start):
                    return True
            elif kind == WHOLE:
                if _starts_word(folded, start) and not folded[end:end + 1].isalnum():
                    return True
            elif kind == EMAIL:
                if start and data[start - 1] in _EMAIL_LOCAL and data[end:end + 1] and data[end] in _EMAIL_DOMAIN:
                    return True
            elif kind == PERCENT:
                if _PERCENT.match(data, start):
                    return True
            elif kind == PHONE:
                if _E164.match(data, start):
                    return True
            elif kind == CARD:
                if _card_run(data, folded, start, len(data) if hi is None else hi):
                    return True
            elif kind == IBAN:
                if _starts_word(folded, start) and _IBAN_HEAD.match(data, start):
                    return True
        return False


def _starts_word(folded: bytes, start: int) -> bool:
    """No letter or digit just before ``start``, or one that ends an escape (``\\n``, ``\\t``):
    decoded, nothing joins the word to what comes before."""
    return not folded[start - 1:start].isalnum() or folded[start - 2:start - 1] == b"\\"


#: What may stand before an ordinary name such as ``progressToken``: a quote (a JSON key), a tab or
#: an escaped newline or tab. Not ``_``, ``-``, ``.`` or a space: ``keys`` reads ``my_progressToken``
#: and ``my progressToken`` as one name, a sensitive one.
_BOUNDARIES = (b'"', b"'", b"\t", b"\\n", b"\\t")


def _bounded(heads: tuple[bytes, ...]) -> tuple[bytes, ...]:
    return tuple(boundary + head for head in heads for boundary in _BOUNDARIES)


def _card_run(data: bytes, folded: bytes, start: int, hi: int) -> bool:
    """Whether the run of digits that starts at ``start`` (13 digits at least) is a card number;
    a hit inside a run is left to the hit at its start."""
    if start and folded[start - 1] == 0x30:
        return False
    end = start + 13
    while end < hi and end - start < 20 and folded[end] == 0x30:
        end += 1
    return personal.is_card_number(data[start:end].decode("ascii"))


_IBAN_HEAD = re.compile(rb"[A-Z]{2}[0-9]{2} ?[A-Z0-9]{4}")
_PERCENT = re.compile(rb"%[0-9A-Fa-f]{2}")
_E164 = re.compile(rb"\+[1-9][0-9 ().-]{6}")
_RUN = re.compile(rb"[A-Za-z0-9+_]{20,}")
_BORING = re.compile(rb"[0-9a-fA-F]+|[a-z0-9_]+")


def _base64_run(data: bytes) -> bool:
    """A run of 20+ base64 characters that is not a lower-case word, path or hex string."""
    if len(data) < 20 or _B64_WINDOW not in data.translate(_B64):
        return False
    for m in _RUN.finditer(data):
        if not _BORING.fullmatch(m.group()):
            return True
    return False

"""Might a message hold a secret? The tests HX011 and LG006 run on a line before walking its JSON.

They read the line's literal bits (:mod:`mcplint.input.literal_scan`): those a reader tagged the record
with (``Record.signs``), else one scan of the line. A clean line costs that one scan at most; the
rules walk a message's JSON only when a bit they care about is set. HX011 leaves log messages to
LG006, so no record is scanned twice.
"""

from __future__ import annotations

from mcplint.input.literal_scan import (  # noqa: F401 - the probes are re-exported for the rules
    AUTH_PROBES,
    CUT,
    KEY,
    MAX_SCAN,
    PROBE,
    TOKEN,
    TOKEN_PROBES,
    URL,
    head,
    signs,
)


def might_hold_secret(data: bytes | str, bits: int | None = None) -> bool:
    """HX011's test of a line (``bits``: its :func:`signs`, when known): a credential-like
    member name, a "token" that is no progressToken or maxTokens, or a token-shaped literal."""
    if bits is None:
        bits = signs(data)
    if bits & _NAMED:
        return True
    # a probe matched in lower case: the exact, case-sensitive test decides
    return bool(bits & _PROBED) and has_token_probe(head(data).decode("utf-8", "replace"))


_NAMED, _PROBED = KEY | TOKEN, PROBE | URL


#: What LG006's patterns may match beyond the literals of :func:`signs`: "@" (e-mail addresses,
#: URL passwords), JSON escapes that may spell any literal (``\u0040``, ``:\/\/``), and the
#: non-ASCII letters that Python's case-insensitive patterns equate with i and s and k (İ ı ſ K),
#: in UTF-8. Looked for on log lines only: in the shared scan a one-byte literal would double its cost.
LOG_EXTRA = (b"@", b"\\u", b"\\/", b"\xc4\xb0", b"\xc4\xb1", b"\xc5\xbf", b"\xe2\x84\xaa")


def has_log_extra(data: bytes) -> bool:
    """Whether ``data`` holds any of :data:`LOG_EXTRA`: a few tests in C, where a regular expression
    of these alternatives tried every position of the line (1.3 µs a 200-byte line; this 0.2). A byte
    is looked for as an integer: ``64 in data`` is a ``memchr``, ``b"@" in data`` a slower search."""
    if 64 in data or 92 in data and (b"\\u" in data or b"\\/" in data):  # "@", a backslash
        return True
    return not data.isascii() and any(extra in data for extra in LOG_EXTRA[3:])


def might_hold_log_secret(data: bytes | str, bits: int | None = None) -> bool:
    """LG006's test of a log line (``bits``: its :func:`signs`, when known): any literal of
    ``logging.secrets_in``'s patterns and sensitive keys (those of :func:`signs` but "://", which
    needs an "@" there), or a line too long to scan."""
    if bits is None:
        bits = signs(data)
    return bool(bits & ~URL) or has_log_extra(head(data))


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

"""Personal data: emails, phone numbers, card numbers, public IP addresses, home-folder users.

Redacted by default (``--keep KIND`` keeps a kind). Each detector validates what its pattern
proposes, so that the transcript keeps what debugging needs:

- ``email``: reserved domains (``example.com``, ``*.invalid``, ``*.test``...) and file names such
  as ``icon@2x.png`` are kept; an email becomes ``user-<tag>@example.invalid``;
- ``phone``: ``+`` and 8 to 15 digits, or the North American ``(555) 123-4567`` shapes;
- ``card``: 13 to 19 digits in 4-4-4-x or 4-6-5 groups, a known issuer prefix and a valid Luhn
  check digit; without separators a word such as "card" or "visa" must come just before
  (13-digit millisecond timestamps and 16-digit ids often pass Luhn);
- ``ip-address``: public (global) IPv4 and IPv6 addresses; loopback, private, link-local and
  documentation ranges and version strings (``version 1.2.3.4``) are kept;
- ``home-user``: the user segment of ``/Users/<name>``, ``/home/<name>``, ``C:\\Users\\<name>``
  becomes ``user-<tag>`` so the path keeps its shape.
"""

from __future__ import annotations

import ipaddress

from mcplint.redact._rx import rx
from mcplint.redact.placeholders import EMAIL_DOMAIN, PSEUDONYM_RE
from mcplint.redact.spans import PERSONAL, Span

KINDS = frozenset({"email", "phone", "card", "ip-address", "home-user"})

EMAIL = rx("email", r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@((?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24})"
                    r"(?![A-Za-z0-9-])")
_RESERVED = ("example.com", "example.org", "example.net", EMAIL_DOMAIN)
_RESERVED_TLDS = (".example", ".invalid", ".test", ".localhost", ".local", ".internal")
_FILE_EXTENSIONS = frozenset(
    ["png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "tiff", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "css", "scss", "less", "html", "htm", "txt", "log", "lock", "yaml", "yml", "toml", "xml", "map", "wasm", "pdf", "md", "py", "rs", "go", "rb", "java", "kt", "swift", "php", "sh", "zip", "gz", "tar", "mp3", "mp4", "wav"])
_TECHNICAL_USERS = frozenset({"git", "noreply", "no-reply", "donotreply", "mailer-daemon", "postmaster"})

PHONE = rx("phone", r"(?<![\w+])\+[1-9][0-9 ().-]{6,18}[0-9](?![\w])"
                    r"|(?<![\w.-])(?:\(\d{3}\)[ .-]?|\d{3}[.-])\d{3}[.-]\d{4}(?![\w.-])")
CARD = rx("card", r"(?<![\w.-])(?:\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}|\d{4}([ -])\d{6}\2\d{4,5}|\d{13,19})(?![\w.-])")
_CARD_CONTEXT = rx("card-context", r"(?i:card|credit|visa|master|amex|payment|\bpan\b|\bcc\b|cc#)")
IPV4 = rx("ipv4", r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
                  r"(?![\w]|\.\d)")
IPV6 = rx("ipv6", r"(?<![\w:.])[0-9A-Fa-f:]{2,39}(?:\d{1,3}(?:\.\d{1,3}){3})?(?![\w:])")
_VERSION_CONTEXT = rx("version-context", r"(?i:version|release|build|ver|\bv)[\s:=\"']{0,3}$")
HOME = rx("home-user", r"(?:/Users/|/home/|(?<![A-Za-z])[A-Za-z]:\\{1,2}(?i:users)\\{1,2}|(?<![A-Za-z:])\\{1,2}(?i:users)\\{1,2})"
                       r"([^/\\\s\"'<>:*?|\[\]]{1,64})")
_NOT_PERSONAL_HOMES = frozenset({"shared", "public", "default", "default user", "all users", "defaultuser0",
                                 "runner", "root", "ubuntu", "ec2-user", "vscode", "node", "app", "user",
                                 "username", "me", "you", "$user", "%username%", "*", "...", "…"})

#: Fragments for the engine's prefilter.
TRIGGERS = (
    r"[A-Za-z0-9._%+-]@[A-Za-z0-9-]",
    r"(?<![\w+])\+[1-9][0-9 ().-]{6}",
    r"\(\d{3}\)|\d{3}[.-]\d{3}[.-]\d{4}",
    r"\d{4}[ -]\d{4}[ -]\d{4}|\d{4}[ -]\d{6}[ -]\d{4}",
    r"(?i:card|credit|visa|amex|payment)",
    r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}",
    r"[0-9A-Fa-f]::|::[0-9A-Fa-f]|(?:[0-9A-Fa-f]{1,4}:){7}",
    r"/Users/|/home/|(?i:\\users\\)",
)


_ZEROS = str.maketrans("0123456789", "0000000000")
_NO_DIGITS = str.maketrans("", "", "0123456789")


def find(text: str, key: str | None = None) -> list[Span]:
    spans: list[Span] = []
    if "@" in text:
        _emails(text, spans)
    if "/Users/" in text or "/home/" in text or "\\" in text:
        _homes(text, spans)
    if "::" in text or text.count(":") >= 7:
        _ipv6(text, spans)
    if sum(map(text.count, "0123456789")) < 7:
        return spans  # phones, cards and dotted quads need more digits
    zeros = text.translate(_ZEROS)
    if "+" in text or "000-000-0000" in zeros or "000.000.0000" in zeros or "(000)" in zeros:
        _phones(text, spans)
    if "0000" in zeros:
        _cards(text, spans)
    if "..." in text.translate(_NO_DIGITS) and (key is None or "version" not in key.lower()):
        _ipv4(text, spans)
    return spans


def _emails(text: str, spans: list[Span]) -> None:
    for m in EMAIL.finditer(text):
        domain = m.group(1).lower()
        local = m.group()[: m.start(1) - m.start() - 1]
        if (domain in _RESERVED or domain.endswith(_RESERVED_TLDS) or domain.rsplit(".", 1)[-1] in _FILE_EXTENSIONS
                or local.lower() in _TECHNICAL_USERS or PSEUDONYM_RE.fullmatch(local) or _in_authority(text, m.start())):
            continue
        spans.append(Span(m.start(), m.end(), "email", m.group(), PERSONAL))


def _in_authority(text: str, start: int) -> bool:
    """``scheme://user:password@host``: the ``password@host`` part is not an email."""
    before = text[max(0, start - 256):start]
    scheme = before.rfind("://")
    return scheme >= 0 and not any(c in before[scheme + 3:] for c in "/ \t\r\n\"'<>")


def _phones(text: str, spans: list[Span]) -> None:
    for m in PHONE.finditer(text):
        digits = sum(c.isdigit() for c in m.group())
        if m.group().startswith("+") and not 8 <= digits <= 15:
            continue
        spans.append(Span(m.start(), m.end(), "phone", m.group(), PERSONAL))


def luhn(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = ord(c) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _issuer(d: str) -> bool:
    head2 = int(d[:2])
    if d[0] == "4" or d[0] == "6":
        return True
    if d[0] == "5":
        return True
    if d[0] == "3":
        return head2 in (30, 34, 35, 36, 37, 38, 39)
    if d[0] == "2":
        return 2221 <= int(d[:4]) <= 2720
    return False


def _cards(text: str, spans: list[Span]) -> None:
    for m in CARD.finditer(text):
        raw = m.group()
        digits = raw.replace(" ", "").replace("-", "")
        if not 13 <= len(digits) <= 19 or not _issuer(digits) or not luhn(digits):
            continue
        if raw == digits and not _CARD_CONTEXT.search(text, max(0, m.start() - 40), m.start()):
            continue
        spans.append(Span(m.start(), m.end(), "card", digits, PERSONAL))


def _ipv4(text: str, spans: list[Span]) -> None:
    for m in IPV4.finditer(text):
        try:
            address = ipaddress.IPv4Address(m.group())
        except ValueError:
            continue
        if not address.is_global or _VERSION_CONTEXT.search(text, max(0, m.start() - 12), m.start()):
            continue
        spans.append(Span(m.start(), m.end(), "ip-address", m.group(), PERSONAL))


def _ipv6(text: str, spans: list[Span]) -> None:
    for m in IPV6.finditer(text):
        candidate = m.group()
        if "::" not in candidate and candidate.count(":") < 7:
            continue
        try:
            address = ipaddress.IPv6Address(candidate)
        except ValueError:
            continue
        if address.is_global:
            spans.append(Span(m.start(), m.end(), "ip-address", str(address), PERSONAL))


def _homes(text: str, spans: list[Span]) -> None:
    for m in HOME.finditer(text):
        name = m.group(1)
        if name.lower() in _NOT_PERSONAL_HOMES or PSEUDONYM_RE.fullmatch(name) or name.startswith(("$", "%", "<", "{")):
            continue
        spans.append(Span(m.start(1), m.end(1), "home-user", name, PERSONAL))

"""Personal data: emails, phone numbers, card numbers, public IP addresses, home-folder users.

Redacted by default (``--keep KIND`` keeps a kind). Each detector validates what its pattern
proposes, so that the transcript keeps what debugging needs:

- ``email``: reserved domains (``example.com``, ``*.invalid``, ``*.test``...) and file names such
  as ``icon@2x.png`` are kept; an email becomes ``user-<tag>@example.invalid``;
- ``phone``: ``+`` and 8 to 15 digits, or the North American ``(555) 123-4567`` shapes;
- ``card``: 13 to 19 digits, compact or in groups (4-4-4-4, 4-4-4-4-3, 4-6-5...) with spaces or
  dashes, whose issuer prefix fits the length (Visa 4: 13/16/19; Mastercard 51-55 and
  2221-2720: 16; Amex 34/37: 15; Discover 6011, 644-649, 65: 16-19; Diners 36/38/300-305: 14;
  JCB 3528-3589: 16-19; UnionPay 62: 16-19) and whose Luhn check digit is valid. Compact digits
  are kept under a key or after a word that names an id, time or count (``id``, ``ts``,
  ``timestamp``, ``count``, ``size``, ``nonce``, ``seq``...). Epoch seconds, milliseconds,
  microseconds and nanoseconds and Twitter/Discord snowflakes start with 1, which no issuer
  does. Residual risk: an unlabelled 13-19 digit number in free text that starts like an
  issuer of its length passes Luhn one time in ten (an order number, a database id printed
  without its name) and is redacted;
- ``iban``: an ISO 13616 IBAN, compact or in groups of four, with the length of its country
  (the registry's table) and a valid mod-97 check (residual risk: an upper-case code that starts
  with a country code and two digits and has that country's exact length passes one time in 97);
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

KINDS = frozenset({"email", "phone", "card", "iban", "ip-address", "home-user"})

EMAIL = rx("email", r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@((?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24})"
                    r"(?![A-Za-z0-9-])")
_RESERVED = ("example.com", "example.org", "example.net", EMAIL_DOMAIN)
_RESERVED_TLDS = (".example", ".invalid", ".test", ".localhost", ".local", ".internal")
_FILE_EXTENSIONS = frozenset(
    ["png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "tiff", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "css", "scss", "less", "html", "htm", "txt", "log", "lock", "yaml", "yml", "toml", "xml", "map", "wasm", "pdf", "md", "py", "rs", "go", "rb", "java", "kt", "swift", "php", "sh", "zip", "gz", "tar", "mp3", "mp4", "wav"])
_TECHNICAL_USERS = frozenset({"git", "noreply", "no-reply", "donotreply", "mailer-daemon", "postmaster"})

PHONE = rx("phone", r"(?<![\w+])\+[1-9][0-9 ().-]{6,18}[0-9](?![\w])"
                    r"|(?<![\w.-])(?:\(\d{3}\)[ .-]?|\d{3}[.-])\d{3}[.-]\d{4}(?![\w.-])")
CARD = rx("card", r"(?<![\w.-])(?:\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}(?:\1\d{1,4})?|\d{4}([ -])\d{6}\2\d{4,5}|\d{13,19})"
                  r"(?![\w.-])")
#: Words just before compact digits (or the JSON key above them) that make them an id, a time or a count.
_NUMBER_WORDS = frozenset({"id", "ids", "ts", "time", "timestamp", "ms", "count", "size", "nonce", "seq", "sequence",
                           "offset", "epoch", "snowflake"})
_NUMBER_CONTEXT = rx("number-context", r"(?:(?<![A-Za-z])(?i:id|ids|ts|time|timestamp|ms|count|size|nonce|seq|sequence"
                                       r"|offset|epoch|snowflake)|(?<=[a-z])(?:Id|ID|Ids|IDs|Ts|Time|Timestamp|Ms|Count"
                                       r"|Size|Nonce|Seq))[\s:=#\"'()\[\]-]{0,4}$")
_KEY_WORDS = rx("key-words", r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_IBAN_BEFORE = rx("iban-before", r"[A-Z]{2}\d{2}[ -]$")
IBAN = rx("iban", r"([A-Z]{2})(\d{2})(?=( ?)[A-Z0-9]{4})")  # (no lookbehind: a letter first is faster to find)
#: IBAN length per country (ISO 13616 registry).
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27, "BR": 29,
    "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
    "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
    "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
    "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29,
    "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24,
    "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
    "YE": 30,
}
#: IBAN length -> (compact body, body in groups of four) after the country code and check digits
_IBAN_BODIES = {
    n: (rx(f"iban-{n}", f"[A-Z0-9]{{{n - 4}}}"),
        rx(f"iban-{n}-spaced", f"(?: [A-Z0-9]{{4}}){{{(n - 4) // 4}}}"
                               + (f" [A-Z0-9]{{{(n - 4) % 4}}}" if (n - 4) % 4 else "")))
    for n in sorted(set(IBAN_LENGTHS.values()))
}
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
    r"\d{4}[ -]\d{4}[ -]\d{4}|\d{4}[ -]\d{6}[ -]\d{4}|\d{13}",
    r"[A-Z]{2}\d\d ?[A-Z0-9]{4}",
    r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}",
    r"[0-9A-Fa-f]::|::[0-9A-Fa-f]|(?:[0-9A-Fa-f]{1,4}:){7}",
    r"/Users/|/home/|(?i:\\users\\)",
)


_ZEROS = str.maketrans("0123456789", "0000000000")
_CARD_SHAPES = ("0000 0000 0000", "0000-0000-0000", "0000 000000 0000", "0000-000000-0000")
_NO_DIGITS = str.maketrans("", "", "0123456789")


def find(text: str, key: str | None = None) -> list[Span]:
    spans: list[Span] = []
    if "@" in text:
        _emails(text, spans)
    if "/Users/" in text or "/home/" in text or "\\" in text:
        _homes(text, spans)
    if "::" in text or text.count(":") >= 7:
        _ipv6(text, spans)
    if len(text) >= 15:
        _ibans(text, spans)  # (a BBAN may hold letters: no test on digits)
    if sum(map(text.count, "0123456789")) < 7:
        return spans  # phones, cards and dotted quads need more digits
    zeros = text.translate(_ZEROS)
    if "+" in text or "000-000-0000" in zeros or "000.000.0000" in zeros or "(000)" in zeros:
        _phones(text, spans)
    if "0000000000000" in zeros or any(shape in zeros for shape in _CARD_SHAPES):
        _cards(text, spans, key)
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


def card_issuer(d: str) -> bool:
    """Whether the digits ``d`` start like a card of an issuer that uses their length."""
    n = len(d)
    head = d[:4]
    c = d[0]
    if c == "4":
        return n in (13, 16, 19)  # Visa
    if c == "5":
        return n == 16 and "51" <= head[:2] <= "55"  # Mastercard
    if c == "2":
        return n == 16 and "2221" <= head <= "2720"  # Mastercard 2-series
    if c == "3":
        if head[:2] in ("34", "37"):
            return n == 15  # American Express
        if head[:2] in ("36", "38") or "300" <= head[:3] <= "305":
            return n == 14  # Diners Club
        return 16 <= n <= 19 and "3528" <= head <= "3589"  # JCB
    if c == "6":
        return 16 <= n <= 19 and (head == "6011" or "644" <= head[:3] <= "649" or head[:2] in ("65", "62"))
    return False


def is_card_number(digits: str) -> bool:
    """13-19 digits, an issuer prefix that fits the length, and a valid Luhn check digit."""
    return 13 <= len(digits) <= 19 and card_issuer(digits) and luhn(digits)


def _cards(text: str, spans: list[Span], key: str | None) -> None:
    for m in CARD.finditer(text):
        raw = m.group()
        end = m.end()
        digits = raw.replace(" ", "").replace("-", "")
        if not is_card_number(digits) and m.group(1) and raw.count(m.group(1)) == 4:
            end = m.start() + raw.rindex(m.group(1))  # a number after the card: 4111 1111 1111 1111 2024
            raw = text[m.start():end]
            digits = raw.replace(m.group(1), "")
        if not is_card_number(digits) or (raw != digits and _IBAN_BEFORE.match(text, max(0, m.start() - 5), m.start())):
            continue  # (groups of an IBAN-shaped number are not a card)
        if raw == digits and (_number_key(key) or _NUMBER_CONTEXT.search(text, max(0, m.start() - 24), m.start())):
            continue
        spans.append(Span(m.start(), end, "card", digits, PERSONAL))


def _number_key(key: str | None) -> bool:
    """A JSON key whose last word names an id, a time or a count (``requestId``, ``created_ts``)."""
    if not key or len(key) > 64:
        return False
    words = _KEY_WORDS.findall(key)
    return bool(words) and words[-1].lower() in _NUMBER_WORDS


def iban_ok(iban: str) -> bool:
    """ISO 13616: the country's length, check digits 02-98, and mod 97 of the rearranged number is 1."""
    if IBAN_LENGTHS.get(iban[:2]) != len(iban) or not "02" <= iban[2:4] <= "98":
        return False
    rearranged = iban[4:] + iban[:4]
    try:
        return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1
    except ValueError:
        return False


def _ibans(text: str, spans: list[Span]) -> None:
    """Each candidate is read to exactly its country's length, compact or in groups of four."""
    n = len(text)
    for m in IBAN.finditer(text):
        length = IBAN_LENGTHS.get(m.group(1))
        if length is None or (m.start() and text[m.start() - 1].isalnum()):
            continue
        body = _IBAN_BODIES[length][1 if m.group(3) else 0].match(text, m.end(2))
        if body is None or (body.end() < n and text[body.end()].isalnum()):
            continue
        iban = m.group(1) + m.group(2) + body.group().replace(" ", "")
        if iban_ok(iban):
            spans.append(Span(m.start(), body.end(), "iban", iban, PERSONAL))


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

"""Encoded layers: JSON string literals, escaped text, percent-encoding, base64 runs.

Secrets hide under encodings: ``\\u0067hp_...`` inside a JSON string, ``{\\"token\\":...}``
(JSON printed inside a log line), ``apiKey%3D...`` in a redirect URL, a ``.env`` file in
base64. Each layer is *decoded into a view*, the view is redacted like any text, and only the
part of the original that changed is re-encoded: everything else keeps its exact bytes, and
a base64 run stays valid base64 (it decodes to the redacted text, with the same placeholders
as everywhere else).

A :class:`View` keeps the offset map between the encoded text and its decoded view as a list
of chunks, so a change in the view maps back to the smallest encoded range that covers it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import re
from collections.abc import Callable
from urllib.parse import quote

import orjson

from mcplint.redact._rx import rx

#: A JSON string literal; the closing quote is optional, so a literal cut at the end of a text
#: matches to the end instead of failing (a failing match would be retried from every later
#: quote: quadratic on ``\"\"\"...``). Callers skip literals that do not decode.
STRING_LITERAL_RE = rx("json-string", r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?', re.DOTALL)
BASE64_RUN_RE = rx("base64-run", r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])")
#: Backslash escapes worth decoding in free text (JSON printed inside a string or a log line).
ESCAPES = rx("escapes", r'\\["\\/bfnrt]|\\u[0-9a-fA-F]{4}')
PERCENT = rx("percent", r"%[0-9A-Fa-f]{2}")
_ESCAPE_UNIT = rx("escape-unit", r'\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]|[^\\]+|\\')
_PERCENT_UNIT = rx("percent-unit", r"(?:%[0-9A-Fa-f]{2})+|[^%]+|%")
_FORM_UNIT = rx("form-unit", r"(?:%[0-9A-Fa-f]{2})+|\+|[^%+]+|%")
_CONTROL = rx("control-chars", r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\ufffd")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
#: Characters left as they are when a percent-encoded range is re-encoded (placeholders too).
_PERCENT_SAFE = "/:@!$&'()*+,;=-._~[]"


# -- JSON string literals ----------------------------------------------------------------------
def decode_literal(raw: str) -> str | None:
    """The value of a JSON string literal (quotes included), or None when it is invalid."""
    if "\\" not in raw:
        return raw[1:-1]
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def encode_string(value: str, ascii_only: bool = False) -> str:
    """A JSON string literal for ``value`` (quotes included)."""
    if not ascii_only:
        try:
            return orjson.dumps(value).decode("utf-8")
        except TypeError:  # lone surrogates: only the escaped form is valid UTF-8
            pass
    return json.dumps(value)


def _common_prefix(a: str, b: str) -> int:
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    lo, hi = 0, limit
    la, lb = len(a), len(b)
    if a[la - hi:] == b[lb - hi:]:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:] == b[lb - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class View:
    """A decoded view of ``raw`` with the chunk map needed to write changes back."""

    __slots__ = ("_dec", "_exact", "_raw", "raw", "text")

    def __init__(self, raw: str, unit: re.Pattern[str], decode: Callable[[str], tuple[str, bool]]):
        self.raw = raw
        pieces: list[str] = []
        self._dec: list[int] = []
        self._raw: list[int] = []
        self._exact: list[bool] = []  # chunk decodes 1:1 (plain text)
        d = 0
        for m in unit.finditer(raw):
            text, exact = decode(m.group())
            self._dec.append(d)
            self._raw.append(m.start())
            self._exact.append(exact)
            pieces.append(text)
            d += len(text)
        self._dec.append(d)
        self._raw.append(len(raw))
        self._exact.append(True)
        self.text = "".join(pieces)

    def _floor(self, d: int) -> tuple[int, int]:
        """(decoded, raw) offset of the chunk boundary at or before ``d`` (exact inside plain chunks)."""
        i = bisect.bisect_right(self._dec, d) - 1
        if self._exact[i]:
            return d, self._raw[i] + (d - self._dec[i])
        return self._dec[i], self._raw[i]

    def _ceil(self, d: int) -> tuple[int, int]:
        i = bisect.bisect_right(self._dec, d) - 1
        if self._exact[i] or self._dec[i] == d:
            return self._floor(d)
        return self._dec[i + 1], self._raw[i + 1]

    def splice(self, new: str, encode: Callable[[str], str]) -> str:
        """``raw`` with the changed part of the view replaced by ``encode(new part)``."""
        old = self.text
        if new == old:
            return self.raw
        p = _common_prefix(old, new)
        q = _common_suffix(old, new, min(len(old), len(new)) - p)
        p, raw_start = self._floor(p)
        s, raw_end = self._ceil(len(old) - q)
        middle = new[p:len(new) - (len(old) - s)]
        return self.raw[:raw_start] + encode(middle) + self.raw[raw_end:]


def _decode_escape(unit: str) -> tuple[str, bool]:
    if unit[0] != "\\" or len(unit) == 1:
        return unit, True
    if unit[1] == "u":
        return chr(int(unit[2:], 16)), False  # noqa: FURB166 (four hex digits, no prefix)
    return _SIMPLE_ESCAPES[unit[1]], False


def escape_view(raw: str) -> View:
    """Backslash escapes decoded the JSON way (``\\"``, ``\\\\``, ``\\n``, ``\\u0041``)."""
    return View(raw, _ESCAPE_UNIT, _decode_escape)


def escape_text(value: str, ascii_only: bool) -> str:
    return encode_string(value, ascii_only)[1:-1]


def splice_literal(raw: str, old: str, new: str) -> str:
    """Re-encode a JSON string literal whose value changed from ``old`` to ``new``.

    The unchanged prefix and suffix keep their exact encoding (``\\u00e9`` stays
    ``\\u00e9``); only the changed middle is encoded, the way the literal encodes
    non-ASCII text.
    """
    content = raw[1:-1]
    ascii_only = "\\u" in content
    if "\\" not in content:
        p = _common_prefix(old, new)
        q = _common_suffix(old, new, min(len(old), len(new)) - p)
        return '"' + old[:p] + escape_text(new[p:len(new) - q], ascii_only) + old[len(old) - q:] + '"'
    p = _common_prefix(old, new)
    q = _common_suffix(old, new, min(len(old), len(new)) - p)
    head, tail = escape_text(old[:p], ascii_only), escape_text(old[len(old) - q:], ascii_only)
    if content.startswith(head) and content.endswith(tail) and len(head) + len(tail) <= len(content):
        # the usual case: the literal escapes the way we do, so the unchanged parts are found as is
        return '"' + head + escape_text(new[p:len(new) - q], ascii_only) + tail + '"'
    view = escape_view(content)
    if view.text != old:  # unusual escapes: encode the whole value afresh
        return encode_string(new, ascii_only)
    return '"' + view.splice(new, lambda middle: escape_text(middle, ascii_only)) + '"'


# -- percent-encoding --------------------------------------------------------------------------
def _decode_percent(unit: str) -> tuple[str, bool]:
    if unit[0] != "%" or len(unit) < 3:
        return unit, True
    data = bytes.fromhex(unit.replace("%", ""))
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("latin-1"), False


def percent_view(raw: str) -> View:
    return View(raw, _PERCENT_UNIT, _decode_percent)


def percent_encode(value: str) -> str:
    return quote(value, safe=_PERCENT_SAFE)


def _decode_form(unit: str) -> tuple[str, bool]:
    return (" ", False) if unit == "+" else _decode_percent(unit)


def form_view(raw: str) -> View:
    """A query string the HTML-form way: percent escapes decoded and ``+`` read as a space."""
    return View(raw, _FORM_UNIT, _decode_form)


def form_encode(value: str) -> str:
    return quote(value, safe=_PERCENT_SAFE.replace("+", "")).replace("%20", "+")


def is_form_encoded(text: str) -> bool:
    """``+`` inside the query of a URL or a bare ``a=b&c=d`` string (where it means a space)."""
    query = text.find("?")
    if query < 0 and "&" not in text:
        return False
    return "+" in text[query + 1:] and "=" in text[query + 1:]


# -- base64 ------------------------------------------------------------------------------------
def decode_base64_text(run: str) -> tuple[str, bool, bool] | None:
    """``(text, urlsafe, padded)`` when ``run`` is base64 of UTF-8 text, else None."""
    core = run.rstrip("=")
    urlsafe = "-" in core or "_" in core
    if (urlsafe and ("+" in core or "/" in core)) or len(core) % 4 == 1:
        return None
    try:
        data = base64.b64decode(core + "=" * (-len(core) % 4), altchars=b"-_" if urlsafe else None, validate=True)
        text = data.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not text or _CONTROL.search(text):
        return None
    return text, urlsafe, run.endswith("=")


def encode_base64_text(text: str, urlsafe: bool, padded: bool) -> str:
    data = text.encode("utf-8", "surrogatepass")
    out = (base64.urlsafe_b64encode(data) if urlsafe else base64.b64encode(data)).decode("ascii")
    return out if padded else out.rstrip("=")

"""Exact secret values taken from a host configuration or a ``.env`` file (``--secrets-from``).

The highest-yield rule for stdio servers: the host config that launched the server holds its
credentials (``env`` values, ``headers``, secret ``args``, passwords in ``url``), and those exact
strings then appear in the traffic and logs however shapeless they are. Each value is searched
as is, percent-encoded and hex-encoded (base64 copies are found by the base64 layer, JSON
escapes by decoding strings first).

Which values are taken: from a host config (any JSON: ``mcpServers``, VS Code ``servers``...),
``env`` values under a sensitive name or that look random, sensitive ``headers``, the value after
a secret CLI flag (``--api-key X``, ``--token=X``), URL passwords, provider tokens anywhere, and
any string under a sensitive key; from a ``.env`` file, every value. Values shorter than 4
characters and words like ``true``/``production`` are skipped: they would shred the transcript.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import orjson

from mcplint.redact import providers
from mcplint.redact._rx import looks_random, rx
from mcplint.redact.credentials import is_benign_value
from mcplint.redact.keys import KeyClassifier
from mcplint.redact.spans import KNOWN, Span

KIND = "known-secret"
MIN_LENGTH = 4
_STOP = frozenset(["true", "false", "yes", "no", "on", "off", "null", "none", "production", "development", "staging", "test", "debug", "info", "warn", "warning", "error", "localhost", "stdio", "http", "https"])
_DOTENV = rx("dotenv-line", r"[ \t]{0,64}(?:export[ \t]{1,16})?([A-Za-z_][A-Za-z0-9_.-]{0,128}+)[ \t]{0,16}=[ \t]{0,16}(.{0,65536}+)")


class SecretsFileError(ValueError):
    """A ``--secrets-from`` file that cannot be read."""


def _worth(value: str) -> bool:
    v = value.strip()
    return (len(v) >= MIN_LENGTH and v.lower() not in _STOP and not (v.isdigit() and len(v) <= 6)
            and not is_benign_value(v))


def _from_dotenv(text: str) -> list[str]:
    values = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        m = _DOTENV.fullmatch(line)
        if m is None:
            continue
        value = m.group(2).strip()
        if value[:1] in "\"'":
            quote_char = value[0]
            end = value.find(quote_char, 1)
            value = value[1:end] if end > 0 else value[1:]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values.append(value)
    return values


def _url_secrets(url: str, keys: KeyClassifier) -> list[str]:
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    out = [unquote(parts.password)] if parts.password else []
    for pair in (parts.query + "&" + parts.fragment).split("&"):
        name, _, value = pair.partition("=")
        if value and keys.url_param(unquote(name)):
            out.append(unquote(value))
    return out


def _from_config(value, keys: KeyClassifier) -> list[str]:
    """Secrets of a host configuration (walks the whole JSON document)."""
    out: list[str] = []
    stack = [(value, None, False)]  # (node, its key, the node's parent is an env map)
    while stack:
        node, key, in_env = stack.pop()
        if isinstance(node, dict):
            env_map = key in ("env", "environment")
            for k, v in node.items():
                stack.append((v, k, env_map))
            continue
        if isinstance(node, list):
            flag_kind = None
            for item in node:
                if isinstance(item, str):
                    if flag_kind is not None:
                        out.append(item)
                    flag_kind = keys.strong(item.lstrip("-")) if item.startswith("-") and "=" not in item else None
                    name, eq, rest = item.partition("=")
                    if item.startswith("-") and eq and keys.strong(name.lstrip("-")):
                        out.append(rest)
                    stack.append((item, None, False))
                else:
                    flag_kind = None
                    stack.append((item, key, False))
            continue
        if not isinstance(node, str):
            continue
        if key is not None and (keys.strong(key) or (in_env and looks_random(node))):
            out.append(node)
        if "://" in node:
            out.extend(_url_secrets(node, keys))
        out.extend(span.secret for span in providers.find(node))
    return out


def load(paths: Iterable[str], keys: KeyClassifier | None = None) -> list[str]:
    """Secret values from host configs (JSON) or ``.env`` files."""
    keys = keys or KeyClassifier()
    values: list[str] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8", errors="surrogateescape")
        except OSError as exc:
            raise SecretsFileError(f"{path}: {exc.strerror or exc}") from exc
        try:
            document = orjson.loads(text)
        except orjson.JSONDecodeError:
            values.extend(_from_dotenv(text))
        else:
            values.extend(_from_config(document, keys))
    return sorted({v for v in values if _worth(v)}, key=lambda v: (-len(v), v))


class KnownValues:
    """Finds the exact values (and their percent/hex encodings) in a text."""

    def __init__(self, values: Iterable[str]):
        self.values = [v for v in values if _worth(v)]
        variants: dict[str, str] = {}
        for value in self.values:
            variants.setdefault(value, value)
            for encoded in (quote(value, safe=""), value.encode("utf-8", "surrogatepass").hex()):
                if encoded != value:
                    variants.setdefault(encoded, value)
                    variants.setdefault(encoded.upper(), value)
        self._canonical = variants
        alternation = "|".join(re.escape(v) for v in sorted(variants, key=len, reverse=True))
        self.regex = re.compile(alternation) if variants else None
        #: What the values look like inside a raw JSON line (for the engine's prefilter).
        self.triggers = sorted({orjson.dumps(v).decode()[1:-1] for v in variants} | set(variants))

    def __bool__(self) -> bool:
        return self.regex is not None

    def find(self, text: str) -> list[Span]:
        if self.regex is None:
            return []
        return [Span(m.start(), m.end(), KIND, self._canonical[m.group()], KNOWN) for m in self.regex.finditer(text)]

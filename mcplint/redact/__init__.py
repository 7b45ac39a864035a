"""Secret and personal-data redaction for MCP transcripts (``mcplint redact``).

One engine and one set of kinds serve ``mcplint redact``, every output of the other commands
(finding excerpts, messages, ids, methods and session labels through ``mcplint.excerpt``;
``show``, ``stats``, ``diagnose``, ``convert``) and ``mcplint capture --redact``: credentials and
personal data alike. Modules, one job each:

- ``providers``: provider tokens by prefix and shape (GitHub, GitLab, Slack, Stripe, AWS,
  Google, OpenAI, Anthropic, Hugging Face, npm, PyPI, Twilio, SendGrid, JWT, PEM keys...);
- ``keys``: sensitive names (JSON keys, headers, env variables, flags, URL parameters);
- ``credentials``: credentials found by context in text (auth headers, ``KEY=value``, flags);
- ``urls``: URL userinfo, secret query parameters, secret path segments;
- ``personal``: emails, phone numbers, card numbers, public IPs, home-folder user names;
- ``known``: exact values from a host config or ``.env`` file (``--secrets-from``);
- ``blobs``: images, audio and blobs become placeholders that keep MIME type and size;
- ``layers``: JSON string literals, escapes, percent-encoding, base64 (decode, redact, re-encode);
- ``placeholders``: ``[REDACTED:<kind>:<tag>]`` with keyed-HMAC tags;
- ``engine``: the pipeline and the structural JSON walk;
- ``formats``: one handler per input format of ``mcplint.input.readers.READERS``;
- ``report``: counts per kind and hits (never values).

The ``mcplint redact`` command itself is :mod:`mcplint.commands.redact`.
"""

from __future__ import annotations

from mcplint.redact.engine import (
    BLOB_KINDS,
    KINDS,
    PERSONAL_KINDS,
    ConfigurationError,
    RedactOptions,
    Redactor,
    UserRule,
    expand_kinds,
)
from mcplint.redact.formats import HANDLERS, UnsupportedFormat, redact_lines, redact_stream
from mcplint.redact.known import SecretsFileError
from mcplint.redact.known import load as load_secrets
from mcplint.redact.layers import BASE64_RUN_RE, STRING_LITERAL_RE
from mcplint.redact.placeholders import PLACEHOLDER_RE
from mcplint.redact.report import Report

__all__ = [
    "BASE64_RUN_RE",
    "BLOB_KINDS",
    "HANDLERS",
    "KINDS",
    "PERSONAL_KINDS",
    "PLACEHOLDER_RE",
    "STRING_LITERAL_RE",
    "ConfigurationError",
    "RedactOptions",
    "Redactor",
    "Report",
    "SecretsFileError",
    "UnsupportedFormat",
    "UserRule",
    "expand_kinds",
    "line_redactor",
    "load_secrets",
    "redact_stream",
    "redact_text",
]


def redact_text(text: str, key: bytes | str | None = None, **options) -> str:
    """Redact a text (one or more lines of any supported shape) with a fresh engine."""
    return redact_lines(Redactor(RedactOptions(key=key, **options)), text)


def line_redactor(options: RedactOptions | None = None):
    """A ``(line, direction) -> line`` function for recorders (``mcplint capture --redact``).

    One engine for the whole recording, so a secret gets the same tag in every line.
    """
    redactor = Redactor(options)

    def redact(text: str, direction: str | None = None) -> str:
        return redactor.redact_line(text)

    return redact

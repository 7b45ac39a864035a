"""Secret-free text for everything mcplint prints from a capture.

One policy for every output (finding excerpts, messages, hints, related notes, ids, methods and
session labels; ``show``, ``stats``, ``diagnose``): the redaction engine of ``mcplint redact``
(:mod:`mcplint.redact`) with all its kinds, credentials and personal data alike, in its "plain"
form: every redacted value becomes ``[REDACTED]``, without kind or tag. Plain masks keep reports
deterministic (the same capture gives the same report, golden files and baseline fingerprints
hold; what holds no secret and no personal data is shown as it is) and give a reader no keyed
tag to test guesses against (an email or a user name is guessable). The engine's key is fixed
all the same, so that a form that still carries a tag cannot make a report differ between runs.
Paths the user gave (file names) are never masked. Excerpts are cut to length only after masking.

``secret_kinds`` tells rules which kinds of credentials a text holds (never the values).
``_SENSITIVE_KEY`` and ``_TOKEN`` are the earlier, smaller patterns, kept unchanged because
rules import them; new code should prefer ``secret_kinds``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import orjson

from mcplint.model import Finding, Kind, Record, Related

if TYPE_CHECKING:
    from mcplint.redact import Redactor

MAX_EXCERPT = 160
#: Longer texts are cut before masking (an excerpt shows 160 characters; masking stays cheap).
MAX_MASKED = 1 << 16

_SENSITIVE_KEY = re.compile(
    r"(?i)^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api[-_]?key|apikey|"
    r"password|passwd|pwd|secret|client[-_]?secret|access[-_]?token|refresh[-_]?token|id[-_]?token|"
    r"auth[-_]?token|bearer|private[-_]?key|mcp-session-id|session[-_]?token|credentials?)$"
)
_TOKEN = re.compile(
    r"(?:\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[baprs]-[A-Za-z0-9-]{10,}|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})\b"
    r"|(?i:bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
    r"|(?<=://)[^/\s:@]+:[^/\s@]+(?=@))"
)

MASK = "[REDACTED]"
#: The engine's key for outputs (see the module docstring): fixed, so a report never depends on the run.
OUTPUT_KEY = b"mcplint output policy"

_ENGINE: Redactor | None = None
_COUNTER: Redactor | None = None
#: Masked short texts (methods, labels, ids, hints, messages repeat across findings and rows).
_MASKED: dict[str, str] = {}
_MASKED_LIMIT = 50_000
_MASKED_LEN = 1024


def _engine() -> Redactor:
    global _ENGINE
    if _ENGINE is None:  # the redaction engine is imported with the first finding (start-up time)
        from mcplint.redact import RedactOptions, Redactor
        _ENGINE = Redactor(RedactOptions(key=OUTPUT_KEY, plain=True, counting=False))
    return _ENGINE


def mask_text(text: str) -> str:
    """Mask credentials and personal data in free text (any line shape: JSON, log lines, headers)."""
    if len(text) > _MASKED_LEN:
        return _mask(text)
    out = _MASKED.get(text)
    if out is None:
        out = _mask(text)
        if len(_MASKED) >= _MASKED_LIMIT:
            _MASKED.clear()
        _MASKED[text] = out
    return out


def _mask(text: str) -> str:
    # one line needs none of the line handling of a text (held lines, keys spread over lines)
    if "\n" not in text:
        return _engine().redact_line(text)
    from mcplint.redact.formats import redact_lines

    return redact_lines(_engine(), text)


def mask_value(value: Any, depth: int = 0) -> Any:
    """A copy of a JSON value with credentials and personal data masked (same shape)."""
    return _engine().redact_value(value)


def mask_field(text: str | None) -> str | None:
    """A method, a tool name, a session label or a protocol version from the capture: kept as it
    is unless it holds a secret (then masked as text; no key or member exempts it)."""
    return text if text is None or len(text) < 4 else mask_text(text)


#: Integers of 12 digits at most hold nothing the masker removes (a detector's number has 13 at
#: least, a card's; tests hold it to the engine), nor does "session " and such a number.
PLAIN_DIGITS = 12
PLAIN_INT = 10**PLAIN_DIGITS


def mask_session(label: str | None) -> str | None:
    """A session label as reports show it (``session <label>``), masked as that text is: a label
    that is a session id (a UUID or a random token, as ``Mcp-Session-Id`` values and some
    recorders' session ids are) is a session credential."""
    if label is None:
        return None
    if len(label) <= PLAIN_DIGITS and label.isdigit() and label.isascii():
        return label  # (the analyzer's numbers)
    masked = mask_text("session " + label)
    return masked[8:] if masked.startswith("session ") else masked




def mask_id(value: Any) -> Any:
    """A JSON-RPC id (or an error code) as reports show it: unchanged unless it holds a secret,
    then its masked text (a number as well: a card number is a number)."""
    kind = type(value)
    if kind is str:
        return mask_field(value)
    if kind is int and -PLAIN_INT < value < PLAIN_INT:
        return value  # (the usual id: a detector's number has 13 digits at least, a card's)
    if kind is int or kind is float:
        text = str(value)
        masked = mask_field(text)
        return value if masked == text else masked
    if kind is dict or kind is list:
        return mask_value(value)
    return value


def mask_tree(value: Any) -> Any:
    """Every string of a structure mcplint built from a capture, masked (keys are mcplint's own
    and stay; members named ``id`` are masked as ids)."""
    kind = type(value)
    if kind is str:
        return mask_text(value)
    if kind is dict:
        return {k: mask_id(v) if k == "id" else mask_tree(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return kind(mask_tree(v) for v in value)
    return value


def redact_finding(finding: Finding, hint: bool = True) -> Finding:
    """Mask what a finding holds from the capture (``finding`` itself, changed in place): its
    message, hint (unless ``hint`` is False: a rule's own advice) and related notes (rules quote
    tool names, ids, error messages, URIs), its ``id``, ``method`` and ``session``. The excerpt
    is masked when it is made (``excerpt_of``)."""
    finding.message = mask_text(finding.message)
    if hint and finding.hint:
        finding.hint = mask_text(finding.hint)
    finding.session = mask_session(finding.session)
    finding.method = mask_field(finding.method)
    finding.id = mask_id(finding.id)
    if finding.related:
        finding.related = [Related(r.line, note) if (note := mask_text(r.note)) != r.note else r
                           for r in finding.related]
    return finding


def secret_kinds(text: str) -> dict[str, int]:
    """Kinds of credentials in ``text`` (``{"github-pat": 1, "password": 2}``), never the values.

    Personal data and blobs are not counted: this is about secrets.
    """
    from mcplint.redact import BLOB_KINDS, RedactOptions, Redactor, Report
    from mcplint.redact.formats import redact_lines

    global _COUNTER
    if _COUNTER is None:
        _COUNTER = Redactor(RedactOptions(plain=True, personal=False, keep=BLOB_KINDS))
    engine = _COUNTER
    engine.report = Report()
    redact_lines(engine, text[:MAX_MASKED])
    return dict(engine.report.counts)


def shorten(text: str, limit: int = MAX_EXCERPT) -> str:
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def excerpt_of(record: Record, limit: int = MAX_EXCERPT) -> str:
    """The record's text, masked and cut to ``limit`` characters."""
    text = None
    if record.msg is not None and record.kind not in (Kind.MALFORMED, Kind.TEXT, Kind.STDERR):
        try:
            text = orjson.dumps(record.msg).decode()
        except TypeError:
            pass
    if text is None:
        text = record.text
    return shorten(mask_text(text[:MAX_MASKED]), limit)

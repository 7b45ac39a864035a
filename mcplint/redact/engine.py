"""The redaction engine: one place that decides what is secret, for every caller.

``mcplint redact``, the excerpts of ``mcplint check`` findings and ``mcplint capture --redact``
all go through :class:`Redactor`. It works on text: a JSON line is parsed (``orjson``) only to
learn the *structure* (which key a string sits under, its siblings, whether it is an image, a
schema, an elicitation answer); the strings that change are then spliced into the original
text, so key order, number spelling, spacing, ids, methods and timestamps keep their exact
bytes and the line stays valid JSON. (A text that is byte for byte what orjson writes for its
value is written again by orjson instead: the same bytes, without scanning the literals.)

Pipeline for one string (after JSON decoding, which removes ``\\u`` splits):

1. prefilter: one Aho-Corasick scan for every rule's triggers (and a base64-run check); most
   strings stop here (``mcplint redact`` scans whole blocks of lines at once, and writes the
   lines where nothing can fire as they are, without decoding them);
2. a string that is itself JSON is redacted structurally (JSON inside JSON, any depth);
3. otherwise JSON embedded in text (host log lines, SSE ``data:`` lines) is redacted
   structurally, and the detectors run on the text: known values, provider tokens,
   credentials by context, URLs, personal data, data URIs, user patterns; overlapping spans
   merge and become placeholders;
4. encoded layers are decoded, redacted and re-encoded: backslash escapes, percent-encoding,
   base64 runs.

A string that changed is remembered with its result and its redactions (a path with a home
folder, a URL with a key comes back on many lines); the report counts each occurrence.

Structure adds what text cannot know: values under sensitive keys (``password``,
``Authorization``, ``GITHUB_TOKEN``...), ``{"name": "X-Api-Key", "value": ...}`` pairs, the
argument after ``--token`` in ``args``, random values in ``env`` maps, image/audio/blob
payloads, accepted elicitation answers, a secret cut between adjacent text blocks of one
array; and what it must leave alone: schemas (``inputSchema.properties.password`` describes a
field). Ids and methods (and progress tokens, task ids...) keep their bytes unless they hold a
secret; then the whole value becomes one placeholder (:meth:`Redactor.redact_identifier`).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import random
import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcplint.model import id_key
from mcplint.redact import blobs, credentials, personal, providers, urls
from mcplint.redact._rx import is_hex_digest, is_uuid, looks_random, rx
from mcplint.redact.credentials import is_benign_value, value_spans
from mcplint.redact.keys import STRONG, KeyClassifier, normalize
from mcplint.redact.known import KnownValues
from mcplint.redact.layers import (
    BASE64_RUN_RE,
    ESCAPES,
    PERCENT,
    STRING_LITERAL_RE,
    decode_base64_text,
    decode_literal,
    encode_base64_text,
    escape_text,
    escape_view,
    form_encode,
    form_view,
    is_form_encoded,
    percent_encode,
    percent_view,
    splice_literal,
)
from mcplint.redact.placeholders import PLACEHOLDER_RE, Tagger
from mcplint.redact.prefilter import Prefilter
from mcplint.redact.report import Report
from mcplint.redact.spans import EXPLICIT, PROVIDER, STRUCTURE, Span, merge

#: Nesting of layers (JSON in a string, base64, escapes...) followed before giving up.
MAX_DEPTH = 8
MAX_EMBEDDED = 32
_CLEAN_CACHE = 100_000
#: Results kept for strings that changed (same value, same result and the same redactions).
_RESULT_CACHE = 10_000
_RESULT_MAX_LEN = 1024

ELICITATION_KINDS = frozenset({"elicitation-answer"})
PERSONAL_KINDS = personal.KINDS | ELICITATION_KINDS
BLOB_KINDS = blobs.KINDS
GROUPS = {"pii": PERSONAL_KINDS, "personal": PERSONAL_KINDS, "blobs": BLOB_KINDS}
KINDS: frozenset[str] = (providers.KINDS | credentials.KINDS | urls.KINDS | personal.KINDS | blobs.KINDS
                         | ELICITATION_KINDS | {"known-secret"})

SCHEMA_KEYS = frozenset({"inputSchema", "outputSchema", "requestedSchema", "jsonSchema", "$defs", "definitions"})
ENV_KEYS = frozenset({"env", "environment"})
#: A JSON object without any of these members says nothing about its strings (see ``_Walk._push``).
_SPECIAL_MEMBERS = frozenset({"jsonrpc", "method", "type", "blob", "value", "action", "result", "error"})
#: Members of a JSON-RPC message that identify it, and members anywhere that repeat a request
#: id or name a request's handle: kept unless they hold a secret, then pseudonymised whole.
EXEMPT_KEYS = frozenset({"jsonrpc", "id", "method"})
ID_KEYS = frozenset({"requestId", "progressToken", "taskId", "relatedRequestId",
                     "io.modelcontextprotocol/subscriptionId"})
_PROPAGATING = frozenset({"password", "secret", "credential", "token", "api-key", "private-key", "session-id",
                          "connection-string"})

JSON_START = rx("json-start", r'\{\s{0,16}"|\[\s{0,16}[{\["]')
_NUMBER_AFTER_KEY = rx("number-after-key", r"\s{0,64}:\s{0,64}(-?\d{1,400}(?:\.\d{1,400})?(?:[eE][+-]?\d{1,10})?)")
_COLON_AFTER = rx("colon-after", r"\s{0,64}:")
_COLON_GAP = rx("colon-gap", r"\s{0,64}:\s{0,64}")
_BORING_RUN = rx("boring-run", r"[0-9a-fA-F-]+|[a-z0-9/_-]+")
_JSON_DECODER = json.JSONDecoder()

#: A line with this many ``"text`` (two text blocks: ``"type":"text","text":``, escaped or not)
#: takes the full path even when the prefilter finds nothing: a secret may be cut between blocks.
_TEXT_MEMBER = '"text'
_CUT_TEXT_MEMBERS = 4
#: Kinds recognised by their shape (prefix, validator, exact value): the only ones a cut secret
#: is searched for across text blocks or lines (see :meth:`Redactor.split_spans`).
_SHAPE_KINDS = providers.KINDS | personal.KINDS | {"known-secret", "national-id"}
#: A text that starts a new log entry does not continue the text before it.
_NEW_ENTRY = rx("new-entry", r"[ \t]{0,8}(?:\d{4}[-/.]\d\d[-/.]\d\d|\d\d:\d\d:\d\d|\[|(?:TRACE|DEBUG|INFO|NOTICE"
                             r"|WARN|WARNING|ERROR|CRITICAL|FATAL|Traceback)(?![A-Za-z0-9]))")
#: Lines longer than this that hold a long base64 run skip the prefilter (image payloads).
LONG_LINE = 8192
_LONG_B64 = rx("long-base64", r"[A-Za-z0-9+/]{4096}")
_TIMESTAMP = rx("iso-timestamp", r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?)?")


class ConfigurationError(ValueError):
    """A user rule or option that cannot be used (bad regex, unknown kind)."""


@dataclass(frozen=True)
class UserRule:
    """An extra pattern from the configuration: literal triggers, a regex, a kind."""

    kind: str
    regex: str
    triggers: tuple[str, ...]
    group: int = 0


@dataclass
class RedactOptions:
    key: bytes | str | None = None  # HMAC key; random per run when None
    keep: Iterable[str] = ()  # kinds (or groups: pii, blobs) to keep
    keep_blobs: bool = False
    secrets: Sequence[str] = ()  # exact values (from --secrets-from)
    extra_keys: Sequence[str] = ()  # more sensitive names
    keep_keys: Sequence[str] = ()  # names never treated as sensitive
    allow: Sequence[str] = ()  # regexes: a secret that fully matches one is kept
    keep_values: Sequence[str] = ()  # exact values (or "sha256:<hex>") that are kept
    rules: Sequence[UserRule] = ()
    plain: bool = False  # "[REDACTED]" without kind and tag (finding excerpts)
    record_hits: bool = False  # keep (line, path, kind) of every redaction (--check)
    personal: bool = True  # False: credentials only (the secret rules' counting)
    counting: bool = True  # False: no report (long-lived engines such as the excerpt masker)
    extra_kinds: frozenset[str] = field(default_factory=frozenset)


def expand_kinds(names: Iterable[str], known: frozenset[str] = KINDS) -> set[str]:
    out: set[str] = set()
    for name in names:
        name = name.strip().lower()
        if not name:
            continue
        if name in GROUPS:
            out |= GROUPS[name]
        elif name in known:
            out.add(name)
        else:
            raise ConfigurationError(f"unknown kind {name!r} (see `mcplint redact --list-kinds`)")
    return out


class _Compiled:
    __slots__ = ("group", "kind", "regex", "triggers")

    def __init__(self, rule: UserRule):
        try:
            self.regex = re.compile(rule.regex)
        except re.error as exc:
            raise ConfigurationError(f"pattern for {rule.kind!r}: {exc}") from exc
        self.kind, self.triggers, self.group = rule.kind, tuple(rule.triggers), rule.group

    def find(self, text: str) -> list[Span]:
        spans = []
        seen = -1
        for trigger in self.triggers:
            pos = text.find(trigger)
            while pos >= 0:
                if pos > seen:
                    window_end = min(len(text), pos + 4096)
                    for m in self.regex.finditer(text, max(0, pos - 256), window_end):
                        if m.start(self.group) <= pos < max(m.end(self.group), pos + 1) and m.end(self.group) > m.start(self.group):
                            spans.append(Span(m.start(self.group), m.end(self.group), self.kind, m.group(self.group), STRUCTURE))
                            seen = m.end()
                pos = text.find(trigger, pos + 1)
        return spans


class Redactor:
    """Redacts lines, strings and JSON values; keeps a :class:`Report` of what it did."""

    def __init__(self, options: RedactOptions | None = None):
        o = options or RedactOptions()
        self.options = o
        self.tagger = Tagger(o.key, plain=o.plain)
        self.keys = KeyClassifier(o.extra_keys, o.keep_keys)
        self.user_rules = [_Compiled(rule) for rule in o.rules]
        kinds = KINDS | {rule.kind for rule in o.rules} | o.extra_kinds
        self.keep = frozenset(expand_kinds(o.keep, kinds)) | (frozenset() if o.personal else PERSONAL_KINDS)
        self.keep_blobs = o.keep_blobs or BLOB_KINDS <= self.keep
        self.known = KnownValues(o.secrets)
        self.allow = [re.compile(pattern) for pattern in o.allow]
        self.keep_values = {v for v in o.keep_values if not v.startswith("sha256:")}
        self.keep_hashes = {v[7:].lower() for v in o.keep_values if v.startswith("sha256:")}
        self.personal = not PERSONAL_KINDS <= self.keep
        self.report = Report()
        self.record_hits = o.record_hits
        self.counting = o.counting
        self.line = 0
        self._where: list[Any] = []
        self._clean: set[str] = set()
        self._ids: dict[str, str] = {}  # identifier -> kind of the secret in it ("" when none)
        # (value, depth, key) -> (new value, redactions to report again);
        # off with --check, whose hits hold the JSON path of each redaction
        self._results: dict[tuple[str, int, str | None], tuple[str, tuple[tuple[str, str], ...]]] | None = \
            None if o.record_hits else {}
        self._emitted: list[tuple[str, str]] | None = None  # redactions of the string being cached
        self._walks = 0  # JSON documents walked so far (a walk may read or change elicitation state)
        self._hot = 0
        #: Set by the stream when its block scan found something in the line it feeds next: that
        #: line's :meth:`redact_line` does not run the prefilter again.
        self.scanned = False
        self._elicit: OrderedDict[Any, dict] = OrderedDict()
        for name in EXEMPT_KEYS | ID_KEYS:  # known to the walk's shortcut for clean values (see _Walk.run)
            self.keys.classify(name)
        extra = tuple(self.known.triggers) + tuple(t for r in self.user_rules for t in r.triggers)
        self.prefilter = Prefilter(extra, personal=self.personal)

    # -- public API ----------------------------------------------------------------------------
    def redact_line(self, text: str) -> str:
        """One physical line of any input format (JSON, text with embedded JSON, headers...)."""
        if len(text) > LONG_LINE and _LONG_B64.search(text):
            return self._document(text, 0)
        if self.scanned:
            self.scanned = False
        elif not self.prefilter(text.encode("utf-8", "surrogatepass"), string=False) \
                and text.count(_TEXT_MEMBER) < _CUT_TEXT_MEMBERS:
            return text
        # a string holding most of this line (the "raw" of a capture record) is not tested again
        self._hot = len(text) // 2 or 1
        try:
            return self._document(text, 0)
        finally:
            self._hot = 0

    def candidate_lines(self, block: bytes, starts: Sequence[int]) -> Container[int] | None:
        """Indices of the lines of ``block`` (UTF-8, line ``i`` at ``block[starts[i]:starts[i + 1] - 1]``)
        that :meth:`redact_line` could change, lines longer than :data:`LONG_LINE` left out;
        None when every line could."""
        if not isinstance(self.prefilter, Prefilter):
            return None
        lines = self.prefilter.lines(block, starts, LONG_LINE)
        member = _TEXT_MEMBER.encode()
        pos = block.find(member)
        while pos >= 0:  # the lines with two text blocks (see redact_line)
            end = block.find(b"\n", pos)
            end = len(block) if end < 0 else end
            if block.count(member, pos, end) >= _CUT_TEXT_MEMBERS:
                lines.add(bisect_right(starts, pos) - 1)
            pos = block.find(member, end)
        return lines

    def redact_string(self, value: str, depth: int = 0, key: str | None = None) -> str:
        """A decoded string value (a JSON string's content, a stderr line, a file's text)."""
        if depth > MAX_DEPTH or len(value) < 4 or value in self._clean:
            return value
        if len(value) <= 40 and value[:1].isdigit() and _TIMESTAMP.fullmatch(value):
            return value
        results = self._results
        if results is not None and len(value) <= _RESULT_MAX_LEN:
            hit = results.get((value, depth, key))
            if hit is not None:
                for kind, secret in hit[1]:
                    self._emit(kind, secret)
                return hit[0]
        if len(value) > LONG_LINE and _LONG_B64.search(value):
            pass  # a payload (JSON with an image, a base64 text): no prefilter, straight to structure
        elif self._hot and len(value) >= self._hot:
            self._hot = 0  # most of a line that just passed the prefilter
        elif not self.prefilter(value.encode("utf-8", "surrogatepass")) \
                and (len(value) < 64 or value.count(_TEXT_MEMBER) < _CUT_TEXT_MEMBERS):
            if len(value) <= 64 and (key is None or "version" not in key.lower()):
                if len(self._clean) >= _CLEAN_CACHE:
                    self._clean.clear()
                self._clean.add(value)
            return value
        if value.lstrip()[:1] in ("{", "["):
            out = self._json_text(value, depth + 1)
            if out is not None:
                return out
        if self._results is None or len(value) > _RESULT_MAX_LEN:
            return self._text(value, depth, key)
        return self._text_cached(value, depth, key)

    def _text_cached(self, value: str, depth: int, key: str | None) -> str:
        """:meth:`_text`, its result kept for :meth:`redact_string` with the redactions to report
        again. Results that walked JSON (embedded, or inside a layer) are not kept: a walk
        depends on the elicitation requests seen so far."""
        outer, self._emitted = self._emitted, []
        walks = self._walks
        try:
            new = self._text(value, depth, key)
            emitted = self._emitted
        finally:
            if outer is not None:
                outer.extend(self._emitted)
            self._emitted = outer
        if self._walks == walks:
            if len(self._results) >= _RESULT_CACHE:
                self._results.clear()
            self._results[(value, depth, key)] = (new, tuple(emitted))
        return new

    def redact_identifier(self, value: Any, depth: int = 0) -> Any:
        """A request id, method name, progress token, task or subscription id: kept byte for byte
        unless the text detectors find something in it; then the whole value becomes one
        placeholder of the kind found, the same wherever the value stands (request, response,
        cancellation, progress), so that the session still correlates. Numbers are kept."""
        if type(value) is not str or len(value) < 4:
            return value
        kind = self._ids.get(value)
        if kind is None:
            kind = self._identifier_kind(value, depth)
            if len(self._ids) >= _CLEAN_CACHE:
                self._ids.clear()
            self._ids[value] = kind
        if not kind:
            return value
        self._emit(kind, value)
        return self._render(kind, value, whole=True)

    def _identifier_kind(self, value: str, depth: int) -> str:
        """The kind of the first thing :meth:`redact_string` would redact in ``value`` as free text
        (wherever it stands, so that every copy gets the same answer), "" when none."""
        outer, self._emitted = self._emitted, []
        counting, self.counting = self.counting, False
        try:
            changed = self.redact_string(value, depth) != value
            kinds = [kind for kind, _ in self._emitted]
        finally:
            self._emitted, self.counting = outer, counting
        if not changed:
            return ""
        return kinds[0] if kinds else "secret"

    def split_spans(self, parts: Sequence[str]) -> list[list[Span]] | None:
        """What the detectors find in the concatenation of ``parts`` (adjacent text blocks of one
        message, consecutive stderr lines) that no part shows on its own. Per part, the spans to
        force (each piece of a cut secret becomes the placeholder of the whole); None when nothing.

        Joining invents text, so what it finds is taken with care:

        - a part that starts a new log entry (a time stamp, ``[``, ``INFO``...) continues nothing;
        - a value found in one part thanks to the part before (``the password is `` | ``X``);
        - a secret across parts only when its shape says it (provider token, personal data, known
          value): a value found by its name runs on over words (``state: Starting`` | ``2026...``);
        - not when the part before ends with what it shows on its own (``password=x`` | ``Done``,
          a whole token | ``Done``), unless that was another kind or a token shorter than its rule's.
        """
        joined = "".join(parts)
        if len(joined) < 4 or not self.prefilter(joined.encode("utf-8", "surrogatepass")):
            return None
        raw = self._detect(joined, None)
        found = merge(list(raw), joined)
        if not found:
            return None
        starts = list(itertools.accumulate(map(len, parts), initial=0))
        fresh = [_NEW_ENTRY.match(part) is not None for part in parts]
        own: dict[int, list[Span]] = {}
        out: list[list[Span]] = [[] for _ in parts]
        for s in found:
            if s.replacement is not None:
                continue  # data URIs: redacted whole where they stand
            k = bisect_right(starts, s.start) - 1
            last = bisect_right(starts, s.end - 1) - 1
            if any(fresh[k + 1:last + 1]):
                continue
            lo, hi = starts[k], starts[k + 1]
            if k not in own:
                own[k] = merge(self._detect(parts[k], None), parts[k])
            if last == k:
                if k and not fresh[k] and not any(o.start < s.end - lo and s.start - lo < o.end for o in own[k]):
                    out[k].append(self._piece(s, s.start - lo, s.end - lo, True))
                continue
            if not any(r.kind in _SHAPE_KINDS and r.start < hi < r.end for r in raw):
                continue
            reach = [o for o in own[k] if o.end == hi - lo and o.start < s.end - lo]
            if reach and (s.rank != PROVIDER or any(_whole_token(parts[k][o.start:o.end], o) for o in reach)):
                continue
            for j in range(k, last + 1):
                a, b = max(s.start, starts[j]), min(s.end, starts[j + 1])
                if a < b:
                    out[j].append(self._piece(s, a - starts[j], b - starts[j], j == k))
        return out if any(out) else None

    def _piece(self, span: Span, start: int, end: int, counted: bool) -> Span:
        """A piece of a secret found across parts: the placeholder of the whole (counted once)."""
        return Span(start, end, span.kind if counted else "", span.secret, EXPLICIT,
                    self._render(span.kind, span.secret))

    def force(self, text: str, spans: Sequence[Span]) -> str:
        """``text`` with the spans of :meth:`split_spans` for it replaced."""
        return self._apply(text, list(spans))

    def redact_value(self, value: Any) -> Any:
        """A copy of a parsed JSON value with its secrets redacted (same shape)."""
        try:
            text = orjson.dumps(value).decode("utf-8")
        except TypeError:
            return value
        out = self._document(text, 0)
        return value if out == text else orjson.loads(out)

    def find(self, text: str) -> list[tuple[str, int, int]]:
        """``(kind, start, end)`` of what the text detectors find in ``text`` (no values)."""
        return [(s.kind, s.start, s.end) for s in merge(self._detect(text, None), text)]

    # -- documents and text ---------------------------------------------------------------------
    def _document(self, text: str, depth: int) -> str:
        head = text.lstrip()[:1]
        if head in ("{", "["):
            out = self._json_text(text, depth)
            if out is not None:
                return out
            if text.lstrip()[1:].lstrip()[:1] in ('"', "{", "[", "}", "]"):
                return self._flat_json(text, depth)
        return self._text(text, depth, None)

    def _text(self, text: str, depth: int, key: str | None) -> str:
        spans: list[Span] = []
        ranges: list[tuple[int, int]] = []
        if depth < MAX_DEPTH and ("{" in text or "[" in text):
            for start, end, new in self._embedded(text, depth):
                ranges.append((start, end))
                if new != text[start:end]:
                    spans.append(Span(start, end, "", "", EXPLICIT, new))
        found = self._detect(text, key)
        if ranges:
            found = [s for s in found if not any(s.start < b and a < s.end for a, b in ranges)]
        spans.extend(found)
        out = self._apply(text, spans) if spans else text
        if depth < MAX_DEPTH:
            out = self._layers(out, depth)
        return out

    def _detect(self, text: str, key: str | None) -> list[Span]:
        spans = providers.find(text)
        if self.known:
            spans.extend(self.known.find(text))
        spans.extend(credentials.find(text, self.keys))
        spans.extend(urls.find(text, self.keys))
        if self.personal:
            spans.extend(personal.find(text, key))
        if not self.keep_blobs:
            spans.extend(blobs.data_uris(text, self.tagger))
        for rule in self.user_rules:
            spans.extend(rule.find(text))
        if not spans:
            return spans
        done = [m.span() for m in PLACEHOLDER_RE.finditer(text)] if "[REDACTED" in text else ()
        return [s for s in spans if s.kind not in self.keep and not self._allowed(s.secret)
                and not any(_cuts(s, a, b) for a, b in done)]

    def _allowed(self, secret: str) -> bool:
        if secret in self.keep_values:
            return True
        if self.keep_hashes and hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest() in self.keep_hashes:
            return True
        return any(pattern.fullmatch(secret) for pattern in self.allow)

    def _apply(self, text: str, spans: list[Span]) -> str:
        pieces = []
        pos = 0
        for span in merge(spans, text):
            pieces.append(text[pos:span.start])
            pieces.append(self._replacement(span))
            pos = span.end
        pieces.append(text[pos:])
        return "".join(pieces)

    def _replacement(self, span: Span) -> str:
        if span.replacement is not None:
            if span.kind:
                self._emit(span.kind, span.secret)
            return span.replacement
        self._emit(span.kind, span.secret)
        return self._render(span.kind, span.secret)

    def _render(self, kind: str, secret: str, whole: bool = False) -> str:
        """The placeholder of a secret (``whole``: it replaces a whole value, no pseudonym shape)."""
        if self.tagger.plain:
            return "[REDACTED]"
        if kind == "email" and not whole:
            return self.tagger.email(secret)
        if kind == "home-user" and not whole:
            return self.tagger.pseudonym(secret)
        return self.tagger.placeholder(kind, secret)

    def _emit(self, kind: str, secret: str) -> None:
        if self._emitted is not None:
            self._emitted.append((kind, secret))
        if not self.counting:
            return
        path = self._path() if self.record_hits else None
        self.report.add(kind, self.tagger.tag(secret), self.line, path)

    def _path(self) -> str:
        parts = [w if isinstance(w, str) else w.path() for w in self._where]
        return " > ".join(p for p in parts if p) or "text"

    # -- embedded JSON, flat JSON --------------------------------------------------------------
    def _embedded(self, text: str, depth: int) -> list[tuple[int, int, str]]:
        out = []
        pos = 0
        for _ in range(MAX_EMBEDDED):
            m = JSON_START.search(text, pos)
            if m is None:
                break
            start = m.start()
            try:
                _, end = _JSON_DECODER.raw_decode(text, start)
            except json.JSONDecodeError as exc:
                pos = max(start + 1, exc.pos)
                continue
            except (ValueError, RecursionError):
                pos = start + 1
                continue
            segment = text[start:end]
            new = self._json_text(segment, depth + 1)
            out.append((start, end, self._flat_json(segment, depth + 1) if new is None else new))
            pos = end
        return out

    def _json_text(self, text: str, depth: int) -> str | None:
        """Structural redaction of a JSON document; None when ``text`` is not JSON."""
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return None
        walk = _Walk(self, depth)
        self._walks += 1
        self._where.append(walk)
        try:
            walk.run(value)
        finally:
            self._where.pop()
        if not walk.changes and not walk.numbers:
            return text
        out = walk.rewrite(value, text)
        if out is None:
            out = walk.splice(text)
        return out if out is not None else self._flat_json(text, depth)

    def _flat_json(self, text: str, depth: int) -> str:
        """JSON that does not parse (cut lines, duplicate keys): literal by literal, key-aware."""
        edits: list[tuple[int, int, str]] = []
        last_key: str | None = None
        last_key_end = -1
        last_end = 0
        self._where.append("")
        try:
            for m in STRING_LITERAL_RE.finditer(text):
                raw = m.group()
                last_end = m.end()
                key = last_key if last_key is not None and _COLON_GAP.fullmatch(text, last_key_end, m.start()) else None
                old = decode_literal(raw) if len(raw) > 1 and raw.endswith('"') else None
                if old is None:  # a literal cut at the end of the line (or a bad escape)
                    content = raw[1:]
                    new = self._keyed(key, content, depth) if key is not None else self._text(content, depth, None)
                    if new != content:
                        edits.append((m.start() + 1, m.end(), new))
                    last_key = None
                    continue
                if _COLON_AFTER.match(text, m.end()):
                    new = self.redact_string(old, depth + 1)
                    last_key, last_key_end = old, m.end()
                else:
                    new = self._keyed(key, old, depth) if key is not None else self.redact_string(old, depth + 1)
                    last_key = None
                if new != old:
                    edits.append((m.start(), m.end(), splice_literal(raw, old, new)))
            rest = text[last_end:]
            if "=" in rest or ":" in rest:
                new = self._text(rest, depth, None)
                if new != rest:
                    edits.append((last_end, len(text), new))
        finally:
            self._where.pop()
        return _splice(text, edits)

    def _keyed(self, key: str, value: str, depth: int) -> str:
        """A string value under ``key`` when nothing else is known about its context."""
        if key in EXEMPT_KEYS or key in ID_KEYS:
            return self.redact_identifier(value, depth + 1)
        verdict = self.keys.classify(key)
        if verdict is not None:
            level, kind = verdict
            if level == STRONG or (looks_random(value) and not is_hex_digest(value)):
                return self._whole(kind, value, key, depth)
        return self.redact_string(value, depth + 1, key)

    def _whole(self, kind: str, value: str, key: str | None, depth: int) -> str:
        """Redact a whole value found under a sensitive name (scheme and cookie names kept)."""
        if kind in self.keep:
            return self.redact_string(value, depth + 1, key)
        spans = value_spans(kind, value, 0, set_cookie=key is not None and normalize(key) == "setcookie")
        done = [m.span() for m in PLACEHOLDER_RE.finditer(value)] if "[REDACTED" in value else ()
        spans = [s for s in spans if not self._allowed(s.secret) and not any(_cuts(s, a, b) for a, b in done)]
        if not spans:
            return self.redact_string(value, depth + 1, key)
        return self._apply(value, spans)

    # -- layers ----------------------------------------------------------------------------------
    def _layers(self, text: str, depth: int) -> str:
        if "\\" in text and ESCAPES.search(text):
            text = self._in_view(text, escape_view(text), depth, "unescaped",
                                 lambda middle: escape_text(middle, "\\u" in text))
        if "+" in text and is_form_encoded(text):
            text = self._in_view(text, form_view(text), depth, "form-decoded", form_encode)
        elif "%" in text and PERCENT.search(text):
            text = self._in_view(text, percent_view(text), depth, "percent-decoded", percent_encode)
        if len(text) >= 20:
            text = self._base64(text, depth)
        return text

    def _in_view(self, text, view, depth, name, encode) -> str:
        if view.text == text:
            return text
        self._where.append(name)
        try:
            new = self.redact_string(view.text, depth + 1)
        finally:
            self._where.pop()
        return text if new == view.text else view.splice(new, encode)

    def _base64(self, text: str, depth: int) -> str:
        edits = []
        for m in BASE64_RUN_RE.finditer(text):
            run = m.group()
            if _BORING_RUN.fullmatch(run) or blobs.is_placeholder_blob(run):
                continue
            decoded = decode_base64_text(run)
            if decoded is None:
                continue
            inner, urlsafe, padded = decoded
            self._where.append("base64")
            try:
                new = self.redact_string(inner, depth + 1)
            finally:
                self._where.pop()
            if new != inner:
                edits.append((m.start(), m.end(), encode_base64_text(new, urlsafe, padded)))
        return _splice(text, edits) if edits else text

    # -- blobs and elicitation ----------------------------------------------------------------
    def _blob(self, value: str, mime: str | None, depth: int, fallback: str = "blob") -> str:
        kind = blobs.kind_for(mime, fallback)
        if not value or blobs.is_placeholder_blob(value):
            return value
        if self.keep_blobs or kind in self.keep:
            decoded = decode_base64_text(value.replace("\n", "").replace("\r", ""))
            if decoded is None:
                return value
            inner, urlsafe, padded = decoded
            self._where.append("base64")
            try:
                new = self.redact_string(inner, depth + 1)
            finally:
                self._where.pop()
            return value if new == inner else encode_base64_text(new, urlsafe, padded)
        self._emit(kind, value)
        return blobs.placeholder(self.tagger, kind, value, mime)

    def _answer(self, value: str, prop: Any, depth: int) -> str:
        """An accepted elicitation answer: personal by nature, whatever its shape."""
        if "elicitation-answer" in self.keep:
            return self.redact_string(value, depth + 1)
        if isinstance(prop, dict) and ("enum" in prop or "oneOf" in prop or "anyOf" in prop):
            return value
        if is_benign_value(value) or value.endswith("@example.invalid") or value.startswith("https://example.invalid/"):
            return value
        fmt = prop.get("format") if isinstance(prop, dict) else None
        if fmt == "email" or personal.EMAIL.fullmatch(value):
            self._emit("elicitation-answer", value)
            return self.tagger.email(value) if not self.tagger.plain else "[REDACTED]"
        if fmt in ("date", "date-time", "time"):
            fixed = {"date": "1970-01-01", "date-time": "1970-01-01T00:00:00Z", "time": "00:00:00"}[fmt]
            if value != fixed:
                self._emit("elicitation-answer", value)
            return fixed
        if fmt in ("uri", "url"):
            self._emit("elicitation-answer", value)
            return "https://example.invalid/" + self.tagger.tag(value)
        self._emit("elicitation-answer", value)
        return self.tagger.placeholder("elicitation-answer", value)

    def remember_elicitation(self, request_id: Any, properties: dict) -> None:
        # a copy: the walk may write redacted strings into the parsed message afterwards
        self._elicit[id_key(request_id)] = orjson.loads(orjson.dumps(properties))
        if len(self._elicit) > 1000:
            self._elicit.popitem(last=False)

    def elicitation_schema(self, request_id: Any) -> dict | None:
        try:
            return self._elicit.pop(id_key(request_id), None)
        except TypeError:
            return None


def _cuts(span: Span, start: int, end: int) -> bool:
    """``span`` overlaps the placeholder at ``start:end`` without holding it whole (a secret
    redacted earlier inside a larger one, e.g. a PEM block, does not shield the rest of it)."""
    return span.start < end and start < span.end and not (span.start <= start and end <= span.end
                                                          and span.end - span.start > end - start)


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    if not edits:
        return text
    edits.sort()
    pieces = []
    pos = 0
    for start, end, new in edits:
        if start < pos:
            continue
        pieces.append(text[pos:start])
        pieces.append(new)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


# -- structural walk ----------------------------------------------------------------------------
class _Ctx:
    """What a container's position says about the strings inside it."""

    __slots__ = (
        "accept",
        "answers",
        "blob_key",
        "blob_kind",
        "env",
        "eprops",
        "mime",
        "msg",
        "pair",
        "responses",
        "schema",
        "sens",
        "split",
    )

    def __init__(self, sens=None, schema=False, env=False, answers=None, eprops=None):
        self.sens = sens  # kind inherited from a sensitive ancestor key
        self.schema = schema  # inside inputSchema/outputSchema/requestedSchema
        self.env = env  # an env map: random values are secrets
        self.answers = answers  # inside accepted elicitation content: the requested properties
        self.eprops = eprops  # a response whose request was elicitation/create
        self.msg = False
        self.blob_key = None
        self.blob_kind = "blob"
        self.mime = None
        self.pair = None
        self.accept = False
        self.responses = False  # a 2026-07-28 inputResponses map
        self.split = None  # a text block: spans of a secret cut between it and its neighbours


class _Frame:
    __slots__ = ("ctx", "cur", "is_dict", "it", "split", "value")

    def __init__(self, is_dict, value, it, ctx):
        self.is_dict = is_dict
        self.value = value
        self.it = it
        self.ctx = ctx
        self.cur = None
        self.split: dict[int, list[Span]] | None = None  # an array: element index -> forced spans


class _Walk:
    """Walks a parsed JSON value in document order, deciding a new value for each string.

    Strings (keys and values) are numbered in document order, which is the order of the
    string literals in the text; :meth:`splice` uses that to rewrite only the changed ones.
    Each change also names its container and key, for :meth:`rewrite`.
    """

    def __init__(self, eng: Redactor, depth: int):
        self.eng = eng
        self.depth = depth
        self.ordinal = -1
        self.changes: list[tuple[int, str, str, Any, Any]] = []  # ordinal, old, new, container, key
        self.numbers: list[tuple[int, dict, str]] = []  # ordinal of the key, container, key
        self.renamed = False  # a key changed: only splice() can write that
        self.stack: list[_Frame] = []

    def path(self) -> str:
        out = ["$"]
        for frame in self.stack:
            if frame.cur is None:
                break
            out.append(f"[{frame.cur}]" if type(frame.cur) is int else f".{frame.cur}")
        return "".join(out)

    def run(self, root: Any) -> None:
        eng = self.eng
        kind = type(root)
        if kind is str:
            self.ordinal = 0
            new = eng.redact_string(root, self.depth)
            if new != root:
                self.changes.append((0, root, new, None, None))
            return
        if kind is not dict and kind is not list:
            return
        self._push(root, _Ctx())
        stack = self.stack
        keys = eng.keys
        verdicts = keys._cache  # name -> classify(name), for names seen before
        clean = eng._clean
        changes = self.changes
        depth = self.depth
        ordinal = -1
        # each frame's items are read in an inner loop, left (with a break) only to enter a child
        # container and resumed from the same iterator when the child is done
        while stack:
            frame = stack[-1]
            ctx = frame.ctx
            container = frame.value
            # strings that are short or known clean stay as they are, unless the position says more
            plain = ctx.blob_key is None and ctx.sens is None and ctx.pair is None and not ctx.env \
                and ctx.answers is None and ctx.split is None
            if frame.is_dict:
                for k, v in frame.it:
                    frame.cur = k
                    ordinal += 1
                    kord = ordinal
                    if len(k) > 3 and k not in clean:
                        nk = eng.redact_string(k, depth)
                        if nk != k:
                            changes.append((kord, k, nk, None, None))
                            self.renamed = True
                    tv = type(v)
                    if tv is str:
                        ordinal += 1
                        if plain and (len(v) < 4 or v in clean) and verdicts.get(k, 0) is None:
                            continue
                        nv = self._in_dict(ctx, k, v)
                        if nv != v:
                            changes.append((ordinal, v, nv, container, k))
                    elif tv is dict or tv is list:
                        self._push(v, self._child(ctx, k))
                        break
                    elif (tv is int or tv is float) and v != 0 and not ctx.schema \
                            and (ctx.sens is not None or verdicts.get(k, 0) is not None):
                        kind = ctx.sens if ctx.sens and not keys.benign(k) else keys.strong(k)
                        if kind is not None and kind not in eng.keep:
                            self.numbers.append((kord, container, k))
                            eng._emit(kind, repr(v))
                else:
                    stack.pop()
            else:
                prev = None  # the string before this one in the array (a frame is entered after a container)
                for i, v in frame.it:
                    frame.cur = i
                    if type(v) is str:
                        ordinal += 1
                        nv = self._in_list(ctx, prev, v)
                        if nv != v:
                            changes.append((ordinal, v, nv, container, i))
                        prev = v
                    else:
                        prev = None
                        if type(v) is dict or type(v) is list:
                            child = self._child(ctx, None)
                            if frame.split is not None:
                                child.split = frame.split.get(i)
                            self._push(v, child)
                            break
                else:
                    stack.pop()
        self.ordinal = ordinal

    def _push(self, value, ctx: _Ctx) -> None:
        if type(value) is dict and _SPECIAL_MEMBERS.isdisjoint(value):
            self.stack.append(_Frame(True, value, iter(value.items()), ctx))
        elif type(value) is dict:
            eng = self.eng
            if "jsonrpc" in value or (type(value.get("method")) is str and ("id" in value or "params" in value)) \
                    or ("id" in value and ("result" in value or "error" in value)):
                ctx.msg = True
                self._message(value, ctx)
            t = value.get("type")
            if t in ("image", "audio") and type(value.get("data")) is str:
                ctx.blob_key, ctx.blob_kind = "data", t
            elif type(value.get("blob")) is str and ("uri" in value or "mimeType" in value):
                ctx.blob_key = "blob"
            if ctx.blob_key is not None:
                mime = value.get("mimeType")
                ctx.mime = mime if type(mime) is str else None
            if "value" in value:
                for name_key in ("name", "key", "header", "Name"):
                    name = value.get(name_key)
                    if type(name) is str:
                        ctx.pair = eng.keys.strong(name)
                        break
            if value.get("action") == "accept" and type(value.get("content")) is dict:
                ctx.accept = True
            self.stack.append(_Frame(True, value, iter(value.items()), ctx))
        else:
            frame = _Frame(False, value, enumerate(value), ctx)
            if len(value) > 1 and not ctx.schema:
                frame.split = self._split_blocks(value)
            self.stack.append(frame)

    def _split_blocks(self, items: list) -> dict[int, list[Span]] | None:
        """Forced spans (:meth:`Redactor.split_spans`) of each run of adjacent ``{"type": "text",
        "text": ...}`` blocks of an array, by index; None when nothing is cut between them."""
        if type(items[0]) is not dict:
            return None  # not an array of content blocks
        out: dict[int, list[Span]] | None = None
        run: list[int] = []
        for i, item in enumerate(itertools.chain(items, (None,))):
            if type(item) is dict and item.get("type") == "text" and type(item.get("text")) is str:
                run.append(i)
                continue
            if len(run) > 1:
                pieces = self.eng.split_spans([items[j]["text"] for j in run])
                if pieces is not None:
                    out = out or {}
                    out.update((j, p) for j, p in zip(run, pieces, strict=True) if p)
            run = []
        return out

    def _message(self, value: dict, ctx: _Ctx) -> None:
        eng = self.eng
        if value.get("method") == "elicitation/create" and "id" in value:
            props = _requested_properties(value.get("params"))
            if props is not None:
                eng.remember_elicitation(value["id"], props)
        elif "result" in value and "id" in value and eng._elicit:
            ctx.eprops = eng.elicitation_schema(value["id"])
        result = value.get("result")
        requests = result.get("inputRequests") if type(result) is dict else None
        if type(requests) is dict:  # 2026-07-28 multi-round-trip: answered later in inputResponses
            for name, request in requests.items():
                if type(request) is dict and request.get("method") == "elicitation/create":
                    props = _requested_properties(request.get("params"))
                    if props is not None:
                        eng.remember_elicitation(("input", name), props)

    def _child(self, parent: _Ctx, key: str | None) -> _Ctx:
        schema = parent.schema or (key is not None and key in SCHEMA_KEYS)
        sens = parent.sens
        if key is not None and not schema and sens is None:
            strong = self.eng.keys.strong(key)
            if strong in _PROPAGATING and strong not in self.eng.keep:
                sens = strong
        answers = parent.answers
        if key == "content" and parent.accept:
            answers = parent.eprops if parent.eprops is not None else {}
        eprops = parent.eprops if key == "result" else None
        if parent.responses and key is not None:
            eprops = self.eng.elicitation_schema(("input", key))
        child = _Ctx(sens, schema, key is not None and key in ENV_KEYS, answers, eprops)
        child.responses = key == "inputResponses"
        return child

    def _in_dict(self, ctx: _Ctx, k: str, v: str) -> str:
        eng = self.eng
        depth = self.depth
        if (ctx.msg and k in EXEMPT_KEYS) or (k in ID_KEYS and not ctx.env):
            return eng.redact_identifier(v, depth)
        if ctx.split is not None and k == "text":
            v = eng.force(v, ctx.split)
        if ctx.blob_key == k:
            return eng._blob(v, ctx.mime, depth, ctx.blob_kind)
        if ctx.schema:
            return eng.redact_string(v, depth, k)
        if ctx.sens is not None:
            if eng.keys.benign(k):
                return eng.redact_string(v, depth, k)
            return eng._whole(ctx.sens, v, k, depth)
        verdict = eng.keys.classify(k)
        if verdict is not None:
            level, kind = verdict
            if level == STRONG or (looks_random(v) and not is_hex_digest(v)) or (
                    kind == "session-id" and is_uuid(v)):
                return eng._whole(kind, v, k, depth)
        if ctx.pair is not None and k == "value":
            return eng._whole(ctx.pair, v, k, depth)
        if ctx.env and looks_random(v):
            return eng._whole("env-secret", v, k, depth)
        if ctx.answers is not None:
            return eng._answer(v, ctx.answers.get(k), depth)
        return eng.redact_string(v, depth, k)

    def _in_list(self, ctx: _Ctx, prev: str | None, v: str) -> str:
        eng = self.eng
        if ctx.sens is not None:
            return eng._whole(ctx.sens, v, None, self.depth)
        if ctx.answers is not None:
            return v  # multi-select answers are enum values
        if prev is not None and not ctx.schema:
            kind = _pair_kind(eng.keys, prev)
            if kind is not None:
                return eng._whole(kind, v, None, self.depth)
        return eng.redact_string(v, self.depth)

    def splice(self, text: str) -> str | None:
        """``text`` with the changed strings (and zeroed numbers) rewritten; None if unsure."""
        spans = [m.span() for m in STRING_LITERAL_RE.finditer(text)]
        if len(spans) != self.ordinal + 1:
            return None  # duplicate keys or an unusual document: the caller goes literal by literal
        edits: list[tuple[int, int, str]] = []
        for ordinal, old, new, _, _ in self.changes:
            start, end = spans[ordinal]
            raw = text[start:end]
            if decode_literal(raw) != old:
                return None
            edits.append((start, end, splice_literal(raw, old, new)))
        for kord, _, _ in self.numbers:
            m = _NUMBER_AFTER_KEY.match(text, spans[kord][1])
            if m is not None:
                edits.append((m.start(1), m.end(1), "0"))
        return _splice(text, edits)

    def rewrite(self, value: Any, text: str) -> str | None:
        """``value`` with the changes written in and serialised again, when ``text`` is exactly
        what orjson writes for ``value`` (compact, orjson's escapes): the same bytes as
        :meth:`splice` without scanning the text. None otherwise; ``value`` is changed in place."""
        if self.renamed or "\\u" in text:
            return None
        try:
            if orjson.dumps(value) != text.encode("utf-8"):
                return None
            for _, _, new, container, key in self.changes:
                if container is None:
                    value = new
                else:
                    container[key] = new
            for _, container, key in self.numbers:
                container[key] = 0
            return orjson.dumps(value).decode("utf-8")
        except (TypeError, UnicodeEncodeError):
            return None


def _whole_token(text: str, span: Span) -> bool:
    """Whether ``text``, found on its own at the end of a part (see :meth:`Redactor.split_spans`),
    is a whole provider token: as long as the tokens of its rule."""
    if span.rank != PROVIDER:
        return False
    by_prefix, by_kind = _token_lengths()
    for prefix, n in by_prefix:
        if text.startswith(prefix):
            return len(text) >= n
    return len(text) >= by_kind.get(span.kind, 0)


@functools.cache
def _token_lengths() -> tuple[list[tuple[str, int]], dict[str, int]]:
    """(prefix, length) longest prefix first, and kind -> length, of the provider tokens (samples)."""
    by_prefix: list[tuple[str, int]] = []
    by_kind: dict[str, int] = {}
    for rule in providers.RULES:
        n = min(len(rule.sample(random.Random(seed))) for seed in range(3))
        by_kind[rule.kind] = max(by_kind.get(rule.kind, 0), n)
        by_prefix.extend((prefix, n) for prefix in rule.prefixes)
    by_prefix.sort(key=lambda pn: -len(pn[0]))
    return by_prefix, by_kind


def _requested_properties(params: Any) -> dict | None:
    schema = params.get("requestedSchema") if type(params) is dict else None
    props = schema.get("properties") if type(schema) is dict else None
    return props if type(props) is dict else None


def _pair_kind(keys: KeyClassifier, name: str) -> str | None:
    """The element before a value in an array: ``--token``, ``Authorization``, ``GITHUB_TOKEN``."""
    if len(name) > 64 or " " in name:
        return None
    if name.startswith("-"):
        return None if "=" in name else keys.strong(name.lstrip("-"))
    kind = keys.strong(name)
    if kind is not None and ("-" in name or name[:1].isupper() or kind in ("authorization", "cookie")):
        return kind
    return None

"""Generated plants for the redaction acceptance tests: every kind of secret or personal value,
planted in every place a capture holds one, written in every input format.

- **Kinds** (:data:`KINDS`, plus one kind per provider rule, :func:`token_kind`): a generator
  ``rnd -> Plant`` builds one value at run time (prefix + random body, valid check digits for
  cards, IBANs and SSNs; the repository never holds a real-looking literal). A :class:`Plant`
  knows how the value reads in free text, the fragments that must not survive, where a streamed
  copy may be cut (prefix | body) and, for structured places, the member it is (``{"note": text}``,
  ``{"password": X}``).
- **Places** (:data:`PLACES`): where a capture holds the value (tool arguments, results, nested
  JSON strings, keys, URLs, base64, ``_meta``, errors, log notifications, stderr, ids, methods,
  split blocks, HAR headers/cookies/query strings, host log lines); each builds a scenario, a
  list of events: :class:`Msg` (a JSON-RPC message, with HTTP extras for HAR), :class:`Stderr`
  (server stderr lines), :class:`Host` (the host's own log line).
- **Formats** (:func:`render`): one writer per reader of ``mcplint.input.readers.READERS``, in that
  format's real shape (see ``samples/``); the document records which lines each scenario occupies,
  so a leak is attributed to its plant (redaction keeps the line count).
"""

from __future__ import annotations

import base64
import json
import random
import string
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from mcplint.redact.providers import RULES, TokenRule
from tests import harbuilder

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
LOWER = string.ascii_lowercase
VERSION = "2025-06-18"


def body(rnd: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rnd.choice(alphabet) for _ in range(n))


def j(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


# -- kinds ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plant:
    kind: str
    text: str  # the value as it reads in free text
    secrets: tuple[str, ...]  # fragments that must not survive (in any decoded layer)
    split: int  # a streamed copy is cut here: text[:split] | text[split:]
    member: tuple[str, str] | None = None  # (key, value) in structured places; default ("note", text)

    @property
    def pair(self) -> tuple[str, str]:
        return self.member or ("note", self.text)

    def split_secrets(self) -> tuple[str, ...]:
        """The fragments to look for when the text is cut at :attr:`split`: each fragment's parts
        on either side of the cut, when at least 6 characters long (shorter parts are public
        prefixes and keywords); a fragment that is not in the text (it is inside an encoding)
        is kept whole."""
        out = []
        for secret in self.secrets:
            at = self.text.find(secret)
            if at < 0:
                out.append(secret)
                continue
            cut = min(max(self.split - at, 0), len(secret))
            out.extend(part for part in (secret[:cut], secret[cut:]) if len(part) >= 6)
        return tuple(out)


def luhn_digit(partial: str) -> str:
    """The check digit that makes ``partial + digit`` Luhn-valid."""
    total = 0
    for i, c in enumerate(reversed(partial)):
        d = int(c)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str(-total % 10)


#: issuer -> (prefixes, length, spaced grouping)
ISSUERS: dict[str, tuple[tuple[str, ...], int, tuple[int, ...]]] = {
    "visa": (("4",), 16, (4, 4, 4, 4)),
    "mastercard": (("51", "52", "53", "54", "55", "2221", "2500", "2720"), 16, (4, 4, 4, 4)),
    "amex": (("34", "37"), 15, (4, 6, 5)),
    "discover": (("6011", "65"), 16, (4, 4, 4, 4)),
    "jcb": (tuple(str(n) for n in range(3528, 3590)), 16, (4, 4, 4, 4)),
    "diners": (("36",), 14, (4, 6, 4)),
}


def card_number(rnd: random.Random, issuer: str) -> tuple[str, tuple[int, ...]]:
    prefixes, length, groups = ISSUERS[issuer]
    partial = rnd.choice(prefixes)
    partial += body(rnd, length - 1 - len(partial), string.digits)
    return partial + luhn_digit(partial), groups


def grouped(digits: str, groups: tuple[int, ...], sep: str) -> str:
    out, at = [], 0
    for n in groups:
        out.append(digits[at:at + n])
        at += n
    return sep.join(out)


def _card(style: str) -> Callable[[random.Random], Plant]:
    def make(rnd: random.Random) -> Plant:
        digits, groups = card_number(rnd, rnd.choice(sorted(ISSUERS)))
        text = digits if style == "compact" else grouped(digits, groups, " " if style == "spaced" else "-")
        return Plant(f"card-{style}", text, (text,), len(text) // 2)
    return make


#: country -> BBAN layout (n: digits, a: upper letters, c: alphanumeric), as ISO 13616 registers them
IBAN_LAYOUTS = {"DE": "18n", "GB": "4a14n", "FR": "10n11c2n", "NL": "4a10n", "ES": "20n", "IT": "1a10n12c",
                "BE": "12n", "CH": "5n12c", "PL": "24n", "AT": "16n"}


def _bban(rnd: random.Random, layout: str) -> str:
    out, number = [], ""
    for c in layout:
        if c.isdigit():
            number += c
            continue
        alphabet = {"n": string.digits, "a": string.ascii_uppercase, "c": string.ascii_uppercase + string.digits}[c]
        out.append(body(rnd, int(number), alphabet))
        number = ""
    return "".join(out)


def iban_check(country: str, bban: str) -> str:
    """ISO 13616 check digits (mod 97)."""
    moved = bban + country + "00"
    number = int("".join(str(int(c, 36)) for c in moved))
    return f"{98 - number % 97:02d}"


def iban(rnd: random.Random, country: str | None = None) -> str:
    country = country or rnd.choice(sorted(IBAN_LAYOUTS))
    bban = _bban(rnd, IBAN_LAYOUTS[country])
    return country + iban_check(country, bban) + bban


def iban_valid(value: str) -> bool:
    compact = value.replace(" ", "")
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def _iban(style: str) -> Callable[[random.Random], Plant]:
    def make(rnd: random.Random) -> Plant:
        compact = iban(rnd)
        text = compact if style == "compact" else " ".join(compact[i:i + 4] for i in range(0, len(compact), 4))
        return Plant(f"iban-{style}", text, (text,), len(text) // 2)
    return make


def ssn(rnd: random.Random) -> str:
    """A US SSN with a valid area (001-899, not 666), group (01-99) and serial (0001-9999)."""
    area = rnd.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}-{rnd.randint(1, 99):02d}-{rnd.randint(1, 9999):04d}"


def _ssn(rnd: random.Random) -> Plant:
    text = ssn(rnd)
    return Plant("ssn", text, (text,), 7)


def password(rnd: random.Random, n: int = 14) -> str:
    """A shapeless password: letters, digits and punctuation, no known prefix."""
    core = body(rnd, n - 3, ALNUM + "!#%*+,.:;?@^_~-")
    return rnd.choice(string.ascii_letters) + core + rnd.choice(string.digits) + rnd.choice("!#%*")


def jwt(rnd: random.Random, header: dict | None = None) -> str:
    header = header or {"alg": "RS256", "typ": "JWT", "kid": body(rnd, 12)}
    payload = {"sub": body(rnd, 16), "iss": "https://auth.acme-corp.io/", "aud": "mcp", "iat": 1767225600,
               "exp": 1767229200, "scope": "tools:read tools:call"}
    return (b64url(j(header).encode()) + "." + b64url(j(payload).encode()) + "."
            + b64url(rnd.randbytes(256)))


def _jwt(rnd: random.Random) -> Plant:
    text = jwt(rnd)
    return Plant("jwt", text, (text,), 3)


def _jwt_x5c(rnd: random.Random) -> Plant:
    """A JWT whose header carries an ``x5c`` chain (two DER certificates, base64): ~2 KB header."""
    chain = [base64.b64encode(b"\x30\x82\x03\x0a" + rnd.randbytes(700)).decode() for _ in range(2)]
    text = jwt(rnd, {"alg": "RS256", "typ": "JWT", "x5c": chain})
    return Plant("jwt-x5c", text, (text,), 3)


def _google_refresh(rnd: random.Random) -> Plant:
    text = "1//" + "0" + body(rnd, rnd.randint(60, 100), URLSAFE)
    return Plant("google-refresh-token", text, (text,), 4)


def _password_prose(rnd: random.Random) -> Plant:
    word = rnd.choice(["password", "passwd", "secret", "token", "api key"])
    secret = password(rnd)
    lead = rnd.choice([f"the {word} is ", f"my {word} is ", f"{word.capitalize()} is "])
    return Plant("password-prose", lead + secret, (secret,), len(lead))


def _session_uuid(rnd: random.Random) -> Plant:
    sid = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
    text = f"session {sid} opened"
    return Plant("session-uuid", text, (sid,), 8)


def _bearer(rnd: random.Random) -> Plant:
    token = body(rnd, 40, URLSAFE)
    return Plant("bearer", "Bearer " + token, (token,), 7)


def _basic(rnd: random.Random) -> Plant:
    user, secret = "svc-" + body(rnd, 6, LOWER), password(rnd)
    encoded = base64.b64encode(f"{user}:{secret}".encode()).decode()
    return Plant("basic", "Basic " + encoded, (encoded, secret), 6)


def _email(rnd: random.Random) -> Plant:
    text = (body(rnd, rnd.randint(4, 8), LOWER) + "." + body(rnd, rnd.randint(4, 9), LOWER) + "@"
            + body(rnd, 6, LOWER) + rnd.choice(["-corp.io", "mail.com", ".de", "-group.net"]))
    return Plant("email", text, (text,), text.index("@") + 1)


def _phone(rnd: random.Random) -> Plant:
    d = lambda n: body(rnd, n, string.digits)  # noqa: E731
    text = rnd.choice([
        f"+1 {rnd.randint(201, 989)} {rnd.randint(200, 999)} {d(4)}",
        f"+1-{rnd.randint(201, 989)}-{rnd.randint(200, 999)}-{d(4)}",
        f"+44 20 {rnd.randint(7000, 8999)} {d(4)}",
        f"+49 30 {rnd.randint(2, 9)}{d(7)}",
        f"+33 1 {d(2)} {d(2)} {d(2)} {d(2)}",
        f"({rnd.randint(201, 989)}) {rnd.randint(200, 999)}-{d(4)}",
    ])
    return Plant("phone", text, (text,), len(text) // 2)


def user_name(rnd: random.Random) -> str:
    return rnd.choice(LOWER) + body(rnd, rnd.randint(6, 9), LOWER) + str(rnd.randint(1, 99))


def _home(shape: str) -> Callable[[random.Random], Plant]:
    def make(rnd: random.Random) -> Plant:
        name = user_name(rnd)
        text = {"mac": f"/Users/{name}/projects/app/main.py", "linux": f"/home/{name}/.config/app/settings.toml",
                "windows": f"C:\\Users\\{name}\\AppData\\Roaming\\app\\config.json"}[shape]
        return Plant(f"home-{shape}", text, (name,), text.index(name))
    return make


def _sensitive_key(rnd: random.Random) -> Plant:
    secret = password(rnd)
    return Plant("sensitive-key", "DB_PASSWORD=" + secret, (secret,), 12, ("password", secret))


def _url_credentials(rnd: random.Random) -> Plant:
    secret, token = body(rnd, 14), body(rnd, 32, URLSAFE)
    text = f"https://deploy:{secret}@git.acme-corp.io/org/repo.git?access_token={token}"
    return Plant("url-credentials", text, (secret, token), text.index(":", 8) + 1)


#: The kinds that are not provider rules, by name.
KINDS: dict[str, Callable[[random.Random], Plant]] = {
    "jwt": _jwt,
    "jwt-x5c": _jwt_x5c,
    "google-refresh-token": _google_refresh,
    "card-compact": _card("compact"),
    "card-spaced": _card("spaced"),
    "card-dashed": _card("dashed"),
    "iban-compact": _iban("compact"),
    "iban-spaced": _iban("spaced"),
    "ssn": _ssn,
    "password-prose": _password_prose,
    "session-uuid": _session_uuid,
    "bearer": _bearer,
    "basic": _basic,
    "email": _email,
    "phone": _phone,
    "home-mac": _home("mac"),
    "home-linux": _home("linux"),
    "home-windows": _home("windows"),
    "sensitive-key": _sensitive_key,
    "url-credentials": _url_credentials,
}


def _rule_names() -> dict[str, TokenRule]:
    out: dict[str, TokenRule] = {}
    for rule in RULES:
        name, n = f"token:{rule.kind}", 2
        while name in out:
            name, n = f"token:{rule.kind}/{n}", n + 1
        out[name] = rule
    return out


#: One kind per provider rule: ``token:<kind>`` (``token:<kind>/2`` for a second rule of a kind).
TOKEN_RULES: dict[str, TokenRule] = _rule_names()


def _fixed_head(rule: TokenRule) -> int:
    """Length of the part every sample of ``rule`` starts with (prefix and fixed middle)."""
    samples = [rule.sample(random.Random(seed)) for seed in range(4)]
    n = 0
    while all(len(s) > n for s in samples) and len({s[n] for s in samples}) == 1:
        n += 1
    return n


_HEADS = {name: _fixed_head(rule) for name, rule in TOKEN_RULES.items()}


def token_kind(name: str, rnd: random.Random) -> Plant:
    """A sample of one provider rule; the fragments are its random part (for private keys, the
    key's body lines: the BEGIN/END armour is public)."""
    rule = TOKEN_RULES[name]
    text = rule.sample(rnd)
    if rule.kind == "private-key":
        lines = text.split("\n")
        secrets = tuple(line.split(": ", 1)[-1] for line in lines[1:] if len(line) >= 32 and "-----" not in line)
        return Plant(name, text, secrets, len(lines[0]) + 1)
    head = _HEADS[name]
    cut = len(rule.prefixes[0]) if rule.prefixes else len(text) // 2
    return Plant(name, text, (text[head:] if len(text) - head >= 12 else text,), cut)


def make_plant(kind: str, rnd: random.Random) -> Plant:
    if kind in TOKEN_RULES:
        return token_kind(kind, rnd)
    return KINDS[kind](rnd)


# -- places -----------------------------------------------------------------------------------------
@dataclass
class Msg:
    direction: str  # "c2s" | "s2c"
    message: dict
    http: dict = field(default_factory=dict)  # HAR only: headers, cookies, query


@dataclass
class Stderr:
    """What the server wrote to stderr: one item per write (a write may hold several lines)."""

    writes: list[str]

    @property
    def lines(self) -> list[str]:
        return [line for write in self.writes for line in write.split("\n")]


@dataclass
class Host:
    text: str


Event = Msg | Stderr | Host


class Ids:
    """Fresh request ids, distinct across a document."""

    def __init__(self, start: int = 100):
        self.n = start

    def __call__(self) -> int:
        self.n += 1
        return self.n


def _call(ids: Ids, arguments: dict | None = None, meta: dict | None = None, *, rid: Any = None,
          name: str = "run") -> dict:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": ids() if rid is None else rid, "method": "tools/call", "params": params}


def _result(request: dict, result: dict | None = None) -> dict:
    return {"jsonrpc": "2.0", "id": request["id"], "result": result or {"content": [{"type": "text", "text": "done"}]}}


def _text_result(request: dict, *texts: str) -> dict:
    return _result(request, {"content": [{"type": "text", "text": t} for t in texts]})


def _exchange(request: dict, *answers: dict, http: dict | None = None) -> list[Event]:
    return [Msg("c2s", request, http or {})] + [Msg("s2c", a) for a in answers]


def _quote(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def _blob(p: Plant, ids: Ids) -> list[Event]:
    request = {"jsonrpc": "2.0", "id": ids(), "method": "resources/read",
               "params": {"uri": "file:///srv/app/notes.txt"}}
    blob = base64.b64encode(f"notes from the deploy\n{p.text}\n-- end of notes\n".encode()).decode()
    return _exchange(request, _result(request, {"contents": [
        {"uri": "file:///srv/app/notes.txt", "mimeType": "text/plain", "blob": blob}]}))


def _error(p: Plant, ids: Ids, in_data: bool) -> list[Event]:
    request = _call(ids, {"target": "upstream"})
    error = {"code": -32603, "message": "upstream failed" if in_data else f"upstream failed: {p.text}"}
    if in_data:
        error["data"] = dict([p.pair])
    return _exchange(request, {"jsonrpc": "2.0", "id": request["id"], "error": error})


def _log(p: Plant, ids: Ids) -> list[Event]:
    request = _call(ids, {"target": "upstream"})
    note = {"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "error", "logger": "upstream", "data": p.text}}
    return _exchange(request, note, _result(request))


def _id(p: Plant, ids: Ids) -> list[Event]:
    request = _call(ids, {"city": "Oslo"}, rid=p.text)
    return _exchange(request, _text_result(request, "Oslo: rain"))


def _method(p: Plant, ids: Ids) -> list[Event]:
    request = {"jsonrpc": "2.0", "id": ids(), "method": p.text, "params": {}}
    return _exchange(request, {"jsonrpc": "2.0", "id": request["id"],
                               "error": {"code": -32601, "message": "Method not found"}})


def _har_header(p: Plant, ids: Ids) -> list[Event]:
    name, value = p.pair
    header = "X-Client-Note" if name == "note" else name
    request = _call(ids, {"city": "Oslo"})
    return _exchange(request, _result(request), http={"headers": {header: value}})


def _har_cookie(p: Plant, ids: Ids) -> list[Event]:
    request = _call(ids, {"city": "Oslo"})
    return _exchange(request, _result(request), http={
        "headers": {"Cookie": "theme=dark; prefs=" + _quote(p.text)},
        "cookies": [{"name": "theme", "value": "dark"}, {"name": "prefs", "value": p.text}]})


def _har_query(p: Plant, ids: Ids) -> list[Event]:
    request = _call(ids, {"city": "Oslo"})
    return _exchange(request, _result(request), http={"query": [("page", "2"), ("note", p.text)]})


@dataclass(frozen=True)
class Place:
    build: Callable[[Plant, Ids], list[Event]]
    formats: frozenset[str] | None = None  # None: every format
    split: bool = False  # the value is cut at Plant.split: look for Plant.split_secrets()


STDERR_FORMATS = frozenset({"jsonl", "capture", "transcript", "claude-desktop", "vscode", "go-sdk-log", "mcpsnoop"})

PLACES: dict[str, Place] = {
    "tool-args": Place(lambda p, ids: (lambda r: _exchange(r, _result(r)))(_call(ids, dict([p.pair])))),
    "result-text": Place(lambda p, ids: (lambda r: _exchange(r, _text_result(r, f"output: {p.text}")))(_call(ids))),
    "structured": Place(lambda p, ids: (lambda r: _exchange(r, _result(r, {
        "content": [{"type": "text", "text": "see structuredContent"}], "structuredContent": dict([p.pair])})))(
        _call(ids))),
    "nested-json": Place(lambda p, ids: (lambda r: _exchange(r, _text_result(
        r, j({"inner": j({"deep": p.text})}))))(_call(ids))),
    "json-key": Place(lambda p, ids: (lambda r: _exchange(r, _result(r)))(_call(ids, {p.text: "value"}))),
    "url-query": Place(lambda p, ids: (lambda r: _exchange(r, _result(r)))(_call(ids, {
        "url": f"https://api.example.net/search?q={_quote(p.text)}&page=2"}))),
    "url-userinfo": Place(lambda p, ids: (lambda r: _exchange(r, _result(r)))(_call(ids, {
        "remote": f"https://deploy:{_quote(p.text)}@git.example.net/org/repo.git"}))),
    "blob": Place(_blob),
    "base64-text": Place(lambda p, ids: (lambda r: _exchange(r, _text_result(
        r, base64.b64encode(f"config:\n  value: {p.text}\n  updated: 2026-03-02\n".encode()).decode())))(_call(ids))),
    "meta": Place(lambda p, ids: (lambda r: _exchange(r, _result(r)))(_call(
        ids, {"city": "Oslo"}, {"progressToken": ids(), "com.example/trace": p.text}))),
    "error-message": Place(lambda p, ids: _error(p, ids, False)),
    "error-data": Place(lambda p, ids: _error(p, ids, True)),
    "log": Place(_log),
    "id": Place(_id),
    "method": Place(_method),
    "split-blocks": Place(lambda p, ids: (lambda r: _exchange(r, _text_result(
        r, "part 1: " + p.text[:p.split], p.text[p.split:])))(_call(ids)), split=True),
    "stderr": Place(lambda p, ids: [Stderr(["warn: " + p.text])], STDERR_FORMATS),
    "split-stderr": Place(lambda p, ids: [Stderr(["auth: " + p.text[:p.split], p.text[p.split:] + " (retrying)"])],
                          STDERR_FORMATS, split=True),
    "host-log": Place(lambda p, ids: [Host(p.text)], frozenset({"claude-desktop", "vscode"})),
    "har-header": Place(_har_header, frozenset({"har"})),
    "har-cookie": Place(_har_cookie, frozenset({"har"})),
    "har-query": Place(_har_query, frozenset({"har"})),
}


def handshake() -> list[Event]:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {"roots": {"listChanged": True}},
        "clientInfo": {"name": "acme-client", "version": "1.4.2"}}}
    result = {"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": VERSION, "capabilities": {"tools": {"listChanged": True}, "resources": {}, "logging": {}},
        "serverInfo": {"name": "acme-server", "version": "0.9.1"}}}
    return [Msg("c2s", init), Msg("s2c", result), Msg("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"})]


# -- formats ----------------------------------------------------------------------------------------
@dataclass
class Document:
    text: str
    ranges: list[tuple[int, int]]  # per scenario: [first, last) line index (0-based)


START = datetime(2026, 3, 2, 9, 30, 0, tzinfo=UTC)


class _Clock:
    def __init__(self) -> None:
        self.t = START

    def tick(self) -> datetime:
        self.t += timedelta(milliseconds=11)
        return self.t


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _inspect(text: str) -> str:
    """A string as Node's util.inspect prints it inside an object literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def _line_writer(fmt: str) -> Callable[[Event, _Clock, int], list[str]]:
    def jsonl(e: Event, clock: _Clock, seq: int) -> list[str]:
        return [j(e.message)] if isinstance(e, Msg) else list(e.lines)

    def capture(e: Event, clock: _Clock, seq: int) -> list[str]:
        if isinstance(e, Msg):
            return [j({"ts": _iso(clock.tick()), "dir": e.direction, "raw": j(e.message)})]
        return [j({"ts": _iso(clock.tick()), "dir": "stderr", "raw": line}) for line in e.lines]

    def transcript(e: Event, clock: _Clock, seq: int) -> list[str]:
        if isinstance(e, Msg):
            return [("C→S " if e.direction == "c2s" else "S→C ") + j(e.message)]
        return ["# stderr: " + line for line in e.lines]

    def claude(e: Event, clock: _Clock, seq: int) -> list[str]:
        stamp = _iso(clock.tick())
        if isinstance(e, Msg):
            who = "client" if e.direction == "c2s" else "server"
            return [f"{stamp} [acme] [info] Message from {who}: {j(e.message)} {{ metadata: undefined }}"]
        if isinstance(e, Stderr):
            return list(e.lines)
        return [f"{stamp} [acme] [info] Using MCP server command: /usr/local/bin/npx with args and path: {{",
                "  metadata: {",
                f"    args: [ '-y', '@acme/mcp-server', {_inspect(e.text)}, [length]: 3 ],",
                "    paths: [ '/usr/local/bin', '/usr/bin', [length]: 2 ]",
                "  }",
                "} %o"]

    def vscode(e: Event, clock: _Clock, seq: int) -> list[str]:
        t = clock.tick()
        stamp = t.strftime("%Y-%m-%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"
        if isinstance(e, Msg):
            arrow = "[editor -> server]" if e.direction == "c2s" else "[server -> editor]"
            return [f"{stamp} [debug] {arrow} {j(e.message)}"]
        if isinstance(e, Stderr):
            return [f"{stamp} [warning] [server stderr] {line}" for line in e.lines]
        first, *rest = e.text.split("\n")
        return [f"{stamp} [error] Error starting server acme: {first}"] + rest

    def go_sdk(e: Event, clock: _Clock, seq: int) -> list[str]:
        if isinstance(e, Msg):  # the server logged: it reads what the client sends
            return [("read: " if e.direction == "c2s" else "write: ") + j(e.message)]
        stamp = clock.tick().strftime("%Y/%m/%d %H:%M:%S")  # log.Printf: the prefix starts each write
        return [line for write in e.writes for line in f"{stamp} {write}".split("\n")]

    def mcpsnoop(e: Event, clock: _Clock, seq: int) -> list[str]:
        head = {"session_id": "server.py-48213-7f3a1c9e2b04", "server_label": "acme", "seq": seq,
                "ts": _iso(clock.tick())}
        if isinstance(e, Msg):
            return [j({**head, "direction": e.direction, "transport": "stdio", "raw": e.message})]
        return [j({**head, "direction": "stderr", "transport": "stdio", "text": line}) for line in e.lines]

    def mcpspy(e: Event, clock: _Clock, seq: int) -> list[str]:
        m = e.message
        client, server = {"pid": 4211, "comm": "node"}, {"pid": 4230, "comm": "python3"}
        sender, receiver = (client, server) if e.direction == "c2s" else (server, client)
        kind = "request" if "method" in m and "id" in m else "notification" if "method" in m else "response"
        event: dict[str, Any] = {
            "timestamp": clock.tick().isoformat(timespec="microseconds").replace("+00:00", "Z"),
            "transport_type": "stdio",
            "stdio_transport": {"from_pid": sender["pid"], "from_comm": sender["comm"],
                                "to_pid": receiver["pid"], "to_comm": receiver["comm"]},
            "session": {"internal_id": "5b0d7c1e-9a3f-4c2d-8e61-3f0a9b7c2d14"}, "type": kind}
        for key in ("id", "method", "params", "result"):
            if key in m:
                event[key] = m[key]
        event["error"] = m.get("error", {})
        event["raw"] = j(m)
        return [j(event)]

    def python_sdk(e: Event, clock: _Clock, seq: int) -> list[str]:  # a client's DEBUG logging, 1.x reprs
        if e.direction == "c2s":
            return [f"DEBUG:mcp.client.streamable_http:Sending client message: root={_pydantic(e.message)}"]
        return [f"DEBUG:mcp.client.streamable_http:SSE message: root={_pydantic(e.message)}"]

    return {"jsonl": jsonl, "capture": capture, "transcript": transcript, "claude-desktop": claude,
            "vscode": vscode, "go-sdk-log": go_sdk, "mcpsnoop": mcpsnoop, "mcpspy": mcpspy,
            "python-sdk-log": python_sdk}[fmt]


class _Model:
    """A pydantic model as its repr prints it (``JSONRPCRequest(method='ping', ...)``)."""

    def __init__(self, name: str, fields: list[tuple[str, Any]]):
        self.text = f"{name}(" + ", ".join(f"{key}={value!r}" for key, value in fields) + ")"

    def __repr__(self) -> str:
        return self.text


def _pydantic(m: dict) -> str:
    """A message as the Python SDK 1.x prints it (``JSONRPCRequest(method=..., params=..., ...)``)."""
    if "method" in m:
        fields = [("method", m["method"]), ("params", m.get("params")), ("jsonrpc", m["jsonrpc"])]
        model = _Model("JSONRPCRequest", fields + [("id", m["id"])]) if "id" in m else _Model("JSONRPCNotification", fields)
    elif "error" in m:
        error = m["error"]
        data = _Model("ErrorData", [("code", error["code"]), ("message", error["message"]), ("data", error.get("data"))])
        model = _Model("JSONRPCError", [("jsonrpc", m["jsonrpc"]), ("id", m["id"]), ("error", data)])
    else:
        model = _Model("JSONRPCResponse", [("jsonrpc", m["jsonrpc"]), ("id", m["id"]), ("result", m["result"])])
    return repr(model)


#: Formats whose documents cannot hold the planted traffic, with why; their redaction is checked on
#: their samples (tests/test_redact_formats.py).
UNPLANTABLE = {
    "claude-code-mcp-logs": "a log of events: it holds no messages",
    "claude-code-debug": "a log of events: it holds no messages",
    "cursor": "a log of events: it holds no messages",
    "mcp-proxy": "the proxy logs the server's side only",
}


def _exchanges(events: list[Event]) -> list[tuple[Msg, list[Msg]]]:
    """Messages grouped as a client message and the server messages that follow it."""
    out: list[tuple[Msg, list[Msg]]] = []
    for e in events:
        if not isinstance(e, Msg):
            raise ValueError(f"{type(e).__name__} events have no place in an HTTP or Inspector document")
        if e.direction == "c2s":
            out.append((e, []))
        else:
            out[-1][1].append(e)
    return out


def _har_entries(events: list[Event], clock: _Clock) -> list[dict]:
    entries = []
    for request, answers in _exchanges(events):
        http = request.http
        headers = harbuilder.post_headers(None, VERSION if request.message.get("method") != "initialize" else None)
        headers.update(http.get("headers", {}))
        url = harbuilder.URL
        if http.get("query"):
            url += "?" + urllib.parse.urlencode(http["query"])
        started = (clock.tick() - harbuilder.START).total_seconds()
        messages = [a.message for a in answers]
        if not messages:
            e = harbuilder.entry(url=url, request_headers=headers, body=request.message, status=202, started=started)
        elif len(messages) == 1 and "method" not in messages[0]:
            e = harbuilder.entry(url=url, request_headers=headers, body=request.message, json_body=messages[0],
                                 started=started)
        else:
            e = harbuilder.entry(url=url, request_headers=headers, body=request.message, sse=messages,
                                 started=started)
        if http.get("query"):
            e["request"]["queryString"] = [{"name": k, "value": v} for k, v in http["query"]]
        if http.get("cookies"):
            e["request"]["cookies"] = http["cookies"]
        entries.append(e)
    return entries


def _inspector_entries(events: list[Event], clock: _Clock, counter: list[int]) -> list[dict]:
    entries = []
    for request, answers in _exchanges(events):
        counter[0] += 1
        t = clock.tick()
        m = request.message
        entry: dict[str, Any] = {"id": f"m-{counter[0]}", "timestamp": _iso(t),
                                 "direction": "request" if "id" in m else "notification", "origin": "client",
                                 "message": m}
        response = next((a.message for a in answers if "method" not in a.message and "id" in m), None)
        if response is not None:
            entry["response"] = response
            entry["duration"] = 12
        entries.append(entry)
        for a in answers:
            if a.message is response:
                continue
            counter[0] += 1
            entries.append({"id": f"m-{counter[0]}", "timestamp": _iso(clock.tick()),
                            "direction": "notification", "origin": "server", "message": a.message})
    return entries


def _indented(value: Any, pad: str) -> list[str]:
    return [pad + line for line in json.dumps(value, indent=2, ensure_ascii=False).split("\n")]


def render(fmt: str, scenarios: list[list[Event]]) -> Document:
    """The scenarios (the handshake first) as one document of format ``fmt``."""
    clock = _Clock()
    lines: list[str] = []
    ranges: list[tuple[int, int]] = []
    if fmt in ("har", "inspector"):
        counter = [0]
        lines.extend(['{', '  "log": {', '    "version": "1.2",',
                      '    "creator": {"name": "mcplint-tests", "version": "1.0"},', '    "pages": [],',
                      '    "entries": ['] if fmt == "har" else ["["])
        pad = "      " if fmt == "har" else "  "
        blocks = []
        for events in scenarios:
            entries = _har_entries(events, clock) if fmt == "har" else _inspector_entries(events, clock, counter)
            blocks.append([_indented(e, pad) for e in entries])
        flat = [entry for block in blocks for entry in block]
        last = flat[-1] if flat else None
        for block in blocks:
            first = len(lines)
            for entry in block:
                lines.extend(entry[:-1] + [entry[-1] + ("" if entry is last else ",")])
            ranges.append((first, len(lines)))
        lines.extend(["    ]", "  }", "}"] if fmt == "har" else ["]"])
        return Document("\n".join(lines) + "\n", ranges)
    write = _line_writer(fmt)
    seq = 0
    for events in scenarios:
        first = len(lines)
        for e in events:
            lines.extend(write(e, clock, seq))
            seq += 1
        ranges.append((first, len(lines)))
    return Document("\n".join(lines) + "\n", ranges)


def applies(place: str, fmt: str) -> bool:
    formats = PLACES[place].formats
    return formats is None or fmt in formats

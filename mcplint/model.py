"""Typed records and findings: the vocabulary every other module speaks."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from typing import Any


class Direction(str, Enum):
    """Who sent a message: client to server or server to client.

    ``other`` (the opposite direction), ``sender`` ("client"/"server") and ``arrow`` ("C→S") are
    plain member attributes, set below: the analyzer reads ``other`` several times per record,
    and an attribute costs a fifth of a property call.
    """

    C2S = "c2s"
    S2C = "s2c"

    other: Direction
    sender: str
    arrow: str


for _member, _other, _sender, _arrow in ((Direction.C2S, Direction.S2C, "client", "C→S"),
                                         (Direction.S2C, Direction.C2S, "server", "S→C")):
    _member.other, _member.sender, _member.arrow = _other, _sender, _arrow
del _member, _other, _sender, _arrow


class Kind(str, Enum):
    """What one input line turned out to be."""

    REQUEST = "request"
    NOTIFICATION = "notification"
    RESULT = "result"
    ERROR = "error"
    BATCH = "batch"  # a JSON array of messages
    MULTI = "multi"  # several JSON values concatenated on one line
    INVALID = "invalid"  # valid JSON that is no JSON-RPC message shape
    MALFORMED = "malformed"  # looks like JSON but does not parse
    TEXT = "text"  # not JSON at all (banners, logs, blank lines)
    CONTINUATION = "continuation"  # a later line of a message spread over several lines
    STDERR = "stderr"  # the server's stderr, recorded by a capture tool
    COMMENT = "comment"  # transcript comment or blank line, not traffic


#: Record flag: the reader could not tell where the message arrived relative to messages of other
#: streams (a HAR without per-event timing); rules whose verdict depends on that order say so.
ORDER_UNCERTAIN = "order-uncertain"

MESSAGE_KINDS = frozenset({Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT, Kind.ERROR})
RESPONSE_KINDS = frozenset({Kind.RESULT, Kind.ERROR})


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]


_SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


def id_key(value: Any) -> Any:
    """Type-exact key of a JSON-RPC id: an integer or string id is its own key (``1`` and ``"1"``
    differ as dict keys too); any other value is tagged with its type, so that ``1``, ``1.0`` and
    ``true`` differ. Hot paths inline the first case (``rid if type(rid) is int or type(rid) is str
    else id_key(rid)``): a key that is no tuple costs no allocation and hashes at once."""
    kind = type(value)
    if kind is int or kind is str:
        return value
    if value is None:
        return ("null", None)
    return (kind.__name__, repr(value))


def id_of_key(key: Any) -> Any:
    """The id (as :func:`fmt_id <mcplint.rules._base.fmt_id>` shows it) of an :func:`id_key` key."""
    return key[1] if type(key) is tuple else key


@dataclass(slots=True, eq=False)
class Record:
    """One input line (or one element of a batch), classified and located.

    ``msg`` is the parsed JSON value; ``id``/``method`` are lifted from it when it is an
    object. ``direction_observed`` is False when the direction was inferred from the
    protocol rather than read from the capture. Analysis facts (``request``, ``session``,
    ...) are filled in by the session analyzer before rules see the record.

    ``seq`` says which of two records came first (``a.seq < b.seq``) and tells records apart;
    ``line`` does neither: a HAR reader hands messages over in arrival order, which is not the
    file's, and puts all the messages of an entry on one line (so do batches and minified files).
    """

    path: str
    line: int
    kind: Kind
    data: bytes | str  # the line as read (bytes until someone needs the text)
    # the parser passes these five by position (keywords cost ~0.4 µs per record in CPython 3.11)
    msg: Any = None
    has_id: bool = False
    id: Any = None
    method: str | None = None
    params: Any = None  # the message's "params" member, when it has one
    direction: Direction | None = None
    direction_observed: bool = True
    ts: str | None = None
    t: float | None = None  # seconds since the epoch, when ``ts`` parses
    error: str | None = None  # why a MALFORMED/INVALID record could not be read
    flags: frozenset[str] = frozenset()
    children: tuple[Record, ...] = ()
    parent: Record | None = None
    continues: int | None = None  # CONTINUATION: line of the message this line belongs to
    span: int = 1  # number of input lines the message occupied (IO003)
    session_key: str | None = None  # as given by the capture (canonical ``session`` field)
    transport: str | None = None  # "stdio" | "http" when the input format knows
    http: Any = None  # HTTP facts (method, url, status, headers, SSE event id) from HTTP captures
    #: the secret-scan literals of ``data`` (:func:`mcplint.input.literal_scan.signs`) when the reader
    #: scanned its line; None: unknown (rules scan the line themselves)
    signs: int | None = None
    # facts filled in by the analyzer
    session: Any = None
    version: str | None = None  # protocol version string in effect for this record
    revision: str | None = None  # the known revision it is analysed as (see protocol.nearest_known)
    request: Record | None = None  # for responses: the request they answer
    target: Any = None  # for notifications/progress: the analyzer's ProgressRef
    answer: str | None = None  # responses: how the id matched; progress: "after-cancel" (see analyzer)
    #: arrival number, set by the engine as it takes the record (a batch before its elements): it
    #: only grows, so within one file it is unique and in arrival order; its value means nothing else
    seq: int = 0

    @property
    def text(self) -> str:
        """The line as text (decoded on first use; undecodable bytes replaced)."""
        data = self.data
        if isinstance(data, bytes):
            data = self.data = data.decode("utf-8", "replace")
        return data

    @property
    def sender(self) -> str | None:
        return self.direction.sender if self.direction else None

    @property
    def is_message(self) -> bool:
        return self.kind in MESSAGE_KINDS

    @property
    def is_response(self) -> bool:
        return self.kind in RESPONSE_KINDS

    @property
    def effective_method(self) -> str | None:
        """The method of a message, or of the request a response answers."""
        if self.method is not None:
            return self.method
        return self.request.method if self.request is not None else None


#: The members of a message every record has, in :class:`Record`'s order (:func:`new_record`'s arguments)
MESSAGE_FIELDS = ("path", "line", "kind", "data", "msg", "has_id", "id", "method", "params")


def record_maker(name: str, parameters: str, head: str = "", namespace: dict[str, Any] | None = None) -> Any:
    """A plain function ``name(parameters)`` that runs ``head`` (statements, as source indented by
    four spaces, run in ``namespace``), which binds the :data:`MESSAGE_FIELDS` as local names or
    returns, and then makes a :class:`Record` of those fields, every other field at its default:
    what ``Record(...)`` makes, without the class call (CPython 3.11 runs a Python ``__init__``
    through ``type.__call__``, about 0.9k instructions more a record) nor a call of its own (the
    parser's ``classify`` is made so)."""
    names = [f.name for f in fields(Record)]
    assert names[:len(MESSAGE_FIELDS)] == list(MESSAGE_FIELDS)
    defaults = {f.name: f.default for f in fields(Record)[len(MESSAGE_FIELDS):]}
    assert MISSING not in defaults.values()  # (no default factory: every record may share them)
    body = [f"    self.{field} = {field}" for field in MESSAGE_FIELDS]
    # a default that a literal spells is a constant of the function (cheaper than a global)
    body += [f"    self.{field} = {value!r}" if value is None or type(value) in (bool, int, str) or value == ()
             else f"    self.{field} = _{field}" for field, value in defaults.items()]
    source = f"def {name}({parameters}):\n{head}    self = _new(_Record)\n" + "\n".join(body) + "\n    return self\n"
    namespace = {**(namespace or {}), "_new": object.__new__, "_Record": Record,
                 **{f"_{field}": value for field, value in defaults.items()}}
    exec(source, namespace)  # noqa: S102 - source made above from the dataclass's own fields and the caller's head
    return namespace[name]


#: ``new_record(path, line, kind, data, msg, has_id, id, method, params)``: ``Record`` of these
#: arguments by position, the other fields at their defaults
new_record = record_maker("new_record", ", ".join(MESSAGE_FIELDS) + ", /")


@dataclass(slots=True, frozen=True)
class Related:
    line: int
    note: str


@dataclass(slots=True)
class Finding:
    """One reported problem, in the shape of the output contract (DESIGN.md)."""

    code: str
    name: str
    severity: Severity
    message: str
    path: str
    line: int
    confidence: str = "high"
    session: str | None = None
    direction: str | None = None
    direction_inferred: bool = False  # the capture did not say; the analyzer inferred it
    id: Any = None
    method: str | None = None
    party: str | None = None
    spec: str | None = None
    spec_url: str | None = None
    hint: str | None = None
    excerpt: str | None = None
    related: list[Related] = field(default_factory=list)

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.code)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "confidence": self.confidence,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "session": self.session,
            "direction": self.direction,
            "direction_inferred": self.direction_inferred,
            "id": self.id,
            "method": self.method,
            "party": self.party,
            "spec": self.spec,
            "spec_url": self.spec_url,
            "hint": self.hint,
            "excerpt": self.excerpt,
            "related": [{"line": r.line, "note": r.note} for r in self.related],
        }

"""Session analysis: split a stream into sessions and keep the facts rules judge by.

For every record the analyzer first *observes* it (infers a missing direction, picks the
session, matches a response to its request) so that rules see the state as it stood before
the record; after the rules ran it *commits* the record (marks requests answered, records
capabilities, advances the lifecycle phase). Facts are computed here once and read by many
rules, the way Wireshark's ``tcp.analysis`` fields are.
"""

from __future__ import annotations

import re
import sys
from collections import OrderedDict, deque
from collections.abc import Iterator
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

import orjson

from mcplint import protocol
from mcplint.input.formats._common import ended_by
from mcplint.model import Direction, Kind, Record, id_key

#: Requests kept per sender for id-reuse, duplicate-response and cancellation checks; the oldest
#: are forgotten beyond this (Zeek-style cap). All but the latest are kept compact (:class:`Answered`).
MAX_ANSWERED = 20_000
#: Unanswered requests kept per sender, whole; the oldest are forgotten beyond this.
MAX_PENDING = 10_000
#: Progress tokens of answered requests kept per sender (PR004; PR003 lowers its confidence beyond).
MAX_FINISHED_TOKENS = 10_000
#: Tools kept of one ``tools/list`` traversal.
MAX_TOOLS = 10_000
#: Sessions named by the capture (``session`` keys) kept open at once; beyond it the one idle
#: longest is finished (a gateway log names many sessions that end without a trace).
MAX_OPEN_SESSIONS = 1_000
#: The latest answered requests of each sender kept whole (records and all) before they are compacted.
RECENT_ANSWERED = 100

# Enum members as module names: ``Kind.REQUEST`` is a class-attribute lookup (about 55 ns in
# Python 3.11) and this module reads them several times per record.
_REQUEST, _NOTIFICATION, _RESULT, _ERROR = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT, Kind.ERROR
_INVALID, _MALFORMED, _COMMENT = Kind.INVALID, Kind.MALFORMED, Kind.COMMENT
_C2S, _S2C = Direction.C2S, Direction.S2C
_intern = sys.intern
#: the types of a JSON number (``type(value) in _NUMBER``: a bool is none)
_NUMBER = (int, float)


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps of the per-session tables; the first time one forgets an entry the session records
    it (``Session.limits_hit``) and IO012 tracking-limit-reached reports it."""

    answered: int = MAX_ANSWERED
    pending: int = MAX_PENDING
    tools: int = MAX_TOOLS
    sessions: int = MAX_OPEN_SESSIONS  # sessions named by the capture open at once (per file)


class Phase:
    """Lifecycle phases of a handshake-era session (spec basic/lifecycle)."""

    NEW = "new"  # nothing exchanged yet
    INITIALIZING = "initializing"  # initialize sent, not answered
    INITIALIZED = "initialized"  # initialize answered with success, no notifications/initialized yet
    OPERATING = "operating"  # notifications/initialized sent
    FAILED = "failed"  # initialize answered with an error
    STATELESS = "stateless"  # 2026-07-28 traffic: no handshake


@dataclass(slots=True, eq=False, init=False)
class RequestEntry:
    """What the analyzer remembers of one request."""

    record: Record
    response: Record | None
    cancel: Record | None
    token: Any
    last_progress: float | None
    last_progress_record: Record | None
    total: float | None
    task: bool  # answered with a CreateTaskResult (2025-11-25)
    #: a line too long to read (IO013) that came while it was open and may have been its response
    unread_answer: Record | None
    #: the :class:`ProgressRef` of its integer or string token while it is live, made for the first
    #: progress notification and shared by the next ones (a cycle: release and _compact cut it)
    ref: ProgressRef | None

    def __init__(self, record: Record):
        # (written out: one is made per request, and the dataclass's took a default per field)
        self.record, self.task = record, False
        self.response = self.cancel = self.token = self.last_progress = self.last_progress_record = self.total = \
            self.unread_answer = self.ref = None

    @property
    def pending(self) -> bool:
        return self.response is None


class Answered:
    """A request answered a while ago (or forgotten while open), kept compact: its line, arrival
    number, id, method and time, and its response's, without the records. ``record``, ``response``
    and ``cancel`` are stand-in records holding just these facts (no ``msg``, ``params`` or data)."""

    __slots__ = ("line", "seq", "id", "method", "t", "direction", "response_line", "response_seq", "response_t",
                 "response_kind", "cancel_line", "cancel_seq")
    token = None
    task = False
    last_progress = last_progress_record = total = unread_answer = ref = None

    def __init__(self, entry: RequestEntry, direction: Direction | None):
        record = entry.record
        self.line, self.seq, self.id, self.t, self.direction = record.line, record.seq, record.id, record.t, direction
        method = record.method
        self.method = _intern(method) if method is not None else None
        response = entry.response
        if response is None:
            self.response_line = self.response_seq = self.response_t = self.response_kind = None
        else:
            self.response_line, self.response_seq = response.line, response.seq
            self.response_t, self.response_kind = response.t, response.kind
        cancel = entry.cancel
        if cancel is None:
            self.cancel_line = self.cancel_seq = None
        else:
            self.cancel_line, self.cancel_seq = cancel.line, cancel.seq

    @property
    def pending(self) -> bool:
        return self.response_line is None

    @property
    def record(self) -> Record:
        return Record("", self.line, _REQUEST, b"", direction=self.direction, has_id=True, id=self.id,
                      method=self.method, t=self.t, seq=self.seq)

    @property
    def response(self) -> Record | None:
        if self.response_line is None:
            return None
        return Record("", self.response_line, self.response_kind, b"",
                      direction=self.direction.other if self.direction else None, has_id=True, id=self.id,
                      t=self.response_t, seq=self.response_seq)

    @property
    def cancel(self) -> Record | None:
        if self.cancel_line is None:
            return None
        return Record("", self.cancel_line, _NOTIFICATION, b"", direction=self.direction,
                      method="notifications/cancelled", seq=self.cancel_seq)

    @cancel.setter
    def cancel(self, record: Record) -> None:  # a request forgotten while open is cancelled
        self.cancel_line, self.cancel_seq = record.line, record.seq


class Bounded(OrderedDict):
    """An insertion-ordered dict that forgets its oldest entries beyond ``limit``, calling
    ``on_evict(key, value)`` for each when given."""

    evicted = 0  # entries forgotten so far (set on the instance at the first)
    on_evict = None

    def __init__(self, limit: int, on_evict=None):
        self.limit = limit  # (an empty OrderedDict needs no __init__ of its own)
        if on_evict is not None:
            self.on_evict = on_evict

    def __setitem__(self, key, value, _set=OrderedDict.__setitem__):
        _set(self, key, value)
        if len(self) > self.limit:
            self.evict()

    def evict(self) -> None:
        """Forget the oldest entry (after an insertion took the table over its limit)."""
        old = self.popitem(last=False)
        self.evicted += 1
        if self.on_evict is not None:
            self.on_evict(*old)


_ordered_put = OrderedDict.__setitem__


class FullTable(Bounded):
    """A :class:`Bounded` table of a session, of one sender's side (``sender``; None: of either):
    what it forgets, the session hears of (:meth:`Session.forgot`). A :class:`SessionTable`
    becomes one when it first overflows; ``undirected`` is one from the start. Made without a
    Python ``__init__``: whoever makes one sets its slots."""

    __slots__ = ("limit", "name", "sender", "session")
    __init__ = OrderedDict.__init__

    def evict(self) -> None:
        key, value = self.popitem(last=False)
        self.evicted += 1
        self.session.forgot(self.name, self.sender, key, value)

    def put(self, key: Any, value: Any) -> None:
        """Insert ``value`` (forgetting the oldest entry beyond the limit)."""
        self[key] = value


class SessionTable(dict):
    """A per-request table of a session, of one sender's side, while it holds no more than
    ``limit`` entries: a plain dict (insertion-ordered; an insertion is a C call, where an
    :class:`OrderedDict` subclass costs several). Who inserts checks the limit, as :meth:`put`
    does (the hot paths inline it: ``table[key] = value``, then ``if len(table) > table.limit:
    table.evict()``). The first eviction hands the entries over to a :class:`FullTable` that
    replaces this one in its :class:`Sides` (a dict forgets its oldest entry in time that grows
    with the entries deleted before it; an ordered dict, in constant time). Made without a
    Python ``__init__``, as :meth:`Sides.__missing__` makes it."""

    __slots__ = ("limit", "session", "name", "sender")
    evicted = 0  # (a FullTable counts its own)

    def evict(self) -> None:
        session, name, sender = self.session, self.name, self.sender
        full = getattr(session, _SIDES_OF[name])[sender] = _full_table(session, name, sender, self.limit)
        for key, value in self.items():
            _ordered_put(full, key, value)  # (not full[key] = value: that would evict already)
        self.clear()  # (nothing reads this one any more)
        full.evict()

    def put(self, key: Any, value: Any) -> None:
        """Insert ``value`` (forgetting the oldest entry beyond the limit)."""
        self[key] = value
        if len(self) > self.limit:
            self.evict()


def _full_table(session: Session, name: str, sender: Direction | None, limit: int) -> FullTable:
    table = FullTable()
    table.limit, table.session, table.name, table.sender = limit, session, name, sender
    return table


class Sides(dict):
    """A session's table per sender (``Direction`` -> :class:`SessionTable`, or the
    :class:`FullTable` it became), each made the first time it is asked for: a short session
    that never hears from one side, or never uses a table, does not pay for it. Read without
    making one with ``.get(direction, EMPTY)``; a reference to a table is good until the next
    insertion into it (which may replace it). A subclass per table names it (``table``); made
    without a Python ``__init__``, as :class:`Session` makes it (setting its two slots)."""

    __slots__ = ("session", "limit")
    __init__ = dict.__init__
    table = ""  # (the name a SessionTable reports when it forgets: Session.forgot)

    def __missing__(self, sender: Direction) -> SessionTable:
        if sender is not _C2S and sender is not _S2C:
            raise KeyError(sender)
        table = self[sender] = SessionTable()
        table.limit, table.session, table.name, table.sender = self.limit, self.session, self.table, sender
        return table


class _RequestSides(Sides):
    __slots__ = ()
    table = "answered"


class _PendingSides(Sides):
    __slots__ = ()
    table = "pending"


class _TokenSides(Sides):
    __slots__ = ()
    table = "tokens"


class _FinishedSides(Sides):
    __slots__ = ()
    table = "finished"


#: the Session attribute of each per-sender table by its name (SessionTable.evict)
_SIDES_OF = {"answered": "requests", "pending": "pending", "tokens": "tokens", "finished": "finished_tokens"}


_RELEASED: Any = MappingProxyType({})  # the tables of a finished session
#: an empty table, for reading one that was never made (``Sides.get(sender, EMPTY)``)
EMPTY: Any = _RELEASED
_NO_NAMES: frozenset = frozenset()


class _Unwritten(dict):
    """An empty dict that refuses to be written: what a session's table reads before the session
    writes one of its own. Its reads are a dict's (a read of :data:`EMPTY`, a mapping proxy, goes
    through a method call on the dict behind it)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a shared empty table is read-only")

    __setitem__ = __delitem__ = setdefault = update = pop = popitem = clear = __ior__ = _refuse


#: the shared empty table of :class:`Session` limit notes and unreadable counts and of a
#: :class:`ToolCatalog`'s tools until the session writes its own
UNWRITTEN: Any = _Unwritten()


@dataclass(slots=True, eq=False, init=False)
class ToolCatalog:
    """The server's tools as the client last listed them.

    A ``tools/list`` traversal starts with a request without cursor and goes on only with the
    ``nextCursor`` the server issued on its last page. A page requested with any other cursor
    (fabricated, fetched twice, issued before the capture began) is *stray*: it continues no
    traversal, and once a listing is known it changes nothing.
    """

    names: set[str]  # (a set and a dict of their own from the first page on: _commit_tools_page)
    tools: dict[str, Any]
    complete: bool  # all pages of a traversal were seen
    stale: bool  # list_changed arrived since
    listed: bool
    truncated: bool  # the traversal listed more tools than the session keeps (Limits.tools)
    next_cursor: Any  # the nextCursor that continues the traversal in progress (None: none issued)
    started: bool  # the traversal began with a first page the capture holds

    def __init__(self) -> None:
        self.names, self.tools = _NO_NAMES, UNWRITTEN  # (read-only until a page is listed)
        self.complete = self.stale = self.listed = self.truncated = self.started = False
        self.next_cursor = None

    @property
    def current(self) -> bool:
        """True when the list is complete and no change was announced since."""
        return self.listed and self.complete and not self.stale

    def page_kind(self, params: Any) -> str:
        """How a tools/list page answering a request with ``params`` relates to the catalog (as it
        stands before the page): "first" (no cursor: a new traversal), "next" (the cursor issued
        as the traversal's nextCursor) or "stray" (any other cursor)."""
        cursor = params.get("cursor") if isinstance(params, dict) else None
        if cursor is None:
            return "first"
        return "next" if self.next_cursor is not None and cursor == self.next_cursor else "stray"


class SessionKey(NamedTuple):
    """A ``Session.file_state`` key that belongs to one session, by its ordinal: it holds what that
    session leaves to the sessions after it (LC002's server-only session). Under ``--jobs`` a
    part's reads of keys of its own sessions cannot depend on an earlier part, so they are not
    logged (``analysis.parallel.StateLog``)."""

    name: str
    ordinal: int


_NO_TOOLS = ToolCatalog()
_NO_FACTS: frozenset = frozenset()
_DEFAULT_LIMITS = Limits()


@dataclass(slots=True, eq=False, init=False)
class Session:
    """Per-session state, as it stands before the record being judged."""

    path: str
    label: str
    ordinal: int  # 1-based position among the file's sessions
    era: str | None  # "legacy" | "modern" (set with set_era)
    modern: bool  # era == "modern" (read several times per record: a field, not a property)
    version: str | None  # negotiated (legacy) or last seen (modern)
    requested_version: str | None
    phase: str
    init_request: Record | None
    init_response: Record | None
    initialized: Record | None
    client_caps: Any
    server_caps: Any
    explicit_key: bool  # the capture named this session
    first_record: Record | None
    first_message: dict[Direction, Record]
    midstream: bool  # the capture joined an already running session
    #: the server sent a request with an id: until then its side's request and token tables are
    #: empty, and direction inference need not read them
    server_asked: bool
    version_given: bool  # the user named the revision (--protocol-version): a mid-session start is expected
    limits: Limits
    # per-request tables: a Sides is made with the session, its tables when first used
    requests: Sides  # every request by id key; old ones compact
    pending: Sides  # the unanswered ones, whole
    tokens: Sides  # live progress tokens -> request
    finished_tokens: Sides  # tokens of answered requests
    # undirected, invalid_ids, unread_requests, tools: properties below, each made when first read
    recent: dict[Direction, deque]  # (key, entry) of the latest answered, kept whole (a deque made at the first)
    #: table -> record where it first forgot (UNWRITTEN until one forgets: limit_reached)
    limits_hit: dict[str, Record]
    unreadable: dict  # sender -> unparseable messages not yet answered (UNWRITTEN until the first)
    #: the reader's note that the client ended the session (mcplint capture's ``stdin-closed``, a
    #: host log's shutdown line, a HAR's accepted ``DELETE``; see :func:`client_ends`): messages
    #: after it went to a closed connection
    client_closed: Record | None
    messages: int
    last_record: Record | None
    state: dict  # private per-rule state, see state_for()
    #: facts only a handshake changes that decide which rules run (``Rule.awaits``, ``rules._base.set_plan_facts``)
    plan_facts: frozenset
    file_state: dict  # shared by all sessions of one input file
    _undirected: Bounded | None
    _invalid_ids: Bounded | None
    _unread_requests: Bounded | None
    _tools: ToolCatalog | None
    finished = False  # (not a field: a FinishedSession says True)

    def __init__(self, path: str, label: str, ordinal: int, explicit_key: bool = False,
                 file_state: dict | None = None, limits: Limits | None = None, version: str | None = None):
        # (written out: a short session is made every few records, and the dataclass's own
        # __init__, with a keyword per field and a factory per table, cost twice as much)
        self.path, self.label, self.ordinal, self.explicit_key = path, label, ordinal, explicit_key
        self.file_state = {} if file_state is None else file_state
        self.limits = limits = _DEFAULT_LIMITS if limits is None else limits
        self.version, self.version_given = version, version is not None
        self.era = self.requested_version = self.init_request = self.init_response = self.initialized = None
        self.client_caps = self.server_caps = self.first_record = self.client_closed = self.last_record = None
        self._undirected = self._invalid_ids = self._unread_requests = self._tools = None
        self.modern = self.midstream = self.server_asked = False
        self.phase, self.messages, self.plan_facts = Phase.NEW, 0, _NO_FACTS
        self.limits_hit = self.unreadable = UNWRITTEN
        self.first_message, self.state, self.recent = {}, {}, {}
        self.requests = sides = _RequestSides()
        sides.session, sides.limit = self, limits.answered
        self.pending = sides = _PendingSides()
        sides.session, sides.limit = self, limits.pending
        self.tokens = sides = _TokenSides()
        sides.session, sides.limit = self, limits.pending
        self.finished_tokens = sides = _FinishedSides()
        sides.session, sides.limit = self, min(limits.answered, MAX_FINISHED_TOKENS)

    @property
    def undirected(self) -> Bounded:
        """Requests of unknown sender."""
        if self._undirected is None:
            self._undirected = _full_table(self, "undirected", None, self.limits.pending)
        return self._undirected

    @property
    def invalid_ids(self) -> Bounded:
        """(sender, id) of invalid messages."""
        if self._invalid_ids is None:
            self._invalid_ids = Bounded(self.limits.pending)
        return self._invalid_ids

    @property
    def unread_requests(self) -> Bounded:
        """(sender or None, id key) -> line of a request too long to read (IO013) whose start
        showed its id, until it is answered (answer "unread-request")."""
        if self._unread_requests is None:
            self._unread_requests = Bounded(self.limits.pending)
        return self._unread_requests

    @property
    def tools(self) -> ToolCatalog:
        """The server's tools as the client last listed them."""
        if self._tools is None:
            self._tools = ToolCatalog()
        return self._tools

    def limit_reached(self, table: str, direction: Direction | None = None) -> None:
        """Note the first time ``table`` (of ``direction``'s side) forgot an entry, at the record
        being committed."""
        name = f"{table}:{direction.value}" if direction is not None else table
        if name not in self.limits_hit and self.last_record is not None:
            if self.limits_hit is UNWRITTEN:
                self.limits_hit = {}
            self.limits_hit[name] = self.last_record

    def forgot(self, table: str, sender: Direction | None, key: Any, value: Any) -> None:
        """``table`` (of ``sender``'s side) forgot ``key``: noted for IO012 (finished tokens are
        forgotten quietly). An open request that fell out of ``pending`` is kept compact among the
        requests, so that a late response is still known (answer ``forgotten``)."""
        if table == "finished":
            return
        self.limit_reached(table, sender)
        if table == "pending" and type(value) is RequestEntry and self.requests[sender].get(key) is value:
            self.requests[sender][key] = Answered(value, sender)

    # -- questions rules ask ------------------------------------------------------------
    @property
    def legacy(self) -> bool:
        return self.era != "modern"

    def set_era(self, era: str) -> str:
        self.era, self.modern = era, era == "modern"
        return era

    def caps_of(self, side: str) -> Any:
        return self.server_caps if side == "server" else self.client_caps

    def find_request(self, sender: Direction, request_id: Any) -> RequestEntry | Answered | None:
        """The request ``sender`` made with exactly this id (type-exact), if any: whole, or compact
        (:class:`Answered`) when it was answered a while ago."""
        key = request_id if type(request_id) is int or type(request_id) is str else id_key(request_id)
        entry = self.requests.get(sender, EMPTY).get(key)
        return entry if entry is not None else self.pending.get(sender, EMPTY).get(key)

    def unread_request(self, sender: Direction | None, key: Any) -> tuple | None:
        """The ``unread_requests`` key of a request too long to read that ``sender`` (None: either
        side) made with id ``key`` and that is not answered yet, if any."""
        table = self._unread_requests
        if not table:  # none made, or empty
            return None
        for where in ((sender, key), (None, key)) if sender is not None else \
                ((None, key), (_C2S, key), (_S2C, key)):
            if where in table:
                return where
        return None

    def pending_requests(self) -> list[RequestEntry]:
        out = list(self.pending.get(_C2S, EMPTY).values()) + list(self.pending.get(_S2C, EMPTY).values())
        out.sort(key=lambda e: e.record.seq)
        return out

    def retire_token(self, sender: Direction, request: Record) -> None:
        """End the progress token of ``sender``'s ``request`` (a 2025-11-25 task reached a terminal
        status: its token stayed live after the CreateTaskResult until now)."""
        entry = self.requests.get(sender, EMPTY).get(id_key(request.id))
        if entry is not None and entry.token is not None and self.tokens[sender].get(entry.token) is entry:
            del self.tokens[sender][entry.token]
            self.finished_tokens[sender].put(entry.token, entry)

    def release(self) -> None:
        """Drop the per-request tables and records once the session was finished (bounded memory:
        a finished session keeps its label, version and counts; nothing may judge it any more).

        A request's last progress notification refers back to it (``record.target``): the link is
        cut here, so that its records are freed now rather than by a garbage collection."""
        for sides in (self.tokens, self.finished_tokens):
            for table in sides.values():
                for entry in table.values():
                    if type(entry) is RequestEntry:
                        entry.last_progress_record = entry.ref = None
        self.requests = self.pending = self.tokens = self.finished_tokens = self.recent = _RELEASED
        self._undirected = self._invalid_ids = self._unread_requests = _RELEASED
        self._tools = _NO_TOOLS
        self.state.clear()
        self.limits_hit = UNWRITTEN
        self.init_request = self.init_response = self.initialized = self.client_closed = None
        self.first_record = self.last_record = self.client_caps = self.server_caps = None
        self.first_message.clear()

    def state_for(self, rule: object) -> dict:
        """A private dict a rule may keep per session (for facts nobody else needs)."""
        return self.state.setdefault(type(rule).__name__, {})

    def kept_state(self, rule: object) -> Any:
        """The rule's private dict if it made one, else an empty read-only one: reads without
        making a dict (a finisher of a session that never used the rule's feature)."""
        return self.state.get(type(rule).__name__, EMPTY)


class FinishedSession:
    """What the analyzer keeps of a session once the engine finished it (its rules judged it, its
    tables were released): the facts the run's summary and the rules that judge a whole file read.
    About 70 bytes where the released :class:`Session` kept six hundred: a tee of many short
    sessions holds 160,000 of them in 1 GB."""

    __slots__ = ("label", "era", "version", "messages", "unreadable")
    finished = True

    def __init__(self, session: Session):
        version = session.version  # (interned: each session's would keep its own copy of the same text)
        self.label, self.era, self.messages = session.label, session.era, session.messages
        self.version = sys.intern(version) if type(version) is str else version
        self.unreadable = session.unreadable if session.unreadable else EMPTY  # (MALFORMED or INVALID lines)


def client_ends(record: Record) -> bool:
    """Whether a comment record says the client ended the session: a reader's ending note by the
    client (:func:`~mcplint.input.formats._common.ended_by`), or an HTTP ``DELETE`` of the session that
    the server accepted (2xx; a ``405`` refuses to end it, and the session goes on)."""
    if record.msg is not None:
        return ended_by(record.msg) == "client"
    http = record.http
    if type(http) is not dict or http.get("role") != "exchange" or http.get("method") != "DELETE":
        return False
    status = http.get("status")
    return type(status) is int and 200 <= status < 300


def paired_request(record: Record, session: Session) -> RequestEntry | None:
    """The request an error without an id answers by its HTTP exchange: the one request of the POST
    whose response carried it (the HAR reader's ``answers_id`` fact). None on other transports, and
    when that request is unknown or was answered by another response."""
    http = record.http
    if record.kind is not _ERROR or type(http) is not dict or "answers_id" not in http \
            or record.direction is None:
        return None
    entry = session.find_request(record.direction.other, http["answers_id"])
    if type(entry) is not RequestEntry or entry.response not in (None, record):
        return None
    return entry


def answered_request(record: Record, session: Session) -> Record | None:
    """The request a response answers: the one its id matched, or for an error without an id the
    one its HTTP exchange pairs it with (:func:`paired_request`, once the error was committed)."""
    if record.request is not None:
        return record.request
    paired = paired_request(record, session)
    return paired.record if paired is not None else None


def progress_token(record: Record) -> tuple[bool, Any]:
    """``(present, token)`` of ``params._meta.progressToken`` of a request."""
    params = record.params
    if isinstance(params, dict):
        meta = params.get("_meta")
        if isinstance(meta, dict) and "progressToken" in meta:
            return True, meta["progressToken"]
    return False, None


class ProgressRef(NamedTuple):
    """What a ``notifications/progress`` refers to, as it stood before the notification. A
    tuple: the analyzer makes one with ``_new_tuple(ProgressRef, fields)``, a C call (a class's
    ``__init__`` is a Python call, about 2k instructions), and the notifications of one live
    request with an integer or string token share it (``RequestEntry.ref``)."""

    token: Any
    requester: Direction  # the side whose request the token must belong to
    live: RequestEntry | None  # the request still in progress with this token
    finished: RequestEntry | None  # the answered request that had this token


_new_tuple = tuple.__new__


def progress_ref(record: Record, session) -> ProgressRef | None:
    """Resolve the token of a progress notification; None when it has no token or no direction."""
    params = record.params
    if record.direction is None or not isinstance(params, dict) or "progressToken" not in params:
        return None
    token = params["progressToken"]
    key = token if type(token) is int or type(token) is str else id_key(token)
    requester = record.direction.other
    live = session.tokens.get(requester, EMPTY).get(key)
    done = session.finished_tokens.get(requester, EMPTY).get(key) if live is None else None
    return _progress_ref(token, key, requester, live, done)


def note_progress(entry: RequestEntry, params: dict, record: Record) -> None:
    """Commit a progress notification ``record`` (``params``: its params) to the request ``entry``
    its token names: the highest progress so far, the latest notification, the latest total."""
    progress = params.get("progress")
    if type(progress) in _NUMBER:
        if entry.last_progress is None or progress > entry.last_progress:
            entry.last_progress = progress
        entry.last_progress_record = record
        total = params.get("total")
        if type(total) in _NUMBER:
            entry.total = total


def _progress_ref(token: Any, key: Any, requester: Direction, live: RequestEntry | None,
                  done: RequestEntry | None) -> ProgressRef:
    """The :class:`ProgressRef` of a token (``key``: its table key) found ``live`` or ``done``: the
    one its live request keeps (``RequestEntry.ref``) when the token is its own key, else a new one."""
    if live is None or key is not token:  # (a token of another JSON type: the ref holds this very value)
        return _new_tuple(ProgressRef, (token, requester, live, done))
    ref = live.ref
    if ref is None:
        ref = live.ref = _new_tuple(ProgressRef, (token, requester, live, None))
    return ref


def _open_client_request(record: Record, session: Session | None) -> RequestEntry | None:
    """The open request of the client that a response without direction answers, when its integer
    or string id is open on the client's side only: then the server sent it (as
    :meth:`Analyzer._infer_by_session` would say), and :meth:`Analyzer._match_response` matches it
    to this entry (the requests table holds the same entry as the pending one, or forgot it)."""
    rid = record.id
    if session is None or (type(rid) is not int and type(rid) is not str):
        return None
    pending = session.pending
    table = pending.get(_C2S)
    entry = table.get(rid) if table is not None else None
    if entry is None or not session.server_asked:
        return entry
    table = pending.get(_S2C)
    return None if table is not None and rid in table else entry


def is_modern_request(record: Record, strict: bool = True) -> bool:
    """A request in the 2026-07-28 envelope: server/discover, or a ``_meta`` protocol version.

    Not ``strict``: any of the envelope's ``_meta`` keys counts (a first request that forgot
    protocolVersion still opens a stateless session, and MD001 reports it); a handshake session
    is only left for a new one on the strict signal.
    """
    if record.method == "server/discover":
        return True
    params = record.params
    if isinstance(params, dict):
        meta = params.get("_meta")
        if not isinstance(meta, dict):
            return False
        if strict:
            return protocol.PROTOCOL_VERSION_META in meta
        return not protocol.MODERN_REQUEST_META.isdisjoint(meta)
    return False


def _modern_version(record: Record) -> str | None:
    params = record.params
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(protocol.PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


#: A JSON-RPC member name in the start of a line too long to read, plain or escaped inside a
#: string (a capture's ``raw``); then the value of an ``id`` (a number, a string or null) or of a
#: ``method`` (a string).
_HEAD_MEMBER = re.compile(r'(\\?)"(id|method|params|result|error)\\?"\s*:\s*')
_HEAD_ID = re.compile(r'-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null|"(?:[^"\\]|\\.)*"')
_HEAD_ESCAPED_ID = re.compile(r'-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|null|\\"[^"\\]*\\"')
#: :func:`read_head`: an id (or method) that is not in the part of the line that was kept.
UNSEEN: Any = object()


def _head_value(head: str, member: re.Match) -> Any:
    """The JSON value after ``member`` in a line's kept start, or ``UNSEEN`` if it is not a
    number, string or null (or is cut)."""
    escaped = member.group(1)
    value = (_HEAD_ESCAPED_ID if escaped else _HEAD_ID).match(head, member.end())
    if value is None:
        return UNSEEN
    try:
        return orjson.loads(orjson.loads(f'"{value.group()}"') if escaped else value.group())
    except orjson.JSONDecodeError:
        return UNSEEN


def read_head(head: str) -> tuple[str | None, Any, Any]:
    """What the kept start of a line too long to read says it is, as ``(what, id, method)``:

    * ``("response", id, UNSEEN)`` for a response: a ``result`` or ``error`` member before any
      ``method`` or ``params`` (``id`` is ``UNSEEN`` when it comes after, as SDKs that write
      ``result`` first do);
    * ``("request", id, method)`` for a request whose ``method`` and ``id`` both come before its
      ``params`` (as SDKs write it: ``{"jsonrpc":"2.0","id":3,"method":"tools/call","params":...``);
    * ``(None, UNSEEN, UNSEEN)`` for anything else: a notification, a request whose id is out of
      sight, a line showing no JSON-RPC member.
    """
    request_id = method = UNSEEN
    for member in _HEAD_MEMBER.finditer(head):
        name = member.group(2)
        if name == "id":
            request_id = _head_value(head, member)
        elif name == "method" and method is UNSEEN:
            method = _head_value(head, member)
            method = method if isinstance(method, str) else None
        elif name in ("result", "error") and method is UNSEEN:
            return "response", request_id, UNSEEN
        else:  # params, or a second method or result: what follows is not this message's envelope
            break
        if method is not UNSEEN and request_id is not UNSEEN:
            break
    if method is not UNSEEN and request_id is not UNSEEN and request_id is not None:
        return "request", request_id, method
    return None, UNSEEN, UNSEEN


def head_answers(head: str) -> tuple[bool, Any]:
    """``(True, id)`` when the kept start of a line too long to read is a response (:func:`read_head`;
    ``id`` is ``UNSEEN`` when it is out of sight), else ``(False, None)``."""
    what, request_id, _ = read_head(head)
    return (True, request_id) if what == "response" else (False, None)


_KNOWN_VERSIONS = frozenset(protocol.VERSIONS)

#: The notifications other than progress that change what the analyzer knows of a session
#: (:meth:`Analyzer._commit_notification`)
_COMMITTED_NOTIFICATIONS = frozenset({"notifications/initialized", "notifications/cancelled",
                                      "notifications/tools/list_changed"})

#: The methods whose responses tell the analyzer more than that they were answered: the
#: handshake's version and capabilities, the server's tools (:meth:`Analyzer._commit_answer_read`)
ANSWERS_READ = frozenset({"initialize", "tools/list", "server/discover"})

#: Methods that only one side ever sends, by that side (direction inference of JSON Lines).
_ONLY_SENDER = {method: next(iter(spec.senders)) for method, spec in protocol.METHODS.items()
                if len(spec.senders) == 1}


class Analyzer:
    """Routes records to sessions and keeps each session's facts for one input file."""

    def __init__(self, path: str, protocol_version: str | None = None, limits: Limits | None = None):
        self.path = path
        self.protocol_version = protocol_version
        self.limits = limits or Limits()
        self.sessions: dict[str, Session] = {}
        self.keyed: OrderedDict[str, Session] = OrderedDict()  # open named sessions, least recently active first
        self.sessions_finished_idle = 0  # named sessions finished early because too many were open
        self.current: Session | None = None
        self.closed: list[Session] = []
        self.ordinal = 0
        self.server_requests_seen = False
        self.file_state: dict = {}  # cross-session facts of this file (Session.file_state)

    # -- session routing ----------------------------------------------------------------
    def _new_session(self, label: str | None = None, explicit: bool = False) -> Session:
        ordinal = self.ordinal = self.ordinal + 1
        label = label or str(ordinal)
        session = self.sessions[label] = Session(self.path, label, ordinal, explicit, self.file_state, self.limits,
                                                 self.protocol_version)
        return session

    def _session_for(self, record: Record) -> Session:
        key = record.session_key
        if key is not None:
            session = self.keyed.get(key)
            if session is not None:
                self.keyed.move_to_end(key)
                return session
            label = key
            while label in self.sessions:  # it was finished as idle and goes on: a session of its own
                label = f"{key} (resumed {self.ordinal + 1})"
            session = self.keyed[key] = self._new_session(label, explicit=True)
            if len(self.keyed) > self.limits.sessions:
                _, idle = self.keyed.popitem(last=False)
                if not self.sessions_finished_idle:  # said once per file: later ones are the same story
                    idle.limit_reached("sessions")
                self.sessions_finished_idle += 1
                self.closed.append(idle)
            return session
        current = self.current
        if current is None and len(self.keyed) == 1 and "oversized" in record.flags:
            return next(iter(self.keyed.values()))  # too long to read its session, in a capture of one (IO013)
        if current is None:
            current = self.current = self._new_session()
            return current
        if record.kind is _REQUEST and record.direction is not _S2C and current.messages and (
                record.method == "initialize" or current.era == "legacy" and is_modern_request(record)):
            self.closed.append(current)
            current = self.current = self._new_session()
        return current

    def take_closed(self) -> list[Session]:
        """Sessions that ended since the last call (a new initialize started another)."""
        closed, self.closed = self.closed, []
        return closed

    def all_sessions(self) -> list[Session | FinishedSession]:
        """The file's sessions so far: the open ones as :class:`Session`, the finished ones as what
        :meth:`retire` kept of them."""
        return list(self.sessions.values())

    def release_sessions(self) -> Iterator[Session | FinishedSession]:
        """The file's sessions, each forgotten as it is handed over: the last thing asked of an
        analyzer (the run's summary copies a little of each, and 160,000 short sessions need not
        be held twice)."""
        sessions = self.sessions
        for label in list(sessions):
            yield sessions.pop(label)

    def retire(self, session: Session) -> None:
        """Keep only a :class:`FinishedSession` of ``session`` (finished and released) from now on."""
        if self.sessions.get(session.label) is session:
            self.sessions[session.label] = FinishedSession(session)

    # -- direction inference --------------------------------------------------------------
    def _infer_by_session(self, record: Record, session: Session | None) -> Direction | None:
        """Who sent a message that the capture did not mark (plain JSON Lines), as ``session``
        (the one it would join; None: none yet) tells: a response or a request or notification
        whose method no one side alone sends, a progress notification aside (:meth:`observe`
        asks :meth:`_progress_sender`)."""
        kind = record.kind
        if kind is _REQUEST or kind is _NOTIFICATION:
            if session is None:
                return None
            if record.method == "notifications/cancelled":
                params = record.params if isinstance(record.params, dict) else EMPTY
                return self._owner_of(session, params.get("requestId"))
            return None
        if kind is _RESULT or kind is _ERROR:
            if session is None or not record.has_id:
                return _S2C if not self.server_requests_seen else None
            owner = self._owner_of(session, record.id)
            if owner is not None:
                return owner.other
            if session._undirected and id_key(record.id) in session._undirected:
                return None  # answers a request whose sender is unknown (e.g. ping)
            return _S2C if not self.server_requests_seen else None
        return None

    @staticmethod
    def _owner_of(session: Session, request_id: Any) -> Direction | None:
        key = request_id if type(request_id) is int or type(request_id) is str else id_key(request_id)
        pending = session.pending
        in_c = key in pending.get(_C2S, EMPTY)
        in_s = key in pending.get(_S2C, EMPTY)
        if in_c != in_s:
            return _C2S if in_c else _S2C
        if not (in_c or in_s):
            requests = session.requests
            in_c = key in requests.get(_C2S, EMPTY)
            in_s = key in requests.get(_S2C, EMPTY)
            if in_c != in_s:
                return _C2S if in_c else _S2C
            unread = session._unread_requests
            if not (in_c or in_s) and unread:  # a request too long to read
                in_c = (_C2S, key) in unread
                in_s = (_S2C, key) in unread
                if in_c != in_s:
                    return _C2S if in_c else _S2C
        return None

    @staticmethod
    def _progress_sender(record: Record, session: Session, params: Any) -> Direction | None:
        """Who sent a progress notification: the other side of the one sender whose requests had
        its token. When it names a token, its :class:`ProgressRef` is resolved on the way (the
        ``record.target`` that :func:`progress_ref` would give once the direction is known)."""
        token = params.get("progressToken")
        key = token if type(token) is int or type(token) is str else id_key(token)
        tokens, finished = session.tokens, session.finished_tokens
        # (a side's table is read only when it was made: most sessions never hear a server's request)
        table = tokens.get(_C2S)
        live_c = table.get(key) if table is not None else None
        table = finished.get(_C2S) if live_c is None else None
        done_c = table.get(key) if table is not None else None
        if session.server_asked:
            table = tokens.get(_S2C)
            live_s = table.get(key) if table is not None else None
            table = finished.get(_S2C) if live_s is None else None
            done_s = table.get(key) if table is not None else None
        else:
            live_s = done_s = None
        in_c = live_c is not None or done_c is not None
        if in_c == (live_s is not None or done_s is not None):
            return None
        requester, live, done = (_C2S, live_c, done_c) if in_c else (_S2C, live_s, done_s)
        if "progressToken" in params:
            record.target = _progress_ref(token, key, requester, live, done)
        return requester.other

    # -- observe: facts before judgement -----------------------------------------------------
    def observe(self, record: Record) -> Session:
        """Attach session, direction, version and request-matching facts to ``record``."""
        kind = record.kind
        asks = kind is _REQUEST
        message = asks or kind is _NOTIFICATION or kind is _RESULT or kind is _ERROR
        direction = record.direction
        answered = None  # the client's open request a response without direction answers, if found at once
        if message and direction is None:
            # a method only one side sends says who sent it, a progress notification its token;
            # anything else asks the session
            key = record.session_key
            if kind is _RESULT or kind is _ERROR:
                if key is None and record.parent is None:
                    answered = _open_client_request(record, self.current)
                if answered is not None:
                    direction = _S2C
                else:
                    direction = self._infer_by_session(record, self.current if key is None else self.keyed.get(key))
            elif record.method == "notifications/progress":
                inferring = self.current if key is None else self.keyed.get(key)
                if inferring is not None:
                    params = record.params
                    direction = self._progress_sender(record, inferring, params if type(params) is dict else EMPTY)
            else:
                direction = _ONLY_SENDER.get(record.method)
                if direction is None:
                    direction = self._infer_by_session(record, self.current if key is None else self.keyed.get(key))
            record.direction = direction
            record.direction_observed = False
        parent = record.parent
        current = self.current
        if parent is not None:
            session = parent.session
        elif record.session_key is not None or current is None:
            session = self._session_for(record)
        elif not asks or direction is _S2C or not current.messages:
            session = current  # only a client's request can start a session (_session_for)
        elif record.method == "initialize" or current.era == "legacy" and is_modern_request(record):
            session = self._session_for(record)
        else:
            session = current
        record.session = session
        if session.first_record is None:
            session.first_record = record
        if asks:
            era = session.era
            if era is None:
                if record.method == "initialize":
                    era = session.set_era("legacy")
                elif is_modern_request(record, strict=False):
                    era = session.set_era("modern")
            if era == "modern" and direction is _C2S:
                record.version = _modern_version(record) or session.version
            else:
                record.version = session.version or session.requested_version or self.protocol_version
            if era is None and direction is not None and record.method is not None \
                    and record.method in protocol.METHODS:
                session.set_era("legacy")
        elif kind is _NOTIFICATION:
            if record.method == "notifications/progress":
                ref = record.target  # resolved already when the token told the direction
                if ref is None:
                    record.target = ref = progress_ref(record, session)
                if ref is not None and ref.live is not None and ref.live.cancel is not None:
                    record.answer = "after-cancel"  # progress for a request its sender cancelled
            record.version = session.version or session.requested_version or self.protocol_version
        elif message:
            if answered is None:
                self._match_response(record, session)
            else:  # (what _match_response finds of an open request: the same entry)
                record.request = answered.record
                record.answer = "ok" if answered.cancel is None else "after-cancel"
            request = record.request
            if request is not None and request.version:
                record.version = request.version
            else:
                record.version = session.version or session.requested_version or self.protocol_version
        else:
            record.version = session.version or session.requested_version or self.protocol_version
        if message and direction is not None and direction not in session.first_message:
            self._first_message(record, session, direction)
        version = record.version
        if version in _KNOWN_VERSIONS:
            record.revision = version
            return session
        era = session.era
        revision = None if version is None else protocol.nearest_known(version, era == "modern" if era else None)
        if revision is None and era == "modern":
            revision = protocol.V2026_07_28
        record.revision = revision
        return session

    @staticmethod
    def _first_message(record: Record, session: Session, direction: Direction) -> None:
        """The first message of ``direction``'s side: a session whose first message is no opening
        request was joined midway."""
        session.first_message[direction] = record
        if session.messages == 0 and not (record.kind is _REQUEST and (
                record.method == "initialize" or is_modern_request(record, strict=False))):
            session.midstream = True

    def _match_response(self, record: Record, session: Session) -> None:
        """Set ``record.request`` and ``record.answer`` (ok/duplicate/after-cancel/unknown/...;
        "unread-request": the request was too long to read, so nothing judges the response by it)."""
        direction = record.direction
        if not record.has_id or record.id is None:
            sender = direction.other if direction else None
            if record.kind is _ERROR and (session.unreadable.get(sender) or session.unreadable.get(None)):
                record.answer = "unreadable"  # the error for an earlier unparseable message
            else:
                record.answer = "no-id"
            return
        if direction is None:
            entry = session.undirected.get(id_key(record.id))
            if entry is not None:
                if type(entry) is RequestEntry:  # a compact one is answered: no request to judge by
                    record.request = entry.record
                record.answer = "ok" if entry.pending else "duplicate"
            elif session.unread_request(None, id_key(record.id)) is not None:
                record.answer = "unread-request"
            else:
                record.answer = "unknown-direction"
            return
        rid = record.id
        asker, key = direction.other, rid if type(rid) is int or type(rid) is str else id_key(rid)
        entry = session.requests.get(asker, EMPTY).get(key) or session.pending.get(asker, EMPTY).get(key)
        if entry is not None:
            if type(entry) is Answered:  # details forgotten: only the facts of the answer are left
                record.answer = "duplicate" if entry.response_line is not None else "forgotten"
                return
            record.request = entry.record
            if entry.response is not None:
                record.answer = "duplicate"
            elif entry.cancel is not None:
                record.answer = "after-cancel"
            else:
                record.answer = "ok"
            return
        if session.unread_request(asker, key) is not None:
            record.answer = "unread-request"  # its request was too long to read (IO013): nothing to judge by
            return
        alt = _alternate_key(record.id)
        if alt is not None and alt in session.requests.get(asker, EMPTY):
            record.request = session.requests[asker][alt].record
            record.answer = "type-mismatch"
            return
        if key in session.requests.get(direction, EMPTY):
            record.answer = "own-id"  # answers a request its own side sent
            return
        invalid = session._invalid_ids
        if invalid and ((asker, key) in invalid or (None, key) in invalid):
            record.answer = "echo-invalid"  # e.g. a -32600 error naming the id of an invalid message
            return
        record.answer = "unknown"

    # -- commit: the record becomes history --------------------------------------------------
    def commit(self, record: Record) -> None:
        session: Session = record.session
        session.last_record = record
        kind = record.kind
        if kind is _REQUEST:
            session.messages += 1
            direction = record.direction
            if direction is not None:
                self._commit_request(record, session, direction)
            elif record.has_id:
                session.undirected[id_key(record.id)] = RequestEntry(record)
        elif kind is _NOTIFICATION:
            session.messages += 1
            direction = record.direction
            if direction is None:
                return
            method = record.method
            if method != "notifications/progress":
                if method in _COMMITTED_NOTIFICATIONS:
                    self._commit_notification(record, session, direction)
                return
            # progress (the commonest record of a tee of short sessions): its request keeps the latest
            ref, params = record.target, record.params
            if ref is not None:  # observe resolved the token; the tables changed not since
                entry = ref.live
            else:  # no progressToken: the key of a null token (id_key(None))
                params = params if isinstance(params, dict) else EMPTY
                entry = session.tokens.get(direction.other, EMPTY).get(id_key(params.get("progressToken")))
            if entry is not None:
                note_progress(entry, params, record)
        elif kind is _RESULT or kind is _ERROR:
            session.messages += 1
            answer, direction = record.answer, record.direction
            if direction is not None and (answer == "ok" or answer == "after-cancel"):
                rid = record.id
                asker, key = direction.other, rid if type(rid) is int or type(rid) is str else id_key(rid)
            else:
                asked = self._commit_unusual_response(record, session)
                if asked is None:
                    return
                asker, key = asked
            request = self._answer(session, asker, key, record).record
            if request.method in ANSWERS_READ:
                self._commit_answer_read(record, session, request)
        else:
            if kind is _COMMENT and session.client_closed is None and client_ends(record):
                session.client_closed = record
            if kind is _INVALID and record.has_id:
                session.invalid_ids[(record.direction, id_key(record.id))] = True
            if kind is _MALFORMED or kind is _INVALID:
                unreadable = session.unreadable
                if unreadable is UNWRITTEN:
                    unreadable = session.unreadable = {}
                unreadable[record.direction] = unreadable.get(record.direction, 0) + 1
                if "oversized" in record.flags:
                    self._commit_oversized(record, session)

    def _commit_request(self, record: Record, session: Session, direction: Direction) -> None:
        if direction is _S2C:
            self.server_requests_seen = True
        rid = record.id
        if not record.has_id or rid is None:
            return
        if direction is _S2C:
            session.server_asked = True
        key = rid if type(rid) is int or type(rid) is str else id_key(rid)
        entry = RequestEntry(record)
        params = record.params
        if isinstance(params, dict) and "_meta" in params:  # a progress token (progress_token)
            meta = params["_meta"]
            if isinstance(meta, dict) and "progressToken" in meta:
                token = meta["progressToken"]
                entry.token = token = token if type(token) is int or type(token) is str else id_key(token)
                table = session.tokens[direction]
                table[token] = entry
                if len(table) > table.limit:
                    table.evict()
        table = session.requests[direction]
        table[key] = entry
        if len(table) > table.limit:
            table.evict()
        table = session.pending[direction]
        table[key] = entry
        if len(table) > table.limit:
            table.evict()
        if record.method == "initialize" and direction is _C2S:
            params = record.params if isinstance(record.params, dict) else {}
            session.init_request = record
            session.set_era("legacy")
            session.phase = Phase.INITIALIZING
            version = params.get("protocolVersion")
            session.requested_version = version if isinstance(version, str) else None
            session.client_caps = params.get("capabilities")
        elif session.era == "modern":
            session.phase = Phase.STATELESS
            if record.version:
                session.version = record.version
            params = record.params if isinstance(record.params, dict) else {}
            meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
            if protocol.CLIENT_CAPABILITIES_META in meta:
                session.client_caps = meta[protocol.CLIENT_CAPABILITIES_META]

    def _commit_answer_read(self, record: Record, session: Session, request: Record) -> None:
        """Commit what a response to a request of :data:`ANSWERS_READ` tells of the session."""
        method, kind = request.method, record.kind
        if method == "initialize":
            self._commit_initialize_response(record, session)
        elif method == "tools/list" and kind is _RESULT:
            self._commit_tools_page(request, record, session)
        elif method == "server/discover" and kind is _RESULT:
            result = record.msg.get("result")
            if isinstance(result, dict):
                session.server_caps = result.get("capabilities")

    @staticmethod
    def _commit_unusual_response(record: Record, session: Session) -> tuple[Direction, Any] | None:
        """Commit a response that is no plain answer to a request of a known sender (:meth:`commit`
        commits those): the ``(asker, key)`` of the request it answers all the same, if any."""
        answer, direction = record.answer, record.direction
        if answer == "unread-request":  # answered once: a second response is not excused
            sender = direction.other if direction is not None else None
            session.unread_requests.pop(session.unread_request(sender, id_key(record.id)), None)
            return None
        elif answer == "unreadable":
            sender = direction.other if direction else None
            sender = sender if session.unreadable.get(sender) else None
            session.unreadable[sender] -= 1
            return None
        elif direction is None:
            if answer == "ok":
                key = id_key(record.id)
                entry = session.undirected[key]
                entry.response = record
                session.undirected[key] = Answered(entry, None)
            return None
        elif answer == "no-id":  # over HTTP, the exchange may still say which request it answers
            paired = paired_request(record, session)
            if paired is None or paired.response is not None:
                return None
            return direction.other, id_key(paired.record.id)
        elif answer == "forgotten":  # the first answer to a request forgotten while open
            entry = session.requests[direction.other][id_key(record.id)]
            entry.response_line, entry.response_t, entry.response_kind = record.line, record.t, record.kind
            entry.response_seq = record.seq
        return None

    @staticmethod
    def _answer(session: Session, asker: Direction, key: Any, record: Record) -> RequestEntry:
        """Mark ``asker``'s open request ``key`` answered by ``record``."""
        requests = session.requests[asker]
        entry = requests.get(key)
        if entry is None:  # fell out of the requests table while still open
            entry = session.pending[asker][key]
            requests.put(key, entry)
        entry.response = record
        session.pending[asker].pop(key, None)
        recent = session.recent.get(asker)
        if recent is None:
            recent = session.recent[asker] = deque()
        recent.append((key, entry))
        if len(recent) > RECENT_ANSWERED:
            _compact(session, asker, *recent.popleft())
        result = record.msg.get("result") if record.kind is _RESULT else None
        if isinstance(result, dict) and "task" in result and isinstance(result["task"], dict):
            entry.task = True  # answered with a CreateTaskResult (2025-11-25), token or not
        token = entry.token
        if token is not None:
            tokens = session.tokens[asker]
            tokens.pop(token, None)
            table = tokens if entry.task else session.finished_tokens[asker]
            table[token] = entry  # task-augmented: the token stays live (2025-11-25)
            if len(table) > table.limit:
                table.evict()
        return entry

    def _commit_oversized(self, record: Record, session: Session) -> None:
        """A line too long to read (IO013) is most likely a large response. When its start shows
        the id of a request open on one side, that request is answered (by a response nothing can
        judge; ``record.request`` names it); when the id is out of sight, each request open now
        notes that the line may have answered it (``RequestEntry.unread_answer``). A line whose
        start shows a request's id is remembered, so that its response is not taken for one to
        an unknown request (``Session.unread_requests``)."""
        what, request_id, method = read_head(record.text)
        if what == "request":
            sender = record.direction if record.direction is not None else _ONLY_SENDER.get(method)
            session.unread_requests[(sender, id_key(request_id))] = record.line
            return
        if what != "response":
            return
        askers = (record.direction.other,) if record.direction is not None else tuple(Direction)
        if request_id is not UNSEEN:
            key = id_key(request_id)
            open_on = [asker for asker in askers if key in session.pending.get(asker, EMPTY)]
            if len(open_on) == 1:
                record.request = self._answer(session, open_on[0], key, record).record
                return
            candidates = [session.pending[asker][key] for asker in open_on]  # both sides use the id
        else:
            candidates = [entry for asker in askers for entry in session.pending.get(asker, EMPTY).values()]
        for entry in candidates:
            if entry.unread_answer is None:
                entry.unread_answer = record

    @staticmethod
    def _commit_initialize_response(record: Record, session: Session) -> None:
        session.init_response = record
        result = record.msg.get("result") if record.kind is _RESULT else None
        if isinstance(result, dict):
            session.phase = Phase.INITIALIZED if session.initialized is None else Phase.OPERATING
            version = result.get("protocolVersion")
            if isinstance(version, str):
                session.version = version
            session.server_caps = result.get("capabilities")
        else:
            session.phase = Phase.FAILED

    @staticmethod
    def _commit_tools_page(request: Record, response: Record, session: Session) -> None:
        result = response.msg.get("result")
        if not isinstance(result, dict):
            return
        catalog = session.tools
        kind = catalog.page_kind(request.params)
        if kind == "stray" and catalog.listed:
            return  # continues no traversal: the known listing stays (PA001/PA003 judge the cursor)
        if kind != "next":
            catalog.names = set()
            catalog.tools = {}
            catalog.stale = catalog.truncated = False
            catalog.started = kind == "first"  # a stray first page: the capture joined a traversal midway
        tools = result.get("tools")
        for tool in tools if isinstance(tools, list) else ():
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                if len(catalog.tools) >= session.limits.tools and tool["name"] not in catalog.tools:
                    session.limit_reached("tools")
                    catalog.truncated = True  # an incomplete catalog: calls of the others are not judged
                    break
                catalog.names.add(tool["name"])
                catalog.tools[tool["name"]] = tool
        catalog.listed = True
        catalog.next_cursor = result.get("nextCursor")
        catalog.complete = catalog.next_cursor is None and catalog.started and not catalog.truncated

    @staticmethod
    def _commit_notification(record: Record, session: Session, direction: Direction) -> None:
        """Commit a notification of :data:`_COMMITTED_NOTIFICATIONS` (:meth:`commit` keeps a
        progress notification's numbers itself; no other notification changes the session)."""
        method = record.method
        if method == "notifications/initialized" and direction is _C2S:
            if session.initialized is None:
                session.initialized = record
            if session.phase == Phase.INITIALIZED:
                session.phase = Phase.OPERATING
        elif method == "notifications/cancelled":
            params = record.params if isinstance(record.params, dict) else EMPTY
            entry = session.requests.get(direction, EMPTY).get(id_key(params.get("requestId")))
            if entry is not None and entry.pending and entry.cancel is None:
                entry.cancel = record
        elif method == "notifications/tools/list_changed":
            session.tools.stale = True


def _compact(session: Session, sender: Direction, key: tuple, entry: RequestEntry) -> None:
    """Keep an answered request compact from now on (not a task: its token stays live; not when a
    reused id already replaced it)."""
    requests = session.requests[sender]
    if entry.task or requests.get(key) is not entry:
        return
    compact = requests[key] = Answered(entry, sender)
    entry.last_progress_record = entry.ref = None  # (cycles through its ProgressRef)
    if entry.token is not None and session.finished_tokens[sender].get(entry.token) is entry:
        session.finished_tokens[sender][entry.token] = compact


def _alternate_key(value: Any) -> Any:
    """The key of the same id in the other JSON type (``1`` <-> ``"1"``), for JR012."""
    if type(value) is int:
        return str(value)
    if type(value) is str:
        try:
            number = int(value)
        except ValueError:
            return None
        return number if str(number) == value else None
    return None

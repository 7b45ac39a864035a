"""The rule contract: metadata, a ``check`` per record, a ``finish`` per session."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from mcplint import protocol
from mcplint.excerpt import excerpt_of, redact_finding
from mcplint.model import ORDER_UNCERTAIN, Finding, Kind, Record, Related, Severity

if TYPE_CHECKING:
    from mcplint.analysis.analyzer import Session

REGISTRY: dict[str, type[Rule]] = {}

#: Rule groups of the catalog (code prefix -> category name used by --select and reports).
CATEGORIES = {
    "JR": "jsonrpc", "LC": "lifecycle", "CAP": "capabilities", "SV": "schema", "TL": "tools",
    "PR": "progress", "CN": "cancellation", "PI": "ping", "LG": "logging", "PA": "pagination",
    "RS": "resources", "PM": "prompts", "CP": "completion", "SM": "sampling", "EL": "elicitation",
    "RT": "roots", "TK": "tasks", "MT": "meta", "IO": "stdio", "HT": "http", "HS": "http",
    "HM": "http", "AU": "authorization", "MD": "modern", "MR": "mrtr", "SB": "subscriptions",
    "CA": "caching", "HX": "heuristics",
}

_CODE = re.compile(r"^[A-Z]{2,4}\d{3}$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

MESSAGES = frozenset({Kind.REQUEST, Kind.NOTIFICATION, Kind.RESULT, Kind.ERROR})
REQUESTS = frozenset({Kind.REQUEST})
NOTIFICATIONS = frozenset({Kind.NOTIFICATION})
RESPONSES = frozenset({Kind.RESULT, Kind.ERROR})


class Rule:
    """Base class of every rule. Subclasses set the metadata and override hooks.

    ``kinds`` and ``methods`` tell the engine which records to hand to :meth:`check`
    (``methods`` of a response are the method of the request it answers), ``phases`` and
    ``requires`` narrow that further; ``versions`` says which protocol revisions the rule
    applies to. The engine dispatches by all of these, so a rule's ``check`` only runs on
    records it can say something about. ``party`` says who is at fault: ``"sender"`` (the
    side that sent the record), ``"receiver"``, ``"client"``, ``"server"`` or ``"capture"``.
    ``spec`` is the page and section cited, e.g. ``"basic/lifecycle §Initialization"``.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    level: ClassVar[str]  # MUST, SHOULD, SCHEMA, derived, heuristic, info
    spec: ClassVar[str]
    hint: ClassVar[str] = ""
    party: ClassVar[str] = "sender"
    confidence: ClassVar[str] = "high"
    versions: ClassVar[frozenset[str]] = protocol.ALL
    kinds: ClassVar[frozenset[Kind]] = frozenset()
    methods: ClassVar[frozenset[str] | None] = None
    #: lifecycle phases (analyzer.Phase) in which the rule can fire; None = any
    phases: ClassVar[frozenset[str] | None] = None
    #: record features the engine checks before calling (all must hold; see ``FEATURES``):
    #: "flags" (decoding or framing flags), "undirected" (direction unknown), "timed" (the record
    #: has a timestamp), "http" (HTTP facts), "meta" (its params or result hold ``_meta``),
    #: "first" (the session's first message), "envelope" (the JSON-RPC envelope is odd: see
    #: ``features.record_features``), "task" (the record can show or affect a task: ``features.record_features``),
    #: "signs" (its line may hold a secret-scan literal: ``Record.signs`` is not 0), and those that
    #: rule families define (:func:`feature`)
    requires: ClassVar[frozenset[str]] = frozenset()
    #: record features of which at least one must hold (besides ``requires``); empty: no such test.
    #: ``"fact:NAME"`` names a plan fact (``Session.plan_facts``, :func:`set_plan_facts`) that counts
    #: as one of them
    requires_any: ClassVar[frozenset[str]] = frozenset()
    #: for responses: the analyzer's ``record.answer`` values the rule judges; None = any
    answers: ClassVar[frozenset[str] | None] = None
    #: what :meth:`finish` needs to find anything (None: it is called at the end of every session
    #: it applies to); the engine calls it only where one of these holds as the session ends:
    #: "state" (the rule's own ``Session.state``: :meth:`Session.state_for`'s key, or the rule's
    #: class), "pending:c2s" / "pending:s2c" (a request of the client / server still open),
    #: "limits" (a table forgot: ``Session.limits_hit``), or any other key of ``Session.state`` (a
    #: tracker's class, a key the rule stores when it has something to report at the end). A
    #: subclass that overrides ``finish`` declares its own, or its finisher is always called.
    finish_needs: ClassVar[frozenset | None] = None
    default: ClassVar[bool] = True
    #: the verdict depends on the order of messages from different streams (a HAR's exchanges):
    #: reported with low confidence where the reader could not establish it (``ORDER_UNCERTAIN``
    #: on the judged record or on a related one)
    order_sensitive: ClassVar[bool] = False
    #: per-rule options: a :class:`RuleOptions` whose fields name attributes of the rule
    #: (thresholds...); ``[tool.mcplint.rules.<name>]`` is validated by its :func:`options_model`
    #: and set on the rule instance
    Options: ClassVar[type[RuleOptions] | None] = None

    # -- hooks -----------------------------------------------------------------------------
    @classmethod
    def dispatches(cls, kind: Kind, method: str | None, revision: str | None, modern: bool) -> bool:
        """Whether records of this kind and method in this revision can concern the rule at all.

        Decided once per combination when the engine builds its dispatch table, so a rule whose
        verdict depends only on these facts costs nothing on the records it cannot judge.
        """
        return True

    @classmethod
    def awaits(cls, facts: frozenset[str], kind: Kind, method: str | None) -> bool:
        """Whether the session's plan facts (``Session.plan_facts``: facts such as a closed
        capability gate that only a handshake changes, kept by trackers with :func:`set_plan_facts`)
        let records of this kind and method concern the rule. Decided once per combination, as
        :meth:`dispatches`: a rule waiting for a fact is not called on sessions without it."""
        return True

    def check(self, record: Record, session: Session) -> Iterable[Finding]:
        return ()

    def finish(self, session: Session) -> Iterable[Finding]:
        return ()

    def finish_file(self, path: str, analyzer) -> Iterable[Finding]:
        """Judge an input file as a whole, after its sessions finished (``analyzer`` saw it all)."""
        return ()

    # -- helpers ---------------------------------------------------------------------------
    def report(
        self,
        record: Record,
        message: str,
        *,
        severity: Severity | None = None,
        confidence: str | None = None,
        party: str | None = None,
        related: Iterable[tuple[Record | int, str]] = (),
        hint: str | None = None,
        level: str | None = None,
        spec: str | None = None,
    ) -> Finding:
        """Build a finding located at ``record``, masked for output (``mcplint.excerpt``).

        ``level`` and ``spec`` override the rule's spec keyword and cited section for this
        finding (e.g. MUST from 2025-06-18, SHOULD before).
        """
        related = list(related)
        confidence = confidence or self.confidence
        if self.order_sensitive and confidence != "low" and _order_uncertain(record, related):
            confidence = "low"
        session = record.session
        version = record.version or (session.version if session is not None else None)
        cited = protocol.nearest_known(version, session.modern if session is not None else None)
        spec_text, spec_url = self._citation(cited, spec, level)
        return redact_finding(Finding(
            code=self.code,
            name=self.name,
            severity=severity or self.severity,
            message=message,
            path=record.path,
            line=record.line,
            confidence=confidence,
            session=session.label if session is not None else None,
            direction=record.direction.value if record.direction else None,
            direction_inferred=record.direction is not None and not record.direction_observed,
            id=record.id if record.has_id else None,
            method=record.effective_method,
            party=self._party(record, party or self.party),
            spec=spec_text,
            spec_url=spec_url,
            hint=hint if hint is not None else (self.hint or None),
            excerpt=excerpt_of(record),
            related=[_related(r, note, record) for r, note in related],
        ), hint=hint is not None)

    def report_file(self, path: str, message: str, line: int = 1) -> Finding:
        """A finding about an input file as a whole, where no message can carry it."""
        spec_text, spec_url = self._citation(None)
        return redact_finding(Finding(
            code=self.code, name=self.name, severity=self.severity, message=message, path=path, line=line,
            confidence=self.confidence, party=self.party if self.party not in ("sender", "receiver") else None,
            spec=spec_text, spec_url=spec_url, hint=self.hint or None), hint=False)

    def _citation(self, cited: str | None, spec: str | None = None, level: str | None = None) -> tuple[str, str]:
        """The finding's ``spec`` text and ``spec_url`` for revision ``cited`` (None: unversioned)."""
        return _citation(cited, spec or self.spec, level or self.level)

    @staticmethod
    def _party(record: Record, party: str) -> str | None:
        if party == "sender":
            return record.direction.sender if record.direction else None
        if party == "receiver":
            return record.direction.other.sender if record.direction else None
        return party

    @classmethod
    def category(cls) -> str:
        return CATEGORIES.get(cls.code.rstrip("0123456789"), "other")

    @classmethod
    def summary(cls) -> str:
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else cls.name


@lru_cache(maxsize=4096)
def _citation(cited: str | None, spec: str, level: str) -> tuple[str, str]:
    """:meth:`Rule._citation`, once per combination (findings repeat them)."""
    page, _, section = protocol.spec_page(cited, spec).partition(" §")
    anchor = re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")
    text = f"{cited or 'MCP'} {page}{' §' + section if section else ''} ({level})"
    return text, protocol.spec_url(cited, page) + (f"#{anchor}" if anchor else "")


def _order_uncertain(record: Record, related: list[tuple[Record | int, str]]) -> bool:
    return ORDER_UNCERTAIN in record.flags or any(
        isinstance(other, Record) and ORDER_UNCERTAIN in other.flags for other, _ in related)


def _related(other: Record | int, note: str, record: Record) -> Related:
    """A related record; on HTTP input its note names the entry and how far apart in time it is
    (the messages of a HAR entry all share the entry's first line)."""
    if not isinstance(other, Record):
        return Related(other, note)
    if _entry(other) is not None:
        note = f"{note} ({where(other)}{_apart(other, record)})"
    return Related(other.line, note)


def _entry(record: Record) -> int | None:
    http = record.http
    return http.get("entry") if type(http) is dict else None


def where(record: Record, on: bool = False) -> str:
    """Where a record is: ``line 12`` (``on line 12``); on HTTP input ``entry 4`` (``in entry 4``),
    as all the messages of a HAR entry share its first line."""
    entry = _entry(record)
    if entry is None:
        return f"on line {record.line}" if on else f"line {record.line}"
    return f"in entry {entry}" if on else f"entry {entry}"


def _apart(other: Record, record: Record) -> str:
    """``, 1.5 s earlier``: when ``other`` came, seen from ``record``."""
    if other.t is None or record.t is None or other is record:
        return ""
    return f", {duration(abs(record.t - other.t))} {'earlier' if other.t <= record.t else 'later'}"


def duration(seconds: float) -> str:
    """``877 ms`` or ``1.5 s``."""
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


class Tracker:
    """Keeps the session facts of one rule family (resources, tasks, ...) that the shared
    analyzer does not: rules read them through :meth:`of`, and the engine calls
    :meth:`commit` after the rules judged a record, so rules always see the state as it stood
    before the record. ``kinds``/``methods`` select the records to commit, as for rules.
    """

    kinds: ClassVar[frozenset[Kind]] = frozenset()
    methods: ClassVar[frozenset[str] | None] = None
    #: record features that must all hold, and of which one must hold, for :meth:`commit` to be
    #: called (as ``Rule.requires`` and ``Rule.requires_any``, planned with the rules); a record
    #: whose commit changes its revision or the session's era is committed without these tests
    requires: ClassVar[frozenset[str]] = frozenset()
    requires_any: ClassVar[frozenset[str]] = frozenset()
    #: the per-session facts object: a class called without arguments (a dataclass)
    facts: ClassVar[type] = dict

    @classmethod
    def of(cls, session: Session) -> Any:
        """This family's facts of ``session`` (created on first use)."""
        facts = session.state.get(cls)
        if facts is None:
            facts = session.state[cls] = cls.facts()
        return facts

    @classmethod
    def peek(cls, session: Session) -> Any:
        """This family's facts of ``session`` if anything made them, else None (a finisher's
        cheap way out: a session the family never saw has only the facts a new object has)."""
        return session.state.get(cls)

    @classmethod
    def dispatches(cls, kind: Kind, method: str | None, revision: str | None, modern: bool) -> bool:
        """Whether records of this kind and method in this revision (``modern``: of a 2026-07-28
        session, as it stands after the record) can change the facts: decided once per
        combination, as :meth:`Rule.dispatches`."""
        return True

    def commit(self, record: Record, session: Session) -> None:
        """Update the facts after the rules have judged ``record``."""

    def finish(self, session: Session) -> None:
        """The session ended (its tables are released right after this)."""


TRACKERS: list[type[Tracker]] = []

#: Record features that rule families define (:func:`feature`): name -> (kind, methods, clean test)
FAMILY_FEATURES: dict[str, tuple[Kind, tuple[str, ...], Callable[[Record], bool]]] = {}


def feature(name: str, kind: Kind, *methods: str) -> Callable:
    """Register the decorated test as the record feature ``name`` that rules may require: it
    holds for every record except those of ``kind`` and an (effective) method of ``methods`` that
    the test finds clean, so the rules requiring it are not called on those. The test must be false
    wherever one of those rules could report (say why next to it, and test that)."""
    def register(clean: Callable[[Record], bool]) -> Callable[[Record], bool]:
        FAMILY_FEATURES[name] = (kind, methods, clean)
        return clean
    return register


_PLAN_FACTS: dict[tuple, frozenset[str]] = {}  # (facts, family, names) -> the facts that set_plan_facts makes
_INTERNED: dict[frozenset[str], frozenset[str]] = {}


def set_plan_facts(session: Session, family: str, names: frozenset[str]) -> None:
    """Make ``names`` the session's plan facts of ``family`` (each name starts with it), keeping
    the other families'. Each distinct set is one object, so that the engine's plan key compares
    by identity; pass the same ``names`` object for the same facts (a cached one) to make it cheap."""
    key = (session.plan_facts, family, names)
    facts = _PLAN_FACTS.get(key)
    if facts is None:
        if len(_PLAN_FACTS) > 4096:
            _PLAN_FACTS.clear()
            _INTERNED.clear()
        facts = frozenset(f for f in session.plan_facts if not f.startswith(family)) | names
        facts = _PLAN_FACTS[key] = _INTERNED.setdefault(facts, facts)
    session.plan_facts = facts


def tracker(cls: type[Tracker]) -> type[Tracker]:
    """Register a tracker class (the engine runs every registered tracker)."""
    if cls not in TRACKERS:
        TRACKERS.append(cls)
    return cls


class RuleOptions:
    """Base of a rule's ``Options``: fields annotated and given defaults as in a pydantic model,
    which :func:`options_model` makes of them when a configuration sets the rule's options: a run
    without any imports neither pydantic nor ``annotated_types``. A constraint is written
    ``Annotated[int, Ge(1)]``, its names imported under ``TYPE_CHECKING`` only."""


_OPTION_MODELS: dict[type[RuleOptions], type] = {}


def options_model(options: type[RuleOptions]) -> type:
    """The pydantic model of a rule's ``Options`` (made once): unknown options are errors; keys
    use hyphens."""
    model = _OPTION_MODELS.get(options)
    if model is None:
        import sys
        from typing import Annotated

        import annotated_types
        from pydantic import BaseModel, ConfigDict

        # the annotations are strings (postponed evaluation), read in the rule module's namespace
        names = {"Annotated": Annotated, **{name: getattr(annotated_types, name) for name in annotated_types.__all__}}
        where = vars(sys.modules[options.__module__])
        annotations = {name: eval(text, where, names) if isinstance(text, str) else text
                       for name, text in options.__annotations__.items()}
        namespace = {name: value for name, value in vars(options).items() if name in annotations}
        namespace |= {"__module__": options.__module__, "__qualname__": options.__qualname__,
                      "__doc__": options.__doc__, "__annotations__": annotations,
                      "model_config": ConfigDict(extra="forbid", alias_generator=lambda name: name.replace("_", "-"),
                                                 populate_by_name=True)}
        model = _OPTION_MODELS[options] = type(options.__name__, (BaseModel,), namespace)
    return model


def rule(cls: type[Rule]) -> type[Rule]:
    """Register a rule class (unique code and name, well-formed metadata)."""
    if not _CODE.match(cls.code):
        raise ValueError(f"bad rule code {cls.code!r}")
    if not _NAME.match(cls.name):
        raise ValueError(f"bad rule name {cls.name!r}")
    if cls.code in REGISTRY:
        raise ValueError(f"duplicate rule code {cls.code}")
    if cls.name in _NAMES:
        raise ValueError(f"duplicate rule name {cls.name}")
    if not cls.kinds and cls.check is Rule.check and cls.finish is Rule.finish and cls.finish_file is Rule.finish_file:
        raise ValueError(f"{cls.code} has neither check nor finish nor finish_file")
    REGISTRY[cls.code] = cls
    _NAMES.add(cls.name)
    return cls


_NAMES: set[str] = set()  # the names of the rules in REGISTRY


def params_of(record: Record) -> dict[str, Any]:
    """The record's ``params`` when it is an object, else an empty dict."""
    params = record.params
    return params if isinstance(params, dict) else {}


def result_of(record: Record) -> Any:
    msg = record.msg
    return msg.get("result") if isinstance(msg, dict) else None


def error_of(record: Record) -> Any:
    msg = record.msg
    return msg.get("error") if isinstance(msg, dict) else None


def fmt_id(value: Any) -> str:
    """An id as it appears on the wire (``1`` vs ``"1"``)."""
    import orjson

    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)


def findings(*items: Finding | None) -> Iterator[Finding]:
    return (item for item in items if item is not None)

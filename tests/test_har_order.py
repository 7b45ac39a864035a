"""HAR input in arrival order (issue 13): every message is placed by when it arrived, whatever entry
carried it, so the findings equal those of the same traffic as a time-ordered capture; where the
HAR cannot order two messages, order-sensitive findings say so with low confidence."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from datetime import timedelta

import pytest

from mcplint.analysis.engine import Engine
from mcplint.commands.convert import convert_stream
from mcplint.input.lines import iter_lines
from mcplint.input.parse import Parser
from mcplint.input.readers import open_frames, read_capture
from mcplint.model import ORDER_UNCERTAIN, Direction, Kind, Record
from mcplint.rules._base import REGISTRY
from tests.formats_helpers import line_count
from tests.harbuilder import (
    ACCEPT,
    START,
    _stamp,
    dumps,
    entry,
    har,
    initialize_request,
    initialize_result,
    post_headers,
)

ENGINE = Engine()
V = "2025-11-25"
SID = "s1"
HTTP_RULES = ("HT", "HS", "HM", "AU")


def request(id_, method, params=None):
    return {"jsonrpc": "2.0", "id": id_, "method": method, **({"params": params} if params is not None else {})}


def notification(method, params=None):
    return {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}


def ok(id_, result=None):
    return {"jsonrpc": "2.0", "id": id_, "result": {} if result is None else result}


def tools(*names):
    return {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]}


def log(text, level="info"):
    return notification("notifications/message", {"level": level, "data": text})


def progress(token, value):
    return notification("notifications/progress", {"progressToken": token, "progress": value})


def call(id_, name, token=None):
    params = {"name": name, "arguments": {}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return request(id_, "tools/call", params)


def result_text(id_, text="done"):
    return ok(id_, {"content": [{"type": "text", "text": text}], "isError": False})


@dataclass
class Traffic:
    """One session's traffic, written both as a HAR (an entry per HTTP exchange, per-chunk timed
    or not) and as the canonical capture of the same messages in arrival order."""

    server_caps: dict = field(default_factory=lambda: {"tools": {"listChanged": True}})
    client_caps: dict = field(default_factory=dict)
    timed: bool = True  # record per-chunk timing (response._chunks)
    entries: list[dict] = field(default_factory=list)
    wire: list[tuple[float, str, dict]] = field(default_factory=list)

    def __post_init__(self):
        self.post(initialize_request(V, self.client_caps), 0.0, json=(0.005, initialize_result(V, self.server_caps)),
                  headers=post_headers(), issued=True)
        self.post(notification("notifications/initialized"), 0.05)

    def post(self, body, at, *, json=None, sse=None, ended=None, headers=None, issued=False):
        """A POST sent at ``at`` answered by ``json=(t, value)``, by an SSE stream ``sse=[(t, value),
        ...]`` that closes at ``ended``, or with 202."""
        self.wire.append((at, "c2s", body))
        kw = {"request_headers": headers or post_headers(SID, V), "body": body, "started": at,
              "response_headers": {"Mcp-Session-Id": SID} if issued else None}
        if json is not None:
            self.wire.append((json[0], "s2c", json[1]))
            kw.update(json_body=json[1], time_ms=(json[0] - at) * 1000, arrivals=[json[0]] if self.timed else None)
        elif sse is not None:
            self._stream(kw, at, sse, ended)
        else:
            kw.update(status=202, time_ms=2)
        self.entries.append(entry(**kw))

    def get(self, at, sse, ended):
        """A standalone GET stream opened at ``at`` that carries ``sse`` and closes at ``ended``."""
        kw = {"request_headers": {"Accept": "text/event-stream", "Mcp-Session-Id": SID, "MCP-Protocol-Version": V},
              "started": at}
        self._stream(kw, at, sse, ended)
        self.entries.append(entry("GET", **kw))

    def _stream(self, kw, at, sse, ended):
        self.wire.extend((t, "s2c", value) for t, value in sse)
        ended = ended if ended is not None else sse[-1][0] + 0.001
        kw.update(sse=[value for _, value in sse], time_ms=(ended - at) * 1000, wait_ms=20,
                  arrivals=[t for t, _ in sse] if self.timed else None)

    def har(self) -> str:
        """The HAR, entries in the order they were added."""
        return dumps(har(self.entries))

    def capture(self) -> str:
        lines = [json.dumps({"ts": _stamp(START + timedelta(seconds=t), "microseconds"), "dir": d,
                             "raw": json.dumps(value)})
                 for t, d, value in sorted(self.wire, key=lambda item: item[0])]
        return "\n".join(lines) + "\n"


def har_records(text: str) -> list[Record]:
    fmt, frames = open_frames(io.BytesIO(text.encode("utf-8")))
    assert fmt == "har"
    return list(Parser("<har>").records(frames))


def lint_har(text: str):
    fmt, frames = open_frames(io.BytesIO(text.encode("utf-8")))
    assert fmt == "har"
    return list(ENGINE.lint_records(Parser("<har>").records(frames), "<har>"))


def lint_capture(text: str):
    frames = read_capture(iter_lines(io.BytesIO(text.encode("utf-8"))))
    return list(ENGINE.lint_records(Parser("<capture>").records(frames), "<capture>"))


def protocol_findings(findings):
    """What the same traffic must yield whatever the input format (HTTP facts are HAR-only)."""
    return sorted((f.code, f.severity.value, f.confidence, f.method, json.dumps(f.id), f.direction)
                  for f in findings if not f.code.startswith(HTTP_RULES))


def codes(findings):
    return {f.code for f in findings}


def messages_in_order(text: str) -> list[tuple]:
    return [(r.direction.value, r.method or r.kind.value, r.id) for r in har_records(text) if r.is_message]


# -- scenarios whose entry order is not their arrival order -----------------------------------------
def get_stream_elicitation() -> Traffic:
    """A GET stream (listed last, as recorders that write entries when they end do) carries an
    elicitation/create for a running call and, later, tools/list_changed before the client lists
    the tools again."""
    traffic = Traffic(client_caps={"elicitation": {}})
    traffic.post(request(1, "tools/list"), 0.5, json=(0.52, ok(1, tools("alpha"))))
    traffic.post(call(2, "alpha"), 1.0, sse=[(3.0, result_text(2))])
    traffic.post(ok(0, {"action": "accept", "content": {"confirm": True}}), 2.5)
    traffic.post(request(3, "tools/list"), 4.5, json=(4.52, ok(3, tools("alpha", "beta"))))
    traffic.post(call(4, "beta"), 5.0, json=(5.05, result_text(4)))
    ask = request(0, "elicitation/create", {"message": "Sure?", "requestedSchema": {
        "type": "object", "properties": {"confirm": {"type": "boolean"}}}})
    traffic.get(0.1, [(2.0, ask), (4.0, notification("notifications/tools/list_changed"))], ended=6.0)
    return traffic


def overlapping_posts(timed: bool = True) -> Traffic:
    """A call streams log messages while a second POST raises the log level: the second log
    message arrived after the new threshold (LG004)."""
    traffic = Traffic(server_caps={"logging": {}, "tools": {}}, timed=timed)
    traffic.post(request(1, "tools/list"), 0.5, json=(0.52, ok(1, tools("slow"))))
    traffic.post(call(2, "slow"), 1.0, sse=[(1.5, log("step 1")), (3.5, log("step 2")), (5.0, result_text(2))])
    traffic.post(request(3, "logging/setLevel", {"level": "error"}), 2.0, json=(2.05, ok(3)))
    return traffic


def cancel_before_last_events(timed: bool = True) -> Traffic:
    """The client cancels a call while its stream still has two progress notifications to come
    (the stream then closes without a response)."""
    traffic = Traffic(timed=timed)
    traffic.post(request(1, "tools/list"), 0.5, json=(0.52, ok(1, tools("slow"))))
    traffic.post(call(2, "slow", token="p"), 1.0,
                 sse=[(1.2, progress("p", 1)), (4.5, progress("p", 2)), (5.5, progress("p", 3))], ended=5.6)
    traffic.post(notification("notifications/cancelled", {"requestId": 2, "reason": "user"}), 3.0)
    return traffic


def test_get_stream_messages_arrive_when_their_chunks_came():
    traffic = get_stream_elicitation()
    text = traffic.har()
    order = messages_in_order(text)
    ask, answer = order.index(("s2c", "elicitation/create", 0)), order.index(("c2s", "result", 0))
    assert order.index(("c2s", "tools/call", 2)) < ask < answer
    changed = order.index(("s2c", "notifications/tools/list_changed", None))
    assert answer < changed < order.index(("c2s", "tools/list", 3))
    assert not any(ORDER_UNCERTAIN in r.flags for r in har_records(text))  # every arrival was measured


def test_get_stream_findings_equal_the_time_ordered_capture():
    traffic = get_stream_elicitation()
    found = lint_har(traffic.har())
    assert protocol_findings(found) == protocol_findings(lint_capture(traffic.capture()))
    assert not codes(found) & {"JR011", "HX005", "HX008"}  # the answer follows its request; the change was told


def test_overlapping_posts_interleave_by_arrival():
    traffic = overlapping_posts()
    found = lint_har(traffic.har())
    assert protocol_findings(found) == protocol_findings(lint_capture(traffic.capture()))
    assert [f.confidence for f in found if f.code == "LG004"] == ["high"]  # only "step 2" came after


def test_cancellation_before_the_last_events_of_the_call():
    traffic = cancel_before_last_events()
    found = lint_har(traffic.har())
    assert protocol_findings(found) == protocol_findings(lint_capture(traffic.capture()))
    assert len([f for f in found if f.code == "CN006"]) == 2  # progress 2 and 3 came after the cancellation


def test_convert_writes_the_capture_in_arrival_order():
    traffic = get_stream_elicitation()
    out = io.StringIO()
    convert_stream(io.BytesIO(traffic.har().encode()), out, "capture")
    written = [(json.loads(line)["dir"], json.loads(json.loads(line)["raw"]).get("method"),
                json.loads(json.loads(line)["raw"]).get("id")) for line in out.getvalue().splitlines()]
    assert written == [(d, v.get("method"), v.get("id")) for _, d, v in sorted(traffic.wire, key=lambda w: w[0])]
    assert protocol_findings(lint_capture(out.getvalue())) == protocol_findings(lint_capture(traffic.capture()))


def test_every_line_is_accounted_for_when_entries_are_reordered():
    text = get_stream_elicitation().har()
    records = har_records(text)
    lines = line_count(text.encode())
    assert len(records) == lines + len([r for r in records if r.is_message])
    assert {r.line for r in records} == set(range(1, lines + 1))


# -- what the HAR cannot order ---------------------------------------------------------------------
def test_untimed_overlap_is_marked_uncertain_and_judged_with_low_confidence():
    timed, untimed = overlapping_posts(), overlapping_posts(timed=False)
    records = har_records(untimed.har())
    logs = [r for r in records if r.method == "notifications/message"]
    assert all(ORDER_UNCERTAIN in r.flags for r in logs)  # spread over the call's stream, across setLevel
    level = next(r for r in records if r.method == "logging/setLevel")
    assert ORDER_UNCERTAIN in level.flags
    listing = next(r for r in records if r.method == "tools/list")
    assert ORDER_UNCERTAIN not in listing.flags  # answered before the call began: nothing overlaps it
    expected = [(f.code, f.method) for f in lint_har(timed.har()) if f.code == "LG004"]
    judged = [f for f in lint_har(untimed.har()) if f.code == "LG004"]
    assert [(f.code, f.method) for f in judged] == expected and {f.confidence for f in judged} == {"low"}


def test_without_chunks_the_last_response_is_pinned_and_the_others_spread():
    traffic = cancel_before_last_events(timed=False)
    records = har_records(traffic.har())
    times = [r.t - START.timestamp() for r in records if r.method == "notifications/progress"]
    first_byte = 1.0 + 0.02
    assert abs(times[0] - first_byte) < 1e-6 and times[0] < times[1] < times[2] < 5.6  # by byte offset
    assert all(ORDER_UNCERTAIN in r.flags for r in records if r.method == "notifications/progress"
               and r.t > first_byte)
    cancels = [r for r in records if r.method == "notifications/cancelled"]
    assert ORDER_UNCERTAIN in cancels[0].flags
    answer = next(r for r in records if r.kind is Kind.RESULT and r.id == 1)  # a JSON body: ended with it
    assert abs(answer.t - START.timestamp() - 0.52) < 1e-6 and ORDER_UNCERTAIN not in answer.flags


def test_get_stream_without_chunks_is_uncertain_and_waits_for_causes():
    traffic = get_stream_elicitation()
    for item in traffic.entries:
        item["response"].pop("_chunks", None)
    text = traffic.har()
    records = har_records(text)
    ask = next(r for r in records if r.method == "elicitation/create")
    assert ask.t is None and ORDER_UNCERTAIN in ask.flags  # when it came is unknown
    order = messages_in_order(text)
    assert order.index(("s2c", "elicitation/create", 0)) < order.index(("c2s", "result", 0))  # answered after
    assert not codes(lint_har(text)) & {"JR011", "HX005"}


def test_order_sensitive_rules_alone_lower_their_confidence():
    unknown_id = REGISTRY["JR011"]()
    version = REGISTRY["JR001"]()
    assert unknown_id.order_sensitive and not version.order_sensitive
    record = Record("<x>", 1, Kind.RESULT, '{"id":7,"result":{}}', direction=Direction.S2C, has_id=True, id=7)
    assert unknown_id.report(record, "m").confidence == "high"
    record.flags = frozenset({ORDER_UNCERTAIN})
    assert unknown_id.report(record, "m").confidence == "low"
    assert version.report(record, "m").confidence == "high"
    certain = Record("<x>", 2, Kind.RESULT, "{}", direction=Direction.S2C)
    assert unknown_id.report(certain, "m", related=[(record, "the other")]).confidence == "low"


# -- per-chunk timing that does not fit ------------------------------------------------------------
def test_unusable_chunks_fall_back_to_the_entry_timings():
    baseline = cancel_before_last_events(timed=False)
    expect = [(r.method, r.t, ORDER_UNCERTAIN in r.flags) for r in har_records(baseline.har()) if r.is_message]
    for garbage in ("nonsense", [{"ts": "yesterday", "size": 10}], [{"size": 5}], [7],
                    [{"ts": "2026-03-02T09:30:01.000000Z", "size": 10 ** 9}], "short"):
        traffic = cancel_before_last_events()
        chunks = traffic.entries[3]["response"]["_chunks"]
        if garbage == "short":  # sizes that do not add up to the body (redacted since, or chunks lost)
            del chunks[1:]
        else:
            traffic.entries[3]["response"]["_chunks"] = garbage
        got = [(r.method, r.t, ORDER_UNCERTAIN in r.flags) for r in har_records(traffic.har()) if r.is_message]
        assert got == expect, garbage


def test_chunk_sizes_count_utf8_and_base64_bytes():
    import base64

    traffic = Traffic()
    traffic.post(request(1, "tools/list"), 0.5, json=(0.52, ok(1, tools("météo", "天气"))))
    traffic.post(call(2, "météo", token="é"), 1.0,
                 sse=[(1.5, progress("é", 1)), (2.5, log("ünïcödé ✓")), (3.0, result_text(2, "☀"))])
    item = traffic.entries[3]["response"]
    item["content"]["text"] = base64.b64encode(item["content"]["text"].encode()).decode()
    item["content"]["encoding"] = "base64"
    got = {r.method or "result": r.t - START.timestamp() for r in har_records(traffic.har())
           if r.is_message and r.direction is Direction.S2C and r.http["entry"] == 4}
    assert {k: round(v, 6) for k, v in got.items()} == {"notifications/progress": 1.5, "notifications/message": 2.5,
                                                        "result": 3.0}


# -- distances on HAR input ------------------------------------------------------------------------
def test_related_notes_name_the_entry_and_the_seconds_between():
    found = lint_har(cancel_before_last_events().har())
    cancelled = next(f for f in found if f.code == "CN006")
    assert [r.note for r in cancelled.related] == ["request (entry 4, 3.5 s earlier)",
                                                   "cancellation (entry 5, 1.5 s earlier)"]


def test_messages_name_the_entry_instead_of_a_line():
    traffic = Traffic(server_caps={"tools": {}})
    init = traffic.entries[0]
    init["response"] = entry(sse=[log("starting"), initialize_result(V, {"tools": {}})], started=0.0,
                             response_headers={"Mcp-Session-Id": SID})["response"]
    found = [f for f in lint_har(traffic.har()) if f.code == "LG001"]
    assert found and "(entry 1)" in found[0].message and "line" not in found[0].message


def test_absurd_timings_never_crash():
    traffic = cancel_before_last_events(timed=False)
    call_entry = traffic.entries[3]
    for started, took in (("2026-03-02T09:30:01.000Z", 1e308), ("9999-12-31T23:59:59.999Z", 5000.0),
                          ("2026-03-02T09:30:01.000Z", float("inf")), ("0001-01-01T00:00:00Z", 5.0)):
        call_entry["startedDateTime"], call_entry["time"] = started, took
        text = json.dumps(har(traffic.entries), indent=2)
        records = har_records(text)
        assert len([r for r in records if r.method == "notifications/progress"]) == 3
        lint_har(text)


def test_uncertainty_is_exactly_overlap_with_another_exchange_of_the_session():
    import random

    from mcplint.input.formats.har import _Item, _mark_uncertain
    from mcplint.input.parse import Frame

    rng = random.Random(13)
    for _ in range(3000):
        items = []
        for _ in range(rng.randint(1, 8)):
            lo = rng.choice([rng.uniform(0, 10), float(rng.randint(0, 10))])
            hi = lo + rng.choice([0.0, 0.001, 1.0, rng.uniform(0, 4), float("inf")])
            items.append(_Item(Frame(1, "x", session=rng.choice("ab")), rng.randint(0, 3), value={}, lo=lo, hi=hi))
        _mark_uncertain(list(items))
        for a in items:
            overlaps = any(b is not a and b.stream != a.stream and b.frame.session == a.frame.session
                           and a.lo < b.hi and b.lo < a.hi for b in items)
            assert (ORDER_UNCERTAIN in a.frame.flags) == overlaps, [(i.lo, i.hi, i.stream) for i in items]


# -- which came first: the arrival number (Record.seq), not the line -------------------------------
# A GET stream opened early is listed before the POSTs whose exchanges its later events interleave
# with, and a minified HAR puts every message on line 1: rules that took the line for "which came
# first" (or for a record's identity) judged these by the file's layout, not by the traffic.
TASK_CAPS = {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}, "list": {}, "cancel": {}}}
RENDER = {"tools": [{"name": "render", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}]}


def one_line(traffic: Traffic) -> str:
    """The HAR minified onto a single line (every message on line 1)."""
    return json.dumps(har(traffic.entries)) + "\n"


def task(task_id, status):
    return {"taskId": task_id, "status": status, "createdAt": "2026-03-02T09:30:01Z",
            "lastUpdatedAt": "2026-03-02T09:30:01Z", "ttl": None}


def task_status(task_id, status):
    return notification("notifications/tasks/status", task(task_id, status))


def task_call(id_, token=None):
    params = {"name": "render", "arguments": {}, "task": {}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return request(id_, "tools/call", params)


def created(id_, task_id="T1"):
    return ok(id_, {"task": task(task_id, "working")})


def task_traffic() -> Traffic:
    traffic = Traffic(server_caps=TASK_CAPS)
    traffic.post(request(1, "tools/list"), 0.5, json=(0.52, ok(1, RENDER)))
    return traffic


def poll_before_completion() -> Traffic:
    """tasks/get sent before the GET stream said 'completed' is answered 'working' after it (its
    answer may predate the completion: no TK008)."""
    traffic = task_traffic()
    traffic.get(0.1, [(2.5, task_status("T1", "completed"))], ended=6.0)
    traffic.post(task_call(2), 1.0, json=(1.05, created(2)))
    traffic.post(request(3, "tasks/get", {"taskId": "T1"}), 2.0, json=(3.0, ok(3, task("T1", "working"))))
    return traffic


def result_before_completion() -> Traffic:
    """tasks/result is answered, then the GET stream still shows the task 'working' (TK015)."""
    traffic = task_traffic()
    traffic.get(0.1, [(5.0, task_status("T1", "working"))], ended=6.0)
    traffic.post(task_call(2), 1.0, json=(1.05, created(2)))
    traffic.post(request(3, "tasks/result", {"taskId": "T1"}), 2.0, json=(2.05, ok(3, {
        "content": [{"type": "text", "text": "done"}], "isError": False,
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "T1"}}})))
    return traffic


def progress_after_completion() -> Traffic:
    """Task progress on the GET stream after tasks/get showed the task 'completed' (PR007)."""
    traffic = task_traffic()
    traffic.get(0.1, [(1.5, progress("p", 5)), (4.0, progress("p", 9))], ended=6.0)
    traffic.post(task_call(2, token="p"), 1.0, json=(1.05, created(2)))
    traffic.post(request(3, "tasks/get", {"taskId": "T1"}), 3.0, json=(3.05, ok(3, task("T1", "completed"))))
    return traffic


def listing_without_task() -> Traffic:
    """Two tasks/list traversals leave out a task that existed before them (TK013, once per page)."""
    traffic = task_traffic()
    traffic.post(task_call(2), 1.0, json=(1.05, created(2)))
    for first, at in ((3, 2.0), (5, 4.0)):
        traffic.post(request(first, "tasks/list"), at, json=(at + 0.05, ok(first, {"tasks": []})))
        traffic.post(request(first + 1, "tasks/get", {"taskId": "T1"}), at + 1, json=(
            at + 1.05, ok(first + 1, task("T1", "working"))))
    return traffic


TASK_CASES = {poll_before_completion: set(), result_before_completion: {"TK015"},
              progress_after_completion: {"PR007"}, listing_without_task: {"TK013"}}


@pytest.mark.parametrize("scenario", TASK_CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("layout", ["pretty", "one-line"])
def test_task_verdicts_follow_arrival_order(scenario, layout):
    traffic = scenario()
    found = lint_har(traffic.har() if layout == "pretty" else one_line(traffic))
    assert protocol_findings(found) == protocol_findings(lint_capture(traffic.capture()))
    assert codes(found) & {"TK008", "TK013", "TK015", "PR007"} == TASK_CASES[scenario]
    if scenario is listing_without_task:
        assert len([f for f in found if f.code == "TK013"]) == 2  # one per listing page


def client_resends() -> Traffic:
    """The client sends the same call three times, none answered (HX004 twice; HX001 names the re-sends)."""
    traffic = Traffic(server_caps={"tools": {}})
    traffic.post(request(1, "tools/list"), 0.5, json=(0.52, ok(1, tools("slow"))))
    for id_, at in ((2, 1.0), (3, 2.0), (4, 3.0)):
        traffic.post(call(id_, "slow", token=f"p{id_}"), at, sse=[(at + 0.1, progress(f"p{id_}", 1))], ended=8.0)
    return traffic


@pytest.mark.parametrize("layout", ["pretty", "one-line"])
def test_resent_calls_are_told_apart_on_one_line(layout):
    traffic = client_resends()
    found = lint_har(traffic.har() if layout == "pretty" else one_line(traffic))
    expected = lint_capture(traffic.capture())
    assert protocol_findings(found) == protocol_findings(expected)
    assert [f.id for f in found if f.code == "HX004"] == [3, 4]
    parties = [(f.id, f.party, len(f.related)) for f in found if f.code == "HX001"]
    assert parties == [(f.id, f.party, len(f.related)) for f in expected if f.code == "HX001"]
    assert parties[:2] == [(2, None, 1), (3, None, 1)]  # the client sent both again


def test_server_request_on_an_early_get_stream_blocks_the_later_call():
    traffic = Traffic(client_caps={"elicitation": {}})
    ask = request(0, "elicitation/create", {"message": "Sure?", "requestedSchema": {
        "type": "object", "properties": {"confirm": {"type": "boolean"}}}})
    traffic.get(0.1, [(2.0, ask)], ended=6.0)  # listed before the call it arrived during
    traffic.post(request(1, "tools/list"), 0.5, json=(0.52, ok(1, tools("alpha"))))
    traffic.post(call(2, "alpha", token="a"), 1.0, sse=[(1.1, progress("a", 1))], ended=6.0)
    found = lint_har(traffic.har())
    assert protocol_findings(found) == protocol_findings(lint_capture(traffic.capture()))
    (stuck,) = [f for f in found if f.code in ("HX001", "HX005")]  # the call waits behind the elicitation
    assert stuck.code == "HX005" and "tools/call #2" in stuck.message


# -- 2026-07-28 (stateless: every request a POST of its own) ----------------------------------------
M = "2026-07-28"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": M,
               "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
               "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}


class Stateless(Traffic):
    """2026-07-28 traffic: no handshake; each request is a POST answered with a JSON body."""

    def __post_init__(self):
        pass

    def ask(self, id_, method, params, at, result=None, error=None):
        body = request(id_, method, dict(params, _meta=MODERN_META))
        answer = {"jsonrpc": "2.0", "id": id_, "error": error} if error is not None else \
            ok(id_, {"resultType": "complete", **result})
        headers = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": M,
                   "Mcp-Method": method, **({"Mcp-Name": params["name"]} if "name" in params else {})}
        self.post(body, at, json=(at + 0.05, answer), headers=headers)


def test_mrtr_retry_ids_reused_later_are_other_requests():
    """An incomplete retry (MR007) answered with an error; its id, reused for another call once
    answered, is not that retry (a minified HAR put both on line 1)."""
    login = {"login": {"method": "elicitation/create", "params": {"mode": "form", "message": "Login?",
             "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}
    traffic = Stateless()
    traffic.ask(1, "tools/call", {"name": "open_issue", "arguments": {}}, 0.0,
                {"resultType": "input_required", "inputRequests": login, "requestState": "s1"})
    traffic.ask(2, "tools/call", {"name": "open_issue", "arguments": {}, "inputResponses": {}, "requestState": "s1"},
                1.0, error={"code": -32602, "message": "Missing input: login"})
    traffic.ask(2, "tools/call", {"name": "search", "arguments": {}}, 2.0, error={"code": -32602, "message": "no"})
    found = lint_har(one_line(traffic))
    assert protocol_findings(found) == protocol_findings(lint_capture(traffic.capture()))
    assert [(f.severity.value, f.direction) for f in found if f.code == "MR007"] == [("error", "c2s"), ("info", "s2c")]


def test_retry_storm_does_not_take_a_reused_id_for_the_attempt():
    """Each call succeeds; its id is then reused by a failing request: no earlier attempt failed."""
    traffic = Stateless()
    for id_ in range(1, 6):
        traffic.ask(id_, "tools/call", {"name": "q", "arguments": {}}, id_ * 1.0,
                    {"content": [{"type": "text", "text": "ok"}], "isError": False})
        traffic.ask(id_, "prompts/get", {"name": f"p{id_}"}, id_ + 0.5, error={"code": -32602, "message": "no"})
    found = lint_har(one_line(traffic))
    assert protocol_findings(found) == protocol_findings(lint_capture(traffic.capture()))
    assert "HX009" not in codes(found)

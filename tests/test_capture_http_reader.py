"""The canonical reader's HTTP facts (written by ``mcplint capture --http``): a record's
``transport``, and an ``http`` note holding a HAR entry read as the exchange the HTTP rules judge."""

from __future__ import annotations

import json

from mcplint.input.readers import read_capture
from mcplint.model import Kind


def _frames(*records: dict) -> list:
    return list(read_capture((json.dumps(r).encode(), False) for r in records))


ENTRY = {"startedDateTime": "2026-12-04T10:00:00.000000Z", "time": 5,
         "request": {"method": "POST", "url": "http://127.0.0.1:1/mcp",
                     "headers": [{"name": "Mcp-Session-Id", "value": "abc"}],
                     "postData": {"mimeType": "application/json", "text": '{"jsonrpc":"2.0","id":1,"method":"ping"}'}},
         "response": {"status": 200, "statusText": "OK",
                      "headers": [{"name": "Content-Type", "value": "text/event-stream"}],
                      "content": {"size": 44, "mimeType": "text/event-stream",
                                  "text": 'id: 7\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'}},
         "timings": {"send": 0, "wait": 1, "receive": 4}}


def test_transport_is_read_and_unknown_values_are_not():
    http, odd, none = _frames({"ts": "2026-12-04T10:00:00Z", "dir": "c2s", "raw": "{}", "transport": "http"},
                              {"ts": "2026-12-04T10:00:00Z", "dir": "c2s", "raw": "{}", "transport": "pigeon"},
                              {"ts": "2026-12-04T10:00:00Z", "dir": "s2c", "raw": "{}"})
    assert (http.transport, odd.transport, none.transport) == ("http", None, None)


def test_an_http_note_with_a_har_entry_is_an_exchange():
    (frame,) = _frames({"ts": "2026-12-04T10:00:00.005Z", "dir": "meta", "event": "http", "raw": "POST /mcp → 200",
                        "session": "http 1", "http": {"entry": 3}, "har": ENTRY})
    assert frame.kind is Kind.COMMENT and frame.session == "http 1" and frame.transport == "http"
    http = frame.http
    assert (http["role"], http["entry"], http["status"], http["sse"]) == ("exchange", 3, 200, True)
    assert http["request_headers"]["mcp-session-id"] == "abc"
    assert [e["id"] for e in http["events"]] == ["7"] and http["sent"][0]["method"] == "ping"


def test_an_http_note_without_a_usable_entry_stays_a_note():
    for har in ("junk", {"request": "x"}, None):
        (frame,) = _frames({"ts": "2026-12-04T10:00:00Z", "dir": "meta", "event": "http", "raw": "x", "har": har})
        assert frame.kind is Kind.COMMENT and frame.http is None


def test_a_record_over_http_that_is_not_json_is_a_broken_message():
    http, stdio = _frames({"ts": "2026-12-04T10:00:00Z", "dir": "s2c", "raw": "not json", "transport": "http"},
                          {"ts": "2026-12-04T10:00:00Z", "dir": "s2c", "raw": "not json"})
    assert http.kind is Kind.MALFORMED and http.error.startswith("server message is not JSON")
    assert stdio.kind is not Kind.MALFORMED  # on a pipe it is text beside the messages (IO001)

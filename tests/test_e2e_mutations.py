"""Mutation tests on real traffic: each real capture in ``samples/`` (recorded by ``mcplint
capture`` between the official SDK client and real servers) gets one violation at a time, and
mcplint must report the expected code on the mutated line.

The captures are the committed ``samples/real-*.mcplog`` files, so these tests need neither node
nor the SDK. A mutation edits messages in place (the line count stays) or inserts one message;
it returns the 0-based index of the line where the finding belongs.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import orjson
import pytest

from mcplint.api import lint_paths

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
WEATHER = "real-sdk-weather-2025-11-25.mcplog"
MODERN = "real-sdk-weather-2026-07-28.mcplog"
FILESYSTEM = "real-filesystem-2025-11-25.mcplog"

Records = list[dict]


# -- helpers --------------------------------------------------------------------------------------
def load(name: str) -> Records:
    return [json.loads(line) for line in (SAMPLES / name).read_text(encoding="utf-8").splitlines()]


def msg(record: dict) -> dict:
    return orjson.loads(record["raw"])


def put(record: dict, message: dict) -> None:
    record["raw"] = orjson.dumps(message).decode()


def find(records: Records, direction: str, predicate: Callable[[dict], bool], start: int = 0) -> int:
    for index in range(start, len(records)):
        record = records[index]
        if record["dir"] != direction:
            continue
        try:
            message = msg(record)
        except orjson.JSONDecodeError:
            continue
        if isinstance(message, dict) and predicate(message):
            return index
    raise LookupError(f"no {direction} message matches")


def method(name: str) -> Callable[[dict], bool]:
    return lambda m: m.get("method") == name


def tool_call(name: str) -> Callable[[dict], bool]:
    return lambda m: m.get("method") == "tools/call" and (m.get("params") or {}).get("name") == name


def answer_to(records: Records, request_index: int) -> int:
    request = msg(records[request_index])
    other = "s2c" if records[request_index]["dir"] == "c2s" else "c2s"
    return find(records, other, lambda m: m.get("id") == request["id"] and "method" not in m, request_index + 1)


def later(ts: str, seconds: float) -> str:
    moment = datetime.fromisoformat(ts) + timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def insert_before_exit(records: Records, direction: str, message: dict, after: int, seconds: float = 5.0) -> int:
    """Insert ``message`` just before the recorder's final record, ``seconds`` after line ``after``."""
    index = len(records) - 1
    records.insert(index, {"ts": later(records[after]["ts"], seconds), "dir": direction,
                           "raw": orjson.dumps(message).decode()})
    return index


def edit(records: Records, index: int, change: Callable[[dict], None]) -> int:
    message = msg(records[index])
    change(message)
    put(records[index], message)
    return index


# -- the mutations ----------------------------------------------------------------------------------
def drop_initialized(rs: Records) -> int:
    index = find(rs, "c2s", method("notifications/initialized"))
    rs[index] = {"ts": rs[index]["ts"], "dir": "meta", "raw": "(notifications/initialized dropped)"}
    return find(rs, "c2s", method("tools/list"))  # the first request that needs the handshake done


def id_on_notification(rs: Records) -> int:
    return edit(rs, find(rs, "c2s", method("notifications/initialized")), lambda m: m.update(id=99))


def request_without_id(rs: Records) -> int:
    return edit(rs, find(rs, "c2s", method("ping")), lambda m: m.pop("id"))


def null_id(rs: Records) -> int:
    return edit(rs, find(rs, "c2s", tool_call("get_forecast")), lambda m: m.update(id=None))


def reuse_id(rs: Records) -> int:
    earlier = msg(rs[find(rs, "c2s", tool_call("get_forecast"))])["id"]
    index = find(rs, "c2s", tool_call("echo"))
    edit(rs, answer_to(rs, index), lambda m: m.update(id=earlier))
    return edit(rs, index, lambda m: m.update(id=earlier))


def reorder_initialize(rs: Records) -> int:
    init = find(rs, "c2s", method("initialize"))
    listing = find(rs, "c2s", method("tools/list"))
    moved = rs[listing:listing + 2]  # tools/list and its result, before initialize
    del rs[listing:listing + 2]
    rs[init:init] = moved
    return init


def undeclare_server_prompts(rs: Records) -> int:
    edit(rs, answer_to(rs, find(rs, "c2s", method("initialize"))),
         lambda m: m["result"]["capabilities"].pop("prompts"))
    return find(rs, "c2s", method("prompts/list"))


def undeclare_client_sampling(rs: Records) -> int:
    edit(rs, find(rs, "c2s", method("initialize")), lambda m: m["params"]["capabilities"].pop("sampling"))
    return find(rs, "s2c", method("sampling/createMessage"))


def undeclare_client_roots(rs: Records) -> int:
    edit(rs, find(rs, "c2s", method("initialize")), lambda m: m["params"]["capabilities"].pop("roots"))
    return find(rs, "s2c", method("roots/list"))


def string_id_in_response(rs: Records) -> int:
    return edit(rs, answer_to(rs, find(rs, "c2s", method("tools/list"))), lambda m: m.update(id=str(m["id"])))


def unknown_response_id(rs: Records) -> int:
    return edit(rs, answer_to(rs, find(rs, "c2s", method("resources/list"))), lambda m: m.update(id=9999))


def duplicate_response(rs: Records) -> int:
    first = answer_to(rs, find(rs, "c2s", tool_call("get_alerts")))
    index = find(rs, "s2c", method("notifications/message"))
    rs[index] = dict(rs[first], ts=rs[index]["ts"])
    return index


def result_and_error(rs: Records) -> int:
    return edit(rs, answer_to(rs, find(rs, "c2s", tool_call("echo"))),
                lambda m: m.update(error={"code": -32603, "message": "Internal error"}))


def wrong_jsonrpc_version(rs: Records) -> int:
    return edit(rs, find(rs, "c2s", tool_call("get_forecast")), lambda m: m.update(jsonrpc="1.0"))


def banner_on_stdout(rs: Records) -> int:
    index = answer_to(rs, find(rs, "c2s", tool_call("get_forecast")))
    rs[index]["raw"] = "Fetching forecast for Seattle..."
    return index


def unknown_progress_token(rs: Records) -> int:
    return edit(rs, find(rs, "s2c", method("notifications/progress")),
                lambda m: m["params"].update(progressToken="no-such-token"))


def progress_after_response(rs: Records) -> int:
    call = find(rs, "c2s", tool_call("index_archive"))
    progress = find(rs, "s2c", method("notifications/progress"), call)
    result = answer_to(rs, call)
    rs[progress], rs[result] = rs[result], rs[progress]
    return result


def response_after_cancel(rs: Records) -> int:
    cancel = find(rs, "c2s", method("notifications/cancelled"))
    request_id = msg(rs[cancel])["params"]["requestId"]
    late = {"jsonrpc": "2.0", "id": request_id,
            "result": {"content": [{"type": "text", "text": "no results for snow"}], "isError": False}}
    return insert_before_exit(rs, "s2c", late, cancel)


def progress_after_cancel(rs: Records) -> int:
    cancel = find(rs, "c2s", method("notifications/cancelled"))
    request_id = msg(rs[cancel])["params"]["requestId"]
    token = msg(rs[find(rs, "c2s", lambda m: m.get("id") == request_id)])["params"]["_meta"]["progressToken"]
    progress = {"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 50, "total": 100}}
    return insert_before_exit(rs, "s2c", progress, cancel)


def server_request_in_stateless_era(rs: Records) -> int:
    return insert_before_exit(rs, "s2c", {"jsonrpc": "2.0", "id": 1, "method": "roots/list"}, len(rs) - 2, 0.1)


def envelope_without_version(rs: Records) -> int:
    return edit(rs, find(rs, "c2s", tool_call("echo")),
                lambda m: m["params"]["_meta"].pop("io.modelcontextprotocol/protocolVersion"))


def result_without_result_type(rs: Records) -> int:
    return edit(rs, answer_to(rs, find(rs, "c2s", tool_call("echo"))), lambda m: m["result"].pop("resultType"))


MUTATIONS = [
    (WEATHER, drop_initialized, "LC007"),
    (WEATHER, id_on_notification, "JR008"),
    (WEATHER, request_without_id, "JR009"),
    (WEATHER, null_id, "JR004"),
    (WEATHER, reuse_id, "JR006"),
    (WEATHER, reorder_initialize, "LC001"),
    (WEATHER, undeclare_server_prompts, "CAP001"),
    (WEATHER, undeclare_client_sampling, "CAP002"),
    (FILESYSTEM, undeclare_client_roots, "CAP002"),
    (WEATHER, string_id_in_response, "JR012"),
    (WEATHER, unknown_response_id, "JR011"),
    (WEATHER, duplicate_response, "JR013"),
    (WEATHER, result_and_error, "JR014"),
    (WEATHER, wrong_jsonrpc_version, "JR001"),
    (WEATHER, banner_on_stdout, "IO001"),
    (WEATHER, unknown_progress_token, "PR003"),
    (WEATHER, progress_after_response, "PR004"),
    (WEATHER, response_after_cancel, "CN006"),
    (MODERN, progress_after_cancel, "CN006"),
    (MODERN, server_request_in_stateless_era, "MD005"),
    (MODERN, envelope_without_version, "MD001"),
    (MODERN, result_without_result_type, "MD003"),
]


def lint(records: Records, path: Path) -> set[tuple[str, int]]:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    findings, _ = lint_paths([str(path)])
    return {(f.code, f.line) for f in findings}


@pytest.mark.parametrize("sample, mutate, code", MUTATIONS, ids=[m[1].__name__ for m in MUTATIONS])
def test_mutation_is_reported_on_the_mutated_line(tmp_path, sample, mutate, code):
    records = load(sample)
    baseline = lint(records, tmp_path / "baseline.mcplog")
    mutated = copy.deepcopy(records)
    line = mutate(mutated) + 1
    got = lint(mutated, tmp_path / f"{mutate.__name__}.mcplog")
    assert (code, line) in got, f"{mutate.__name__}: expected {code}@{line}, mcplint reported {sorted(got)}"
    assert (code, line) not in baseline, "the unmutated capture already had this finding"


def test_every_real_sample_is_mutated():
    assert {sample for sample, _, _ in MUTATIONS} == {p.name for p in SAMPLES.glob("real-*.mcplog")}

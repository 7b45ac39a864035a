"""ReDoS growth: ``mcplint redact`` and ``mcplint check`` take linear time on adversarial runs.

Each run (``@``, ``.``, digits, the base64 alphabet, repeated ``eyJ``, ``ghp_``, ``password is ``,
``1//0``, digit groups, ``://``, ``%``, ``\\u00``...) fills 512 KB and 1 MB, as a JSON string value
in a JSON Lines message and as a plain text line. Time for 1 MB over time for 512 KB stays under
3 (linear gives 2, quadratic 4); no absolute times. Measurements alternate between the two sizes
and keep the best of each (other processes share the machine); a ratio over the bound is measured
again before it fails; below :data:`FLOOR` seconds for 1 MB nothing is judged (timer noise).
"""

from __future__ import annotations

import io
import json
import string
import time
from collections.abc import Callable

import pytest

from mcplint.api import LintOptions, lint_stream
from mcplint.redact import RedactOptions, Redactor, redact_stream
from mcplint.report.summary import RunSummary

HALF, FULL = 512 * 1024, 1024 * 1024
BOUND = 3.0
FLOOR = 0.05
RUNS = {
    "at": "@", "dot": ".", "dash": "-", "equals": "=", "digits": "0123456789",
    "base64": string.ascii_letters + string.digits + "+/", "eyJ": "eyJ", "ghp_": "gh" + "p_",
    "password-is": "password is ", "google-refresh": "1//0", "digit-groups": "4111 ", "scheme": "://",
    "percent": "%", "u-escape": "\\u00", "bearer": "Bearer ", "session": "session ", "iban": "DE89 ",
    "ssn": "123-45-",
}
HANDSHAKE = (b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
             b'"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n'
             b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}},'
             b'"serverInfo":{"name":"s","version":"1"}}}\n'
             b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')


def line(piece: str, size: int, form: str) -> bytes:
    text = (piece * (size // len(piece) + 1))[:size]
    if form == "json":
        text = ('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":'
                + json.dumps(text) + "}}")
    return text.encode() + b"\n"


def redact(data: bytes) -> None:
    redact_stream(io.BytesIO(data), io.BytesIO(), Redactor(RedactOptions(key=b"k")), "jsonl")


def check(data: bytes) -> None:
    for _ in lint_stream(io.BytesIO(HANDSHAKE + data), "growth.jsonl", None, LintOptions("jsonl"), RunSummary(),
                         progress=False):
        pass


def _timed(run: Callable[[bytes], None], data: bytes) -> float:
    start = time.perf_counter()
    run(data)
    return time.perf_counter() - start


def best_times(run: Callable[[bytes], None], half: bytes, full: bytes, reps: int) -> tuple[float, float]:
    t_half = t_full = float("inf")
    for _ in range(reps):
        t_half = min(t_half, _timed(run, half))
        t_full = min(t_full, _timed(run, full))
    return t_half, t_full


def ratio(run: Callable[[bytes], None], piece: str, form: str) -> tuple[float, float]:
    """(t(512 KB), t(1 MB)), measured again with more repetitions when the first look is over the bound."""
    half, full = line(piece, HALF, form), line(piece, FULL, form)
    run(line(piece, 4096, form))  # warm caches and lazy imports
    t_half, t_full = best_times(run, half, full, 2)
    if t_full > max(BOUND * t_half, FLOOR):
        t_half, t_full = best_times(run, half, full, 4)
    return t_half, t_full


@pytest.mark.parametrize("form", ["json", "text"])
@pytest.mark.parametrize("name", sorted(RUNS))
@pytest.mark.parametrize("command", ["redact", "check"])
def test_time_grows_linearly_on_adversarial_runs(command, name, form):
    t_half, t_full = ratio(redact if command == "redact" else check, RUNS[name], form)
    assert t_full <= max(BOUND * t_half, FLOOR), \
        f"{command} on {name!r} ({form}): {t_half:.3f}s for 512 KB, {t_full:.3f}s for 1 MB"


def test_the_test_sees_a_quadratic_scan():
    """Test the test: a scan that is quadratic in the length fails the bound."""
    def quadratic(data: bytes) -> None:  # (fine steps: its times stand well above the machine's noise)
        n = len(data) // 1024
        for i in range(n):
            data.count(b"@", 0, i * 1024)

    t_half, t_full = best_times(quadratic, line("@", HALF, "text"), line("@", FULL, "text"), 3)
    assert t_full > BOUND * t_half


if __name__ == "__main__":  # python -m tests.test_redact_growth: the measured times and ratios
    for command, run in (("redact", redact), ("check", check)):
        for name in sorted(RUNS):
            for form in ("json", "text"):
                t_half, t_full = ratio(run, RUNS[name], form)
                print(f"{command:6} {name:15} {form:4} {t_half:7.3f}s {t_full:7.3f}s  x{t_full / t_half:.2f}")

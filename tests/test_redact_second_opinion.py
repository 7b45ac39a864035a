"""A second opinion on ``mcplint redact``: Yelp's detect-secrets (a maintained detector set with
its own keyword, entropy and provider plugins) scans the captures before redaction; every value
it finds must be gone afterwards.

detect-secrets runs only here, in the tests: its plugins are line-by-line Python regex loops
(about 1 MB/s), far too slow for ``redact``'s hot path, and our detectors cover its provider
plugins. What it adds is an independent judgement of what counts as a secret.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mcplint.redact import redact_stream
from mcplint.redact.engine import Redactor, RedactOptions
from mcplint.redact.providers import RULES
from tests.redact_helpers import carriers

detect_secrets = pytest.importorskip("detect_secrets")
from detect_secrets import SecretsCollection  # noqa: E402
from detect_secrets.settings import default_settings  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = sorted(p for p in [*(ROOT / "samples").iterdir(), *(ROOT / "tests" / "corpus").iterdir()]
                  if p.is_file() and p.suffix in (".mcplog", ".jsonl", ".har", ".log", ".json", ".transcript")
                  and not p.name.endswith(".expect.json"))


def _opinion(path: Path) -> list[tuple[int, str, str]]:
    """(line, plugin, value) of what detect-secrets finds in ``path``."""
    with default_settings():
        found = SecretsCollection()
        found.scan_file(str(path))
        return [(s.line_number, s.type, s.secret_value) for _, s in found if s.secret_value]


def _redacted(path: Path, tmp_path: Path) -> str:
    out = tmp_path / ("redacted-" + path.name)
    with open(path, "rb") as src, open(out, "wb") as dst:
        redact_stream(src, dst, Redactor(RedactOptions(key=b"second-opinion")))
    return out.read_text(encoding="utf-8", errors="replace")


def _survivors(path: Path, tmp_path: Path) -> list[tuple[int, str, str]]:
    redacted = _redacted(path, tmp_path)
    return [(line, plugin, value[:12] + "...") for line, plugin, value in _opinion(path) if value in redacted]


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda p: p.name)
def test_what_detect_secrets_finds_in_a_real_capture_is_gone_after_redact(capture, tmp_path):
    assert _survivors(capture, tmp_path) == []


def test_what_detect_secrets_finds_in_planted_carriers_is_gone_after_redact(tmp_path):
    rnd = random.Random(14)
    lines = []
    for rule in RULES:
        if rule.kind != "private-key":
            lines.extend(carriers(rule.sample(rnd), rnd))
    planted = tmp_path / "planted.log"
    planted.write_text("\n".join(line.replace("\r\n", " ") for line in lines) + "\n", encoding="utf-8")
    assert len(_opinion(planted)) > 100  # the second opinion does see the plants
    assert _survivors(planted, tmp_path) == []

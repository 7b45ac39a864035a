"""The real-traffic regression corpus: recorded sessions between MCP implementations, each held
to a reviewed list of expected findings.

Every capture in ``tests/corpus/`` (``*.mcplog`` recorded with ``mcplint capture`` over stdio,
``*.har`` recorded over HTTP) has a ``<name>.expect.json`` written by a reviewer who read every
message against the spec of the negotiated revision. Its ``deviations`` are the genuine ones
(each with the spec sentence and level); ``tolerated`` are correct findings that the scenario
itself causes (a deliberately slow tool). The test asserts that mcplint reports every listed
deviation, and that it reports no error or warning outside the two lists; info findings are free.

The recorders in ``tests/corpus/recorders/`` say how each capture was made; the tests only lint
the committed files and need neither node nor the recorded packages.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcplint.api import lint_paths

CORPUS = Path(__file__).resolve().parent / "corpus"
CAPTURE_SUFFIXES = (".mcplog", ".har")
EXPECT_SUFFIX = ".expect.json"
KEYS = ("client", "server", "transport", "revision", "recorded_with", "scenario", "deviations", "tolerated")
BLOCKING = ("error", "warning")


def expect_files() -> list[Path]:
    return sorted(CORPUS.glob("*" + EXPECT_SUFFIX))


def capture_files() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix in CAPTURE_SUFFIXES)


def stem(expect: Path) -> str:
    return expect.name[: -len(EXPECT_SUFFIX)]


def capture_of(expect: Path) -> Path:
    found = [CORPUS / (stem(expect) + suffix) for suffix in CAPTURE_SUFFIXES
             if (CORPUS / (stem(expect) + suffix)).is_file()]
    assert len(found) == 1, f"{expect.name}: expected exactly one capture named {stem(expect)}.mcplog or .har"
    return found[0]


def matches(finding, expected: dict) -> bool:
    """Does ``finding`` satisfy one reviewed entry (code and method; line and severity when given)?"""
    return (finding.code == expected["code"]
            and finding.method == expected.get("method")
            and ("line" not in expected or finding.line == expected["line"])
            and ("severity" not in expected or finding.severity.value == expected["severity"]))


def describe(findings) -> str:
    return "\n".join(f"  {f.line}: {f.code} [{f.severity.value}] {f.method}: {f.message}" for f in findings) \
        or "  nothing"


def label(entry: dict) -> str:
    where = f"@{entry['line']}" if "line" in entry else ""
    severity = f" [{entry['severity']}]" if "severity" in entry else ""
    return f"{entry['code']}{where}{severity} {entry.get('method')}"


@pytest.mark.parametrize("expect", expect_files(), ids=stem)
def test_corpus_capture_matches_reviewed_findings(expect):
    spec = json.loads(expect.read_text(encoding="utf-8"))
    capture = capture_of(expect)
    findings, summary = lint_paths([str(capture)])

    versions = {session.version for session in summary.sessions.get(str(capture), [])}
    assert spec["revision"] in versions, f"{capture.name}: sessions negotiated {sorted(map(str, versions))}"

    missing = [label(d) for d in spec["deviations"] if not any(matches(f, d) for f in findings)]
    allowed = {(entry["code"], entry.get("method")) for entry in spec["deviations"] + spec["tolerated"]}
    unexpected = [f for f in findings
                  if f.severity.value in BLOCKING and (f.code, f.method) not in allowed]
    assert not missing and not unexpected, (
        f"{capture.name}:\n"
        f"reviewed deviations mcplint did not report: {missing or 'none'}\n"
        f"errors/warnings outside the reviewed list:\n{describe(unexpected)}\n"
        f"mcplint reported:\n{describe(findings)}")


def test_every_capture_has_an_expect_file_and_vice_versa():
    captures = {p.name[: -len(p.suffix)] for p in capture_files()}
    expects = {stem(p) for p in expect_files()}
    assert captures, "the corpus is empty"
    assert not captures - expects, f"captures without {EXPECT_SUFFIX}: {sorted(captures - expects)}"
    assert not expects - captures, f"{EXPECT_SUFFIX} files without a capture: {sorted(expects - captures)}"
    assert len(captures) == len(capture_files()), "two captures share a name (.mcplog and .har)"


@pytest.mark.parametrize("expect", expect_files(), ids=stem)
def test_expect_file_shape(expect):
    spec = json.loads(expect.read_text(encoding="utf-8"))
    assert not [key for key in KEYS if key not in spec], f"{expect.name}: missing keys"
    assert isinstance(spec["scenario"], list) and spec["scenario"]
    for entry in spec["deviations"]:
        assert {"code", "method", "spec"} <= entry.keys(), f"{expect.name}: {entry}"
        assert entry.get("severity", "error") in ("error", "warning", "info"), entry
        assert isinstance(entry.get("line", 1), int), entry
    for entry in spec["tolerated"]:
        assert {"code", "method", "why"} <= entry.keys(), f"{expect.name}: {entry}"


def test_corpus_files_stay_small():
    big = [p.name for p in CORPUS.iterdir() if p.is_file() and p.stat().st_size >= 200_000]
    assert not big, f"corpus files of 200 KB or more: {big}"

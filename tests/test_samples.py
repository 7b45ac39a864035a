"""samples/README.md promises, per sample, exactly which findings mcplint reports; hold it to that."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcplint.api import lint_paths

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
README = SAMPLES / "README.md"

_SECTION = re.compile(r"^### (\S+)\s*$", re.M)
_EXPECTED = re.compile(r"^Expected: (.+?)\s*$", re.M)
_PAIR = re.compile(r"^([A-Z]{2,4}\d{3})@(\d+)$")


def readme_expectations() -> dict[str, set[tuple[str, int]]]:
    """``{file name: {(code, line), ...}}`` from the ``### <file>`` sections of the README."""
    text = README.read_text(encoding="utf-8")
    headings = list(_SECTION.finditer(text))
    out: dict[str, set[tuple[str, int]]] = {}
    for i, heading in enumerate(headings):
        end = headings[i + 1].start() if i + 1 < len(headings) else len(text)
        body = text[heading.end():end]
        lines = _EXPECTED.findall(body)
        name = heading.group(1)
        assert len(lines) == 1, f"section {name!r} needs exactly one 'Expected:' line, found {len(lines)}"
        assert name not in out, f"section {name!r} appears twice"
        out[name] = parse_expected(name, lines[0])
    return out


def parse_expected(name: str, spec: str) -> set[tuple[str, int]]:
    if spec == "none":
        return set()
    pairs = set()
    for item in spec.split(","):
        match = _PAIR.match(item.strip())
        assert match, f"{name}: bad expectation {item.strip()!r} (want CODE@LINE)"
        pairs.add((match.group(1), int(match.group(2))))
    return pairs


EXPECTATIONS = readme_expectations()


def sample_files() -> list[str]:
    return sorted(p.name for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")


def test_every_sample_is_described():
    files = set(sample_files())
    assert files - set(EXPECTATIONS) == set(), "samples without a section in samples/README.md"
    assert set(EXPECTATIONS) - files == set(), "README sections for files that do not exist"


def test_clean_samples_cover_every_revision():
    from mcplint import protocol

    clean = [name for name in EXPECTATIONS if name.startswith("clean-")]
    for version in protocol.VERSIONS:
        assert any(version in name for name in clean), f"no clean sample for {version}"
    assert all(not EXPECTATIONS[name] for name in clean), "clean samples must expect no findings"


@pytest.mark.parametrize("name", sorted(EXPECTATIONS))
def test_sample_findings_match_readme(name):
    if name.endswith(".flow"):
        pytest.importorskip("mitmproxy", reason="reading mitmproxy flow files needs the 'mitmproxy' extra")
    findings, summary = lint_paths([str(SAMPLES / name)])
    got = {(f.code, f.line) for f in findings}
    expected = EXPECTATIONS[name]
    detail = "\n".join(f"  {f.code}@{f.line} [{f.severity.value}] {f.message}" for f in findings)
    assert got == expected, (
        f"{name}: missing {sorted(expected - got)}, unexpected {sorted(got - expected)}\n"
        f"mcplint reported:\n{detail or '  nothing'}")
    assert summary.records > 0

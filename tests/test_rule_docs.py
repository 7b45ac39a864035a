"""Every rule has a page; every page's examples run as tests (ruff mdtest / semgrep style).

In ``## Example`` blocks each line annotated ``  # <severity>: [CODE, ...]`` must produce
exactly those findings; the rule under test must produce no other finding. ``## Use instead``
blocks must draw no finding from the rule under test (nor from any annotated code).
"""

from __future__ import annotations

import pytest

from mcplint.analysis.engine import Engine
from mcplint.config.settings import configure
from mcplint.rules import all_rules, load
from mcplint.rules._base import options_model
from tests.ruledocs import RULES_DIR, parse_page, run_example

REGISTRY = load()
ENGINE = Engine()
MANDATORY = ("What it does", "Why is this bad?", "Example", "Use instead")


def _page(code):
    cls = REGISTRY[code]
    return RULES_DIR / f"{code}-{cls.name}.md"


@pytest.mark.parametrize("code", sorted(REGISTRY))
def test_rule_has_page(code):
    cls = REGISTRY[code]
    path = _page(code)
    assert path.is_file(), f"missing rule page {path.name}"
    page = parse_page(path)
    assert page.title == f"# {cls.name} ({code})"
    for section in MANDATORY:
        assert section in page.sections, f"{path.name}: missing section '## {section}'"
    assert page.sections["What it does"].strip().startswith("Checks"), "'What it does' starts with 'Checks'"
    bad = [e for e in page.examples if e.section == "Example"]
    good = [e for e in page.examples if e.section == "Use instead"]
    assert bad and good, f"{path.name}: needs a failing and a passing transcript example"
    assert any(code in e.codes for e in bad), f"{path.name}: no example line annotated with {code}"


def test_no_orphan_pages():
    names = {f"{code}-{cls.name}.md" for code, cls in REGISTRY.items()}
    orphans = sorted(p.name for p in RULES_DIR.glob("*.md") if p.name != "README.md" and p.name not in names)
    assert not orphans, f"rule pages without a rule: {orphans}"


def _examples():
    for code in sorted(REGISTRY):
        path = _page(code)
        if not path.is_file():
            continue
        for index, example in enumerate(parse_page(path).examples):
            yield pytest.param(code, example, id=f"{code}-{example.section.replace(' ', '_')}-{index}")


@pytest.mark.parametrize("code,example", list(_examples()))
def test_rule_examples(code, example):
    engine = ENGINE
    if example.options:  # the example runs with options of the page's rule
        options = options_model(REGISTRY[code].Options).model_validate(example.options).model_dump()
        engine = Engine(configure(all_rules(), {code: options}))
    findings = run_example(example, engine)
    watched = example.codes | {code}
    got = {(f.line, f.code): f.severity.value for f in findings if f.code in watched}
    if example.section == "Use instead":
        assert not got, f"'Use instead' example draws findings: {got}"
    else:
        assert got == example.expected, (
            f"expected {example.expected}, got {got}\nall findings: "
            + "; ".join(f"{f.line}:{f.code} {f.message}" for f in findings))

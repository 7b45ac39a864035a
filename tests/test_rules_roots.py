"""Roots rule (RT001): generated spec-valid roots answers draw nothing, non-file URIs draw
RT001, in every revision and in 2026-07-28 inputResponses."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.clientfeatures import ALL, MODERN, Script, findings

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
segment = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=10)


@st.composite
def root(draw):
    path = "/".join(draw(st.lists(segment, min_size=1, max_size=4)))
    scheme = draw(st.sampled_from(["file://", "FILE://", "file://"]))
    value = {"uri": f"{scheme}/{path}"}
    if draw(st.booleans()):
        value["name"] = draw(segment)
    return value


@st.composite
def session(draw):
    rev = draw(st.sampled_from(ALL))
    answers = [{"roots": draw(st.lists(root(), max_size=4))} for _ in range(draw(st.integers(1, 3)))]
    return rev, answers


def build(rev, answers):
    caps = {"roots": {"listChanged": True}} if rev != MODERN else {"roots": {}}
    script = Script(rev, caps)
    return script, [script.exchange("roots/list", None, answer) for answer in answers]


@SETTINGS
@given(session())
def test_valid_roots_draw_no_finding(case):
    script, _ = build(*case)
    assert findings(script, "RT") == []


@SETTINGS
@given(session(), st.sampled_from(["https://github.com/x/y", "/home/user/project", "C:\\\\work", "file:/tmp/x", 42]),
       st.data())
def test_non_file_uri_is_reported(case, bad, data):
    rev, answers = case
    index = data.draw(st.integers(0, len(answers) - 1))
    answers[index]["roots"].insert(data.draw(st.integers(0, len(answers[index]["roots"]))), {"uri": bad})
    script, lines = build(rev, answers)
    assert (lines[index][1], "RT001") in {(f.line, f.code) for f in findings(script, "RT")}


@pytest.mark.parametrize("rev", ["2024-11-05", MODERN])
def test_missing_roots_array_is_left_to_schema_validation(rev):
    script, _ = build(rev, [{}])
    assert findings(script, "RT") == []


def test_roots_error_answer_is_not_judged():
    script = Script("2025-06-18", {"roots": {}})
    script.exchange("roots/list", None, error={"code": -32601, "message": "Method not found"})
    assert findings(script, "RT") == []

